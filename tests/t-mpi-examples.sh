#!/bin/sh
# examples/mpi under mpirun on the backend run-backend chose (KC_BACKEND):
# heat-mpi and cg-mpi on 1, 2 and 4 ranks (--oversubscribe: CI has 2
# cores) against the single-process heat and cg on the same backend.
# heat-mpi must take the same steps and end with the same total heat
# (relative 1e-12); cg-mpi must take the same iterations, reach the same
# residual (1e-10) and the same solution checksum (relative 1e-10).  On 2
# ranks once more with the halos staged through host mirrors (-halo
# staged).  SKIPs when configure built no MPI example, when there is no
# mpirun, or when kc cannot start the backend here (cuda without a GPU).
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
backend=${KC_BACKEND:?run me as t-mpi-examples.<backend>}
ex=$top/examples

if ! test -x "$ex/mpi/heat-mpi" || ! test -x "$ex/mpi/cg-mpi"; then
  echo "SKIP: examples/mpi was not built: configure found no MPI compiler" \
    "wrapper (see 'MPI examples' in its summary; --with-mpi=MPICC)"
  exit 77
fi
mpirun=$(command -v mpirun || command -v mpiexec)
if test -z "$mpirun"; then
  echo "SKIP: no mpirun or mpiexec on PATH"
  exit 77
fi
# Open MPI: more ranks than cores, and CI's root user.
mpiflags=
if "$mpirun" --version 2>&1 | grep -q "Open MPI"; then
  mpiflags=--oversubscribe
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
fi

# Under AddressSanitizer (.ci/run's asan step) Open MPI's own allocations,
# made in components it has unloaded by exit (no suppression can name
# them), would be reported as leaks; kc's leaks are checked by every other
# test.  Memory errors are still fatal.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS

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

fail=0
# run LABEL COMMAND...: runs it, prints its output, sets $out.
run() {
  label=$1
  shift
  out=$("$@" 2>&1)
  rc=$?
  printf '%s\n' "$out" | sed "s/^/  $label: /"
  if test $rc -ne 0; then
    echo "FAIL: $label exited $rc"
    fail=1
  elif ! printf '%s\n' "$out" | grep -q "^backend: $backend\$"; then
    echo "FAIL: $label did not print 'backend: $backend'"
    fail=1
  fi
}

field() { # TEXT KEY: the first number after "KEY: "
  printf '%s\n' "$1" | sed -n "s/^$2: \([-+0-9.eE]*\).*/\1/p" | head -n 1
}

compare() { # LABEL KEY RELTOL ABSTOL: |got - ref| <= RELTOL |ref| + ABSTOL
  a=$(field "$got" "$2") b=$(field "$ref" "$2")
  if awk -v a="$a" -v b="$b" -v t="$3" -v s="$4" 'BEGIN {
      d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b
      exit !(a != "" && b != "" && d <= t * m + s) }'; then
    echo "ok: $1: $2 $a (single process: $b)"
  else
    echo "FAIL: $1: $2 is '$a', the single process gave '$b'"
    fail=1
  fi
}

# Arguments the examples must refuse (usage, exit 2) before allocating
# anything: trailing junk, -n 2^32 (n * n wrapped to 0, then a heap
# overflow), cg's N past the int32 CSR offsets, a tolerance met before
# the first iteration.  The same on every backend: checked on serial.
to=
command -v timeout >/dev/null 2>&1 && to="timeout 60"
if test "$backend" = serial; then
  for args in "heat-mpi -n 8x" "heat-mpi -n 4294967296 -s 1" \
    "heat-mpi -n 3037000500" "heat-mpi -s 5x" "heat-mpi -t 5,5x" \
    "heat-mpi -t 0,0,9" "cg-mpi -n 24abc" "cg-mpi -n 675" \
    "cg-mpi -tol inf" "cg-mpi -tol 1e300" "cg-mpi -tol 1" "cg-mpi -tol nan" \
    "cg-mpi -tol 1e-8x" "cg-mpi -maxit 10x"; do
    set -- $args
    prog=$1
    shift
    # shellcheck disable=SC2086
    out=$($to "$mpirun" $mpiflags -np 1 "$ex/mpi/$prog" "$@" 2>&1)
    rc=$?
    if test $rc -eq 2 && printf '%s\n' "$out" | grep -q "^usage: $prog"; then
      echo "ok: $args: refused (exit 2)"
    else
      echo "FAIL: $args: exit $rc, want 2 with the usage:"
      printf '%s\n' "$out" | tail -n 5 | sed 's/^/  /'
      fail=1
    fi
  done
fi

heat_args="-n 32"
cg_args="-n 12"
run "heat $heat_args" "$ex/heat" $heat_args
heat_ref=$out
run "cg $cg_args" "$ex/cg" $cg_args
cg_ref=$out

for case in "1" "2" "4" "2 -halo staged"; do
  set -- $case
  np=$1
  shift
  label="heat-mpi -np $np $*"
  # shellcheck disable=SC2086
  run "$label" "$mpirun" $mpiflags -np "$np" "$ex/mpi/heat-mpi" $heat_args "$@"
  got=$out ref=$heat_ref
  compare "$label" steps 0 0
  compare "$label" "total heat" 1e-12 0
  label="cg-mpi -np $np $*"
  # shellcheck disable=SC2086
  run "$label" "$mpirun" $mpiflags -np "$np" "$ex/mpi/cg-mpi" $cg_args "$@"
  got=$out ref=$cg_ref
  compare "$label" iterations 0 0
  compare "$label" residual 0 1e-10
  compare "$label" "solution checksum" 1e-10 0
done
exit $fail
