/* libkc — the host execution engine every host backend shares.
 *
 * A host backend brings one primitive, a fork-join `parallel`; everything
 * else about running a launch on CPU threads lives here, once: how work is
 * split (static shares, round-robin chunks, or a dynamic counter), the
 * per-thread accumulators of reductions and their join, and the two-pass
 * scan.  The serial backend and the threads and OpenMP plugins therefore
 * give the same answers, bit for bit, for the same thread count.
 *
 * Work is counted in *units* and run by a unit function over [u0, u1):
 * for 1-D kinds a unit is an index, for MD kinds a tile (host-md.c), for
 * team kinds a league rank (host-team.c).  Each kind has a unit function
 * and a case in setup(); the splitting, accumulators and joins are shared.
 *
 * This is the per-launch path, benchmarked against hand-written OpenMP:
 * no malloc (accumulators fit in a stack buffer unless the values or the
 * thread count are large; then one cached buffer is reused), no locks
 * beyond those inside `parallel`, one call of the kernel per chunk.
 */
#include <config.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host-engine.h"

typedef kc__host_job job;

/* The job lives on the launching thread's stack, which that thread has
 * just written; every other thread of the launch takes each line of it it
 * reads as a cache miss from that thread's cache before running a unit.
 * So the fields a task reads come first, grouped by how often: line 0
 * holds all a 1-D for reads, line 1 a copy of a functor of up to 64 bytes
 * (then the kernel's reads of it need no third miss after the job's: the
 * two lines are fetched side by side), line 2 what reductions and scans
 * add; the set-up's fields follow, and what threads write lives on lines
 * of its own (tid 0's thread count, the dynamic counter), where no reader
 * of the first lines loses its copy to the write. */
struct kc__host_job {
  /* Line 0: read by every task. */
  _Alignas(64) unit_fn run;
  const void *functor;
  void (*host)(void);
  kc_index base;         /* index of unit 0 */
  kc_index nunits;       /* units of the launch */
  kc_index chunk;        /* units per chunk, or KC_AUTO */
  int capacity;          /* threads with a slot (kc_host_exec.nthreads) */
  unsigned char dynamic; /* chunks from the shared counter */
  unsigned char reduces; /* has per-thread accumulators */
  unsigned char scan;    /* contiguous shares, two passes */
  unsigned char ordered; /* a reduction with chunks: see task_body */
  unsigned char final;   /* scan: the pass that stores */
  unsigned char teamed;  /* TEAM kinds: per-thread handles in `teams` */
  /* Line 1: the functor, when it fits (`functor` then points here). */
  _Alignas(64) unsigned char fcopy[64];
  /* Line 2: accumulators, one 64-byte aligned slot per thread (stride a
   * multiple of 64, so no two threads share a cache line). */
  _Alignas(64) unsigned char *slots;
  size_t stride;
  void (*identity)(void *);
  kc_index ochunk;  /* ordered: units per chunk (never KC_AUTO) */
  kc_index ngroups; /* ordered dynamic: groups of chunks (slots) */
  int nshares;      /* scan pass 2: the shares pass 1 used */
  /* Read by some kinds' units only, or by the launching thread. */
  const kc_launch *l;
  kc_kernel *rec;       /* the core's record (CALL kernels) */
  kc__host_md md;       /* MD kinds: the tiling */
  kc__host_teams teams; /* TEAM kinds: per-thread handles and scratch */
  /* Written by tasks. */
  _Alignas(64) int nthreads; /* as `parallel` gave them (written by tid 0) */
  atomic_int overflow;       /* a task had a tid or count out of range */
  /* Dynamic schedule's counter of chunks handed out, on its own cache
   * line.  It counts chunks, not indices, so the overshoot at the end (one
   * per thread) cannot overflow whatever the range and chunk. */
  _Alignas(64) _Atomic kc_index next;
  char pad[64 - sizeof(kc_index)];
};
_Static_assert(offsetof(struct kc__host_job, fcopy) == 64 &&
                   offsetof(struct kc__host_job, slots) == 128,
               "a 1-D for's fields fill the job's first cache line");
_Static_assert(offsetof(struct kc__host_job, md) >
                   offsetof(struct kc__host_job, slots),
               "kc_host_launch zeroes the job from slots up to md");

/* ------------------------------------------------------- unit functions */

static void run_for(const job *j, int tid, kc_index u0, kc_index u1,
                    void *acc) {
  (void)tid;
  (void)acc;
  ((kc_host_for_fn)j->host)(j->functor, j->base + u0, j->base + u1);
}

static void run_reduce(const job *j, int tid, kc_index u0, kc_index u1,
                       void *acc) {
  (void)tid;
  ((kc_host_reduce_fn)j->host)(j->functor, j->base + u0, j->base + u1, acc);
}

static void run_scan(const job *j, int tid, kc_index u0, kc_index u1,
                     void *acc) {
  (void)tid;
  ((kc_host_scan_fn)j->host)(j->functor, j->base + u0, j->base + u1, acc,
                             j->final);
}

static void run_call(const job *j, int tid, kc_index u0, kc_index u1,
                     void *acc) {
  (void)tid;
  (void)acc;
  kc__ffi_call(j->rec, j->base + u0, j->base + u1, j->l->nargs, j->l->args);
}

/* What the MD and team unit functions (host-md.c, host-team.c) need of a
 * job; the job's layout stays private to this file. */
const kc__host_md *kc__host_job_md(const kc__host_job *j) { return &j->md; }
const kc__host_teams *kc__host_job_teams(const kc__host_job *j) {
  return &j->teams;
}
const void *kc__host_job_functor(const kc__host_job *j) { return j->functor; }
void (*kc__host_job_fn(const kc__host_job *j))(void) { return j->host; }

/* ----------------------------------------------------------- splitting */

/* Share s of nsh contiguous, near-equal shares of n units. */
static inline void share(kc_index n, int s, int nsh, kc_index *lo,
                         kc_index *hi) {
  kc_index q = n / nsh, r = n % nsh;
  *lo = s * q + (s < r ? s : r);
  *hi = *lo + q + (s < r);
}

/* [lo, hi) in calls of at most `chunk` units (one call for KC_AUTO). */
static inline void run_range(const job *j, int tid, kc_index lo, kc_index hi,
                             void *acc) {
  if (j->chunk == KC_AUTO) {
    if (lo < hi)
      j->run(j, tid, lo, hi, acc);
    return;
  }
  kc_index c = j->chunk;
  for (kc_index u = lo; u < hi; u += c) {
    if (hi - u <= c) {
      j->run(j, tid, u, hi, acc);
      break;
    }
    j->run(j, tid, u, u + c, acc);
  }
}

/* Units [lo, hi) of a chunk-aligned run, in calls of at most c units. */
static inline void run_chunks(const job *j, int tid, kc_index lo, kc_index hi,
                              kc_index c, void *acc) {
  for (kc_index u = lo; u < hi;) {
    kc_index e = hi - u > c ? u + c : hi;
    j->run(j, tid, u, e, acc);
    u = e;
  }
}

/* First unit of chunk ci of c units (nchunks in all, n units): the chunks
 * past the last end at n, so that ci * c is computed only below n. */
static inline kc_index chunk_start(kc_index ci, kc_index c, kc_index nchunks,
                                   kc_index n) {
  return ci >= nchunks ? n : ci * c;
}

/* The chunk size of a dynamic schedule (KC_AUTO: about 8 chunks for each
 * of nt threads). */
static inline kc_index dynamic_chunk(const job *j, kc_index n, int nt) {
  kc_index c = j->chunk != KC_AUTO ? j->chunk : n / (8 * (kc_index)nt);
  return c < 1 ? 1 : c;
}

/* An accumulator starts as zero bytes, then the identity: values with
 * padding (kc_loc_int32) then come out byte-identical from run to run and
 * from backend to backend, not just equal field by field. */
static inline void slot_init(const job *j, void *acc) {
  memset(acc, 0, j->stride);
  j->identity(acc);
}

static void task_body(int tid, int nt, void *arg);

/* Kernel code runs with the thread marked: a kernel that calls back into
 * kc would wait for the runtime lock its own launch holds (on the caller's
 * thread) or for a caller that waits for it (on a worker); the core
 * refuses such calls instead (internal.h, "Re-entry").  A task the
 * backend's parallel() gave a thread number or count the contract excludes
 * (0 <= tid < nt <= kc_host_exec.nthreads) runs nothing: its shares and
 * slots would lie outside the launch's range and the accumulators (a
 * plugin's bug, reported as KC_EINTERNAL).  So task_body may index slots
 * by tid (and a scan's shares, fewer than nt, by share). */
static void task(int tid, int nt, void *arg) {
  job *j = arg;
  if (tid < 0 || tid >= nt || nt > j->capacity) {
    atomic_store_explicit(&j->overflow, 1, memory_order_relaxed);
    return;
  }
  kc__thread *self = kc__self_ref();
  self->kernel++;
  task_body(tid, nt, arg);
  self->kernel--;
}

static void task_body(int tid, int nt, void *arg) {
  job *j = arg;
  if (tid == 0)
    j->nthreads = nt;
  kc_index n = j->nunits;

  if (j->scan) {
    /* Pass 1 makes one share per thread; pass 2 reruns exactly those
     * shares, even if `parallel` now gives a different thread count. */
    int nsh = j->final ? j->nshares : nt;
    for (int s = tid; s < nsh; s += nt) {
      void *acc = j->slots + (size_t)s * j->stride;
      if (!j->final)
        slot_init(j, acc);
      kc_index lo, hi;
      share(n, s, nsh, &lo, &hi);
      run_range(j, tid, lo, hi, acc);
    }
    return;
  }

  if (j->ordered) {
    /* A reduction with chunks joins its partial values in index order
     * (a custom join need only be associative): every accumulator covers
     * one contiguous, chunk-aligned run of units, and the launch joins the
     * slots in slot order.  Static: one run of whole chunks per thread
     * (slot tid).  Dynamic: the chunks form ngroups contiguous groups,
     * handed out on demand, one slot per group. */
    kc_index c = j->ochunk;
    kc_index nchunks = n / c + (n % c != 0);
    if (!j->dynamic) {
      void *acc = j->slots + (size_t)tid * j->stride;
      slot_init(j, acc);
      kc_index c0, c1;
      share(nchunks, tid, nt, &c0, &c1);
      run_chunks(j, tid, chunk_start(c0, c, nchunks, n),
                 chunk_start(c1, c, nchunks, n), c, acc);
      return;
    }
    for (;;) {
      kc_index g = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
      if (g >= j->ngroups)
        break;
      void *acc = j->slots + (size_t)g * j->stride;
      slot_init(j, acc);
      kc_index c0, c1;
      share(nchunks, (int)g, (int)j->ngroups, &c0, &c1);
      run_chunks(j, tid, chunk_start(c0, c, nchunks, n),
                 chunk_start(c1, c, nchunks, n), c, acc);
    }
    return;
  }

  void *acc = NULL;
  if (j->reduces) { /* line 0: a for's task reads no more of the job */
    acc = j->slots + (size_t)tid * j->stride;
    slot_init(j, acc);
  }
  if (j->dynamic) {
    kc_index c = dynamic_chunk(j, n, nt);
    kc_index nchunks = n / c + (n % c != 0);
    for (;;) {
      kc_index ci =
          atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
      if (ci >= nchunks)
        break;
      kc_index u = ci * c;
      j->run(j, tid, u, n - u > c ? u + c : n, acc);
    }
  } else if (j->chunk == KC_AUTO) {
    kc_index lo, hi;
    share(n, tid, nt, &lo, &hi);
    if (lo < hi)
      j->run(j, tid, lo, hi, acc);
  } else {
    /* Round-robin chunks, as OpenMP's schedule(static, chunk). */
    kc_index c = j->chunk;
    kc_index nchunks = n / c + (n % c != 0);
    for (kc_index ci = tid; ci < nchunks; ci += nt) {
      kc_index u = ci * c;
      j->run(j, tid, u, n - u > c ? u + c : n, acc);
      if (nchunks - ci <= nt)
        break;
    }
  }
}

/* ------------------------------------------------------- accumulators */

/* Enough for 130 slots of 64 bytes: two spare slots plus 128 threads. */
#define LOCAL_BYTES (130 * 64)

/* An ordered dynamic reduction: at most this many groups of chunks a
 * thread, and this many bytes of their slots (at least one per thread). */
#define ORDERED_GROUPS 16
#define ORDERED_BYTES ((size_t)1 << 20)

/* The buffer larger launches reuse: taken with a flag, so that a second
 * launch running at the same time (from another backend instance) gets a
 * fresh allocation instead of sharing it. */
static unsigned char *cache;
static size_t cache_size;
static atomic_flag cache_busy = ATOMIC_FLAG_INIT;

static unsigned char *slots_get(size_t bytes, int *from_cache) {
  *from_cache = 0;
  if (!atomic_flag_test_and_set_explicit(&cache_busy, memory_order_acquire)) {
    if (cache_size < bytes) {
      free(cache);
      cache = aligned_alloc(64, bytes);
      cache_size = cache ? bytes : 0;
    }
    if (cache) {
      *from_cache = 1;
      return cache;
    }
    atomic_flag_clear_explicit(&cache_busy, memory_order_release);
  }
  return aligned_alloc(64, bytes);
}

static void slots_put(unsigned char *p, int from_cache) {
  if (from_cache)
    atomic_flag_clear_explicit(&cache_busy, memory_order_release);
  else
    free(p);
}

void kc__host_cleanup(void) {
  if (!atomic_flag_test_and_set_explicit(&cache_busy, memory_order_acquire)) {
    free(cache);
    cache = NULL;
    cache_size = 0;
    atomic_flag_clear_explicit(&cache_busy, memory_order_release);
  }
  kc__host_teams_cleanup();
}

/* ------------------------------------------------------------- launch */

/* The job a thread's launches publish to their tasks.  Each task reads the
 * job's first lines (and a 1-D for nothing else of it), so after a launch
 * every thread of it holds them shared; a job written again at the same
 * address takes them from all of those caches (the writer waits for the
 * invalidations before it forks, and every task misses on them again)
 * even when the bytes are the same, as they are for launches from a time
 * loop.  So the launch is built in a private job on the stack and copied
 * into this one line by line, only where the bytes differ.  Team kinds,
 * whose job holds pointers into itself, and a launch nested in another on
 * its thread (a plugin's parallel() that launches) run on the stack job.
 * Aligned to a pair of lines (Intel's adjacent-line prefetcher fetches
 * pairs): the thread-local words next to it, kc__self among them, are
 * written at every launch, and a task's miss on the job's first line must
 * not bring them into its cache, where the next write would have to take
 * them back. */
static _Thread_local struct {
  _Alignas(128) job j;
  int busy;
} published;

/* The job the tasks will read: `j` copied into the thread's published job
 * where it differs, or `j` itself. */
static job *publish(job *j, const kc_launch *l) {
  const int small = j->functor == j->fcopy; /* the copy is made here */
  if (j->run == kc__host_team_unit || published.busy) {
    if (small)
      memcpy(j->fcopy, l->functor, l->functor_size);
    return j;
  }
  job *p = &published.j;
  published.busy = 1;
  if (small) {
    j->functor = p->fcopy;
    if (memcmp(p->fcopy, l->functor, l->functor_size) != 0)
      memcpy(p->fcopy, l->functor, l->functor_size);
  }
  /* Lines 0 and 2 are wholly set (kc_host_launch zeroes them first). */
  _Static_assert(offsetof(job, slots) + 64 == offsetof(job, md),
                 "a job's third line ends where its MD part starts");
  if (memcmp(p, j, 64) != 0)
    memcpy(p, j, 64);
  if (memcmp(&p->slots, &j->slots, 64) != 0)
    memcpy(&p->slots, &j->slots, 64);
  if (j->run == kc__host_md_unit && memcmp(&p->md, &j->md, sizeof j->md) != 0)
    p->md = j->md;
  p->nthreads = 0;
  if (atomic_load_explicit(&p->overflow, memory_order_relaxed))
    atomic_store_explicit(&p->overflow, 0, memory_order_relaxed);
  if (atomic_load_explicit(&p->next, memory_order_relaxed))
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
  return p;
}

static void unpublish(const job *jp) {
  if (jp == &published.j)
    published.busy = 0;
}

static const char *backend_label(void) {
  return kc__rt.name ? kc__rt.name : "host";
}

/* Fills the kind-specific part of the job: its unit function, and whether
 * it reduces (accumulators) or scans.  The job arrives set up for a 1-D
 * range (units = indices from policy.begin[0], the policy's chunk and
 * schedule); another kind overrides nunits/base/chunk here. */
static int setup(job *j, const kc_launch *l, const kc_host_exec *x) {
  const kc_kernel_info *k = l->kernel;
  int rc;
  switch (k->kind) {
  case KC_KERNEL_FOR:
    j->run = run_for;
    break;
  case KC_KERNEL_REDUCE:
    j->run = run_reduce;
    j->reduces = 1;
    break;
  case KC_KERNEL_SCAN:
    j->run = run_scan;
    j->reduces = 1;
    j->scan = 1;
    break;
  case KC_KERNEL_CALL:
    j->run = run_call;
    if (!(j->rec = kc__kernel_of(k)))
      return kc__error(KC_EINTERNAL,
                       "kernel '%s': the launch's kernel_info is not the "
                       "core's (a plugin must pass kc_launch.kernel as "
                       "given)",
                       k->name);
    return kc__ffi_prepare(j->rec);
  case KC_KERNEL_MDFOR:
  case KC_KERNEL_MDREDUCE:
    j->reduces = k->kind == KC_KERNEL_MDREDUCE;
    j->run = kc__host_md_unit;
    memset(&j->md, 0, sizeof j->md);
    return kc__host_md_setup(l, &j->md, &j->base, &j->nunits);
  case KC_KERNEL_TEAM:
  case KC_KERNEL_TEAM_REDUCE:
    j->reduces = k->kind == KC_KERNEL_TEAM_REDUCE;
    j->run = kc__host_team_unit;
    j->base = 0;
    j->nunits = l->policy.league_size;
    memset(&j->teams, 0, sizeof j->teams);
    rc = kc__host_teams_setup(l, x, j->capacity, &j->teams);
    j->teamed = j->teams.slots != NULL;
    return rc;
  default:
    return kc__error(KC_EINVAL, "kernel '%s': %d is not a kernel kind", k->name,
                     (int)k->kind);
  }
  return 0;
}

/* Whether the parallel() call that just returned broke its contract: a
 * task out of range (task()), or no task 0 (which sets nthreads). */
static int parallel_broken(const job *jp) {
  return atomic_load_explicit(&jp->overflow, memory_order_relaxed) ||
         jp->nthreads == 0;
}

static int bad_parallel(int nthreads) {
  return kc__error(KC_EINTERNAL,
                   "kc_host_launch: the backend's parallel() broke its "
                   "contract: a task's (tid, nthreads) outside 0 <= tid < "
                   "nthreads <= kc_host_exec.nthreads (%d), or no task 0; "
                   "the launch's results are not valid",
                   nthreads);
}

int kc_host_launch(const kc_host_exec *x, const kc_launch *l) {
  if (!x || !x->parallel || x->nthreads < 1 || !l || !l->kernel)
    return kc__error(KC_EINVAL, "kc_host_launch: bad executor or launch");
  const kc_kernel_info *k = l->kernel;
  if (!k->host)
    return kc__error(KC_ENOKERNEL,
                     "kernel '%s' has no host code (it was registered with "
                     "PTX only), so the %s backend cannot run it: build it "
                     "with kcc, or register a host function too",
                     k->name, backend_label());

  /* Zeroed where every kind reads it: the first line, the third and what
   * tasks write; the functor's copy is made by publish(), the MD and team
   * parts by their kinds' set-up (setup()).  Clearing all of it took
   * about 85 instructions a launch. */
  job j;
  memset(&j, 0, offsetof(job, fcopy));
  memset(&j.slots, 0, offsetof(job, md) - offsetof(job, slots));
  j.nthreads = 0;
  atomic_init(&j.overflow, 0);
  atomic_init(&j.next, 0);
  j.teams.slots = NULL;
  j.teams.size = 0;
  j.l = l;
  j.functor = l->functor;
  if (l->functor_size > 0 && l->functor_size <= sizeof j.fcopy)
    j.functor = j.fcopy; /* copied by publish() */
  j.host = k->host;
  j.base = l->policy.begin[0];
  j.nunits = l->policy.end[0] - l->policy.begin[0];
  j.chunk = l->policy.chunk;
  j.dynamic = l->policy.schedule == KC_SCHEDULE_DYNAMIC;
  j.capacity = x->nthreads;
  int rc = setup(&j, l, x);
  if (rc < 0)
    return rc;
  /* Teams of several threads: the engine splits the league over the teams
   * and runs each team's first thread (host-team.c brings the others). */
  const int backend_threads = x->nthreads; /* for a message */
  if (j.teams.size > 1)
    x = &j.teams.exec;

  if (!j.reduces) {
    int over = 0;
    if (j.nunits > 0) {
      job *jp = publish(&j, l);
      x->parallel(x->ctx, task, jp);
      over = parallel_broken(jp);
      unpublish(jp);
    }
    kc__host_teams_release(&j.teams);
    if (over)
      return bad_parallel(backend_threads);
    goto done;
  }

  /* Accumulators: one slot per thread (per group for an ordered dynamic
   * reduction), then a running and a spare slot. */
  size_t vsize = k->value_size;
  if (vsize == 0 || vsize > KC_REDUCER_SIZE_MAX) {
    kc__host_teams_release(&j.teams);
    return kc__error(KC_EINVAL,
                     "kernel '%s': a reducer value of %zu bytes; the host "
                     "engine takes 1 to %d (KC_REDUCER_SIZE_MAX)",
                     k->name, vsize, KC_REDUCER_SIZE_MAX);
  }
  j.identity = k->reducer.identity;
  j.stride = (vsize + 63) & ~(size_t)63;
  size_t nslots = (size_t)j.capacity;
  if (!j.scan && (j.dynamic || j.chunk != KC_AUTO) && j.nunits > 0) {
    j.ordered = 1;
    kc_index c = j.dynamic ? dynamic_chunk(&j, j.nunits, j.capacity) : j.chunk;
    kc_index nchunks = j.nunits / c + (j.nunits % c != 0);
    j.ochunk = c;
    if (j.dynamic) {
      /* Enough groups for the dynamic balance (ORDERED_GROUPS a thread),
       * within ORDERED_BYTES of slots unless values are large. */
      kc_index most = (kc_index)ORDERED_GROUPS * j.capacity;
      kc_index fit = (kc_index)(ORDERED_BYTES / j.stride);
      if (most > fit)
        most = fit > j.capacity ? fit : j.capacity;
      j.ngroups = nchunks < most ? nchunks : most;
      nslots = (size_t)j.ngroups;
    }
  }
  size_t bytes = (nslots + 2) * j.stride;
  _Alignas(64) unsigned char local[LOCAL_BYTES];
  int from_cache = 0;
  j.slots = bytes <= sizeof local ? local : slots_get(bytes, &from_cache);
  if (!j.slots) {
    kc__host_teams_release(&j.teams);
    return kc__error(KC_ENOMEM,
                     "kernel '%s': cannot allocate %zu bytes of per-thread "
                     "accumulators",
                     k->name, bytes);
  }
  unsigned char *run = j.slots + nslots * j.stride;
  unsigned char *tmp = run + j.stride;
  void (*join)(void *, const void *) = k->reducer.join;

  memset(run, 0, 2 * j.stride);
  job *jp = &j;
  if (j.nunits == 0) {
    j.identity(run);
  } else if (!j.scan) {
    jp = publish(&j, l);
    x->parallel(x->ctx, task, jp);
    if (parallel_broken(jp))
      goto overflow;
    /* Slot order is index order: the same answer for the same thread
     * count, and a join that is not commutative is respected. */
    kc_index used = j.ordered && j.dynamic ? j.ngroups : jp->nthreads;
    j.identity(run);
    for (kc_index t = 0; t < used; t++)
      join(run, j.slots + (size_t)t * j.stride);
  } else {
    jp = publish(&j, l);
    x->parallel(x->ctx, task, jp); /* pass 1: share totals */
    if (parallel_broken(jp))
      goto overflow;
    /* Exclusive prefix over the shares' totals, in place. */
    jp->nshares = jp->nthreads;
    j.identity(run);
    for (int s = 0; s < jp->nshares; s++) {
      unsigned char *slot = j.slots + (size_t)s * j.stride;
      memcpy(tmp, slot, vsize);
      memcpy(slot, run, vsize);
      join(run, tmp);
    }
    jp->final = 1;
    jp->nthreads = 0;
    x->parallel(x->ctx, task, jp); /* pass 2: store with the prefix */
    if (parallel_broken(jp))
      goto overflow;
  }
  unpublish(jp);
  /* Host backends finish the launch here, so even a result in a kc
   * allocation (result_async) is complete on return. */
  if (l->result)
    memcpy(l->result, run, vsize);
  if (j.slots != local)
    slots_put(j.slots, from_cache);
  kc__host_teams_release(&j.teams);
done:
  return 0;

overflow:
  unpublish(jp);
  if (j.slots != local)
    slots_put(j.slots, from_cache);
  kc__host_teams_release(&j.teams);
  return bad_parallel(backend_threads);
}
