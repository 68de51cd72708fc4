#!/bin/sh
# What make check prints: tests/kc-log-driver (the log driver of every
# suite) puts a skipped test's reason on its console line and in its .trs;
# tests/kc-check-summary (the top-level check-local) counts the tests of
# every directory that ran since the stamp, lists skips by reason and
# failures with their logs, ends with the totals, and fails if a test did.
src=${KC_TEST_TOP_SRCDIR:?run me through tests/run-backend}
driver=$src/tests/kc-log-driver
summary=$src/tests/kc-check-summary
tmp=${TMPDIR:-/tmp}/kc-t-check-report.$$
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/a" "$tmp/b" "$tmp/old" || exit 99
fail=0
bad() {
  echo "FAIL: $*"
  fail=1
}
# expect_line FILE TEXT: FILE holds the line TEXT.
expect_line() {
  grep -qxF -- "$2" "$1" || bad "$1 lacks the line '$2'; it holds: $(cat "$1")"
}

# drive DIR NAME EXIT-STATUS [OUTPUT] [DRIVER OPTIONS...]: one test through
# the driver; its console line goes to DIR/NAME.console.
drive() {
  d=$1 n=$2 st=$3 out=$4
  shift 4
  "${SHELL:-/bin/sh}" "$driver" --test-name "$n" --log-file "$d/$n.log" \
    --trs-file "$d/$n.trs" --color-tests no "$@" -- \
    sh -c 'printf "%b" "$1"; exit $2' - "$out" "$st" >"$d/$n.console" ||
    bad "the driver exited $? for $n"
}

printf 'before\n' >"$tmp/old/stale.log"
printf ':test-result: FAIL\n' >"$tmp/old/stale.trs"
sleep 1
touch "$tmp/stamp"

drive "$tmp/a" pass 0 'fine\n'
drive "$tmp/a" skip 77 'probing\nSKIP: no CUDA driver (libcuda.so.1)\nmore\n'
drive "$tmp/a" skip2 77 'SKIP: no CUDA driver (libcuda.so.1)\n'
drive "$tmp/a" quiet 77 'just this line\n\n'
drive "$tmp/b" xfail 1 '' --expect-failure yes
drive "$tmp/b" hard 99 'oops\n' --enable-hard-errors no
expect_line "$tmp/a/pass.console" "PASS: pass"
expect_line "$tmp/a/skip.console" "SKIP: skip (no CUDA driver (libcuda.so.1))"
expect_line "$tmp/a/quiet.console" "SKIP: quiet (just this line)"
expect_line "$tmp/b/xfail.console" "XFAIL: xfail"
expect_line "$tmp/b/hard.console" "FAIL: hard"
expect_line "$tmp/a/skip.trs" ":test-result: SKIP"
expect_line "$tmp/a/skip.trs" ":kc-skip-reason: no CUDA driver (libcuda.so.1)"
expect_line "$tmp/a/skip.log" "SKIP skip (exit status: 77)"
expect_line "$tmp/b/hard.trs" ":recheck: yes"
expect_line "$tmp/a/pass.trs" ":copy-in-global-log: no"

# Everything passed or was skipped: exit 0, the totals last.
"${SHELL:-/bin/sh}" "$summary" "kc test" "$tmp/stamp" "$tmp/a" "$tmp/old" \
  >"$tmp/sum1" 2>&1 || bad "kc-check-summary failed with no failed test"
cat "$tmp/sum1"
expect_line "$tmp/sum1" "kc test: 4 tests in $tmp/a"
expect_line "$tmp/sum1" "     2  no CUDA driver (libcuda.so.1)"
expect_line "$tmp/sum1" "        skip skip2"
expect_line "$tmp/sum1" "# TOTAL: 4"
expect_line "$tmp/sum1" "# PASS:  1"
expect_line "$tmp/sum1" "# SKIP:  3"
tail -n 2 "$tmp/sum1" | head -n 1 | grep -qx '# ERROR: 0' ||
  bad "the summary does not end with the totals"
grep -q stale "$tmp/sum1" && bad "a result older than the stamp was counted"

# A failure: listed with its log, and the exit status says so.
drive "$tmp/b" broken 1 'wrong\n'
if "${SHELL:-/bin/sh}" "$summary" "kc test" "$tmp/stamp" "$tmp/a" "$tmp/b" \
  >"$tmp/sum2" 2>&1; then
  bad "kc-check-summary exited 0 with a failed test"
fi
cat "$tmp/sum2"
expect_line "$tmp/sum2" "  FAIL: $tmp/b/broken (log: $tmp/b/broken.log)"
expect_line "$tmp/sum2" "# TOTAL: 7"
expect_line "$tmp/sum2" "# FAIL:  2"
expect_line "$tmp/sum2" "# XFAIL: 1"

# make check TESTS=... from the top (--tests): a name no directory ran is
# listed and fails the summary; a script's name is found by its log's
# (t-x.sh writes t-x.trs); a result older than the stamp is no run.
if ! "${SHELL:-/bin/sh}" "$summary" --tests 'pass skip.sh' "kc test" \
  "$tmp/stamp" "$tmp/a" >"$tmp/sum3" 2>&1; then
  bad "kc-check-summary --tests failed with every named test run: $(cat "$tmp/sum3")"
fi
grep 'no directory ran' "$tmp/sum3" && bad "a test that ran was listed as not run"
if "${SHELL:-/bin/sh}" "$summary" --tests 'pass t-nosuch stale' "kc test" \
  "$tmp/stamp" "$tmp/a" "$tmp/old" >"$tmp/sum4" 2>&1; then
  bad "kc-check-summary --tests exited 0 with a name no directory ran"
fi
cat "$tmp/sum4"
expect_line "$tmp/sum4" "no directory ran a test named t-nosuch (TESTS=pass t-nosuch stale)"
expect_line "$tmp/sum4" "no directory ran a test named stale (TESTS=pass t-nosuch stale)"
grep 'named pass ' "$tmp/sum4" && bad "the test that ran was listed as not run"
exit $fail
