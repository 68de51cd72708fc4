/* kc benchmarks — dispatch: the hand-written OpenMP baseline
 * (dispatch-omp.c): the same per-index work as dispatch.kc.c. */
#ifndef KC_BENCH_DISPATCH_OMP_H
#define KC_BENCH_DISPATCH_OMP_H

/* #pragma omp parallel for over [0, n). */
void omp_dispatch_for(double *out, long long n, long long delay);
/* #pragma omp parallel for reduction(+:sum) over [0, n). */
double omp_dispatch_reduce(long long n, long long delay);
/* An inclusive scan over [0, n) written by hand in one parallel region:
 * each thread totals its static share, a barrier, each adds the totals of
 * the threads before it and writes its share (the body runs twice per
 * index, as kc's two-pass scan does).  `partial` holds one double per
 * thread + 1.  Returns the total. */
double omp_dispatch_scan(double *out, long long n, long long delay,
                         double *partial);

#endif
