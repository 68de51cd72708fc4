/* Kernels of the queue benchmark (queues.c): the FMA chain of queues.h,
 * the same arithmetic as bench_chain_f64 in baseline.cu.  The empty kernel
 * of the launch section is launch.kc.c's lb_for_8. */
#include <kc/kernel.h>

#include "queues.h"

KC_FOR(qb_chain, struct qb_chain, f, i, {
  const double a = f->a, b = f->b;
  const long long iters = f->iters;
  double v = f->x[i];
  for (long long k = 0; k < iters; k++)
    v = v * a + b;
  f->y[i] = v;
})
