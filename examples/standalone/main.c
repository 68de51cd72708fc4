/* A minimal kc application: y = 2 x on the backend chosen at run time
 * (KC_BACKEND=serial|threads|openmp|cuda, or the best one available), then
 * the sum of y, checked on the host. */
#include <kc/kc.h>
#include <kc/kernel.h>

#include <stdio.h>
#include <stdlib.h>

#include "scale.h"

KC_KERNEL_DECLARE(scale);
KC_KERNEL_DECLARE(sum);

#define N 100000

static int fail(const char *what, int rc) {
  fprintf(stderr, "standalone: %s: %s (%s)\n", what, kc_strerror(rc),
          kc_last_error());
  return 1;
}

int main(void) {
  static double host[N];
  double *x = NULL, *y = NULL, total = 0;
  int rc;

  if ((rc = kc_init()) != 0)
    return fail("kc_init", rc);
  printf("kc %s, backend %s\n", kc_version(), kc_backend_name());

  for (int i = 0; i < N; i++)
    host[i] = i;
  /* Device memory: the GPU's on cuda, host memory on host backends. */
  if ((rc = kc_malloc((void **)&x, sizeof host, KC_SPACE_DEVICE, "x")) != 0 ||
      (rc = kc_malloc((void **)&y, sizeof host, KC_SPACE_DEVICE, "y")) != 0)
    return fail("kc_malloc", rc);
  if ((rc = kc_memcpy(x, host, sizeof host)) != 0)
    return fail("kc_memcpy", rc);

  kc_policy range = kc_range(0, N);
  scale_args sa = {2.0, x, y};
  if ((rc = kc_parallel_for("scale", KC_KERNEL(scale), &range, &sa,
                            sizeof sa)) != 0)
    return fail("scale", rc);
  sum_args su = {y};
  if ((rc = kc_parallel_reduce("sum", KC_KERNEL(sum), &range, &su, sizeof su,
                               &total)) != 0)
    return fail("sum", rc);

  /* 2 * (0 + 1 + ... + N-1), exact in a double. */
  double expect = (double)N * (N - 1);
  printf("sum of 2*x over %d elements: %.0f (expected %.0f)\n", N, total,
         expect);

  kc_free(x);
  kc_free(y);
  kc_finalize();
  if (total != expect) {
    fprintf(stderr, "standalone: wrong result\n");
    return 1;
  }
  return 0;
}
