/* Conformance: bad input to the dispatch calls, and the runtime after it.
 *
 * Each "bad input" case that a running program can hit
 * (NULL kernel, NULL functor with a size, a functor of another size than
 * the kernel's, end < begin, chunk 0, a policy
 * or call that does not fit the kernel) returns its code with a
 * kc_last_error() detail, changes nothing, and leaves kc working.  The
 * detail is per thread.  (Loader errors: t-loader; calls before kc_init:
 * t-init.) */
#include <pthread.h>

#include <kc/kernel.h>

#include "kc-test.h"
#include "kernels/functors.h"

KC_KERNEL_DECLARE(kt_fill);
KC_KERNEL_DECLARE(kt_sum_i64);
KC_KERNEL_DECLARE(kt_sum_index);
KC_KERNEL_DECLARE(kt_xscan_i64);

enum { N = 64 };
static int64_t *dout;

/* The output must still hold the -1s it was set to. */
static void check_untouched(const char *after) {
  int64_t *h = kc_test_download(dout, N * sizeof *h);
  int bad = 0;
  for (int k = 0; k < N; k++)
    bad += h[k] != -1;
  if (bad)
    KC_FAIL("%d elements written after %s", bad, after);
  free(h);
}

/* A normal launch and reduction work, right after an error. */
static void check_usable(const char *after) {
  kc_policy p = kc_range(0, N);
  kt_fill f = {dout, 0, 1, 5};
  int64_t sum = -1;
  const int failures = kc_test_failures();
  KC_CHECK_OK(
      kc_parallel_for("usable", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f));
  kt_xi64 fs = {NULL, 0};
  KC_CHECK_OK(kc_parallel_reduce("usable", KC_TEST_KERNEL(kt_sum_index), &p,
                                 &fs, sizeof fs, &sum));
  KC_CHECK_EQ_INT(sum, N * (N - 1) / 2);
  int64_t *h = kc_test_download(dout, N * sizeof *h);
  int bad = 0;
  for (int k = 0; k < N; k++)
    bad += h[k] != k + 5;
  KC_CHECK_EQ_INT(bad, 0);
  free(h);
  KC_CHECK_OK(kc_memset(dout, 0xff, N * sizeof *dout));
  if (kc_test_failures() != failures)
    KC_INFO("  ... kc not usable after %s", after);
}

typedef struct bad_case {
  const char *what;
  int want;
} bad_case;

static void test_dispatch_errors(void) {
  kt_fill f = {dout, 0, 1, 5};
  kt_xi64 fx = {NULL, 0};
  kt_scan_i64 fs = {NULL, NULL, 0};
  int64_t r = 0;
  kc_policy good = kc_range(0, N), p;
  int rc;

#define BAD(call, code, what)                                                  \
  do {                                                                         \
    rc = KC_CHECK_ERR(call, code);                                             \
    KC_INFO("%-34s -> %s: %s", what, kc_err_name(rc), kc_last_error());        \
    check_untouched(what);                                                     \
    check_usable(what);                                                        \
  } while (0)

  BAD(kc_parallel_for("x", NULL, &good, &f, sizeof f), KC_EINVAL,
      "NULL kernel");
  BAD(kc_parallel_for("x", KC_TEST_KERNEL(kt_fill), &good, NULL, sizeof f),
      KC_EINVAL, "NULL functor with a size");
  BAD(kc_parallel_for("x", KC_TEST_KERNEL(kt_fill), NULL, &f, sizeof f),
      KC_EINVAL, "NULL policy");
  /* Another struct than the kernel's: it would read past the caller's. */
  kt_xi64 small = {NULL, 0};
  BAD(kc_parallel_for("x", KC_TEST_KERNEL(kt_fill), &good, &small,
                      sizeof small),
      KC_EINVAL, "functor of another size");
  BAD(kc_parallel_for("x", KC_TEST_KERNEL(kt_fill), &good, &f, sizeof f + 8),
      KC_EINVAL, "functor_size too large");
  p = kc_range(N, 0);
  BAD(kc_parallel_for("x", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f),
      KC_ERANGE, "end < begin");
  p = kc_range_schedule(0, N, KC_SCHEDULE_STATIC, 0);
  BAD(kc_parallel_for("x", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f),
      KC_EINVAL, "chunk 0");
  p = kc_range_schedule(0, N, KC_SCHEDULE_DYNAMIC, 0);
  BAD(kc_parallel_for("x", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f),
      KC_EINVAL, "chunk 0 (dynamic)");
  p = kc_range(0, N);
  p.kind = (kc_policy_kind)9;
  BAD(kc_parallel_for("x", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f),
      KC_EINVAL, "unknown policy kind");
  /* A reduction kernel launched as a for, a for as a reduction, a scan as
   * a reduction, a for kernel through kc_parallel_call. */
  BAD(kc_parallel_for("x", KC_TEST_KERNEL(kt_sum_i64), &good, &fx, sizeof fx),
      KC_EINVAL, "reduce kernel to parallel_for");
  BAD(kc_parallel_reduce("x", KC_TEST_KERNEL(kt_fill), &good, &f, sizeof f, &r),
      KC_EINVAL, "for kernel to parallel_reduce");
  BAD(kc_parallel_reduce("x", KC_TEST_KERNEL(kt_xscan_i64), &good, &fs,
                         sizeof fs, &r),
      KC_EINVAL, "scan kernel to parallel_reduce");
  BAD(kc_parallel_scan("x", KC_TEST_KERNEL(kt_sum_i64), &good, &fx, sizeof fx,
                       &r),
      KC_EINVAL, "reduce kernel to parallel_scan");
  BAD(kc_parallel_call("x", KC_TEST_KERNEL(kt_fill), &good, 0, NULL), KC_EINVAL,
      "for kernel to parallel_call");
  BAD(kc_parallel_reduce("x", KC_TEST_KERNEL(kt_sum_index), &good, &fx,
                         sizeof fx, NULL),
      KC_EINVAL, "reduction without a result");
  /* MD and team policies on a 1-D kernel. */
  {
    kc_index lo[2] = {0, 0}, hi[2] = {4, 4};
    p = kc_mdrange(2, lo, hi, NULL);
    BAD(kc_parallel_for("x", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f),
        KC_EINVAL, "MD policy on a 1-D kernel");
    p = kc_team_policy(4, KC_AUTO, 1);
    BAD(kc_parallel_for("x", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f),
        KC_EINVAL, "team policy on a 1-D kernel");
  }
  /* The same bad cases many times over: no leak, no drift. */
  for (int k = 0; k < 1000; k++) {
    p = kc_range(1, 0);
    rc = kc_parallel_for("x", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f);
    if (rc != KC_ERANGE) {
      KC_FAIL("repeat %d: %s", k, kc_err_name(rc));
      break;
    }
  }
  check_untouched("1000 refused launches");
  check_usable("1000 refused launches");
#undef BAD
}

/* kc_last_error is per thread: another thread's failure does not show
 * here, and a thread that failed nothing sees "". */
static char other_error[512];
static int other_rc;

static void *fail_in_thread(void *arg) {
  (void)arg;
  snprintf(other_error, sizeof other_error, "%s", kc_last_error());
  kc_policy p = kc_range(0, 0);
  p.chunk = 0;
  other_rc = kc_parallel_for("thread", KC_KERNEL(kt_fill), &p, NULL, 0);
  return NULL;
}

static void test_per_thread_detail(void) {
  pthread_t t;
  kc_policy p = kc_range(3, 2);
  KC_CHECK_ERR(kc_parallel_for("main", KC_TEST_KERNEL(kt_fill), &p, NULL, 0),
               KC_ERANGE);
  char mine[512];
  snprintf(mine, sizeof mine, "%s", kc_last_error());
  KC_REQUIRE(pthread_create(&t, NULL, fail_in_thread, NULL) == 0);
  pthread_join(t, NULL);
  KC_CHECK_EQ_STR(other_error, "");
  KC_CHECK_EQ_INT(other_rc, KC_EINVAL);
  KC_CHECK_EQ_STR(kc_last_error(), mine);
}

/* kc_set_last_error: a binding's own refusal replaces an older detail;
 * NULL is ""; a part of the detail itself (kc_last_error() + k) moves to
 * the front, not printed over itself; a detail longer than kc keeps is
 * cut with "..."; the code comes back. */
static void test_set_last_error(void) {
  kc_kernel *none;
  KC_CHECK_ERR(kc_kernel_get("t-errors: no such kernel", &none), KC_ENOKERNEL);
  KC_CHECK_EQ_INT(kc_set_last_error(KC_EINVAL, "binding_call: bad n"),
                  KC_EINVAL);
  KC_CHECK_EQ_STR(kc_last_error(), "binding_call: bad n");
  KC_CHECK_EQ_INT(kc_set_last_error(KC_ERANGE, kc_last_error() + 8), KC_ERANGE);
  KC_CHECK_EQ_STR(kc_last_error(), "call: bad n");
  KC_CHECK_EQ_INT(kc_set_last_error(0, kc_last_error()), 0);
  KC_CHECK_EQ_STR(kc_last_error(), "call: bad n");
  KC_CHECK_EQ_INT(kc_set_last_error(KC_EINVAL, NULL), KC_EINVAL);
  KC_CHECK_EQ_STR(kc_last_error(), "");
  static char big[20000];
  memset(big, 'x', sizeof big - 1);
  kc_set_last_error(KC_EINVAL, big);
  const size_t n = strlen(kc_last_error());
  KC_CHECK(n > 1000 && n < sizeof big - 1);
  KC_CHECK(n > 3 && strcmp(kc_last_error() + n - 3, "...") == 0);
}

int main(void) {
  test_set_last_error(); /* before kc_init too */
  kc_test_init_backend();
  dout = kc_test_dalloc(N * sizeof *dout, "errors out");
  KC_REQUIRE_OK(kc_memset(dout, 0xff, N * sizeof *dout));
  test_dispatch_errors();
  test_per_thread_detail();
  test_set_last_error();
  KC_CHECK_OK(kc_free(dout));
  return kc_test_finish();
}
