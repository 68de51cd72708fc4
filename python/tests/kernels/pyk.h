/* Functors of the Python binding's test kernels; the tests declare the same
 * structs with ctypes and numpy (and check their sizes). */
#ifndef PYK_H
#define PYK_H
#include <stdint.h>

typedef struct pyk_saxpy {
  float a;
  const float *x;
  float *y;
} pyk_saxpy;

typedef struct pyk_xy {
  const double *x;
  const double *y;
} pyk_xy;

typedef struct pyk_scan {
  const int64_t *in;
  int64_t *out;
} pyk_scan;

typedef struct pyk_md {
  double *a;
  int64_t ld;
} pyk_md;

typedef struct pyk_team {
  double *sums;
  int64_t width;
} pyk_team;

typedef struct pyk_stats {
  int64_t count;
  double sum;
} pyk_stats;

#endif
