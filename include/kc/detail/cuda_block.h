/* kc — block and warp primitives of the CUDA expansion of the kernel
 * macros: value plumbing (parameter boxes, coherent loads, shuffles of any
 * value type), block-wide joins and scans, the last-block-done protocol of
 * reductions.  Internal to detail/kernel_cuda.h.
 *
 * Every name declared here (template parameters, parameters, locals,
 * members) is a kc__ name: the file is compiled after the user's -D
 * options and #defines, and a plain V, Op or lane could be a user's macro
 * (t-kcc-names.sh).  The comments leave the prefix out. */
#ifndef KC_DETAIL_CUDA_BLOCK_H
#define KC_DETAIL_CUDA_BLOCK_H

/* ------------------------------------------------------ value plumbing */

template <class kc__T> struct kc__loc_of;
template <> struct kc__loc_of<int32_t> { typedef kc_loc_int32 kc__type; };
template <> struct kc__loc_of<int64_t> { typedef kc_loc_int64 kc__type; };
template <> struct kc__loc_of<float> { typedef kc_loc_float kc__type; };
template <> struct kc__loc_of<double> { typedef kc_loc_double kc__type; };

/* A functor that does not fit in the parameter space: the __kcp entry takes
 * this instead (and traps). */
struct kc__nopar {
  char kc__unused;
};
template <class kc__F, bool kc__fits> struct kc__pbox {
  typedef kc__F kc__type;
};
template <class kc__F> struct kc__pbox<kc__F, false> {
  typedef kc__nopar kc__type;
};

/* Copies a value another block wrote in this launch, bypassing L1 (which is
 * not coherent across SMs). */
template <class kc__V>
__device__ __forceinline__ kc__V kc__load_cg(const kc__V *kc__p) {
  kc__V kc__v;
  if (sizeof(kc__V) % 4 == 0) {
    const volatile unsigned int *kc__s = (const volatile unsigned int *)kc__p;
    unsigned int *kc__d = (unsigned int *)&kc__v;
    for (unsigned kc__k = 0; kc__k < sizeof(kc__V) / 4; kc__k++)
      kc__d[kc__k] = kc__s[kc__k];
  } else {
    const volatile unsigned char *kc__s = (const volatile unsigned char *)kc__p;
    unsigned char *kc__d = (unsigned char *)&kc__v;
    for (unsigned kc__k = 0; kc__k < sizeof(kc__V); kc__k++)
      kc__d[kc__k] = kc__s[kc__k];
  }
  return kc__v;
}

/* Stores a reduction's result.  The loc types of int32 and float have four
 * bytes of padding, which a plain struct copy leaves undefined: they are
 * written as zeros, so the result's bytes are the same whichever way it is
 * delivered (a host variable or a kc allocation). */
template <class kc__V>
__device__ __forceinline__ void kc__store_result(kc__V *kc__d,
                                                 const kc__V &kc__v) {
  *kc__d = kc__v;
}
template <class kc__L>
__device__ __forceinline__ void kc__store_loc32(kc__L *kc__d,
                                                const kc__L &kc__v) {
  unsigned int *kc__w = (unsigned int *)kc__d;
  memcpy(&kc__w[0], &kc__v.val, 4);
  kc__w[1] = 0;
  *(long long *)&kc__w[2] = kc__v.loc;
}
__device__ __forceinline__ void kc__store_result(kc_loc_int32 *kc__d,
                                                 const kc_loc_int32 &kc__v) {
  kc__store_loc32(kc__d, kc__v);
}
__device__ __forceinline__ void kc__store_result(kc_loc_float *kc__d,
                                                 const kc_loc_float &kc__v) {
  kc__store_loc32(kc__d, kc__v);
}

/* Built-in reducers: identity from the host's bytes, join on the device. */
struct kc__op_builtin {
  static const bool kc__ordered = false; /* commutative: any join order */
  template <class kc__V>
  static __device__ __forceinline__ void kc__ident(kc__V *kc__v,
                                                   const kc_cuda_args &kc__a) {
    memcpy(kc__v, kc__a.ident, sizeof(kc__V));
  }
};
/* The host's joins (libkc/reducer.c), on the device: integer SUM and PROD
 * wrap (computed unsigned), MIN/MAX take a NaN for missing, MINLOC/MAXLOC
 * order a NaN after every other value and equal values by index. */
template <class kc__V>
__device__ __forceinline__ bool kc__isnan(const kc__V &) {
  return false;
}
__device__ __forceinline__ bool kc__isnan(const float &kc__v) {
  return kc__v != kc__v;
}
__device__ __forceinline__ bool kc__isnan(const double &kc__v) {
  return kc__v != kc__v;
}
template <class kc__V> struct kc__wrap { typedef kc__V kc__type; };
template <> struct kc__wrap<int> { typedef unsigned kc__type; };
template <> struct kc__wrap<long long> { typedef unsigned long long kc__type; };
template <> struct kc__wrap<long> { typedef unsigned long kc__type; };
struct kc__op_sum : kc__op_builtin {
  template <class kc__V>
  static __device__ __forceinline__ void kc__join(kc__V *kc__d,
                                                  const kc__V *kc__s) {
    typedef typename kc__wrap<kc__V>::kc__type kc__U;
    *kc__d = (kc__V)((kc__U)*kc__d + (kc__U)*kc__s);
  }
};
struct kc__op_prod : kc__op_builtin {
  template <class kc__V>
  static __device__ __forceinline__ void kc__join(kc__V *kc__d,
                                                  const kc__V *kc__s) {
    typedef typename kc__wrap<kc__V>::kc__type kc__U;
    *kc__d = (kc__V)((kc__U)*kc__d * (kc__U)*kc__s);
  }
};
struct kc__op_min : kc__op_builtin {
  template <class kc__V>
  static __device__ __forceinline__ void kc__join(kc__V *kc__d,
                                                  const kc__V *kc__s) {
    if (*kc__s < *kc__d || kc__isnan(*kc__d))
      *kc__d = *kc__s;
  }
};
struct kc__op_max : kc__op_builtin {
  template <class kc__V>
  static __device__ __forceinline__ void kc__join(kc__V *kc__d,
                                                  const kc__V *kc__s) {
    if (*kc__s > *kc__d || kc__isnan(*kc__d))
      *kc__d = *kc__s;
  }
};
template <class kc__V, class kc__Cmp>
__device__ __forceinline__ bool
kc__loc_wins(const kc__V *kc__s, const kc__V *kc__d, kc__Cmp kc__cmp) {
  return kc__isnan(kc__d->val)
             ? !kc__isnan(kc__s->val) || kc__s->loc < kc__d->loc
             : !kc__isnan(kc__s->val) &&
                   (kc__cmp(kc__s->val, kc__d->val) ||
                    (kc__s->val == kc__d->val && kc__s->loc < kc__d->loc));
}
struct kc__less {
  template <class kc__T>
  __device__ __forceinline__ bool operator()(const kc__T &kc__a,
                                             const kc__T &kc__b) const {
    return kc__a < kc__b;
  }
};
struct kc__greater {
  template <class kc__T>
  __device__ __forceinline__ bool operator()(const kc__T &kc__a,
                                             const kc__T &kc__b) const {
    return kc__a > kc__b;
  }
};
struct kc__op_minloc : kc__op_builtin {
  template <class kc__V>
  static __device__ __forceinline__ void kc__join(kc__V *kc__d,
                                                  const kc__V *kc__s) {
    if (kc__loc_wins(kc__s, kc__d, kc__less()))
      *kc__d = *kc__s;
  }
};
struct kc__op_maxloc : kc__op_builtin {
  template <class kc__V>
  static __device__ __forceinline__ void kc__join(kc__V *kc__d,
                                                  const kc__V *kc__s) {
    if (kc__loc_wins(kc__s, kc__d, kc__greater()))
      *kc__d = *kc__s;
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
  const unsigned kc__left = kc__nthreads() - (kc__tid() & ~31u);
  return kc__left >= 32 ? 32u : kc__left;
}
__device__ __forceinline__ unsigned kc__warp_mask() {
  const unsigned kc__left = kc__nthreads() - (kc__tid() & ~31u);
  return kc__left >= 32 ? 0xffffffffu : (1u << kc__left) - 1u;
}

/* The lanes of this team thread's vector (blockDim.x consecutive lanes of
 * one warp: the vector length is a power of two up to 32). */
__device__ __forceinline__ unsigned kc__vector_mask() {
  const unsigned kc__vl = blockDim.x;
  if (kc__vl >= 32)
    return 0xffffffffu;
  return ((1u << kc__vl) - 1u) << ((kc__tid() & 31u) & ~(kc__vl - 1u));
}

template <class kc__V> struct kc__words {
  enum { kc__n = (sizeof(kc__V) + 3) / 4 };
};
/* Shuffles a value of any size word by word; `sh` shuffles one word. */
template <class kc__V, class kc__Sh>
__device__ __forceinline__ kc__V kc__shfl_words(kc__V kc__v, kc__Sh kc__sh) {
  unsigned kc__w[kc__words<kc__V>::kc__n];
  kc__w[kc__words<kc__V>::kc__n - 1] = 0;
  memcpy(kc__w, &kc__v, sizeof(kc__V));
#pragma unroll
  for (int kc__k = 0; kc__k < kc__words<kc__V>::kc__n; kc__k++)
    kc__w[kc__k] = kc__sh(kc__w[kc__k]);
  memcpy(&kc__v, kc__w, sizeof(kc__V));
  return kc__v;
}
template <class kc__V>
__device__ __forceinline__ kc__V kc__shfl(kc__V kc__v, int kc__src,
                                          unsigned kc__mask, int kc__width) {
  return kc__shfl_words(kc__v, [=](unsigned kc__x) {
    return __shfl_sync(kc__mask, kc__x, kc__src, kc__width);
  });
}
template <class kc__V>
__device__ __forceinline__ kc__V kc__shfl_down(kc__V kc__v, unsigned kc__off,
                                               unsigned kc__mask,
                                               int kc__width) {
  return kc__shfl_words(kc__v, [=](unsigned kc__x) {
    return __shfl_down_sync(kc__mask, kc__x, kc__off, kc__width);
  });
}
template <class kc__V>
__device__ __forceinline__ kc__V kc__shfl_up(kc__V kc__v, unsigned kc__off,
                                             unsigned kc__mask, int kc__width) {
  return kc__shfl_words(kc__v, [=](unsigned kc__x) {
    return __shfl_up_sync(kc__mask, kc__x, kc__off, kc__width);
  });
}

/* Joins the values of this warp's lanes in lane order (ordered pairs of
 * neighbours, so associativity suffices); the result is in lane 0, the
 * other lanes hold partial joins.  No barrier; every lane must call it. */
template <class kc__V, class kc__Op>
__device__ __forceinline__ kc__V kc__warp_join(kc__V kc__v,
                                               unsigned kc__stride = 1) {
  const unsigned kc__lane = kc__tid() & 31u, kc__wn = kc__warp_lanes();
  const unsigned kc__mask = kc__warp_mask();
  /* All steps from `stride` on, unrolled: in a partial warp the extra ones
   * join nothing. */
#pragma unroll
  for (unsigned kc__off = kc__stride; kc__off < 32; kc__off <<= 1) {
    kc__V kc__o = kc__shfl_down(kc__v, kc__off, kc__mask, 32);
    if ((kc__lane & (2 * kc__off - 1)) == 0 && kc__lane + kc__off < kc__wn)
      kc__Op::kc__join(&kc__v, &kc__o);
  }
  return kc__v;
}

/* Joins lane 0's value of every warp in warp order and returns the result
 * to every thread.  `slots`: one value per warp of shared memory.  One
 * barrier, after the writes: a caller that reuses `slots` needs another
 * barrier first.  Every thread of the block must call it. */
template <class kc__V, class kc__Op>
__device__ __forceinline__ kc__V kc__warps_join(kc__V kc__v, kc__V *kc__slots) {
  const unsigned kc__tidx = kc__tid(), kc__nw = (kc__nthreads() + 31) >> 5;
  if ((kc__tidx & 31u) == 0)
    kc__slots[kc__tidx >> 5] = kc__v;
  __syncthreads();
  kc__V kc__r = kc__slots[0];
  for (unsigned kc__k = 1; kc__k < kc__nw; kc__k++)
    kc__Op::kc__join(&kc__r, &kc__slots[kc__k]);
  return kc__r;
}

/* One step of a block-wide scan in thread order: v is this thread's value;
 * returns *carry joined with the values of the threads before this one,
 * and sets *carry (the same in every thread) to *carry joined with all of
 * them.  Lanes by shuffles (left operand first), then the warps' totals
 * through `slots` (one value per warp of shared memory).  One barrier:
 * consecutive steps must alternate between two `slots` arrays (a thread
 * writes step s+2's slot only after every thread has passed step s+1's
 * barrier, hence finished reading step s's).  Every thread must call it. */
template <class kc__V, class kc__Op>
__device__ __forceinline__ kc__V kc__block_scan_step(kc__V kc__v,
                                                     kc__V *kc__carry,
                                                     kc__V *kc__slots) {
  const unsigned kc__tidx = kc__tid(), kc__lane = kc__tidx & 31u,
                 kc__warp = kc__tidx >> 5;
  const unsigned kc__nw = (kc__nthreads() + 31) >> 5, kc__wn = kc__warp_lanes();
  const unsigned kc__mask = kc__warp_mask();
#pragma unroll
  for (unsigned kc__off = 1; kc__off < 32;
       kc__off <<= 1) { /* lane < wn: all needed */
    kc__V kc__y = kc__shfl_up(kc__v, kc__off, kc__mask, 32);
    if (kc__lane >= kc__off) {
      kc__Op::kc__join(&kc__y, &kc__v);
      kc__v = kc__y;
    }
  }
  kc__V kc__ex = kc__shfl_up(kc__v, 1, kc__mask, 32);
  if (kc__lane == kc__wn - 1)
    kc__slots[kc__warp] = kc__v;
  __syncthreads();
  kc__V kc__pre = *kc__carry;
#pragma unroll 1
  for (unsigned kc__k = 0; kc__k < kc__warp; kc__k++)
    kc__Op::kc__join(&kc__pre, &kc__slots[kc__k]);
  kc__V kc__next = kc__pre;
#pragma unroll 1
  for (unsigned kc__k = kc__warp; kc__k < kc__nw; kc__k++)
    kc__Op::kc__join(&kc__next, &kc__slots[kc__k]);
  if (kc__lane != 0)
    kc__Op::kc__join(&kc__pre, &kc__ex);
  *kc__carry = kc__next;
  return kc__pre;
}

/* True in exactly one block: the last to call it.  Orders this block's
 * earlier global writes before the counter. */
__device__ __forceinline__ bool kc__last_block(unsigned int *kc__counter) {
  __shared__ bool kc__last;
  __threadfence();
  __syncthreads();
  if (kc__tid() == 0)
    kc__last = atomicAdd(kc__counter, 1u) == gridDim.x - 1;
  __syncthreads();
  return kc__last;
}

/* Exclusive scan of vals[0 .. n) in place, in index order, by the whole
 * (last) block: thread t loads a contiguous sub-range (all its loads in
 * flight at once: the values sit in L2), the threads' totals are scanned
 * with kc__block_scan_step, then each thread writes its sub-range.  The
 * total goes to a.result (if not NULL).  Uses the dynamic shared memory;
 * the caller has passed a barrier since it last read it. */
template <class kc__V, class kc__Op>
__device__ void kc__partials_exscan(kc__V *kc__vals, unsigned kc__n,
                                    const kc_cuda_args &kc__a) {
  const unsigned kc__t = threadIdx.x,
                 kc__per = (kc__n + blockDim.x - 1) / blockDim.x;
  const unsigned kc__lo = min(kc__n, kc__t * kc__per),
                 kc__hi = min(kc__n, kc__lo + kc__per);
  kc__V kc__acc;
  kc__Op::kc__ident(&kc__acc, kc__a);
  for (unsigned kc__k = kc__lo; kc__k < kc__hi; kc__k++) {
    kc__V kc__v = kc__load_cg(&kc__vals[kc__k]);
    kc__Op::kc__join(&kc__acc, &kc__v);
  }
  kc__V kc__total;
  kc__Op::kc__ident(&kc__total, kc__a);
  kc__acc = kc__block_scan_step<kc__V, kc__Op>(kc__acc, &kc__total,
                                               (kc__V *)kc__cuda_smem);
  for (unsigned kc__k = kc__lo; kc__k < kc__hi; kc__k++) {
    kc__V kc__v = kc__load_cg(&kc__vals[kc__k]);
    kc__vals[kc__k] = kc__acc;
    kc__Op::kc__join(&kc__acc, &kc__v);
  }
  if (kc__t == 0 && kc__a.result)
    kc__store_result((kc__V *)kc__a.result, kc__total);
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
template <class kc__V, class kc__Op>
__device__ __forceinline__ kc__V kc__block_join(kc__V kc__v,
                                                unsigned kc__stride) {
  __shared__ __align__(16) unsigned char kc__raw[32 * sizeof(kc__V)];
  kc__V kc__r = kc__warps_join<kc__V, kc__Op>(
      kc__warp_join<kc__V, kc__Op>(kc__v, kc__stride), (kc__V *)kc__raw);
  __syncthreads();
  return kc__r;
}

/* Exclusive sum scan over the block's members (as above); *total gets the
 * sum over all of them.  Every thread of the block must call it. */
template <class kc__V>
__device__ __forceinline__ kc__V kc__block_exscan(kc__V kc__v,
                                                  unsigned kc__stride,
                                                  kc__V *kc__total) {
  __shared__ __align__(16) unsigned char kc__raw[32 * sizeof(kc__V)];
  kc__V *kc__slots = (kc__V *)kc__raw;
  const unsigned kc__tidx = kc__tid(), kc__nt = kc__nthreads();
  const unsigned kc__lane = kc__tidx & 31u, kc__warp = kc__tidx >> 5;
  const unsigned kc__wn = min(32u, kc__nt - (kc__warp << 5)),
                 kc__mask = kc__warp_mask();
  kc__V kc__x = kc__v;
  for (unsigned kc__off = kc__stride; kc__off < kc__wn; kc__off <<= 1) {
    kc__V kc__y = kc__shfl_up(kc__x, kc__off, kc__mask, 32);
    if (kc__lane >= kc__off)
      kc__x += kc__y;
  }
  kc__V kc__ex = kc__shfl_up(kc__x, kc__stride, kc__mask, 32);
  if (kc__lane < kc__stride)
    kc__ex = (kc__V)0;
  kc__V kc__wt = kc__shfl(kc__x, (int)kc__wn - 1, kc__mask, 32);
  if (kc__lane == 0)
    kc__slots[kc__warp] = kc__wt;
  __syncthreads();
  const unsigned kc__nw = (kc__nt + 31) >> 5;
  kc__V kc__pre = (kc__V)0, kc__tot = (kc__V)0;
  for (unsigned kc__k = 0; kc__k < kc__nw; kc__k++) {
    if (kc__k == kc__warp)
      kc__pre = kc__tot;
    kc__tot += kc__slots[kc__k];
  }
  __syncthreads();
  *kc__total = kc__tot;
  return kc__pre + kc__ex;
}

/* The same over the lanes of the calling team thread (no barrier; every
 * lane of the thread must call it). */
template <class kc__V, class kc__Op>
__device__ __forceinline__ kc__V kc__vector_join(kc__V kc__v) {
  const unsigned kc__vl = blockDim.x, kc__x = threadIdx.x,
                 kc__mask = kc__vector_mask();
  if (kc__vl == 1)
    return kc__v;
  for (unsigned kc__off = 1; kc__off < kc__vl; kc__off <<= 1) {
    kc__V kc__o = kc__shfl_down(kc__v, kc__off, kc__mask, (int)kc__vl);
    if ((kc__x & (2 * kc__off - 1)) == 0 && kc__x + kc__off < kc__vl)
      kc__Op::kc__join(&kc__v, &kc__o);
  }
  return kc__shfl(kc__v, 0, kc__mask, (int)kc__vl);
}
template <class kc__V>
__device__ __forceinline__ kc__V kc__vector_exscan(kc__V kc__v,
                                                   kc__V *kc__total) {
  const unsigned kc__vl = blockDim.x, kc__x = threadIdx.x,
                 kc__mask = kc__vector_mask();
  if (kc__vl == 1) {
    *kc__total = kc__v;
    return (kc__V)0;
  }
  kc__V kc__s = kc__v;
  for (unsigned kc__off = 1; kc__off < kc__vl; kc__off <<= 1) {
    kc__V kc__y = kc__shfl_up(kc__s, kc__off, kc__mask, (int)kc__vl);
    if (kc__x >= kc__off)
      kc__s += kc__y;
  }
  *kc__total = kc__shfl(kc__s, (int)kc__vl - 1, kc__mask, (int)kc__vl);
  kc__V kc__ex = kc__shfl_up(kc__s, 1, kc__mask, (int)kc__vl);
  return kc__x == 0 ? (kc__V)0 : kc__ex;
}

/* Stores a reduction's total at a.result, then, when the host waits on it,
 * the done word after it (one thread). */
template <class kc__V>
__device__ __forceinline__ void kc__store_total(const kc_cuda_args &kc__a,
                                                const kc__V &kc__acc) {
  kc__store_result((kc__V *)kc__a.result, kc__acc);
  if (kc__a.flags & KC_CUDA_RESULT_DONE) {
    /* The host waits on this word, after the value: every block's work is
     * done (they all passed kc__last_block, or there is one block). */
    __threadfence_system();
    *(volatile unsigned *)((char *)kc__a.result +
                           KC_CUDA_RESULT_DONE_AT(kc__V)) = 1u;
  }
}

/* The end of every reduction (1-D, MD, team): block b's value (in every thread)
 * goes to a.partials[b]; the last block to finish joins the partials in
 * block order and stores the result. */
template <class kc__V, class kc__Op>
__device__ __forceinline__ void kc__reduce_finish(const kc_cuda_args &kc__a,
                                                  kc__V kc__v) {
  const unsigned kc__tidx = kc__tid(), kc__nt = kc__nthreads();
  if (gridDim.x == 1) {
    /* One block (a small range): its value is the total; no partial, no
     * fence, no counter.  Joined onto the identity as the partials are,
     * so the result is the same bits. */
    if (kc__tidx == 0 && kc__a.result) {
      kc__V kc__acc;
      kc__Op::kc__ident(&kc__acc, kc__a);
      kc__Op::kc__join(&kc__acc, &kc__v);
      kc__store_total<kc__V>(kc__a, kc__acc);
    }
    return;
  }
  if (kc__tidx == 0)
    ((kc__V *)kc__a.partials)[blockIdx.x] = kc__v;
  if (!kc__last_block(kc__a.counter))
    return;
  const unsigned kc__n = gridDim.x, kc__per = (kc__n + kc__nt - 1) / kc__nt;
  const unsigned kc__lo = min(kc__n, kc__tidx * kc__per),
                 kc__hi = min(kc__n, kc__lo + kc__per);
  kc__V kc__acc;
  kc__Op::kc__ident(&kc__acc, kc__a);
  for (unsigned kc__k = kc__lo; kc__k < kc__hi; kc__k++) {
    kc__V kc__p = kc__load_cg(&((const kc__V *)kc__a.partials)[kc__k]);
    kc__Op::kc__join(&kc__acc, &kc__p);
  }
  kc__acc = kc__block_join<kc__V, kc__Op>(kc__acc, 1);
  if (kc__tidx == 0) {
    if (kc__a.result)
      kc__store_total<kc__V>(kc__a, kc__acc);
    *kc__a.counter = 0;
  }
}

#endif /* KC_DETAIL_CUDA_BLOCK_H */
