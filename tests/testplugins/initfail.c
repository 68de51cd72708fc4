/* A plugin whose probe finds a device but whose init fails.  The core must
 * report the failure and call nothing else: finalize and every other slot
 * abort the process, so a core that calls them fails the test. */
#include <stdlib.h>

#include "common.h"

static int initfail_init(void *state, const kc_backend_config *cfg) {
  (void)state;
  (void)cfg;
  return kc_backend_error(KC_EDEVICE,
                          "test plugin initfail fails its init by design");
}

static void initfail_finalize(void *state) {
  (void)state;
  abort();
}

static int initfail_info(void *state, kc_info *out) {
  (void)state;
  (void)out;
  abort();
}

static int initfail_launch(void *state, const kc_launch *l) {
  (void)state;
  (void)l;
  abort();
}

/* Built a second time as libkc-cuda.so (TP_NAME=cuda), a "cuda" plugin
 * whose probe succeeds but whose init fails: automatic mode must go on. */
#ifndef TP_NAME
#define TP_NAME initfail
#endif
#define TP_STR_(x) #x
#define TP_STR(x) TP_STR_(x)
#define TP_SYM_(x) kc_backend_##x
#define TP_SYM(x) TP_SYM_(x)

KC_API const kc_backend_ops TP_SYM(TP_NAME) = {
    TP_OPS(TP_STR(TP_NAME)),       .init = initfail_init,
    .finalize = initfail_finalize, .info = initfail_info,
    .launch = initfail_launch,
};
