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

static int threads_probe(int *ndevices) {
  *ndevices = 1; /* the host is always there */
  return 0;
}

static int threads_init(void *state, const kc_backend_config *cfg) {
  threads_state *st = state;
  char why[256];
  int rc = kc__pool_create(&st->pool, cfg->num_threads, why, sizeof why);
  if (rc != 0)
    return kc_backend_error(rc, "threads backend: %s", why);
  int n = kc__pool_size(st->pool), ncpu = kc_host_cpu_count();
  kc_backend_verbose("threads: pool of %d thread%s on %d usable CPU%s, %s", n,
                     n == 1 ? "" : "s", ncpu, ncpu == 1 ? "" : "s",
                     n == 1              ? "no workers"
                     : kc__pool_pinned(st->pool)
                         ? "worker k pinned to the k-th CPU"
                     : n > ncpu ? "oversubscribed: not pinned, waiters sleep "
                                  "early"
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
  int n = kc__pool_size(st->pool);
  out->concurrency = n;
  out->num_threads = n;
  out->device_count = 1;
  out->device = -1;
  out->spaces = 1u << KC_SPACE_HOST;
  kc_host_device_info(&out->dev);
  return 0;
}

static int threads_launch(void *state, const kc_launch *l) {
  threads_state *st = state;
  if (!kc__pool_enter(st->pool)) {
    const kc_host_exec alone = {run_inline, NULL, 1};
    return kc_host_launch(&alone, l);
  }
  const kc_host_exec x = {kc__pool_parallel, st->pool,
                          kc__pool_size(st->pool)};
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
    .probe = threads_probe,
    .init = threads_init,
    .finalize = threads_finalize,
    .info = threads_info,
    .launch = threads_launch,
};
