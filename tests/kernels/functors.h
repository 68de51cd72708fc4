/* Functor structs shared by the conformance kernels (the .kc.c files of
 * tests/kernels/) and the test programs that launch them.  Plain C structs of
 * device pointers and scalars, as kernel.h wants: no kc.h types, so the file is
 * also valid under a CUDA compiler. */
#ifndef KC_TEST_FUNCTORS_H
#define KC_TEST_FUNCTORS_H

#include <stdint.h>

/* out[i - base] = i * scale + offset */
typedef struct kt_fill {
  int64_t *out;
  int64_t base;
  int64_t scale;
  int64_t offset;
} kt_fill;

/* hits[i - base] += 1: counts how often each index was visited. */
typedef struct kt_count {
  int32_t *hits;
  int64_t base;
} kt_count;

/* y[i] = a * x[i] + y[i] */
typedef struct kt_axpy {
  double a;
  const double *x;
  double *y;
} kt_axpy;

/* A large functor (4 KiB of coefficients): out[i] = sum of c[0..511]
 * weighted by (i % 8); checks that big functors are copied whole. */
typedef struct kt_big {
  int64_t *out;
  int64_t base;
  double c[512];
} kt_big;

/* Read-only inputs of each built-in value type, indexed by i - base. */
typedef struct kt_xi32 {
  const int32_t *x;
  int64_t base;
} kt_xi32;
/* Queues (t-queue): one index waits (at most `spin` polls) for *flag,
 * another sets it; *seen gets what the waiter saw. */
typedef struct kt_flag {
  int64_t *flag;
  int64_t *seen;
  int64_t spin;
} kt_flag;

typedef struct kt_xi64 {
  const int64_t *x;
  int64_t base;
} kt_xi64;
typedef struct kt_xf32 {
  const float *x;
  int64_t base;
} kt_xf32;
typedef struct kt_xf64 {
  const double *x;
  int64_t base;
} kt_xf64;

/* Scan input and output, indexed by i - base. */
typedef struct kt_scan_i32 {
  const int32_t *in;
  int32_t *out;
  int64_t base;
} kt_scan_i32;
typedef struct kt_scan_i64 {
  const int64_t *in;
  int64_t *out; /* may be NULL: total only */
  int64_t base;
} kt_scan_i64;
typedef struct kt_scan_f64 {
  const double *in;
  double *out;
  int64_t base;
} kt_scan_f64;

/* Custom reducer values. */
typedef struct kt_stats {
  int64_t count;
  double sum, sumsq;
  int32_t min, max;
} kt_stats;

typedef struct kt_vec3 {
  double v[3];
} kt_vec3;

/* A custom scan value: running maximum and count of positive entries. */
typedef struct kt_maxcount {
  double max;
  int64_t npos;
} kt_maxcount;

typedef struct kt_scan_mc {
  const double *in;
  kt_maxcount *out;
  int64_t base;
} kt_scan_mc;

#endif
