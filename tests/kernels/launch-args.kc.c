/* Kernels of every kind in the _ARGS form, launched by t-args.c with the
 * one-line launches (kc_run_*, kc_reduce, kc_scan).  t-args.c includes this
 * file with KC_DECLARE_ONLY: it sees the argument structs and handles, the
 * kernels come from the kcc-built object. */
#include <kc/kernel.h>

/* FOR: out[i] = a * i + b. */
KC_FOR_ARGS(la_fill, ((int64_t *, out), (int64_t, a), (int64_t, b)), i,
            out[i] = a * i + b)

/* Built-in reductions. */
KC_REDUCE_SUM_ARGS(la_sum, ((const int64_t *, in)), i, int64_t, acc,
                   acc += in[i])
KC_REDUCE_MAX_ARGS(la_max, ((const double *, v), (double, scale)), i, double,
                   acc, acc = v[i] * scale > acc ? v[i] * scale : acc)
KC_REDUCE_MINLOC_ARGS(la_minloc, ((const double *, v)), i, double, acc, {
  if (v[i] < acc.val) {
    acc.val = v[i];
    acc.loc = i;
  }
})

/* A custom reduction: the smallest and largest value. */
typedef struct la_range {
  int64_t lo, hi;
} la_range;
KC_REDUCER_IDENTITY(la_range_r, la_range, r) {
  r->lo = INT64_MAX;
  r->hi = INT64_MIN;
}
KC_REDUCER_JOIN(la_range_r, la_range, dst, src) {
  if (src->lo < dst->lo)
    dst->lo = src->lo;
  if (src->hi > dst->hi)
    dst->hi = src->hi;
}
KC_REDUCE_CUSTOM_ARGS(la_range_of, ((const int64_t *, in)), i, la_range_r,
                      la_range, acc, {
                        if (in[i] < acc.lo)
                          acc.lo = in[i];
                        if (in[i] > acc.hi)
                          acc.hi = in[i];
                      })

/* Exclusive sum scan of in into out. */
KC_SCAN_ARGS(la_scan, ((const int64_t *, in), (int64_t *, out)), i, int64_t,
             acc, final, {
               if (final)
                 out[i] = acc;
               acc += in[i];
             })

/* MD: out[i * ld + j] = i * 1000 + j; and the sum of i * j. */
KC_MDFOR_ARGS(la_md, ((int64_t *, out), (int64_t, ld)), (i, j),
              out[i * ld + j] = i * 1000 + j)
KC_MDREDUCE_SUM_ARGS(la_mdsum, ((int64_t, scale)), (i, j), int64_t, acc,
                     acc += i * j * scale)

/* Teams: each league rank writes its rank times `scale`, and the sum of
 * the ranks. */
KC_TEAM_ARGS(la_team, ((int64_t *, out), (int64_t, scale)), team, {
  const kc_index lr = kc_team_league_rank(team);
  KC_TEAM_SINGLE(team, out[lr] = lr * scale);
})
KC_TEAM_REDUCE_SUM_ARGS(la_teamsum, ((int64_t, scale)), team, int64_t, acc,
                        KC_TEAM_SINGLE(team, acc +=
                                             kc_team_league_rank(team) * scale))

/* Chunks: out[k] = base + 2 * k through a chunk buffer. */
KC_FOR_CHUNKS_ARGS(la_chunk, ((int64_t *, out), (int64_t, base)), b, e, {
  KC_CHUNK_BUFFER(int64_t, tmp);
  for (kc_index k = b; k < e; k++)
    tmp[k - b] = base + 2 * k;
  for (kc_index k = b; k < e; k++)
    out[k] = tmp[k - b];
})
