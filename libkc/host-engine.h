/* libkc — what the host engine (host-engine.c) shares with its
 * multi-dimensional (host-md.c) and team (host-team.c) parts.  Internal. */
#ifndef KC_HOST_ENGINE_H
#define KC_HOST_ENGINE_H

#include <kc/detail/team.h>

#include "internal.h"

typedef struct kc__host_job kc__host_job;

/* Runs units [u0, u1) of the launch on thread `tid`; `acc` is the thread's
 * accumulator (NULL for kinds without one). */
typedef void (*unit_fn)(const kc__host_job *j, int tid, kc_index u0,
                        kc_index u1, void *acc);

/* An MD launch's tiling: units are tiles, numbered row-major over the grid
 * of ntile[d] tiles (the last dimension fastest). */
typedef struct kc__host_md {
  int rank;
  int merge; /* no tile asked for: consecutive tiles run as one box */
  kc_index begin[KC_MAX_RANK], end[KC_MAX_RANK];
  kc_index tile[KC_MAX_RANK], ntile[KC_MAX_RANK];
} kc__host_md;

/* One thread's team handle and scratch memory, on a cache line of its
 * own (the handle is written for every run of league ranks).  In a team
 * of several threads, its first thread's slot (the leader's) also holds
 * the team's scratch, barrier and the run it hands to the others. */
typedef struct kc__host_team_slot {
  _Alignas(64) kc_team team;
  void *mem[2];     /* level 0 and 1, 64-byte aligned */
  size_t cap[2];    /* their sizes */
  const void *xchg; /* kc__team_publish: what this thread published */
  void *acc;        /* a follower's accumulator, acc_cap bytes */
  size_t acc_cap;
  int spin;            /* leader: barrier polls before yielding */
  int cmd;             /* leader: TEAM_RUN or TEAM_DONE, for the followers */
  kc_index run0, run1; /* leader: the league ranks of the run */
  _Alignas(64) atomic_uint bar_count; /* leader: threads at the barrier */
  atomic_uint bar_gen;                /* leader: barriers completed */
  atomic_uint gather; /* leader: how the team forms (host-team.c) */
  int solo;           /* leader: the team runs on its leader alone */
  const void *owner;  /* leader: its thread (kc__self), as it forms */
} kc__host_team_slot;

/* A team launch's per-thread slots: the engine's pool (kept and grown
 * between launches) or, when another launch holds it, a private set.
 * With size > 1, thread tid of the backend is thread tid % size of team
 * tid / size, and the engine runs through `exec`, whose parallel() hands
 * the engine's task to each team's first thread as task(team, nteams). */
typedef struct kc__host_teams {
  kc__host_team_slot *slots; /* NULL for other kinds */
  int n;
  int from_pool;
  int size;     /* threads per team */
  int nteams;   /* teams at once: nthreads / size */
  int per_rank; /* a custom join: the threads' values joined after each rank */
  size_t vsize; /* TEAM_REDUCE: the value's bytes (0 for TEAM) */
  void (*identity)(void *);
  void (*join)(void *, const void *);
  kc_host_exec exec;     /* size > 1: what the engine runs through */
  const kc_host_exec *x; /* the backend's */
  kc_host_task task;     /* the engine's, during exec.parallel */
  void *arg;
} kc__host_teams;

/* host-engine.c: the parts of a job the unit functions read. */
const kc__host_md *kc__host_job_md(const kc__host_job *j) KC__HIDDEN;
const kc__host_teams *kc__host_job_teams(const kc__host_job *j) KC__HIDDEN;
const void *kc__host_job_functor(const kc__host_job *j) KC__HIDDEN;
void (*kc__host_job_fn(const kc__host_job *j))(void) KC__HIDDEN;

/* host-md.c: the tiling of an MD launch (units from 0); KC_ERANGE when the
 * box's size does not fit kc_index. */
int kc__host_md_setup(const kc_launch *l, kc__host_md *md, kc_index *base,
                      kc_index *nunits) KC__HIDDEN;
void kc__host_md_unit(const kc__host_job *j, int tid, kc_index u0, kc_index u1,
                      void *acc) KC__HIDDEN;

/* host-team.c: the team size, per-thread handles and scratch for
 * `capacity` threads of exec x (KC_ESCRATCH over the host limits,
 * KC_ENOMEM), their release after the
 * launch (a no-op for a zeroed kc__host_teams), and the pool's release at
 * the last kc_finalize. */
int kc__host_teams_setup(const kc_launch *l, const kc_host_exec *x,
                         int capacity, kc__host_teams *t) KC__HIDDEN;
void kc__host_teams_release(kc__host_teams *t) KC__HIDDEN;
void kc__host_teams_cleanup(void) KC__HIDDEN;
void kc__host_team_unit(const kc__host_job *j, int tid, kc_index u0,
                        kc_index u1, void *acc) KC__HIDDEN;

#endif /* KC_HOST_ENGINE_H */
