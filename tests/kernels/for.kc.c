/* parallel_for kernels of the conformance suite. */
#include <kc/kernel.h>

#include "functors.h"

KC_FOR(kt_fill, kt_fill, f, i, f->out[i - f->base] = i * f->scale + f->offset);

KC_FOR(kt_count, kt_count, f, i, f->hits[i - f->base] += 1);

KC_FOR(kt_axpy, kt_axpy, f, i, f->y[i] = f->a * f->x[i] + f->y[i]);

KC_FOR(kt_big, kt_big, f, i, {
  double s = 0;
  for (int k = 0; k < 512; k++)
    s += f->c[k] * (double)(i % 8);
  f->out[i - f->base] = (int64_t)s;
});

/* Uses no functor: launched with (NULL, 0). */
KC_FOR(kt_nothing, kt_fill, f, i, (void)i);
