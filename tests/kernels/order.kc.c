/* Kernels of t-order.c: a non-commutative custom reducer (order.h) over a
 * range, as a scan, and over the ranks of a league. */
#include <kc/kernel.h>

#include "order.h"

KC_REDUCER_IDENTITY(kt_cat, kt_cat, v) {
  v->h = 0;
  v->p = 1;
}
KC_REDUCER_JOIN(kt_cat, kt_cat, dst, src) {
  dst->h = dst->h * src->p + src->h;
  dst->p = dst->p * src->p;
}

KC_REDUCE_CUSTOM(kt_cat_reduce, kt_cat_f, f, i, kt_cat, kt_cat, acc, {
  acc.h = acc.h * 10 + kt_cat_digit(i);
  acc.p = acc.p * 10;
});

KC_SCAN_CUSTOM(kt_cat_scan, kt_cat_f, f, i, kt_cat, kt_cat, acc, final, {
  acc.h = acc.h * 10 + kt_cat_digit(i);
  acc.p = acc.p * 10;
  if (final && f->out)
    f->out[i - f->base] = acc.h;
});

KC_TEAM_REDUCE_CUSTOM(kt_cat_team, kt_cat_f, f, team, kt_cat, kt_cat, acc,
                      KC_TEAM_SINGLE(team, {
                        acc.h = acc.h * 10 +
                                kt_cat_digit(kc_team_league_rank(team));
                        acc.p = acc.p * 10;
                      }))

/* Over a 2-D box: the digit of the point (i, j) is that of 7 * i + j. */
KC_MDREDUCE_CUSTOM(kt_cat_md, kt_cat_f, f, (i, j), kt_cat, kt_cat, acc, {
  acc.h = acc.h * 10 + kt_cat_digit(7 * i + j);
  acc.p = acc.p * 10;
})
