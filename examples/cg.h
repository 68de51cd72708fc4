/* The functors of examples/cg: shared by cg.kc.c (the kernels) and cg.c
 * (the program).  Plain C: valid C and CUDA C++. */
#ifndef KC_EXAMPLE_CG_H
#define KC_EXAMPLE_CG_H

#include <stdint.h>

/* y = A x for a CSR matrix; each team takes rows_per_team rows, its
 * threads a row each, their vector lanes the row's nonzeros. */
typedef struct cg_spmv {
  const int32_t *rowptr; /* nrows + 1 */
  const int32_t *col;
  const double *val;
  const double *x;
  double *y;
  int64_t nrows;
  int64_t rows_per_team;
} cg_spmv;

/* x . y */
typedef struct cg_dot {
  const double *x, *y;
} cg_dot;

/* x += alpha p; r -= alpha ap */
typedef struct cg_update {
  double alpha;
  double *x, *r;
  const double *p, *ap;
} cg_update;

/* p = r + beta p */
typedef struct cg_xpby {
  double beta;
  double *p;
  const double *r;
} cg_xpby;

/* r = b - ax */
typedef struct cg_resid {
  const double *b, *ax;
  double *r;
} cg_resid;

#endif
