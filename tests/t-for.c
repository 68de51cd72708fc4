/* Conformance: kc_parallel_for over 1-D ranges.
 *
 * Every range shape (empty, one element, odd sizes, begin != 0, negative
 * begin, large) under every schedule and chunk size must visit each index
 * exactly once and nothing outside the range; bad ranges and chunks are
 * refused; the functor is copied at launch, whatever its size. */
#include <kc/kernel.h>

#include "kc-test.h"
#include "kernels/functors.h"

KC_KERNEL_DECLARE(kt_fill);
KC_KERNEL_DECLARE(kt_count);
KC_KERNEL_DECLARE(kt_axpy);
KC_KERNEL_DECLARE(kt_big);
KC_KERNEL_DECLARE(kt_nothing);

typedef struct sched {
  kc_schedule schedule;
  kc_index chunk;
  const char *name;
} sched;

static const sched schedules[] = {
    {KC_SCHEDULE_STATIC, KC_AUTO, "static/auto"},
    {KC_SCHEDULE_STATIC, 1, "static/1"},
    {KC_SCHEDULE_STATIC, 7, "static/7"},
    {KC_SCHEDULE_STATIC, (kc_index)1 << 40, "static/huge"},
    {KC_SCHEDULE_DYNAMIC, KC_AUTO, "dynamic/auto"},
    {KC_SCHEDULE_DYNAMIC, 1, "dynamic/1"},
    {KC_SCHEDULE_DYNAMIC, 7, "dynamic/7"},
    {KC_SCHEDULE_DYNAMIC, 64, "dynamic/64"},
    {KC_SCHEDULE_DYNAMIC, (kc_index)1 << 40, "dynamic/huge"},
};
#define NSCHED (sizeof schedules / sizeof schedules[0])

/* Runs kt_fill and kt_count over [b, e) with schedule s.  The output arrays
 * have `pad` guard elements on each side, which must stay untouched. */
static void check_range(kc_index b, kc_index e, const sched *s) {
  const kc_index n = e - b, pad = 4, len = n + 2 * pad;
  const int failures = kc_test_failures();
  int64_t *dfill = kc_test_dalloc((size_t)len * sizeof(int64_t), "fill");
  int32_t *dhits = kc_test_dalloc((size_t)len * sizeof(int32_t), "hits");
  kc_policy p = kc_range_schedule(b, e, s->schedule, s->chunk);
  kt_fill ff = {dfill, b - pad, 3, 7};
  kt_count fc = {dhits, b - pad};

  KC_CHECK_OK(kc_memset(dfill, 0xff, (size_t)len * sizeof(int64_t)));
  KC_CHECK_OK(kc_memset(dhits, 0, (size_t)len * sizeof(int32_t)));
  KC_CHECK_OK(kc_parallel_for("t-for fill", KC_TEST_KERNEL(kt_fill), &p, &ff,
                              sizeof ff));
  KC_CHECK_OK(
      kc_parallel_for(NULL, KC_TEST_KERNEL(kt_count), &p, &fc, sizeof fc));

  int64_t *fill = kc_test_download(dfill, (size_t)len * sizeof(int64_t));
  int32_t *hits = kc_test_download(dhits, (size_t)len * sizeof(int32_t));
  int64_t *wfill = kc_test_xmalloc((size_t)len * sizeof(int64_t));
  int32_t *whits = kc_test_xmalloc((size_t)len * sizeof(int32_t));
  for (kc_index k = 0; k < len; k++) {
    int inside = k >= pad && k < pad + n;
    wfill[k] = inside ? (b - pad + k) * 3 + 7 : -1;
    whits[k] = inside ? 1 : 0;
  }
  KC_CHECK_ARRAY_EQ_I64(fill, wfill, len);
  KC_CHECK_ARRAY_EQ_I32(hits, whits, len);
  if (kc_test_failures() != failures)
    KC_INFO("  ... in range [%" PRId64 ", %" PRId64 ") with schedule %s", b, e,
            s->name);
  free(fill);
  free(hits);
  free(wfill);
  free(whits);
  KC_CHECK_OK(kc_free(dfill));
  KC_CHECK_OK(kc_free(dhits));
}

static void test_ranges(void) {
  static const kc_index ranges[][2] = {
      {0, 0},     {5, 5},
      {-3, -3},   {0, 1},
      {0, 2},     {0, 3},
      {0, 7},     {0, 31},
      {0, 64},    {0, 1000},
      {0, 1001},  {13, 1013},
      {-50, 50},  {-7, -2},
      {1, 65537}, {(kc_index)1 << 33, ((kc_index)1 << 33) + 99},
      {0, 100003}};
  for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
    for (size_t s = 0; s < NSCHED; s++) {
      /* Chunk 1 over 10^5 indices is slow on nothing but a sanitizer. */
      check_range(ranges[r][0], ranges[r][1], &schedules[s]);
    }
  KC_INFO("ranges x schedules done");
}

/* 10^7 indices (KC_TEST_SCALE divides it), static and dynamic. */
static void test_large(void) {
  const kc_index n = kc_test_large(10 * 1000 * 1000);
  const kc_index b = 1000003;
  int64_t *d = kc_test_dalloc((size_t)n * sizeof(int64_t), "large");
  const sched *ss[] = {&schedules[0], &schedules[4], &schedules[7]};
  for (int s = 0; s < 3; s++) {
    kc_policy p = kc_range_schedule(b, b + n, ss[s]->schedule, ss[s]->chunk);
    kt_fill f = {d, b, 1, -b};
    KC_CHECK_OK(kc_memset(d, 0xff, (size_t)n * sizeof(int64_t)));
    KC_CHECK_OK(
        kc_parallel_for("large", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f));
    int64_t *h = kc_test_download(d, (size_t)n * sizeof(int64_t));
    kc_index bad = 0, first = -1;
    for (kc_index k = 0; k < n; k++)
      if (h[k] != k && bad++ == 0)
        first = k;
    if (bad)
      KC_FAIL("large range [%" PRId64 ", %" PRId64 ") %s: %" PRId64
              " wrong, first at %" PRId64 ": %" PRId64,
              b, b + n, ss[s]->name, bad, first, h[first]);
    free(h);
  }
  KC_CHECK_OK(kc_free(d));
  KC_INFO("large range of %" PRId64 " done", n);
  /* About 2^21 indices with an odd end: on cuda more than the resident
   * blocks hold, so the wide grid's blocks take contiguous chunks
   * (kc_cuda_args.chunk), the last one partly past the end. */
  check_range(3, 3 + kc_test_large((kc_index)1 << 21) + 5, &schedules[0]);
}

static void test_policy_builders(void) {
  kc_policy p = kc_range(3, 11);
  KC_CHECK_EQ_INT(p.kind, KC_POLICY_RANGE);
  KC_CHECK_EQ_INT(p.rank, 1);
  KC_CHECK_EQ_INT(p.begin[0], 3);
  KC_CHECK_EQ_INT(p.end[0], 11);
  KC_CHECK_EQ_INT(p.schedule, KC_SCHEDULE_STATIC);
  KC_CHECK_EQ_INT(p.chunk, KC_AUTO);
  p = kc_range_schedule(-4, 9, KC_SCHEDULE_DYNAMIC, 5);
  KC_CHECK_EQ_INT(p.kind, KC_POLICY_RANGE);
  KC_CHECK_EQ_INT(p.rank, 1);
  KC_CHECK_EQ_INT(p.begin[0], -4);
  KC_CHECK_EQ_INT(p.end[0], 9);
  KC_CHECK_EQ_INT(p.schedule, KC_SCHEDULE_DYNAMIC);
  KC_CHECK_EQ_INT(p.chunk, 5);
}

/* Bad ranges and chunks are refused, touch nothing, and the runtime goes
 * on working. */
static void test_bad_policies(void) {
  int64_t *d = kc_test_dalloc(16 * sizeof(int64_t), "bad");
  kt_fill f = {d, 0, 1, 0};
  kc_policy p;

  KC_CHECK_OK(kc_memset(d, 0xff, 16 * sizeof(int64_t)));
  p = kc_range(10, 5);
  KC_CHECK_ERR(
      kc_parallel_for("bad", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f),
      KC_ERANGE);
  p = kc_range(0, -1);
  KC_CHECK_ERR(
      kc_parallel_for("bad", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f),
      KC_ERANGE);
  p = kc_range_schedule(0, 16, KC_SCHEDULE_STATIC, 0);
  KC_CHECK_ERR(
      kc_parallel_for("bad", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f),
      KC_EINVAL);
  p = kc_range_schedule(0, 16, KC_SCHEDULE_DYNAMIC, 0);
  KC_CHECK_ERR(
      kc_parallel_for("bad", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f),
      KC_EINVAL);
  /* A negative chunk other than KC_AUTO means nothing. */
  p = kc_range_schedule(0, 16, KC_SCHEDULE_DYNAMIC, -5);
  KC_CHECK_ERR(
      kc_parallel_for("bad", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f),
      KC_EINVAL);
  p = kc_range_schedule(0, 16, (kc_schedule)42, KC_AUTO);
  KC_CHECK_ERR(
      kc_parallel_for("bad", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f),
      KC_EINVAL);
  /* Nothing ran. */
  {
    int64_t *h = kc_test_download(d, 16 * sizeof(int64_t));
    for (int k = 0; k < 16; k++)
      KC_CHECK_EQ_INT(h[k], -1);
    free(h);
  }
  /* And a good launch works afterwards. */
  p = kc_range(0, 16);
  KC_CHECK_OK(
      kc_parallel_for("good", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f));
  {
    int64_t *h = kc_test_download(d, 16 * sizeof(int64_t));
    for (int k = 0; k < 16; k++)
      KC_CHECK_EQ_INT(h[k], k);
    free(h);
  }
  KC_CHECK_OK(kc_free(d));
}

/* NULL kernel, NULL functor with a size: KC_EINVAL.  NULL functor of size
 * 0 is fine. */
static void test_bad_arguments(void) {
  kc_policy p = kc_range(0, 10);
  kt_fill f = {NULL, 0, 0, 0};
  KC_CHECK_ERR(kc_parallel_for("null kernel", NULL, &p, &f, sizeof f),
               KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_for("null functor", KC_TEST_KERNEL(kt_fill), &p,
                               NULL, sizeof f),
               KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_for("null policy", KC_TEST_KERNEL(kt_fill), NULL, &f,
                               sizeof f),
               KC_EINVAL);
  /* No functor for a kernel that takes one (it reads it through the
   * pointer, kt_fill's body would write through NULL): refused.  Before,
   * size 0 was let through and the body read through NULL. */
  KC_CHECK_ERR(
      kc_parallel_for("no functor", KC_TEST_KERNEL(kt_fill), &p, NULL, 0),
      KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), "none was given");
  KC_CHECK_ERR(
      kc_parallel_for("no functor", KC_TEST_KERNEL(kt_nothing), &p, NULL, 0),
      KC_EINVAL);
  KC_CHECK_OK(kc_fence());
}

/* The functor is copied at launch: changing it right after the call (before
 * any fence) must not change what the launch does.  On asynchronous
 * backends this is the real test; on host backends it still checks that a
 * second launch sees the new values. */
static void test_functor_copy(void) {
  enum { N = 4096 };
  int64_t *d1 = kc_test_dalloc(N * sizeof(int64_t), "copy1");
  int64_t *d2 = kc_test_dalloc(N * sizeof(int64_t), "copy2");
  kc_policy p = kc_range(0, N);
  kt_fill f = {d1, 0, 1, 100};
  KC_CHECK_OK(
      kc_parallel_for("copy1", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f));
  f.out = d2;
  f.offset = 200;
  KC_CHECK_OK(
      kc_parallel_for("copy2", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f));
  memset(&f, 0, sizeof f); /* the launches must not read it any more */
  int64_t *h1 = kc_test_download(d1, N * sizeof(int64_t));
  int64_t *h2 = kc_test_download(d2, N * sizeof(int64_t));
  int64_t *w = kc_test_xmalloc(N * sizeof(int64_t));
  for (int k = 0; k < N; k++)
    w[k] = k + 100;
  KC_CHECK_ARRAY_EQ_I64(h1, w, N);
  for (int k = 0; k < N; k++)
    w[k] = k + 200;
  KC_CHECK_ARRAY_EQ_I64(h2, w, N);
  free(h1);
  free(h2);
  free(w);
  KC_CHECK_OK(kc_free(d1));
  KC_CHECK_OK(kc_free(d2));
}

/* A 4 KiB functor arrives whole. */
static void test_big_functor(void) {
  enum { N = 1000 };
  kt_big *f = kc_test_xmalloc(sizeof *f);
  double sum = 0;
  int64_t *d = kc_test_dalloc(N * sizeof(int64_t), "big");
  f->out = d;
  f->base = 0;
  for (int k = 0; k < 512; k++) {
    f->c[k] = (double)(k % 5 + 1);
    sum += f->c[k];
  }
  kc_policy p = kc_range(0, N);
  KC_CHECK_OK(kc_parallel_for("big", KC_TEST_KERNEL(kt_big), &p, f, sizeof *f));
  memset(f, 0, sizeof *f);
  int64_t *h = kc_test_download(d, N * sizeof(int64_t));
  int64_t *w = kc_test_xmalloc(N * sizeof(int64_t));
  for (int k = 0; k < N; k++)
    w[k] = (int64_t)(sum * (k % 8));
  KC_CHECK_ARRAY_EQ_I64(h, w, N);
  free(h);
  free(w);
  free(f);
  KC_CHECK_OK(kc_free(d));
}

/* Floating point: y = a x + y, three times in a row (launch order). */
static void test_axpy(void) {
  enum { N = 12345 };
  double *x = kc_test_xmalloc(N * sizeof(double));
  double *y = kc_test_xmalloc(N * sizeof(double));
  for (int k = 0; k < N; k++) {
    x[k] = k * 0.5;
    y[k] = 1.0;
  }
  double *dx = kc_test_upload(x, N * sizeof(double), "x");
  double *dy = kc_test_upload(y, N * sizeof(double), "y");
  kc_policy p = kc_range(0, N);
  kt_axpy f = {2.0, dx, dy};
  for (int r = 0; r < 3; r++)
    KC_CHECK_OK(
        kc_parallel_for("axpy", KC_TEST_KERNEL(kt_axpy), &p, &f, sizeof f));
  double *h = kc_test_download(dy, N * sizeof(double));
  for (int k = 0; k < N; k++)
    y[k] = 1.0 + 3 * 2.0 * x[k];
  KC_CHECK_ARRAY_EQ_DBL(h, y, N);
  free(h);
  free(x);
  free(y);
  KC_CHECK_OK(kc_free(dx));
  KC_CHECK_OK(kc_free(dy));
}

/* Launch after launch of the same kernel with one thing changed each time
 * (only the functor's bytes, only the range, nothing at all, or another
 * kernel in between), each checked on its own: host backends republish a
 * launch's job only where its bytes differ from the last launch's
 * (host-engine.c), so a change that was not copied would leave the tasks
 * running the last launch. */
static void test_relaunch(void) {
  enum { N = 1000, LAUNCHES = 120 };
  int64_t *dfill = kc_test_dalloc(N * sizeof(int64_t), "relaunch fill");
  int32_t *dhits = kc_test_dalloc(N * sizeof(int32_t), "relaunch hits");
  kt_fill ff = {dfill, 0, 3, 7};
  kt_count fc = {dhits, 0};
  kc_index end = N;
  unsigned rnd = 12345;
  for (int n = 0; n < LAUNCHES && kc_test_failures() == 0; n++) {
    rnd = rnd * 1103515245u + 12345u;
    const unsigned what = (rnd >> 16) % 4;
    if (what == 0)
      ff.offset = n; /* the functor only */
    else if (what == 1)
      end = 1 + (kc_index)((rnd >> 8) % N); /* the range only */
    kc_policy p = kc_range(0, end);
    if (what == 3) /* another kernel, same range, just before */
      KC_CHECK_OK(
          kc_parallel_for(NULL, KC_TEST_KERNEL(kt_count), &p, &fc, sizeof fc));
    KC_CHECK_OK(kc_memset(dfill, 0xff, N * sizeof(int64_t)));
    KC_CHECK_OK(kc_parallel_for("relaunch", KC_TEST_KERNEL(kt_fill), &p, &ff,
                                sizeof ff));
    int64_t *fill = kc_test_download(dfill, N * sizeof(int64_t));
    for (kc_index k = 0; k < N; k++) {
      const int64_t want = k < end ? k * 3 + ff.offset : -1;
      if (fill[k] != want) {
        KC_FAIL("relaunch %d (change %u): out[%lld] = %lld, want %lld", n, what,
                (long long)k, (long long)fill[k], (long long)want);
        break;
      }
    }
    free(fill);
  }
  KC_CHECK_OK(kc_free(dfill));
  KC_CHECK_OK(kc_free(dhits));
}

int main(void) {
  kc_test_init_backend();
  test_policy_builders();
  test_bad_arguments();
  test_bad_policies();
  test_functor_copy();
  test_big_functor();
  test_axpy();
  test_ranges();
  test_large();
  test_relaunch();
  return kc_test_finish();
}
