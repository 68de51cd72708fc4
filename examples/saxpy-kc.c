/* saxpy with a kernel written once in saxpy.kc.c and built by kcc.
 *
 * Compare with saxpy.c, which registers a hand-written host function: here
 * the kernel registered itself (kcc's constructor) and carries PTX, so the
 * same binary also runs on the CUDA backend.
 *   kcc -c saxpy.kc.c -o saxpy.kc.o
 *   cc -c saxpy-kc.c $(pkg-config --cflags kc)
 *   cc -o saxpy-kc saxpy-kc.o saxpy.kc.o $(pkg-config --libs kc)
 *   KC_BACKEND=threads ./saxpy-kc 1000000
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <kc/kernel.h>

#include "saxpy-kc.h"

KC_KERNEL_DECLARE(saxpy);

#define CHECK(call)                                                            \
  do {                                                                         \
    int rc_ = (call);                                                          \
    if (rc_ < 0) {                                                             \
      fprintf(stderr, "saxpy-kc: %s failed: %s (%s)\n", #call,                 \
              kc_strerror(rc_), kc_last_error());                              \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  kc_index n = argc > 1 ? atoll(argv[1]) : 1000000;
  if (n < 0) {
    fprintf(stderr, "usage: saxpy-kc [n]\n");
    return 2;
  }
  CHECK(kc_init());
  printf("backend: %s\n", kc_backend_name());

  size_t bytes = (size_t)n * sizeof(float);
  float *hx = malloc(bytes ? bytes : 1), *hy = malloc(bytes ? bytes : 1);
  if (!hx || !hy) {
    fprintf(stderr, "saxpy-kc: out of memory\n");
    return 1;
  }
  for (kc_index i = 0; i < n; i++) {
    hx[i] = (float)(i % 1000);
    hy[i] = 1.0f;
  }
  float *x, *y;
  CHECK(kc_malloc((void **)&x, bytes, KC_SPACE_DEVICE, "x"));
  CHECK(kc_malloc((void **)&y, bytes, KC_SPACE_DEVICE, "y"));
  CHECK(kc_memcpy(x, hx, bytes));
  CHECK(kc_memcpy(y, hy, bytes));

  saxpy_functor f = {2.0f, x, y};
  kc_policy range = kc_range(0, n);
  CHECK(kc_parallel_for("saxpy", KC_KERNEL(saxpy), &range, &f, sizeof f));
  CHECK(kc_memcpy(hy, y, bytes));

  kc_index bad = 0;
  for (kc_index i = 0; i < n; i++) {
    float want = 2.0f * (float)(i % 1000) + 1.0f;
    if (fabsf(hy[i] - want) > 1e-6f * fabsf(want) && bad++ < 5)
      fprintf(stderr, "saxpy-kc: y[%lld] = %g, expected %g\n", (long long)i,
              (double)hy[i], (double)want);
  }
  printf("saxpy-kc: n = %lld, %s\n", (long long)n,
         bad ? "MISMATCH" : "result correct");

  CHECK(kc_free(x));
  CHECK(kc_free(y));
  free(hx);
  free(hy);
  CHECK(kc_finalize());
  return bad ? 1 : 0;
}
