/* libkc — team policies on the host engine.
 *
 * A host team is one thread with one vector lane: units are league ranks,
 * split by host-engine.c like the indices of a 1-D range, and a thread runs its
 * ranks one after the other through one handle (struct kc_team,
 * <kc/detail/team.h>).  The kernel's host function gets a whole run of ranks
 * per call, so that the functor's fields stay in registers across teams.
 *
 * Scratch: a team's scratch lives only while it runs, so each thread needs
 * one team's worth per level, which it reuses for every rank it runs.  The
 * engine keeps those buffers in a pool of per-thread slots and grows them
 * when a launch asks for more: in steady state a team launch allocates
 * nothing.  Everything is sized and allocated on the launching thread
 * before any team runs, so a request that cannot be met fails the launch
 * (KC_ESCRATCH over the documented limits, KC_ENOMEM) with nothing run.
 * The pool is taken with a flag, like host-engine.c's accumulator cache: a
 * launch that finds it taken (a second backend instance) uses a private set.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "host-engine.h"

static kc__host_team_slot *pool;
static int pool_n;
static atomic_flag pool_busy = ATOMIC_FLAG_INIT;

static void slots_free(kc__host_team_slot *s, int n) {
  for (int i = 0; i < n; i++) {
    free(s[i].mem[0]);
    free(s[i].mem[1]);
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
  }
  return s;
}

static const char *backend_label(void) {
  return kc__rt.name ? kc__rt.name : "host";
}

int kc__host_teams_setup(const kc_launch *l, int capacity, kc__host_teams *t) {
  const kc_kernel_info *k = l->kernel;
  static const size_t limit[2] = {KC_HOST_SCRATCH0_MAX, KC_HOST_SCRATCH1_MAX};
  size_t team_part[2], stride[2], total[2];
  for (int lev = 0; lev < 2; lev++) {
    /* Host teams have one thread, whatever team size the policy asks. */
    int rc = kc_launch_scratch(l, lev, 1, &team_part[lev], &stride[lev],
                               &total[lev]);
    if (rc < 0)
      return rc;
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

  for (int i = 0; i < capacity; i++) {
    kc__host_team_slot *s = &t->slots[i];
    for (int lev = 0; lev < 2; lev++) {
      if (s->cap[lev] < total[lev]) {
        /* Rounded up, so that slowly growing requests reallocate rarely. */
        size_t want = (total[lev] + 4095) & ~(size_t)4095;
        free(s->mem[lev]);
        s->mem[lev] = aligned_alloc(64, want);
        s->cap[lev] = s->mem[lev] ? want : 0;
        if (!s->mem[lev]) {
          kc__host_teams_release(t);
          return kc__error(KC_ENOMEM,
                           "kernel '%s': cannot allocate %zu bytes of "
                           "level-%d scratch for thread %d",
                           k->name, total[lev], lev, i);
        }
      }
      unsigned char *base = total[lev] ? s->mem[lev] : NULL;
      size_t team_aligned = total[lev] - stride[lev];
      s->team.team_scratch[lev] = team_part[lev] ? base : NULL;
      s->team.team_scratch_size[lev] = team_part[lev];
      s->team.thread_scratch[lev] =
          l->policy.scratch_per_thread[lev] ? base + team_aligned : NULL;
      s->team.thread_scratch_size[lev] = l->policy.scratch_per_thread[lev];
    }
    s->team.league_rank = 0;
    s->team.league_end = 0;
    s->team.league_size = l->policy.league_size;
    s->team.vector_length = l->policy.vector_length;
    s->team.reserved = 0;
  }
  return 0;
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
}

void kc__host_team_unit(const kc__host_job *j, int tid, kc_index u0,
                        kc_index u1, void *acc) {
  kc_team *team = &kc__host_job_teams(j)->slots[tid].team;
  team->league_rank = u0;
  team->league_end = u1;
  if (acc)
    ((kc_host_team_reduce_fn)kc__host_job_fn(j))(kc__host_job_functor(j), team,
                                                 acc);
  else
    ((kc_host_team_fn)kc__host_job_fn(j))(kc__host_job_functor(j), team);
}
