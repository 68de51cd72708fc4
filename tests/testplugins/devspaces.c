/* A working host plugin that reports device, managed and pinned memory as
 * distinct from host memory (the core's default memory still allocates
 * them all on the host), built under two names (DS_NAME): "hip", a
 * backend Kokkos has a device type for, and "devspaces", one it has not.
 * profiling-spaces checks the memory space names the profiling tools get. */
#include "common.h"

static int ds_info(void *state, kc_info *out) {
  int rc = tp_info(state, out);
  out->spaces = 1u << KC_SPACE_HOST | 1u << KC_SPACE_DEVICE |
                1u << KC_SPACE_MANAGED | 1u << KC_SPACE_HOST_PINNED;
  return rc;
}

#define DS_STR_(x) #x
#define DS_STR(x) DS_STR_(x)
#define DS_SYM_(x) kc_backend_##x
#define DS_SYM(x) DS_SYM_(x)

KC_API const kc_backend_ops DS_SYM(DS_NAME) = {
    TP_OPS(DS_STR(DS_NAME)),
    .info = ds_info,
};
