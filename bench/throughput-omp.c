/* kc benchmarks — reduce and scan: the hand-written OpenMP baselines. */
#include "throughput-omp.h"

/* clang reports a `simd` loop it did not vectorise as a warning, an error
 * under -Werror, although the code is right; it is only a missed
 * optimisation, and the figures show what it costs. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpass-failed"
#endif

#ifdef _OPENMP
#include <omp.h>
#endif

#include "throughput.h"

void omp_fill_f64(double *x, long long n) {
#pragma omp parallel for
  for (long long i = 0; i < n; i++)
    x[i] = THROUGHPUT_VALUE(i);
}

double omp_reduce_sum_f64(const double *x, long long n) {
  double sum = 0.0;
#pragma omp parallel for simd reduction(+ : sum)
  for (long long i = 0; i < n; i++)
    sum += x[i];
  return sum;
}

double omp_scan_sum_f64(const double *x, double *y, long long n,
                        double *partial) {
  double total = 0.0;
#pragma omp parallel
  {
#ifdef _OPENMP
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
    int t = 0, nt = 1;
#endif
    long long lo = n * t / nt, hi = n * (t + 1) / nt;
    double s = 0.0;
    for (long long i = lo; i < hi; i++)
      s += x[i];
    partial[t + 1] = s;
#pragma omp barrier
    double acc = 0.0;
    for (int j = 1; j <= t; j++)
      acc += partial[j];
    for (long long i = lo; i < hi; i++) {
      acc += x[i];
      y[i] = acc;
    }
    if (t == nt - 1)
      total = acc;
  }
  return total;
}
