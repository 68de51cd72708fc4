/* The queue benchmark's functor (queues.c, queues.kc.c). */
#ifndef KC_BENCH_QUEUES_H
#define KC_BENCH_QUEUES_H

/* y[i] = x[i] after `iters` steps of v = a v + b: a chain of dependent
 * FP64 FMAs per element, so a kernel's time is set by iters rather than by
 * memory.  bench_chain_f64 in baseline.cu is the hand-written twin. */
struct qb_chain {
  const double *x;
  double *y;
  double a, b;
  long long iters;
};

#endif
