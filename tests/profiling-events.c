/* Conformance: the profiling hooks (Kokkos Tools callbacks).
 *
 * Loads the recording tool (tests/fixtures/tool-record.c) through KC_TOOLS_LIBS
 * and checks, line by line, every callback it received and every argument:
 * initialisation (load sequence, interface version, device info, tool
 * settings, arguments, kc's metadata), allocations, deep copies with the
 * labels of the allocations they touch, nested regions, for/reduce/scan
 * launches with their labels, device ids and kernel ids, fences, user
 * metadata and events, launches and fences on queues (each queue's own
 * device id: the queue's device and instance number), a mirrored array
 * (DualView modify/sync), deallocations and finalisation.  Four runs,
 * each a kc_init/kc_finalize cycle of its own:
 *   A  one tool that turns global fencing off;
 *   B  one tool with Kokkos' default global fencing (a fence before each
 *      kernel and region callback), arguments from KOKKOS_TOOLS_ARGS;
 *   C  as B, the tool calling the fence kc gives it from inside
 *      kokkosp_begin_parallel_for with the kernel's device id (kc fences
 *      that queue alone) and from kokkosp_begin_parallel_reduce with a
 *      global id (kc fences everything);
 *   D  two tools at once, each with its own kernel and fence ids.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, mkstemp */

#include <kc/kernel.h>

#include "kernels/functors.h"
#include "profiling-log.h"

KC_KERNEL_DECLARE(kt_fill);
KC_KERNEL_DECLARE(kt_sum_i64);
KC_KERNEL_DECLARE(kt_iscan_i64);

#define KP_VERSION 20240906
#define GLOBAL_FENCE                                                           \
  "kc::tools: global fence before a tool callback: Kokkos Profile Tool Fence"
#define TOOL_FENCE "kc::tools: fence requested by a tool"

typedef struct run {
  const char *name;
  int ntools;
  int fencing;    /* global fencing expected */
  int call_fence; /* the tool fences from begin_parallel_for */
  const char *args;
  tl_expect ex[2];
  uint64_t kid[2], fid[2]; /* last ids each tool handed out */
  kc_info info;
  unsigned q, g;
} run;

static const uint64_t id_base[2] = {0, 1000};

static KC_TEST__PRINTF(2, 3) void all(run *r, const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  for (int i = 0; i < r->ntools; i++)
    tl_line(&r->ex[i], "%s", buf);
}

/* Expectation of a fence reported with device id `dev`. */
static void fence_on(run *r, const char *name, unsigned dev) {
  for (int i = 0; i < r->ntools; i++) {
    r->fid[i]++;
    tl_line(&r->ex[i], "begin_fence\tname=%s\tdev=0x%08x\tfid=%" PRIu64, name,
            dev, r->fid[i]);
    tl_line(&r->ex[i], "end_fence\tfid=%" PRIu64, r->fid[i]);
  }
}

/* A global fence. */
static void fence(run *r, const char *name) { fence_on(r, name, r->g); }

static void global_fence(run *r) {
  if (r->fencing)
    fence(r, GLOBAL_FENCE);
}

/* Expectation of one launch on the queue whose device id is `dev`: begin,
 * (the tool's fence: of that queue from a for, global from a reduce),
 * end. */
static void kernel_on(run *r, const char *kind, const char *label,
                      unsigned dev) {
  uint64_t kid[2];
  global_fence(r);
  for (int i = 0; i < r->ntools; i++) {
    kid[i] = ++r->kid[i];
    tl_line(&r->ex[i], "begin_parallel_%s\tname=%s\tdev=0x%08x\tkid=%" PRIu64,
            kind, label, dev, kid[i]);
  }
  if (r->call_fence && strcmp(kind, "for") == 0)
    fence_on(r, TOOL_FENCE, dev);
  if (r->call_fence && strcmp(kind, "reduce") == 0)
    fence(r, TOOL_FENCE);
  global_fence(r);
  for (int i = 0; i < r->ntools; i++)
    tl_line(&r->ex[i], "end_parallel_%s\tkid=%" PRIu64, kind, kid[i]);
}

/* On the default queue. */
static void kernel(run *r, const char *kind, const char *label) {
  kernel_on(r, kind, label, r->q);
}

static void region_push(run *r, const char *name) {
  KC_CHECK_OK(kc_region_push(name));
  global_fence(r);
  all(r, "push_profile_region\tname=%s", name);
}

static void region_pop(run *r) {
  KC_CHECK_OK(kc_region_pop());
  global_fence(r);
  all(r, "pop_profile_region");
}

static void *alloc(run *r, size_t bytes, kc_space space, const char *label) {
  void *p = NULL;
  KC_REQUIRE_OK(kc_malloc(&p, bytes, space, label));
  all(r, "allocate_data\tspace=%s\tlabel=%s\tptr=%p\tsize=%zu",
      tl_space(&r->info, space), label, p, bytes);
  return p;
}

static void dealloc(run *r, void *p, size_t bytes, kc_space space,
                    const char *label) {
  KC_CHECK_OK(kc_free(p));
  all(r, "deallocate_data\tspace=%s\tlabel=%s\tptr=%p\tsize=%zu",
      tl_space(&r->info, space), label, p, bytes);
}

static void copied(run *r, void *dst, kc_space ds, const char *dl,
                   const void *src, kc_space ss, const char *sl, size_t bytes) {
  all(r,
      "begin_deep_copy\tdst_space=%s\tdst_label=%s\tdst=%p\tsrc_space=%s"
      "\tsrc_label=%s\tsrc=%p\tsize=%zu",
      tl_space(&r->info, ds), dl, dst, tl_space(&r->info, ss), sl, src, bytes);
  all(r, "end_deep_copy");
}

static void copy(run *r, void *dst, kc_space ds, const char *dl,
                 const void *src, kc_space ss, const char *sl, size_t bytes) {
  KC_CHECK_OK(kc_memcpy(dst, src, bytes));
  copied(r, dst, ds, dl, src, ss, sl, bytes);
}

/* A mirrored array reports like Kokkos' DualView: modify at each mark,
 * sync after a sync that copied (none when both sides are one memory). */
static void mirror(run *r) {
  kc_mirror *m = NULL;
  const char *lab = "tools m";
  KC_REQUIRE_OK(kc_mirror_create(&m, 64, lab));
  void *mh = kc_mirror_host(m), *mt = kc_mirror_target(m);
  int distinct = mh != mt;
  KC_CHECK_EQ_INT(distinct, (r->info.spaces & (1u << KC_SPACE_DEVICE)) != 0);
  all(r, "allocate_data\tspace=Host\tlabel=%s\tptr=%p\tsize=64", lab, mh);
  if (distinct)
    all(r, "allocate_data\tspace=%s\tlabel=%s\tptr=%p\tsize=64",
        tl_space(&r->info, KC_SPACE_DEVICE), lab, mt);
  KC_CHECK_OK(kc_mirror_modify_host(m));
  all(r, "dual_view_modify\tlabel=%s\tptr=%p\ton_device=0", lab, mh);
  KC_CHECK_OK(kc_mirror_sync_target(m));
  if (distinct) {
    copied(r, mt, KC_SPACE_DEVICE, lab, mh, KC_SPACE_HOST, lab, 64);
    all(r, "dual_view_sync\tlabel=%s\tptr=%p\tto_device=1", lab, mt);
  }
  KC_CHECK_OK(kc_mirror_modify_target(m));
  all(r, "dual_view_modify\tlabel=%s\tptr=%p\ton_device=1", lab, mt);
  KC_CHECK_OK(kc_mirror_sync_host(m));
  if (distinct) {
    copied(r, mh, KC_SPACE_HOST, lab, mt, KC_SPACE_DEVICE, lab, 64);
    all(r, "dual_view_sync\tlabel=%s\tptr=%p\tto_device=0", lab, mh);
  }
  KC_CHECK_OK(kc_mirror_sync_host(m)); /* current already: silent */
  KC_CHECK_OK(kc_mirror_destroy(m));
  all(r, "deallocate_data\tspace=Host\tlabel=%s\tptr=%p\tsize=64", lab, mh);
  if (distinct)
    all(r, "deallocate_data\tspace=%s\tlabel=%s\tptr=%p\tsize=64",
        tl_space(&r->info, KC_SPACE_DEVICE), lab, mt);
}

/* Queues: each has a device id of its own (the queue's device, instance
 * 2, 3, ... in creation order; the default queue keeps 1), carried by its
 * launches and its fences; kc_fence stays global. */
static void queues(run *r, int64_t *x, int64_t *y, kc_index n) {
  int dev = -1;
  KC_REQUIRE_OK(kc_queue_device(NULL, &dev));
  kc_queue *q1 = NULL, *q2 = NULL, *q3 = NULL;
  KC_REQUIRE_OK(kc_queue_create(&q1, dev));
  KC_REQUIRE_OK(kc_queue_create(&q2, dev));
  unsigned id1 = tl_devid(&r->info, dev, 2), id2 = tl_devid(&r->info, dev, 3);
  KC_CHECK_NE_INT(id1 & 0x1ffff, r->q & 0x1ffff);
  KC_CHECK_NE_INT(id1, id2);
  KC_CHECK_EQ_UINT(id1 >> 17 & 0x7f, (unsigned)(dev > 0 ? dev : 0) & 0x7f);

  kc_policy p1 = kc_policy_on(kc_range(0, n), q1);
  kc_policy p2 = kc_policy_on(kc_range(0, n), q2);
  kt_fill ff = {x, 0, 1, 0}; /* x[i] = i */
  KC_CHECK_OK(kc_parallel_for("tools q1 fill", KC_TEST_KERNEL(kt_fill), &p1,
                              &ff, sizeof ff));
  kernel_on(r, "for", "tools q1 fill", id1);
  KC_CHECK_OK(kc_queue_fence(q1));
  fence_on(r, "kc_queue_fence: queue 2", id1);
  kt_xi64 fx = {x, 0};
  int64_t sum = 0;
  KC_CHECK_OK(kc_parallel_reduce("tools q2 sum", KC_TEST_KERNEL(kt_sum_i64),
                                 &p2, &fx, sizeof fx, &sum));
  kernel_on(r, "reduce", "tools q2 sum", id2);
  kt_scan_i64 fs = {x, y, 0};
  int64_t total = 0;
  KC_CHECK_OK(kc_parallel_scan("tools q2 scan", KC_TEST_KERNEL(kt_iscan_i64),
                               &p2, &fs, sizeof fs, &total));
  kernel_on(r, "scan", "tools q2 scan", id2);
  KC_CHECK_OK(kc_queue_fence(q2));
  fence_on(r, "kc_queue_fence: queue 3", id2);
  KC_CHECK_OK(kc_queue_fence(NULL));
  fence_on(r, "kc_queue_fence: queue 1", r->q);
  KC_CHECK_OK(kc_fence());
  fence(r, "kc_fence");
  KC_CHECK_EQ_INT(sum, (int64_t)n * (n - 1) / 2);
  KC_CHECK_EQ_INT(total, (int64_t)n * (n - 1) / 2);

  KC_CHECK_OK(kc_queue_destroy(q2));
  fence_on(r, "kc_queue_destroy: queue 3", id2);
  /* A new queue gets a new number, not the destroyed one's. */
  KC_REQUIRE_OK(kc_queue_create(&q3, dev));
  unsigned id3 = tl_devid(&r->info, dev, 4);
  kc_policy p3 = kc_policy_on(kc_range(0, n), q3);
  KC_CHECK_OK(kc_parallel_for("tools q3 fill", KC_TEST_KERNEL(kt_fill), &p3,
                              &ff, sizeof ff));
  kernel_on(r, "for", "tools q3 fill", id3);
  KC_CHECK_OK(kc_queue_destroy(q3));
  fence_on(r, "kc_queue_destroy: queue 4", id3);
  KC_CHECK_OK(kc_queue_destroy(q1));
  fence_on(r, "kc_queue_destroy: queue 2", id1);
}

static void setenv_or_unset(const char *name, const char *value) {
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
}

static void scenario(run *r) {
  KC_INFO("run %s: %d tool(s), global fencing %s%s", r->name, r->ntools,
          r->fencing ? "on" : "off", r->call_fence ? ", the tool fences" : "");
  char *log[2] = {tl_tmpfile("tools-log"), tl_tmpfile("tools-log2")};
  char *rec = tl_lib("tests", "kc-tool-record");
  char *rec2 = tl_lib("tests", "kc-tool-record2");
  char libs[8192];
  if (r->ntools == 1)
    snprintf(libs, sizeof libs, "%s", rec);
  else
    snprintf(libs, sizeof libs, "%s;%s", rec, rec2);
  setenv("KC_TOOLS_LIBS", libs, 1);
  setenv("KC_TEST_TOOL_LOG", log[0], 1);
  setenv("KC_TEST_TOOL_LOG2", log[1], 1);
  setenv_or_unset("KC_TEST_TOOL_FENCING", r->fencing ? NULL : "0");
  setenv_or_unset("KC_TEST_TOOL_CALL_FENCE", r->call_fence ? "1" : NULL);
  for (int i = 0; i < 2; i++)
    r->kid[i] = r->fid[i] = id_base[i];

  kc_test_init_backend();
  r->info = kc_test_info();
  r->q = tl_devid_queue(&r->info);
  r->g = tl_devid_fence(&r->info);

  /* Initialisation, as each tool sees it. */
  for (int i = 0; i < r->ntools; i++) {
    tl_line(&r->ex[i], "init_library\tseq=%d\tversion=%d\tndev=1\tdevs=0x%x", i,
            KP_VERSION, r->q);
    tl_line(&r->ex[i],
            "request_tool_settings\tn=1\tdefault_fencing=1\tfencing=%d",
            r->fencing);
    tl_line(&r->ex[i], "provide_tool_programming_interface\tn=1\tfence=yes");
    if (r->args)
      tl_line(&r->ex[i], "parse_args\t%s", r->args);
  }
  all(r, "declare_metadata\tkey=kc_version\tvalue=%s", kc_version());
  all(r, "declare_metadata\tkey=kc_backend\tvalue=%s", r->info.backend);
  all(r, "declare_metadata\tkey=kc_backend_path\tvalue=%s", r->info.path);
  all(r, "declare_metadata\tkey=kc_device_name\tvalue=%s", r->info.dev.name);
  all(r, "declare_metadata\tkey=kc_device\tvalue=%d", r->info.device);
  all(r, "declare_metadata\tkey=kc_concurrency\tvalue=%d", r->info.concurrency);
  all(r, "declare_metadata\tkey=kc_tools_device_id\tvalue=0x%08x", r->q);

  /* The program. */
  const kc_index n = 1000;
  const size_t bytes = (size_t)n * sizeof(int64_t);
  KC_CHECK_OK(kc_declare_metadata("profiling-events", r->name));
  all(r, "declare_metadata\tkey=profiling-events\tvalue=%s", r->name);
  KC_CHECK_OK(kc_profile_event("start"));
  all(r, "profile_event\tname=start");

  int64_t *x = alloc(r, bytes, KC_SPACE_DEVICE, "tools x");
  int64_t *y = alloc(r, bytes, KC_SPACE_DEVICE, "tools y");
  int64_t *h = alloc(r, 8 * sizeof(int64_t), KC_SPACE_HOST, "tools h");
  int64_t *hb = kc_test_xmalloc(bytes);
  for (kc_index i = 0; i < n; i++)
    hb[i] = -1;
  copy(r, x, KC_SPACE_DEVICE, "tools x", hb, KC_SPACE_HOST, "", bytes);

  region_push(r, "outer");
  kc_policy range = kc_range(0, n);
  kt_fill ff = {x, 0, 2, 1}; /* x[i] = 2i + 1 */
  KC_CHECK_OK(kc_parallel_for("tools fill", KC_TEST_KERNEL(kt_fill), &range,
                              &ff, sizeof ff));
  kernel(r, "for", "tools fill");
  /* An empty label is no label: tools get the kernel's name, never "". */
  KC_CHECK_OK(
      kc_parallel_for("", KC_TEST_KERNEL(kt_fill), &range, &ff, sizeof ff));
  kernel(r, "for", "kt_fill");

  region_push(r, "inner");
  kt_xi64 fx = {x, 0};
  int64_t sum = 0;
  KC_CHECK_OK(kc_parallel_reduce(NULL, KC_TEST_KERNEL(kt_sum_i64), &range, &fx,
                                 sizeof fx, &sum));
  kernel(r, "reduce", "kt_sum_i64"); /* no label: the kernel's name */
  KC_CHECK_OK(kc_parallel_reduce("", KC_TEST_KERNEL(kt_sum_i64), &range, &fx,
                                 sizeof fx, &sum));
  kernel(r, "reduce", "kt_sum_i64"); /* "" is no label either */
  region_pop(r);

  kt_scan_i64 fs = {x, y, 0};
  int64_t total = 0;
  KC_CHECK_OK(kc_parallel_scan("tools scan", KC_TEST_KERNEL(kt_iscan_i64),
                               &range, &fs, sizeof fs, &total));
  kernel(r, "scan", "tools scan");
  KC_CHECK_OK(kc_parallel_scan("", KC_TEST_KERNEL(kt_iscan_i64), &range, &fs,
                               sizeof fs, &total));
  kernel(r, "scan", "kt_iscan_i64");
  region_pop(r);

  KC_CHECK_OK(kc_fence());
  fence(r, "kc_fence");
  /* Interior pointers: the labels are those of the enclosing allocations. */
  copy(r, h + 1, KC_SPACE_HOST, "tools h", y + 2, KC_SPACE_DEVICE, "tools y",
       3 * sizeof(int64_t));
  KC_CHECK_EQ_INT(sum, (int64_t)n * n);
  KC_CHECK_EQ_INT(total, (int64_t)n * n);
  KC_CHECK_EQ_INT(h[1], 9);
  KC_CHECK_EQ_INT(h[2], 16);
  KC_CHECK_EQ_INT(h[3], 25);

  mirror(r);
  queues(r, x, y, n);

  dealloc(r, x, bytes, KC_SPACE_DEVICE, "tools x");
  dealloc(r, y, bytes, KC_SPACE_DEVICE, "tools y");
  dealloc(r, h, 8 * sizeof(int64_t), KC_SPACE_HOST, "tools h");
  KC_CHECK_OK(kc_finalize());
  all(r, "finalize_library");

  for (int i = 0; i < r->ntools; i++) {
    char *got = tl_slurp(log[i]);
    char what[64];
    snprintf(what, sizeof what, "run %s, tool %d", r->name, i);
    TL_CHECK_LOG(got, r->ex[i].text, what);
    free(got);
    tl_expect_free(&r->ex[i]);
  }
  for (int i = 0; i < 2; i++) {
    remove(log[i]);
    free(log[i]);
  }
  free(hb);
  free(rec);
  free(rec2);
}

/* Instance numbers when every one of them belongs to a live queue: a
 * destroyed queue's number is the only free one and goes to the next
 * queue; queues beyond that share numbers.  Each create then scanned
 * every live queue for every candidate number (seconds a queue; the
 * watchdog's 60 s ended the test).  Skipped where queues are the
 * backend's streams (131 069 of them). */
enum { INSTANCES = 0x1fffd, SHARING = 20 };
static void instances(void) {
  char *log = tl_tmpfile("tools-log");
  char *rec = tl_lib("tests", "kc-tool-record");
  setenv("KC_TOOLS_LIBS", rec, 1);
  setenv("KC_TEST_TOOL_LOG", log, 1);
  setenv("KC_TEST_TOOL_FENCING", "0", 1);
  unsetenv("KC_TEST_TOOL_CALL_FENCE");
  kc_test_init_backend();
  kc_info info = kc_test_info();
  if (info.device >= 0) {
    KC_INFO("instances: skipped on a device backend (%s)", info.backend);
    KC_CHECK_OK(kc_finalize());
    remove(log);
    free(log);
    free(rec);
    return;
  }
  kc_queue **q = kc_test_xmalloc((INSTANCES + SHARING) * sizeof *q);
  for (int i = 0; i < INSTANCES; i++)
    KC_REQUIRE_OK(kc_queue_create(&q[i], 0));
  /* q[3] has instance 5: destroyed, its number is the one free. */
  KC_CHECK_OK(kc_queue_destroy(q[3]));
  KC_REQUIRE_OK(kc_queue_create(&q[3], 0));
  for (int i = INSTANCES; i < INSTANCES + SHARING; i++)
    KC_REQUIRE_OK(kc_queue_create(&q[i], 0));
  int64_t x[4];
  kt_fill ff = {x, 0, 1, 0};
  kc_policy p = kc_policy_on(kc_range(0, 4), q[3]);
  KC_CHECK_OK(kc_parallel_for("instances reuse", KC_TEST_KERNEL(kt_fill), &p,
                              &ff, sizeof ff));
  /* A sharing queue is destroyed: the number stays taken by the other. */
  KC_CHECK_OK(kc_queue_destroy(q[INSTANCES]));
  for (int i = 0; i < INSTANCES + SHARING; i++)
    if (i != INSTANCES)
      KC_CHECK_OK(kc_queue_destroy(q[i]));
  KC_CHECK_OK(kc_finalize());
  char *got = tl_slurp(log);
  char want[256];
  snprintf(want, sizeof want,
           "begin_parallel_for\tname=instances reuse\tdev=0x%08x\t",
           tl_devid(&info, 0, 5));
  KC_CHECK(got && strstr(got, want));
  /* Both queues of instance 5 were destroyed with their own number. */
  snprintf(want, sizeof want,
           "begin_fence\tname=kc_queue_destroy: queue 5\tdev=0x%08x\t",
           tl_devid(&info, 0, 5));
  int fives = 0;
  for (const char *at = got; at && (at = strstr(at, want)); at++)
    fives++;
  KC_CHECK_EQ_INT(fives, 2);
  free(got);
  free(q);
  remove(log);
  free(log);
  free(rec);
}

int main(void) {
  tl_watchdog();
  unsetenv("KOKKOS_TOOLS_LIBS");

  run a = {.name = "A",
           .ntools = 1,
           .fencing = 0,
           .args = "argc=2\targv=--alpha|beta"};
  setenv("KC_TOOLS_ARGS", " --alpha \t beta ", 1);
  scenario(&a);

  /* KOKKOS_TOOLS_ARGS counts when kc's own variable is unset. */
  run b = {.name = "B", .ntools = 1, .fencing = 1, .args = "argc=1\targv=-k"};
  unsetenv("KC_TOOLS_ARGS");
  setenv("KOKKOS_TOOLS_ARGS", "-k", 1);
  scenario(&b);
  unsetenv("KOKKOS_TOOLS_ARGS");

  run c = {.name = "C", .ntools = 1, .fencing = 1, .call_fence = 1};
  scenario(&c);

  run d = {.name = "D", .ntools = 2, .fencing = 1};
  scenario(&d);

  instances();
  return kc_test_done();
}
