/* Kernels of the Python binding's tests (python/tests), one of each kind. */
#include <kc/kernel.h>

#include "pyk.h"

KC_FOR(pyk_saxpy, pyk_saxpy, f, i, { f->y[i] = f->a * f->x[i] + f->y[i]; })

KC_FOR(pyk_empty, pyk_saxpy, f, i, { (void)f; })

KC_REDUCE_SUM(pyk_dot, pyk_xy, f, i, double, acc, { acc += f->x[i] * f->y[i]; })

KC_REDUCE_MAXLOC(pyk_maxloc, pyk_xy, f, i, double, acc, {
  if (f->x[i] > acc.val) {
    acc.val = f->x[i];
    acc.loc = i;
  }
})

KC_SCAN(pyk_iscan, pyk_scan, f, i, int64_t, acc, final, {
  acc += f->in[i];
  if (final)
    f->out[i] = acc;
})

KC_MDFOR(pyk_md2, pyk_md, f, (i, j),
         { f->a[i * f->ld + j] = (double)(i * 1000 + j); })

/* Team t sums f->width values t*width .. t*width+width-1. */
KC_TEAM(pyk_team_sum, pyk_team, f, team, {
  const kc_index t = kc_team_league_rank(team);
  double s = 0;
  KC_TEAM_THREAD_REDUCE(team, k, 0, f->width, SUM, double, acc, s,
                        { acc += (double)(t * f->width + k); });
  KC_TEAM_SINGLE(team, { f->sums[t] = s; });
})

KC_REDUCER_IDENTITY(pyk_stats, pyk_stats, v) {
  v->count = 0;
  v->sum = 0;
}
KC_REDUCER_JOIN(pyk_stats, pyk_stats, dst, src) {
  dst->count += src->count;
  dst->sum += src->sum;
}
KC_REDUCE_CUSTOM(pyk_stats, pyk_xy, f, i, pyk_stats, pyk_stats, acc, {
  acc.count += 1;
  acc.sum += f->x[i];
})

/* A CALL kernel's host function (registered from Python with
 * kc.register_call): x[i] *= s over [b, e). */
void pyk_scale(kc_index b, kc_index e, double *x, double s);
void pyk_scale(kc_index b, kc_index e, double *x, double s) {
  for (kc_index i = b; i < e; i++)
    x[i] *= s;
}

/* The C side of the launch-overhead benchmark: n launches of pyk_empty
 * over [0, len), timed in C; returns nanoseconds per launch. */
#include <time.h>
double pyk_c_launches(int n, kc_index len);
double pyk_c_launches(int n, kc_index len) {
  KC_KERNEL_DECLARE(pyk_empty);
  pyk_saxpy f = {0};
  kc_policy p = kc_range(0, len);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int r = 0; r < n; r++)
    if (kc_parallel_for("pyk_empty", KC_KERNEL(pyk_empty), &p, &f, sizeof f) !=
        0)
      return -1;
  kc_fence();
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n;
}
