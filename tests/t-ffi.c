/* CALL kernels: host functions with plain C parameter lists, launched with
 * kc_parallel_call through libffi, on every host backend.
 *
 * Each function takes (kc_index begin, kc_index end, args...) as its
 * signature string says.  The test checks that every argument type
 * arrives bit-exact (extreme values of each), that more arguments than the
 * ABI passes in registers work, that each index of the range is visited
 * exactly once under every schedule, and that a call whose argument count
 * does not match the signature is refused with KC_ESIGNATURE (the process
 * goes on: no crash). */
#include <kc/kc.h>

#include "kc-test.h"

/* What k_record saw. */
typedef struct rec {
  kc_index first; /* the chunk holding this index records */
  int calls;
  void *p;
  int32_t i;
  uint32_t u;
  int64_t l;
  uint64_t ul;
  float f;
  double d;
} rec;

/* Signature "ppiIlLfd". */
static void k_record(kc_index b, kc_index e, rec *r, void *p, int32_t i,
                     uint32_t u, int64_t l, uint64_t ul, float f, double d) {
  if (b <= r->first && r->first < e) {
    r->calls++;
    r->p = p;
    r->i = i;
    r->u = u;
    r->l = l;
    r->ul = ul;
    r->f = f;
    r->d = d;
  }
}

/* The classic example: y[i] += a * x[i] for i < n.  Signature "ppdl". */
static void k_axpy(kc_index b, kc_index e, double *y, const double *x, double a,
                   long n) {
  for (kc_index i = b; i < e && i < n; i++)
    y[i] += a * x[i];
}

/* 26 parameters, most on the stack: signature "p" + "iIlLfd" x 4 + "i".
 * Writes, for each index, a sum that changes if any argument is wrong or
 * misplaced (each weighted by its position). */
static void k_many(kc_index b, kc_index e, int64_t *out, int32_t i0,
                   uint32_t u0, int64_t l0, uint64_t ul0, float f0, double d0,
                   int32_t i1, uint32_t u1, int64_t l1, uint64_t ul1, float f1,
                   double d1, int32_t i2, uint32_t u2, int64_t l2, uint64_t ul2,
                   float f2, double d2, int32_t i3, uint32_t u3, int64_t l3,
                   uint64_t ul3, float f3, double d3, int32_t last) {
  int64_t s = 1 * (int64_t)i0 + 2 * (int64_t)u0 + 3 * l0 + 4 * (int64_t)ul0 +
              5 * (int64_t)f0 + 6 * (int64_t)d0 + 7 * (int64_t)i1 +
              8 * (int64_t)u1 + 9 * l1 + 10 * (int64_t)ul1 + 11 * (int64_t)f1 +
              12 * (int64_t)d1 + 13 * (int64_t)i2 + 14 * (int64_t)u2 + 15 * l2 +
              16 * (int64_t)ul2 + 17 * (int64_t)f2 + 18 * (int64_t)d2 +
              19 * (int64_t)i3 + 20 * (int64_t)u3 + 21 * l3 +
              22 * (int64_t)ul3 + 23 * (int64_t)f3 + 24 * (int64_t)d3 +
              25 * (int64_t)last;
  for (kc_index i = b; i < e; i++)
    out[i] = s + i;
}

/* No parameters at all: signature "".  Counts visits of each index. */
static int32_t *g_hits;
static kc_index g_base;
static void k_none(kc_index b, kc_index e) {
  for (kc_index i = b; i < e; i++)
    g_hits[i - g_base]++;
}

static kc_kernel *reg(const char *name, void (*fn)(void), const char *sig) {
  kc_kernel_desc d = {.struct_size = sizeof d,
                      .name = name,
                      .kind = KC_KERNEL_CALL,
                      .host = fn,
                      .signature = sig};
  kc_kernel *k = NULL;
  KC_REQUIRE_OK(kc_kernel_register(&d, &k));
  return k;
}

static const struct {
  kc_schedule s;
  kc_index chunk;
} scheds[] = {{KC_SCHEDULE_STATIC, KC_AUTO},
              {KC_SCHEDULE_STATIC, 3},
              {KC_SCHEDULE_DYNAMIC, 7},
              {KC_SCHEDULE_DYNAMIC, KC_AUTO}};
#define NSCHED (sizeof scheds / sizeof scheds[0])

static void test_types(kc_kernel *k) {
  rec r;
  int target;
  void *p = &target;
  int32_t i = INT32_MIN;
  uint32_t u = UINT32_MAX;
  int64_t l = INT64_MIN + 1;
  uint64_t ul = UINT64_MAX - 1;
  float f = -0x1.fffffep127f;
  double d = 0x1.23456789abcdfp-1000;
  rec *rp = &r; /* args[k] points at parameter k's value: here a pointer */
  void *args[] = {&rp, &p, &i, &u, &l, &ul, &f, &d};
  for (size_t s = 0; s < NSCHED; s++) {
    memset(&r, 0, sizeof r);
    r.first = 1000;
    kc_policy pol = kc_range_schedule(-5, 4000, scheds[s].s, scheds[s].chunk);
    KC_CHECK_OK(kc_parallel_call("t-ffi record", k, &pol, 8, args));
    KC_CHECK_EQ_INT(r.calls, 1);
    KC_CHECK_EQ_PTR(r.p, p);
    KC_CHECK_EQ_INT(r.i, INT32_MIN);
    KC_CHECK_EQ_UINT(r.u, UINT32_MAX);
    KC_CHECK_EQ_INT(r.l, INT64_MIN + 1);
    KC_CHECK_EQ_UINT(r.ul, UINT64_MAX - 1);
    KC_CHECK(memcmp(&r.f, &f, sizeof f) == 0);
    KC_CHECK(memcmp(&r.d, &d, sizeof d) == 0);
    if (r.f != f || r.d != d)
      KC_INFO("  float %a (want %a), double %a (want %a)", (double)r.f,
              (double)f, r.d, d);
  }
}

static void test_axpy(kc_kernel *k) {
  const kc_index n = kc_test_large(100000);
  double *hx = kc_test_xmalloc((size_t)n * sizeof *hx);
  double *hy = kc_test_xmalloc((size_t)n * sizeof *hy);
  for (kc_index i = 0; i < n; i++) {
    hx[i] = (double)(i % 1000);
    hy[i] = 0.5;
  }
  double *x = kc_test_upload(hx, (size_t)n * sizeof *hx, "x");
  for (size_t s = 0; s < NSCHED; s++) {
    double *y = kc_test_upload(hy, (size_t)n * sizeof *hy, "y");
    double a = 2.0;
    long nn = (long)(n - 10); /* the last 10 stay 0.5: `n` arrives */
    void *args[] = {&y, &x, &a, &nn};
    /* The range runs past nn: the function's own bound must stop it. */
    kc_policy pol = kc_range_schedule(0, n, scheds[s].s, scheds[s].chunk);
    KC_CHECK_OK(kc_parallel_call(NULL, k, &pol, 4, args));
    double *got = kc_test_download(y, (size_t)n * sizeof *got);
    double *want = kc_test_xmalloc((size_t)n * sizeof *want);
    for (kc_index i = 0; i < n; i++)
      want[i] = i < nn ? 0.5 + 2.0 * (double)(i % 1000) : 0.5;
    KC_CHECK_ARRAY_EQ_DBL(got, want, n);
    free(got);
    free(want);
    KC_CHECK_OK(kc_free(y));
  }
  KC_CHECK_OK(kc_free(x));
  free(hx);
  free(hy);
}

static void test_many(kc_kernel *k) {
  const kc_index n = 777;
  int64_t *out = kc_test_dalloc((size_t)n * sizeof *out, "out");
  int32_t iv[4] = {-1, 2, -3, 4}, last = 99;
  uint32_t uv[4] = {10, 20, 30, 40};
  int64_t lv[4] = {-100, 200, -300, 400};
  uint64_t ulv[4] = {1000, 2000, 3000, 4000};
  float fv[4] = {5, 6, 7, 8};
  double dv[4] = {50, 60, 70, 80};
  void *args[26];
  int a = 0;
  args[a++] = &out;
  for (int g = 0; g < 4; g++) {
    args[a++] = &iv[g];
    args[a++] = &uv[g];
    args[a++] = &lv[g];
    args[a++] = &ulv[g];
    args[a++] = &fv[g];
    args[a++] = &dv[g];
  }
  args[a++] = &last;
  int64_t s = 0;
  for (int g = 0; g < 4; g++) {
    int w = 6 * g;
    s += (w + 1) * (int64_t)iv[g] + (w + 2) * (int64_t)uv[g] + (w + 3) * lv[g] +
         (w + 4) * (int64_t)ulv[g] + (w + 5) * (int64_t)fv[g] +
         (w + 6) * (int64_t)dv[g];
  }
  s += 25 * (int64_t)last;
  for (size_t sc = 0; sc < NSCHED; sc++) {
    KC_CHECK_OK(kc_memset(out, 0, (size_t)n * sizeof *out));
    kc_policy pol = kc_range_schedule(0, n, scheds[sc].s, scheds[sc].chunk);
    KC_CHECK_OK(kc_parallel_call(NULL, k, &pol, a, args));
    int64_t *got = kc_test_download(out, (size_t)n * sizeof *got);
    int64_t *want = kc_test_xmalloc((size_t)n * sizeof *want);
    for (kc_index i = 0; i < n; i++)
      want[i] = s + i;
    KC_CHECK_ARRAY_EQ_I64(got, want, n);
    free(got);
    free(want);
  }
  KC_CHECK_OK(kc_free(out));
}

static void test_none(kc_kernel *k) {
  static const kc_index ranges[][2] = {{0, 0}, {0, 1}, {-7, 3}, {5, 1005}};
  for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
    for (size_t s = 0; s < NSCHED; s++) {
      kc_index b = ranges[r][0], e = ranges[r][1], n = e - b;
      g_hits = calloc((size_t)n + 1, sizeof *g_hits);
      KC_REQUIRE(g_hits != NULL);
      g_base = b;
      kc_policy pol = kc_range_schedule(b, e, scheds[s].s, scheds[s].chunk);
      KC_CHECK_OK(kc_parallel_call(NULL, k, &pol, 0, NULL));
      int32_t *want = calloc((size_t)n + 1, sizeof *want);
      KC_REQUIRE(want != NULL);
      for (kc_index i = 0; i < n; i++)
        want[i] = 1;
      KC_CHECK_ARRAY_EQ_I32(g_hits, want, n);
      free(want);
      free(g_hits);
      g_hits = NULL;
    }
  }
}

static void test_errors(kc_kernel *record, kc_kernel *none) {
  rec r = {.first = -1};
  int target;
  void *p = &target;
  int32_t i = 1;
  uint32_t u = 2;
  int64_t l = 3;
  uint64_t ul = 4;
  float f = 5;
  double d = 6;
  rec *rp = &r;
  void *args[] = {&rp, &p, &i, &u, &l, &ul, &f, &d, &d};
  kc_policy pol = kc_range(0, 10);

  /* Argument count against the signature, both ways. */
  KC_CHECK_ERR(kc_parallel_call(NULL, record, &pol, 7, args), KC_ESIGNATURE);
  KC_CHECK_CONTAINS(kc_last_error(), "ppiIlLfd");
  KC_CHECK_ERR(kc_parallel_call(NULL, record, &pol, 9, args), KC_ESIGNATURE);
  KC_CHECK_ERR(kc_parallel_call(NULL, record, &pol, 0, NULL), KC_ESIGNATURE);
  KC_CHECK_ERR(kc_parallel_call(NULL, none, &pol, 1, args), KC_ESIGNATURE);
  KC_CHECK_ERR(kc_parallel_call(NULL, none, &pol, -1, args), KC_ESIGNATURE);
  KC_CHECK_EQ_INT(r.calls, 0);
  /* Missing argument arrays. */
  KC_CHECK_ERR(kc_parallel_call(NULL, record, &pol, 8, NULL), KC_EINVAL);
  void *holes[] = {&rp, &p, &i, NULL, &l, &ul, &f, &d};
  KC_CHECK_ERR(kc_parallel_call(NULL, record, &pol, 8, holes), KC_EINVAL);
  KC_CHECK_EQ_INT(r.calls, 0);
  /* The wrong launch call for each kind. */
  KC_CHECK_ERR(kc_parallel_for(NULL, record, &pol, NULL, 0), KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_call(NULL, NULL, &pol, 0, NULL), KC_EINVAL);
  /* Bad signatures are refused at registration. */
  kc_kernel_desc bad = {.struct_size = sizeof bad,
                        .name = "t_ffi_bad",
                        .kind = KC_KERNEL_CALL,
                        .host = (void (*)(void))k_none,
                        .signature = "pdx"};
  kc_kernel *k = NULL;
  KC_CHECK_ERR(kc_kernel_register(&bad, &k), KC_EINVAL);
  KC_CHECK_EQ_PTR(k, NULL);
  bad.signature = "pppppppppppppppppppppppppppppppppppppppppppppppppppppppp"
                  "pppppppppppp"; /* 68 > 64 parameters */
  KC_CHECK_ERR(kc_kernel_register(&bad, &k), KC_EINVAL);
  /* The same name twice. */
  bad.signature = "";
  bad.name = "t_ffi_record";
  KC_CHECK_ERR(kc_kernel_register(&bad, &k), KC_EEXIST);
  /* After all that, a good call still works. */
  r.first = 3;
  KC_CHECK_OK(kc_parallel_call(NULL, record, &pol, 8, args));
  KC_CHECK_EQ_INT(r.calls, 1);
  KC_CHECK_EQ_INT(r.l, 3);
}

int main(void) {
  /* CALL kernels may be registered before kc_init, like kcc's. */
  kc_kernel *record = reg("t_ffi_record", (void (*)(void))k_record, "ppiIlLfd");
  kc_kernel *axpy = reg("t_ffi_axpy", (void (*)(void))k_axpy, "ppdl");
  kc_kernel *many =
      reg("t_ffi_many", (void (*)(void))k_many, "piIlLfdiIlLfdiIlLfdiIlLfdi");
  kc_kernel *none = reg("t_ffi_none", (void (*)(void))k_none, "");

  kc_test_init_backend();
  if (kc_test_device_is_distinct())
    KC_SKIP("backend '%s' runs device code: these CALL kernels are host "
            "functions only (the device path passes PTX kernel parameters "
            "and is the CUDA plugin's test)",
            kc_backend_name());

  test_types(record);
  test_axpy(axpy);
  test_many(many);
  test_none(none);
  test_errors(record, none);
  return kc_test_finish();
}
