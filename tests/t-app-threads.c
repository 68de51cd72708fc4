/* Conformance: kc from several application threads.
 *
 * kc_init / kc_finalize are reference counted and thread safe: threads that
 * each hold their own reference can launch, allocate and finalize while
 * others do the same, starting from zero references (so the backend comes
 * up and goes down under contention) and while the main thread holds one.
 * Launches from several threads are serialised by kc and each gets its own
 * correct result.  Run under ThreadSanitizer by .ci/run. */
#include <pthread.h>

#include <kc/kernel.h>

#include "kc-test.h"
#include "kernels/functors.h"

KC_KERNEL_DECLARE(kt_fill);
KC_KERNEL_DECLARE(kt_sum_index);
KC_KERNEL_DECLARE(kt_sum_i64);

enum { NTHREADS = 6 };

typedef struct worker {
  int id, rounds;
  int init_each_round; /* kc_init/kc_finalize around every round */
  int failures;
  char first_error[256];
} worker;

static void fail(worker *w, const char *what, int rc) {
  if (w->failures++ == 0)
    snprintf(w->first_error, sizeof w->first_error, "%s: %s: %s", what,
             kc_err_name(rc), kc_last_error());
}

static void one_round(worker *w, int r) {
  const kc_index n = 1000 + 37 * w->id + r;
  int64_t *d = NULL, sum = -1, *h;
  int rc;
  if ((rc = kc_malloc((void **)&d, (size_t)n * sizeof *d, KC_SPACE_DEVICE,
                      "thread")) != 0) {
    fail(w, "kc_malloc", rc);
    return;
  }
  kc_policy p =
      kc_range_schedule(0, n, r % 2 ? KC_SCHEDULE_DYNAMIC : KC_SCHEDULE_STATIC,
                        r % 3 ? KC_AUTO : 16);
  kt_fill f = {d, 0, 1, w->id * 100000};
  if ((rc = kc_parallel_for("thread fill", KC_KERNEL(kt_fill), &p, &f,
                            sizeof f)) != 0)
    fail(w, "kc_parallel_for", rc);
  /* The sum of what this thread wrote: i + id*100000 over [0, n). */
  kt_xi64 fx = {d, 0};
  if ((rc = kc_parallel_reduce("thread sum", KC_KERNEL(kt_sum_i64), &p, &fx,
                               sizeof fx, &sum)) != 0)
    fail(w, "kc_parallel_reduce", rc);
  else if (sum != n * (n - 1) / 2 + n * (int64_t)w->id * 100000)
    fail(w, "wrong sum", 0);
  /* And the index sum, straight into kc memory. */
  int64_t *dres = NULL;
  if ((rc = kc_malloc((void **)&dres, sizeof *dres, KC_SPACE_DEVICE, "r")) ==
      0) {
    if ((rc = kc_parallel_reduce("thread sum", KC_KERNEL(kt_sum_index), &p, &fx,
                                 sizeof fx, dres)) != 0)
      fail(w, "kc_parallel_reduce to kc memory", rc);
    if ((rc = kc_fence()) != 0)
      fail(w, "kc_fence", rc);
    if ((rc = kc_memcpy(&sum, dres, sizeof sum)) != 0)
      fail(w, "kc_memcpy", rc);
    else if (sum != n * (n - 1) / 2)
      fail(w, "wrong index sum", 0);
    kc_free(dres);
  }
  h = malloc((size_t)n * sizeof *h);
  if (h && (rc = kc_memcpy(h, d, (size_t)n * sizeof *h)) == 0) {
    for (kc_index k = 0; k < n; k++)
      if (h[k] != k + w->id * 100000) {
        fail(w, "wrong fill", 0);
        break;
      }
  }
  free(h);
  if ((rc = kc_free(d)) != 0)
    fail(w, "kc_free", rc);
}

static void *run_worker(void *arg) {
  worker *w = arg;
  int rc;
  if (!w->init_each_round && (rc = kc_init()) != 0) {
    fail(w, "kc_init", rc);
    return NULL;
  }
  for (int r = 0; r < w->rounds; r++) {
    if (w->init_each_round && (rc = kc_init()) != 0) {
      fail(w, "kc_init", rc);
      continue;
    }
    one_round(w, r);
    if (w->init_each_round && (rc = kc_finalize()) != 0)
      fail(w, "kc_finalize", rc);
  }
  if (!w->init_each_round && (rc = kc_finalize()) != 0)
    fail(w, "kc_finalize", rc);
  return NULL;
}

static void run_workers(int init_each_round, int rounds, const char *what) {
  pthread_t th[NTHREADS];
  worker w[NTHREADS];
  for (int t = 0; t < NTHREADS; t++) {
    memset(&w[t], 0, sizeof w[t]);
    w[t].id = t;
    w[t].rounds = rounds;
    w[t].init_each_round = init_each_round;
    KC_REQUIRE(pthread_create(&th[t], NULL, run_worker, &w[t]) == 0);
  }
  for (int t = 0; t < NTHREADS; t++) {
    pthread_join(th[t], NULL);
    if (w[t].failures)
      KC_FAIL("%s: thread %d: %d failure(s), the first: %s", what, t,
              w[t].failures, w[t].first_error);
  }
  KC_INFO("%s: %d threads x %d rounds done", what, NTHREADS, rounds);
}

int main(void) {
  const kc_index rounds = kc_test_large(40) < 4 ? 4 : kc_test_large(40);

  /* 1: nobody holds kc; threads bring it up and down concurrently. */
  kc_test_init_backend(); /* checks the backend, prints what it is */
  KC_REQUIRE_OK(kc_finalize());
  KC_CHECK_EQ_INT(kc_is_initialized(), 0);
  run_workers(1, (int)rounds, "init/finalize every round from zero");
  KC_CHECK_EQ_INT(kc_is_initialized(), 0);

  /* 2: each thread holds one reference for all its rounds. */
  run_workers(0, (int)rounds, "one reference per thread");
  KC_CHECK_EQ_INT(kc_is_initialized(), 0);

  /* 3: main holds a reference; threads come and go around it. */
  KC_REQUIRE_OK(kc_init());
  run_workers(1, (int)rounds, "main holds a reference");
  KC_CHECK_EQ_INT(kc_is_initialized(), 1);
  if (kc_test_backend())
    KC_CHECK_EQ_STR(kc_backend_name(), kc_test_backend());
  return kc_test_finish();
}
