#!/bin/sh
# 1-D reductions on cuda over ranges that fill several waves of the
# resident grid (plugins/cuda/launch.c, reduce_waves): the reduction
# conformance test (t-reduce) with an extra size of 2 * 10^7 elements for
# every type and join and index-only reductions over 3 * 10^8 indices
# (about 70 and 1100 indices per thread of an H100's resident grid), under
# the default (KC_CUDA_REDUCE_WAVES=1, the resident grid only), 16 (on an
# H100 2 and 16 waves, each kernel's first launches of a size timing them
# against the resident grid) and 64 (2 and 34 waves).  Each type and join
# gets four launches at 2 * 10^7, a fence after every second one, so the
# tuning's second trial, the waves, runs on the second or third of them.
# (A GPU with 15% more resident threads than an H100 gives 2 * 10^7 one
# wave: the extra size then adds nothing; cuda-tune covers the tuning.)
# Then values that are not a number from 1 to 64 make cuda unavailable
# with a reason naming the variable.  SKIPs (77) where cuda cannot run, as
# t-reduce.cuda does.
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
. "${KC_TEST_SRCDIR:?}/cuda-env.sh"
KC_BACKEND=cuda
T_REDUCE_N=20000000
T_REDUCE_LARGE=300000000
export KC_BACKEND T_REDUCE_N T_REDUCE_LARGE
for waves in "" 16 64; do
  run_with KC_CUDA_REDUCE_WAVES "$waves" t-reduce
done
fails=0
for bad in 0 65 -1 16x x 999999999999; do
  refused KC_CUDA_REDUCE_WAVES "$bad" \
    "KC_CUDA_REDUCE_WAVES=$bad; use a number from 1 to 64" || fails=1
done
exit $fails
