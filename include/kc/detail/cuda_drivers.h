/* kc — the drivers of the CUDA expansion: for each launch kind, the
 * device loop that runs a kernel body over its indices (1-D, MD tiles,
 * teams), accumulates and joins, and the two entries every kernel gets.
 * Internal to detail/kernel_cuda.h.  As in detail/cuda_block.h, every name
 * declared here is a kc__ name (a user's -DR=1 must not reach it), and the
 * comments leave the prefix out. */
#ifndef KC_DETAIL_CUDA_DRIVERS_H
#define KC_DETAIL_CUDA_DRIVERS_H

/* ------------------------------------------------------------- drivers */

#define KC__DEV static __device__ __forceinline__

/* Block b's chunk of an ordered launch: [*cb, *ce) = [begin + b * chunk,
 * +chunk) within [begin, end); empty (*cb == *ce) past the end. */
__device__ __forceinline__ void
kc__block_chunk(const kc_cuda_args &kc__a, kc_index *kc__cb, kc_index *kc__ce) {
  kc_index kc__b = kc__a.begin + (kc_index)blockIdx.x * kc__a.chunk;
  if (kc__b > kc__a.end)
    kc__b = kc__a.end;
  *kc__cb = kc__b;
  *kc__ce = kc__a.end - kc__b > kc__a.chunk ? kc__b + kc__a.chunk : kc__a.end;
}

/* Runs R::run(f, i, acc) for i in [lo, min(lo + KC_CUDA_ORDERED_RUN, end)).
 * A whole run is unrolled without tests, so that the compiler can issue
 * its loads together (a test between them would make each wait for the
 * one before); only the last run of a chunk takes the guarded path. */
template <class kc__R, class kc__F, class kc__V>
__device__ __forceinline__ void kc__run_k(const kc__F *kc__f, kc_index kc__lo,
                                          kc_index kc__end, kc__V &kc__acc) {
  const kc_index kc__K = KC_CUDA_ORDERED_RUN;
  if (kc__end - kc__lo >= kc__K) {
#pragma unroll
    for (kc_index kc__k = 0; kc__k < kc__K; kc__k++)
      kc__R::kc__run(kc__f, kc__lo + kc__k, kc__acc);
  } else {
    for (kc_index kc__i = kc__lo; kc__i < kc__end; kc__i++)
      kc__R::kc__run(kc__f, kc__i, kc__acc);
  }
}

/* The ordered walk of a block's chunk [cb, ce) when only its total is
 * needed (custom reductions, a scan's first pass): warp w takes the w-th
 * of the warps' contiguous parts (a multiple of 32 * KC_CUDA_ORDERED_RUN
 * indices long), and walks it in steps of lanes * KC_CUDA_ORDERED_RUN
 * indices, lane l taking KC_CUDA_ORDERED_RUN consecutive ones; each step's
 * lane values are joined in lane order (kc__warp_join) onto lane 0's carry.
 * So a warp's accesses per step are one contiguous span and every join is
 * in index order, with no barrier.  Returns the warp's value in lane 0 (the
 * warps' values, in warp order, make up the chunk's).  R::run(f, i, acc)
 * runs the body for index i. */
template <class kc__V, class kc__Op, class kc__R, class kc__F>
__device__ __forceinline__ kc__V kc__ordered_total(const kc_cuda_args &kc__a,
                                                   const kc__F *kc__f,
                                                   kc_index kc__cb,
                                                   kc_index kc__ce) {
  const kc_index kc__K = KC_CUDA_ORDERED_RUN;
  const unsigned kc__lane = threadIdx.x & 31u, kc__warp = threadIdx.x >> 5;
  const unsigned kc__nw = (blockDim.x + 31) >> 5;
  kc_index kc__wpart = (kc__ce - kc__cb + kc__nw - 1) / kc__nw;
  kc__wpart = (kc__wpart + 32 * kc__K - 1) / (32 * kc__K) * (32 * kc__K);
  const kc_index kc__wlo = kc__ce - kc__cb > (kc_index)kc__warp * kc__wpart
                               ? kc__cb + kc__warp * kc__wpart
                               : kc__ce;
  const kc_index kc__whi =
      kc__ce - kc__wlo > kc__wpart ? kc__wlo + kc__wpart : kc__ce;
  const kc_index kc__step = (kc_index)kc__warp_lanes() * kc__K;
  kc__V kc__carry;
  kc__Op::kc__ident(&kc__carry, kc__a);
  for (kc_index kc__s = kc__wlo; kc__s < kc__whi; kc__s += kc__step) {
    const kc_index kc__lo = kc__s + (kc_index)kc__lane * kc__K;
    kc__V kc__v;
    kc__Op::kc__ident(&kc__v, kc__a);
    kc__run_k<kc__R>(kc__f, kc__lo, kc__whi, kc__v);
    kc__v = kc__warp_join<kc__V, kc__Op>(kc__v);
    if (kc__lane == 0)
      kc__Op::kc__join(&kc__carry, &kc__v);
  }
  return kc__carry;
}

template <class kc__F, class kc__B> struct kc__for_drv {
  KC__DEV void kc__run(const kc_cuda_args &kc__a, const kc__F *kc__f) {
    if (kc__a.chunk > 0) {
      /* Block b takes [begin + b chunk, + chunk): the wide grid's few
       * indices a thread (kc_cuda_args).  Warp w of the block takes the
       * w-th run of 32 K of them (K = KC_CUDA_WIDE_RUN indices a
       * thread), lane l every 32nd index from the run's l-th: a thread's
       * indices are a constant 32 apart, so the compiler sees K accesses
       * at fixed offsets from one address, can tell them apart, and issues
       * every load before the first store.  With the stride blockDim.x,
       * known only at run time, it had to assume a store might feed the
       * next index's load, and a body such as a[i] += b[i] waited for
       * each store (bench/stream Nstream, doubles, on an H100: 0.988 of
       * the hand-written kernel before, 0.992 after).  Gathering bodies
       * take more registers for it (doc/backends.md has the figures). */
      const kc_index kc__cb = kc__a.begin + (kc_index)blockIdx.x * kc__a.chunk;
      const kc_index kc__K = KC_CUDA_WIDE_RUN;
      if (kc__a.chunk == kc__K * blockDim.x && blockDim.x % 32 == 0 &&
          kc__a.end - kc__cb >= kc__a.chunk) {
        const kc_index kc__lo = kc__cb +
                                (kc_index)(threadIdx.x >> 5) * 32 * kc__K +
                                (threadIdx.x & 31u);
#pragma unroll
        for (int kc__j = 0; kc__j < KC_CUDA_WIDE_RUN; kc__j++)
          kc__B::kc__run(kc__f, kc__lo + 32 * kc__j);
        return;
      }
      /* The last chunk, or a chunk or block of another shape (warps of
       * fewer than 32 threads): its indices blockDim.x apart, each
       * tested. */
      const kc_index kc__ce = min(kc__cb + kc__a.chunk, kc__a.end);
      for (kc_index kc__i = kc__cb + threadIdx.x; kc__i < kc__ce;
           kc__i += blockDim.x)
        kc__B::kc__run(kc__f, kc__i);
      return;
    }
    const kc_index kc__stride = (kc_index)blockDim.x * gridDim.x;
    for (kc_index kc__i =
             kc__a.begin + (kc_index)blockIdx.x * blockDim.x + threadIdx.x;
         kc__i < kc__a.end; kc__i += kc__stride)
      kc__B::kc__run(kc__f, kc__i);
  }
  KC__DEV void kc__param(const kc_cuda_args &kc__a, const kc__F &kc__f) {
    kc__run(kc__a, &kc__f);
  }
  KC__DEV void kc__param(const kc_cuda_args &, const kc__nopar &) { __trap(); }
};

template <class kc__F, class kc__V, class kc__Op, class kc__B>
struct kc__reduce_drv {
  KC__DEV void kc__run(const kc_cuda_args &kc__a, const kc__F *kc__f) {
    kc__V *kc__slots = (kc__V *)kc__cuda_smem;
    kc__V kc__acc;
    if (!kc__Op::kc__ordered) {
      /* Built-in joins are commutative (MINLOC/MAXLOC break ties by index),
       * so threads may cover interleaved indices: coalesced loads. */
      kc__Op::kc__ident(&kc__acc, kc__a);
      const kc_index kc__stride = (kc_index)blockDim.x * gridDim.x;
      /* Four strides a step, each index tested on its own: a body without
       * branches becomes predicated code, so the four indices' loads are
       * in flight together (a loop test between them would make each wait
       * for the one before). */
      for (kc_index kc__i =
               kc__a.begin + (kc_index)blockIdx.x * blockDim.x + threadIdx.x;
           kc__i < kc__a.end; kc__i += 4 * kc__stride) {
#pragma unroll
        for (int kc__k = 0; kc__k < 4; kc__k++)
          if (kc__i + kc__k * kc__stride < kc__a.end)
            kc__B::kc__run(kc__f, kc__i + kc__k * kc__stride, kc__acc);
      }
      kc__acc = kc__warp_join<kc__V, kc__Op>(kc__acc);
    } else {
      /* A custom join need only be associative: block b takes the chunk
       * [begin + b*chunk, +chunk), walked in index order. */
      kc_index kc__cb, kc__ce;
      kc__block_chunk(kc__a, &kc__cb, &kc__ce);
      kc__acc =
          kc__ordered_total<kc__V, kc__Op, kc__B>(kc__a, kc__f, kc__cb, kc__ce);
    }
    kc__reduce_finish<kc__V, kc__Op>(
        kc__a, kc__warps_join<kc__V, kc__Op>(kc__acc, kc__slots));
  }
  KC__DEV void kc__param(const kc_cuda_args &kc__a, const kc__F &kc__f) {
    kc__run(kc__a, &kc__f);
  }
  KC__DEV void kc__param(const kc_cuda_args &, const kc__nopar &) { __trap(); }
};

/* A scan body with final = 0 / 1, called as R::run(f, i, acc). */
template <class kc__B> struct kc__scan_total {
  template <class kc__F, class kc__V>
  KC__DEV void kc__run(const kc__F *kc__f, kc_index kc__i, kc__V &kc__acc) {
    kc__B::kc__run(kc__f, kc__i, kc__acc, 0);
  }
};
template <class kc__B> struct kc__scan_final {
  template <class kc__F, class kc__V>
  KC__DEV void kc__run(const kc__F *kc__f, kc_index kc__i, kc__V &kc__acc) {
    kc__B::kc__run(kc__f, kc__i, kc__acc, 1);
  }
};

/* The single-pass scan's tile state (a.pass == 2; detail/cuda_abi.h).  A
 * tile publishes its aggregate (state 1), then its inclusive prefix (state
 * 2), each tagged with the launch's epoch (a.flags): a word of another
 * epoch reads as nothing published yet.  Values of 8 bytes or less travel
 * with their flag word in one 16-byte store and load, so a reader that sees
 * the flag sees the value without a fence; larger ones go to arrays of
 * their own, the flag written after a fence and the value read after one.
 * wait(j, &v): waits until tile j has published, returns the state, and
 * the value published with it in v. */
__device__ __forceinline__ void kc__scan_backoff(unsigned *kc__ns) {
#if __CUDA_ARCH__ >= 700
  __nanosleep(*kc__ns);
  if (*kc__ns < 256)
    *kc__ns *= 2;
#else
  (void)kc__ns;
#endif
}
template <class kc__V, bool kc__Packed = (sizeof(kc__V) <= 8)>
struct kc__scan_tiles;
template <class kc__V> struct kc__scan_tiles<kc__V, true> {
  unsigned long long *kc__slot; /* per tile: the value's bytes, the flag word */
  unsigned long long kc__epoch;
  __device__ __forceinline__ kc__scan_tiles(const kc_cuda_args &kc__a)
      : kc__slot((unsigned long long *)kc__a.partials),
        kc__epoch((unsigned long long)(unsigned)kc__a.flags << 2) {}
  __device__ __forceinline__ void
  kc__publish(unsigned kc__tile, const kc__V &kc__v, unsigned kc__state) const {
    unsigned long long kc__bits = 0;
    memcpy(&kc__bits, &kc__v, sizeof(kc__V));
    asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(
                     kc__slot + 2 * (size_t)kc__tile),
                 "l"(kc__bits), "l"(kc__epoch | kc__state)
                 : "memory");
  }
  __device__ __forceinline__ unsigned kc__wait(long long kc__j,
                                               kc__V *kc__v) const {
    unsigned long long kc__bits, kc__f;
    unsigned kc__ns = 8;
    for (;;) {
      asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];"
                   : "=l"(kc__bits), "=l"(kc__f)
                   : "l"(kc__slot + 2 * (size_t)kc__j)
                   : "memory");
      if ((kc__f & ~3ull) == kc__epoch && (kc__f & 3u) != 0)
        break;
      kc__scan_backoff(&kc__ns);
    }
    memcpy(kc__v, &kc__bits, sizeof(kc__V));
    return (unsigned)(kc__f & 3u);
  }
};
template <class kc__V> struct kc__scan_tiles<kc__V, false> {
  volatile unsigned *kc__flag;
  kc__V *kc__agg, *kc__inc;
  unsigned kc__epoch;
  __device__ __forceinline__ kc__scan_tiles(const kc_cuda_args &kc__a) {
    const size_t kc__fb = ((size_t)gridDim.x * 4 + 255) & ~(size_t)255;
    kc__flag = (volatile unsigned *)kc__a.partials;
    kc__agg = (kc__V *)((char *)kc__a.partials + kc__fb);
    kc__inc = kc__agg + gridDim.x;
    kc__epoch = (unsigned)kc__a.flags << 2;
  }
  __device__ __forceinline__ void
  kc__publish(unsigned kc__tile, const kc__V &kc__v, unsigned kc__state) const {
    (kc__state == 2 ? kc__inc : kc__agg)[kc__tile] = kc__v;
    __threadfence();
    kc__flag[kc__tile] = kc__epoch | kc__state;
  }
  __device__ __forceinline__ unsigned kc__wait(long long kc__j,
                                               kc__V *kc__v) const {
    unsigned kc__f, kc__ns = 8;
    while (((kc__f = kc__flag[kc__j]) & ~3u) != kc__epoch || (kc__f & 3u) == 0)
      kc__scan_backoff(&kc__ns);
    __threadfence(); /* the flag before the value it publishes */
    *kc__v = kc__load_cg((kc__f & 3u) == 2 ? &kc__inc[kc__j] : &kc__agg[kc__j]);
    return kc__f & 3u;
  }
};

/* The exclusive prefix of tile `tile` by decoupled look-back, in warp 0
 * (every lane of it must call; the result is in lane 0): windows of the
 * warp's lanes over the tiles before it, lane l on the l-th of the window
 * (index order), each waiting until its tile has published; the latest
 * inclusive prefix in the window ends the walk, joined with the aggregates
 * after it, in index order, so the join needs associativity only. */
template <class kc__V, class kc__Op>
__device__ __forceinline__ kc__V
kc__scan_lookback(const kc_cuda_args &kc__a,
                  const kc__scan_tiles<kc__V> &kc__st, unsigned kc__tile) {
  const unsigned kc__lane = threadIdx.x & 31u, kc__wn = kc__warp_lanes();
  const unsigned kc__mask = kc__warp_mask();
  kc__V kc__pre;
  kc__Op::kc__ident(&kc__pre, kc__a);
  for (long long kc__end = kc__tile;;) {
    const long long kc__j = kc__end - (long long)kc__wn + kc__lane;
    kc__V kc__v;
    const unsigned kc__s = kc__j >= 0 ? kc__st.kc__wait(kc__j, &kc__v) : 0;
    const unsigned kc__pm = __ballot_sync(kc__mask, kc__s == 2);
    const int kc__last = kc__pm ? 31 - __clz(kc__pm) : -1;
    if (kc__j < 0 || (int)kc__lane < kc__last)
      kc__Op::kc__ident(&kc__v, kc__a);
    kc__v = kc__warp_join<kc__V, kc__Op>(kc__v);
    if (kc__lane == 0) {
      kc__Op::kc__join(&kc__v, &kc__pre);
      kc__pre = kc__v;
    }
    if (kc__pm)
      return kc__pre; /* tile 0 always publishes its prefix */
    kc__end -= kc__wn;
  }
}

/* Runs of a thread per tile in the single-pass scan: each thread takes
 * KC_CUDA_SCAN_RUNS runs of KC_CUDA_ORDERED_RUN indices per tile (see
 * kc__scan_drv).  The product is the module's KC_CUDA_SCAN_TILE_SYMBOL.
 * Measured on an H100 (bench/scan, doubles, blocks of 128, GB/s at 10^7 /
 * 10^8 / 10^9 bytes, the whole-tile path without bounds tests): 4 runs
 * 935 / 1731 / 1937, 6 runs 890 / 1766 / 2000, 8 runs 917 / 1736 / 1962;
 * 8 runs of 1 index 1876 at 10^9, 2 runs of 4 1354.  May be set with
 * -DKC_CUDA_SCAN_RUNS=n (the module then says so to the plugin; no ABI
 * changes); n * (blockDim.x / 32) values of the dynamic shared memory
 * must fit in blockDim.x, so n <= 32. */
#ifndef KC_CUDA_SCAN_RUNS
#define KC_CUDA_SCAN_RUNS 6
#endif
static_assert(KC_CUDA_SCAN_RUNS >= 1 && KC_CUDA_SCAN_RUNS <= 32,
              "KC_CUDA_SCAN_RUNS must be 1 .. 32");

/* A thread's runs in the spans of a single-pass scan's tile: R::run(f, i,
 * ex[m]) for the KC_CUDA_ORDERED_RUN indices from lo + m * span, in each
 * span m; `whole` (the tile is complete) leaves out every bounds test, so
 * that the loads of all the spans can be in flight together (a test
 * between them would make each wait for the one before, as in
 * kc__run_k). */
template <class kc__R, class kc__F, class kc__V>
__device__ __forceinline__ void
kc__scan_spans(const kc__F *kc__f, kc_index kc__lo, kc_index kc__span,
               kc_index kc__te, bool kc__whole, kc__V *kc__ex) {
  if (kc__whole) {
#pragma unroll
    for (int kc__m = 0; kc__m < KC_CUDA_SCAN_RUNS; kc__m++)
#pragma unroll
      for (kc_index kc__k = 0; kc__k < KC_CUDA_ORDERED_RUN; kc__k++)
        kc__R::kc__run(kc__f, kc__lo + kc__m * kc__span + kc__k, kc__ex[kc__m]);
  } else {
#pragma unroll
    for (int kc__m = 0; kc__m < KC_CUDA_SCAN_RUNS; kc__m++)
      kc__run_k<kc__R>(kc__f, kc__lo + kc__m * kc__span, kc__te, kc__ex[kc__m]);
  }
}

template <class kc__F, class kc__V, class kc__Op, class kc__B>
struct kc__scan_drv {
  /* The single pass (a.pass == 2): block k of the grid takes the k-th tile
   * to be claimed (a ticket at a.counter[1], so every tile before it
   * belongs to a block already running: the look-back cannot wait on a
   * block that has not started) of blockDim.x * KC_CUDA_ORDERED_RUN *
   * KC_CUDA_SCAN_RUNS indices.  Thread t takes KC_CUDA_ORDERED_RUN
   * consecutive indices of each of the tile's KC_CUDA_SCAN_RUNS spans of
   * blockDim.x * KC_CUDA_ORDERED_RUN (a warp covers one contiguous part of
   * each): the body with final = 0 gives its totals, a scan of them across the
   * block their exclusive prefixes within the tile and the tile's aggregate,
   * which warp 0 publishes, then looks back for the prefix before the
   * tile and publishes the inclusive one (two barriers a tile); then the body
   * runs again with final = 1 on the indices just read (they hit the cache),
   * acc holding the prefix before each index.  The last block to finish
   * (a.counter[0]) sets both counters back to 0. */
  KC__DEV void kc__onepass(const kc_cuda_args &kc__a, const kc__F *kc__f) {
    __shared__ unsigned kc__ticket;
    __shared__ __align__(16) unsigned char kc__raw[sizeof(kc__V)];
    kc__V *kc__slots = (kc__V *)kc__cuda_smem;
    const unsigned kc__t = threadIdx.x, kc__nw = (blockDim.x + 31) >> 5;
    const kc_index kc__K = KC_CUDA_ORDERED_RUN;
    const kc_index kc__span = (kc_index)blockDim.x * kc__K;
    if (kc__t == 0)
      kc__ticket = atomicAdd(kc__a.counter + 1, 1u);
    __syncthreads();
    const unsigned kc__tile = kc__ticket;
    const kc_index kc__tb =
        kc__a.begin + (kc_index)kc__tile * kc__span * KC_CUDA_SCAN_RUNS;
    const kc_index kc__te = kc__a.end - kc__tb > kc__span * KC_CUDA_SCAN_RUNS
                                ? kc__tb + kc__span * KC_CUDA_SCAN_RUNS
                                : kc__a.end;
    /* The thread's totals, one per span, each scanned across the warp's
     * lanes by shuffles; the warps' totals go to a table in the dynamic
     * shared memory (span-major), read after one barrier: the prefix
     * before (span m, warp w) joins the spans before m, then the warps
     * before w in m, in that order.  ex[m]: the prefix in the tile before
     * the thread's run in span m; carry: the tile's aggregate. */
    const unsigned kc__lane = kc__t & 31u, kc__warp = kc__t >> 5,
                   kc__mask = kc__warp_mask();
    const unsigned kc__wn = kc__warp_lanes();
    kc__V kc__ex[KC_CUDA_SCAN_RUNS];
    /* Every span's body runs first, then the shuffles (kc__scan_spans). */
    const bool kc__whole = kc__te - kc__tb == kc__span * KC_CUDA_SCAN_RUNS;
#pragma unroll
    for (int kc__m = 0; kc__m < KC_CUDA_SCAN_RUNS; kc__m++)
      kc__Op::kc__ident(&kc__ex[kc__m], kc__a);
    kc__scan_spans<kc__scan_total<kc__B>>(kc__f,
                                          kc__tb + (kc_index)kc__t * kc__K,
                                          kc__span, kc__te, kc__whole, kc__ex);
#pragma unroll
    for (int kc__m = 0; kc__m < KC_CUDA_SCAN_RUNS; kc__m++) {
      kc__V kc__v = kc__ex[kc__m];
#pragma unroll
      for (unsigned kc__off = 1; kc__off < 32; kc__off <<= 1) {
        kc__V kc__y = kc__shfl_up(kc__v, kc__off, kc__mask, 32);
        if (kc__lane >= kc__off) {
          kc__Op::kc__join(&kc__y, &kc__v);
          kc__v = kc__y;
        }
      }
      if (kc__lane == kc__wn - 1)
        kc__slots[kc__m * kc__nw + kc__warp] = kc__v;
      kc__ex[kc__m] = kc__shfl_up(kc__v, 1, kc__mask, 32);
    }
    __syncthreads();
    kc__V kc__carry;
    kc__Op::kc__ident(&kc__carry, kc__a);
#pragma unroll
    for (int kc__m = 0; kc__m < KC_CUDA_SCAN_RUNS; kc__m++) {
      kc__V kc__pre = kc__carry;
#pragma unroll 1
      for (unsigned kc__w = 0; kc__w < kc__nw; kc__w++) {
        if (kc__w == kc__warp)
          kc__pre = kc__carry;
        kc__Op::kc__join(&kc__carry, &kc__slots[kc__m * kc__nw + kc__w]);
      }
      if (kc__lane != 0)
        kc__Op::kc__join(&kc__pre, &kc__ex[kc__m]);
      kc__ex[kc__m] = kc__pre;
    }
    const kc__scan_tiles<kc__V> kc__st(kc__a);
    if (kc__t < 32) {
      kc__V kc__pre;
      if (kc__tile == 0) {
        kc__Op::kc__ident(&kc__pre, kc__a);
        if (kc__t == 0)
          kc__st.kc__publish(0, kc__carry, 2);
      } else {
        if (kc__t == 0)
          kc__st.kc__publish(kc__tile, kc__carry, 1);
        kc__pre = kc__scan_lookback<kc__V, kc__Op>(kc__a, kc__st, kc__tile);
        if (kc__t == 0) {
          kc__V kc__in = kc__pre;
          kc__Op::kc__join(&kc__in, &kc__carry);
          kc__st.kc__publish(kc__tile, kc__in, 2);
        }
      }
      if (kc__t == 0) {
        *(kc__V *)kc__raw = kc__pre;
        if (kc__tile == gridDim.x - 1 && kc__a.result) {
          kc__V kc__total = kc__pre;
          kc__Op::kc__join(&kc__total, &kc__carry);
          kc__store_result((kc__V *)kc__a.result, kc__total);
        }
      }
    }
    __syncthreads();
    const kc__V kc__pre = *(const kc__V *)kc__raw;
#pragma unroll
    for (int kc__m = 0; kc__m < KC_CUDA_SCAN_RUNS; kc__m++) {
      kc__V kc__acc = kc__pre;
      kc__Op::kc__join(&kc__acc, &kc__ex[kc__m]);
      kc__ex[kc__m] = kc__acc;
    }
    kc__scan_spans<kc__scan_final<kc__B>>(kc__f,
                                          kc__tb + (kc_index)kc__t * kc__K,
                                          kc__span, kc__te, kc__whole, kc__ex);
    if (kc__t == 0 && atomicAdd(kc__a.counter, 1u) == gridDim.x - 1) {
      kc__a.counter[0] = 0;
      kc__a.counter[1] = 0;
    }
  }

  KC__DEV void kc__run(const kc_cuda_args &kc__a, const kc__F *kc__f) {
    if (kc__a.pass == 2) {
      kc__onepass(kc__a, kc__f);
      return;
    }
    kc__V *kc__slots = (kc__V *)kc__cuda_smem;
    const unsigned kc__t = threadIdx.x;
    kc_index kc__cb, kc__ce;
    kc__block_chunk(kc__a, &kc__cb, &kc__ce);
    if (kc__a.pass == 0) {
      /* The chunk's total: the order of a built-in (commutative) sum is
       * free, so its threads stride by blockDim.x (coalesced). */
      kc__V kc__acc;
      if (!kc__Op::kc__ordered) {
        kc__Op::kc__ident(&kc__acc, kc__a);
        for (kc_index kc__i = kc__cb + kc__t; kc__i < kc__ce;
             kc__i += blockDim.x)
          kc__B::kc__run(kc__f, kc__i, kc__acc, 0);
        kc__acc = kc__warp_join<kc__V, kc__Op>(kc__acc);
      } else {
        kc__acc = kc__ordered_total<kc__V, kc__Op, kc__scan_total<kc__B>>(
            kc__a, kc__f, kc__cb, kc__ce);
      }
      kc__acc = kc__warps_join<kc__V, kc__Op>(kc__acc, kc__slots);
      if (kc__t == 0)
        ((kc__V *)kc__a.partials)[blockIdx.x] = kc__acc;
      if (!kc__last_block(kc__a.counter))
        return;
      kc__partials_exscan<kc__V, kc__Op>((kc__V *)kc__a.partials, gridDim.x,
                                         kc__a);
      if (kc__t == 0)
        *kc__a.counter = 0;
      return;
    }
    /* The final pass walks the chunk in tiles of blockDim.x *
     * KC_CUDA_ORDERED_RUN indices, thread t taking KC_CUDA_ORDERED_RUN
     * consecutive ones of each (so a warp covers one contiguous span):
     * the thread's total (final = 0), a block scan of the totals in thread
     * order on top of the carry (the prefix before the tile), then the body
     * again with final = 1.  The tile was just read: its second reading
     * hits the cache.  Two halves of the dynamic shared memory take turns
     * as the scan's slots (blockDim.x >= 2 values hold 2 per warp). */
    const kc_index kc__K = KC_CUDA_ORDERED_RUN;
    const kc_index kc__tile = (kc_index)blockDim.x * kc__K;
    const unsigned kc__nw = (blockDim.x + 31) >> 5;
    kc__V kc__carry = ((const kc__V *)kc__a.partials)[blockIdx.x];
    unsigned kc__half = 0;
    for (kc_index kc__tb = kc__cb; kc__tb < kc__ce;
         kc__tb += kc__tile, kc__half ^= kc__nw) {
      const kc_index kc__lo = kc__tb + (kc_index)kc__t * kc__K;
      kc__V kc__v;
      kc__Op::kc__ident(&kc__v, kc__a);
      kc__run_k<kc__scan_total<kc__B>>(kc__f, kc__lo, kc__ce, kc__v);
      kc__V kc__acc = kc__block_scan_step<kc__V, kc__Op>(kc__v, &kc__carry,
                                                         kc__slots + kc__half);
      kc__run_k<kc__scan_final<kc__B>>(kc__f, kc__lo, kc__ce, kc__acc);
    }
  }
  KC__DEV void kc__param(const kc_cuda_args &kc__a, const kc__F &kc__f) {
    kc__run(kc__a, &kc__f);
  }
  KC__DEV void kc__param(const kc_cuda_args &, const kc__nopar &) { __trap(); }
};

/* -------------------------------------------------- multi-dimensional */

/* Calls a body with the point's indices as its parameters. */
template <int kc__R> struct kc__md_apply;
template <> struct kc__md_apply<2> {
  template <class kc__B, class kc__F, class... kc__X>
  KC__DEV void kc__run(const kc__F *kc__f, const kc_index *kc__x,
                       kc__X &...kc__acc) {
    kc__B::kc__run(kc__f, kc__x[0], kc__x[1], kc__acc...);
  }
};
template <> struct kc__md_apply<3> {
  template <class kc__B, class kc__F, class... kc__X>
  KC__DEV void kc__run(const kc__F *kc__f, const kc_index *kc__x,
                       kc__X &...kc__acc) {
    kc__B::kc__run(kc__f, kc__x[0], kc__x[1], kc__x[2], kc__acc...);
  }
};
template <> struct kc__md_apply<4> {
  template <class kc__B, class kc__F, class... kc__X>
  KC__DEV void kc__run(const kc__F *kc__f, const kc_index *kc__x,
                       kc__X &...kc__acc) {
    kc__B::kc__run(kc__f, kc__x[0], kc__x[1], kc__x[2], kc__x[3], kc__acc...);
  }
};
template <> struct kc__md_apply<5> {
  template <class kc__B, class kc__F, class... kc__X>
  KC__DEV void kc__run(const kc__F *kc__f, const kc_index *kc__x,
                       kc__X &...kc__acc) {
    kc__B::kc__run(kc__f, kc__x[0], kc__x[1], kc__x[2], kc__x[3], kc__x[4],
                   kc__acc...);
  }
};
template <> struct kc__md_apply<6> {
  template <class kc__B, class kc__F, class... kc__X>
  KC__DEV void kc__run(const kc__F *kc__f, const kc_index *kc__x,
                       kc__X &...kc__acc) {
    kc__B::kc__run(kc__f, kc__x[0], kc__x[1], kc__x[2], kc__x[3], kc__x[4],
                   kc__x[5], kc__acc...);
  }
};

/* Runs fn(ix) for this thread's points of tile t (see kc_cuda_md_args):
 * LEFT false, the last dimension fastest; true, the first.  The k-th
 * fastest dimension is D(k); every index into lo/hi/ix is a constant once
 * the loops are unrolled, so they stay in registers. */
template <int kc__R, bool kc__LEFT, class kc__Fn>
__device__ __forceinline__ void kc__md_tile_in(const kc_cuda_md_args &kc__m,
                                               kc_index kc__t, kc__Fn &kc__fn) {
#define KC__MD_D(k) (kc__LEFT ? (k) : kc__R - 1 - (k))
  kc_index kc__lo[kc__R], kc__hi[kc__R];
  unsigned kc__tt = (unsigned)kc__t;
#pragma unroll
  for (int kc__k = 0; kc__k < kc__R; kc__k++) {
    const int kc__d = KC__MD_D(kc__k);
    unsigned kc__c = kc__tt;
    if (kc__k < kc__R - 1) {
      const unsigned kc__nd = (unsigned)kc__m.ntiles[kc__d],
                     kc__q = kc__tt / kc__nd;
      kc__c = kc__tt - kc__q * kc__nd;
      kc__tt = kc__q;
    }
    kc__lo[kc__d] = kc__m.begin[kc__d] + (kc_index)kc__c * kc__m.tile[kc__d];
    /* not lo + tile, which may pass INT64_MAX for a tile near the box's
     * size */
    kc__hi[kc__d] = kc__m.end[kc__d] - kc__lo[kc__d] > kc__m.tile[kc__d]
                        ? kc__lo[kc__d] + kc__m.tile[kc__d]
                        : kc__m.end[kc__d];
  }
  const int kc__fx = KC__MD_D(0);
  /* The box's first point in the fastest dimension (the tiles' origin is
   * up to 31 points before it: kc_cuda_md_args). */
  const kc_index kc__x0 =
      kc__m.begin[kc__fx] + ((unsigned)kc__m.a.flags >> KC_CUDA_MD_SHIFT & 31u);
  kc_index kc__ix[kc__R];
  for (unsigned kc__y = threadIdx.y; kc__y < kc__m.tile_rest;
       kc__y += blockDim.y) {
    unsigned kc__r = kc__y;
    bool kc__in = true;
#pragma unroll
    for (int kc__k = 1; kc__k < kc__R; kc__k++) {
      const int kc__d = KC__MD_D(kc__k);
      unsigned kc__c = kc__r;
      if (kc__k < kc__R - 1) {
        const unsigned kc__td = (unsigned)kc__m.tile[kc__d],
                       kc__q = kc__r / kc__td;
        kc__c = kc__r - kc__q * kc__td;
        kc__r = kc__q;
      }
      kc__ix[kc__d] = kc__lo[kc__d] + kc__c;
      kc__in = kc__in && kc__ix[kc__d] < kc__hi[kc__d];
    }
    if (!kc__in)
      continue;
    for (kc_index kc__x = kc__lo[kc__fx] + threadIdx.x; kc__x < kc__hi[kc__fx];
         kc__x += blockDim.x) {
      if (kc__x < kc__x0)
        continue;
      kc__ix[kc__fx] = kc__x;
      kc__fn(kc__ix);
    }
  }
#undef KC__MD_D
}

template <int kc__R, class kc__Fn>
__device__ __forceinline__ void kc__md_tile(const kc_cuda_md_args &kc__m,
                                            kc_index kc__t, kc__Fn &kc__fn) {
  if (kc__m.a.flags & KC_CUDA_MD_LEFT)
    kc__md_tile_in<kc__R, true>(kc__m, kc__t, kc__fn);
  else
    kc__md_tile_in<kc__R, false>(kc__m, kc__t, kc__fn);
}

template <class kc__F, int kc__R, class kc__B> struct kc__mdfor_drv {
  KC__DEV void kc__run(const kc_cuda_md_args &kc__m, const kc__F *kc__f) {
    auto kc__fn = [&](const kc_index *kc__ix) {
      kc__md_apply<kc__R>::template kc__run<kc__B>(kc__f, kc__ix);
    };
    for (kc_index kc__t = blockIdx.x; kc__t < kc__m.a.end; kc__t += gridDim.x)
      kc__md_tile<kc__R>(kc__m, kc__t, kc__fn);
  }
  KC__DEV void kc__param(const kc_cuda_md_args &kc__m, const kc__F &kc__f) {
    kc__run(kc__m, &kc__f);
  }
  KC__DEV void kc__param(const kc_cuda_md_args &, const kc__nopar &) {
    __trap();
  }
};

template <class kc__F, int kc__R, class kc__V, class kc__Op, class kc__B>
struct kc__mdreduce_drv {
  KC__DEV void kc__run(const kc_cuda_md_args &kc__m, const kc__F *kc__f) {
    kc__V kc__acc;
    kc__Op::kc__ident(&kc__acc, kc__m.a);
    if (!kc__Op::kc__ordered) {
      auto kc__fn = [&](const kc_index *kc__ix) {
        kc__md_apply<kc__R>::template kc__run<kc__B>(kc__f, kc__ix, kc__acc);
      };
      for (kc_index kc__t = blockIdx.x; kc__t < kc__m.a.end; kc__t += gridDim.x)
        kc__md_tile<kc__R>(kc__m, kc__t, kc__fn);
      kc__acc = kc__block_join<kc__V, kc__Op>(kc__acc, 1);
    } else {
      /* A custom join: a contiguous run of tiles per block, each tile's
       * points joined (in thread order) before the next tile's. */
      const kc_index kc__t0 = (kc_index)blockIdx.x * kc__m.a.chunk;
      const kc_index kc__t1 = min(kc__t0 + kc__m.a.chunk, kc__m.a.end);
      for (kc_index kc__t = kc__t0; kc__t < kc__t1; kc__t++) {
        kc__V kc__v;
        kc__Op::kc__ident(&kc__v, kc__m.a);
        auto kc__fn = [&](const kc_index *kc__ix) {
          kc__md_apply<kc__R>::template kc__run<kc__B>(kc__f, kc__ix, kc__v);
        };
        kc__md_tile<kc__R>(kc__m, kc__t, kc__fn);
        kc__v = kc__block_join<kc__V, kc__Op>(kc__v, 1);
        kc__Op::kc__join(&kc__acc, &kc__v);
      }
    }
    kc__reduce_finish<kc__V, kc__Op>(kc__m.a, kc__acc);
  }
  KC__DEV void kc__param(const kc_cuda_md_args &kc__m, const kc__F &kc__f) {
    kc__run(kc__m, &kc__f);
  }
  KC__DEV void kc__param(const kc_cuda_md_args &, const kc__nopar &) {
    __trap();
  }
};

/* The index list "(i0, i1, ...)": its length, and the body function's
 * parameters (one kc_index each, so an index the body does not use draws
 * no warning).  kc__md_apply<R> calls it with the point's indices. */
#define KC__NARG(...) KC__NARG_(__VA_ARGS__, 6, 5, 4, 3, 2, 1, 0)
#define KC__NARG_(a1, a2, a3, a4, a5, a6, n, ...) n
#define KC__MD_RANK(...) KC__NARG(__VA_ARGS__)
#define KC__MD_PARAMS(...)                                                     \
  KC__MD_CAT(KC__MD_PARAMS_, KC__NARG(__VA_ARGS__))(__VA_ARGS__)
#define KC__MD_CAT(a, b) KC__MD_CAT_(a, b)
#define KC__MD_CAT_(a, b) a##b
#define KC__MD_PARAMS_2(a, b) kc_index a, kc_index b
#define KC__MD_PARAMS_3(a, b, c) kc_index a, kc_index b, kc_index c
#define KC__MD_PARAMS_4(a, b, c, d)                                            \
  kc_index a, kc_index b, kc_index c, kc_index d
#define KC__MD_PARAMS_5(a, b, c, d, e)                                         \
  kc_index a, kc_index b, kc_index c, kc_index d, kc_index e
#define KC__MD_PARAMS_6(a, b, c, d, e, g)                                      \
  kc_index a, kc_index b, kc_index c, kc_index d, kc_index e, kc_index g

/* The two entries of a kernel, over a driver type D for functor type F,
 * whose first parameter is A (kc_cuda_args, kc_cuda_md_args or
 * kc_cuda_team_args).  The functor travels by value when it fits beside A
 * in the parameter space; otherwise the by-value entry takes a
 * placeholder. */
#define KC__PARAM_TYPE(F, A)                                                   \
  kc__pbox<F, (sizeof(F) + sizeof(A) <= KC_CUDA_MAX_PARAM_BYTES)>::kc__type
#define KC__CUDA_ENTRIES(name, ftype, D, A)                                    \
  extern "C" __global__ void name##__kcp(A kc__a,                              \
                                         KC__PARAM_TYPE(ftype, A) kc__f) {     \
    D::kc__param(kc__a, kc__f);                                                \
  }                                                                            \
  extern "C" __global__ void name##__kcg(A kc__a,                              \
                                         const ftype *__restrict__ kc__f) {    \
    D::kc__run(kc__a, kc__f);                                                  \
  }

/* --------------------------------------------------------------- teams */

/* The device team handle: one per thread, in registers once inlined. */
struct kc_team {
  kc_index kc__league_rank;
  kc_index kc__league_size;
  unsigned char *kc__scratch[2];
  const kc_cuda_team_args *kc__targs;
};
typedef struct kc_team kc_team;

__device__ __forceinline__ kc_index kc_team_league_rank(const kc_team *kc__t) {
  return kc__t->kc__league_rank;
}
__device__ __forceinline__ kc_index kc_team_league_size(const kc_team *kc__t) {
  return kc__t->kc__league_size;
}
__device__ __forceinline__ int kc_team_rank(const kc_team *) {
  return (int)threadIdx.y;
}
__device__ __forceinline__ int kc_team_size(const kc_team *) {
  return (int)blockDim.y;
}
__device__ __forceinline__ int kc_team_vector_lane(const kc_team *) {
  return (int)threadIdx.x;
}
__device__ __forceinline__ int kc_team_vector_length(const kc_team *) {
  return (int)blockDim.x;
}
__device__ __forceinline__ void kc_team_barrier(const kc_team *) {
  __syncthreads();
}
__device__ __forceinline__ void *kc_team_scratch(const kc_team *kc__t,
                                                 int kc__level) {
  const int kc__l = kc__level ? 1 : 0;
  return kc__t->kc__targs->scratch_team[kc__l]
             ? (void *)kc__t->kc__scratch[kc__l]
             : (void *)0;
}
__device__ __forceinline__ void *kc_thread_scratch(const kc_team *kc__t,
                                                   int kc__level) {
  const int kc__l = kc__level ? 1 : 0;
  return kc__t->kc__targs->scratch_thread[kc__l]
             ? (void *)(kc__t->kc__scratch[kc__l] +
                        kc__t->kc__targs->scratch_offset[kc__l] +
                        (size_t)threadIdx.y *
                            kc__t->kc__targs->scratch_stride[kc__l])
             : (void *)0;
}
__device__ __forceinline__ size_t kc_team_scratch_size(const kc_team *kc__t,
                                                       int kc__level) {
  return kc__t->kc__targs->scratch_team[kc__level ? 1 : 0];
}
__device__ __forceinline__ size_t kc_thread_scratch_size(const kc_team *kc__t,
                                                         int kc__level) {
  return kc__t->kc__targs->scratch_thread[kc__level ? 1 : 0];
}

__device__ __forceinline__ void kc__team_init(kc_team *kc__team,
                                              const kc_cuda_team_args &kc__a) {
  kc__team->kc__league_size = kc__a.a.end;
  kc__team->kc__scratch[0] = kc__cuda_smem;
  kc__team->kc__scratch[1] = (unsigned char *)kc__a.scratch1 +
                             (size_t)blockIdx.x * kc__a.scratch_total[1];
  kc__team->kc__targs = &kc__a;
}

template <class kc__F, class kc__B> struct kc__team_drv {
  KC__DEV void kc__run(const kc_cuda_team_args &kc__a, const kc__F *kc__f) {
    kc_team kc__team;
    kc__team_init(&kc__team, kc__a);
    for (kc_index kc__r = blockIdx.x; kc__r < kc__a.a.end; kc__r += gridDim.x) {
      kc__team.kc__league_rank = kc__r;
      kc__B::kc__run(kc__f, &kc__team);
      /* The next team of this block reuses the scratch (the nested
       * operations' shared memory is guarded by their own barriers). */
      if (kc__r + gridDim.x < kc__a.a.end &&
          (kc__a.scratch_total[0] | kc__a.scratch_total[1]))
        __syncthreads();
    }
  }
  KC__DEV void kc__param(const kc_cuda_team_args &kc__a, const kc__F &kc__f) {
    kc__run(kc__a, &kc__f);
  }
  KC__DEV void kc__param(const kc_cuda_team_args &, const kc__nopar &) {
    __trap();
  }
};

template <class kc__F, class kc__V, class kc__Op, class kc__B>
struct kc__team_reduce_drv {
  KC__DEV void kc__run(const kc_cuda_team_args &kc__a, const kc__F *kc__f) {
    kc_team kc__team;
    kc__team_init(&kc__team, kc__a);
    kc__V kc__acc;
    kc__Op::kc__ident(&kc__acc, kc__a.a);
    if (!kc__Op::kc__ordered) {
      for (kc_index kc__r = blockIdx.x; kc__r < kc__a.a.end;
           kc__r += gridDim.x) {
        kc__team.kc__league_rank = kc__r;
        kc__B::kc__run(kc__f, &kc__team, kc__acc);
        if (kc__r + gridDim.x < kc__a.a.end &&
            (kc__a.scratch_total[0] | kc__a.scratch_total[1]))
          __syncthreads();
      }
      kc__acc = kc__block_join<kc__V, kc__Op>(kc__acc, 1);
    } else {
      /* A custom join: ranks in order, each team's threads and lanes in
       * order (kc__block_join's barriers also separate the teams). */
      const kc_index kc__r0 = (kc_index)blockIdx.x * kc__a.a.chunk;
      const kc_index kc__r1 = min(kc__r0 + kc__a.a.chunk, kc__a.a.end);
      for (kc_index kc__r = kc__r0; kc__r < kc__r1; kc__r++) {
        kc__team.kc__league_rank = kc__r;
        kc__V kc__v;
        kc__Op::kc__ident(&kc__v, kc__a.a);
        kc__B::kc__run(kc__f, &kc__team, kc__v);
        kc__v = kc__block_join<kc__V, kc__Op>(kc__v, 1);
        kc__Op::kc__join(&kc__acc, &kc__v);
      }
    }
    kc__reduce_finish<kc__V, kc__Op>(kc__a.a, kc__acc);
  }
  KC__DEV void kc__param(const kc_cuda_team_args &kc__a, const kc__F &kc__f) {
    kc__run(kc__a, &kc__f);
  }
  KC__DEV void kc__param(const kc_cuda_team_args &, const kc__nopar &) {
    __trap();
  }
};

/* ------------------------------------------------------- nested loops */

/* Nested reducers: identities as libkc's built-in reducers have them. */
template <class kc__V> struct kc__lim;
template <> struct kc__lim<int32_t> {
  static __device__ __forceinline__ int32_t kc__lo() { return INT32_MIN; }
  static __device__ __forceinline__ int32_t kc__hi() { return INT32_MAX; }
};
template <> struct kc__lim<int64_t> {
  static __device__ __forceinline__ int64_t kc__lo() { return INT64_MIN; }
  static __device__ __forceinline__ int64_t kc__hi() { return INT64_MAX; }
};
template <> struct kc__lim<uint32_t> {
  static __device__ __forceinline__ uint32_t kc__lo() { return 0; }
  static __device__ __forceinline__ uint32_t kc__hi() { return UINT32_MAX; }
};
template <> struct kc__lim<uint64_t> {
  static __device__ __forceinline__ uint64_t kc__lo() { return 0; }
  static __device__ __forceinline__ uint64_t kc__hi() { return UINT64_MAX; }
};
template <> struct kc__lim<float> {
  static __device__ __forceinline__ float kc__lo() {
    return -__int_as_float(0x7f800000);
  }
  static __device__ __forceinline__ float kc__hi() {
    return __int_as_float(0x7f800000);
  }
};
template <> struct kc__lim<double> {
  static __device__ __forceinline__ double kc__lo() {
    return -__longlong_as_double(0x7ff0000000000000LL);
  }
  static __device__ __forceinline__ double kc__hi() {
    return __longlong_as_double(0x7ff0000000000000LL);
  }
};
struct kc__nop_SUM {
  template <class kc__V> static __device__ __forceinline__ kc__V kc__ident() {
    return (kc__V)0;
  }
  template <class kc__V>
  static __device__ __forceinline__ void kc__join(kc__V *kc__d,
                                                  const kc__V *kc__s) {
    kc__op_sum::kc__join(kc__d, kc__s); /* the top-level join (cuda_block.h) */
  }
};
struct kc__nop_PROD {
  template <class kc__V> static __device__ __forceinline__ kc__V kc__ident() {
    return (kc__V)1;
  }
  template <class kc__V>
  static __device__ __forceinline__ void kc__join(kc__V *kc__d,
                                                  const kc__V *kc__s) {
    kc__op_prod::kc__join(kc__d, kc__s); /* the top-level join (cuda_block.h) */
  }
};
struct kc__nop_MIN {
  template <class kc__V> static __device__ __forceinline__ kc__V kc__ident() {
    return kc__lim<kc__V>::kc__hi();
  }
  template <class kc__V>
  static __device__ __forceinline__ void kc__join(kc__V *kc__d,
                                                  const kc__V *kc__s) {
    kc__op_min::kc__join(kc__d, kc__s); /* the top-level join (cuda_block.h) */
  }
};
struct kc__nop_MAX {
  template <class kc__V> static __device__ __forceinline__ kc__V kc__ident() {
    return kc__lim<kc__V>::kc__lo();
  }
  template <class kc__V>
  static __device__ __forceinline__ void kc__join(kc__V *kc__d,
                                                  const kc__V *kc__s) {
    kc__op_max::kc__join(kc__d, kc__s); /* the top-level join (cuda_block.h) */
  }
};
/* A nested custom reducer, from the functions KC_REDUCER_IDENTITY and
 * KC_REDUCER_JOIN define. */
template <class kc__V, void (*kc__I)(kc__V *),
          void (*kc__J)(kc__V *, const kc__V *)>
struct kc__nop_fn {
  static __device__ __forceinline__ kc__V kc__ident() {
    kc__V kc__v;
    kc__I(&kc__v);
    return kc__v;
  }
  static __device__ __forceinline__ void kc__join(kc__V *kc__d,
                                                  const kc__V *kc__s) {
    kc__J(kc__d, kc__s);
  }
};
#define KC__NOP_CUSTOM(rname, vtype)                                           \
  kc__nop_fn<vtype, rname##__kcident, rname##__kcjoin>

/* The nested loops count offsets from their range's first index, in
 * unsigned 64 bits: an index stepped past INT64_MAX would wrap, and
 * [INT64_MAX, INT64_MAX) started at INT64_MAX + threadIdx (t-team's
 * edges).  span: how many indices [b, e) holds (0 if e <= b); at: index
 * b + o. */
__device__ __forceinline__ unsigned long long kc__span(kc_index kc__b,
                                                       kc_index kc__e) {
  return kc__e > kc__b ? (unsigned long long)kc__e - (unsigned long long)kc__b
                       : 0ull;
}
__device__ __forceinline__ kc_index kc__at(kc_index kc__b,
                                           unsigned long long kc__o) {
  return (kc_index)((unsigned long long)kc__b + kc__o);
}

/* [*lo, *hi): part `k` of `parts` contiguous parts of [b, e), in offsets
 * from b (b + k * per passed INT64_MAX for the last parts of a range that
 * ends near it). */
__device__ __forceinline__ void kc__part(kc_index kc__b, kc_index kc__e,
                                         unsigned kc__k, unsigned kc__parts,
                                         kc_index *kc__lo, kc_index *kc__hi) {
  const unsigned long long kc__n = kc__span(kc__b, kc__e);
  const unsigned long long kc__per =
      kc__n / kc__parts + (kc__n % kc__parts != 0);
  unsigned long long kc__l = (unsigned long long)kc__k * kc__per;
  if (kc__l > kc__n)
    kc__l = kc__n;
  *kc__lo = kc__at(kc__b, kc__l);
  *kc__hi = kc__at(kc__b, kc__n - kc__l > kc__per ? kc__l + kc__per : kc__n);
}

#endif /* KC_DETAIL_CUDA_DRIVERS_H */
