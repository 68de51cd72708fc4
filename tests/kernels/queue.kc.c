/* Queue kernels (t-queue): a waiter that polls a flag (bounded) and a
 * setter.  On a backend whose queues run concurrently the waiter on one
 * queue sees the setter's store from another queue; on one that runs
 * queues one after another it gives up after f->spin polls. */
#include <kc/kernel.h>

#include "functors.h"

KC_FOR(kt_wait_flag, kt_flag, f, i, {
  (void)i; /* one index waits, whichever it is */
  int64_t v = 0;
  for (int64_t n = 0; n < f->spin && v == 0; n++)
    v = kc_atomic_load_explicit_i64(f->flag, KC_MEMORY_ORDER_ACQUIRE);
  f->seen[0] = v;
})

KC_FOR(kt_set_flag, kt_flag, f, i,
       kc_atomic_store_explicit_i64(f->flag, 1, KC_MEMORY_ORDER_RELEASE))
