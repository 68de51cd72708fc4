#!/bin/sh
# Runs examples/heat and examples/cg on the backend run-backend chose
# (KC_BACKEND) and on the serial backend, and compares their answers: each
# run must exit 0 (converged, physics checks passed); heat must take the
# same number of steps and end with the same total heat, cg must take the
# same number of iterations (one more or less is allowed: its dot products
# are summed in a backend's own order) and give the same solution
# checksum, both within a relative 1e-9.  Also once with explicit MD tiles
# (heat -t).  A backend kc cannot start here is a SKIP with kc-info's
# reason.
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
backend=${KC_BACKEND:?run me as t-model-examples.<backend>}

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
for prog in heat cg; do
  if ! test -x "$top/examples/$prog"; then
    echo "ERROR: $top/examples/$prog is missing: run make first"
    exit 99
  fi
done

fail=0

# run NAME BACKEND ARGS...: runs an example, prints its output, sets $out.
run() {
  name=$1 be=$2
  shift 2
  out=$(KC_BACKEND=$be "$top/examples/$name" "$@" 2>&1)
  rc=$?
  printf '%s\n' "$out" | sed "s/^/  $name ($be): /"
  if test $rc -ne 0; then
    echo "FAIL: KC_BACKEND=$be $name $* exited $rc"
    fail=1
  elif ! printf '%s\n' "$out" | grep -q "^backend: $be\$"; then
    echo "FAIL: KC_BACKEND=$be $name did not print 'backend: $be'"
    fail=1
  fi
}

# field TEXT KEY: the first number after "KEY: " in TEXT.
field() {
  printf '%s\n' "$1" | sed -n "s/^$2: \([-+0-9.eE]*\).*/\1/p" | head -n 1
}

# close A B RELTOL SLACK: |A - B| <= RELTOL * |B| + SLACK
close() {
  awk -v a="$1" -v b="$2" -v t="$3" -v s="$4" 'BEGIN {
    d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b
    exit !(a != "" && b != "" && d <= t * m + s) }'
}

compare() { # NAME KEY RELTOL SLACK
  if close "$(field "$got" "$2")" "$(field "$ref" "$2")" "$3" "$4"; then
    echo "ok: $1 on $backend: $2 $(field "$got" "$2") (serial: $(field "$ref" "$2"))"
  else
    echo "FAIL: $1 on $backend: $2 is '$(field "$got" "$2")', serial gave '$(field "$ref" "$2")'"
    fail=1
  fi
}

for args in "" "-t 5,16"; do
  # shellcheck disable=SC2086
  run heat serial $args
  ref=$out
  # shellcheck disable=SC2086
  run heat "$backend" $args
  got=$out
  compare "heat $args" steps 0 0
  compare "heat $args" "total heat" 1e-9 0
done

run cg serial
ref=$out
run cg "$backend"
got=$out
compare cg iterations 0 1
compare cg "solution checksum" 1e-9 0

# Arguments heat and cg must refuse (exit 2, a message) before allocating
# anything: trailing junk, -n 2^32 (n * n wrapped to 0, then a heap
# overflow), cg's N past the int32 CSR offsets, a tolerance met before
# the first iteration.  The same on every backend: checked on serial.
to=
command -v timeout >/dev/null 2>&1 && to="timeout 60"
if test "$backend" = serial; then
  for args in "heat -n 8x" "heat -n 4294967296 -s 1" "heat -n 3037000500" \
    "heat -s 5x" "heat -t 5,5x" "heat -t 0,0,9" "cg -n 24abc" "cg -n 675" \
    "cg -tol inf" "cg -tol 1e300" "cg -tol 1" "cg -tol nan" \
    "cg -tol 1e-8x" "cg -maxit 10x" "cg -check 1x"; do
    set -- $args
    prog=$1
    shift
    out=$(KC_BACKEND=serial $to "$top/examples/$prog" "$@" 2>&1)
    rc=$?
    if test $rc -eq 2 && printf '%s\n' "$out" | grep -q "^$prog: \|^usage: $prog"; then
      echo "ok: $args: refused (exit 2): $(printf '%s\n' "$out" | head -n 1)"
    else
      echo "FAIL: $args: exit $rc, want 2 with a message:"
      printf '%s\n' "$out" | tail -n 5 | sed 's/^/  /'
      fail=1
    fi
  done
fi

exit $fail
