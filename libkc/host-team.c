/* libkc — team policies on the host engine.
 *
 * Units are league ranks, split by host-engine.c like the indices of a 1-D
 * range, and a thread runs its ranks one after the other through one
 * handle (struct kc_team, <kc/detail/team.h>).  The kernel's host function
 * gets a whole run of ranks per call, so that the functor's fields stay in
 * registers across teams.
 *
 * Team size.  A team is one thread unless three things hold: the kernel's
 * host function was written for teams of several threads (registered with
 * KC_KERNEL_TEAM_THREADS, as the kernel macros do: it splits its nested
 * loops by rank and synchronises through the team); the backend runs the
 * tasks of a parallel() call at the same time, each on a thread of its own
 * (its info slot's concurrency covers its threads, and a census of one
 * parallel() call found that many distinct threads; threads that waited
 * for each other inside tasks run one after another would never finish);
 * and teams of several threads spread the league more evenly over the
 * threads than teams of one (team_size() below: a league smaller than the
 * thread count, typically).  The policy's team_size, when given, is the
 * largest size allowed.
 *
 * With teams of `size` threads, backend thread tid is thread tid % size
 * of team tid / size (leftover threads idle).  The engine splits the
 * league over the teams: it runs through `exec`, whose parallel() gives
 * the engine's task to each team's first thread (the leader) as
 * task(team, nteams), so schedules, chunks and accumulators work on teams
 * as they do on threads.  The others (followers) wait on the team's
 * barrier for the leader to hand them each run of ranks the engine gives
 * it, run it through their own handle, and meet the leader at the barrier
 * again.  A TEAM_REDUCE's followers fold into accumulators of their own,
 * which the leader joins into the engine's in rank order after the run:
 * per run for the built-in reducers, per rank for a custom one (whose join
 * need not commute: the CUDA backend's order, ranks in order and each
 * rank's threads in order).
 *
 * Barriers spin briefly, then yield: with more threads than CPUs the
 * thread a barrier waits for may need the CPU of the one waiting.
 *
 * Before any kernel code runs, each team forms: its followers check in
 * and the leader waits for all of them.  Should a backend's parallel()
 * run fewer threads at once than the census saw (an OpenMP runtime may
 * grant a smaller team on a later call, and then runs the missing tasks
 * after the others on the same threads), a leader or follower could wait
 * for a task queued behind itself.  So forming gives up after
 * TEAM_FORM_NS: a leader then runs the team's ranks alone, as a team of
 * one thread (followers arriving later see that and return), and a
 * follower withdraws (its thread goes on to its next task, which may be
 * the leader it waited for).  One word holds the state and the count of
 * followers in, so joining, withdrawing and deciding never cross.  The
 * results stay right; only that launch's team size differs, and a
 * parallel() that keeps its concurrency never gets there; one seen to run
 * a follower on its leader's thread keeps teams of one (gave_up).
 *
 * Scratch: a team's scratch lives only while it runs, so each team needs
 * one team's worth per level (in its leader's slot), which it reuses for
 * every rank it runs.  The engine keeps those buffers in a pool of
 * per-thread slots and grows them when a launch asks for more: in steady
 * state a team launch allocates nothing.  Everything is sized and
 * allocated on the launching thread before any team runs, so a request
 * that cannot be met fails the launch (KC_ESCRATCH over the documented
 * limits, KC_ENOMEM) with nothing run.  The pool is taken with a flag,
 * like host-engine.c's accumulator cache: a launch that finds it taken (a
 * second backend instance) uses a private set.
 */
#include <config.h>

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host-engine.h"

enum { TEAM_RUN = 1, TEAM_DONE = 2 };

/* The leader slot's `gather` word: the state above, followers in below. */
#define FORMING 0u
#define FORMED (1u << 24)
#define ALONE (2u << 24)
#define IN_MASK (FORMED - 1)

/* How long a thread waits for its team to form before giving up. */
#define TEAM_FORM_NS 100000000LL

/* Barrier polls before yielding when every thread has a CPU (a few
 * microseconds); none when oversubscribed. */
#define TEAM_SPIN 4000

/* Leagues of at least this many ranks per thread run teams of one thread:
 * larger teams could gain at most 1/64 of balance. */
#define TEAM_LEAGUE_MAX_PER_THREAD 64

static kc__host_team_slot *pool;
static int pool_n;
static atomic_flag pool_busy = ATOMIC_FLAG_INIT;

static void slots_free(kc__host_team_slot *s, int n) {
  for (int i = 0; i < n; i++) {
    free(s[i].mem[0]);
    free(s[i].mem[1]);
    free(s[i].acc);
  }
  free(s);
}

/* `n` zeroed slots, with the first `keep` taken over from `old`. */
static kc__host_team_slot *slots_new(int n, kc__host_team_slot *old, int keep) {
  size_t bytes = (size_t)n * sizeof(kc__host_team_slot);
  kc__host_team_slot *s = aligned_alloc(64, bytes);
  if (!s)
    return NULL;
  memset(s, 0, bytes);
  for (int i = 0; i < keep; i++) {
    memcpy(s[i].mem, old[i].mem, sizeof s[i].mem);
    memcpy(s[i].cap, old[i].cap, sizeof s[i].cap);
    s[i].acc = old[i].acc;
    s[i].acc_cap = old[i].acc_cap;
  }
  return s;
}

static const char *backend_label(void) {
  return kc__rt.name ? kc__rt.name : "host";
}

/* ------------------------------------------------------------ barrier */

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static inline kc__host_team_slot *slot_of(const kc_team *t) {
  return (kc__host_team_slot *)(void *)(uintptr_t)t;
}

/* A central barrier on the leader's slot: the last thread to arrive resets
 * the count and bumps the generation the others wait on.  Each arrival's
 * read-modify-write releases its writes into the count's release
 * sequence, the last one acquires them all and releases them with the
 * generation. */
static void team_wait(kc__host_team_slot *lead, int n) {
  unsigned g = atomic_load_explicit(&lead->bar_gen, memory_order_acquire);
  if (atomic_fetch_add_explicit(&lead->bar_count, 1, memory_order_acq_rel) ==
      (unsigned)n - 1) {
    atomic_store_explicit(&lead->bar_count, 0, memory_order_relaxed);
    atomic_store_explicit(&lead->bar_gen, g + 1, memory_order_release);
    return;
  }
  const int spin = lead->spin;
  for (int k = 0;
       atomic_load_explicit(&lead->bar_gen, memory_order_acquire) == g; k++) {
    if (k < spin)
      cpu_relax();
    else
      sched_yield();
  }
}

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* One step of a wait: spin, then yield; returns 1 once `t0` (set at the
 * first yield) is more than TEAM_FORM_NS ago. */
static int wait_step(int spin, int *k, long long *t0) {
  if ((*k)++ < spin) {
    cpu_relax();
    return 0;
  }
  sched_yield();
  const long long t = now_ns();
  if (!*t0)
    *t0 = t;
  return t - *t0 > TEAM_FORM_NS;
}

/* The leader: 1 once all n - 1 followers are in (the team is formed), 0
 * if it gave up (the team runs on the leader alone). */
static int team_form(kc__host_team_slot *lead, int n) {
  const unsigned all = (unsigned)(n - 1);
  int k = 0;
  long long t0 = 0;
  for (;;) {
    unsigned w = all;
    if (atomic_compare_exchange_weak_explicit(&lead->gather, &w, FORMED,
                                              memory_order_acq_rel,
                                              memory_order_acquire))
      return 1;
    if (!wait_step(lead->spin, &k, &t0))
      continue;
    /* Only the leader sets the state: w is FORMING and a count. */
    w = atomic_load_explicit(&lead->gather, memory_order_relaxed);
    while (w != all && !atomic_compare_exchange_weak_explicit(
                           &lead->gather, &w, ALONE | w, memory_order_acq_rel,
                           memory_order_relaxed))
      ;
    if (w != all)
      return 0;
    /* The last follower came in meanwhile: form after all. */
  }
}

/* A follower: 1 once its team formed, 0 if the leader gave up or the
 * follower withdrew. */
static int team_join(kc__host_team_slot *lead) {
  unsigned w = atomic_load_explicit(&lead->gather, memory_order_relaxed);
  do {
    if (w & ~IN_MASK)
      return 0; /* ALONE (FORMED needs this follower) */
  } while (!atomic_compare_exchange_weak_explicit(
      &lead->gather, &w, w + 1, memory_order_acq_rel, memory_order_relaxed));
  int k = 0;
  long long t0 = 0;
  for (;;) {
    w = atomic_load_explicit(&lead->gather, memory_order_acquire);
    if (w & FORMED)
      return 1;
    if (w & ALONE)
      return 0;
    if (wait_step(lead->spin, &k, &t0) &&
        atomic_compare_exchange_strong_explicit(&lead->gather, &w, w - 1,
                                                memory_order_acq_rel,
                                                memory_order_relaxed))
      return 0; /* withdrawn, still forming: the leader waits or gives up */
  }
}

void kc__team_barrier(const kc_team *t) {
  team_wait(slot_of(t) - t->rank, t->size);
}

void kc__team_publish(const kc_team *t, const void *mine) {
  slot_of(t)->xchg = mine;
  team_wait(slot_of(t) - t->rank, t->size);
}

const void *kc__team_peer(const kc_team *t, int rank) {
  return (slot_of(t) - t->rank + rank)->xchg;
}

/* ---------------------------------------------------------- team size */

/* Whether parallel() of exec x runs its nthreads tasks each on a thread
 * of its own: one call records which thread runs each task.  Asked once
 * per exec (launches hold the runtime lock, so one at a time; a launch
 * that finds the cache taken gets teams of one thread), forgotten at the
 * last kc_finalize. */
static struct {
  void (*parallel)(void *, kc_host_task, void *);
  void *ctx;
  int nthreads;
  int distinct;
} census_memo;
static atomic_flag census_busy = ATOMIC_FLAG_INIT;

typedef struct census {
  const void **who;
  int n;
} census;

static void census_task(int tid, int nt, void *arg) {
  census *c = arg;
  (void)nt;
  if (tid >= 0 && tid < c->n)
    c->who[tid] = &kc__self;
}

static int cmp_ptr(const void *a, const void *b) {
  uintptr_t x = (uintptr_t) * (const void *const *)a;
  uintptr_t y = (uintptr_t) * (const void *const *)b;
  return (x > y) - (x < y);
}

static int census_take(const kc_host_exec *x) {
  census c = {calloc((size_t)x->nthreads, sizeof(void *)), x->nthreads};
  if (!c.who)
    return 0;
  x->parallel(x->ctx, census_task, &c);
  qsort(c.who, (size_t)c.n, sizeof *c.who, cmp_ptr);
  int distinct = c.who[0] != NULL;
  for (int i = 1; i < c.n && distinct; i++)
    distinct = c.who[i] != c.who[i - 1];
  free(c.who);
  return distinct;
}

/* The parallel() that once ran a team's follower task on its leader's own
 * thread, after the leader had given up forming (an OpenMP runtime
 * granting fewer threads than asked, OMP_DYNAMIC): its launches keep teams
 * of one thread until the last kc_finalize, instead of waiting
 * TEAM_FORM_NS again at every launch.  A team that failed to form only
 * because a thread was descheduled (a loaded machine) costs that launch
 * alone. */
static _Atomic(void (*)(void *, kc_host_task, void *)) gave_up;

static int threads_distinct(const kc_host_exec *x) {
  if (atomic_load_explicit(&gave_up, memory_order_relaxed) == x->parallel)
    return 0;
  if (atomic_flag_test_and_set_explicit(&census_busy, memory_order_acquire))
    return 0;
  if (census_memo.parallel != x->parallel || census_memo.ctx != x->ctx ||
      census_memo.nthreads != x->nthreads) {
    census_memo.distinct = census_take(x);
    census_memo.parallel = x->parallel;
    census_memo.ctx = x->ctx;
    census_memo.nthreads = x->nthreads;
  }
  int distinct = census_memo.distinct;
  atomic_flag_clear_explicit(&census_busy, memory_order_release);
  return distinct;
}

/* The team size for league L on nt threads, at most `most`: teams of t
 * threads run floor(nt / t) at once, so a thread spends about
 * ceil(L / floor(nt / t)) / t of a team's work (the team's nested loops
 * split it t ways).  The smallest t within 1/8 of the best: more threads
 * per team cost barriers, and a body's serial parts (KC_TEAM_SINGLE, what
 * it does outside nested loops) do not shrink. */
static int team_size(kc_index L, int nt, int most) {
  if (most < 2 || L < 1 || L >= (kc_index)TEAM_LEAGUE_MAX_PER_THREAD * nt)
    return 1;
  int best = 1;
  kc_index best_c = L / nt + (L % nt != 0); /* rounds of a team of 1 */
  for (int t = 2; t <= most; t++) {
    kc_index g = nt / t, c = L / g + (L % g != 0);
    if (c * best < best_c * t) /* c / t < best_c / best */
      best = t, best_c = c;
  }
  for (int t = 1; t < best; t++) {
    kc_index g = nt / t, c = L / g + (L % g != 0);
    if (8 * c * best <= 9 * best_c * t) /* c / t <= 9/8 best_c / best */
      return t;
  }
  return best;
}

static int choose_size(const kc_launch *l, const kc_host_exec *x) {
  const kc_kernel *rec = kc__kernel_of(l->kernel);
  const int nt = x->nthreads;
  if (nt < 2 || !rec || !(rec->flags & KC_KERNEL_TEAM_THREADS) ||
      kc__rt.concurrency < nt)
    return 1;
  int most = l->policy.team_size == KC_AUTO || l->policy.team_size > nt
                 ? nt
                 : l->policy.team_size;
  int size = team_size(l->policy.league_size, nt, most);
  return size > 1 && threads_distinct(x) ? size : 1;
}

/* --------------------------------------------------- running the teams */

static void team_call(const kc__host_job *j, kc_team *team, kc_index u0,
                      kc_index u1, void *acc) {
  team->league_rank = u0;
  team->league_end = u1;
  if (acc)
    ((kc_host_team_reduce_fn)kc__host_job_fn(j))(kc__host_job_functor(j), team,
                                                 acc);
  else
    ((kc_host_team_fn)kc__host_job_fn(j))(kc__host_job_functor(j), team);
}

/* The leader's side of one run: hand it to the followers, run it, wait
 * for them, fold their values into the engine's accumulator. */
static void leader_run(const kc__host_job *j, const kc__host_teams *t,
                       kc__host_team_slot *lead, kc_index u0, kc_index u1,
                       void *acc) {
  lead->run0 = u0;
  lead->run1 = u1;
  lead->cmd = TEAM_RUN;
  team_wait(lead, t->size);
  team_call(j, &lead->team, u0, u1, acc);
  team_wait(lead, t->size);
  if (acc)
    for (int m = 1; m < t->size; m++)
      t->join(acc, lead[m].acc);
}

static void follower(const kc__host_job *j, const kc__host_teams *t,
                     kc__host_team_slot *lead, kc__host_team_slot *me) {
  for (;;) {
    team_wait(lead, t->size);
    if (lead->cmd == TEAM_DONE)
      return;
    void *acc = NULL;
    if (t->vsize) {
      acc = me->acc;
      memset(acc, 0, t->vsize);
      t->identity(acc);
    }
    team_call(j, &me->team, lead->run0, lead->run1, acc);
    team_wait(lead, t->size);
  }
}

/* The task the backend runs when teams have several threads. */
static void member_task(int tid, int nt, void *arg) {
  kc__host_teams *t = arg;
  (void)nt;
  const int team = tid / t->size, rank = tid % t->size;
  if (tid < 0 || team >= t->nteams)
    return;
  kc__host_team_slot *lead = &t->slots[team * t->size];
  if (rank == 0) {
    lead->owner = kc__self_ref(); /* published by team_form's exchange */
    if (!team_form(lead, t->size)) {
      lead->solo = 1; /* read by this thread only */
      lead->team.size = 1;
    }
    t->task(team, t->nteams, t->arg);
    if (!lead->solo) {
      lead->cmd = TEAM_DONE;
      team_wait(lead, t->size);
    }
  } else if (team_join(lead)) {
    /* Kernel code (host-engine.c's task() marks leaders). */
    kc__thread *self = kc__self_ref();
    self->kernel++;
    follower(t->arg, t, lead, lead + rank);
    self->kernel--;
  } else if ((atomic_load_explicit(&lead->gather, memory_order_acquire) &
              ALONE) &&
             lead->owner == kc__self_ref()) {
    /* The leader gave up on this very thread, which runs the follower's
     * task after it: the parallel() ran fewer threads than it has tasks
     * (an OpenMP runtime granting a smaller team), and will again. */
    atomic_store_explicit(&gave_up, t->x->parallel, memory_order_relaxed);
  }
}

static void teams_parallel(void *ctx, kc_host_task task, void *arg) {
  kc__host_teams *t = ctx;
  t->task = task;
  t->arg = arg;
  t->x->parallel(t->x->ctx, member_task, t);
}

/* ------------------------------------------------------------- set-up */

/* Scratch and, for followers of a reduction, accumulators for `capacity`
 * slots; each team's scratch is its leader's. */
static int slots_fill(const kc_launch *l, kc__host_teams *t, int capacity,
                      const size_t *team_part, const size_t *stride,
                      const size_t *total) {
  const kc_kernel_info *k = l->kernel;
  const size_t acc_bytes = (t->vsize + 63) & ~(size_t)63;
  int used = t->nteams * t->size;
  /* A static split without chunks gives the teams past the league nothing
   * to run: they need no scratch (a league of 1 on 16 threads allocated
   * 16 times a 1 GB level-1 request). */
  if (l->policy.schedule != KC_SCHEDULE_DYNAMIC && l->policy.chunk == KC_AUTO &&
      l->policy.league_size < t->nteams)
    used = (int)l->policy.league_size * t->size;
  for (int i = 0; i < capacity; i++) {
    kc__host_team_slot *s = &t->slots[i];
    const int rank = i % t->size;
    kc__host_team_slot *lead = s - rank;
    for (int lev = 0; lev < 2 && rank == 0 && i < used; lev++) {
      if (s->cap[lev] >= total[lev])
        continue;
      /* Rounded up, so that slowly growing requests reallocate rarely. */
      size_t want = (total[lev] + 4095) & ~(size_t)4095;
      free(s->mem[lev]);
      s->mem[lev] = aligned_alloc(64, want);
      s->cap[lev] = s->mem[lev] ? want : 0;
      if (!s->mem[lev])
        return kc__error(KC_ENOMEM,
                         "kernel '%s': cannot allocate %zu bytes of "
                         "level-%d scratch for thread %d",
                         k->name, total[lev], lev, i);
    }
    if (rank > 0 && i < used && t->vsize && s->acc_cap < acc_bytes) {
      free(s->acc);
      s->acc = aligned_alloc(64, acc_bytes);
      s->acc_cap = s->acc ? acc_bytes : 0;
      if (!s->acc)
        return kc__error(KC_ENOMEM,
                         "kernel '%s': cannot allocate an accumulator of %zu "
                         "bytes for thread %d",
                         k->name, t->vsize, i);
    }
    for (int lev = 0; lev < 2; lev++) {
      /* A leftover thread (no team) gets no scratch. */
      unsigned char *base = total[lev] && i < used ? lead->mem[lev] : NULL;
      size_t team_aligned = total[lev] - (size_t)t->size * stride[lev];
      s->team.team_scratch[lev] = team_part[lev] ? base : NULL;
      s->team.team_scratch_size[lev] = team_part[lev];
      s->team.thread_scratch[lev] =
          l->policy.scratch_per_thread[lev] && base
              ? base + team_aligned + (size_t)rank * stride[lev]
              : NULL;
      s->team.thread_scratch_size[lev] = l->policy.scratch_per_thread[lev];
    }
    s->team.league_rank = 0;
    s->team.league_end = 0;
    s->team.league_size = l->policy.league_size;
    s->team.vector_length = l->policy.vector_length;
    s->team.reserved = 0;
    s->team.rank = rank;
    s->team.size = t->size;
    s->xchg = NULL;
    s->solo = 0;
    atomic_store_explicit(&s->gather, FORMING, memory_order_relaxed);
  }
  return 0;
}

int kc__host_teams_setup(const kc_launch *l, const kc_host_exec *x,
                         int capacity, kc__host_teams *t) {
  const kc_kernel_info *k = l->kernel;
  static const size_t limit[2] = {KC_HOST_SCRATCH0_MAX, KC_HOST_SCRATCH1_MAX};
  /* Teams of several threads need their threads' scratch side by side;
   * over the limits, teams of one thread (as before teams had threads). */
  int size = choose_size(l, x);
  size_t team_part[2], stride[2], total[2];
  for (int lev = 0; lev < 2; lev++) {
    int rc = kc_launch_scratch(l, lev, size, &team_part[lev], &stride[lev],
                               &total[lev]);
    if (rc < 0 && size > 1 && rc == KC_ESCRATCH) {
      size = 1, lev = -1;
      continue;
    }
    if (rc < 0)
      return rc;
    if (total[lev] > limit[lev] && size > 1) {
      size = 1, lev = -1;
      continue;
    }
    if (total[lev] > limit[lev])
      return kc__error(KC_ESCRATCH,
                       "kernel '%s': %zu bytes of level-%d scratch per team "
                       "(%zu per team + %zu per thread) exceed the %s "
                       "backend's limit of %zu bytes (KC_HOST_SCRATCH%d_MAX)%s",
                       k->name, total[lev], lev, team_part[lev],
                       (size_t)l->policy.scratch_per_thread[lev],
                       backend_label(), limit[lev], lev,
                       lev == 0 ? "; ask for large scratch at level 1" : "");
  }

  memset(t, 0, sizeof *t);
  t->size = size;
  t->nteams = capacity / size;
  if (k->kind == KC_KERNEL_TEAM_REDUCE && size > 1) {
    t->vsize = k->value_size;
    t->identity = k->reducer.identity;
    t->join = k->reducer.join;
    t->per_rank = k->reducer.op == KC_REDUCE_CUSTOM;
  }
  if (size > 1) {
    t->x = x;
    t->exec.parallel = teams_parallel;
    t->exec.ctx = t;
    t->exec.nthreads = t->nteams;
  }
  if (!atomic_flag_test_and_set_explicit(&pool_busy, memory_order_acquire)) {
    if (pool_n < capacity) {
      kc__host_team_slot *s = slots_new(capacity, pool, pool_n);
      if (!s) {
        atomic_flag_clear_explicit(&pool_busy, memory_order_release);
        return kc__error(KC_ENOMEM,
                         "kernel '%s': cannot allocate team handles for %d "
                         "threads",
                         k->name, capacity);
      }
      free(pool); /* its buffers now belong to s */
      pool = s;
      pool_n = capacity;
    }
    t->slots = pool;
    t->n = capacity;
    t->from_pool = 1;
  } else {
    t->slots = slots_new(capacity, NULL, 0);
    if (!t->slots)
      return kc__error(KC_ENOMEM,
                       "kernel '%s': cannot allocate team handles for %d "
                       "threads",
                       k->name, capacity);
    t->n = capacity;
  }
  const int spin =
      size > 1 && x->nthreads > kc_host_cpu_count() ? 0 : TEAM_SPIN;
  for (int i = 0; i < capacity; i++)
    t->slots[i].spin = spin;
  int rc = slots_fill(l, t, capacity, team_part, stride, total);
  if (rc < 0)
    kc__host_teams_release(t);
  return rc;
}

void kc__host_teams_release(kc__host_teams *t) {
  if (!t->slots)
    return;
  if (t->from_pool)
    atomic_flag_clear_explicit(&pool_busy, memory_order_release);
  else
    slots_free(t->slots, t->n);
  memset(t, 0, sizeof *t);
}

void kc__host_teams_cleanup(void) {
  if (!atomic_flag_test_and_set_explicit(&pool_busy, memory_order_acquire)) {
    if (pool)
      slots_free(pool, pool_n);
    pool = NULL;
    pool_n = 0;
    atomic_flag_clear_explicit(&pool_busy, memory_order_release);
  }
  if (!atomic_flag_test_and_set_explicit(&census_busy, memory_order_acquire)) {
    memset(&census_memo, 0, sizeof census_memo);
    atomic_flag_clear_explicit(&census_busy, memory_order_release);
  }
  atomic_store_explicit(&gave_up, NULL, memory_order_relaxed);
}

void kc__host_team_unit(const kc__host_job *j, int tid, kc_index u0,
                        kc_index u1, void *acc) {
  const kc__host_teams *t = kc__host_job_teams(j);
  if (t->size == 1) {
    team_call(j, &t->slots[tid].team, u0, u1, acc);
    return;
  }
  /* tid is the team (the engine runs teams as threads). */
  kc__host_team_slot *lead = &t->slots[tid * t->size];
  if (lead->solo) {
    team_call(j, &lead->team, u0, u1, acc);
    return;
  }
  if (t->per_rank) {
    for (kc_index r = u0; r < u1; r++)
      leader_run(j, t, lead, r, r + 1, acc);
  } else {
    leader_run(j, t, lead, u0, u1, acc);
  }
}
