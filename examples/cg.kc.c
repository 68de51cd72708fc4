/* examples/cg: the kernels of a conjugate-gradient solve.  The sparse
 * matrix-vector product uses a team policy: a team per block of rows, a
 * team thread per row, the row's nonzeros over the thread's vector lanes
 * (on the host, one thread per team and a vectorised loop per row). */
#include <kc/kernel.h>

#include "cg.h"

KC_TEAM(cg_spmv, cg_spmv, f, team, {
  const int64_t first = kc_team_league_rank(team) * f->rows_per_team;
  KC_TEAM_THREAD_FOR(team, r, 0, f->rows_per_team, {
    const int64_t row = first + r;
    if (row < f->nrows) {
      double sum;
      KC_THREAD_VECTOR_REDUCE(team, k, f->rowptr[row], f->rowptr[row + 1], SUM,
                              double, acc, sum,
                              acc += f->val[k] * f->x[f->col[k]]);
      KC_THREAD_SINGLE(team, f->y[row] = sum);
    }
  });
})

KC_REDUCE_SUM(cg_dot, cg_dot, f, i, double, acc, acc += f->x[i] * f->y[i])

KC_FOR(cg_update, cg_update, f, i, {
  f->x[i] += f->alpha * f->p[i];
  f->r[i] -= f->alpha * f->ap[i];
})

KC_FOR(cg_xpby, cg_xpby, f, i, f->p[i] = f->r[i] + f->beta * f->p[i])

KC_FOR(cg_resid, cg_resid, f, i, f->r[i] = f->b[i] - f->ax[i])
