/* Conformance: ordering inside kernels (the _explicit atomics and the
 * fences of <kc/atomic.h>).  Plain data travels from one index to another
 * through a flag, in two shapes:
 *
 *   mp    message passing between two indices, many rounds (ping-pong):
 *         on the host two chunks on different threads, on a GPU two
 *         threads of different blocks;
 *   wave  a wavefront: stage s waits for every element of stage s - 1
 *         (on a GPU a stage is a block's worth of indices, and the grid is
 *         kept small enough for all of it to be resident at once).
 *
 * Each runs with the flag published and awaited in each ordering mode
 * (release/acquire, seq_cst, read-modify-writes, fences, seq_cst fences);
 * every value read must be the one written.  Each case runs in a process
 * of its own with a time limit (kc-isolate.h), and every wait is bounded,
 * so a hand-off that never comes fails instead of hanging.  mp needs two
 * indices running at once: it skips on a backend with one host thread
 * (serial), where the producer would wait for a consumer that runs after
 * it.  wave only ever waits for lower indices, which a thread starts
 * first; it runs on every backend whose threads all run at once, and on
 * one thread.  Both skip on a backend that runs its threads' shares one
 * after another (the example plugin: concurrency below num_threads).
 *
 * Under ThreadSanitizer the same cases are checked for races: the ordered
 * modes must give no report, and the relaxed mode (the flag with no order
 * at all) must be reported as a data race on the message -- the proof
 * that the test would catch a missing order.  TSan does not model fences,
 * so the fence modes skip there. */
#include <fcntl.h>
#include <stdio.h>

#include <kc/kernel.h>

#include "kc-isolate.h"
#include "kc-test.h"
#include "kernels/model.h"

KC_KERNEL_DECLARE(kt_order_mp);
KC_KERNEL_DECLARE(kt_order_wave);

static const char *const mode_names[KT_ORDER_MODES] = {
    "acquire/release", "seq_cst",        "read-modify-write",
    "fences",          "seq_cst fences", "relaxed"};

typedef struct order_case {
  int32_t mode;
  int wave; /* 0: mp, 1: wave */
} order_case;

/* Sizes for the backend in use (after kc_init). */
static void sizes(kt_order *f, int wave, int32_t mode, kc_index *n) {
  kc_info info = kc_test_info();
  memset(f, 0, sizeof *f);
  if (info.device >= 0) {
    /* A GPU: stages of 256 indices, at most one per multiprocessor, so
     * that every block of the grid is resident at once. */
    int sms = info.dev.multiprocessors > 0 ? info.dev.multiprocessors : 1;
    f->width = 256;
    *n = wave ? f->width * (sms < 64 ? sms : 64) : (sms >= 5 ? 1025 : 2);
    f->rounds = 20000;
    f->spin = (int64_t)1 << 24;
  } else {
    /* mp's producer waits for its consumer; a relaxed flag shows a race
     * only between two threads. */
    if ((!wave || mode == KT_ORDER_RELAXED) && info.num_threads < 2)
      KC_SKIP("%s needs two indices at once; backend %s runs %d thread",
              mode == KT_ORDER_RELAXED ? "a race" : "message passing",
              info.backend, info.num_threads);
    /* A backend that runs its shares one after another (concurrency below
     * num_threads, in any order: backend.h) may start a share that waits
     * before the share it waits for. */
    if (info.num_threads > 1 && info.concurrency < info.num_threads)
      KC_SKIP("waits across threads need every thread running at once; "
              "backend %s runs %d threads %d at a time",
              info.backend, info.num_threads, info.concurrency);
    f->width = 8;
    *n = wave ? f->width * 64 : 2;
    f->rounds = kc_test_large(2000);
    f->spin = (int64_t)1 << 31;
  }
  f->words = 16;
  f->producer = 0;
  f->consumer = *n - 1;
}

/* One case, in the child: launch it, check what came back. */
static int run_case(void *arg) {
  const order_case *c = arg;
  kt_order f;
  kc_index n;
  kc_test_init_backend();
  sizes(&f, c->wave, c->mode, &n);
  f.mode = c->mode;
  const kc_index stages = c->wave ? n / f.width : 2;
  const size_t dbytes = (size_t)(c->wave ? n : f.words) * sizeof(int64_t);
  f.data = kc_test_dalloc(dbytes, "data");
  f.flag = kc_test_dalloc((size_t)stages * sizeof(int64_t), "flag");
  f.err = kc_test_dalloc(2 * sizeof(int64_t), "err");
  KC_REQUIRE_OK(kc_memset(f.data, 0, dbytes));
  KC_REQUIRE_OK(kc_memset(f.flag, 0, (size_t)stages * sizeof(int64_t)));
  KC_REQUIRE_OK(kc_memset(f.err, 0, 2 * sizeof(int64_t)));
  KC_INFO("%s, %s: %lld indices, %lld rounds, %lld words, width %lld",
          c->wave ? "wave" : "mp", mode_names[c->mode], (long long)n,
          (long long)f.rounds, (long long)f.words, (long long)f.width);

  kc_policy p = kc_range_schedule(0, n, KC_SCHEDULE_STATIC, 1);
  kc_kernel *k =
      c->wave ? KC_TEST_KERNEL(kt_order_wave) : KC_TEST_KERNEL(kt_order_mp);
  KC_CHECK_OK(kc_parallel_for(kc_kernel_name(k), k, &p, &f, sizeof f));
  KC_CHECK_OK(kc_fence());

  int64_t err[2], *flag = kc_test_download(f.flag, (size_t)stages * 8);
  KC_CHECK_OK(kc_memcpy(err, f.err, sizeof err));
  KC_CHECK_EQ_INT(err[0], 0); /* wrong values read */
  KC_CHECK_EQ_INT(err[1], 0); /* waits that gave up */
  if (c->wave) {
    int64_t *d = kc_test_download(f.data, dbytes);
    for (kc_index i = 0; i < n; i++)
      if (d[i] != i / f.width + 1) {
        KC_FAIL("wave: element %lld holds %lld, not %lld", (long long)i,
                (long long)d[i], (long long)(i / f.width + 1));
        break;
      }
    for (kc_index s = 0; s < stages; s++)
      if (flag[s] != f.width) {
        KC_FAIL("wave: stage %lld counted %lld of %lld", (long long)s,
                (long long)flag[s], (long long)f.width);
        break;
      }
    free(d);
  } else {
    KC_CHECK_EQ_INT(flag[0], f.rounds);
    KC_CHECK_EQ_INT(flag[1], f.rounds);
  }
  free(flag);
  kc_free(f.data);
  kc_free(f.flag);
  kc_free(f.err);
  return kc_test_finish();
}

/* The case with its stderr in `out` (where ThreadSanitizer reports). */
typedef struct captured {
  order_case c;
  int fd;
} captured;

static int run_captured(void *arg) {
  captured *cc = arg;
  if (dup2(cc->fd, 2) < 0)
    return 1;
  return run_case(&cc->c);
}

/* What the child wrote to fd, echoed into the log, then whether it held
 * a ThreadSanitizer report of a data race (1), another report (2) or
 * none (0). */
static int tsan_report(int fd) {
  char buf[4096];
  size_t shown = 0;
  int race = 0, report = 0;
  FILE *fp;
  lseek(fd, 0, SEEK_SET);
  fp = fdopen(dup(fd), "r");
  if (fp == NULL)
    return 0;
  while (fgets(buf, sizeof buf, fp) != NULL) {
    if (strstr(buf, "ThreadSanitizer: data race"))
      race = 1;
    else if (strstr(buf, "ThreadSanitizer"))
      report = 1;
    if (shown++ < 40)
      printf("# child: %s", buf);
  }
  fclose(fp);
  return race ? 1 : report ? 2 : 0;
}

/* An unlinked temporary file for a child's stderr. */
static int temp_fd(void) {
  const char *dir = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/kc-order-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) {
    KC_FAIL("mkstemp %s: %s", path, strerror(errno));
    exit(1);
  }
  unlink(path);
  return fd;
}

/* A relaxed flag under ThreadSanitizer: the child is expected to be
 * reported (and, with halt_on_error, to die of it), so it does not go
 * through kc_isolate, which would count that as a failure; an alarm
 * bounds it instead. */
static int expect_race(int wave) {
  captured cc = {{KT_ORDER_RELAXED, wave}, temp_fd()};
  int status = 0;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    KC_FAIL("fork: %s", strerror(errno));
    return 1;
  }
  if (pid == 0) {
    alarm(120);
    _exit(run_captured(&cc));
  }
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == KC_TEST_SKIP) {
    tsan_report(cc.fd);
    close(cc.fd);
    KC_INFO("%s, relaxed: skipped", wave ? "wave" : "mp");
    return KC_TEST_SKIP;
  }
  const int tsan = tsan_report(cc.fd);
  close(cc.fd);
  if (tsan != 1) {
    KC_FAIL("%s with a relaxed flag: ThreadSanitizer reported no data race "
            "(child status 0x%x)",
            wave ? "wave" : "mp", status);
    return 1;
  }
  KC_INFO("%s, relaxed: ThreadSanitizer reports the race, as it must",
          wave ? "wave" : "mp");
  return 0;
}

int main(void) {
  int ran = 0;
  setvbuf(stdout, NULL, _IOLBF, 0);
  /* An order outside kc's five counts as SEQ_CST on every path (C11's
   * memory_order_seq_cst is 5): the host's loads and stores took it for
   * acquire and release (an outside review's store-buffering litmus saw
   * 5769 forbidden outcomes in 300000). */
  KC_CHECK_EQ_INT(kc__host_load_mo((kc_memory_order)5), __ATOMIC_SEQ_CST);
  KC_CHECK_EQ_INT(kc__host_store_mo((kc_memory_order)5), __ATOMIC_SEQ_CST);
  KC_CHECK_EQ_INT(kc__host_fail_mo((kc_memory_order)9), __ATOMIC_SEQ_CST);
  KC_CHECK_EQ_INT(kc__host_mo((kc_memory_order)-1), __ATOMIC_SEQ_CST);
  KC_CHECK_EQ_INT(kc__host_load_mo(KC_MEMORY_ORDER_RELEASE), __ATOMIC_ACQUIRE);
  for (int wave = 0; wave < 2; wave++) {
    for (int32_t m = 0; m < KT_ORDER_RELAXED; m++) {
      if (KT_TSAN && (m == KT_ORDER_FENCE || m == KT_ORDER_SCFENCE)) {
        KC_INFO("%s, %s: skipped (ThreadSanitizer does not model fences)",
                wave ? "wave" : "mp", mode_names[m]);
        continue;
      }
      captured cc = {{m, wave}, temp_fd()};
      char name[64];
      snprintf(name, sizeof name, "%s, %s", wave ? "wave" : "mp",
               mode_names[m]);
      const int rc = kc_isolate(name, run_captured, &cc, 300);
      const int tsan = tsan_report(cc.fd);
      if (tsan != 0)
        KC_FAIL("%s: ThreadSanitizer reported the ordered hand-off", name);
      ran += rc == 0;
      close(cc.fd);
    }
    if (KT_TSAN)
      ran += expect_race(wave) == 0;
  }
  if (ran == 0 && kc_test_failures() == 0)
    KC_SKIP("no case ran (each said why above)");
  return kc_test_done();
}
