/* kc threads backend — libkc-threads.so.
 *
 * All launch semantics (static and dynamic splitting, per-thread
 * accumulators joined in thread order, two-pass scans, CALL kernels) live
 * in the core's kc_host_launch(); this plugin only contributes the
 * fork-join primitive, a persistent pthread pool (pool.c).  Memory slots
 * stay NULL (the core maps every space onto host memory) and so does fence
 * (a launch has finished when the launch slot returns).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <kc/backend.h>

#include "pool.h"

typedef struct threads_state {
  kc__pool *pool;
} threads_state;

/* Runs the task on the calling thread alone: the fallback when the pool is
 * already in use (a kernel calling back into kc, or a second application
 * thread while the core does not serialise it). */
static void run_inline(void *ctx, kc_host_task task, void *arg) {
  (void)ctx;
  task(0, 1, arg);
}

/* KC_THREADS_BIND (kc.h): "mask", "spread", or unset or empty for the
 * default, mask.  *quiet is 1 when the user chose explicitly. */
static int bind_from_env(kc__pool_bind *bind, int *quiet) {
  const char *v = getenv("KC_THREADS_BIND");
  *bind = KC__POOL_BIND_MASK;
  *quiet = v != NULL && *v != '\0';
  if (!*quiet || strcmp(v, "mask") == 0)
    return 0;
  if (strcmp(v, "spread") == 0) {
    *bind = KC__POOL_BIND_SPREAD;
    return 0;
  }
  return kc_backend_error(KC_EINVAL,
                          "threads backend: KC_THREADS_BIND='%s' is neither "
                          "'mask' nor 'spread'",
                          v);
}

/* The OpenMP setting that binds the initial thread when the program links
 * an OpenMP runtime, as "NAME=value" in buf, or NULL if none is set. */
static const char *openmp_binding(char *buf, size_t cap) {
  static const char *const vars[] = {"OMP_PROC_BIND", "OMP_PLACES",
                                     "GOMP_CPU_AFFINITY", "KMP_AFFINITY"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    if (v == NULL || *v == '\0' || strcasecmp(v, "false") == 0 ||
        strstr(v, "disabled") != NULL || strstr(v, "none") != NULL)
      continue;
    snprintf(buf, cap, "%s=%s", vars[i], v);
    return buf;
  }
  return NULL;
}

static const char *cpus_word(int n) { return n == 1 ? "CPU" : "CPUs"; }

/* Never narrower than the user may expect without a word: when the calling
 * thread's affinity mask is narrower than the CPUs the process may use and
 * that shrinks the pool — its threads share the mask's CPUs, or its size
 * came from the mask while an OpenMP binding is set — one line on stderr
 * names the mask, the likely cause and the fix.  Unless KC_THREADS_BIND
 * was set, which says the user has chosen. */
static void warn_narrow_mask(int n, int sized_by_user,
                             const kc__placement *pl) {
  char omp[128], line[1024];
  const char *cause = openmp_binding(omp, sizeof omp);
  if (pl->mask >= pl->allowed ||
      (n <= pl->mask && (sized_by_user || cause == NULL)))
    return;
  int len;
  if (n > pl->mask)
    len = snprintf(line, sizeof line,
                   "the pool's %d threads share %s %s, the calling thread's "
                   "affinity mask, though the process may use %d CPUs (%s)",
                   n, cpus_word(pl->mask), pl->mask_list, pl->allowed,
                   pl->allowed_list);
  else
    len = snprintf(line, sizeof line,
                   "a pool of %d thread%s only, sized by the calling "
                   "thread's affinity mask (%s %s), though the process may "
                   "use %d CPUs (%s)",
                   n, n == 1 ? "" : "s", cpus_word(pl->mask), pl->mask_list,
                   pl->allowed, pl->allowed_list);
  if (len < 0 || (size_t)len >= sizeof line)
    len = (int)strlen(line);
  if (cause != NULL)
    snprintf(line + len, sizeof line - (size_t)len,
             "; likely cause: %s, with which the OpenMP runtime bound this "
             "thread before kc started; fix: KC_THREADS_BIND=spread spreads "
             "the pool over CPUs %s (KC_THREADS_BIND=mask keeps this and "
             "silences the warning)",
             cause, pl->allowed_list);
  else
    snprintf(line + len, sizeof line - (size_t)len,
             "; likely cause: a launcher's binding (taskset, numactl, "
             "mpirun, srun) or an OpenMP runtime's; fix: KC_NUM_THREADS=%d "
             "fits the pool to the mask, KC_THREADS_BIND=spread spreads it "
             "over CPUs %s if the binding was not meant for kc "
             "(KC_THREADS_BIND=mask keeps this and silences the warning)",
             pl->mask, pl->allowed_list);
  fprintf(stderr, "kc: warning: threads backend: %s\n", line);
}

static int threads_init(void *state, const kc_backend_config *cfg) {
  threads_state *st = state;
  kc__pool_bind bind;
  int quiet;
  int rc = bind_from_env(&bind, &quiet);
  if (rc != 0)
    return rc;
  char why[256];
  rc = kc__pool_create(&st->pool, cfg->num_threads, bind, why, sizeof why);
  if (rc != 0)
    return kc_backend_error(rc, "threads backend: %s", why);
  const kc__placement *pl = kc__pool_placement(st->pool);
  int n = kc__pool_size(st->pool);
  if (!quiet)
    warn_narrow_mask(n, cfg->num_threads > 0, pl);
  kc_backend_verbose(
      "threads: pool of %d thread%s on %d %s (%s: %s; the process may use "
      "%s), %s",
      n, n == 1 ? "" : "s", pl->n, cpus_word(pl->n),
      bind == KC__POOL_BIND_SPREAD ? "KC_THREADS_BIND=spread"
                                   : "the calling thread's mask",
      bind == KC__POOL_BIND_SPREAD ? pl->allowed_list : pl->mask_list,
      pl->allowed_list,
      n == 1                      ? "no workers"
      : kc__pool_pinned(st->pool) ? "worker k pinned to the k-th CPU"
      : n > pl->n ? "oversubscribed: not pinned, waiters sleep early"
                  : "not pinned (the kernel refused a CPU)");
  return 0;
}

static void threads_finalize(void *state) {
  threads_state *st = state;
  kc__pool_destroy(st->pool);
  st->pool = NULL;
}

static int threads_info(void *state, kc_info *out) {
  threads_state *st = state;
  kc_host_backend_info(out, kc__pool_size(st->pool));
  return 0;
}

static int threads_launch(void *state, const kc_launch *l) {
  threads_state *st = state;
  if (!kc__pool_enter(st->pool)) {
    const kc_host_exec alone = {run_inline, NULL, 1};
    return kc_host_launch(&alone, l);
  }
  const kc_host_exec x = {kc__pool_parallel, st->pool, kc__pool_size(st->pool)};
  int rc = kc_host_launch(&x, l);
  kc__pool_leave(st->pool);
  return rc;
}

KC_API const kc_backend_ops kc_backend_threads = {
    .abi_major = KC_BACKEND_ABI_MAJOR,
    .abi_minor = KC_BACKEND_ABI_MINOR,
    .struct_size = sizeof(kc_backend_ops),
    .name = "threads",
    .description = "persistent pthread pool, lock-free futex fork-join",
    .state_size = sizeof(threads_state),
    .kernel_state_size = 0,
    .probe = kc_host_backend_probe,
    .init = threads_init,
    .finalize = threads_finalize,
    .info = threads_info,
    .launch = threads_launch,
};
