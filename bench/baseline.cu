/* kc benchmarks — the hand-written CUDA baselines.
 *
 * What a CUDA programmer writes without kc, for the same work as the kc
 * kernels of stream.kc.c, reduce.kc.c and scan.kc.c: plain __global__
 * functions, one element per thread for the stream kernels (BabelStream's
 * classic CUDA layout) and a grid-stride layout with several loads in
 * flight per thread (its 5.0 layout; the faster of the two is the
 * baseline), grid-stride loops with a shared-memory/warp-shuffle tree for
 * the reductions, and for the scan a single pass with decoupled look-back
 * (and the three-kernel reduce-then-scan it replaced, --cuda-scan 3pass).  nvcc
 * compiles this file to PTX at build time; the programs load it with
 * cuModuleLoadDataEx and launch it with cuLaunchKernel (cudadrv.c).
 *
 * Entry points are extern "C" so the host finds them by their plain names.
 * Every kernel takes its sizes as long long so arrays past 2^31 elements
 * work.
 */

#define WARP 32

/* ------------------------------------------------------------ stream */

template <typename T>
__device__ void stream_init(T *a, T *b, T *c, T va, T vb, T vc, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    a[i] = va;
    b[i] = vb;
    c[i] = vc;
  }
}

template <typename T>
__device__ void stream_copy(const T *a, T *c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i];
}

template <typename T>
__device__ void stream_mul(T *b, const T *c, T scalar, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = scalar * c[i];
}

template <typename T>
__device__ void stream_add(const T *a, const T *b, T *c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

template <typename T>
__device__ void stream_triad(T *a, const T *b, const T *c, T scalar,
                             long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = b[i] + scalar * c[i];
}

template <typename T>
__device__ void stream_nstream(T *a, const T *b, const T *c, T scalar,
                               long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] += b[i] + scalar * c[i];
}

/* Sum of v over the block; the result is valid in thread 0.  Needs
 * blockDim.x a multiple of 32 and at most 1024. */
__device__ double block_sum(double v) {
  __shared__ double warp_sums[1024 / WARP];
  for (int o = WARP / 2; o > 0; o /= 2)
    v += __shfl_down_sync(0xffffffffu, v, o);
  int lane = threadIdx.x % WARP, w = threadIdx.x / WARP;
  __syncthreads(); /* warp_sums may still be read by an earlier call */
  if (lane == 0)
    warp_sums[w] = v;
  __syncthreads();
  int nw = blockDim.x / WARP;
  v = (int)threadIdx.x < nw ? warp_sums[threadIdx.x] : 0.0;
  if (w == 0)
    for (int o = WARP / 2; o > 0; o /= 2)
      v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

/* Dot as BabelStream's CUDA version does it: a fixed grid of blocks strides
 * over the arrays, each block writes its partial sum, the host adds the
 * partials.  Accumulates in double for both precisions (as the kc kernel
 * does), so float runs validate at 2^25+ elements. */
template <typename T>
__device__ void stream_dot(const T *a, const T *b, double *partial,
                           long long n) {
  double s = 0.0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    s += (double)a[i] * (double)b[i];
  s = block_sum(s);
  if (threadIdx.x == 0)
    partial[blockIdx.x] = s;
}

/* The sum of every thread's s over the grid into *result: each block
 * writes its partial, and the last block to finish (an atomic ticket) adds
 * the partials and resets the ticket for the next launch. */
__device__ void grid_sum(double s, double *partial, unsigned *ticket,
                         double *result) {
  __shared__ int last;
  s = block_sum(s);
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = s;
    __threadfence();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last)
    return;
  __threadfence();
  s = 0.0;
  for (unsigned j = threadIdx.x; j < gridDim.x; j += blockDim.x)
    s += ((volatile double *)partial)[j];
  s = block_sum(s);
  if (threadIdx.x == 0) {
    *result = s;
    *ticket = 0;
  }
}

/* Dot's second layout: many waves of blocks (bench/stream launches 16
 * times the resident blocks) stride over the arrays, and the last block to
 * finish (an atomic ticket) adds the partials, so that only the sum comes
 * back.  In a sweep of hand-written Dot shapes on an H100 (2^28 doubles)
 * and in bench/stream itself this one ran 0.5-2.7% faster than
 * BabelStream's 4 blocks per SM (doc/benchmarks.md); bench/stream keeps
 * the better of the two. */
template <typename T>
__device__ void stream_dot_waves(const T *a, const T *b, double *partial,
                                 unsigned *ticket, double *result,
                                 long long n) {
  double s = 0.0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    s += (double)a[i] * (double)b[i];
  grid_sum(s, partial, ticket, result);
}

/* The second layout of each stream kernel, the one tuned CUDA codes use
 * for bandwidth (BabelStream 5.0's CUDA model among them): a grid of the
 * resident blocks strides over the arrays, each thread loading GS_UNROLL
 * elements a stride apart before it stores any, so that several loads are
 * in flight per thread.  bench/stream times both layouts and keeps the
 * faster one per kernel as the baseline. */
#define GS_UNROLL 4

/* f(i) for every i of [0, n) a thread of the grid owns, in batches of
 * GS_UNROLL independent indices. */
#define GS_LOOP(n, LOAD, STORE)                                                \
  do {                                                                         \
    const long long stride = (long long)gridDim.x * blockDim.x;                \
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;            \
    for (; i + (GS_UNROLL - 1) * stride < (n); i += GS_UNROLL * stride) {      \
      _Pragma("unroll") for (int u = 0; u < GS_UNROLL; u++) {                  \
        const long long j = i + u * stride;                                    \
        LOAD;                                                                  \
      }                                                                        \
      _Pragma("unroll") for (int u = 0; u < GS_UNROLL; u++) {                  \
        const long long j = i + u * stride;                                    \
        STORE;                                                                 \
      }                                                                        \
    }                                                                          \
    for (; i < (n); i += stride) {                                             \
      const int u = 0;                                                         \
      const long long j = i;                                                   \
      LOAD;                                                                    \
      STORE;                                                                   \
    }                                                                          \
  } while (0)

template <typename T> __device__ void gs_copy(const T *a, T *c, long long n) {
  T x[GS_UNROLL];
  GS_LOOP(n, x[u] = a[j], c[j] = x[u]);
}

template <typename T>
__device__ void gs_mul(T *b, const T *c, T scalar, long long n) {
  T x[GS_UNROLL];
  GS_LOOP(n, x[u] = c[j], b[j] = scalar * x[u]);
}

template <typename T>
__device__ void gs_add(const T *a, const T *b, T *c, long long n) {
  T x[GS_UNROLL], y[GS_UNROLL];
  GS_LOOP(n, (x[u] = a[j], y[u] = b[j]), c[j] = x[u] + y[u]);
}

template <typename T>
__device__ void gs_triad(T *a, const T *b, const T *c, T scalar, long long n) {
  T x[GS_UNROLL], y[GS_UNROLL];
  GS_LOOP(n, (x[u] = b[j], y[u] = c[j]), a[j] = x[u] + scalar * y[u]);
}

template <typename T>
__device__ void gs_nstream(T *a, const T *b, const T *c, T scalar,
                           long long n) {
  T x[GS_UNROLL], y[GS_UNROLL], z[GS_UNROLL];
  GS_LOOP(n, (x[u] = a[j], y[u] = b[j], z[u] = c[j]),
          a[j] = x[u] + y[u] + scalar * z[u]);
}

/* The five streaming kernels of one layout: bench_stream_<k><TAG><S>,
 * each calling IMPL##<k><T> (stream_ or gs_). */
#define STREAM_KERNELS(T, S, TAG, IMPL)                                        \
  extern "C" __global__ void bench_stream_copy##TAG##S(const T *a, T *c,       \
                                                       long long n) {          \
    IMPL##copy<T>(a, c, n);                                                    \
  }                                                                            \
  extern "C" __global__ void bench_stream_mul##TAG##S(T *b, const T *c,        \
                                                      T scalar, long long n) { \
    IMPL##mul<T>(b, c, scalar, n);                                             \
  }                                                                            \
  extern "C" __global__ void bench_stream_add##TAG##S(const T *a, const T *b,  \
                                                      T *c, long long n) {     \
    IMPL##add<T>(a, b, c, n);                                                  \
  }                                                                            \
  extern "C" __global__ void bench_stream_triad##TAG##S(                       \
      T *a, const T *b, const T *c, T scalar, long long n) {                   \
    IMPL##triad<T>(a, b, c, scalar, n);                                        \
  }                                                                            \
  extern "C" __global__ void bench_stream_nstream##TAG##S(                     \
      T *a, const T *b, const T *c, T scalar, long long n) {                   \
    IMPL##nstream<T>(a, b, c, scalar, n);                                      \
  }

STREAM_KERNELS(double, f64, _gs_, gs_)
STREAM_KERNELS(float, f32, _gs_, gs_)

#define STREAM_ENTRIES(T, S)                                                   \
  STREAM_KERNELS(T, S, _, stream_)                                             \
  extern "C" __global__ void bench_stream_init_##S(T *a, T *b, T *c, T va,     \
                                                   T vb, T vc, long long n) {  \
    stream_init<T>(a, b, c, va, vb, vc, n);                                    \
  }                                                                            \
  extern "C" __global__ void bench_stream_dot_##S(                             \
      const T *a, const T *b, double *partial, long long n) {                  \
    stream_dot<T>(a, b, partial, n);                                           \
  }                                                                            \
  extern "C" __global__ void bench_stream_dot_gs_##S(                          \
      const T *a, const T *b, double *partial, unsigned *ticket,               \
      double *result, long long n) {                                           \
    stream_dot_waves<T>(a, b, partial, ticket, result, n);                     \
  }

STREAM_ENTRIES(double, f64)
STREAM_ENTRIES(float, f32)

/* --------------------------------------------------------- reduce, scan */

/* The data the reduce and scan programs work on: small integers, so every
 * partial sum is exact in double and results compare exactly. */
extern "C" __global__ void bench_fill_f64(double *x, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = (double)(i & 15);
}

/* One-kernel sum: each block reduces a grid-stride share (grid_sum). */
extern "C" __global__ void bench_reduce_sum_f64(const double *x, long long n,
                                                double *partial,
                                                unsigned *ticket,
                                                double *result) {
  double s = 0.0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    s += x[i];
  grid_sum(s, partial, ticket, result);
}

/* Inclusive scan of v over the block; also returns the block's total in
 * *total (every thread). */
__device__ double block_scan(double v, double *total) {
  __shared__ double warp_sums[1024 / WARP];
  int lane = threadIdx.x % WARP, w = threadIdx.x / WARP;
  for (int o = 1; o < WARP; o *= 2) {
    double u = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o)
      v += u;
  }
  __syncthreads(); /* warp_sums may still be read by an earlier call */
  if (lane == WARP - 1)
    warp_sums[w] = v;
  __syncthreads();
  if (w == 0) {
    int nw = blockDim.x / WARP;
    double t = lane < nw ? warp_sums[lane] : 0.0;
    for (int o = 1; o < WARP; o *= 2) {
      double u = __shfl_up_sync(0xffffffffu, t, o);
      if (lane >= o)
        t += u;
    }
    if (lane < nw)
      warp_sums[lane] = t;
  }
  __syncthreads();
  if (w > 0)
    v += warp_sums[w - 1];
  *total = warp_sums[blockDim.x / WARP - 1];
  return v;
}

/* Scan, pass 1: block b sums its tile [b*tile, (b+1)*tile). */
extern "C" __global__ void bench_scan_sums_f64(const double *x, long long n,
                                               long long tile, double *sums) {
  long long lo = (long long)blockIdx.x * tile;
  long long hi = lo + tile < n ? lo + tile : n;
  double s = 0.0;
  for (long long i = lo + threadIdx.x; i < hi; i += blockDim.x)
    s += x[i];
  s = block_sum(s);
  if (threadIdx.x == 0)
    sums[blockIdx.x] = s;
}

/* Scan, pass 2 (one block): the tiles' sums become their exclusive
 * offsets; the grand total goes to *total. */
extern "C" __global__ void bench_scan_offsets_f64(double *sums, int nb,
                                                  double *total) {
  double carry = 0.0;
  for (int base = 0; base < nb; base += blockDim.x) {
    int j = base + threadIdx.x;
    double v = j < nb ? sums[j] : 0.0, chunk;
    double inc = block_scan(v, &chunk);
    if (j < nb)
      sums[j] = carry + inc - v;
    carry += chunk;
  }
  if (threadIdx.x == 0)
    *total = carry;
}

/* Scan, pass 3: block b scans its tile in blockDim-sized steps, starting
 * from its offset. */
extern "C" __global__ void bench_scan_apply_f64(const double *x, double *y,
                                                long long n, long long tile,
                                                const double *sums) {
  long long lo = (long long)blockIdx.x * tile;
  long long hi = lo + tile < n ? lo + tile : n;
  double carry = sums[blockIdx.x];
  for (long long base = lo; base < hi; base += blockDim.x) {
    long long i = base + threadIdx.x;
    double v = i < hi ? x[i] : 0.0, chunk;
    double inc = block_scan(v, &chunk);
    if (i < hi)
      y[i] = carry + inc;
    carry += chunk;
  }
}

/* Single-pass scan with decoupled look-back (the algorithm of the fastest
 * public scans): block k takes the k-th tile claimed (a ticket, so every
 * earlier tile's block is running) of LB_BLOCK * LB_ITEMS elements, loads
 * it coalesced into shared memory (padded: a thread's LB_ITEMS consecutive
 * elements are then read without bank conflicts), sums each thread's run,
 * scans the runs across the block, publishes the tile's aggregate, looks
 * back over the earlier tiles' published states with warp 0 (32 tiles at a
 * time, stopping at the latest inclusive prefix), publishes its inclusive
 * prefix, and writes the outputs back through shared memory, coalesced.
 * Flags are epoch << 2 | state (1 aggregate, 2 prefix), so they need no
 * clearing between launches; the last block resets the ticket. */
#define LB_BLOCK 256
#define LB_ITEMS 8
#define LB_TILE (LB_BLOCK * LB_ITEMS)
#define LB_PAD(e) ((e) + (e) / 32)

/* A tile's state: the value and its flag word (epoch << 2 | state) in one
 * 16-byte store and load, so a reader that sees the flag sees the value. */
__device__ __forceinline__ void lb_publish(unsigned long long *slot, double v,
                                           unsigned long long f) {
  asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(slot),
               "l"(__double_as_longlong(v)), "l"(f)
               : "memory");
}
__device__ __forceinline__ unsigned
lb_wait(const unsigned long long *slot, unsigned long long epoch, double *v) {
  unsigned long long bits, f;
  unsigned ns = 8;
  for (;;) {
    asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];"
                 : "=l"(bits), "=l"(f)
                 : "l"(slot)
                 : "memory");
    if ((f & ~3ull) == epoch && (f & 3u) != 0)
      break;
    __nanosleep(ns);
    if (ns < 256)
      ns *= 2;
  }
  *v = __longlong_as_double(bits);
  return (unsigned)(f & 3u);
}

extern "C" __global__ void __launch_bounds__(LB_BLOCK)
    bench_scan_lookback_f64(const double *x, double *y, long long n,
                            unsigned long long *slot, unsigned *ticket,
                            unsigned epoch32, double *total) {
  __shared__ double s[LB_PAD(LB_TILE)];
  __shared__ double warp_tot[LB_BLOCK / WARP];
  __shared__ unsigned tile_s;
  __shared__ double prefix_s;
  const int t = threadIdx.x, lane = t % WARP, w = t / WARP;
  const unsigned long long epoch = (unsigned long long)epoch32 << 2;
  if (t == 0)
    tile_s = atomicAdd(ticket, 1u);
  __syncthreads();
  const unsigned tile = tile_s;
  const long long base = (long long)tile * LB_TILE;
#pragma unroll
  for (int k = 0; k < LB_ITEMS; k++) {
    const int e = k * LB_BLOCK + t;
    s[LB_PAD(e)] = base + e < n ? x[base + e] : 0.0;
  }
  __syncthreads();
  double v[LB_ITEMS], run = 0.0;
#pragma unroll
  for (int k = 0; k < LB_ITEMS; k++) {
    run += s[LB_PAD(t * LB_ITEMS + k)];
    v[k] = run;
  }
  /* Exclusive scan of the runs' sums over the block. */
  double inc_run = run;
  for (int o = 1; o < WARP; o *= 2) {
    double u = __shfl_up_sync(0xffffffffu, inc_run, o);
    if (lane >= o)
      inc_run += u;
  }
  if (lane == WARP - 1)
    warp_tot[w] = inc_run;
  __syncthreads();
  double before = inc_run - run, tile_sum = 0.0;
  for (int k = 0; k < LB_BLOCK / WARP; k++) {
    if (k < w)
      before += warp_tot[k];
    tile_sum += warp_tot[k];
  }
  if (w == 0) {
    double pre = 0.0;
    if (tile == 0) {
      if (t == 0)
        lb_publish(slot, tile_sum, epoch | 2u);
    } else {
      if (t == 0)
        lb_publish(slot + 2 * (size_t)tile, tile_sum, epoch | 1u);
      for (long long end = tile;;) {
        const long long j = end - WARP + lane;
        double a = 0.0;
        const unsigned st = j >= 0 ? lb_wait(slot + 2 * j, epoch, &a) : 0;
        const unsigned pm = __ballot_sync(0xffffffffu, st == 2);
        const int last = pm ? 31 - __clz(pm) : -1;
        if (j < 0 || lane < last)
          a = 0.0;
        for (int o = WARP / 2; o > 0; o /= 2)
          a += __shfl_down_sync(0xffffffffu, a, o);
        pre += a;
        if (pm)
          break;
        end -= WARP;
      }
      if (t == 0)
        lb_publish(slot + 2 * (size_t)tile, pre + tile_sum, epoch | 2u);
    }
    if (t == 0)
      prefix_s = pre;
  }
  __syncthreads();
  before += prefix_s;
#pragma unroll
  for (int k = 0; k < LB_ITEMS; k++)
    s[LB_PAD(t * LB_ITEMS + k)] = before + v[k];
  __syncthreads();
#pragma unroll
  for (int k = 0; k < LB_ITEMS; k++) {
    const int e = k * LB_BLOCK + t;
    if (base + e < n)
      y[base + e] = s[LB_PAD(e)];
  }
  if (t == 0) {
    if (tile == gridDim.x - 1)
      *total = prefix_s + tile_sum;
    if (atomicAdd(ticket + 1, 1u) == gridDim.x - 1) {
      ticket[0] = 0;
      ticket[1] = 0;
    }
  }
}

/* ------------------------------------------------------------ queues */

/* bench/queues: y[i] = x[i] after `iters` steps of v = a v + b, one
 * element per thread; nvcc contracts each step into one FMA, as it does in
 * queues.kc.c's qb_chain (the same arithmetic).  The chain is dependent,
 * so the kernel's time is set by iters, not by memory. */
extern "C" __global__ void bench_chain_f64(const double *x, double *y, double a,
                                           double b, long long iters,
                                           long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double v = x[i];
    for (long long k = 0; k < iters; k++)
      v = v * a + b;
    y[i] = v;
  }
}

/* An empty kernel taking 8 bytes of parameters: the raw side of a launch
 * on a queue (bench/launch's raw_p8, in CUDA C). */
extern "C" __global__ void bench_empty_p8(long long w) { (void)w; }

/* ---------------------------------------------------------------- md */

/* bench/md: an n x n row-major matrix of doubles.  MDB_TILE is md.h's
 * MD_TILE. */
#define MDB_TILE 32
#define MDB_ROWS 8
#define MDB_STRIP 8

/* out[j][i] = in[i][j], the classic shared-memory transpose (NVIDIA's
 * transposeCoalesced): a block of MDB_TILE x MDB_ROWS threads moves one
 * tile, each thread MDB_TILE / MDB_ROWS rows; a warp reads a row of the
 * tile and writes a row of out (both coalesced), and the tile's pad column
 * makes reading it by columns conflict-free (a double spans two 4-byte
 * banks; a half-warp's 16 doubles, 33 apart, hit 16 distinct bank pairs).
 * Grid: (ceil(n / MDB_TILE), ceil(n / MDB_TILE)). */
extern "C" __global__ void bench_md_transpose_f64(const double *__restrict__ in,
                                                  double *__restrict__ out,
                                                  long long n) {
  __shared__ double tile[MDB_TILE][MDB_TILE + 1];
  const long long bi = (long long)blockIdx.y * MDB_TILE;
  const long long bj = (long long)blockIdx.x * MDB_TILE;
  long long x = bj + threadIdx.x;
#pragma unroll
  for (int k = 0; k < MDB_TILE; k += MDB_ROWS) {
    const long long y = bi + threadIdx.y + k;
    if (x < n && y < n)
      tile[threadIdx.y + k][threadIdx.x] = in[y * n + x];
  }
  __syncthreads();
  x = bi + threadIdx.x;
#pragma unroll
  for (int k = 0; k < MDB_TILE; k += MDB_ROWS) {
    const long long y = bj + threadIdx.y + k;
    if (x < n && y < n)
      out[y * n + x] = tile[threadIdx.x][threadIdx.y + k];
  }
}

/* The 5-point stencil over the interior, one point per thread, 2-D blocks
 * (md.c launches 32 x 8).  Threads start at column 0, not 1, so that a
 * warp's loads and stores are aligned to 256 bytes; neighbours come from
 * L1 through the read-only path (__restrict__ const). */
extern "C" __global__ void bench_md_stencil_f64(const double *__restrict__ in,
                                                double *__restrict__ out,
                                                long long n, double c0,
                                                double c1) {
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1) {
    const long long p = i * n + j;
    out[p] = c0 * in[p] + c1 * (in[p - n] + in[p + n] + in[p - 1] + in[p + 1]);
  }
}

/* The same stencil with each thread walking down a strip of MDB_STRIP rows
 * of its column, the rows above and below kept in registers: one load of
 * in per point from above and below instead of three.  Block (32, 8), so
 * a block covers 32 columns x 8 * MDB_STRIP rows; grid (ceil(n / 32),
 * ceil((n - 2) / (8 * MDB_STRIP))). */
extern "C" __global__ void
bench_md_stencil_strip_f64(const double *__restrict__ in,
                           double *__restrict__ out, long long n, double c0,
                           double c1) {
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long i0 =
      1 + ((long long)blockIdx.y * blockDim.y + threadIdx.y) * MDB_STRIP;
  if (j < 1 || j >= n - 1 || i0 >= n - 1)
    return;
  const double *p = in + i0 * n + j;
  double *q = out + i0 * n + j;
  double up = p[-n], c = p[0];
  if (i0 + MDB_STRIP <= n - 1) {
#pragma unroll
    for (int k = 0; k < MDB_STRIP; k++) {
      const double dn = p[(k + 1) * n];
      q[k * n] = c0 * c + c1 * (up + dn + p[k * n - 1] + p[k * n + 1]);
      up = c;
      c = dn;
    }
  } else {
    for (long long k = 0; i0 + k < n - 1; k++) {
      const double dn = p[(k + 1) * n];
      q[k * n] = c0 * c + c1 * (up + dn + p[k * n - 1] + p[k * n + 1]);
      up = c;
      c = dn;
    }
  }
}
