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

#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <kc/backend.h>

typedef struct openmp_state {
  int nthreads;    /* the team size kc_host_launch is told */
  atomic_int busy; /* 1 while a launch owns the team */
} openmp_state;

/* kc_host_launch() expects task(tid, n) once for every tid < n.  The
 * runtime may give a smaller team than asked (OMP_THREAD_LIMIT, OMP_DYNAMIC
 * set by the application on its thread, resource limits); then each thread
 * of the team also runs the tids the missing threads would have run, so
 * the split of the work never depends on what the runtime granted. */
static void omp_fork_join(void *ctx, kc_host_task task, void *arg) {
  const int n = *(const int *)ctx;
#pragma omp parallel num_threads(n)
  {
    const int team = omp_get_num_threads();
    for (int tid = omp_get_thread_num(); tid < n; tid += team)
      task(tid, n, arg);
  }
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

/* The runtime's default (OMP_NUM_THREADS, else the CPUs of the affinity
 * mask), but an unbound MPI rank sharing its node takes its share of it
 * (kc_host_rank_share); OMP_NUM_THREADS set means the user chose. */
static int default_threads(void) {
  int n = omp_get_max_threads(), first;
  if (getenv("OMP_NUM_THREADS"))
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

static int openmp_init(void *state, const kc_backend_config *cfg) {
  openmp_state *st = state;
  if (cfg->num_threads < 0)
    return kc_backend_error(KC_EINVAL,
                            "openmp backend: thread count %d is "
                            "negative",
                            cfg->num_threads);
  /* Without this the runtime may hand out fewer threads than asked for. */
  omp_set_dynamic(0);
  st->nthreads = cfg->num_threads > 0 ? cfg->num_threads : default_threads();
  if (st->nthreads < 1)
    st->nthreads = 1;
  atomic_init(&st->busy, 0);

  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, openmp_atfork_register);
  atomic_store_explicit(&started, 1, memory_order_relaxed);

  /* Start the runtime's threads now rather than in the first launch. */
  int got = 0;
#pragma omp parallel num_threads(st->nthreads)
  {
#pragma omp master
    got = omp_get_num_threads();
  }
  kc_backend_verbose("openmp: %d thread%s (OpenMP %d, the runtime started %d; "
                     "binding follows OMP_PROC_BIND / OMP_PLACES)",
                     st->nthreads, st->nthreads == 1 ? "" : "s", _OPENMP, got);
  return 0;
}

static void openmp_finalize(void *state) {
  /* The runtime's threads belong to the process, not to us. */
  (void)state;
}

static int openmp_info(void *state, kc_info *out) {
  openmp_state *st = state;
  kc_host_backend_info(out, st->nthreads);
  return 0;
}

static int openmp_launch(void *state, const kc_launch *l) {
  openmp_state *st = state;
  /* A launch from inside a parallel region — a kernel calling back into kc,
   * or an application calling kc from its own omp parallel — runs on the
   * calling thread alone, as does one that finds the team in use. */
  if (omp_in_parallel() ||
      atomic_exchange_explicit(&st->busy, 1, memory_order_acquire) != 0) {
    const kc_host_exec alone = {run_inline, NULL, 1};
    return kc_host_launch(&alone, l);
  }
  const kc_host_exec x = {omp_fork_join, &st->nthreads, st->nthreads};
  int rc = kc_host_launch(&x, l);
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
