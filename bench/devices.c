/* devices — kc on every GPU of the machine at once, through queues.
 *
 * Two sections, cuda only, every figure the median of --reps repetitions
 * (after one untimed), the variants of a section alternating in each
 * repetition.
 *
 * triad  BabelStream's triad a = b + s c (stream.kc.c's stream_triad_f64,
 *        the arrays declared restrict) over --n doubles (2^28): on device 0
 *        alone, and split into D equal parts for the D devices there are,
 *        each part's three arrays allocated on its device (kc_malloc_on)
 *        and its kernel launched on a queue of that device (kc_policy_on).
 *        The D launches go out back to back; kc_fence closes the step.
 *        Prints the GB/s of each (24 n bytes over the step's time) and the
 *        ratio of the aggregate to D times one device's.
 * copy   --bytes (1 GiB) from device 0 to each other device d and back:
 *        kc_memcpy_on on a queue of the source device closed by
 *        kc_queue_fence, against the driver's cuMemcpyPeerAsync between
 *        the same two allocations on a stream of the same device closed by
 *        cuStreamSynchronize (peer access enabled for it where the devices
 *        allow, as kc's plugin does).  GB/s and kc/raw; the table says
 *        whether the pair has peer access.
 *
 * After the timing every result is checked: samples of each part of the
 * triad against the host's b + s c, and each copy's destination, zeroed
 * first, in full against the pattern its source holds.  Exits 77 (SKIP)
 * on a backend other than cuda or without the baseline's PTX, 1 on a wrong
 * result.  With one device the copy section says so and is skipped; the
 * triad then compares a device with itself.  KC_CUDA_VIRTUAL_DEVICES=N
 * (doc/queues.md) runs it on one GPU. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kc/kernel.h>

#include "bench.h"
#include "cudadrv.h"
#include "stream.h"

KC_KERNEL_DECLARE(stream_init_f64);
KC_KERNEL_DECLARE(stream_triad_f64);

static const char *prog = "devices";

static const char *usage =
    "usage: devices [--reps R] [--n N] [--bytes B] [--only triad|copy]\n"
    "  --reps R    repetitions, median reported (11)\n"
    "  --n N       triad elements in all (doubles; 2^28), split over the\n"
    "              devices\n"
    "  --bytes B   bytes per copy between two devices (1G)\n"
    "  --only S    run one section (default both)\n"
    "Needs KC_BACKEND=cuda (the default here) and bench/baseline.cu's PTX.\n";

#define MAXDEV 16
/* cuCtxEnablePeerAccess's answer when kc's plugin has enabled it already
 * (cuda.h's CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED). */
#define PEER_ACCESS_ALREADY_ENABLED 704
#define SAMPLES 4096
#define INIT_A 0.1
#define INIT_B 0.2
#define INIT_C 0.3
#define SCALAR 0.4

enum { SEC_TRIAD = 1, SEC_COPY = 2 };

typedef struct ctx {
  kc_info info;
  bench_cuda cu;
  int ndev, reps;
  kc_queue *q[MAXDEV];
  CUcontext ctx[MAXDEV]; /* primary contexts, retained here too */
  CUdevice dev[MAXDEV];
  CUstream s[MAXDEV];
} ctx;

/* ------------------------------------------------------------------ triad */

typedef struct part {
  struct stream_f64 f;
  long long n;
} part;

/* Allocates and fills the parts of n elements over `use` devices. */
static void triad_alloc(ctx *x, part *p, int use, long long n) {
  for (int d = 0; d < use; d++) {
    const long long lo = n * d / use, hi = n * (d + 1) / use;
    const size_t bytes = (size_t)(hi - lo) * sizeof(double);
    p[d].n = hi - lo;
    memset(&p[d].f, 0, sizeof p[d].f);
    BENCH_KC(kc_malloc_on((void **)&p[d].f.a, bytes, KC_SPACE_DEVICE, d, "a"));
    BENCH_KC(kc_malloc_on((void **)&p[d].f.b, bytes, KC_SPACE_DEVICE, d, "b"));
    BENCH_KC(kc_malloc_on((void **)&p[d].f.c, bytes, KC_SPACE_DEVICE, d, "c"));
    p[d].f.scalar = SCALAR;
    p[d].f.init_a = INIT_A;
    p[d].f.init_b = INIT_B;
    p[d].f.init_c = INIT_C;
    kc_policy pol = kc_policy_on(kc_range(0, p[d].n), x->q[d]);
    BENCH_KC(kc_parallel_for("init", KC_KERNEL(stream_init_f64), &pol, &p[d].f,
                             sizeof p[d].f));
  }
  BENCH_KC(kc_fence());
}

static void triad_free(part *p, int use) {
  for (int d = 0; d < use; d++) {
    BENCH_KC(kc_free(p[d].f.a));
    BENCH_KC(kc_free(p[d].f.b));
    BENCH_KC(kc_free(p[d].f.c));
  }
}

/* One step: every part's triad launched on its device's queue, then one
 * kc_fence.  Seconds. */
static double triad_step(ctx *x, part *p, int use) {
  const double t0 = bench_now();
  for (int d = 0; d < use; d++) {
    kc_policy pol = kc_policy_on(kc_range(0, p[d].n), x->q[d]);
    BENCH_KC(kc_parallel_for("triad", KC_KERNEL(stream_triad_f64), &pol,
                             &p[d].f, sizeof p[d].f));
  }
  BENCH_KC(kc_fence());
  return bench_now() - t0;
}

/* Samples of each part's a against the host's b + s c, after every part's
 * a was set to NaN bytes (0xff) and one more step: a part whose kernel did
 * not run, or ran on another part's pointers, fails. */
static void triad_check(ctx *x, part *p, int use, const char *what) {
  const double want = INIT_B + SCALAR * INIT_C;
  for (int d = 0; d < use; d++)
    BENCH_KC(
        kc_memset_on(x->q[d], p[d].f.a, 0xff, (size_t)p[d].n * sizeof(double)));
  (void)triad_step(x, p, use);
  for (int d = 0; d < use; d++) {
    const long long s = p[d].n < SAMPLES ? p[d].n : SAMPLES;
    for (long long j = 0; j < s; j++) {
      const long long i = j == s - 1 ? p[d].n - 1 : j * (p[d].n / s);
      double got = 0;
      BENCH_KC(kc_memcpy_on(x->q[d], &got, p[d].f.a + i, sizeof got));
      BENCH_KC(kc_queue_fence(x->q[d]));
      if (!(fabs(got - want) <= 1e-15))
        bench_die(prog,
                  "wrong result: %s: device %d's a[%lld] = %.17g, want %.17g",
                  what, d, i, got, want);
    }
  }
}

static void section_triad(ctx *x, long long n) {
  const int D = x->ndev;
  part one[1], all[MAXDEV];
  triad_alloc(x, one, 1, n);
  /* The split only when it is not the same run as one device. */
  if (D > 1)
    triad_alloc(x, all, D, n);
  double t1[x->reps], tD[x->reps];
  (void)triad_step(x, one, 1);
  if (D > 1)
    (void)triad_step(x, all, D);
  for (int r = 0; r < x->reps; r++) {
    t1[r] = triad_step(x, one, 1);
    tD[r] = D > 1 ? triad_step(x, all, D) : t1[r];
  }
  triad_check(x, one, 1, "one device");
  if (D > 1)
    triad_check(x, all, D, "every device");
  const double bytes = 24.0 * (double)n;
  const double g1 = bytes / bench_median(t1, x->reps, NULL) * 1e-9;
  const double gD = bytes / bench_median(tD, x->reps, NULL) * 1e-9;
  printf("\ntriad, %lld doubles (%.2f GiB moved a step), GB/s:\n", n,
         bytes / 1073741824.0);
  printf("  %-34s %10.1f\n", "device 0 alone", g1);
  printf("  %-34s %10.1f\n",
         D > 1 ? "split over every device, a queue each" : "(one device)", gD);
  printf("  %-34s %10.3f   (aggregate / (%d x one device))\n", "scaling",
         gD / (D * g1), D);
  printf("CSV,triad,%d,%lld,%.1f,%.1f,%.3f\n", D, n, g1, gD, gD / (D * g1));
  triad_free(one, 1);
  if (D > 1)
    triad_free(all, D);
}

/* ------------------------------------------------------------------- copy */

static uint64_t pattern(size_t i, int salt) {
  return (uint64_t)i * 0x9e3779b97f4a7c15ull ^ (uint64_t)(salt + 1) << 56;
}

static double copy_kc(kc_queue *q, void *dst, const void *src, size_t bytes) {
  const double t0 = bench_now();
  BENCH_KC(kc_memcpy_on(q, dst, src, bytes));
  BENCH_KC(kc_queue_fence(q));
  return bench_now() - t0;
}

static double copy_raw(ctx *x, int from, int to, void *dst, const void *src,
                       size_t bytes) {
  bench_cuda *cu = &x->cu;
  BENCH_CU(cu, cu->cuCtxSetCurrent(x->ctx[from]));
  const double t0 = bench_now();
  BENCH_CU(cu, cu->cuMemcpyPeerAsync((CUdeviceptr)(uintptr_t)dst, x->ctx[to],
                                     (CUdeviceptr)(uintptr_t)src, x->ctx[from],
                                     bytes, x->s[from]));
  BENCH_CU(cu, cu->cuStreamSynchronize(x->s[from]));
  return bench_now() - t0;
}

/* The whole destination against the source's pattern, after a zeroed
 * destination and one copy (kc's when raw is 0). */
static void copy_check(ctx *x, int from, int to, uint64_t *dst,
                       const uint64_t *src, size_t bytes, uint64_t *h,
                       int raw) {
  BENCH_KC(kc_memset_on(x->q[to], dst, 0, bytes));
  BENCH_KC(kc_queue_fence(x->q[to]));
  if (raw)
    (void)copy_raw(x, from, to, dst, src, bytes);
  else
    (void)copy_kc(x->q[from], dst, src, bytes);
  BENCH_KC(kc_memcpy_on(x->q[to], h, dst, bytes));
  BENCH_KC(kc_queue_fence(x->q[to]));
  for (size_t i = 0; i < bytes / 8; i++)
    if (h[i] != pattern(i, from))
      bench_die(prog,
                "wrong result: %s copy from device %d to %d: word %zu is "
                "%#llx, want %#llx",
                raw ? "raw" : "kc", from, to, i, (unsigned long long)h[i],
                (unsigned long long)pattern(i, from));
}

static void section_copy(ctx *x, size_t bytes) {
  bench_cuda *cu = &x->cu;
  if (x->ndev < 2) {
    printf("\ncopy between devices: skipped, one device\n");
    return;
  }
  bytes &= ~(size_t)7;
  uint64_t *h = bench_host_alloc(prog, bytes);
  uint64_t *buf[MAXDEV];
  for (int d = 0; d < x->ndev; d++) {
    BENCH_KC(kc_malloc_on((void **)&buf[d], bytes, KC_SPACE_DEVICE, d, "buf"));
    for (size_t i = 0; i < bytes / 8; i++)
      h[i] = pattern(i, d);
    BENCH_KC(kc_memcpy_on(x->q[d], buf[d], h, bytes));
    BENCH_KC(kc_queue_fence(x->q[d]));
  }
  uint64_t *dst;
  printf("\ncopy between devices, %.2f GiB, GB/s (kc_memcpy_on against "
         "cuMemcpyPeerAsync):\n",
         (double)bytes / 1073741824.0);
  printf("  %-16s %-6s %10s %10s %8s\n", "", "peer", "kc", "raw", "kc/raw");
  for (int d = 1; d < x->ndev; d++)
    for (int dir = 0; dir < 2; dir++) {
      const int from = dir ? d : 0, to = dir ? 0 : d;
      int can = 0;
      if (x->dev[from] != x->dev[to])
        BENCH_CU(cu, cu->cuDeviceCanAccessPeer(&can, x->dev[from], x->dev[to]));
      else
        can = -1; /* the same GPU twice (KC_CUDA_VIRTUAL_DEVICES) */
      BENCH_KC(kc_malloc_on((void **)&dst, bytes, KC_SPACE_DEVICE, to, "dst"));
      double tk[x->reps], tr[x->reps];
      (void)copy_kc(x->q[from], dst, buf[from], bytes);
      (void)copy_raw(x, from, to, dst, buf[from], bytes);
      for (int r = 0; r < x->reps; r++) {
        tk[r] = copy_kc(x->q[from], dst, buf[from], bytes);
        tr[r] = copy_raw(x, from, to, dst, buf[from], bytes);
      }
      copy_check(x, from, to, dst, buf[from], bytes, h, 0);
      copy_check(x, from, to, dst, buf[from], bytes, h, 1);
      const double gk = (double)bytes / bench_median(tk, x->reps, NULL) * 1e-9;
      const double gr = (double)bytes / bench_median(tr, x->reps, NULL) * 1e-9;
      char label[32];
      snprintf(label, sizeof label, "device %d -> %d", from, to);
      printf("  %-16s %-6s %10.1f %10.1f %8.3f\n", label,
             can < 0 ? "same"
             : can   ? "yes"
                     : "no",
             gk, gr, gk / gr);
      printf("CSV,copy,%d,%d,%zu,%d,%.1f,%.1f,%.3f\n", from, to, bytes, can, gk,
             gr, gk / gr);
      BENCH_KC(kc_free(dst));
    }
  for (int d = 0; d < x->ndev; d++)
    BENCH_KC(kc_free(buf[d]));
  free(h);
}

/* ------------------------------------------------------------ start, main */

/* The raw side's view of every device: its primary context (the one kc's
 * plugin uses), a stream in it, peer access to every other device where
 * the pair allows (already on when kc's plugin turned it on). */
static void raw_devices(ctx *x) {
  bench_cuda *cu = &x->cu;
  for (int d = 0; d < x->ndev; d++) {
    /* KC_CUDA_VIRTUAL_DEVICES maps kc's devices onto the GPUs in turn. */
    int ngpu = 0;
    BENCH_CU(cu, cu->cuDeviceGetCount(&ngpu));
    BENCH_CU(cu, cu->cuDeviceGet(&x->dev[d], d % ngpu));
    BENCH_CU(cu, cu->cuDevicePrimaryCtxRetain(&x->ctx[d], x->dev[d]));
    BENCH_CU(cu, cu->cuCtxSetCurrent(x->ctx[d]));
    BENCH_CU(cu, cu->cuStreamCreate(&x->s[d], CU_STREAM_NON_BLOCKING));
  }
  for (int a = 0; a < x->ndev; a++)
    for (int b = 0; b < x->ndev; b++) {
      int can = 0;
      if (x->dev[a] == x->dev[b])
        continue;
      BENCH_CU(cu, cu->cuDeviceCanAccessPeer(&can, x->dev[a], x->dev[b]));
      if (!can)
        continue;
      BENCH_CU(cu, cu->cuCtxSetCurrent(x->ctx[a]));
      CUresult r = cu->cuCtxEnablePeerAccess(x->ctx[b], 0);
      if (r != 0 && r != PEER_ACCESS_ALREADY_ENABLED)
        BENCH_CU(cu, r);
    }
  BENCH_CU(cu, cu->cuCtxSetCurrent(x->ctx[0]));
}

int main(int argc, char **argv) {
  int reps = 11, sections = 0;
  long long n = 1LL << 28;
  size_t bytes = (size_t)1 << 30;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(usage, stdout);
      return 0;
    }
    if (!v)
      bench_die(prog, "%s: a value is missing\n%s", a, usage);
    i++;
    if (!strcmp(a, "--reps")) {
      reps = (int)bench_parse_size(prog, a, v);
      if (reps < 1 || reps > 1000)
        bench_die(prog, "--reps %s: 1 to 1000", v);
    } else if (!strcmp(a, "--n")) {
      n = (long long)bench_parse_size(prog, a, v);
      if (n < MAXDEV)
        bench_die(prog, "--n %s: at least %d", v, MAXDEV);
    } else if (!strcmp(a, "--bytes")) {
      bytes = (size_t)bench_parse_size(prog, a, v);
      if (bytes < 8)
        bench_die(prog, "--bytes %s: at least 8", v);
    } else if (!strcmp(a, "--only")) {
      if (!strcmp(v, "triad"))
        sections |= SEC_TRIAD;
      else if (!strcmp(v, "copy"))
        sections |= SEC_COPY;
      else
        bench_die(prog, "--only %s: triad or copy", v);
    } else {
      bench_die(prog, "unknown option %s\n%s", a, usage);
    }
  }
  if (!sections)
    sections = SEC_TRIAD | SEC_COPY;

  ctx x;
  memset(&x, 0, sizeof x);
  x.reps = reps;
  setvbuf(stdout, NULL, _IOLBF, 0);
  setenv("KC_BACKEND", "cuda", 0);
  bench_init(prog, &x.info);
  if (bench_is_host_backend(&x.info) || strcmp(kc_backend_name(), "cuda")) {
    printf("SKIP: %s: backend '%s' is not cuda (host backends have one "
           "device)\n",
           prog, kc_backend_name());
    kc_finalize();
    return BENCH_SKIP;
  }
  char why[1024];
  int rc = bench_cuda_open(&x.cu, 0, bench_ptx, why, sizeof why);
  if (rc == -1) {
    printf("SKIP: %s: no raw baseline: %s\n", prog, why);
    kc_finalize();
    return BENCH_SKIP;
  }
  if (rc != 0)
    bench_die(prog, "%s", why);
  if (!KC_KERNEL(stream_init_f64) || !KC_KERNEL(stream_triad_f64))
    bench_die(prog, "kernels stream_init_f64, stream_triad_f64 not registered");
  x.ndev = x.info.device_count < MAXDEV ? x.info.device_count : MAXDEV;
  for (int d = 0; d < x.ndev; d++)
    BENCH_KC(kc_queue_create(&x.q[d], d));
  raw_devices(&x);
  printf("devices: %d device%s (%s first); median of %d repetitions\n", x.ndev,
         x.ndev == 1 ? "" : "s", x.info.dev.name, x.reps);
  if (sections & SEC_TRIAD)
    section_triad(&x, n);
  if (sections & SEC_COPY)
    section_copy(&x, bytes);
  printf("\nevery result checked against the host\n");
  for (int d = 0; d < x.ndev; d++) {
    BENCH_KC(kc_queue_destroy(x.q[d]));
    BENCH_CU(&x.cu, x.cu.cuCtxSetCurrent(x.ctx[d]));
    BENCH_CU(&x.cu, x.cu.cuStreamDestroy(x.s[d]));
    BENCH_CU(&x.cu, x.cu.cuDevicePrimaryCtxRelease(x.dev[d]));
  }
  BENCH_CU(&x.cu, x.cu.cuCtxSetCurrent(x.ctx[0]));
  bench_cuda_close(&x.cu);
  BENCH_KC(kc_finalize());
  return 0;
}
