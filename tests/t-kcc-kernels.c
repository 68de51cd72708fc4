/* kcc: every kernel macro of <kc/kernel.h>, as built by kcc, on every
 * backend.
 *
 * tests/kcc/kernels.kc.c holds one kernel per macro and value type, in
 * each spelling the macros accept.  This test checks that each registered
 * itself under its name (KC_KERNEL(name) is the handle kc_kernel_get
 * returns), that its kind is the macro's (a launch of the wrong kind is
 * refused), and that it computes exactly the value a sequential loop gives,
 * under a static and a dynamic schedule with small chunks (so the host
 * functions' per-chunk accumulators are loaded and stored many times). */
#include <kc/kernel.h>

#include "kc-test.h"
#include "kcc/kk.h"

#define KK_KERNELS(X)                                                          \
  X(kk_for)                                                                    \
  X(kk_for_odd)                                                                \
  X(kk_sum_i32)                                                                \
  X(kk_sum_i64)                                                                \
  X(kk_sum_f32)                                                                \
  X(kk_sum_f64)                                                                \
  X(kk_prod_f64)                                                               \
  X(kk_prod_i64)                                                               \
  X(kk_min_i32)                                                                \
  X(kk_min_f64)                                                                \
  X(kk_max_i64)                                                                \
  X(kk_max_f32)                                                                \
  X(kk_minloc_f64)                                                             \
  X(kk_maxloc_i32)                                                             \
  X(kk_minloc_i64)                                                             \
  X(kk_maxloc_f32)                                                             \
  X(kk_stats)                                                                  \
  X(kk_scan_incl)                                                              \
  X(kk_scan_excl)                                                              \
  X(kk_scan_custom)

#define KK_DECLARE(name) KC_KERNEL_DECLARE(name);
KK_KERNELS(KK_DECLARE)

static kc_index n;
static int32_t *hi32;
static int64_t *hi64;
static float *hf32;
static double *hf64;
static kk_arrays dev;

static void check_registration(void) {
#define KK_CHECK_REG(name)                                                     \
  do {                                                                         \
    kc_kernel *k = NULL;                                                       \
    KC_CHECK_NE_PTR(KC_KERNEL(name), NULL);                                    \
    KC_CHECK_OK(kc_kernel_get(#name, &k));                                     \
    KC_CHECK_EQ_PTR(k, KC_KERNEL(name));                                       \
    if (k)                                                                     \
      KC_CHECK_EQ_STR(kc_kernel_name(k), #name);                               \
  } while (0);
  KK_KERNELS(KK_CHECK_REG)
}

/* Each kind refuses the other kinds' launch calls. */
static void check_kinds(void) {
  kc_policy p = kc_range(0, 4);
  double d;
  int64_t l;
  KC_CHECK_ERR(kc_parallel_reduce(NULL, KC_TEST_KERNEL(kk_for), &p, &dev,
                                  sizeof dev, &d),
               KC_EINVAL);
  KC_CHECK_ERR(
      kc_parallel_for(NULL, KC_TEST_KERNEL(kk_sum_f64), &p, &dev, sizeof dev),
      KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_scan(NULL, KC_TEST_KERNEL(kk_stats), &p, &dev,
                                sizeof dev, &l),
               KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_reduce(NULL, KC_TEST_KERNEL(kk_scan_incl), &p, &dev,
                                  sizeof dev, &l),
               KC_EINVAL);
}

static void fill_inputs(void) {
  for (kc_index i = 0; i < n; i++) {
    hi32[i] = (int32_t)((i * 37 + 11) % 1001) - 500;
    hi64[i] = ((i + 123) % 1000) * 1000003 - 7;
    hf32[i] = (float)((i * 13 + 3) % 64) * 0.25f; /* sums exact in float */
    hf64[i] = (double)((i * 7919 + 5) % 10007) * 0.5 - 1000.0;
  }
  dev.i32 = kc_test_upload(hi32, (size_t)n * sizeof *hi32, "i32");
  dev.i64 = kc_test_upload(hi64, (size_t)n * sizeof *hi64, "i64");
  dev.f32 = kc_test_upload(hf32, (size_t)n * sizeof *hf32, "f32");
  dev.f64 = kc_test_upload(hf64, (size_t)n * sizeof *hf64, "f64");
  dev.out = kc_test_dalloc((size_t)n * sizeof(int64_t), "out");
  dev.n = n;
}

static int64_t *run_for(kc_kernel *k, const kc_policy *p) {
  KC_CHECK_OK(kc_memset(dev.out, 0, (size_t)n * sizeof(int64_t)));
  KC_CHECK_OK(kc_parallel_for(NULL, k, p, &dev, sizeof dev));
  return kc_test_download(dev.out, (size_t)n * sizeof(int64_t));
}

static void check_for(const kc_policy *p) {
  int64_t *out = run_for(KC_TEST_KERNEL(kk_for), p);
  int64_t *want = kc_test_xmalloc((size_t)n * sizeof *want);
  for (kc_index i = 0; i < n; i++)
    want[i] = 3 * i + 1;
  KC_CHECK_ARRAY_EQ_I64(out, want, n);
  free(out);
  out = run_for(KC_TEST_KERNEL(kk_for_odd), p);
  for (kc_index i = 0; i < n; i++)
    want[i] = i % 2 ? -i : 0;
  KC_CHECK_ARRAY_EQ_I64(out, want, n);
  free(out);
  free(want);
}

static void reduce(kc_kernel *k, const kc_policy *p, void *result) {
  KC_CHECK_OK(kc_parallel_reduce(NULL, k, p, &dev, sizeof dev, result));
}

/* Declares `var` of type T and reduces kernel `name` over *p into it. */
#define REDUCE(T, var, name, p)                                                \
  T var;                                                                       \
  memset(&var, 0, sizeof var);                                                 \
  reduce(KC_TEST_KERNEL(name), p, &var)

static void check_reduce(const kc_policy *p) {
  int32_t s32 = 0, mn32 = INT32_MAX;
  int64_t s64 = 0, mx64 = INT64_MIN;
  float s32f = 0, mxf = -1e30f;
  double s64f = 0, mnf = 1e300;
  kc_loc_double minloc_d = {1e300, -1};
  kc_loc_int32 maxloc_i = {INT32_MIN, -1};
  kc_loc_int64 minloc_l = {INT64_MAX, -1};
  kc_loc_float maxloc_f = {-1e30f, -1};
  kk_stats st = {0, 0, -1e300, -1};
  kc_index b = p->begin[0], e = p->end[0];
  for (kc_index i = b; i < e; i++) {
    s32 += hi32[i];
    s64 += hi64[i];
    s32f += hf32[i];
    s64f += hf64[i];
    mn32 = hi32[i] < mn32 ? hi32[i] : mn32;
    mx64 = hi64[i] > mx64 ? hi64[i] : mx64;
    mxf = hf32[i] > mxf ? hf32[i] : mxf;
    mnf = hf64[i] < mnf ? hf64[i] : mnf;
    if (hf64[i] < minloc_d.val)
      minloc_d = (kc_loc_double){hf64[i], i};
    if (hi32[i] > maxloc_i.val)
      maxloc_i = (kc_loc_int32){hi32[i], i};
    if (hi64[i] < minloc_l.val)
      minloc_l = (kc_loc_int64){hi64[i], i};
    if (hf32[i] > maxloc_f.val)
      maxloc_f = (kc_loc_float){hf32[i], i};
    st.count++;
    st.sum += hf64[i];
    if (hf64[i] > st.max) {
      st.max = hf64[i];
      st.argmax = i;
    }
  }
  REDUCE(int32_t, r_s32, kk_sum_i32, p);
  KC_CHECK_EQ_INT(r_s32, s32);
  REDUCE(int64_t, r_s64, kk_sum_i64, p);
  KC_CHECK_EQ_INT(r_s64, s64);
  REDUCE(float, r_s32f, kk_sum_f32, p);
  KC_CHECK_EQ_DBL(r_s32f, s32f, 0.0);
  REDUCE(double, r_s64f, kk_sum_f64, p);
  KC_CHECK_EQ_DBL(r_s64f, s64f, 0.0);
  REDUCE(int32_t, r_mn32, kk_min_i32, p);
  KC_CHECK_EQ_INT(r_mn32, mn32);
  REDUCE(double, r_mnf, kk_min_f64, p);
  KC_CHECK_EQ_DBL(r_mnf, mnf, 0.0);
  REDUCE(int64_t, r_mx64, kk_max_i64, p);
  KC_CHECK_EQ_INT(r_mx64, mx64);
  REDUCE(float, r_mxf, kk_max_f32, p);
  KC_CHECK_EQ_DBL(r_mxf, mxf, 0.0);

  REDUCE(kc_loc_double, ld, kk_minloc_f64, p);
  KC_CHECK_EQ_DBL(ld.val, minloc_d.val, 0.0);
  KC_CHECK_EQ_INT(ld.loc, minloc_d.loc);
  REDUCE(kc_loc_int32, li, kk_maxloc_i32, p);
  KC_CHECK_EQ_INT(li.val, maxloc_i.val);
  KC_CHECK_EQ_INT(li.loc, maxloc_i.loc);
  REDUCE(kc_loc_int64, ll, kk_minloc_i64, p);
  KC_CHECK_EQ_INT(ll.val, minloc_l.val);
  KC_CHECK_EQ_INT(ll.loc, minloc_l.loc);
  REDUCE(kc_loc_float, lf, kk_maxloc_f32, p);
  KC_CHECK_EQ_DBL(lf.val, maxloc_f.val, 0.0);
  KC_CHECK_EQ_INT(lf.loc, maxloc_f.loc);

  REDUCE(kk_stats, s, kk_stats, p);
  KC_CHECK_EQ_INT(s.count, st.count);
  KC_CHECK_EQ_DBL(s.sum, st.sum, 0.0);
  KC_CHECK_EQ_DBL(s.max, st.max, 0.0);
  KC_CHECK_EQ_INT(s.argmax, st.argmax);
}

/* Products over [0, 200) only: 2^20 and 3^13 stay exact. */
static void check_prod(kc_schedule sched, kc_index chunk) {
  kc_policy p = kc_range_schedule(0, n < 200 ? n : 200, sched, chunk);
  double pd = 1;
  int64_t pl = 1;
  for (kc_index i = 0; i < p.end[0]; i++) {
    pd *= i % 10 == 0 ? 2.0 : 1.0;
    pl *= i % 16 == 3 ? 3 : 1;
  }
  REDUCE(double, r_pd, kk_prod_f64, &p);
  KC_CHECK_EQ_DBL(r_pd, pd, 0.0);
  REDUCE(int64_t, r_pl, kk_prod_i64, &p);
  KC_CHECK_EQ_INT(r_pl, pl);
}

static void check_scan(const kc_policy *p) {
  int64_t *want = kc_test_xmalloc((size_t)n * sizeof *want);
  int64_t total = 0, acc = 0;
  KC_CHECK_OK(kc_memset(dev.out, 0, (size_t)n * sizeof(int64_t)));
  KC_CHECK_OK(kc_parallel_scan(NULL, KC_TEST_KERNEL(kk_scan_incl), p, &dev,
                               sizeof dev, &total));
  int64_t *out = kc_test_download(dev.out, (size_t)n * sizeof(int64_t));
  for (kc_index i = 0; i < n; i++)
    want[i] = acc += hi64[i];
  KC_CHECK_ARRAY_EQ_I64(out, want, n);
  KC_CHECK_EQ_INT(total, acc);
  free(out);

  double dtotal = 0, dacc = 0;
  KC_CHECK_OK(kc_parallel_scan(NULL, KC_TEST_KERNEL(kk_scan_excl), p, &dev,
                               sizeof dev, &dtotal));
  out = kc_test_download(dev.out, (size_t)n * sizeof(int64_t));
  for (kc_index i = 0; i < n; i++) {
    want[i] = (int64_t)dacc;
    dacc += hf64[i];
  }
  KC_CHECK_ARRAY_EQ_I64(out, want, n);
  KC_CHECK_EQ_DBL(dtotal, dacc, 0.0);
  free(out);

  kk_stats stotal;
  memset(&stotal, 0, sizeof stotal);
  KC_CHECK_OK(kc_parallel_scan(NULL, KC_TEST_KERNEL(kk_scan_custom), p, &dev,
                               sizeof dev, &stotal));
  out = kc_test_download(dev.out, (size_t)n * sizeof(int64_t));
  acc = 0;
  for (kc_index i = 0; i < n; i++)
    want[i] = acc += hi32[i] > 0;
  KC_CHECK_ARRAY_EQ_I64(out, want, n);
  KC_CHECK_EQ_INT(stotal.count, acc);
  free(out);
  free(want);
}

int main(void) {
  kc_test_init_backend();
  n = kc_test_large(100003);
  hi32 = kc_test_xmalloc((size_t)n * sizeof *hi32);
  hi64 = kc_test_xmalloc((size_t)n * sizeof *hi64);
  hf32 = kc_test_xmalloc((size_t)n * sizeof *hf32);
  hf64 = kc_test_xmalloc((size_t)n * sizeof *hf64);
  fill_inputs();

  check_registration();
  check_kinds();

  static const struct {
    kc_schedule s;
    kc_index chunk;
  } scheds[] = {{KC_SCHEDULE_STATIC, KC_AUTO},
                {KC_SCHEDULE_DYNAMIC, 7},
                {KC_SCHEDULE_STATIC, 1000}};
  for (size_t k = 0; k < sizeof scheds / sizeof scheds[0]; k++) {
    int failures = kc_test_failures();
    kc_policy whole = kc_range_schedule(0, n, scheds[k].s, scheds[k].chunk);
    kc_policy part = kc_range_schedule(17, n - 3, scheds[k].s, scheds[k].chunk);
    check_for(&whole);
    check_reduce(&whole);
    check_reduce(&part);
    check_prod(scheds[k].s, scheds[k].chunk);
    check_scan(&whole);
    if (kc_test_failures() != failures)
      KC_INFO("  ... with schedule %d, chunk %lld", (int)scheds[k].s,
              (long long)scheds[k].chunk);
  }

  /* An empty range gives the reducer's identity: 0 for a sum. */
  kc_policy empty = kc_range(5, 5);
  REDUCE(int64_t, r_empty, kk_sum_i64, &empty);
  KC_CHECK_EQ_INT(r_empty, 0);

  KC_CHECK_OK(kc_free((void *)dev.i32));
  KC_CHECK_OK(kc_free((void *)dev.i64));
  KC_CHECK_OK(kc_free((void *)dev.f32));
  KC_CHECK_OK(kc_free((void *)dev.f64));
  KC_CHECK_OK(kc_free(dev.out));
  free(hi32);
  free(hi64);
  free(hf32);
  free(hf64);
  return kc_test_finish();
}
