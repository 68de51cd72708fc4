#!/bin/sh
# kcc as users run it: from an ordinary Makefile (-I, -D with spaces,
# -O, -MMD/-MP dependency files, rebuilds when a header changes), --ptx,
# --save-ptx, the link mode, a shared library, a plain C compiler on a
# .kc.c file, and the host-only paths: no PTX compiler (exactly one
# warning line, the object still works), --no-ptx (silent), a kernel that
# is not valid device code (an error, unless --no-ptx).
#
# The PTX checks need the configured PTX compiler; without one they are
# reported as skipped here and the host-only checks still run.
#
# Every program built here is compiled and linked with the build's CFLAGS
# and LDFLAGS (KC_BUILD_CFLAGS, KC_BUILD_LDFLAGS from kcc-test.env): in a
# sanitizer build libkc is instrumented, and a program linked without the
# sanitizer's runtime cannot load it.
. "${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}/tests/kcc-test.env"
. "${KC_TEST_TOP_SRCDIR:?run me through tests/run-backend}/tests/kcc-test-lib.sh"

have_ptx=no
if have_nvcc; then
  have_ptx=yes
else
  echo "# no PTX compiler configured (KC_NVCC='$KC_NVCC'): PTX checks skipped"
fi

KC_BACKEND=serial
export KC_BACKEND
# kcc must take the in-tree headers only, and the configured compilers.
KCC_INCLUDEDIR=
export KCC_INCLUDEDIR
unset KC_NVCCFLAGS KC_PTX_ARCH KCC_VERBOSE
# Our make is not a sub-make of the one running the tests.
unset MAKEFLAGS MFLAGS MAKELEVEL

work=$PWD/t-kcc.dir
rm -rf "$work"
mkdir -p "$work/inc" || exit 99
cd "$work" || exit 99

# ------------------------------------------------------------ the project
cat >inc/sk.h <<'EOF'
#define SK_SCALE 3
EOF
cat >k.kc.c <<'EOF'
#include <stdint.h>

#include <kc/kernel.h>

#include "sk.h"

typedef struct sk_f {
  int64_t *out;
} sk_f;

KC_FOR(sk_fill, sk_f, f, i, f->out[i] = i * SK_SCALE + SK_OFFSET)
KC_REDUCE_SUM(sk_sum, sk_f, f, i, int64_t, acc, acc += f->out[i])
EOF
cat >main.c <<'EOF'
#include <stdio.h>

#include <kc/kernel.h>

typedef struct sk_f {
  int64_t *out;
} sk_f;

KC_KERNEL_DECLARE(sk_fill);
KC_KERNEL_DECLARE(sk_sum);

int main(void) {
  int64_t out[100], sum = 0;
  sk_f f = {out};
  kc_policy p = kc_range(0, 100);
  if (kc_init() || kc_parallel_for(NULL, KC_KERNEL(sk_fill), &p, &f, sizeof f) ||
      kc_parallel_reduce(NULL, KC_KERNEL(sk_sum), &p, &f, sizeof f, &sum)) {
    printf("error: %s\n", kc_last_error());
    return 1;
  }
  printf("sum=%lld\n", (long long)sum);
  return kc_finalize() ? 1 : 0;
}
EOF
cat >Makefile <<EOF
KCC = $KCC
CC = $CC
CPPFLAGS = -Iinc '-DSK_OFFSET=(2 + 3)' $KC_CPPFLAGS
CFLAGS = $KC_BUILD_CFLAGS -O2 -Wall -Wextra -Werror
LDFLAGS = $KC_BUILD_LDFLAGS
LDLIBS = -L$KC_LIBDIR -Wl,-rpath,$KC_LIBDIR -lkc

prog: main.o k.kc.o
	\$(CC) \$(CFLAGS) \$(LDFLAGS) -o \$@ main.o k.kc.o \$(LDLIBS)

%.kc.o: %.kc.c
	\$(KCC) \$(CPPFLAGS) \$(CFLAGS) -MMD -MP -c \$< -o \$@

-include k.kc.d
EOF

# sum over i < 100 of (i * scale + 5)
want() { echo "sum=$((4950 * $1 + 500))"; }
run_prog() { # run_prog PROGRAM SCALE WHAT
  out=$(./"$1" 2>&1)
  if test "$out" = "$(want "$2")"; then
    ok "$3: $out"
  else
    fail "$3: printed '$out', expected '$(want "$2")'"
  fi
}

# ---------------------------------------------------- make, deps, rebuild
if make >make.log 2>&1; then
  ok "make built the program with kcc"
else
  cat make.log
  fail "make failed"
fi
run_prog prog 3 "-I and -D (with spaces) reached the kernel"

if test -f k.kc.d; then
  sed 's/^/#   /' k.kc.d | head -n 5
  grep -q '^k\.kc\.o *:' k.kc.d || fail "k.kc.d does not name k.kc.o as its target"
  grep -q 'inc/sk\.h' k.kc.d || fail "k.kc.d lacks inc/sk.h"
  grep -q 'kc/detail/kernel_host\.h' k.kc.d || fail "k.kc.d lacks kc/detail/kernel_host.h"
  if grep -q 'kcc_ptx\.h\|/kcc\.[A-Za-z0-9]\{6\}' k.kc.d; then
    fail "k.kc.d names kcc's temporary files"
  fi
  if test $have_ptx = yes; then
    grep -q 'kc/detail/kernel_cuda\.h' k.kc.d ||
      fail "k.kc.d lacks kc/detail/kernel_cuda.h (the device pass's headers)"
  fi
  ok "k.kc.d lists the headers of both passes, no temporary file"
else
  fail "no dependency file k.kc.d"
fi

if make -q prog; then
  ok "nothing to rebuild after make"
else
  fail "make -q says prog is out of date right after make"
fi
sleep 1
echo '#define SK_SCALE 4' >inc/sk.h
if make -q prog; then
  fail "changing inc/sk.h did not make prog out of date"
fi
make >make.log 2>&1 || { cat make.log; fail "rebuild failed"; }
run_prog prog 4 "a changed header rebuilt the kernel object"

# ------------------------------------------------------------- PTX paths
nm_has_ptx() { $NM "$1" 2>/dev/null | grep -q 'kc__ptx_text'; }
if test $have_ptx = yes; then
  if nm_has_ptx k.kc.o; then
    ok "k.kc.o embeds PTX"
  else
    fail "k.kc.o has no kc__ptx_text"
  fi
  for k in sk_fill sk_sum; do
    $NM k.kc.o | grep -q " kc__kernel_$k\$" ||
      fail "k.kc.o has no handle kc__kernel_$k"
  done

  if $KCC --ptx -Iinc '-DSK_OFFSET=(2 + 3)' $KC_CPPFLAGS k.kc.c -o k.ptx; then
    for k in sk_fill sk_sum; do
      grep -q "\.entry ${k}__kcp" k.ptx ||
        fail "k.ptx has no entry ${k}__kcp"
    done
    ok "kcc --ptx wrote k.ptx ($(wc -c <k.ptx) bytes)"
    if test -n "$PTXAS" && $PTXAS -arch=sm_90 k.ptx -o k.cubin; then
      ok "k.ptx assembles with ptxas -arch=sm_90"
    elif test -n "$PTXAS"; then
      fail "ptxas -arch=sm_90 k.ptx failed"
    fi
  else
    fail "kcc --ptx failed"
  fi
  $KCC --ptx -Iinc '-DSK_OFFSET=(2 + 3)' $KC_CPPFLAGS k.kc.c >/dev/null &&
    test -f k.kc.ptx || fail "kcc --ptx without -o did not write k.kc.ptx"

  $KCC --save-ptx -Iinc '-DSK_OFFSET=(2 + 3)' $KC_CPPFLAGS -c k.kc.c \
    -o saved.kc.o || fail "kcc --save-ptx -c failed"
  if cmp -s saved.kc.ptx k.ptx; then
    ok "--save-ptx kept the embedded PTX (same as --ptx)"
  else
    fail "--save-ptx: saved.kc.ptx differs from kcc --ptx's output"
  fi

  # Several -MT targets: both passes' dependencies name all of them.
  $KCC -Iinc '-DSK_OFFSET=(2 + 3)' $KC_CPPFLAGS -MD -MT one.o -MT two.o \
    -c k.kc.c -o mt.o || fail "kcc -MT -MT failed"
  if grep -q 'kcc-device-target' mt.d ||
    ! grep -q '^one\.o two\.o *: .*k\.kc\.c' mt.d ||
    test "$(grep -c '^one\.o two\.o *:' mt.d)" -ne 2; then
    sed 's/^/#   /' mt.d | grep ':' | head -n 4
    fail "with -MT one.o -MT two.o the dependency rules do not name both"
  else
    ok "several -MT targets name both passes' rules"
  fi

  # A body calling a host-only function is not device code: an error that
  # names --no-ptx, and --no-ptx builds it.
  cat >bad.kc.c <<'EOF'
#include <stdio.h>
#include <kc/kernel.h>
typedef struct b_f { int unused; } b_f;
KC_FOR(bad_puts, b_f, f, i, puts("host only"))
EOF
  if $KCC $KC_CPPFLAGS -c bad.kc.c -o bad.o 2>bad.err; then
    fail "kcc accepted a kernel body that calls puts()"
  else
    grep -q -- '--no-ptx' bad.err ||
      fail "the device-pass error does not mention --no-ptx"
    ok "a host-only call in a body fails the device pass"
  fi
  $KCC --no-ptx $KC_CPPFLAGS -c bad.kc.c -o bad.o ||
    fail "kcc --no-ptx failed on a host-valid kernel"
fi

# ------------------------------------------------------- host-only paths
host_only() { # host_only WHAT OBJECT ENV-ASSIGNMENT... -- KCC-ARGS...
  what=$1 obj=$2
  shift 2
  envs=
  while test "$1" != --; do
    envs="$envs $1"
    shift
  done
  shift
  if env $envs $KCC -Iinc '-DSK_OFFSET=(2 + 3)' $KC_CPPFLAGS \
    $KC_BUILD_CFLAGS -O2 "$@" -c k.kc.c -o "$obj" 2>host.err; then
    :
  else
    fail "$what: kcc failed"
    cat host.err
    return
  fi
  nm_has_ptx "$obj" && fail "$what: $obj embeds PTX"
  $CC $KC_BUILD_CFLAGS $KC_BUILD_LDFLAGS -o "$obj.prog" main.o "$obj" \
    -L"$KC_LIBDIR" -Wl,-rpath,"$KC_LIBDIR" -lkc || fail "$what: link failed"
  run_prog "$obj.prog" 4 "$what: the host-only object works"
}

host_only "KC_NVCC=/nonexistent" nonvcc.o KC_NVCC=/nonexistent --
sed 's/^/#   /' host.err
if test "$(wc -l <host.err)" -eq 1 && grep -q 'warning' host.err &&
  grep -q '/nonexistent' host.err; then
  ok "no PTX compiler: exactly one warning line, naming it"
else
  fail "no PTX compiler: expected one warning line naming /nonexistent"
fi
host_only "--ptx-compiler=/nonexistent" nonvcc2.o -- \
  --ptx-compiler=/nonexistent
test "$(wc -l <host.err)" -eq 1 ||
  fail "--ptx-compiler=/nonexistent: expected one warning line"
# No device pass asked for: --no-ptx, and KC_NVCC or --ptx-compiler no or
# empty, as configure takes KC_NVCC: silent.  Before, kcc warned that it
# found no program "no", or that none was configured.
for how in "--no-ptx -- --no-ptx" "KC_NVCC=no KC_NVCC=no --" \
  "KC_NVCC-empty KC_NVCC= --" "--ptx-compiler=no -- --ptx-compiler=no" \
  "--ptx-compiler= -- --ptx-compiler="; do
  set -- $how
  what=$1
  shift
  host_only "$what" noptx.o "$@"
  if test -s host.err; then
    fail "$what printed: $(cat host.err)"
  else
    ok "$what: host-only, silently"
  fi
done
for how in KC_NVCC=no KC_NVCC=; do
  if env "$how" $KCC --ptx $KC_CPPFLAGS -Iinc k.kc.c -o x.ptx 2>ptx.err; then
    fail "kcc --ptx with $how succeeded"
  else
    case $how in
    *=no) why="disabled by $how" ;;
    *) why="disabled by an empty KC_NVCC" ;;
    esac
    if test "$(cat ptx.err)" = "kcc: error: --ptx needs a PTX compiler: $why"
    then
      ok "kcc --ptx with $how: $why"
    else
      fail "kcc --ptx with $how: $(cat ptx.err)"
    fi
  fi
  got=$(env "$how" $KCC --print-config | grep '^PTX compiler')
  if test "$got" = "PTX compiler  none: $why"; then
    ok "kcc --print-config with $how: $got"
  else
    fail "kcc --print-config with $how: $got"
  fi
done

if KC_NVCC=/nonexistent $KCC --ptx $KC_CPPFLAGS -Iinc k.kc.c -o x.ptx \
  2>/dev/null; then
  fail "kcc --ptx without a PTX compiler succeeded"
else
  ok "kcc --ptx without a PTX compiler is an error"
fi

# kcc's configured architecture is kept when the PTX compiler lists it,
# sm_NN as compute_NN and a variant (a, f) as its base; else the oldest
# listed replaces it.  Before, a configured sm_90a became compute_75 there.
mkdir -p arch-bin || exit 99
cat >arch-bin/nvcc <<'EOF'
#!/bin/sh
case $1 in --list-gpu-arch) echo compute_75; echo compute_90 ;; esac
EOF
chmod +x arch-bin/nvcc || exit 99
for pair in compute_70:compute_75 compute_90:compute_90 sm_90:sm_90 \
  sm_90a:sm_90a compute_90f:compute_90f compute_100f:compute_75; do
  conf=${pair%:*} want=${pair#*:}
  sed "s/^kcc_default_arch=.*/kcc_default_arch='$conf'/" "$KCC" >kcc-arch ||
    exit 99
  got=$(KC_NVCC=$work/arch-bin/nvcc sh ./kcc-arch --print-config |
    sed -n 's/^PTX arch *//p')
  if test "$got" = "$want"; then
    ok "configured $conf, the PTX compiler lists compute_75 compute_90: $got"
  else
    fail "configured $conf, the PTX compiler lists compute_75 compute_90: $got, expected $want"
  fi
done

# A plain C compiler builds the same file host-only.
if $CC -Iinc '-DSK_OFFSET=(2 + 3)' $KC_CPPFLAGS $KC_BUILD_CFLAGS -O2 -Wall \
  -Wextra -Werror -c k.kc.c -o plain.o; then
  nm_has_ptx plain.o && fail "plain cc object embeds PTX"
  $CC $KC_BUILD_CFLAGS $KC_BUILD_LDFLAGS -o plain.prog main.o plain.o \
    -L"$KC_LIBDIR" -Wl,-rpath,"$KC_LIBDIR" -lkc || fail "plain cc: link failed"
  run_prog plain.prog 4 "plain cc: host-only kernels work"
else
  fail "plain cc cannot compile k.kc.c"
fi

# ----------------------------------------------------- link mode, shared
if $KCC -Iinc '-DSK_OFFSET=(2 + 3)' $KC_CPPFLAGS $KC_BUILD_CFLAGS -O2 \
  $KC_BUILD_LDFLAGS k.kc.c main.c -o linked -L"$KC_LIBDIR" \
  -Wl,-rpath,"$KC_LIBDIR" -lkc; then
  run_prog linked 4 "kcc compiles and links in one command"
else
  fail "kcc link mode failed"
fi

if $KCC -Iinc '-DSK_OFFSET=(2 + 3)' $KC_CPPFLAGS $KC_BUILD_CFLAGS -O2 -fPIC \
  -c k.kc.c -o pic.o &&
  $CC $KC_BUILD_CFLAGS $KC_BUILD_LDFLAGS -shared -o libsk.so pic.o \
    -L"$KC_LIBDIR" -lkc &&
  $CC $KC_BUILD_CFLAGS $KC_BUILD_LDFLAGS -o shared.prog main.o -L. -lsk \
    -L"$KC_LIBDIR" -Wl,-rpath,"$work:$KC_LIBDIR" -lkc; then
  run_prog shared.prog 4 "kernels in a shared library register at load"
else
  fail "building or linking a shared library of kernels failed"
fi

# ------------------------------------------------------ CC override
for alt in clang gcc; do
  case $CC in *"$alt"*) continue ;; esac
  command -v $alt >/dev/null 2>&1 || continue
  if CC=$alt $KCC --kcc-verbose -Iinc '-DSK_OFFSET=(2 + 3)' $KC_CPPFLAGS \
    -c k.kc.c -o alt.o 2>alt.err && grep -q "^$alt " alt.err; then
    ok "CC=$alt: kcc compiled the host pass with $alt"
  else
    cat alt.err
    fail "CC=$alt was not used for the host pass"
  fi
  break
done

finish "$work"
