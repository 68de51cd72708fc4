/* kc benchmarks — reduce and scan: the hand-written OpenMP baselines
 * (throughput-omp.c). */
#ifndef KC_BENCH_THROUGHPUT_OMP_H
#define KC_BENCH_THROUGHPUT_OMP_H

/* x[i] = THROUGHPUT_VALUE(i), first-touched by the static schedule. */
void omp_fill_f64(double *x, long long n);

/* #pragma omp parallel for simd reduction(+:sum) (simd: see stream-omp.c). */
double omp_reduce_sum_f64(const double *x, long long n);

/* Inclusive scan y[i] = x[0] + ... + x[i], written by hand in one parallel
 * region: each thread totals its static share, a barrier, then each scans
 * its share from the totals of the threads before it.  `partial` holds one
 * double per thread + 1.  Returns the total. */
double omp_scan_sum_f64(const double *x, double *y, long long n,
                        double *partial);

#endif
