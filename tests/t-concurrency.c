/* Conformance, hostile: many application threads launching, allocating,
 * initialising and finalising at once, with no profiling tool, with the
 * recording tool (tests/fixtures/tool-record.c) and with two of them.  Each
 * scenario runs in a process of its own with a time limit (kc-isolate.h);
 * .ci/run's tsan step runs it under ThreadSanitizer.
 *
 * Owners each hold a kc_init reference across their work, so every one of
 * their calls must succeed, whatever the other threads do.  Riders never
 * call kc_init: their launches, fences and regions race the last
 * kc_finalize of one cycle and the first kc_init of the next, and may only
 * succeed or fail with KC_ENOINIT.  With tools loaded, each tool's log must
 * show every kernel and fence that began also end before that tool's
 * kokkosp_finalize_library, and no callback at all between a
 * kokkosp_finalize_library and the next kokkosp_init_library.  Before kc
 * drained the calls in flight at its last kc_finalize, riders' launches
 * called the tool after kokkosp_finalize_library and left begins without
 * ends (and per-launch id arrays leaked with two tools). */
#include <pthread.h>

#include <kc/kernel.h>

#include "kc-isolate.h"
#include "kc-test.h"
#include "kernels/functors.h"
#include "profiling-log.h"

KC_KERNEL_DECLARE(kt_count);

enum { OWNERS = 2, RIDERS = 4, NHITS = 8 };

static int rounds;

/* One owner's cycles: kc_init, allocate, fill, launch, copy back, free,
 * kc_finalize; every call must succeed. */
static void *owner(void *arg) {
  (void)arg;
  for (int r = 0; r < rounds; r++) {
    KC_REQUIRE_OK(kc_init());
    int32_t *d = NULL;
    KC_CHECK_OK(
        kc_malloc((void **)&d, NHITS * sizeof *d, KC_SPACE_DEVICE, "owner"));
    if (d) {
      KC_CHECK_OK(kc_memset(d, 0, NHITS * sizeof *d));
      kc_policy p = kc_range(0, NHITS);
      kt_count c = {d, 0};
      KC_CHECK_OK(
          kc_parallel_for("owner", KC_KERNEL(kt_count), &p, &c, sizeof c));
      int32_t h[NHITS];
      KC_CHECK_OK(kc_memcpy(h, d, sizeof h));
      KC_CHECK_EQ_INT(h[0] + h[NHITS - 1], 2);
      KC_CHECK_OK(kc_free(d));
    }
    KC_CHECK_OK(kc_region_push("owner"));
    KC_CHECK_OK(kc_fence());
    KC_CHECK_OK(kc_region_pop());
    KC_CHECK_OK(kc_finalize());
  }
  return NULL;
}

static int ok_or_noinit(int rc) { return rc == 0 || rc == KC_ENOINIT; }

/* A rider's launches on its own host array, racing the owners' cycles. */
static void *rider(void *arg) {
  int32_t *hits = arg;
  int ran = 0;
  for (int r = 0; r < 4 * rounds; r++) {
    kc_policy p = kc_range(0, NHITS);
    kt_count c = {hits, 0};
    int rc = kc_parallel_for("rider", KC_KERNEL(kt_count), &p, &c, sizeof c);
    if (!ok_or_noinit(rc))
      KC_FAIL("rider launch: %s: %s", kc_err_name(rc), kc_last_error());
    ran += rc == 0;
    rc = kc_fence();
    if (!ok_or_noinit(rc))
      KC_FAIL("rider fence: %s: %s", kc_err_name(rc), kc_last_error());
    rc = kc_profile_event("rider");
    if (!ok_or_noinit(rc))
      KC_FAIL("rider event: %s: %s", kc_err_name(rc), kc_last_error());
  }
  /* Each launch that succeeded ran every index once. */
  KC_CHECK_EQ_INT(hits[0], ran);
  KC_CHECK_EQ_INT(hits[NHITS - 1], ran);
  return NULL;
}

/* Every kid (fid) that began ends within its init/finalize cycle, and no
 * callback falls outside one. */
static void check_log(const char *path) {
  char *log = tl_slurp(path);
  int cycles = 0, open_ = 0, outside = 0, bad_end = 0, lines = 0;
  int in_cycle = 0;
  enum { MAXOPEN = 4096 };
  static char open_ids[MAXOPEN][40];
  char *save = NULL;
  for (char *l = strtok_r(log, "\n", &save); l;
       l = strtok_r(NULL, "\n", &save)) {
    lines++;
    if (strncmp(l, "init_library", 12) == 0) {
      in_cycle = 1;
      cycles++;
      continue;
    }
    if (!in_cycle) {
      if (outside++ < 3)
        KC_FAIL("%s: callback outside init/finalize: %s", path, l);
      continue;
    }
    if (strcmp(l, "finalize_library") == 0) {
      if (open_ > 0)
        KC_FAIL("%s: %d kernel(s)/fence(s) began and never ended before "
                "finalize_library (first: %s)",
                path, open_, open_ids[0]);
      open_ = 0;
      in_cycle = 0;
      continue;
    }
    const char *id = strstr(l, "\tkid=");
    if (!id)
      id = strstr(l, "\tfid=");
    if (!id)
      continue;
    if (strncmp(l, "begin_", 6) == 0) {
      if (open_ < MAXOPEN)
        snprintf(open_ids[open_++], sizeof open_ids[0], "%s", id + 1);
    } else if (strncmp(l, "end_", 4) == 0) {
      int k = 0;
      while (k < open_ && strcmp(open_ids[k], id + 1) != 0)
        k++;
      if (k == open_) {
        if (bad_end++ < 3)
          KC_FAIL("%s: end without its begin: %s", path, l);
      } else {
        memcpy(open_ids[k], open_ids[--open_], sizeof open_ids[0]);
      }
    }
  }
  KC_CHECK_EQ_INT(outside, 0);
  KC_CHECK_EQ_INT(bad_end, 0);
  KC_CHECK_EQ_INT(in_cycle, 0);
  KC_CHECK_GE_INT(cycles, 1);
  KC_INFO("%s: %d lines, %d init/finalize cycle(s)", path, lines, cycles);
  free(log);
}

/* One scenario: 0, 1 or 2 recording tools. */
static int scenario(void *arg) {
  int ntools = *(const int *)arg;
  char *logs[2] = {NULL, NULL};
  if (ntools > 0) {
    char libs[8192];
    logs[0] = tl_tmpfile("conc-log");
    logs[1] = tl_tmpfile("conc-log2");
    char *rec = tl_lib("tests", "kc-tool-record");
    char *rec2 = tl_lib("tests", "kc-tool-record2");
    if (ntools == 1)
      snprintf(libs, sizeof libs, "%s", rec);
    else
      snprintf(libs, sizeof libs, "%s;%s", rec, rec2);
    setenv("KC_TOOLS_LIBS", libs, 1);
    setenv("KC_TEST_TOOL_LOG", logs[0], 1);
    setenv("KC_TEST_TOOL_LOG2", logs[1], 1);
    free(rec);
    free(rec2);
  }
  /* Host arrays only: skip backends whose kernels cannot touch them. */
  kc_test_init_backend();
  if (kc_test_device_is_distinct())
    KC_SKIP("backend '%s' keeps device memory apart: the riders launch on "
            "host arrays",
            kc_backend_name());
  KC_REQUIRE_OK(kc_finalize());

  pthread_t t[OWNERS + RIDERS];
  static int32_t hits[RIDERS][NHITS];
  memset(hits, 0, sizeof hits);
  for (int i = 0; i < OWNERS; i++)
    KC_REQUIRE(pthread_create(&t[i], NULL, owner, NULL) == 0);
  for (int i = 0; i < RIDERS; i++)
    KC_REQUIRE(pthread_create(&t[OWNERS + i], NULL, rider, hits[i]) == 0);
  for (int i = 0; i < OWNERS + RIDERS; i++)
    pthread_join(t[i], NULL);
  KC_CHECK_EQ_INT(kc_is_initialized(), 0);
  for (int i = 0; i < ntools; i++)
    check_log(logs[i]);
  for (int i = 0; i < 2; i++) {
    if (logs[i])
      unlink(logs[i]);
    free(logs[i]);
  }
  return kc_test_done();
}

int main(void) {
  static const int none = 0, one = 1, two = 2;
  setvbuf(stdout, NULL, _IOLBF, 0);
  rounds = (int)kc_test_large(400);
  int skipped = 0;
  skipped += kc_isolate("no tool", scenario, (void *)&none, 240) == 77;
  skipped += kc_isolate("one tool", scenario, (void *)&one, 240) == 77;
  skipped += kc_isolate("two tools", scenario, (void *)&two, 240) == 77;
  if (skipped == 3)
    KC_SKIP("every scenario skipped (see above)");
  return kc_test_done();
}
