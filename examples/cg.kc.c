/* examples/cg: a conjugate-gradient solve of the 3-D Poisson equation,
 * written once and run on any
 * backend; kernels and program in one file.
 *
 * The matrix is the 7-point Laplacian of an n x n x n grid with zero
 * boundary values, stored as CSR (6 on the diagonal, -1 for each
 * neighbour: symmetric positive definite); the right-hand side is 1
 * everywhere.  Each iteration is a sparse matrix-vector product (a team
 * per block of rows on host backends; on a device a thread per row, the
 * matrix in an ELL layout as well; -spmv team|row|ell chooses), two dot
 * products and two vector updates; the row and ELL products carry the dot
 * product p.Ap and the first update the new r.r (reductions that also
 * write), so an iteration is three kernels on a device (four with the team
 * product).  The dot products land in device memory
 * and the updates read them there, so the host waits for the device only where
 * it tests for convergence: after every iteration by default, every K with
 * -check K (then up to K - 1 iterations more than needed are run).  At the end
 * the true residual |b - A x| / |b| is computed afresh; the program exits 1
 * unless it is below the tolerance.  It prints the backend, the iterations, the
 * final residual, a checksum of the solution (to compare backends), the time
 * per iteration and the bandwidth achieved (bytes the kernels must move,
 * below).
 *
 *   kcc -O2 -o cg cg.kc.c $(pkg-config --cflags --libs kc) -lm
 *   KC_BACKEND=openmp ./cg [-n N] [-tol TOL] [-maxit K] [-check K]
 *                          [-spmv team|row|ell]
 */
#define KC_CHECK_EXIT
#include <kc/kernel.h>

/* The sparse matrix-vector product y = A x uses a team policy: a team per
 * block of rows, a team thread per row, the row's nonzeros over the
 * thread's vector lanes (on the host, one thread per team and a vectorised
 * loop per row).  A is CSR: rowptr (nrows + 1), col, val. */

/* The largest grid: its at most 7 N^3 nonzeros must fit the int32_t
 * offsets of rowptr (7 * 675^3 > 2^31 - 1). */
#define CG_MAX_N 674
KC_TEAM_ARGS(cg_spmv,
             ((const int32_t *restrict, rowptr), (const int32_t *restrict, col),
              (const double *restrict, val), (const double *restrict, x),
              (double *restrict, y), (int64_t, nrows),
              (int64_t, rows_per_team)),
             team, {
               const int64_t first = kc_team_league_rank(team) * rows_per_team;
               KC_TEAM_THREAD_FOR(team, r, 0, rows_per_team, {
                 const int64_t row = first + r;
                 if (row < nrows) {
                   double sum;
                   KC_THREAD_VECTOR_REDUCE(team, k, rowptr[row],
                                           rowptr[row + 1], SUM, double, acc,
                                           sum, acc += val[k] * x[col[k]]);
                   KC_THREAD_SINGLE(team, y[row] = sum);
                 }
               });
             })

/* The same product as a 1-D for, a thread per row walking its nonzeros
 * (-spmv row): on a GPU consecutive threads read consecutive runs of
 * `val` and `col`, which the cache serves. */
KC_FOR_ARGS(cg_spmv_row,
            ((const int32_t *restrict, rowptr), (const int32_t *restrict, col),
             (const double *restrict, val), (const double *restrict, x),
             (double *restrict, y)),
            row, {
              double sum = 0;
              for (int32_t k = rowptr[row]; k < rowptr[row + 1]; k++)
                sum += val[k] * x[col[k]];
              y[row] = sum;
            })

KC_REDUCE_SUM_ARGS(cg_dot, ((const double *, x), (const double *, y)), i,
                   double, acc, acc += x[i] * y[i])

KC_FOR_ARGS(cg_update,
            ((double, alpha), (double *restrict, x), (double *restrict, r),
             (const double *restrict, p), (const double *restrict, ap)),
            i, {
              x[i] += alpha * p[i];
              r[i] -= alpha * ap[i];
            })

KC_FOR_ARGS(cg_xpby,
            ((double, beta), (double *restrict, p),
             (const double *restrict, r)),
            i, p[i] = r[i] + beta * p[i])

/* The same two updates with alpha and beta computed in the kernel from the
 * dot products the reductions left in device memory: s[0] = p.Ap, s[1 + c]
 * the current r.r, s[2 - c] the next one (c alternates), so that an
 * iteration's kernels follow each other on the device without the host
 * reading any value between them.  The arithmetic is the host loop's:
 * alpha = rr / pAp, beta = rr_new / rr. */
KC_FOR_ARGS(cg_update_s,
            ((const double *, s), (int64_t, c), (double *restrict, x),
             (double *restrict, r), (const double *restrict, p),
             (const double *restrict, ap)),
            i, {
              const double alpha = s[1 + c] / s[0];
              x[i] += alpha * p[i];
              r[i] -= alpha * ap[i];
            })

KC_FOR_ARGS(cg_xpby_s,
            ((const double *, s), (int64_t, c), (double *restrict, p),
             (const double *restrict, r)),
            i, p[i] = r[i] + s[2 - c] / s[1 + c] * p[i])

/* The row product fused with the dot product p.Ap that follows it (x is
 * p): a reduction that also writes y, so p and Ap are not read again.  The
 * sum is the one cg_dot computes, index by index. */
KC_REDUCE_SUM_ARGS(cg_spmv_row_dot,
                   ((const int32_t *restrict, rowptr),
                    (const int32_t *restrict, col),
                    (const double *restrict, val), (const double *restrict, x),
                    (double *restrict, y)),
                   row, double, acc, {
                     double sum = 0;
                     for (int32_t k = rowptr[row]; k < rowptr[row + 1]; k++)
                       sum += val[k] * x[col[k]];
                     y[row] = sum;
                     acc += x[row] * sum;
                   })

/* The same from an ELL layout (-spmv ell, the default on a device): the
 * 7-point matrix has at most CG_ELL_WIDTH nonzeros a row; entry s of a row
 * sits at s * nrows + row (column-major), a shorter row padded at its end
 * with its own column and 0.  The neighbouring threads' s-th entries are
 * then adjacent in memory (coalesced on a GPU), and the loop's count is a
 * constant, so all of a row's loads of val and col are in flight at once.
 * The sum runs over the same entries in the same order as the CSR forms'
 * (a padding entry adds +0). */
#define CG_ELL_WIDTH 7
KC_REDUCE_SUM_ARGS(cg_spmv_ell_dot,
                   ((const int32_t *, col), (const double *, val),
                    (const double *restrict, x), (double *restrict, y),
                    (int64_t, nrows)),
                   row, double, acc, {
                     double sum = 0;
                     for (int q = 0; q < CG_ELL_WIDTH; q++)
                       sum += val[q * nrows + row] * x[col[q * nrows + row]];
                     y[row] = sum;
                     acc += x[row] * sum;
                   })

/* cg_update_s fused with the dot product r.r that follows it: r is not
 * read again. */
KC_REDUCE_SUM_ARGS(cg_update_dot,
                   ((const double *, s), (int64_t, c), (double *restrict, x),
                    (double *restrict, r), (const double *restrict, p),
                    (const double *restrict, ap)),
                   i, double, acc, {
                     const double alpha = s[1 + c] / s[0];
                     x[i] += alpha * p[i];
                     r[i] -= alpha * ap[i];
                     acc += r[i] * r[i];
                   })

KC_FOR_ARGS(cg_resid,
            ((const double *restrict, b), (const double *restrict, ax),
             (double *restrict, r)),
            i, r[i] = b[i] - ax[i])

/* Whole-argument parsing, also examples/mpi's (it includes this file with
 * KC_DECLARE_ONLY). */
#if !KC_DEVICE_PASS && !defined(KC_KERNELS_ONLY)
#include <errno.h>
#include <stdint.h>
#include <string.h>

/* A whole argument as an integer or a double: 0, or -1 when it is not
 * one number from start to end (atoll took "8x" as 8) or out of range. */
static inline int arg_int(const char *s, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end || errno)
    return -1;
  *out = v;
  return 0;
}

static inline int arg_double(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end || errno)
    return -1;
  *out = v;
  return 0;
}
#endif

/* The program.  examples/mpi reuses the kernels above: their code with
 * KC_KERNELS_ONLY defined, their argument structs and handles with
 * KC_DECLARE_ONLY (kernel_args.h). */
#if !KC_DEVICE_PASS && !defined(KC_KERNELS_ONLY) && !defined(KC_DECLARE_ONLY)
#include <math.h>
#include <time.h>

#define ROWS_PER_TEAM 32

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A device copy of `bytes` at `host`. */
static void *upload(const void *host, size_t bytes, const char *label) {
  void *d;
  kc_malloc(&d, bytes, KC_SPACE_DEVICE, label);
  kc_memcpy(d, host, bytes);
  return d;
}

static double dot(const double *x, const double *y, kc_index n) {
  return kc_reduce(cg_dot, kc_range(0, n), .x = x, .y = y);
}

/* The matrix: what y = A x needs besides x and y. */
typedef struct csr {
  const int32_t *rowptr, *col;
  const double *val;
  int64_t nrows;
} csr;

/* -spmv: the team product, the row product (CSR) or the ELL one; -1: by
 * backend. */
enum { SPMV_TEAM, SPMV_ROW, SPMV_ELL };
static int spmv_form = -1;

static void spmv(const csr *a, const double *x, double *y) {
  if (spmv_form != SPMV_TEAM) {
    kc_run_for(cg_spmv_row, kc_range(0, a->nrows), .rowptr = a->rowptr,
               .col = a->col, .val = a->val, .x = x, .y = y);
    return;
  }
  kc_index teams = (a->nrows + ROWS_PER_TEAM - 1) / ROWS_PER_TEAM;
  /* Vector lanes for the 7 nonzeros of a row; team size: the backend's. */
  kc_run_for(cg_spmv, kc_team_policy(teams, KC_AUTO, 8), .rowptr = a->rowptr,
             .col = a->col, .val = a->val, .x = x, .y = y, .nrows = a->nrows,
             .rows_per_team = ROWS_PER_TEAM);
}

int main(int argc, char **argv) {
  int64_t n = 24, maxit = 1000, check = 1;
  double tol = 1e-10;
  for (int a = 1; a < argc; a++) {
    const char *v = a + 1 < argc ? argv[a + 1] : NULL;
    if (!strcmp(argv[a], "-n") && v && arg_int(v, &n) == 0)
      a++;
    else if (!strcmp(argv[a], "-tol") && v && arg_double(v, &tol) == 0)
      a++;
    else if (!strcmp(argv[a], "-maxit") && v && arg_int(v, &maxit) == 0)
      a++;
    else if (!strcmp(argv[a], "-check") && v && arg_int(v, &check) == 0)
      a++;
    else if (!strcmp(argv[a], "-spmv") && a + 1 < argc &&
             (!strcmp(argv[a + 1], "row") || !strcmp(argv[a + 1], "team") ||
              !strcmp(argv[a + 1], "ell"))) {
      a++;
      spmv_form = !strcmp(argv[a], "team")  ? SPMV_TEAM
                  : !strcmp(argv[a], "row") ? SPMV_ROW
                                            : SPMV_ELL;
    } else {
      fprintf(stderr, "usage: cg [-n N] [-tol TOL] [-maxit K] [-check K] "
                      "[-spmv team|row|ell]\n");
      return 2;
    }
  }
  /* A tolerance of 1 or more (or inf) is met before the first iteration:
   * it would report success having solved nothing. */
  if (n < 2 || n > CG_MAX_N || !(tol > 0 && tol < 1) || maxit < 1 ||
      check < 1) {
    fprintf(stderr, "cg: need 2 <= N <= %d, 0 < TOL < 1, K >= 1\n", CG_MAX_N);
    return 2;
  }

  kc_init();
  printf("backend: %s\n", kc_backend_name());
  if (spmv_form < 0) {
    /* The ELL form on a device (where it is the fastest: doc/benchmarks.md),
     * the team form on host backends. */
    kc_info info = {.struct_size = sizeof info};
    kc_get_info(&info);
    spmv_form = (info.spaces & (1u << KC_SPACE_DEVICE)) && info.device >= 0
                    ? SPMV_ELL
                    : SPMV_TEAM;
  }

  /* The 7-point Laplacian as CSR, rows in (i, j, k) order, k fastest. */
  const int64_t rows = n * n * n;
  int32_t *rowptr = malloc((size_t)(rows + 1) * sizeof *rowptr);
  int32_t *col = malloc((size_t)rows * 7 * sizeof *col);
  double *val = malloc((size_t)rows * 7 * sizeof *val);
  double *ones = malloc((size_t)rows * sizeof *ones);
  if (!rowptr || !col || !val || !ones) {
    fprintf(stderr, "cg: out of memory\n");
    return 1;
  }
  int64_t nnz = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++)
      for (int64_t k = 0; k < n; k++) {
        const int64_t row = (i * n + j) * n + k;
        rowptr[row] = (int32_t)nnz;
        /* Neighbours in column order, the diagonal among them. */
        const int64_t nb[7][3] = {{i - 1, j, k}, {i, j - 1, k}, {i, j, k - 1},
                                  {i, j, k},     {i, j, k + 1}, {i, j + 1, k},
                                  {i + 1, j, k}};
        for (int q = 0; q < 7; q++) {
          const int64_t *c = nb[q];
          if (c[0] < 0 || c[0] >= n || c[1] < 0 || c[1] >= n || c[2] < 0 ||
              c[2] >= n)
            continue;
          col[nnz] = (int32_t)((c[0] * n + c[1]) * n + c[2]);
          val[nnz] = q == 3 ? 6.0 : -1.0;
          nnz++;
        }
        ones[row] = 1.0;
      }
  rowptr[rows] = (int32_t)nnz;

  /* The same matrix in the ELL layout (cg_spmv_ell_dot), for -spmv ell. */
  int32_t *ell_col = NULL;
  double *ell_val = NULL;
  if (spmv_form == SPMV_ELL) {
    const size_t ne = (size_t)rows * CG_ELL_WIDTH;
    int32_t *ec = malloc(ne * sizeof *ec);
    double *ev = malloc(ne * sizeof *ev);
    if (!ec || !ev) {
      fprintf(stderr, "cg: out of memory\n");
      return 1;
    }
    for (int64_t row = 0; row < rows; row++)
      for (int64_t q = 0; q < CG_ELL_WIDTH; q++) {
        const int64_t e = rowptr[row] + q, at = q * rows + row;
        ec[at] = e < rowptr[row + 1] ? col[e] : (int32_t)row;
        ev[at] = e < rowptr[row + 1] ? val[e] : 0.0;
      }
    ell_col = upload(ec, ne * sizeof *ec, "ell col");
    ell_val = upload(ev, ne * sizeof *ev, "ell val");
    free(ec);
    free(ev);
  }

  const size_t vbytes = (size_t)rows * sizeof(double);
  const csr a = {upload(rowptr, (size_t)(rows + 1) * sizeof *rowptr, "rowptr"),
                 upload(col, (size_t)nnz * sizeof *col, "col"),
                 upload(val, (size_t)nnz * sizeof *val, "val"), rows};
  double *b = upload(ones, vbytes, "b");
  double *r = upload(ones, vbytes, "r"); /* x = 0: r = b, p = r */
  double *p = upload(ones, vbytes, "p");
  double *x, *ap;
  kc_malloc((void **)&x, vbytes, KC_SPACE_DEVICE, "x");
  kc_malloc((void **)&ap, vbytes, KC_SPACE_DEVICE, "ap");
  kc_memset(x, 0, vbytes);

  const kc_policy all = kc_range(0, rows);
  const double bnorm = sqrt(dot(b, b, rows));
  double rr = dot(r, r, rows);
  /* The dot products in device memory (cg_update_s). */
  double *s;
  kc_malloc((void **)&s, 3 * sizeof *s, KC_SPACE_DEVICE, "scalars");
  kc_memcpy(&s[1], &rr, sizeof rr);
  int64_t it = 0, c = 0;
  double t0 = now();
  while (it < maxit && sqrt(rr) / bnorm >= tol) {
    /* Ap and p.Ap, x and r and the new r.r, then p: three kernels with the
     * row product, four with the team one. */
    if (spmv_form == SPMV_ELL) {
      kc_run_reduce(cg_spmv_ell_dot, all, &s[0], .col = ell_col, .val = ell_val,
                    .x = p, .y = ap, .nrows = rows);
    } else if (spmv_form == SPMV_ROW) {
      kc_run_reduce(cg_spmv_row_dot, all, &s[0], .rowptr = a.rowptr,
                    .col = a.col, .val = a.val, .x = p, .y = ap);
    } else {
      spmv(&a, p, ap);
      kc_run_reduce(cg_dot, all, &s[0], .x = p, .y = ap);
    }
    kc_run_reduce(cg_update_dot, all, &s[2 - c], .s = s, .c = c, .x = x, .r = r,
                  .p = p, .ap = ap);
    kc_run_for(cg_xpby_s, all, .s = s, .c = c, .p = p, .r = r);
    c = 1 - c;
    it++;
    if (it % check == 0)
      kc_memcpy(&rr, &s[1 + c], sizeof rr); /* waits for the iteration */
  }
  kc_fence();
  const double elapsed = now() - t0;

  /* The true residual, from scratch: r = b - A x. */
  spmv(&a, x, ap);
  kc_run_for(cg_resid, all, .b = b, .ax = ap, .r = r);
  const double resid = sqrt(dot(r, r, rows)) / bnorm;
  double *hx = ones; /* reuse the host buffer for the solution */
  kc_memcpy(hx, x, vbytes);
  double sum = 0;
  for (int64_t q = 0; q < rows; q++)
    sum += hx[q];

  /* Bytes per iteration, as the kernels run: spmv (values and columns,
   * the CSR forms' row pointers, the ELL form's padding entries too; x
   * once (reused from cache), y), then the team form's dot p.Ap (the row
   * and ELL forms' is fused: p[row] was just read), the update (reads x r p
   * Ap, writes x r; r.r fused), xpby (reads r p, writes p). */
  const double matrix_bytes = spmv_form == SPMV_ELL
                                  ? (double)rows * CG_ELL_WIDTH * 12
                                  : (double)nnz * 12 + (double)(rows + 1) * 4;
  const double bytes_it =
      matrix_bytes +
      (double)rows * 8 * (2 + (spmv_form == SPMV_TEAM ? 2 : 0) + 6 + 3);
  const int converged = resid < tol * 10 && it < maxit;
  printf("grid: %lld^3, %lld rows, %lld nonzeros\n", (long long)n,
         (long long)rows, (long long)nnz);
  printf("spmv: %s\n", spmv_form == SPMV_TEAM  ? "team (CSR)"
                       : spmv_form == SPMV_ROW ? "row (CSR)"
                                               : "ell");
  printf("iterations: %lld\n", (long long)it);
  printf("residual: %.3e (tolerance %.1e)%s\n", resid, tol,
         converged ? "" : " NOT CONVERGED");
  printf("solution checksum: %.12e\n", sum);
  printf("time per iteration: %.3f us\n",
         it ? 1e6 * elapsed / (double)it : 0.0);
  printf("bandwidth: %.2f GB/s\n",
         it ? bytes_it * (double)it / elapsed / 1e9 : 0.0);

  kc_free((void *)a.rowptr);
  kc_free((void *)a.col);
  kc_free((void *)a.val);
  kc_free(ell_col);
  kc_free(ell_val);
  kc_free(b);
  kc_free(r);
  kc_free(p);
  kc_free(x);
  kc_free(ap);
  kc_free(s);
  free(rowptr);
  free(col);
  free(val);
  free(ones);
  kc_finalize();
  return converged ? 0 : 1;
}
#endif
