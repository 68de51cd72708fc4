/* Conformance: results do not depend on the number of threads.
 *
 * Each thread count (KC_NUM_THREADS = 1, 2, 3, 5, 8, 17: fewer, as many
 * and more threads than cores) runs in a child process of its own, so kc
 * starts fresh with it; the child checks that a host backend uses exactly
 * that many threads and that reductions, scans and fors over every
 * schedule still give the exact answers.  A bad KC_NUM_THREADS is refused
 * by kc_init with its reason, and so is a count of threads the process
 * cannot start (the OpenMP runtime used to end the process then). */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kc/backend.h> /* kc_host_cpu_count */
#include <kc/kernel.h>

#include "kc-isolate.h"
#include "kc-test.h"
#include "kernels/functors.h"

KC_KERNEL_DECLARE(kt_sum_index);
KC_KERNEL_DECLARE(kt_max_index);
KC_KERNEL_DECLARE(kt_minloc_i64);
KC_KERNEL_DECLARE(kt_xscan_index);
KC_KERNEL_DECLARE(kt_iscan_mc);
KC_KERNEL_DECLARE(kt_count);

static void work(int nthreads) {
  const char *want = kc_test_backend();
  int rc = kc_init();
  if (rc == KC_ENODEV)
    KC_SKIP("no device: %s", kc_last_error());
  KC_REQUIRE_OK(rc);
  kc_info info = kc_test_info();
  if (want)
    KC_CHECK_EQ_STR(kc_backend_name(), want);
  if (info.dev.compute_major == 0) {
    if (strcmp(info.backend, "serial") == 0)
      KC_CHECK_EQ_INT(info.num_threads, 1);
    else
      KC_CHECK_EQ_INT(info.num_threads, nthreads);
  }

  const kc_index n = kc_test_large(1000003);
  static const kc_index chunks[] = {KC_AUTO, 1, 1000};
  int64_t *d = kc_test_dalloc((size_t)n * sizeof(int64_t), "nthreads");
  int32_t *hits = kc_test_dalloc((size_t)n * sizeof(int32_t), "hits");
  for (int dyn = 0; dyn < 2; dyn++)
    for (int c = 0; c < 3; c++) {
      kc_schedule s = dyn ? KC_SCHEDULE_DYNAMIC : KC_SCHEDULE_STATIC;
      kc_policy p = kc_range_schedule(-17, n - 17, s, chunks[c]);
      kt_xi64 fx = {d, -17};
      int64_t v = -1;

      KC_CHECK_OK(kc_parallel_reduce("sum", KC_TEST_KERNEL(kt_sum_index), &p,
                                     &fx, sizeof fx, &v));
      KC_CHECK_EQ_INT(v, (int64_t)(n - 35) * n / 2);
      KC_CHECK_OK(kc_parallel_reduce("max", KC_TEST_KERNEL(kt_max_index), &p,
                                     &fx, sizeof fx, &v));
      KC_CHECK_EQ_INT(v, n - 18);

      /* every index visited once */
      kt_count fc = {hits, -17};
      KC_CHECK_OK(kc_memset(hits, 0, (size_t)n * sizeof(int32_t)));
      KC_CHECK_OK(kc_parallel_for("count", KC_TEST_KERNEL(kt_count), &p, &fc,
                                  sizeof fc));
      int32_t *h = kc_test_download(hits, (size_t)n * sizeof(int32_t));
      kc_index bad = 0;
      for (kc_index k = 0; k < n; k++)
        bad += h[k] != 1;
      KC_CHECK_EQ_INT(bad, 0);
      free(h);

      /* exclusive scan of the index, with its total */
      kt_scan_i64 fs = {NULL, d, -17};
      v = -1;
      KC_CHECK_OK(kc_parallel_scan("scan", KC_TEST_KERNEL(kt_xscan_index), &p,
                                   &fs, sizeof fs, &v));
      KC_CHECK_EQ_INT(v, (int64_t)(n - 35) * n / 2);
      int64_t *o = kc_test_download(d, (size_t)n * sizeof(int64_t));
      int64_t acc = 0;
      bad = 0;
      for (kc_index k = 0; k < n; k++) {
        bad += o[k] != acc;
        acc += k - 17;
      }
      KC_CHECK_EQ_INT(bad, 0);

      /* minloc with ties everywhere: the smallest index wins */
      for (kc_index k = 0; k < n; k++)
        o[k] = k % 1000 == 999 ? -5 : (k % 7);
      KC_CHECK_OK(kc_memcpy(d, o, (size_t)n * sizeof(int64_t)));
      kc_loc_int64 ml = {0, -1};
      KC_CHECK_OK(kc_parallel_reduce("minloc", KC_TEST_KERNEL(kt_minloc_i64),
                                     &p, &fx, sizeof fx, &ml));
      KC_CHECK_EQ_INT(ml.val, -5);
      KC_CHECK_EQ_INT(ml.loc, 999 - 17);
      free(o);
    }
  KC_CHECK_OK(kc_free(d));
  KC_CHECK_OK(kc_free(hits));
  KC_CHECK_OK(kc_finalize());
}

/* Runs work(n) in a child with KC_NUM_THREADS=n; 0 pass, 77 skip, else
 * fail. */
static int in_child(int n) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    KC_FAIL("fork: %s", strerror(errno));
    return 1;
  }
  if (pid == 0) {
    char v[16];
    snprintf(v, sizeof v, "%d", n);
    setenv("KC_NUM_THREADS", v, 1);
    int before = kc_test_failures(); /* the parent's, inherited */
    work(n);
    exit(kc_test_failures() > before ? 1 : 0);
  }
  int st = 0;
  if (waitpid(pid, &st, 0) < 0) {
    KC_FAIL("waitpid: %s", strerror(errno));
    return 1;
  }
  if (WIFSIGNALED(st)) {
    KC_FAIL("KC_NUM_THREADS=%d: the child died of signal %d", n, WTERMSIG(st));
    return 1;
  }
  return WEXITSTATUS(st);
}

/* More threads than the process can start: its address space limited to
 * 1.5 GB, 3000 threads need more stacks than that.  kc_init must fail with
 * KC_ENOMEM on the host backends (the threads backend's pool, the openmp
 * backend's check before libgomp, which exits the process when it cannot
 * start a thread), or succeed where the count means nothing (serial, a
 * device); the process must live to say so. */
static int cannot_start(void *arg) {
  (void)arg;
  int before = kc_test_failures();
  struct rlimit lim = {(rlim_t)1536 << 20, (rlim_t)1536 << 20};
  if (setrlimit(RLIMIT_AS, &lim) != 0) {
    KC_INFO("skipped: setrlimit(RLIMIT_AS): %s", strerror(errno));
    return KC_TEST_SKIP;
  }
  setenv("KC_NUM_THREADS", "3000", 1);
  int rc = kc_init();
  if (rc == 0) {
    const char *b = kc_backend_name();
    KC_CHECK(strcmp(b, "threads") != 0 && strcmp(b, "openmp") != 0);
    KC_CHECK_OK(kc_finalize());
  } else if (rc != KC_ENODEV) {
    /* KC_ENOMEM: cannot start them; KC_EINVAL: more than the backend ever
     * takes (backend.h, init) */
    KC_CHECK(rc == KC_ENOMEM || rc == KC_EINVAL);
    KC_CHECK_CONTAINS(kc_last_error(), "3000");
  }
  return kc_test_failures() > before;
}

/* A count far past any machine: the openmp backend refuses it by number
 * (libgomp set a team of 100000 up on the launching thread's stack and
 * overflowed it), from KC_NUM_THREADS and from the OpenMP runtime's own
 * default (OMP_NUM_THREADS=100000, KC_NUM_THREADS unset: the plugin
 * checked only KC_NUM_THREADS, and libgomp's region of 20000 threads died
 * of its stack, SIGSEGV in kc_init).  arg: the variable to set, then the
 * detail kc must give. */
static int far_too_many(void *arg) {
  const char *const *how = arg;
  int before = kc_test_failures();
  unsetenv("KC_NUM_THREADS");
  setenv(how[0], "100000", 1);
  int rc = kc_init();
  KC_CHECK_EQ_INT(rc, KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), how[1]);
  if (rc == 0)
    kc_finalize();
  return kc_test_failures() > before;
}

/* The default count where the process may start no thread at all
 * (RLIMIT_NPROC; root is exempt, so the case runs as nobody): the openmp
 * plugin tried only counts above the CPU count before it handed them to
 * libgomp, which ended the process ("Thread creation failed", exit 1)
 * inside kc_init; and with a list the next backend was never tried. */
/* Copies libkc-openmp.so from KC_PLUGIN_PATH into dir (mode 0644): 1 on
 * success. */
static int copy_plugin(const char *dir) {
  const char *path = getenv("KC_PLUGIN_PATH");
  char from[4096], to[4096];
  for (const char *p = path; p && *p;
       p += strcspn(p, ":") + (p[strcspn(p, ":")] != 0)) {
    snprintf(from, sizeof from, "%.*s/libkc-openmp.so", (int)strcspn(p, ":"),
             p);
    FILE *in = fopen(from, "rb");
    if (!in)
      continue;
    snprintf(to, sizeof to, "%s/libkc-openmp.so", dir);
    FILE *out = fopen(to, "wb");
    char buf[65536];
    size_t n;
    int ok = out != NULL;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
      ok = fwrite(buf, 1, n, out) == n;
    fclose(in);
    if (out)
      ok = fclose(out) == 0 && ok;
    return ok && chmod(to, 0644) == 0;
  }
  return 0;
}

static const char *plugin_dir; /* the copy's directory, removed at the end */

static void remove_copy(void) {
  char file[4096];
  if (!plugin_dir)
    return;
  snprintf(file, sizeof file, "%s/libkc-openmp.so", plugin_dir);
  unlink(file);
  rmdir(plugin_dir);
}

static int no_threads_left_in(void) {
  int before = kc_test_failures();
  if (kc_host_cpu_count() < 2) {
    KC_INFO("skipped: one CPU, so the default is one thread");
    return KC_TEST_SKIP;
  }
  if (geteuid() == 0) {
    /* nobody may not reach the build tree (CI's is mode 0700): the
     * plugin goes to a directory of nobody's first. */
    static char dir[] = "/tmp/kc-nproc-XXXXXX";
    if (!mkdtemp(dir) || chmod(dir, 0755) != 0 || !copy_plugin(dir) ||
        chown(dir, 65534, 65534) != 0) {
      KC_INFO("skipped: cannot copy the openmp plugin for nobody");
      return KC_TEST_SKIP;
    }
    setenv("KC_PLUGIN_PATH", dir, 1);
    plugin_dir = dir;
    if (setgid(65534) != 0 || setuid(65534) != 0) {
      KC_INFO("skipped: cannot become nobody: %s", strerror(errno));
      return KC_TEST_SKIP;
    }
  }
  struct rlimit lim = {1, 1};
  if (setrlimit(RLIMIT_NPROC, &lim) != 0) {
    KC_INFO("skipped: setrlimit(RLIMIT_NPROC): %s", strerror(errno));
    return KC_TEST_SKIP;
  }
  unsetenv("KC_NUM_THREADS");
  setenv("KC_BACKEND", "openmp", 1);
  int rc = kc_init();
  if (rc == KC_ENOBACKEND || rc == KC_ENODEV) {
    KC_INFO("skipped: the openmp plugin cannot be used here: %s",
            kc_last_error());
    return KC_TEST_SKIP;
  }
  KC_CHECK_EQ_INT(rc, KC_ENOMEM);
  KC_CHECK_CONTAINS(kc_last_error(), "cannot start");
  if (rc == 0)
    kc_finalize();
  setenv("KC_BACKEND", "openmp,serial", 1);
  rc = kc_init();
  KC_CHECK_OK(rc);
  if (rc == 0) {
    KC_CHECK(strcmp(kc_backend_name(), "serial") == 0);
    KC_CHECK_OK(kc_finalize());
  }
  return kc_test_failures() > before;
}

static int no_threads_left(void *arg) {
  (void)arg;
  int rc = no_threads_left_in();
  remove_copy();
  return rc;
}

int main(void) {
  static const int counts[] = {1, 2, 3, 5, 8, 17};
  setvbuf(stdout, NULL, _IOLBF, 0);
  /* First, while no backend ran here: a child of a process whose OpenMP
   * runtime started cannot use the openmp backend. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  (void)cannot_start;
  KC_INFO("3000 threads in 1.5 GB: not run under a sanitizer, which maps "
          "more than that itself");
#else
  kc_isolate("3000 threads in 1.5 GB of address space", cannot_start, NULL,
             120);
#endif
  const char *want = kc_test_backend();
  if (want && strcmp(want, "openmp") == 0) {
    static const char *const kc_var[] = {
        "KC_NUM_THREADS", "100000 threads is more than the 4096"};
    static const char *const omp_var[] = {"OMP_NUM_THREADS",
                                          "OMP_NUM_THREADS=100000"};
    kc_isolate("far_too_many KC_NUM_THREADS", far_too_many, (void *)kc_var, 60);
    kc_isolate("far_too_many OMP_NUM_THREADS", far_too_many, (void *)omp_var,
               60);
    KC_ISOLATE(no_threads_left, NULL, 60);
  }
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
    int rc = in_child(counts[k]);
    if (rc == KC_TEST_SKIP)
      KC_SKIP("the backend is not available (see above)");
    if (rc != 0)
      KC_FAIL("KC_NUM_THREADS=%d failed (exit %d, see above)", counts[k], rc);
    else
      KC_INFO("KC_NUM_THREADS=%d ok", counts[k]);
  }

  /* Values that are not a thread count: kc_init says so. */
  static const char *const bad[] = {"x", "-3", "4abc", "", " 3", "+3", "3 "};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    setenv("KC_NUM_THREADS", bad[k], 1);
    int rc = kc_init();
    if (rc == 0) {
      /* An empty value may mean "unset"; anything else is an error. */
      if (bad[k][0] != '\0')
        KC_FAIL("KC_NUM_THREADS='%s' was accepted", bad[k]);
      kc_finalize();
      continue;
    }
    if (rc == KC_ENODEV)
      KC_SKIP("no device: %s", kc_last_error());
    KC_CHECK_EQ_INT(rc, KC_EINVAL);
    KC_CHECK_CONTAINS(kc_last_error(), "KC_NUM_THREADS");
    KC_CHECK_EQ_INT(kc_is_initialized(), 0);
  }
  unsetenv("KC_NUM_THREADS");
  /* and kc works afterwards */
  KC_REQUIRE_OK(kc_init());
  KC_CHECK_OK(kc_finalize());
  return kc_test_done();
}
