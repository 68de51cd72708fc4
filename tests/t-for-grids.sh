#!/bin/sh
# The conformance test of 1-D fors (t-for, whose ranges reach 10^7 indices)
# on cuda under each grid sizing of KC_CUDA_GRID other than the default
# (wide, which t-for.cuda runs): resident and full.  Then a value that is
# not one of the three makes cuda unavailable with a reason naming the
# variable.  SKIPs (77) where cuda cannot run, as t-for.cuda does.
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
KC_BACKEND=cuda
export KC_BACKEND
for grid in resident full; do
  echo "--- KC_CUDA_GRID=$grid ./t-for"
  KC_CUDA_GRID=$grid ./t-for
  rc=$?
  test $rc -eq 0 || exit $rc
done
out=$(KC_CUDA_GRID=huge "$top/tools/kc-info" 2>&1)
if test $? -eq 0 || ! printf '%s\n' "$out" | grep -q "KC_CUDA_GRID=huge; use resident, full or wide"; then
  echo "FAIL: KC_CUDA_GRID=huge: kc-info did not refuse it by name:"
  printf '%s\n' "$out" | head -n 5
  exit 1
fi
echo "ok: KC_CUDA_GRID=huge refused"
