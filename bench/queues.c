/* queues — kc's queues and events against raw CUDA streams and events.
 *
 * Three sections, each kc beside the same work written with the Driver
 * API (cuLaunchKernel of bench/baseline.cu's kernels, cuMemcpyHtoDAsync,
 * cuEventRecord, cuStreamWaitEvent on non-blocking streams), in one run on
 * one GPU.  Every figure is the median of --reps repetitions (after one
 * untimed), and each repetition runs every variant of its section once,
 * kc and raw alternately.
 *
 * pipeline    copy/compute overlap.  --pipe-n doubles (2^28: 2 GiB) in
 *             pinned host memory (kc: KC_SPACE_HOST_PINNED; raw:
 *             cuMemAllocHost) go to the device in --chunks chunks (8), each
 *             into the next of --ring device chunk buffers (2), and a
 *             kernel per chunk writes y[i] = x[i] after --pipe-iters steps
 *             of v = a v + b (dependent FP64 FMAs: queues.kc.c's qb_chain,
 *             baseline.cu's bench_chain_f64) into a device array of
 *             --pipe-n.  Two queues: the copies on one, the kernels on the
 *             other; kernel c waits for the event recorded after copy c,
 *             and copy c waits for the event recorded after kernel
 *             c - ring, the last reader of its buffer.  One queue: the same
 *             calls, events included, on one queue.  Each variant is timed
 *             from its first call to kc_fence / cuCtxSynchronize.  A copy
 *             moves ~50 GB/s and a memory-bound kernel ~3 TB/s, so the
 *             kernel's length comes from its FMA chain: unless --pipe-iters
 *             is given, the chain's length is set at start so that one
 *             chunk's raw kernel takes as long as one chunk's raw copy,
 *             each alone (where overlap can save the most: two queues then
 *             take (C+1)/(2C) of one queue's time for C chunks), and the
 *             table prints both times, kc's and raw.
 * concurrent  --conc-kernels (4) independent launches of the same chain,
 *             --conc-iters (2^18) steps over --conc-n elements each (by
 *             default an eighth of the SMs' worth of blocks, so that each
 *             kernel leaves the GPU mostly idle), on one queue (in turn) and
 *             on a queue each.  kc: kc_parallel_for with kc_policy_on; raw:
 *             cuLaunchKernel with the block kc's plugin picks for a 1-D
 *             launch (its occupancy rule, bench_cuda_block_size) and one
 *             thread per element.
 * launch      µs per launch of an empty kc_parallel_for over one index (an
 *             8 B functor: launch.kc.c's lb_for_8) on a kc queue, against
 *             raw cuLaunchKernel of an empty kernel with 8 B of parameters
 *             (one block of 128) on a stream, by bench/launch's method
 *             (which measures the default queue): async, a batch of
 *             --launch-iters launches closed by one kc_queue_fence /
 *             cuStreamSynchronize; +fence, a fence after every launch, a
 *             quarter as many.
 *
 * Targets, printed beside the ratios: pipeline, kc's two queues <= 1.10x
 * raw two streams and <= 0.65x kc's one queue; concurrent, kc's queue each
 * <= 1.10x raw and <= 0.5x kc's one queue; launch, kc <= 1.05x raw.
 *
 * After the timing, every variant of pipeline and concurrent runs once more
 * into outputs set to NaN, and samples of each output are compared with the
 * chain computed on the host: a wrong one exits 1.  Prints one table per
 * section, the targets beside the ratios they bound.  Exits 77 (SKIP) on a
 * backend other than cuda or without the baseline's PTX; exits 1, after
 * the other sections, when the pipeline's memory cannot be allocated.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kc/kernel.h>

#include "bench.h"
#include "cudadrv.h"
#include "launch.h"
#include "queues.h"

KC_KERNEL_DECLARE(qb_chain);
KC_KERNEL_DECLARE(lb_for_8);

static const char *prog = "queues";

static const char *usage =
    "usage: queues [--reps R] [--only pipeline|concurrent|launch]\n"
    "              [--pipe-n N] [--chunks C] [--ring B] [--pipe-iters K]\n"
    "              [--conc-n N] [--conc-kernels K] [--conc-iters K]\n"
    "              [--launch-iters N]\n"
    "  --reps R          repetitions, median reported (11)\n"
    "  --only S          run one section (repeatable; default all)\n"
    "  --pipe-n N        pipeline elements (doubles; 2^28 = 2 GiB)\n"
    "  --chunks C        pipeline chunks (8; must divide --pipe-n)\n"
    "  --ring B          device chunk buffers (2)\n"
    "  --pipe-iters K    FMA steps per element in the pipeline's kernel\n"
    "                    (default: a chunk's kernel as long as its copy)\n"
    "  --conc-n N        elements per concurrent kernel (default: SMs/8\n"
    "                    blocks of the raw kernel's block size)\n"
    "  --conc-kernels K  concurrent kernels, one queue each (4, at most 16)\n"
    "  --conc-iters K    FMA steps per element in them (2^18)\n"
    "  --launch-iters N  launches per timed batch (2000)\n"
    "Needs KC_BACKEND=cuda (the default here) and bench/baseline.cu's PTX.\n";

/* The chain's step v = a v + b.  a = 1 - 2^-20 keeps v in [0, 65536) and
 * x's trace in the result (a^K >= 1/e for K <= 2^20 steps), so a kernel
 * that read a buffer before its copy landed, or after the next one
 * overwrote it, gives a wrong answer. */
#define CHAIN_A (1.0 - 1.0 / 1048576.0)
#define CHAIN_B (1.0 / 1024.0)
#define MAXQ 16
/* Elements checked per output: the pipeline's cover every chunk; the
 * concurrent kernels' chains are long to compute on the host. */
#define PIPE_SAMPLES 1024
#define CONC_SAMPLES 64

enum { SEC_PIPE = 1, SEC_CONC = 2, SEC_LAUNCH = 4 };

typedef struct opts {
  long long pipe_n, pipe_iters, conc_n, conc_iters;
  int chunks, ring, kernels, launch_iters, reps, sections;
} opts;

/* What the sections share: the raw side's driver, kernels and streams,
 * kc's queues, and the tally of targets. */
typedef struct ctx {
  kc_info info;
  bench_cuda cu;
  CUfunction chain, empty;
  unsigned block; /* the raw chain's block: kc's rule */
  int nq;
  kc_queue *q[MAXQ];
  CUstream s[MAXQ];
  int reps, met, targets, failed;
} ctx;

static double input(long long i) { return (double)(i % 65521); }

static double chain_ref(double v, double b, long long iters) {
  for (long long k = 0; k < iters; k++)
    v = v * CHAIN_A + b;
  return v;
}

/* Compares `samples` elements of y (n elements on the device, kc's or
 * raw), one from each stretch of n / samples and the last, with the chain
 * from input(i) computed here.  The device contracts each step into an FMA and
 * the host may not: the difference stays below an ulp of 2^16 per step. */
static void check(ctx *x, const char *what, CUdeviceptr y, long long n,
                  double b, long long iters, long long samples) {
  const long long s = n < samples ? n : samples, stretch = n / s;
  const double tol = 1e-10 * (double)(iters + 1);
  for (long long j = 0; j <= s; j++) {
    long long i = j == s ? n - 1
                         : j * stretch + (long long)((uint64_t)j * 2654435761u %
                                                     (uint64_t)stretch);
    double got = 0, want = chain_ref(input(i), b, iters);
    BENCH_CU(&x->cu, x->cu.cuMemcpyDtoH(&got, y + (CUdeviceptr)i * 8, 8));
    if (!(fabs(got - want) <= tol))
      bench_die(prog,
                "wrong result: %s: y[%lld] = %.17g, want %.17g (x = %g, "
                "%lld steps)",
                what, i, got, want, input(i), iters);
  }
}

static CUdeviceptr dptr(const void *p) { return (CUdeviceptr)(uintptr_t)p; }

/* Counts a target and says whether `ratio` meets it. */
static void target(ctx *x, const char *what, double ratio, double limit) {
  const int ok = ratio <= limit;
  x->targets++;
  x->met += ok;
  printf("   %s %.3f <= %.2f: %s", what, ratio, limit, ok ? "ok" : "MISSED");
}

/* A row of times: kc, raw, kc/raw, and the target on kc/raw when limit is
 * positive. */
static void row(ctx *x, const char *label, double kc, double raw, int prec,
                double limit) {
  printf("  %-24s %11.*f %11.*f %8.3f", label, prec, kc, prec, raw, kc / raw);
  if (limit > 0)
    target(x, "kc/raw", kc / raw, limit);
  printf("\n");
}

/* A row of ratios (more queues / one), kc's checked against limit. */
static void ratio_row(ctx *x, const char *label, double kc, double raw,
                      double limit) {
  printf("  %-24s %11.3f %11.3f %8s", label, kc, raw, "");
  target(x, "kc", kc, limit);
  printf("\n");
}

static void header(const char *unit) {
  printf("  %-24s %8s %-2s %8s %-2s %8s   %s\n", "", "kc", unit, "raw", unit,
         "kc/raw", "target");
}

/* ------------------------------------------------------------ pipeline */

typedef struct pipe {
  long long n, m, iters; /* elements, per chunk, chain steps */
  int chunks, ring;
  size_t cbytes;
  unsigned grid; /* the raw kernel's, per chunk */
  /* kc: pinned host, ring * m and n doubles on the device, events */
  double *h, *slots, *y;
  kc_event **copied, **done;
  /* raw: the same */
  double *rh;
  CUdeviceptr rslots, ry;
  CUevent *rcopied, *rdone;
} pipe;

/* kc: the pipeline with its copies on cq and kernels on kq (cq == kq: one
 * queue); ms. */
static double pipe_kc(const pipe *p, kc_queue *cq, kc_queue *kq) {
  const double t0 = bench_now();
  for (int c = 0; c < p->chunks; c++) {
    double *slot = p->slots + (c % p->ring) * p->m;
    if (c >= p->ring) /* the buffer's last reader is done with it */
      BENCH_KC(kc_event_wait(cq, p->done[c - p->ring]));
    BENCH_KC(kc_memcpy_on(cq, slot, p->h + c * p->m, p->cbytes));
    BENCH_KC(kc_event_record(p->copied[c], cq));
    BENCH_KC(kc_event_wait(kq, p->copied[c]));
    struct qb_chain f = {slot, p->y + c * p->m, CHAIN_A, CHAIN_B, p->iters};
    kc_policy pol = kc_policy_on(kc_range(0, p->m), kq);
    BENCH_KC(
        kc_parallel_for("qb_chain", KC_KERNEL(qb_chain), &pol, &f, sizeof f));
    BENCH_KC(kc_event_record(p->done[c], kq));
  }
  BENCH_KC(kc_fence());
  return (bench_now() - t0) * 1e3;
}

/* Raw CUDA: the same on streams cs and ks; ms. */
static double pipe_raw(ctx *x, const pipe *p, CUstream cs, CUstream ks) {
  bench_cuda *cu = &x->cu;
  const double a = CHAIN_A, b = CHAIN_B;
  const double t0 = bench_now();
  for (int c = 0; c < p->chunks; c++) {
    CUdeviceptr slot = p->rslots + (CUdeviceptr)(c % p->ring) * p->cbytes;
    CUdeviceptr y = p->ry + (CUdeviceptr)c * p->cbytes;
    if (c >= p->ring)
      BENCH_CU(cu, cu->cuStreamWaitEvent(cs, p->rdone[c - p->ring], 0));
    BENCH_CU(cu, cu->cuMemcpyHtoDAsync(slot, p->rh + c * p->m, p->cbytes, cs));
    BENCH_CU(cu, cu->cuEventRecord(p->rcopied[c], cs));
    BENCH_CU(cu, cu->cuStreamWaitEvent(ks, p->rcopied[c], 0));
    void *args[] = {&slot,        &y, (void *)&a, (void *)&b, (void *)&p->iters,
                    (void *)&p->m};
    BENCH_CU(cu, cu->cuLaunchKernel(x->chain, p->grid, 1, 1, x->block, 1, 1, 0,
                                    ks, args, NULL));
    BENCH_CU(cu, cu->cuEventRecord(p->rdone[c], ks));
  }
  BENCH_CU(cu, cu->cuCtxSynchronize());
  return (bench_now() - t0) * 1e3;
}

/* One chunk alone: its copy (kernel 0) or its kernel (1), kc on q; ms. */
static double chunk_kc(const pipe *p, kc_queue *q, int kernel) {
  const double t0 = bench_now();
  if (kernel) {
    struct qb_chain f = {p->slots, p->y, CHAIN_A, CHAIN_B, p->iters};
    kc_policy pol = kc_policy_on(kc_range(0, p->m), q);
    BENCH_KC(
        kc_parallel_for("qb_chain", KC_KERNEL(qb_chain), &pol, &f, sizeof f));
  } else {
    BENCH_KC(kc_memcpy_on(q, p->slots, p->h, p->cbytes));
  }
  BENCH_KC(kc_queue_fence(q));
  return (bench_now() - t0) * 1e3;
}

static double chunk_raw(ctx *x, const pipe *p, CUstream s, int kernel) {
  bench_cuda *cu = &x->cu;
  const double a = CHAIN_A, b = CHAIN_B;
  CUdeviceptr slot = p->rslots, y = p->ry;
  const double t0 = bench_now();
  if (kernel) {
    void *args[] = {&slot,        &y, (void *)&a, (void *)&b, (void *)&p->iters,
                    (void *)&p->m};
    BENCH_CU(cu, cu->cuLaunchKernel(x->chain, p->grid, 1, 1, x->block, 1, 1, 0,
                                    s, args, NULL));
  } else {
    BENCH_CU(cu, cu->cuMemcpyHtoDAsync(slot, p->rh, p->cbytes, s));
  }
  BENCH_CU(cu, cu->cuStreamSynchronize(s));
  return (bench_now() - t0) * 1e3;
}

/* Medians of 5 of one chunk alone: t[0] copy kc, t[1] copy raw, t[2]
 * kernel kc, t[3] kernel raw. */
static void chunk_times(ctx *x, const pipe *p, double t[4]) {
  double v[4][5];
  for (int r = 0; r < 5; r++)
    for (int k = 0; k < 2; k++) {
      v[2 * k][r] = chunk_kc(p, x->q[0], k);
      v[2 * k + 1][r] = chunk_raw(x, p, x->s[0], k);
    }
  for (int j = 0; j < 4; j++)
    t[j] = bench_median(v[j], 5, NULL);
}

/* Allocates the pipeline's memory; 0, or -1 with the reason in why[]. */
static int pipe_alloc(ctx *x, pipe *p, char *why, size_t len) {
  const size_t bytes = (size_t)p->n * sizeof(double);
  const double mib = (double)bytes / (1 << 20);
  int rc = kc_malloc((void **)&p->h, bytes, KC_SPACE_HOST_PINNED, "pipe-h");
  if (rc) {
    snprintf(why, len,
             "kc cannot allocate %.0f MiB of pinned host memory (%s: %s)", mib,
             kc_err_name(rc), kc_last_error());
    return -1;
  }
  if ((rc = kc_malloc((void **)&p->slots, (size_t)p->ring * p->cbytes,
                      KC_SPACE_DEVICE, "pipe-slots")) != 0 ||
      (rc = kc_malloc((void **)&p->y, bytes, KC_SPACE_DEVICE, "pipe-y")) != 0) {
    snprintf(why, len, "kc cannot allocate %.0f MiB of device memory (%s: %s)",
             mib + (double)p->ring * p->cbytes / (1 << 20), kc_err_name(rc),
             kc_last_error());
    return -1;
  }
  bench_cuda *cu = &x->cu;
  CUresult r = cu->cuMemAllocHost((void **)&p->rh, bytes);
  if (r != 0) {
    p->rh = NULL;
    snprintf(why, len,
             "cuMemAllocHost cannot pin %.0f MiB more of host memory "
             "(CUDA error %d)",
             mib, r);
    return -1;
  }
  if ((r = cu->cuMemAlloc(&p->rslots, (size_t)p->ring * p->cbytes)) != 0)
    p->rslots = 0;
  else if ((r = cu->cuMemAlloc(&p->ry, bytes)) != 0)
    p->ry = 0;
  if (r != 0) {
    snprintf(why, len,
             "cuMemAlloc cannot allocate %.0f MiB more of device memory "
             "(CUDA error %d)",
             mib + (double)p->ring * p->cbytes / (1 << 20), r);
    return -1;
  }
  return 0;
}

static void pipe_free(ctx *x, pipe *p) {
  bench_cuda *cu = &x->cu;
  for (int c = 0; c < p->chunks; c++) {
    if (p->copied)
      BENCH_KC(kc_event_destroy(p->copied[c]));
    if (p->done)
      BENCH_KC(kc_event_destroy(p->done[c]));
    if (p->rcopied)
      BENCH_CU(cu, cu->cuEventDestroy(p->rcopied[c]));
    if (p->rdone)
      BENCH_CU(cu, cu->cuEventDestroy(p->rdone[c]));
  }
  free(p->copied);
  free(p->done);
  free(p->rcopied);
  free(p->rdone);
  BENCH_KC(kc_free(p->h));
  BENCH_KC(kc_free(p->slots));
  BENCH_KC(kc_free(p->y));
  if (p->rh)
    BENCH_CU(cu, cu->cuMemFreeHost(p->rh));
  if (p->rslots)
    BENCH_CU(cu, cu->cuMemFree(p->rslots));
  if (p->ry)
    BENCH_CU(cu, cu->cuMemFree(p->ry));
}

static void pipe_events(ctx *x, pipe *p) {
  const size_t c = (size_t)p->chunks;
  p->copied = calloc(c, sizeof *p->copied);
  p->done = calloc(c, sizeof *p->done);
  p->rcopied = calloc(c, sizeof *p->rcopied);
  p->rdone = calloc(c, sizeof *p->rdone);
  if (!p->copied || !p->done || !p->rcopied || !p->rdone)
    bench_die(prog, "out of memory");
  /* Raw events for ordering only, as a CUDA programmer makes them. */
  for (size_t i = 0; i < c; i++) {
    BENCH_KC(kc_event_create(&p->copied[i]));
    BENCH_KC(kc_event_create(&p->done[i]));
    BENCH_CU(&x->cu,
             x->cu.cuEventCreate(&p->rcopied[i], CU_EVENT_DISABLE_TIMING));
    BENCH_CU(&x->cu,
             x->cu.cuEventCreate(&p->rdone[i], CU_EVENT_DISABLE_TIMING));
  }
}

/* Runs variant v (0 kc one queue, 1 raw one stream, 2 kc two queues, 3 raw
 * two streams); ms. */
static double pipe_variant(ctx *x, const pipe *p, int v) {
  switch (v) {
  case 0:
    return pipe_kc(p, x->q[0], x->q[0]);
  case 1:
    return pipe_raw(x, p, x->s[0], x->s[0]);
  case 2:
    return pipe_kc(p, x->q[0], x->q[1]);
  default:
    return pipe_raw(x, p, x->s[0], x->s[1]);
  }
}

/* Each of a section's four variants once per repetition, in turn, after
 * one untimed round: *med gets their medians (ms). */
static void time_variants(ctx *x, double (*variant)(ctx *, const void *, int),
                          const void *w, double med[4]) {
  double *t = calloc((size_t)x->reps * 4, sizeof *t);
  if (!t)
    bench_die(prog, "out of memory");
  for (int r = -1; r < x->reps; r++)
    for (int v = 0; v < 4; v++) {
      double ms = variant(x, w, v);
      if (r >= 0)
        t[v * x->reps + r] = ms;
    }
  for (int v = 0; v < 4; v++)
    med[v] = bench_median(t + v * x->reps, x->reps, NULL);
  free(t);
}

static double pipe_run(ctx *x, const void *p, int v) {
  return pipe_variant(x, p, v);
}

static const char *const pipe_names[4] = {"kc, one queue", "raw, one stream",
                                          "kc, two queues", "raw, two streams"};

/* Every variant once more into outputs and buffers of NaN, checked. */
static void pipe_check(ctx *x, const pipe *p) {
  const size_t bytes = (size_t)p->n * sizeof(double);
  for (int v = 0; v < 4; v++) {
    BENCH_KC(kc_memset(p->y, 0xff, bytes));
    BENCH_KC(kc_memset(p->slots, 0xff, (size_t)p->ring * p->cbytes));
    BENCH_CU(&x->cu, x->cu.cuMemsetD8(p->ry, 0xff, bytes));
    BENCH_CU(&x->cu,
             x->cu.cuMemsetD8(p->rslots, 0xff, (size_t)p->ring * p->cbytes));
    /* The memsets run on the legacy stream, which the raw non-blocking
     * streams do not wait for. */
    BENCH_CU(&x->cu, x->cu.cuCtxSynchronize());
    pipe_variant(x, p, v);
    char what[64];
    snprintf(what, sizeof what, "pipeline, %s", pipe_names[v]);
    check(x, what, v % 2 ? p->ry : dptr(p->y), p->n, CHAIN_B, p->iters,
          PIPE_SAMPLES);
  }
}

static void pipe_table(ctx *x, const pipe *p, const double chunk[4],
                       const double med[4], int calibrated) {
  const double mib = (double)p->cbytes / (1 << 20);
  printf("\npipeline (copy/compute overlap): %lld doubles (%.0f MiB, pinned "
         "host) in %d chunks of %.0f MiB, %d device chunk buffers\n",
         p->n, mib * p->chunks, p->chunks, mib, p->ring);
  printf("  kernel per chunk: y = x after %lld dependent FMAs per element "
         "(%s); raw grid %u x %u\n",
         p->iters,
         calibrated ? "set so that a chunk's raw kernel takes as long as its "
                      "raw copy"
                    : "--pipe-iters",
         p->grid, x->block);
  printf("  one chunk alone, ms: copy kc %.3f / raw %.3f (%.1f / %.1f GB/s), "
         "kernel kc %.3f / raw %.3f\n",
         chunk[0], chunk[1], p->cbytes / chunk[0] * 1e-6,
         p->cbytes / chunk[1] * 1e-6, chunk[2], chunk[3]);
  header("ms");
  row(x, "one queue / stream", med[0], med[1], 3, 0);
  row(x, "two queues / streams", med[2], med[3], 3, 1.10);
  ratio_row(x, "two / one", med[2] / med[0], med[3] / med[1], 0.65);
  printf("  (with copy = kernel, two / one is at best (C+1)/(2C) = %.3f for "
         "C = %d chunks)\n",
         (p->chunks + 1.0) / (2.0 * p->chunks), p->chunks);
}

static void section_pipe(ctx *x, const opts *o) {
  pipe p;
  memset(&p, 0, sizeof p);
  p.n = o->pipe_n;
  p.chunks = o->chunks;
  p.ring = o->ring;
  p.m = p.n / p.chunks;
  p.cbytes = (size_t)p.m * sizeof(double);
  p.grid = (unsigned)((p.m + x->block - 1) / x->block);
  char why[512];
  if (pipe_alloc(x, &p, why, sizeof why) != 0) {
    printf("\npipeline: NOT RUN: %s; try a smaller --pipe-n\n", why);
    fprintf(stderr, "%s: pipeline: %s\n", prog, why);
    x->failed = 1;
    pipe_free(x, &p);
    return;
  }
  pipe_events(x, &p);
  for (long long i = 0; i < p.n; i++)
    p.h[i] = input(i);
  memcpy(p.rh, p.h, (size_t)p.n * sizeof(double));

  /* Calibration: the first launches also load and JIT both kernels. */
  double chunk[4];
  p.iters = o->pipe_iters ? o->pipe_iters : 256;
  chunk_kc(&p, x->q[0], 1);
  chunk_raw(x, &p, x->s[0], 1);
  if (!o->pipe_iters) {
    chunk_times(x, &p, chunk);
    p.iters = llround((double)p.iters * chunk[1] / chunk[3]);
    if (p.iters < 1)
      p.iters = 1;
  }
  chunk_times(x, &p, chunk);

  double med[4];
  time_variants(x, pipe_run, &p, med);
  pipe_check(x, &p);
  pipe_table(x, &p, chunk, med, !o->pipe_iters);
  pipe_free(x, &p);
}

/* ---------------------------------------------------------- concurrent */

typedef struct conc {
  long long n, iters;
  int kernels;
  unsigned grid;
  double *x, *y[MAXQ];
  CUdeviceptr rx, ry[MAXQ];
  double b[MAXQ];
} conc;

/* kc: the kernels on a queue each (spread) or all on q[0]; ms. */
static double conc_kc(ctx *x, const conc *w, int spread) {
  const double t0 = bench_now();
  for (int k = 0; k < w->kernels; k++) {
    struct qb_chain f = {w->x, w->y[k], CHAIN_A, w->b[k], w->iters};
    kc_policy pol = kc_policy_on(kc_range(0, w->n), x->q[spread ? k : 0]);
    BENCH_KC(
        kc_parallel_for("qb_chain", KC_KERNEL(qb_chain), &pol, &f, sizeof f));
  }
  BENCH_KC(kc_fence());
  return (bench_now() - t0) * 1e3;
}

static double conc_raw(ctx *x, const conc *w, int spread) {
  bench_cuda *cu = &x->cu;
  const double a = CHAIN_A;
  const double t0 = bench_now();
  for (int k = 0; k < w->kernels; k++) {
    CUdeviceptr in = w->rx, out = w->ry[k];
    void *args[] = {
        &in,          &out, (void *)&a, (void *)&w->b[k], (void *)&w->iters,
        (void *)&w->n};
    BENCH_CU(cu, cu->cuLaunchKernel(x->chain, w->grid, 1, 1, x->block, 1, 1, 0,
                                    x->s[spread ? k : 0], args, NULL));
  }
  BENCH_CU(cu, cu->cuCtxSynchronize());
  return (bench_now() - t0) * 1e3;
}

/* Variant v: 0 kc one queue, 1 raw one stream, 2 kc a queue each, 3 raw a
 * stream each; ms. */
static double conc_variant(ctx *x, const conc *w, int v) {
  return v % 2 ? conc_raw(x, w, v / 2) : conc_kc(x, w, v / 2);
}

static double conc_run(ctx *x, const void *w, int v) {
  return conc_variant(x, w, v);
}

static void conc_check(ctx *x, const conc *w) {
  static const char *const names[4] = {"kc, one queue", "raw, one stream",
                                       "kc, a queue each",
                                       "raw, a stream each"};
  const size_t bytes = (size_t)w->n * sizeof(double);
  for (int v = 0; v < 4; v++) {
    for (int k = 0; k < w->kernels; k++) {
      BENCH_KC(kc_memset(w->y[k], 0xff, bytes));
      BENCH_CU(&x->cu, x->cu.cuMemsetD8(w->ry[k], 0xff, bytes));
    }
    BENCH_CU(&x->cu, x->cu.cuCtxSynchronize());
    conc_variant(x, w, v);
    for (int k = 0; k < w->kernels; k++) {
      char what[64];
      snprintf(what, sizeof what, "concurrent, %s, kernel %d", names[v], k);
      check(x, what, v % 2 ? w->ry[k] : dptr(w->y[k]), w->n, w->b[k], w->iters,
            CONC_SAMPLES);
    }
  }
}

static void section_conc(ctx *x, const opts *o) {
  bench_cuda *cu = &x->cu;
  conc w;
  memset(&w, 0, sizeof w);
  w.kernels = o->kernels;
  w.iters = o->conc_iters;
  w.n = o->conc_n;
  if (w.n == 0)
    w.n = (long long)(cu->sms / 8 > 0 ? cu->sms / 8 : 1) * x->block;
  w.grid = (unsigned)((w.n + x->block - 1) / x->block);
  const size_t bytes = (size_t)w.n * sizeof(double);
  double *h = malloc(bytes);
  if (!h)
    bench_die(prog, "out of memory");
  for (long long i = 0; i < w.n; i++)
    h[i] = input(i);
  BENCH_KC(kc_malloc((void **)&w.x, bytes, KC_SPACE_DEVICE, "conc-x"));
  BENCH_KC(kc_memcpy(w.x, h, bytes));
  BENCH_CU(cu, cu->cuMemAlloc(&w.rx, bytes));
  BENCH_CU(cu, cu->cuMemcpyHtoDAsync(w.rx, h, bytes, x->s[0]));
  BENCH_CU(cu, cu->cuStreamSynchronize(x->s[0]));
  free(h);
  for (int k = 0; k < w.kernels; k++) {
    w.b[k] = CHAIN_B * (k + 1);
    BENCH_KC(kc_malloc((void **)&w.y[k], bytes, KC_SPACE_DEVICE, "conc-y"));
    BENCH_CU(cu, cu->cuMemAlloc(&w.ry[k], bytes));
  }

  /* The untimed repetition also loads each kernel on every queue before
   * kernels run side by side (doc/queues.md). */
  double med[4];
  time_variants(x, conc_run, &w, med);
  conc_check(x, &w);

  printf("\nconcurrent kernels: %d independent kernels of %lld elements, y "
         "= x after %lld dependent FMAs each\n",
         w.kernels, w.n, w.iters);
  printf("  raw grid %u x block %u per kernel (kc's block rule; kc sizes its "
         "own launch) on %d SMs\n",
         w.grid, x->block, cu->sms);
  header("ms");
  row(x, "one queue (in turn)", med[0], med[1], 3, 0);
  row(x, "a queue each", med[2], med[3], 3, 1.10);
  ratio_row(x, "a queue each / one", med[2] / med[0], med[3] / med[1], 0.5);
  printf("  (%d kernels that fit the GPU side by side: %.3f at best)\n",
         w.kernels, 1.0 / w.kernels);

  BENCH_KC(kc_free(w.x));
  BENCH_CU(cu, cu->cuMemFree(w.rx));
  for (int k = 0; k < w.kernels; k++) {
    BENCH_KC(kc_free(w.y[k]));
    BENCH_CU(cu, cu->cuMemFree(w.ry[k]));
  }
}

/* -------------------------------------------------------------- launch */

/* bench/launch's kc_run on queue q: µs per launch, a fence after each
 * (fence) or after the batch. */
static double launch_kc(kc_queue *q, int iters, int fence) {
  lb_f8 f;
  memset(&f, 0, sizeof f);
  kc_policy p = kc_policy_on(kc_range(0, 1), q);
  BENCH_KC(kc_queue_fence(q));
  const double t0 = bench_now();
  for (int i = 0; i < iters; i++) {
    BENCH_KC(kc_parallel_for(NULL, KC_KERNEL(lb_for_8), &p, &f, sizeof f));
    if (fence)
      BENCH_KC(kc_queue_fence(q));
  }
  if (!fence)
    BENCH_KC(kc_queue_fence(q));
  return (bench_now() - t0) / iters * 1e6;
}

/* bench/launch's raw_run on stream s. */
static double launch_raw(ctx *x, CUstream s, int iters, int fence) {
  bench_cuda *cu = &x->cu;
  long long w = 0;
  void *params[1] = {&w};
  BENCH_CU(cu, cu->cuStreamSynchronize(s));
  const double t0 = bench_now();
  for (int i = 0; i < iters; i++) {
    BENCH_CU(cu, cu->cuLaunchKernel(x->empty, 1, 1, 1, 128, 1, 1, 0, s, params,
                                    NULL));
    if (fence)
      BENCH_CU(cu, cu->cuStreamSynchronize(s));
  }
  if (!fence)
    BENCH_CU(cu, cu->cuStreamSynchronize(s));
  return (bench_now() - t0) / iters * 1e6;
}

static void section_launch(ctx *x, const opts *o) {
  const int iters = o->launch_iters, fiters = iters / 4 > 0 ? iters / 4 : 1;
  kc_queue *q = x->q[0];
  CUstream s = x->s[0];
  launch_kc(q, 200, 0);
  launch_raw(x, s, 200, 0);
  double *t = calloc((size_t)x->reps * 4, sizeof *t);
  if (!t)
    bench_die(prog, "out of memory");
  for (int r = 0; r < x->reps; r++) {
    t[0 * x->reps + r] = launch_kc(q, iters, 0);
    t[1 * x->reps + r] = launch_raw(x, s, iters, 0);
    t[2 * x->reps + r] = launch_kc(q, fiters, 1);
    t[3 * x->reps + r] = launch_raw(x, s, fiters, 1);
  }
  double med[4];
  for (int v = 0; v < 4; v++)
    med[v] = bench_median(t + v * x->reps, x->reps, NULL);
  free(t);
  printf("\nlaunch on a queue: empty kc_parallel_for over one index (8 B "
         "functor) on a kc queue; raw: empty kernel (8 B parameter, 1 x 128) "
         "on a non-blocking stream\n");
  header("us");
  char label[40];
  snprintf(label, sizeof label, "async (batch of %d)", iters);
  row(x, label, med[0], med[1], 2, 1.05);
  snprintf(label, sizeof label, "+ fence (x %d)", fiters);
  row(x, label, med[2], med[3], 2, 1.05);
}

/* --------------------------------------------------------------- main */

static int parse_int(const char *opt, const char *s) {
  uint64_t v = bench_parse_size(prog, opt, s);
  if (v > 0x7fffffff)
    bench_die(prog, "%s %s: too large", opt, s);
  return (int)v;
}

static void parse(opts *o, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(usage, stdout);
      exit(0);
    }
    if (!v) {
      fputs(usage, stderr);
      exit(2);
    }
    i++;
    if (!strcmp(a, "--reps"))
      o->reps = parse_int(a, v);
    else if (!strcmp(a, "--pipe-n"))
      o->pipe_n = (long long)bench_parse_size(prog, a, v);
    else if (!strcmp(a, "--chunks"))
      o->chunks = parse_int(a, v);
    else if (!strcmp(a, "--ring"))
      o->ring = parse_int(a, v);
    else if (!strcmp(a, "--pipe-iters"))
      o->pipe_iters = (long long)bench_parse_size(prog, a, v);
    else if (!strcmp(a, "--conc-n"))
      o->conc_n = (long long)bench_parse_size(prog, a, v);
    else if (!strcmp(a, "--conc-kernels"))
      o->kernels = parse_int(a, v);
    else if (!strcmp(a, "--conc-iters"))
      o->conc_iters = (long long)bench_parse_size(prog, a, v);
    else if (!strcmp(a, "--launch-iters"))
      o->launch_iters = parse_int(a, v);
    else if (!strcmp(a, "--only") && !strcmp(v, "pipeline"))
      o->sections |= SEC_PIPE;
    else if (!strcmp(a, "--only") && !strcmp(v, "concurrent"))
      o->sections |= SEC_CONC;
    else if (!strcmp(a, "--only") && !strcmp(v, "launch"))
      o->sections |= SEC_LAUNCH;
    else {
      fprintf(stderr, "%s: unknown option %s %s\n%s", prog, a, v, usage);
      exit(2);
    }
  }
  if (!o->sections)
    o->sections = SEC_PIPE | SEC_CONC | SEC_LAUNCH;
  if (o->reps < 1 || o->chunks < 1 || o->ring < 1 || o->launch_iters < 1 ||
      o->conc_iters < 1 || o->kernels < 1 || o->kernels > MAXQ)
    bench_die(prog, "--reps, --chunks, --ring, --launch-iters and "
                    "--conc-iters must be positive, --conc-kernels 1..16");
  if (o->pipe_n < o->chunks || o->pipe_n % o->chunks)
    bench_die(prog, "--chunks %d must divide --pipe-n %lld", o->chunks,
              o->pipe_n);
  if (o->pipe_n / o->chunks > 0x7fffffffLL * 32)
    bench_die(prog, "chunks of %lld elements are too large for one grid",
              o->pipe_n / o->chunks);
}

/* Starts kc and the raw side: 0, or exits 77 (SKIP) with a reason. */
static void start(ctx *x) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  setenv("KC_BACKEND", "cuda", 0);
  bench_init(prog, &x->info);
  if (bench_is_host_backend(&x->info) || strcmp(kc_backend_name(), "cuda")) {
    printf("SKIP: %s: backend '%s' is not cuda (host backends complete each "
           "launch before it returns: nothing to overlap)\n",
           prog, kc_backend_name());
    kc_finalize();
    exit(BENCH_SKIP);
  }
  char why[1024];
  int rc = bench_cuda_open(&x->cu, x->info.device, bench_ptx, why, sizeof why);
  if (rc == -1) {
    printf("SKIP: %s: no raw baseline: %s\n", prog, why);
    kc_finalize();
    exit(BENCH_SKIP);
  }
  if (rc != 0)
    bench_die(prog, "%s", why);
  if (!KC_KERNEL(qb_chain) || !KC_KERNEL(lb_for_8))
    bench_die(prog, "kernels qb_chain, lb_for_8 not registered");
  x->chain = bench_cuda_function(&x->cu, "bench_chain_f64");
  x->empty = bench_cuda_function(&x->cu, "bench_empty_p8");
  x->block = bench_cuda_block_size(&x->cu, x->chain);
  for (int i = 0; i < x->nq; i++) {
    BENCH_KC(kc_queue_create(&x->q[i], x->info.device));
    BENCH_CU(&x->cu, x->cu.cuStreamCreate(&x->s[i], CU_STREAM_NON_BLOCKING));
  }
}

int main(int argc, char **argv) {
  opts o = {.pipe_n = 1LL << 28,
            .conc_iters = 1LL << 18,
            .chunks = 8,
            .ring = 2,
            .kernels = 4,
            .launch_iters = 2000,
            .reps = 11};
  parse(&o, argc, argv);
  ctx x;
  memset(&x, 0, sizeof x);
  x.reps = o.reps;
  x.nq = o.kernels > 2 ? o.kernels : 2;
  start(&x);
  printf("queues: kc queues and events against raw CUDA streams and events, "
         "%s (%d SMs); median of %d repetitions, kc and raw alternating\n",
         x.info.dev.name, x.cu.sms, x.reps);
  if (o.sections & SEC_PIPE)
    section_pipe(&x, &o);
  if (o.sections & SEC_CONC)
    section_conc(&x, &o);
  if (o.sections & SEC_LAUNCH)
    section_launch(&x, &o);
  printf("\ntargets: %d of %d met; every result checked against the host\n",
         x.met, x.targets);

  for (int i = 0; i < x.nq; i++) {
    BENCH_KC(kc_queue_destroy(x.q[i]));
    BENCH_CU(&x.cu, x.cu.cuStreamDestroy(x.s[i]));
  }
  bench_cuda_close(&x.cu);
  BENCH_KC(kc_finalize());
  if (x.failed)
    fprintf(stderr, "%s: a section could not run (see above)\n", prog);
  return x.failed ? 1 : 0;
}
