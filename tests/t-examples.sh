#!/bin/sh
# Runs every program of examples/ on the backend run-backend chose
# (KC_BACKEND), as a user would: `KC_BACKEND=threads examples/saxpy`.  Each
# must exit 0 and print "backend: <name>".  A backend kc cannot start here
# (cuda without a GPU) is a SKIP with kc-info's reason.  On a device
# backend, an example whose kernels are host-only C functions (saxpy)
# cannot run: it must then fail with kc's "has no PTX" explanation, and
# the other examples must work.
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
backend=${KC_BACKEND:?run me as t-examples.<backend>}

# Is the backend usable here?  kc-info says why not.
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

# The examples: every executable file of the examples build directory.
examples=
for f in "$top"/examples/*; do
  test -f "$f" && test -x "$f" || continue
  examples="$examples $f"
done
if test -z "$examples"; then
  echo "ERROR: no example program in $top/examples: run make first"
  exit 99
fi

# A device backend: kc-info reports a compute capability.
device=0
printf '%s\n' "$info" | grep -q '^device-compute-capability: 0\.0$' || device=1

fail=0 ran=0
for ex in $examples; do
  name=${ex##*/}
  out=$("$ex" 2>&1)
  rc=$?
  printf '%s\n' "$out" | sed "s/^/  $name: /"
  if test $rc -ne 0 && test $device -eq 1 &&
    printf '%s\n' "$out" | grep -q "has no PTX"; then
    echo "ok: KC_BACKEND=$backend $name: host-only kernels, refused with the reason"
    continue
  fi
  ran=$((ran + 1))
  if test $rc -ne 0; then
    echo "FAIL: KC_BACKEND=$backend $name exited $rc"
    fail=1
  elif ! printf '%s\n' "$out" | grep -q "^backend: $backend\$"; then
    echo "FAIL: KC_BACKEND=$backend $name did not print 'backend: $backend'"
    fail=1
  else
    echo "ok: KC_BACKEND=$backend $name"
  fi
done

if test $ran -eq 0 && test $fail -eq 0; then
  echo "SKIP: every example has host-only kernels: none runs on '$backend'"
  exit 77
fi

# The same examples with a bogus backend: a clear error, non-zero exit.
for ex in $examples; do
  name=${ex##*/}
  out=$(KC_BACKEND=bogus "$ex" 2>&1)
  rc=$?
  if test $rc -eq 0; then
    echo "FAIL: KC_BACKEND=bogus $name succeeded"
    fail=1
  elif ! printf '%s\n' "$out" | grep -q "no backend named 'bogus' (available: serial"; then
    echo "FAIL: KC_BACKEND=bogus $name did not explain itself:"
    printf '%s\n' "$out"
    fail=1
  else
    echo "ok: KC_BACKEND=bogus $name: $(printf '%s\n' "$out" | tail -n 1)"
  fi
done
exit $fail
