/* A Kokkos Tools library for the tests: it logs every kokkosp_* callback
 * with its arguments, one line each, to the file named by $KC_TEST_TOOL_LOG
 * (appended to; stderr when unset).  Lines are tab-separated `key=value`
 * fields after the callback's name, e.g.
 *
 *   begin_parallel_for<TAB>name=fill<TAB>dev=0x06000001<TAB>kid=1
 *
 * Kernel ids and fence ids are handed out from two counters starting at
 * ID_BASE + 1, so that a test can predict the whole log.
 *
 * Knobs, read at kokkosp_init_library:
 *   KC_TEST_TOOL_FENCING=0|1  answer kokkosp_request_tool_settings with
 *                             requires_global_fencing = 0|1 (unset: leave
 *                             the runtime's default alone)
 *   KC_TEST_TOOL_CALL_FENCE=1 call the fence of the tool programming
 *                             interface from kokkosp_begin_parallel_for
 *
 * Built twice (libkc-tool-record, libkc-tool-record2) with different
 * LOG_ENV and ID_BASE, so that a test can load two tools at once.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef LOG_ENV
#define LOG_ENV "KC_TEST_TOOL_LOG"
#endif
#ifndef ID_BASE
#define ID_BASE 0
#endif

#define TOOL_API __attribute__((visibility("default")))

/* The Kokkos Tools C ABI, spelled independently of kc's own copy so that
 * a mistake in one is caught by the other. */
struct kp_device_info {
  size_t deviceID;
};
struct kp_space_handle {
  char name[64];
};
struct kp_tool_settings {
  bool requires_global_fencing;
  bool padding[255];
};
struct kp_tool_interface {
  void (*fence)(uint32_t);
  void (*padding[31])(void);
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static uint64_t next_kid = ID_BASE, next_fid = ID_BASE;
static void (*tool_fence)(uint32_t);
static int call_fence;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...) {
  va_list ap;
  pthread_mutex_lock(&lock);
  FILE *f = out ? out : stderr;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fputc('\n', f);
  fflush(f);
  pthread_mutex_unlock(&lock);
}

TOOL_API void kokkosp_init_library(int seq, uint64_t version, uint32_t ndev,
                                   struct kp_device_info *devs) {
  pthread_mutex_lock(&lock);
  const char *path = getenv(LOG_ENV);
  if (!out && path && *path)
    out = fopen(path, "a");
  next_kid = next_fid = ID_BASE;
  const char *cf = getenv("KC_TEST_TOOL_CALL_FENCE");
  call_fence = cf && strcmp(cf, "1") == 0;
  pthread_mutex_unlock(&lock);
  char devlist[256] = "";
  size_t used = 0;
  for (uint32_t i = 0; devs && i < ndev && used < sizeof devlist - 32; i++)
    used += (size_t)snprintf(devlist + used, sizeof devlist - used, "%s0x%zx",
                             i ? "," : "", devs[i].deviceID);
  logf_("init_library\tseq=%d\tversion=%" PRIu64 "\tndev=%" PRIu32 "\tdevs=%s",
        seq, version, ndev, devlist);
}

TOOL_API void kokkosp_finalize_library(void) {
  logf_("finalize_library");
  pthread_mutex_lock(&lock);
  if (out)
    fclose(out);
  out = NULL;
  tool_fence = NULL;
  pthread_mutex_unlock(&lock);
}

TOOL_API void kokkosp_request_tool_settings(uint32_t n,
                                            struct kp_tool_settings *s) {
  const char *v = getenv("KC_TEST_TOOL_FENCING");
  int before = s->requires_global_fencing;
  if (v && *v)
    s->requires_global_fencing = strcmp(v, "0") != 0;
  logf_("request_tool_settings\tn=%" PRIu32 "\tdefault_fencing=%d\tfencing=%d",
        n, before, (int)s->requires_global_fencing);
}

TOOL_API void
kokkosp_provide_tool_programming_interface(uint32_t n,
                                           struct kp_tool_interface tpi) {
  pthread_mutex_lock(&lock);
  tool_fence = tpi.fence;
  pthread_mutex_unlock(&lock);
  logf_("provide_tool_programming_interface\tn=%" PRIu32 "\tfence=%s", n,
        tpi.fence ? "yes" : "no");
}

TOOL_API void kokkosp_parse_args(int argc, char **argv) {
  char buf[512] = "";
  size_t used = 0;
  for (int i = 0; i < argc && used < sizeof buf - 1; i++)
    used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s",
                             i ? "|" : "", argv[i]);
  logf_("parse_args\targc=%d\targv=%s", argc, buf);
}

TOOL_API void kokkosp_declare_metadata(const char *key, const char *value) {
  logf_("declare_metadata\tkey=%s\tvalue=%s", key, value);
}

static uint64_t new_id(uint64_t *counter) {
  pthread_mutex_lock(&lock);
  uint64_t id = ++*counter;
  pthread_mutex_unlock(&lock);
  return id;
}

static void begin(const char *what, const char *name, uint32_t dev,
                  uint64_t *kid) {
  *kid = new_id(&next_kid);
  logf_("begin_parallel_%s\tname=%s\tdev=0x%08" PRIx32 "\tkid=%" PRIu64, what,
        name, dev, *kid);
}

TOOL_API void kokkosp_begin_parallel_for(const char *name, uint32_t dev,
                                         uint64_t *kid) {
  begin("for", name, dev, kid);
  if (call_fence && tool_fence)
    tool_fence(dev);
}
TOOL_API void kokkosp_begin_parallel_reduce(const char *name, uint32_t dev,
                                            uint64_t *kid) {
  begin("reduce", name, dev, kid);
}
TOOL_API void kokkosp_begin_parallel_scan(const char *name, uint32_t dev,
                                          uint64_t *kid) {
  begin("scan", name, dev, kid);
}
TOOL_API void kokkosp_end_parallel_for(uint64_t kid) {
  logf_("end_parallel_for\tkid=%" PRIu64, kid);
}
TOOL_API void kokkosp_end_parallel_reduce(uint64_t kid) {
  logf_("end_parallel_reduce\tkid=%" PRIu64, kid);
}
TOOL_API void kokkosp_end_parallel_scan(uint64_t kid) {
  logf_("end_parallel_scan\tkid=%" PRIu64, kid);
}

TOOL_API void kokkosp_push_profile_region(const char *name) {
  logf_("push_profile_region\tname=%s", name);
}
TOOL_API void kokkosp_pop_profile_region(void) { logf_("pop_profile_region"); }

TOOL_API void kokkosp_allocate_data(struct kp_space_handle space,
                                    const char *label, const void *ptr,
                                    uint64_t size) {
  logf_("allocate_data\tspace=%.64s\tlabel=%s\tptr=%p\tsize=%" PRIu64,
        space.name, label, ptr, size);
}
TOOL_API void kokkosp_deallocate_data(struct kp_space_handle space,
                                      const char *label, const void *ptr,
                                      uint64_t size) {
  logf_("deallocate_data\tspace=%.64s\tlabel=%s\tptr=%p\tsize=%" PRIu64,
        space.name, label, ptr, size);
}

TOOL_API void kokkosp_begin_deep_copy(struct kp_space_handle dst_space,
                                      const char *dst_label, const void *dst,
                                      struct kp_space_handle src_space,
                                      const char *src_label, const void *src,
                                      uint64_t size) {
  logf_("begin_deep_copy\tdst_space=%.64s\tdst_label=%s\tdst=%p"
        "\tsrc_space=%.64s\tsrc_label=%s\tsrc=%p\tsize=%" PRIu64,
        dst_space.name, dst_label, dst, src_space.name, src_label, src, size);
}
TOOL_API void kokkosp_end_deep_copy(void) { logf_("end_deep_copy"); }

TOOL_API void kokkosp_begin_fence(const char *name, uint32_t dev,
                                  uint64_t *fid) {
  *fid = new_id(&next_fid);
  logf_("begin_fence\tname=%s\tdev=0x%08" PRIx32 "\tfid=%" PRIu64, name, dev,
        *fid);
}
TOOL_API void kokkosp_end_fence(uint64_t fid) {
  logf_("end_fence\tfid=%" PRIu64, fid);
}

TOOL_API void kokkosp_dual_view_sync(const char *label, const void *ptr,
                                     bool to_device) {
  logf_("dual_view_sync\tlabel=%s\tptr=%p\tto_device=%d", label, ptr,
        (int)to_device);
}
TOOL_API void kokkosp_dual_view_modify(const char *label, const void *ptr,
                                       bool on_device) {
  logf_("dual_view_modify\tlabel=%s\tptr=%p\ton_device=%d", label, ptr,
        (int)on_device);
}

TOOL_API void kokkosp_profile_event(const char *name) {
  logf_("profile_event\tname=%s", name);
}
