/* A dot product with its kernel written once for every backend, in one
 * file: the built-in sum reducer.
 *
 * Compare with dot.c (a hand-registered host function).  kc_reduce returns
 * the value (the launch blocks until it is there); kc_run_reduce with a
 * pointer into a kc allocation gives an asynchronous reduction that
 * kc_fence() completes.  The body adds index i's term to `acc`; kc gives
 * each thread (GPU: each CUDA thread, host: each chunk) its own
 * accumulator and joins them.
 *   kcc -o dot-kc dot-kc.kc.c $(pkg-config --cflags --libs kc)
 *   KC_BACKEND=openmp ./dot-kc 1000000
 */
#define KC_CHECK_EXIT
#include <kc/kernel.h>

KC_REDUCE_SUM_ARGS(dot, ((const double *, x), (const double *, y)), i, double,
                   acc, acc += x[i] * y[i])

#if !KC_DEVICE_PASS
int main(int argc, char **argv) {
  kc_index n = argc > 1 ? atoll(argv[1]) : 1000000;
  if (n < 0) {
    fprintf(stderr, "usage: dot-kc [n]\n");
    return 2;
  }
  kc_init();
  printf("backend: %s\n", kc_backend_name());

  /* Mirrored arrays: fill the host side, sync to the target (free on host
   * backends, where both sides are the same memory). */
  size_t bytes = (size_t)n * sizeof(double);
  kc_mirror *mx, *my;
  kc_mirror_create(&mx, bytes, "x");
  kc_mirror_create(&my, bytes, "y");
  double *hx = kc_mirror_host(mx), *hy = kc_mirror_host(my);
  for (kc_index i = 0; i < n; i++) {
    hx[i] = (double)(i % 100);
    hy[i] = 0.5;
  }
  kc_mirror_modify_host(mx);
  kc_mirror_modify_host(my);
  kc_mirror_sync_target(mx);
  kc_mirror_sync_target(my);

  double result = kc_reduce(dot, kc_range(0, n), .x = kc_mirror_target(mx),
                            .y = kc_mirror_target(my));

  /* Every term is a multiple of 0.5 below 50, so the sum is exact in
   * double whatever order the backend adds in. */
  double want = 0.0;
  for (kc_index i = 0; i < n; i++)
    want += (double)(i % 100) * 0.5;
  int ok = result == want;
  printf("dot-kc: n = %lld, result %.17g, expected %.17g: %s\n", (long long)n,
         result, want, ok ? "result correct" : "MISMATCH");

  kc_mirror_destroy(mx);
  kc_mirror_destroy(my);
  kc_finalize();
  return ok ? 0 : 1;
}
#endif
