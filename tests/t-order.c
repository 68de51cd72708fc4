/* Conformance: a custom reducer needs only an associative join, so every
 * backend must join partial values in index order.  A join that appends
 * digits (kernels/order.h) runs over ranges, as a scan and over league
 * ranks, under every schedule and several chunk sizes, with 2, 3 and 4
 * host threads (each thread count in a process of its own): the result
 * must be the digits in index order, [0, 8) giving 12345678. */
#include <stdlib.h>

#include <kc/kernel.h>

#include "kc-isolate.h"
#include "kc-test.h"
#include "kernels/order.h"

KC_KERNEL_DECLARE(kt_cat_reduce);
KC_KERNEL_DECLARE(kt_cat_scan);
KC_KERNEL_DECLARE(kt_cat_team);
KC_KERNEL_DECLARE(kt_cat_md);

typedef struct sched {
  kc_schedule schedule;
  kc_index chunk;
} sched;

static const sched scheds[] = {
    {KC_SCHEDULE_STATIC, KC_AUTO},  {KC_SCHEDULE_STATIC, 1},
    {KC_SCHEDULE_STATIC, 2},        {KC_SCHEDULE_STATIC, 3},
    {KC_SCHEDULE_STATIC, 7},        {KC_SCHEDULE_STATIC, 64},
    {KC_SCHEDULE_DYNAMIC, KC_AUTO}, {KC_SCHEDULE_DYNAMIC, 1},
    {KC_SCHEDULE_DYNAMIC, 2},       {KC_SCHEDULE_DYNAMIC, 3},
    {KC_SCHEDULE_DYNAMIC, 7},       {KC_SCHEDULE_DYNAMIC, 64}};
#define NSCHED (sizeof scheds / sizeof scheds[0])

static const kc_index ranges[][2] = {
    {0, 0}, {0, 1}, {0, 8}, {-5, 37}, {3, 1003}, {-100, 5000}, {0, 100003}};
#define NRANGES (sizeof ranges / sizeof ranges[0])

/* The digits of [b, e) in index order, mod 2^64. */
static uint64_t want_of(kc_index b, kc_index e) {
  uint64_t h = 0;
  for (kc_index i = b; i < e; i++)
    h = h * 10 + kt_cat_digit(i);
  return h;
}

static void where(char *buf, size_t n, const char *what, kc_index b, kc_index e,
                  const sched *s) {
  snprintf(buf, n, "%s over [%lld, %lld), %s schedule, chunk %lld", what,
           (long long)b, (long long)e,
           s->schedule == KC_SCHEDULE_STATIC ? "static" : "dynamic",
           (long long)s->chunk);
}

static void check_reduce(kc_index b, kc_index e, const sched *s) {
  char at[160];
  where(at, sizeof at, "reduce", b, e, s);
  kc_policy p = kc_range_schedule(b, e, s->schedule, s->chunk);
  kt_cat_f f = {NULL, b};
  kt_cat got = {0, 0};
  const int before = kc_test_failures();
  if (KC_CHECK_OK(kc_parallel_reduce("order", KC_TEST_KERNEL(kt_cat_reduce), &p,
                                     &f, sizeof f, &got)) == 0)
    KC_CHECK_EQ_UINT(got.h, want_of(b, e));
  /* The same into a kc allocation (asynchronous on a device). */
  kt_cat *dres = kc_test_dalloc(sizeof got, "order result");
  if (KC_CHECK_OK(kc_parallel_reduce("order", KC_TEST_KERNEL(kt_cat_reduce), &p,
                                     &f, sizeof f, dres)) == 0) {
    KC_CHECK_OK(kc_fence());
    memset(&got, 0, sizeof got);
    KC_CHECK_OK(kc_memcpy(&got, dres, sizeof got));
    KC_CHECK_EQ_UINT(got.h, want_of(b, e));
  }
  KC_CHECK_OK(kc_free(dres));
  if (kc_test_failures() != before)
    KC_INFO("  ... %s", at);
}

static void check_scan(kc_index b, kc_index e, const sched *s) {
  char at[160];
  where(at, sizeof at, "scan", b, e, s);
  const size_t n = (size_t)(e - b);
  kc_policy p = kc_range_schedule(b, e, s->schedule, s->chunk);
  uint64_t *dout = kc_test_dalloc(n * sizeof *dout + 1, "order scan out");
  kt_cat_f f = {dout, b};
  kt_cat total = {0, 0};
  const int before = kc_test_failures();
  if (KC_CHECK_OK(kc_parallel_scan("order", KC_TEST_KERNEL(kt_cat_scan), &p, &f,
                                   sizeof f, &total)) == 0) {
    KC_CHECK_EQ_UINT(total.h, want_of(b, e));
    uint64_t *out = kc_test_download(dout, n * sizeof *out);
    uint64_t h = 0;
    for (size_t k = 0; k < n; k++) {
      h = h * 10 + kt_cat_digit(b + (kc_index)k);
      if (out[k] != h) {
        KC_FAIL("scan: out[%zu] is %llu, want %llu", k,
                (unsigned long long)out[k], (unsigned long long)h);
        break;
      }
    }
    free(out);
  }
  KC_CHECK_OK(kc_free(dout));
  if (kc_test_failures() != before)
    KC_INFO("  ... %s", at);
}

static void check_team(kc_index league, const sched *s) {
  char at[160];
  where(at, sizeof at, "team reduce", 0, league, s);
  kc_policy p = kc_team_policy(league, KC_AUTO, 1);
  p.schedule = s->schedule;
  p.chunk = s->chunk;
  kt_cat_f f = {NULL, 0};
  kt_cat got = {0, 0};
  const int before = kc_test_failures();
  if (KC_CHECK_OK(kc_parallel_reduce("order", KC_TEST_KERNEL(kt_cat_team), &p,
                                     &f, sizeof f, &got)) == 0)
    KC_CHECK_EQ_UINT(got.h, want_of(0, league));
  if (kc_test_failures() != before)
    KC_INFO("  ... %s", at);
}

/* Failures counted before the case (the child inherits the parent's). */
static int case_base;

/* The digits of the box [b, e) in tile order: tiles row-major, points
 * row-major within a tile (t[d] == 0: the whole extent). */
static uint64_t want_md(const kc_index *b, const kc_index *e,
                        const kc_index *t) {
  kc_index t0 = t[0] > 0 ? t[0] : e[0] - b[0],
           t1 = t[1] > 0 ? t[1] : e[1] - b[1];
  uint64_t h = 0;
  for (kc_index a0 = b[0]; a0 < e[0]; a0 += t0)
    for (kc_index a1 = b[1]; a1 < e[1]; a1 += t1)
      for (kc_index i = a0; i < e[0] && i < a0 + t0; i++)
        for (kc_index j = a1; j < e[1] && j < a1 + t1; j++)
          h = h * 10 + kt_cat_digit(7 * i + j);
  return h;
}

static void check_md(const kc_index *b, const kc_index *e, const kc_index *t,
                     const sched *s) {
  kc_policy p = kc_mdrange(2, b, e, t);
  p.schedule = s->schedule;
  p.chunk = s->chunk;
  kt_cat_f f = {NULL, 0};
  kt_cat got = {0, 0};
  if (KC_CHECK_OK(kc_parallel_reduce("order", KC_TEST_KERNEL(kt_cat_md), &p, &f,
                                     sizeof f, &got)) == 0 &&
      got.h != want_md(b, e, t))
    KC_FAIL("md reduce over [%lld, %lld) x [%lld, %lld), tiles %lld x "
            "%lld, %s schedule, chunk %lld: %llu, want %llu",
            (long long)b[0], (long long)e[0], (long long)b[1], (long long)e[1],
            (long long)t[0], (long long)t[1],
            s->schedule == KC_SCHEDULE_STATIC ? "static" : "dynamic",
            (long long)s->chunk, (unsigned long long)got.h,
            (unsigned long long)want_md(b, e, t));
}

static int run_all(void *arg) {
  char v[16];
  snprintf(v, sizeof v, "%d", *(const int *)arg);
  setenv("KC_NUM_THREADS", v, 1);
  kc_test_init_backend();
  KC_INFO("KC_NUM_THREADS=%s", v);

  /* The case the report named: digits over [0, 8). */
  for (size_t sc = 0; sc < NSCHED; sc++) {
    kc_policy p =
        kc_range_schedule(0, 8, scheds[sc].schedule, scheds[sc].chunk);
    kt_cat_f f = {NULL, 0};
    kt_cat got = {0, 0};
    if (KC_CHECK_OK(kc_parallel_reduce("order", KC_TEST_KERNEL(kt_cat_reduce),
                                       &p, &f, sizeof f, &got)) == 0)
      KC_CHECK_EQ_UINT(got.h, 12345678u);
  }
  for (size_t r = 0; r < NRANGES; r++)
    for (size_t sc = 0; sc < NSCHED; sc++) {
      check_reduce(ranges[r][0], ranges[r][1], &scheds[sc]);
      check_scan(ranges[r][0], ranges[r][1], &scheds[sc]);
    }
  static const kc_index leagues[] = {0, 1, 8, 19, 300};
  for (size_t l = 0; l < sizeof leagues / sizeof leagues[0]; l++)
    for (size_t sc = 0; sc < NSCHED; sc++)
      check_team(leagues[l], &scheds[sc]);
  /* MD boxes: tiles given on every backend; without tiles (row-major
   * order) on host backends, where the grid is lines of the last
   * dimension. */
  static const kc_index boxes[][4] = {
      {0, 0, 3, 5}, {-2, 3, 9, 40}, {0, 0, 37, 129}, {5, -7, 6, 300}};
  static const kc_index tiles[][2] = {{1, 4}, {2, 3}, {4, 64}, {0, 0}};
  const int host = kc_test_device_is_distinct() == 0;
  for (size_t bx = 0; bx < sizeof boxes / sizeof boxes[0]; bx++)
    for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
      if (tiles[t][0] == 0 && !host)
        continue;
      for (size_t sc = 0; sc < NSCHED; sc++)
        check_md(boxes[bx], boxes[bx] + 2, tiles[t], &scheds[sc]);
    }
  if (kc_is_initialized())
    KC_CHECK_OK(kc_finalize());
  return kc_test_failures() > case_base ? 1 : 0;
}

int main(void) {
  static int counts[] = {2, 3, 4};
  setvbuf(stdout, NULL, _IOLBF, 0);
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
    case_base = kc_test_failures();
    if (KC_ISOLATE(run_all, &counts[k], 120) == 77)
      return 77;
  }
  return kc_test_done();
}
