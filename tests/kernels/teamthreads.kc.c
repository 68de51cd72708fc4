/* Kernels of t-team-threads.c: what a team of several threads must get
 * right, written for any team size (they hold on every backend): each
 * rank once per team, barriers ordering scratch writes before reads of
 * other threads' parts, thread scratch private to its thread, team-wide
 * reductions, scans and broadcast with the same value in every thread,
 * and a league reduction counting each team's KC_TEAM_SINGLE once. */
#include <kc/kernel.h>

#include "teamthreads.h"

/* Each thread of each team adds size * 1000 + rank + 1 to its cell. */
KC_TEAM(ktt_handle, ktt_functor, f, team, {
  const kc_index lr = kc_team_league_rank(team);
  const int rk = kc_team_rank(team), sz = kc_team_size(team);
  if (rk < 0 || rk >= sz || sz > KTT_MAXT || kc_team_vector_lane(team) != 0)
    kc_atomic_add(f->bad, (int64_t)1);
  else
    kc_atomic_add(&f->meta[lr * KTT_MAXT + rk], (int64_t)sz * 1000 + rk + 1);
})

/* Rounds of: every thread writes its part of the team's scratch, barrier,
 * every thread reads the mirror part (written by other threads), barrier.
 * Thread scratch holds a value of the thread's own across all of it. */
KC_TEAM(ktt_barrier, ktt_functor, f, team, {
  const kc_index lr = kc_team_league_rank(team);
  const int64_t n = f->n;
  int64_t *t = (int64_t *)kc_team_scratch(team, 0);
  int64_t *mine = (int64_t *)kc_thread_scratch(team, 0);
  KC_THREAD_SINGLE(team, mine[0] = kc_team_rank(team) * 7 + lr);
  for (int64_t round = 0; round < 4; round++) {
    KC_TEAM_THREAD_FOR(team, i, 0, n, t[i] = lr * 100000 + round * 1000 + i);
    kc_team_barrier(team);
    KC_TEAM_THREAD_FOR(team, i, 0, n, {
      const int64_t k = n - 1 - i;
      if (t[k] != lr * 100000 + round * 1000 + k)
        kc_atomic_add(f->bad, (int64_t)1);
    });
    kc_team_barrier(team);
  }
  if (mine[0] != kc_team_rank(team) * 7 + lr)
    kc_atomic_add(f->bad, (int64_t)1);
  KC_TEAM_THREAD_FOR(team, i, 0, n, f->out[lr * n + i] += 1);
})

/* An ordered sequence [lo, hi): joins check that they meet end to start,
 * so only joins in index order keep ok. */
KC_REDUCER_IDENTITY(ktt_seq, ktt_seq, v) {
  v->lo = -1;
  v->hi = -1;
  v->ok = 1;
}
KC_REDUCER_JOIN(ktt_seq, ktt_seq, dst, src) {
  if (src->lo < 0)
    return;
  if (dst->lo < 0) {
    *dst = *src;
    return;
  }
  dst->ok = dst->ok && src->ok && dst->hi == src->lo;
  dst->hi = src->hi;
}

/* Team-wide reductions, scan and broadcast: every thread checks that it
 * got the whole team's value. */
KC_TEAM(ktt_nested, ktt_functor, f, team, {
  const kc_index lr = kc_team_league_rank(team);
  const int64_t n = f->n, tri = n * (n - 1) / 2;
  int64_t s, mn, mx, tot, b;
  double ds;
  ktt_seq seq;
  KC_TEAM_THREAD_REDUCE(team, i, 0, n, SUM, int64_t, a, s, a += i + lr);
  KC_TEAM_THREAD_REDUCE(team, i, 0, n, MIN, int64_t, a, mn,
                        a = n - i + lr < a ? n - i + lr : a);
  KC_TEAM_THREAD_REDUCE(team, i, 0, n, MAX, int64_t, a, mx,
                        a = i + lr > a ? i + lr : a);
  KC_TEAM_VECTOR_REDUCE(team, i, 0, n, SUM, double, a, ds, a += (double)i);
  KC_TEAM_THREAD_REDUCE_CUSTOM(team, i, 0, n, ktt_seq, ktt_seq, a, seq, {
    if (a.lo < 0) {
      a.lo = i;
      a.hi = i + 1;
    } else {
      a.ok = a.ok && a.hi == i;
      a.hi = i + 1;
    }
  });
  KC_TEAM_THREAD_SCAN(team, i, 0, n, int64_t, a, final, tot, {
    if (final)
      f->out[lr * n + i] = a;
    a += i;
  });
  KC_TEAM_BROADCAST(team, int64_t, b, b = lr * 10 + 7);
  if (s != tri + n * lr || mn != lr + 1 || mx != n - 1 + lr ||
      ds != (double)tri || seq.lo != 0 || seq.hi != n || !seq.ok ||
      tot != tri || b != lr * 10 + 7)
    kc_atomic_add(f->bad, (int64_t)1);
})

/* The league's sum: 1000 per team (once, in KC_TEAM_SINGLE) plus each
 * index of a team-thread loop once. */
KC_TEAM_REDUCE_SUM(ktt_count, ktt_functor, f, team, int64_t, acc, {
  KC_TEAM_SINGLE(team, acc += 1000);
  KC_TEAM_THREAD_FOR(team, i, 0, f->n, acc += i);
})

/* Teams joined in league rank order: [0, league) when the join of a
 * custom reducer sees the ranks in order. */
KC_TEAM_REDUCE_CUSTOM(ktt_order, ktt_functor, f, team, ktt_seq, ktt_seq, acc, {
  const kc_index lr = kc_team_league_rank(team);
  KC_TEAM_SINGLE(team, {
    if (acc.lo < 0) {
      acc.lo = lr;
      acc.hi = lr + 1;
    } else {
      acc.ok = acc.ok && acc.hi == lr;
      acc.hi = lr + 1;
    }
  });
  (void)f;
})
