/* The kernels of kernels.kc.c in the _ARGS form of <kc/kernel_args.h>: the same
 * names, bodies and argument layouts (args.h), so the same test program
 * checks them.  kernels.kc.c's comment follows. */
/* One kernel per macro of <kc/kernel.h> and per value type, written in the
 * spellings the macros accept: a body in braces or bare, with or without
 * its last ';', with commas, the macro followed by ';' or not.
 * tests/t-kcc-kernels.c checks that each one registered under its name with the
 * right kind and computes the right value on every backend. */
#include <kc/kernel.h>

#include "../kernels/args.h"

#include "kk.h"

/* FOR: bare body without ';', macro ended by ';'. */
KC_FOR_ARGS(kk_for, KK_ARRAYS_ARGS, i, out[i] = 3 * i + 1);

/* FOR: a block with a comma declaration, no ';' after. */
KC_FOR_ARGS(kk_for_odd, KK_ARRAYS_ARGS, i, {
  int64_t a = i, b = 2;
  if (a % b != 0)
    out[i] = -a;
})

KC_REDUCE_SUM_ARGS(kk_sum_i32, KK_ARRAYS_ARGS, i, int32_t, acc, acc += i32[i];)
KC_REDUCE_SUM_ARGS(kk_sum_i64, KK_ARRAYS_ARGS, i, int64_t, acc, acc += i64[i])
KC_REDUCE_SUM_ARGS(kk_sum_f32, KK_ARRAYS_ARGS, i, float, acc,
                   { acc += f32[i]; })
KC_REDUCE_SUM_ARGS(kk_sum_f64, KK_ARRAYS_ARGS, i, double, acc, acc += f64[i]);

KC_REDUCE_PROD_ARGS(kk_prod_f64, KK_ARRAYS_ARGS, i, double, acc,
                    acc *= (i % 10 == 0) ? 2.0 : 1.0)
KC_REDUCE_PROD_ARGS(kk_prod_i64, KK_ARRAYS_ARGS, i, int64_t, acc,
                    acc *= (i % 16 == 3) ? 3 : 1)

KC_REDUCE_MIN_ARGS(kk_min_i32, KK_ARRAYS_ARGS, i, int32_t, acc,
                   acc = i32[i] < acc ? i32[i] : acc)
KC_REDUCE_MIN_ARGS(kk_min_f64, KK_ARRAYS_ARGS, i, double, acc,
                   acc = f64[i] < acc ? f64[i] : acc)
KC_REDUCE_MAX_ARGS(kk_max_i64, KK_ARRAYS_ARGS, i, int64_t, acc,
                   acc = i64[i] > acc ? i64[i] : acc)
KC_REDUCE_MAX_ARGS(kk_max_f32, KK_ARRAYS_ARGS, i, float, acc,
                   acc = f32[i] > acc ? f32[i] : acc)

/* Ties keep the smallest index: the body replaces only on strictly better. */
KC_REDUCE_MINLOC_ARGS(kk_minloc_f64, KK_ARRAYS_ARGS, i, double, acc, {
  if (f64[i] < acc.val) {
    acc.val = f64[i];
    acc.loc = i;
  }
})
KC_REDUCE_MAXLOC_ARGS(kk_maxloc_i32, KK_ARRAYS_ARGS, i, int32_t, acc, {
  if (i32[i] > acc.val) {
    acc.val = i32[i];
    acc.loc = i;
  }
})
KC_REDUCE_MINLOC_ARGS(kk_minloc_i64, KK_ARRAYS_ARGS, i, int64_t, acc, {
  if (i64[i] < acc.val) {
    acc.val = i64[i];
    acc.loc = i;
  }
})
KC_REDUCE_MAXLOC_ARGS(kk_maxloc_f32, KK_ARRAYS_ARGS, i, float, acc, {
  if (f32[i] > acc.val) {
    acc.val = f32[i];
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
KC_REDUCE_CUSTOM_ARGS(kk_stats, KK_ARRAYS_ARGS, i, kk_stats_r, kk_stats, acc, {
  double x = f64[i];
  acc.count += 1;
  acc.sum += x;
  if (x > acc.max || (x == acc.max && i < acc.argmax)) {
    acc.max = x;
    acc.argmax = i;
  }
})

/* Inclusive scan: store after adding. */
KC_SCAN_ARGS(kk_scan_incl, KK_ARRAYS_ARGS, i, int64_t, acc, final, {
  acc += i64[i];
  if (final)
    out[i] = acc;
})

/* Exclusive scan over double: store before adding. */
KC_SCAN_ARGS(kk_scan_excl, KK_ARRAYS_ARGS, i, double, acc, last, {
  if (last)
    out[i] = (int64_t)acc;
  acc += f64[i];
})

/* A custom scan: running count of positive values (only .count matters). */
KC_SCAN_CUSTOM_ARGS(kk_scan_custom, KK_ARRAYS_ARGS, i, kk_stats_r, kk_stats,
                    acc, final, {
                      if (i32[i] > 0)
                        acc.count += 1;
                      if (final)
                        out[i] = acc.count;
                    })
