/* kc — block and warp primitives of the CUDA expansion of the kernel
 * macros: value plumbing (parameter boxes, coherent loads, shuffles of any
 * value type), block-wide joins and scans, the last-block-done protocol of
 * reductions.  Internal to detail/kernel_cuda.h. */
#ifndef KC_DETAIL_CUDA_BLOCK_H
#define KC_DETAIL_CUDA_BLOCK_H

/* ------------------------------------------------------ value plumbing */

template <class T> struct kc__loc_of;
template <> struct kc__loc_of<int32_t> { typedef kc_loc_int32 type; };
template <> struct kc__loc_of<int64_t> { typedef kc_loc_int64 type; };
template <> struct kc__loc_of<float> { typedef kc_loc_float type; };
template <> struct kc__loc_of<double> { typedef kc_loc_double type; };

/* A functor that does not fit in the parameter space: the __kcp entry takes
 * this instead (and traps). */
struct kc__nopar {
  char unused;
};
template <class F, bool fits> struct kc__pbox { typedef F type; };
template <class F> struct kc__pbox<F, false> { typedef kc__nopar type; };

/* Copies a value another block wrote in this launch, bypassing L1 (which is
 * not coherent across SMs). */
template <class V> __device__ __forceinline__ V kc__load_cg(const V *p) {
  V v;
  if (sizeof(V) % 4 == 0) {
    const volatile unsigned int *s = (const volatile unsigned int *)p;
    unsigned int *d = (unsigned int *)&v;
    for (unsigned k = 0; k < sizeof(V) / 4; k++)
      d[k] = s[k];
  } else {
    const volatile unsigned char *s = (const volatile unsigned char *)p;
    unsigned char *d = (unsigned char *)&v;
    for (unsigned k = 0; k < sizeof(V); k++)
      d[k] = s[k];
  }
  return v;
}

/* Stores a reduction's result.  The loc types of int32 and float have four
 * bytes of padding, which a plain struct copy leaves undefined: they are
 * written as zeros, so the result's bytes are the same whichever way it is
 * delivered (a host variable or a kc allocation). */
template <class V>
__device__ __forceinline__ void kc__store_result(V *d, const V &v) {
  *d = v;
}
template <class L>
__device__ __forceinline__ void kc__store_loc32(L *d, const L &v) {
  unsigned int *w = (unsigned int *)d;
  memcpy(&w[0], &v.val, 4);
  w[1] = 0;
  *(long long *)&w[2] = v.loc;
}
__device__ __forceinline__ void kc__store_result(kc_loc_int32 *d,
                                                 const kc_loc_int32 &v) {
  kc__store_loc32(d, v);
}
__device__ __forceinline__ void kc__store_result(kc_loc_float *d,
                                                 const kc_loc_float &v) {
  kc__store_loc32(d, v);
}

/* Built-in reducers: identity from the host's bytes, join on the device. */
struct kc__op_builtin {
  static const bool ordered = false; /* commutative: any join order */
  template <class V>
  static __device__ __forceinline__ void ident(V *v, const kc_cuda_args &a) {
    memcpy(v, a.ident, sizeof(V));
  }
};
/* The host's joins (libkc/reducer.c), on the device: integer SUM and PROD
 * wrap (computed unsigned), MIN/MAX take a NaN for missing, MINLOC/MAXLOC
 * order a NaN after every other value and equal values by index. */
template <class V> __device__ __forceinline__ bool kc__isnan(const V &) {
  return false;
}
__device__ __forceinline__ bool kc__isnan(const float &v) { return v != v; }
__device__ __forceinline__ bool kc__isnan(const double &v) { return v != v; }
template <class V> struct kc__wrap { typedef V type; };
template <> struct kc__wrap<int> { typedef unsigned type; };
template <> struct kc__wrap<long long> { typedef unsigned long long type; };
template <> struct kc__wrap<long> { typedef unsigned long type; };
struct kc__op_sum : kc__op_builtin {
  template <class V>
  static __device__ __forceinline__ void join(V *d, const V *s) {
    typedef typename kc__wrap<V>::type U;
    *d = (V)((U)*d + (U)*s);
  }
};
struct kc__op_prod : kc__op_builtin {
  template <class V>
  static __device__ __forceinline__ void join(V *d, const V *s) {
    typedef typename kc__wrap<V>::type U;
    *d = (V)((U)*d * (U)*s);
  }
};
struct kc__op_min : kc__op_builtin {
  template <class V>
  static __device__ __forceinline__ void join(V *d, const V *s) {
    if (*s < *d || kc__isnan(*d))
      *d = *s;
  }
};
struct kc__op_max : kc__op_builtin {
  template <class V>
  static __device__ __forceinline__ void join(V *d, const V *s) {
    if (*s > *d || kc__isnan(*d))
      *d = *s;
  }
};
template <class V, class Cmp>
__device__ __forceinline__ bool kc__loc_wins(const V *s, const V *d, Cmp cmp) {
  return kc__isnan(d->val)
             ? !kc__isnan(s->val) || s->loc < d->loc
             : !kc__isnan(s->val) && (cmp(s->val, d->val) ||
                                      (s->val == d->val && s->loc < d->loc));
}
struct kc__less {
  template <class T>
  __device__ __forceinline__ bool operator()(const T &a, const T &b) const {
    return a < b;
  }
};
struct kc__greater {
  template <class T>
  __device__ __forceinline__ bool operator()(const T &a, const T &b) const {
    return a > b;
  }
};
struct kc__op_minloc : kc__op_builtin {
  template <class V>
  static __device__ __forceinline__ void join(V *d, const V *s) {
    if (kc__loc_wins(s, d, kc__less()))
      *d = *s;
  }
};
struct kc__op_maxloc : kc__op_builtin {
  template <class V>
  static __device__ __forceinline__ void join(V *d, const V *s) {
    if (kc__loc_wins(s, d, kc__greater()))
      *d = *s;
  }
};

/* ---------------------------------------------------- block primitives */

/* Indices one thread takes side by side in each step of an ordered walk
 * (custom reductions, scans; see the drivers).  A warp then covers 32 *
 * KC_CUDA_ORDERED_RUN consecutive indices per step: small enough that its
 * loads and stores stay close to coalesced, large enough to spread the
 * per-step shuffles and barrier over a few indices.  Measured on an H200
 * (bench/scan, doubles, 10^9 bytes): 2 gives 2141 GB/s, 4 and 8 give 976
 * and 977 (the hand-written scan: 2296).  The likely reason, not
 * profiled: with runs of 4 or more doubles each lane of a warp store
 * writes 8 bytes of its own 32-byte sector (32 partial-sector writes per
 * instruction); with 2, two lanes share each sector.  A power of two; may
 * be set with -DKC_CUDA_ORDERED_RUN=n (it changes no ABI). */
#ifndef KC_CUDA_ORDERED_RUN
#define KC_CUDA_ORDERED_RUN 2
#endif

/* This thread's index in its block (x fastest) and the block's size. */
__device__ __forceinline__ unsigned kc__tid() {
  return threadIdx.y * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ unsigned kc__nthreads() {
  return blockDim.x * blockDim.y;
}

/* Lanes of this warp that exist (a block's last warp may be partial): their
 * number and their mask. */
__device__ __forceinline__ unsigned kc__warp_lanes() {
  const unsigned left = kc__nthreads() - (kc__tid() & ~31u);
  return left >= 32 ? 32u : left;
}
__device__ __forceinline__ unsigned kc__warp_mask() {
  const unsigned left = kc__nthreads() - (kc__tid() & ~31u);
  return left >= 32 ? 0xffffffffu : (1u << left) - 1u;
}

/* The lanes of this team thread's vector (blockDim.x consecutive lanes of
 * one warp: the vector length is a power of two up to 32). */
__device__ __forceinline__ unsigned kc__vector_mask() {
  const unsigned vl = blockDim.x;
  if (vl >= 32)
    return 0xffffffffu;
  return ((1u << vl) - 1u) << ((kc__tid() & 31u) & ~(vl - 1u));
}

template <class V> struct kc__words {
  enum { n = (sizeof(V) + 3) / 4 };
};
/* Shuffles a value of any size word by word; `sh` shuffles one word. */
template <class V, class Sh>
__device__ __forceinline__ V kc__shfl_words(V v, Sh sh) {
  unsigned w[kc__words<V>::n];
  w[kc__words<V>::n - 1] = 0;
  memcpy(w, &v, sizeof(V));
#pragma unroll
  for (int k = 0; k < kc__words<V>::n; k++)
    w[k] = sh(w[k]);
  memcpy(&v, w, sizeof(V));
  return v;
}
template <class V>
__device__ __forceinline__ V kc__shfl(V v, int src, unsigned mask, int width) {
  return kc__shfl_words(
      v, [=](unsigned x) { return __shfl_sync(mask, x, src, width); });
}
template <class V>
__device__ __forceinline__ V kc__shfl_down(V v, unsigned off, unsigned mask,
                                           int width) {
  return kc__shfl_words(
      v, [=](unsigned x) { return __shfl_down_sync(mask, x, off, width); });
}
template <class V>
__device__ __forceinline__ V kc__shfl_up(V v, unsigned off, unsigned mask,
                                         int width) {
  return kc__shfl_words(
      v, [=](unsigned x) { return __shfl_up_sync(mask, x, off, width); });
}

/* Joins the values of this warp's lanes in lane order (ordered pairs of
 * neighbours, so associativity suffices); the result is in lane 0, the
 * other lanes hold partial joins.  No barrier; every lane must call it. */
template <class V, class Op>
__device__ __forceinline__ V kc__warp_join(V v, unsigned stride = 1) {
  const unsigned lane = kc__tid() & 31u, wn = kc__warp_lanes();
  const unsigned mask = kc__warp_mask();
  /* All steps from `stride` on, unrolled: in a partial warp the extra ones
   * join nothing. */
#pragma unroll
  for (unsigned off = stride; off < 32; off <<= 1) {
    V o = kc__shfl_down(v, off, mask, 32);
    if ((lane & (2 * off - 1)) == 0 && lane + off < wn)
      Op::join(&v, &o);
  }
  return v;
}

/* Joins lane 0's value of every warp in warp order and returns the result
 * to every thread.  `slots`: one value per warp of shared memory.  One
 * barrier, after the writes: a caller that reuses `slots` needs another
 * barrier first.  Every thread of the block must call it. */
template <class V, class Op>
__device__ __forceinline__ V kc__warps_join(V v, V *slots) {
  const unsigned tid = kc__tid(), nw = (kc__nthreads() + 31) >> 5;
  if ((tid & 31u) == 0)
    slots[tid >> 5] = v;
  __syncthreads();
  V r = slots[0];
  for (unsigned k = 1; k < nw; k++)
    Op::join(&r, &slots[k]);
  return r;
}

/* One step of a block-wide scan in thread order: v is this thread's value;
 * returns *carry joined with the values of the threads before this one,
 * and sets *carry (the same in every thread) to *carry joined with all of
 * them.  Lanes by shuffles (left operand first), then the warps' totals
 * through `slots` (one value per warp of shared memory).  One barrier:
 * consecutive steps must alternate between two `slots` arrays (a thread
 * writes step s+2's slot only after every thread has passed step s+1's
 * barrier, hence finished reading step s's).  Every thread must call it. */
template <class V, class Op>
__device__ __forceinline__ V kc__block_scan_step(V v, V *carry, V *slots) {
  const unsigned tid = kc__tid(), lane = tid & 31u, warp = tid >> 5;
  const unsigned nw = (kc__nthreads() + 31) >> 5, wn = kc__warp_lanes();
  const unsigned mask = kc__warp_mask();
#pragma unroll
  for (unsigned off = 1; off < 32; off <<= 1) { /* lane < wn: all needed */
    V y = kc__shfl_up(v, off, mask, 32);
    if (lane >= off) {
      Op::join(&y, &v);
      v = y;
    }
  }
  V ex = kc__shfl_up(v, 1, mask, 32);
  if (lane == wn - 1)
    slots[warp] = v;
  __syncthreads();
  V pre = *carry;
#pragma unroll 1
  for (unsigned k = 0; k < warp; k++)
    Op::join(&pre, &slots[k]);
  V next = pre;
#pragma unroll 1
  for (unsigned k = warp; k < nw; k++)
    Op::join(&next, &slots[k]);
  if (lane != 0)
    Op::join(&pre, &ex);
  *carry = next;
  return pre;
}

/* True in exactly one block: the last to call it.  Orders this block's
 * earlier global writes before the counter. */
__device__ __forceinline__ bool kc__last_block(unsigned int *counter) {
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (kc__tid() == 0)
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  __syncthreads();
  return last;
}

/* Exclusive scan of vals[0 .. n) in place, in index order, by the whole
 * (last) block: thread t loads a contiguous sub-range (all its loads in
 * flight at once: the values sit in L2), the threads' totals are scanned
 * with kc__block_scan_step, then each thread writes its sub-range.  The
 * total goes to a.result (if not NULL).  Uses the dynamic shared memory;
 * the caller has passed a barrier since it last read it. */
template <class V, class Op>
__device__ void kc__partials_exscan(V *vals, unsigned n,
                                    const kc_cuda_args &a) {
  const unsigned t = threadIdx.x, per = (n + blockDim.x - 1) / blockDim.x;
  const unsigned lo = min(n, t * per), hi = min(n, lo + per);
  V acc;
  Op::ident(&acc, a);
  for (unsigned k = lo; k < hi; k++) {
    V v = kc__load_cg(&vals[k]);
    Op::join(&acc, &v);
  }
  V total;
  Op::ident(&total, a);
  acc = kc__block_scan_step<V, Op>(acc, &total, (V *)kc__cuda_smem);
  for (unsigned k = lo; k < hi; k++) {
    V v = kc__load_cg(&vals[k]);
    vals[k] = acc;
    Op::join(&acc, &v);
  }
  if (t == 0 && a.result)
    kc__store_result((V *)a.result, total);
}

/* =====================================================================
 * Multi-dimensional ranges, teams, scratch and chunk buffers.
 * The meaning of every macro is kernel.h's; what follows is how each
 * becomes device code.
 *
 * Block-wide joins go through warp shuffles and a 32-slot array of static
 * shared memory per value type (kc__block_join), not through dynamic shared
 * memory: so a team kernel's dynamic shared memory is its level-0 scratch
 * and nothing else, and MD reductions need none.  Shuffles move any value
 * type as 32-bit words.
 * ===================================================================== */

/* Joins the values of the block's "members" in member order and returns
 * the result to every thread.  A member is `stride` consecutive threads
 * (1: every thread; blockDim.x: every team thread, whose lanes hold the
 * same value) and contributes the value of its first thread.  Pairs of
 * neighbours within each warp, then the warps' values in order, so the
 * join needs associativity only.  Every thread of the block must call it
 * (two barriers). */
template <class V, class Op>
__device__ __forceinline__ V kc__block_join(V v, unsigned stride) {
  __shared__ __align__(16) unsigned char raw[32 * sizeof(V)];
  V r = kc__warps_join<V, Op>(kc__warp_join<V, Op>(v, stride), (V *)raw);
  __syncthreads();
  return r;
}

/* Exclusive sum scan over the block's members (as above); *total gets the
 * sum over all of them.  Every thread of the block must call it. */
template <class V>
__device__ __forceinline__ V kc__block_exscan(V v, unsigned stride, V *total) {
  __shared__ __align__(16) unsigned char raw[32 * sizeof(V)];
  V *slots = (V *)raw;
  const unsigned tid = kc__tid(), nt = kc__nthreads();
  const unsigned lane = tid & 31u, warp = tid >> 5;
  const unsigned wn = min(32u, nt - (warp << 5)), mask = kc__warp_mask();
  V x = v;
  for (unsigned off = stride; off < wn; off <<= 1) {
    V y = kc__shfl_up(x, off, mask, 32);
    if (lane >= off)
      x += y;
  }
  V ex = kc__shfl_up(x, stride, mask, 32);
  if (lane < stride)
    ex = (V)0;
  V wt = kc__shfl(x, (int)wn - 1, mask, 32);
  if (lane == 0)
    slots[warp] = wt;
  __syncthreads();
  const unsigned nw = (nt + 31) >> 5;
  V pre = (V)0, tot = (V)0;
  for (unsigned k = 0; k < nw; k++) {
    if (k == warp)
      pre = tot;
    tot += slots[k];
  }
  __syncthreads();
  *total = tot;
  return pre + ex;
}

/* The same over the lanes of the calling team thread (no barrier; every
 * lane of the thread must call it). */
template <class V, class Op> __device__ __forceinline__ V kc__vector_join(V v) {
  const unsigned vl = blockDim.x, x = threadIdx.x, mask = kc__vector_mask();
  if (vl == 1)
    return v;
  for (unsigned off = 1; off < vl; off <<= 1) {
    V o = kc__shfl_down(v, off, mask, (int)vl);
    if ((x & (2 * off - 1)) == 0 && x + off < vl)
      Op::join(&v, &o);
  }
  return kc__shfl(v, 0, mask, (int)vl);
}
template <class V>
__device__ __forceinline__ V kc__vector_exscan(V v, V *total) {
  const unsigned vl = blockDim.x, x = threadIdx.x, mask = kc__vector_mask();
  if (vl == 1) {
    *total = v;
    return (V)0;
  }
  V s = v;
  for (unsigned off = 1; off < vl; off <<= 1) {
    V y = kc__shfl_up(s, off, mask, (int)vl);
    if (x >= off)
      s += y;
  }
  *total = kc__shfl(s, (int)vl - 1, mask, (int)vl);
  V ex = kc__shfl_up(s, 1, mask, (int)vl);
  return x == 0 ? (V)0 : ex;
}

/* Stores a reduction's total at a.result, then, when the host waits on it,
 * the done word after it (one thread). */
template <class V>
__device__ __forceinline__ void kc__store_total(const kc_cuda_args &a,
                                                const V &acc) {
  kc__store_result((V *)a.result, acc);
  if (a.flags & KC_CUDA_RESULT_DONE) {
    /* The host waits on this word, after the value: every block's work is
     * done (they all passed kc__last_block, or there is one block). */
    __threadfence_system();
    *(volatile unsigned *)((char *)a.result + KC_CUDA_RESULT_DONE_AT(V)) = 1u;
  }
}

/* The end of every reduction (1-D, MD, team): block b's value (in every thread)
 * goes to a.partials[b]; the last block to finish joins the partials in
 * block order and stores the result. */
template <class V, class Op>
__device__ __forceinline__ void kc__reduce_finish(const kc_cuda_args &a, V v) {
  const unsigned tid = kc__tid(), nt = kc__nthreads();
  if (gridDim.x == 1) {
    /* One block (a small range): its value is the total; no partial, no
     * fence, no counter.  Joined onto the identity as the partials are,
     * so the result is the same bits. */
    if (tid == 0 && a.result) {
      V acc;
      Op::ident(&acc, a);
      Op::join(&acc, &v);
      kc__store_total<V>(a, acc);
    }
    return;
  }
  if (tid == 0)
    ((V *)a.partials)[blockIdx.x] = v;
  if (!kc__last_block(a.counter))
    return;
  const unsigned n = gridDim.x, per = (n + nt - 1) / nt;
  const unsigned lo = min(n, tid * per), hi = min(n, lo + per);
  V acc;
  Op::ident(&acc, a);
  for (unsigned k = lo; k < hi; k++) {
    V p = kc__load_cg(&((const V *)a.partials)[k]);
    Op::join(&acc, &p);
  }
  acc = kc__block_join<V, Op>(acc, 1);
  if (tid == 0) {
    if (a.result)
      kc__store_total<V>(a, acc);
    *a.counter = 0;
  }
}

#endif /* KC_DETAIL_CUDA_BLOCK_H */
