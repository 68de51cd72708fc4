/* Kernels of the MD-range and team benchmark (md.c): a transpose and a
 * 5-point stencil of an n x n matrix of doubles, each as an MD-range
 * kernel and as a team kernel staging a tile in level-0 scratch, plus the
 * fills that place the matrices (on host backends each worker first-touches
 * the pages it will use).  baseline.cu holds the hand-written CUDA twins,
 * md-omp.c the OpenMP ones. */
#include <kc/kernel.h>

#include "md.h"

/* out[i][j] = MD_INPUT(i, j). */
KC_MDFOR(mdb_init, struct md_functor, f, (i, j),
         f->out[i * f->n + j] = MD_INPUT(i, j))

/* out[i][j] = c0 (md.c fills outputs with NaN before it checks them). */
KC_MDFOR(mdb_fill, struct md_functor, f, (i, j), f->out[i * f->n + j] = f->c0)

/* out[j][i] = in[i][j] over [0, n) x [0, n). */
/* The fields of struct md_functor, in and out restrict: on a GPU a
 * thread's loads of its next points then go ahead of its stores. */
#define MD_ARGS                                                                \
  ((const double *restrict, in), (double *restrict, out), (int64_t, n),        \
   (int64_t, ntiles), (double, c0), (double, c1))

KC_MDFOR_ARGS(mdb_transpose, MD_ARGS, (i, j), out[j * n + i] = in[i * n + j])

/* The stencil over the interior [1, n-1) x [1, n-1). */
KC_MDFOR_ARGS(mdb_stencil, MD_ARGS, (i, j), {
  const int64_t p = i * n + j;
  out[p] = c0 * in[p] + c1 * (in[p - n] + in[p + n] + in[p - 1] + in[p + 1]);
})

/* Row k of mdb_stencil_strip's strip, on its locals (p, q, n, c0, c1, up,
 * c). */
#define MD_STRIP_ROW(k)                                                        \
  do {                                                                         \
    const double dn = p[((k) + 1) * n];                                        \
    q[(k)*n] = c0 * c + c1 * (up + dn + p[(k)*n - 1] + p[(k)*n + 1]);          \
    up = c;                                                                    \
    c = dn;                                                                    \
  } while (0)

/* The stencil by strips of MD_STRIP rows, the algorithm of the
 * hand-written strip kernel (baseline.cu) as an MD range: point (s, j)
 * computes column j of interior rows [1 + s MD_STRIP, 1 + (s + 1)
 * MD_STRIP), walking down the strip with the rows above and below in
 * registers, so each point loads one value from above or below instead of
 * three.  The same arithmetic, in the same order, as mdb_stencil. */
KC_MDFOR_ARGS(mdb_stencil_strip, MD_ARGS, (s, j), {
  const int64_t i0 = 1 + s * MD_STRIP;
  const double *p = in + i0 * n + j;
  double *q = out + i0 * n + j;
  double up = p[-n], c = p[0];
  const int64_t rows = n - 1 - i0 < MD_STRIP ? n - 1 - i0 : MD_STRIP;
  if (rows == MD_STRIP) {
    for (int k = 0; k < MD_STRIP; k++)
      MD_STRIP_ROW(k);
  } else {
    for (int64_t k = 0; k < rows; k++)
      MD_STRIP_ROW(k);
  }
})

/* The transpose by tiles: team r moves tile (r / ntiles, r % ntiles) of
 * in, read by rows into scratch (rows of MD_PAD doubles), then, after the
 * barrier, written by rows of out, which are the tile's columns.  On a GPU
 * the lanes run along rows, so both global accesses are coalesced. */
KC_TEAM_ARGS(mdb_team_transpose, MD_ARGS, team, {
  const kc_index r = kc_team_league_rank(team);
  const int64_t i0 = r / ntiles * MD_TILE, j0 = r % ntiles * MD_TILE;
  const int64_t h = n - i0 < MD_TILE ? n - i0 : MD_TILE;
  const int64_t w = n - j0 < MD_TILE ? n - j0 : MD_TILE;
  double *t = (double *)kc_team_scratch(team, 0);
  KC_TEAM_THREAD_FOR(team, y, 0, h, {
    KC_THREAD_VECTOR_FOR(team, x, 0, w,
                         t[y * MD_PAD + x] = in[(i0 + y) * n + j0 + x]);
  });
  kc_team_barrier(team);
  KC_TEAM_THREAD_FOR(team, y, 0, w, {
    KC_THREAD_VECTOR_FOR(team, x, 0, h,
                         out[(j0 + y) * n + i0 + x] = t[x * MD_PAD + y]);
  });
})

/* The transpose by bands of rows (md --teams L): team r moves rows
 * [r * rows, (r + 1) * rows) (rows in f->ntiles), its threads sharing out
 * the band's 32 x 32 tiles in row-major order, each tile as md-omp.c's
 * (out by rows, in by columns).  A league smaller than the thread count:
 * on a host backend only teams of several threads keep every thread
 * busy. */
KC_TEAM(mdb_team_bands, struct md_functor, f, team, {
  const int64_t n = f->n, rows = f->ntiles;
  const int64_t i0 = kc_team_league_rank(team) * rows;
  const int64_t i1 = n - i0 < rows ? n : i0 + rows;
  const int64_t across = (n + MD_TILE - 1) / MD_TILE;
  const int64_t down = (i1 - i0 + MD_TILE - 1) / MD_TILE;
  const double *in = f->in;
  double *out = f->out;
  KC_TEAM_THREAD_FOR(team, k, 0, down * across, {
    const int64_t ib = i0 + k / across * MD_TILE, jb = k % across * MD_TILE;
    const int64_t ie = i1 - ib < MD_TILE ? i1 : ib + MD_TILE;
    const int64_t je = n - jb < MD_TILE ? n : jb + MD_TILE;
    for (int64_t j = jb; j < je; j++)
      KC_THREAD_VECTOR_FOR(team, i, ib, ie, out[j * n + i] = in[i * n + j]);
  });
})

/* The stencil by tiles of the interior: team r stages its tile and the
 * halo around it (rows of MD_HALO doubles), then computes the tile from
 * scratch.  The same arithmetic, in the same order, as mdb_stencil. */
KC_TEAM(mdb_team_stencil, struct md_functor, f, team, {
  const int64_t n = f->n;
  const kc_index r = kc_team_league_rank(team);
  const int64_t i0 = 1 + r / f->ntiles * MD_TILE;
  const int64_t j0 = 1 + r % f->ntiles * MD_TILE;
  const int64_t h = n - 1 - i0 < MD_TILE ? n - 1 - i0 : MD_TILE;
  const int64_t w = n - 1 - j0 < MD_TILE ? n - 1 - j0 : MD_TILE;
  double *t = (double *)kc_team_scratch(team, 0);
  const double *in = f->in;
  double *out = f->out;
  const double c0 = f->c0, c1 = f->c1;
  KC_TEAM_THREAD_FOR(team, y, 0, h + 2, {
    KC_THREAD_VECTOR_FOR(team, x, 0, w + 2,
                         t[y * MD_HALO + x] =
                             in[(i0 - 1 + y) * n + j0 - 1 + x]);
  });
  kc_team_barrier(team);
  KC_TEAM_THREAD_FOR(team, y, 0, h, {
    KC_THREAD_VECTOR_FOR(team, x, 0, w, {
      const double *c = t + (y + 1) * MD_HALO + x + 1;
      out[(i0 + y) * n + j0 + x] =
          c0 * c[0] + c1 * (c[-MD_HALO] + c[MD_HALO] + c[-1] + c[1]);
    });
  });
})
