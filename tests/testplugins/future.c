/* A good plugin from the future: built against a newer minor backend ABI,
 * whose kc_backend_ops has grown slots this libkc does not know.  kc must
 * load it and use only the slots it knows (SQLite-VFS rule); memory and
 * fence slots are NULL, so the core's defaults run. */
#include <stddef.h>

#include "common.h"

/* The ops struct as a newer <kc/backend.h> would declare it. */
struct future_ops {
  kc_backend_ops v1;
  int (*slot_from_the_future)(void *state, int what);
  void *another;
};

static int future_slot(void *state, int what) {
  (void)state;
  return what;
}

/* The core reads the head and the slots it knows through a
 * `const kc_backend_ops *` to this object. */
KC_API const struct future_ops kc_backend_future = {
    .v1 = {TP_OPS("future"), .abi_minor = KC_BACKEND_ABI_MINOR + 1,
           .struct_size = sizeof(struct future_ops)},
    .slot_from_the_future = future_slot,
    .another = NULL,
};
