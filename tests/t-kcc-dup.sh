#!/bin/sh
# kcc: a kernel whose registration fails prints exactly one line on stderr
# and the program goes on (t-kcc-dup.c checks the rest).
. "${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}/tests/kcc-test.env"

prog=$KC_TEST_TOP_BUILDDIR/tests/t-kcc-dup
err=t-kcc-dup.stderr
"$prog" 2>"$err"
rc=$?
echo "# t-kcc-dup exited $rc; its stderr:"
sed 's/^/#   /' "$err"
if test $rc -ne 0; then
  echo "FAIL: t-kcc-dup exited $rc"
  exit 1
fi
n=$(grep -c 'kernel "kt_dup" not registered' "$err")
if test "$n" -ne 1; then
  echo "FAIL: expected one 'kernel \"kt_dup\" not registered' line, got $n"
  exit 1
fi
if ! grep 'kernel "kt_dup" not registered' "$err" | grep -q 'dup.kc.c'; then
  echo "FAIL: the line does not name the file (dup.kc.c)"
  exit 1
fi
if grep -q 'kt_dup_ok' "$err"; then
  echo "FAIL: kt_dup_ok was reported although it registered"
  exit 1
fi
n=$(wc -l <"$err")
if test "$n" -ne 1; then
  echo "FAIL: expected exactly one line on stderr, got $n"
  exit 1
fi
rm -f "$err"
echo "PASS: one line on stderr, the program went on"
exit 0
