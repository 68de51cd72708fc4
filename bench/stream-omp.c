/* kc benchmarks — stream: the hand-written OpenMP baseline.
 *
 * The loops an OpenMP programmer writes for the BabelStream kernels (as
 * BabelStream's own OpenMP version does): `parallel for` with the default
 * static schedule, and the arrays first touched by the same schedule so
 * each thread's pages are local to it.  Dot is `parallel for simd
 * reduction(+)`: without `simd` the compiler may not reorder a
 * floating-point sum, so the loop would not vectorise, while kc's kernels
 * carry that hint (kernel_host.h); the baseline should not lose on a
 * missing clause. */
#include <stddef.h>

/* clang reports a `simd` loop it did not vectorise as a warning, an error
 * under -Werror, although the code is right; it is only a missed
 * optimisation, and the figures show what it costs. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpass-failed"
#endif

#include "stream-omp.h"

void omp_stream_init_f64(double *a, double *b, double *c, double va, double vb,
                         double vc, ptrdiff_t n) {
#pragma omp parallel for
  for (ptrdiff_t i = 0; i < n; i++) {
    a[i] = va;
    b[i] = vb;
    c[i] = vc;
  }
}

void omp_stream_copy_f64(const double *a, double *c, ptrdiff_t n) {
#pragma omp parallel for
  for (ptrdiff_t i = 0; i < n; i++)
    c[i] = a[i];
}

void omp_stream_mul_f64(double *b, const double *c, double scalar,
                        ptrdiff_t n) {
#pragma omp parallel for
  for (ptrdiff_t i = 0; i < n; i++)
    b[i] = scalar * c[i];
}

void omp_stream_add_f64(const double *a, const double *b, double *c,
                        ptrdiff_t n) {
#pragma omp parallel for
  for (ptrdiff_t i = 0; i < n; i++)
    c[i] = a[i] + b[i];
}

void omp_stream_triad_f64(double *a, const double *b, const double *c,
                          double scalar, ptrdiff_t n) {
#pragma omp parallel for
  for (ptrdiff_t i = 0; i < n; i++)
    a[i] = b[i] + scalar * c[i];
}

void omp_stream_nstream_f64(double *a, const double *b, const double *c,
                            double scalar, ptrdiff_t n) {
#pragma omp parallel for
  for (ptrdiff_t i = 0; i < n; i++)
    a[i] += b[i] + scalar * c[i];
}

double omp_stream_dot_f64(const double *a, const double *b, ptrdiff_t n) {
  double sum = 0.0;
#pragma omp parallel for simd reduction(+ : sum)
  for (ptrdiff_t i = 0; i < n; i++)
    sum += a[i] * b[i];
  return sum;
}

void omp_stream_init_f32(float *a, float *b, float *c, float va, float vb,
                         float vc, ptrdiff_t n) {
#pragma omp parallel for
  for (ptrdiff_t i = 0; i < n; i++) {
    a[i] = va;
    b[i] = vb;
    c[i] = vc;
  }
}

void omp_stream_copy_f32(const float *a, float *c, ptrdiff_t n) {
#pragma omp parallel for
  for (ptrdiff_t i = 0; i < n; i++)
    c[i] = a[i];
}

void omp_stream_mul_f32(float *b, const float *c, float scalar, ptrdiff_t n) {
#pragma omp parallel for
  for (ptrdiff_t i = 0; i < n; i++)
    b[i] = scalar * c[i];
}

void omp_stream_add_f32(const float *a, const float *b, float *c, ptrdiff_t n) {
#pragma omp parallel for
  for (ptrdiff_t i = 0; i < n; i++)
    c[i] = a[i] + b[i];
}

void omp_stream_triad_f32(float *a, const float *b, const float *c,
                          float scalar, ptrdiff_t n) {
#pragma omp parallel for
  for (ptrdiff_t i = 0; i < n; i++)
    a[i] = b[i] + scalar * c[i];
}

void omp_stream_nstream_f32(float *a, const float *b, const float *c,
                            float scalar, ptrdiff_t n) {
#pragma omp parallel for
  for (ptrdiff_t i = 0; i < n; i++)
    a[i] += b[i] + scalar * c[i];
}

/* Accumulates in double, like the kc kernel (see stream.kc.c). */
double omp_stream_dot_f32(const float *a, const float *b, ptrdiff_t n) {
  double sum = 0.0;
#pragma omp parallel for simd reduction(+ : sum)
  for (ptrdiff_t i = 0; i < n; i++)
    sum += (double)a[i] * (double)b[i];
  return sum;
}
