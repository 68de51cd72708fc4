/* One kernel per macro of <kc/kernel.h> and per value type, written in the
 * spellings the macros accept: a body in braces or bare, with or without
 * its last ';', with commas, the macro followed by ';' or not.
 * tests/t-kcc-kernels.c checks that each one registered under its name with the
 * right kind and computes the right value on every backend. */
#include <kc/kernel.h>

#include "kk.h"

/* FOR: bare body without ';', macro ended by ';'. */
KC_FOR(kk_for, kk_arrays, f, i, f->out[i] = 3 * i + 1);

/* FOR: a block with a comma declaration, no ';' after. */
KC_FOR(kk_for_odd, kk_arrays, f, i, {
  int64_t a = i, b = 2;
  if (a % b != 0)
    f->out[i] = -a;
})

KC_REDUCE_SUM(kk_sum_i32, kk_arrays, f, i, int32_t, acc, acc += f->i32[i];)
KC_REDUCE_SUM(kk_sum_i64, kk_arrays, f, i, int64_t, acc, acc += f->i64[i])
KC_REDUCE_SUM(kk_sum_f32, kk_arrays, f, i, float, acc, { acc += f->f32[i]; })
KC_REDUCE_SUM(kk_sum_f64, kk_arrays, f, i, double, acc, acc += f->f64[i]);

KC_REDUCE_PROD(kk_prod_f64, kk_arrays, f, i, double, acc,
               acc *= (i % 10 == 0) ? 2.0 : 1.0)
KC_REDUCE_PROD(kk_prod_i64, kk_arrays, f, i, int64_t, acc,
               acc *= (i % 16 == 3) ? 3 : 1)

KC_REDUCE_MIN(kk_min_i32, kk_arrays, f, i, int32_t, acc,
              acc = f->i32[i] < acc ? f->i32[i] : acc)
KC_REDUCE_MIN(kk_min_f64, kk_arrays, f, i, double, acc,
              acc = f->f64[i] < acc ? f->f64[i] : acc)
KC_REDUCE_MAX(kk_max_i64, kk_arrays, f, i, int64_t, acc,
              acc = f->i64[i] > acc ? f->i64[i] : acc)
KC_REDUCE_MAX(kk_max_f32, kk_arrays, f, i, float, acc,
              acc = f->f32[i] > acc ? f->f32[i] : acc)

/* Ties keep the smallest index: the body replaces only on strictly better. */
KC_REDUCE_MINLOC(kk_minloc_f64, kk_arrays, f, i, double, acc, {
  if (f->f64[i] < acc.val) {
    acc.val = f->f64[i];
    acc.loc = i;
  }
})
KC_REDUCE_MAXLOC(kk_maxloc_i32, kk_arrays, f, i, int32_t, acc, {
  if (f->i32[i] > acc.val) {
    acc.val = f->i32[i];
    acc.loc = i;
  }
})
KC_REDUCE_MINLOC(kk_minloc_i64, kk_arrays, f, i, int64_t, acc, {
  if (f->i64[i] < acc.val) {
    acc.val = f->i64[i];
    acc.loc = i;
  }
})
KC_REDUCE_MAXLOC(kk_maxloc_f32, kk_arrays, f, i, float, acc, {
  if (f->f32[i] > acc.val) {
    acc.val = f->f32[i];
    acc.loc = i;
  }
})

KC_REDUCER_IDENTITY(kk_stats_r, kk_stats, v) {
  v->count = 0;
  v->sum = 0;
  v->max = -1e300;
  v->argmax = -1;
}
KC_REDUCER_JOIN(kk_stats_r, kk_stats, dst, src) {
  dst->count += src->count;
  dst->sum += src->sum;
  if (src->max > dst->max ||
      (src->max == dst->max && src->argmax < dst->argmax)) {
    dst->max = src->max;
    dst->argmax = src->argmax;
  }
}
KC_REDUCE_CUSTOM(kk_stats, kk_arrays, f, i, kk_stats_r, kk_stats, acc, {
  double x = f->f64[i];
  acc.count += 1;
  acc.sum += x;
  if (x > acc.max || (x == acc.max && i < acc.argmax)) {
    acc.max = x;
    acc.argmax = i;
  }
})

/* Inclusive scan: store after adding. */
KC_SCAN(kk_scan_incl, kk_arrays, f, i, int64_t, acc, final, {
  acc += f->i64[i];
  if (final)
    f->out[i] = acc;
})

/* Exclusive scan over double: store before adding. */
KC_SCAN(kk_scan_excl, kk_arrays, f, i, double, acc, last, {
  if (last)
    f->out[i] = (int64_t)acc;
  acc += f->f64[i];
})

/* A custom scan: running count of positive values (only .count matters). */
KC_SCAN_CUSTOM(kk_scan_custom, kk_arrays, f, i, kk_stats_r, kk_stats, acc,
               final, {
                 if (f->i32[i] > 0)
                   acc.count += 1;
                 if (final)
                   f->out[i] = acc.count;
               })
