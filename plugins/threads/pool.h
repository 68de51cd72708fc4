/* kc threads backend — the persistent fork-join thread pool.
 *
 * A pool of `n` threads: the thread that calls kc__pool_parallel() is
 * thread 0, and n - 1 workers created by kc__pool_create() are threads
 * 1 .. n-1.  kc__pool_parallel() is the `parallel` primitive of
 * kc_host_exec (<kc/backend.h>): it runs task(tid, n, arg) once on every
 * thread and returns when all have returned, with everything the tasks
 * wrote visible to the caller.
 *
 * Only this plugin uses these functions; they are hidden (internal `kc__`
 * names) and carry no kc error state, so the pool can be tested on its own.
 */
#ifndef KC_THREADS_POOL_H
#define KC_THREADS_POOL_H

#include <stddef.h>

#include <kc/backend.h>

#include "placement.h"

typedef struct kc__pool kc__pool;

/* Creates a pool of `nthreads` threads (0: one per CPU of the placement)
 * placed by `bind` (placement.h): the placement is an ordered CPU list,
 * the calling thread's affinity mask (MASK) or every CPU the process may
 * use, the mask's first (SPREAD).  When the pool fits the list, worker k is
 * pinned to its k-th CPU; when it does not (oversubscription) no worker is
 * pinned to one CPU (under SPREAD each may run on any CPU of the list) and
 * waiters sleep early.  The calling thread's own affinity is never changed.
 * On failure returns a negative KC_E code (KC_EINVAL for nthreads < 0,
 * KC_ENOMEM, KC_EINTERNAL when a thread cannot be created) and writes a
 * one-line reason into err[errlen].  Not thread safe with respect to the
 * same *out. */
int kc__pool_create(kc__pool **out, int nthreads, kc__pool_bind bind, char *err,
                    size_t errlen);

/* Stops and joins every worker, then frees the pool.  Must not run
 * concurrently with kc__pool_parallel() on the same pool.  NULL is a no-op. */
void kc__pool_destroy(kc__pool *pool);

/* Number of threads of the pool, the caller's included. */
int kc__pool_size(const kc__pool *pool);

/* 1 if the workers were pinned to CPUs, 0 if not (oversubscribed, or the
 * affinity could not be set). */
int kc__pool_pinned(const kc__pool *pool);

/* Where the pool was placed: its CPU counts and lists (order is NULL). */
const kc__placement *kc__pool_placement(const kc__pool *pool);

/* Claims the pool for one fork-join (or a series of them, as a scan needs).
 * Returns 1 if the calling thread now owns the pool; 0 if the pool is in
 * use already — by a task of this very pool calling back into kc (a nested
 * launch) or by another thread — in which case the caller must run its work
 * on its own thread (nthreads = 1) instead of calling kc__pool_parallel().
 * Lock free: one atomic exchange. */
int kc__pool_enter(kc__pool *pool);

/* Releases what kc__pool_enter() claimed (only after it returned 1). */
void kc__pool_leave(kc__pool *pool);

/* The fork-join.  `ctx` is the kc__pool.  The calling thread must own the
 * pool (kc__pool_enter() returned 1).  No lock and no system call on the
 * fast path: workers that are still spinning see the new generation
 * directly; FUTEX_WAKE is only issued when one of them went to sleep. */
void kc__pool_parallel(void *ctx, kc_host_task task, void *arg);

#endif /* KC_THREADS_POOL_H */
