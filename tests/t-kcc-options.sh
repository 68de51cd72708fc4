#!/bin/sh
# kcc's options as the C compiler spells them, and where its outputs go.
#
#  1. Every way of giving the preprocessor a macro or a header (-imacros,
#     joined -includeFILE, -Wp,-D, -Xpreprocessor, gcc's long forms such
#     as --include=FILE, --define-macro X, --include-directory=DIR, the
#     -iprefix family) reaches the device pass too: both passes must see
#     the same kernels.  Before, they reached the host pass alone, and
#     kcc built an object whose PTX was another program's (exit 0).  A
#     preprocessor option kcc cannot give the PTX compiler is refused
#     (kept for the host pass with --no-ptx), and so is a response file
#     (@FILE), which kcc took for an input.  So do the options that change
#     what the C compiler predefines (-O2: __OPTIMIZE__, -ffast-math,
#     -fopenmp, -fpic, -pthread, -ffreestanding ...) and the sysroot
#     (-isysroot, --sysroot, with -I=DIR in it); before, -O2 built the
#     host code with __OPTIMIZE__ and the PTX without.  Those nvcc cannot
#     take or follow (-nostdinc, -undef, -funsigned-char where char is
#     signed, -fshort-wchar, ...) are refused.
#  2. -c -o OUT with a kernel file and any other source (.cc, .f90, .h):
#     refused, as gcc refuses it (OUT held the second object).
#  3. --save-ptx's default name cuts the object's own extension, not one
#     in a directory's name or a hidden file's leading dot.
#  4. --save-ptx=FILE with several kernel files, or naming the object:
#     refused (the last PTX, or the object, was kept).
#  5. -fsyntax-only without -c checks both passes and links nothing (it
#     linked an object that was never written).
#  6. A relocated kcc run through a symbolic link finds the headers
#     beside the kcc the link points to.
#  7. An output kcc cannot write is said in kcc's words, exit status 2.
#
# The device pass runs through a stand-in PTX compiler that preprocesses
# as nvcc does (with the C compiler, -Xcompiler's list included) and
# writes, as its "PTX", the kernel handles it saw; with the configured
# nvcc, section 1 runs again through it, and its PTX must hold the
# entries of the same kernels.
. "${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}/tests/kcc-test.env"
. "${KC_TEST_TOP_SRCDIR:?run me through tests/run-backend}/tests/kcc-test-lib.sh"

if ! have_nvcc; then
  echo "# no PTX compiler (KC_NVCC='$KC_NVCC'): the stand-in only"
fi

work=$PWD/t-kcc-options.dir
rm -rf "$work"
mkdir -p "$work/bin" "$work/idir" || exit 99
cd "$work" || exit 99
KCC_INCLUDEDIR=
export KCC_INCLUDEDIR
unset KC_NVCCFLAGS KC_PTX_ARCH KCC_VERBOSE
saved_path=$PATH

# The stand-in PTX compiler.
cat >bin/nvcc <<'EOF'
#!/bin/sh
# Preprocesses its source as nvcc's device pass does (-Xcompiler's list
# goes to the preprocessor; __NVCC__ defined) and writes the kernel
# handles it saw, one a line, as its PTX.
case " $* " in *" --list-gpu-arch "*) echo compute_75; exit 0 ;; esac
set -- "$@" -x-end-x
out=
while test "$1" != -x-end-x; do
  a=$1
  shift
  case $a in
  -x) shift ;;
  -ptx | -arch=* | -std=* | -lineinfo) ;;
  -o) out=$1; shift ;;
  # nvcc reads -I=DIR as -I DIR (and -I==DIR as -I=DIR).
  -I=*) set -- "$@" "-I${a#-I=}" ;;
  -Xcompiler)
    # Its value is a comma-separated list of host compiler arguments.
    list=$1,
    shift
    while test -n "$list"; do
      set -- "$@" "${list%%,*}"
      list=${list#*,}
    done ;;
  *) set -- "$@" "$a" ;;
  esac
done
shift
${FAKE_NVCC_CC:-cc} -E -x c -D__NVCC__ "$@" -o "$out.i" || exit 1
grep -o 'kc__kernel_[A-Za-z0-9_]*' "$out.i" | sort -u >"$out"
EOF
chmod +x bin/nvcc || exit 99
FAKE_NVCC_CC=$CC
export FAKE_NVCC_CC

# ---------------------------------------- 1. preprocessor options, both passes
# The kernel is named five when SCALE is 5, else one.
cat >k.kc.c <<'EOF'
#include <kc/kernel.h>
#ifdef WANT
#include <scale.h>
#endif
#ifndef SCALE
#define SCALE 1
#endif
#if SCALE == 5
KC_FOR_ARGS(five, ((long *, y)), i, y[i] = SCALE)
#else
KC_FOR_ARGS(one, ((long *, y)), i, y[i] = SCALE)
#endif
EOF
printf '#define SCALE 5\n' >sc.h
printf '#define SCALE 5\n' >idir/scale.h
# A -D value with a blank goes to the device pass in a header: it must
# come before an -imacros file, as -D does.
printf '#ifdef SP\n#define SCALE 5\n#endif\n' >sp.h

# device_has NAME FILE: the device pass's output FILE holds kernel NAME
# (the stand-in's handle, or nvcc's entry).
device_has() {
  grep -q -e "^kc__kernel_$1\$" -e "\.entry $1__kcp(" "$2"
}
# both_see KERNEL WHERE NVCC OPTIONS [SOURCE [WHAT]]: kcc -c with OPTIONS
# (one string, split at blanks) must build KERNEL in both passes, of
# SOURCE (default k.kc.c; WHAT says what KERNEL means).
both_see() {
  k=$1 where=$2 nv=$3 opts=$4 bs_src=${5:-k.kc.c}
  bs_what="$opts ($nv)${6:+: $6}"
  rm -f pp.o pp.ptx
  # shellcheck disable=SC2086
  if ! PATH=$where KC_NVCC=$nv $KCC $KC_CPPFLAGS $opts -c "$bs_src" -o pp.o \
    --save-ptx=pp.ptx 2>err; then
    head -n 5 err
    fail "$bs_what: kcc failed"
  elif ! $NM pp.o | grep -q " kc__kernel_$k\$"; then
    fail "$bs_what: the host pass did not build kernel $k"
  elif ! device_has "$k" pp.ptx; then
    fail "$bs_what: the host pass built kernel $k, the device pass another"
  else
    ok "$bs_what: both passes built kernel $k"
  fi
}
for_each_form() { # for_each_form WHERE NVCC
  for opts in "-imacros sc.h" "-imacrossc.h" "--imacros=sc.h" \
    "-includesc.h" "--include=sc.h" "--include sc.h" \
    "-Wp,-DSCALE=5" "-Wp,-D,SCALE=5" "-Wp,-UWANT,-DSCALE=5" \
    "-Wp,-MD,pp.d,-DSCALE=5" \
    "-Xpreprocessor -DSCALE=5" "-Xpreprocessor -D -Xpreprocessor SCALE=5" \
    "--define-macro=SCALE=5" "--define-macro SCALE=5" \
    "-DWANT --include-directory=idir" "-DWANT --include-directory idir" \
    "-DWANT -Wp,-Iidir" "-DWANT --include-directory-after=idir" \
    "-DWANT -idirafteridir" "-DWANT -iprefix ./ -iwithprefixidir" \
    "-DWANT --include-prefix=./ --include-with-prefix-before=idir"; do
    both_see five "$1" "$2" "$opts"
  done
  both_see one "$1" "$2" "-DSCALE=5 --undefine-macro=SCALE"
  both_see one "$1" "$2" "-DSCALE=5 --undefine-macro SCALE"
  both_see one "$1" "$2" "-DSCALE=5 -Wp,-USCALE"
  # A -D value with a blank, which kcc gives the device pass in a header.
  rm -f pp.o pp.ptx
  if ! PATH=$1 KC_NVCC=$2 $KCC $KC_CPPFLAGS '-DSP=a b' -imacros sp.h \
    -c k.kc.c -o pp.o --save-ptx=pp.ptx 2>err; then
    head -n 5 err
    fail "-DSP='a b' -imacros sp.h ($2): kcc failed"
  elif $NM pp.o | grep -q ' kc__kernel_five$' && device_has five pp.ptx; then
    ok "-DSP='a b' -imacros sp.h ($2): both passes built kernel five"
  else
    fail "-DSP='a b' -imacros sp.h ($2): the passes built different kernels"
  fi
  # Options that change what the C compiler predefines: the device pass
  # gets them too (before, -O2 gave the host pass __OPTIMIZE__ and the
  # PTX the kernels of a build without it).
  while read -r cond opts; do
    predef_sees "$1" "$2" "$cond" "$opts"
  done <<'EOF'
defined(__OPTIMIZE__)&&!defined(__NO_INLINE__) -O2
defined(__OPTIMIZE__)&&!defined(__NO_INLINE__) -O
defined(__OPTIMIZE__)&&!defined(__NO_INLINE__) -O3
defined(__OPTIMIZE__)&&!defined(__NO_INLINE__) -O100
defined(__OPTIMIZE__)&&!defined(__NO_INLINE__) -Og
defined(__OPTIMIZE__)&&defined(__OPTIMIZE_SIZE__) -Os
defined(__OPTIMIZE__)&&defined(__FAST_MATH__) -Ofast
defined(__OPTIMIZE__)&&!defined(__FAST_MATH__) -Ofast -fno-fast-math
defined(__OPTIMIZE__)&&defined(__NO_INLINE__) -O2 -fno-inline
defined(__FAST_MATH__) -ffast-math
defined(__NO_MATH_ERRNO__) -fno-math-errno
defined(_OPENMP) -fopenmp
__PIC__==1 -fpic
defined(_REENTRANT) -pthread
__STDC_HOSTED__==0 -ffreestanding
defined(__OPTIMIZE__) -O1 -fsanitize=address,undefined
EOF
  # A sysroot: the system headers are found in sr/usr, scale.h (-I=DIR is
  # DIR in the sysroot) in sr/inc; the device pass had no sysroot (and
  # nvcc read -I=/inc as -I/inc).
  for opts in "-isysroot sr" -isysrootsr --sysroot=sr "--sysroot sr" \
    -Wp,-isysroot,sr; do
    both_see five "$1" "$2" "-DWANT $opts -I=/inc"
  done
  # The char signedness the target has, which the PTX has too.
  both_see one "$1" "$2" "-f$char_default-char"
  # -fno-gnu-tm is the default (-fgnu-tm is refused, below).
  both_see one "$1" "$2" -fno-gnu-tm
}
# predef_sees WHERE NVCC COND OPTIONS: OPTIONS make COND (an #if
# expression) hold for the host pass: it must hold for the device pass.
predef_sees() {
  printf '%s\n' '#include <kc/kernel.h>' "#if $3" \
    'KC_FOR_ARGS(on, ((long *, y)), i, y[i] = 1)' '#else' \
    'KC_FOR_ARGS(off, ((long *, y)), i, y[i] = 1)' '#endif' >pd.kc.c
  both_see on "$1" "$2" "$4" pd.kc.c "$3"
}
# sr: a sysroot of the C compiler's system headers, and inc/scale.h.
mkdir -p sr/inc || exit 99
ln -s "$($CC -print-sysroot 2>/dev/null)/usr" sr/usr || exit 99
printf '#define SCALE 5\n' >sr/inc/scale.h
# char as the target has it (signed on x86-64, unsigned on aarch64), and
# the other way.
if $CC -dM -E -x c /dev/null | grep -q __CHAR_UNSIGNED__; then
  char_default=unsigned char_other=signed
else
  char_default=signed char_other=unsigned
fi
for_each_form "$work/bin:$saved_path" nvcc
if have_nvcc; then
  for_each_form "$saved_path" "$KC_NVCC"
fi

# What the PTX compiler cannot be given, or cannot follow, is refused
# while a device pass runs, with nothing written; --no-ptx keeps it for
# the host pass.
# refused WHAT-ERROR KCC-ARGS...
refused() {
  werr=$1
  shift
  refuses "$*" "^kcc: error: .*$werr" rf.o env PATH="$work/bin:$saved_path" \
    KC_NVCC=nvcc $KCC $KC_CPPFLAGS "$@" -c k.kc.c -o rf.o
}
refused 'cannot give this to the PTX compiler' -Wp,-dD
refused 'cannot give this to the PTX compiler' -Xpreprocessor -undef
refused 'cannot give this to the PTX compiler' -Xpreprocessor -D
refused 'cannot give this to the PTX compiler' -I- -Iidir
refused 'cannot give this to the PTX compiler' -iprefix "./a b/" \
  -iwithprefix idir
printf '%s\n' -DSCALE=5 >rsp
refused 'response file' @rsp
# nvcc's CUDA headers need the system headers and predefined macros, and
# its device code keeps char and wchar_t as the target has them.
refused 'cannot give this to the PTX compiler: .*system headers' -nostdinc
refused 'cannot give this to the PTX compiler: .*system headers' \
  --no-standard-includes
refused 'cannot give this to the PTX compiler: .*predefined macros' -undef
refused 'cannot give this to the PTX compiler' -fgnu-tm
refused 'cannot pass an empty sysroot on' --sysroot=
refused 'cannot pass an empty sysroot on' -isysroot ''
refused "PTX compiler cannot follow this.*char signedness" "-f$char_other-char"
refused "PTX compiler cannot follow this.*wchar_t size" -fshort-wchar
refused "PTX compiler cannot follow this" -fexec-charset=ISO-8859-1
for opt in -Wp,-dD "-f$char_other-char" -fshort-wchar; do
  if PATH=$work/bin:$saved_path KC_NVCC=nvcc $KCC $KC_CPPFLAGS --no-ptx \
    "$opt" -c k.kc.c -o np.o 2>err; then
    ok "$opt with --no-ptx: the host pass alone"
  else
    head -n 3 err
    fail "$opt with --no-ptx was refused"
  fi
done

# ---------------------------------------- 2. -c -o with several sources
printf 'int h_value(void) { return 1; }\n' >h.c
for other in h.cc h.cxx h.cpp h.m h.f90 h.F90 h.f h.h; do
  cp h.c "$other"
  refuses "-c -o out.o k.kc.c $other" 'several source files' out.o \
    env KC_NVCC=no $KCC $KC_CPPFLAGS -c -o out.o k.kc.c "$other"
done

# ---------------------------------------- 3, 4. --save-ptx
PATH=$work/bin:$saved_path
mkdir -p build.d || exit 99
# save_name OBJECT WANT: --save-ptx beside OBJECT writes WANT, nothing else.
save_name() {
  rm -rf sv && mkdir -p sv/build.d || exit 99
  if (cd sv && KC_NVCC=nvcc $KCC $KC_CPPFLAGS -c ../k.kc.c -o "$1" \
    --save-ptx) 2>err; then
    got=$(cd sv && find . -name '*.ptx' | sort | tr '\n' ' ')
    if test "$got" = "$2 "; then
      ok "-o $1 --save-ptx: $2"
    else
      fail "-o $1 --save-ptx: wrote '$got', expected '$2'"
    fi
  else
    head -n 3 err
    fail "-o $1 --save-ptx: kcc failed"
  fi
}
save_name build.d/kobj ./build.d/kobj.ptx
save_name ./.hidden ./.hidden.ptx
save_name build.d/k.kc.o ./build.d/k.kc.ptx
save_name k.o ./k.ptx
cp k.kc.c k2.kc.c
refuses "--save-ptx=FILE with two kernel files" 'several kernel files' \
  both.ptx env KC_NVCC=nvcc $KCC $KC_CPPFLAGS -c k.kc.c k2.kc.c \
  --save-ptx=both.ptx
for pair in "k.o k.o" "./k.o k.o" "k.ptx -"; do
  set -- $pair
  rm -f k.o k.ptx
  if test "$2" = -; then
    # The default name is the object's.
    set -- --save-ptx -o "$1"
  else
    set -- "--save-ptx=$1" -o "$2"
  fi
  refuses "$*" '^kcc: error: --save-ptx' '' \
    env KC_NVCC=nvcc $KCC $KC_CPPFLAGS -c k.kc.c "$@"
done
PATH=$saved_path

# ---------------------------------------- 5. -fsyntax-only
PATH=$work/bin:$saved_path
cat >bad.kc.c <<'EOF'
#include <kc/kernel.h>
KC_FOR_ARGS(bad, ((long *, y)), i, y[i] = )
EOF
cat >devbad.kc.c <<'EOF'
#include <kc/kernel.h>
#ifdef __NVCC__
#error only the device pass fails
#endif
KC_FOR_ARGS(devbad, ((long *, y)), i, y[i] = 1)
EOF
printf 'int main(void) { return 0; }\n' >m.c
rm -rf so && mkdir so || exit 99
if (cd so && KC_NVCC=nvcc $KCC $KC_CPPFLAGS -fsyntax-only ../k.kc.c ../m.c \
  -o prog) 2>err && test -z "$(ls -A so)"; then
  ok "-fsyntax-only k.kc.c m.c: exit 0, nothing written"
else
  head -n 3 err
  fail "-fsyntax-only k.kc.c m.c: failed, or wrote '$(ls -A so)'"
fi
for f in bad.kc.c devbad.kc.c; do
  if KC_NVCC=nvcc $KCC $KC_CPPFLAGS -fsyntax-only "$f" 2>err; then
    fail "-fsyntax-only $f: accepted"
  else
    ok "-fsyntax-only $f: the error is reported"
  fi
done
PATH=$saved_path

# ---------------------------------------- 6. a link to a relocated kcc
mkdir -p reloc/bin reloc/include/kc links || exit 99
: >reloc/include/kc/kc.h
sed "s|^kcc_default_includedir=.*|kcc_default_includedir='/nonexistent'|" \
  "$KCC" >reloc/bin/kcc || exit 99
chmod +x reloc/bin/kcc || exit 99
ln -s ../reloc/bin/kcc links/kcc || exit 99
ln -s "$work/links/kcc" links/kcc2 || exit 99
for k in reloc/bin/kcc links/kcc links/kcc2; do
  got=$(unset KCC_INCLUDEDIR; ./$k --print-config | sed -n 's/^kc headers *//p')
  if test "$got" = "$work/reloc/include"; then
    ok "$k finds the headers: $got"
  else
    fail "$k: kc headers '$got', expected $work/reloc/include"
  fi
done

# ---------------------------------------- 7. an output kcc cannot write
PATH=$work/bin:$saved_path KC_NVCC=nvcc $KCC $KC_CPPFLAGS --ptx k.kc.c \
  -o "$work/nodir/x.ptx" 2>err
rc=$?
if test $rc -eq 2 &&
  test "$(cat err)" = "kcc: error: cannot write $work/nodir/x.ptx"; then
  ok "--ptx -o into a missing directory: kcc's error, exit 2"
else
  sed 's/^/#   /' err
  fail "--ptx -o into a missing directory: exit $rc"
fi

finish "$work"
