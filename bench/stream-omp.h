/* kc benchmarks — stream: the hand-written OpenMP baseline (stream-omp.c). */
#ifndef KC_BENCH_STREAM_OMP_H
#define KC_BENCH_STREAM_OMP_H

#include <stddef.h>

void omp_stream_init_f64(double *a, double *b, double *c, double va, double vb,
                         double vc, ptrdiff_t n);
void omp_stream_copy_f64(const double *a, double *c, ptrdiff_t n);
void omp_stream_mul_f64(double *b, const double *c, double scalar, ptrdiff_t n);
void omp_stream_add_f64(const double *a, const double *b, double *c,
                        ptrdiff_t n);
void omp_stream_triad_f64(double *a, const double *b, const double *c,
                          double scalar, ptrdiff_t n);
void omp_stream_nstream_f64(double *a, const double *b, const double *c,
                            double scalar, ptrdiff_t n);
double omp_stream_dot_f64(const double *a, const double *b, ptrdiff_t n);
void omp_stream_init_f32(float *a, float *b, float *c, float va, float vb,
                         float vc, ptrdiff_t n);
void omp_stream_copy_f32(const float *a, float *c, ptrdiff_t n);
void omp_stream_mul_f32(float *b, const float *c, float scalar, ptrdiff_t n);
void omp_stream_add_f32(const float *a, const float *b, float *c, ptrdiff_t n);
void omp_stream_triad_f32(float *a, const float *b, const float *c,
                          float scalar, ptrdiff_t n);
void omp_stream_nstream_f32(float *a, const float *b, const float *c,
                            float scalar, ptrdiff_t n);
double omp_stream_dot_f32(const float *a, const float *b, ptrdiff_t n);

#endif
