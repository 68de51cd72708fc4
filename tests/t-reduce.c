/* Conformance: kc_parallel_reduce with every built-in reducer (sum, prod,
 * min, max, minloc, maxloc) over every value type (int32, int64, float,
 * double).
 *
 * Data are chosen so every answer is exact whatever the order of the joins
 * (small integers; floats holding integers), so results are compared with
 * ==.  Each case runs over several sizes, offsets and schedules, with the
 * result going to a host variable (blocking) and to a kc allocation
 * (asynchronous: read after kc_fence + kc_memcpy).  Ties of minloc/maxloc
 * resolve to the smallest index; an empty range gives the identity.
 *
 * T_REDUCE_N=n adds n to the sizes of every type and join (its first
 * schedule only), and T_REDUCE_LARGE=n sets the range of the index-only
 * reductions (10^7 by default): t-reduce-waves.sh sets both, so that the
 * CUDA backend launches several waves of its resident grid. */
#include <float.h>

#include <kc/kernel.h>

#include "kc-test.h"
#include "kernels/functors.h"

#define KT_TYPES(X) X(i32, int32_t) X(i64, int64_t) X(f32, float) X(f64, double)
#define KT_DECLARE(s, t)                                                       \
  KC_KERNEL_DECLARE(kt_sum_##s);                                               \
  KC_KERNEL_DECLARE(kt_prod_##s);                                              \
  KC_KERNEL_DECLARE(kt_min_##s);                                               \
  KC_KERNEL_DECLARE(kt_max_##s);                                               \
  KC_KERNEL_DECLARE(kt_minloc_##s);                                            \
  KC_KERNEL_DECLARE(kt_maxloc_##s);
KT_TYPES(KT_DECLARE)
KC_KERNEL_DECLARE(kt_sum_index);
KC_KERNEL_DECLARE(kt_count_index);
KC_KERNEL_DECLARE(kt_max_index);
KC_KERNEL_DECLARE(kt_min_index);
KC_KERNEL_DECLARE(kt_fill);

typedef enum op { SUM, PROD, MIN, MAX, MINLOC, MAXLOC, NOPS } op;
static const char *const op_names[] = {"sum", "prod",   "min",
                                       "max", "minloc", "maxloc"};

typedef enum vt { I32, I64, F32, F64, NTYPES } vt;
static const char *const vt_names[] = {"int32", "int64", "float", "double"};
static const size_t vt_size[] = {4, 8, 4, 8};

static kc_kernel *kernel_of(op o, vt t) {
#define KT_ROW(s, ty)                                                          \
  {KC_KERNEL(kt_sum_##s), KC_KERNEL(kt_prod_##s),   KC_KERNEL(kt_min_##s),     \
   KC_KERNEL(kt_max_##s), KC_KERNEL(kt_minloc_##s), KC_KERNEL(kt_maxloc_##s)},
  kc_kernel *table[NTYPES][NOPS] = {KT_TYPES(KT_ROW)};
  if (table[t][o] == NULL) {
    KC_FAIL("kernel kt_%s_%s is not registered", op_names[o], vt_names[t]);
    exit(1);
  }
  return table[t][o];
}

/* A value of any of the four types, as the reducers deliver it. */
typedef union value {
  int32_t i32;
  int64_t i64;
  float f32;
  double f64;
  kc_loc_int32 li32;
  kc_loc_int64 li64;
  kc_loc_float lf32;
  kc_loc_double lf64;
  unsigned char bytes[32];
} value;

/* The data of one case, as doubles (all exactly representable in every
 * type) and converted to the case's type. */
static double elem(const double *x, kc_index k) { return x[k]; }

static void *typed_copy(const double *x, kc_index n, vt t) {
  void *p = kc_test_xmalloc((size_t)n * vt_size[t]);
  for (kc_index k = 0; k < n; k++)
    switch (t) {
    case I32:
      ((int32_t *)p)[k] = (int32_t)x[k];
      break;
    case I64:
      ((int64_t *)p)[k] = (int64_t)x[k];
      break;
    case F32:
      ((float *)p)[k] = (float)x[k];
      break;
    default:
      ((double *)p)[k] = x[k];
      break;
    }
  return p;
}

/* The expected value of op over x[0..n) at absolute indices b + k, as a
 * double and a location.  For an empty range the caller checks the
 * identity instead. */
static void expected(op o, const double *x, kc_index n, kc_index b, double *val,
                     kc_index *loc) {
  double v = o == PROD ? 1 : 0;
  kc_index l = -1;
  for (kc_index k = 0; k < n; k++) {
    double e = elem(x, k);
    switch (o) {
    case SUM:
      v += e;
      break;
    case PROD:
      v *= e;
      break;
    case MIN:
    case MINLOC:
      if (k == 0 || e < v)
        v = e, l = b + k;
      break;
    case MAX:
    case MAXLOC:
      if (k == 0 || e > v)
        v = e, l = b + k;
      break;
    default:
      break;
    }
  }
  *val = v;
  *loc = l;
}

/* Reads a result of type t (loc types for MINLOC/MAXLOC). */
static void unpack(const value *r, op o, vt t, double *val, kc_index *loc) {
  int isloc = o == MINLOC || o == MAXLOC;
  *loc = -1;
  switch (t) {
  case I32:
    *val = isloc ? r->li32.val : r->i32;
    if (isloc)
      *loc = r->li32.loc;
    break;
  case I64:
    *val = (double)(isloc ? r->li64.val : r->i64);
    if (isloc)
      *loc = r->li64.loc;
    break;
  case F32:
    *val = isloc ? r->lf32.val : r->f32;
    if (isloc)
      *loc = r->lf32.loc;
    break;
  default:
    *val = isloc ? r->lf64.val : r->f64;
    if (isloc)
      *loc = r->lf64.loc;
    break;
  }
}

static size_t result_size(op o, vt t) {
  if (o == MINLOC || o == MAXLOC)
    return t == I32   ? sizeof(kc_loc_int32)
           : t == I64 ? sizeof(kc_loc_int64)
           : t == F32 ? sizeof(kc_loc_float)
                      : sizeof(kc_loc_double);
  return vt_size[t];
}

/* The identity of each op and type.  For float min/max kc may use the
 * infinities or the largest finite values (both are neutral for finite
 * data); integers have one answer. */
static int is_identity(op o, vt t, double v) {
  switch (o) {
  case SUM:
    return v == 0;
  case PROD:
    return v == 1;
  case MIN:
  case MINLOC:
    return t == I32   ? v == INT32_MAX
           : t == I64 ? v == (double)INT64_MAX
           : t == F32 ? v == INFINITY || v == FLT_MAX
                      : v == INFINITY || v == DBL_MAX;
  default:
    return t == I32   ? v == INT32_MIN
           : t == I64 ? v == (double)INT64_MIN
           : t == F32 ? v == -INFINITY || v == -FLT_MAX
                      : v == -INFINITY || v == -DBL_MAX;
  }
}

/* Data for op o over n elements: small integers, with the extreme value
 * repeated (ties) and, for prod, a bounded number of factors 2 and -1. */
static double *make_data(op o, kc_index n, uint64_t seed) {
  kc_test_rng rng = {seed * 0x9E3779B97F4A7C15ull + 1};
  double *x = kc_test_xmalloc((size_t)(n ? n : 1) * sizeof(double));
  for (kc_index k = 0; k < n; k++)
    x[k] = o == PROD ? 1 : (double)kc_test_rand_range(&rng, -1000, 1000);
  if (o == PROD) {
    /* |product| <= 2^20: exact in every type. */
    for (int j = 0; j < 20 && n > 0; j++)
      x[kc_test_rand_range(&rng, 0, n - 1)] = 2;
    for (int j = 0; j < 7 && n > 0; j++)
      x[kc_test_rand_range(&rng, 0, n - 1)] = -1;
  } else if (n > 2) {
    /* The extreme at three places, the first not at 0 or n-1. */
    double ext = (o == MIN || o == MINLOC) ? -5000 : 5000;
    kc_index a = kc_test_rand_range(&rng, 1, n - 2);
    x[a] = ext;
    x[kc_test_rand_range(&rng, a, n - 1)] = ext;
    x[n - 1] = ext;
  }
  return x;
}

typedef struct sched {
  kc_schedule schedule;
  kc_index chunk;
} sched;

static int run_case(op o, vt t, kc_index b, kc_index n, const sched *s,
                    uint64_t seed) {
  const int failures = kc_test_failures();
  double *x = make_data(o, n, seed);
  void *hx = typed_copy(x, n, t);
  void *dx = kc_test_upload(hx, (size_t)n * vt_size[t], "reduce input");
  kt_xf64 f = {(const double *)dx, b}; /* same layout for every type */
  kc_policy p = kc_range_schedule(b, b + n, s->schedule, s->chunk);
  kc_kernel *k = kernel_of(o, t);
  size_t rs = result_size(o, t);
  value host, fromdev;
  double want = 0, got;
  kc_index wantloc = -1, gotloc;
  char label[64];

  snprintf(label, sizeof label, "%s %s", op_names[o], vt_names[t]);
  expected(o, x, n, b, &want, &wantloc);

  /* 1: a host variable; the call blocks until it is stored. */
  memset(&host, 0x5a, sizeof host);
  if (KC_CHECK_OK(kc_parallel_reduce(label, k, &p, &f, sizeof f, &host)) == 0) {
    unpack(&host, o, t, &got, &gotloc);
    if (n == 0) {
      if (!is_identity(o, t, got))
        KC_FAIL("%s over an empty range gave %.17g, not the identity", label,
                got);
    } else {
      KC_CHECK_EQ_DBL(got, want, 0);
      if (o == MINLOC || o == MAXLOC)
        KC_CHECK_EQ_INT(gotloc, wantloc);
    }
  }

  /* 2: a kc allocation in device space, asynchronous until kc_fence. */
  void *dres = kc_test_dalloc(rs, "reduce result");
  KC_CHECK_OK(kc_memset(dres, 0x5a, rs));
  if (KC_CHECK_OK(kc_parallel_reduce(label, k, &p, &f, sizeof f, dres)) == 0) {
    KC_CHECK_OK(kc_fence());
    memset(&fromdev, 0, sizeof fromdev);
    KC_CHECK_OK(kc_memcpy(&fromdev, dres, rs));
    KC_CHECK(memcmp(&fromdev, &host, rs) == 0);
  }
  KC_CHECK_OK(kc_free(dres));

  if (kc_test_failures() != failures)
    KC_INFO("  ... %s over [%" PRId64 ", %" PRId64
            ") schedule %s chunk %" PRId64 ": want %.17g at %" PRId64,
            label, b, b + n,
            s->schedule == KC_SCHEDULE_STATIC ? "static" : "dynamic", s->chunk,
            want, wantloc);
  KC_CHECK_OK(kc_free(dx));
  free(hx);
  free(x);
  return kc_test_failures() == failures;
}

/* A size from the environment, 0 if unset; exits on a bad one. */
static kc_index env_size(const char *name) {
  const char *v = getenv(name);
  if (!v || !*v)
    return 0;
  char *end;
  long long n = strtoll(v, &end, 10);
  if (*end || n < 1 || n > ((kc_index)1 << 40)) {
    fprintf(stderr, "t-reduce: %s=%s is not a size\n", name, v);
    exit(2);
  }
  return (kc_index)n;
}

static void test_builtins(void) {
  /* 1000003: more indices than a GPU's resident threads (270336 on an
   * H100), so the CUDA backend launches a 1-D reduction's larger blocks
   * (plugins/cuda/launch.c, range_args) for every type and join. */
  const kc_index extra = env_size("T_REDUCE_N");
  const kc_index sizes[] = {0,    1,    2,      3,       7,    64,
                            1000, 4099, 100003, 1000003, extra};
  const size_t nsizes = sizeof sizes / sizeof sizes[0] - !extra;
  static const kc_index begins[] = {0, 17, -40};
  static const sched scheds[] = {{KC_SCHEDULE_STATIC, KC_AUTO},
                                 {KC_SCHEDULE_STATIC, 7},
                                 {KC_SCHEDULE_DYNAMIC, 1},
                                 {KC_SCHEDULE_DYNAMIC, 7},
                                 {KC_SCHEDULE_DYNAMIC, KC_AUTO}};
  uint64_t seed = 1;
  for (int t = 0; t < NTYPES; t++)
    for (int o = 0; o < NOPS; o++) {
      int bad = 0;
      for (size_t si = 0; si < nsizes; si++)
        for (size_t bi = 0; bi < sizeof begins / sizeof begins[0]; bi++)
          for (size_t sc = 0; sc < sizeof scheds / sizeof scheds[0]; sc++) {
            /* chunk 1 on the largest size only costs time */
            if (sizes[si] > 5000 && scheds[sc].chunk == 1 && bi > 0)
              continue;
            /* nor does every schedule and start on the very largest */
            if (sizes[si] > 200000 && (sc > 0 || bi == 1))
              continue;
            bad += !run_case((op)o, (vt)t, begins[bi], sizes[si], &scheds[sc],
                             seed++);
          }
      KC_INFO("%-6s %-6s %s", op_names[o], vt_names[t], bad ? "FAILED" : "ok");
    }
}

/* The result of a reduction may live in kc host memory too: still a kc
 * allocation, still asynchronous until kc_fence. */
static void test_result_in_kc_host_memory(void) {
  int64_t *r = NULL;
  kt_xi64 f = {NULL, 0};
  kc_policy p = kc_range(0, 1000);
  KC_REQUIRE_OK(kc_malloc((void **)&r, sizeof *r, KC_SPACE_HOST, "result"));
  *r = -1;
  KC_CHECK_OK(kc_parallel_reduce("host alloc", KC_TEST_KERNEL(kt_sum_index), &p,
                                 &f, sizeof f, r));
  KC_CHECK_OK(kc_fence());
  KC_CHECK_EQ_INT(*r, 999 * 1000 / 2);
  KC_CHECK_OK(kc_free(r));
}

/* Large ranges (10^7, divided by KC_TEST_SCALE) from the index alone. */
static void test_large(void) {
  const kc_index set = env_size("T_REDUCE_LARGE");
  const kc_index n = set ? set : kc_test_large(10 * 1000 * 1000);
  static const kc_index begins[] = {0, 123457, -5000000};
  static const sched scheds[] = {{KC_SCHEDULE_STATIC, KC_AUTO},
                                 {KC_SCHEDULE_DYNAMIC, 1000},
                                 {KC_SCHEDULE_DYNAMIC, KC_AUTO}};
  kt_xi64 f = {NULL, 0};
  for (size_t bi = 0; bi < 3; bi++)
    for (size_t sc = 0; sc < 3; sc++) {
      kc_index b = begins[bi], e = b + n;
      kc_policy p =
          kc_range_schedule(b, e, scheds[sc].schedule, scheds[sc].chunk);
      int64_t v = 0;
      if (KC_CHECK_OK(kc_parallel_reduce("sum index",
                                         KC_TEST_KERNEL(kt_sum_index), &p, &f,
                                         sizeof f, &v)) == 0)
        KC_CHECK_EQ_INT(v, (b + e - 1) * n / 2);
      if (KC_CHECK_OK(kc_parallel_reduce("count",
                                         KC_TEST_KERNEL(kt_count_index), &p, &f,
                                         sizeof f, &v)) == 0)
        KC_CHECK_EQ_INT(v, n);
      if (KC_CHECK_OK(kc_parallel_reduce("max index",
                                         KC_TEST_KERNEL(kt_max_index), &p, &f,
                                         sizeof f, &v)) == 0)
        KC_CHECK_EQ_INT(v, e - 1);
      if (KC_CHECK_OK(kc_parallel_reduce("min index",
                                         KC_TEST_KERNEL(kt_min_index), &p, &f,
                                         sizeof f, &v)) == 0)
        KC_CHECK_EQ_INT(v, b);
    }
  KC_INFO("large reductions over %" PRId64 " indices done", n);
}

/* Many reductions into kc memory queued before one fence all land. */
static void test_many_async(void) {
  enum { R = 64 };
  int64_t *d = kc_test_dalloc(R * sizeof(int64_t), "many results");
  kt_xi64 f = {NULL, 0};
  for (int r = 0; r < R; r++) {
    kc_policy p = kc_range(0, 1000 + r);
    KC_CHECK_OK(kc_parallel_reduce("many", KC_TEST_KERNEL(kt_sum_index), &p, &f,
                                   sizeof f, d + r));
  }
  int64_t *h = kc_test_download(d, R * sizeof(int64_t));
  for (int r = 0; r < R; r++)
    KC_CHECK_EQ_INT(h[r], (int64_t)(999 + r) * (1000 + r) / 2);
  free(h);
  KC_CHECK_OK(kc_free(d));
}

/* A reduction kernel needs a result; a for kernel is not a reduction. */
static void test_bad(void) {
  kt_xi64 f = {NULL, 0};
  kc_policy p = kc_range(0, 10);
  int64_t v = 0;
  KC_CHECK_ERR(kc_parallel_reduce("no result", KC_TEST_KERNEL(kt_sum_index), &p,
                                  &f, sizeof f, NULL),
               KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_reduce("null kernel", NULL, &p, &f, sizeof f, &v),
               KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_reduce("null functor", KC_TEST_KERNEL(kt_sum_index),
                                  &p, NULL, sizeof f, &v),
               KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_reduce("for kernel", KC_TEST_KERNEL(kt_fill), &p, &f,
                                  sizeof f, &v),
               KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_for("reduce kernel", KC_TEST_KERNEL(kt_sum_index),
                               &p, &f, sizeof f),
               KC_EINVAL);
  p = kc_range(5, 4);
  KC_CHECK_ERR(kc_parallel_reduce("end < begin", KC_TEST_KERNEL(kt_sum_index),
                                  &p, &f, sizeof f, &v),
               KC_ERANGE);
  p = kc_range_schedule(0, 10, KC_SCHEDULE_DYNAMIC, 0);
  KC_CHECK_ERR(kc_parallel_reduce("chunk 0", KC_TEST_KERNEL(kt_sum_index), &p,
                                  &f, sizeof f, &v),
               KC_EINVAL);
  /* still usable */
  p = kc_range(0, 10);
  v = -1;
  KC_CHECK_OK(kc_parallel_reduce("good", KC_TEST_KERNEL(kt_sum_index), &p, &f,
                                 sizeof f, &v));
  KC_CHECK_EQ_INT(v, 45);
}

int main(void) {
  kc_test_init_backend();
  test_bad();
  test_result_in_kc_host_memory();
  test_many_async();
  test_builtins();
  test_large();
  return kc_test_finish();
}
