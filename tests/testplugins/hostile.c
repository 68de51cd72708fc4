/* A buggy host plugin for tests/t-hostile-plugin.c: a working backend of
 * four threads (run one after another by its parallel()) with the core's
 * engine and memory slots of its own, which breaks one rule of
 * <kc/backend.h> at a time, chosen with KC_TEST_HOSTILE:
 *
 *   par_negtid, par_bigtid   parallel() runs an extra task with tid -3 / 9
 *   par_nt_small             every tid 0..3, but nthreads says 2
 *   par_nt_big               nthreads says 200 (the exec has 4)
 *   par_nt_zero              nthreads says 0
 *   par_skip0                tid 0 never runs
 *   launch_pos, launch_neg   launch returns 9 / -1000
 *   probe_pos, init_pos      probe / init return 7 / 5
 *   mem_pos_null             mem_alloc returns 1 and no address
 *   mem_same                 mem_alloc gives one address every time
 *   leave                    launch calls kc_backend_kernel_leave() once
 *   info_absurd              info writes impossible values everywhere
 *
 * Built a second time as libkc-hostctor.so (HOSTILE_CTOR): a plugin of the
 * wrong ABI major whose constructor starts a thread that keeps running the
 * plugin's own code, so that unmapping it after the refusal would crash. */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

#ifdef HOSTILE_CTOR
/* Runs the plugin's own code for ever. */
static void *spin(void *arg) {
  (void)arg;
  for (;;) {
    struct timespec ms = {0, 1000 * 1000};
    nanosleep(&ms, NULL);
  }
  return NULL;
}

__attribute__((constructor)) static void start_spinner(void) {
  pthread_t t;
  if (pthread_create(&t, NULL, spin, NULL) == 0)
    pthread_detach(t);
}

KC_API const kc_backend_ops kc_backend_hostctor = {
    TP_OPS("hostctor"), .abi_major = KC_BACKEND_ABI_MAJOR + 1};
#else

enum { NT = 4 };

static int is(const char *c) {
  const char *v = getenv("KC_TEST_HOSTILE");
  return v && strcmp(v, c) == 0;
}

static void hp_parallel(void *ctx, kc_host_task task, void *arg) {
  (void)ctx;
  int nt = is("par_nt_small")  ? 2
           : is("par_nt_big")  ? 200
           : is("par_nt_zero") ? 0
                               : NT;
  for (int t = is("par_skip0") ? 1 : 0; t < NT; t++)
    task(t, nt, arg);
  if (is("par_negtid"))
    task(-3, NT, arg);
  if (is("par_bigtid"))
    task(9, NT, arg);
}

static const kc_host_exec exec4 = {hp_parallel, NULL, NT};

static int hp_probe(int *nd) {
  int rc = kc_host_backend_probe(nd);
  return rc == 0 && is("probe_pos") ? 7 : rc;
}

static int hp_init(void *state, const kc_backend_config *cfg) {
  (void)state;
  (void)cfg;
  return is("init_pos") ? 5 : 0;
}

static int hp_info(void *state, kc_info *out) {
  (void)state;
  kc_host_backend_info(out, 1); /* one at a time: no team census */
  if (is("info_absurd")) {
    out->abi_major = 77;
    out->abi_minor = -1;
    out->device_count = -3;
    out->device = 99;
    out->spaces = 0xffffffffu;
    out->concurrency = -5;
    out->num_threads = -1;
  }
  return 0;
}

static int hp_launch(void *state, const kc_launch *l) {
  (void)state;
  if (is("launch_pos"))
    return 9;
  if (is("launch_neg"))
    return -1000;
  if (is("leave"))
    kc_backend_kernel_leave();
  return kc_host_launch(&exec4, l);
}

/* mem_same's one buffer, and how often it was given back. */
static _Alignas(64) unsigned char shared[4096];
static int shared_frees;

static int hp_alloc(void *state, kc_space space, size_t bytes, void **out) {
  (void)state;
  (void)space;
  if (is("mem_pos_null"))
    return 1;
  if (is("mem_same") && bytes <= sizeof shared) {
    *out = shared;
    return 0;
  }
  *out = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
  return *out ? 0 : kc_backend_error(KC_ENOMEM, "hostile: no memory");
}

static int hp_free(void *state, kc_space space, void *p) {
  (void)state;
  (void)space;
  if (p == (void *)shared) {
    if (++shared_frees > 1)
      abort(); /* the core freed one address twice */
    return 0;
  }
  free(p);
  return 0;
}

KC_API const kc_backend_ops kc_backend_hostile = {
    TP_OPS("hostile"),   .probe = hp_probe,       .init = hp_init,
    .info = hp_info,     .launch = hp_launch,     .mem_alloc = hp_alloc,
    .mem_free = hp_free, .mem_copy = tp_mem_copy, .mem_set = tp_mem_set};
#endif
