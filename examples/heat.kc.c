/* examples/heat: 2-D heat diffusion, written once, run on any backend;
 * kernels and program in one file.
 *
 A cold square plate (0) has one edge held at 100 and the others at 0;
 * it warms up towards its steady state.  Each step is an explicit Euler
 * update of the interior over a 2-D range (kc_mdrange), and every `check`
 * steps an MD reduction measures the change of the step (the residual);
 * the run stops when it falls below the tolerance or after the step
 * limit.  The program checks what physics promises (starting cold, the
 * total heat never decreases; every value stays within [0, 100]) and
 * exits 1 if that fails or the run did not converge.  It prints the backend,
 steps, the final residual, the total
 * heat (to compare across backends), time per step and the bandwidth the
 * stencil achieved.
 *
 *   kcc -O2 -o heat heat.kc.c $(pkg-config --cflags --libs kc) -lm
 *   KC_BACKEND=threads ./heat [-n N] [-s MAXSTEPS] [-t TILE_I,TILE_J]
 */
#define KC_CHECK_EXIT
#include <kc/kernel.h>

/* An nx x ny grid, row-major (j fastest).  One explicit Euler step of the
 * heat equation on the interior: out = in + alpha * laplacian(in); the
 * edges hold 0 (Dirichlet).  alpha = k dt / h^2, below 1/4 for
 * stability. */
KC_MDFOR_ARGS(heat_step,
              ((const double *, in), (double *, out), (int64_t, ny),
               (double, alpha)),
              (i, j), {
                const int64_t p = i * ny + j;
                const double c = in[p];
                out[p] = c + alpha * (in[p - ny] + in[p + ny] + in[p - 1] +
                                      in[p + 1] - 4.0 * c);
              })

/* The squared change of a step. */
KC_MDREDUCE_SUM_ARGS(heat_change,
                     ((const double *, in), (const double *, out),
                      (int64_t, ny)),
                     (i, j), double, acc, {
                       const int64_t p = i * ny + j;
                       const double d = out[p] - in[p];
                       acc += d * d;
                     })

/* The total heat of a grid. */
KC_MDREDUCE_SUM_ARGS(heat_total, ((const double *, g), (int64_t, ny)), (i, j),
                     double, acc, acc += g[i * ny + j])

/* Whole-argument parsing, also examples/mpi's (it includes this file with
 * KC_DECLARE_ONLY). */
#if !KC_DEVICE_PASS && !defined(KC_KERNELS_ONLY)
#include <errno.h>
#include <stdint.h>
#include <string.h>

/* A whole argument as an integer: 0, or -1 when it is not one number
 * from start to end (atoll took "8x" as 8) or out of range. */
static inline int arg_int(const char *s, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end || errno)
    return -1;
  *out = v;
  return 0;
}

/* "TI,TJ", both >= 0 (0: the backend's tile). */
static inline int arg_tile(const char *s, kc_index tile[2]) {
  const char *comma = strchr(s, ',');
  char first[32];
  int64_t ti, tj;
  if (!comma || comma - s >= (long)sizeof first)
    return -1;
  memcpy(first, s, (size_t)(comma - s));
  first[comma - s] = '\0';
  if (arg_int(first, &ti) < 0 || arg_int(comma + 1, &tj) < 0 || ti < 0 ||
      tj < 0)
    return -1;
  tile[0] = ti;
  tile[1] = tj;
  return 0;
}
#endif

/* The program.  examples/mpi reuses the kernels above: their code with
 * KC_KERNELS_ONLY defined, their argument structs and handles with
 * KC_DECLARE_ONLY (kernel_args.h). */
#if !KC_DEVICE_PASS && !defined(KC_KERNELS_ONLY) && !defined(KC_DECLARE_ONLY)
#include <math.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  int64_t n = 64, maxsteps = 100000, check = 50;
  kc_index tile[2] = {0, 0};
  const double alpha = 0.24, tol = 1e-6;
  for (int a = 1; a < argc; a++) {
    const char *v = a + 1 < argc ? argv[a + 1] : NULL;
    if (!strcmp(argv[a], "-n") && v && arg_int(v, &n) == 0)
      a++;
    else if (!strcmp(argv[a], "-s") && v && arg_int(v, &maxsteps) == 0)
      a++;
    else if (!strcmp(argv[a], "-t") && v) {
      if (arg_tile(argv[++a], tile) < 0) {
        fprintf(stderr, "heat: -t wants TILE_I,TILE_J (each >= 0)\n");
        return 2;
      }
    } else {
      fprintf(stderr, "usage: heat [-n N] [-s MAXSTEPS] [-t TI,TJ]\n");
      return 2;
    }
  }
  /* The grid's bytes must fit a size_t before n * n is computed (2^32
   * squared wrapped to 0, and calloc(0) succeeded). */
  if (n < 8 || n > (int64_t)(SIZE_MAX / sizeof(double)) / n || maxsteps < 1) {
    fprintf(stderr, "heat: need N >= 8 with N x N doubles addressable, and "
                    "MAXSTEPS >= 1\n");
    return 2;
  }

  kc_init();
  printf("backend: %s\n", kc_backend_name());

  /* Two grids: 0, but 100 along the edge i = 0 (edges never change). */
  const size_t cells = (size_t)(n * n), bytes = cells * sizeof(double);
  double *h = calloc(cells, sizeof *h);
  if (!h) {
    fprintf(stderr, "heat: out of memory\n");
    return 1;
  }
  for (int64_t j = 0; j < n; j++)
    h[j] = 100.0;
  double *u, *v;
  kc_malloc((void **)&u, bytes, KC_SPACE_DEVICE, "heat u");
  kc_malloc((void **)&v, bytes, KC_SPACE_DEVICE, "heat v");
  kc_memcpy(u, h, bytes);
  kc_memcpy(v, h, bytes);

  const kc_index lo[2] = {1, 1}, hi[2] = {n - 1, n - 1};
  kc_policy interior =
      kc_mdrange(2, lo, hi, tile[0] > 0 || tile[1] > 0 ? tile : NULL);
  double *in = u, *out = v;
  const double total0 = kc_reduce(heat_total, interior, .g = u, .ny = n);

  int ok = 1;
  double residual = INFINITY, total = total0, prev_total = total0;
  int64_t steps = 0;
  double t0 = now();
  while (steps < maxsteps) {
    kc_run_for(heat_step, interior, .in = in, .out = out, .ny = n,
               .alpha = alpha);
    steps++;
    if (steps % check == 0 || steps == maxsteps) {
      double change =
          kc_reduce(heat_change, interior, .in = in, .out = out, .ny = n);
      total = kc_reduce(heat_total, interior, .g = out, .ny = n);
      residual = sqrt(change);
      if (total < prev_total * (1 - 1e-12)) {
        fprintf(stderr,
                "heat: the total heat fell at step %lld (%.17g < "
                "%.17g)\n",
                (long long)steps, total, prev_total);
        ok = 0;
      }
      prev_total = total;
      if (residual < tol)
        break;
    }
    double *t = in; /* the new grid is the next step's input */
    in = out;
    out = t;
  }
  kc_fence();
  double elapsed = now() - t0;

  /* The maximum principle on the final grid. */
  kc_memcpy(h, out, bytes);
  double lo_v = INFINITY, hi_v = -INFINITY;
  for (size_t c = 0; c < cells; c++) {
    lo_v = h[c] < lo_v ? h[c] : lo_v;
    hi_v = h[c] > hi_v ? h[c] : hi_v;
  }
  if (lo_v < 0 || hi_v > 100.0) {
    fprintf(stderr, "heat: values left [0, 100]: [%g, %g]\n", lo_v, hi_v);
    ok = 0;
  }
  int converged = residual < tol;
  /* The stencil reads a grid and writes one: 16 bytes per interior cell
   * (the neighbours come from cache). */
  double gbs =
      16.0 * (double)((n - 2) * (n - 2)) * (double)steps / elapsed / 1e9;
  printf("grid: %lld x %lld, tile %lld x %lld\n", (long long)n, (long long)n,
         (long long)tile[0], (long long)tile[1]);
  printf("steps: %lld\n", (long long)steps);
  printf("residual: %.3e (tolerance %.1e)%s\n", residual, tol,
         converged ? "" : " NOT CONVERGED");
  printf("total heat: %.12e (initial %.12e)\n", total, total0);
  printf("time per step: %.3f us\n", 1e6 * elapsed / (double)steps);
  printf("bandwidth: %.2f GB/s\n", gbs);

  kc_free(u);
  kc_free(v);
  free(h);
  kc_finalize();
  return ok && converged ? 0 : 1;
}
#endif
