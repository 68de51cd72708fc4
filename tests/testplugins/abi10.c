/* A good plugin of backend ABI 1.0, as a plugin built against 1.0's
 * <kc/backend.h> is: its ops object is the 1.0 struct, 144 bytes on
 * x86-64, ending at `launch`, with abi_minor 0 — nothing of it lies where
 * 1.1 put the queue and event slots (under AddressSanitizer a read there
 * is a global-buffer-overflow).  The core must run it with every kc_queue
 * on its default queue; t-abi10.sh puts it through the conformance suite.
 * The struct below is 1.0's declaration; tests/t-abi.c freezes the same
 * prefix of today's kc_backend_ops. */
#include <stddef.h>

#include "common.h"

typedef struct ops_1_0 {
  uint32_t abi_major;
  uint32_t abi_minor;
  size_t struct_size;
  const char *name;
  const char *description;
  size_t state_size;
  size_t kernel_state_size;
  int (*probe)(int *ndevices);
  int (*init)(void *state, const kc_backend_config *cfg);
  void (*finalize)(void *state);
  int (*info)(void *state, kc_info *out);
  int (*mem_alloc)(void *state, kc_space space, size_t bytes, void **out);
  int (*mem_free)(void *state, kc_space space, void *p);
  int (*mem_copy)(void *state, void *dst, kc_space dst_space, const void *src,
                  kc_space src_space, size_t bytes, int async);
  int (*mem_set)(void *state, void *p, kc_space space, int value, size_t bytes);
  int (*fence)(void *state);
  int (*kernel_prepare)(void *state, const kc_kernel_info *k,
                        void *kernel_state);
  void (*kernel_release)(void *state, const kc_kernel_info *k,
                         void *kernel_state);
  int (*launch)(void *state, const kc_launch *l);
} ops_1_0;

_Static_assert(sizeof(ops_1_0) == offsetof(kc_backend_ops, queue_create),
               "ABI 1.0's ops struct is today's up to launch");

/* KC_NUM_THREADS shares (the suite checks it), run one after another on
 * the calling thread: concurrency 1. */
typedef struct abi10_state {
  int nthreads;
} abi10_state;

static void abi10_parallel(void *ctx, kc_host_task task, void *arg) {
  const abi10_state *st = ctx;
  for (int t = 0; t < st->nthreads; t++)
    task(t, st->nthreads, arg);
}

static int abi10_init(void *state, const kc_backend_config *cfg) {
  abi10_state *st = state;
  st->nthreads = cfg->num_threads > 0 ? cfg->num_threads : 2;
  return 0;
}

static int abi10_info(void *state, kc_info *out) {
  const abi10_state *st = state;
  kc_host_backend_info(out, st->nthreads);
  out->concurrency = 1;
  return 0;
}

static int abi10_launch(void *state, const kc_launch *l) {
  abi10_state *st = state;
  kc_host_exec x = {abi10_parallel, st, st->nthreads};
  return kc_host_launch(&x, l);
}

KC_API const ops_1_0 kc_backend_abi10 = {
    TP_OPS("abi10"),
    .abi_minor = 0,
    .struct_size = sizeof(ops_1_0),
    .state_size = sizeof(abi10_state),
    .init = abi10_init,
    .info = abi10_info,
    .launch = abi10_launch,
};
