#!/bin/sh
# The conformance test of queues (t-queue) on cuda with three devices:
# KC_CUDA_VIRTUAL_DEVICES=3 makes the plugin offer three devices on however
# many GPUs there are, each with its own state, modules and streams, so
# that test_every_device exercises the code for several devices (queues,
# allocations, kernels, reductions and scans on each device, copies and
# events between devices) on a machine with one GPU.  Then values of the
# variable that are not a count from 1 to 128 make cuda unavailable with
# a reason that names the variable.  SKIPs (77) where cuda cannot run, as
# t-queue.cuda does.
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
. "${KC_TEST_SRCDIR:?}/cuda-env.sh"
KC_BACKEND=cuda
export KC_BACKEND
run_with KC_CUDA_VIRTUAL_DEVICES 3 t-queue
fail=0
for bad in 0 129 x 2x -1; do
  refused KC_CUDA_VIRTUAL_DEVICES $bad "KC_CUDA_VIRTUAL_DEVICES=$bad is not a count" || fail=1
done
exit $fail
