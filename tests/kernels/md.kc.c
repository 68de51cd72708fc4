/* Multi-dimensional conformance kernels (t-md.c): every rank from 2 to 6
 * records each point it visits in a dense array (so the test sees points
 * visited twice or never), and the MD reductions over built-in and custom
 * reducers. */
#include <kc/kernel.h>

#include "model.h"

/* Offset of a point in the test's dense array. */
#define KT_AT(f, d, x) (((x) - (f)->lo[d]) * (f)->st[d])

KC_MDFOR(kt_md2, kt_md, f, (i, j), {
  const int64_t p = KT_AT(f, 0, i) + KT_AT(f, 1, j);
  f->cnt[p] += 1;
  f->val[p] = KT_MD_CODE2(i, j);
})

KC_MDFOR(kt_md3, kt_md, f, (i, j, k), {
  const int64_t p = KT_AT(f, 0, i) + KT_AT(f, 1, j) + KT_AT(f, 2, k);
  f->cnt[p] += 1;
  f->val[p] = KT_MD_CODE3(i, j, k);
})

KC_MDFOR(kt_md4, kt_md, f, (a, b, c, d), {
  const int64_t p =
      KT_AT(f, 0, a) + KT_AT(f, 1, b) + KT_AT(f, 2, c) + KT_AT(f, 3, d);
  f->cnt[p] += 1;
  f->val[p] = ((a * 5 + b) * 7 + c) * 11 + d;
})

KC_MDFOR(kt_md5, kt_md, f, (a, b, c, d, e), {
  const int64_t p = KT_AT(f, 0, a) + KT_AT(f, 1, b) + KT_AT(f, 2, c) +
                    KT_AT(f, 3, d) + KT_AT(f, 4, e);
  f->cnt[p] += 1;
  f->val[p] = (((a * 5 + b) * 7 + c) * 11 + d) * 13 + e;
})

KC_MDFOR(kt_md6, kt_md, f, (a, b, c, d, e, g), {
  const int64_t p = KT_AT(f, 0, a) + KT_AT(f, 1, b) + KT_AT(f, 2, c) +
                    KT_AT(f, 3, d) + KT_AT(f, 4, e) + KT_AT(f, 5, g);
  f->cnt[p] += 1;
  f->val[p] = ((((a * 5 + b) * 7 + c) * 11 + d) * 13 + e) * 17 + g;
})

KC_MDREDUCE_SUM(kt_mdsum2, kt_md, f, (i, j), int64_t, acc,
                acc += KT_MD_CODE2(i, j))

KC_MDREDUCE_SUM(kt_mdsum3, kt_md, f, (i, j, k), double, acc,
                acc += (double)KT_MD_CODE3(i, j, k))

KC_MDREDUCE_MIN(kt_mdmin3, kt_md, f, (i, j, k), double, acc, {
  const double v = (double)KT_MD_CODE3(i, j, k);
  acc = v < acc ? v : acc;
})

KC_MDREDUCE_MAX(kt_mdmax2, kt_md, f, (i, j), int32_t, acc, {
  const int32_t v = (int32_t)(i * 3 - j * 2);
  acc = v > acc ? v : acc;
})

KC_MDREDUCE_PROD(kt_mdprod2, kt_md, f, (i, j), int64_t, acc,
                 acc *= ((i + j) % 5 == 0 ? 2 : 1))

KC_REDUCER_IDENTITY(kt_md_stats, kt_md_stats, v) {
  v->count = 0;
  v->sum = 0;
}
KC_REDUCER_JOIN(kt_md_stats, kt_md_stats, dst, src) {
  dst->count += src->count;
  dst->sum += src->sum;
}
KC_MDREDUCE_CUSTOM(kt_mdstats4, kt_md, f, (a, b, c, d), kt_md_stats,
                   kt_md_stats, acc, {
                     acc.count += 1;
                     acc.sum += ((a * 5 + b) * 7 + c) * 11 + d;
                   })
