#!/bin/sh
# Conformance: examples/saxpy-kc (its kernel built by kcc for every
# backend) under the bundled timer tool prints the kernel table
# (doc/profiling.md) on the backend run-backend chose.
#
# Run by tests/run-backend as profiling-timer-saxpy.<backend>.
set -u

top=${KC_TEST_TOP_BUILDDIR:?run through tests/run-backend}
saxpy=$top/examples/saxpy-kc
timer=$top/tools/.libs/libkc-tool-timer.so
for f in "$saxpy" "$timer"; do
  if test ! -f "$f"; then
    echo "ERROR: $f is missing: run make first"
    exit 99
  fi
done

tmp=${TMPDIR:-/tmp}/kc-tools-saxpy.$$
trap 'rm -f "$tmp.out" "$tmp.report"' EXIT
n=100000

# A hook that deadlocks must fail the test quickly, not stall the suite.
limit=
command -v timeout >/dev/null 2>&1 && limit="timeout -k 5 60"
KC_TOOLS_LIBS=$timer KC_TIMER_OUTPUT=$tmp.report $limit "$saxpy" $n \
  >"$tmp.out" 2>&1
rc=$?
cat "$tmp.out"
if test $rc -eq 124 || test $rc -eq 137; then
  echo "FAIL: saxpy-kc did not finish within 60 s (a profiling hook deadlocked?)"
  exit 1
fi
if test $rc -ne 0; then
  if grep -q 'no usable device' "$tmp.out"; then
    echo "SKIP: backend '$KC_BACKEND' has no device here"
    exit 77
  fi
  echo "FAIL: saxpy-kc exited with $rc"
  exit 1
fi
echo "# --- the report ---"
cat "$tmp.report"
echo "# ---"

fail=0
check() { # check DESCRIPTION COMMAND...
  what=$1
  shift
  if "$@"; then :; else
    echo "FAIL: $what"
    fail=1
  fi
}

check "the report names the backend" \
  grep -q "^kc-tool-timer: [0-9.]* s from init to finalize, backend $KC_BACKEND, device " "$tmp.report"
# The one kernel: a 'for' labelled saxpy, called once, 100% of kernel time.
check "one saxpy row, 1 call, 100%" \
  awk '$5 == "for" && $6 == "saxpy" && NF == 6 && $2 == 1 && ($4 == "100.00" || $1 == "0.000000") { ok = 1 } END { exit !ok }' "$tmp.report"
check "kernel total of 1 call" grep -q '^kernel total: [0-9.]* s in 1 calls' "$tmp.report"
# x and y, n floats each, live at the same time.
check "peak memory of x and y" \
  awk -v want=$((2 * n * 4)) '/^memory by space:/ { m = 1; next } m && $2 == want && $3 == 2 && $4 == 0 { ok = 1 } /^deep copies:/ { m = 0 } END { exit !ok }' "$tmp.report"
check "three deep copies" grep -q "^deep copies: 3 calls, $((3 * n * 4)) bytes" "$tmp.report"
exit $fail
