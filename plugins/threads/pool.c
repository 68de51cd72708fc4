/* kc threads backend — the persistent fork-join thread pool (see pool.h).
 *
 * Fork: the caller stores (task, arg) and bumps the generation word `gen`;
 * workers wait for `gen` to change.  Join: each worker stores the generation
 * it finished into its own cache line (`done`); the caller scans those
 * lines.  Waiting is a short spin with a pause instruction, then a futex
 * sleep; the waker issues FUTEX_WAKE only when a sleeper registered itself,
 * so back-to-back launches make no system call at all.
 *
 * The sleep protocol is the classic store/load (Dekker) handshake, made
 * correct by sequentially consistent atomics on both sides:
 *   sleeper: sleepers++ ; if (word unchanged) futex_wait(word)
 *   waker:   word = new ; if (sleepers)       futex_wake(word)
 * In the single total order of seq_cst operations either the sleeper sees
 * the new word (and does not sleep) or the waker sees the sleeper (and
 * wakes it); futex_wait itself rechecks the word in the kernel, closing the
 * window between the check and the sleep.  The futex calls are not relied
 * on for memory ordering (ThreadSanitizer cannot see them): every datum the
 * tasks exchange is published by a release store and read after an acquire
 * load of `gen` or `done`.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "pool.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Two 64-byte lines: Intel's adjacent-line prefetcher pulls pairs, and some
 * ARM cores have 128-byte lines. */
#define POOL_LINE 128

/* How long a waiter spins before it sleeps when every thread has a CPU of
 * its own.  Long enough to cover the gap between back-to-back launches of
 * a typical time-step loop, short enough that an idle pool gives its CPUs
 * back within a fraction of a millisecond. */
#define POOL_SPIN_NS 100000u
/* Oversubscribed: the thread we wait for may need our CPU, so only a token
 * spin (the first round of polls below) before sleeping. */
#define POOL_SPIN_NS_OVERSUBSCRIBED 0u
/* Polls between clock reads while spinning. */
#define POOL_POLLS_PER_CLOCK 64u
/* How long the joining caller, its spin over, keeps polling before it
 * sleeps (not when oversubscribed).  A caller that slept in the join is
 * woken when the last worker finishes, and where that wake is slow (a
 * halted virtual CPU of a busy host) the workers' own spin ran out before
 * the next fork: they slept, that fork's wakes were slow again, and every
 * launch paid two slow wakes.  On a 16-virtual-CPU machine right after a
 * build: 120-290 us a launch in runs of seconds, against 1.2 us
 * (doc/hacking/host-plugins.md).  Polling on keeps the caller awake
 * through such a wake, so at most one launch pays it.  It polls with a
 * pause, not sched_yield(): a yield to a busy neighbour can keep the
 * caller away for a scheduler tick (4 ms), long enough for the workers to
 * sleep again; a caller that finds itself on a worker's CPU sleeps at
 * once instead, leaving the CPU to the worker. */
#define POOL_JOIN_POLL_NS 1000000u

struct worker {
  /* The generation this worker finished last; written by the worker, read
   * by the joining caller.  Alone in its line so that workers finishing at
   * the same moment do not contend. */
  alignas(POOL_LINE) _Atomic uint32_t done;
  kc__pool *pool;
  int tid;
  int cpu; /* CPU it is pinned to, -1 if none */
  pthread_t thread;
};

struct kc__pool {
  /* The fork line, written once per launch by the owner.  task and arg are
   * plain: they are published by the seq_cst (hence release) store of gen
   * and only read after an acquire load of it. */
  alignas(POOL_LINE) _Atomic uint32_t gen;
  kc_host_task task; /* NULL tells the workers to exit */
  void *arg;

  /* Slow-path words, written only by threads about to sleep. */
  alignas(POOL_LINE) _Atomic uint32_t sleepers; /* workers asleep on gen */
  _Atomic uint32_t joiner_waiting; /* the owner is asleep on join_word */
  _Atomic uint32_t join_word;      /* bumped by a worker to wake it */

  /* Ownership (kc__pool_enter / leave), and what only the owner reads:
   * the CPU of the placement no worker is pinned to (the caller's, -1
   * when workers are not pinned) and the CPU the caller ran on last. */
  alignas(POOL_LINE) atomic_int busy;
  int free_cpu;
  int caller_cpu;

  /* Read only after kc__pool_create. */
  alignas(POOL_LINE) int n;
  int nworkers; /* workers actually started (n - 1 once created) */
  int pinned;
  uint64_t spin_ns;
  struct worker *w;    /* n - 1 of them; worker i is thread i + 1 */
  kc__placement where; /* its order is freed once the workers started */
};

/* ------------------------------------------------------------ primitives */

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield" ::: "memory");
#elif defined(__powerpc64__)
  __asm__ __volatile__("or 27,27,27" ::: "memory");
#else
  atomic_signal_fence(memory_order_seq_cst);
#endif
}

static uint64_t now_ns(void);

static void futex_wait(_Atomic uint32_t *word, uint32_t expected) {
  /* EAGAIN (the word already changed) and EINTR are both "look again". */
  syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL,
          0);
#ifdef KC_POOL_TEST_SLOW_WAKE_NS
  /* Test builds only (pool-convoy-test): the thread starts late, as one on
   * a halted virtual CPU of a busy host does. */
  const uint64_t until = now_ns() + KC_POOL_TEST_SLOW_WAKE_NS;
  while (now_ns() < until)
    cpu_relax();
#endif
}

static void futex_wake(_Atomic uint32_t *word, int count) {
  syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, count, NULL, NULL,
          0);
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A bounded spin.  The clock is read only every POOL_POLLS_PER_CLOCK polls,
 * and not at all if the wait ends within the first round, so the common
 * short wait costs no clock read. */
typedef struct spin {
  uint32_t polls;
  uint64_t deadline; /* 0 until the first clock read */
} spin;

/* Pauses once; returns 0 when the waiter should stop spinning and sleep. */
static inline int spin_again(spin *s, uint64_t budget_ns) {
  cpu_relax();
  if (++s->polls % POOL_POLLS_PER_CLOCK != 0)
    return 1;
  uint64_t t = now_ns();
  if (s->deadline == 0) {
    s->deadline = t + budget_ns;
    return budget_ns != 0;
  }
  return t < s->deadline;
}

/* A CPU set of the `count` CPUs of `cpus` (CPU_ALLOC'ed), or NULL. */
static cpu_set_t *cpu_set_of(const int *cpus, int count, size_t *bytes) {
  int top = 0;
  for (int i = 0; i < count; i++)
    if (cpus[i] > top)
      top = cpus[i];
  cpu_set_t *set = CPU_ALLOC((size_t)top + 1);
  if (set == NULL)
    return NULL;
  *bytes = CPU_ALLOC_SIZE((size_t)top + 1);
  CPU_ZERO_S(*bytes, set);
  for (int i = 0; i < count; i++)
    CPU_SET_S((size_t)cpus[i], *bytes, set);
  return set;
}

/* --------------------------------------------------------------- workers */

/* Waits until gen differs from `seen` and returns the new value. */
static uint32_t worker_wait(kc__pool *p, uint32_t seen) {
  spin s = {0, 0};
  uint32_t g;
  do {
    g = atomic_load_explicit(&p->gen, memory_order_acquire);
    if (g != seen)
      return g;
  } while (spin_again(&s, p->spin_ns));

  atomic_fetch_add_explicit(&p->sleepers, 1, memory_order_seq_cst);
  while ((g = atomic_load_explicit(&p->gen, memory_order_seq_cst)) == seen)
    futex_wait(&p->gen, seen);
  atomic_fetch_sub_explicit(&p->sleepers, 1, memory_order_relaxed);
  return g;
}

static void *worker_main(void *opaque) {
  struct worker *w = opaque;
  kc__pool *p = w->pool;
  const int tid = w->tid, n = p->n;
  uint32_t seen = 0; /* gen is 0 until the first fork */
  /* The whole thread is kernel code to kc: a kc call from a handler of a
   * signal sent to this thread alone (pthread_kill) is refused, where it
   * would wait for the launch that waits for this thread. */
  kc_backend_kernel_enter();

  for (;;) {
    seen = worker_wait(p, seen);
    kc_host_task task = p->task;
    void *arg = p->arg;
    if (task == NULL) {
      kc_backend_kernel_leave();
      return NULL;
    }
    task(tid, n, arg);
    /* seq_cst: releases what the task wrote, and orders this store before
     * the load of joiner_waiting (the join's half of the handshake). */
    atomic_store_explicit(&w->done, seen, memory_order_seq_cst);
    if (atomic_load_explicit(&p->joiner_waiting, memory_order_seq_cst)) {
      atomic_fetch_add_explicit(&p->join_word, 1, memory_order_seq_cst);
      futex_wake(&p->join_word, 1);
    }
  }
}

/* ----------------------------------------------------------------- owner */

/* Slow half of the join: the owner sleeps until workers [from, nworkers)
 * have finished generation g. */
static void join_sleep(kc__pool *p, uint32_t g, int from) {
  atomic_store_explicit(&p->joiner_waiting, 1, memory_order_seq_cst);
  int i = from;
  while (i < p->nworkers) {
    uint32_t word = atomic_load_explicit(&p->join_word, memory_order_seq_cst);
    while (i < p->nworkers &&
           atomic_load_explicit(&p->w[i].done, memory_order_seq_cst) == g)
      i++;
    if (i < p->nworkers)
      futex_wait(&p->join_word, word);
  }
  /* Ordered before the next fork's release of gen, so workers of the next
   * generation see 0; a late reader of the 1 only causes a spurious wake. */
  atomic_store_explicit(&p->joiner_waiting, 0, memory_order_relaxed);
}

/* Is the calling thread (the owner) on the CPU a worker from `from` on is
 * pinned to?  Only the owner writes the workers' `cpu`. */
static int on_a_worker_cpu(const kc__pool *p, int from) {
  const int cpu = sched_getcpu();
  for (int k = from; k < p->nworkers; k++)
    if (p->w[k].cpu == cpu)
      return 1;
  return 0;
}

/* The join after its spin: polls on for POOL_JOIN_POLL_NS while the
 * caller is not on the CPU of a worker it waits for, then sleeps.
 * Workers from `i` on have not finished generation g. */
static void join_slow(kc__pool *p, uint32_t g, int i) {
  if (p->spin_ns != 0) {
    const uint64_t deadline = now_ns() + POOL_JOIN_POLL_NS;
    for (uint32_t polls = 1;; polls++) {
      while (i < p->nworkers &&
             atomic_load_explicit(&p->w[i].done, memory_order_acquire) == g)
        i++;
      if (i == p->nworkers)
        return;
      cpu_relax();
      if (polls % POOL_POLLS_PER_CLOCK == 0 &&
          (now_ns() >= deadline || on_a_worker_cpu(p, i)))
        break;
    }
  }
  join_sleep(p, g, i);
}

static void join(kc__pool *p, uint32_t g) {
  spin s = {0, 0};
  for (int i = 0; i < p->nworkers; i++) {
    while (atomic_load_explicit(&p->w[i].done, memory_order_acquire) != g) {
      if (!spin_again(&s, p->spin_ns)) {
        join_slow(p, g, i);
        return;
      }
    }
  }
}

/* Pins worker w to `cpu` alone; 0 or an errno. */
static int repin(struct worker *w, int cpu) {
  size_t bytes;
  cpu_set_t *set = cpu_set_of(&cpu, 1, &bytes);
  if (set == NULL)
    return ENOMEM;
  int rc = pthread_setaffinity_np(w->thread, bytes, set);
  CPU_FREE(set);
  if (rc == 0)
    w->cpu = cpu;
  return rc;
}

/* The caller is the application's thread and is not pinned: the scheduler
 * may move it, after a sleep or beside other work (an OpenMP region of
 * the application), onto a CPU a worker is pinned to.  The two would then
 * share that CPU, one share of every launch running at half speed, while
 * the caller's own CPU idles, until the scheduler moves the caller back
 * (2 CPUs, a busy neighbour: 207 us a launch for seconds).  So the worker
 * moves instead, to the CPU no worker has.  One sched_getcpu() a fork (a
 * read of the rseq area with glibc 2.35+), a system call only on a move. */
static void follow_caller(kc__pool *p) {
  int cpu = sched_getcpu();
  if (cpu == p->caller_cpu)
    return;
  p->caller_cpu = cpu;
  if (cpu < 0 || cpu == p->free_cpu || p->free_cpu < 0)
    return;
  for (int i = 0; i < p->nworkers; i++) {
    if (p->w[i].cpu != cpu)
      continue;
    if (repin(&p->w[i], p->free_cpu) == 0)
      p->free_cpu = cpu;
    return;
  }
}

void kc__pool_parallel(void *ctx, kc_host_task task, void *arg) {
  kc__pool *p = ctx;
  if (p->nworkers == 0) {
    task(0, 1, arg);
    return;
  }
  follow_caller(p);
  /* Only the owner writes gen, so a relaxed read of it is current. */
  uint32_t g = atomic_load_explicit(&p->gen, memory_order_relaxed) + 1;
  /* Launches from one call site fork the same task with the same argument
   * (the engine's job sits at the same stack address): storing them again
   * would take the line from the spinning workers once more before the
   * store of gen does (two rounds of misses instead of one). */
  if (p->task != task)
    p->task = task;
  if (p->arg != arg)
    p->arg = arg;
  atomic_store_explicit(&p->gen, g, memory_order_seq_cst);
  if (atomic_load_explicit(&p->sleepers, memory_order_seq_cst) != 0)
    futex_wake(&p->gen, INT_MAX);
  task(0, p->n, arg);
  join(p, g);
}

int kc__pool_enter(kc__pool *p) {
  return atomic_exchange_explicit(&p->busy, 1, memory_order_acquire) == 0;
}

void kc__pool_leave(kc__pool *p) {
  atomic_store_explicit(&p->busy, 0, memory_order_release);
}

int kc__pool_size(const kc__pool *p) { return p->n; }

int kc__pool_pinned(const kc__pool *p) { return p->pinned; }

const kc__placement *kc__pool_placement(const kc__pool *p) { return &p->where; }

/* ------------------------------------------------------ create / destroy */

/* Ranks of an MPI job that share a node their launcher did not bind take
 * a slice of the placement each (kc_host_rank_share): their default pools
 * then add up to the node instead of each filling it, and their pinned
 * workers stay apart, KC_NUM_THREADS or not. */
static void rank_slice(kc__placement *w) {
  int first = 0, n = kc_host_rank_share(w->n, &first);
  if (n <= 0 || first < 0 || first + n > w->n)
    return;
  memmove(w->order, w->order + first, (size_t)n * sizeof *w->order);
  w->n = n;
}

/* Starts worker w with the affinity of the `count` CPUs of `cpus` (count 0:
 * the creating thread's, inherited).  Pinned (count 1) sets w->cpu.  A set
 * the kernel refuses (a cpuset that changed under us) falls back to the
 * inherited affinity. */
static int start_worker(struct worker *w, const int *cpus, int count) {
  pthread_attr_t attr;
  int rc = pthread_attr_init(&attr);
  if (rc != 0)
    return rc;
  w->cpu = count == 1 ? cpus[0] : -1;
  int set_affinity = 0;
  if (count > 0) {
    size_t bytes;
    cpu_set_t *set = cpu_set_of(cpus, count, &bytes);
    if (set != NULL)
      set_affinity = pthread_attr_setaffinity_np(&attr, bytes, set) == 0;
    CPU_FREE(set);
    if (!set_affinity)
      w->cpu = -1;
  }
  /* The worker inherits a mask where the application's signals never
   * land (backend.h, kc_backend_block_signals). */
  sigset_t old;
  const int masked = kc_backend_block_signals(&old) == 0;
  rc = pthread_create(&w->thread, &attr, worker_main, w);
  pthread_attr_destroy(&attr);
  if (rc == EINVAL && set_affinity) {
    w->cpu = -1;
    rc = pthread_create(&w->thread, NULL, worker_main, w);
  }
  if (masked)
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc == 0) {
    char name[16];
    snprintf(name, sizeof name, "kc-worker-%d", w->tid);
    pthread_setname_np(w->thread, name);
  }
  return rc;
}

/* Tells the started workers to exit and joins them. */
static void stop_workers(kc__pool *p) {
  if (p->nworkers == 0)
    return;
  uint32_t g = atomic_load_explicit(&p->gen, memory_order_relaxed) + 1;
  p->task = NULL;
  p->arg = NULL;
  atomic_store_explicit(&p->gen, g, memory_order_seq_cst);
  futex_wake(&p->gen, INT_MAX);
  for (int i = 0; i < p->nworkers; i++)
    pthread_join(p->w[i].thread, NULL);
  p->nworkers = 0;
}

/* Starts workers 1 .. n-1 on the placement's CPUs: worker k pinned to the
 * k-th when the pool fits, else (oversubscribed) each on all of them under
 * SPREAD or on the inherited mask under MASK.  Returns 0 or what
 * pthread_create said, the reason in err. */
static int start_workers(kc__pool *p, kc__pool_bind bind, int oversubscribed,
                         char *err, size_t errlen) {
  const kc__placement *pl = &p->where;
  for (int i = 0; i < p->n - 1; i++) {
    struct worker *wi = &p->w[i];
    memset(wi, 0, sizeof *wi);
    atomic_init(&wi->done, 0);
    wi->pool = p;
    wi->tid = i + 1;
    int rc = !oversubscribed ? start_worker(wi, &pl->order[i + 1], 1)
             : bind == KC__POOL_BIND_SPREAD ? start_worker(wi, pl->order, pl->n)
                                            : start_worker(wi, NULL, 0);
    if (rc != 0) {
      snprintf(err, errlen, "cannot start worker thread %d of %d: %s", i + 1,
               p->n, strerror(rc));
      return rc;
    }
    if (wi->cpu < 0)
      p->pinned = 0;
    p->nworkers = i + 1;
  }
  return 0;
}

int kc__pool_create(kc__pool **out, int nthreads, kc__pool_bind bind, char *err,
                    size_t errlen) {
  if (nthreads < 0) {
    snprintf(err, errlen, "thread count %d is negative", nthreads);
    return KC_EINVAL;
  }
  kc__placement where;
  int rc = kc__placement_find(bind, &where, err, errlen);
  if (rc != 0)
    return rc == -ENOMEM ? KC_ENOMEM : KC_EINTERNAL;
  rank_slice(&where);
  int n = nthreads > 0 ? nthreads : where.n;
  int oversubscribed = n > where.n;

  kc__pool *p = aligned_alloc(POOL_LINE, sizeof *p);
  struct worker *w = NULL;
  if (n > 1) {
    size_t bytes = (size_t)(n - 1) * sizeof *w;
    bytes = (bytes + POOL_LINE - 1) / POOL_LINE * POOL_LINE;
    w = aligned_alloc(POOL_LINE, bytes);
  }
  if (p == NULL || (n > 1 && w == NULL)) {
    free(p);
    free(w);
    kc__placement_free(&where);
    snprintf(err, errlen, "cannot allocate a pool of %d threads", n);
    return KC_ENOMEM;
  }
  memset(p, 0, sizeof *p);
  atomic_init(&p->gen, 0);
  atomic_init(&p->sleepers, 0);
  atomic_init(&p->joiner_waiting, 0);
  atomic_init(&p->join_word, 0);
  atomic_init(&p->busy, 0);
  p->n = n;
  p->w = w;
  p->spin_ns = oversubscribed ? POOL_SPIN_NS_OVERSUBSCRIBED : POOL_SPIN_NS;
  p->pinned = n > 1 && !oversubscribed;
  p->where = where;
  p->free_cpu = p->pinned ? where.order[0] : -1;
  p->caller_cpu = p->free_cpu;

  rc = start_workers(p, bind, oversubscribed, err, errlen);
  kc__placement_free(&p->where);
  if (!p->pinned)
    p->free_cpu = p->caller_cpu = -1;
  if (rc != 0) {
    stop_workers(p);
    free(w);
    free(p);
    return rc == EAGAIN || rc == ENOMEM ? KC_ENOMEM : KC_EINTERNAL;
  }
  *out = p;
  return 0;
}

void kc__pool_destroy(kc__pool *p) {
  if (p == NULL)
    return;
  stop_workers(p);
  free(p->w);
  free(p);
}
