/* Conformance: queues, events and devices.
 *
 * Work on one queue runs in order; an event orders two queues; several
 * application threads each drive their own queue; destroying a queue waits
 * for its work; reductions and scans on a queue give their results in host
 * variables and in kc allocations; allocations name a device; hostile
 * handles (destroyed, foreign, NULL, devices that do not exist) are
 * refused with KC_EINVAL in a process of their own.  On a device backend
 * with queue slots (cuda) two queues run at the same time: a kernel on
 * one sees a flag a kernel on the other sets, and reductions on both at
 * once each get their own result. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kc/kernel.h>

#include "kc-isolate.h"
#include "kc-test.h"
#include "kernels/functors.h"

KC_KERNEL_DECLARE(kt_fill);
KC_KERNEL_DECLARE(kt_axpy);
KC_KERNEL_DECLARE(kt_sum_i64);
KC_KERNEL_DECLARE(kt_iscan_i64);
KC_KERNEL_DECLARE(kt_wait_flag);
KC_KERNEL_DECLARE(kt_set_flag);

enum { N = 10007 };

static int device_count(void) {
  kc_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  KC_CHECK_OK(kc_get_info(&info));
  return info.device_count;
}

static int device_in_use(void) {
  int d = -2;
  KC_CHECK_OK(kc_queue_device(NULL, &d));
  return d;
}

/* memset, fill, memset of a part, copy back: all on one queue, no fence
 * between them; only the queue's order makes the result right. */
static void test_order(void) {
  kc_queue *q = NULL;
  KC_CHECK_OK(kc_queue_create(&q, device_in_use()));
  int64_t *d = kc_test_dalloc(N * sizeof(int64_t), "order");
  int64_t *h = kc_test_xmalloc(N * sizeof(int64_t));
  kt_fill f = {d, 0, 3, 1};
  kc_policy p = kc_policy_on(kc_range(0, N), q);
  KC_CHECK(p.queue == q);
  KC_CHECK(kc_range(0, 1).queue == NULL);
  for (int r = 0; r < 3; r++) {
    KC_CHECK_OK(kc_memset_on(q, d, 0xff, N * sizeof(int64_t)));
    KC_CHECK_OK(
        kc_parallel_for("order", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f));
    KC_CHECK_OK(kc_memset_on(q, d, 0, 16 * sizeof(int64_t)));
    KC_CHECK_OK(kc_memcpy_on(q, h, d, N * sizeof(int64_t)));
    KC_CHECK_OK(kc_queue_fence(q));
    int bad = 0;
    for (int i = 0; i < N; i++)
      bad += h[i] != (i < 16 ? 0 : 3 * (int64_t)i + 1);
    KC_CHECK_EQ_INT(bad, 0);
  }
  free(h);
  KC_CHECK_OK(kc_free(d));
  KC_CHECK_OK(kc_queue_destroy(q));
}

/* q1 fills, an event recorded on q1 makes q2 wait, q2 copies and adds. */
static void test_event_dependency(void) {
  kc_queue *q1 = NULL, *q2 = NULL;
  kc_event *e = NULL;
  KC_CHECK_OK(kc_queue_create(&q1, device_in_use()));
  KC_CHECK_OK(kc_queue_create(&q2, device_in_use()));
  KC_CHECK_OK(kc_event_create(&e));
  KC_CHECK_EQ_INT(kc_event_query(e), 1); /* never recorded: complete */
  double *x = kc_test_dalloc(N * sizeof(double), "x");
  double *y = kc_test_dalloc(N * sizeof(double), "y");
  double *hx = kc_test_xmalloc(N * sizeof(double));
  for (int i = 0; i < N; i++)
    hx[i] = i * 0.5;
  KC_CHECK_OK(kc_memcpy_on(q1, x, hx, N * sizeof(double)));
  KC_CHECK_OK(kc_memset_on(q1, y, 0, N * sizeof(double)));
  KC_CHECK_OK(kc_event_record(e, q1));
  KC_CHECK_OK(kc_event_wait(q2, e));
  kt_axpy f = {2.0, x, y};
  kc_policy p = kc_policy_on(kc_range(0, N), q2);
  KC_CHECK_OK(
      kc_parallel_for("axpy", KC_TEST_KERNEL(kt_axpy), &p, &f, sizeof f));
  double *hy = kc_test_xmalloc(N * sizeof(double));
  KC_CHECK_OK(kc_memcpy_on(q2, hy, y, N * sizeof(double)));
  KC_CHECK_OK(kc_queue_fence(q2));
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += hy[i] != 2.0 * hx[i];
  KC_CHECK_EQ_INT(bad, 0);

  /* Timing between two events of one queue. */
  kc_event *e2 = NULL;
  double ms = -1;
  KC_CHECK_OK(kc_event_create(&e2));
  KC_CHECK_ERR(kc_event_elapsed(e, e2, &ms), KC_EINVAL); /* e2 unrecorded */
  KC_CHECK_OK(kc_event_record(e, q2));
  KC_CHECK_OK(
      kc_parallel_for("axpy", KC_TEST_KERNEL(kt_axpy), &p, &f, sizeof f));
  KC_CHECK_OK(kc_event_record(e2, q2));
  KC_CHECK_OK(kc_event_synchronize(e2));
  KC_CHECK_EQ_INT(kc_event_query(e2), 1);
  KC_CHECK_OK(kc_event_elapsed(e, e2, &ms));
  KC_CHECK(ms >= 0.0);
  /* The other way round: the same time, negative (or zero), on every
   * backend (cuda's plugin refused a negative time as KC_EDEVICE). */
  double back = 1;
  KC_CHECK_OK(kc_event_elapsed(e2, e, &back));
  KC_CHECK(back <= 0.0 && fabs(back + ms) <= 0.01 + 0.01 * ms);
  KC_CHECK_ERR(kc_event_elapsed(e, e2, NULL), KC_EINVAL);
  KC_CHECK_OK(kc_event_destroy(e2));
  KC_CHECK_OK(kc_event_destroy(e));
  free(hx);
  free(hy);
  KC_CHECK_OK(kc_free(x));
  KC_CHECK_OK(kc_free(y));
  KC_CHECK_OK(kc_queue_destroy(q1));
  KC_CHECK_OK(kc_queue_destroy(q2));
}

/* Reductions and scans on a queue: host-variable and kc-allocation results. */
static void test_reduce_scan(void) {
  kc_queue *q = NULL;
  KC_CHECK_OK(kc_queue_create(&q, device_in_use()));
  int64_t *hx = kc_test_xmalloc(N * sizeof(int64_t));
  int64_t want = 0;
  for (int i = 0; i < N; i++)
    want += hx[i] = i % 17 - 5;
  int64_t *dx = kc_test_upload(hx, N * sizeof(int64_t), "x");
  int64_t *dout = kc_test_dalloc(N * sizeof(int64_t), "scan");
  int64_t *dres = kc_test_dalloc(2 * sizeof(int64_t), "results");
  kc_policy p = kc_policy_on(kc_range(0, N), q);
  kt_xi64 fr = {dx, 0};
  int64_t sum = 0, total = 0;
  KC_CHECK_OK(kc_parallel_reduce("sum", KC_TEST_KERNEL(kt_sum_i64), &p, &fr,
                                 sizeof fr, &sum));
  KC_CHECK_EQ_INT(sum, want);
  KC_CHECK_OK(kc_parallel_reduce("sum", KC_TEST_KERNEL(kt_sum_i64), &p, &fr,
                                 sizeof fr, &dres[0]));
  kt_scan_i64 fs = {dx, dout, 0};
  KC_CHECK_OK(kc_parallel_scan("scan", KC_TEST_KERNEL(kt_iscan_i64), &p, &fs,
                               sizeof fs, &total));
  KC_CHECK_EQ_INT(total, want);
  KC_CHECK_OK(kc_parallel_scan("scan", KC_TEST_KERNEL(kt_iscan_i64), &p, &fs,
                               sizeof fs, &dres[1]));
  int64_t res[2] = {0, 0};
  KC_CHECK_OK(kc_memcpy_on(q, res, dres, sizeof res));
  int64_t *hout = kc_test_xmalloc(N * sizeof(int64_t));
  KC_CHECK_OK(kc_memcpy_on(q, hout, dout, N * sizeof(int64_t)));
  KC_CHECK_OK(kc_queue_fence(q));
  KC_CHECK_EQ_INT(res[0], want);
  KC_CHECK_EQ_INT(res[1], want);
  int64_t acc = 0;
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += hout[i] != (acc += hx[i]);
  KC_CHECK_EQ_INT(bad, 0);
  free(hx);
  free(hout);
  KC_CHECK_OK(kc_free(dx));
  KC_CHECK_OK(kc_free(dout));
  KC_CHECK_OK(kc_free(dres));
  KC_CHECK_OK(kc_queue_destroy(q));
}

/* Queues that really are separate streams (a backend with queue slots
 * whose kernels run on a device): a kernel on q1 waits for a flag that a
 * kernel launched afterwards on q2 sets.  Run one after another, the
 * waiter would give up (bounded polls) and see 0.  While it waits, an
 * event recorded behind it on q1 is not complete. */
static void test_concurrent(void) {
  if (!kc_test_device_is_distinct()) {
    KC_INFO("concurrent queues: backend '%s' completes each launch before "
            "it returns; skipped",
            kc_backend_name());
    return;
  }
  kc_queue *q1 = NULL, *q2 = NULL;
  kc_event *e0 = NULL, *e1 = NULL;
  KC_CHECK_OK(kc_queue_create(&q1, device_in_use()));
  KC_CHECK_OK(kc_queue_create(&q2, device_in_use()));
  KC_CHECK_OK(kc_event_create(&e0));
  KC_CHECK_OK(kc_event_create(&e1));
  int64_t *d = kc_test_dalloc(2 * sizeof(int64_t), "flag");
  KC_CHECK_OK(kc_memset(d, 0, 2 * sizeof(int64_t)));
  kt_flag f = {&d[0], &d[1], 20 * 1000 * 1000};
  kc_policy p1 = kc_policy_on(kc_range(1, 2), q1);
  kc_policy p2 = kc_policy_on(kc_range(0, 1), q2);
  /* The setter runs once first: CUDA may load a kernel lazily at its
   * first launch, and loading can wait for the device, the waiter
   * included (NVIDIA's lazy-loading guide: preload a kernel that another
   * one waits for).  Then the flag is cleared again. */
  KC_CHECK_OK(
      kc_parallel_for("set", KC_TEST_KERNEL(kt_set_flag), &p2, &f, sizeof f));
  KC_CHECK_OK(kc_memset_on(q2, d, 0, 2 * sizeof(int64_t)));
  KC_CHECK_OK(kc_queue_fence(q2));
  KC_CHECK_OK(kc_event_record(e0, q1));
  KC_CHECK_OK(
      kc_parallel_for("wait", KC_TEST_KERNEL(kt_wait_flag), &p1, &f, sizeof f));
  KC_CHECK_OK(kc_event_record(e1, q1));
  KC_CHECK_EQ_INT(kc_event_query(e1), 0); /* the waiter still polls */
  KC_CHECK_OK(
      kc_parallel_for("set", KC_TEST_KERNEL(kt_set_flag), &p2, &f, sizeof f));
  KC_CHECK_OK(kc_event_synchronize(e1));
  KC_CHECK_EQ_INT(kc_event_query(e1), 1);
  double ms = -1;
  KC_CHECK_OK(kc_event_elapsed(e0, e1, &ms));
  KC_CHECK(ms >= 0);
  int64_t h[2] = {0, 0};
  KC_CHECK_OK(kc_memcpy(h, d, sizeof h));
  KC_CHECK_EQ_INT(h[0], 1);
  if (h[1] != 1)
    KC_FAIL("the kernel on q1 never saw the flag that q2 set: the queues "
            "did not run at the same time");
  KC_INFO("concurrent queues: q1's kernel saw q2's store; %.3f ms between "
          "q1's events",
          ms);

  /* Reductions on two queues at once, results in kc memory: each queue
   * has its own scratch, so neither corrupts the other. */
  enum { R = 16 };
  int64_t *hx = kc_test_xmalloc(N * sizeof(int64_t));
  int64_t want1 = 0, want2 = 0;
  for (int i = 0; i < N; i++) {
    hx[i] = i % 13 - 6;
    want1 += hx[i];
    want2 += i < N / 2 ? hx[i] : 0;
  }
  int64_t *dx = kc_test_upload(hx, N * sizeof(int64_t), "x");
  int64_t *dres = kc_test_dalloc(2 * R * sizeof(int64_t), "results");
  kt_xi64 fx = {dx, 0};
  kc_policy r1 = kc_policy_on(kc_range(0, N), q1);
  kc_policy r2 = kc_policy_on(kc_range(0, N / 2), q2);
  for (int k = 0; k < R; k++) {
    KC_CHECK_OK(kc_parallel_reduce("sum q1", KC_TEST_KERNEL(kt_sum_i64), &r1,
                                   &fx, sizeof fx, &dres[k]));
    KC_CHECK_OK(kc_parallel_reduce("sum q2", KC_TEST_KERNEL(kt_sum_i64), &r2,
                                   &fx, sizeof fx, &dres[R + k]));
  }
  int64_t res[2 * R];
  KC_CHECK_OK(kc_fence());
  KC_CHECK_OK(kc_memcpy(res, dres, sizeof res));
  int bad = 0;
  for (int k = 0; k < R; k++)
    bad += (res[k] != want1) + (res[R + k] != want2);
  KC_CHECK_EQ_INT(bad, 0);
  free(hx);
  KC_CHECK_OK(kc_free(dx));
  KC_CHECK_OK(kc_free(dres));
  KC_CHECK_OK(kc_free(d));
  KC_CHECK_OK(kc_event_destroy(e0));
  KC_CHECK_OK(kc_event_destroy(e1));
  KC_CHECK_OK(kc_queue_destroy(q1));
  KC_CHECK_OK(kc_queue_destroy(q2));
}

/* Application threads, each with its own queue. */
typedef struct worker {
  int id, bad, rc;
} worker;

static void *work(void *arg) {
  worker *w = arg;
  kc_queue *q = NULL;
  int64_t *d = NULL;
  if ((w->rc = kc_queue_create(&q, 0 + device_in_use())) < 0)
    return NULL;
  if ((w->rc = kc_malloc((void **)&d, 4096 * sizeof(int64_t), KC_SPACE_DEVICE,
                         "w")) < 0)
    return NULL;
  kc_policy p = kc_policy_on(kc_range(0, 4096), q);
  for (int r = 0; r < 20 && w->rc == 0; r++) {
    kt_fill f = {d, 0, w->id + 1, r};
    kt_xi64 fr = {d, 0};
    int64_t sum = 0, want = 0;
    for (int64_t i = 0; i < 4096; i++)
      want += i * (w->id + 1) + r;
    w->rc = kc_parallel_for("w", KC_KERNEL(kt_fill), &p, &f, sizeof f);
    if (w->rc == 0)
      w->rc = kc_parallel_reduce("w", KC_KERNEL(kt_sum_i64), &p, &fr, sizeof fr,
                                 &sum);
    w->bad += sum != want;
  }
  int rc = kc_queue_destroy(q);
  if (w->rc == 0)
    w->rc = rc;
  rc = kc_free(d);
  if (w->rc == 0)
    w->rc = rc;
  return NULL;
}

static void test_threads(void) {
  enum { T = 4 };
  pthread_t t[T];
  worker w[T];
  for (int i = 0; i < T; i++) {
    w[i] = (worker){i, 0, 0};
    KC_CHECK_EQ_INT(pthread_create(&t[i], NULL, work, &w[i]), 0);
  }
  for (int i = 0; i < T; i++) {
    pthread_join(t[i], NULL);
    KC_CHECK_EQ_INT(w[i].rc, 0);
    KC_CHECK_EQ_INT(w[i].bad, 0);
  }
}

/* Destroying a queue waits for its work. */
static void test_destroy_pending(void) {
  kc_queue *q = NULL;
  KC_CHECK_OK(kc_queue_create(&q, device_in_use()));
  int64_t *d = kc_test_dalloc(N * sizeof(int64_t), "pending");
  int64_t *h = kc_test_xmalloc(N * sizeof(int64_t));
  kt_fill f = {d, 0, 2, 5};
  kc_policy p = kc_policy_on(kc_range(0, N), q);
  for (int r = 0; r < 5; r++)
    KC_CHECK_OK(
        kc_parallel_for("pending", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f));
  KC_CHECK_OK(kc_memcpy_on(q, h, d, N * sizeof(int64_t)));
  KC_CHECK_OK(kc_queue_destroy(q));
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += h[i] != 2 * (int64_t)i + 5;
  KC_CHECK_EQ_INT(bad, 0);
  /* The dead handle is refused, by every call. */
  KC_CHECK_ERR(kc_queue_fence(q), KC_EINVAL);
  KC_CHECK_ERR(kc_queue_destroy(q), KC_EINVAL);
  KC_CHECK_ERR(
      kc_parallel_for("dead", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f),
      KC_EINVAL);
  KC_CHECK(strstr(kc_last_error(), "not a live kc queue") != NULL);
  KC_CHECK_ERR(kc_memcpy_on(q, h, d, 8), KC_EINVAL);
  free(h);
  KC_CHECK_OK(kc_free(d));
}

/* Devices: the count, allocations on a device, queues on devices that do
 * not exist. */
static void test_devices(void) {
  int count = device_count(), use = device_in_use();
  KC_CHECK(count >= 1);
  KC_CHECK(use >= 0 && use < count);
  kc_queue *q = (kc_queue *)&count;
  KC_CHECK_ERR(kc_queue_create(&q, count), KC_EINVAL);
  KC_CHECK(strstr(kc_last_error(), "device(s)") != NULL);
  KC_CHECK(q == NULL);
  KC_CHECK_ERR(kc_queue_create(&q, -1), KC_EINVAL);
  KC_CHECK_ERR(kc_queue_create(&q, 1000), KC_EINVAL);
  KC_CHECK_ERR(kc_queue_create(NULL, use), KC_EINVAL);
  void *p = NULL;
  KC_CHECK_ERR(kc_malloc_on(&p, 64, KC_SPACE_DEVICE, count, "nodev"),
               KC_EINVAL);
  KC_CHECK_ERR(kc_malloc_on(&p, 64, KC_SPACE_DEVICE, -1, "nodev"), KC_EINVAL);
  int64_t *d = NULL, *d2 = NULL;
  KC_CHECK_OK(kc_malloc_on((void **)&d, 64 * sizeof(int64_t), KC_SPACE_DEVICE,
                           use, "ondev"));
  KC_CHECK_OK(kc_malloc_on((void **)&d2, 64 * sizeof(int64_t), KC_SPACE_DEVICE,
                           use, "ondev2"));
  int dev = -5;
  KC_CHECK_OK(kc_pointer_device(d + 3, &dev));
  KC_CHECK_EQ_INT(dev, kc_test_device_is_distinct() ? use : -1);
  int64_t h[64], back[64];
  for (int i = 0; i < 64; i++)
    h[i] = i * 7;
  KC_CHECK_OK(kc_pointer_device(d, &dev));
  KC_CHECK_ERR(kc_pointer_device(h, &dev), KC_ENOTKC);
  KC_CHECK_ERR(kc_pointer_device(d, NULL), KC_EINVAL);
  KC_CHECK_OK(kc_queue_create(&q, use));
  KC_CHECK_OK(kc_memcpy_on(q, d, h, sizeof h));
  KC_CHECK_OK(kc_memcpy_on(q, d2, d, sizeof h)); /* device to device */
  KC_CHECK_OK(kc_memcpy_on(q, back, d2, sizeof h));
  KC_CHECK_ERR(kc_memcpy_on(q, back, d2, sizeof h + 8), KC_EINVAL);
  KC_CHECK_OK(kc_queue_fence(q));
  KC_CHECK(memcmp(back, h, sizeof h) == 0);
  KC_CHECK_OK(kc_queue_destroy(q));
  KC_CHECK_OK(kc_free(d));
  KC_CHECK_OK(kc_free(d2));
}

/* Every device the backend has (one on host backends; KC_CUDA_VIRTUAL_DEVICES
 * offers several on one GPU): on each, a queue, two allocations that say
 * their device, a fill, a reduction into a host variable and one into a
 * kc allocation, and a scan, all on that device's queue; then each
 * device's queue waits for an event the previous device's queue recorded
 * after its fill and copies that device's array into its own second one
 * (a copy between devices), and back to the host.  Last, a blocking copy
 * between two devices on the default queue. */
static void test_every_device(void) {
  int n = device_count();
  kc_queue **q = kc_test_xmalloc((size_t)n * sizeof *q);
  kc_event **ev = kc_test_xmalloc((size_t)n * sizeof *ev);
  int64_t **a = kc_test_xmalloc((size_t)n * sizeof *a);
  int64_t **b = kc_test_xmalloc((size_t)n * sizeof *b);
  int64_t *sum = kc_test_xmalloc((size_t)n * sizeof *sum);
  int64_t *h = kc_test_xmalloc(N * sizeof(int64_t));
  for (int i = 0; i < n; i++) {
    KC_CHECK_OK(kc_queue_create(&q[i], i));
    int dev = -5;
    KC_CHECK_OK(kc_queue_device(q[i], &dev));
    KC_CHECK_EQ_INT(dev, i);
    KC_CHECK_OK(kc_malloc_on((void **)&a[i], (N + 2) * sizeof(int64_t),
                             KC_SPACE_DEVICE, i, "every a"));
    KC_CHECK_OK(kc_malloc_on((void **)&b[i], N * sizeof(int64_t),
                             KC_SPACE_DEVICE, i, "every b"));
    KC_CHECK_OK(kc_pointer_device(b[i] + N - 1, &dev));
    KC_CHECK_EQ_INT(dev, kc_test_device_is_distinct() ? i : -1);
    KC_CHECK_OK(kc_event_create(&ev[i]));
  }
  for (int i = 0; i < n; i++) {
    kc_policy p = kc_policy_on(kc_range(0, N), q[i]);
    kt_fill f = {a[i], 0, i + 1, 3};
    KC_CHECK_OK(
        kc_parallel_for("every", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f));
    KC_CHECK_OK(kc_event_record(ev[i], q[i]));
    kt_xi64 fr = {a[i], 0};
    KC_CHECK_OK(kc_parallel_reduce("every sum", KC_TEST_KERNEL(kt_sum_i64), &p,
                                   &fr, sizeof fr, &sum[i]));
    KC_CHECK_OK(kc_parallel_reduce("every sum", KC_TEST_KERNEL(kt_sum_i64), &p,
                                   &fr, sizeof fr, &a[i][N]));
    int64_t total = 0;
    kt_scan_i64 fs = {a[i], b[i], 0};
    KC_CHECK_OK(kc_parallel_scan("every scan", KC_TEST_KERNEL(kt_iscan_i64), &p,
                                 &fs, sizeof fs, &total));
    KC_CHECK_EQ_INT(total, sum[i]);
  }
  for (int i = 0; i < n; i++) {
    int64_t want = 0;
    for (int64_t k = 0; k < N; k++)
      want += k * (i + 1) + 3;
    KC_CHECK_EQ_INT(sum[i], want);
  }
  /* b[j] is overwritten only after q[j]'s scan (same queue) and a[i]'s
   * fill (the event). */
  for (int i = 0; i < n; i++) {
    int j = (i + 1) % n;
    KC_CHECK_OK(kc_event_wait(q[j], ev[i]));
    KC_CHECK_OK(kc_memcpy_on(q[j], b[j], a[i], N * sizeof(int64_t)));
  }
  for (int j = 0; j < n; j++) {
    int i = (j + n - 1) % n;
    int64_t res = 0;
    memset(h, 0xff, N * sizeof(int64_t));
    KC_CHECK_OK(kc_memcpy_on(q[j], h, b[j], N * sizeof(int64_t)));
    KC_CHECK_OK(kc_memcpy_on(q[j], &res, &a[j][N], sizeof res));
    KC_CHECK_OK(kc_queue_fence(q[j]));
    KC_CHECK_EQ_INT(res, sum[j]);
    int bad = 0;
    for (int64_t k = 0; k < N; k++)
      bad += h[k] != k * (i + 1) + 3;
    KC_CHECK_EQ_INT(bad, 0);
  }
  /* An event recorded again on another device's queue: synchronize,
   * query, wait and timing follow its latest record; two events of two
   * devices cannot be timed against each other (on a backend with
   * distinct devices). */
  if (n > 1) {
    double ms = -1;
    KC_CHECK_OK(kc_event_record(ev[0], q[1]));
    KC_CHECK_OK(kc_event_record(ev[1], q[1]));
    KC_CHECK_OK(kc_event_synchronize(ev[1]));
    KC_CHECK_OK(kc_event_synchronize(ev[0]));
    KC_CHECK_EQ_INT(kc_event_query(ev[0]), 1);
    KC_CHECK_OK(kc_event_elapsed(ev[0], ev[1], &ms));
    KC_CHECK(ms >= 0);
    KC_CHECK_OK(kc_event_wait(q[0], ev[0]));
    KC_CHECK_OK(kc_event_record(ev[1], q[0]));
    KC_CHECK_OK(kc_event_synchronize(ev[1]));
    if (kc_test_device_is_distinct()) {
      KC_CHECK_ERR(kc_event_elapsed(ev[0], ev[1], &ms), KC_EINVAL);
      KC_CHECK(strstr(kc_last_error(), "devices") != NULL);
    }
    KC_CHECK_OK(kc_queue_fence(q[0]));
  }
  /* The default queue between two devices (the last and the first). */
  KC_CHECK_OK(kc_fence());
  KC_CHECK_OK(kc_memcpy(b[0], a[n - 1], N * sizeof(int64_t)));
  KC_CHECK_OK(kc_memcpy(h, b[0], N * sizeof(int64_t)));
  int bad = 0;
  for (int64_t k = 0; k < N; k++)
    bad += h[k] != k * n + 3;
  KC_CHECK_EQ_INT(bad, 0);
  for (int i = 0; i < n; i++) {
    KC_CHECK_OK(kc_event_destroy(ev[i]));
    KC_CHECK_OK(kc_queue_destroy(q[i]));
    KC_CHECK_OK(kc_free(a[i]));
    KC_CHECK_OK(kc_free(b[i]));
  }
  free(q);
  free(ev);
  free(a);
  free(b);
  free(sum);
  free(h);
}

/* ------------------------------------------------- hostile, isolated */

static int start(void) {
  int rc = kc_init();
  if (rc < 0) {
    printf("kc_init: %s\n", kc_last_error());
    return 1;
  }
  return 0;
}

static int hostile_handles(void *arg) {
  (void)arg;
  if (start())
    return 1;
  int fails = 0;
  kc_queue *q = NULL;
  kc_event *e = NULL;
  long junk[8] = {0};
  fails += kc_queue_fence((kc_queue *)junk) != KC_EINVAL;
  fails += kc_queue_destroy((kc_queue *)junk) != KC_EINVAL;
  fails += kc_queue_destroy(NULL) != KC_EINVAL;
  fails += kc_event_record((kc_event *)junk, NULL) != KC_EINVAL;
  fails += kc_event_record(NULL, NULL) != KC_EINVAL;
  fails += kc_event_wait(NULL, (kc_event *)junk) != KC_EINVAL;
  fails += kc_event_query((kc_event *)junk) != KC_EINVAL;
  fails += kc_event_synchronize(NULL) != KC_EINVAL;
  fails += kc_event_create(NULL) != KC_EINVAL;
  fails += kc_queue_device((kc_queue *)junk, &(int){0}) != KC_EINVAL;
  kc_policy p = kc_policy_on(kc_range(0, 10), (kc_queue *)junk);
  kt_fill f = {NULL, 0, 0, 0};
  fails +=
      kc_parallel_for("x", KC_KERNEL(kt_fill), &p, &f, sizeof f) != KC_EINVAL;
  fails += kc_queue_create(&q, 0) != 0;
  fails += kc_event_create(&e) != 0;
  fails += kc_event_record(e, q) != 0;
  fails += kc_event_destroy(e) != 0;
  fails += kc_event_destroy(e) != KC_EINVAL;
  fails += kc_event_wait(q, e) != KC_EINVAL;
  fails += kc_queue_destroy(q) != 0;
  fails += kc_event_wait(q, NULL) != KC_EINVAL;
  /* kc_finalize destroys live queues: while kc is down a call on one says
   * so (kc.h), as every call does; after kc_init it is a dead handle
   * (stale_handles). */
  fails += kc_queue_create(&q, 0) != 0;
  fails += kc_finalize() != 0;
  fails += kc_queue_fence(q) != KC_ENOINIT;
  if (fails)
    printf("hostile_handles: %d wrong answer(s)\n", fails);
  return fails != 0;
}

/* A destroyed handle stays dead while queues and events are made and
 * destroyed after it: the object of a dead handle was given to the next
 * create, so the stale handle worked again and fenced, destroyed or
 * recorded somebody else's queue or event.  Across kc_finalize too. */
enum { STALE_ROUNDS = 1500 };
static int stale_handles(void *arg) {
  (void)arg;
  if (start())
    return 1;
  int fails = 0;
  kc_queue *a = NULL, *b = NULL;
  kc_event *ea = NULL, *eb = NULL;
  fails += kc_queue_create(&a, 0) != 0;
  fails += kc_event_create(&ea) != 0;
  fails += kc_queue_destroy(a) != 0;
  fails += kc_event_destroy(ea) != 0;
  /* Each create after the destroy gets another handle, for a while. */
  kc_queue **qs = calloc(STALE_ROUNDS, sizeof *qs);
  kc_event **es = calloc(STALE_ROUNDS, sizeof *es);
  if (!qs || !es)
    return 1;
  int same = 0;
  for (int k = 0; k < STALE_ROUNDS; k++) {
    fails += kc_queue_create(&qs[k], 0) != 0;
    fails += kc_event_create(&es[k]) != 0;
    for (int j = k - 1; j >= 0 && j >= k - 1000; j--)
      same += qs[k] == qs[j] || es[k] == es[j];
    if (k < 1000)
      same += qs[k] == a || es[k] == ea;
    fails += kc_queue_destroy(qs[k]) != 0;
    fails += kc_event_destroy(es[k]) != 0;
  }
  if (same)
    printf("stale_handles: %d handle(s) given out again within 1000 "
           "destroys\n",
           same);
  fails += same != 0;
  fails += kc_queue_create(&b, 0) != 0;
  fails += kc_event_create(&eb) != 0;
  fails += kc_queue_fence(a) != KC_EINVAL;
  fails += kc_queue_destroy(a) != KC_EINVAL;
  fails += kc_event_record(ea, NULL) != KC_EINVAL;
  fails += kc_event_destroy(ea) != KC_EINVAL;
  /* b and eb are untouched. */
  fails += kc_queue_fence(b) != 0;
  fails += kc_event_record(eb, b) != 0;
  /* Across kc_finalize: the old handles stay dead in the next kc_init. */
  fails += kc_finalize() != 0;
  if (start())
    return 1;
  kc_queue *c = NULL;
  kc_event *ec = NULL;
  fails += kc_queue_create(&c, 0) != 0;
  fails += kc_event_create(&ec) != 0;
  fails += c == b || ec == eb;
  fails += kc_queue_fence(b) != KC_EINVAL;
  kc_policy p = kc_policy_on(kc_range(0, 10), b);
  kt_fill f = {NULL, 0, 0, 0};
  fails +=
      kc_parallel_for("x", KC_KERNEL(kt_fill), &p, &f, sizeof f) != KC_EINVAL;
  fails += kc_queue_destroy(c) != 0 || kc_event_destroy(ec) != 0;
  free(qs);
  free(es);
  if (fails)
    printf("stale_handles: %d wrong answer(s)\n", fails);
  return fails != 0;
}

/* The last kc_finalize while other threads launch, copy and record on
 * their own queues: each call either runs whole or is refused
 * (KC_ENOINIT, or KC_EINVAL for a queue kc_finalize destroyed).  The
 * calls read a queue's and an event's backend handles before entering the
 * runtime, racing with kc_finalize releasing them (ThreadSanitizer saw it;
 * on a device a released stream could reach the next runtime). */
typedef struct racer {
  int64_t *buf;
  int bad;
} racer;

static void *race_finalize(void *arg) {
  racer *r = arg;
  kc_queue *q = NULL;
  kc_event *e = NULL;
  if (kc_queue_create(&q, 0) != 0 || kc_event_create(&e) != 0)
    return NULL;
  int64_t host[64];
  for (int k = 0; k < 2000; k++) {
    kc_policy p = kc_policy_on(kc_range(0, 64), q);
    kt_fill f = {r->buf, 0, 1, k};
    int rc = kc_parallel_for("race", KC_KERNEL(kt_fill), &p, &f, sizeof f);
    int rc2 = kc_memcpy_on(q, host, r->buf, sizeof host);
    int rc3 = kc_event_record(e, q);
    int rc4 = kc_event_query(e);
    if ((rc < 0 && rc != KC_ENOINIT && rc != KC_EINVAL) ||
        (rc2 < 0 && rc2 != KC_ENOINIT && rc2 != KC_EINVAL) ||
        (rc3 < 0 && rc3 != KC_ENOINIT && rc3 != KC_EINVAL) ||
        (rc4 < 0 && rc4 != KC_ENOINIT && rc4 != KC_EINVAL))
      r->bad++;
    if (rc == KC_ENOINIT || rc == KC_EINVAL)
      break;
  }
  return NULL;
}

static int finalize_races(void *arg) {
  (void)arg;
  if (start())
    return 1;
  enum { T = 3 };
  racer r[T];
  pthread_t t[T];
  for (int i = 0; i < T; i++) {
    r[i].bad = 0;
    if (kc_malloc((void **)&r[i].buf, 64 * sizeof(int64_t), KC_SPACE_MANAGED,
                  "race") != 0)
      return 1;
    pthread_create(&t[i], NULL, race_finalize, &r[i]);
  }
  struct timespec nap = {0, 2000000};
  nanosleep(&nap, NULL);
  int fails = kc_finalize() != 0;
  for (int i = 0; i < T; i++) {
    pthread_join(t[i], NULL);
    fails += r[i].bad;
  }
  if (fails)
    printf("finalize_races: %d wrong answer(s)\n", fails);
  return fails != 0;
}

/* One event recorded and timed from two threads at once (kc.h: any
 * thread may make any queue call): the record's time and flag were plain
 * stores (ThreadSanitizer). */
static void *record_shared(void *arg) {
  kc_event *e = arg;
  /* A device event must be complete to be timed, and the other thread
   * records it again at any moment: there it is timed once both threads
   * are done (each refusal would be a CUDA API error under
   * compute-sanitizer). */
  const int device = strcmp(kc_backend_name(), "cuda") == 0;
  for (int k = 0; k < 2000; k++) {
    double ms = -1;
    if (kc_event_record(e, NULL) != 0 || kc_event_synchronize(e) != 0)
      return (void *)1;
    if (!device && (kc_event_elapsed(e, e, &ms) != 0 || ms != 0))
      return (void *)1;
  }
  return NULL;
}

static int shared_event(void *arg) {
  (void)arg;
  if (start())
    return 1;
  kc_event *e = NULL;
  if (kc_event_create(&e) != 0 || kc_event_record(e, NULL) != 0)
    return 1;
  pthread_t t[2];
  void *ret[2] = {NULL, NULL};
  for (int i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, record_shared, e);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], &ret[i]);
  int fails = (ret[0] != NULL) + (ret[1] != NULL);
  double ms = -1;
  fails += kc_event_elapsed(e, e, &ms) != 0 || ms != 0;
  fails += kc_event_destroy(e) != 0;
  fails += kc_finalize() != 0;
  if (fails)
    printf("shared_event: %d wrong answer(s)\n", fails);
  return fails != 0;
}

/* A queue or an event destroyed while another thread waits for it
 * (kc_queue_fence, kc_event_synchronize), and one queue destroyed by two
 * threads at once: every call returns as if alone, one of the two
 * destroys is refused, and the backend's handle outlives each wait.  The
 * backend slots of those waits run without the runtime lock: the core
 * released the handle under them (cuda read a freed stream or event).
 * KC_TEST_SLOTS_WAIT_MS makes each wait of the slots test plugin
 * (t-queue-slots.sh) take that long, so that the destroys come while the
 * slot waits; it checks that its handles outlive the waits. */
typedef struct waiter {
  kc_queue *q;
  kc_event *e;
  int rc;
} waiter;

static void *fence_queue(void *arg) {
  waiter *w = arg;
  w->rc = kc_queue_fence(w->q);
  return NULL;
}

static void *destroy_queue(void *arg) {
  waiter *w = arg;
  w->rc = kc_queue_destroy(w->q);
  return NULL;
}

static void *sync_event(void *arg) {
  waiter *w = arg;
  w->rc = kc_event_synchronize(w->e);
  return NULL;
}

/* Runs fn(w) on a thread, and `then` on this one 100 ms later; the
 * thread's result is w->rc. */
static int meanwhile(void *(*fn)(void *), waiter *w, int (*then)(waiter *)) {
  pthread_t t;
  w->rc = -999;
  if (pthread_create(&t, NULL, fn, w) != 0)
    return -999;
  struct timespec nap = {0, 100 * 1000 * 1000};
  nanosleep(&nap, NULL);
  int rc = then(w);
  pthread_join(t, NULL);
  return rc;
}

static int then_destroy_queue(waiter *w) { return kc_queue_destroy(w->q); }
static int then_destroy_event(waiter *w) { return kc_event_destroy(w->e); }

static int destroy_while_waited(void *arg) {
  (void)arg;
  setenv("KC_TEST_SLOTS_WAIT_MS", "300", 1);
  if (start())
    return 1;
  int fails = 0;
  waiter w = {NULL, NULL, 0};
  fails += kc_queue_create(&w.q, 0) != 0 || kc_event_create(&w.e) != 0;
  fails += kc_event_record(w.e, w.q) != 0;
  int rc = meanwhile(sync_event, &w, then_destroy_event);
  if (rc != 0 || w.rc != 0)
    printf("event destroyed while synchronized: destroy %d, synchronize "
           "%d\n",
           rc, w.rc);
  fails += rc != 0 || w.rc != 0;
  fails += kc_event_query(w.e) != KC_EINVAL;
  rc = meanwhile(fence_queue, &w, then_destroy_queue);
  if (rc != 0 || w.rc != 0)
    printf("queue destroyed while fenced: destroy %d, fence %d\n", rc, w.rc);
  fails += rc != 0 || w.rc != 0;
  fails += kc_queue_fence(w.q) != KC_EINVAL;
  fails += kc_queue_create(&w.q, 0) != 0;
  rc = meanwhile(destroy_queue, &w, then_destroy_queue);
  if ((rc == 0) + (w.rc == 0) != 1 || (rc != 0 && rc != KC_EINVAL) ||
      (w.rc != 0 && w.rc != KC_EINVAL))
    printf("queue destroyed by two threads: %d and %d\n", rc, w.rc);
  fails += (rc == 0) + (w.rc == 0) != 1;
  fails += kc_finalize() != 0;
  if (fails)
    printf("destroy_while_waited: %d wrong answer(s)\n", fails);
  return fails != 0;
}

/* Events used by two threads (query, wait, record, elapsed) while this
 * one destroys each after a moment and hands them the next: each call
 * works or says KC_EINVAL.  The calls read the event's backend handle
 * before the runtime lock, and a destroy in between handed the slot NULL
 * (the slots test plugin: "event_query: was given NULL"). */
static kc_event *_Atomic current_event;
static atomic_int users_stop;

static void *use_events(void *arg) {
  (void)arg;
  long bad = 0;
  while (!atomic_load(&users_stop)) {
    kc_event *e = atomic_load(&current_event);
    double ms = -1;
    /* Elapsed only of an event found complete: on cuda the time of one
     * still pending is the driver's CUDA_ERROR_NOT_READY, which
     * compute-sanitizer reports for every call (400000 of them). */
    int q = kc_event_query(e);
    int t = q == 1 ? kc_event_elapsed(e, e, &ms) : 0;
    int w = kc_event_wait(NULL, e), r = kc_event_record(e, NULL);
    bad += (q != 1 && q != 0 && q != KC_EINVAL) + (w != 0 && w != KC_EINVAL) +
           (r != 0 && r != KC_EINVAL) + (t != 0 && t != KC_EINVAL);
  }
  return (void *)(intptr_t)bad;
}

static int event_used_while_destroyed(void *arg) {
  (void)arg;
  if (start())
    return 1;
  int fails = 0;
  kc_event *e = NULL;
  fails += kc_event_create(&e) != 0 || kc_event_record(e, NULL) != 0;
  atomic_store(&current_event, e);
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    if (pthread_create(&t[i], NULL, use_events, NULL) != 0)
      return 1;
  /* Fewer under compute-sanitizer, which slows every driver call. */
  const int rounds = getenv("KC_TEST_SANITIZER") ? 2000 : 50000;
  for (int k = 0; k < rounds; k++) {
    kc_event *next = NULL;
    fails += kc_event_create(&next) != 0;
    kc_event *old = atomic_exchange(&current_event, next);
    fails += kc_event_destroy(old) != 0;
  }
  atomic_store(&users_stop, 1);
  for (int i = 0; i < 2; i++) {
    void *bad = NULL;
    pthread_join(t[i], &bad);
    fails += bad != NULL;
  }
  fails += kc_event_destroy(atomic_load(&current_event)) != 0;
  fails += kc_finalize() != 0;
  if (fails)
    printf("event_used_while_destroyed: %d wrong answer(s)\n", fails);
  return fails != 0;
}

int main(void) {
  KC_ISOLATE(hostile_handles, NULL, 60);
  KC_ISOLATE(stale_handles, NULL, 120);
  KC_ISOLATE(finalize_races, NULL, 120);
  KC_ISOLATE(shared_event, NULL, 60);
  KC_ISOLATE(destroy_while_waited, NULL, 60);
  KC_ISOLATE(event_used_while_destroyed, NULL, 120);
  kc_test_init_backend();
  test_devices();
  test_every_device();
  test_order();
  test_event_dependency();
  test_reduce_scan();
  test_concurrent();
  test_threads();
  test_destroy_pending();
  return kc_test_finish();
}
