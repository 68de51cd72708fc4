/* Conformance: kc in a long-running process (a service, a simulation run
 * for days, an interpreter that initialises kc again and again).  What
 * such a process repeats must not make it grow: the check is the growth
 * between an early round and a late one, never an absolute size.
 *
 *  - queue_rounds: a request allocates buffers, creates a queue and an
 *    event, and frees everything again.  kc keeps dead queue and event
 *    handles (a stale one must stay refused), and they once came from the
 *    malloc heap: each pinned the heap above that request's buffers, and
 *    the process grew by a buffer's size a request (256 KiB here), for a
 *    thousand requests.
 *  - registry: a program that registers kernels all along (an interpreter
 *    building them as it goes).  The registry's hash table had 256
 *    buckets for good, so a lookup at 64000 kernels walked 16 times as
 *    many records as at 4000 (and took 180 times as long: the chains no
 *    longer fit the cache).
 *  - cycles: kc_init / kc_finalize with launches, a queue, an event and a
 *    mirror in between, with KC_NUM_THREADS changing from cycle to cycle,
 *    leave no file descriptor, thread or mapping behind. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kc/kernel.h>

#include "kc-test.h"
#include "kernels/functors.h"

KC_KERNEL_DECLARE(kt_fill);
KC_KERNEL_DECLARE(kt_sum_i64);

/* A sanitizer's allocator keeps freed memory aside (AddressSanitizer's
 * quarantine: 256 MiB), so resident memory says nothing there. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LONGRUN_OWN_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||     \
    __has_feature(memory_sanitizer)
#define LONGRUN_OWN_ALLOCATOR 1
#endif
#endif
#ifndef LONGRUN_OWN_ALLOCATOR
#define LONGRUN_OWN_ALLOCATOR 0
#endif

/* Resident memory of the process, in KiB. */
static long rss_kib(void) {
  long pages = -1, resident = -1;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f)
    return -1;
  if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
    resident = -1;
  fclose(f);
  return resident < 0 ? -1 : resident * 4;
}

/* Entries of a /proc/self directory (file descriptors, threads). */
static long entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return -1;
  long n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* Lines of /proc/self/maps: the process's mappings. */
static long mappings(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f)
    return -1;
  long n = 0;
  for (int c; (c = getc(f)) != EOF;)
    n += c == '\n';
  fclose(f);
  return n;
}

enum { BUFS = 4, BUF_BYTES = 256 << 10 };

/* One request: buffers touched, a queue and an event made, a launch on
 * the queue, another buffer, then everything freed again. */
static void request(void) {
  int64_t *buf[BUFS] = {NULL};
  kc_queue *q = NULL;
  kc_event *e = NULL;
  void *late = NULL;
  for (int k = 0; k < BUFS; k++) {
    KC_REQUIRE_OK(kc_malloc((void **)&buf[k], BUF_BYTES + (size_t)k * 64,
                            KC_SPACE_HOST, "request buffer"));
    memset(buf[k], 1, BUF_BYTES);
  }
  KC_REQUIRE_OK(kc_queue_create(&q, 0));
  KC_REQUIRE_OK(kc_event_create(&e));
  /* The kernel writes device memory (the request's buffers are host
   * memory, which a GPU kernel cannot reach). */
  int64_t *dev = NULL;
  KC_REQUIRE_OK(kc_malloc((void **)&dev, 1000 * sizeof *dev, KC_SPACE_DEVICE,
                          "request device buffer"));
  kc_policy p = kc_policy_on(kc_range(0, 1000), q);
  kt_fill f = {dev, 0, 1, 0};
  KC_CHECK_OK(kc_parallel_for("request", KC_KERNEL(kt_fill), &p, &f, sizeof f));
  KC_CHECK_OK(kc_event_record(e, q));
  KC_CHECK_OK(kc_event_synchronize(e));
  KC_CHECK_OK(kc_free(dev));
  KC_REQUIRE_OK(kc_malloc(&late, BUF_BYTES, KC_SPACE_HOST, "late buffer"));
  memset(late, 2, BUF_BYTES);
  for (int k = 0; k < BUFS; k++)
    KC_CHECK_OK(kc_free(buf[k]));
  KC_CHECK_OK(kc_event_destroy(e));
  KC_CHECK_OK(kc_queue_destroy(q));
  KC_CHECK_OK(kc_free(late));
}

static void queue_rounds(void) {
  /* Growth between round 100 and round 500: 100 MiB when each queue
   * pinned the heap, 52 KiB since. */
  long early = -1, late = -1;
  for (int round = 1; round <= 500; round++) {
    request();
    if (round == 100)
      early = rss_kib();
    if (round == 500)
      late = rss_kib();
  }
  KC_REQUIRE(early > 0 && late > 0);
  KC_INFO("queue rounds: resident %ld KiB at round 100, %ld KiB at 500", early,
          late);
  if (LONGRUN_OWN_ALLOCATOR) {
    KC_INFO("queue rounds: growth not checked under a sanitizer");
    return;
  }
  /* A request's buffers are 1.25 MiB: 16 MiB is a dozen of them. */
  KC_CHECK_LE_INT(late - early, 16 * 1024);
}

static void cycle_work(void) {
  int64_t *x = NULL, sum = 0;
  KC_REQUIRE_OK(kc_malloc((void **)&x, 1000 * sizeof *x, KC_SPACE_DEVICE, "x"));
  kc_policy p = kc_range(0, 1000);
  kt_fill f = {x, 0, 1, 0};
  KC_CHECK_OK(kc_parallel_for("fill", KC_KERNEL(kt_fill), &p, &f, sizeof f));
  kt_xi64 s = {x, 0};
  KC_CHECK_OK(
      kc_parallel_reduce("sum", KC_KERNEL(kt_sum_i64), &p, &s, sizeof s, &sum));
  KC_CHECK_EQ_INT(sum, 999 * 1000 / 2);
  kc_queue *q = NULL;
  kc_event *e = NULL;
  KC_CHECK_OK(kc_queue_create(&q, 0));
  KC_CHECK_OK(kc_event_create(&e));
  KC_CHECK_OK(kc_event_record(e, q));
  KC_CHECK_OK(kc_event_destroy(e));
  KC_CHECK_OK(kc_queue_destroy(q));
  kc_mirror *m = NULL;
  KC_CHECK_OK(kc_mirror_create(&m, 4096, "mirror"));
  KC_CHECK_OK(kc_mirror_modify_host(m));
  KC_CHECK_OK(kc_mirror_sync_target(m));
  KC_CHECK_OK(kc_mirror_destroy(m));
  KC_CHECK_OK(kc_free(x));
}

static void cycles(void) {
  /* A multiple of 4, as cycle 20 is: the thread count cycles through 1-4,
   * and libgomp's pool follows it, so the last cycle must end the pattern
   * where the baseline's did (KC_TEST_SCALE=2 gave 150 cycles and 3
   * threads against 4 on openmp). */
  int n = (int)kc_test_large(300);
  n = n < 40 ? 40 : n - n % 4;
  long fds = -1, tasks = -1, maps = -1;
  for (int c = 1; c <= n; c++) {
    char threads[16];
    snprintf(threads, sizeof threads, "%d", 1 + c % 4);
    setenv("KC_NUM_THREADS", threads, 1);
    KC_REQUIRE_OK(kc_init());
    cycle_work();
    KC_REQUIRE_OK(kc_finalize());
    if (c == 20) {
      fds = entries("/proc/self/fd");
      tasks = entries("/proc/self/task");
      maps = mappings();
    }
  }
  KC_INFO("%d cycles: fds %ld -> %ld, threads %ld -> %ld, mappings %ld -> "
          "%ld",
          n, fds, entries("/proc/self/fd"), tasks, entries("/proc/self/task"),
          maps, mappings());
  KC_CHECK_EQ_INT(entries("/proc/self/fd"), fds);
  KC_CHECK_EQ_INT(entries("/proc/self/task"), tasks);
  /* Mappings may merge or split as the heap moves; not grow with n. */
  KC_CHECK_LE_INT(mappings(), maps + 8);
}

static void nop_for(const void *f, kc_index b, kc_index e) {
  (void)f;
  (void)b;
  (void)e;
}

enum { KERNELS = 64000 };
/* The names kc_kernel_desc wants to outlive the program. */
static char names[KERNELS][32];

static const char *kernel_name(int i) {
  if (!names[i][0])
    snprintf(names[i], sizeof names[i], "longrun_kernel_%06d", i);
  return names[i];
}

static void register_upto(int *n, int upto) {
  for (; *n < upto; ++*n) {
    kc_kernel_desc d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    d.name = kernel_name(*n);
    d.kind = KC_KERNEL_FOR;
    d.host = (void (*)(void))nop_for;
    KC_REQUIRE_OK(kc_kernel_register(&d, NULL));
  }
}

/* Seconds for looking up the first 1000 kernels registered (the oldest,
 * which a bucket's chain holds last), the best of 5 tries. */
static double lookup_time(void) {
  double best = 1e30;
  for (int t = 0; t < 5; t++) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int rep = 0; rep < 10; rep++)
      for (int i = 0; i < 1000; i++) {
        kc_kernel *k = NULL;
        if (kc_kernel_get(kernel_name(i), &k) != 0 || !k)
          KC_FAIL("kc_kernel_get(%s): %s", kernel_name(i), kc_last_error());
      }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double dt =
        (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    if (dt < best)
      best = dt;
  }
  return best;
}

static void registry(void) {
  int n = 0;
  register_upto(&n, 4000);
  double few = lookup_time();
  register_upto(&n, KERNELS);
  double many = lookup_time();
  KC_INFO("registry: 10000 lookups take %.2f ms among 4000 kernels, %.2f ms "
          "among 64000",
          few * 1e3, many * 1e3);
  /* 180 times with a fixed table (171 ms against 0.9 ms). */
  KC_CHECK(many < 4 * few);
  /* They still launch. */
  kc_kernel *k = NULL;
  KC_REQUIRE_OK(kc_kernel_get(kernel_name(KERNELS - 1), &k));
  KC_REQUIRE_OK(kc_init());
  kc_policy p = kc_range(0, 10);
  KC_CHECK_OK(kc_parallel_for(NULL, k, &p, NULL, 0));
  KC_CHECK_OK(kc_finalize());
}

int main(void) {
  kc_test_init_backend();
  queue_rounds();
  const int device = kc_test_device_is_distinct();
  KC_CHECK_OK(kc_finalize());
  if (device) {
    /* A device backend's kc_init opens the device again each cycle (a
     * fraction of a second), its driver keeps threads and mappings of its
     * own, and the registry's kernels are host functions only. */
    KC_INFO("init cycles and the registry: host backends only");
    return kc_test_done();
  }
  cycles();
  registry();
  return kc_test_done();
}
