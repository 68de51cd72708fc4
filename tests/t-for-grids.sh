#!/bin/sh
# The conformance test of 1-D fors (t-for, whose ranges reach 10^7 indices)
# on cuda under each grid sizing of KC_CUDA_GRID other than the default
# (tune, which t-for.cuda runs): wide, resident and full.  Then a value
# that is not one of the four makes cuda unavailable with a reason naming
# the variable.  SKIPs (77) where cuda cannot run, as t-for.cuda does.
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
. "${KC_TEST_SRCDIR:?}/cuda-env.sh"
KC_BACKEND=cuda
export KC_BACKEND
for grid in wide resident full; do
  run_with KC_CUDA_GRID $grid t-for
done
refused KC_CUDA_GRID huge "KC_CUDA_GRID=huge; use tune, wide, full or resident"
