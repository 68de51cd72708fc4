/* saxpy and a dot product, kernels and program in one file.
 *
 *   kcc -o saxpy-dot saxpy-dot.kc.c $(pkg-config --cflags --libs kc)
 *   KC_BACKEND=threads ./saxpy-dot 1000000
 *
 * kcc compiles the file for the host and, with nvcc, to PTX; the device
 * pass sees only what is outside #if !KC_DEVICE_PASS.  KC_CHECK_EXIT makes
 * every kc call print its error and exit the program. */
#define KC_CHECK_EXIT
#include <kc/kernel.h>

KC_FOR_ARGS(saxpy, ((float, a), (const float *, x), (float *, y)), i,
            y[i] = a * x[i] + y[i])

KC_REDUCE_SUM_ARGS(dot, ((const float *, x), (const float *, y)), i, double,
                   acc, acc += (double)x[i] * y[i])

#if !KC_DEVICE_PASS
#include <stdlib.h>

int main(int argc, char **argv) {
  kc_index n = argc > 1 ? atoll(argv[1]) : 1000000;
  kc_init();
  printf("backend: %s\n", kc_backend_name());
  float *x, *y;
  kc_malloc((void **)&x, n * sizeof *x, KC_SPACE_MANAGED, "x");
  kc_malloc((void **)&y, n * sizeof *y, KC_SPACE_MANAGED, "y");
  for (kc_index i = 0; i < n; i++) {
    x[i] = (float)(i % 8);
    y[i] = 1.0f;
  }
  kc_run_for(saxpy, kc_range(0, n), .a = 2.0f, .x = x, .y = y);
  double d = kc_reduce(dot, kc_range(0, n), .x = x, .y = y);
  kc_fence();
  double want = 0;
  for (kc_index i = 0; i < n; i++)
    want += (double)(i % 8) * (2.0 * (i % 8) + 1.0);
  printf("dot = %.17g (%s)\n", d, d == want ? "correct" : "WRONG");
  kc_free(x);
  kc_free(y);
  kc_finalize();
  return d == want ? 0 : 1;
}
#endif
