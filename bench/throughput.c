/* kc benchmarks — reduce and scan: throughput of kc's parallel_reduce (sum)
 * or parallel_scan (inclusive sum) over arrays of doubles from 10^3 to 10^9
 * bytes, against a hand-written baseline in the same run: OpenMP on host
 * backends (throughput-omp.c), CUDA kernels launched with raw
 * cuLaunchKernel on the cuda backend (baseline.cu).
 *
 * This file builds two programs: `reduce` (BENCH_SCAN=0) and `scan`
 * (BENCH_SCAN=1).  Each size is timed launch by launch until both at least
 * --min-time seconds and --min-reps launches have passed; GB/s comes from
 * the fastest launch, counting the bytes the operation must move: 8 per
 * element for the sum (read x), 16 for the scan (read x, write y).  Every
 * launch's result is checked exactly (the data are small integers, see
 * throughput.h), and the scan's output array after the last launch.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kc/kc.h>

#include "bench.h"
#include "cudadrv.h"
#include "throughput-omp.h"
#include "throughput.h"

#ifndef BENCH_SCAN
#error "compile with -DBENCH_SCAN=0 (reduce) or -DBENCH_SCAN=1 (scan)"
#endif

#if BENCH_SCAN
static const char *prog = "scan";
#define BYTES_PER_ELEM 16
#define ARRAYS 2
#else
static const char *prog = "reduce";
#define BYTES_PER_ELEM 8
#define ARRAYS 1
#endif

#define MAX_SIZES 64

static struct {
  uint64_t min_bytes, max_bytes;
  double min_time;
  int min_reps;
  const char *csv;
  int cuda_block;
  int cuda_3pass; /* scan: the three-kernel baseline, not the look-back */
  int plain;      /* scan: scan_sum_plain, without KC_LDG */
} o = {1000, 1000000000, 0.2, 5, NULL, 256, 0, 0};

static int host; /* host backend: OpenMP baseline, else CUDA */
static int bad;  /* wrong results */
static kc_kernel *k_fill, *k_op;

/* The arrays of one implementation at one size. */
typedef struct arrays {
  double *x, *y;
} arrays;

/* The exact sum of THROUGHPUT_VALUE(0 .. n-1). */
static double expected_sum(long long n) {
  double s = (double)(n / 16) * 120.0;
  for (long long r = 0; r < n % 16; r++)
    s += (double)r;
  return s;
}

/* ------------------------------------------------------------------ kc */

static void kc_prepare(arrays *a, long long n) {
  BENCH_KC(kc_malloc((void **)&a->x, sizeof(double) * (size_t)n,
                     KC_SPACE_DEVICE, "x"));
  a->y = NULL;
  if (ARRAYS > 1)
    BENCH_KC(kc_malloc((void **)&a->y, sizeof(double) * (size_t)n,
                       KC_SPACE_DEVICE, "y"));
  struct throughput_f f = {a->x, a->y};
  kc_policy p = kc_range(0, n);
  BENCH_KC(kc_parallel_for("fill", k_fill, &p, &f, sizeof f));
  BENCH_KC(kc_fence());
}

static double kc_once(arrays *a, long long n, double *result) {
  struct throughput_f f = {a->x, a->y};
  kc_policy p = kc_range(0, n);
  double t0 = bench_now();
#if BENCH_SCAN
  BENCH_KC(kc_parallel_scan("scan", k_op, &p, &f, sizeof f, result));
#else
  BENCH_KC(kc_parallel_reduce("reduce", k_op, &p, &f, sizeof f, result));
#endif
  BENCH_KC(kc_fence());
  return bench_now() - t0;
}

static void kc_release(arrays *a) {
  kc_free(a->x);
  kc_free(a->y);
}

/* ------------------------------------------------------- OpenMP baseline */

static double *omp_partial;

static void omp_prepare(arrays *a, long long n) {
  a->x = bench_host_alloc(prog, sizeof(double) * (size_t)n);
  a->y = ARRAYS > 1 ? bench_host_alloc(prog, sizeof(double) * (size_t)n) : NULL;
  omp_fill_f64(a->x, n);
#if BENCH_SCAN
  /* First touch of y by the same static schedule that writes it. */
  omp_fill_f64(a->y, n);
#endif
}

static double omp_once(arrays *a, long long n, double *result) {
  double t0 = bench_now();
#if BENCH_SCAN
  *result = omp_scan_sum_f64(a->x, a->y, n, omp_partial);
#else
  *result = omp_reduce_sum_f64(a->x, n);
#endif
  return bench_now() - t0;
}

static void omp_release(arrays *a) {
  free(a->x);
  free(a->y);
}

/* --------------------------------------------------------- CUDA baseline */

static bench_cuda cu;
static CUfunction cu_fill, cu_k1;
#if BENCH_SCAN
static CUfunction cu_k2, cu_k3, cu_lb;
/* The look-back scan's tile state (baseline.cu) and its epoch. */
static CUdeviceptr cu_slot;
static size_t cu_tiles;
static unsigned cu_epoch;
#define LB_TILE 2048 /* LB_BLOCK * LB_ITEMS in baseline.cu */
#endif
static CUdeviceptr cu_partial, cu_ticket, cu_result;
static unsigned cu_max_blocks;

static void cuda_prepare(arrays *a, long long n) {
  /* Device memory from kc, as the kc side uses. */
  BENCH_KC(kc_malloc((void **)&a->x, sizeof(double) * (size_t)n,
                     KC_SPACE_DEVICE, "baseline x"));
  a->y = NULL;
  if (ARRAYS > 1)
    BENCH_KC(kc_malloc((void **)&a->y, sizeof(double) * (size_t)n,
                       KC_SPACE_DEVICE, "baseline y"));
  BENCH_KC(kc_fence());
  BENCH_CU(&cu, cu.cuCtxSetCurrent(cu.ctx));
#if BENCH_SCAN
  size_t tiles = (size_t)((n + LB_TILE - 1) / LB_TILE);
  if (!o.cuda_3pass && tiles > cu_tiles) {
    if (cu_tiles)
      cu.cuMemFree(cu_slot);
    BENCH_CU(&cu, cu.cuMemAlloc(&cu_slot, tiles * 16));
    BENCH_CU(&cu, cu.cuMemsetD8(cu_slot, 0, tiles * 16));
    cu_tiles = tiles;
    cu_epoch = 0;
  }
#endif
  CUdeviceptr x = (CUdeviceptr)(uintptr_t)a->x;
  void *args[] = {&x, &n};
  unsigned block = (unsigned)o.cuda_block;
  BENCH_CU(&cu, cu.cuLaunchKernel(cu_fill, (unsigned)((n + block - 1) / block),
                                  1, 1, block, 1, 1, 0, NULL, args, NULL));
  BENCH_CU(&cu, cu.cuCtxSynchronize());
}

static double cuda_once(arrays *a, long long n, double *result) {
  CUdeviceptr x = (CUdeviceptr)(uintptr_t)a->x;
  unsigned block = (unsigned)o.cuda_block;
  unsigned long long want = ((unsigned long long)n + block - 1) / block;
  unsigned nb = want < cu_max_blocks ? (unsigned)want : cu_max_blocks;
  if (nb < 1)
    nb = 1;
  BENCH_CU(&cu, cu.cuCtxSetCurrent(cu.ctx)); /* not timed */
#if BENCH_SCAN
  CUdeviceptr y = (CUdeviceptr)(uintptr_t)a->y;
  if (!o.cuda_3pass) {
    unsigned tiles = (unsigned)((n + LB_TILE - 1) / LB_TILE);
    unsigned epoch = ++cu_epoch; /* far below 2^30 in one run */
    void *al[] = {&x, &y, &n, &cu_slot, &cu_ticket, &epoch, &cu_result};
    double t0 = bench_now();
    BENCH_CU(&cu, cu.cuLaunchKernel(cu_lb, tiles, 1, 1, 256, 1, 1, 0, NULL, al,
                                    NULL));
    BENCH_CU(&cu, cu.cuMemcpyDtoH(result, cu_result, sizeof(double)));
    return bench_now() - t0;
  }
  /* Tiles a whole number of blocks long, one per CUDA block. */
  long long tile = (n + nb - 1) / nb;
  tile = (tile + block - 1) / block * block;
  int nbi = (int)((n + tile - 1) / tile);
  if (nbi < 1)
    nbi = 1;
  void *a1[] = {&x, &n, &tile, &cu_partial};
  void *a2[] = {&cu_partial, &nbi, &cu_result};
  void *a3[] = {&x, &y, &n, &tile, &cu_partial};
  double t0 = bench_now();
  BENCH_CU(&cu, cu.cuLaunchKernel(cu_k1, (unsigned)nbi, 1, 1, block, 1, 1, 0,
                                  NULL, a1, NULL));
  BENCH_CU(&cu,
           cu.cuLaunchKernel(cu_k2, 1, 1, 1, 1024, 1, 1, 0, NULL, a2, NULL));
  BENCH_CU(&cu, cu.cuLaunchKernel(cu_k3, (unsigned)nbi, 1, 1, block, 1, 1, 0,
                                  NULL, a3, NULL));
  BENCH_CU(&cu, cu.cuMemcpyDtoH(result, cu_result, sizeof(double)));
  return bench_now() - t0;
#else
  void *args[] = {&x, &n, &cu_partial, &cu_ticket, &cu_result};
  double t0 = bench_now();
  BENCH_CU(&cu, cu.cuLaunchKernel(cu_k1, nb, 1, 1, block, 1, 1, 0, NULL, args,
                                  NULL));
  BENCH_CU(&cu, cu.cuMemcpyDtoH(result, cu_result, sizeof(double)));
  return bench_now() - t0;
#endif
}

static void cuda_release(arrays *a) {
  kc_free(a->x);
  kc_free(a->y);
}

/* Returns 1 with the CUDA baseline ready, 0 with why[] saying why not. */
static int cuda_setup(int device, char *why, size_t whylen) {
  int rc = bench_cuda_open(&cu, device, bench_ptx, why, whylen);
  if (rc == -2)
    bench_die(prog, "%s", why);
  if (rc != 0)
    return 0;
  cu_fill = bench_cuda_function(&cu, "bench_fill_f64");
#if BENCH_SCAN
  cu_k1 = bench_cuda_function(&cu, "bench_scan_sums_f64");
  cu_k2 = bench_cuda_function(&cu, "bench_scan_offsets_f64");
  cu_k3 = bench_cuda_function(&cu, "bench_scan_apply_f64");
  cu_lb = bench_cuda_function(&cu, "bench_scan_lookback_f64");
#else
  cu_k1 = bench_cuda_function(&cu, "bench_reduce_sum_f64");
#endif
  /* Enough resident blocks to fill every SM. */
  cu_max_blocks = (unsigned)cu.sms * (2048u / (unsigned)o.cuda_block);
  BENCH_CU(&cu, cu.cuMemAlloc(&cu_partial, cu_max_blocks * sizeof(double)));
  BENCH_CU(&cu, cu.cuMemAlloc(&cu_ticket, 2 * sizeof(unsigned)));
  BENCH_CU(&cu, cu.cuMemAlloc(&cu_result, sizeof(double)));
  BENCH_CU(&cu, cu.cuMemsetD8(cu_ticket, 0, 2 * sizeof(unsigned)));
  if (BENCH_SCAN && !o.cuda_3pass)
    snprintf(why, whylen,
             "hand-written CUDA single-pass scan, decoupled look-back, tiles "
             "of 2048, raw cuLaunchKernel, 256 threads/block");
  else
    snprintf(why, whylen,
             "hand-written CUDA %s, raw cuLaunchKernel, %d threads/block",
             BENCH_SCAN ? "reduce-then-scan (3 kernels)"
                        : "reduction (1 kernel, last block combines)",
             o.cuda_block);
  return 1;
}

/* ------------------------------------------------------------- driver */

typedef struct impl {
  const char *name;
  void (*prepare)(arrays *, long long);
  double (*once)(arrays *, long long, double *);
  void (*release)(arrays *);
} impl;

typedef struct timing {
  double min_s, avg_s;
  long reps;
} timing;

#if BENCH_SCAN
/* Checks the scan output y[0 .. n-1] (on the device for the cuda side). */
static void check_scan(const char *who, const double *y, long long n) {
  const double *h = y;
  double *tmp = NULL;
  if (!host) {
    tmp = bench_host_alloc(prog, sizeof(double) * (size_t)n);
    BENCH_KC(kc_memcpy(tmp, y, sizeof(double) * (size_t)n));
    h = tmp;
  }
  double acc = 0.0;
  for (long long i = 0; i < n; i++) {
    acc += THROUGHPUT_VALUE(i);
    if (h[i] != acc) {
      fprintf(stderr, "%s: %s: y[%lld] = %.17g, want %.17g\n", prog, who, i,
              h[i], acc);
      bad++;
      break;
    }
  }
  free(tmp);
}
#endif

static timing run(const impl *im, long long n) {
  arrays a;
  im->prepare(&a, n);
  if (host) {
    /* The other side's idle OpenMP workers spin for milliseconds after
     * their last loop (libgomp: about 7 ms); let them go to sleep. */
    struct timespec ts = {0, 10 * 1000000L};
    nanosleep(&ts, NULL);
  }
  double want = expected_sum(n), got = 0.0;
  timing t = {1e30, 0.0, 0};
  double total = 0.0, start = bench_now();
  /* One untimed launch first: first-use costs (module load, page faults
   * of the output) are not what this measures. */
  im->once(&a, n, &got);
  while (t.reps < o.min_reps || bench_now() - start < o.min_time) {
    got = -1.0;
    double s = im->once(&a, n, &got);
    if (got != want) {
      fprintf(stderr, "%s: %s: %lld elements: result %.17g, want %.17g\n", prog,
              im->name, n, got, want);
      bad++;
      break;
    }
    total += s;
    t.reps++;
    if (s < t.min_s)
      t.min_s = s;
  }
  t.avg_s = t.reps ? total / t.reps : 0.0;
#if BENCH_SCAN
  check_scan(im->name, a.y, n);
#endif
  im->release(&a);
  return t;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: %s [--min-bytes B] [--max-bytes B] [--min-time S] "
          "[--min-reps N] [--csv FILE]\n"
          "  Throughput of kc's %s over arrays of doubles beside the "
          "hand-written\n"
          "  baseline (OpenMP on host backends, CUDA on cuda), sizes in a "
          "1-2-5 series.\n"
          "  --min-bytes B   smallest array, bytes (default 1e3)\n"
          "  --max-bytes B   largest array, bytes (default 1e9; capped by "
          "free memory)\n"
          "  --min-time S    seconds per size and implementation (default "
          "0.2)\n"
          "  --min-reps N    launches per size at least (default 5)\n"
          "  --csv FILE      write the figures as CSV\n"
          "  --cuda-block N  threads per block of the CUDA baseline "
          "(default 256)\n"
          "  --cuda-3pass    scan: the three-kernel reduce-then-scan "
          "baseline in place\n"
          "                  of the single pass with look-back\n"
          "  --plain         scan: the kc kernel without KC_LDG (x read as "
          "any load)\n"
          "Exit status: 0 results valid, 1 a wrong answer or an error, "
          "77 backend absent.\n",
          prog,
          BENCH_SCAN ? "parallel_scan (inclusive sum)"
                     : "parallel_reduce (sum)");
}

int main(int argc, char **argv) {
  static const struct option lo[] = {
      {"min-bytes", required_argument, NULL, 'a'},
      {"max-bytes", required_argument, NULL, 'b'},
      {"min-time", required_argument, NULL, 't'},
      {"min-reps", required_argument, NULL, 'r'},
      {"csv", required_argument, NULL, 'c'},
      {"cuda-block", required_argument, NULL, 'k'},
      {"cuda-3pass", no_argument, NULL, '3'},
      {"plain", no_argument, NULL, 'p'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    switch (ch) {
    case 'a':
      o.min_bytes = bench_parse_size(prog, "--min-bytes", optarg);
      break;
    case 'b':
      o.max_bytes = bench_parse_size(prog, "--max-bytes", optarg);
      break;
    case 't':
      o.min_time = atof(optarg);
      break;
    case 'r':
      o.min_reps = atoi(optarg);
      break;
    case 'c':
      o.csv = optarg;
      break;
    case 'k':
      o.cuda_block = atoi(optarg);
      break;
    case '3':
      o.cuda_3pass = 1;
      break;
    case 'p':
      o.plain = 1;
      break;
    case 'h':
      usage(stdout);
      return 0;
    default:
      usage(stderr);
      return 2;
    }
  }
  if (optind != argc || o.min_bytes < 8 || o.max_bytes < o.min_bytes ||
      o.min_time < 0 || o.min_reps < 1 || o.cuda_block < 32 ||
      o.cuda_block > 1024 || o.cuda_block % 32 || 2048 % o.cuda_block) {
    usage(stderr);
    return 2;
  }

  kc_info info;
  bench_init(prog, &info);
  host = bench_is_host_backend(&info);
  BENCH_KC(kc_kernel_get(BENCH_SCAN ? "scan_fill" : "reduce_fill", &k_fill));
  BENCH_KC(kc_kernel_get(!BENCH_SCAN ? "reduce_sum"
                         : o.plain   ? "scan_sum_plain"
                                     : "scan_sum",
                         &k_op));

  char why[512] = "";
  int have_base = 1;
  impl ikc = {"kc", kc_prepare, kc_once, kc_release}, ibase;
  if (host) {
    int got = bench_omp_set_threads(info.num_threads);
    omp_partial = calloc((size_t)got + 1, sizeof(double));
    if (!omp_partial)
      bench_die(prog, "out of memory");
    snprintf(why, sizeof why, "%s, %d thread%s: %s", bench_omp_label(), got,
             got == 1 ? "" : "s",
             BENCH_SCAN ? "hand-written 2-pass scan in one parallel region"
                        : "parallel for simd reduction(+)");
    ibase = (impl){"OpenMP", omp_prepare, omp_once, omp_release};
  } else {
    have_base = cuda_setup(info.device < 0 ? 0 : info.device, why, sizeof why);
    ibase = (impl){"CUDA", cuda_prepare, cuda_once, cuda_release};
  }

  /* Both sides' arrays live at once, plus a host copy for checking a
   * device scan: keep that within 3/4 of the memory there is. */
  uint64_t per_byte = 2 * ARRAYS; /* kc + baseline */
  size_t avail = bench_mem_available();
  if (!host && info.dev.total_memory)
    avail = info.dev.total_memory;
  uint64_t cap = avail ? (uint64_t)avail / 4 * 3 / per_byte : o.max_bytes;
  uint64_t max_bytes = o.max_bytes;
  if (max_bytes > cap) {
    printf("%s: --max-bytes %llu lowered to %llu to fit in memory\n", prog,
           (unsigned long long)max_bytes, (unsigned long long)cap);
    max_bytes = cap;
  }
  uint64_t sizes[MAX_SIZES];
  int ns = bench_sizes(o.min_bytes, max_bytes, sizes, MAX_SIZES);

  printf("%s: kc %s on backend %s (%s), %d thread%s\n", prog, kc_version(),
         info.backend, info.dev.name, info.num_threads,
         info.num_threads == 1 ? "" : "s");
  if (BENCH_SCAN)
    printf("%s: kc kernel: %s\n", prog,
           o.plain ? "scan_sum_plain (x read as any load, --plain)"
                   : "scan_sum (x read with KC_LDG)");
  printf("%s: baseline: %s\n", prog, have_base ? why : "none");
  printf("%s: %d sizes from %llu to %llu bytes, >= %.2f s and >= %d "
         "launches each\n",
         prog, ns, (unsigned long long)sizes[0],
         (unsigned long long)sizes[ns - 1], o.min_time, o.min_reps);
  fflush(stdout);

  timing tk[MAX_SIZES], tb[MAX_SIZES];
  for (int s = 0; s < ns; s++) {
    long long n = (long long)(sizes[s] / sizeof(double));
    if (n < 1)
      n = 1;
    tk[s] = run(&ikc, n);
    if (have_base)
      tb[s] = run(&ibase, n);
  }
  printf("%s: validation: %s\n", prog, bad ? "FAILED" : "OK");

  FILE *csv = bench_csv_open(
      prog, o.csv,
      "backend,threads,op,bytes,elements,kc_min_s,kc_avg_s,kc_gbs,base_min_s,"
      "base_avg_s,base_gbs,ratio,kc_reps,base_reps,baseline");
  char bh[32];
  snprintf(bh, sizeof bh, "%s GB/s", ibase.name);
  printf("\n%12s %12s %10s %11s %7s %12s\n", "bytes", "elements", "kc GB/s", bh,
         "ratio", "kc min us");
  for (int s = 0; s < ns; s++) {
    long long n = (long long)(sizes[s] / sizeof(double));
    if (n < 1)
      n = 1;
    double moved = (double)n * BYTES_PER_ELEM;
    double gk = moved / tk[s].min_s * 1e-9;
    double gb = have_base ? moved / tb[s].min_s * 1e-9 : 0.0;
    if (have_base)
      printf("%12llu %12lld %10.2f %11.2f %7.3f %12.2f\n",
             (unsigned long long)sizes[s], n, gk, gb, gk / gb,
             tk[s].min_s * 1e6);
    else
      printf("%12llu %12lld %10.2f %11s %7s %12.2f\n",
             (unsigned long long)sizes[s], n, gk, "-", "-", tk[s].min_s * 1e6);
    if (csv) {
      fprintf(csv, "%s,%d,%s,%llu,%lld,%.9f,%.9f,%.4f,", info.backend,
              info.num_threads, prog, (unsigned long long)sizes[s], n,
              tk[s].min_s, tk[s].avg_s, gk);
      if (have_base)
        fprintf(csv, "%.9f,%.9f,%.4f,%.4f,%ld,%ld,", tb[s].min_s, tb[s].avg_s,
                gb, gk / gb, tk[s].reps, tb[s].reps);
      else
        fprintf(csv, ",,,,%ld,,", tk[s].reps);
      fprintf(csv, "\"%s\"\n", why);
    }
  }
  printf("(GB/s = %d bytes per element / fastest launch; ratio = kc / "
         "baseline)\n",
         BYTES_PER_ELEM);
  if (!have_base)
    printf("(no baseline: %s)\n", why);
  bench_csv_close(prog, csv, o.csv);

  if (!host && have_base) {
    cu.cuMemFree(cu_partial);
    cu.cuMemFree(cu_ticket);
    cu.cuMemFree(cu_result);
    bench_cuda_close(&cu);
  }
  free(omp_partial);
  kc_finalize();
  return bad ? 1 : 0;
}
