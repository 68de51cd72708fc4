/* saxpy with its kernel written once for every backend, in one file.
 *
 * Compare with saxpy.c, which registers a hand-written host function: here
 * the kernel registers itself (kcc's constructor) and carries PTX, so the
 * same binary also runs on the CUDA backend.  kcc's device pass sees only
 * the kernel: the program is inside #if !KC_DEVICE_PASS.  KC_CHECK_EXIT
 * makes a failed kc call print its error and exit.
 *   kcc -o saxpy-kc saxpy-kc.kc.c $(pkg-config --cflags --libs kc)
 *   KC_BACKEND=threads ./saxpy-kc 1000000
 */
#define KC_CHECK_EXIT
#include <kc/kernel.h>

KC_FOR_ARGS(saxpy, ((float, a), (const float *, x), (float *, y)), i,
            y[i] = a * x[i] + y[i])

#if !KC_DEVICE_PASS
#include <math.h>

int main(int argc, char **argv) {
  kc_index n = argc > 1 ? atoll(argv[1]) : 1000000;
  if (n < 0) {
    fprintf(stderr, "usage: saxpy-kc [n]\n");
    return 2;
  }
  kc_init();
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
  kc_malloc((void **)&x, bytes, KC_SPACE_DEVICE, "x");
  kc_malloc((void **)&y, bytes, KC_SPACE_DEVICE, "y");
  kc_memcpy(x, hx, bytes);
  kc_memcpy(y, hy, bytes);

  kc_run_for(saxpy, kc_range(0, n), .a = 2.0f, .x = x, .y = y);
  kc_memcpy(hy, y, bytes);

  kc_index bad = 0;
  for (kc_index i = 0; i < n; i++) {
    float want = 2.0f * (float)(i % 1000) + 1.0f;
    if (fabsf(hy[i] - want) > 1e-6f * fabsf(want) && bad++ < 5)
      fprintf(stderr, "saxpy-kc: y[%lld] = %g, expected %g\n", (long long)i,
              (double)hy[i], (double)want);
  }
  printf("saxpy-kc: n = %lld, %s\n", (long long)n,
         bad ? "MISMATCH" : "result correct");

  kc_free(x);
  kc_free(y);
  free(hx);
  free(hy);
  kc_finalize();
  return bad ? 1 : 0;
}
#endif
