/* The CUDA plugin's host logic against a driver that misbehaves.
 *
 * KC_CUDA_DRIVER points the plugin at the fake driver of fakecu.c (built
 * here as libfakecu.so), whose FAKECU_* settings make chosen calls fail,
 * succeed without a result, or report values no device has.  Each case
 * runs in a process of its own with a time limit (kc-isolate.h), because
 * the plugin opens its driver once per process and because a case that
 * crashes or hangs must be reported, not suffered.  Every case checks the
 * documented outcome: the error code and a part of kc_last_error() that
 * names the cause.  The kernels are hand-made PTX the fake never runs.
 *
 * Runs once (not per backend) and needs no GPU; skips when configure left
 * the CUDA backend out.  Environment (tests/run-backend):
 * KC_TEST_BACKENDS, KC_TEST_TOP_BUILDDIR. */
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "kc-isolate.h"

#define CASE_TIMEOUT 60

/* The kernels: only the names of their entries and symbols matter. */
static const char ptx_for[] = ".version 8.0\n.target sm_90\n"
                              "// k_for__kcp k_for__kcg kc__cuda_staging\n";
static const char ptx_reduce[] =
    ".version 8.0\n.target sm_90\n"
    "// k_reduce__kcp k_reduce__kcg kc__cuda_staging kc__cuda_result_done\n";

static const char ptx_team[] = ".version 8.0\n.target sm_90\n"
                               "// k_team__kcp k_team__kcg kc__cuda_staging\n";
static const char ptx_md[] =
    ".version 8.0\n.target sm_90\n"
    "// k_md__kcp k_md__kcg kc__cuda_staging kc__cuda_md_flags\n";
static const char ptx_mdr[] =
    ".version 8.0\n.target sm_90\n// k_mdr__kcp k_mdr__kcg kc__cuda_staging "
    "kc__cuda_md_flags kc__cuda_result_done\n";

static kc_kernel *k_for, *k_reduce, *k_team, *k_md, *k_mdr;

/* Registers kernel `name` of `kind` (rank for MD kinds; a reduction: a
 * sum of doubles) with the hand-made PTX `ptx`. */
static kc_kernel *reg(const char *name, kc_kernel_kind kind, int rank,
                      const char *ptx) {
  kc_kernel_desc d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.name = name;
  d.kind = kind;
  d.rank = rank;
  d.ptx = ptx;
  if (kind == KC_KERNEL_REDUCE || kind == KC_KERNEL_MDREDUCE) {
    d.reducer.op = KC_REDUCE_SUM;
    d.reducer.type = KC_DOUBLE;
  }
  kc_kernel *k = NULL;
  KC_REQUIRE_OK(kc_kernel_register(&d, &k));
  return k;
}

static void register_kernels(void) {
  k_for = reg("k_for", KC_KERNEL_FOR, 0, ptx_for);
  k_reduce = reg("k_reduce", KC_KERNEL_REDUCE, 0, ptx_reduce);
  k_mdr = reg("k_mdr", KC_KERNEL_MDREDUCE, 2, ptx_mdr);
  k_md = reg("k_md", KC_KERNEL_MDFOR, 2, ptx_md);
  k_team = reg("k_team", KC_KERNEL_TEAM, 0, ptx_team);
}

/* ------------------------------------------------------------- helpers */

/* A launch of k_for over 1000 indices with a functor of `bytes` bytes:
 * up to 32 KB it travels as a parameter, up to the constant region's
 * 64 KB through it, beyond in global memory, through the pinned ring. */
static int run_for(size_t bytes) {
  static unsigned char functor[128 << 10];
  kc_policy p = kc_range(0, 1000);
  return kc_parallel_for("t-cuda-fake", k_for, &p, functor, bytes);
}

static int run_reduce(void) {
  double functor[2] = {0, 0}, sum = -1;
  kc_policy p = kc_range(0, 100000);
  return kc_parallel_reduce("t-cuda-fake", k_reduce, &p, functor,
                            sizeof functor, &sum);
}

/* Shows the detail a case checked, in the test's log. */
#define SAID() KC_INFO("  kc_last_error: %.300s", kc_last_error())

/* The case's result for kc_isolate: the child inherits the parent's count
 * of failed checks, so only those after `inherited` are the case's. */
static int inherited;
static int verdict(void) { return kc_test_failures() > inherited; }

/* --------------------------------------------------- a driver that works */

/* Every path the other cases break, with FAKECU_TRACE off and nothing
 * injected: kc comes up, describes the fake device, allocates in every
 * space, launches with functors of each way in, reduces, and runs a queue
 * and timed events. */
static int good_driver(void *arg) {
  (void)arg;
  KC_REQUIRE_OK(kc_init());
  kc_info info = kc_test_info();
  KC_CHECK_EQ_STR(info.backend, "cuda");
  KC_CHECK_EQ_STR(info.dev.name, "Fake GPU");
  KC_CHECK_EQ_INT(info.dev.multiprocessors, 132);
  KC_CHECK_EQ_INT(info.concurrency, 132 * 2048);
  KC_CHECK(info.dev.total_memory > 0);
  for (int sp = KC_SPACE_DEVICE; sp <= KC_SPACE_HOST_PINNED; sp++) {
    void *p = NULL;
    double h[16] = {1};
    if (KC_CHECK_OK(kc_malloc(&p, sizeof h, (kc_space)sp, "t")) == 0) {
      KC_CHECK_OK(kc_memcpy(p, h, sizeof h));
      KC_CHECK_OK(kc_memcpy(h, p, sizeof h));
      KC_CHECK_OK(kc_free(p));
    }
  }
  KC_CHECK_OK(run_for(64));
  KC_CHECK_OK(run_for(48 << 10));
  KC_CHECK_OK(run_for(100 << 10));
  KC_CHECK_OK(run_reduce());
  kc_queue *q = NULL;
  if (KC_CHECK_OK(kc_queue_create(&q, 0)) == 0)
    KC_CHECK_OK(kc_queue_destroy(q));
  kc_event *a = NULL, *b = NULL;
  KC_REQUIRE_OK(kc_event_create(&a));
  KC_REQUIRE_OK(kc_event_create(&b));
  KC_CHECK_OK(kc_event_record(a, NULL));
  KC_CHECK_OK(run_for(64));
  KC_CHECK_OK(kc_event_record(b, NULL));
  KC_CHECK_OK(kc_event_synchronize(b));
  double ms = -1;
  KC_CHECK_OK(kc_event_elapsed(a, b, &ms));
  KC_CHECK_EQ_DBL(ms, 0.25, 0);
  KC_CHECK_OK(kc_event_destroy(a));
  KC_CHECK_OK(kc_event_destroy(b));
  KC_CHECK_OK(kc_fence());
  KC_CHECK_OK(kc_finalize());
  return verdict();
}

/* ------------------------------------ allocations that give no address */

/* The staging ring's pinned memory (the first pinned allocation of a
 * program without reductions) comes back NULL: a functor over 64 KB was
 * copied through it (SIGSEGV). */
static int null_ring(void *arg) {
  (void)arg;
  setenv("FAKECU_FAIL", "cuMemHostAlloc@1=null", 1);
  KC_REQUIRE_OK(kc_init());
  KC_CHECK_ERR(run_for(100 << 10), KC_ENOMEM);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), "functor staging");
  KC_CHECK_CONTAINS(kc_last_error(), "CUDA_ERROR_OUT_OF_MEMORY");
  return verdict();
}

/* The reduction scratch (cuMemAlloc after the default lane's counter)
 * comes back 0: the reduction reported success. */
static int null_partials(void *arg) {
  (void)arg;
  setenv("FAKECU_FAIL", "cuMemAlloc_v2@2=null", 1);
  KC_REQUIRE_OK(kc_init());
  KC_CHECK_ERR(run_reduce(), KC_ENOMEM);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), "reduction scratch");
  return verdict();
}

/* The pinned result slot comes back NULL. */
static int null_result_slot(void *arg) {
  (void)arg;
  setenv("FAKECU_FAIL", "cuMemHostAlloc@1=null", 1);
  KC_REQUIRE_OK(kc_init());
  KC_CHECK_ERR(run_reduce(), KC_ENOMEM);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), "result slot");
  return verdict();
}

/* The default lane's counter, allocated by kc_init. */
static int null_counter(void *arg) {
  (void)arg;
  setenv("FAKECU_FAIL", "cuMemAlloc_v2@1=null", 1);
  KC_CHECK_ERR(kc_init(), KC_ENOMEM);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), "reduction counter");
  return verdict();
}

/* kc_malloc in each device space. */
static int null_malloc(void *arg) {
  (void)arg;
  setenv("FAKECU_FAIL",
         "cuMemAlloc_v2@2=null,cuMemAllocManaged@1=null,"
         "cuMemHostAlloc@1=null",
         1);
  KC_REQUIRE_OK(kc_init());
  static const char *const calls[] = {"cuMemAlloc", "cuMemAllocManaged",
                                      "cuMemHostAlloc"};
  for (int sp = KC_SPACE_DEVICE; sp <= KC_SPACE_HOST_PINNED; sp++) {
    void *p = NULL;
    KC_CHECK_ERR(kc_malloc(&p, 4096, (kc_space)sp, "t"), KC_ENOMEM);
    SAID();
    KC_CHECK_CONTAINS(kc_last_error(), calls[sp - KC_SPACE_DEVICE]);
    KC_CHECK_EQ_PTR(p, NULL);
  }
  return verdict();
}

/* --------------------------------------------------------------- JIT logs */

/* A failed load whose error log fills the buffer without a NUL: the
 * detail says the log was cut (the old code ran strlen past the buffer,
 * which AddressSanitizer reports). */
static int jit_error_log_full(void *arg) {
  (void)arg;
  setenv("FAKECU_FAIL", "cuModuleLoadDataEx@1=218", 1);
  setenv("FAKECU_LOG", "full", 1);
  KC_REQUIRE_OK(kc_init());
  KC_CHECK_ERR(run_for(64), KC_EJIT);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), "could not load its PTX");
  KC_CHECK_CONTAINS(kc_last_error(), "JIT log (cut at");
  KC_CHECK_CONTAINS(kc_last_error(), "EEEE");
  return verdict();
}

/* The longest run of c in s. */
static size_t longest_run(const char *s, char c) {
  size_t best = 0, run = 0;
  for (; *s; s++) {
    run = *s == c ? run + 1 : 0;
    best = run > best ? run : best;
  }
  return best;
}

/* A good load whose info log fills its 4 KiB buffer without a NUL:
 * KC_VERBOSE prints at most the buffer less its NUL (it printed on past
 * the buffer's end). */
static int jit_info_log_full(void *arg) {
  (void)arg;
  setenv("FAKECU_ILOG", "full", 1);
  setenv("KC_VERBOSE", "1", 1);
  FILE *err = tmpfile();
  KC_REQUIRE(err != NULL);
  dup2(fileno(err), 2);
  KC_REQUIRE_OK(kc_init());
  KC_CHECK_OK(run_for(64));
  fflush(stderr);
  static char text[1 << 20];
  rewind(err);
  size_t n = fread(text, 1, sizeof text - 1, err);
  text[n] = '\0';
  KC_CHECK_CONTAINS(text, "JIT of 'k_for'");
  KC_CHECK_EQ_INT(longest_run(text, 'I'), 4095);
  return verdict();
}

/* ------------------------------------------------------- device properties */

/* An attribute value kc cannot work with: kc_init refuses the device,
 * naming the attribute and the value. */
typedef struct bad_attr {
  const char *setting; /* FAKECU_ATTR */
  const char *names;   /* what the detail must contain */
} bad_attr;

static int device_refused(void *arg) {
  const bad_attr *b = arg;
  setenv("FAKECU_ATTR", b->setting, 1);
  KC_CHECK_ERR(kc_init(), KC_ENODEV);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), b->names);
  return verdict();
}

/* A failed property call refuses the device, naming the call. */
static int property_call_fails(void *arg) {
  const char *call = arg;
  char rule[128];
  snprintf(rule, sizeof rule, "%s@1=999", call);
  setenv("FAKECU_FAIL", rule, 1);
  KC_CHECK_ERR(kc_init(), KC_ENODEV);
  SAID();
  char plain[64]; /* the call as cuda.h names it */
  snprintf(plain, sizeof plain, "%.*s", (int)strcspn(call, "_"), call);
  KC_CHECK_CONTAINS(kc_last_error(), plain);
  KC_CHECK_CONTAINS(kc_last_error(), "CUDA_ERROR_UNKNOWN");
  return verdict();
}

/* As many SMs as an int holds: kc_info.concurrency saturates (it
 * overflowed). */
static int huge_sm_count(void *arg) {
  (void)arg;
  setenv("FAKECU_ATTR", "16=2147483647", 1);
  KC_REQUIRE_OK(kc_init());
  kc_info info = kc_test_info();
  KC_CHECK_EQ_INT(info.dev.multiprocessors, INT_MAX);
  KC_CHECK_EQ_INT(info.concurrency, INT_MAX);
  return verdict();
}

/* A name that fills the driver's buffer ends in a NUL within the field
 * (readers ran on into compute_major). */
static int name_fills_buffer(void *arg) {
  (void)arg;
  setenv("FAKECU_NAME", "full", 1);
  KC_REQUIRE_OK(kc_init());
  kc_info info = kc_test_info();
  KC_CHECK_EQ_INT(strlen(info.dev.name), sizeof info.dev.name - 1);
  KC_CHECK_EQ_INT(info.dev.name[0], 'N');
  return verdict();
}

/* A negative device count is named as the driver's, not "none". */
static int negative_device_count(void *arg) {
  (void)arg;
  setenv("FAKECU_NDEV", "-3", 1);
  KC_CHECK_ERR(kc_init(), KC_ENODEV);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), "cuDeviceGetCount");
  KC_CHECK_CONTAINS(kc_last_error(), "-3");
  return verdict();
}

/* ----------------------------------------------------------- block sizes */

/* The function allows fewer threads than a warp: the detail says so
 * (it blamed shared memory). */
static int function_thread_limit(void *arg) {
  (void)arg;
  setenv("FAKECU_FATTR", "0=16", 1);
  KC_REQUIRE_OK(kc_init());
  KC_CHECK_ERR(run_for(64), KC_ELAUNCH);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), "at most 16 threads per block");
  KC_CHECK_NOT_CONTAINS(kc_last_error(), "shared memory");
  return verdict();
}

/* The occupancy calculator finds no resident block at any size. */
static int no_occupancy(void *arg) {
  (void)arg;
  setenv("FAKECU_OCC", "0", 1);
  KC_REQUIRE_OK(kc_init());
  KC_CHECK_ERR(run_for(64), KC_ELAUNCH);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), "no resident block");
  return verdict();
}

/* A failed function attribute query is an error (it was ignored). */
static int function_attribute_fails(void *arg) {
  (void)arg;
  setenv("FAKECU_FAIL", "cuFuncGetAttribute@1=999", 1);
  KC_REQUIRE_OK(kc_init());
  KC_CHECK_ERR(run_for(64), KC_ELAUNCH);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), "cuFuncGetAttribute");
  return verdict();
}

/* A negative static shared size is taken as none (it left a reduction no
 * shared memory at all: KC_ESCRATCH). */
static int negative_static_shared(void *arg) {
  (void)arg;
  setenv("FAKECU_FATTR", "1=-1", 1);
  KC_REQUIRE_OK(kc_init());
  KC_CHECK_OK(run_reduce());
  return verdict();
}

/* ------------------------------------------------------- launches, faults */

/* Out of memory at the launch names the kernel. */
static int launch_out_of_memory(void *arg) {
  (void)arg;
  setenv("FAKECU_FAIL", "cuLaunchKernel@1=2", 1);
  KC_REQUIRE_OK(kc_init());
  KC_CHECK_ERR(run_for(64), KC_ENOMEM);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), "'k_for'");
  return verdict();
}

/* A functor of one word in constant memory is written by the stream
 * (cuStreamWriteValue64), not copied: a failed write fails the launch,
 * naming the call, and the next launch writes it again. */
static int staging_write_fails(void *arg) {
  (void)arg;
  setenv("KC_CUDA_LAUNCH", "constant", 1);
  setenv("FAKECU_FAIL", "cuStreamWriteValue64_v2@1=999", 1);
  KC_REQUIRE_OK(kc_init());
  KC_CHECK_ERR(run_for(8), KC_ELAUNCH);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), "cuStreamWriteValue64");
  KC_CHECK_OK(run_for(8));
  KC_CHECK_OK(kc_fence());
  return verdict();
}

/* A driver that refuses the write itself (CUDA_ERROR_NOT_SUPPORTED at the
 * first call, CUDA_ERROR_UNKNOWN at any later one): the launch copies
 * instead, and so do the launches after it (a second write would fail
 * the second launch). */
static int staging_write_refused(void *arg) {
  (void)arg;
  setenv("KC_CUDA_LAUNCH", "constant", 1);
  setenv("FAKECU_FAIL",
         "cuStreamWriteValue64_v2@1=801,cuStreamWriteValue64_v2@2+=999", 1);
  KC_REQUIRE_OK(kc_init());
  for (long long v = 1; v <= 3; v++) {
    kc_policy p = kc_range(0, 1000);
    KC_CHECK_OK(kc_parallel_for("t-cuda-fake", k_for, &p, &v, sizeof v));
  }
  KC_CHECK_OK(kc_fence());
  return verdict();
}

/* A device without 64-bit stream writes (the attribute 0) stages by
 * copies: the same failing write is never called. */
static int staging_writes_off(void *arg) {
  (void)arg;
  setenv("KC_CUDA_LAUNCH", "constant", 1);
  setenv("FAKECU_ATTR", "122=0", 1);
  setenv("FAKECU_FAIL", "cuStreamWriteValue64_v2@0=999", 1);
  KC_REQUIRE_OK(kc_init());
  KC_CHECK_OK(run_for(8));
  KC_CHECK_OK(kc_fence());
  return verdict();
}

/* A context-wide fault reported by a call that is not a kernel's, before
 * any kernel ran: KC_ESTICKY, without blaming a kernel. */
static int sticky_before_kernels(void *arg) {
  (void)arg;
  setenv("FAKECU_FAIL", "cuModuleLoadDataEx@1=700", 1);
  KC_REQUIRE_OK(kc_init());
  KC_CHECK_ERR(run_for(64), KC_ESTICKY);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), "the CUDA context is unusable");
  KC_CHECK_CONTAINS(kc_last_error(), "CUDA_ERROR_ILLEGAL_ADDRESS");
  KC_CHECK_NOT_CONTAINS(kc_last_error(), "kernel faulted");
  KC_CHECK_ERR(kc_fence(), KC_ESTICKY);
  SAID();
  return verdict();
}

/* The same fault after a launch names the last kernel. */
static int sticky_after_kernel(void *arg) {
  (void)arg;
  setenv("FAKECU_FAIL", "cuCtxSynchronize@1=700", 1);
  KC_REQUIRE_OK(kc_init());
  KC_CHECK_OK(run_for(64));
  KC_CHECK_ERR(kc_fence(), KC_ESTICKY);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), "a kernel faulted");
  KC_CHECK_CONTAINS(kc_last_error(), "k_for");
  return verdict();
}

/* The stream synchronisation kc_queue_destroy's slot makes itself (the
 * 4th: the two lanes' set-up, the core's queue fence, the slot's) finds a
 * fault: it is remembered, so the next call reports it (it was dropped). */
static int queue_destroy_fault(void *arg) {
  (void)arg;
  setenv("FAKECU_FAIL", "cuStreamSynchronize@4=700", 1);
  KC_REQUIRE_OK(kc_init());
  kc_queue *q = NULL;
  KC_REQUIRE_OK(kc_queue_create(&q, 0));
  kc_queue_destroy(q);
  KC_CHECK_ERR(kc_fence(), KC_ESTICKY);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), "CUDA_ERROR_ILLEGAL_ADDRESS");
  return verdict();
}

/* cuEventElapsedTime measures something that is not a time (nan, inf),
 * or a negative time (neg: the end event completed first), which is a
 * time: the real driver gives one for events timed the wrong way round
 * (t-queue checks that on a GPU). */
static int elapsed_not_a_time(void *arg) {
  setenv("FAKECU_ELAPSED", (const char *)arg, 1);
  KC_REQUIRE_OK(kc_init());
  kc_event *a = NULL, *b = NULL;
  KC_REQUIRE_OK(kc_event_create(&a));
  KC_REQUIRE_OK(kc_event_create(&b));
  KC_CHECK_OK(kc_event_record(a, NULL));
  KC_CHECK_OK(kc_event_record(b, NULL));
  KC_CHECK_OK(kc_event_synchronize(b));
  double ms = 0;
  if (strcmp((const char *)arg, "neg") == 0) {
    KC_CHECK_OK(kc_event_elapsed(a, b, &ms));
    KC_CHECK(ms == -5.0);
    return verdict();
  }
  KC_CHECK_ERR(kc_event_elapsed(a, b, &ms), KC_EDEVICE);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), "cuEventElapsedTime");
  return verdict();
}

/* ------------------------------------------- policies at their limits */

/* A policy the device cannot run is refused when it is empty too (an
 * empty league or box returned 0 before the checks, where its reduction
 * was refused), and a 1-D range ending near INT64_MAX is refused when
 * empty (the documented 2^44 rule). */
static int empty_policies_checked(void *arg) {
  (void)arg;
  KC_REQUIRE_OK(kc_init());
  for (kc_index league = 0; league <= 1; league++) {
    kc_policy p = kc_team_policy(league, KC_AUTO, 3);
    KC_CHECK_ERR(kc_parallel_for("t", k_team, &p, NULL, 0), KC_EINVAL);
    p = kc_team_policy(league, 4096, 1);
    KC_CHECK_ERR(kc_parallel_for("t", k_team, &p, NULL, 0), KC_EINVAL);
    p = kc_team_policy(league, KC_AUTO, 1);
    KC_CHECK_OK(kc_policy_set_scratch(&p, 0, (size_t)1 << 30, 0));
    KC_CHECK_ERR(kc_parallel_for("t", k_team, &p, NULL, 0), KC_ESCRATCH);
  }
  kc_policy e = kc_range(INT64_MAX, INT64_MAX);
  KC_CHECK_ERR(kc_parallel_for("t", k_for, &e, NULL, 0), KC_ERANGE);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), "INT64_MAX - 2^44");
  kc_policy ok = kc_team_policy(0, KC_AUTO, 1);
  KC_CHECK_OK(kc_parallel_for("t", k_team, &ok, NULL, 0));
  KC_CHECK_OK(kc_finalize());
  return verdict();
}

/* MD boxes: an empty one with a tile larger than the box runs (the
 * reduction was refused, "a tile of more than 2^31 points"); one of
 * INT64_MAX points whose misaligned start moves the tiles' origin ran
 * into a division by zero (SIGFPE); one ending near INT64_MAX is refused,
 * as a 1-D range is (the device's loops stepped past INT64_MAX). */
static int md_boxes_at_the_limits(void *arg) {
  (void)arg;
  KC_REQUIRE_OK(kc_init());
  double r = -1;
  kc_index b0[2] = {0, 0}, e0[2] = {0, 1}, big[2] = {(kc_index)1 << 32, 1};
  kc_policy p = kc_mdrange(2, b0, e0, big);
  KC_CHECK_OK(kc_parallel_reduce("t", k_mdr, &p, NULL, 0, &r));
  KC_CHECK_OK(kc_parallel_for("t", k_md, &p, NULL, 0));
  const kc_index far = (kc_index)1 << 44;
  kc_index b1[2] = {0, -far - 1}, e1[2] = {1, INT64_MAX - far - 1},
           t1[2] = {1, (kc_index)1 << 62};
  p = kc_mdrange(2, b1, e1, t1);
  KC_CHECK_OK(kc_parallel_for("t", k_md, &p, NULL, 0));
  KC_CHECK_OK(kc_parallel_reduce("t", k_mdr, &p, NULL, 0, &r));
  kc_index b2[2] = {INT64_MAX - 3, INT64_MAX - 5},
           e2[2] = {INT64_MAX, INT64_MAX};
  p = kc_mdrange(2, b2, e2, NULL);
  KC_CHECK_ERR(kc_parallel_for("t", k_md, &p, NULL, 0), KC_ERANGE);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), "INT64_MAX - 2^44");
  KC_CHECK_ERR(kc_parallel_reduce("t", k_mdr, &p, NULL, 0, &r), KC_ERANGE);
  kc_index e3[2] = {INT64_MAX - far, 4};
  kc_index b3[2] = {INT64_MAX - far - 5, 0};
  p = kc_mdrange(2, b3, e3, NULL);
  KC_CHECK_OK(kc_parallel_for("t", k_md, &p, NULL, 0));
  KC_CHECK_OK(kc_finalize());
  return verdict();
}

/* A driver that could not be loaded is tried again at the next kc_init
 * (the failure was kept for the process: the fake, named the second time,
 * was never tried); one that loaded stays, a changed KC_CUDA_DRIVER
 * notwithstanding. */
static int driver_retried(void *arg) {
  (void)arg;
  const char *fake = getenv("KC_CUDA_DRIVER");
  char keep[4096];
  snprintf(keep, sizeof keep, "%s", fake ? fake : "");
  setenv("KC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
  KC_CHECK_ERR(kc_init(), KC_ENODEV);
  SAID();
  KC_CHECK_CONTAINS(kc_last_error(), "/nonexistent/libcuda.so.1");
  setenv("KC_CUDA_DRIVER", keep, 1);
  if (KC_CHECK_OK(kc_init()) == 0) {
    KC_CHECK_EQ_STR(kc_backend_name(), "cuda");
    KC_CHECK_OK(run_for(64));
    KC_CHECK_OK(kc_finalize());
  }
  setenv("KC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
  if (KC_CHECK_OK(kc_init()) == 0)
    KC_CHECK_OK(kc_finalize());
  return verdict();
}

/* KC_CUDA_VIRTUAL_DEVICES takes digits only, as every count kc reads:
 * " 2", "+2" and a tab before 4 were taken (strtol), "2 " refused. */
static int virtual_devices_strict(void *arg) {
  (void)arg;
  static const char *const bad[] = {" 2", "+2", "\t4", "2 ", "0x2", ""};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    setenv("KC_CUDA_VIRTUAL_DEVICES", bad[i], 1);
    int rc = kc_init();
    if (bad[i][0] == '\0') { /* empty: unset, the driver's one device */
      if (KC_CHECK_OK(rc) == 0) {
        KC_CHECK_EQ_INT(kc_test_info().device_count, 1);
        KC_CHECK_OK(kc_finalize());
      }
      continue;
    }
    /* refused when the plugin probes its devices: "found no device" */
    KC_CHECK_ERR(rc, KC_ENODEV);
    KC_CHECK_CONTAINS(kc_last_error(), "is not a count from 1 to");
    if (rc == 0)
      kc_finalize();
  }
  setenv("KC_CUDA_VIRTUAL_DEVICES", "2", 1);
  if (KC_CHECK_OK(kc_init()) == 0) {
    KC_CHECK_EQ_INT(kc_test_info().device_count, 2);
    KC_CHECK_OK(kc_finalize());
  }
  return verdict();
}

/* ---------------------------------------------------------------- main */

/* Runs one case, unless KC_TEST_CASE names others (a part of the name). */
static void run_case(const char *name, kc_isolate_fn fn, const void *arg) {
  const char *only = getenv("KC_TEST_CASE");
  inherited = kc_test_failures();
  if (!only || strstr(name, only))
    kc_isolate(name, fn, (void *)arg, CASE_TIMEOUT);
}
#define CASE(fn) run_case(#fn, fn, NULL)

/* 1 if configure built the CUDA plugin (run-backend's KC_TEST_BACKENDS). */
static int cuda_built(void) {
  char pad[256];
  snprintf(pad, sizeof pad, " %s ", KC_TEST__S(getenv("KC_TEST_BACKENDS")));
  return strstr(pad, " cuda ") != NULL;
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (!cuda_built())
    KC_SKIP("backend 'cuda' was not built: configure left it out (built: "
            "%s)",
            KC_TEST__S(getenv("KC_TEST_BACKENDS")));
  const char *top = getenv("KC_TEST_TOP_BUILDDIR");
  if (!top) {
    printf("ERROR: KC_TEST_TOP_BUILDDIR is not set (run through "
           "tests/run-backend)\n");
    return KC_TEST_HARD_ERROR;
  }
  char plugins[PATH_MAX], fake[PATH_MAX];
  snprintf(plugins, sizeof plugins, "%s/plugins/cuda/.libs", top);
  snprintf(fake, sizeof fake, "%s/tests/.libs/libfakecu.so", top);
  if (access(fake, R_OK) != 0) {
    printf("ERROR: %s is missing: run make check (it builds it)\n", fake);
    return KC_TEST_HARD_ERROR;
  }
  setenv("KC_BACKEND", "cuda", 1);
  setenv("KC_PLUGIN_PATH", plugins, 1);
  setenv("KC_CUDA_DRIVER", fake, 1);
  unsetenv("KC_DEVICE");
  unsetenv("KC_VERBOSE");
  register_kernels();

  CASE(good_driver);

  CASE(null_ring);
  CASE(null_partials);
  CASE(null_result_slot);
  CASE(null_counter);
  CASE(null_malloc);

  CASE(jit_error_log_full);
  CASE(jit_info_log_full);

  static const bad_attr attrs[] = {
      {"16=0", "multiprocessors = 0"},
      {"16=-4", "multiprocessors = -4"},
      {"1=0", "max threads per block = 0"},
      {"1=31", "max threads per block = 31"},
      {"1=-1", "max threads per block = -1"},
      {"10=0", "warp size = 0"},
      {"39=512", "max threads per SM = 512"},
      {"8=-1", "shared memory per block = -1"},
  };
  for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++) {
    char name[64];
    snprintf(name, sizeof name, "device_refused FAKECU_ATTR=%s",
             attrs[i].setting);
    run_case(name, device_refused, &attrs[i]);
  }
  static const char *const calls[] = {"cuDeviceGetAttribute", "cuDeviceGetName",
                                      "cuDeviceTotalMem_v2",
                                      "cuDriverGetVersion"};
  for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
    char name[64];
    snprintf(name, sizeof name, "property_call_fails %s", calls[i]);
    run_case(name, property_call_fails, calls[i]);
  }
  CASE(huge_sm_count);
  CASE(name_fills_buffer);
  CASE(negative_device_count);

  CASE(function_thread_limit);
  CASE(no_occupancy);
  CASE(function_attribute_fails);
  CASE(negative_static_shared);

  CASE(driver_retried);
  CASE(virtual_devices_strict);
  CASE(empty_policies_checked);
  CASE(md_boxes_at_the_limits);

  CASE(launch_out_of_memory);
  CASE(staging_write_fails);
  CASE(staging_write_refused);
  CASE(staging_writes_off);
  CASE(sticky_before_kernels);
  CASE(sticky_after_kernel);
  CASE(queue_destroy_fault);
  static const char *const elapsed[] = {"nan", "inf", "neg"};
  for (size_t i = 0; i < 3; i++) {
    char name[64];
    snprintf(name, sizeof name, "elapsed_not_a_time FAKECU_ELAPSED=%s",
             elapsed[i]);
    run_case(name, elapsed_not_a_time, elapsed[i]);
  }
  return kc_test_done();
}
