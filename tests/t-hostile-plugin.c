/* What the core does with a plugin that breaks <kc/backend.h>'s rules
 * (tests/testplugins/hostile.c; found by an outside review as a plugin
 * author, 2026-11-27).  Before the fixes:
 *  - the host engine trusted parallel()'s (tid, nthreads): a negative tid
 *    wrote before the accumulators, a small or zero count ran the kernel
 *    outside the launch's range or divided by zero, a large one joined
 *    slots that do not exist, a missing task 0 gave a wrong result with 0;
 *  - a slot's code other than 0 and kc's own reached the user (kc_malloc
 *    returned 0 and no address for a positive code);
 *  - an address given twice by mem_alloc was recorded twice and freed
 *    twice;
 *  - one kc_backend_kernel_leave() too many in a slot left the thread
 *    marked for good (every later kc call refused, kc_finalize included);
 *  - kc_get_info passed on impossible values from the info slot;
 *  - a plugin refused after dlopen() was unmapped although its
 *    constructor's thread was running its code (a crash).
 * Every case runs in a process of its own with a time limit. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <kc/backend.h>

#include "kc-isolate.h"
#include "kc-test.h"

enum { N = 1000, GUARD = 64 };

static void for_fill(const void *f, kc_index b, kc_index e) {
  int64_t *y = *(int64_t *const *)f;
  for (kc_index i = b; i < e; i++)
    y[i] = i;
}

static void sum_idx(const void *f, kc_index b, kc_index e, void *acc) {
  (void)f;
  for (kc_index i = b; i < e; i++)
    *(int64_t *)acc += i;
}

static void scan_idx(const void *f, kc_index b, kc_index e, void *acc,
                     int final) {
  int64_t *y = *(int64_t *const *)f;
  for (kc_index i = b; i < e; i++) {
    if (final)
      y[i] = *(int64_t *)acc;
    *(int64_t *)acc += i;
  }
}

static kc_kernel *kfor, *ksum, *kscan;

static void use(const char *plugin, const char *hostile) {
  const char *dir = getenv("KC_TEST_PLUGIN_DIR");
  if (!dir || !*dir)
    KC_SKIP("KC_TEST_PLUGIN_DIR is not set: run through tests/run-backend");
  setenv("KC_PLUGIN_PATH", dir, 1);
  setenv("KC_BACKEND", plugin, 1);
  setenv("KC_TEST_HOSTILE", hostile, 1);
}

static int start(const char *hostile) {
  use("hostile", hostile);
  int rc = kc_init();
  if (rc != 0)
    return rc;
  kc_kernel_desc d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.name = "hp_for";
  d.kind = KC_KERNEL_FOR;
  d.host = (void (*)(void))for_fill;
  KC_REQUIRE_OK(kc_kernel_register(&d, &kfor));
  d.name = "hp_sum";
  d.kind = KC_KERNEL_REDUCE;
  d.host = (void (*)(void))sum_idx;
  d.reducer.op = KC_REDUCE_SUM;
  d.reducer.type = KC_INT64;
  KC_REQUIRE_OK(kc_kernel_register(&d, &ksum));
  d.name = "hp_scan";
  d.kind = KC_KERNEL_SCAN;
  d.host = (void (*)(void))scan_idx;
  KC_REQUIRE_OK(kc_kernel_register(&d, &kscan));
  return 0;
}

/* parallel() breaking its contract: every kind of launch is KC_EINTERNAL,
 * and nothing outside the launch's range or its result is written (a
 * guard on each side of the array; AddressSanitizer builds see the rest). */
static int bad_parallel(void *arg) {
  const char *c = arg;
  KC_REQUIRE_OK(start(c));
  int64_t *mem = malloc((N + 2 * GUARD) * sizeof *mem);
  KC_REQUIRE(mem != NULL);
  for (int i = 0; i < N + 2 * GUARD; i++)
    mem[i] = -7;
  int64_t *y = mem + GUARD;
  kc_policy p = kc_range(0, N);
  KC_CHECK_ERR(kc_parallel_for("f", kfor, &p, &y, sizeof y), KC_EINTERNAL);
  KC_CHECK_CONTAINS(kc_last_error(), "parallel() broke its contract");
  int64_t v = 12345;
  KC_CHECK_ERR(kc_parallel_reduce("r", ksum, &p, &y, sizeof y, &v),
               KC_EINTERNAL);
  KC_CHECK_EQ_INT(v, 12345);
  KC_CHECK_ERR(kc_parallel_scan("s", kscan, &p, &y, sizeof y, &v),
               KC_EINTERNAL);
  KC_CHECK_EQ_INT(v, 12345);
  int spoiled = 0;
  for (int i = 0; i < GUARD; i++)
    spoiled += (mem[i] != -7) + (mem[GUARD + N + i] != -7);
  KC_CHECK_EQ_INT(spoiled, 0);
  free(mem);
  KC_CHECK_OK(kc_finalize());
  return kc_test_done();
}

/* A slot's code that is neither 0 nor kc's own is KC_EINTERNAL. */
static int launch_code(void *arg) {
  KC_REQUIRE_OK(start(arg));
  int64_t y[4], *py = y, v = 0;
  kc_policy p = kc_range(0, 4);
  KC_CHECK_ERR(kc_parallel_for("f", kfor, &p, &py, sizeof py), KC_EINTERNAL);
  KC_CHECK_CONTAINS(kc_last_error(), "neither 0 nor a kc error code");
  KC_CHECK_ERR(kc_parallel_reduce("r", ksum, &p, &py, sizeof py, &v),
               KC_EINTERNAL);
  KC_CHECK_OK(kc_finalize());
  return kc_test_done();
}

static int start_code(void *arg) {
  int rc = start(arg);
  KC_CHECK(rc < 0 && rc >= KC_EINTERNAL);
  KC_CHECK_EQ_INT(kc_is_initialized(), 0);
  KC_INFO("%s: kc_init: %s: %s", (const char *)arg, kc_err_name(rc),
          kc_last_error());
  return kc_test_done();
}

static int mem_pos_null(void *arg) {
  (void)arg;
  KC_REQUIRE_OK(start("mem_pos_null"));
  void *p = (void *)&p;
  KC_CHECK_ERR(kc_malloc(&p, 64, KC_SPACE_DEVICE, "x"), KC_EINTERNAL);
  KC_CHECK_OK(kc_finalize());
  return kc_test_done();
}

/* The plugin aborts if the core frees its one address twice. */
static int mem_same(void *arg) {
  (void)arg;
  KC_REQUIRE_OK(start("mem_same"));
  void *a = NULL, *b = NULL;
  KC_CHECK_OK(kc_malloc(&a, 64, KC_SPACE_DEVICE, "a"));
  KC_CHECK_ERR(kc_malloc(&b, 64, KC_SPACE_DEVICE, "b"), KC_EINTERNAL);
  KC_CHECK_CONTAINS(kc_last_error(), "inside a live allocation");
  KC_CHECK_ERR(kc_malloc(&b, 8, KC_SPACE_DEVICE, "c"), KC_EINTERNAL);
  KC_CHECK_OK(kc_free(a));
  KC_CHECK_OK(kc_finalize());
  return kc_test_done();
}

/* One leave too many inside the launch slot: the thread is not left
 * marked as inside a kernel. */
static int leave(void *arg) {
  (void)arg;
  KC_REQUIRE_OK(start("leave"));
  int64_t y[4], *py = y;
  kc_policy p = kc_range(0, 4);
  KC_CHECK_OK(kc_parallel_for("f", kfor, &p, &py, sizeof py));
  KC_CHECK_OK(kc_fence());
  void *m = NULL;
  KC_CHECK_OK(kc_malloc(&m, 8, KC_SPACE_HOST, "m"));
  KC_CHECK_OK(kc_free(m));
  KC_CHECK_OK(kc_finalize());
  KC_CHECK_EQ_INT(kc_is_initialized(), 0);
  return kc_test_done();
}

static int info_absurd(void *arg) {
  (void)arg;
  KC_REQUIRE_OK(start("info_absurd"));
  kc_info in;
  memset(&in, 0, sizeof in);
  in.struct_size = sizeof in;
  KC_CHECK_OK(kc_get_info(&in));
  KC_CHECK_EQ_INT(in.abi_major, KC_BACKEND_ABI_MAJOR);
  KC_CHECK_EQ_INT(in.abi_minor, KC_BACKEND_ABI_MINOR);
  KC_CHECK_GE_INT(in.device_count, 1);
  KC_CHECK(in.device >= -1 && in.device < in.device_count);
  KC_CHECK_EQ_UINT(in.spaces & ~((1u << KC_SPACE_COUNT) - 1), 0);
  KC_CHECK_GE_INT(in.concurrency, 1);
  KC_CHECK_GE_INT(in.num_threads, 1);
  KC_CHECK_OK(kc_finalize());
  return kc_test_done();
}

/* The wrong-ABI plugin is refused, and its constructor's thread keeps
 * running its code afterwards without a crash. */
static int refused_ctor(void *arg) {
  (void)arg;
  use("hostctor", "");
  KC_CHECK_ERR(kc_init(), KC_EABI);
  struct timespec ms = {0, 50 * 1000 * 1000};
  nanosleep(&ms, NULL);
  /* A good backend afterwards (the built-in one). */
  setenv("KC_BACKEND", "serial", 1);
  KC_CHECK_OK(kc_init());
  nanosleep(&ms, NULL);
  KC_CHECK_OK(kc_finalize());
  return kc_test_done();
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (!getenv("KC_TEST_PLUGIN_DIR")) {
    printf("SKIP: KC_TEST_PLUGIN_DIR is not set: run through "
           "tests/run-backend\n");
    return KC_TEST_SKIP;
  }
  static const char *const par[] = {"par_negtid", "par_bigtid",  "par_nt_small",
                                    "par_nt_big", "par_nt_zero", "par_skip0"};
  for (size_t i = 0; i < sizeof par / sizeof par[0]; i++)
    kc_isolate(par[i], bad_parallel, (void *)par[i], 20);
  kc_isolate("launch_pos", launch_code, "launch_pos", 20);
  kc_isolate("launch_neg", launch_code, "launch_neg", 20);
  kc_isolate("probe_pos", start_code, "probe_pos", 20);
  kc_isolate("init_pos", start_code, "init_pos", 20);
  KC_ISOLATE(mem_pos_null, NULL, 20);
  KC_ISOLATE(mem_same, NULL, 20);
  KC_ISOLATE(leave, NULL, 20);
  KC_ISOLATE(info_absurd, NULL, 20);
  KC_ISOLATE(refused_ctor, NULL, 20);
  return kc_test_done();
}
