/* The functor of examples/heat: shared by heat.kc.c (the kernels) and
 * heat.c (the program).  Plain C: valid C and CUDA C++. */
#ifndef KC_EXAMPLE_HEAT_H
#define KC_EXAMPLE_HEAT_H

#include <stdint.h>

/* An nx x ny grid, row-major (j fastest).  One explicit Euler step of the
 * heat equation on the interior: out = in + alpha * laplacian(in); the
 * edges hold 0 (Dirichlet). */
typedef struct heat_step {
  const double *in;
  double *out;
  int64_t ny;
  double alpha; /* k dt / h^2, below 1/4 for stability */
} heat_step;

#endif
