/* The kernels of the standalone Fortran project, written once in C: kcc
 * compiles this file for the host and, when a CUDA compiler is around, to
 * PTX, into one object that registers the kernels "scale" and "sum" when
 * the program starts.  The functors are the C twins of main.f90's bind(C)
 * types: the same fields in the same order.  C index i is Fortran
 * element i + 1. */
#include <kc/kernel.h>

typedef struct scale_args {
  double a;
  const double *x;
  double *y;
} scale_args;

typedef struct sum_args {
  const double *y;
} sum_args;

/* y(i) = a * x(i) */
KC_FOR(scale, scale_args, f, i, f->y[i] = f->a * f->x[i];)

/* the sum of y */
KC_REDUCE_SUM(sum, sum_args, f, i, double, acc, acc += f->y[i];)
