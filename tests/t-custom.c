/* Conformance: custom reductions (identity + join supplied by the user)
 * over POD values: a struct of mixed fields (count, sum, sum of squares,
 * min, max: 40 bytes with padding) and a 3-vector of doubles.  Sizes,
 * offsets and schedules vary; the result goes to a host variable and to a
 * kc allocation; an empty range gives the user's identity. */
#include <kc/kernel.h>

#include "kc-test.h"
#include "kernels/functors.h"

KC_KERNEL_DECLARE(kt_stats);
KC_KERNEL_DECLARE(kt_vec3);

typedef struct sched {
  kc_schedule schedule;
  kc_index chunk;
} sched;

static const sched scheds[] = {{KC_SCHEDULE_STATIC, KC_AUTO},
                               {KC_SCHEDULE_STATIC, 5},
                               {KC_SCHEDULE_DYNAMIC, 1},
                               {KC_SCHEDULE_DYNAMIC, 13},
                               {KC_SCHEDULE_DYNAMIC, KC_AUTO}};
#define NSCHED (sizeof scheds / sizeof scheds[0])

static void check_stats(const kt_stats *got, const kt_stats *want,
                        const char *where) {
  const int failures = kc_test_failures();
  KC_CHECK_EQ_INT(got->count, want->count);
  KC_CHECK_EQ_DBL(got->sum, want->sum, 0);
  KC_CHECK_EQ_DBL(got->sumsq, want->sumsq, 0);
  KC_CHECK_EQ_INT(got->min, want->min);
  KC_CHECK_EQ_INT(got->max, want->max);
  if (kc_test_failures() != failures)
    KC_INFO("  ... %s", where);
}

static void test_stats(void) {
  static const kc_index sizes[] = {0, 1, 2, 9, 100, 4097, 200003};
  static const kc_index begins[] = {0, 11, -7};
  kc_test_rng rng = {42};
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
    for (size_t bi = 0; bi < 3; bi++)
      for (size_t sc = 0; sc < NSCHED; sc++) {
        kc_index n = sizes[si], b = begins[bi];
        int32_t *x = kc_test_xmalloc((size_t)n * sizeof *x);
        kt_stats want = {0, 0, 0, INT32_MAX, INT32_MIN}, got;
        char where[128];
        for (kc_index k = 0; k < n; k++) {
          x[k] = (int32_t)kc_test_rand_range(&rng, -100000, 100000);
          want.count++;
          want.sum += x[k];
          want.sumsq += (double)x[k] * x[k];
          if (x[k] < want.min)
            want.min = x[k];
          if (x[k] > want.max)
            want.max = x[k];
        }
        snprintf(where, sizeof where,
                 "stats over [%" PRId64 ", %" PRId64
                 "), schedule %d chunk %" PRId64,
                 b, b + n, (int)scheds[sc].schedule, scheds[sc].chunk);
        int32_t *dx = kc_test_upload(x, (size_t)n * sizeof *x, "stats in");
        kt_xi32 f = {dx, b};
        kc_policy p =
            kc_range_schedule(b, b + n, scheds[sc].schedule, scheds[sc].chunk);

        memset(&got, 0x33, sizeof got);
        if (KC_CHECK_OK(kc_parallel_reduce("stats", KC_TEST_KERNEL(kt_stats),
                                           &p, &f, sizeof f, &got)) == 0)
          check_stats(&got, &want, where);

        kt_stats *dres = kc_test_dalloc(sizeof got, "stats result");
        KC_CHECK_OK(kc_memset(dres, 0x33, sizeof got));
        if (KC_CHECK_OK(kc_parallel_reduce("stats", KC_TEST_KERNEL(kt_stats),
                                           &p, &f, sizeof f, dres)) == 0) {
          KC_CHECK_OK(kc_fence());
          memset(&got, 0, sizeof got);
          KC_CHECK_OK(kc_memcpy(&got, dres, sizeof got));
          check_stats(&got, &want, where);
        }
        KC_CHECK_OK(kc_free(dres));
        KC_CHECK_OK(kc_free(dx));
        free(x);
      }
  KC_INFO("stats reducer done");
}

static void test_vec3(void) {
  static const kc_index ranges[][2] = {{0, 0},
                                       {3, 3},
                                       {0, 1},
                                       {-5, 6},
                                       {0, 1000},
                                       {17, 100017},
                                       {-1000000, 1000001}};
  for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
    for (size_t sc = 0; sc < NSCHED; sc++) {
      kc_index b = ranges[r][0], e = ranges[r][1];
      kt_vec3 want = {{0, 0, 0}}, got;
      kt_xi64 f = {NULL, 0};
      kc_policy p;
      if (e - b > 200000 && scheds[sc].chunk == 1)
        continue;
      p = kc_range_schedule(b, e, scheds[sc].schedule, scheds[sc].chunk);
      for (kc_index i = b; i < e; i++) {
        want.v[0] += 1;
        want.v[1] += (double)i;
        want.v[2] += (double)(i % 3);
      }
      memset(&got, 0x44, sizeof got);
      if (KC_CHECK_OK(kc_parallel_reduce("vec3", KC_TEST_KERNEL(kt_vec3), &p,
                                         &f, sizeof f, &got)) == 0) {
        for (int d = 0; d < 3; d++)
          KC_CHECK_EQ_DBL(got.v[d], want.v[d], 0);
      }
      kt_vec3 *dres = kc_test_dalloc(sizeof got, "vec3 result");
      if (KC_CHECK_OK(kc_parallel_reduce("vec3", KC_TEST_KERNEL(kt_vec3), &p,
                                         &f, sizeof f, dres)) == 0) {
        KC_CHECK_OK(kc_fence());
        KC_CHECK_OK(kc_memcpy(&got, dres, sizeof got));
        for (int d = 0; d < 3; d++)
          KC_CHECK_EQ_DBL(got.v[d], want.v[d], 0);
      }
      KC_CHECK_OK(kc_free(dres));
    }
  KC_INFO("vec3 reducer done");
}

int main(void) {
  kc_test_init_backend();
  test_stats();
  test_vec3();
  return kc_test_finish();
}
