/* kc — the drivers of the CUDA expansion: for each launch kind, the
 * device loop that runs a kernel body over its indices (1-D, MD tiles,
 * teams), accumulates and joins, and the two entries every kernel gets.
 * Internal to detail/kernel_cuda.h. */
#ifndef KC_DETAIL_CUDA_DRIVERS_H
#define KC_DETAIL_CUDA_DRIVERS_H

/* ------------------------------------------------------------- drivers */

#define KC__DEV static __device__ __forceinline__

/* Block b's chunk of an ordered launch: [*cb, *ce) = [begin + b * chunk,
 * +chunk) within [begin, end); empty (*cb == *ce) past the end. */
__device__ __forceinline__ void kc__block_chunk(const kc_cuda_args &a,
                                                kc_index *cb, kc_index *ce) {
  kc_index b = a.begin + (kc_index)blockIdx.x * a.chunk;
  if (b > a.end)
    b = a.end;
  *cb = b;
  *ce = a.end - b > a.chunk ? b + a.chunk : a.end;
}

/* Runs R::run(f, i, acc) for i in [lo, min(lo + KC_CUDA_ORDERED_RUN, end)).
 * A whole run is unrolled without tests, so that the compiler can issue
 * its loads together (a test between them would make each wait for the
 * one before); only the last run of a chunk takes the guarded path. */
template <class R, class F, class V>
__device__ __forceinline__ void kc__run_k(const F *f, kc_index lo, kc_index end,
                                          V &acc) {
  const kc_index K = KC_CUDA_ORDERED_RUN;
  if (end - lo >= K) {
#pragma unroll
    for (kc_index k = 0; k < K; k++)
      R::run(f, lo + k, acc);
  } else {
    for (kc_index i = lo; i < end; i++)
      R::run(f, i, acc);
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
template <class V, class Op, class R, class F>
__device__ __forceinline__ V kc__ordered_total(const kc_cuda_args &a,
                                               const F *f, kc_index cb,
                                               kc_index ce) {
  const kc_index K = KC_CUDA_ORDERED_RUN;
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const unsigned nw = (blockDim.x + 31) >> 5;
  kc_index part = (ce - cb + nw - 1) / nw;
  part = (part + 32 * K - 1) / (32 * K) * (32 * K);
  const kc_index wlo = ce - cb > (kc_index)warp * part ? cb + warp * part : ce;
  const kc_index whi = ce - wlo > part ? wlo + part : ce;
  const kc_index step = (kc_index)kc__warp_lanes() * K;
  V carry;
  Op::ident(&carry, a);
  for (kc_index s = wlo; s < whi; s += step) {
    const kc_index lo = s + (kc_index)lane * K;
    V v;
    Op::ident(&v, a);
    kc__run_k<R>(f, lo, whi, v);
    v = kc__warp_join<V, Op>(v);
    if (lane == 0)
      Op::join(&carry, &v);
  }
  return carry;
}

template <class F, class B> struct kc__for_drv {
  KC__DEV void run(const kc_cuda_args &a, const F *f) {
    if (a.chunk > 0) {
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
      const kc_index cb = a.begin + (kc_index)blockIdx.x * a.chunk;
      const kc_index K = KC_CUDA_WIDE_RUN;
      if (a.chunk == K * blockDim.x && blockDim.x % 32 == 0 &&
          a.end - cb >= a.chunk) {
        const kc_index lo =
            cb + (kc_index)(threadIdx.x >> 5) * 32 * K + (threadIdx.x & 31u);
#pragma unroll
        for (int j = 0; j < KC_CUDA_WIDE_RUN; j++)
          B::run(f, lo + 32 * j);
        return;
      }
      /* The last chunk, or a chunk or block of another shape (warps of
       * fewer than 32 threads): its indices blockDim.x apart, each
       * tested. */
      const kc_index ce = min(cb + a.chunk, a.end);
      for (kc_index i = cb + threadIdx.x; i < ce; i += blockDim.x)
        B::run(f, i);
      return;
    }
    const kc_index stride = (kc_index)blockDim.x * gridDim.x;
    for (kc_index i = a.begin + (kc_index)blockIdx.x * blockDim.x + threadIdx.x;
         i < a.end; i += stride)
      B::run(f, i);
  }
  KC__DEV void param(const kc_cuda_args &a, const F &f) { run(a, &f); }
  KC__DEV void param(const kc_cuda_args &, const kc__nopar &) { __trap(); }
};

template <class F, class V, class Op, class B> struct kc__reduce_drv {
  KC__DEV void run(const kc_cuda_args &a, const F *f) {
    V *slots = (V *)kc__cuda_smem;
    V acc;
    if (!Op::ordered) {
      /* Built-in joins are commutative (MINLOC/MAXLOC break ties by index),
       * so threads may cover interleaved indices: coalesced loads. */
      Op::ident(&acc, a);
      const kc_index stride = (kc_index)blockDim.x * gridDim.x;
      /* Four strides a step, each index tested on its own: a body without
       * branches becomes predicated code, so the four indices' loads are
       * in flight together (a loop test between them would make each wait
       * for the one before). */
      for (kc_index i =
               a.begin + (kc_index)blockIdx.x * blockDim.x + threadIdx.x;
           i < a.end; i += 4 * stride) {
#pragma unroll
        for (int k = 0; k < 4; k++)
          if (i + k * stride < a.end)
            B::run(f, i + k * stride, acc);
      }
      acc = kc__warp_join<V, Op>(acc);
    } else {
      /* A custom join need only be associative: block b takes the chunk
       * [begin + b*chunk, +chunk), walked in index order. */
      kc_index cb, ce;
      kc__block_chunk(a, &cb, &ce);
      acc = kc__ordered_total<V, Op, B>(a, f, cb, ce);
    }
    kc__reduce_finish<V, Op>(a, kc__warps_join<V, Op>(acc, slots));
  }
  KC__DEV void param(const kc_cuda_args &a, const F &f) { run(a, &f); }
  KC__DEV void param(const kc_cuda_args &, const kc__nopar &) { __trap(); }
};

/* A scan body with final = 0 / 1, called as R::run(f, i, acc). */
template <class B> struct kc__scan_total {
  template <class F, class V> KC__DEV void run(const F *f, kc_index i, V &acc) {
    B::run(f, i, acc, 0);
  }
};
template <class B> struct kc__scan_final {
  template <class F, class V> KC__DEV void run(const F *f, kc_index i, V &acc) {
    B::run(f, i, acc, 1);
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
__device__ __forceinline__ void kc__scan_backoff(unsigned *ns) {
#if __CUDA_ARCH__ >= 700
  __nanosleep(*ns);
  if (*ns < 256)
    *ns *= 2;
#else
  (void)ns;
#endif
}
template <class V, bool Packed = (sizeof(V) <= 8)> struct kc__scan_tiles;
template <class V> struct kc__scan_tiles<V, true> {
  unsigned long long *slot; /* per tile: the value's bytes, the flag word */
  unsigned long long epoch;
  __device__ __forceinline__ kc__scan_tiles(const kc_cuda_args &a)
      : slot((unsigned long long *)a.partials),
        epoch((unsigned long long)(unsigned)a.flags << 2) {}
  __device__ __forceinline__ void publish(unsigned tile, const V &v,
                                          unsigned state) const {
    unsigned long long bits = 0;
    memcpy(&bits, &v, sizeof(V));
    asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(
                     slot + 2 * (size_t)tile),
                 "l"(bits), "l"(epoch | state)
                 : "memory");
  }
  __device__ __forceinline__ unsigned wait(long long j, V *v) const {
    unsigned long long bits, f;
    unsigned ns = 8;
    for (;;) {
      asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];"
                   : "=l"(bits), "=l"(f)
                   : "l"(slot + 2 * (size_t)j)
                   : "memory");
      if ((f & ~3ull) == epoch && (f & 3u) != 0)
        break;
      kc__scan_backoff(&ns);
    }
    memcpy(v, &bits, sizeof(V));
    return (unsigned)(f & 3u);
  }
};
template <class V> struct kc__scan_tiles<V, false> {
  volatile unsigned *flag;
  V *agg, *inc;
  unsigned epoch;
  __device__ __forceinline__ kc__scan_tiles(const kc_cuda_args &a) {
    const size_t fb = ((size_t)gridDim.x * 4 + 255) & ~(size_t)255;
    flag = (volatile unsigned *)a.partials;
    agg = (V *)((char *)a.partials + fb);
    inc = agg + gridDim.x;
    epoch = (unsigned)a.flags << 2;
  }
  __device__ __forceinline__ void publish(unsigned tile, const V &v,
                                          unsigned state) const {
    (state == 2 ? inc : agg)[tile] = v;
    __threadfence();
    flag[tile] = epoch | state;
  }
  __device__ __forceinline__ unsigned wait(long long j, V *v) const {
    unsigned f, ns = 8;
    while (((f = flag[j]) & ~3u) != epoch || (f & 3u) == 0)
      kc__scan_backoff(&ns);
    __threadfence(); /* the flag before the value it publishes */
    *v = kc__load_cg((f & 3u) == 2 ? &inc[j] : &agg[j]);
    return f & 3u;
  }
};

/* The exclusive prefix of tile `tile` by decoupled look-back, in warp 0
 * (every lane of it must call; the result is in lane 0): windows of the
 * warp's lanes over the tiles before it, lane l on the l-th of the window
 * (index order), each waiting until its tile has published; the latest
 * inclusive prefix in the window ends the walk, joined with the aggregates
 * after it, in index order, so the join needs associativity only. */
template <class V, class Op>
__device__ __forceinline__ V kc__scan_lookback(const kc_cuda_args &a,
                                               const kc__scan_tiles<V> &st,
                                               unsigned tile) {
  const unsigned lane = threadIdx.x & 31u, wn = kc__warp_lanes();
  const unsigned mask = kc__warp_mask();
  V pre;
  Op::ident(&pre, a);
  for (long long end = tile;;) {
    const long long j = end - (long long)wn + lane;
    V v;
    const unsigned s = j >= 0 ? st.wait(j, &v) : 0;
    const unsigned pm = __ballot_sync(mask, s == 2);
    const int last = pm ? 31 - __clz(pm) : -1;
    if (j < 0 || (int)lane < last)
      Op::ident(&v, a);
    v = kc__warp_join<V, Op>(v);
    if (lane == 0) {
      Op::join(&v, &pre);
      pre = v;
    }
    if (pm)
      return pre; /* tile 0 always publishes its prefix */
    end -= wn;
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
template <class R, class F, class V>
__device__ __forceinline__ void kc__scan_spans(const F *f, kc_index lo,
                                               kc_index span, kc_index te,
                                               bool whole, V *ex) {
  if (whole) {
#pragma unroll
    for (int m = 0; m < KC_CUDA_SCAN_RUNS; m++)
#pragma unroll
      for (kc_index k = 0; k < KC_CUDA_ORDERED_RUN; k++)
        R::run(f, lo + m * span + k, ex[m]);
  } else {
#pragma unroll
    for (int m = 0; m < KC_CUDA_SCAN_RUNS; m++)
      kc__run_k<R>(f, lo + m * span, te, ex[m]);
  }
}

template <class F, class V, class Op, class B> struct kc__scan_drv {
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
  KC__DEV void onepass(const kc_cuda_args &a, const F *f) {
    __shared__ unsigned ticket;
    __shared__ __align__(16) unsigned char raw[sizeof(V)];
    V *slots = (V *)kc__cuda_smem;
    const unsigned t = threadIdx.x, nw = (blockDim.x + 31) >> 5;
    const kc_index K = KC_CUDA_ORDERED_RUN;
    const kc_index span = (kc_index)blockDim.x * K;
    if (t == 0)
      ticket = atomicAdd(a.counter + 1, 1u);
    __syncthreads();
    const unsigned tile = ticket;
    const kc_index tb = a.begin + (kc_index)tile * span * KC_CUDA_SCAN_RUNS;
    const kc_index te = a.end - tb > span * KC_CUDA_SCAN_RUNS
                            ? tb + span * KC_CUDA_SCAN_RUNS
                            : a.end;
    /* The thread's totals, one per span, each scanned across the warp's
     * lanes by shuffles; the warps' totals go to a table in the dynamic
     * shared memory (span-major), read after one barrier: the prefix
     * before (span m, warp w) joins the spans before m, then the warps
     * before w in m, in that order.  ex[m]: the prefix in the tile before
     * the thread's run in span m; carry: the tile's aggregate. */
    const unsigned lane = t & 31u, warp = t >> 5, mask = kc__warp_mask();
    const unsigned wn = kc__warp_lanes();
    V ex[KC_CUDA_SCAN_RUNS];
    /* Every span's body runs first, then the shuffles (kc__scan_spans). */
    const bool whole = te - tb == span * KC_CUDA_SCAN_RUNS;
#pragma unroll
    for (int m = 0; m < KC_CUDA_SCAN_RUNS; m++)
      Op::ident(&ex[m], a);
    kc__scan_spans<kc__scan_total<B>>(f, tb + (kc_index)t * K, span, te, whole,
                                      ex);
#pragma unroll
    for (int m = 0; m < KC_CUDA_SCAN_RUNS; m++) {
      V v = ex[m];
#pragma unroll
      for (unsigned off = 1; off < 32; off <<= 1) {
        V y = kc__shfl_up(v, off, mask, 32);
        if (lane >= off) {
          Op::join(&y, &v);
          v = y;
        }
      }
      if (lane == wn - 1)
        slots[m * nw + warp] = v;
      ex[m] = kc__shfl_up(v, 1, mask, 32);
    }
    __syncthreads();
    V carry;
    Op::ident(&carry, a);
#pragma unroll
    for (int m = 0; m < KC_CUDA_SCAN_RUNS; m++) {
      V pre = carry;
#pragma unroll 1
      for (unsigned w = 0; w < nw; w++) {
        if (w == warp)
          pre = carry;
        Op::join(&carry, &slots[m * nw + w]);
      }
      if (lane != 0)
        Op::join(&pre, &ex[m]);
      ex[m] = pre;
    }
    const kc__scan_tiles<V> st(a);
    if (t < 32) {
      V pre;
      if (tile == 0) {
        Op::ident(&pre, a);
        if (t == 0)
          st.publish(0, carry, 2);
      } else {
        if (t == 0)
          st.publish(tile, carry, 1);
        pre = kc__scan_lookback<V, Op>(a, st, tile);
        if (t == 0) {
          V in = pre;
          Op::join(&in, &carry);
          st.publish(tile, in, 2);
        }
      }
      if (t == 0) {
        *(V *)raw = pre;
        if (tile == gridDim.x - 1 && a.result) {
          V total = pre;
          Op::join(&total, &carry);
          kc__store_result((V *)a.result, total);
        }
      }
    }
    __syncthreads();
    const V pre = *(const V *)raw;
#pragma unroll
    for (int m = 0; m < KC_CUDA_SCAN_RUNS; m++) {
      V acc = pre;
      Op::join(&acc, &ex[m]);
      ex[m] = acc;
    }
    kc__scan_spans<kc__scan_final<B>>(f, tb + (kc_index)t * K, span, te, whole,
                                      ex);
    if (t == 0 && atomicAdd(a.counter, 1u) == gridDim.x - 1) {
      a.counter[0] = 0;
      a.counter[1] = 0;
    }
  }

  KC__DEV void run(const kc_cuda_args &a, const F *f) {
    if (a.pass == 2) {
      onepass(a, f);
      return;
    }
    V *slots = (V *)kc__cuda_smem;
    const unsigned t = threadIdx.x;
    kc_index cb, ce;
    kc__block_chunk(a, &cb, &ce);
    if (a.pass == 0) {
      /* The chunk's total: the order of a built-in (commutative) sum is
       * free, so its threads stride by blockDim.x (coalesced). */
      V acc;
      if (!Op::ordered) {
        Op::ident(&acc, a);
        for (kc_index i = cb + t; i < ce; i += blockDim.x)
          B::run(f, i, acc, 0);
        acc = kc__warp_join<V, Op>(acc);
      } else {
        acc = kc__ordered_total<V, Op, kc__scan_total<B>>(a, f, cb, ce);
      }
      acc = kc__warps_join<V, Op>(acc, slots);
      if (t == 0)
        ((V *)a.partials)[blockIdx.x] = acc;
      if (!kc__last_block(a.counter))
        return;
      kc__partials_exscan<V, Op>((V *)a.partials, gridDim.x, a);
      if (t == 0)
        *a.counter = 0;
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
    const kc_index K = KC_CUDA_ORDERED_RUN;
    const kc_index tile = (kc_index)blockDim.x * K;
    const unsigned nw = (blockDim.x + 31) >> 5;
    V carry = ((const V *)a.partials)[blockIdx.x];
    unsigned half = 0;
    for (kc_index tb = cb; tb < ce; tb += tile, half ^= nw) {
      const kc_index lo = tb + (kc_index)t * K;
      V v;
      Op::ident(&v, a);
      kc__run_k<kc__scan_total<B>>(f, lo, ce, v);
      V acc = kc__block_scan_step<V, Op>(v, &carry, slots + half);
      kc__run_k<kc__scan_final<B>>(f, lo, ce, acc);
    }
  }
  KC__DEV void param(const kc_cuda_args &a, const F &f) { run(a, &f); }
  KC__DEV void param(const kc_cuda_args &, const kc__nopar &) { __trap(); }
};

/* -------------------------------------------------- multi-dimensional */

/* Calls a body with the point's indices as its parameters. */
template <int R> struct kc__md_apply;
template <> struct kc__md_apply<2> {
  template <class B, class F, class... X>
  KC__DEV void run(const F *f, const kc_index *x, X &...acc) {
    B::run(f, x[0], x[1], acc...);
  }
};
template <> struct kc__md_apply<3> {
  template <class B, class F, class... X>
  KC__DEV void run(const F *f, const kc_index *x, X &...acc) {
    B::run(f, x[0], x[1], x[2], acc...);
  }
};
template <> struct kc__md_apply<4> {
  template <class B, class F, class... X>
  KC__DEV void run(const F *f, const kc_index *x, X &...acc) {
    B::run(f, x[0], x[1], x[2], x[3], acc...);
  }
};
template <> struct kc__md_apply<5> {
  template <class B, class F, class... X>
  KC__DEV void run(const F *f, const kc_index *x, X &...acc) {
    B::run(f, x[0], x[1], x[2], x[3], x[4], acc...);
  }
};
template <> struct kc__md_apply<6> {
  template <class B, class F, class... X>
  KC__DEV void run(const F *f, const kc_index *x, X &...acc) {
    B::run(f, x[0], x[1], x[2], x[3], x[4], x[5], acc...);
  }
};

/* Runs fn(ix) for this thread's points of tile t (see kc_cuda_md_args):
 * LEFT false, the last dimension fastest; true, the first.  The k-th
 * fastest dimension is D(k); every index into lo/hi/ix is a constant once
 * the loops are unrolled, so they stay in registers. */
template <int R, bool LEFT, class Fn>
__device__ __forceinline__ void kc__md_tile_in(const kc_cuda_md_args &m,
                                               kc_index t, Fn &fn) {
#define KC__MD_D(k) (LEFT ? (k) : R - 1 - (k))
  kc_index lo[R], hi[R];
  unsigned tt = (unsigned)t;
#pragma unroll
  for (int k = 0; k < R; k++) {
    const int d = KC__MD_D(k);
    unsigned c = tt;
    if (k < R - 1) {
      const unsigned nd = (unsigned)m.ntiles[d], q = tt / nd;
      c = tt - q * nd;
      tt = q;
    }
    lo[d] = m.begin[d] + (kc_index)c * m.tile[d];
    hi[d] = min(lo[d] + m.tile[d], m.end[d]);
  }
  const int fx = KC__MD_D(0);
  /* The box's first point in the fastest dimension (the tiles' origin is
   * up to 31 points before it: kc_cuda_md_args). */
  const kc_index x0 =
      m.begin[fx] + ((unsigned)m.a.flags >> KC_CUDA_MD_SHIFT & 31u);
  kc_index ix[R];
  for (unsigned y = threadIdx.y; y < m.tile_rest; y += blockDim.y) {
    unsigned r = y;
    bool in = true;
#pragma unroll
    for (int k = 1; k < R; k++) {
      const int d = KC__MD_D(k);
      unsigned c = r;
      if (k < R - 1) {
        const unsigned td = (unsigned)m.tile[d], q = r / td;
        c = r - q * td;
        r = q;
      }
      ix[d] = lo[d] + c;
      in = in && ix[d] < hi[d];
    }
    if (!in)
      continue;
    for (kc_index x = lo[fx] + threadIdx.x; x < hi[fx]; x += blockDim.x) {
      if (x < x0)
        continue;
      ix[fx] = x;
      fn(ix);
    }
  }
#undef KC__MD_D
}

template <int R, class Fn>
__device__ __forceinline__ void kc__md_tile(const kc_cuda_md_args &m,
                                            kc_index t, Fn &fn) {
  if (m.a.flags & KC_CUDA_MD_LEFT)
    kc__md_tile_in<R, true>(m, t, fn);
  else
    kc__md_tile_in<R, false>(m, t, fn);
}

template <class F, int R, class B> struct kc__mdfor_drv {
  KC__DEV void run(const kc_cuda_md_args &m, const F *f) {
    auto fn = [&](const kc_index *ix) {
      kc__md_apply<R>::template run<B>(f, ix);
    };
    for (kc_index t = blockIdx.x; t < m.a.end; t += gridDim.x)
      kc__md_tile<R>(m, t, fn);
  }
  KC__DEV void param(const kc_cuda_md_args &m, const F &f) { run(m, &f); }
  KC__DEV void param(const kc_cuda_md_args &, const kc__nopar &) { __trap(); }
};

template <class F, int R, class V, class Op, class B> struct kc__mdreduce_drv {
  KC__DEV void run(const kc_cuda_md_args &m, const F *f) {
    V acc;
    Op::ident(&acc, m.a);
    if (!Op::ordered) {
      auto fn = [&](const kc_index *ix) {
        kc__md_apply<R>::template run<B>(f, ix, acc);
      };
      for (kc_index t = blockIdx.x; t < m.a.end; t += gridDim.x)
        kc__md_tile<R>(m, t, fn);
      acc = kc__block_join<V, Op>(acc, 1);
    } else {
      /* A custom join: a contiguous run of tiles per block, each tile's
       * points joined (in thread order) before the next tile's. */
      const kc_index t0 = (kc_index)blockIdx.x * m.a.chunk;
      const kc_index t1 = min(t0 + m.a.chunk, m.a.end);
      for (kc_index t = t0; t < t1; t++) {
        V v;
        Op::ident(&v, m.a);
        auto fn = [&](const kc_index *ix) {
          kc__md_apply<R>::template run<B>(f, ix, v);
        };
        kc__md_tile<R>(m, t, fn);
        v = kc__block_join<V, Op>(v, 1);
        Op::join(&acc, &v);
      }
    }
    kc__reduce_finish<V, Op>(m.a, acc);
  }
  KC__DEV void param(const kc_cuda_md_args &m, const F &f) { run(m, &f); }
  KC__DEV void param(const kc_cuda_md_args &, const kc__nopar &) { __trap(); }
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
  kc__pbox<F, (sizeof(F) + sizeof(A) <= KC_CUDA_MAX_PARAM_BYTES)>::type
#define KC__CUDA_ENTRIES(name, ftype, D, A)                                    \
  extern "C" __global__ void name##__kcp(A kc__a,                              \
                                         KC__PARAM_TYPE(ftype, A) kc__f) {     \
    D::param(kc__a, kc__f);                                                    \
  }                                                                            \
  extern "C" __global__ void name##__kcg(A kc__a,                              \
                                         const ftype *__restrict__ kc__f) {    \
    D::run(kc__a, kc__f);                                                      \
  }

/* --------------------------------------------------------------- teams */

/* The device team handle: one per thread, in registers once inlined. */
struct kc_team {
  kc_index league_rank;
  kc_index league_size;
  unsigned char *scratch[2];
  const kc_cuda_team_args *args;
};
typedef struct kc_team kc_team;

__device__ __forceinline__ kc_index kc_team_league_rank(const kc_team *t) {
  return t->league_rank;
}
__device__ __forceinline__ kc_index kc_team_league_size(const kc_team *t) {
  return t->league_size;
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
__device__ __forceinline__ void *kc_team_scratch(const kc_team *t, int level) {
  const int l = level ? 1 : 0;
  return t->args->scratch_team[l] ? (void *)t->scratch[l] : (void *)0;
}
__device__ __forceinline__ void *kc_thread_scratch(const kc_team *t,
                                                   int level) {
  const int l = level ? 1 : 0;
  return t->args->scratch_thread[l]
             ? (void *)(t->scratch[l] + t->args->scratch_offset[l] +
                        (size_t)threadIdx.y * t->args->scratch_stride[l])
             : (void *)0;
}
__device__ __forceinline__ size_t kc_team_scratch_size(const kc_team *t,
                                                       int level) {
  return t->args->scratch_team[level ? 1 : 0];
}
__device__ __forceinline__ size_t kc_thread_scratch_size(const kc_team *t,
                                                         int level) {
  return t->args->scratch_thread[level ? 1 : 0];
}

__device__ __forceinline__ void kc__team_init(kc_team *team,
                                              const kc_cuda_team_args &a) {
  team->league_size = a.a.end;
  team->scratch[0] = kc__cuda_smem;
  team->scratch[1] =
      (unsigned char *)a.scratch1 + (size_t)blockIdx.x * a.scratch_total[1];
  team->args = &a;
}

template <class F, class B> struct kc__team_drv {
  KC__DEV void run(const kc_cuda_team_args &a, const F *f) {
    kc_team team;
    kc__team_init(&team, a);
    for (kc_index r = blockIdx.x; r < a.a.end; r += gridDim.x) {
      team.league_rank = r;
      B::run(f, &team);
      /* The next team of this block reuses the scratch (the nested
       * operations' shared memory is guarded by their own barriers). */
      if (r + gridDim.x < a.a.end && (a.scratch_total[0] | a.scratch_total[1]))
        __syncthreads();
    }
  }
  KC__DEV void param(const kc_cuda_team_args &a, const F &f) { run(a, &f); }
  KC__DEV void param(const kc_cuda_team_args &, const kc__nopar &) { __trap(); }
};

template <class F, class V, class Op, class B> struct kc__team_reduce_drv {
  KC__DEV void run(const kc_cuda_team_args &a, const F *f) {
    kc_team team;
    kc__team_init(&team, a);
    V acc;
    Op::ident(&acc, a.a);
    if (!Op::ordered) {
      for (kc_index r = blockIdx.x; r < a.a.end; r += gridDim.x) {
        team.league_rank = r;
        B::run(f, &team, acc);
        if (r + gridDim.x < a.a.end &&
            (a.scratch_total[0] | a.scratch_total[1]))
          __syncthreads();
      }
      acc = kc__block_join<V, Op>(acc, 1);
    } else {
      /* A custom join: ranks in order, each team's threads and lanes in
       * order (kc__block_join's barriers also separate the teams). */
      const kc_index r0 = (kc_index)blockIdx.x * a.a.chunk;
      const kc_index r1 = min(r0 + a.a.chunk, a.a.end);
      for (kc_index r = r0; r < r1; r++) {
        team.league_rank = r;
        V v;
        Op::ident(&v, a.a);
        B::run(f, &team, v);
        v = kc__block_join<V, Op>(v, 1);
        Op::join(&acc, &v);
      }
    }
    kc__reduce_finish<V, Op>(a.a, acc);
  }
  KC__DEV void param(const kc_cuda_team_args &a, const F &f) { run(a, &f); }
  KC__DEV void param(const kc_cuda_team_args &, const kc__nopar &) { __trap(); }
};

/* ------------------------------------------------------- nested loops */

/* Nested reducers: identities as libkc's built-in reducers have them. */
template <class V> struct kc__lim;
template <> struct kc__lim<int32_t> {
  static __device__ __forceinline__ int32_t lo() { return INT32_MIN; }
  static __device__ __forceinline__ int32_t hi() { return INT32_MAX; }
};
template <> struct kc__lim<int64_t> {
  static __device__ __forceinline__ int64_t lo() { return INT64_MIN; }
  static __device__ __forceinline__ int64_t hi() { return INT64_MAX; }
};
template <> struct kc__lim<uint32_t> {
  static __device__ __forceinline__ uint32_t lo() { return 0; }
  static __device__ __forceinline__ uint32_t hi() { return UINT32_MAX; }
};
template <> struct kc__lim<uint64_t> {
  static __device__ __forceinline__ uint64_t lo() { return 0; }
  static __device__ __forceinline__ uint64_t hi() { return UINT64_MAX; }
};
template <> struct kc__lim<float> {
  static __device__ __forceinline__ float lo() {
    return -__int_as_float(0x7f800000);
  }
  static __device__ __forceinline__ float hi() {
    return __int_as_float(0x7f800000);
  }
};
template <> struct kc__lim<double> {
  static __device__ __forceinline__ double lo() {
    return -__longlong_as_double(0x7ff0000000000000LL);
  }
  static __device__ __forceinline__ double hi() {
    return __longlong_as_double(0x7ff0000000000000LL);
  }
};
struct kc__nop_SUM {
  template <class V> static __device__ __forceinline__ V ident() {
    return (V)0;
  }
  template <class V>
  static __device__ __forceinline__ void join(V *d, const V *s) {
    kc__op_sum::join(d, s); /* the top-level join (cuda_block.h) */
  }
};
struct kc__nop_PROD {
  template <class V> static __device__ __forceinline__ V ident() {
    return (V)1;
  }
  template <class V>
  static __device__ __forceinline__ void join(V *d, const V *s) {
    kc__op_prod::join(d, s); /* the top-level join (cuda_block.h) */
  }
};
struct kc__nop_MIN {
  template <class V> static __device__ __forceinline__ V ident() {
    return kc__lim<V>::hi();
  }
  template <class V>
  static __device__ __forceinline__ void join(V *d, const V *s) {
    kc__op_min::join(d, s); /* the top-level join (cuda_block.h) */
  }
};
struct kc__nop_MAX {
  template <class V> static __device__ __forceinline__ V ident() {
    return kc__lim<V>::lo();
  }
  template <class V>
  static __device__ __forceinline__ void join(V *d, const V *s) {
    kc__op_max::join(d, s); /* the top-level join (cuda_block.h) */
  }
};
/* A nested custom reducer, from the functions KC_REDUCER_IDENTITY and
 * KC_REDUCER_JOIN define. */
template <class V, void (*I)(V *), void (*J)(V *, const V *)>
struct kc__nop_fn {
  static __device__ __forceinline__ V ident() {
    V v;
    I(&v);
    return v;
  }
  static __device__ __forceinline__ void join(V *d, const V *s) { J(d, s); }
};
#define KC__NOP_CUSTOM(rname, vtype)                                           \
  kc__nop_fn<vtype, rname##__kcident, rname##__kcjoin>

/* [*lo, *hi): part `k` of `parts` contiguous parts of [b, e). */
__device__ __forceinline__ void kc__part(kc_index b, kc_index e, unsigned k,
                                         unsigned parts, kc_index *lo,
                                         kc_index *hi) {
  const kc_index n = e > b ? e - b : 0;
  const kc_index per = (n + parts - 1) / parts;
  const kc_index l = b + (kc_index)k * per;
  *lo = l < e ? l : e;
  *hi = l + per < e ? l + per : e;
}

#endif /* KC_DETAIL_CUDA_DRIVERS_H */
