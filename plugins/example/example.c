/* libkc-example.so — a complete kc backend built out of tree.
 *
 * Copy this directory to start a new backend: rename "example" everywhere
 * (the file name libkc-<name>.so, the entry symbol kc_backend_<name> and
 * ops.name must agree), then replace the slots you need.
 *
 * "example" is a host backend.  It reuses the core's host execution engine,
 * kc_host_launch(), which splits every launch (1-D ranges, MD tiles, team
 * leagues, reductions, two-pass scans, CALL kernels) into per-thread shares
 * and joins the per-share results in share order.  A host backend only has
 * to supply the fork-join primitive the engine calls, `parallel`.  This one
 * makes that primitive observable instead of fast:
 *
 *  - it runs the shares of each launch one after another on the calling
 *    thread, LAST share first, so a kernel whose result depends on the
 *    order its chunks run in (a race in disguise) gives a different answer
 *    here than on serial;
 *  - with KC_EXAMPLE_LOG=1 it prints one line per dispatch to stderr.
 *
 * Memory, fences and kernel preparation are left NULL: the core then
 * maps every memory space onto host memory and treats launches as
 * synchronous, which is right for a backend that runs on the caller's
 * thread.
 *
 * Environment:
 *   KC_EXAMPLE_LOG=1    log each dispatch
 *   KC_NUM_THREADS=N    number of shares per launch (default 4); the work
 *                       still runs on one thread
 */
#include <kc/backend.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shares per launch when KC_NUM_THREADS is not set: more than one, so the
 * engine's split/join paths and the reverse order are exercised. */
#define EXAMPLE_DEFAULT_SHARES 4

/* The plugin's state lives in the zeroed, 64-byte aligned bytes the core
 * allocates (ops.state_size); the plugin keeps no globals, so the core may
 * load, finalize and load it again. */
struct example_state {
  kc_host_exec exec;        /* handed to kc_host_launch() */
  int log;                  /* KC_EXAMPLE_LOG */
  unsigned long dispatches; /* launches run so far, for the log */
};

/* The fork-join primitive of kc_host_exec: run task(tid, n, arg) for every
 * tid, and return when all have returned.  kc_host_launch() only relies on
 * that contract (each share runs once, all are done on return), so running
 * the shares sequentially in any order is valid. */
static void parallel_reverse(void *ctx, kc_host_task task, void *arg) {
  const struct example_state *st = ctx;
  for (int tid = st->exec.nthreads - 1; tid >= 0; tid--)
    task(tid, st->exec.nthreads, arg);
}

static const char *kind_name(kc_kernel_kind k) {
#define EXAMPLE_KIND(K, n, p, v, c) k == KC_KERNEL_##K ? n:
  return KC_KERNEL_KIND_MAP(EXAMPLE_KIND) "?";
#undef EXAMPLE_KIND
}

static void log_dispatch(struct example_state *st, const kc_launch *l) {
  const kc_launch_policy *p = &l->policy;
  fprintf(stderr, "kc-example: #%lu %s '%s' kernel '%s'", st->dispatches,
          kind_name(l->kernel->kind), l->label ? l->label : "",
          l->kernel->name);
  switch (p->kind) {
  case KC_POLICY_RANGE:
    fprintf(stderr, " range [%lld, %lld)", (long long)p->begin[0],
            (long long)p->end[0]);
    break;
  case KC_POLICY_MDRANGE:
    fprintf(stderr, " mdrange rank %d", p->rank);
    for (int d = 0; d < p->rank; d++)
      fprintf(stderr, " [%lld, %lld)", (long long)p->begin[d],
              (long long)p->end[d]);
    break;
  case KC_POLICY_TEAM:
    fprintf(stderr, " league %lld x team %d", (long long)p->league_size,
            p->team_size);
    break;
  }
  fprintf(stderr, ", %d shares, last first\n", st->exec.nthreads);
}

/* ------------------------------------------------------------ the slots */

/* probe: a host backend is always available, which kc_host_backend_probe
 * says.  A device backend would look for its driver in its own probe and,
 * finding none, set *ndevices = 0 and explain why with
 * kc_backend_error(KC_ENODEV, "..."). */

static int example_init(void *state, const kc_backend_config *cfg) {
  struct example_state *st = state;
  const char *log = getenv("KC_EXAMPLE_LOG");

  if (cfg->device != 0)
    return kc_backend_error(KC_ENODEV,
                            "example: device %d requested, the host is the "
                            "only device (KC_DEVICE=0)",
                            cfg->device);
  st->exec.parallel = parallel_reverse;
  st->exec.ctx = st;
  st->exec.nthreads =
      cfg->num_threads > 0 ? cfg->num_threads : EXAMPLE_DEFAULT_SHARES;
  st->log = log != NULL && *log != '\0' && strcmp(log, "0") != 0;
  kc_backend_verbose("example: %d shares per launch, run last first%s",
                     st->exec.nthreads, st->log ? ", logging dispatches" : "");
  return 0;
}

static void example_finalize(void *state) {
  const struct example_state *st = state;
  if (st->log)
    fprintf(stderr, "kc-example: finalize after %lu dispatches\n",
            st->dispatches);
}

static int example_info(void *state, kc_info *out) {
  const struct example_state *st = state;
  /* num_threads is the number of (logical) threads a launch is split
   * into, which bounds the calls of a static launch and the per-thread
   * accumulators; concurrency is how many of them really run at once. */
  kc_host_backend_info(out, st->exec.nthreads);
  out->concurrency = 1;
  return 0;
}

static int example_launch(void *state, const kc_launch *l) {
  struct example_state *st = state;
  st->dispatches++;
  if (st->log)
    log_dispatch(st, l);
  return kc_host_launch(&st->exec, l);
}

/* The one exported symbol.  The core finds it by the file's name:
 * libkc-example.so -> kc_backend_example. */
KC_API const struct kc_backend_ops kc_backend_example = {
    .abi_major = KC_BACKEND_ABI_MAJOR,
    .abi_minor = KC_BACKEND_ABI_MINOR,
    .struct_size = sizeof(struct kc_backend_ops),
    .name = "example",
    .description = "out-of-tree example: host engine, shares run last first",
    .state_size = sizeof(struct example_state),
    .kernel_state_size = 0,
    .probe = kc_host_backend_probe,
    .init = example_init,
    .finalize = example_finalize,
    .info = example_info,
    /* mem_alloc, mem_free, mem_copy, mem_set, fence, kernel_prepare and
     * kernel_release: NULL, the core's host defaults. */
    .launch = example_launch,
};
