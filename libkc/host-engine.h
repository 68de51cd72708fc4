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
 * own (the handle is written for every run of league ranks). */
typedef struct kc__host_team_slot {
  _Alignas(64) kc_team team;
  void *mem[2];  /* level 0 and 1, 64-byte aligned */
  size_t cap[2]; /* their sizes */
} kc__host_team_slot;

/* A team launch's per-thread slots: the engine's pool (kept and grown
 * between launches) or, when another launch holds it, a private set. */
typedef struct kc__host_teams {
  kc__host_team_slot *slots; /* NULL for other kinds */
  int n;
  int from_pool;
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

/* host-team.c: per-thread handles and scratch for `capacity` threads
 * (KC_ESCRATCH over the host limits, KC_ENOMEM), their release after the
 * launch (a no-op for a zeroed kc__host_teams), and the pool's release at
 * the last kc_finalize. */
int kc__host_teams_setup(const kc_launch *l, int capacity,
                         kc__host_teams *t) KC__HIDDEN;
void kc__host_teams_release(kc__host_teams *t) KC__HIDDEN;
void kc__host_teams_cleanup(void) KC__HIDDEN;
void kc__host_team_unit(const kc__host_job *j, int tid, kc_index u0,
                        kc_index u1, void *acc) KC__HIDDEN;

#endif /* KC_HOST_ENGINE_H */
