#!/bin/sh
# Runs the Fortran examples (examples/fortran) on the backend run-backend
# chose (KC_BACKEND) beside their C twins (examples/saxpy-kc,
# examples/heat) and compares them: each must exit 0 and print "backend:
# <name>"; saxpy must report a correct result for the same n; heat (also
# with explicit tiles) must take the same number of steps and end with the
# same total heat, within a relative 1e-9, as the C program.  A bogus
# backend must fail with kc's explanation.  SKIP when configure built no
# Fortran binding, or the backend has no device here.
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
backend=${KC_BACKEND:?run me as t-fortran-examples.<backend>}
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
for prog in fortran/saxpy fortran/heat saxpy-kc heat; do
  if ! test -x "$top/examples/$prog"; then
    echo "ERROR: $top/examples/$prog is missing: run make first"
    exit 99
  fi
done

fail=0

# run PROG ARGS...: runs an example on $backend, prints its output, sets $out.
run() {
  prog=$1
  shift
  out=$("$top/examples/$prog" "$@" 2>&1)
  rc=$?
  printf '%s\n' "$out" | sed "s|^|  $prog: |"
  if test $rc -ne 0; then
    echo "FAIL: KC_BACKEND=$backend $prog $* exited $rc"
    fail=1
  elif ! printf '%s\n' "$out" | grep -q "^backend: $backend\$"; then
    echo "FAIL: KC_BACKEND=$backend $prog did not print 'backend: $backend'"
    fail=1
  fi
}

# field TEXT KEY: the first number after "KEY: " in TEXT.
field() {
  printf '%s\n' "$1" | sed -n "s/^$2: \([-+0-9.eE]*\).*/\1/p" | head -n 1
}

# close A B RELTOL: |A - B| <= RELTOL * |B|, both present
close() {
  awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN {
    d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b
    exit !(a != "" && b != "" && d <= t * m) }'
}

compare() { # NAME KEY RELTOL
  g=$(field "$got" "$2") r=$(field "$ref" "$2")
  if close "$g" "$r" "$3"; then
    echo "ok: $1 on $backend: $2 $g (C: $r)"
  else
    echo "FAIL: $1 on $backend: Fortran $2 is '$g', C gave '$r'"
    fail=1
  fi
}

for n in 1000 100003; do
  run saxpy-kc $n
  ref=$out
  run fortran/saxpy $n
  got=$out
  if printf '%s\n' "$ref" | grep -q "n = $n, result correct" &&
    printf '%s\n' "$got" | grep -q "n = $n, result correct"; then
    echo "ok: saxpy $n on $backend: Fortran and C both correct"
  else
    echo "FAIL: saxpy $n on $backend: not both correct"
    fail=1
  fi
done

for args in "" "-t 5,16" "-n 40"; do
  # shellcheck disable=SC2086
  run heat $args
  ref=$out
  # shellcheck disable=SC2086
  run fortran/heat $args
  got=$out
  compare "heat $args" steps 0
  compare "heat $args" "total heat" 1e-9
done

out=$(KC_BACKEND=bogus "$top/examples/fortran/saxpy" 10 2>&1)
if test $? -eq 0; then
  echo "FAIL: KC_BACKEND=bogus fortran/saxpy succeeded"
  fail=1
elif ! printf '%s\n' "$out" |
  grep -q "kc: kc_init failed: no such backend (no backend named 'bogus' (available: serial"; then
  echo "FAIL: KC_BACKEND=bogus fortran/saxpy did not explain itself:"
  printf '%s\n' "$out"
  fail=1
else
  echo "ok: KC_BACKEND=bogus fortran/saxpy: $(printf '%s\n' "$out" | grep '^kc: ')"
fi
exit $fail
