/* Conformance: the atomics of <kc/atomic.h> in kernel bodies, every
 * operation on int32, int64, uint32, uint64, float and double, under
 * contention (many indices on few cells: 7 bins, then 1).  Histograms must
 * hold exactly the totals (values are chosen exactly representable);
 * fetch_add must hand out every ticket once; min/max must find the
 * extremes; exchange must lose no value; compare-exchange loops must add
 * exactly once per index.  Also the host-side semantics, single-threaded:
 * returned old values, a failing compare-exchange, NaN in min/max. */
#include <math.h>

#include <kc/kernel.h>

#include "kc-test.h"
#include "kernels/model.h"

KC_KERNEL_DECLARE(kt_atomic_add);
KC_KERNEL_DECLARE(kt_atomic_sub);
KC_KERNEL_DECLARE(kt_atomic_tickets);
KC_KERNEL_DECLARE(kt_atomic_minmax);
KC_KERNEL_DECLARE(kt_atomic_xchg);
KC_KERNEL_DECLARE(kt_atomic_cas);
KC_KERNEL_DECLARE(kt_atomic_store);
KC_KERNEL_DECLARE(kt_atomic_ordered);

enum { N = 200003, MAXBINS = 7 };

typedef struct host_bins {
  int32_t i32[MAXBINS];
  int64_t i64[MAXBINS];
  uint32_t u32[MAXBINS];
  uint64_t u64[MAXBINS];
  float f32[MAXBINS];
  double f64[MAXBINS];
} host_bins;

static kt_atomic f;
static host_bins *dbins;

static void bins_get(host_bins *h) {
  KC_CHECK_OK(kc_fence());
  KC_CHECK_OK(kc_memcpy(h, dbins, sizeof *h));
}

static void run(kc_kernel *k, kc_index n, kc_schedule s, kc_index chunk) {
  kc_policy p = kc_range_schedule(0, n, s, chunk);
  KC_CHECK_OK(kc_parallel_for(kc_kernel_name(k), k, &p, &f, sizeof f));
}

static void histograms(int64_t bins, kc_schedule s, kc_index chunk) {
  host_bins h;
  KC_INFO("histograms: %lld bins, %s schedule", (long long)bins,
          s == KC_SCHEDULE_DYNAMIC ? "dynamic" : "static");
  f.bins = bins;
  KC_CHECK_OK(kc_memset(dbins, 0, sizeof h));
  run(KC_TEST_KERNEL(kt_atomic_add), N, s, chunk);
  bins_get(&h);
  for (int64_t b = 0; b < bins; b++) {
    int64_t c = N / bins + (b < N % bins); /* indices in bin b */
    KC_CHECK_EQ_INT(h.i32[b], c);
    KC_CHECK_EQ_INT(h.i64[b], 2 * c);
    KC_CHECK_EQ_UINT(h.u32[b], 3 * c);
    KC_CHECK_EQ_UINT(h.u64[b], 4 * c);
    KC_CHECK_EQ_DBL(h.f32[b], 0.5 * c, 0);
    KC_CHECK_EQ_DBL(h.f64[b], 0.25 * c, 0);
  }
  /* The ordered forms give the same totals. */
  KC_CHECK_OK(kc_memset(dbins, 0, sizeof h));
  run(KC_TEST_KERNEL(kt_atomic_ordered), N, s, chunk);
  bins_get(&h);
  for (int64_t b = 0; b < bins; b++) {
    int64_t c = N / bins + (b < N % bins);
    KC_CHECK_EQ_INT(h.i32[b], c);
    KC_CHECK_EQ_INT(h.i64[b], 2 * c);
    KC_CHECK_EQ_UINT(h.u32[b], 3 * c);
    KC_CHECK_EQ_UINT(h.u64[b], 4 * c);
    KC_CHECK_EQ_DBL(h.f32[b], 0.5 * c, 0);
    KC_CHECK_EQ_DBL(h.f64[b], 0.25 * c, 0);
  }
  run(KC_TEST_KERNEL(kt_atomic_sub), N, s, chunk);
  bins_get(&h);
  for (int64_t b = 0; b < bins; b++) {
    int64_t c = N / bins + (b < N % bins);
    KC_CHECK_EQ_INT(h.i32[b], 0);
    KC_CHECK_EQ_INT(h.i64[b], c);
    KC_CHECK_EQ_UINT(h.u32[b], 2 * c);
    KC_CHECK_EQ_UINT(h.u64[b], 3 * c);
    KC_CHECK_EQ_DBL(h.f32[b], 0.375 * c, 0);
    KC_CHECK_EQ_DBL(h.f64[b], 0.125 * c, 0);
  }
  /* Compare-exchange loops, from zero (integers in every type). */
  KC_CHECK_OK(kc_memset(dbins, 0, sizeof h));
  run(KC_TEST_KERNEL(kt_atomic_cas), N, s, chunk);
  bins_get(&h);
  for (int64_t b = 0; b < bins; b++) {
    int64_t c = N / bins + (b < N % bins);
    KC_CHECK_EQ_INT(h.i32[b], c);
    KC_CHECK_EQ_INT(h.i64[b], c);
    KC_CHECK_EQ_UINT(h.u32[b], c);
    KC_CHECK_EQ_UINT(h.u64[b], c);
    KC_CHECK_EQ_DBL(h.f32[b], c, 0);
    KC_CHECK_EQ_DBL(h.f64[b], c, 0);
  }
  /* Stores: whatever index won, it belongs to the bin. */
  run(KC_TEST_KERNEL(kt_atomic_store), N, s, chunk);
  bins_get(&h);
  for (int64_t b = 0; b < bins; b++) {
    KC_CHECK_EQ_INT(h.i64[b] % bins, b);
    KC_CHECK_EQ_INT((int64_t)h.f64[b] % bins, b);
  }
}

static int cmp64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static void tickets_and_exchange(void) {
  int64_t *t = malloc(N * sizeof *t), c[3];
  KC_REQUIRE(t != NULL);
  int64_t init[3] = {0, N, 0};
  KC_CHECK_OK(kc_memcpy(f.counter, init, sizeof init));
  run(KC_TEST_KERNEL(kt_atomic_tickets), N, KC_SCHEDULE_STATIC, KC_AUTO);
  KC_CHECK_OK(kc_fence());
  KC_CHECK_OK(kc_memcpy(t, f.tickets, N * sizeof *t));
  KC_CHECK_OK(kc_memcpy(c, f.counter, sizeof c));
  KC_CHECK_EQ_INT(c[0], N);
  KC_CHECK_EQ_INT(c[1], 0);
  KC_CHECK_EQ_INT(c[2], (int64_t)N * (N + 1) / 2); /* saw N, N-1 ... 1 */
  qsort(t, N, sizeof *t, cmp64);
  for (int64_t i = 0; i < N; i++)
    if (t[i] != i) {
      KC_FAIL("fetch_add tickets: sorted ticket %lld is %lld", (long long)i,
              (long long)t[i]);
      break;
    }

  /* Exchange: the values handed back plus the one left are 0 .. N. */
  int64_t zero = 0, last;
  KC_CHECK_OK(kc_memcpy(f.xchg, &zero, sizeof zero));
  run(KC_TEST_KERNEL(kt_atomic_xchg), N, KC_SCHEDULE_DYNAMIC, 64);
  KC_CHECK_OK(kc_fence());
  KC_CHECK_OK(kc_memcpy(t, f.xold, N * sizeof *t));
  KC_CHECK_OK(kc_memcpy(&last, f.xchg, sizeof last));
  KC_CHECK(last >= 1 && last <= N);
  qsort(t, N, sizeof *t, cmp64);
  for (int64_t i = 0, k = 0; i <= N; i++) {
    if (i == last)
      continue;
    if (t[k] != i) {
      KC_FAIL("exchange: value %lld lost (got %lld)", (long long)i,
              (long long)t[k]);
      break;
    }
    k++;
  }
  free(t);
}

static void minmax(void) {
  int64_t m64[2] = {INT64_MAX, INT64_MIN}, lo = INT64_MAX, hi = INT64_MIN;
  double md[2] = {INFINITY, -INFINITY};
  uint32_t mu[2] = {UINT32_MAX, 0};
  float mf[2] = {INFINITY, -INFINITY};
  int32_t mi[2] = {INT32_MAX, INT32_MIN};
  uint64_t mq[2] = {UINT64_MAX, 0};
  for (int64_t i = 0; i < N; i++) {
    int64_t v = i * 7919 % 1000003;
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  KC_CHECK_OK(kc_memcpy(f.mins, m64, sizeof m64));
  KC_CHECK_OK(kc_memcpy(f.fmins, md, sizeof md));
  KC_CHECK_OK(kc_memcpy(f.umins, mu, sizeof mu));
  KC_CHECK_OK(kc_memcpy(f.f32mins, mf, sizeof mf));
  KC_CHECK_OK(kc_memcpy(f.i32mins, mi, sizeof mi));
  KC_CHECK_OK(kc_memcpy(f.u64mins, mq, sizeof mq));
  run(KC_TEST_KERNEL(kt_atomic_minmax), N, KC_SCHEDULE_STATIC, 100);
  KC_CHECK_OK(kc_fence());
  KC_CHECK_OK(kc_memcpy(m64, f.mins, sizeof m64));
  KC_CHECK_OK(kc_memcpy(md, f.fmins, sizeof md));
  KC_CHECK_OK(kc_memcpy(mu, f.umins, sizeof mu));
  KC_CHECK_OK(kc_memcpy(mf, f.f32mins, sizeof mf));
  KC_CHECK_OK(kc_memcpy(mi, f.i32mins, sizeof mi));
  KC_CHECK_OK(kc_memcpy(mq, f.u64mins, sizeof mq));
  KC_CHECK_EQ_INT(m64[0], lo);
  KC_CHECK_EQ_INT(m64[1], hi);
  KC_CHECK_EQ_DBL(md[0], lo, 0);
  KC_CHECK_EQ_DBL(md[1], hi, 0);
  KC_CHECK_EQ_UINT(mu[0], lo);
  KC_CHECK_EQ_UINT(mu[1], hi);
  KC_CHECK_EQ_DBL(mf[0], lo, 0);
  KC_CHECK_EQ_DBL(mf[1], hi, 0);
  KC_CHECK_EQ_INT(mi[0], lo - 500000);
  KC_CHECK_EQ_INT(mi[1], hi - 500000);
  KC_CHECK_EQ_UINT(mq[0], (uint64_t)lo << 20);
  KC_CHECK_EQ_UINT(mq[1], (uint64_t)hi << 20);
}

/* The same header in host code: old values, failing CAS, NaN, wrap. */
static void host_semantics(void) {
  int32_t i = 5;
  KC_CHECK_EQ_INT(kc_atomic_fetch_add_i32(&i, 3), 5);
  KC_CHECK_EQ_INT(kc_atomic_fetch_sub(&i, 1), 8);
  KC_CHECK_EQ_INT(kc_atomic_fetch_min(&i, 2), 7);
  KC_CHECK_EQ_INT(kc_atomic_fetch_max(&i, 9), 2);
  KC_CHECK_EQ_INT(kc_atomic_exchange(&i, -4), 9);
  KC_CHECK_EQ_INT(kc_atomic_compare_exchange(&i, 0, 1), -4); /* fails */
  KC_CHECK_EQ_INT(i, -4);
  KC_CHECK_EQ_INT(kc_atomic_compare_exchange(&i, -4, 1), -4); /* succeeds */
  KC_CHECK_EQ_INT(kc_atomic_load(&i), 1);
  uint32_t u = 0;
  kc_atomic_sub_u32(&u, 1);
  KC_CHECK_EQ_UINT(u, UINT32_MAX);
  uint64_t q = 3;
  kc_atomic_max(&q, (uint64_t)2);
  KC_CHECK_EQ_UINT(q, 3);
  int64_t l = 0;
  kc_atomic_store(&l, (int64_t)1 << 40);
  KC_CHECK_EQ_INT(kc_atomic_fetch_add(&l, (int64_t)1), (int64_t)1 << 40);
  double d = 1.5;
  KC_CHECK_EQ_DBL(kc_atomic_fetch_add(&d, 2.0), 1.5, 0);
  KC_CHECK_EQ_DBL(kc_atomic_fetch_min(&d, NAN), 3.5, 0);
  KC_CHECK_EQ_DBL(d, 3.5, 0); /* NaN is never stored */
  KC_CHECK_EQ_DBL(kc_atomic_compare_exchange(&d, 3.5, -1.0), 3.5, 0);
  KC_CHECK_EQ_DBL(d, -1.0, 0);
  float x = 2.0f;
  KC_CHECK_EQ_DBL(kc_atomic_fetch_max(&x, 1.0f), 2.0, 0);
  KC_CHECK_EQ_DBL(kc_atomic_exchange(&x, 0.25f), 2.0, 0);
  KC_CHECK_EQ_DBL(kc_atomic_fetch_sub_f32(&x, 0.5f), 0.25, 0);
  KC_CHECK_EQ_DBL(x, -0.25, 0);

  /* Every order, every ordered form: the same values as the relaxed ones
   * (orders an operation cannot have are strengthened, not refused). */
  for (int o = KC_MEMORY_ORDER_RELAXED; o <= KC_MEMORY_ORDER_SEQ_CST; o++) {
    const kc_memory_order mo = (kc_memory_order)o;
    int64_t a = 10;
    KC_CHECK_EQ_INT(kc_atomic_fetch_add_explicit(&a, (int64_t)5, mo), 10);
    KC_CHECK_EQ_INT(kc_atomic_fetch_sub_explicit_i64(&a, 3, mo), 15);
    KC_CHECK_EQ_INT(kc_atomic_fetch_min_explicit(&a, (int64_t)20, mo), 12);
    KC_CHECK_EQ_INT(kc_atomic_fetch_max_explicit(&a, (int64_t)20, mo), 12);
    KC_CHECK_EQ_INT(kc_atomic_exchange_explicit(&a, (int64_t)-1, mo), 20);
    KC_CHECK_EQ_INT(
        kc_atomic_compare_exchange_explicit(&a, (int64_t)0, (int64_t)7, mo),
        -1); /* fails */
    KC_CHECK_EQ_INT(
        kc_atomic_compare_exchange_explicit(&a, (int64_t)-1, (int64_t)7, mo),
        -1); /* succeeds */
    kc_atomic_store_explicit(&a, (int64_t)1 << 40, mo);
    KC_CHECK_EQ_INT(kc_atomic_load_explicit(&a, mo), (int64_t)1 << 40);
    uint32_t w = 0;
    KC_CHECK_EQ_UINT(kc_atomic_fetch_sub_explicit(&w, 1u, mo), 0);
    KC_CHECK_EQ_UINT(kc_atomic_load_explicit_u32(&w, mo), UINT32_MAX);
    float g = 1.0f;
    KC_CHECK_EQ_DBL(kc_atomic_fetch_min_explicit(&g, NAN, mo), 1.0, 0);
    KC_CHECK_EQ_DBL(kc_atomic_fetch_add_explicit(&g, 0.5f, mo), 1.0, 0);
    KC_CHECK_EQ_DBL(kc_atomic_compare_exchange_explicit_f32(&g, 1.5f, 2.f, mo),
                    1.5, 0);
    KC_CHECK_EQ_DBL(g, 2.0, 0);
    double e = -0.0;
    KC_CHECK_EQ_DBL(kc_atomic_fetch_max_explicit(&e, 0.0, mo), 0.0, 0);
    KC_CHECK(signbit(e)); /* -0.0 stays: equal to 0.0 */
    const int32_t ci = 3;
    KC_CHECK_EQ_INT(kc_atomic_load_explicit(&ci, mo), 3);
#if !KT_TSAN /* ThreadSanitizer does not model fences (gcc warns) */
    kc_atomic_thread_fence(mo);
#endif
  }
#if !KT_TSAN
  kc_memory_fence();
#endif
}

int main(void) {
  kc_test_init_backend();
  host_semantics();
  memset(&f, 0, sizeof f);
  KC_REQUIRE_OK(
      kc_malloc((void **)&dbins, sizeof(host_bins), KC_SPACE_DEVICE, "bins"));
  f.hi32 = dbins->i32; /* address arithmetic only, no access */
  f.hi64 = dbins->i64;
  f.hu32 = dbins->u32;
  f.hu64 = dbins->u64;
  f.hf32 = dbins->f32;
  f.hf64 = dbins->f64;
  KC_REQUIRE_OK(kc_malloc((void **)&f.tickets, N * sizeof(int64_t),
                          KC_SPACE_DEVICE, "tickets"));
  KC_REQUIRE_OK(kc_malloc((void **)&f.xold, N * sizeof(int64_t),
                          KC_SPACE_DEVICE, "xold"));
  KC_REQUIRE_OK(kc_malloc((void **)&f.counter, 3 * sizeof(int64_t),
                          KC_SPACE_DEVICE, "counter"));
  KC_REQUIRE_OK(
      kc_malloc((void **)&f.xchg, sizeof(int64_t), KC_SPACE_DEVICE, "xchg"));
  KC_REQUIRE_OK(kc_malloc((void **)&f.mins, 2 * sizeof(int64_t),
                          KC_SPACE_DEVICE, "mins"));
  KC_REQUIRE_OK(kc_malloc((void **)&f.fmins, 2 * sizeof(double),
                          KC_SPACE_DEVICE, "fmins"));
  KC_REQUIRE_OK(kc_malloc((void **)&f.umins, 2 * sizeof(uint32_t),
                          KC_SPACE_DEVICE, "umins"));
  KC_REQUIRE_OK(kc_malloc((void **)&f.f32mins, 2 * sizeof(float),
                          KC_SPACE_DEVICE, "f32mins"));
  KC_REQUIRE_OK(kc_malloc((void **)&f.i32mins, 2 * sizeof(int32_t),
                          KC_SPACE_DEVICE, "i32mins"));
  KC_REQUIRE_OK(kc_malloc((void **)&f.u64mins, 2 * sizeof(uint64_t),
                          KC_SPACE_DEVICE, "u64mins"));

  histograms(MAXBINS, KC_SCHEDULE_STATIC, KC_AUTO);
  histograms(1, KC_SCHEDULE_DYNAMIC, 97);
  histograms(3, KC_SCHEDULE_STATIC, 1);
  tickets_and_exchange();
  minmax();

  kc_free(dbins);
  kc_free(f.tickets);
  kc_free(f.xold);
  kc_free(f.counter);
  kc_free(f.xchg);
  kc_free(f.mins);
  kc_free(f.fmins);
  kc_free(f.umins);
  kc_free(f.f32mins);
  kc_free(f.i32mins);
  kc_free(f.u64mins);
  return kc_test_finish();
}
