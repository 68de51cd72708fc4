/* kc — the team handle of host backends.
 *
 * A team kernel's body receives `kc_team *team` (see the team section of
 * <kc/kernel.h> for what a body may do with it: the kc_team_* accessors,
 * never the fields).  This header is the layout libkc's host engine and
 * the host expansion of the kernel macros (kernel_host.h) share; the CUDA
 * expansion defines its own struct kc_team.  It is included by
 * kernel_host.h; applications need not include it.
 *
 * A host team is one thread with one vector lane.  The engine calls a
 * team kernel's host function once per run of consecutive league ranks,
 * [league_rank, league_end): the function runs the body for each rank in
 * turn, updating league_rank, so that the functor's fields stay in
 * registers across teams.  The scratch pointers stay the same for every
 * rank of the run (a team's scratch does not outlive it, so the next team
 * reuses the memory).
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
};

typedef struct kc_team kc_team;

#ifdef __cplusplus
}
#endif

#endif /* KC_TEAM_H */
