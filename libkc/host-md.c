/* libkc — multi-dimensional ranges on the host engine.
 *
 * An MD launch is cut into tiles, numbered row-major (the last dimension
 * fastest); host-engine.c hands out tile numbers exactly as it hands out
 * indices of a 1-D range (static shares, round-robin chunks of tiles, or the
 * dynamic counter), and this file turns a thread's run of tile numbers
 * into boxes for the kernel's host function, whose innermost loop is the
 * last dimension, contiguous and vectorised.
 *
 * Tiles asked for (policy.tile[d] > 0 in any dimension) are honoured: one
 * call per tile, so the body walks each tile as a block (cache blocking).
 * Without tiles the grid is one tile per line of the last dimension and a
 * thread's consecutive tiles are merged into as few boxes as the row-major
 * order allows (at most 2 * rank - 1 per run): for a static schedule,
 * each thread then makes a handful of calls with long inner loops.
 */
#include <config.h>

#include "host-engine.h"

int kc__host_md_setup(const kc_launch *l, kc__host_md *m, kc_index *base,
                      kc_index *nunits) {
  const kc_launch_policy *p = &l->policy;
  const int r = p->rank;
  m->rank = r;
  m->merge = 1;
  for (int d = 0; d < r; d++)
    if (p->tile[d] > 0)
      m->merge = 0;
  kc_index n = 1;
  int empty = 0, over = 0;
  for (int d = 0; d < r; d++) {
    kc_index ext;
    if (__builtin_sub_overflow(p->end[d], p->begin[d], &ext))
      return kc__error(KC_ERANGE,
                       "kernel '%s': dimension %d, [%lld, %lld), has more "
                       "indices than kc_index holds",
                       l->kernel->name, d, (long long)p->begin[d],
                       (long long)p->end[d]);
    /* A dimension without a tile: the whole line for the last one, single
     * indices for the others. */
    kc_index t = p->tile[d] > 0 ? p->tile[d] : d == r - 1 ? ext : 1;
    if (t > ext)
      t = ext;
    if (t < 1)
      t = 1;
    m->begin[d] = p->begin[d];
    m->end[d] = p->end[d];
    m->tile[d] = t;
    m->ntile[d] = ext / t + (ext % t != 0);
    /* An empty dimension empties the box, whatever came before it. */
    if (m->ntile[d] == 0)
      empty = 1;
    else if (!over && __builtin_mul_overflow(n, m->ntile[d], &n))
      over = 1;
  }
  if (empty)
    n = 0;
  else if (over)
    return kc__error(KC_ERANGE,
                     "kernel '%s': the MD range has more tiles than "
                     "kc_index holds; use larger tiles",
                     l->kernel->name);
  *base = 0;
  *nunits = n;
  return 0;
}

/* Tile coordinates of tile number u. */
static void unravel(const kc__host_md *m, kc_index u, kc_index *c) {
  for (int d = m->rank - 1; d >= 0; d--) {
    c[d] = u % m->ntile[d];
    u /= m->ntile[d];
  }
}

/* Index bound of tile coordinate t in dimension d (the end of the range
 * for the last tile). */
static inline kc_index bound(const kc__host_md *m, int d, kc_index t) {
  /* t * tile is below the extent for every tile but the last, and is not
   * computed for the end (it could overflow when the extent is near
   * INT64_MAX). */
  return t >= m->ntile[d] ? m->end[d] : m->begin[d] + t * m->tile[d];
}

static inline void call(const kc__host_job *j, const kc_index *lo,
                        const kc_index *hi, void *acc) {
  if (acc)
    ((kc_host_mdreduce_fn)kc__host_job_fn(j))(kc__host_job_functor(j), lo, hi,
                                              acc);
  else
    ((kc_host_mdfor_fn)kc__host_job_fn(j))(kc__host_job_functor(j), lo, hi);
}

void kc__host_md_unit(const kc__host_job *j, int tid, kc_index u0, kc_index u1,
                      void *acc) {
  (void)tid;
  const kc__host_md *m = kc__host_job_md(j);
  const int r = m->rank;
  kc_index c[KC_MAX_RANK], lo[KC_MAX_RANK], hi[KC_MAX_RANK];
  unravel(m, u0, c);

  if (!m->merge) {
    for (kc_index u = u0; u < u1; u++) {
      for (int d = 0; d < r; d++) {
        lo[d] = bound(m, d, c[d]);
        hi[d] = bound(m, d, c[d] + 1);
      }
      call(j, lo, hi, acc);
      for (int d = r - 1; d >= 0; d--) { /* next tile, row-major */
        if (++c[d] < m->ntile[d])
          break;
        c[d] = 0;
      }
    }
    return;
  }

  /* Largest boxes first: the dimensions after L whole, dimension L a run
   * of `cnt` tiles, the ones before it fixed at their coordinate.  L can
   * move left past a dimension only while the coordinate there is 0 and
   * a whole block of it still fits before u1. */
  for (kc_index u = u0; u < u1;) {
    int L = r - 1;
    kc_index s = 1; /* tiles per step of dimension L */
    while (L > 0 && c[L] == 0 && (u1 - u) / s >= m->ntile[L]) {
      s *= m->ntile[L];
      L--;
    }
    kc_index cnt = (u1 - u) / s;
    if (cnt > m->ntile[L] - c[L])
      cnt = m->ntile[L] - c[L];
    for (int d = 0; d < r; d++) {
      kc_index t0 = d < L ? c[d] : d == L ? c[L] : 0;
      kc_index t1 = d < L ? c[d] + 1 : d == L ? c[L] + cnt : m->ntile[d];
      lo[d] = bound(m, d, t0);
      hi[d] = bound(m, d, t1);
    }
    call(j, lo, hi, acc);
    u += cnt * s;
    c[L] += cnt; /* the dimensions after L are back at 0 */
    for (int d = L; d > 0 && c[d] == m->ntile[d]; d--) {
      c[d] = 0;
      c[d - 1]++;
    }
  }
}
