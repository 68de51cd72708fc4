/* queues — kc's queues against raw CUDA streams: does a copy overlap a
 * kernel when they go to two queues, and what does kc add?
 *
 * The work: an H2D copy of --mb MiB from pinned host memory (kc:
 * KC_SPACE_HOST_PINNED) into one device array, and --kernels launches of
 * the STREAM triad a = b + s*c over as many doubles on three others (by
 * default about as long as the copy on an H100/H200, so that overlapping
 * them can nearly halve the time).  Each rep times, in
 * one run and alternately:
 *
 *   kc, one queue    kc_memcpy_on(q1) then the triad on q1, kc_fence
 *   kc, two queues   the copy on q1, the triad on q2, kc_fence
 *   raw, one stream  cuMemcpyHtoDAsync and cuLaunchKernel of the
 *                    hand-written triad (one thread per element, as
 *                    BabelStream's CUDA model) on one stream, then
 *                    cuCtxSynchronize
 *   raw, two streams the copy on one stream, the triad on another
 *
 * and prints the medians (ms), the overlap (one queue / two queues: 2 at
 * best when copy and kernel take as long) and kc / raw.  Exits 77 (SKIP)
 * on a backend other than cuda or without the baseline's PTX.
 *
 *   queues [--mb M] [--kernels K] [--reps R]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kc/kernel.h>

#include "bench.h"
#include "cudadrv.h"
#include "stream.h"

KC_KERNEL_DECLARE(stream_triad_f64);

static const char *prog = "queues";

/* One repetition's work, the same on both sides. */
typedef struct work {
  kc_queue *q1; /* the copy's queue */
  double *h, *d;
  size_t bytes;
  const struct stream_f64 *f;
  int kernels;
  bench_cuda *cu;
  CUfunction triad;
  unsigned grid, block;
  CUstream s1; /* the copy's stream */
  CUdeviceptr rd;
  void **targs;
} work;

/* kc: the copy on q1, the triads on `p`'s queue, kc_fence; ms. */
static double kc_round(const work *w, const kc_policy *p) {
  double t0 = bench_now();
  BENCH_KC(kc_memcpy_on(w->q1, w->d, w->h, w->bytes));
  for (int k = 0; k < w->kernels; k++)
    BENCH_KC(kc_parallel_for("triad", KC_KERNEL(stream_triad_f64), p, w->f,
                             sizeof *w->f));
  BENCH_KC(kc_fence());
  return (bench_now() - t0) * 1e3;
}

/* Raw CUDA: the copy on s1, the triads on `ks`, cuCtxSynchronize; ms. */
static double raw_round(const work *w, CUstream ks) {
  bench_cuda *cu = w->cu;
  double t0 = bench_now();
  BENCH_CU(cu, cu->cuMemcpyHtoDAsync(w->rd, w->h, w->bytes, w->s1));
  for (int k = 0; k < w->kernels; k++)
    BENCH_CU(cu, cu->cuLaunchKernel(w->triad, w->grid, 1, 1, w->block, 1, 1, 0,
                                    ks, w->targs, NULL));
  BENCH_CU(cu, cu->cuCtxSynchronize());
  return (bench_now() - t0) * 1e3;
}

int main(int argc, char **argv) {
  int reps = 21, kernels = 24;
  uint64_t mb = 256;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--mb") && i + 1 < argc)
      mb = bench_parse_size(prog, "--mb", argv[++i]);
    else if (!strcmp(argv[i], "--kernels") && i + 1 < argc)
      kernels = atoi(argv[++i]);
    else
      bench_die(prog, "usage: queues [--mb M] [--kernels K] [--reps R]");
  }
  if (reps < 1 || mb < 1 || kernels < 1)
    bench_die(prog, "--reps, --mb and --kernels must be positive");
  kc_info info;
  bench_init(prog, &info);
  if (bench_is_host_backend(&info) || strcmp(kc_backend_name(), "cuda")) {
    printf("SKIP: %s: backend '%s' is not cuda (host backends complete each "
           "launch before it returns: nothing to overlap)\n",
           prog, kc_backend_name());
    kc_finalize();
    return BENCH_SKIP;
  }
  bench_cuda cu;
  char why[512];
  if (bench_cuda_open(&cu, info.device, bench_ptx, why, sizeof why) != 0) {
    printf("SKIP: %s: no raw baseline: %s\n", prog, why);
    kc_finalize();
    return BENCH_SKIP;
  }
  CUfunction triad = bench_cuda_function(&cu, "bench_stream_triad_f64");

  const size_t bytes = (size_t)mb << 20;
  const long long n = (long long)(bytes / sizeof(double));
  double *h = NULL, *d = NULL, *a = NULL, *b = NULL, *c = NULL;
  BENCH_KC(kc_malloc((void **)&h, bytes, KC_SPACE_HOST_PINNED, "h"));
  BENCH_KC(kc_malloc((void **)&d, bytes, KC_SPACE_DEVICE, "d"));
  BENCH_KC(kc_malloc((void **)&a, bytes, KC_SPACE_DEVICE, "a"));
  BENCH_KC(kc_malloc((void **)&b, bytes, KC_SPACE_DEVICE, "b"));
  BENCH_KC(kc_malloc((void **)&c, bytes, KC_SPACE_DEVICE, "c"));
  for (long long i = 0; i < n; i++)
    h[i] = (double)(i % 1000);
  BENCH_KC(kc_memset(b, 0, bytes));
  BENCH_KC(kc_memset(c, 0, bytes));

  kc_queue *q1 = NULL, *q2 = NULL;
  BENCH_KC(kc_queue_create(&q1, info.device));
  BENCH_KC(kc_queue_create(&q2, info.device));
  struct stream_f64 f = {a, b, c, 0.4, 0, 0, 0};
  kc_policy p1 = kc_policy_on(kc_range(0, n), q1);
  kc_policy p2 = kc_policy_on(kc_range(0, n), q2);

  CUstream s1 = NULL, s2 = NULL;
  BENCH_CU(&cu, cu.cuStreamCreate(&s1, 0));
  BENCH_CU(&cu, cu.cuStreamCreate(&s2, 0));
  CUdeviceptr ra = (CUdeviceptr)(uintptr_t)a, rb = (CUdeviceptr)(uintptr_t)b,
              rc = (CUdeviceptr)(uintptr_t)c, rd = (CUdeviceptr)(uintptr_t)d;
  double scalar = 0.4;
  void *targs[] = {&ra, &rb, &rc, &scalar, (void *)&n};
  const unsigned block = 1024;
  const unsigned grid = (unsigned)((n + block - 1) / block);

  double *t = calloc((size_t)reps * 4, sizeof *t);
  if (!t)
    bench_die(prog, "out of memory");
  work w = {q1,    h,    d,     bytes, &f, kernels, &cu,
            triad, grid, block, s1,    rd, targs};
  for (int r = -2; r < reps; r++) { /* two warm-up reps */
    const double one_q = kc_round(&w, &p1), two_q = kc_round(&w, &p2);
    const double one_s = raw_round(&w, s1), two_s = raw_round(&w, s2);
    if (r >= 0) {
      t[0 * reps + r] = one_q;
      t[1 * reps + r] = two_q;
      t[2 * reps + r] = one_s;
      t[3 * reps + r] = two_s;
    }
  }
  /* The work was right: d holds h, a = b + 0.4 c = 0. */
  double check[2] = {-1, -1};
  BENCH_KC(kc_memcpy(&check[0], &d[n - 1], sizeof(double)));
  BENCH_KC(kc_memcpy(&check[1], &a[n / 2], sizeof(double)));
  if (check[0] != h[n - 1] || check[1] != 0.0)
    bench_die(prog, "wrong results: d[n-1] = %g (want %g), a[n/2] = %g",
              check[0], h[n - 1], check[1]);

  double kc1 = bench_median(t, reps, NULL);
  double kc2 = bench_median(t + reps, reps, NULL);
  double raw1 = bench_median(t + 2 * reps, reps, NULL);
  double raw2 = bench_median(t + 3 * reps, reps, NULL);
  printf("\nqueues: H2D copy of %llu MiB (pinned) + %d triads over %lld "
         "doubles (%llu MiB per array), %s, median of %d (ms)\n",
         (unsigned long long)mb, kernels, n, (unsigned long long)mb,
         info.dev.name, reps);
  printf("%-18s %12s %12s %9s\n", "", "one queue", "two queues", "overlap");
  printf("%-18s %12.3f %12.3f %9.2f\n", "kc", kc1, kc2, kc1 / kc2);
  printf("%-18s %12.3f %12.3f %9.2f\n", "raw CUDA streams", raw1, raw2,
         raw1 / raw2);
  printf("%-18s %12.3f %12.3f\n", "kc / raw", kc1 / raw1, kc2 / raw2);

  free(t);
  BENCH_CU(&cu, cu.cuStreamDestroy(s1));
  BENCH_CU(&cu, cu.cuStreamDestroy(s2));
  bench_cuda_close(&cu);
  BENCH_KC(kc_queue_destroy(q1));
  BENCH_KC(kc_queue_destroy(q2));
  BENCH_KC(kc_free(h));
  BENCH_KC(kc_free(d));
  BENCH_KC(kc_free(a));
  BENCH_KC(kc_free(b));
  BENCH_KC(kc_free(c));
  BENCH_KC(kc_finalize());
  return 0;
}
