/* The functors shared by the kernels (scale.kc.c) and the host code
 * (main.c).  A functor is a plain struct of scalars and pointers into kc
 * allocations; it is copied at each launch.  It must also compile as C++,
 * since kcc compiles the kernels for the GPU with nvcc. */
#ifndef SCALE_H
#define SCALE_H

typedef struct scale_args {
  double a;
  const double *x;
  double *y;
} scale_args;

typedef struct sum_args {
  const double *y;
} sum_args;

#endif
