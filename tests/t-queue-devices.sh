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
KC_BACKEND=cuda
KC_CUDA_VIRTUAL_DEVICES=3
export KC_BACKEND KC_CUDA_VIRTUAL_DEVICES
./t-queue
rc=$?
test $rc -eq 0 || exit $rc
fail=0
for bad in 0 129 x 2x -1; do
  out=$(KC_CUDA_VIRTUAL_DEVICES=$bad "$top/tools/kc-info" 2>&1)
  if test $? -eq 0 || ! printf '%s\n' "$out" | grep -q "KC_CUDA_VIRTUAL_DEVICES=$bad is not a count"; then
    echo "FAIL: KC_CUDA_VIRTUAL_DEVICES=$bad: kc-info did not refuse it by name:"
    printf '%s\n' "$out" | head -n 5
    fail=1
  else
    echo "ok: KC_CUDA_VIRTUAL_DEVICES=$bad refused"
  fi
done
exit $fail
