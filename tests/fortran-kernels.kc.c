/* Kernels of the Fortran binding's test (fortran-api.f90), built by kcc.
 *
 * Each functor is the C twin of a bind(C) type of fortran-api.f90 (same
 * fields, same order).  C index i is Fortran element i + 1; 2-D arrays
 * are Fortran's a(nx, ny), element (x + 1, y + 1) at y * nx + x, and the
 * MD kernels take (y, x) so that x, the contiguous index, is the fast
 * one. */
#include <kc/kernel.h>

#include <stdint.h>

typedef struct ft_vec {
  double a;
  double *y;
  const double *x;
  float *yf;
  int32_t *yi;
  int64_t *yl;
  int64_t nx;
} ft_vec;

/* y(k) = a * k */
KC_FOR(ft_fill, ft_vec, f, i, f->y[i] = f->a * (double)(i + 1))

KC_REDUCE_SUM(ft_sum_d, ft_vec, f, i, double, acc, acc += f->x[i])
KC_REDUCE_SUM(ft_sum_f, ft_vec, f, i, float, acc, acc += (float)(i + 1))
KC_REDUCE_SUM(ft_sum_i, ft_vec, f, i, int32_t, acc, acc += (int32_t)(i + 1))
KC_REDUCE_SUM(ft_sum_l, ft_vec, f, i, int64_t, acc, acc += i + 1)

KC_REDUCE_MINLOC(ft_minloc_i, ft_vec, f, i, int32_t, acc, {
  if (f->yi[i] < acc.val || (f->yi[i] == acc.val && i < acc.loc)) {
    acc.val = f->yi[i];
    acc.loc = i;
  }
})
KC_REDUCE_MAXLOC(ft_maxloc_l, ft_vec, f, i, int64_t, acc, {
  if (f->yl[i] > acc.val || (f->yl[i] == acc.val && i < acc.loc)) {
    acc.val = f->yl[i];
    acc.loc = i;
  }
})
KC_REDUCE_MINLOC(ft_minloc_f, ft_vec, f, i, float, acc, {
  if (f->yf[i] < acc.val || (f->yf[i] == acc.val && i < acc.loc)) {
    acc.val = f->yf[i];
    acc.loc = i;
  }
})
KC_REDUCE_MAXLOC(ft_maxloc_d, ft_vec, f, i, double, acc, {
  if (f->x[i] > acc.val || (f->x[i] == acc.val && i < acc.loc)) {
    acc.val = f->x[i];
    acc.loc = i;
  }
})

/* Inclusive prefix sums: of x into y, and of 1, 2, 3, ... in each type. */
KC_SCAN(ft_scan_d, ft_vec, f, i, double, acc, final, {
  acc += f->x[i];
  if (final)
    f->y[i] = acc;
})
KC_SCAN(ft_scan_f, ft_vec, f, i, float, acc, final, {
  acc += (float)(i + 1);
  if (final)
    f->yf[i] = acc;
})
KC_SCAN(ft_scan_i, ft_vec, f, i, int32_t, acc, final, {
  acc += (int32_t)(i + 1);
  if (final)
    f->yi[i] = acc;
})
KC_SCAN(ft_scan_l, ft_vec, f, i, int64_t, acc, final, {
  acc += i + 1;
  if (final)
    f->yl[i] = acc;
})

/* a(x, y) = x + 1000 y (1-based) over Fortran's a(nx, ny). */
KC_MDFOR(ft_md, ft_vec, f, (y, x),
         f->y[y * f->nx + x] = (double)(x + 1) + 1000.0 * (double)(y + 1))
KC_MDREDUCE_SUM(ft_mdsum, ft_vec, f, (y, x), double, acc,
                acc += f->y[y * f->nx + x])

/* y(league rank + 1) = the team's level-0 scratch bytes: the policy's
 * per-team request plus what the kernel's scratch function added. */
KC_TEAM(ft_team, ft_vec, f, team, {
  f->y[kc_team_league_rank(team)] = (double)kc_team_scratch_size(team, 0);
})
