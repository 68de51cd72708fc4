/* A plugin with the ABI 1.1 slot mem_alloc_on but none of the memory slots
 * (mem_free would never give its memory back): kc must refuse it with one
 * line naming the file and the rule. */
#include "common.h"

static int allocon_alloc_on(void *state, kc_space space, int device,
                            size_t bytes, void **out) {
  (void)state;
  (void)space;
  (void)device;
  (void)bytes;
  *out = NULL;
  return KC_ENOMEM;
}

KC_API const kc_backend_ops kc_backend_allocon = {
    TP_OPS("allocon"), .mem_alloc_on = allocon_alloc_on};
