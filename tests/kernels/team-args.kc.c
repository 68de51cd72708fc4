/* The kernels of team.kc.c in the _ARGS form of <kc/kernel_args.h>: the same
 * names, bodies and argument layouts (args.h), so the same test program
 * checks them.  team.kc.c's comment follows. */
/* Team conformance kernels (t-team.c): the handle, scratch at both levels
 * (per team and per thread, from the policy and from a scratch function),
 * barriers, nested loops, reductions and scans, single and broadcast, and
 * team-level reductions of every kind.  Inputs are small integers (as
 * doubles too), so every result is exact whatever the order of joins. */
#include <kc/kernel.h>

#include "args.h"

#include "model.h"

#define KT_META(lr, k) (meta[(lr)*8 + (k)])

/* What each team sees of its handle and scratch.  meta[0..7]: league
 * rank, league size, team size, vector length, team-scratch sizes right
 * (1), thread-scratch sizes right (1), scratch problems (0), runs (1). */
KC_TEAM_ARGS(kt_team_meta, KT_TEAM_ARGS, team, {
  const kc_index lr = kc_team_league_rank(team);
  int64_t bad = 0;
  for (int lev = 0; lev < 2; lev++) {
    const size_t tsz = kc_team_scratch_size(team, lev);
    const size_t hsz = kc_thread_scratch_size(team, lev);
    unsigned char *ts = (unsigned char *)kc_team_scratch(team, lev);
    unsigned char *hs = (unsigned char *)kc_thread_scratch(team, lev);
    if (tsz != (size_t)(per_team.v[lev] + extra.v[lev]) ||
        hsz != (size_t)per_thread.v[lev])
      bad += 1000;
    if ((tsz && !ts) || (hsz && !hs) ||
        ((uintptr_t)ts % KC_SCRATCH_ALIGN) != 0 ||
        ((uintptr_t)hs % KC_SCRATCH_ALIGN) != 0)
      bad += 100;
    /* Touch both ends of each region (an overrun shows under ASan or
     * compute-sanitizer memcheck). */
    KC_TEAM_SINGLE(team, {
      if (tsz) {
        ts[0] = 0xab;
        ts[tsz - 1] = 0xcd;
      }
    });
    KC_THREAD_SINGLE(team, {
      if (hsz) {
        hs[0] = (unsigned char)kc_team_rank(team);
        hs[hsz - 1] = (unsigned char)kc_team_rank(team);
      }
    });
    kc_team_barrier(team);
    KC_THREAD_SINGLE(team, {
      if (hsz && (hs[0] != (unsigned char)kc_team_rank(team) ||
                  hs[hsz - 1] != (unsigned char)kc_team_rank(team)))
        bad += 1;
    });
    kc_team_barrier(team);
  }
  if (bad)
    kc_atomic_add_i64(&KT_META(lr, 6), bad);
  KC_TEAM_SINGLE(team, {
    KT_META(lr, 0) = lr;
    KT_META(lr, 1) = kc_team_league_size(team);
    KT_META(lr, 2) = kc_team_size(team);
    KT_META(lr, 3) = kc_team_vector_length(team);
    KT_META(lr, 4) =
        kc_team_scratch_size(team, 0) == (size_t)(per_team.v[0] + extra.v[0]) &&
        kc_team_scratch_size(team, 1) == (size_t)(per_team.v[1] + extra.v[1]);
    KT_META(lr, 5) =
        kc_thread_scratch_size(team, 0) == (size_t)per_thread.v[0] &&
        kc_thread_scratch_size(team, 1) == (size_t)per_thread.v[1];
    KT_META(lr, 7) += 1;
  });
})

/* Its scratch function: extra[level] bytes per team. */
KC_TEAM_SCRATCH_SIZE_ARGS(kt_team_meta, f, level, team_size) {
  return (size_t)f->extra.v[level];
}

/* Every thread writes its share of the team's scratch, then reads what
 * other threads wrote: without the barrier a device team reads stale
 * values.  Level 0 holds n values per team, level 1 too.
 * out[lr * n + j] = s0[n - 1 - j] + s1[(j + 3) % n]. */
KC_TEAM_ARGS(kt_team_barrier, KT_TEAM_ARGS, team, {
  const kc_index lr = kc_team_league_rank(team);
  int64_t *s0 = (int64_t *)kc_team_scratch(team, 0);
  int64_t *s1 = (int64_t *)kc_team_scratch(team, 1);
  KC_TEAM_VECTOR_FOR(team, j, 0, n, {
    s0[j] = lr * 1000 + j;
    s1[j] = lr * 100000 + j * 3;
  });
  kc_team_barrier(team);
  KC_TEAM_VECTOR_FOR(team, j, 0, n,
                     out[lr * n + j] = s0[n - 1 - j] + s1[(j + 3) % n]);
})

/* y[row] = a[row] . x: team-thread reduction over the row. */
KC_TEAM_ARGS(kt_team_matvec, KT_TEAM_ARGS, team, {
  const kc_index row = kc_team_league_rank(team);
  double sum;
  KC_TEAM_THREAD_REDUCE(team, j, 0, n, SUM, double, acc, sum,
                        acc += a[row * n + j] * x[j]);
  KC_TEAM_SINGLE(team, y[row] = sum);
})

/* The same with 3 rows per team: a team-thread loop over the rows, each
 * row a thread-vector reduction. */
KC_TEAM_ARGS(kt_team_matvec3, KT_TEAM_ARGS, team, {
  const kc_index lr = kc_team_league_rank(team);
  KC_TEAM_THREAD_FOR(team, r, 0, 3, {
    const kc_index row = lr * 3 + r;
    double sum;
    KC_THREAD_VECTOR_REDUCE(team, j, 0, n, SUM, double, acc, sum,
                            acc += a[row * n + j] * x[j]);
    KC_THREAD_SINGLE(team, y[row] = sum);
  });
})

/* Nested MIN / MAX / PROD and the custom reducer, all three forms:
 * meta[row * 8 + 0..5] = min, max (team thread), min (thread vector), max
 * (team vector), product of (a % 3 == 0 ? 2 : 1) over the first 20
 * columns, custom min + max (as min * 1000 + max). */
KC_REDUCER_IDENTITY(kt_minmax, kt_minmax, v) {
  v->min = 1e300;
  v->max = -1e300;
}
KC_REDUCER_JOIN(kt_minmax, kt_minmax, dst, src) {
  if (src->min < dst->min)
    dst->min = src->min;
  if (src->max > dst->max)
    dst->max = src->max;
}
KC_TEAM_ARGS(kt_team_nested, KT_TEAM_ARGS, team, {
  const kc_index row = kc_team_league_rank(team);
  const double *ar = a + row * n;
  int32_t mn, mx;
  double vmn, vmx;
  int64_t prod;
  kt_minmax mm;
  KC_TEAM_THREAD_REDUCE(team, j, 0, n, MIN, int32_t, acc, mn, {
    const int32_t v = (int32_t)ar[j];
    acc = v < acc ? v : acc;
  });
  KC_TEAM_THREAD_REDUCE(team, j, 0, n, MAX, int32_t, acc, mx, {
    const int32_t v = (int32_t)ar[j];
    acc = v > acc ? v : acc;
  });
  KC_THREAD_VECTOR_REDUCE(team, j, 0, n, MIN, double, acc, vmn,
                          acc = ar[j] < acc ? ar[j] : acc);
  KC_TEAM_VECTOR_REDUCE(team, j, 0, n, MAX, double, acc, vmx,
                        acc = ar[j] > acc ? ar[j] : acc);
  KC_TEAM_THREAD_REDUCE(team, j, 0, n < 20 ? n : 20, PROD, int64_t, acc, prod,
                        acc *= ((int64_t)ar[j] % 3 == 0 ? 2 : 1));
  KC_TEAM_THREAD_REDUCE_CUSTOM(team, j, 0, n, kt_minmax, kt_minmax, acc, mm, {
    if (ar[j] < acc.min)
      acc.min = ar[j];
    if (ar[j] > acc.max)
      acc.max = ar[j];
  });
  KC_TEAM_SINGLE(team, {
    KT_META(row, 0) = mn;
    KT_META(row, 1) = mx;
    KT_META(row, 2) = (int64_t)vmn;
    KT_META(row, 3) = (int64_t)vmx;
    KT_META(row, 4) = prod;
    KT_META(row, 5) = (int64_t)mm.min * 1000 + (int64_t)mm.max;
  });
})

/* Exclusive scan of each row of (int64)a into out, team-thread form;
 * meta[row * 8 + 0] = the row's total. */
KC_TEAM_ARGS(kt_team_scan, KT_TEAM_ARGS, team, {
  const kc_index row = kc_team_league_rank(team);
  int64_t total;
  KC_TEAM_THREAD_SCAN(team, j, 0, n, int64_t, acc, final, total, {
    if (final)
      out[row * n + j] = acc;
    acc += (int64_t)a[row * n + j];
  });
  KC_TEAM_SINGLE(team, KT_META(row, 0) = total);
})

/* The same with thread-vector scans, 3 rows per team; meta[row * 8 + 1] =
 * the row's total. */
KC_TEAM_ARGS(kt_vector_scan, KT_TEAM_ARGS, team, {
  const kc_index lr = kc_team_league_rank(team);
  KC_TEAM_THREAD_FOR(team, r, 0, 3, {
    const kc_index row = lr * 3 + r;
    int64_t total;
    KC_THREAD_VECTOR_SCAN(team, j, 0, n, int64_t, acc, final, total, {
      if (final)
        out[row * n + j] = acc;
      acc += (int64_t)a[row * n + j];
    });
    KC_THREAD_SINGLE(team, KT_META(row, 1) = total);
  });
})

/* One thread computes a value, every thread uses it:
 * out[lr * n + j] = 5 * lr + j. */
KC_TEAM_ARGS(kt_team_bcast, KT_TEAM_ARGS, team, {
  const kc_index lr = kc_team_league_rank(team);
  double v = -1;
  KC_TEAM_BROADCAST(team, double, v, v = lr * 2.5);
  KC_TEAM_VECTOR_FOR(team, j, 0, n, out[lr * n + j] = (int64_t)(v * 2) + j);
})

/* League-level reductions.  Each team adds its row's sum once (single). */
KC_TEAM_REDUCE_SUM_ARGS(kt_team_rowsum, KT_TEAM_ARGS, team, int64_t, acc, {
  const kc_index row = kc_team_league_rank(team);
  int64_t s;
  KC_TEAM_THREAD_REDUCE(team, j, 0, n, SUM, int64_t, r, s,
                        r += (int64_t)a[row * n + j]);
  KC_TEAM_SINGLE(team, acc += s);
})

/* acc updated inside a team-vector loop: once per index. */
KC_TEAM_REDUCE_SUM_ARGS(kt_team_count, KT_TEAM_ARGS, team, int64_t, acc,
                        KC_TEAM_VECTOR_FOR(team, j, 0, n, acc += 1))

KC_TEAM_REDUCE_MAX_ARGS(kt_team_max, KT_TEAM_ARGS, team, double, acc, {
  const kc_index row = kc_team_league_rank(team);
  double m;
  KC_TEAM_VECTOR_REDUCE(team, j, 0, n, MAX, double, r, m,
                        r = a[row * n + j] > r ? a[row * n + j] : r);
  KC_TEAM_SINGLE(team, acc = m > acc ? m : acc);
})

KC_TEAM_REDUCE_MIN_ARGS(kt_team_min, KT_TEAM_ARGS, team, int32_t, acc, {
  const kc_index row = kc_team_league_rank(team);
  int32_t m;
  KC_TEAM_THREAD_REDUCE(team, j, 0, n, MIN, int32_t, r, m, {
    const int32_t v = (int32_t)a[row * n + j] - (int32_t)row;
    r = v < r ? v : r;
  });
  KC_TEAM_SINGLE(team, acc = m < acc ? m : acc);
})

/* Product over teams of (row % 4 == 1 ? 3 : 1). */
KC_TEAM_REDUCE_PROD_ARGS(
    kt_team_prod, KT_TEAM_ARGS, team, int64_t, acc,
    KC_TEAM_SINGLE(team, acc *= kc_team_league_rank(team) % 4 == 1 ? 3 : 1))

KC_TEAM_REDUCE_CUSTOM_ARGS(kt_team_minmax, KT_TEAM_ARGS, team, kt_minmax,
                           kt_minmax, acc, {
                             const kc_index row = kc_team_league_rank(team);
                             kt_minmax m;
                             KC_TEAM_THREAD_REDUCE_CUSTOM(
                                 team, j, 0, n, kt_minmax, kt_minmax, r, m, {
                                   const double v = a[row * n + j] + row;
                                   if (v < r.min)
                                     r.min = v;
                                   if (v > r.max)
                                     r.max = v;
                                 });
                             KC_TEAM_SINGLE(team, {
                               if (m.min < acc.min)
                                 acc.min = m.min;
                               if (m.max > acc.max)
                                 acc.max = m.max;
                             });
                           })

/* Nested ranges at the ends of kc_index (team.kc.c's kt_team_edges). */
KC_TEAM_ARGS(kt_team_edges, KT_TEAM_ARGS, team, {
  const kc_index lr = kc_team_league_rank(team), top = INT64_MAX,
                 bot = INT64_MIN;
  int64_t *m = &KT_META(lr, 0);
  /* a thread's lanes all run its indices: one of them counts */
  KC_TEAM_THREAD_FOR(team, i, top - 5, top,
                     KC_THREAD_SINGLE(team, kc_atomic_add(&m[0], top - i)));
  KC_TEAM_THREAD_FOR(team, i, top, top,
                     KC_THREAD_SINGLE(team, kc_atomic_add(&m[1], 1 + 0 * i)));
  KC_TEAM_VECTOR_FOR(team, i, top - 3, top, kc_atomic_add(&m[2], top - i));
  KC_TEAM_VECTOR_FOR(team, i, bot, bot + 4, kc_atomic_add(&m[3], i - bot));
  KC_TEAM_THREAD_FOR(team, r, 0, 1, {
    KC_THREAD_VECTOR_FOR(team, i, top - 2, top, kc_atomic_add(&m[4], top - i));
    KC_THREAD_VECTOR_FOR(team, i, top, top, kc_atomic_add(&m[4], 100 + 0 * i));
  });
  int64_t s5 = 0, s6 = 0, s7 = 0, total = 0;
  kt_minmax mm;
  KC_TEAM_THREAD_SCAN(team, i, top - 9, top, int64_t, acc, final, total, {
    if (final && i == top - 1)
      out[lr * n + 2] = acc;
    acc += top - i;
  });
  KC_TEAM_THREAD_REDUCE_CUSTOM(team, i, top - 4, top, kt_minmax, kt_minmax, acc,
                               mm, {
                                 if ((double)(top - i) < acc.min)
                                   acc.min = (double)(top - i);
                                 if ((double)(top - i) > acc.max)
                                   acc.max = (double)(top - i);
                               });
  KC_TEAM_THREAD_REDUCE(team, i, top - 7, top, SUM, int64_t, acc, s5,
                        acc += top - i);
  KC_TEAM_VECTOR_REDUCE(team, i, top, top, SUM, int64_t, acc, s6,
                        acc += 1 + 0 * i);
  KC_TEAM_VECTOR_REDUCE(team, i, bot, bot + 6, SUM, int64_t, acc, s7,
                        acc += i - bot);
  KC_TEAM_SINGLE(team, {
    out[lr * n + 0] = total;
    out[lr * n + 1] = (int64_t)mm.min * 100 + (int64_t)mm.max * 10000;
    m[5] = s5;
    m[6] = s6;
    m[7] = s7;
  });
})
