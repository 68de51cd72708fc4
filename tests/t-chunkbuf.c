/* Conformance: chunk kernels (KC_FOR_CHUNKS) and per-thread chunk buffers
 * (KC_CHUNK_BUFFER).  Over ranges with offsets, lengths shorter and longer
 * than KC_CHUNK_MAX, static and dynamic schedules with several chunk
 * sizes, and repeated launches (buffers reused): every index is covered
 * exactly once with the right value, two buffers of one body do not
 * overlap, and no chunk is longer than KC_CHUNK_MAX. */
#include <math.h>

#include <kc/kernel.h>

#include "kc-test.h"
#include "kernels/model.h"

KC_KERNEL_DECLARE(kt_chunk);

static void chunk_case(kc_index begin, kc_index n, kc_schedule s,
                       kc_index chunk) {
  double *x = malloc((size_t)(n + 1) * sizeof *x);
  double *y = malloc((size_t)(n + 1) * sizeof *y);
  int32_t *hits = malloc((size_t)(n + 1) * sizeof *hits);
  KC_REQUIRE(x && y && hits);
  for (kc_index i = 0; i < n; i++)
    x[i] = (double)(i % 1000) / 7.0;
  kt_chunk f;
  memset(&f, 0, sizeof f);
  f.base = begin;
  KC_REQUIRE_OK(kc_malloc((void **)&f.x, (size_t)(n + 1) * sizeof *x,
                          KC_SPACE_DEVICE, "x"));
  KC_REQUIRE_OK(kc_malloc((void **)&f.y, (size_t)(n + 1) * sizeof *y,
                          KC_SPACE_DEVICE, "y"));
  KC_REQUIRE_OK(kc_malloc((void **)&f.hits, (size_t)(n + 1) * sizeof *hits,
                          KC_SPACE_DEVICE, "hits"));
  KC_REQUIRE_OK(
      kc_malloc((void **)&f.maxlen, sizeof(int64_t), KC_SPACE_DEVICE, "max"));
  KC_CHECK_OK(kc_memcpy((void *)f.x, x, (size_t)n * sizeof *x));
  KC_CHECK_OK(kc_memset(f.hits, 0, (size_t)(n + 1) * sizeof *hits));
  KC_CHECK_OK(kc_memset(f.maxlen, 0, sizeof(int64_t)));
  kc_policy p = kc_range_schedule(begin, begin + n, s, chunk);
  for (int rep = 0; rep < 3; rep++)
    KC_CHECK_OK(
        kc_parallel_for("chunk", KC_TEST_KERNEL(kt_chunk), &p, &f, sizeof f));
  KC_CHECK_OK(kc_fence());
  int64_t maxlen;
  KC_CHECK_OK(kc_memcpy(y, f.y, (size_t)n * sizeof *y));
  KC_CHECK_OK(kc_memcpy(hits, f.hits, (size_t)(n + 1) * sizeof *hits));
  KC_CHECK_OK(kc_memcpy(&maxlen, f.maxlen, sizeof maxlen));
  int bad = 0;
  for (kc_index i = 0; i <= n && bad < 3; i++) {
    int want = i < n ? 3 : 0;
    double t = i < n ? pow(1.0 + x[i], 0.3) : 0;
    if (hits[i] != want || (i < n && fabs(y[i] - (t + 1 / t)) > 1e-12)) {
      KC_FAIL("[%lld, +%lld) %s chunk %lld: index %lld covered %d times "
              "(want %d), y = %.17g (want %.17g)",
              (long long)begin, (long long)n,
              s == KC_SCHEDULE_DYNAMIC ? "dynamic" : "static", (long long)chunk,
              (long long)i, hits[i], want, i < n ? y[i] : 0.0,
              i < n ? t + 1 / t : 0.0);
      bad++;
    }
  }
  if (n > 0) {
    KC_CHECK_GE_INT(maxlen, 1);
    KC_CHECK_LE_INT(maxlen, KC_CHUNK_MAX);
    if (chunk != KC_AUTO)
      KC_CHECK_LE_INT(maxlen, chunk);
  }
  kc_free((void *)f.x);
  kc_free(f.y);
  kc_free(f.hits);
  kc_free(f.maxlen);
  free(x);
  free(y);
  free(hits);
}

int main(void) {
  kc_test_init_backend();
  chunk_case(0, 10, KC_SCHEDULE_STATIC, KC_AUTO);
  chunk_case(-17, 100003, KC_SCHEDULE_STATIC, KC_AUTO);
  chunk_case(5, 5000, KC_SCHEDULE_STATIC, 77);
  chunk_case(5, 5000, KC_SCHEDULE_DYNAMIC, 300);
  chunk_case(1000000, 3 * KC_CHUNK_MAX + 1, KC_SCHEDULE_DYNAMIC, KC_AUTO);
  chunk_case(3, 0, KC_SCHEDULE_STATIC, KC_AUTO);
  return kc_test_finish();
}
