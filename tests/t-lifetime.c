/* Conformance: kc's lifetime against what a process does around it.  Each
 * case ends with an error or a clean exit, never a hang; each runs in a
 * process of its own with a time limit (kc-isolate.h).
 *
 *  - A profiling tool calls kc_init and kc_fence from kokkosp_init_library,
 *    kc_finalize from kokkosp_begin_parallel_for, kc_finalize and kc_fence
 *    from kokkosp_finalize_library (tests/fixtures/tool-reenter.c): kc_init and
 *    kc_finalize are refused with KC_EINVAL (they would wait for the call
 *    they run in; before, kc_init deadlocked), the fences work.  The same
 *    tool destroys a queue from the callback of that queue's fence: the
 *    destroy and the fence both return 0 (the destroy waited for the fence
 *    it runs in, for ever).
 *  - exit() inside a kernel, on the launching thread and on a worker, with
 *    an atexit handler that calls kc_finalize: the handler gets KC_EINVAL
 *    and the process exits (before, it hung on the runtime lock).
 *  - fork() after kc_init: in the child every call fails with KC_ENOINIT
 *    naming fork() (before, a launch hung waiting for the threads and
 *    OpenMP backends' workers, which a child does not have); the parent
 *    goes on.
 *  - Tools at the edges of the runtime (tests/fixtures/tool-late.c): no
 *    callback reaches a tool after its kokkosp_finalize_library, though a
 *    later tool's finalize works in kc; what a tool does in
 *    kokkosp_init_library (an allocation, a region) is not reported, nor
 *    is its end; a region open at kc_finalize is gone after kc_init; a deep
 *    copy carries whole labels; a tool's thread fencing across kc_init and
 *    kc_finalize races with nothing (ThreadSanitizer).
 *  - fork() while another thread is in a kc call (kc down) or looks a
 *    kernel up: the child uses kc (it hung in its kc_finalize, or in
 *    kc_kernel_get).  A thread cancelled in kc_finalize: the finalize ends
 *    and the other threads go on (they hung).
 *  - fork() after the last kc_finalize: the child may kc_init afresh, or,
 *    on the openmp backend (GNU libgomp cannot run a parallel region in
 *    such a child), kc_init fails with KC_ENODEV naming fork().
 *
 * The exit() kernel is host-only (this file is plain C): on a backend
 * whose kernels run on a device (cuda) those cases skip. */
#define _GNU_SOURCE 1 /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include <kc/kernel.h>

#include "kc-isolate.h"
#include "kc-test.h"
#include "kernels/functors.h"
#include "profiling-log.h"

KC_KERNEL_DECLARE(kt_count);

enum { N = 64 };

/* One launch of kt_count over [0, 4), checked. */
static void count_launch(void) {
  int32_t *d = kc_test_dalloc(4 * sizeof *d, "hits");
  KC_REQUIRE_OK(kc_memset(d, 0, 4 * sizeof *d));
  kc_policy p = kc_range(0, 4);
  kt_count c = {d, 0};
  KC_CHECK_OK(
      kc_parallel_for("count", KC_TEST_KERNEL(kt_count), &p, &c, sizeof c));
  KC_CHECK_OK(kc_fence());
  int32_t *h = kc_test_download(d, 4 * sizeof *h);
  KC_CHECK_EQ_INT(h[0] + h[1] + h[2] + h[3], 4);
  free(h);
  KC_CHECK_OK(kc_free(d));
}

/* ------------------------------------------------ a tool calling back */

typedef int (*result_fn)(int which, const char **detail);

static int tool_reenters(void *arg) {
  (void)arg;
  setenv("KC_TOOLS_LIBS", tl_lib("tests", "kc-tool-reenter"), 1);
  kc_test_init_backend();
  result_fn result = NULL;
  void *sym = dlsym(RTLD_DEFAULT, "tools_reenter_result");
  memcpy(&result, &sym, sizeof sym);
  KC_REQUIRE(result != NULL);
  const char *detail = NULL;
  KC_CHECK_EQ_INT(result(0, &detail), KC_EINVAL);
  KC_CHECK_CONTAINS(detail, "kc_init called from inside another kc call");
  KC_CHECK_EQ_INT(result(1, &detail), 0);
  KC_CHECK_EQ_INT(result(2, NULL), 1);

  count_launch();
  KC_CHECK_EQ_INT(result(3, &detail), KC_EINVAL);
  KC_CHECK_CONTAINS(detail, "kc_finalize called from inside another kc call");
  KC_CHECK_EQ_INT(kc_is_initialized(), 1);

  KC_CHECK_OK(kc_finalize());
  KC_CHECK_EQ_INT(kc_is_initialized(), 0);
  KC_CHECK_EQ_INT(result(4, &detail), KC_EINVAL);
  KC_CHECK_CONTAINS(detail, "kc_finalize called from inside another kc call");
  KC_CHECK_EQ_INT(result(5, &detail), 0);
  return kc_test_done();
}

/* kc_queue_fence(q), whose begin-fence callback destroys q: the fence goes
 * on with the backend's queue, which is released after it. */
static int tool_destroys_fenced_queue(void *arg) {
  (void)arg;
  setenv("KC_TOOLS_LIBS", tl_lib("tests", "kc-tool-reenter"), 1);
  kc_test_init_backend();
  result_fn result = NULL;
  void (*destroy_on_fence)(kc_queue *) = NULL;
  void *sym = dlsym(RTLD_DEFAULT, "tools_reenter_result");
  memcpy(&result, &sym, sizeof sym);
  sym = dlsym(RTLD_DEFAULT, "tools_reenter_destroy_on_fence");
  memcpy(&destroy_on_fence, &sym, sizeof sym);
  KC_REQUIRE(result != NULL && destroy_on_fence != NULL);
  kc_queue *q = NULL;
  KC_REQUIRE_OK(kc_queue_create(&q, 0));
  destroy_on_fence(q);
  KC_CHECK_OK(kc_queue_fence(q));
  const char *detail = NULL;
  KC_CHECK_EQ_INT(result(6, &detail), 0);
  KC_CHECK_ERR(kc_queue_fence(q), KC_EINVAL);
  KC_CHECK_OK(kc_queue_create(&q, 0));
  KC_CHECK_OK(kc_queue_destroy(q));
  KC_CHECK_OK(kc_finalize());
  return kc_test_done();
}

/* ------------------------------------ tools and the edges of the runtime */

/* tests/fixtures/tool-late.c's log (tool A, and B when `both`), cleared. */
static char *late_tools(int both) {
  char *log = tl_tmpfile("late-log");
  setenv("KC_TEST_LATE_LOG", log, 1);
  char *a = tl_lib("tests", "kc-tool-late");
  char *b = tl_lib("tests", "kc-tool-late2");
  char libs[4096];
  snprintf(libs, sizeof libs, "%s%s%s", a, both ? ";" : "", both ? b : "");
  setenv("KC_TOOLS_LIBS", libs, 1);
  free(a);
  free(b);
  return log;
}

/* Tool B allocates, sends an event and fences from its finalize, after A's
 * finalize: A heard of all of it (its state may be gone by then). */
static int tools_after_finalize(void *arg) {
  (void)arg;
  char *log = late_tools(1);
  setenv("KC_TEST_LATE_FIN_WORK", "B", 1);
  kc_test_init_backend();
  KC_CHECK_OK(kc_finalize());
  char *got = tl_slurp(log);
  KC_CHECK_CONTAINS(got, "B finalize work: kc_free 0, kc_malloc 0, kc_free 0, "
                         "kc_profile_event 0, kc_fence 0");
  KC_CHECK_CONTAINS(got, "B profile_event from-fin");
  const char *fin = strstr(got, "A finalize_library");
  KC_REQUIRE(fin != NULL);
  KC_CHECK(strstr(fin, "\nA ") == NULL); /* A's last line is its finalize */
  if (strstr(fin, "\nA "))
    printf("# the log:\n%s", got);
  free(got);
  remove(log);
  free(log);
  return kc_test_done();
}

/* A tool's kokkosp_init_library allocates and opens a region before the
 * tools listen: neither is reported, so neither is its end (the free in
 * its finalize, the application's pop, which closes the tool's region). */
static int work_in_tool_init(void *arg) {
  (void)arg;
  char *log = late_tools(0);
  setenv("KC_TEST_LATE_INIT_WORK", "A", 1);
  setenv("KC_TEST_LATE_FIN_WORK", "A", 1);
  kc_test_init_backend();
  KC_CHECK_OK(kc_region_push("app"));
  KC_CHECK_OK(kc_region_pop());
  KC_CHECK_OK(kc_region_pop()); /* the tool's */
  KC_CHECK_EQ_INT(kc_region_pop(), KC_EINVAL);
  KC_CHECK_OK(kc_finalize());
  char *got = tl_slurp(log);
  KC_CHECK_CONTAINS(got, "A init work: kc_malloc 0, kc_region_push 0");
  KC_CHECK_CONTAINS(got, "A finalize work: kc_free 0");
  KC_CHECK(strstr(got, "tool-scratch") == NULL);
  KC_CHECK(strstr(got, "tool-region") == NULL);
  KC_CHECK_CONTAINS(got, "A push_profile_region app\n");
  int pops = 0;
  for (const char *at = got; (at = strstr(at, "pop_profile_region")); at++)
    pops++;
  KC_CHECK_EQ_INT(pops, 1); /* the application's */
  if (pops != 1 || strstr(got, "tool-scratch"))
    printf("# the log:\n%s", got);
  free(got);
  remove(log);
  free(log);
  return kc_test_done();
}

/* A region left open at kc_finalize is not there after the next kc_init:
 * the pop is refused, and no tool hears a pop it never saw pushed. */
static int region_across_init(void *arg) {
  (void)arg;
  char *log = late_tools(0);
  kc_test_init_backend();
  KC_CHECK_OK(kc_region_push("left open"));
  KC_CHECK_OK(kc_finalize());
  kc_test_init_backend();
  KC_CHECK_EQ_INT(kc_region_pop(), KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), "no region is open");
  KC_CHECK_OK(kc_finalize());
  char *got = tl_slurp(log);
  KC_CHECK(strstr(got, "pop_profile_region") == NULL);
  free(got);
  remove(log);
  free(log);
  return kc_test_done();
}

/* A deep copy names its allocations by their whole labels (they were cut
 * to 255 bytes, here inside a two-byte UTF-8 character). */
static int long_copy_label(void *arg) {
  (void)arg;
  char *log = late_tools(0);
  kc_test_init_backend();
  char label[301];
  memset(label, 'x', 300);
  memcpy(label + 254, "\xc3\xa9", 2);
  label[300] = '\0';
  int64_t *d = NULL, h[2] = {1, 2};
  KC_REQUIRE_OK(kc_malloc((void **)&d, sizeof h, KC_SPACE_DEVICE, label));
  KC_CHECK_OK(kc_memcpy(d, h, sizeof h));
  KC_CHECK_OK(kc_free(d));
  KC_CHECK_OK(kc_finalize());
  char *got = tl_slurp(log);
  KC_CHECK_CONTAINS(got, "begin_deep_copy dst_label_bytes=300 "
                         "src_label_bytes=0 size=16");
  free(got);
  remove(log);
  free(log);
  return kc_test_done();
}

/* A tool's own thread calls the tools' fence without a pause while the
 * program initialises and finalises kc: the fence compared device ids
 * before entering the runtime, racing with kc_init setting them (seen
 * under ThreadSanitizer, which CI runs this test under). */
static int tool_thread_fences(void *arg) {
  (void)arg;
  char *log = late_tools(0);
  setenv("KC_TEST_LATE_FENCER", "A", 1);
  for (int k = 0; k < 20; k++) {
    kc_test_init_backend();
    count_launch();
    KC_CHECK_OK(kc_finalize());
  }
  void (*stop)(void) = NULL;
  void *sym = dlsym(RTLD_DEFAULT, "tool_late_stop");
  memcpy(&stop, &sym, sizeof sym);
  KC_REQUIRE(stop != NULL);
  stop();
  remove(log);
  free(log);
  return kc_test_done();
}

/* ------------------------------------------------- exit() in a kernel */

typedef struct exit_f {
  int64_t exit_at;
} exit_f;

KC_FOR(lifetime_exit, exit_f, f, i, {
  if (i == f->exit_at)
    exit(0);
})

static void finalize_at_exit(void) {
  int rc = kc_finalize();
  printf("# atexit: kc_finalize from inside a kernel: %s: %s\n",
         kc_err_name(rc), kc_last_error());
  fflush(stdout);
  if (rc != KC_EINVAL)
    _exit(5);
}

static int exit_in_kernel(void *arg) {
  exit_f f = {*(const int64_t *)arg};
  kc_test_init_backend();
  if (kc_test_device_is_distinct())
    KC_SKIP("backend '%s' runs kernels on its device: no host code to call "
            "exit() from",
            kc_backend_name());
  atexit(finalize_at_exit);
  /* Static shares: index 0 runs on the launching thread, index N - 1 on
   * the last worker (if the backend has workers). */
  kc_policy p = kc_range(0, N);
  kc_parallel_for("exit", KC_TEST_KERNEL(lifetime_exit), &p, &f, sizeof f);
  printf("FAIL: the launch returned after exit() in its kernel\n");
  return 1;
}

/* ----------------------------------------------------------- fork() */

static int in_forked_child(void *arg) {
  (void)arg;
  int32_t hits[4];
  kc_policy p = kc_range(0, 4);
  kt_count c = {hits, 0};
  KC_CHECK_EQ_INT(kc_is_initialized(), 0);
  KC_CHECK_EQ_PTR(kc_backend_name(), NULL);
  KC_CHECK_ERR(
      kc_parallel_for("in child", KC_TEST_KERNEL(kt_count), &p, &c, sizeof c),
      KC_ENOINIT);
  KC_CHECK_CONTAINS(kc_last_error(), "kc_parallel_for");
  KC_CHECK_CONTAINS(kc_last_error(), "fork()ed child");
  KC_CHECK_ERR(kc_fence(), KC_ENOINIT);
  void *m = NULL;
  KC_CHECK_ERR(kc_malloc(&m, 64, KC_SPACE_HOST, "in child"), KC_ENOINIT);
  kc_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  KC_CHECK_ERR(kc_get_info(&info), KC_ENOINIT);
  /* Calls that check their arguments: KC_ENOINIT naming fork() comes
   * first (they said KC_EINVAL "queue is NULL", "not a live kc queue"). */
  kc_queue *q = NULL;
  kc_event *ev = NULL;
  double d = 0;
  int dev = 0;
  KC_CHECK_ERR(kc_queue_create(NULL, 0), KC_ENOINIT);
  KC_CHECK_CONTAINS(kc_last_error(), "fork()ed child");
  KC_CHECK_ERR(kc_queue_destroy(NULL), KC_ENOINIT);
  KC_CHECK_CONTAINS(kc_last_error(), "fork()ed child");
  KC_CHECK_ERR(kc_queue_fence((kc_queue *)&d), KC_ENOINIT);
  KC_CHECK_CONTAINS(kc_last_error(), "fork()ed child");
  KC_CHECK_ERR(kc_queue_device(q, NULL), KC_ENOINIT);
  KC_CHECK_ERR(kc_event_create(NULL), KC_ENOINIT);
  KC_CHECK_ERR(kc_event_query(ev), KC_ENOINIT);
  KC_CHECK_CONTAINS(kc_last_error(), "fork()ed child");
  KC_CHECK_ERR(kc_memcpy(NULL, &d, 4), KC_ENOINIT);
  KC_CHECK_CONTAINS(kc_last_error(), "fork()ed child");
  KC_CHECK_ERR(kc_memset(NULL, 0, 4), KC_ENOINIT);
  KC_CHECK_ERR(kc_pointer_device(&d, &dev), KC_ENOINIT);
  KC_CHECK_ERR(kc_mirror_create(NULL, 8, "in child"), KC_ENOINIT);
  KC_CHECK_CONTAINS(kc_last_error(), "fork()ed child");
  KC_CHECK_ERR(kc_init(), KC_ENOINIT);
  KC_CHECK_CONTAINS(kc_last_error(), "fork()ed child");
  KC_CHECK_ERR(kc_finalize(), KC_ENOINIT);
  KC_CHECK_CONTAINS(kc_last_error(), "fork()ed child");
  return kc_test_done();
}

static int fork_while_up(void *arg) {
  (void)arg;
  kc_test_init_backend();
  count_launch();
  /* Deliberately forked with kc up (kc-isolate.h's note). */
  kc_isolate("calls in a child forked while kc is up", in_forked_child, NULL,
             20);
  count_launch();
  KC_CHECK_OK(kc_finalize());
  return kc_test_done();
}

static int fresh_in_forked_child(void *arg) {
  (void)arg;
  int rc = kc_init();
  if (rc == KC_ENODEV) {
    KC_INFO("kc_init in the child: %s", kc_last_error());
    KC_CHECK_CONTAINS(kc_last_error(), "fork()ed child");
    return kc_test_done();
  }
  KC_CHECK_OK(rc);
  if (rc == 0) {
    count_launch();
    KC_CHECK_OK(kc_finalize());
  }
  return kc_test_done();
}

static int use_kc_in_child(void *arg);

/* A backend of one thread starts no OpenMP thread: a child forked after
 * it may use kc (the openmp plugin refused, saying its runtime "had
 * started its threads"). */
static int fork_after_one_thread(void *arg) {
  (void)arg;
  setenv("KC_NUM_THREADS", "1", 1);
  kc_test_init_backend();
  if (kc_test_info().device >= 0) {
    /* A device's driver, once initialised, cannot cross a fork (above). */
    KC_CHECK_OK(kc_finalize());
    KC_SKIP("a child of a process that used a device cannot use it");
  }
  count_launch();
  KC_CHECK_OK(kc_finalize());
  KC_CHECK_EQ_INT(kc_isolate("kc_init in a child, one thread before",
                             use_kc_in_child, (void *)1, 20),
                  0);
  return kc_test_done();
}

static int fork_after_finalize(void *arg) {
  (void)arg;
  kc_test_init_backend();
  count_launch();
  KC_CHECK_OK(kc_finalize());
  kc_isolate("kc_init in a child forked after kc_finalize",
             fresh_in_forked_child, NULL, 20);
  return kc_test_done();
}

/* fork() while another thread of the parent is inside kc (kc down: its
 * calls enter and leave at once; or looking a kernel up): each child must
 * be able to use kc.  The child counted the other thread's call as in
 * flight for ever, so its last kc_finalize waited for good; and a child
 * forked while the registry's lock was held hung in kc_kernel_get. */
enum { FORKS = 60 };
static atomic_int rider_stop;

static void *rider_fence(void *arg) {
  (void)arg;
  while (!atomic_load(&rider_stop))
    (void)kc_fence(); /* KC_ENOINIT: kc is down */
  return NULL;
}

static void *rider_lookup(void *arg) {
  (void)arg;
  kc_kernel *k = NULL;
  while (!atomic_load(&rider_stop))
    (void)kc_kernel_get("kt_count", &k);
  return NULL;
}

/* arg not NULL: kc_init must work. */
static int use_kc_in_child(void *arg) {
  kc_kernel *k = NULL;
  KC_CHECK_OK(kc_kernel_get("kt_count", &k));
  int rc = kc_init();
  if (rc == 0) {
    count_launch();
    KC_CHECK_OK(kc_finalize());
  } else if (arg) {
    KC_CHECK_OK(rc);
    KC_INFO("kc_init in the child: %s", kc_last_error());
  } else {
    KC_CHECK_EQ_INT(rc, KC_ENODEV); /* libgomp after fork: kc says so */
    KC_CHECK_CONTAINS(kc_last_error(), "fork()ed child");
  }
  return kc_test_done();
}

static int fork_beside_a_caller(void *arg) {
  void *(*rider)(void *) = arg;
#if defined(__SANITIZE_THREAD__)
  /* Its children would start the backend's threads, which a TSan runtime
   * refuses after a fork of a process with threads ("not supported"). */
  if (rider)
    KC_SKIP("ThreadSanitizer cannot start threads in a child forked from "
            "a process with threads");
#endif
  atomic_store(&rider_stop, 0);
  pthread_t t;
  KC_REQUIRE(pthread_create(&t, NULL, rider, NULL) == 0);
  int bad = 0;
  for (int i = 0; i < FORKS && !bad; i++)
    bad = kc_isolate("a child forked beside a caller", use_kc_in_child, NULL,
                     10) != 0;
  atomic_store(&rider_stop, 1);
  pthread_join(t, NULL);
  KC_CHECK(!bad);
  return kc_test_done();
}

/* A thread cancelled while its kc_finalize waits for a launch of another
 * thread left the runtime's locks held, and the launching thread hung. */
static atomic_int spin_release;
typedef struct spin_f {
  int64_t unused;
} spin_f;
KC_FOR(lifetime_spin, spin_f, f, i, {
  (void)f;
  if (i == 0)
    while (!atomic_load(&spin_release))
      ;
})

static void *launch_spin(void *arg) {
  (void)arg;
  kc_policy p = kc_range(0, 1);
  spin_f f = {0};
  intptr_t rc =
      kc_parallel_for("spin", KC_KERNEL(lifetime_spin), &p, &f, sizeof f);
  return (void *)rc;
}

static void *finalize_cancelled(void *arg) {
  (void)arg;
  (void)kc_finalize();
  return NULL;
}

static int cancel_in_finalize(void *arg) {
  (void)arg;
  kc_test_init_backend();
  if (kc_test_info().device >= 0) {
    KC_CHECK_OK(kc_finalize());
    KC_SKIP("the spinning kernel is host-only");
  }
  atomic_store(&spin_release, 0);
  pthread_t l, f;
  KC_REQUIRE(pthread_create(&l, NULL, launch_spin, NULL) == 0);
  struct timespec nap = {0, 50 * 1000 * 1000};
  nanosleep(&nap, NULL); /* the launch is in its kernel */
  KC_REQUIRE(pthread_create(&f, NULL, finalize_cancelled, NULL) == 0);
  nanosleep(&nap, NULL); /* kc_finalize waits for the launch */
  pthread_cancel(f);
  nanosleep(&nap, NULL);
  atomic_store(&spin_release, 1);
  void *lrc = NULL;
  pthread_join(l, &lrc);
  pthread_join(f, NULL);
  KC_CHECK_EQ_INT((int)(intptr_t)lrc, 0);
  /* The finalize ran to its end: kc is down, and comes up again. */
  KC_CHECK_EQ_INT(kc_is_initialized(), 0);
  kc_test_init_backend();
  count_launch();
  KC_CHECK_OK(kc_finalize());
  return kc_test_done();
}

int main(void) {
  static const int64_t at_caller = 0, at_worker = N - 1;
  setvbuf(stdout, NULL, _IOLBF, 0);
  int skipped = 0;
  skipped += KC_ISOLATE(tool_reenters, NULL, 30) == KC_TEST_SKIP;
  KC_ISOLATE(tool_destroys_fenced_queue, NULL, 30);
  KC_ISOLATE(tools_after_finalize, NULL, 30);
  KC_ISOLATE(work_in_tool_init, NULL, 30);
  KC_ISOLATE(region_across_init, NULL, 30);
  KC_ISOLATE(long_copy_label, NULL, 30);
  KC_ISOLATE(tool_thread_fences, NULL, 60);
  skipped += kc_isolate("exit() in a kernel on the launching thread",
                        exit_in_kernel, (void *)&at_caller, 30) == KC_TEST_SKIP;
  skipped += kc_isolate("exit() in a kernel on a worker", exit_in_kernel,
                        (void *)&at_worker, 30) == KC_TEST_SKIP;
  skipped += KC_ISOLATE(fork_while_up, NULL, 60) == KC_TEST_SKIP;
  skipped += KC_ISOLATE(fork_after_finalize, NULL, 60) == KC_TEST_SKIP;
  KC_ISOLATE(fork_after_one_thread, NULL, 60);
  kc_isolate("fork() beside a caller of kc", fork_beside_a_caller,
             (void *)rider_fence, 120);
  kc_isolate("fork() beside a kernel lookup", fork_beside_a_caller,
             (void *)rider_lookup, 120);
  KC_ISOLATE(cancel_in_finalize, NULL, 60);
  if (skipped == 5)
    KC_SKIP("every case skipped (see above)");
  return kc_test_done();
}
