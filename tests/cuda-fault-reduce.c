/* A reduction to a host variable whose kernel faults returns the fault
 * (KC_ESTICKY, the driver's reason, the kernel's name) and does not hang.
 * The CUDA backend waits for such a result on a word the kernel's last
 * block writes (plugins/cuda/launch.c, wait_done); a kernel that faults
 * never writes it, so the wait must also watch the stream.  Built twice:
 * cuda-fault-reduce (a sum) and, with KC_TEST_SCAN, cuda-fault-scan (a
 * scan with its total to the host, which waits for the stream).  Run as
 * <name>.cuda under the suite's time limit (not under compute-sanitizer:
 * the fault is on purpose); SKIPs without a CUDA device. */
#include <kc/kernel.h>

#include "cuda-functors.h"
#include "kc-test.h"

#ifdef KC_TEST_SCAN
KC_KERNEL_DECLARE(kc_cuda_iscan);
#define FAULT_KERNEL "kc_cuda_iscan"
#else
KC_KERNEL_DECLARE(kc_cuda_sum);
#define FAULT_KERNEL "kc_cuda_sum"
#endif

int main(void) {
  kc_test_init_backend();
  const kc_index n = 1 << 20;
#ifdef KC_TEST_SCAN
  int64_t *x = kc_test_dalloc(sizeof(int64_t) * (size_t)n, "x");
  int64_t *out = kc_test_dalloc(sizeof(int64_t) * (size_t)n, "out");
  int64_t *h = malloc(sizeof(int64_t) * (size_t)n);
  KC_CHECK(h != NULL);
  for (kc_index i = 0; i < n; i++)
    h[i] = i % 7;
  KC_CHECK_OK(kc_memcpy(x, h, sizeof(int64_t) * (size_t)n));
  kc_policy p = kc_range(0, n);
  /* A good scan first, three times: the kernel, the total and the wait
   * work, and the single pass's tile state is reused. */
  kc_xs good = {x, out, 0};
  int64_t want = 0;
  for (kc_index i = 0; i < n; i++)
    want += i % 7;
  for (int rep = 0; rep < 3; rep++) {
    int64_t s = -1;
    KC_CHECK_OK(kc_parallel_scan(NULL, KC_TEST_KERNEL(kc_cuda_iscan), &p, &good,
                                 sizeof good, &s));
    KC_CHECK_EQ_INT(s, want);
  }
  KC_CHECK_OK(kc_memcpy(h, out, sizeof(int64_t) * (size_t)n));
  int64_t run = 0;
  for (kc_index i = 0; i < n; i++) {
    run += i % 7;
    if (h[i] != run) {
      KC_CHECK_EQ_INT(h[i], run);
      break;
    }
  }
  /* The same through a bad pointer. */
  kc_xs bad = {(const int64_t *)(uintptr_t)0x10, out, 0};
  int64_t s = -1;
  int rc = kc_parallel_scan(NULL, KC_TEST_KERNEL(kc_cuda_iscan), &p, &bad,
                            sizeof bad, &s);
#define GOOD_AGAIN                                                             \
  kc_parallel_scan(NULL, KC_TEST_KERNEL(kc_cuda_iscan), &p, &good,             \
                   sizeof good, &s)
#else
  double *x = kc_test_dalloc(sizeof(double) * (size_t)n, "x");
  KC_CHECK_OK(kc_memset(x, 0, sizeof(double) * (size_t)n));
  kc_policy p = kc_range(0, n);
  /* A good reduction first: the kernel and the wait work. */
  kc_xd good = {x, 0};
  double s = -1.0;
  KC_CHECK_OK(kc_parallel_reduce(NULL, KC_TEST_KERNEL(kc_cuda_sum), &p, &good,
                                 sizeof good, &s));
  KC_CHECK_EQ_DBL(s, 0.0, 0);
  /* The same through a bad pointer. */
  kc_xd bad = {(const double *)(uintptr_t)0x10, 0};
  int rc = kc_parallel_reduce(NULL, KC_TEST_KERNEL(kc_cuda_sum), &p, &bad,
                              sizeof bad, &s);
#define GOOD_AGAIN                                                             \
  kc_parallel_reduce(NULL, KC_TEST_KERNEL(kc_cuda_sum), &p, &good,             \
                     sizeof good, &s)
#endif
  KC_CHECK_EQ_INT(rc, KC_ESTICKY);
  KC_CHECK_CONTAINS(kc_last_error(), "ILLEGAL_ADDRESS");
  KC_CHECK_CONTAINS(kc_last_error(), FAULT_KERNEL);
  KC_INFO("fault: %s", kc_last_error());
  KC_CHECK_ERR(GOOD_AGAIN, KC_ESTICKY);
#ifdef KC_TEST_SCAN
  free(h);
  kc_free(out);
#endif
  kc_free(x);
  kc_finalize();
  return kc_test_done();
}
