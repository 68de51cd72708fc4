/* A plugin whose probe finds no device, with a reason. */
#include "common.h"

static int nodev_probe(int *ndevices) {
  *ndevices = 0;
  kc_backend_error(KC_ENODEV, "test plugin nodev has no device by design");
  return 0;
}

KC_API const kc_backend_ops kc_backend_nodev = {
    TP_OPS("nodev"),
    .probe = nodev_probe,
};
