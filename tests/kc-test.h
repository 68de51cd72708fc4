/* kc — the test harness: checks that print both values and the place.
 *
 * Every test is one small C program run by automake's test driver.  Exit
 * codes follow automake: 0 pass, 1 fail, 77 skip (with the reason printed),
 * 99 hard error.  A test includes this header, calls kc_test_init() (or
 * kc_test_init_backend() for the conformance suite), runs its checks and
 * ends with `return kc_test_done();`.
 *
 *   KC_CHECK(cond)                   a condition
 *   KC_CHECK_EQ_INT(a, b)            integers (compared as long long)
 *   KC_CHECK_EQ_UINT(a, b)           unsigned (compared as unsigned long long)
 *   KC_CHECK_NE_INT(a, b), KC_CHECK_LE_INT(a, b), KC_CHECK_GE_INT(a, b)
 *   KC_CHECK_EQ_DBL(a, b, tol)       |a - b| <= tol (NaN never equal)
 *   KC_CHECK_EQ_PTR(a, b), KC_CHECK_NE_PTR(a, b)
 *   KC_CHECK_EQ_STR(a, b)            strcmp (NULL allowed, printed as NULL)
 *   KC_CHECK_CONTAINS(hay, needle)   strstr
 *   KC_CHECK_OK(call)                call returns 0; on failure prints the
 *                                    code's name, kc_strerror and
 *                                    kc_last_error()
 *   KC_CHECK_ERR(call, KC_E...)      call returns exactly that code and
 *                                    leaves a non-empty kc_last_error()
 *
 * A failed check prints `file:line: check failed: ...` with both values and
 * the test goes on (so one run shows every failure); kc_test_done() then
 * returns 1.  KC_REQUIRE*(...) variants stop the test at once: use them
 * where going on would crash (a NULL pointer, a failed allocation).
 *
 *   KC_SKIP("fmt", ...)              prints "SKIP: reason", exits 77
 *   KC_FAIL("fmt", ...)              prints the place and reason, counts a
 *                                    failure, goes on
 *   KC_INFO("fmt", ...)              prints a line to the log
 *
 * Several threads may call the checks at once (the counter is atomic); the
 * lines they print may interleave.
 */
#ifndef KC_TEST_H
#define KC_TEST_H

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kc/kc.h>

#define KC_TEST_SKIP 77
#define KC_TEST_HARD_ERROR 99

static atomic_int kc_test__failures;

#if defined(__GNUC__)
#define KC_TEST__PRINTF(a, b) __attribute__((format(printf, a, b)))
#define KC_TEST__UNUSED __attribute__((unused))
#else
#define KC_TEST__PRINTF(a, b)
#define KC_TEST__UNUSED
#endif

static KC_TEST__UNUSED
KC_TEST__PRINTF(3, 4) void kc_test__fail(const char *file, int line,
                                         const char *fmt, ...) {
  va_list ap;
  atomic_fetch_add(&kc_test__failures, 1);
  fprintf(stdout, "%s:%d: check failed: ", file, line);
  va_start(ap, fmt);
  vfprintf(stdout, fmt, ap);
  va_end(ap);
  fputc('\n', stdout);
  fflush(stdout);
}

/* Number of failed checks so far. */
static KC_TEST__UNUSED int kc_test_failures(void) {
  return atomic_load(&kc_test__failures);
}

/* What main() returns: 0 if every check passed, else 1. */
static KC_TEST__UNUSED int kc_test_done(void) {
  int n = atomic_load(&kc_test__failures);
  fflush(stderr);
  if (n) {
    printf("FAIL: %d check%s failed\n", n, n == 1 ? "" : "s");
    fflush(stdout);
    return 1;
  }
  printf("PASS\n");
  fflush(stdout);
  return 0;
}

#define KC_INFO(...)                                                           \
  do {                                                                         \
    printf("# " __VA_ARGS__);                                                  \
    putchar('\n');                                                             \
    fflush(stdout);                                                            \
  } while (0)

#define KC_SKIP(...)                                                           \
  do {                                                                         \
    printf("SKIP: " __VA_ARGS__);                                              \
    putchar('\n');                                                             \
    fflush(stdout);                                                            \
    exit(KC_TEST_SKIP);                                                        \
  } while (0)

#define KC_FAIL(...) kc_test__fail(__FILE__, __LINE__, __VA_ARGS__)

/* Stops the test after a failed REQUIRE. */
#define KC_TEST__STOP_IF_FAILED(before)                                        \
  do {                                                                         \
    if (kc_test_failures() != (before)) {                                      \
      printf("FAIL: stopping at %s:%d (a required check failed)\n", __FILE__,  \
             __LINE__);                                                        \
      fflush(stdout);                                                          \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#define KC_CHECK(cond)                                                         \
  do {                                                                         \
    if (!(cond))                                                               \
      kc_test__fail(__FILE__, __LINE__, "%s", #cond);                          \
  } while (0)

#define KC_TEST__CMP_INT(a, op, b)                                             \
  do {                                                                         \
    long long kc__a = (long long)(a), kc__b = (long long)(b);                  \
    if (!(kc__a op kc__b))                                                     \
      kc_test__fail(__FILE__, __LINE__, "%s %s %s: %lld vs %lld", #a, #op, #b, \
                    kc__a, kc__b);                                             \
  } while (0)

#define KC_CHECK_EQ_INT(a, b) KC_TEST__CMP_INT(a, ==, b)
#define KC_CHECK_NE_INT(a, b) KC_TEST__CMP_INT(a, !=, b)
#define KC_CHECK_LE_INT(a, b) KC_TEST__CMP_INT(a, <=, b)
#define KC_CHECK_GE_INT(a, b) KC_TEST__CMP_INT(a, >=, b)
#define KC_CHECK_LT_INT(a, b) KC_TEST__CMP_INT(a, <, b)
#define KC_CHECK_GT_INT(a, b) KC_TEST__CMP_INT(a, >, b)

#define KC_CHECK_EQ_UINT(a, b)                                                 \
  do {                                                                         \
    unsigned long long kc__a = (unsigned long long)(a),                        \
                       kc__b = (unsigned long long)(b);                        \
    if (kc__a != kc__b)                                                        \
      kc_test__fail(__FILE__, __LINE__, "%s == %s: %llu vs %llu", #a, #b,      \
                    kc__a, kc__b);                                             \
  } while (0)

#define KC_CHECK_EQ_DBL(a, b, tol)                                             \
  do {                                                                         \
    double kc__a = (double)(a), kc__b = (double)(b), kc__t = (double)(tol);    \
    if (!(fabs(kc__a - kc__b) <= kc__t) &&                                     \
        !(kc__a == kc__b)) /* equal infinities */                              \
      kc_test__fail(__FILE__, __LINE__, "%s == %s (tol %g): %.17g vs %.17g",   \
                    #a, #b, kc__t, kc__a, kc__b);                              \
  } while (0)

#define KC_CHECK_EQ_PTR(a, b)                                                  \
  do {                                                                         \
    const void *kc__a = (const void *)(a), *kc__b = (const void *)(b);         \
    if (kc__a != kc__b)                                                        \
      kc_test__fail(__FILE__, __LINE__, "%s == %s: %p vs %p", #a, #b, kc__a,   \
                    kc__b);                                                    \
  } while (0)

#define KC_CHECK_NE_PTR(a, b)                                                  \
  do {                                                                         \
    const void *kc__a = (const void *)(a), *kc__b = (const void *)(b);         \
    if (kc__a == kc__b)                                                        \
      kc_test__fail(__FILE__, __LINE__, "%s != %s: both %p", #a, #b, kc__a);   \
  } while (0)

#define KC_TEST__S(s) ((s) ? (s) : "(NULL)")

#define KC_CHECK_EQ_STR(a, b)                                                  \
  do {                                                                         \
    const char *kc__a = (a), *kc__b = (b);                                     \
    if (!kc__a || !kc__b ? kc__a != kc__b : strcmp(kc__a, kc__b) != 0)         \
      kc_test__fail(__FILE__, __LINE__, "%s == %s: \"%s\" vs \"%s\"", #a, #b,  \
                    KC_TEST__S(kc__a), KC_TEST__S(kc__b));                     \
  } while (0)

#define KC_CHECK_CONTAINS(hay, needle)                                         \
  do {                                                                         \
    const char *kc__h = (hay), *kc__n = (needle);                              \
    if (!kc__h || !kc__n || !strstr(kc__h, kc__n))                             \
      kc_test__fail(__FILE__, __LINE__,                                        \
                    "%s contains %s:\n    text:   \"%s\"\n    wanted: \"%s\"", \
                    #hay, #needle, KC_TEST__S(kc__h), KC_TEST__S(kc__n));      \
  } while (0)

#define KC_CHECK_NOT_CONTAINS(hay, needle)                                     \
  do {                                                                         \
    const char *kc__h = (hay), *kc__n = (needle);                              \
    if (kc__h && kc__n && strstr(kc__h, kc__n))                                \
      kc_test__fail(__FILE__, __LINE__,                                        \
                    "%s does not contain %s:\n    text:   \"%s\"\n"            \
                    "    unwanted: \"%s\"",                                    \
                    #hay, #needle, kc__h, kc__n);                              \
  } while (0)

/* Evaluates to the call's return code, so `if (KC_CHECK_OK(...) == 0)`
 * guards code that needs the call to have worked. */
#define KC_CHECK_OK(call) kc_test__check_ok((call), #call, __FILE__, __LINE__)

static KC_TEST__UNUSED int kc_test__check_ok(int rc, const char *what,
                                             const char *file, int line) {
  if (rc != 0)
    kc_test__fail(file, line, "%s returned %d (%s: %s): %s", what, rc,
                  kc_err_name(rc), kc_strerror(rc), kc_last_error());
  return rc;
}

/* The call must fail with exactly `code` and explain itself. */
#define KC_CHECK_ERR(call, code)                                               \
  kc_test__check_err((call), (code), #call, __FILE__, __LINE__)

static KC_TEST__UNUSED int kc_test__check_err(int rc, int want,
                                              const char *what,
                                              const char *file, int line) {
  if (rc != want)
    kc_test__fail(file, line,
                  "%s returned %d (%s), expected %d (%s); "
                  "last error: %s",
                  what, rc, kc_err_name(rc), want, kc_err_name(want),
                  kc_last_error());
  else if (kc_last_error() == NULL || kc_last_error()[0] == '\0')
    kc_test__fail(file, line,
                  "%s returned %s as expected but left "
                  "kc_last_error() empty",
                  what, kc_err_name(rc));
  return rc;
}

#define KC_REQUIRE(cond)                                                       \
  do {                                                                         \
    int kc__before = kc_test_failures();                                       \
    KC_CHECK(cond);                                                            \
    KC_TEST__STOP_IF_FAILED(kc__before);                                       \
  } while (0)

#define KC_REQUIRE_OK(call)                                                    \
  do {                                                                         \
    int kc__before = kc_test_failures();                                       \
    KC_CHECK_OK(call);                                                         \
    KC_TEST__STOP_IF_FAILED(kc__before);                                       \
  } while (0)

#define KC_REQUIRE_EQ_INT(a, b)                                                \
  do {                                                                         \
    int kc__before = kc_test_failures();                                       \
    KC_CHECK_EQ_INT(a, b);                                                     \
    KC_TEST__STOP_IF_FAILED(kc__before);                                       \
  } while (0)

/* Compares n elements and reports the first mismatch and how many there
 * were, instead of one line per element. */
#define KC_TEST__ARRAY(ctype, fmt, got, want, n, eq)                           \
  do {                                                                         \
    const ctype *kc__g = (got), *kc__w = (want);                               \
    long long kc__n = (long long)(n), kc__bad = 0, kc__first = -1;             \
    for (long long kc__i = 0; kc__i < kc__n; kc__i++)                          \
      if (!(eq(kc__g[kc__i], kc__w[kc__i])) && kc__bad++ == 0)                 \
        kc__first = kc__i;                                                     \
    if (kc__bad)                                                               \
      kc_test__fail(__FILE__, __LINE__,                                        \
                    "%s == %s: %lld of %lld elements differ, first at [%lld]:" \
                    " " fmt " vs " fmt,                                        \
                    #got, #want, kc__bad, kc__n, kc__first, kc__g[kc__first],  \
                    kc__w[kc__first]);                                         \
  } while (0)
#define KC_TEST__EQ(a, b) ((a) == (b))
#define KC_CHECK_ARRAY_EQ_I32(got, want, n)                                    \
  KC_TEST__ARRAY(int32_t, "%" PRId32, got, want, n, KC_TEST__EQ)
#define KC_CHECK_ARRAY_EQ_I64(got, want, n)                                    \
  KC_TEST__ARRAY(int64_t, "%" PRId64, got, want, n, KC_TEST__EQ)
#define KC_CHECK_ARRAY_EQ_DBL(got, want, n)                                    \
  KC_TEST__ARRAY(double, "%.17g", got, want, n, KC_TEST__EQ)
#define KC_CHECK_ARRAY_EQ_FLT(got, want, n)                                    \
  KC_TEST__ARRAY(float, "%.9g", got, want, n, KC_TEST__EQ)

/* ------------------------------------------------------------ kc set-up */

/* The backend this run of a conformance test is for (KC_BACKEND, set by
 * tests/run-backend), or NULL when the test runs on whatever kc picks. */
static KC_TEST__UNUSED const char *kc_test_backend(void) {
  const char *b = getenv("KC_BACKEND");
  return b && *b ? b : NULL;
}

/* A scale factor for the big cases: KC_TEST_SCALE (default 1) divides the
 * largest sizes, so sanitizer runs can stay short (.ci/run sets it). */
static KC_TEST__UNUSED kc_index kc_test_large(kc_index n) {
  const char *s = getenv("KC_TEST_SCALE");
  long d = s && *s ? strtol(s, NULL, 10) : 1;
  if (d < 1)
    d = 1;
  return n / d > 0 ? n / d : 1;
}

static KC_TEST__UNUSED void kc_test__print_info(void) {
  kc_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  if (kc_get_info(&info) == 0)
    printf("# kc %s, backend %s (%s), %d thread%s, concurrency %d, "
           "device %d of %d: %s\n",
           kc_version(), KC_TEST__S(info.backend), KC_TEST__S(info.path),
           info.num_threads, info.num_threads == 1 ? "" : "s", info.concurrency,
           info.device, info.device_count, info.dev.name);
  else
    printf("# kc_get_info failed: %s\n", kc_last_error());
  fflush(stdout);
}

/* Initialises kc for a conformance test.  KC_BACKEND names the backend
 * asked for (tests/run-backend sets it).  A backend that is present but has
 * no device (cuda on a machine without a GPU) is a SKIP with kc's reason;
 * any other failure is a FAIL, never a silent skip: run-backend has
 * already skipped backends that configure did not build.  The backend kc
 * then runs must be the one asked for. */
static KC_TEST__UNUSED void kc_test_init_backend(void) {
  const char *want = kc_test_backend();
  int rc;
  setvbuf(stdout, NULL, _IOLBF, 0);
  rc = kc_init();
  if (rc == KC_ENODEV)
    KC_SKIP("backend '%s' has no device here: %s", want ? want : "(auto)",
            kc_last_error());
  if (rc != 0) {
    printf("FAIL: kc_init() for backend '%s' returned %s: %s\n",
           want ? want : "(auto)", kc_err_name(rc), kc_last_error());
    exit(1);
  }
  if (want && strchr(want, ',') == NULL && strchr(want, '/') == NULL &&
      (kc_backend_name() == NULL || strcmp(kc_backend_name(), want) != 0)) {
    printf("FAIL: asked for backend '%s' but kc runs '%s'\n", want,
           KC_TEST__S(kc_backend_name()));
    exit(1);
  }
  kc_test__print_info();
}

/* Ends a conformance test: finalizes kc (checking that it worked) and
 * returns what main() should return. */
static KC_TEST__UNUSED int kc_test_finish(void) {
  if (kc_is_initialized())
    KC_CHECK_OK(kc_finalize());
  return kc_test_done();
}

/* 1 if the backend in use keeps device memory apart from host memory (so
 * device pointers must not be dereferenced on the host). */
static KC_TEST__UNUSED int kc_test_device_is_distinct(void) {
  kc_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  if (kc_get_info(&info) != 0)
    return 1; /* be safe: never touch device memory */
  return (info.spaces & (1u << KC_SPACE_DEVICE)) != 0;
}

/* Fills a kc_info for the backend in use (REQUIREs success). */
static KC_TEST__UNUSED kc_info kc_test_info(void) {
  kc_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  KC_REQUIRE_OK(kc_get_info(&info));
  return info;
}

/* A kernel from a .kc.c file, REQUIREd to be registered. */
#define KC_TEST_KERNEL(name)                                                   \
  kc_test__kernel(KC_KERNEL(name), #name, __FILE__, __LINE__)

static KC_TEST__UNUSED kc_kernel *
kc_test__kernel(kc_kernel *k, const char *name, const char *file, int line) {
  if (k == NULL) {
    kc_kernel *byname = NULL;
    int rc = kc_kernel_get(name, &byname);
    kc_test__fail(file, line,
                  "kernel %s is not registered (kc_kernel_get: %s: %s)", name,
                  kc_err_name(rc), kc_last_error());
    exit(1);
  }
  return k;
}

/* Calls the host's malloc and REQUIREs success. */
static KC_TEST__UNUSED void *kc_test_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    printf("FAIL: out of host memory (%zu bytes)\n", n);
    exit(KC_TEST_HARD_ERROR);
  }
  return p;
}

/* ------------------------------------------- memory the kernels can use */

/* kc_malloc in the backend's device space (host memory on host backends),
 * REQUIREd to work.  Free with kc_free. */
static KC_TEST__UNUSED void *kc_test_dalloc(size_t bytes, const char *label) {
  void *p = NULL;
  int rc = kc_malloc(&p, bytes, KC_SPACE_DEVICE, label);
  if (rc != 0 || p == NULL) {
    printf("FAIL: kc_malloc(%zu, device, %s): %s: %s\n", bytes, label,
           kc_err_name(rc), kc_last_error());
    exit(1);
  }
  return p;
}

/* kc_memcpy, REQUIREd to work (the copy direction is kc's to infer). */
#define KC_TEST_COPY(dst, src, bytes) KC_REQUIRE_OK(kc_memcpy(dst, src, bytes))

/* A device copy of `bytes` host bytes. */
static KC_TEST__UNUSED void *kc_test_upload(const void *host, size_t bytes,
                                            const char *label) {
  void *d = kc_test_dalloc(bytes, label);
  if (bytes)
    KC_TEST_COPY(d, host, bytes);
  return d;
}

/* A malloc'd host copy of `bytes` device bytes (fences first). */
static KC_TEST__UNUSED void *kc_test_download(const void *dev, size_t bytes) {
  void *h = kc_test_xmalloc(bytes);
  KC_REQUIRE_OK(kc_fence());
  if (bytes)
    KC_TEST_COPY(h, dev, bytes);
  return h;
}

/* A deterministic pseudo-random sequence (xorshift64*), the same on every
 * machine, so failures reproduce. */
typedef struct kc_test_rng {
  uint64_t s;
} kc_test_rng;

static KC_TEST__UNUSED uint64_t kc_test_rand(kc_test_rng *r) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return r->s * 2685821657736338717ull;
}

/* Uniform in [lo, hi]. */
static KC_TEST__UNUSED int64_t kc_test_rand_range(kc_test_rng *r, int64_t lo,
                                                  int64_t hi) {
  return lo + (int64_t)(kc_test_rand(r) % (uint64_t)(hi - lo + 1));
}

#endif /* KC_TEST_H */
