/* Kernels of cuda-model.c: team and MD launches the CUDA backend shapes
 * itself (scratch beyond 48 KB, team sizes from scratch, many league ranks
 * per block, tiles larger than a block, joins that are not commutative). */
#include <kc/kernel.h>

#include "cuda-model.h"

/* The late writer's wait (a host team is one thread: nothing to wait for). */
#if defined(__CUDA_ARCH__)
#define CM_SPIN(cycles)                                                        \
  do {                                                                         \
    const long long t0_ = clock64();                                           \
    while (clock64() - t0_ < (cycles)) {                                       \
    }                                                                          \
  } while (0)
#else
#define CM_SPIN(cycles) (void)(cycles)
#endif

/* Every thread fills part of the team's level-0 scratch (m values), then,
 * after the barrier, the team sums it in a permuted order: a missing
 * barrier, or a team that starts before the previous team of its block
 * has finished reading, gives a wrong sum.  out[rank] = the sum. */
KC_TEAM(cm_share, cm_team, f, team, {
  const kc_index r = kc_team_league_rank(team);
  const int64_t m = f->m;
  int64_t *s = (int64_t *)kc_team_scratch(team, 0);
  KC_TEAM_VECTOR_FOR(team, j, 0, m, s[j] = r * 1000000 + j);
  kc_team_barrier(team);
  int64_t sum;
  KC_TEAM_VECTOR_REDUCE(team, j, 0, m, SUM, int64_t, acc, sum,
                        acc += s[(j * 7919) % m]);
  KC_TEAM_SINGLE(team, f->out[r] = sum);
})

/* One late writer (the team's last thread, after `spin` cycles) and every
 * thread reading what it wrote, at both levels, after a barrier. */
KC_TEAM(cm_barrier, cm_team, f, team, {
  const kc_index r = kc_team_league_rank(team);
  int64_t *s0 = (int64_t *)kc_team_scratch(team, 0);
  int64_t *s1 = (int64_t *)kc_team_scratch(team, 1);
  if (kc_team_rank(team) == kc_team_size(team) - 1 &&
      kc_team_vector_lane(team) == 0) {
    CM_SPIN(f->spin);
    s0[0] = r + 1;
    s1[0] = r + 2;
  }
  kc_team_barrier(team);
  if (s0[0] != r + 1 || s1[0] != r + 2)
    kc_atomic_add_i64(&f->meta[0], 1);
  kc_team_barrier(team);
})

/* The same without the barrier: the control that shows cm_barrier can
 * fail (not run under compute-sanitizer, which reports its race). */
KC_TEAM(cm_nobarrier, cm_team, f, team, {
  const kc_index r = kc_team_league_rank(team);
  int64_t *s0 = (int64_t *)kc_team_scratch(team, 0);
  if (kc_team_rank(team) == kc_team_size(team) - 1 &&
      kc_team_vector_lane(team) == 0) {
    CM_SPIN(f->spin);
    s0[0] = r + 1;
  }
  if (s0[0] != r + 1)
    kc_atomic_add_i64(&f->meta[0], 1);
})

/* Per-thread level-0 parts: each thread fills its own with a pattern of
 * its rank, and checks it after a barrier; the team reports its size. */
KC_TEAM(cm_thread_parts, cm_team, f, team, {
  const int64_t w = f->per_thread / (int64_t)sizeof(int64_t);
  int64_t *p = (int64_t *)kc_thread_scratch(team, 0);
  const int64_t me = kc_team_rank(team) * 1000 + kc_team_league_rank(team);
  KC_THREAD_VECTOR_FOR(team, k, 0, w, p[k] = me * 7 + k);
  kc_team_barrier(team);
  int64_t bad;
  KC_THREAD_VECTOR_REDUCE(team, k, 0, w, SUM, int64_t, acc, bad,
                          acc += p[k] != me * 7 + k);
  if (bad)
    kc_atomic_add_i64(&f->meta[0], 1);
  KC_TEAM_SINGLE(team, {
    f->meta[1] = kc_team_size(team);
    f->meta[2] = kc_team_vector_length(team);
  });
})

/* Joins that are associative but not commutative (the index-order hash of
 * cuda-functors.h). */
KC_REDUCER_IDENTITY(cm_hash, kc_seqhash, v) {
  v->h = 0;
  v->pw = 1;
  v->first = -1;
  v->last = -1;
}
KC_REDUCER_JOIN(cm_hash, kc_seqhash, d, s) {
  d->h = d->h * s->pw + s->h;
  d->pw *= s->pw;
  if (d->first < 0)
    d->first = s->first;
  if (s->last >= 0)
    d->last = s->last;
}
#define CM_HASH_ADD(acc, x)                                                    \
  do {                                                                         \
    (acc).h = (acc).h * KC_SEQHASH_P + (uint64_t)(x);                          \
    (acc).pw *= KC_SEQHASH_P;                                                  \
    if ((acc).first < 0)                                                       \
      (acc).first = (x);                                                       \
    (acc).last = (x);                                                          \
  } while (0)

/* League ranks in order (one contribution per team). */
KC_TEAM_REDUCE_CUSTOM(
    cm_league_hash, cm_team, f, team, cm_hash, kc_seqhash, acc,
    KC_TEAM_SINGLE(team, CM_HASH_ADD(acc, kc_team_league_rank(team))))

/* Indices in order across a team's threads, and across a thread's lanes:
 * out[rank * 2] and out[rank * 2 + 1] = the hashes' h, meta[0] counts
 * hashes whose first/last index is wrong. */
KC_TEAM(cm_nested_hash, cm_team, f, team, {
  const kc_index r = kc_team_league_rank(team);
  kc_seqhash th, vh;
  KC_TEAM_THREAD_REDUCE_CUSTOM(team, j, 0, f->n, cm_hash, kc_seqhash, acc, th,
                               CM_HASH_ADD(acc, j + r));
  KC_THREAD_VECTOR_REDUCE_CUSTOM(team, j, 0, f->n, cm_hash, kc_seqhash, acc, vh,
                                 CM_HASH_ADD(acc, j * 3 + r));
  if (th.first != r || th.last != f->n - 1 + r || vh.first != r ||
      vh.last != (f->n - 1) * 3 + r)
    kc_atomic_add_i64(&f->meta[0], 1);
  KC_TEAM_SINGLE(team, {
    f->out[r * 2] = (int64_t)th.h;
    f->out[r * 2 + 1] = (int64_t)vh.h;
  });
})

/* MD: every point of the box adds one to its count. */
KC_MDFOR(cm_md_count, cm_md, f, (i, j), f->cnt[i * f->n1 + j] += 1)

/* A sum over a large box (exact in int64). */
KC_MDREDUCE_SUM(cm_md_sum, cm_md, f, (i, j, k), int64_t, acc,
                acc += (i * 3 + j) * 5 + k)
