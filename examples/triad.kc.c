/* STREAM triad (a = b + s * c) with validation, kernels and program in one
 * file:
 *   kcc -O2 -o triad triad.kc.c $(pkg-config --cflags --libs kc) -lm */
#define KC_CHECK_EXIT
#include <math.h>

#include <kc/kernel.h>

KC_FOR_ARGS(init, ((double *, b), (double *, c)), i, {
  b[i] = 1.0;
  c[i] = 2.0;
})
KC_FOR_ARGS(triad,
            ((double *, a), (const double *, b), (const double *, c),
             (double, s)),
            i, a[i] = b[i] + s * c[i])
KC_REDUCE_MAX_ARGS(check, ((const double *, a), (double, want)), i, double, acc,
                   acc = fmax(acc, fabs(a[i] - want)))

#if !KC_DEVICE_PASS
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  kc_init();
  printf("backend: %s\n", kc_backend_name());
  double *a, *b, *c;
  kc_malloc((void **)&a, n * sizeof *a, KC_SPACE_DEVICE, "a");
  kc_malloc((void **)&b, n * sizeof *b, KC_SPACE_DEVICE, "b");
  kc_malloc((void **)&c, n * sizeof *c, KC_SPACE_DEVICE, "c");
  const double s = 3.0;
  kc_run_for(init, kc_range(0, n), .b = b, .c = c);
  kc_run_for(triad, kc_range(0, n), .a = a, .b = b, .c = c, .s = s);
  double err = kc_reduce(check, kc_range(0, n), .a = a, .want = 1.0 + s * 2.0);
  printf("triad: n = %ld, max error %g: %s\n", n, err,
         err == 0 ? "ok" : "FAILED");
  kc_free(a);
  kc_free(b);
  kc_free(c);
  kc_finalize();
  return err != 0;
}
#endif
