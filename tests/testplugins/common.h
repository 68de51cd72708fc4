/* Shared pieces of the test-only plugins (tests/testplugins/): a minimal
 * but working host backend (one thread, the core's kc_host_launch, the
 * core's default memory), which each test plugin then breaks in one way.
 * Built only for make check, never installed. */
#ifndef KC_TESTPLUGIN_COMMON_H
#define KC_TESTPLUGIN_COMMON_H

#include <stdlib.h>
#include <string.h>

#include <kc/backend.h>

/* Each test plugin starts from TP_OPS (a working plugin) and overrides one
 * field with a later designated initializer: intended, so not a warning. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Winitializer-overrides"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Woverride-init"
#endif

static void tp_parallel(void *ctx, kc_host_task task, void *arg) {
  (void)ctx;
  task(0, 1, arg);
}

static int tp_probe_one(int *ndevices) {
  return kc_host_backend_probe(ndevices);
}

static int tp_init(void *state, const kc_backend_config *cfg) {
  (void)state;
  (void)cfg;
  return 0;
}

static void tp_finalize(void *state) { (void)state; }

static int tp_info(void *state, kc_info *out) {
  (void)state;
  kc_host_backend_info(out, 1);
  return 0;
}

static int tp_launch(void *state, const kc_launch *l) {
  static const kc_host_exec one = {tp_parallel, NULL, 1};
  (void)state;
  return kc_host_launch(&one, l);
}

/* The ops of a working plugin called `nm` (every 1.0 slot filled or
 * defaulted); a test plugin overrides one field. */
#define TP_OPS(nm)                                                             \
  .abi_major = KC_BACKEND_ABI_MAJOR, .abi_minor = KC_BACKEND_ABI_MINOR,        \
  .struct_size = sizeof(kc_backend_ops), .name = nm,                           \
  .description = "kc test plugin " nm, .state_size = 64,                       \
  .kernel_state_size = 0, .probe = tp_probe_one, .init = tp_init,              \
  .finalize = tp_finalize, .info = tp_info, .launch = tp_launch

/* Memory slots over plain host memory, for the test plugins that fill
 * them (static inline: the others leave them unused). */
static inline int tp_mem_free(void *state, kc_space space, void *p) {
  (void)state;
  (void)space;
  free(p);
  return 0;
}

static inline int tp_mem_copy(void *state, void *dst, kc_space dst_space,
                              const void *src, kc_space src_space, size_t bytes,
                              int async) {
  (void)state;
  (void)dst_space;
  (void)src_space;
  (void)async;
  memmove(dst, src, bytes);
  return 0;
}

static inline int tp_mem_set(void *state, void *p, kc_space space, int value,
                             size_t bytes) {
  (void)state;
  (void)space;
  memset(p, value, bytes);
  return 0;
}

#endif
