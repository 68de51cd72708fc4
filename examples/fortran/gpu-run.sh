#!/bin/bash
# gpu-run.sh — builds kc with its Fortran binding on the GPU machine and
# runs the Fortran examples and tests on the cuda backend.
#
# Needs a GNU Fortran compiler there: $FC if set, else gfortran, else
# gfortran-<gcc's major version>, else the newest gfortran-NN on PATH.
# Without one it says so and exits 77 (nothing run); the Fortran binding
# needs nothing else beyond what scripts/gpu-check.sh needs.
#
# Prepare here first (as for scripts/gpu-check.sh):   sh scripts/gpu-prepare.sh
# then, with the device tool, from the repository root:
#   run(command="bash examples/fortran/gpu-run.sh", carry=[".devcarry"])
#
# It builds with scripts/gpu-check.sh's build step (FC passed through the
# environment to configure) into $KC_GPU_BUILD (default
# /tmp/kc-gpu-fortran-build), then runs:
#   - examples/fortran/saxpy and heat with KC_BACKEND=cuda, each beside its
#     C twin (saxpy-kc, heat), outputs in $OUT/fortran-examples.log;
#   - the Fortran tests: t-fortran-bind.sh once, t-fortran-api and
#     t-fortran-examples on cuda and on the host backends.
# Prints a summary last; exits non-zero if anything failed.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/kc-gpu-out}
export KC_GPU_BUILD=${KC_GPU_BUILD:-/tmp/kc-gpu-fortran-build}
build=$KC_GPU_BUILD
mkdir -p "$OUT"

# ------------------------------------------------ a Fortran compiler?
fc=${FC:-}
if test -z "$fc"; then
  major=$(gcc -dumpversion 2>/dev/null | cut -d. -f1)
  for c in gfortran ${major:+gfortran-$major} \
    $(compgen -c gfortran- 2>/dev/null | sort -t- -k2 -rn | uniq); do
    if command -v "$c" >/dev/null 2>&1; then
      fc=$c
      break
    fi
  done
fi
if test -z "$fc" || ! command -v "$fc" >/dev/null 2>&1; then
  echo "gpu-run.sh: SKIP: no GNU Fortran compiler on this machine" \
    "(no gfortran, no gfortran-NN; gcc is $(gcc -dumpfullversion 2>/dev/null))."
  echo "gpu-run.sh: the Fortran binding cannot be built here; install" \
    "gfortran (gfortran-${major:-NN}) and run this again."
  exit 77
fi
printf 'program p\nuse iso_c_binding\nend program p\n' >"$OUT/fc-probe.f90"
if ! "$fc" -c -o "$OUT/fc-probe.o" "$OUT/fc-probe.f90" >"$OUT/fc-probe.log" 2>&1; then
  echo "gpu-run.sh: SKIP: $fc is installed but cannot compile Fortran:"
  cat "$OUT/fc-probe.log"
  exit 77
fi
echo "gpu-run.sh: Fortran compiler $fc ($("$fc" -dumpfullversion 2>/dev/null))"

# --------------------------------------------------------------- build
FC=$fc bash "$root/scripts/gpu-check.sh" build || exit 1
if ! grep -q "^KC_FORTRAN='yes'" "$build/tests/fortran-test.env" 2>/dev/null; then
  make -C "$build/tests" fortran-test.env >/dev/null 2>&1
fi
if ! grep -q "^KC_FORTRAN='yes'" "$build/tests/fortran-test.env"; then
  echo "gpu-run.sh: FAILED: configure did not build the Fortran binding with $fc:"
  grep 'fortran binding' "$OUT/build.log"
  exit 1
fi

fail=0
log=$OUT/fortran-examples.log
: >"$log"
for args in "fortran/saxpy 10000000:saxpy-kc 10000000" \
  "fortran/heat:heat" "fortran/heat -n 512 -s 2000:heat -n 512 -s 2000"; do
  for prog in "${args%%:*}" "${args#*:}"; do
    for be in cuda openmp; do
      echo "===== KC_BACKEND=$be $prog" >>"$log"
      # shellcheck disable=SC2086
      KC_BACKEND=$be KC_PLUGIN_PATH="$build/plugins/$be/.libs" \
        timeout 120 "$build"/examples/$prog >>"$log" 2>&1
      rc=$?
      echo "exit $rc" >>"$log"
      # heat -s 2000 stops before converging: exit 1 by design.
      case "$prog:$rc" in
        *"-s 2000":1 | *:0) ;;
        *) echo "FAIL: KC_BACKEND=$be $prog exited $rc"; fail=1 ;;
      esac
    done
  done
done
grep -E '^(=====|backend|saxpy|steps|total heat|time per step|bandwidth|exit)' "$log"

# --------------------------------------------------------------- tests
tests="t-fortran-bind.sh"
for be in cuda serial threads openmp; do
  tests="$tests t-fortran-api.$be t-fortran-examples.$be"
done
make -C "$build/tests" check TESTS="$tests" >"$OUT/fortran-check.log" 2>&1
grep -E '^(PASS|FAIL|SKIP|ERROR|XPASS): ' "$OUT/fortran-check.log"
cp "$build"/tests/t-fortran-*.log "$OUT/" 2>/dev/null
if grep -qE '^(FAIL|ERROR|XPASS): ' "$OUT/fortran-check.log" ||
  ! grep -q '^PASS: t-fortran-api.cuda' "$OUT/fortran-check.log"; then
  fail=1
fi
echo "gpu-run.sh: $(test $fail -eq 0 && echo ok || echo FAILED);" \
  "logs in $OUT (fortran-examples.log, fortran-check.log, t-fortran-*.log)"
exit $fail
