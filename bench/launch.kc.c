/* Kernels of the launch benchmark (launch.c): an empty parallel_for for
 * each functor size of Kokkos' launch_latency benchmark, and a one-index
 * sum for the scalar reduction. */
#include <kc/kernel.h>

#include "launch.h"

#define LB_KERNEL(bytes)                                                       \
  KC_FOR(lb_for_##bytes, lb_f##bytes, f, i, {                                  \
    (void)f;                                                                   \
    (void)i;                                                                   \
  });
LB_SIZES(LB_KERNEL)

KC_REDUCE_SUM(lb_reduce, lb_f8, f, i, double, acc, {
  (void)f;
  acc += 1.0 + (double)i;
});
