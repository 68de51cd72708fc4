/* The kernels of the Fortran heat example (heat.f90), written once in C
 * and built by kcc: one explicit Euler step of the 2-D heat equation, the
 * squared change of a step and the total heat, over the interior of an
 * nx x ny grid.
 *
 * The grid is the Fortran array u(nx, ny): column-major, so x (Fortran's
 * first index) is the contiguous one and u(x + 1, y + 1) is element
 * y * nx + x.  An MD range's LAST dimension is its fastest (the host's
 * inner loop, CUDA's threadIdx.x), so the kernels take their indices as
 * (y, x) and heat.f90 builds the range in that order.  The functor is
 * the C twin of heat.f90's bind(C) type heat_step.
 */
#include <kc/kernel.h>

#include <stdint.h>

typedef struct heat_step {
  const double *in;
  double *out;
  int64_t nx;
  double alpha; /* k dt / h^2, below 1/4 for stability */
} heat_step;

/* out = in + alpha * (the 5-point Laplacian of in) at (x, y). */
KC_MDFOR(heat_step, heat_step, f, (y, x), {
  const int64_t p = y * f->nx + x;
  const double c = f->in[p];
  f->out[p] = c + f->alpha * (f->in[p - f->nx] + f->in[p + f->nx] +
                              f->in[p - 1] + f->in[p + 1] - 4.0 * c);
})

/* The sum over the interior of (out - in)^2. */
KC_MDREDUCE_SUM(heat_change, heat_step, f, (y, x), double, acc, {
  const int64_t p = y * f->nx + x;
  const double d = f->out[p] - f->in[p];
  acc += d * d;
})

/* The total heat (sum of out) over the interior. */
KC_MDREDUCE_SUM(heat_total, heat_step, f, (y, x), double, acc,
                acc += f->out[y * f->nx + x])
