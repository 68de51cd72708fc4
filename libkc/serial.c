/* libkc — the built-in serial backend.
 *
 * kc works with no plugin at all: this backend runs every launch on the
 * calling thread through the shared host engine, with a fork-join of one.
 * It leaves the memory slots NULL, so the core maps every space onto host
 * memory, and it has no fence, since its launches are synchronous.
 */
#include <config.h>

#include <string.h>

#include "internal.h"

static void serial_parallel(void *ctx, kc_host_task task, void *arg) {
  (void)ctx;
  task(0, 1, arg);
}

static const kc_host_exec serial_exec = {serial_parallel, NULL, 1};

static int serial_init(void *state, const kc_backend_config *cfg) {
  (void)state;
  (void)cfg;
  return 0;
}

static void serial_finalize(void *state) { (void)state; }

static int serial_info(void *state, kc_info *out) {
  (void)state;
  kc_host_backend_info(out, 1);
  return 0;
}

static int serial_launch(void *state, const kc_launch *l) {
  (void)state;
  return kc_host_launch(&serial_exec, l);
}

const kc_backend_ops kc__serial_ops = {
    .abi_major = KC_BACKEND_ABI_MAJOR,
    .abi_minor = KC_BACKEND_ABI_MINOR,
    .struct_size = sizeof(kc_backend_ops),
    .name = "serial",
    .description = "built-in serial backend: every launch on the calling "
                   "thread",
    .probe = kc_host_backend_probe,
    .init = serial_init,
    .finalize = serial_finalize,
    .info = serial_info,
    .launch = serial_launch,
};
