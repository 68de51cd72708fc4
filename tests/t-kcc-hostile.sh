#!/bin/sh
# kcc with hostile file names and paths: sources, directories (their own
# and -I), -D values and outputs (-o of an object and of a program) whose
# names hold spaces, quotes, $(...), backticks, newlines and leading
# dashes.  nvcc runs its steps through a shell with file names only
# wrapped in double quotes; the PTX compiler here is a stand-in that does
# the same (its preprocessing step is one `sh -c` command line) and
# records its argv, so a name that reached it would run `touch PWNED...`
# or show in the record.  Each program must build, run and print its
# kernel's result; the diagnostics of both passes and the dependency file
# must name the user's files.  With the configured nvcc (a GPU machine's),
# the compile step runs once more through it.  Then options and outputs a
# user gets wrong; dependency files for names make treats specially, read
# by make; two identical builds that must give the same object; standard
# input as a source; and kernels named after macros the compiler
# predefines (linux, unix) with the -std= that frees the name in both
# passes.
. "${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}/tests/kcc-test.env"
. "${KC_TEST_TOP_SRCDIR:?run me through tests/run-backend}/tests/kcc-test-lib.sh"

nl='
'
work=$PWD/t-kcc-hostile.dir
rm -rf "$work"
mkdir -p "$work/bin" || exit 99
cd "$work" || exit 99
KCC_INCLUDEDIR=
export KCC_INCLUDEDIR
unset KC_NVCCFLAGS KC_PTX_ARCH KCC_VERBOSE
LD_LIBRARY_PATH=$KC_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
KC_BACKEND=serial
export KC_BACKEND

# The stand-in PTX compiler.
cat >bin/nvcc <<'EOF'
#!/bin/sh
# Records its argv ("UNSAFE-ARG" for an argument with a newline) and, as
# nvcc does, runs its preprocessing step as one shell command line with
# every argument in double quotes (and __NVCC__ defined); then writes a
# small PTX text.
nl='
'
for a in "$@"; do
  case $a in *"$nl"*) echo "UNSAFE-ARG" ;; *) printf '%s\n' "$a" ;; esac
done >>"$FAKE_NVCC_LOG"
case " $* " in *" --list-gpu-arch "*) echo compute_75; exit 0 ;; esac
line="${FAKE_NVCC_CC:-cc} -E -x c -D__NVCC__"
out=
while test $# -gt 0; do
  case $1 in
  -x) shift ;;
  -ptx | -arch=* | -std=*) ;;
  -o) out=$2; shift ;;
  -Xcompiler)
    # Its value is a comma-separated list of host compiler arguments.
    for x in $(printf '%s\n' "$2" | tr ',' ' '); do line="$line \"$x\""; done
    shift ;;
  *) line="$line \"$1\"" ;;
  esac
  shift
done
sh -c "$line -o \"$out.i\"" || exit 1
sh -c "printf '// stand-in PTX\n.version 8.0\n' >\"$out\""
EOF
chmod +x bin/nvcc
FAKE_NVCC_LOG=$work/nvcc.argv
FAKE_NVCC_CC=$CC
export FAKE_NVCC_LOG FAKE_NVCC_CC

cat >main.c <<'EOF'
#include <stdio.h>
#include <kc/kernel.h>
KC_KERNEL_DECLARE(hk_fill);
typedef struct { long *out; } hk_f;
int main(void) {
  long out[8] = {0};
  hk_f f = {out};
  kc_policy p = kc_range(0, 8);
  if (kc_init() != 0 ||
      kc_parallel_for(NULL, KC_KERNEL(hk_fill), &p, &f, sizeof f) != 0 ||
      kc_fence() != 0) {
    printf("error: %s\n", kc_last_error());
    return 1;
  }
  printf("out=%ld\n", out[7]);
  return kc_finalize() != 0;
}
EOF
$CC $KC_BUILD_CFLAGS $KC_CPPFLAGS -c main.c -o main.o || exit 99

n=0
# one_case DIR FILE: builds FILE (a kernel source) in DIR, both created.
one_case() {
  d=$1
  f=$2
  n=$((n + 1))
  dir=./$d
  mkdir -p "$dir/inc $n" || exit 99
  src=$dir/$f
  obj=$dir/${f%.c}.o
  prog="$dir/prog $f"
  what="case $n ($(printf '%s' "$src" | tr '\n' '~'))"
  printf '#define HK_VALUE 40\ntypedef struct { long *out; } hk_f;\n' >"$dir/hk.h"
  printf '#define HK_INC 2\n' >"$dir/inc $n/hinc.h"
  cat >"$src" <<'EOF'
#include <kc/kernel.h>
#include "hk.h"
#include <hinc.h>
#ifdef HK_WARN
#warning kc-hostile-diagnostic
#endif
KC_FOR(hk_fill, hk_f, f, i, f->out[i] = HK_VALUE + HK_INC)
EOF
  : >"$FAKE_NVCC_LOG"
  if PATH=$work/bin:$PATH KC_NVCC=nvcc $KCC $KC_BUILD_CFLAGS $KC_CPPFLAGS \
    -I"$dir/inc $n" '-DHK_STR="$(touch PWNED-D) `touch PWNED-E`"' \
    -MD -MF "$obj.d" -c "$src" -o "$obj" 2>err; then
    if $CC $KC_BUILD_LDFLAGS main.o "$obj" -L"$KC_LIBDIR" -lkc -lm -o run &&
      test "$(./run)" = out=42; then
      ok "$what: compiled, and its kernel ran"
    else
      fail "$what: the object does not work"
    fi
  else
    cat err
    fail "$what: kcc -c failed"
  fi
  grep -q . "$FAKE_NVCC_LOG" || fail "$what: the PTX compiler was not run"
  if grep -v '^[A-Za-z0-9_./=:,+@%^-]*$' "$FAKE_NVCC_LOG"; then
    fail "$what: the PTX compiler got the arguments above"
  fi
  case $src in
  *"$nl"*) ;;
  *)
    if grep -q '/kcc\.' "$obj.d" || ! grep -q 'hinc\.h' "$obj.d" ||
      ! grep -q "$(basename -- "$d" | sed 's/[^A-Za-z0-9]/.\\{1,2\\}/g')" \
        "$obj.d"; then
      sed 's/^/#   /' "$obj.d"
      fail "$what: the dependency file does not name the user's files"
    fi ;;
  esac
  # Diagnostics of both passes name the user's file.
  if test $n -le 2; then
    PATH=$work/bin:$PATH KC_NVCC=nvcc $KCC $KC_CPPFLAGS -I"$dir/inc $n" \
      -DHK_WARN -c "$src" -o "$obj" 2>err
    c=$(grep -c -F "$f" err)
    if test "$c" -ge 2 && grep -F "$f" err | grep -q kc-hostile-diagnostic; then
      ok "$what: both passes' diagnostics name the file"
    else
      sed 's/^/#   /' err
      fail "$what: diagnostics do not name the file in both passes"
    fi
  fi
  # Compile and link in one command, -o a hostile program name.
  : >"$FAKE_NVCC_LOG"
  if PATH=$work/bin:$PATH KC_NVCC=nvcc $KCC $KC_BUILD_CFLAGS \
    $KC_BUILD_LDFLAGS $KC_CPPFLAGS -I"$dir/inc $n" "$src" main.c \
    -L"$KC_LIBDIR" -lkc -lm -o "$prog" 2>err &&
    test "$("$prog")" = out=42; then
    ok "$what: kcc compile-and-link to a hostile -o"
  else
    cat err
    fail "$what: kcc compile-and-link"
  fi
  if grep -v '^[A-Za-z0-9_./=:,+@%^-]*$' "$FAKE_NVCC_LOG"; then
    fail "$what (link mode): the PTX compiler got the arguments above"
  fi
  # The real PTX compiler, where there is one.
  if have_nvcc; then
    if KC_NVCC=$KC_NVCC $KCC $KC_CPPFLAGS -I"$dir/inc $n" \
      '-DHK_STR="$(touch PWNED-D)"' -c "$src" -o "$obj" 2>err; then
      ok "$what: compiled with $KC_NVCC"
    else
      cat err
      fail "$what: kcc -c with $KC_NVCC failed"
    fi
  fi
}

one_case "dir with space" '$(touch PWNED-f).kc.c'
one_case "q'uo\"te" '`touch PWNED-g` "q" '"'s'"'.kc.c'
one_case '$(touch PWNED-d) `touch PWNED-e` $HOME;&' "n${nl}l.kc.c"
one_case "new${nl}line" -lead.kc.c
one_case -dash 'x;y|z&.kc.c'

# Options and outputs a user gets wrong (an outside review, 2026-11-27).
mkdir -p opts/inc && cd opts || exit 99
cat >k.kc.c <<'EOF'
#include <kc/kernel.h>
#include <myh.h>
KC_FOR(ok_fill, ok_f, f, i, f->out[i] = MYVAL)
EOF
printf '#define MYVAL 42\ntypedef struct { long *out; } ok_f;\n' >inc/myh.h
sed 's/hk_fill/ok_fill/; s/hk_f/ok_f/g' ../main.c >m.c
saved_path=$PATH
PATH=$work/bin:$PATH
export PATH
# -o naming the source: it was overwritten (link mode, --ptx) with exit 0.
cp k.kc.c same.kc.c
if KC_NVCC=nvcc $KCC $KC_BUILD_CFLAGS $KC_BUILD_LDFLAGS $KC_CPPFLAGS -Iinc \
  same.kc.c -o same.kc.c -L"$KC_LIBDIR" -lkc 2>err; then
  fail "kcc linked over its own source"
elif ! cmp -s k.kc.c same.kc.c; then
  fail "kcc -o SOURCE changed the source"
elif grep -q "is the input" err; then
  ok "-o naming the source is refused, the source kept"
else
  cat err
  fail "-o naming the source: no clear error"
fi
if KC_NVCC=nvcc $KCC --ptx $KC_CPPFLAGS -Iinc same.kc.c -o same.kc.c 2>err ||
  ! cmp -s k.kc.c same.kc.c; then
  fail "kcc --ptx -o SOURCE overwrote or accepted it"
else
  ok "--ptx -o naming the source is refused"
fi
# -x c before a .kc.c in link mode: gcc read kcc's object as C.
if KC_NVCC=nvcc $KCC $KC_BUILD_CFLAGS $KC_BUILD_LDFLAGS $KC_CPPFLAGS -Iinc \
  -x c m.c k.kc.c -o xc \
  -L"$KC_LIBDIR" -lkc -lm 2>err && test "$(./xc)" = out=42; then
  ok "-x c before a .kc.c links"
else
  head -n 5 err
  fail "-x c before a .kc.c"
fi
# ... with the .kc.c last: kcc gave the -x again after its object, where
# gcc warned that it had no effect.
if KC_NVCC=nvcc $KCC $KC_BUILD_CFLAGS $KC_BUILD_LDFLAGS $KC_CPPFLAGS -Iinc \
  -L"$KC_LIBDIR" -Wl,--no-as-needed -lkc -lm -o xl -x c m.c k.kc.c 2>err &&
  test "$(./xl)" = out=42 && ! grep -q . err; then
  ok "-x c m.c k.kc.c (the kernel file last) links without a warning"
else
  head -n 5 err
  fail "-x c m.c k.kc.c (the kernel file last)"
fi
# Long options reach the C compiler: a misspelt kcc option is an error
# there (with no .kc.c among the inputs it was dropped silently), --param
# with its value is kept.
printf 'int main(void) { return 0; }\n' >plain.c
if KC_NVCC=nvcc $KCC --no-ptxx plain.c -o typo 2>err; then
  fail "a misspelt long option was ignored"
else
  ok "a misspelt long option is reported"
fi
if KC_NVCC=nvcc $KCC --param max-inline-insns-single=100 $KC_BUILD_CFLAGS \
  $KC_BUILD_LDFLAGS $KC_CPPFLAGS -Iinc m.c k.kc.c -o param \
  -L"$KC_LIBDIR" -lkc -lm 2>err &&
  test "$(./param)" = out=42; then
  ok "--param VALUE in link mode"
else
  head -n 5 err
  fail "--param VALUE in link mode"
fi
# -isystemDIR (joined) reaches the PTX compiler as -isystem DIR.
if KC_NVCC=nvcc $KCC $KC_CPPFLAGS -isysteminc -c k.kc.c -o isys.o 2>err; then
  ok "-isystemDIR reaches both passes"
else
  cat err
  fail "-isystemDIR did not reach the PTX compiler"
fi
# -lineinfo is nvcc's (line information in the PTX): kcc hands it to the
# device pass alone.  It was taken for -l ineinfo: dropped with -c, and a
# link error ("cannot find -lineinfo") in link mode.
: >"$FAKE_NVCC_LOG"
if KC_NVCC=nvcc $KCC $KC_CPPFLAGS -Iinc -lineinfo -c k.kc.c -o li.o 2>err &&
  grep -q '^-lineinfo$' "$FAKE_NVCC_LOG"; then
  ok "-lineinfo -c: the device pass gets it"
else
  head -n 3 err
  fail "-lineinfo -c: the device pass did not get it"
fi
if KC_NVCC=nvcc $KCC $KC_BUILD_CFLAGS $KC_BUILD_LDFLAGS $KC_CPPFLAGS -Iinc \
  -lineinfo m.c k.kc.c -o lil -L"$KC_LIBDIR" -lkc -lm 2>err &&
  test "$(./lil)" = out=42; then
  ok "-lineinfo in link mode: the link does not get it"
else
  head -n 3 err
  fail "-lineinfo in link mode"
fi
# -iquote and -idirafter (separate and joined) reach the device pass too:
# nvcc has neither, so they go to its host preprocessing (-Xcompiler).
mkdir -p q1 q2 'q,3'
printf '#define MYQ 1\n' >q1/myq.h
printf '#define MYA 2\n' >q2/mya.h
printf '#define MYC 3\n' >'q,3/myc.h'
cat >iq.kc.c <<'EOF'
#include <kc/kernel.h>
#include "myq.h"
#include <mya.h>
#include "myc.h"
typedef struct { long *out; } iq_f;
KC_FOR(iq_fill, iq_f, f, i, f->out[i] = MYQ + MYA + MYC)
EOF
for form in "-iquote q1 -idirafter q2 -iquote q,3" \
  "-iquoteq1 -idirafterq2 -iquoteq,3"; do
  # shellcheck disable=SC2086
  if KC_NVCC=nvcc $KCC $KC_CPPFLAGS $form -c iq.kc.c -o iq.o 2>err; then
    ok "$form reach both passes"
  else
    cat err
    fail "$form did not reach the PTX compiler"
  fi
  if have_nvcc; then
    # shellcheck disable=SC2086
    if PATH=$saved_path KC_NVCC=$KC_NVCC $KCC $KC_CPPFLAGS $form -c iq.kc.c \
      -o iq.o 2>err; then
      ok "$form: compiled with $KC_NVCC"
    else
      cat err
      fail "$form: kcc -c with $KC_NVCC failed"
    fi
  fi
done
# A PTX architecture (KC_PTX_ARCH, --ptx-arch) that is none is refused
# with the one message configure gives: it went into the PTX compiler's
# command line, which kcc runs through eval, so "compute_90 -G" added -G
# there and $(...) ran.  sm_90a is one.
arch_use='use a virtual architecture compute_NN or a GPU sm_NN, with a or f after NN for the variants (compute_75, sm_90a)'
for a in 'KC_PTX_ARCH=compute_90 -G' 'KC_PTX_ARCH=sm_90$(touch PWNED-arch)' \
  --ptx-arch=bogus --ptx-arch=compute_075; do
  case $a in
  --*) set -- "$a" && v=KC_PTX_ARCH= ;;
  *) set -- && v=$a ;;
  esac
  if env KC_NVCC=nvcc "$v" $KCC $KC_CPPFLAGS -Iinc "$@" -c k.kc.c \
    -o arch.o 2>err; then
    fail "$a was taken"
  elif test "$(cat err)" = "kcc: error: $a: $arch_use"; then
    ok "$a is refused"
  else
    cat err
    fail "$a: not the expected error"
  fi
done
: >"$FAKE_NVCC_LOG"
if KC_NVCC=nvcc KC_PTX_ARCH=sm_90a $KCC $KC_CPPFLAGS -Iinc -c k.kc.c \
  -o arch.o && grep -qx -- -arch=sm_90a "$FAKE_NVCC_LOG"; then
  ok "KC_PTX_ARCH=sm_90a reaches the PTX compiler"
else
  fail "KC_PTX_ARCH=sm_90a did not reach the PTX compiler"
fi
# A missing source is said to be missing, not blamed on the PTX compiler.
if KC_NVCC=nvcc $KCC -c nope.kc.c 2>err; then
  fail "a missing source compiled"
elif grep -q "no such file" err; then
  ok "a missing source is named"
else
  cat err
  fail "a missing source: no clear error"
fi

# Dependency files for names make treats specially ('$', '#', ' ', '"',
# ':'), in sources, include directories and headers, for each way of
# naming the target.  Names are spelt as gcc spells them ('$$', '\#',
# '\ '), and ':' as '\:' (gcc leaves it bare, and make cannot read that);
# both passes' rules are for the same target; the device pass's headers
# are there.  Before, nvcc's rules were appended with the target as typed
# ("missing separator" for a '#'), nvcc's own names had '#' and '$' bare
# and were cut at a '"', and --ptx -MD refused such names.  make must read
# each file, find nothing to rebuild, then rebuild the target once the
# header only the device pass reads (under __NVCC__) changes.
unset MAKEFLAGS MFLAGS MAKELEVEL
if command -v make >/dev/null 2>&1; then
  D='dp $x #h"q:c'
  I="$D/i n#c\$:"
  mkdir -p "$I" sinc || exit 99
  hh="$I/h \$d#\"e:.h"
  dh="$I/dev \$#\" o:.h"
  sh_='sinc/s $#":.h'
  src="$D/k \$#\"q:.kc.c"
  obj="$D/o \$#\"q:.o"
  printf '#define V 40\ntypedef struct { long *out; } dp_f;\n' >"$hh"
  printf '#define DV 1\n' >"$dh"
  printf '#define SV 2\n' >"$sh_"
  cat >"$src" <<'EOF'
#include <kc/kernel.h>
#include <h $d#"e:.h>
#include <s $#":.h>
#ifdef __NVCC__
#include <dev $#" o:.h>
#endif
KC_FOR(dp_fill, dp_f, f, i, f->out[i] = V + SV)
EOF
  printf 'include dep.mk\n%%:: ; @echo REBUILD $@\n' >dp.mk
  # dep_case WHAT GOAL DEPFILE DIR:NVCC KCC-ARGS...: kcc with PTX compiler
  # NVCC (DIR first on PATH) must write DEPFILE for GOAL.
  dep_case() {
    what=$1 goal=$2 depf=$3 nv=$4
    shift 4
    touch -t 200001010000 "$hh" "$dh" "$sh_" "$src"
    rm -f "$depf" "$goal"
    if ! PATH=${nv%%:*}:$saved_path KC_NVCC=${nv#*:} $KCC $KC_CPPFLAGS \
      -I"$I" -Isinc "$@" 2>err; then
      head -n 5 err
      fail "$what: kcc failed"
      return
    fi
    test -f "$goal" || : >"$goal"
    # (A header in the future makes make warn of clock skew.)
    sleep 1
    if ! cp "$depf" dep.mk; then
      fail "$what: no dependency file $depf"
    elif ! make -f dp.mk -n "$goal" >mk.out 2>&1 || grep -q REBUILD mk.out; then
      sed 's/^/#   /' mk.out | head -n 5
      fail "$what: make cannot read $depf, or would rebuild"
    else
      touch "$dh"
      make -f dp.mk -n "$goal" >mk.out 2>&1
      if test "$(cat mk.out)" = "echo REBUILD $goal"; then
        ok "$what: make reads $depf; the device pass's header rebuilds"
      else
        sed 's/^/#   /' mk.out | head -n 5
        fail "$what: the device pass's header changed, $goal not rebuilt"
      fi
    fi
  }
  stand_in=$work/bin:nvcc
  dep_case "-MD -MP" "$obj" "$D/o \$#\"q:.d" "$stand_in" -MD -MP \
    -c "$src" -o "$obj"
  dep_case "-MMD -MQ" "$obj" dq.d "$stand_in" -MMD -MF dq.d -MQ "$obj" \
    -c "$src" -o "$obj"
  dep_case "-Wp,-MD" "k \$#\"q:.kc.o" dw.d "$stand_in" -Wp,-MD,dw.d \
    -c "$src" -o "$obj"
  dep_case "--ptx -MD" "$D/p \$.ptx" "$D/p \$.d" "$stand_in" --ptx -MD \
    "$src" -o "$D/p \$.ptx"
  if have_nvcc; then
    dep_case "$KC_NVCC, -MD -MP" "$obj" "$D/o \$#\"q:.d" \
      "$(dirname "$KC_NVCC"):$KC_NVCC" -MD -MP -c "$src" -o "$obj"
  fi
else
  echo "# SKIP: no make; dependency files with special names not read"
fi

# Dependency files in link mode (kcc -MD k.kc.c main.c -o prog): the
# kernel file's went to kcc's temporary directory with its temporary
# object, and were lost; a -MF file named the temporary object and
# kcc_ptx.h.  gcc and clang write PROG without its suffix, .d, beside it,
# for the target PROG (each source in turn, the last one's staying).  kcc
# writes that file too, with the kernel files' rules (both passes'
# headers) after the C compiler's; the file -MF or -Wp,-MD names
# likewise; without -o, gcc's a-<source>.d for <source>.o.
mkdir -p lo lref
printf '#define LKDEV 1\n' >inc/lkdev.h
cat >lk.kc.c <<'EOF'
#include <kc/kernel.h>
#include <myh.h>
#ifdef __NVCC__
#include <lkdev.h>
#endif
KC_FOR(lk_fill, ok_f, f, i, f->out[i] = MYVAL)
EOF
sed 's/ok_fill/lk_fill/g' m.c >lm.c
$CC $KC_BUILD_CFLAGS $KC_CPPFLAGS -Iinc -c lm.c -o lm.o || exit 99
# Where the C compiler puts it, for a program of two plain C sources.
printf 'int lref_unused;\n' >lref.c
$CC $KC_CPPFLAGS -Iinc -MD lref.c lm.c -o lref/prog.x >/dev/null 2>&1
want=
for f in lref/*.d; do test -f "$f" && want=lo/${f#lref/}; done
# link_deps WHAT DEPFILE TARGET KCC-ARGS...: kcc must write DEPFILE, its
# rules for TARGET, naming both passes' headers and no temporary file.
link_deps() {
  what=$1 depf=$2 tgt=$3
  shift 3
  rm -f "$depf"
  if ! KC_NVCC=nvcc $KCC $KC_BUILD_CFLAGS $KC_BUILD_LDFLAGS $KC_CPPFLAGS \
    -Iinc "$@" -L"$KC_LIBDIR" -lkc -lm 2>err; then
    head -n 5 err
    fail "$what: kcc failed"
  elif test ! -f "$depf"; then
    fail "$what: no $depf ($(ls lo | tr '\n' ' '))"
  elif grep -q '/kcc\.\|kcc_ptx\|kcc-link' "$depf" ||
    ! grep -q "^$tgt:.* lk\.kc\.c" "$depf" ||
    ! grep -q 'inc/myh\.h' "$depf" || ! grep -q 'inc/lkdev\.h' "$depf"; then
    grep ':' "$depf" | cut -c 1-70 | sed 's/^/#   /'
    fail "$what: $depf is not the kernel file's, for $tgt"
  else
    ok "$what: $depf, for $tgt, names both passes' headers"
  fi
}
if test -z "$want"; then
  echo "# SKIP: $CC -MD wrote no dependency file in link mode"
else
  link_deps "-MD k.kc.c main.c -o prog (as $CC: $want)" "$want" lo/prog.x \
    -MD lk.kc.c lm.c -o lo/prog.x
  if grep -q '^lo/prog\.x:.* lm\.c' "$want"; then
    ok "-MD k.kc.c main.c -o prog: the C compiler's rules are kept too"
  else
    fail "-MD k.kc.c main.c -o prog: main.c's rules are gone"
  fi
  # The kernel file alone, twice: the file is rewritten, not appended to.
  link_deps "-MD k.kc.c main.o -o prog" lo/prog2.d lo/prog2 \
    -MD lk.kc.c lm.o -o lo/prog2
  rm -f lo/prog2.first
  cp lo/prog2.d lo/prog2.first 2>/dev/null
  link_deps "-MD k.kc.c main.o -o prog, again" lo/prog2.d lo/prog2 \
    -MD lk.kc.c lm.o -o lo/prog2
  if test -f lo/prog2.first && ! cmp -s lo/prog2.d lo/prog2.first; then
    fail "-MD k.kc.c main.o -o prog: the second build's file differs"
  fi
  link_deps "-MMD -MF FILE -o prog" lo/x.d lo/prog3 -MMD -MF lo/x.d \
    lk.kc.c lm.o -o lo/prog3
  link_deps "-Wp,-MD,FILE -o prog" lo/w.d lk.kc.o -Wp,-MD,lo/w.d \
    lk.kc.c lm.o -o lo/prog4
  # Without -o, gcc writes a-<source>.d for <source>.o, one per source.
  cp lref.c lref.kc.c
  (cd lref && $CC $KC_CPPFLAGS -MD ../lref.kc.c ../lm.c -I../inc \
    >/dev/null 2>&1)
  if test -f lref/a-lref.kc.d; then
    (cd lo && rm -f a-lk.kc.d a.out &&
      KC_NVCC=nvcc $KCC $KC_BUILD_CFLAGS $KC_BUILD_LDFLAGS $KC_CPPFLAGS \
        -I../inc -MD ../lk.kc.c ../lm.o -L"$KC_LIBDIR" -lkc -lm 2>../err)
    if grep -q '^lk\.kc\.o:.* \.\./lk\.kc\.c' lo/a-lk.kc.d 2>/dev/null &&
      grep -q 'inc/lkdev\.h' lo/a-lk.kc.d; then
      ok "-MD k.kc.c main.o (no -o): a-k.kc.d, for k.kc.o, as $CC"
    else
      head -n 5 err
      fail "-MD k.kc.c main.o (no -o): no a-k.kc.d for k.kc.o ($(ls lo | tr '\n' ' '))"
    fi
  else
    echo "# SKIP: $CC does not write a-<source>.d without -o"
  fi
fi

# Reproducible objects: two identical kcc -g -c give the same bytes.  The
# temporary directory's name was in the debug info (the path of the PTX
# header kcc includes) and in the PTX: nvcc names internal symbols (a
# static __noinline__ device function) after the real path of its source,
# which for a source it cannot take as named was a copy in that
# directory, and -lineinfo names the headers read through its links.
mkdir -p 'r inc'
cat >'r inc/rv.h' <<'EOF'
#ifdef __CUDACC__
static __device__ __noinline__ long rp_add(long x) { return x + 1; }
#else
static long rp_add(long x) { return x + 1; }
#endif
EOF
cat >'r p.kc.c' <<'EOF'
#include <kc/kernel.h>
#include <rv.h>
typedef struct { long *out; } rp_f;
#ifdef __CUDACC__
static __device__ __noinline__ long rp_twice(long x) { return 2 * x; }
#else
static long rp_twice(long x) { return 2 * x; }
#endif
KC_FOR(rp_fill, rp_f, f, i, f->out[i] = rp_twice(rp_add(i) + 20))
EOF
# same_twice WHAT DIR:NVCC NVCCFLAGS KCC-ARGS...: compiles twice with PTX
# compiler NVCC (DIR first on PATH); the objects must be the same.
same_twice() {
  what=$1 nv=$2 nvf=$3
  shift 3
  for n in 1 2; do
    rm -f "rep$n.o"
    PATH=${nv%%:*}:$saved_path KC_NVCC=${nv#*:} KC_NVCCFLAGS=$nvf $KCC \
      $KC_CPPFLAGS "$@" -o "rep$n.o" 2>err || {
      head -n 5 err
      fail "$what: kcc failed"
      return
    }
  done
  if cmp rep1.o rep2.o >/dev/null; then
    ok "$what: two builds, the same object"
  else
    fail "$what: two identical builds differ ($(cmp rep1.o rep2.o))"
  fi
}
same_twice "-g" "$work/bin:nvcc" "" -g -Iinc -c k.kc.c
same_twice "-g3, a source named 'r p.kc.c'" "$work/bin:nvcc" "" -g3 \
  -I'r inc' -c 'r p.kc.c'
if have_nvcc; then
  nv=$(dirname "$KC_NVCC"):$KC_NVCC
  same_twice "$KC_NVCC, -g" "$nv" "" -g -Iinc -c k.kc.c
  same_twice "$KC_NVCC, -g, 'r p.kc.c'" "$nv" "" -g -I'r inc' -c 'r p.kc.c'
  same_twice "$KC_NVCC -lineinfo, -g, 'r p.kc.c'" "$nv" -lineinfo -g \
    -I'r inc' -c 'r p.kc.c'
  # The PTX must hold what made it differ, or the cases above prove little.
  PATH=$saved_path KC_NVCC=$KC_NVCC $KCC $KC_CPPFLAGS -I'r inc' \
    --ptx 'r p.kc.c' -o rp.ptx 2>err || cat err
  grep -q '_INTERNAL_.*rp_twice' rp.ptx ||
    fail "'r p.kc.c': no internal symbol rp_twice in its PTX"
  # -lineinfo (and -G): the PTX's .file lines name the user's files.  A
  # header read through a directory kcc gave nvcc as a link in its
  # temporary directory (a name nvcc cannot take: a blank, a backslash)
  # was named /kcc-tmp/aliasN.d/...; now it is the directory's own path,
  # absolute and spelt as nvcc spells the others ('\' doubled).  A name
  # with a '"' keeps its /kcc-tmp name: ptxas takes no '"' in a .file
  # string (nvcc writes '\"', which ptxas rejects).
  mkdir -p 'l q\d' 'l"q'
  sed 's/rp_add/rq_add/' 'r inc/rv.h' >'l q\d/rq.h'
  sed 's/rp_add/rs_add/' 'r inc/rv.h' >'l"q/rs.h'
  cat >'l q.kc.c' <<'EOF'
#include <kc/kernel.h>
#include <rv.h>
#include <rq.h>
#include <rs.h>
typedef struct { long *out; } lq_f;
KC_FOR(lq_fill, lq_f, f, i, f->out[i] = rs_add(rq_add(rp_add(i))))
EOF
  if PATH=$saved_path KC_NVCC=$KC_NVCC KC_NVCCFLAGS=-lineinfo $KCC \
    $KC_CPPFLAGS -I'r inc' -I'l q\d' -I'l"q' --ptx 'l q.kc.c' -o lq.ptx \
    2>err; then
    files=$(grep '^[[:space:]]*\.file' lq.ptx | grep -v '/cuda')
    if ! printf '%s\n' "$files" | grep -qF "\"$PWD/r inc/rv.h\"" ||
      ! printf '%s\n' "$files" | grep -qF "\"$PWD/l q\\\\d/rq.h\"" ||
      ! printf '%s\n' "$files" | grep -q '"/kcc-tmp/alias[0-9]*\.d/rs\.h"' ||
      ! printf '%s\n' "$files" | grep -qF "\"$PWD/l q.kc.c\""; then
      printf '%s\n' "$files" | sed 's/^/#   /'
      fail "-lineinfo: the PTX does not name the user's files"
    else
      ok "-lineinfo: the PTX names the user's source and headers"
    fi
    if test -n "$PTXAS" && ! "$PTXAS" -arch=sm_90 lq.ptx -o lq.cubin 2>err
    then
      head -n 3 err
      fail "-lineinfo: ptxas refused the PTX"
    fi
  else
    head -n 5 err
    fail "-lineinfo --ptx 'l q.kc.c' failed"
  fi
fi
# A TMPDIR with ',' (which would split kcc's -Xcompiler list for the
# device pass's dependencies) or '=' (which would split its
# -fdebug-prefix-map) gives way to /tmp.
mkdir -p 'tmp,a=b' || exit 99
for n in 1 2; do
  TMPDIR=$PWD/'tmp,a=b' KC_NVCC=nvcc $KCC $KC_CPPFLAGS -Iinc -MD -g \
    -c k.kc.c -o "td$n.o" 2>err || cat err
done
if test -f td1.d && ! grep -q 'tmp,a=b' td1.d && cmp td1.o td2.o >/dev/null
then
  ok "TMPDIR with ',' and '=': -MD -g works, the objects are the same"
else
  fail "TMPDIR with ',' and '=': -MD -g failed or the objects differ"
fi
# The copy is read from a pipe, not from the temporary directory, where
# it was the first place its "..." includes were looked for: a
# "defines.h" beside the source lost to kcc's own there (made for -D
# values with spaces) in the device pass.
mkdir -p 'd h'
printf '#define DH_VALUE 42\n' >'d h/defines.h'
cat >'d h/k.kc.c' <<'EOF'
#include <kc/kernel.h>
#include "defines.h"
#ifndef DH_VALUE
#error not the defines.h beside this file
#endif
typedef struct { long *out; } dh_f;
KC_FOR(dh_fill, dh_f, f, i, f->out[i] = DH_VALUE)
EOF
if KC_NVCC=nvcc $KCC $KC_CPPFLAGS '-DDH_SPACE=a b' -c 'd h/k.kc.c' -o dh.o \
  2>err; then
  ok "a source copy's \"...\" include finds the file beside the source"
else
  head -n 5 err
  fail "a source copy's \"...\" include found kcc's own defines.h"
fi
# Two such sources in one kcc -c -MD: the second's device rule named the
# first source (both copies had one name, and its first mapping won).
sed 's/iq_f/t1_f/g; s/iq_fill/t1_fill/' iq.kc.c >'t 1.kc.c'
sed 's/iq_f/t2_f/g; s/iq_fill/t2_fill/' iq.kc.c >'t 2.kc.c'
rm -f 't 1.kc.d' 't 2.kc.d'
if KC_NVCC=nvcc $KCC $KC_CPPFLAGS -iquote q1 -idirafter q2 -iquote q,3 -MD \
  -c 't 1.kc.c' 't 2.kc.c' 2>err; then
  if grep 't\\ 1' 't 2.kc.d'; then
    fail "the dependencies of 't 2.kc.c' name 't 1.kc.c'"
  elif test "$(grep -c '^t\\ 2\.kc\.o: t\\ 2\.kc\.c ' 't 2.kc.d')" -ne 2; then
    sed 's/^/#   /' 't 2.kc.d' | grep ':'
    fail "the two rules of 't 2.kc.d' are not for 't 2.kc.c'"
  else
    ok "two sources in one kcc -c -MD: each dependency file its own"
  fi
else
  head -n 5 err
  fail "kcc -c -MD of two sources failed"
fi

# Standard input (-): after -x c a kernel file, named <stdin> as gcc names
# it, compiled to gcc's -.o without -o.  Before, kcc said "no input files"
# (or, beside another source, handed '-' to that source's compile).
# Without -x it is refused, as gcc refuses it, with nothing written; twice
# is refused too.
if KC_NVCC=nvcc $KCC $KC_BUILD_CFLAGS $KC_CPPFLAGS -Iinc -c -x c - -o si.o \
  <k.kc.c 2>err && $NM si.o | grep -q kc__ptx_text &&
  $CC $KC_BUILD_CFLAGS $KC_BUILD_LDFLAGS $KC_CPPFLAGS m.c si.o -o si \
    -L"$KC_LIBDIR" -lkc -lm 2>>err &&
  test "$(./si)" = out=42; then
  ok "-c -x c - -o si.o: an object with PTX that works"
else
  head -n 5 err
  fail "-c -x c - -o si.o"
fi
if KC_NVCC=nvcc $KCC $KC_BUILD_CFLAGS $KC_BUILD_LDFLAGS $KC_CPPFLAGS -Iinc \
  -x c - m.c -o sl -L"$KC_LIBDIR" -lkc -lm <k.kc.c 2>err &&
  test "$(./sl)" = out=42 && $NM sl | grep -q kc__ptx_text; then
  ok "-x c - m.c -o sl: compiled as a kernel file (with PTX) and linked"
else
  head -n 5 err
  fail "-x c - m.c -o sl"
fi
rm -rf sin && mkdir sin || exit 99
# stdin_case WHAT WANT-FILES WANT-ERROR KCC-ARGS...: in the empty sin/,
# kcc must leave exactly WANT-FILES and, if WANT-ERROR is set, fail
# saying it.
stdin_case() {
  what=$1 want=$2 werr=$3
  shift 3
  (cd sin && KC_NVCC=nvcc $KCC $KC_CPPFLAGS -I../inc "$@" <../k.kc.c) 2>err
  rc=$?
  got=$(cd sin && ls -A | tr '\n' ' ')
  if test -n "$werr" && { test $rc -eq 0 || ! grep -q -- "$werr" err; }; then
    head -n 3 err
    fail "$what: not refused with '$werr' (exit $rc)"
  elif test -z "$werr" && test $rc -ne 0; then
    head -n 3 err
    fail "$what: kcc failed"
  elif test "$got" != "$want"; then
    fail "$what: left '$got', not '$want'"
  else
    ok "$what: ${werr:+refused, }left '$want'"
  fi
  rm -f -- sin/* sin/-.*
}
stdin_case "-c -x c -" "-.o " "" -c -x c -
stdin_case "-S -xc -" "-.s " "" -S -xc -
stdin_case "-c -" "" "needs -x c" -c -
stdin_case "-c -x c - -" "" "more than once" -c -x c - -
stdin_case "--ptx -x c -" "-.ptx " "" --ptx -x c -
# Its dependency file names no temporary file, and no <stdin> (gcc names
# none for standard input either).
if KC_NVCC=nvcc $KCC $KC_CPPFLAGS -Iinc -MD -c -x c - -o sd.o <k.kc.c \
  2>err && grep -q 'inc/myh\.h' sd.d &&
  ! grep -q '/dev/stdin\|<stdin>\|stdin\.kc\|/kcc\.' sd.d; then
  ok "-MD -c -x c -: the dependency file lists the headers, no stdin"
else
  head -n 5 err sd.d
  fail "-MD -c -x c -: the dependency file"
fi
# Its -g objects are reproducible too, host-only ones included (the host
# pass compiles a copy in the temporary directory).
for opt in --no-ptx --kcc-verbose; do
  for n in 1 2; do
    KC_NVCC=nvcc $KCC $KC_CPPFLAGS -Iinc $opt -g -c -x c - -o "sg$n.o" \
      <k.kc.c 2>err || cat err
  done
  if cmp sg1.o sg2.o >/dev/null; then
    ok "$opt -g -c -x c -: two builds, the same object"
  else
    fail "$opt -g -c -x c -: two identical builds differ ($(cmp sg1.o sg2.o))"
  fi
done
# Both passes' diagnostics name <stdin>.
printf '#warning kc-stdin-diagnostic\n' | cat - k.kc.c |
  KC_NVCC=nvcc $KCC $KC_CPPFLAGS -Iinc -c -x c - -o sw.o 2>err
if test "$(grep -c '^<stdin>:1:.*kc-stdin-diagnostic' err)" -eq 2; then
  ok "both passes' diagnostics name <stdin>"
else
  sed 's/^/#   /' err
  fail "the diagnostics do not name <stdin> in both passes"
fi
if have_nvcc; then
  if PATH=$saved_path KC_NVCC=$KC_NVCC $KCC $KC_CPPFLAGS -Iinc -c -x c - \
    -o sr.o <k.kc.c 2>err && $NM sr.o | grep -q kc__ptx_text; then
    ok "-c -x c -: compiled with $KC_NVCC"
  else
    head -n 5 err
    fail "-c -x c -: kcc with $KC_NVCC failed"
  fi
fi

# A kernel or reducer named after a macro that the compiler predefines in
# its GNU modes (linux, unix: 1): the host pass registered the kernel as
# "1" (exit 0, and KC_KERNEL(linux) elsewhere did not link), the device
# pass failed on "struct 1__kcb", a reducer was "kc__rid_1 undeclared".
# Both passes now refuse the name, saying what it expands to and the fix.
# refused WHAT FILE KIND NAME EXPANSION KCC-ARGS...: kcc must fail on
# FILE, say "the KIND name NAME is a macro (it expands to EXPANSION" and
# name -std=c11, and leave no object.
refused() {
  what=$1 rf=$2 kind=$3 rn=$4 rx=$5
  shift 5
  rm -f refused.o
  if KC_NVCC=nvcc $KCC $KC_CPPFLAGS "$@" -c "$rf" -o refused.o 2>err; then
    fail "$what: accepted (exit 0)"
  elif test -e refused.o; then
    fail "$what: refused, but left refused.o"
  elif grep -q "the $kind name $rn is a macro (it expands to $rx" err &&
    grep -q -- '-std=c11' err; then
    ok "$what: refused, naming $rn and -std=c11"
  else
    head -n 5 err
    fail "$what: no clear error"
  fi
}
if $CC -dM -E -x c /dev/null | grep -q '^#define linux 1$' &&
  $CC -dM -E -x c /dev/null | grep -q '^#define unix 1$'; then
  cat >lx.kc.c <<'EOF'
#include <kc/kernel.h>
typedef struct { long *out; } lx_f;
KC_FOR(linux, lx_f, f, i, f->out[i] = 42)
EOF
  cat >ux.kc.c <<'EOF'
#include <kc/kernel.h>
typedef struct { long *out; } ux_f;
KC_REDUCER_IDENTITY(unix, long, v) { *v = 0; }
KC_REDUCER_JOIN(unix, long, d, s) { *d += *s; }
KC_REDUCE_CUSTOM(ux_sum, ux_f, f, i, unix, long, acc, acc += f->out[i])
EOF
  cat >la.kc.c <<'EOF'
#include <kc/kernel.h>
KC_FOR_ARGS(linux, ((long *, out)), i, out[i] = 42)
EOF
  refused "a kernel named linux" lx.kc.c kernel linux 1
  refused "a kernel named linux, --no-ptx" lx.kc.c kernel linux 1 --no-ptx
  refused "a reducer named unix" ux.kc.c reducer unix 1 --no-ptx
  refused "an _ARGS kernel named linux" la.kc.c kernel linux 1 --no-ptx
  # In an ISO mode the name is free, in the device pass too: kcc gives
  # nvcc -std=c++17 (nvcc's preprocessing took its host compiler's GNU
  # default), unless KC_NVCCFLAGS has a -std; a GNU mode gives it none.
  sed 's/linux/unix/g' lx.kc.c >iso.kc.c
  sed 's/hk_fill/unix/g' ../main.c >iso-main.c
  : >"$FAKE_NVCC_LOG"
  if KC_NVCC=nvcc $KCC $KC_BUILD_CFLAGS $KC_BUILD_LDFLAGS $KC_CPPFLAGS \
    -std=c11 iso.kc.c iso-main.c -L"$KC_LIBDIR" -lkc -lm -o iso 2>err &&
    test "$(./iso)" = out=42 && grep -q '^-std=c++17$' "$FAKE_NVCC_LOG"; then
    ok "-std=c11: a kernel named unix builds and runs, nvcc gets -std=c++17"
  else
    head -n 5 err
    fail "-std=c11: a kernel named unix, or the device pass's -std"
  fi
  # std_case WANT NVCCFLAGS KCC-ARGS...: the device pass's -std is WANT.
  std_case() {
    want=$1 nvf=$2
    shift 2
    : >"$FAKE_NVCC_LOG"
    if KC_NVCC=nvcc KC_NVCCFLAGS=$nvf $KCC $KC_CPPFLAGS -Iinc "$@" -c k.kc.c \
      -o std.o 2>err; then
      got=$(grep '^-std' "$FAKE_NVCC_LOG" | tr '\n' ' ')
      if test "$got" = "$want"; then
        ok "$* (KC_NVCCFLAGS='$nvf'): the device pass gets ${want:-no -std}"
      else
        fail "$* (KC_NVCCFLAGS='$nvf'): the device pass got '$got'"
      fi
    else
      head -n 5 err
      fail "$*: kcc failed"
    fi
  }
  std_case "" "" -std=gnu11
  std_case "" "" -std=c11 -std=gnu11
  std_case "-std=c++17 " "" -std=iso9899:2011
  std_case "-std=c++20 " "-std=c++20" -std=c11
  if have_nvcc; then
    if PATH=$saved_path KC_NVCC=$KC_NVCC $KCC $KC_CPPFLAGS -std=c11 -c \
      iso.kc.c -o iso.o 2>err; then
      ok "-std=c11: $KC_NVCC compiles a kernel named unix"
    else
      head -n 5 err
      fail "-std=c11: $KC_NVCC failed on a kernel named unix"
    fi
  fi
  if have_nvcc; then
    # The device pass: its first error is the refusal.
    if PATH=$saved_path KC_NVCC=$KC_NVCC $KCC $KC_CPPFLAGS -c lx.kc.c \
      -o refused.o 2>err; then
      fail "a kernel named linux: $KC_NVCC accepted it"
    elif grep -m 1 'error' err | grep -q 'kernel name linux is a macro'; then
      ok "a kernel named linux: $KC_NVCC's first error names it"
    else
      grep -m 2 'error' err
      fail "a kernel named linux: $KC_NVCC's first error is another"
    fi
  fi
else
  echo "# SKIP: $CC does not predefine linux and unix; no macro-named kernel"
fi
# A name that is a macro of the same length as its expansion: the check
# compared the two lengths only, so `#define sl_fill sl_bill` got through
# (the kernel registered as "sl_bill", with handle kc__kernel_sl_bill).
# Now the name as written and its expansion are compared as names, in
# both passes.
cat >sl.kc.c <<'EOF'
#include <kc/kernel.h>
#define sl_fill sl_bill
typedef struct { long *out; } sl_f;
KC_FOR(sl_fill, sl_f, f, i, f->out[i] = 42)
EOF
cat >sr.kc.c <<'EOF'
#include <kc/kernel.h>
#define sr_red sr_rad
typedef struct { long *out; } sr_f;
KC_REDUCER_IDENTITY(sr_red, long, v) { *v = 0; }
KC_REDUCER_JOIN(sr_red, long, d, s) { *d += *s; }
KC_REDUCE_CUSTOM(sr_sum, sr_f, f, i, sr_red, long, acc, acc += f->out[i])
EOF
cat >sa.kc.c <<'EOF'
#include <kc/kernel.h>
#define sa_fill sa_bill
KC_FOR_ARGS(sa_fill, ((long *, out)), i, out[i] = 42)
EOF
refused "a kernel named by a same-length macro" sl.kc.c kernel sl_fill sl_bill
refused "a kernel named by a same-length macro, --no-ptx" sl.kc.c kernel \
  sl_fill sl_bill --no-ptx
refused "a reducer named by a same-length macro" sr.kc.c reducer sr_red \
  sr_rad --no-ptx
refused "an _ARGS kernel named by a same-length macro" sa.kc.c kernel \
  sa_fill sa_bill --no-ptx
if have_nvcc; then
  # The device pass: its first error is the refusal.
  for f in sl sr sa; do
    if PATH=$saved_path KC_NVCC=$KC_NVCC $KCC $KC_CPPFLAGS -c $f.kc.c \
      -o refused.o 2>err; then
      fail "$f.kc.c (a same-length macro name): $KC_NVCC accepted it"
    elif grep -m 1 'error' err | grep -q ' name s[a-z]_[a-z]* is a macro'; then
      ok "$f.kc.c (a same-length macro name): $KC_NVCC's first error names it"
    else
      grep -m 2 'error' err
      fail "$f.kc.c (a same-length macro name): $KC_NVCC's first error is another"
    fi
  done
fi
cd "$work" || exit 99

pwned=$(find "$work" -name 'PWNED*' | tr '\n' ' ')
if test -n "$pwned"; then
  fail "a name reached a shell: $pwned"
else
  ok "no name reached a shell"
fi
finish "$work"
