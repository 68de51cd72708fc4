/* A good plugin with several devices (KC_TEST_MULTIDEV_COUNT, default 4):
 * it runs kernels on the host like every test plugin, but reports the
 * device the core chose for it (cfg->device), so that tests/t-devmap can
 * watch the core map KC_DEVICE and launchers' local ranks to devices. */
#include <stdlib.h>

#include "common.h"

typedef struct multidev_state {
  int device;
  int count;
} multidev_state;

static int count(void) {
  const char *v = getenv("KC_TEST_MULTIDEV_COUNT");
  int n = v && *v ? atoi(v) : 4;
  return n > 0 ? n : 4;
}

static int multidev_probe(int *ndevices) {
  *ndevices = count();
  return 0;
}

static int multidev_init(void *state, const kc_backend_config *cfg) {
  multidev_state *s = state;
  s->count = count();
  if (cfg->device < 0 || cfg->device >= s->count)
    return kc_backend_error(KC_ENODEV, "multidev: device %d of %d", cfg->device,
                            s->count);
  s->device = cfg->device;
  return 0;
}

static int multidev_info(void *state, kc_info *out) {
  multidev_state *s = state;
  tp_info(state, out);
  out->device_count = s->count;
  out->device = s->device;
  return 0;
}

KC_API const kc_backend_ops kc_backend_multidev = {
    TP_OPS("multidev"), .probe = multidev_probe, .init = multidev_init,
    .info = multidev_info};
