/* parallel_scan kernels of the conformance suite.  Inclusive scans add
 * before storing, exclusive ones store before adding. */
#include <kc/kernel.h>

#include "functors.h"

KC_SCAN(kt_iscan_i32, kt_scan_i32, f, i, int32_t, acc, final, {
  acc += f->in[i - f->base];
  if (final)
    f->out[i - f->base] = acc;
});
KC_SCAN(kt_xscan_i32, kt_scan_i32, f, i, int32_t, acc, final, {
  if (final)
    f->out[i - f->base] = acc;
  acc += f->in[i - f->base];
});

KC_SCAN(kt_iscan_i64, kt_scan_i64, f, i, int64_t, acc, final, {
  acc += f->in[i - f->base];
  if (final && f->out)
    f->out[i - f->base] = acc;
});
KC_SCAN(kt_xscan_i64, kt_scan_i64, f, i, int64_t, acc, final, {
  if (final && f->out)
    f->out[i - f->base] = acc;
  acc += f->in[i - f->base];
});

KC_SCAN(kt_iscan_f64, kt_scan_f64, f, i, double, acc, final, {
  acc += f->in[i - f->base];
  if (final)
    f->out[i - f->base] = acc;
});
KC_SCAN(kt_xscan_f64, kt_scan_f64, f, i, double, acc, final, {
  if (final)
    f->out[i - f->base] = acc;
  acc += f->in[i - f->base];
});

/* Exclusive scan of the index itself into out (may be NULL). */
KC_SCAN(kt_xscan_index, kt_scan_i64, f, i, int64_t, acc, final, {
  if (final && f->out)
    f->out[i - f->base] = acc;
  acc += i;
});

/* A custom scan: running maximum and running count of positive entries. */
KC_REDUCER_IDENTITY(kt_maxcount, kt_maxcount, v) {
  v->max = -1.0e308;
  v->npos = 0;
}
KC_REDUCER_JOIN(kt_maxcount, kt_maxcount, dst, src) {
  if (src->max > dst->max)
    dst->max = src->max;
  dst->npos += src->npos;
}
KC_SCAN_CUSTOM(kt_iscan_mc, kt_scan_mc, f, i, kt_maxcount, kt_maxcount, acc,
               final, {
                 double x = f->in[i - f->base];
                 if (x > acc.max)
                   acc.max = x;
                 if (x > 0)
                   acc.npos += 1;
                 if (final)
                   f->out[i - f->base] = acc;
               });
KC_SCAN_CUSTOM(kt_xscan_mc, kt_scan_mc, f, i, kt_maxcount, kt_maxcount, acc,
               final, {
                 double x = f->in[i - f->base];
                 if (final)
                   f->out[i - f->base] = acc;
                 if (x > acc.max)
                   acc.max = x;
                 if (x > 0)
                   acc.npos += 1;
               });
