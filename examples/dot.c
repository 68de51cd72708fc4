/* A dot product with a plain C host function and the built-in sum reducer.
 *
 * The kernel receives a chunk [b, e) and an accumulator already holding a
 * value; it adds its chunk's partial sum.  kc joins the per-thread sums.
 * Run it on any backend:  KC_BACKEND=openmp ./dot
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <kc/kc.h>

typedef struct dot_args {
  const double *x;
  const double *y;
} dot_args;

static void dot_host(const void *functor, kc_index b, kc_index e, void *acc) {
  const dot_args *f = functor;
  double s = 0.0;
  for (kc_index i = b; i < e; i++)
    s += f->x[i] * f->y[i];
  *(double *)acc += s;
}

int main(int argc, char **argv) {
  kc_index n = argc > 1 ? atoll(argv[1]) : 1000000;
  if (n < 0) {
    fprintf(stderr, "usage: dot [n]\n");
    return 2;
  }
  /* The kernel below is host code only (no PTX), so unless the user chose
   * a backend, prefer the host ones: KC_BACKEND may be a preference list,
   * and kc takes the first that works.  (The dot-kc example has the same
   * kernel written once for host and GPU with kcc.) */
  setenv("KC_BACKEND", "openmp,threads,serial", 0);
  kc_check(kc_init());
  printf("backend: %s\n", kc_backend_name());

  kc_kernel_desc desc = {
      .struct_size = sizeof desc,
      .name = "dot",
      .kind = KC_KERNEL_REDUCE,
      .host = (void (*)(void))dot_host,
      .reducer = {.op = KC_REDUCE_SUM, .type = KC_DOUBLE},
  };
  kc_kernel *dot;
  kc_check(kc_kernel_register(&desc, &dot));

  /* A mirrored pair of arrays: fill the host side, sync to the target.  On
   * host backends both sides are the same memory and the sync is free. */
  size_t bytes = (size_t)n * sizeof(double);
  kc_mirror *mx, *my;
  kc_check(kc_mirror_create(&mx, bytes, "x"));
  kc_check(kc_mirror_create(&my, bytes, "y"));
  double *hx = kc_mirror_host(mx), *hy = kc_mirror_host(my);
  for (kc_index i = 0; i < n; i++) {
    hx[i] = (double)(i % 7);
    hy[i] = 0.5;
  }
  kc_check(kc_mirror_modify_host(mx));
  kc_check(kc_mirror_modify_host(my));
  kc_check(kc_mirror_sync_target(mx));
  kc_check(kc_mirror_sync_target(my));

  dot_args args = {kc_mirror_target(mx), kc_mirror_target(my)};
  kc_policy range = kc_range(0, n);
  double result = -1.0;
  int rc = kc_parallel_reduce("dot", dot, &range, &args, sizeof args, &result);
  if (rc == KC_ENOKERNEL) {
    /* A device backend needs device code, which a C function pointer is
     * not: say so instead of a bare error. */
    fprintf(stderr,
            "dot: backend '%s' cannot run this example's host-only kernel "
            "(%s); run it with KC_BACKEND=openmp, threads or serial, or "
            "use dot-kc\n",
            kc_backend_name(), kc_last_error());
    return 1;
  }
  kc_check(rc);

  /* The exact answer: sum of (i mod 7) * 0.5, in integers. */
  long long full = n / 7, rest = n % 7;
  double want = 0.5 * (double)(full * 21 + rest * (rest - 1) / 2);
  int ok = fabs(result - want) <= 1e-12 * (fabs(want) + 1.0);
  printf("dot: n = %lld, result %.17g, expected %.17g, %s\n", (long long)n,
         result, want, ok ? "result correct" : "MISMATCH");

  kc_check(kc_mirror_destroy(mx));
  kc_check(kc_mirror_destroy(my));
  kc_check(kc_finalize());
  return ok ? 0 : 1;
}
