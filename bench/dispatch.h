/* kc benchmarks — dispatch: what the kc kernels (dispatch.kc.c) and the
 * OpenMP baseline (dispatch-omp.c) both run per index.
 *
 * DISPATCH_DELAY is the EPCC microbenchmarks' delay(): a dependent chain of
 * `len` floating-point adds that the compiler cannot shorten, ending in `out`
 * so it cannot drop it.  Its result, sum(0..len-1), is an integer below
 * 2^53, so every reduction and scan of it is exact. */
#ifndef KC_BENCH_DISPATCH_H
#define KC_BENCH_DISPATCH_H

#define DISPATCH_DELAY(len, out)                                               \
  do {                                                                         \
    double dd_a_ = 0.0;                                                        \
    for (long long dd_k_ = 0; dd_k_ < (len); dd_k_++)                          \
      dd_a_ += (double)dd_k_;                                                  \
    (out) = dd_a_;                                                             \
  } while (0)

struct dispatch_f {
  double *out;     /* one slot per index (for, scan) */
  long long delay; /* DISPATCH_DELAY length */
};

#endif
