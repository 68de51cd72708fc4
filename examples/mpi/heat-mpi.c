/* examples/mpi/heat-mpi: examples/heat decomposed over MPI ranks.
 *
 * The same plate, the same explicit Euler steps with the same kernels
 * (../heat.kc.c), the same checks; the interior of the n x n grid is split
 * into px x py blocks over a 2-D Cartesian communicator.  Each rank keeps
 * its block with a one-cell border: the border holds the plate's fixed
 * edge where the block touches it, and the neighbours' edge cells
 * elsewhere, exchanged before every step (exchange.c: packed and unpacked
 * by kc kernels, passed to MPI from device memory or staged through a host
 * mirror).  The residual and the total heat are kc reductions of each
 * block followed by MPI_Allreduce.  Every cell is computed from the same
 * operands as in heat, so the grid is the same; only the sums' order
 * differs: steps, residual and total heat agree with heat's to rounding.
 *
 *   mpirun -np 4 heat-mpi [-n N] [-s MAXSTEPS] [-t TI,TJ]
 *                         [-halo auto|direct|staged] [-bench]
 *
 * -bench runs exactly MAXSTEPS steps and does not ask for convergence (for
 * timings).  Rank 0 prints the results; the exit status is 0 when the
 * physics checks passed on every rank and the run converged.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* heat.kc.c's kernels: their argument structs and handles here, their
 * code from heat-kernels.kc.c. */
#define KC_DECLARE_ONLY
#include "../heat.kc.c"

#define PROG "heat-mpi"
#include "common.h"
#include "exchange.h"

typedef kc_args_heat_step heat_step;

typedef struct options {
  int64_t n, maxsteps;
  kc_index tile[2];
  halo_mode mode;
  int bench;
} options;

static int parse(int argc, char **argv, options *o) {
  *o = (options){64, 100000, {0, 0}, HALO_AUTO, 0};
  for (int a = 1; a < argc; a++) {
    const char *v = a + 1 < argc ? argv[a + 1] : NULL;
    if (!strcmp(argv[a], "-n") && v && arg_int(v, &o->n) == 0)
      a++;
    else if (!strcmp(argv[a], "-s") && v && arg_int(v, &o->maxsteps) == 0)
      a++;
    else if (!strcmp(argv[a], "-t") && v && arg_tile(v, o->tile) == 0)
      a++;
    else if (!strcmp(argv[a], "-halo") && v &&
             halo_parse_mode(v, &o->mode) == 0)
      a++;
    else if (!strcmp(argv[a], "-bench"))
      o->bench = 1;
    else
      return -1;
  }
  /* The grid's bytes must fit a size_t before n * n is computed (2^32
   * squared wrapped to 0, and calloc(0) succeeded). */
  return o->n >= 8 && o->n <= (int64_t)(SIZE_MAX / sizeof(double)) / o->n &&
                 o->maxsteps >= 1
             ? 0
             : -1;
}

/* A rank's block: rows [i0, i0 + li) and columns [j0, j0 + lj) of the
 * global grid, stored with a border as (li + 2) x (lj + 2), row-major. */
typedef struct block {
  int64_t i0, j0, li, lj, ly;
} block;

/* The four edges of the block to and from the Cartesian neighbours. */
static void add_neighbours(halo *h, MPI_Comm cart, const block *b) {
  int north, south, west, east;
  MPI_Cart_shift(cart, 0, 1, &north, &south);
  MPI_Cart_shift(cart, 1, 1, &west, &east);
  const int64_t ly = b->ly, li = b->li, lj = b->lj;
  /* {start, stride, count}: rows are contiguous, columns strided. */
  halo_add(h, north, (halo_seg){ly + 1, 1, lj, 0}, (halo_seg){1, 1, lj, 0});
  halo_add(h, south, (halo_seg){li * ly + 1, 1, lj, 0},
           (halo_seg){(li + 1) * ly + 1, 1, lj, 0});
  halo_add(h, west, (halo_seg){ly + 1, ly, li, 0}, (halo_seg){ly, ly, li, 0});
  halo_add(h, east, (halo_seg){ly + lj, ly, li, 0},
           (halo_seg){ly + lj + 1, ly, li, 0});
}

/* The sums over every block of the step's change and of the new grid. */
static void global_sums(const kc_policy *interior, heat_step *f, double *change,
                        double *total) {
  double s[2];
  kc_args_heat_change c = {f->in, f->out, f->ny};
  kc_args_heat_total t = {f->out, f->ny};
  CHECK(kc_parallel_reduce("heat change", KC_KERNEL(heat_change), interior, &c,
                           sizeof c, &s[0]));
  CHECK(kc_parallel_reduce("heat total", KC_KERNEL(heat_total), interior, &t,
                           sizeof t, &s[1]));
  MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *change = s[0];
  *total = s[1];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  options o;
  if (parse(argc, argv, &o) < 0) {
    if (rank == 0)
      fprintf(stderr, "usage: heat-mpi [-n N] [-s MAXSTEPS] [-t TI,TJ] "
                      "[-halo auto|direct|staged] [-bench]\n"
                      "  (N >= 8 with N x N doubles addressable, MAXSTEPS "
                      ">= 1, TI, TJ >= 0)\n");
    MPI_Finalize();
    return 2;
  }
  const int64_t n = o.n;
  const double alpha = 0.24, tol = 1e-6;
  const int64_t check = 50;

  /* px x py ranks over the (n - 2) x (n - 2) interior. */
  int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
  MPI_Dims_create(nranks, 2, dims);
  if (dims[0] > n - 2 || dims[1] > n - 2) {
    if (rank == 0)
      fprintf(stderr, "heat-mpi: %d x %d ranks for a %lld x %lld interior\n",
              dims[0], dims[1], (long long)(n - 2), (long long)(n - 2));
    MPI_Finalize();
    return 2;
  }
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 2, coords);
  block b;
  split(n - 2, dims[0], coords[0], &b.i0, &b.li);
  split(n - 2, dims[1], coords[1], &b.j0, &b.lj);
  b.i0++; /* interior rows and columns start at 1 */
  b.j0++;
  b.ly = b.lj + 2;

  CHECK(kc_init());
  kc_info info = {.struct_size = sizeof info};
  CHECK(kc_get_info(&info));

  /* The block with its border: 0, but 100 along the plate's edge i = 0. */
  const size_t cells = (size_t)((b.li + 2) * b.ly);
  const size_t bytes = cells * sizeof(double);
  double *h = calloc(cells, sizeof *h);
  if (!h) {
    fprintf(stderr, "heat-mpi: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (b.i0 == 1)
    for (int64_t j = 0; j < b.ly; j++)
      h[j] = 100.0;
  double *u, *v;
  CHECK(kc_malloc((void **)&u, bytes, KC_SPACE_DEVICE, "heat u"));
  CHECK(kc_malloc((void **)&v, bytes, KC_SPACE_DEVICE, "heat v"));
  CHECK(kc_memcpy(u, h, bytes));
  CHECK(kc_memcpy(v, h, bytes));

  halo hx;
  halo_init(&hx, cart, o.mode);
  add_neighbours(&hx, cart, &b);
  CHECK(halo_commit(&hx));

  const kc_index lo[2] = {1, 1}, hi[2] = {b.li + 1, b.lj + 1};
  kc_policy interior =
      kc_mdrange(2, lo, hi, o.tile[0] > 0 || o.tile[1] > 0 ? o.tile : NULL);
  heat_step f = {u, u, b.ly, alpha};
  double total0, change;
  global_sums(&interior, &f, &change, &total0);
  f.out = v;

  int ok = 1;
  double residual = INFINITY, total = total0, prev_total = total0;
  int64_t steps = 0;
  MPI_Barrier(cart);
  double t0 = now();
  while (steps < o.maxsteps) {
    CHECK(halo_exchange(&hx, (double *)f.in));
    CHECK(kc_parallel_for("heat step", KC_KERNEL(heat_step), &interior, &f,
                          sizeof f));
    steps++;
    if (steps % check == 0 || steps == o.maxsteps) {
      global_sums(&interior, &f, &change, &total);
      residual = sqrt(change);
      if (total < prev_total * (1 - 1e-12)) {
        if (rank == 0)
          fprintf(stderr,
                  "heat-mpi: the total heat fell at step %lld (%.17g < "
                  "%.17g)\n",
                  (long long)steps, total, prev_total);
        ok = 0;
      }
      prev_total = total;
      if (residual < tol && !o.bench)
        break;
    }
    const double *t = f.in;
    f.in = f.out;
    f.out = (double *)t;
  }
  CHECK(kc_fence());
  MPI_Barrier(cart);
  double elapsed = now() - t0;

  /* The maximum principle on every block. */
  CHECK(kc_memcpy(h, f.out, bytes));
  double range[2] = {-INFINITY, -INFINITY}; /* -min, max */
  for (size_t c = 0; c < cells; c++) {
    range[0] = fmax(range[0], -h[c]);
    range[1] = fmax(range[1], h[c]);
  }
  MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_DOUBLE, MPI_MAX, cart);
  if (-range[0] < 0 || range[1] > 100.0) {
    if (rank == 0)
      fprintf(stderr, "heat-mpi: values left [0, 100]: [%g, %g]\n", -range[0],
              range[1]);
    ok = 0;
  }
  int converged = residual < tol;
  if (rank == 0) {
    double gbs =
        16.0 * (double)((n - 2) * (n - 2)) * (double)steps / elapsed / 1e9;
    printf("backend: %s\n", kc_backend_name());
    printf("ranks: %d (%d x %d), device %d (%s)\n", nranks, dims[0], dims[1],
           info.device, info.device_from);
    printf("halo: %s\n", hx.why);
    printf("grid: %lld x %lld, tile %lld x %lld\n", (long long)n, (long long)n,
           (long long)o.tile[0], (long long)o.tile[1]);
    printf("steps: %lld\n", (long long)steps);
    printf("residual: %.3e (tolerance %.1e)%s\n", residual, tol,
           converged ? ""
           : o.bench ? " (not asked: -bench)"
                     : " NOT CONVERGED");
    printf("total heat: %.12e (initial %.12e)\n", total, total0);
    printf("time per step: %.3f us\n", 1e6 * elapsed / (double)steps);
    printf("bandwidth: %.2f GB/s\n", gbs);
  }

  halo_free(&hx);
  kc_free(u);
  kc_free(v);
  free(h);
  CHECK(kc_finalize());
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return ok && (converged || o.bench) ? 0 : 1;
}
