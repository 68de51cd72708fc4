/* Conformance: multi-dimensional ranges (kc_mdrange) with KC_MDFOR and the
 * KC_MDREDUCE_* kernels, ranks 2 to 6.
 *
 * Each FOR case runs over a box with odd extents and nonzero (also
 * negative) origins inside a larger dense array, with no tiles, with
 * tiles that divide nothing evenly, tiles larger than the extent, and
 * with static and dynamic schedules; afterwards every point of the box
 * must have been visited exactly once with its own value, and no point
 * around it touched.  Reductions are checked against sums computed here
 * (integer-valued, so exact), including empty boxes (the identity).  The
 * errors: a rank that differs from the kernel's, end < begin, a negative
 * tile, an MD kernel launched with a 1-D policy. */
#include <kc/kernel.h>

#include "kc-test.h"
#include "kernels/model.h"

KC_KERNEL_DECLARE(kt_md2);
KC_KERNEL_DECLARE(kt_md3);
KC_KERNEL_DECLARE(kt_md4);
KC_KERNEL_DECLARE(kt_md5);
KC_KERNEL_DECLARE(kt_md6);
KC_KERNEL_DECLARE(kt_mdsum2);
KC_KERNEL_DECLARE(kt_mdsum3);
KC_KERNEL_DECLARE(kt_mdmin3);
KC_KERNEL_DECLARE(kt_mdmax2);
KC_KERNEL_DECLARE(kt_mdprod2);
KC_KERNEL_DECLARE(kt_mdstats4);

/* The iteration order of every MD policy the cases build. */
static kc_iterate order = KC_ITERATE_RIGHT;

/* The code each FOR kernel stores for a point (as md.kc.c computes it). */
static int64_t code_of(int rank, const kc_index *x) {
  switch (rank) {
  case 2:
    return KT_MD_CODE2(x[0], x[1]);
  case 3:
    return KT_MD_CODE3(x[0], x[1], x[2]);
  default: {
    static const int64_t mul[] = {0, 5, 7, 11, 13, 17};
    int64_t c = x[0];
    for (int d = 1; d < rank; d++)
      c = c * mul[d] + x[d];
    return c;
  }
  }
}

static kc_kernel *for_kernel(int rank) {
  switch (rank) {
  case 2:
    return KC_TEST_KERNEL(kt_md2);
  case 3:
    return KC_TEST_KERNEL(kt_md3);
  case 4:
    return KC_TEST_KERNEL(kt_md4);
  case 5:
    return KC_TEST_KERNEL(kt_md5);
  default:
    return KC_TEST_KERNEL(kt_md6);
  }
}

/* Runs the rank-`rank` FOR kernel over [begin, begin + ext) with `tile`
 * (NULL: none) and checks every point of a dense array that has a margin
 * of one point on each side of the box. */
static void for_case(int rank, const kc_index *begin, const kc_index *ext,
                     const kc_index *tile, kc_schedule sched, kc_index chunk) {
  kc_index end[KC_MAX_RANK], alo[KC_MAX_RANK], aext[KC_MAX_RANK];
  int64_t st[KC_MAX_RANK];
  size_t n = 1;
  for (int d = 0; d < rank; d++) {
    end[d] = begin[d] + ext[d];
    alo[d] = begin[d] - 1;
    aext[d] = ext[d] + 2;
    n *= (size_t)aext[d];
  }
  for (int d = rank - 1, s = 1; d >= 0; d--) {
    st[d] = s;
    s *= (int)aext[d];
  }
  int32_t *cnt = calloc(n, sizeof *cnt);
  int64_t *val = calloc(n, sizeof *val);
  KC_REQUIRE(cnt && val);
  int32_t *dcnt;
  int64_t *dval;
  KC_REQUIRE_OK(
      kc_malloc((void **)&dcnt, n * sizeof *cnt, KC_SPACE_DEVICE, "md cnt"));
  KC_REQUIRE_OK(
      kc_malloc((void **)&dval, n * sizeof *val, KC_SPACE_DEVICE, "md val"));
  KC_CHECK_OK(kc_memset(dcnt, 0, n * sizeof *cnt));
  KC_CHECK_OK(kc_memset(dval, 0, n * sizeof *val));

  kt_md f;
  memset(&f, 0, sizeof f);
  f.cnt = dcnt;
  f.val = dval;
  for (int d = 0; d < rank; d++) {
    f.lo[d] = alo[d];
    f.st[d] = st[d];
  }
  kc_policy p = kc_mdrange(rank, begin, end, tile);
  KC_CHECK_OK(kc_policy_set_iterate(&p, order));
  p.schedule = sched;
  p.chunk = chunk;
  KC_CHECK_OK(kc_parallel_for("md", for_kernel(rank), &p, &f, sizeof f));
  KC_CHECK_OK(kc_fence());
  KC_CHECK_OK(kc_memcpy(cnt, dcnt, n * sizeof *cnt));
  KC_CHECK_OK(kc_memcpy(val, dval, n * sizeof *val));

  int bad = 0;
  for (size_t q = 0; q < n && bad < 5; q++) {
    kc_index x[KC_MAX_RANK];
    size_t r = q;
    int inside = 1;
    for (int d = rank - 1; d >= 0; d--) {
      x[d] = alo[d] + (kc_index)(r % (size_t)aext[d]);
      r /= (size_t)aext[d];
      if (x[d] < begin[d] || x[d] >= end[d])
        inside = 0;
    }
    int want = inside;
    if (cnt[q] != want || (inside && val[q] != code_of(rank, x))) {
      KC_FAIL("rank %d, %s, tile %s, %s schedule chunk %lld: point #%zu "
              "(%s the box) visited %d times, value %lld (want %d, %lld)",
              rank, order == KC_ITERATE_LEFT ? "LEFT" : "RIGHT",
              tile ? "given" : "none",
              sched == KC_SCHEDULE_DYNAMIC ? "dynamic" : "static",
              (long long)chunk, q, inside ? "inside" : "outside", cnt[q],
              (long long)val[q], want,
              inside ? (long long)code_of(rank, x) : 0LL);
      bad++;
    }
  }
  kc_free(dcnt);
  kc_free(dval);
  free(cnt);
  free(val);
}

static void for_cases(void) {
  static const kc_index begin[KC_MAX_RANK] = {-3, 5, 0, 2, -1, 7};
  static const kc_index ext2[] = {37, 53}, ext3[] = {9, 13, 21},
                        ext4[] = {3, 5, 4, 7}, ext5[] = {2, 3, 5, 3, 9},
                        ext6[] = {2, 3, 2, 3, 2, 5};
  static const kc_index *const exts[] = {NULL, NULL, ext2, ext3,
                                         ext4, ext5, ext6};
  static const kc_index odd_tiles[KC_MAX_RANK] = {4, 6, 5, 2, 3, 4};
  static const kc_index big_tiles[KC_MAX_RANK] = {100, 100, 100, 100, 100, 100};
  static const kc_index inner_only[KC_MAX_RANK] = {0, 0, 0, 0, 0, 8};
  for (int rank = 2; rank <= KC_MAX_RANK; rank++) {
    const kc_index *ext = exts[rank];
    kc_index inner[KC_MAX_RANK] = {0};
    inner[rank - 1] = inner_only[5];
    for_case(rank, begin, ext, NULL, KC_SCHEDULE_STATIC, KC_AUTO);
    for_case(rank, begin, ext, odd_tiles, KC_SCHEDULE_STATIC, KC_AUTO);
    for_case(rank, begin, ext, big_tiles, KC_SCHEDULE_STATIC, KC_AUTO);
    for_case(rank, begin, ext, inner, KC_SCHEDULE_STATIC, KC_AUTO);
    for_case(rank, begin, ext, NULL, KC_SCHEDULE_STATIC, 3);
    for_case(rank, begin, ext, NULL, KC_SCHEDULE_DYNAMIC, KC_AUTO);
    for_case(rank, begin, ext, odd_tiles, KC_SCHEDULE_DYNAMIC, 2);
  }
  /* A box with one empty dimension runs nothing. */
  static const kc_index ext_empty[] = {5, 0, 4};
  for_case(3, begin, ext_empty, NULL, KC_SCHEDULE_STATIC, KC_AUTO);
  /* One long line and many short ones. */
  static const kc_index thin[] = {1, 1000}, tall[] = {700, 3};
  for_case(2, begin, thin, NULL, KC_SCHEDULE_STATIC, KC_AUTO);
  for_case(2, begin, tall, NULL, KC_SCHEDULE_STATIC, KC_AUTO);
  for_case(2, begin, tall, NULL, KC_SCHEDULE_DYNAMIC, 5);
}

/* Reduces over [b, e) (rank 2 or 3, or 4 for the custom reducer) into a
 * host variable and into a kc allocation; both must match `want`. */
static void reduce_case(const char *what, kc_kernel *k, int rank,
                        const kc_index *b, const kc_index *e,
                        const kc_index *tile, const void *want, size_t size) {
  kt_md f;
  memset(&f, 0, sizeof f);
  kc_policy p = kc_mdrange(rank, b, e, tile);
  KC_CHECK_OK(kc_policy_set_iterate(&p, order));
  unsigned char host[64], *dev;
  memset(host, 0xa5, sizeof host);
  KC_CHECK_OK(kc_parallel_reduce(what, k, &p, &f, sizeof f, host));
  if (memcmp(host, want, size) != 0)
    KC_FAIL("%s (%s, tile %s) into a host variable: wrong result", what,
            order == KC_ITERATE_LEFT ? "LEFT" : "RIGHT",
            tile ? "given" : "none");
  KC_REQUIRE_OK(kc_malloc((void **)&dev, size, KC_SPACE_DEVICE, "md result"));
  p.schedule = KC_SCHEDULE_DYNAMIC;
  p.chunk = 3;
  KC_CHECK_OK(kc_parallel_reduce(what, k, &p, &f, sizeof f, dev));
  KC_CHECK_OK(kc_fence());
  memset(host, 0xa5, sizeof host);
  KC_CHECK_OK(kc_memcpy(host, dev, size));
  if (memcmp(host, want, size) != 0)
    KC_FAIL("%s (tile %s, dynamic) into a kc allocation: wrong result", what,
            tile ? "given" : "none");
  kc_free(dev);
}

static void reduce_cases(void) {
  static const kc_index b2[] = {-4, 3}, e2[] = {29, 40};
  static const kc_index b3[] = {2, -5, 1}, e3[] = {11, 8, 30};
  static const kc_index t2[] = {5, 7}, t3[] = {2, 3, 8};
  int64_t sum2 = 0, prod2 = 1;
  int32_t max2 = INT32_MIN;
  for (kc_index i = b2[0]; i < e2[0]; i++)
    for (kc_index j = b2[1]; j < e2[1]; j++) {
      sum2 += KT_MD_CODE2(i, j);
      int32_t v = (int32_t)(i * 3 - j * 2);
      max2 = v > max2 ? v : max2;
    }
  double sum3 = 0, min3 = 1e300;
  for (kc_index i = b3[0]; i < e3[0]; i++)
    for (kc_index j = b3[1]; j < e3[1]; j++)
      for (kc_index k = b3[2]; k < e3[2]; k++) {
        double v = (double)KT_MD_CODE3(i, j, k);
        sum3 += v;
        min3 = v < min3 ? v : min3;
      }
  /* prod: a box small enough that 2^count fits. */
  static const kc_index pb[] = {1, 2}, pe[] = {8, 9};
  for (kc_index i = pb[0]; i < pe[0]; i++)
    for (kc_index j = pb[1]; j < pe[1]; j++)
      prod2 *= (i + j) % 5 == 0 ? 2 : 1;
  KC_CHECK_GT_INT(prod2, 1);

  reduce_case("mdsum2", KC_TEST_KERNEL(kt_mdsum2), 2, b2, e2, NULL, &sum2,
              sizeof sum2);
  reduce_case("mdsum2", KC_TEST_KERNEL(kt_mdsum2), 2, b2, e2, t2, &sum2,
              sizeof sum2);
  reduce_case("mdmax2", KC_TEST_KERNEL(kt_mdmax2), 2, b2, e2, t2, &max2,
              sizeof max2);
  reduce_case("mdprod2", KC_TEST_KERNEL(kt_mdprod2), 2, pb, pe, NULL, &prod2,
              sizeof prod2);
  reduce_case("mdsum3", KC_TEST_KERNEL(kt_mdsum3), 3, b3, e3, NULL, &sum3,
              sizeof sum3);
  reduce_case("mdsum3", KC_TEST_KERNEL(kt_mdsum3), 3, b3, e3, t3, &sum3,
              sizeof sum3);
  reduce_case("mdmin3", KC_TEST_KERNEL(kt_mdmin3), 3, b3, e3, t3, &min3,
              sizeof min3);

  static const kc_index b4[] = {0, 1, -2, 3}, e4[] = {4, 6, 3, 10};
  kt_md_stats st = {0, 0};
  for (kc_index a = b4[0]; a < e4[0]; a++)
    for (kc_index b = b4[1]; b < e4[1]; b++)
      for (kc_index c = b4[2]; c < e4[2]; c++)
        for (kc_index d = b4[3]; d < e4[3]; d++) {
          st.count++;
          st.sum += ((a * 5 + b) * 7 + c) * 11 + d;
        }
  static const kc_index t4[] = {3, 2, 2, 4};
  reduce_case("mdstats4", KC_TEST_KERNEL(kt_mdstats4), 4, b4, e4, NULL, &st,
              sizeof st);
  reduce_case("mdstats4", KC_TEST_KERNEL(kt_mdstats4), 4, b4, e4, t4, &st,
              sizeof st);

  /* Empty boxes give the identity. */
  static const kc_index eb[] = {3, 3}, ee[] = {3, 10};
  int64_t zero = 0;
  int32_t lowest = INT32_MIN;
  reduce_case("mdsum2 empty", KC_TEST_KERNEL(kt_mdsum2), 2, eb, ee, NULL, &zero,
              sizeof zero);
  reduce_case("mdmax2 empty", KC_TEST_KERNEL(kt_mdmax2), 2, eb, ee, NULL,
              &lowest, sizeof lowest);
}

static void error_cases(void) {
  kt_md f;
  memset(&f, 0, sizeof f);
  static const kc_index b[] = {0, 0, 0}, e[] = {4, 4, 4}, bad_e[] = {4, -1, 4};
  static const kc_index neg_tile[] = {1, -2, 1};
  kc_policy p3 = kc_mdrange(3, b, e, NULL);
  KC_CHECK_ERR(kc_parallel_for("md", KC_TEST_KERNEL(kt_md2), &p3, &f, sizeof f),
               KC_EINVAL);
  kc_policy pe = kc_mdrange(3, b, bad_e, NULL);
  KC_CHECK_ERR(kc_parallel_for("md", KC_TEST_KERNEL(kt_md3), &pe, &f, sizeof f),
               KC_ERANGE);
  kc_policy pt = kc_mdrange(3, b, e, neg_tile);
  KC_CHECK_ERR(kc_parallel_for("md", KC_TEST_KERNEL(kt_md3), &pt, &f, sizeof f),
               KC_EINVAL);
  /* A box whose empty dimension comes after two whose product overflows
   * kc_index is empty, not too large: it runs nothing (it was KC_ERANGE
   * where the same box with the empty dimension first ran). */
  static const kc_index hb[] = {0, 0, 0}, he_last[] = {1LL << 40, 1LL << 40, 0},
                        he_first[] = {0, 1LL << 40, 1LL << 40},
                        he_full[] = {1LL << 40, 1LL << 40, 1};
  kc_policy ph = kc_mdrange(3, hb, he_last, NULL);
  KC_CHECK_OK(kc_parallel_for("md", KC_TEST_KERNEL(kt_md3), &ph, &f, sizeof f));
  double hsum = -1;
  KC_CHECK_OK(kc_parallel_reduce("md", KC_TEST_KERNEL(kt_mdsum3), &ph, &f,
                                 sizeof f, &hsum));
  KC_CHECK_EQ_DBL(hsum, 0.0, 0.0);
  ph = kc_mdrange(3, hb, he_first, NULL);
  KC_CHECK_OK(kc_parallel_for("md", KC_TEST_KERNEL(kt_md3), &ph, &f, sizeof f));
  ph = kc_mdrange(3, hb, he_full, NULL);
  KC_CHECK_ERR(kc_parallel_for("md", KC_TEST_KERNEL(kt_md3), &ph, &f, sizeof f),
               KC_ERANGE);
  KC_CHECK_CONTAINS(kc_last_error(), "more than INT64_MAX points");
  kc_policy r = kc_range(0, 10);
  KC_CHECK_ERR(kc_parallel_for("md", KC_TEST_KERNEL(kt_md3), &r, &f, sizeof f),
               KC_EINVAL);
  /* Iteration orders: only MD policies, only the two orders. */
  KC_CHECK_ERR(kc_policy_set_iterate(&r, KC_ITERATE_LEFT), KC_EINVAL);
  KC_CHECK_ERR(kc_policy_set_iterate(NULL, KC_ITERATE_LEFT), KC_EINVAL);
  KC_CHECK_ERR(kc_policy_set_iterate(&p3, (kc_iterate)2), KC_EINVAL);
  KC_CHECK_EQ_INT(p3.iterate, KC_ITERATE_RIGHT);
  kc_policy pi = kc_mdrange(3, b, e, NULL);
  pi.iterate = 7; /* set by hand, past the setter */
  KC_CHECK_ERR(kc_parallel_for("md", KC_TEST_KERNEL(kt_md3), &pi, &f, sizeof f),
               KC_EINVAL);
  KC_CHECK(strstr(kc_last_error(), "iteration order") != NULL);
  int64_t out;
  KC_CHECK_ERR(
      kc_parallel_for("md", KC_TEST_KERNEL(kt_mdsum2), &p3, &f, sizeof f),
      KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_reduce("md", KC_TEST_KERNEL(kt_mdsum2), &p3, &f,
                                  sizeof f, &out),
               KC_EINVAL);
}

int main(void) {
  kc_test_init_backend();
  for_cases();
  reduce_cases();
  /* The same with the first index fastest: the same points, the same
   * results (on cuda the threads of a warp take the first index). */
  order = KC_ITERATE_LEFT;
  for_cases();
  reduce_cases();
  error_cases();
  return kc_test_finish();
}
