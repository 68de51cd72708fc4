/* A dot product with a kernel written once in dot.kc.c and built by kcc.
 *
 * Compare with dot.c (a hand-registered host function).  The result goes
 * to an ordinary host variable, so kc_parallel_reduce returns once it is
 * there; pass a pointer into a kc allocation instead to get an
 * asynchronous reduction that kc_fence() completes.
 *   KC_BACKEND=openmp ./dot-kc 1000000
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <kc/kernel.h>

#include "dot-kc.h"

KC_KERNEL_DECLARE(dot);

#define CHECK(call)                                                            \
  do {                                                                         \
    int rc_ = (call);                                                          \
    if (rc_ < 0) {                                                             \
      fprintf(stderr, "dot-kc: %s failed: %s (%s)\n", #call, kc_strerror(rc_), \
              kc_last_error());                                                \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  kc_index n = argc > 1 ? atoll(argv[1]) : 1000000;
  if (n < 0) {
    fprintf(stderr, "usage: dot-kc [n]\n");
    return 2;
  }
  CHECK(kc_init());
  printf("backend: %s\n", kc_backend_name());

  /* Mirrored arrays: fill the host side, sync to the target (free on host
   * backends, where both sides are the same memory). */
  size_t bytes = (size_t)n * sizeof(double);
  kc_mirror *mx, *my;
  CHECK(kc_mirror_create(&mx, bytes, "x"));
  CHECK(kc_mirror_create(&my, bytes, "y"));
  double *hx = kc_mirror_host(mx), *hy = kc_mirror_host(my);
  for (kc_index i = 0; i < n; i++) {
    hx[i] = (double)(i % 100);
    hy[i] = 0.5;
  }
  CHECK(kc_mirror_modify_host(mx));
  CHECK(kc_mirror_modify_host(my));
  CHECK(kc_mirror_sync_target(mx));
  CHECK(kc_mirror_sync_target(my));

  dot_functor f = {kc_mirror_target(mx), kc_mirror_target(my)};
  kc_policy range = kc_range(0, n);
  double result = 0.0;
  CHECK(
      kc_parallel_reduce("dot", KC_KERNEL(dot), &range, &f, sizeof f, &result));

  /* Every term is a multiple of 0.5 below 50, so the sum is exact in
   * double whatever order the backend adds in. */
  double want = 0.0;
  for (kc_index i = 0; i < n; i++)
    want += (double)(i % 100) * 0.5;
  int ok = result == want;
  printf("dot-kc: n = %lld, result %.17g, expected %.17g: %s\n", (long long)n,
         result, want, ok ? "result correct" : "MISMATCH");

  CHECK(kc_mirror_destroy(mx));
  CHECK(kc_mirror_destroy(my));
  CHECK(kc_finalize());
  return ok ? 0 : 1;
}
