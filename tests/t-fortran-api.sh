#!/bin/sh
# Runs tests/fortran-api (fortran-api.f90: every procedure of the Fortran
# module kc, results checked, errors as codes with their messages) on the
# backend run-backend chose (KC_BACKEND); then checks the other half of
# the error convention: a failing call without stat= stops the program
# (non-zero exit) with "kc: <call> failed: <message> (<detail>)".  SKIP
# when configure built no Fortran binding, or the backend has no device.
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
backend=${KC_BACKEND:?run me as t-fortran-api.<backend>}
. "$top/tests/fortran-test.env" || exit 99
if test "$KC_FORTRAN" != yes; then
  echo "SKIP: configure built no Fortran binding: $KC_FORTRAN_WHY"
  exit 77
fi

# libgfortran hands Fortran strings (not NUL-terminated) to strndup with
# their length; ASan's strict_string_checks (CI's asan step) reads them up
# to a NUL and reports an overflow inside libgfortran.  Off for the
# Fortran programs; every other ASan check stays.
if test -n "${ASAN_OPTIONS:-}"; then
  ASAN_OPTIONS=$ASAN_OPTIONS:strict_string_checks=0
  export ASAN_OPTIONS
fi

info=$("$top/tools/kc-info" 2>&1)
if test $? -ne 0; then
  err=$(printf '%s\n' "$info" | sed -n 's/^backend-error: //p')
  case $err in
    KC_ENODEV:*)
      echo "SKIP: backend '$backend' has no device here: ${err#KC_ENODEV: }"
      exit 77
      ;;
  esac
  echo "FAIL: kc-info cannot start backend '$backend':"
  printf '%s\n' "$info"
  exit 1
fi

prog=$top/tests/fortran-api
if ! test -x "$prog"; then
  echo "ERROR: $prog is missing: run make check (or make -C tests fortran-api)"
  exit 99
fi

fail=0
"$prog" || fail=1
grep_out() { printf '%s\n' "$out" | grep -F "$1" >/dev/null; }
if ! "$prog" | grep -q "^backend: $backend\$"; then
  echo "FAIL: fortran-api did not run on '$backend'"
  fail=1
fi

out=$("$prog" --stop 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/  fortran-api --stop: /'
if test $rc -eq 0; then
  echo "FAIL: a failed call without stat= did not stop the program"
  fail=1
elif ! grep_out "kc: kc_kernel_get failed: no such kernel (no kernel named 'missing_kernel'"; then
  echo "FAIL: the stop did not print kc's message and detail"
  fail=1
elif grep_out "FAIL: kc_kernel_get returned"; then
  echo "FAIL: the program went on after the failed call"
  fail=1
else
  echo "ok: a failed call without stat= stops (exit $rc) with kc's message"
fi
exit $fail
