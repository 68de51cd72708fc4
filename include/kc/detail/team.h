/* kc — the team handle of host backends.
 *
 * A team kernel's body receives `kc_team *team` (see the team section of
 * <kc/kernel.h> for what a body may do with it: the kc_team_* accessors,
 * never the fields).  This header is the layout libkc's host engine and
 * the host expansion of the kernel macros (kernel_host.h) share; the CUDA
 * expansion defines its own struct kc_team.  It is included by
 * kernel_host.h; applications need not include it.
 *
 * A host team has one vector lane and `size` threads (one unless the
 * kernel was registered with KC_KERNEL_TEAM_THREADS, as the kernel macros
 * do).  The engine calls a team kernel's host function once per run of
 * consecutive league ranks, [league_rank, league_end), on every thread of
 * the team: the function runs the body for each rank in turn, updating
 * league_rank, so that the functor's fields stay in registers across
 * teams.  The scratch pointers stay the same for every rank of the run (a
 * team's scratch does not outlive it, so the next team reuses the memory).
 *
 * The fields up to `reserved` are those of kc 0.1, which kernels built
 * then read; `rank` and `size` were appended (libkc allocates every
 * handle, so older kernels never see the difference).  The functions
 * below are libkc's side of a team of several threads; the nested-loop
 * macros of kernel_host.h call them only when size > 1.
 */
#ifndef KC_TEAM_H
#define KC_TEAM_H

#include <stddef.h>

#include <kc/kc.h>

#ifdef __cplusplus
extern "C" {
#endif

struct kc_team {
  kc_index league_rank; /* the team the body runs now */
  kc_index league_end;  /* one past the last rank of this call */
  kc_index league_size;
  void *team_scratch[2];         /* per level; NULL when 0 bytes */
  size_t team_scratch_size[2];   /* per-team part, bytes */
  void *thread_scratch[2];       /* per level, the (only) thread's part */
  size_t thread_scratch_size[2]; /* bytes */
  int vector_length;             /* the policy's request (informative) */
  int reserved;
  int rank; /* this thread of the team, 0 .. size-1 */
  int size; /* threads of the team */
};

typedef struct kc_team kc_team;

/* Waits until every thread of the team has called it (spinning briefly,
 * then yielding the CPU); what each wrote before is visible to all after. */
KC_API void kc__team_barrier(const kc_team *kc__t);
/* Makes `kc__mine` (an object of the calling thread that stays alive until
 * the next kc__team_barrier) readable by the team's other threads through
 * kc__team_peer, then waits as kc__team_barrier. */
KC_API void kc__team_publish(const kc_team *kc__t, const void *kc__mine);
/* What team thread `kc__rank` published last, until the next barrier. */
KC_API const void *kc__team_peer(const kc_team *kc__t, int kc__rank);

#ifdef __cplusplus
}
#endif

#endif /* KC_TEAM_H */
