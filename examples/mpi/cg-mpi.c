/* examples/mpi/cg-mpi: examples/cg with the rows distributed over MPI
 * ranks.
 *
 * The same 3-D Poisson problem (the 7-point Laplacian of an n x n x n
 * grid, right-hand side 1) and the same kernels (../cg.kc.c).  Rank r of P
 * owns a slab of whole planes i, so its rows are consecutive; its copy of
 * a vector the matrix multiplies (p, and x for the final residual) has
 * one plane of halo below and one above its own rows, and its CSR rows
 * index that local vector.  The SpMV starts with a halo exchange
 * (exchange.c: the planes packed by a kc kernel, passed to MPI from device
 * memory or staged through a host mirror); each dot product is a kc
 * reduction over the rank's rows followed by MPI_Allreduce.  Each row's
 * nonzeros are in the same order as in cg, so only the dot products' sums
 * are ordered differently: the iterations, the residual and the solution
 * agree with cg's to rounding.
 *
 *   mpirun -np 4 cg-mpi [-n N] [-tol TOL] [-maxit K]
 *                       [-halo auto|direct|staged] [-bench]
 *
 * -bench runs exactly K iterations, converged or not (for timings).
 * Rank 0 prints the results; the exit status is 0 when the true residual
 * |b - A x| / |b| is below the tolerance.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* cg.kc.c's kernels: their argument structs and handles here, their code
 * from cg-kernels.kc.c. */
#define KC_DECLARE_ONLY
#include "../cg.kc.c"

#define PROG "cg-mpi"
#include "common.h"
#include "exchange.h"

typedef kc_args_cg_spmv cg_spmv;
typedef kc_args_cg_dot cg_dot;
typedef kc_args_cg_update cg_update;
typedef kc_args_cg_xpby cg_xpby;
typedef kc_args_cg_resid cg_resid;

#define ROWS_PER_TEAM 32

typedef struct options {
  int64_t n, maxit;
  double tol;
  halo_mode mode;
  int bench;
} options;

static int parse(int argc, char **argv, options *o) {
  *o = (options){24, 1000, 1e-10, HALO_AUTO, 0};
  for (int a = 1; a < argc; a++) {
    const char *v = a + 1 < argc ? argv[a + 1] : NULL;
    if (!strcmp(argv[a], "-n") && v && arg_int(v, &o->n) == 0)
      a++;
    else if (!strcmp(argv[a], "-tol") && v && arg_double(v, &o->tol) == 0)
      a++;
    else if (!strcmp(argv[a], "-maxit") && v && arg_int(v, &o->maxit) == 0)
      a++;
    else if (!strcmp(argv[a], "-halo") && v &&
             halo_parse_mode(v, &o->mode) == 0)
      a++;
    else if (!strcmp(argv[a], "-bench"))
      o->bench = 1;
    else
      return -1;
  }
  /* A tolerance of 1 or more (or inf) is met before the first iteration:
   * it would report success having solved nothing. */
  return o->n >= 2 && o->n <= CG_MAX_N && o->tol > 0 && o->tol < 1 &&
                 o->maxit >= 1
             ? 0
             : -1;
}

/* A device copy of `bytes` at `host`. */
static void *upload(const void *host, size_t bytes, const char *label) {
  void *d;
  CHECK(kc_malloc(&d, bytes, KC_SPACE_DEVICE, label));
  CHECK(kc_memcpy(d, host, bytes));
  return d;
}

/* x . y over every rank's rows. */
static double dot(const double *x, const double *y, kc_index rows) {
  cg_dot f = {x, y};
  kc_policy p = kc_range(0, rows);
  double r;
  CHECK(kc_parallel_reduce("cg dot", KC_KERNEL(cg_dot), &p, &f, sizeof f, &r));
  MPI_Allreduce(MPI_IN_PLACE, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return r;
}

/* y = A x; x is a local vector with its halo planes, exchanged first. */
static void spmv(cg_spmv *f, halo *hx, double *x, double *y) {
  CHECK(halo_exchange(hx, x));
  f->x = x;
  f->y = y;
  kc_index teams = (f->nrows + ROWS_PER_TEAM - 1) / ROWS_PER_TEAM;
  kc_policy p = kc_team_policy(teams, KC_AUTO, 8);
  CHECK(kc_parallel_for("cg spmv", KC_KERNEL(cg_spmv), &p, f, sizeof *f));
}

/* The CSR rows of planes [i0, i0 + planes), the columns indexing the
 * local vector: plane i0 - 1 at 0, the rank's own rows from `plane` on.
 * Neighbours in cg's column order.  Returns the number of nonzeros. */
static int64_t build(int64_t n, int64_t i0, int64_t planes, int32_t *rowptr,
                     int32_t *col, double *val) {
  const int64_t plane = n * n;
  int64_t nnz = 0, row = 0;
  for (int64_t i = i0; i < i0 + planes; i++)
    for (int64_t j = 0; j < n; j++)
      for (int64_t k = 0; k < n; k++, row++) {
        rowptr[row] = (int32_t)nnz;
        const int64_t nb[7][3] = {{i - 1, j, k}, {i, j - 1, k}, {i, j, k - 1},
                                  {i, j, k},     {i, j, k + 1}, {i, j + 1, k},
                                  {i + 1, j, k}};
        for (int q = 0; q < 7; q++) {
          const int64_t *c = nb[q];
          if (c[0] < 0 || c[0] >= n || c[1] < 0 || c[1] >= n || c[2] < 0 ||
              c[2] >= n)
            continue;
          col[nnz] = (int32_t)((c[0] - i0 + 1) * plane + c[1] * n + c[2]);
          val[nnz] = q == 3 ? 6.0 : -1.0;
          nnz++;
        }
      }
  rowptr[row] = (int32_t)nnz;
  return nnz;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  options o;
  if (parse(argc, argv, &o) < 0 || o.n < nranks) {
    if (rank == 0)
      fprintf(stderr,
              "usage: cg-mpi [-n N] [-tol TOL] [-maxit K] "
              "[-halo auto|direct|staged] [-bench]\n"
              "  (2 <= N <= %d, N >= ranks, 0 < TOL < 1, K >= 1)\n",
              CG_MAX_N);
    MPI_Finalize();
    return 2;
  }
  const int64_t n = o.n, plane = n * n;
  int64_t i0, planes;
  split(n, nranks, rank, &i0, &planes);
  const int64_t rows = planes * plane, ext = rows + 2 * plane;

  CHECK(kc_init());
  kc_info info = {.struct_size = sizeof info};
  CHECK(kc_get_info(&info));

  int32_t *rowptr = malloc((size_t)(rows + 1) * sizeof *rowptr);
  int32_t *col = malloc((size_t)rows * 7 * sizeof *col);
  double *val = malloc((size_t)rows * 7 * sizeof *val);
  double *ones = malloc((size_t)ext * sizeof *ones);
  if (!rowptr || !col || !val || !ones) {
    fprintf(stderr, "cg-mpi: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int64_t nnz = build(n, i0, planes, rowptr, col, val);
  for (int64_t q = 0; q < ext; q++)
    ones[q] = 1.0;

  /* Vectors of the rank's rows, and p, x with their halo planes (which
   * stay 0 at the ends of the grid: the boundary). */
  const size_t vbytes = (size_t)rows * sizeof(double);
  const size_t xbytes = (size_t)ext * sizeof(double);
  cg_spmv a = {upload(rowptr, (size_t)(rows + 1) * sizeof *rowptr, "rowptr"),
               upload(col, (size_t)nnz * sizeof *col, "col"),
               upload(val, (size_t)nnz * sizeof *val, "val"),
               NULL,
               NULL,
               rows,
               ROWS_PER_TEAM};
  double *b = upload(ones, vbytes, "b");
  double *r = upload(ones, vbytes, "r"); /* x = 0: r = b, p = r */
  double *px, *xx, *ap;
  CHECK(kc_malloc((void **)&px, xbytes, KC_SPACE_DEVICE, "p"));
  CHECK(kc_malloc((void **)&xx, xbytes, KC_SPACE_DEVICE, "x"));
  CHECK(kc_malloc((void **)&ap, vbytes, KC_SPACE_DEVICE, "ap"));
  CHECK(kc_memset(px, 0, xbytes));
  CHECK(kc_memset(xx, 0, xbytes));
  CHECK(kc_memcpy(px + plane, ones, vbytes));
  double *p = px + plane, *x = xx + plane; /* the rank's own rows */

  /* One plane to each neighbouring slab, one from it. */
  halo hx;
  MPI_Comm comm = MPI_COMM_WORLD;
  halo_init(&hx, comm, o.mode);
  const int below = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int above = rank + 1 < nranks ? rank + 1 : MPI_PROC_NULL;
  halo_add(&hx, below, (halo_seg){plane, 1, plane, 0},
           (halo_seg){0, 1, plane, 0});
  halo_add(&hx, above, (halo_seg){rows, 1, plane, 0},
           (halo_seg){rows + plane, 1, plane, 0});
  CHECK(halo_commit(&hx));

  const kc_policy all = kc_range(0, rows);
  const double bnorm = sqrt(dot(b, b, rows));
  double rr = dot(r, r, rows);
  int64_t it = 0;
  MPI_Barrier(comm);
  double t0 = now();
  while (it < o.maxit && (o.bench || sqrt(rr) / bnorm >= o.tol)) {
    spmv(&a, &hx, px, ap);
    const double alpha = rr / dot(p, ap, rows);
    cg_update u = {alpha, x, r, p, ap};
    CHECK(
        kc_parallel_for("cg update", KC_KERNEL(cg_update), &all, &u, sizeof u));
    const double rr_new = dot(r, r, rows);
    cg_xpby xp = {rr_new / rr, p, r};
    CHECK(kc_parallel_for("cg xpby", KC_KERNEL(cg_xpby), &all, &xp, sizeof xp));
    rr = rr_new;
    it++;
  }
  CHECK(kc_fence());
  MPI_Barrier(comm);
  const double elapsed = now() - t0;

  /* The true residual, from scratch: r = b - A x. */
  spmv(&a, &hx, xx, ap);
  cg_resid rs = {b, ap, r};
  CHECK(kc_parallel_for("cg resid", KC_KERNEL(cg_resid), &all, &rs, sizeof rs));
  const double resid = sqrt(dot(r, r, rows)) / bnorm;
  CHECK(kc_memcpy(ones, x, vbytes));
  double sum = 0;
  for (int64_t q = 0; q < rows; q++)
    sum += ones[q];
  MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);

  int64_t nnz_all = nnz;
  MPI_Allreduce(MPI_IN_PLACE, &nnz_all, 1, MPI_INT64_T, MPI_SUM, comm);
  const int64_t rows_all = n * n * n;
  /* Bytes per iteration as cg counts them, over all ranks. */
  const double bytes_it = (double)nnz_all * 12 + (double)(rows_all + 1) * 4 +
                          (double)rows_all * 8 * (2 + 2 + 1 + 6 + 3);
  const int converged = resid < o.tol * 10 && (o.bench || it < o.maxit);
  if (rank == 0) {
    printf("backend: %s\n", kc_backend_name());
    printf("ranks: %d, device %d (%s)\n", nranks, info.device,
           info.device_from);
    printf("halo: %s\n", hx.why);
    printf("grid: %lld^3, %lld rows, %lld nonzeros\n", (long long)n,
           (long long)rows_all, (long long)nnz_all);
    printf("iterations: %lld\n", (long long)it);
    printf("residual: %.3e (tolerance %.1e)%s\n", resid, o.tol,
           resid < o.tol * 10 ? ""
           : o.bench          ? " (not asked: -bench)"
                              : " NOT CONVERGED");
    printf("solution checksum: %.12e\n", sum);
    printf("time per iteration: %.3f us\n",
           it ? 1e6 * elapsed / (double)it : 0.0);
    printf("bandwidth: %.2f GB/s\n",
           it ? bytes_it * (double)it / elapsed / 1e9 : 0.0);
  }

  halo_free(&hx);
  kc_free((void *)a.rowptr);
  kc_free((void *)a.col);
  kc_free((void *)a.val);
  kc_free(b);
  kc_free(r);
  kc_free(px);
  kc_free(xx);
  kc_free(ap);
  free(rowptr);
  free(col);
  free(val);
  free(ones);
  CHECK(kc_finalize());
  MPI_Finalize();
  return converged || o.bench ? 0 : 1;
}
