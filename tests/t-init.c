/* Conformance: the runtime's life cycle and its error reporting.
 *
 * Before kc_init every call (but the documented few) returns KC_ENOINIT
 * with a detail and crashes nothing; kc_init / kc_finalize are reference
 * counted; after the last kc_finalize the calls fail again; kc starts
 * again after that; the error list (names, messages) is complete and
 * kc_get_info describes the backend asked for. */
#include <stddef.h>

#include <kc/backend.h>
#include <kc/kernel.h>

#include "kc-test.h"
#include "kernels/functors.h"

KC_KERNEL_DECLARE(kt_fill);
KC_KERNEL_DECLARE(kt_sum_index);

/* Every call that needs kc_init must say so, with a detail. */
static void check_uninitialized(const char *when) {
  int local = 0;
  void *p = &local;
  kc_alloc_info ai;
  kc_info info;
  kc_mirror *m = NULL;
  kc_policy pol = kc_range(0, 10);
  kt_fill f = {NULL, 0, 0, 0};
  int64_t r = 0;
  const int failures = kc_test_failures();

  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  KC_CHECK_EQ_INT(kc_is_initialized(), 0);
  KC_CHECK_EQ_PTR(kc_backend_name(), NULL);
  KC_CHECK_ERR(kc_finalize(), KC_ENOINIT);
  KC_CHECK_ERR(kc_fence(), KC_ENOINIT);
  KC_CHECK_ERR(kc_get_info(&info), KC_ENOINIT);
  KC_CHECK_ERR(kc_malloc(&p, 16, KC_SPACE_HOST, "x"), KC_ENOINIT);
  KC_CHECK_ERR(kc_free(&local), KC_ENOINIT);
  KC_CHECK_ERR(kc_retain(&local), KC_ENOINIT);
  KC_CHECK_ERR(kc_pointer_info(&local, &ai), KC_ENOINIT);
  KC_CHECK_ERR(kc_memcpy(&r, &local, sizeof local), KC_ENOINIT);
  KC_CHECK_ERR(kc_memcpy_async(&r, &local, sizeof local), KC_ENOINIT);
  KC_CHECK_ERR(kc_memset(&local, 0, sizeof local), KC_ENOINIT);
  KC_CHECK_ERR(kc_mirror_create(&m, 16, "x"), KC_ENOINIT);
  KC_CHECK_ERR(kc_parallel_for("x", KC_KERNEL(kt_fill), &pol, &f, sizeof f),
               KC_ENOINIT);
  KC_CHECK_ERR(
      kc_parallel_reduce("x", KC_KERNEL(kt_sum_index), &pol, &f, sizeof f, &r),
      KC_ENOINIT);
  KC_CHECK_ERR(
      kc_parallel_scan("x", KC_KERNEL(kt_sum_index), &pol, &f, sizeof f, &r),
      KC_ENOINIT);
  KC_CHECK_ERR(kc_parallel_call("x", KC_KERNEL(kt_fill), &pol, 0, NULL),
               KC_ENOINIT);
  KC_CHECK_ERR(kc_region_push("x"), KC_ENOINIT);
  KC_CHECK_ERR(kc_region_pop(), KC_ENOINIT);
  KC_CHECK_CONTAINS(kc_last_error(), "kc_init");
  KC_CHECK_EQ_INT(local, 0);
  KC_CHECK_EQ_INT(r, 0);
  /* What works without kc_init. */
  KC_CHECK_EQ_STR(kc_version(), KC_VERSION_STRING);
  KC_CHECK_EQ_STR(kc_err_name(KC_ENOINIT), "KC_ENOINIT");
  if (kc_test_failures() != failures)
    KC_INFO("  ... %s", when);
}

static void test_errors_list(void) {
#define CHECK_ERR_ENTRY(name, code, msg)                                       \
  KC_CHECK_EQ_STR(kc_err_name(code), "KC_E" #name);                            \
  KC_CHECK_EQ_STR(kc_strerror(code), msg);
  KC_ERRNO_MAP(CHECK_ERR_ENTRY)
#undef CHECK_ERR_ENTRY
  KC_CHECK_EQ_STR(kc_strerror(-12345), "unknown error");
  KC_CHECK_EQ_STR(kc_err_name(-12345), "KC_E?");
  KC_CHECK_EQ_STR(kc_strerror(12345), "unknown error");
  KC_CHECK(kc_strerror(0) != NULL);
  KC_CHECK(kc_err_name(0) != NULL);
}

static void test_version(void) {
  char want[64];
  snprintf(want, sizeof want, "%d.%d.%d", KC_VERSION_MAJOR, KC_VERSION_MINOR,
           KC_VERSION_PATCH);
  KC_CHECK_EQ_STR(kc_version(), want);
  KC_CHECK_EQ_STR(KC_VERSION_STRING, want);
  KC_CHECK_EQ_INT(KC_VERSION_HEX, KC_VERSION_MAJOR * 10000 +
                                      KC_VERSION_MINOR * 100 +
                                      KC_VERSION_PATCH);
}

static void test_info(void) {
  const char *want = kc_test_backend();
  kc_info info;

  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  KC_REQUIRE_OK(kc_get_info(&info));
  KC_CHECK_EQ_STR(info.backend, kc_backend_name());
  if (want)
    KC_CHECK_EQ_STR(info.backend, want);
  KC_CHECK(info.path != NULL && info.path[0] != '\0');
  if (info.backend && strcmp(info.backend, "serial") == 0) {
    KC_CHECK_EQ_STR(info.path, "built-in");
    KC_CHECK_EQ_INT(info.num_threads, 1);
  } else if (info.path && info.backend) {
    char file[64];
    snprintf(file, sizeof file, "/libkc-%s.so", info.backend);
    KC_CHECK_CONTAINS(info.path, file);
  }
  KC_CHECK_EQ_INT(info.abi_major, KC_BACKEND_ABI_MAJOR);
  KC_CHECK_GE_INT(info.num_threads, 1);
  KC_CHECK_GE_INT(info.concurrency, 1);
  KC_CHECK_GE_INT(info.device_count, 1);
  KC_CHECK(info.spaces & (1u << KC_SPACE_HOST));
  KC_CHECK(info.dev.name[0] != '\0');
  if (info.device >= 0)
    KC_CHECK_LT_INT(info.device, info.device_count);

  /* A caller built against an older, smaller kc_info: kc fills only what
   * that caller has and writes nothing past it. */
  {
    unsigned char buf[sizeof(kc_info) + 16];
    kc_info *small = (kc_info *)buf;
    size_t n = offsetof(kc_info, dev);
    memset(buf, 0xa5, sizeof buf);
    small->struct_size = n;
    KC_CHECK_OK(kc_get_info(small));
    KC_CHECK_EQ_STR(small->backend, info.backend);
    size_t bad = 0;
    for (size_t k = n; k < sizeof buf; k++)
      bad += buf[k] != 0xa5;
    KC_CHECK_EQ_UINT(bad, 0);
  }
  KC_CHECK_ERR(kc_get_info(NULL), KC_EINVAL);
  memset(&info, 0, sizeof info);
  info.struct_size = 0;
  KC_CHECK_ERR(kc_get_info(&info), KC_EINVAL);
}

/* A little work, to show the runtime is usable. */
static void do_work(const char *when) {
  enum { N = 1000 };
  int64_t *d = NULL, sum = -1;
  kc_policy p = kc_range(0, N);
  const int failures = kc_test_failures();
  KC_REQUIRE_OK(kc_malloc((void **)&d, N * sizeof *d, KC_SPACE_DEVICE, "w"));
  kt_fill f = {d, 0, 2, 1};
  KC_CHECK_OK(
      kc_parallel_for("work", KC_TEST_KERNEL(kt_fill), &p, &f, sizeof f));
  kt_xi64 fs = {NULL, 0};
  KC_CHECK_OK(kc_parallel_reduce("work", KC_TEST_KERNEL(kt_sum_index), &p, &fs,
                                 sizeof fs, &sum));
  KC_CHECK_EQ_INT(sum, (int64_t)N * (N - 1) / 2);
  int64_t *h = kc_test_download(d, N * sizeof *d);
  int bad = 0;
  for (int k = 0; k < N; k++)
    bad += h[k] != 2 * k + 1;
  KC_CHECK_EQ_INT(bad, 0);
  free(h);
  KC_CHECK_OK(kc_free(d));
  if (kc_test_failures() != failures)
    KC_INFO("  ... %s", when);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  test_errors_list();
  test_version();
  check_uninitialized("before the first kc_init");

  /* Kernels registered by constructors before main are there already. */
  KC_CHECK(KC_KERNEL(kt_fill) != NULL);
  {
    kc_kernel *k = NULL;
    KC_CHECK_OK(kc_kernel_get("kt_fill", &k));
    KC_CHECK_EQ_PTR(k, KC_KERNEL(kt_fill));
    KC_CHECK_EQ_STR(kc_kernel_name(k), "kt_fill");
  }

  kc_test_init_backend();
  KC_CHECK_EQ_INT(kc_is_initialized(), 1);
  test_info();
  do_work("first init");
  KC_CHECK_OK(kc_region_push("t-init region"));
  KC_CHECK_OK(kc_region_pop());
  KC_CHECK_ERR(kc_region_pop(), KC_EINVAL); /* a pop without a push */
  KC_CHECK_ERR(kc_region_push(NULL), KC_EINVAL);

  /* Reference counting: three more inits need three more finalizes. */
  for (int k = 0; k < 3; k++)
    KC_CHECK_OK(kc_init());
  for (int k = 0; k < 3; k++) {
    KC_CHECK_OK(kc_finalize());
    KC_CHECK_EQ_INT(kc_is_initialized(), 1);
    do_work("while references remain");
  }
  /* A live allocation at the last finalize is freed by it. */
  {
    void *left = NULL;
    KC_CHECK_OK(kc_malloc(&left, 100, KC_SPACE_HOST, "left for finalize"));
  }
  KC_CHECK_OK(kc_finalize());
  check_uninitialized("after the last kc_finalize");

  /* And again: kc starts anew on the same backend. */
  for (int round = 0; round < 3; round++) {
    const char *want = kc_test_backend();
    KC_REQUIRE_OK(kc_init());
    KC_CHECK_EQ_INT(kc_is_initialized(), 1);
    if (want)
      KC_CHECK_EQ_STR(kc_backend_name(), want);
    do_work("after a restart");
    KC_CHECK_OK(kc_finalize());
  }
  check_uninitialized("after a restart and finalize");
  return kc_test_done();
}
