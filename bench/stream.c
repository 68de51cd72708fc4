/* kc benchmarks — stream: memory bandwidth of kc kernels against the
 * hand-written baseline, BabelStream's method.
 *
 * Kernels Copy, Mul, Add, Triad, Dot (one loop: the "classic" set) and then
 * Nstream (its own loop), each timed over -n runs; bandwidth is the bytes
 * each kernel must move divided by its minimum time, the first run left out
 * as warm-up.  The kc kernels (stream.kc.c) run on the backend KC_BACKEND
 * names; the baseline, in the same process, is OpenMP loops (stream-omp.c)
 * on host backends and hand-written CUDA kernels (baseline.cu) launched
 * with raw cuLaunchKernel on the cuda backend, over device memory from
 * kc_malloc: the CUDA runs alternate between two layouts of each kernel
 * (one element per thread; a grid-stride loop with several loads in
 * flight), so the baseline's best time is the better layout's.  Both answers
 * are checked against the gold recurrence; a wrong one makes the run exit 1.
 *
 * The two sides alternate run by run (kc's set of kernels, then the
 * baseline's, the order swapped every run), so a machine whose speed drifts
 * (a virtual machine sharing its host's memory bandwidth) drifts for both.
 * On the cuda backend the two sides also exchange their arrays halfway
 * through each loop (--no-swap: they keep their own): where a set of
 * arrays lies in device memory moves a kernel's time by about 0.5% on an
 * H100 (the set allocated second read faster), so each side runs half its
 * runs on each set and neither gets the better placement by the order of
 * setup.  Both sets are at the same step of the recurrence at the
 * exchange, so the answers stay checkable; a wrong answer may then show
 * in the other side's arrays (--no-swap tells which side is wrong).
 * On host backends a pause of --pause-ms (10 ms) separates the sides: an
 * OpenMP runtime's idle workers spin for milliseconds after a loop (libgomp:
 * about 7 ms) and would otherwise take a core from the kc kernel that
 * follows, or kc's pool from the OpenMP loop.
 */
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kc/kc.h>

#include "bench.h"
#include "cudadrv.h"
#include "stream-omp.h"
#include "stream.h"

static const char *prog = "stream";

enum { K_COPY, K_MUL, K_ADD, K_TRIAD, K_DOT, K_NSTREAM, K_COUNT };
static const char *const kname[K_COUNT] = {"Copy",  "Mul", "Add",
                                           "Triad", "Dot", "Nstream"};
static const char *const kid[K_COUNT] = {"copy",  "mul", "add",
                                         "triad", "dot", "nstream"};
/* Arrays read + written per element: BabelStream's byte counts. */
static const int karrays[K_COUNT] = {2, 2, 3, 3, 2, 4};

/* BabelStream's starting values. */
#define START_A 0.1
#define START_B 0.2
#define START_C 0.0
#define START_SCALAR 0.4

typedef struct opts {
  uint64_t elements;
  int runs;
  int use_float;
  int plain; /* --plain: the kc kernels without restrict */
  const char *csv;
  int cuda_block;
  double pause_ms;
  int base_first; /* --baseline-first */
  int no_swap;    /* --no-swap */
} opts;

/* One implementation's arrays and how to run its kernels. */
typedef struct side {
  const char *name;
  int available; /* 0: nothing to run (why[] says why) */
  char why[512];
  void *a, *b, *c; /* host pointers, or device pointers from kc_malloc */
  double times[K_COUNT][1024];
  double dot;
  double (*run)(struct side *s, int k); /* seconds for one launch */
} side;

static opts o = {1ull << 25, 100, 0, 0, NULL, 1024, 10.0, 0, 0};
static size_t es; /* element size */

/* ------------------------------------------------------------------ kc */

static kc_kernel *kck[K_COUNT], *kck_init;
static struct stream_f64 fun64;
static struct stream_f32 fun32;

static kc_kernel *kernel(const char *what) {
  char name[64];
  snprintf(name, sizeof name, "stream_%s_%s%s", what,
           o.use_float ? "f32" : "f64", o.plain ? "_plain" : "");
  kc_kernel *k;
  BENCH_KC(kc_kernel_get(name, &k));
  return k;
}

static double kc_run(side *s, int k) {
  kc_policy p = kc_range(0, (kc_index)o.elements);
  const void *f = o.use_float ? (const void *)&fun32 : (const void *)&fun64;
  size_t fs = o.use_float ? sizeof fun32 : sizeof fun64;
  double t0 = bench_now();
  if (k == K_DOT)
    BENCH_KC(kc_parallel_reduce(kid[k], kck[k], &p, f, fs, &s->dot));
  else
    BENCH_KC(kc_parallel_for(kid[k], kck[k], &p, f, fs));
  BENCH_KC(kc_fence());
  return bench_now() - t0;
}

/* Points kc's functors at the side's arrays. */
static void kc_point(const side *s) {
  fun64 = (struct stream_f64){s->a,    s->b,    s->c,   START_SCALAR,
                              START_A, START_B, START_C};
  fun32 = (struct stream_f32){
      s->a,           s->b,           s->c,          (float)START_SCALAR,
      (float)START_A, (float)START_B, (float)START_C};
}

static void kc_setup(side *s) {
  s->name = "kc";
  s->available = 1;
  s->run = kc_run;
  size_t bytes = o.elements * es;
  BENCH_KC(kc_malloc(&s->a, bytes, KC_SPACE_DEVICE, "stream a"));
  BENCH_KC(kc_malloc(&s->b, bytes, KC_SPACE_DEVICE, "stream b"));
  BENCH_KC(kc_malloc(&s->c, bytes, KC_SPACE_DEVICE, "stream c"));
  for (int k = 0; k < K_COUNT; k++)
    kck[k] = kernel(kid[k]);
  kck_init = kernel("init");
  kc_point(s);
  /* Initialised by a kernel of the backend itself, so on host backends
   * each worker first-touches the pages it will use. */
  kc_policy p = kc_range(0, (kc_index)o.elements);
  if (o.use_float)
    BENCH_KC(kc_parallel_for("init", kck_init, &p, &fun32, sizeof fun32));
  else
    BENCH_KC(kc_parallel_for("init", kck_init, &p, &fun64, sizeof fun64));
  BENCH_KC(kc_fence());
}

/* ------------------------------------------------------- OpenMP baseline */

static double omp_run(side *s, int k) {
  ptrdiff_t n = (ptrdiff_t)o.elements;
  double t0 = bench_now();
  if (o.use_float) {
    float *a = s->a, *b = s->b, *c = s->c, q = (float)START_SCALAR;
    switch (k) {
    case K_COPY:
      omp_stream_copy_f32(a, c, n);
      break;
    case K_MUL:
      omp_stream_mul_f32(b, c, q, n);
      break;
    case K_ADD:
      omp_stream_add_f32(a, b, c, n);
      break;
    case K_TRIAD:
      omp_stream_triad_f32(a, b, c, q, n);
      break;
    case K_DOT:
      s->dot = omp_stream_dot_f32(a, b, n);
      break;
    case K_NSTREAM:
      omp_stream_nstream_f32(a, b, c, q, n);
      break;
    }
  } else {
    double *a = s->a, *b = s->b, *c = s->c, q = START_SCALAR;
    switch (k) {
    case K_COPY:
      omp_stream_copy_f64(a, c, n);
      break;
    case K_MUL:
      omp_stream_mul_f64(b, c, q, n);
      break;
    case K_ADD:
      omp_stream_add_f64(a, b, c, n);
      break;
    case K_TRIAD:
      omp_stream_triad_f64(a, b, c, q, n);
      break;
    case K_DOT:
      s->dot = omp_stream_dot_f64(a, b, n);
      break;
    case K_NSTREAM:
      omp_stream_nstream_f64(a, b, c, q, n);
      break;
    }
  }
  return bench_now() - t0;
}

static void omp_setup(side *s, int threads) {
  int got = bench_omp_set_threads(threads);
  snprintf(s->why, sizeof s->why, "%s, %d thread%s", bench_omp_label(), got,
           got == 1 ? "" : "s");
  s->name = "OpenMP";
  s->available = 1;
  s->run = omp_run;
  size_t bytes = o.elements * es;
  s->a = bench_host_alloc(prog, bytes);
  s->b = bench_host_alloc(prog, bytes);
  s->c = bench_host_alloc(prog, bytes);
  ptrdiff_t n = (ptrdiff_t)o.elements;
  if (o.use_float)
    omp_stream_init_f32(s->a, s->b, s->c, (float)START_A, (float)START_B,
                        (float)START_C, n);
  else
    omp_stream_init_f64(s->a, s->b, s->c, START_A, START_B, START_C, n);
}

/* --------------------------------------------------------- CUDA baseline */

static bench_cuda cu;
static CUfunction cuf[K_COUNT];
/* The grid-stride layout of each kernel (for Dot: DOT_WAVES times the
 * resident blocks, where its first layout is BabelStream's 4 blocks per
 * SM), its grid (the resident blocks), and how many runs each kernel had:
 * runs alternate between the two layouts, so the best time of a kernel is
 * the better layout's. */
static CUfunction cuf_gs[K_COUNT];
static unsigned cu_gs_grid;
static unsigned cu_runs[K_COUNT];
/* Each layout's best time per kernel, runs 2.. of each (0: one element per
 * thread, 1: grid-stride), printed under the table. */
static double cu_best[K_COUNT][2];
static CUdeviceptr cu_partial;
static unsigned cu_dot_blocks;
static double *cu_partial_host;
/* Dot's second layout (bench_stream_dot_gs_*): DOT_WAVES times the
 * resident blocks, the partials added on the device (a ticket, zero
 * between launches, and the sum). */
#define DOT_WAVES 16
static CUdeviceptr cu_ticket, cu_sum;
/* Each Dot layout's answer in its last run, and that run's number (from
 * 1), checked after the loops: validate sees only the last run's. */
static double cu_dot_seen[2];
static unsigned cu_dot_at[2];

static double cuda_run(side *s, int k) {
  CUdeviceptr a = (CUdeviceptr)(uintptr_t)s->a,
              b = (CUdeviceptr)(uintptr_t)s->b,
              c = (CUdeviceptr)(uintptr_t)s->c;
  long long n = (long long)o.elements;
  double qd = START_SCALAR;
  float qf = (float)START_SCALAR;
  void *q = o.use_float ? (void *)&qf : (void *)&qd;
  void *args[5];
  unsigned block = (unsigned)o.cuda_block;
  unsigned grid = (unsigned)((o.elements + block - 1) / block);
  switch (k) {
  case K_COPY:
    args[0] = &a;
    args[1] = &c;
    args[2] = &n;
    break;
  case K_MUL:
    args[0] = &b;
    args[1] = &c;
    args[2] = q;
    args[3] = &n;
    break;
  case K_ADD:
    args[0] = &a;
    args[1] = &b;
    args[2] = &c;
    args[3] = &n;
    break;
  case K_TRIAD:
  case K_NSTREAM:
    args[0] = &a;
    args[1] = &b;
    args[2] = &c;
    args[3] = q;
    args[4] = &n;
    break;
  case K_DOT:
    args[0] = &a;
    args[1] = &b;
    args[2] = &cu_partial;
    args[3] = &n;
    grid = cu_dot_blocks;
    break;
  }
  CUfunction f = cuf[k];
  const unsigned run = cu_runs[k]++;
  const int gs = cuf_gs[k] && run % 2 == 1;
  void *dot_args[] = {&a, &b, &cu_partial, &cu_ticket, &cu_sum, &n};
  if (gs) {
    f = cuf_gs[k];
    grid = cu_gs_grid;
    if (k == K_DOT)
      grid = cu_gs_grid * DOT_WAVES;
  }
  /* kc's plugin may have switched the thread's context; not timed. */
  BENCH_CU(&cu, cu.cuCtxSetCurrent(cu.ctx));
  double t0 = bench_now();
  BENCH_CU(&cu, cu.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, NULL,
                                  gs && k == K_DOT ? dot_args : args, NULL));
  if (k == K_DOT && gs) {
    /* Only the sum comes back. */
    BENCH_CU(&cu, cu.cuMemcpyDtoH(&s->dot, cu_sum, sizeof s->dot));
  } else if (k == K_DOT) {
    /* As BabelStream: the partial sums come back and the host adds them. */
    BENCH_CU(&cu, cu.cuMemcpyDtoH(cu_partial_host, cu_partial,
                                  cu_dot_blocks * sizeof(double)));
    double sum = 0.0;
    for (unsigned i = 0; i < cu_dot_blocks; i++)
      sum += cu_partial_host[i];
    s->dot = sum;
  } else {
    BENCH_CU(&cu, cu.cuCtxSynchronize());
  }
  const double t = bench_now() - t0;
  if (k == K_DOT) {
    cu_dot_seen[gs] = s->dot;
    cu_dot_at[gs] = run + 1;
  }
  /* The first run of each layout is its warm-up. */
  if (run >= (cuf_gs[k] ? 2u : 1u) &&
      (cu_best[k][gs] == 0 || t < cu_best[k][gs]))
    cu_best[k][gs] = t;
  return t;
}

static void cuda_setup(side *s, int device) {
  s->name = "CUDA";
  int rc = bench_cuda_open(&cu, device, bench_ptx, s->why, sizeof s->why);
  if (rc == -2)
    bench_die(prog, "%s", s->why);
  if (rc != 0)
    return; /* reported in the table, kc's figures stand alone */
  const char *sfx = o.use_float ? "f32" : "f64";
  for (int k = 0; k < K_COUNT; k++) {
    char name[64];
    snprintf(name, sizeof name, "bench_stream_%s_%s", kid[k], sfx);
    cuf[k] = bench_cuda_function(&cu, name);
    snprintf(name, sizeof name, "bench_stream_%s_gs_%s", kid[k], sfx);
    cuf_gs[k] = bench_cuda_function(&cu, name);
  }
  int per_sm = 0;
  BENCH_CU(&cu, cu.cuDeviceGetAttribute(
                    &per_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
                    cu.dev));
  cu_gs_grid = (unsigned)cu.sms * (unsigned)(per_sm / o.cuda_block);
  if (cu_gs_grid < 1)
    cu_gs_grid = 1;
  char name[64];
  snprintf(name, sizeof name, "bench_stream_init_%s", sfx);
  CUfunction init = bench_cuda_function(&cu, name);
  cu_dot_blocks = (unsigned)cu.sms * 4;
  const unsigned partials = cu_gs_grid * DOT_WAVES > cu_dot_blocks
                                ? cu_gs_grid * DOT_WAVES
                                : cu_dot_blocks;
  BENCH_CU(&cu, cu.cuMemAlloc(&cu_partial, partials * sizeof(double)));
  BENCH_CU(&cu, cu.cuMemAlloc(&cu_ticket, sizeof(unsigned)));
  BENCH_CU(&cu, cu.cuMemsetD8(cu_ticket, 0, sizeof(unsigned)));
  BENCH_CU(&cu, cu.cuMemAlloc(&cu_sum, sizeof(double)));
  cu_partial_host = malloc(cu_dot_blocks * sizeof(double));
  if (!cu_partial_host)
    bench_die(prog, "out of memory");
  snprintf(s->why, sizeof s->why,
           "hand-written CUDA kernels, raw cuLaunchKernel, %d threads/block; "
           "runs alternate between one element per thread and a grid-stride "
           "loop over %u resident blocks with 4 loads in flight per thread "
           "(Dot: BabelStream's %u blocks, the host adding their partials, "
           "and %u blocks adding theirs on the device), so each best time is "
           "the better layout's",
           o.cuda_block, cu_gs_grid, cu_dot_blocks, cu_gs_grid * DOT_WAVES);
  s->available = 1;
  s->run = cuda_run;
  /* The same device memory kc uses: kc_malloc(KC_SPACE_DEVICE) gives
   * CUdeviceptr-compatible addresses in the primary context. */
  size_t bytes = o.elements * es;
  BENCH_KC(kc_malloc(&s->a, bytes, KC_SPACE_DEVICE, "baseline a"));
  BENCH_KC(kc_malloc(&s->b, bytes, KC_SPACE_DEVICE, "baseline b"));
  BENCH_KC(kc_malloc(&s->c, bytes, KC_SPACE_DEVICE, "baseline c"));
  BENCH_KC(kc_fence());
  BENCH_CU(&cu, cu.cuCtxSetCurrent(cu.ctx));
  CUdeviceptr a = (CUdeviceptr)(uintptr_t)s->a,
              b = (CUdeviceptr)(uintptr_t)s->b,
              c = (CUdeviceptr)(uintptr_t)s->c;
  long long n = (long long)o.elements;
  double vd[3] = {START_A, START_B, START_C};
  float vf[3] = {(float)START_A, (float)START_B, (float)START_C};
  void *args[7] = {&a, &b, &c, NULL, NULL, NULL, &n};
  for (int i = 0; i < 3; i++)
    args[3 + i] = o.use_float ? (void *)&vf[i] : (void *)&vd[i];
  unsigned block = (unsigned)o.cuda_block;
  BENCH_CU(&cu, cu.cuLaunchKernel(init, (unsigned)((n + block - 1) / block), 1,
                                  1, block, 1, 1, 0, NULL, args, NULL));
  BENCH_CU(&cu, cu.cuCtxSynchronize());
}

/* ----------------------------------------------------------- validation */

typedef struct gold {
  double a, b, c, sum;
} gold;

/* The values every element must hold after `runs` classic iterations and
 * `runs` Nstream ones, computed in the arrays' precision like the kernels
 * compute them. */
static gold gold_values_at(int runs) {
  gold g;
  if (o.use_float) {
    float a = (float)START_A, b = (float)START_B, c = (float)START_C,
          q = (float)START_SCALAR;
    for (int r = 0; r < runs; r++) {
      c = a;
      b = q * c;
      c = a + b;
      a = b + q * c;
    }
    g.sum = (double)a * (double)b * (double)o.elements;
    for (int r = 0; r < o.runs; r++)
      a += b + q * c;
    g.a = a, g.b = b, g.c = c;
  } else {
    double a = START_A, b = START_B, c = START_C, q = START_SCALAR;
    for (int r = 0; r < runs; r++) {
      c = a;
      b = q * c;
      c = a + b;
      a = b + q * c;
    }
    g.sum = a * b * (double)o.elements;
    for (int r = 0; r < o.runs; r++)
      a += b + q * c;
    g.a = a, g.b = b, g.c = c;
  }
  return g;
}

/* The gold values after the -n runs: what validate checks. */
static gold gold_values(void) { return gold_values_at(o.runs); }

/* Mean absolute error of an array against its gold value, relative to it. */
static double array_error(const void *p, double want) {
  double err = 0.0;
  for (uint64_t i = 0; i < o.elements; i++) {
    double v =
        o.use_float ? (double)((const float *)p)[i] : ((const double *)p)[i];
    err += fabs(v - want);
  }
  err /= (double)o.elements;
  return want != 0.0 ? err / fabs(want) : err;
}

/* Returns 1 if the side's results are right; prints what is wrong. */
static int validate(side *s, int on_device, gold g) {
  const void *arr[3] = {s->a, s->b, s->c};
  const double want[3] = {g.a, g.b, g.c};
  const char *nm[3] = {"a", "b", "c"};
  double eps = (o.use_float ? FLT_EPSILON : DBL_EPSILON) * 100.0;
  int ok = 1;
  void *tmp = NULL;
  if (on_device)
    tmp = bench_host_alloc(prog, o.elements * es);
  for (int i = 0; i < 3; i++) {
    const void *p = arr[i];
    if (on_device) {
      BENCH_KC(kc_memcpy(tmp, arr[i], o.elements * es));
      p = tmp;
    }
    double e = array_error(p, want[i]);
    if (!(e <= eps)) {
      fprintf(stderr,
              "%s: %s: validation failed on %s[]: mean relative error %.3g "
              "(gold %.17g, limit %.3g)\n",
              prog, s->name, nm[i], e, want[i], eps);
      ok = 0;
    }
  }
  free(tmp);
  double es_sum = fabs((s->dot - g.sum) / g.sum);
  double lim = o.use_float ? eps : 1.0e-8;
  if (!(es_sum <= lim)) {
    fprintf(stderr,
            "%s: %s: validation failed on Dot: %.17g, gold %.17g (relative "
            "error %.3g, limit %.3g)\n",
            prog, s->name, s->dot, g.sum, es_sum, lim);
    ok = 0;
  }
  return ok;
}

/* Each hand-written Dot layout's answer in its last run against the gold
 * sum of that run; prints what is wrong. */
static int validate_dot_layouts(void) {
  int ok = 1;
  for (int l = 0; l < 2; l++) {
    if (cu_dot_at[l] == 0)
      continue;
    const double want = gold_values_at((int)cu_dot_at[l]).sum;
    const double err = fabs((cu_dot_seen[l] - want) / want);
    const double lim = o.use_float ? FLT_EPSILON * 100.0 : 1.0e-8;
    if (!(err <= lim)) {
      fprintf(stderr,
              "%s: CUDA: validation failed on Dot's %s layout, run %u: "
              "%.17g, gold %.17g (relative error %.3g, limit %.3g)\n",
              prog, l ? "second" : "first", cu_dot_at[l], cu_dot_seen[l], want,
              err, lim);
      ok = 0;
    }
  }
  return ok;
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *f) {
  fprintf(f,
          "usage: %s [-s ELEMENTS] [-n RUNS] [--float] [--plain] [--csv "
          "FILE]\n"
          "  Measures the BabelStream kernels (Copy Mul Add Triad Dot "
          "Nstream) with kc\n"
          "  on KC_BACKEND and, in the same run, the hand-written "
          "baseline.\n"
          "  -s, --arraysize N  elements per array (default 2^25; 2^28, "
          "64M, 1e8 also work)\n"
          "  -n, --numtimes N   runs per kernel, >= 2 (default 100); the "
          "first is warm-up\n"
          "  --float            single precision (default double)\n"
          "  --plain            kc kernels whose arrays are not declared "
          "restrict\n"
          "  --csv FILE         write the figures as CSV\n"
          "  --cuda-block N     threads per block of the CUDA baseline "
          "(default 1024)\n"
          "  --pause-ms T       pause between kc and the baseline on host "
          "backends (default 10)\n"
          "  --baseline-first   set up the baseline (its arrays too) before "
          "kc (default after)\n"
          "  --no-swap          cuda: each side keeps its own arrays (default: "
          "the sides\n"
          "                     exchange arrays halfway through each loop)\n"
          "Exit status: 0 results valid, 1 a wrong answer or an error, "
          "77 backend absent.\n",
          prog);
}

static void parse(int argc, char **argv) {
  static const struct option lo[] = {
      {"arraysize", required_argument, NULL, 's'},
      {"numtimes", required_argument, NULL, 'n'},
      {"float", no_argument, NULL, 'f'},
      {"plain", no_argument, NULL, 'P'},
      {"csv", required_argument, NULL, 'c'},
      {"cuda-block", required_argument, NULL, 'b'},
      {"pause-ms", required_argument, NULL, 'p'},
      {"baseline-first", no_argument, NULL, 'B'},
      {"no-swap", no_argument, NULL, 'S'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "s:n:h", lo, NULL)) != -1) {
    switch (ch) {
    case 's':
      o.elements = bench_parse_size(prog, "-s", optarg);
      break;
    case 'n':
      o.runs = atoi(optarg);
      break;
    case 'f':
      o.use_float = 1;
      break;
    case 'P':
      o.plain = 1;
      break;
    case 'c':
      o.csv = optarg;
      break;
    case 'b':
      o.cuda_block = atoi(optarg);
      break;
    case 'p':
      o.pause_ms = atof(optarg);
      break;
    case 'B':
      o.base_first = 1;
      break;
    case 'S':
      o.no_swap = 1;
      break;
    case 'h':
      usage(stdout);
      exit(0);
    default:
      usage(stderr);
      exit(2);
    }
  }
  if (optind != argc || o.elements < 1 || o.runs < 2 || o.runs > 1024 ||
      o.cuda_block < 32 || o.cuda_block > 1024 || o.cuda_block % 32 ||
      o.pause_ms < 0) {
    usage(stderr);
    exit(2);
  }
}

static void pause_between_sides(int host) {
  if (!host || o.pause_ms <= 0)
    return;
  struct timespec ts = {(time_t)(o.pause_ms / 1000),
                        (long)(fmod(o.pause_ms, 1000.0) * 1e6)};
  nanosleep(&ts, NULL);
}

/* Runs the kernels first..last of both sides, runs r0 .. r1 - 1,
 * alternating the sides run by run. */
static void run_sides(side *kc, side *base, int first, int last, int r0, int r1,
                      int host) {
  for (int r = r0; r < r1; r++) {
    side *order[2] = {kc, base};
    if (r & 1)
      order[0] = base, order[1] = kc;
    for (int j = 0; j < 2; j++) {
      side *s = order[j];
      if (!s->available)
        continue;
      pause_between_sides(host);
      for (int k = first; k <= last; k++)
        s->times[k][r] = s->run(s, k);
    }
  }
}

/* Gives each side the other's arrays (device memory from kc_malloc on
 * both sides); kc's functors follow. */
static void exchange_arrays(side *kc, side *base) {
  void *a = kc->a, *b = kc->b, *c = kc->c;
  kc->a = base->a, kc->b = base->b, kc->c = base->c;
  base->a = a, base->b = b, base->c = c;
  kc_point(kc);
}

int main(int argc, char **argv) {
  parse(argc, argv);
  es = o.use_float ? sizeof(float) : sizeof(double);
  kc_info info;
  bench_init(prog, &info);
  int host = bench_is_host_backend(&info);
  side kc = {0}, base = {0};

  printf("stream: kc %s on backend %s (%s), %d thread%s\n", kc_version(),
         info.backend, info.dev.name, info.num_threads,
         info.num_threads == 1 ? "" : "s");
  printf("stream: %llu elements per array (%s), %.1f MB per array, %d runs; "
         "kc kernels: %s\n",
         (unsigned long long)o.elements, o.use_float ? "float" : "double",
         (double)(o.elements * es) * 1e-6, o.runs,
         o.plain ? "plain pointers (--plain)" : "arrays declared restrict");
  fflush(stdout);

  if (!o.base_first)
    kc_setup(&kc);
  if (host)
    omp_setup(&base, info.num_threads);
  else
    cuda_setup(&base, info.device < 0 ? 0 : info.device);
  if (o.base_first)
    kc_setup(&kc);
  printf("stream: baseline: %s%s\n", base.why,
         o.base_first ? " (set up before kc's side)" : "");
  if (!host && base.available)
    printf("stream: arrays: %s\n",
           o.no_swap ? "each side its own (--no-swap)"
                     : "the sides exchange them halfway through each loop");
  fflush(stdout);

  /* Each loop in two halves; on cuda the sides exchange arrays between
   * them (twice in all, so each side ends with its own). */
  const int swap = !host && base.available && !o.no_swap;
  const int half = swap ? o.runs / 2 : o.runs;
  run_sides(&kc, &base, K_COPY, K_DOT, 0, half, host);
  if (swap)
    exchange_arrays(&kc, &base);
  run_sides(&kc, &base, K_COPY, K_DOT, half, o.runs, host);
  run_sides(&kc, &base, K_NSTREAM, K_NSTREAM, 0, half, host);
  if (swap)
    exchange_arrays(&kc, &base);
  run_sides(&kc, &base, K_NSTREAM, K_NSTREAM, half, o.runs, host);

  gold g = gold_values();
  int ok_kc = validate(&kc, !host, g);
  int ok_base = base.available ? validate(&base, !host, g) : 1;
  if (!host && base.available && !validate_dot_layouts())
    ok_base = 0;
  printf("stream: validation: kc %s, baseline %s\n", ok_kc ? "OK" : "FAILED",
         !base.available ? "not run"
         : ok_base       ? "OK"
                         : "FAILED");
  if (swap && !(ok_kc && ok_base))
    printf("stream: the sides exchanged arrays halfway: either side may have "
           "made the error; --no-swap tells which\n");

  FILE *csv = bench_csv_open(
      prog, o.csv,
      "backend,threads,type,elements,kernel,bytes_per_elem,kc_gbs,base_gbs,"
      "ratio,kc_min_s,kc_max_s,kc_avg_s,base_min_s,base_max_s,base_avg_s,"
      "baseline");
  char bh[32], bt[32];
  snprintf(bh, sizeof bh, "%s GB/s", base.name);
  snprintf(bt, sizeof bt, "%s min s", base.name);
  printf("\n%-8s %10s %11s %8s %11s %11s %11s\n", "Function", "kc GB/s", bh,
         "ratio", "kc min s", bt, "kc avg s");
  for (int k = 0; k < K_COUNT; k++) {
    double bytes = (double)karrays[k] * (double)es * (double)o.elements;
    bench_stats sk = bench_stats_of(kc.times[k] + 1, o.runs - 1), sb = {0};
    double gk = bytes / sk.min * 1e-9, gb = 0.0;
    if (base.available) {
      sb = bench_stats_of(base.times[k] + 1, o.runs - 1);
      gb = bytes / sb.min * 1e-9;
      printf("%-8s %10.2f %11.2f %8.3f %11.6f %11.6f %11.6f\n", kname[k], gk,
             gb, gk / gb, sk.min, sb.min, sk.mean);
    } else {
      printf("%-8s %10.2f %11s %8s %11.6f %11s %11.6f\n", kname[k], gk, "-",
             "-", sk.min, "-", sk.mean);
    }
    if (csv) {
      fprintf(csv, "%s,%d,%s,%llu,%s,%d,%.4f,", info.backend, info.num_threads,
              o.use_float ? "float" : "double", (unsigned long long)o.elements,
              kname[k], karrays[k] * (int)es, gk);
      if (base.available)
        fprintf(csv, "%.4f,%.4f,", gb, gk / gb);
      else
        fprintf(csv, ",,");
      fprintf(csv, "%.9f,%.9f,%.9f,", sk.min, sk.max, sk.mean);
      if (base.available)
        fprintf(csv, "%.9f,%.9f,%.9f,", sb.min, sb.max, sb.mean);
      else
        fprintf(csv, ",,,");
      fprintf(csv, "\"%s\"\n", base.why);
    }
  }
  printf("(ratio = kc / baseline bandwidth; GB/s = 1e9 bytes/s from the "
         "minimum time of runs 2..%d)\n",
         o.runs);
  if (!base.available)
    printf("(no baseline: %s)\n", base.why);
  if (!host && base.available) {
    printf("baseline layouts, GB/s from each one's best time (one element "
           "per thread / grid-stride; Dot: %u blocks / %u):",
           cu_dot_blocks, cu_gs_grid * DOT_WAVES);
    for (int k = 0; k < K_COUNT; k++) {
      double bytes = (double)karrays[k] * (double)es * (double)o.elements;
      printf(" %s %.1f", kname[k], bytes / cu_best[k][0] * 1e-9);
      if (cu_best[k][1] > 0)
        printf(" / %.1f", bytes / cu_best[k][1] * 1e-9);
      printf("%s", k + 1 < K_COUNT ? ";" : "\n");
    }
  }
  bench_csv_close(prog, csv, o.csv);

  if (!host && base.available) {
    kc_free(base.a), kc_free(base.b), kc_free(base.c);
    cu.cuMemFree(cu_partial);
    cu.cuMemFree(cu_ticket);
    cu.cuMemFree(cu_sum);
    free(cu_partial_host);
    bench_cuda_close(&cu);
  } else if (host) {
    free(base.a), free(base.b), free(base.c);
  }
  kc_free(kc.a), kc_free(kc.b), kc_free(kc.c);
  kc_finalize();
  return ok_kc && ok_base ? 0 : 1;
}
