/* parallel_reduce kernels of the conformance suite: every built-in
 * reducer over every value type.  Generated once by hand from a table;
 * written out in full so that kcc sees every macro. */
#include <kc/kernel.h>

#include "functors.h"

KC_REDUCE_SUM(kt_sum_i32, kt_xi32, f, i, int32_t, acc,
              acc += f->x[i - f->base]);
KC_REDUCE_PROD(kt_prod_i32, kt_xi32, f, i, int32_t, acc,
               acc *= f->x[i - f->base]);
KC_REDUCE_MIN(kt_min_i32, kt_xi32, f, i, int32_t, acc,
              acc = f->x[i - f->base] < acc ? f->x[i - f->base] : acc);
KC_REDUCE_MAX(kt_max_i32, kt_xi32, f, i, int32_t, acc,
              acc = f->x[i - f->base] > acc ? f->x[i - f->base] : acc);
KC_REDUCE_MINLOC(kt_minloc_i32, kt_xi32, f, i, int32_t, acc, {
  if (f->x[i - f->base] < acc.val ||
      (f->x[i - f->base] == acc.val && i < acc.loc)) {
    acc.val = f->x[i - f->base];
    acc.loc = i;
  }
});
KC_REDUCE_MAXLOC(kt_maxloc_i32, kt_xi32, f, i, int32_t, acc, {
  if (f->x[i - f->base] > acc.val ||
      (f->x[i - f->base] == acc.val && i < acc.loc)) {
    acc.val = f->x[i - f->base];
    acc.loc = i;
  }
});

KC_REDUCE_SUM(kt_sum_i64, kt_xi64, f, i, int64_t, acc,
              acc += f->x[i - f->base]);
KC_REDUCE_PROD(kt_prod_i64, kt_xi64, f, i, int64_t, acc,
               acc *= f->x[i - f->base]);
KC_REDUCE_MIN(kt_min_i64, kt_xi64, f, i, int64_t, acc,
              acc = f->x[i - f->base] < acc ? f->x[i - f->base] : acc);
KC_REDUCE_MAX(kt_max_i64, kt_xi64, f, i, int64_t, acc,
              acc = f->x[i - f->base] > acc ? f->x[i - f->base] : acc);
KC_REDUCE_MINLOC(kt_minloc_i64, kt_xi64, f, i, int64_t, acc, {
  if (f->x[i - f->base] < acc.val ||
      (f->x[i - f->base] == acc.val && i < acc.loc)) {
    acc.val = f->x[i - f->base];
    acc.loc = i;
  }
});
KC_REDUCE_MAXLOC(kt_maxloc_i64, kt_xi64, f, i, int64_t, acc, {
  if (f->x[i - f->base] > acc.val ||
      (f->x[i - f->base] == acc.val && i < acc.loc)) {
    acc.val = f->x[i - f->base];
    acc.loc = i;
  }
});

KC_REDUCE_SUM(kt_sum_f32, kt_xf32, f, i, float, acc, acc += f->x[i - f->base]);
KC_REDUCE_PROD(kt_prod_f32, kt_xf32, f, i, float, acc,
               acc *= f->x[i - f->base]);
KC_REDUCE_MIN(kt_min_f32, kt_xf32, f, i, float, acc,
              acc = f->x[i - f->base] < acc ? f->x[i - f->base] : acc);
KC_REDUCE_MAX(kt_max_f32, kt_xf32, f, i, float, acc,
              acc = f->x[i - f->base] > acc ? f->x[i - f->base] : acc);
KC_REDUCE_MINLOC(kt_minloc_f32, kt_xf32, f, i, float, acc, {
  if (f->x[i - f->base] < acc.val ||
      (f->x[i - f->base] == acc.val && i < acc.loc)) {
    acc.val = f->x[i - f->base];
    acc.loc = i;
  }
});
KC_REDUCE_MAXLOC(kt_maxloc_f32, kt_xf32, f, i, float, acc, {
  if (f->x[i - f->base] > acc.val ||
      (f->x[i - f->base] == acc.val && i < acc.loc)) {
    acc.val = f->x[i - f->base];
    acc.loc = i;
  }
});

KC_REDUCE_SUM(kt_sum_f64, kt_xf64, f, i, double, acc, acc += f->x[i - f->base]);
KC_REDUCE_PROD(kt_prod_f64, kt_xf64, f, i, double, acc,
               acc *= f->x[i - f->base]);
KC_REDUCE_MIN(kt_min_f64, kt_xf64, f, i, double, acc,
              acc = f->x[i - f->base] < acc ? f->x[i - f->base] : acc);
KC_REDUCE_MAX(kt_max_f64, kt_xf64, f, i, double, acc,
              acc = f->x[i - f->base] > acc ? f->x[i - f->base] : acc);
KC_REDUCE_MINLOC(kt_minloc_f64, kt_xf64, f, i, double, acc, {
  if (f->x[i - f->base] < acc.val ||
      (f->x[i - f->base] == acc.val && i < acc.loc)) {
    acc.val = f->x[i - f->base];
    acc.loc = i;
  }
});
KC_REDUCE_MAXLOC(kt_maxloc_f64, kt_xf64, f, i, double, acc, {
  if (f->x[i - f->base] > acc.val ||
      (f->x[i - f->base] == acc.val && i < acc.loc)) {
    acc.val = f->x[i - f->base];
    acc.loc = i;
  }
});

/* Over the index alone (no memory), for the large ranges. */
KC_REDUCE_SUM(kt_sum_index, kt_xi64, f, i, int64_t, acc, acc += i);
KC_REDUCE_SUM(kt_count_index, kt_xi64, f, i, int64_t, acc, acc += 1);
KC_REDUCE_MAX(kt_max_index, kt_xi64, f, i, int64_t, acc,
              acc = i > acc ? i : acc);
KC_REDUCE_MIN(kt_min_index, kt_xi64, f, i, int64_t, acc,
              acc = i < acc ? i : acc);
