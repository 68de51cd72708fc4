/* kc benchmarks — dispatch: the hand-written OpenMP baseline. */
#include "dispatch-omp.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#include "dispatch.h"

void omp_dispatch_for(double *out, long long n, long long delay) {
#pragma omp parallel for
  for (long long i = 0; i < n; i++) {
    double v;
    DISPATCH_DELAY(delay, v);
    out[i] = v;
  }
}

double omp_dispatch_reduce(long long n, long long delay) {
  double sum = 0.0;
#pragma omp parallel for reduction(+ : sum)
  for (long long i = 0; i < n; i++) {
    double v;
    DISPATCH_DELAY(delay, v);
    sum += v;
  }
  return sum;
}

double omp_dispatch_scan(double *out, long long n, long long delay,
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
    for (long long i = lo; i < hi; i++) {
      double v;
      DISPATCH_DELAY(delay, v);
      s += v;
    }
    partial[t + 1] = s;
#pragma omp barrier
    double acc = 0.0;
    for (int j = 1; j <= t; j++)
      acc += partial[j];
    for (long long i = lo; i < hi; i++) {
      double v;
      DISPATCH_DELAY(delay, v);
      acc += v;
      out[i] = acc;
    }
    if (t == nt - 1)
      total = acc;
  }
  return total;
}
