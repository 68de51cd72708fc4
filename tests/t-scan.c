/* Conformance: kc_parallel_scan, inclusive and exclusive, with totals.
 *
 * Sum scans over int32, int64 and double, and a custom scan (running
 * maximum + count of positives), over several sizes, offsets and
 * schedules.  The total goes to a host variable, to a kc allocation
 * (asynchronous until kc_fence) or nowhere (NULL).  An empty range writes
 * nothing and gives the identity as total.  Data are small integers, so
 * every result is exact. */
#include <kc/kernel.h>

#include "kc-test.h"
#include "kernels/functors.h"

KC_KERNEL_DECLARE(kt_iscan_i32);
KC_KERNEL_DECLARE(kt_xscan_i32);
KC_KERNEL_DECLARE(kt_iscan_i64);
KC_KERNEL_DECLARE(kt_xscan_i64);
KC_KERNEL_DECLARE(kt_iscan_f64);
KC_KERNEL_DECLARE(kt_xscan_f64);
KC_KERNEL_DECLARE(kt_xscan_index);
KC_KERNEL_DECLARE(kt_iscan_mc);
KC_KERNEL_DECLARE(kt_xscan_mc);
KC_KERNEL_DECLARE(kt_fill);

typedef enum kind { I32, I64, F64, MC, NKINDS } kind;
static const char *const kind_names[] = {"int32", "int64", "double",
                                         "maxcount"};
static const size_t in_size[] = {4, 8, 8, 8};
static const size_t out_size[] = {4, 8, 8, sizeof(kt_maxcount)};

typedef struct sched {
  kc_schedule schedule;
  kc_index chunk;
} sched;

static kc_kernel *scan_kernel(kind k, int inclusive) {
  kc_kernel *t[NKINDS][2] = {{KC_KERNEL(kt_xscan_i32), KC_KERNEL(kt_iscan_i32)},
                             {KC_KERNEL(kt_xscan_i64), KC_KERNEL(kt_iscan_i64)},
                             {KC_KERNEL(kt_xscan_f64), KC_KERNEL(kt_iscan_f64)},
                             {KC_KERNEL(kt_xscan_mc), KC_KERNEL(kt_iscan_mc)}};
  if (!t[k][inclusive]) {
    KC_FAIL("scan kernel for %s (%s) is not registered", kind_names[k],
            inclusive ? "inclusive" : "exclusive");
    exit(1);
  }
  return t[k][inclusive];
}

/* Stores element k of the input as the kind's type. */
static void put_in(kind k, void *in, kc_index j, int64_t v) {
  switch (k) {
  case I32:
    ((int32_t *)in)[j] = (int32_t)v;
    break;
  case I64:
    ((int64_t *)in)[j] = v;
    break;
  default:
    ((double *)in)[j] = (double)v;
    break;
  }
}

/* The expected output at j (inclusive or exclusive prefix), written into
 * `want` in the kind's output type. */
static void put_want(kind k, void *want, kc_index j, int64_t sum, double max,
                     int64_t npos) {
  switch (k) {
  case I32:
    ((int32_t *)want)[j] = (int32_t)sum;
    break;
  case I64:
    ((int64_t *)want)[j] = sum;
    break;
  case F64:
    ((double *)want)[j] = (double)sum;
    break;
  default: {
    kt_maxcount m = {max, npos};
    ((kt_maxcount *)want)[j] = m;
    break;
  }
  }
}

static int run_case(kind k, int inclusive, kc_index b, kc_index n,
                    const sched *s, int total_to, uint64_t seed) {
  const int failures = kc_test_failures();
  kc_test_rng rng = {seed * 0x2545F4914F6CDD1Dull + 7};
  size_t nb_in = (size_t)n * in_size[k], nb_out = (size_t)n * out_size[k];
  void *in = kc_test_xmalloc(nb_in), *want = kc_test_xmalloc(nb_out + 1);
  int64_t sum = 0, npos = 0;
  double max = -1.0e308;
  char label[64];

  snprintf(label, sizeof label, "%s %s scan", kind_names[k],
           inclusive ? "inclusive" : "exclusive");
  for (kc_index j = 0; j < n; j++) {
    int64_t v = kc_test_rand_range(&rng, -3, 5);
    put_in(k, in, j, v);
    if (!inclusive)
      put_want(k, want, j, sum, max, npos);
    sum += v;
    if ((double)v > max)
      max = (double)v;
    npos += v > 0;
    if (inclusive)
      put_want(k, want, j, sum, max, npos);
  }

  /* Output with one guard element past the end, which must stay as set. */
  void *din = kc_test_upload(in, nb_in, "scan in");
  unsigned char *dout = kc_test_dalloc(nb_out + out_size[k], "scan out");
  KC_CHECK_OK(kc_memset(dout, 0x7b, nb_out + out_size[k]));
  kt_scan_i64 f = {(const int64_t *)din, (int64_t *)dout, b}; /* same layout */
  kc_policy p = kc_range_schedule(b, b + n, s->schedule, s->chunk);

  union {
    int32_t i32;
    int64_t i64;
    double f64;
    kt_maxcount mc;
  } total, wtotal;
  memset(&total, 0x6c, sizeof total);
  memset(&wtotal, 0, sizeof wtotal);
  switch (k) {
  case I32:
    wtotal.i32 = (int32_t)sum;
    break;
  case I64:
    wtotal.i64 = sum;
    break;
  case F64:
    wtotal.f64 = (double)sum;
    break;
  default:
    wtotal.mc.max = max;
    wtotal.mc.npos = npos;
    break;
  }

  void *dtotal = NULL;
  if (total_to == 1)
    dtotal = kc_test_dalloc(sizeof total, "scan total");
  int rc = kc_parallel_scan(label, scan_kernel(k, inclusive), &p, &f, sizeof f,
                            total_to == 0 ? (void *)&total : dtotal);
  KC_CHECK_OK(rc);
  if (rc == 0) {
    unsigned char *out = kc_test_download(dout, nb_out + out_size[k]);
    if (k == I32)
      KC_CHECK_ARRAY_EQ_I32((int32_t *)out, (int32_t *)want, n);
    else if (k == I64)
      KC_CHECK_ARRAY_EQ_I64((int64_t *)out, (int64_t *)want, n);
    else if (k == F64)
      KC_CHECK_ARRAY_EQ_DBL((double *)out, (double *)want, n);
    else {
      const kt_maxcount *o = (const kt_maxcount *)out,
                        *w = (const kt_maxcount *)want;
      for (kc_index j = 0; j < n; j++)
        if (o[j].max != w[j].max || o[j].npos != w[j].npos) {
          KC_FAIL("%s: element %" PRId64 " is (%g, %" PRId64
                  "), expected (%g, %" PRId64 ")",
                  label, j, o[j].max, o[j].npos, w[j].max, w[j].npos);
          break;
        }
    }
    for (size_t g = 0; g < out_size[k]; g++)
      if (out[nb_out + g] != 0x7b) {
        KC_FAIL("%s wrote past the end of its range", label);
        break;
      }
    free(out);
    if (total_to == 1)
      KC_CHECK_OK(kc_memcpy(&total, dtotal, out_size[k]));
    if (total_to != 2) {
      if (k == I32)
        KC_CHECK_EQ_INT(total.i32, wtotal.i32);
      else if (k == I64)
        KC_CHECK_EQ_INT(total.i64, wtotal.i64);
      else if (k == F64)
        KC_CHECK_EQ_DBL(total.f64, wtotal.f64, 0);
      else {
        KC_CHECK_EQ_DBL(total.mc.max, wtotal.mc.max, 0);
        KC_CHECK_EQ_INT(total.mc.npos, wtotal.mc.npos);
      }
    }
  }
  if (dtotal)
    KC_CHECK_OK(kc_free(dtotal));
  KC_CHECK_OK(kc_free(din));
  KC_CHECK_OK(kc_free(dout));
  free(in);
  free(want);
  if (kc_test_failures() != failures)
    KC_INFO("  ... %s over [%" PRId64 ", %" PRId64
            ") schedule %s chunk %" PRId64 ", total to %s",
            label, b, b + n,
            s->schedule == KC_SCHEDULE_STATIC ? "static" : "dynamic", s->chunk,
            total_to == 0   ? "host"
            : total_to == 1 ? "kc memory"
                            : "NULL");
  return kc_test_failures() == failures;
}

static void test_scans(void) {
  static const kc_index sizes[] = {0, 1, 2, 3, 7, 64, 1000, 4099, 100003};
  static const kc_index begins[] = {0, 17, -40};
  static const sched scheds[] = {{KC_SCHEDULE_STATIC, KC_AUTO},
                                 {KC_SCHEDULE_STATIC, 7},
                                 {KC_SCHEDULE_DYNAMIC, 1},
                                 {KC_SCHEDULE_DYNAMIC, 7},
                                 {KC_SCHEDULE_DYNAMIC, KC_AUTO}};
  uint64_t seed = 1;
  for (int k = 0; k < NKINDS; k++)
    for (int inc = 0; inc < 2; inc++) {
      int bad = 0;
      for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t bi = 0; bi < sizeof begins / sizeof begins[0]; bi++)
          for (size_t sc = 0; sc < sizeof scheds / sizeof scheds[0]; sc++) {
            if (sizes[si] > 5000 && scheds[sc].chunk == 1 && bi > 0)
              continue;
            bad += !run_case((kind)k, inc, begins[bi], sizes[si], &scheds[sc],
                             (int)(seed % 3), seed);
            seed++;
          }
      KC_INFO("%-8s %s scan %s", kind_names[k], inc ? "inclusive" : "exclusive",
              bad ? "FAILED" : "ok");
    }
}

/* Exclusive scan of the index over 10^7 (divided by KC_TEST_SCALE). */
static void test_large(void) {
  const kc_index n = kc_test_large(10 * 1000 * 1000);
  static const kc_index begins[] = {0, 99991, -3000000};
  static const sched scheds[] = {{KC_SCHEDULE_STATIC, KC_AUTO},
                                 {KC_SCHEDULE_DYNAMIC, 4096}};
  int64_t *d = kc_test_dalloc((size_t)n * sizeof(int64_t), "large scan");
  for (size_t bi = 0; bi < 3; bi++)
    for (size_t sc = 0; sc < 2; sc++) {
      kc_index b = begins[bi], e = b + n;
      kc_policy p =
          kc_range_schedule(b, e, scheds[sc].schedule, scheds[sc].chunk);
      kt_scan_i64 f = {NULL, d, b};
      int64_t total = -1;
      KC_CHECK_OK(kc_parallel_scan("large scan", KC_TEST_KERNEL(kt_xscan_index),
                                   &p, &f, sizeof f, &total));
      KC_CHECK_EQ_INT(total, (b + e - 1) * n / 2);
      int64_t *h = kc_test_download(d, (size_t)n * sizeof(int64_t));
      kc_index bad = 0, first = -1;
      int64_t acc = 0;
      for (kc_index j = 0; j < n; j++) {
        if (h[j] != acc && bad++ == 0)
          first = j;
        acc += b + j;
      }
      if (bad)
        KC_FAIL("large scan from %" PRId64 ": %" PRId64
                " wrong, first at %" PRId64,
                b, bad, first);
      free(h);
      /* total only (no output) */
      f.out = NULL;
      total = -1;
      KC_CHECK_OK(kc_parallel_scan("large total",
                                   KC_TEST_KERNEL(kt_xscan_index), &p, &f,
                                   sizeof f, &total));
      KC_CHECK_EQ_INT(total, (b + e - 1) * n / 2);
    }
  KC_CHECK_OK(kc_free(d));
  KC_INFO("large scans over %" PRId64 " indices done", n);
}

static void test_bad(void) {
  kt_scan_i64 f = {NULL, NULL, 0};
  kc_policy p = kc_range(0, 10);
  int64_t t = 0;
  KC_CHECK_ERR(kc_parallel_scan("null kernel", NULL, &p, &f, sizeof f, &t),
               KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_scan("null functor", KC_TEST_KERNEL(kt_xscan_index),
                                &p, NULL, sizeof f, &t),
               KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_scan("for kernel", KC_TEST_KERNEL(kt_fill), &p, &f,
                                sizeof f, &t),
               KC_EINVAL);
  p = kc_range(3, 2);
  KC_CHECK_ERR(kc_parallel_scan("end < begin", KC_TEST_KERNEL(kt_xscan_index),
                                &p, &f, sizeof f, &t),
               KC_ERANGE);
  p = kc_range_schedule(0, 10, KC_SCHEDULE_STATIC, 0);
  KC_CHECK_ERR(kc_parallel_scan("chunk 0", KC_TEST_KERNEL(kt_xscan_index), &p,
                                &f, sizeof f, &t),
               KC_EINVAL);
  p = kc_range(0, 10);
  t = -1;
  KC_CHECK_OK(kc_parallel_scan("good", KC_TEST_KERNEL(kt_xscan_index), &p, &f,
                               sizeof f, &t));
  KC_CHECK_EQ_INT(t, 45);
}

int main(void) {
  kc_test_init_backend();
  test_bad();
  test_scans();
  test_large();
  return kc_test_finish();
}
