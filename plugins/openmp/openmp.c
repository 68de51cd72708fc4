/* kc OpenMP backend — libkc-openmp.so.
 *
 * The same semantics as the threads backend, on the OpenMP runtime the
 * compiler ships (libgomp with gcc, libomp with clang): the fork-join
 * primitive is one `#pragma omp parallel`, everything else is the core's
 * kc_host_launch().  Only this plugin links the OpenMP runtime, so a
 * program that never selects it never loads one.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <kc/backend.h>

struct team_arrival;

typedef struct openmp_state {
  int nthreads;    /* the team size kc_host_launch is told */
  atomic_int busy; /* 1 while a launch owns the team */
  int scan_region; /* scans run in one region (see launch_in_region) */
  struct team_arrival *arrived; /* its words, nthreads of them (busy) */
  uint64_t gen; /* the last generation a region published (busy) */
} openmp_state;

/* What the region of omp_fork_join runs, at a fixed address: the region
 * captures nothing, so the compiler passes the runtime no data block of
 * the launching thread's (written at every fork, then a miss in every
 * thread of the team before it reached the job).  Only the thread that
 * owns the team (openmp_state.busy) writes it, and only the fields that
 * changed: launches from one thread repeat the task and the job's address
 * (kc_host_launch publishes its jobs in a place of the thread's), so the
 * line stays in the team's caches from one launch to the next.  One line
 * for the process: there is one openmp_state (the runtime's one backend),
 * and its launches into the team are one at a time. */
static struct {
  _Alignas(128) kc_host_task task;
  void *arg;
  int n;
} fork_line;

/* kc_host_launch() expects task(tid, n) once for every tid < n.  The
 * runtime may give a smaller team than asked (OMP_THREAD_LIMIT, OMP_DYNAMIC
 * set by the application on its thread, resource limits); then each thread
 * of the team also runs the tids the missing threads would have run, so
 * the split of the work never depends on what the runtime granted. */
static void omp_fork_join(void *ctx, kc_host_task task, void *arg) {
  const int n = *(const int *)ctx;
  if (fork_line.task != task)
    fork_line.task = task;
  if (fork_line.arg != arg)
    fork_line.arg = arg;
  if (fork_line.n != n)
    fork_line.n = n;
#pragma omp parallel num_threads(n)
  {
    const kc_host_task t = fork_line.task;
    void *const a = fork_line.arg;
    const int all = fork_line.n, team = omp_get_num_threads();
    for (int tid = omp_get_thread_num(); tid < all; tid += team)
      t(tid, all, a);
  }
}

/* A scan is two parallel() calls with the caller's prefix in between; as
 * two `omp parallel` regions it cost two forks and two joins of the
 * runtime's team (2 threads: 1.6 us against 1.0 us for the hand-written
 * scan, one region with one barrier).  A scan therefore opens one region
 * for the whole launch: the master runs kc_host_launch() inside it, and
 * each parallel() call hands its task to the team, waiting on a generation
 * word (the task and argument share its cache line), and takes the team's
 * arrivals from a word per thread, each on a line of its own (the master
 * reads them all at once; a shared counter took the threads' increments
 * one after another).  The waits are short (one task,
 * or the caller's prefix over nthreads values), so they spin, yielding
 * after a while.  `omp barrier`s in place of the word and counter cost
 * more than the second region saved.  With more threads than CPUs the
 * spinning starves the threads that have work (8 threads on 2 CPUs: 310 us
 * a scan against 142 us with two regions), and OMP_WAIT_POLICY=passive
 * asks for no spinning: then scans keep two regions. */
typedef struct team_arrival {
  _Alignas(64) _Atomic uint64_t done; /* the last generation this thread ran */
} team_arrival;

/* Generations count on from launch to launch (openmp_state.gen), so the
 * arrival words, which hold the last one each thread ran, need no reset
 * (a store to every thread's line) before a region; 64 bits never wrap. */
typedef struct team_call {
  _Alignas(64) _Atomic uint64_t gen; /* bumped for each call, and at the end */
  kc_host_task task;                 /* NULL: the launch is over */
  void *arg;
  int n;
  uint64_t last;         /* the team leaves once it ran this generation */
  team_arrival *arrived; /* one per thread of the region */
} team_call;

static void spin_pause(unsigned *k) {
  if (++*k < 1000) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  } else {
    sched_yield();
  }
}

static void team_run(const team_call *c) {
  const int team = omp_get_num_threads();
  for (int tid = omp_get_thread_num(); tid < c->n; tid += team)
    c->task(tid, c->n, c->arg);
}

/* kc_host_exec.parallel inside the region: called by the master only. */
static void team_parallel(void *ctx, kc_host_task task, void *arg) {
  team_call *c = ctx;
  if (atomic_load_explicit(&c->gen, memory_order_relaxed) >= c->last) {
    /* More calls than a scan makes: the team has left, so the master runs
     * every task itself (correct, and never taken while kc_host_launch
     * makes a scan's two calls). */
    for (int tid = 0; tid < c->n; tid++)
      task(tid, c->n, arg);
    return;
  }
  c->task = task;
  c->arg = arg;
  const uint64_t g =
      atomic_fetch_add_explicit(&c->gen, 1, memory_order_release) + 1;
  team_run(c);
  const int team = omp_get_num_threads();
  for (int t = 1; t < team; t++) {
    unsigned k = 0;
    while (atomic_load_explicit(&c->arrived[t].done, memory_order_acquire) != g)
      spin_pause(&k);
  }
}

/* A worker runs each call the master publishes, and leaves after the
 * last one a scan makes (team_call.last) or at the end of the launch
 * (task NULL, for a launch that stopped after its first call).  Leaving
 * without waiting for the end's generation sends the worker on to the
 * region's closing barrier while the master still collects the arrivals:
 * a broadcast less a scan. */
static void team_serve(team_call *c, uint64_t seen) {
  for (;;) {
    uint64_t g;
    unsigned k = 0;
    while ((g = atomic_load_explicit(&c->gen, memory_order_acquire)) == seen)
      spin_pause(&k);
    seen = g;
    if (!c->task)
      return;
    team_run(c);
    atomic_store_explicit(&c->arrived[omp_get_thread_num()].done, g,
                          memory_order_release);
    if (g == c->last)
      return;
  }
}

/* A launch in one region, on the state's arrival words (the caller owns
 * the team: st->busy). */
static int launch_in_region(openmp_state *st, const kc_launch *l) {
  const int n = st->nthreads;
  const uint64_t g0 = st->gen;
  /* kc_host_launch makes two parallel() calls for a scan of at least one
   * index: its passes, the caller's prefix in between. */
  team_call c = {.n = n, .arrived = st->arrived, .last = g0 + 2};
  atomic_init(&c.gen, g0);
  int rc = 0;
#pragma omp parallel num_threads(n)
  {
    if (omp_get_thread_num() == 0) {
      const kc_host_exec x = {team_parallel, &c, n};
      rc = kc_host_launch(&x, l);
      if (atomic_load_explicit(&c.gen, memory_order_relaxed) < c.last) {
        c.task = NULL;
        atomic_fetch_add_explicit(&c.gen, 1, memory_order_release);
      }
    } else {
      team_serve(&c, g0);
    }
  }
  st->gen = atomic_load_explicit(&c.gen, memory_order_relaxed);
  return rc;
}

static void run_inline(void *ctx, kc_host_task task, void *arg) {
  (void)ctx;
  task(0, 1, arg);
}

/* GNU libgomp cannot run a parallel region in a fork()ed child of a
 * process whose runtime had started its threads: the child waits for
 * threads that were not copied.  Once this plugin has started them, a
 * child knows it and refuses the backend instead of hanging. */
static atomic_int started, forked_after_start;

static void openmp_atfork_child(void) {
  if (atomic_load_explicit(&started, memory_order_relaxed))
    atomic_store_explicit(&forked_after_start, 1, memory_order_relaxed);
}

static void openmp_atfork_register(void) {
  pthread_atfork(NULL, NULL, openmp_atfork_child);
}

/* OMP_NUM_THREADS holds a count the OpenMP runtime takes: digits, commas
 * (a list per nesting level) and blanks, a digit among them.  Empty or
 * anything else the runtime ignores ("Invalid value"), so the user chose
 * nothing. */
static int omp_num_threads_set(void) {
  const char *v = getenv("OMP_NUM_THREADS");
  int digit = 0;
  for (; v && *v; v++) {
    if (*v >= '0' && *v <= '9')
      digit = 1;
    else if (*v != ',' && *v != ' ' && *v != '\t')
      return 0;
  }
  return digit;
}

/* The runtime's default (OMP_NUM_THREADS, else the CPUs of the affinity
 * mask), but an unbound MPI rank sharing its node takes its share of it
 * (kc_host_rank_share); OMP_NUM_THREADS set means the user chose. */
static int default_threads(void) {
  int n = omp_get_max_threads(), first;
  if (omp_num_threads_set())
    return n;
  int share = kc_host_rank_share(n, &first);
  return share < n ? share : n;
}

static int openmp_probe(int *ndevices) {
  *ndevices = 0;
  if (atomic_load_explicit(&forked_after_start, memory_order_relaxed))
    return kc_backend_error(KC_ENODEV,
                            "openmp backend: this process is a fork()ed "
                            "child of one whose OpenMP runtime had started "
                            "its threads, and the runtime cannot start a "
                            "parallel region here");
  *ndevices = 1;
  return 0;
}

/* The most threads this plugin asks the runtime for.  libgomp ends the
 * process (exit 1, "Thread creation failed") when it cannot start a thread
 * of a team, and sets a team up on the launching thread's stack (100000
 * threads overflowed an 8 MB stack), so a count far past what the machine
 * runs is refused here instead. */
#define OPENMP_MAX_THREADS 4096

static void *preflight_thread(void *arg) {
  pthread_mutex_lock(arg);
  pthread_mutex_unlock(arg);
  return NULL;
}

/* Can this process run n - 1 more threads at
 * once (a process or cgroup limit on threads, memory for their stacks)?
 * Each is started and blocks on a mutex the caller holds until all are
 * started (or one could not be), then all are joined.  0, or the errno of
 * the first that could not start. */
static int preflight(int n) {
  pthread_t *t = malloc(sizeof *t * (size_t)n);
  if (!t)
    return ENOMEM;
  pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&hold);
  int started = 0, rc = 0;
  for (; started < n - 1; started++)
    if ((rc = pthread_create(&t[started], NULL, preflight_thread, &hold)) != 0)
      break;
  pthread_mutex_unlock(&hold);
  for (int i = 0; i < started; i++)
    pthread_join(t[i], NULL);
  pthread_mutex_destroy(&hold);
  free(t);
  return rc;
}

static int openmp_init(void *state, const kc_backend_config *cfg) {
  openmp_state *st = state;
  if (cfg->num_threads < 0)
    return kc_backend_error(KC_EINVAL,
                            "openmp backend: thread count %d is "
                            "negative",
                            cfg->num_threads);
  if (cfg->num_threads > OPENMP_MAX_THREADS)
    return kc_backend_error(KC_EINVAL,
                            "openmp backend: %d threads is more than the "
                            "%d it takes (the OpenMP runtime ends the "
                            "process when it cannot start a thread)",
                            cfg->num_threads, OPENMP_MAX_THREADS);
  /* Without this the runtime may hand out fewer threads than asked for. */
  omp_set_dynamic(0);
  st->nthreads = cfg->num_threads > 0 ? cfg->num_threads : default_threads();
  if (st->nthreads < 1)
    st->nthreads = 1;
  /* The runtime's own count (OMP_NUM_THREADS=20000) is held to the same
   * limit: it started the region with it and died of its stack. */
  if (st->nthreads > OPENMP_MAX_THREADS)
    return kc_backend_error(
        KC_EINVAL,
        "openmp backend: the OpenMP runtime's default of "
        "%d threads (OMP_NUM_THREADS=%s) is more than the "
        "%d it takes; set KC_NUM_THREADS or "
        "OMP_NUM_THREADS to at most that",
        st->nthreads,
        getenv("OMP_NUM_THREADS") ? getenv("OMP_NUM_THREADS") : "(unset)",
        OPENMP_MAX_THREADS);
  /* Any count above 1 is tried first: libgomp ends the process when it
   * cannot start a thread (RLIMIT_NPROC), also for the default count, and
   * this plugin may be only the first of KC_BACKEND's candidates. */
  if (st->nthreads > 1 && !omp_in_parallel()) {
    int err = preflight(st->nthreads);
    if (err != 0)
      return kc_backend_error(KC_ENOMEM,
                              "openmp backend: this process cannot start %d "
                              "threads (%s); the OpenMP runtime would end "
                              "the process",
                              st->nthreads, strerror(err));
  }
  atomic_init(&st->busy, 0);
  const char *wait = getenv("OMP_WAIT_POLICY");
  while (wait && (*wait == ' ' || *wait == '\t')) /* libgomp skips them */
    wait++;
  st->scan_region = st->nthreads > 1 && st->nthreads <= kc_host_cpu_count() &&
                    !(wait && strncasecmp(wait, "passive", 7) == 0 &&
                      strspn(wait + 7, " \t") == strlen(wait + 7));
  st->arrived = NULL;
  if (st->scan_region) {
    st->arrived = aligned_alloc(64, sizeof *st->arrived * (size_t)st->nthreads);
    if (!st->arrived)
      st->scan_region = 0; /* scans take two regions */
    else
      for (int t = 0; t < st->nthreads; t++)
        atomic_init(&st->arrived[t].done, 0);
  }
  st->gen = 0;

  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, openmp_atfork_register);
  /* One thread starts none: a child forked later can still use OpenMP. */
  if (st->nthreads > 1)
    atomic_store_explicit(&started, 1, memory_order_relaxed);

  /* Start the runtime's threads now rather than in the first launch, with
   * a mask where the application's signals never land (backend.h,
   * kc_backend_block_signals): the threads the runtime starts inherit it
   * (those an earlier OpenMP region of the application started keep
   * theirs). */
  int got = 0;
  sigset_t old;
  const int masked = kc_backend_block_signals(&old) == 0;
#pragma omp parallel num_threads(st->nthreads)
  {
#pragma omp master
    got = omp_get_num_threads();
  }
  if (masked)
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  kc_backend_verbose("openmp: %d thread%s (OpenMP %d, the runtime started %d; "
                     "binding follows OMP_PROC_BIND / OMP_PLACES)",
                     st->nthreads, st->nthreads == 1 ? "" : "s", _OPENMP, got);
  return 0;
}

static void openmp_finalize(void *state) {
  /* The runtime's threads belong to the process, not to us. */
  openmp_state *st = state;
  free(st->arrived);
  st->arrived = NULL;
}

static int openmp_info(void *state, kc_info *out) {
  openmp_state *st = state;
  kc_host_backend_info(out, st->nthreads);
  return 0;
}

static int openmp_launch(void *state, const kc_launch *l) {
  openmp_state *st = state;
  const kc_host_exec alone = {run_inline, NULL, 1};
  /* One thread: a one-thread region is inactive anyway, and libgomp
   * allocates and frees its team each time (about 1000 instructions, half
   * of a launch); the task runs here instead. */
  if (st->nthreads == 1)
    return kc_host_launch(&alone, l);
  /* A launch from inside a parallel region — a kernel calling back into kc,
   * or an application calling kc from its own omp parallel — runs on the
   * calling thread alone, as does one that finds the team in use. */
  if (omp_in_parallel() ||
      atomic_exchange_explicit(&st->busy, 1, memory_order_acquire) != 0)
    return kc_host_launch(&alone, l);
  int rc;
  if (st->scan_region && l->kernel->kind == KC_KERNEL_SCAN &&
      l->policy.end[0] > l->policy.begin[0]) {
    rc = launch_in_region(st, l);
  } else {
    const kc_host_exec x = {omp_fork_join, &st->nthreads, st->nthreads};
    rc = kc_host_launch(&x, l);
  }
  atomic_store_explicit(&st->busy, 0, memory_order_release);
  return rc;
}

KC_API const kc_backend_ops kc_backend_openmp = {
    .abi_major = KC_BACKEND_ABI_MAJOR,
    .abi_minor = KC_BACKEND_ABI_MINOR,
    .struct_size = sizeof(kc_backend_ops),
    .name = "openmp",
    .description = "OpenMP runtime (omp parallel fork-join)",
    .state_size = sizeof(openmp_state),
    .kernel_state_size = 0,
    .probe = openmp_probe,
    .init = openmp_init,
    .finalize = openmp_finalize,
    .info = openmp_info,
    .launch = openmp_launch,
};
