/* Custom reducers of the conformance suite: a struct of mixed fields
 * (count, sums, min, max) and a 3-vector. */
#include <stdint.h>

#include <kc/kernel.h>

#include "functors.h"

KC_REDUCER_IDENTITY(kt_stats, kt_stats, v) {
  v->count = 0;
  v->sum = 0;
  v->sumsq = 0;
  v->min = INT32_MAX;
  v->max = INT32_MIN;
}
KC_REDUCER_JOIN(kt_stats, kt_stats, dst, src) {
  dst->count += src->count;
  dst->sum += src->sum;
  dst->sumsq += src->sumsq;
  if (src->min < dst->min)
    dst->min = src->min;
  if (src->max > dst->max)
    dst->max = src->max;
}
KC_REDUCE_CUSTOM(kt_stats, kt_xi32, f, i, kt_stats, kt_stats, acc, {
  int32_t x = f->x[i - f->base];
  acc.count += 1;
  acc.sum += x;
  acc.sumsq += (double)x * x;
  if (x < acc.min)
    acc.min = x;
  if (x > acc.max)
    acc.max = x;
});

KC_REDUCER_IDENTITY(kt_vec3, kt_vec3, v) { v->v[0] = v->v[1] = v->v[2] = 0; }
KC_REDUCER_JOIN(kt_vec3, kt_vec3, dst, src) {
  for (int d = 0; d < 3; d++)
    dst->v[d] += src->v[d];
}
/* Sum over i of (1, i, i % 3), from the index alone. */
KC_REDUCE_CUSTOM(kt_vec3, kt_xi64, f, i, kt_vec3, kt_vec3, acc, {
  acc.v[0] += 1;
  acc.v[1] += (double)i;
  acc.v[2] += (double)(i % 3);
});
