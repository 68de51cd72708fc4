/* Conformance: kc launches and fences do not nest.
 *
 * A host kernel whose body calls kc_parallel_for, kc_parallel_reduce or
 * kc_fence gets KC_EINVAL with a detail that says why, at every index and
 * on every thread that runs one (the caller's thread and the workers); the
 * refused launches run nothing; and the runtime stays usable: the outer
 * launch itself succeeds, and fences and launches from the program work
 * afterwards.  Before libkc refused them, such calls deadlocked on the
 * runtime lock that the outer launch holds.
 *
 * The kernels below call kc, so they cannot be device code: this file is
 * compiled by the plain C compiler, which registers them host-only.  On a
 * backend whose kernels run on a device (cuda) there is no host code in a
 * kernel to call kc from, and the test skips. */
#include <kc/kernel.h>

#include "kc-test.h"
#include "kernels/functors.h"

KC_KERNEL_DECLARE(kt_count);
KC_KERNEL_DECLARE(kt_sum_i64);

enum { N = 257, NHITS = 16, DETAIL = 512 };

typedef struct nest_f {
  kc_kernel *count;  /* kt_count, launched from inside */
  kc_kernel *sum;    /* kt_sum_i64, launched from inside */
  int32_t *hits;     /* kt_count's target: must stay all zero */
  const int64_t *xs; /* kt_sum_i64's input */
  int *rc_for, *rc_reduce, *rc_fence; /* one return code per index */
  char *detail_for, *detail_fence;    /* kc_last_error() at index 0 */
} nest_f;

static void keep_detail(char *to) {
  const char *d = kc_last_error();
  snprintf(to, DETAIL, "%s", d ? d : "(NULL)");
}

KC_FOR(nest_for, nest_f, f, i, {
  kc_policy p = kc_range(0, NHITS);
  kt_count c = {f->hits, 0};
  kt_xi64 x = {f->xs, 0};
  int64_t sum = -1;
  f->rc_for[i] = kc_parallel_for("nested for", f->count, &p, &c, sizeof c);
  if (i == 0)
    keep_detail(f->detail_for);
  f->rc_reduce[i] =
      kc_parallel_reduce("nested reduce", f->sum, &p, &x, sizeof x, &sum);
  f->rc_fence[i] = kc_fence();
  if (i == 0)
    keep_detail(f->detail_fence);
})

/* The same from a reduction's body: acc counts the refused calls. */
KC_REDUCE_SUM(nest_reduce, nest_f, f, i, int64_t, acc, {
  kc_policy p = kc_range(0, NHITS);
  kt_count c = {f->hits, 0};
  acc += kc_parallel_for("nested for", f->count, &p, &c, sizeof c) == KC_EINVAL;
  acc += kc_fence() == KC_EINVAL;
})

static int count_not(const int *rc, int want) {
  int n = 0;
  for (int i = 0; i < N; i++)
    n += rc[i] != want;
  return n;
}

/* hits[] must hold `want` everywhere. */
static void check_hits(const int32_t *dhits, int32_t want) {
  int32_t *hits = kc_test_download(dhits, NHITS * sizeof *hits);
  int32_t expect[NHITS];
  for (int k = 0; k < NHITS; k++)
    expect[k] = want;
  KC_CHECK_ARRAY_EQ_I32(hits, expect, NHITS);
  free(hits);
}

int main(void) {
  kc_test_init_backend();
  if (kc_test_device_is_distinct())
    KC_SKIP("backend '%s' runs kernels on its device: a kernel has no host "
            "code to call kc_parallel_for or kc_fence from, and this file's "
            "kernels are host-only",
            kc_backend_name());

  int32_t *dhits = kc_test_dalloc(NHITS * sizeof *dhits, "hits");
  int64_t *dxs = kc_test_dalloc(NHITS * sizeof *dxs, "xs");
  KC_REQUIRE_OK(kc_memset(dhits, 0, NHITS * sizeof *dhits));
  KC_REQUIRE_OK(kc_memset(dxs, 0, NHITS * sizeof *dxs));
  int *rcs = kc_test_xmalloc(3 * N * sizeof *rcs);
  char *details = kc_test_xmalloc(2 * DETAIL);
  nest_f f = {KC_TEST_KERNEL(kt_count),
              KC_TEST_KERNEL(kt_sum_i64),
              dhits,
              dxs,
              rcs,
              rcs + N,
              rcs + 2 * N,
              details,
              details + DETAIL};
  kc_kernel *outer_for = KC_TEST_KERNEL(nest_for);
  kc_kernel *outer_reduce = KC_TEST_KERNEL(nest_reduce);
  /* Dynamic chunks of one index, so the workers of a threaded backend run
   * indices too, not only the caller's thread. */
  kc_policy p = kc_range_schedule(0, N, KC_SCHEDULE_DYNAMIC, 1);

  for (int round = 0; round < 2; round++) {
    for (int k = 0; k < 3 * N; k++)
      rcs[k] = 12345;
    details[0] = details[DETAIL] = '\0';
    KC_CHECK_OK(kc_parallel_for("outer for", outer_for, &p, &f, sizeof f));
    KC_CHECK_OK(kc_fence());
    KC_CHECK_EQ_INT(count_not(f.rc_for, KC_EINVAL), 0);
    KC_CHECK_EQ_INT(count_not(f.rc_reduce, KC_EINVAL), 0);
    KC_CHECK_EQ_INT(count_not(f.rc_fence, KC_EINVAL), 0);
    KC_CHECK_EQ_INT(f.rc_for[0], KC_EINVAL);
    KC_CHECK_EQ_INT(f.rc_fence[N - 1], KC_EINVAL);
    KC_CHECK_CONTAINS(f.detail_for, "kc_parallel_for");
    KC_CHECK_CONTAINS(f.detail_for, "inside a kernel");
    KC_CHECK_CONTAINS(f.detail_fence, "kc_fence");
    KC_CHECK_CONTAINS(f.detail_fence, "inside a kernel");

    int64_t refused = -1;
    KC_CHECK_OK(kc_parallel_reduce("outer reduce", outer_reduce, &p, &f,
                                   sizeof f, &refused));
    KC_CHECK_EQ_INT(refused, 2 * N);

    /* None of the refused launches ran. */
    check_hits(dhits, 0);
  }

  /* The runtime is still usable from the program: a fence, a launch that
   * runs, and a reduction. */
  KC_CHECK_OK(kc_fence());
  kc_policy ph = kc_range(0, NHITS);
  kt_count c = {dhits, 0};
  KC_CHECK_OK(
      kc_parallel_for("after", KC_TEST_KERNEL(kt_count), &ph, &c, sizeof c));
  KC_CHECK_OK(kc_fence());
  check_hits(dhits, 1);
  int64_t ones[NHITS];
  for (int k = 0; k < NHITS; k++)
    ones[k] = k + 1;
  KC_CHECK_OK(kc_memcpy(dxs, ones, sizeof ones));
  kt_xi64 x = {dxs, 0};
  int64_t sum = 0;
  KC_CHECK_OK(kc_parallel_reduce("after", KC_TEST_KERNEL(kt_sum_i64), &ph, &x,
                                 sizeof x, &sum));
  KC_CHECK_EQ_INT(sum, NHITS * (NHITS + 1) / 2);

  free(rcs);
  free(details);
  KC_CHECK_OK(kc_free(dhits));
  KC_CHECK_OK(kc_free(dxs));
  return kc_test_finish();
}
