/* md — multi-dimensional ranges and teams: a tiled transpose and a 2-D
 * 5-point stencil, kc's kernels against hand-written ones in one run.
 *
 * Two problems on an n x n row-major matrix of doubles (-n; 16384 on cuda,
 * 4096 on host backends):
 *
 * transpose  out[j][i] = in[i][j] over the whole matrix;
 * stencil    out[i][j] = c0 in[i][j] + c1 (in[i-1][j] + in[i+1][j] +
 *            in[i][j-1] + in[i][j+1]) over the interior.
 *
 * Each problem runs as (md.kc.c):
 *
 * MD range   a KC_MDFOR over kc_mdrange(2, ...), the last index fastest
 *            (kc's default, Kokkos' Iterate::Right) and the first index
 *            fastest (kc_policy_set_iterate KC_ITERATE_LEFT); each with
 *            tiles of 32 x 32 and with the backend's choice (NULL).
 *            The transpose reads in[i][j] and writes out[j][i], so one of
 *            the two is strided whichever index is fastest; the stencil is
 *            contiguous with the last index fastest.
 * strips     (the stencil only) the hand-written strip kernel's algorithm
 *            as an MD range (mdb_stencil_strip): point (s, j) is column j
 *            of the s-th strip of 8 interior rows, walked down with the
 *            rows above and below in registers; tiles of 8 strips x 32
 *            columns and the backend's choice.
 * team       a KC_TEAM kernel, one team per 32 x 32 tile, 8 threads of 32
 *            lanes (a 32 x 8 block on a GPU; one thread with one lane on a
 *            host backend), the tile staged in level-0 scratch (transpose:
 *            rows of 33 doubles, a pad column against bank conflicts;
 *            stencil: the tile and its halo, 34 x 34), a team barrier
 *            between the load and the store.
 *
 * bands      (--teams L, the transpose only) a KC_TEAM kernel over L
 *            teams, team r the r-th band of n / L rows, its threads
 *            sharing out the band's 32 x 32 tiles in row-major order, each
 *            moved as the OpenMP baseline moves it (mdb_team_bands),
 *            twice: with team size 1 and KC_AUTO.  With L below the
 *            thread count, host backends keep every thread busy only with
 *            teams of several threads (KC_AUTO).
 *
 * and the baseline, in the same process: on cuda hand-written kernels of
 * baseline.cu launched with raw cuLaunchKernel (the classic shared-memory
 * transpose, [32][33] tile, 32 x 8 threads; the stencil one point per
 * thread in 32 x 8 blocks, and down strips of 8 rows per thread: the faster
 * of the two is the baseline), on host backends OpenMP loops (md-omp.c:
 * the transpose by 32 x 32 and by 64 x 64 tiles, the faster being the
 * baseline; the stencil by rows) with kc's thread count.
 *
 * Each repetition (--reps, after one untimed) runs every variant of a
 * problem once, kc's and the baseline's in turn, the order reversed every
 * other repetition; a variant's sample is --batch launches closed by one
 * fence (kc_fence, cuCtxSynchronize), divided by --batch.  Each row gives
 * the median sample, GB/s counting 2 n^2 doubles moved (one read, one
 * write of the matrix, for both problems), and kc/base: the baseline's
 * median time over the row's, so above 1 kc is faster.  On cuda the
 * issue's targets stand beside the rows they bound: the team transpose >=
 * 0.90, the best MD-range transpose >= 0.50, the best MD-range stencil >=
 * 0.95.
 *
 * Then every variant runs once more into an output filled with NaN: each
 * baseline is checked against the formula on a sample of rows, and every
 * kc output (and a second baseline's) against the first baseline's, at
 * every point (transpose: exactly; stencil: the interior, within 1e-12
 * relative).  A wrong answer exits 1.  Exits 77 (SKIP) when the backend is
 * absent, or on cuda when bench/baseline.cu's PTX was not built.
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kc/kernel.h>

#include "bench.h"
#include "cudadrv.h"
#include "md-omp.h"
#include "md.h"

KC_KERNEL_DECLARE(mdb_init);
KC_KERNEL_DECLARE(mdb_fill);
KC_KERNEL_DECLARE(mdb_transpose);
KC_KERNEL_DECLARE(mdb_stencil);
KC_KERNEL_DECLARE(mdb_stencil_strip);
KC_KERNEL_DECLARE(mdb_team_transpose);
KC_KERNEL_DECLARE(mdb_team_stencil);
KC_KERNEL_DECLARE(mdb_team_bands);

static const char *prog = "md";

enum { P_TRANSPOSE, P_STENCIL, P_COUNT };
enum { V_MD, V_TEAM, V_BASE, V_BANDS };
/* The baselines. */
enum {
  B_OMP_TILE32,
  B_OMP_TILE64,
  B_OMP_STENCIL,
  B_CU_TRANSPOSE,
  B_CU_STENCIL,
  B_CU_STRIP
};
#define MAXV 10
/* The hand-written stencils' block: 32 x 8 threads; a strip thread does
 * 8 rows (baseline.cu's MDB_STRIP). */
#define CU_BX 32
#define CU_BY 8
#define CU_STRIP 8

typedef struct opts {
  long long n;
  long long teams; /* --teams: the bands variants' league, 0: none */
  int reps, batch, only;
  double pause_ms;
  const char *csv;
} opts;

typedef struct variant {
  int kind;
  int tile;  /* MD: MD_TILE, or 0: the backend's choice */
  int left;  /* MD: the first index fastest */
  int strip; /* MD, the stencil: by strips of MD_STRIP rows (tile: MD_STRIP
                strips x MD_TILE columns, or 0) */
  int base;  /* V_BASE: which; V_BANDS: the team size */
  const char *id, *label;
  double *t; /* --reps samples, seconds per launch */
  double med, min;
} variant;

typedef struct problem {
  const char *name, *formula;
  kc_kernel *md, *team;
  kc_index lo, hi; /* the MD range, both dimensions */
  int stencil;     /* 0: the transpose, compared exactly */
  int64_t ntiles;  /* team kernels: tiles across a row */
  size_t scratch;  /* team kernels: level-0 bytes per team */
  double target_md, target_team;
  int nv;
  variant v[MAXV];
} problem;

typedef struct ctx {
  opts o;
  kc_info info;
  int host;
  size_t bytes;   /* one matrix */
  double *in;     /* kc: the input (on cuda the baseline's too) */
  double *out;    /* kc: the output */
  double *bin;    /* baseline: the input */
  double *bout;   /* baseline: the output */
  double *href;   /* host: the first baseline's output */
  double *hgot;   /* host: the output being checked */
  char base[512]; /* what the baseline is */
  bench_cuda cu;
  CUfunction cu_fn[B_CU_STRIP + 1];
  int targets, met, wrong;
} ctx;

/* ------------------------------------------------------------------ kc */

static struct md_functor functor(const ctx *x, const problem *p, double *out) {
  struct md_functor f = {x->in, out, x->o.n, p->ntiles, MD_C0, MD_C1};
  return f;
}

/* One launch of kc variant v, writing out. */
static void kc_launch(ctx *x, problem *p, const variant *v, double *out) {
  struct md_functor f = functor(x, p, out);
  if (v->kind == V_BANDS) {
    const long long rows = (x->o.n + x->o.teams - 1) / x->o.teams;
    f.ntiles = rows;
    kc_policy pol = kc_team_policy((x->o.n + rows - 1) / rows, v->base, 1);
    BENCH_KC(kc_parallel_for(p->name, KC_KERNEL(mdb_team_bands), &pol, &f,
                             sizeof f));
    return;
  }
  if (v->kind == V_TEAM) {
    const kc_index league = (kc_index)(p->ntiles * p->ntiles);
    kc_policy pol = kc_team_policy(league, MD_TEAM_THREADS, MD_TEAM_LANES);
    BENCH_KC(kc_policy_set_scratch(&pol, 0, p->scratch, 0));
    BENCH_KC(kc_parallel_for(p->name, p->team, &pol, &f, sizeof f));
    return;
  }
  if (v->strip) {
    /* Strip s of the interior's rows by its columns. */
    const kc_index lo[2] = {0, p->lo},
                   hi[2] = {(p->hi - p->lo + MD_STRIP - 1) / MD_STRIP, p->hi};
    const kc_index tile[2] = {MD_STRIP, MD_TILE};
    kc_policy pol = kc_mdrange(2, lo, hi, v->tile ? tile : NULL);
    BENCH_KC(kc_parallel_for(p->name, KC_KERNEL(mdb_stencil_strip), &pol, &f,
                             sizeof f));
    return;
  }
  const kc_index lo[2] = {p->lo, p->lo}, hi[2] = {p->hi, p->hi};
  const kc_index tile[2] = {MD_TILE, MD_TILE};
  kc_policy pol = kc_mdrange(2, lo, hi, v->tile ? tile : NULL);
  if (v->left)
    BENCH_KC(kc_policy_set_iterate(&pol, KC_ITERATE_LEFT));
  BENCH_KC(kc_parallel_for(p->name, p->md, &pol, &f, sizeof f));
}

/* An MD kernel of md.kc.c over the whole matrix (mdb_init, mdb_fill). */
static void kc_whole(ctx *x, kc_kernel *k, double *out, double value) {
  const kc_index lo[2] = {0, 0}, hi[2] = {x->o.n, x->o.n};
  struct md_functor f = {x->in, out, x->o.n, 0, value, 0.0};
  kc_policy pol = kc_mdrange(2, lo, hi, NULL);
  BENCH_KC(kc_parallel_for("md fill", k, &pol, &f, sizeof f));
  BENCH_KC(kc_fence());
}

/* ------------------------------------------------------------ baseline */

static CUdeviceptr dptr(const void *p) { return (CUdeviceptr)(uintptr_t)p; }

static unsigned cdiv(long long a, long long b) {
  return (unsigned)((a + b - 1) / b);
}

/* One launch of baseline `b`, writing out. */
static void base_launch(ctx *x, int b, double *out) {
  const long long n = x->o.n;
  if (b == B_OMP_TILE32 || b == B_OMP_TILE64)
    omp_md_transpose(x->bin, out, (ptrdiff_t)n, b == B_OMP_TILE32 ? 32 : 64);
  if (b == B_OMP_STENCIL)
    omp_md_stencil(x->bin, out, (ptrdiff_t)n, MD_C0, MD_C1);
  if (b < B_CU_TRANSPOSE)
    return;
  CUdeviceptr in = dptr(x->bin), o = dptr(out);
  double c0 = MD_C0, c1 = MD_C1;
  void *args[] = {&in, &o, (void *)&n, &c0, &c1};
  unsigned gx = cdiv(n, MD_TILE), gy = gx, bx = MD_TILE, by = CU_BY;
  if (b == B_CU_STENCIL)
    gy = cdiv(n, CU_BY);
  if (b == B_CU_STRIP)
    gy = cdiv(n - 2, CU_BY * CU_STRIP);
  BENCH_CU(&x->cu, x->cu.cuLaunchKernel(x->cu_fn[b], gx, gy, 1, bx, by, 1, 0,
                                        NULL, args, NULL));
}

static void base_fence(ctx *x) {
  if (!x->host)
    BENCH_CU(&x->cu, x->cu.cuCtxSynchronize());
}

/* --------------------------------------------------------------- runs */

/* `count` launches of v closed by one fence: seconds per launch. */
static double run(ctx *x, problem *p, const variant *v, int count) {
  if (v->kind == V_BASE && !x->host) /* kc may have switched the context */
    BENCH_CU(&x->cu, x->cu.cuCtxSetCurrent(x->cu.ctx));
  const double t0 = bench_now();
  for (int k = 0; k < count; k++) {
    if (v->kind == V_BASE)
      base_launch(x, v->base, x->bout);
    else
      kc_launch(x, p, v, x->out);
  }
  if (v->kind == V_BASE)
    base_fence(x);
  else
    BENCH_KC(kc_fence());
  return (bench_now() - t0) / count;
}

/* An OpenMP runtime's idle workers spin for milliseconds after a loop
 * (libgomp: about 7 ms) and would take a core from the variant that
 * follows; a pause on host backends lets them sleep (bench/stream's). */
static void pause_host(const ctx *x) {
  if (!x->host || x->o.pause_ms <= 0)
    return;
  struct timespec ts = {(time_t)(x->o.pause_ms / 1000),
                        (long)(fmod(x->o.pause_ms, 1000.0) * 1e6)};
  nanosleep(&ts, NULL);
}

static void measure(ctx *x, problem *p) {
  for (int r = -1; r < x->o.reps; r++)
    for (int k = 0; k < p->nv; k++) {
      variant *v = &p->v[r & 1 ? p->nv - 1 - k : k];
      pause_host(x);
      const double t = run(x, p, v, x->o.batch);
      if (r >= 0)
        v->t[r] = t;
    }
  for (int k = 0; k < p->nv; k++)
    p->v[k].med = bench_median(p->v[k].t, x->o.reps, &p->v[k].min);
}

/* --------------------------------------------------------- validation */

static void fetch(const ctx *x, double *dst, const double *src) {
  if (x->host)
    memcpy(dst, src, x->bytes);
  else
    BENCH_KC(kc_memcpy(dst, src, x->bytes));
}

/* Whether got is want: exactly for the transpose, within 1e-12 relative
 * (absolute below 1) for the stencil. */
static int same(const problem *p, double got, double want) {
  if (!p->stencil)
    return got == want;
  return fabs(got - want) <= 1e-12 * fmax(1.0, fabs(want));
}

static double expect(const problem *p, long long i, long long j) {
  if (!p->stencil)
    return MD_INPUT(j, i);
  return MD_C0 * MD_INPUT(i, j) +
         MD_C1 * (MD_INPUT(i - 1, j) + MD_INPUT(i + 1, j) + MD_INPUT(i, j - 1) +
                  MD_INPUT(i, j + 1));
}

static void wrong(ctx *x, const problem *p, const variant *v, long long bad,
                  long long i, long long j, double got, double want,
                  const char *against) {
  fprintf(stderr,
          "%s: %s: %s: wrong result at %lld points; first out[%lld][%lld] "
          "= %.17g, %s %.17g\n",
          prog, p->name, v->label, bad, i, j, got, against, want);
  x->wrong++;
}

/* A baseline's output (in hgot) against the formula, on 65 rows spread
 * from the range's first to its last. */
static void check_formula(ctx *x, const problem *p, const variant *v) {
  const long long n = x->o.n, lo = p->lo, hi = p->hi;
  long long bad = 0, bi = 0, bj = 0;
  for (int k = 0; k <= 64; k++)
    for (long long j = lo, i = lo + (hi - 1 - lo) * k / 64; j < hi; j++) {
      const double got = x->hgot[i * n + j];
      if (!same(p, got, expect(p, i, j)) && bad++ == 0)
        bi = i, bj = j;
    }
  if (bad)
    wrong(x, p, v, bad, bi, bj, x->hgot[bi * n + bj], expect(p, bi, bj),
          "formula");
}

/* hgot against href over the problem's range; in parallel, where the
 * programs have OpenMP (at n = 16384 a serial pass takes about a second,
 * and there are a dozen). */
static void check_ref(ctx *x, const problem *p, const variant *v) {
  const long long n = x->o.n, lo = p->lo, hi = p->hi;
  const double *got = x->hgot, *want = x->href;
  long long bad = 0, first = n * n;
#pragma omp parallel for reduction(+ : bad) reduction(min : first)
  for (long long i = lo; i < hi; i++)
    for (long long j = lo; j < hi; j++)
      if (!same(p, got[i * n + j], want[i * n + j])) {
        bad++;
        first = i * n + j < first ? i * n + j : first;
      }
  if (bad)
    wrong(x, p, v, bad, first / n, first % n, got[first], want[first],
          "baseline");
}

/* Every variant once more into an output of NaN, then checked. */
static void validate(ctx *x, problem *p) {
  int have_ref = 0;
  for (int k = 0; k < p->nv; k++) {
    const variant *v = &p->v[k];
    if (v->kind != V_BASE)
      continue;
    if (x->host)
      omp_md_fill(x->bout, (ptrdiff_t)x->o.n, NAN);
    else
      kc_whole(x, KC_KERNEL(mdb_fill), x->bout, NAN);
    run(x, p, v, 1);
    fetch(x, x->hgot, x->bout);
    check_formula(x, p, v);
    if (have_ref)
      check_ref(x, p, v);
    else
      memcpy(x->href, x->hgot, x->bytes);
    have_ref = 1;
  }
  for (int k = 0; k < p->nv; k++) {
    const variant *v = &p->v[k];
    if (v->kind == V_BASE)
      continue;
    kc_whole(x, KC_KERNEL(mdb_fill), x->out, NAN);
    run(x, p, v, 1);
    fetch(x, x->hgot, x->out);
    check_ref(x, p, v);
  }
}

/* -------------------------------------------------------------- table */

/* The best (fastest) variant of a kind. */
static const variant *best(const problem *p, int kind) {
  const variant *b = NULL;
  for (int k = 0; k < p->nv; k++)
    if (p->v[k].kind == kind && (!b || p->v[k].med < b->med))
      b = &p->v[k];
  return b;
}

static int report(ctx *x, const problem *p, const variant *v, double ratio) {
  const variant *bm = best(p, V_MD);
  double limit = 0;
  const char *what = "";
  if (x->host)
    return 0;
  if (v == bm && p->target_md > 0)
    limit = p->target_md, what = " (best MD range)";
  if (v->kind == V_TEAM && p->target_team > 0)
    limit = p->target_team;
  if (limit <= 0)
    return 0;
  const int ok = ratio >= limit;
  x->targets++;
  x->met += ok;
  printf("  >= %.2f%s: %s", limit, what, ok ? "ok" : "MISSED");
  return ok ? 1 : -1;
}

static void table(ctx *x, const problem *p, FILE *csv) {
  const double moved = 2.0 * (double)x->o.n * (double)x->o.n * 8.0;
  const variant *bb = best(p, V_BASE);
  printf("\n%s: %s, %lld x %lld doubles, %.2f GB moved per launch\n", p->name,
         p->formula, x->o.n, x->o.n, moved * 1e-9);
  printf("  %-48s %10s %9s %8s   %s\n", "variant", "ms", "GB/s", "kc/base",
         x->host ? "" : "target");
  for (int k = 0; k < p->nv; k++) {
    const variant *v = &p->v[k];
    const double gbs = moved / v->med * 1e-9, ratio = bb->med / v->med;
    printf("  %-48s %10.3f %9.1f %8.3f", v->label, v->med * 1e3, gbs, ratio);
    if (v == bb)
      printf("  (baseline)");
    const int t = report(x, p, v, ratio);
    printf("\n");
    if (csv)
      fprintf(csv, "%s,%d,%s,%lld,%s,%s,%s,%s,%.9f,%.9f,%.3f,%.4f,%s,\"%s\"\n",
              x->info.backend, x->info.num_threads, p->name, x->o.n, v->id,
              v->kind == V_MD                           ? "md"
              : v->kind == V_TEAM || v->kind == V_BANDS ? "team"
                                                        : "baseline",
              v->strip && v->tile            ? "8x32"
              : v->kind == V_TEAM || v->tile ? "32x32"
              : v->kind == V_MD              ? "auto"
                                             : "",
              v->kind != V_MD ? ""
              : v->left       ? "left"
                              : "right",
              v->med, v->min, gbs, ratio,
              t == 0  ? ""
              : t > 0 ? "met"
                      : "missed",
              x->base);
  }
}

/* ------------------------------------------------------------ set-up */

static void add(problem *p, int kind, int tile, int left, int base,
                const char *id, const char *label) {
  if (p->nv == MAXV)
    bench_die(prog, "too many variants");
  variant *v = &p->v[p->nv++];
  memset(v, 0, sizeof *v);
  v->kind = kind, v->tile = tile, v->left = left, v->base = base;
  v->id = id, v->label = label;
}

static void add_md(problem *p) {
  add(p, V_MD, MD_TILE, 0, 0, "md-right-32",
      "MD range, last index fastest, tile 32x32");
  add(p, V_MD, 0, 0, 0, "md-right-auto",
      "MD range, last index fastest, tile NULL");
  add(p, V_MD, MD_TILE, 1, 0, "md-left-32",
      "MD range, first index fastest, tile 32x32");
  add(p, V_MD, 0, 1, 0, "md-left-auto",
      "MD range, first index fastest, tile NULL");
}

static void problems(ctx *x, problem *p) {
  const long long n = x->o.n;
  memset(p, 0, P_COUNT * sizeof *p);
  problem *t = &p[P_TRANSPOSE], *s = &p[P_STENCIL];
  t->name = "transpose";
  t->formula = "out[j][i] = in[i][j]";
  t->md = KC_KERNEL(mdb_transpose);
  t->team = KC_KERNEL(mdb_team_transpose);
  t->lo = 0, t->hi = n;
  t->ntiles = (n + MD_TILE - 1) / MD_TILE;
  t->scratch = MD_TILE * MD_PAD * sizeof(double);
  t->target_md = 0.50, t->target_team = 0.90;
  add_md(t);
  add(t, V_TEAM, 0, 0, 0, "team", "team, 32x33 tile in level-0 scratch, 8x32");
  if (x->o.teams > 0) {
    add(t, V_BANDS, 0, 0, 1, "bands-1", "team, --teams bands, team size 1");
    add(t, V_BANDS, 0, 0, KC_AUTO, "bands-auto",
        "team, --teams bands, team size KC_AUTO");
  }
  s->name = "stencil";
  s->stencil = 1;
  s->formula = "5-point, interior";
  s->md = KC_KERNEL(mdb_stencil);
  s->team = KC_KERNEL(mdb_team_stencil);
  s->lo = 1, s->hi = n - 1;
  s->ntiles = (n - 2 + MD_TILE - 1) / MD_TILE;
  s->scratch = MD_HALO * MD_HALO * sizeof(double);
  s->target_md = 0.95;
  add_md(s);
  add(s, V_MD, MD_STRIP, 0, 0, "md-strip-8x32",
      "MD range, 8-row strips, tile 8x32");
  s->v[s->nv - 1].strip = 1;
  add(s, V_MD, 0, 0, 0, "md-strip-auto", "MD range, 8-row strips, tile NULL");
  s->v[s->nv - 1].strip = 1;
  add(s, V_TEAM, 0, 0, 0, "team",
      "team, 34x34 tile+halo in level-0 scratch, 8x32");
  if (x->host) {
    add(t, V_BASE, 0, 0, B_OMP_TILE32, "omp-tile32",
        "OpenMP, 32x32 tiles, collapse(2)");
    add(t, V_BASE, 0, 0, B_OMP_TILE64, "omp-tile64",
        "OpenMP, 64x64 tiles, collapse(2)");
    add(s, V_BASE, 0, 0, B_OMP_STENCIL, "omp", "OpenMP, rows, inner omp simd");
  } else {
    add(t, V_BASE, 0, 0, B_CU_TRANSPOSE, "cuda-smem",
        "CUDA, smem tile [32][33], 32x8 threads");
    add(s, V_BASE, 0, 0, B_CU_STENCIL, "cuda-2d",
        "CUDA, a point per thread, 32x8 blocks");
    add(s, V_BASE, 0, 0, B_CU_STRIP, "cuda-strip",
        "CUDA, 8-row strip per thread, 32x8 blocks");
  }
  for (int q = 0; q < P_COUNT; q++) {
    if (!p[q].md || !p[q].team || !KC_KERNEL(mdb_team_bands) ||
        !KC_KERNEL(mdb_stencil_strip))
      bench_die(prog, "the kernels of md.kc.c are not registered");
    for (int k = 0; k < p[q].nv; k++) {
      p[q].v[k].t = calloc((size_t)x->o.reps, sizeof(double));
      if (!p[q].v[k].t)
        bench_die(prog, "out of memory");
    }
  }
}

/* The raw side on cuda: exits 77 (SKIP) without the baseline's PTX. */
static void cuda_setup(ctx *x) {
  int rc = bench_cuda_open(&x->cu, x->info.device < 0 ? 0 : x->info.device,
                           bench_ptx, x->base, sizeof x->base);
  if (rc == -1) {
    printf("SKIP: %s: no hand-written CUDA baseline: %s\n", prog, x->base);
    kc_finalize();
    exit(BENCH_SKIP);
  }
  if (rc != 0)
    bench_die(prog, "%s", x->base);
  x->cu_fn[B_CU_TRANSPOSE] =
      bench_cuda_function(&x->cu, "bench_md_transpose_f64");
  x->cu_fn[B_CU_STENCIL] = bench_cuda_function(&x->cu, "bench_md_stencil_f64");
  x->cu_fn[B_CU_STRIP] =
      bench_cuda_function(&x->cu, "bench_md_stencil_strip_f64");
  if (cdiv(x->o.n, CU_BY) > 65535)
    bench_die(prog, "-n %lld: too large for the CUDA baseline's grid", x->o.n);
  snprintf(x->base, sizeof x->base,
           "hand-written CUDA (bench/baseline.cu), raw cuLaunchKernel; the "
           "stencil's is the faster of its two kernels");
  /* The input is kc's: kc_malloc(KC_SPACE_DEVICE) gives CUdeviceptrs of
   * the primary context. */
  x->bin = x->in;
  BENCH_KC(kc_malloc((void **)&x->bout, x->bytes, KC_SPACE_DEVICE,
                     "md baseline out"));
  kc_whole(x, KC_KERNEL(mdb_fill), x->bout, 0.0);
}

static void host_setup(ctx *x) {
  const int got = bench_omp_set_threads(x->info.num_threads);
  snprintf(x->base, sizeof x->base,
           "%s, %d thread%s; the transpose's is the faster of its two tile "
           "sizes",
           bench_omp_label(), got, got == 1 ? "" : "s");
  x->bin = bench_host_alloc(prog, x->bytes);
  x->bout = bench_host_alloc(prog, x->bytes);
  omp_md_init(x->bin, x->bout, (ptrdiff_t)x->o.n);
}

static void setup(ctx *x) {
  if (!KC_KERNEL(mdb_init) || !KC_KERNEL(mdb_fill))
    bench_die(prog, "the kernels of md.kc.c are not registered");
  BENCH_KC(kc_malloc((void **)&x->in, x->bytes, KC_SPACE_DEVICE, "md in"));
  BENCH_KC(kc_malloc((void **)&x->out, x->bytes, KC_SPACE_DEVICE, "md out"));
  kc_whole(x, KC_KERNEL(mdb_init), x->in, 0.0);
  kc_whole(x, KC_KERNEL(mdb_fill), x->out, 0.0);
  if (x->host)
    host_setup(x);
  else
    cuda_setup(x);
  x->href = bench_host_alloc(prog, x->bytes);
  x->hgot = bench_host_alloc(prog, x->bytes);
}

static void teardown(ctx *x, problem *p) {
  for (int q = 0; q < P_COUNT; q++)
    for (int k = 0; k < p[q].nv; k++)
      free(p[q].v[k].t);
  free(x->href);
  free(x->hgot);
  if (x->host) {
    free(x->bin);
    free(x->bout);
  } else {
    BENCH_KC(kc_free(x->bout));
    bench_cuda_close(&x->cu);
  }
  BENCH_KC(kc_free(x->in));
  BENCH_KC(kc_free(x->out));
}

/* --------------------------------------------------------------- main */

static const char *usage =
    "usage: md [-n N] [--reps R] [--batch B] [--only transpose|stencil]\n"
    "          [--csv FILE] [--pause-ms T] [--teams L]\n"
    "  A tiled transpose and a 5-point stencil of an N x N matrix of\n"
    "  doubles as kc MD-range and team kernels, against hand-written CUDA\n"
    "  (cuda) or OpenMP (host backends) in the same run.\n"
    "  -n N             matrix edge (16384 on cuda, 4096 on host backends)\n"
    "  --reps R         repetitions, median reported (21 on cuda, 11 on\n"
    "                   host backends)\n"
    "  --batch B        launches per timed sample (5 on cuda, 1 on host)\n"
    "  --only P         one problem: transpose or stencil (default both)\n"
    "  --csv FILE       write the figures as CSV\n"
    "  --pause-ms T     pause before each sample on host backends (10)\n"
    "  --teams L        also the transpose by L teams of row bands, with team\n"
    "                   size 1 and KC_AUTO (a league below the thread count)\n"
    "Exit status: 0 results valid, 1 a wrong answer or an error, 77 backend\n"
    "absent or (cuda) no baseline PTX.\n";

static void parse(opts *o, int argc, char **argv) {
  static const struct option lo[] = {{"size", required_argument, NULL, 'n'},
                                     {"reps", required_argument, NULL, 'r'},
                                     {"batch", required_argument, NULL, 'b'},
                                     {"only", required_argument, NULL, 'o'},
                                     {"csv", required_argument, NULL, 'c'},
                                     {"pause-ms", required_argument, NULL, 'p'},
                                     {"teams", required_argument, NULL, 't'},
                                     {"help", no_argument, NULL, 'h'},
                                     {NULL, 0, NULL, 0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "n:h", lo, NULL)) != -1) {
    switch (ch) {
    case 'n':
      o->n = (long long)bench_parse_size(prog, "-n", optarg);
      break;
    case 'r':
      o->reps = atoi(optarg);
      break;
    case 'b':
      o->batch = atoi(optarg);
      break;
    case 'o':
      if (!strcmp(optarg, "transpose"))
        o->only |= 1 << P_TRANSPOSE;
      else if (!strcmp(optarg, "stencil"))
        o->only |= 1 << P_STENCIL;
      else
        bench_die(prog, "--only %s: transpose or stencil", optarg);
      break;
    case 'c':
      o->csv = optarg;
      break;
    case 'p':
      o->pause_ms = atof(optarg);
      break;
    case 't':
      o->teams = atoll(optarg);
      break;
    case 'h':
      fputs(usage, stdout);
      exit(0);
    default:
      fputs(usage, stderr);
      exit(2);
    }
  }
  if (optind != argc || o->reps < 0 || o->batch < 0 || o->pause_ms < 0 ||
      o->teams < 0 || (o->n != 0 && o->n < 4) || o->n > (1LL << 31)) {
    fputs(usage, stderr);
    exit(2);
  }
}

int main(int argc, char **argv) {
  ctx x;
  memset(&x, 0, sizeof x);
  x.o.pause_ms = 10.0;
  parse(&x.o, argc, argv);
  setvbuf(stdout, NULL, _IOLBF, 0);
  bench_init(prog, &x.info);
  x.host = bench_is_host_backend(&x.info);
  if (!x.host && strcmp(kc_backend_name(), "cuda")) {
    printf("SKIP: %s: backend '%s' is neither cuda nor a host backend (no "
           "baseline to compare with)\n",
           prog, kc_backend_name());
    kc_finalize();
    return BENCH_SKIP;
  }
  if (x.o.n == 0)
    x.o.n = x.host ? 4096 : 16384;
  if (x.o.reps == 0)
    x.o.reps = x.host ? 11 : 21;
  if (x.o.batch == 0)
    x.o.batch = x.host ? 1 : 5;
  if (!x.o.only)
    x.o.only = (1 << P_TRANSPOSE) | (1 << P_STENCIL);
  x.bytes = (size_t)x.o.n * (size_t)x.o.n * sizeof(double);

  problem p[P_COUNT];
  problems(&x, p);
  printf("md: kc %s on backend %s (%s), %d thread%s; n = %lld (%.2f GB per "
         "matrix); median of %d repetitions of %d launch%s\n",
         kc_version(), x.info.backend, x.info.dev.name, x.info.num_threads,
         x.info.num_threads == 1 ? "" : "s", x.o.n, (double)x.bytes * 1e-9,
         x.o.reps, x.o.batch, x.o.batch == 1 ? "" : "es");
  setup(&x);
  printf("md: baseline: %s\n", x.base);

  FILE *csv = bench_csv_open(
      prog, x.o.csv,
      "backend,threads,problem,n,variant,kind,tile,order,median_s,min_s,gbs,"
      "ratio,target,baseline");
  for (int q = 0; q < P_COUNT; q++) {
    if (!(x.o.only & (1 << q)))
      continue;
    measure(&x, &p[q]);
    validate(&x, &p[q]);
    table(&x, &p[q], csv);
  }
  bench_csv_close(prog, csv, x.o.csv);
  printf("\n(ms: median time per launch; GB/s: 2 n^2 doubles moved per "
         "launch; kc/base: the baseline's time over the row's, > 1 = kc "
         "faster)\n");
  if (!x.host)
    printf("targets: %d of %d met\n", x.met, x.targets);
  printf("validation: %s\n", x.wrong ? "FAILED" : "every output checked, OK");

  teardown(&x, p);
  BENCH_KC(kc_finalize());
  return x.wrong ? 1 : 0;
}
