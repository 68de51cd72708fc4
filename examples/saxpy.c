/* saxpy and a dot product with plain C host functions: y = a * x + y, then
 * x . y with the built-in sum reducer.
 *
 * The smallest complete kc program without kcc: register kernels by hand,
 * keep the arrays in mirrors (a host side and a target side, the same
 * memory on host backends), launch, check.  A for kernel receives a chunk
 * [b, e); a reduce kernel receives a chunk and an accumulator already
 * holding a value, to which it adds its chunk's part (kc joins them).
 * Run it on any host backend:  KC_BACKEND=threads ./saxpy
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <kc/kc.h>

/* The functors: what the kernels need, copied at launch. */
typedef struct saxpy_args {
  double a;
  const double *x;
  double *y;
} saxpy_args;

typedef struct dot_args {
  const double *x;
  const double *y;
} dot_args;

/* Contiguous chunks, so the compiler can vectorise the loops. */
static void saxpy_host(const void *functor, kc_index b, kc_index e) {
  const saxpy_args *f = functor;
  for (kc_index i = b; i < e; i++)
    f->y[i] = f->a * f->x[i] + f->y[i];
}

static void dot_host(const void *functor, kc_index b, kc_index e, void *acc) {
  const dot_args *f = functor;
  double s = 0.0;
  for (kc_index i = b; i < e; i++)
    s += f->x[i] * f->y[i];
  *(double *)acc += s;
}

/* A device backend needs device code, which a C function pointer is not:
 * say so instead of a bare error. */
static int host_only(int rc) {
  if (rc == KC_ENOKERNEL) {
    fprintf(stderr,
            "saxpy: backend '%s' cannot run this example's host-only "
            "kernels (%s); run it with KC_BACKEND=openmp, threads or "
            "serial, or use saxpy-kc and dot-kc\n",
            kc_backend_name(), kc_last_error());
    exit(1);
  }
  return kc_check(rc);
}

int main(int argc, char **argv) {
  kc_index n = argc > 1 ? atoll(argv[1]) : 1000000;
  if (n < 0) {
    fprintf(stderr, "usage: saxpy [n]\n");
    return 2;
  }
  /* The kernels are host code only (no PTX), so unless the user chose a
   * backend, prefer the host ones: KC_BACKEND may be a preference list,
   * and kc takes the first that works. */
  setenv("KC_BACKEND", "openmp,threads,serial", 0);
  kc_check(kc_init());
  printf("backend: %s\n", kc_backend_name());

  kc_kernel_desc sd = {.struct_size = sizeof sd,
                       .name = "saxpy",
                       .kind = KC_KERNEL_FOR,
                       .host = (void (*)(void))saxpy_host};
  kc_kernel_desc dd = {.struct_size = sizeof dd,
                       .name = "dot",
                       .kind = KC_KERNEL_REDUCE,
                       .host = (void (*)(void))dot_host,
                       .reducer = {.op = KC_REDUCE_SUM, .type = KC_DOUBLE}};
  kc_kernel *saxpy, *dot;
  kc_check(kc_kernel_register(&sd, &saxpy));
  kc_check(kc_kernel_register(&dd, &dot));

  /* Fill the host sides, sync them to the targets. */
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

  /* y = 2 x + y on the target side, then x . y. */
  kc_policy range = kc_range(0, n);
  saxpy_args sa = {2.0, kc_mirror_target(mx), kc_mirror_target(my)};
  host_only(kc_parallel_for("saxpy", saxpy, &range, &sa, sizeof sa));
  kc_check(kc_mirror_modify_target(my));
  dot_args da = {kc_mirror_target(mx), kc_mirror_target(my)};
  double result = -1.0;
  host_only(kc_parallel_reduce("dot", dot, &range, &da, sizeof da, &result));
  kc_check(kc_mirror_sync_host(my));

  /* Exact answers: y[i] = 2 (i mod 7) + 0.5, and x . y = sum of
   * 2 (i mod 7)^2 + 0.5 (i mod 7), in integers per period of 7. */
  kc_index bad = 0;
  for (kc_index i = 0; i < n; i++) {
    double want = 2.0 * (double)(i % 7) + 0.5;
    if (hy[i] != want && bad++ < 5)
      fprintf(stderr, "saxpy: y[%lld] = %g, expected %g\n", (long long)i, hy[i],
              want);
  }
  long long full = n / 7, rest = n % 7;
  double sq = (double)(full * 91 + (rest - 1) * rest * (2 * rest - 1) / 6);
  double lin = (double)(full * 21 + rest * (rest - 1) / 2);
  double want = 2.0 * sq + 0.5 * lin;
  int ok = fabs(result - want) <= 1e-12 * (fabs(want) + 1.0);
  printf("saxpy: n = %lld, %s\n", (long long)n,
         bad ? "MISMATCH" : "result correct");
  printf("dot: n = %lld, result %.17g, expected %.17g, %s\n", (long long)n,
         result, want, ok ? "result correct" : "MISMATCH");

  kc_check(kc_mirror_destroy(mx));
  kc_check(kc_mirror_destroy(my));
  kc_check(kc_finalize());
  return bad == 0 && ok ? 0 : 1;
}
