/* The memory space names profiling tools get on a backend with memory of
 * its own: Kokkos' names for the backend's device type ("hip": HIP,
 * HIPManaged, HIPHostPinned), and "Host" for every space of a backend
 * Kokkos has no device type for, never a name that tools do not know
 * (space-time-stack and chrome-tracing abort on those).  The backends are
 * test plugins (tests/testplugins/devspaces.c) that report distinct device
 * spaces.  Runs once. */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include "profiling-log.h"

static void spaces(const char *backend, const char *const want[4]) {
  KC_INFO("backend %s", backend);
  char *logfile = tl_tmpfile("tools-spaces-log");
  setenv("KC_TEST_TOOL_LOG", logfile, 1);
  setenv("KC_BACKEND", backend, 1);
  int rc = kc_init();
  if (rc != 0) {
    printf("FAIL: kc_init on the test plugin %s: %s: %s\n", backend,
           kc_err_name(rc), kc_last_error());
    exit(1);
  }
  KC_CHECK_EQ_STR(kc_backend_name(), backend);
  void *p[KC_SPACE_COUNT] = {NULL};
  for (int s = 0; s < KC_SPACE_COUNT; s++)
    KC_CHECK_OK(kc_malloc(&p[s], 64, (kc_space)s, kc_space_name((kc_space)s)));
  for (int s = 0; s < KC_SPACE_COUNT; s++)
    KC_CHECK_OK(kc_free(p[s]));
  KC_CHECK_OK(kc_finalize());

  char *log = tl_slurp(logfile);
  char line[256];
  for (int s = 0; s < KC_SPACE_COUNT; s++) {
    snprintf(line, sizeof line, "allocate_data\tspace=%s\tlabel=%s\t", want[s],
             kc_space_name((kc_space)s));
    KC_CHECK_CONTAINS(log, line);
    snprintf(line, sizeof line, "deallocate_data\tspace=%s\tlabel=%s\t",
             want[s], kc_space_name((kc_space)s));
    KC_CHECK_CONTAINS(log, line);
  }
  free(log);
  remove(logfile);
  free(logfile);
}

int main(void) {
  tl_watchdog();
  const char *top = getenv("KC_TEST_TOP_BUILDDIR");
  if (!top || !*top)
    KC_SKIP("KC_TEST_TOP_BUILDDIR is not set: run through tests/run-backend");
  char *rec = tl_lib("tests", "kc-tool-record");
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/spaceplugins/.libs", top);
  setenv("KC_PLUGIN_PATH", path, 1);
  setenv("KC_TOOLS_LIBS", rec, 1);
  unsetenv("KC_TOOLS_ARGS");

  static const char *const hip[] = {"Host", "HIP", "HIPManaged",
                                    "HIPHostPinned"};
  spaces("hip", hip);
  static const char *const unknown[] = {"Host", "Host", "Host", "Host"};
  spaces("devspaces", unknown);
  free(rec);
  return kc_test_done();
}
