/* Functors of tests/kcc/kernels.kc.c, shared with t-kcc-kernels.c.  Plain
 * C structs (valid C and CUDA C++). */
#ifndef KC_TEST_KK_H
#define KC_TEST_KK_H

#include <stdint.h>

typedef struct kk_arrays {
  const int32_t *i32;
  const int64_t *i64;
  const float *f32;
  const double *f64;
  int64_t *out; /* for kernels that write */
  int64_t n;
} kk_arrays;

/* The custom reducer's value: a count and a sum, and the largest value
 * with its first index. */
typedef struct kk_stats {
  int64_t count;
  double sum;
  double max;
  int64_t argmax;
} kk_stats;

#endif
