/* The kernels of md.kc.c in the _ARGS form of <kc/kernel_args.h>: the same
 * names, bodies and argument layouts (args.h), so the same test program
 * checks them.  md.kc.c's comment follows. */
/* Multi-dimensional conformance kernels (t-md.c): every rank from 2 to 6
 * records each point it visits in a dense array (so the test sees points
 * visited twice or never), and the MD reductions over built-in and custom
 * reducers. */
#include <kc/kernel.h>

#include "args.h"

#include "model.h"

/* Offset of a point in the test's dense array. */
#define KT_AT(d, x) (((x)-lo.v[d]) * st.v[d])

KC_MDFOR_ARGS(kt_md2, KT_MD_ARGS, (i, j), {
  const int64_t p = KT_AT(0, i) + KT_AT(1, j);
  cnt[p] += 1;
  val[p] = KT_MD_CODE2(i, j);
})

KC_MDFOR_ARGS(kt_md3, KT_MD_ARGS, (i, j, k), {
  const int64_t p = KT_AT(0, i) + KT_AT(1, j) + KT_AT(2, k);
  cnt[p] += 1;
  val[p] = KT_MD_CODE3(i, j, k);
})

KC_MDFOR_ARGS(kt_md4, KT_MD_ARGS, (a, b, c, d), {
  const int64_t p = KT_AT(0, a) + KT_AT(1, b) + KT_AT(2, c) + KT_AT(3, d);
  cnt[p] += 1;
  val[p] = ((a * 5 + b) * 7 + c) * 11 + d;
})

KC_MDFOR_ARGS(kt_md5, KT_MD_ARGS, (a, b, c, d, e), {
  const int64_t p =
      KT_AT(0, a) + KT_AT(1, b) + KT_AT(2, c) + KT_AT(3, d) + KT_AT(4, e);
  cnt[p] += 1;
  val[p] = (((a * 5 + b) * 7 + c) * 11 + d) * 13 + e;
})

KC_MDFOR_ARGS(kt_md6, KT_MD_ARGS, (a, b, c, d, e, g), {
  const int64_t p = KT_AT(0, a) + KT_AT(1, b) + KT_AT(2, c) + KT_AT(3, d) +
                    KT_AT(4, e) + KT_AT(5, g);
  cnt[p] += 1;
  val[p] = ((((a * 5 + b) * 7 + c) * 11 + d) * 13 + e) * 17 + g;
})

KC_MDREDUCE_SUM_ARGS(kt_mdsum2, KT_MD_ARGS, (i, j), int64_t, acc,
                     acc += KT_MD_CODE2(i, j))

KC_MDREDUCE_SUM_ARGS(kt_mdsum3, KT_MD_ARGS, (i, j, k), double, acc,
                     acc += (double)KT_MD_CODE3(i, j, k))

KC_MDREDUCE_MIN_ARGS(kt_mdmin3, KT_MD_ARGS, (i, j, k), double, acc, {
  const double v = (double)KT_MD_CODE3(i, j, k);
  acc = v < acc ? v : acc;
})

KC_MDREDUCE_MAX_ARGS(kt_mdmax2, KT_MD_ARGS, (i, j), int32_t, acc, {
  const int32_t v = (int32_t)(i * 3 - j * 2);
  acc = v > acc ? v : acc;
})

KC_MDREDUCE_PROD_ARGS(kt_mdprod2, KT_MD_ARGS, (i, j), int64_t, acc,
                      acc *= ((i + j) % 5 == 0 ? 2 : 1))

KC_REDUCER_IDENTITY(kt_md_stats, kt_md_stats, v) {
  v->count = 0;
  v->sum = 0;
}
KC_REDUCER_JOIN(kt_md_stats, kt_md_stats, dst, src) {
  dst->count += src->count;
  dst->sum += src->sum;
}
KC_MDREDUCE_CUSTOM_ARGS(kt_mdstats4, KT_MD_ARGS, (a, b, c, d), kt_md_stats,
                        kt_md_stats, acc, {
                          acc.count += 1;
                          acc.sum += ((a * 5 + b) * 7 + c) * 11 + d;
                        })
