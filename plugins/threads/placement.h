/* kc threads backend — which CPUs the pool's threads run on.
 *
 * The pool (pool.c) asks kc__placement_find() once, at creation, for an
 * ordered list of CPUs: thread 0 (the caller) is meant for the first,
 * worker k for the k-th.  Two policies choose the list (KC_THREADS_BIND,
 * read by threads.c):
 *
 *  - MASK: the calling thread's affinity mask.  Right whenever that mask
 *    is what the user meant: taskset, numactl, an MPI launcher binding
 *    each rank to a few cores.
 *  - SPREAD: every CPU the process may use — the CPUs the kernel lets
 *    this process run on (its cgroup's cpuset, as `taskset -p` or a
 *    container limit leave them), whatever the calling thread is bound
 *    to.  The caller's own CPUs come first, so the workers take the
 *    others before any doubles up with the caller.  Right when the mask
 *    is narrow by accident: a program that links OpenMP and runs with
 *    OMP_PROC_BIND or OMP_PLACES has its main thread bound to one CPU by
 *    the OpenMP runtime before kc starts.
 *
 * The process's "allowed" CPUs cannot be read from the process itself
 * (sched_getaffinity(getpid()) and /proc/self/status give the main
 * thread's mask, which is the narrowed one), so a short-lived probe thread
 * asks the kernel for every CPU and reads back what it was given: the
 * kernel intersects the request with the cpuset.
 */
#ifndef KC_THREADS_PLACEMENT_H
#define KC_THREADS_PLACEMENT_H

#include <stddef.h>

typedef enum kc__pool_bind {
  KC__POOL_BIND_MASK = 0, /* the calling thread's affinity mask */
  KC__POOL_BIND_SPREAD    /* every CPU the process may use */
} kc__pool_bind;

/* A CPU list as Linux prints one ("0-3,8,10-11"), cut with "..." if it
 * does not fit. */
#define KC__CPULIST_MAX 96

typedef struct kc__placement {
  int *order;  /* the CPUs for thread 0, 1, ... (malloc'ed; n of them) */
  int n;       /* CPUs the pool spreads over: mask or allowed */
  int mask;    /* CPUs of the calling thread's affinity mask */
  int allowed; /* CPUs the process may use (>= mask) */
  char mask_list[KC__CPULIST_MAX];
  char allowed_list[KC__CPULIST_MAX];
} kc__placement;

/* Fills *out for `bind`.  Returns 0, or a negative errno (ENOMEM; or what
 * sched_getaffinity said) with a one-line reason in err[errlen].  When the
 * probe for the allowed CPUs cannot run (no thread, a refused affinity
 * call), allowed is the mask.  kc__placement_free() frees the order list
 * (and leaves the counts and lists). */
int kc__placement_find(kc__pool_bind bind, kc__placement *out, char *err,
                       size_t errlen);

void kc__placement_free(kc__placement *p);

/* Orders the n CPUs of order[] (core[i]: the core of order[i], any number
 * naming it; both arrays are permuted) as the pool places threads:
 *  - `here`, the CPU the creating thread runs on, first if it is among the
 *    first `head` entries (the calling thread's mask).  The caller is
 *    thread 0 and is never pinned; a worker pinned to the CPU it runs on
 *    would share that CPU with it until the scheduler moved one of them.
 *  - then one CPU of each core, in list order, before the second hardware
 *    thread of any core (then the third ...).  On a machine numbering the
 *    two threads of a core next to each other (0,1 = one core), the k-th
 *    CPU of the plain list would put two workers on a core while others
 *    idle: half the memory bandwidth per thread for streaming kernels.
 * Stable otherwise; order[0] stays first.  Unchanged if out of memory. */
void kc__placement_arrange(int *order, int *core, int n, int head, int here);

#endif /* KC_THREADS_PLACEMENT_H */
