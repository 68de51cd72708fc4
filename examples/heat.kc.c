/* examples/heat: the kernels.  A 2-D heat-diffusion step over a
 * multi-dimensional range (the interior of the grid, j contiguous), and
 * the squared change of a step as an MD reduction. */
#include <kc/kernel.h>

#include "heat.h"

/* out = in + alpha * (the 5-point Laplacian of in) at (i, j). */
KC_MDFOR(heat_step, heat_step, f, (i, j), {
  const int64_t p = i * f->ny + j;
  const double c = f->in[p];
  f->out[p] = c + f->alpha * (f->in[p - f->ny] + f->in[p + f->ny] +
                              f->in[p - 1] + f->in[p + 1] - 4.0 * c);
})

/* The sum over the interior of (out - in)^2. */
KC_MDREDUCE_SUM(heat_change, heat_step, f, (i, j), double, acc, {
  const int64_t p = i * f->ny + j;
  const double d = f->out[p] - f->in[p];
  acc += d * d;
})

/* The total heat (sum of out) over the interior. */
KC_MDREDUCE_SUM(heat_total, heat_step, f, (i, j), double, acc,
                acc += f->out[i * f->ny + j])
