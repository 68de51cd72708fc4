/* saxpy with a plain C host function: y = a * x + y.
 *
 * The smallest complete kc program: register a kernel by hand (no kcc),
 * allocate in the device space, copy in, launch, copy out, check.
 * Run it on any backend:  KC_BACKEND=threads ./saxpy
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <kc/kc.h>

/* The functor: what the kernel needs, copied at launch. */
typedef struct saxpy_args {
  float a;
  const float *x;
  float *y;
} saxpy_args;

/* The host entry runs a contiguous chunk [b, e), so the compiler can
 * vectorise the loop. */
static void saxpy_host(const void *functor, kc_index b, kc_index e) {
  const saxpy_args *f = functor;
  for (kc_index i = b; i < e; i++)
    f->y[i] = f->a * f->x[i] + f->y[i];
}

int main(int argc, char **argv) {
  kc_index n = argc > 1 ? atoll(argv[1]) : 1000000;
  if (n < 0) {
    fprintf(stderr, "usage: saxpy [n]\n");
    return 2;
  }
  /* The kernel below is host code only (no PTX), so unless the user chose
   * a backend, prefer the host ones: KC_BACKEND may be a preference list,
   * and kc takes the first that works.  (The saxpy-kc example has the same
   * kernel written once for host and GPU with kcc.) */
  setenv("KC_BACKEND", "openmp,threads,serial", 0);
  kc_check(kc_init());
  printf("backend: %s\n", kc_backend_name());

  kc_kernel_desc desc = {
      .struct_size = sizeof desc,
      .name = "saxpy",
      .kind = KC_KERNEL_FOR,
      .host = (void (*)(void))saxpy_host,
  };
  kc_kernel *saxpy;
  kc_check(kc_kernel_register(&desc, &saxpy));

  size_t bytes = (size_t)n * sizeof(float);
  float *hx = malloc(bytes ? bytes : 1), *hy = malloc(bytes ? bytes : 1);
  if (!hx || !hy) {
    fprintf(stderr, "saxpy: out of memory\n");
    return 1;
  }
  for (kc_index i = 0; i < n; i++) {
    hx[i] = (float)(i % 1000);
    hy[i] = 1.0f;
  }
  float *x, *y;
  kc_check(kc_malloc((void **)&x, bytes, KC_SPACE_DEVICE, "x"));
  kc_check(kc_malloc((void **)&y, bytes, KC_SPACE_DEVICE, "y"));
  kc_check(kc_memcpy(x, hx, bytes));
  kc_check(kc_memcpy(y, hy, bytes));

  saxpy_args args = {2.0f, x, y};
  kc_policy range = kc_range(0, n);
  int rc = kc_parallel_for("saxpy", saxpy, &range, &args, sizeof args);
  if (rc == KC_ENOKERNEL) {
    /* A device backend needs device code, which a C function pointer is
     * not: say so instead of a bare error. */
    fprintf(stderr,
            "saxpy: backend '%s' cannot run this example's host-only kernel "
            "(%s); run it with KC_BACKEND=openmp, threads or serial, or "
            "use saxpy-kc\n",
            kc_backend_name(), kc_last_error());
    return 1;
  }
  kc_check(rc);
  kc_check(kc_memcpy(hy, y, bytes));

  kc_index bad = 0;
  for (kc_index i = 0; i < n; i++) {
    float want = 2.0f * (float)(i % 1000) + 1.0f;
    if (fabsf(hy[i] - want) > 1e-6f * fabsf(want)) {
      if (bad++ < 5)
        fprintf(stderr, "saxpy: y[%lld] = %g, expected %g\n", (long long)i,
                (double)hy[i], (double)want);
    }
  }
  printf("saxpy: n = %lld, %s\n", (long long)n,
         bad ? "MISMATCH" : "result correct");

  kc_check(kc_free(x));
  kc_check(kc_free(y));
  free(hx);
  free(hy);
  kc_check(kc_finalize());
  return bad ? 1 : 0;
}
