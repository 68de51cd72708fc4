#!/bin/sh
# Scans on cuda under the two-pass protocol (KC_CUDA_SCAN=two), which
# modules built before the single pass still get: the scan conformance test
# (t-scan) and the order-sensitive scans of cuda-launch.  t-scan.cuda and
# cuda-launch run the default (one).  Then a value that is neither makes
# cuda unavailable with a reason naming the variable.  SKIPs (77) where
# cuda cannot run, as t-scan.cuda does.
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
KC_BACKEND=cuda
export KC_BACKEND
for t in t-scan cuda-launch; do
  echo "--- KC_CUDA_SCAN=two ./$t"
  KC_CUDA_SCAN=two ./$t
  rc=$?
  test $rc -eq 0 || exit $rc
done
out=$(KC_CUDA_SCAN=three "$top/tools/kc-info" 2>&1)
if test $? -eq 0 || ! printf '%s\n' "$out" | grep -q "KC_CUDA_SCAN=three; use one or two"; then
  echo "FAIL: KC_CUDA_SCAN=three: kc-info did not refuse it by name:"
  printf '%s\n' "$out" | head -n 5
  exit 1
fi
echo "ok: KC_CUDA_SCAN=three refused"
