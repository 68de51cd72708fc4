#!/bin/sh
# Out of memory, everywhere kc allocates: t-oom-prog runs once to count
# kc's allocations (malloc, calloc, realloc, aligned_alloc, posix_memalign
# called from libkc or a plugin, tests/fixtures/failalloc.c), then once
# for each N with the Nth of them failing, on each host backend (two
# kc_init cycles on serial, one on the plugins: the same core paths twice
# would double the time).  Each run must end by itself, with every call
# right or failing with a detail: no crash, no abort, no hang.  The
# loader's lookup took its out-of-memory for "no backend named ..." (and a
# list moved on to its next backend), and a KC_CHUNK_BUFFER out of memory
# aborted the process.
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
. "$top/tests/kcc-test.env" # KC_BUILD_CFLAGS, KC_BUILD_LDFLAGS
prog=$top/tests/t-oom-prog
shim=$top/tests/.libs/libkc-failalloc.so
case " $KC_BUILD_CFLAGS $KC_BUILD_LDFLAGS " in
*-fsanitize=*)
  echo "SKIP: a sanitizer's allocator replaces the one this test fails"
  exit 77 ;;
esac
test -x "$prog" && test -f "$shim" || { echo "FAIL: build t-oom-prog and libkc-failalloc (make check)"; exit 99; }
# The program itself, not libtool's wrapper script: a shell under the
# shim takes ten times as long as the program.
if test -x "$top/tests/.libs/t-oom-prog"; then
  prog=$top/tests/.libs/t-oom-prog
  LD_LIBRARY_PATH=$top/libkc/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export LD_LIBRARY_PATH
fi
ldd --version 2>&1 | grep -qi 'glibc\|gnu libc' ||
  { echo "SKIP: the allocation shim needs glibc"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/kc-oom.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
export KC_NUM_THREADS=3
fail=0
for b in serial threads openmp; do
  case " $KC_TEST_BACKENDS " in *" $b "*) ;; *) continue ;; esac
  list=$b
  KC_OOM_CYCLES=2
  test "$b" = serial || KC_OOM_CYCLES=1
  export KC_OOM_CYCLES
  KC_BACKEND=$list KC_FAILALLOC_COUNT=$work/count LD_PRELOAD=$shim \
    timeout 60 "$prog" >"$work/out" 2>&1
  rc=$?
  total=$(cat "$work/count" 2>/dev/null)
  if test $rc -ne 0 || test -z "$total" || test "$total" -lt 10; then
    echo "FAIL: $b: the run without a failure: exit $rc, ${total:-no} allocations counted"
    cat "$work/out"
    fail=1
    continue
  fi
  bad=0
  n=1
  while test $n -le "$total"; do
    KC_BACKEND=$list KC_FAILALLOC_AT=$n LD_PRELOAD=$shim \
      timeout 20 "$prog" >"$work/out" 2>&1
    rc=$?
    if test $rc -ne 0; then
      case $rc in
      124) what="hung (killed after 20 s)" ;;
      3 | 4) what="exit $rc" ;;
      *) what="exit $rc$(test $rc -gt 128 && echo " (signal $((rc - 128)))")" ;;
      esac
      echo "FAIL: $b: allocation $n of $total failing: $what"
      grep -v '^#' "$work/out" | head -n 5
      bad=$((bad + 1))
      test $bad -ge 10 && break
    fi
    n=$((n + 1))
  done
  if test $bad -eq 0; then
    echo "ok: $b: each of its $total allocations failing in turn"
  else
    fail=1
  fi
done
test $fail -eq 0 && echo PASS
exit $fail
