/* A reduction to a host variable whose kernel faults returns the fault
 * (KC_ESTICKY, the driver's reason, the kernel's name) and does not hang.
 * The CUDA backend waits for such a result on a word the kernel's last
 * block writes (plugins/cuda/launch.c, wait_done); a kernel that faults
 * never writes it, so the wait must also watch the stream.  Run as
 * cuda-fault-reduce.cuda under the suite's time limit (not under
 * compute-sanitizer: the fault is on purpose); SKIPs without a CUDA
 * device. */
#include <kc/kernel.h>

#include "cuda-functors.h"
#include "kc-test.h"

KC_KERNEL_DECLARE(kc_cuda_sum);

int main(void) {
  kc_test_init_backend();
  const kc_index n = 1 << 20;
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
  KC_CHECK_EQ_INT(rc, KC_ESTICKY);
  KC_CHECK_CONTAINS(kc_last_error(), "ILLEGAL_ADDRESS");
  KC_CHECK_CONTAINS(kc_last_error(), "kc_cuda_sum");
  KC_INFO("fault: %s", kc_last_error());
  KC_CHECK_ERR(kc_parallel_reduce(NULL, KC_TEST_KERNEL(kc_cuda_sum), &p, &good,
                                  sizeof good, &s),
               KC_ESTICKY);
  kc_free(x);
  kc_finalize();
  return kc_test_done();
}
