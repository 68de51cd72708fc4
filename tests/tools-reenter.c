/* A Kokkos Tools library for the tests that calls back into kc from its
 * callbacks, as a profiling tool might: kc_init and kc_fence from
 * kokkosp_init_library, kc_finalize from kokkosp_begin_parallel_for, and
 * kc_finalize and kc_fence from kokkosp_finalize_library.  What each call
 * returned (and its detail) is kept for the test program, which reads it
 * through tools_reenter_result(). */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <kc/kc.h>

#define TOOL_API __attribute__((visibility("default")))

struct kp_device_info {
  size_t deviceID;
};

enum {
  R_INIT_INIT,         /* kc_init from kokkosp_init_library */
  R_INIT_FENCE,        /* kc_fence from kokkosp_init_library */
  R_INIT_IS_INIT,      /* kc_is_initialized there */
  R_BEGIN_FINALIZE,    /* kc_finalize from kokkosp_begin_parallel_for */
  R_FINALIZE_FINALIZE, /* kc_finalize from kokkosp_finalize_library */
  R_FINALIZE_FENCE,    /* kc_fence from kokkosp_finalize_library */
  R_COUNT
};

static int results[R_COUNT] = {1, 1, -100, 1, 1, 1};
static char details[R_COUNT][512];

static void keep(int which, int rc) {
  results[which] = rc;
  snprintf(details[which], sizeof details[which], "%s", kc_last_error());
}

/* What call `which` returned, and its detail. */
TOOL_API int tools_reenter_result(int which, const char **detail) {
  if (which < 0 || which >= R_COUNT)
    return 1;
  if (detail)
    *detail = details[which];
  return results[which];
}

TOOL_API void kokkosp_init_library(int seq, uint64_t version, uint32_t ndev,
                                   struct kp_device_info *devs) {
  (void)seq;
  (void)version;
  (void)ndev;
  (void)devs;
  keep(R_INIT_INIT, kc_init());
  keep(R_INIT_FENCE, kc_fence());
  results[R_INIT_IS_INIT] = kc_is_initialized();
}

TOOL_API void kokkosp_begin_parallel_for(const char *name, uint32_t dev,
                                         uint64_t *kid) {
  (void)name;
  (void)dev;
  *kid = 1;
  keep(R_BEGIN_FINALIZE, kc_finalize());
}

TOOL_API void kokkosp_end_parallel_for(uint64_t kid) { (void)kid; }

TOOL_API void kokkosp_finalize_library(void) {
  keep(R_FINALIZE_FINALIZE, kc_finalize());
  keep(R_FINALIZE_FENCE, kc_fence());
}
