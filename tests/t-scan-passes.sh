#!/bin/sh
# Scans on cuda under the two-pass protocol (KC_CUDA_SCAN=two), which
# modules built before the single pass still get: the scan conformance test
# (t-scan) and the order-sensitive scans of cuda-launch.  t-scan.cuda and
# cuda-launch run the default (one).  Then a value that is neither makes
# cuda unavailable with a reason naming the variable.  SKIPs (77) where
# cuda cannot run, as t-scan.cuda does.
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
. "${KC_TEST_SRCDIR:?}/cuda-env.sh"
KC_BACKEND=cuda
export KC_BACKEND
for t in t-scan cuda-launch; do
  run_with KC_CUDA_SCAN two $t
done
refused KC_CUDA_SCAN three "KC_CUDA_SCAN=three; use one or two"
