/* kc — the device expansion of <kc/kernel.h> and the CUDA plugin's device
 * ABI.
 *
 * kcc compiles a .kc.c file a second time with `nvcc -x cu -ptx` (CUDA C++);
 * <kc/kernel.h> then includes this header, and every kernel macro becomes
 * device code:
 *
 *   - a struct `<name>__kcb` whose static member function is the user's body
 *     (force-inlined; `f`, `i`, `acc`, `final` are its parameters), pasted
 *     as `do { body; } while (0)` so that `continue` ends the index's work
 *     as it does in the host loop;
 *   - two `extern "C" __global__` entries, which is what the CUDA plugin
 *     launches (the kernel's ptx_entry is their base name):
 *
 *       <name>__kcp(kc_cuda_args a, ftype f)          functor BY VALUE, as a
 *                                                     kernel parameter
 *       <name>__kcg(kc_cuda_args a, const ftype *f)   functor read through a
 *                                                     pointer: a slot of the
 *                                                     module's __constant__
 *                                                     staging region or a
 *                                                     global-memory buffer
 *
 *     A functor too large for the parameter space (see
 *     KC_CUDA_MAX_PARAM_BYTES) gets a one-byte placeholder parameter in
 *     <name>__kcp, which traps if launched; the plugin then uses <name>__kcg.
 *     MD and team kernels take kc_cuda_md_args / kc_cuda_team_args (which
 *     begin with a kc_cuda_args) as their first parameter instead; see
 *     the second half of this file.
 *   - each entry loops grid-stride over [a.begin, a.end).
 *
 * Reductions: each thread accumulates into a private `acc` (initialised to
 * the reducer's identity) over its indices: grid-stride for the built-in
 * reducers, whose joins commute; for a custom reducer, which need only be
 * associative, block b takes the chunk [begin + b*chunk, +chunk) and walks
 * it in index order with coalesced accesses (each warp a contiguous part,
 * in steps where lane l takes KC_CUDA_ORDERED_RUN consecutive indices; the
 * lanes' values joined in lane order after each step, see
 * kc__ordered_total).  The block combines its values in thread order (warp
 * shuffles, then the warps' values through the dynamic shared memory),
 * blocks 0 ... G-1 write their value to a.partials[blockIdx.x], and the
 * last block to finish (a.counter, a last-block-done counter the plugin
 * keeps at 0 between launches) combines the partials in block order and
 * stores the result at a.result (a device-accessible pointer: a kc
 * allocation or the plugin's mapped pinned slot).  Joins are applied in
 * index order, so a custom reducer needs only associativity, not
 * commutativity.
 *
 * Scans (two launches of the same entry): a.pass = 0 runs the body with
 * final = 0 over each block's contiguous chunk [begin + b*chunk, +chunk)
 * (built-in sum: strided over the block's threads; custom: the ordered
 * walk above), stores the block's total in a.partials[b]; the last block
 * turns a.partials into an exclusive scan in place and stores the grand
 * total at a.result (if not NULL).  a.pass = 1 walks each chunk in tiles of
 * blockDim.x * KC_CUDA_ORDERED_RUN indices, thread t taking
 * KC_CUDA_ORDERED_RUN consecutive ones of each: per-thread totals (final =
 * 0), an exclusive scan of them across the block on top of the prefix
 * before the tile, then the body again with final = 1 and acc holding the
 * prefix before the index.  The plugin launches both passes with the same
 * grid, block and a.chunk.  1-D reductions and scans need blockDim.x *
 * sizeof(value) bytes of dynamic shared memory, which the plugin gives them
 * (they use 2 values per warp).
 *
 * The module's staging region: every PTX module built from this header
 * carries one `.const` array, KC_CUDA_STAGING_SYMBOL, of
 * KC_CUDA_STAGING_BYTES bytes (256-byte aligned), which the plugin finds
 * with cuModuleGetGlobal and uses as a ring of functor slots.  Define
 * KC_CUDA_NO_STAGING before including kernel.h to leave it out (the plugin
 * then stages constant-mode functors in global memory).
 *
 * The plugin (plain C) includes this header with KC_CUDA_ABI_ONLY defined to
 * get the ABI part only: kc_cuda_args, the entry suffixes, the symbol name.
 */
#ifndef KC_KERNEL_CUDA_H
#define KC_KERNEL_CUDA_H

#include <kc/kc.h>

/* ------------------------------------------------------------ device ABI */

#ifdef __cplusplus
extern "C" {
#endif

/* The first parameter of every kc device entry, passed by value.  Only ever
 * grows at its end, together with KC_CUDA_ABI_VERSION. */
typedef struct kc_cuda_args {
  kc_index begin;         /* first index of the range */
  kc_index end;           /* one past the last index */
  kc_index chunk;         /* SCAN and custom REDUCE: indices per block
                             (a multiple of nothing in particular; > 0) */
  void *partials;         /* REDUCE/SCAN: one value per block (device) */
  void *result;           /* REDUCE: the value; SCAN: the total (or NULL) */
  unsigned int *counter;  /* REDUCE/SCAN: last-block-done counter, 0 */
  int pass;               /* SCAN: 0 = block totals, 1 = final pass */
  int reserved;           /* 0 */
  long long ident[2];     /* built-in reducers: the identity value's bytes,
                             as the host reducer's identity() wrote them */
} kc_cuda_args;

/* MDFOR / MDREDUCE entries take this in place of kc_cuda_args (ABI 2).
 * The box [begin[d], end[d]) is cut into tiles of tile[d] points, ntiles[d]
 * per dimension; a.begin = 0 and a.end = the number of tiles (the product
 * of ntiles, < 2^31), which blocks take grid-stride (custom reducers: a
 * contiguous run of a.chunk tiles per block).  A block of blockDim.x x
 * blockDim.y threads walks its tile: the last dimension over threadIdx.x,
 * the others, flattened (tile_rest = product of tile[0 .. rank-2] points,
 * < 2^31), over threadIdx.y. */
typedef struct kc_cuda_md_args {
  kc_cuda_args a;
  kc_index begin[KC_MAX_RANK];
  kc_index end[KC_MAX_RANK];
  kc_index tile[KC_MAX_RANK];
  kc_index ntiles[KC_MAX_RANK];
  unsigned int tile_rest;
  int rank;
} kc_cuda_md_args;

/* TEAM / TEAM_REDUCE entries take this in place of kc_cuda_args (ABI 2).
 * A block is one team: blockDim.x = vector length (lanes), blockDim.y =
 * team size (threads).  a.begin = 0, a.end = the league size; league ranks
 * go grid-stride over blockIdx.x (custom reducers: a contiguous run of
 * a.chunk ranks per block).  Scratch, per level (0: the block's dynamic
 * shared memory; 1: block b's slice of scratch1 at b * scratch_total[1]),
 * laid out as kc_launch_scratch() says: the per-team part (scratch_team
 * bytes), then at scratch_offset one part per team thread, scratch_stride
 * apart, of scratch_thread bytes each. */
typedef struct kc_cuda_team_args {
  kc_cuda_args a;
  void *scratch1;
  size_t scratch_team[2];
  size_t scratch_thread[2];
  size_t scratch_offset[2];
  size_t scratch_stride[2];
  size_t scratch_total[2];
} kc_cuda_team_args;

#define KC_CUDA_ABI_VERSION 2
#define KC_CUDA_ENTRY_PARAM "__kcp"  /* suffix: functor by value */
#define KC_CUDA_ENTRY_GLOBAL "__kcg" /* suffix: functor through pointer */
#define KC_CUDA_STAGING_SYMBOL "kc__cuda_staging"
#ifndef KC_CUDA_STAGING_BYTES
#define KC_CUDA_STAGING_BYTES 61440 /* 60 KiB of the 64 KiB constant bank */
#endif

#ifdef __cplusplus
}
#endif

#if !defined(KC_CUDA_ABI_ONLY)

#if !defined(__CUDACC__) && !defined(__CUDA__)
#error "kc/kernel_cuda.h is the device half of kc/kernel.h: compile it as CUDA"
#endif

/* The largest parameter block (kc_cuda_args + functor) an entry may take:
 * 32 764 bytes with CUDA >= 12.1 (sm_70+), 4 096 before.  A functor over
 * the limit gets a placeholder parameter (see above).  May be lowered with
 * -DKC_CUDA_MAX_PARAM_BYTES=n. */
#ifndef KC_CUDA_MAX_PARAM_BYTES
#if defined(__CUDACC_VER_MAJOR__) &&                                           \
    (__CUDACC_VER_MAJOR__ > 12 ||                                              \
     (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 1))
#define KC_CUDA_MAX_PARAM_BYTES 32764
#else
#define KC_CUDA_MAX_PARAM_BYTES 4096
#endif
#endif

#ifndef KC_CUDA_NO_STAGING
extern "C" {
__constant__ __align__(256) __attribute__((used)) unsigned char
    kc__cuda_staging[KC_CUDA_STAGING_BYTES];
}
#endif

/* Dynamic shared memory: 1-D reductions' and scans' blockDim.x values (of
 * which they use 2 per warp); a team's level-0 scratch. */
extern __shared__ __align__(16) unsigned char kc__cuda_smem[];

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
#define KC__PARAM_TYPE(F)                                                      \
  kc__pbox<F, (sizeof(F) + sizeof(kc_cuda_args) <= KC_CUDA_MAX_PARAM_BYTES)>::type

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
template <class V> __device__ __forceinline__ void kc__store_result(V *d, const V &v) {
  *d = v;
}
template <class L> __device__ __forceinline__ void kc__store_loc32(L *d, const L &v) {
  unsigned int *w = (unsigned int *)d;
  memcpy(&w[0], &v.val, 4);
  w[1] = 0;
  *(long long *)&w[2] = v.loc;
}
__device__ __forceinline__ void kc__store_result(kc_loc_int32 *d, const kc_loc_int32 &v) {
  kc__store_loc32(d, v);
}
__device__ __forceinline__ void kc__store_result(kc_loc_float *d, const kc_loc_float &v) {
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
struct kc__op_sum : kc__op_builtin {
  template <class V> static __device__ __forceinline__ void join(V *d, const V *s) {
    *d += *s;
  }
};
struct kc__op_prod : kc__op_builtin {
  template <class V> static __device__ __forceinline__ void join(V *d, const V *s) {
    *d *= *s;
  }
};
struct kc__op_min : kc__op_builtin {
  template <class V> static __device__ __forceinline__ void join(V *d, const V *s) {
    if (*s < *d)
      *d = *s;
  }
};
struct kc__op_max : kc__op_builtin {
  template <class V> static __device__ __forceinline__ void join(V *d, const V *s) {
    if (*s > *d)
      *d = *s;
  }
};
struct kc__op_minloc : kc__op_builtin {
  template <class V> static __device__ __forceinline__ void join(V *d, const V *s) {
    if (s->val < d->val || (s->val == d->val && s->loc < d->loc))
      *d = *s;
  }
};
struct kc__op_maxloc : kc__op_builtin {
  template <class V> static __device__ __forceinline__ void join(V *d, const V *s) {
    if (s->val > d->val || (s->val == d->val && s->loc < d->loc))
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
template <class V, class Op> __device__ __forceinline__ V kc__warp_join(V v) {
  const unsigned lane = kc__tid() & 31u, wn = kc__warp_lanes();
  const unsigned mask = kc__warp_mask();
  /* All five steps, unrolled: in a partial warp the extra ones join
   * nothing. */
#pragma unroll
  for (unsigned off = 1; off < 32; off <<= 1) {
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
  if (threadIdx.x == 0)
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
__device__ void kc__partials_exscan(V *vals, unsigned n, const kc_cuda_args &a) {
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
__device__ __forceinline__ void kc__run_k(const F *f, kc_index lo,
                                          kc_index end, V &acc) {
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
      for (kc_index i = a.begin + (kc_index)blockIdx.x * blockDim.x +
                        threadIdx.x;
           i < a.end; i += stride)
        B::run(f, i, acc);
      acc = kc__warp_join<V, Op>(acc);
    } else {
      /* A custom join need only be associative: block b takes the chunk
       * [begin + b*chunk, +chunk), walked in index order. */
      kc_index cb, ce;
      kc__block_chunk(a, &cb, &ce);
      acc = kc__ordered_total<V, Op, B>(a, f, cb, ce);
    }
    acc = kc__warps_join<V, Op>(acc, slots);
    if (threadIdx.x == 0)
      ((V *)a.partials)[blockIdx.x] = acc;
    if (!kc__last_block(a.counter))
      return;
    /* The last block: combine the partials in block order (each thread a
     * contiguous part, then the threads in order). */
    const unsigned n = gridDim.x, t = threadIdx.x;
    const unsigned per = (n + blockDim.x - 1) / blockDim.x;
    const unsigned lo = min(n, t * per), hi = min(n, lo + per);
    Op::ident(&acc, a);
    for (unsigned k = lo; k < hi; k++) {
      V v = kc__load_cg(&((const V *)a.partials)[k]);
      Op::join(&acc, &v);
    }
    acc = kc__warp_join<V, Op>(acc);
    acc = kc__warps_join<V, Op>(acc, slots);
    if (t == 0) {
      if (a.result)
        kc__store_result((V *)a.result, acc);
      *a.counter = 0;
    }
  }
  KC__DEV void param(const kc_cuda_args &a, const F &f) { run(a, &f); }
  KC__DEV void param(const kc_cuda_args &, const kc__nopar &) { __trap(); }
};

/* A scan body with final = 0 / 1, called as R::run(f, i, acc). */
template <class B> struct kc__scan_total {
  template <class F, class V>
  KC__DEV void run(const F *f, kc_index i, V &acc) {
    B::run(f, i, acc, 0);
  }
};
template <class B> struct kc__scan_final {
  template <class F, class V>
  KC__DEV void run(const F *f, kc_index i, V &acc) {
    B::run(f, i, acc, 1);
  }
};

template <class F, class V, class Op, class B> struct kc__scan_drv {
  KC__DEV void run(const kc_cuda_args &a, const F *f) {
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
        acc = kc__ordered_total<V, Op, kc__scan_total<B> >(a, f, cb, ce);
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
      kc__run_k<kc__scan_total<B> >(f, lo, ce, v);
      V acc = kc__block_scan_step<V, Op>(v, &carry, slots + half);
      kc__run_k<kc__scan_final<B> >(f, lo, ce, acc);
    }
  }
  KC__DEV void param(const kc_cuda_args &a, const F &f) { run(a, &f); }
  KC__DEV void param(const kc_cuda_args &, const kc__nopar &) { __trap(); }
};

/* The two entries of a kernel, over a driver type D for functor type F. */
#define KC__CUDA_ENTRIES(name, ftype, D)                                       \
  extern "C" __global__ void name##__kcp(kc_cuda_args kc__a,                   \
                                         KC__PARAM_TYPE(ftype) kc__f) {        \
    D::param(kc__a, kc__f);                                                    \
  }                                                                            \
  extern "C" __global__ void name##__kcg(kc_cuda_args kc__a,                   \
                                         const ftype *__restrict__ kc__f) {    \
    D::run(kc__a, kc__f);                                                      \
  }

/* ----------------------------------------------------- the macro surface */

#define KC_FOR(name, ftype, f, i, ...)                                         \
  struct name##__kcb {                                                         \
    KC__DEV void run(const ftype *f, kc_index i) {                             \
      do {                                                                     \
        __VA_ARGS__;                                                           \
      } while (0);                                                             \
    }                                                                          \
  };                                                                           \
  typedef kc__for_drv<ftype, name##__kcb> name##__kcd;                        \
  KC__CUDA_ENTRIES(name, ftype, name##__kcd)

#define KC__REDUCE(name, ftype, f, i, V, Op, acc, ...)                         \
  struct name##__kcb {                                                         \
    KC__DEV void run(const ftype *f, kc_index i, V &acc) {                     \
      do {                                                                     \
        __VA_ARGS__;                                                           \
      } while (0);                                                             \
    }                                                                          \
  };                                                                           \
  typedef kc__reduce_drv<ftype, V, Op, name##__kcb> name##__kcd;             \
  KC__CUDA_ENTRIES(name, ftype, name##__kcd)

#define KC_REDUCE_SUM(name, ftype, f, i, vtype, acc, ...)                      \
  KC__REDUCE(name, ftype, f, i, vtype, kc__op_sum, acc, __VA_ARGS__)
#define KC_REDUCE_PROD(name, ftype, f, i, vtype, acc, ...)                     \
  KC__REDUCE(name, ftype, f, i, vtype, kc__op_prod, acc, __VA_ARGS__)
#define KC_REDUCE_MIN(name, ftype, f, i, vtype, acc, ...)                      \
  KC__REDUCE(name, ftype, f, i, vtype, kc__op_min, acc, __VA_ARGS__)
#define KC_REDUCE_MAX(name, ftype, f, i, vtype, acc, ...)                      \
  KC__REDUCE(name, ftype, f, i, vtype, kc__op_max, acc, __VA_ARGS__)
#define KC_REDUCE_MINLOC(name, ftype, f, i, vtype, acc, ...)                   \
  KC__REDUCE(name, ftype, f, i, kc__loc_of<vtype>::type, kc__op_minloc, acc,  \
             __VA_ARGS__)
#define KC_REDUCE_MAXLOC(name, ftype, f, i, vtype, acc, ...)                   \
  KC__REDUCE(name, ftype, f, i, kc__loc_of<vtype>::type, kc__op_maxloc, acc,  \
             __VA_ARGS__)

/* Custom reducers: the user's two functions, device versions.  The body
 * follows the macro. */
#define KC_REDUCER_IDENTITY(rname, vtype, v)                                   \
  KC__DEV void rname##__kcident(vtype *v)
#define KC_REDUCER_JOIN(rname, vtype, dst, src)                                \
  KC__DEV void rname##__kcjoin(vtype *dst, const vtype *src)

#define KC__CUSTOM_OP(name, rname, vtype)                                      \
  struct name##__kcop {                                                        \
    static const bool ordered = true;                                          \
    KC__DEV void ident(vtype *v, const kc_cuda_args &) { rname##__kcident(v); }\
    KC__DEV void join(vtype *d, const vtype *s) { rname##__kcjoin(d, s); }     \
  };

#define KC_REDUCE_CUSTOM(name, ftype, f, i, rname, vtype, acc, ...)            \
  KC__CUSTOM_OP(name, rname, vtype)                                            \
  KC__REDUCE(name, ftype, f, i, vtype, name##__kcop, acc, __VA_ARGS__)

#define KC__SCAN(name, ftype, f, i, V, Op, acc, final, ...)                    \
  struct name##__kcb {                                                         \
    KC__DEV void run(const ftype *f, kc_index i, V &acc, const int final) {    \
      do {                                                                     \
        __VA_ARGS__;                                                           \
      } while (0);                                                             \
    }                                                                          \
  };                                                                           \
  typedef kc__scan_drv<ftype, V, Op, name##__kcb> name##__kcd;               \
  KC__CUDA_ENTRIES(name, ftype, name##__kcd)

#define KC_SCAN(name, ftype, f, i, vtype, acc, final, ...)                     \
  KC__SCAN(name, ftype, f, i, vtype, kc__op_sum, acc, final, __VA_ARGS__)
#define KC_SCAN_CUSTOM(name, ftype, f, i, rname, vtype, acc, final, ...)       \
  KC__CUSTOM_OP(name, rname, vtype)                                            \
  KC__SCAN(name, ftype, f, i, vtype, name##__kcop, acc, final, __VA_ARGS__)

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
  V *slots = (V *)raw;
  const unsigned tid = kc__tid(), nt = kc__nthreads();
  const unsigned lane = tid & 31u, warp = tid >> 5;
  const unsigned wn = min(32u, nt - (warp << 5)), mask = kc__warp_mask();
  for (unsigned off = stride; off < wn; off <<= 1) {
    V o = kc__shfl_down(v, off, mask, 32);
    if ((lane & (2 * off - 1)) == 0 && lane + off < wn)
      Op::join(&v, &o);
  }
  if (lane == 0)
    slots[warp] = v;
  __syncthreads();
  const unsigned nw = (nt + 31) >> 5;
  V r = slots[0];
  for (unsigned k = 1; k < nw; k++)
    Op::join(&r, &slots[k]);
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
template <class V> __device__ __forceinline__ V kc__vector_exscan(V v, V *total) {
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

/* The end of every MD / team reduction: block b's value (in every thread)
 * goes to a.partials[b]; the last block to finish joins the partials in
 * block order and stores the result. */
template <class V, class Op>
__device__ __forceinline__ void kc__reduce_finish(const kc_cuda_args &a, V v) {
  __shared__ bool last;
  const unsigned tid = kc__tid(), nt = kc__nthreads();
  if (tid == 0)
    ((V *)a.partials)[blockIdx.x] = v;
  __threadfence();
  __syncthreads();
  if (tid == 0)
    last = atomicAdd(a.counter, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last)
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
      kc__store_result((V *)a.result, acc);
    *a.counter = 0;
  }
}

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

/* Runs fn(ix) for this thread's points of tile t (see kc_cuda_md_args). */
template <int R, class Fn>
__device__ __forceinline__ void kc__md_tile(const kc_cuda_md_args &m,
                                            kc_index t, Fn &fn) {
  kc_index lo[R], hi[R];
  unsigned tt = (unsigned)t;
#pragma unroll
  for (int d = R - 1; d >= 0; d--) {
    unsigned c = tt;
    if (d > 0) {
      const unsigned nd = (unsigned)m.ntiles[d], q = tt / nd;
      c = tt - q * nd;
      tt = q;
    }
    lo[d] = m.begin[d] + (kc_index)c * m.tile[d];
    hi[d] = min(lo[d] + m.tile[d], m.end[d]);
  }
  kc_index ix[R];
  for (unsigned y = threadIdx.y; y < m.tile_rest; y += blockDim.y) {
    unsigned r = y;
    bool in = true;
#pragma unroll
    for (int d = R - 2; d >= 0; d--) {
      unsigned c = r;
      if (d > 0) {
        const unsigned td = (unsigned)m.tile[d], q = r / td;
        c = r - q * td;
        r = q;
      }
      ix[d] = lo[d] + c;
      in = in && ix[d] < hi[d];
    }
    if (!in)
      continue;
    for (kc_index x = lo[R - 1] + threadIdx.x; x < hi[R - 1]; x += blockDim.x) {
      ix[R - 1] = x;
      fn(ix);
    }
  }
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

/* Entries of MD and team kernels: as KC__CUDA_ENTRIES with their own
 * first parameter. */
#define KC__PARAM_TYPE_A(F, A)                                                 \
  kc__pbox<F, (sizeof(F) + sizeof(A) <= KC_CUDA_MAX_PARAM_BYTES)>::type
#define KC__CUDA_ENTRIES_A(name, ftype, D, A)                                  \
  extern "C" __global__ void name##__kcp(A kc__a,                              \
                                         KC__PARAM_TYPE_A(ftype, A) kc__f) {   \
    D::param(kc__a, kc__f);                                                    \
  }                                                                            \
  extern "C" __global__ void name##__kcg(A kc__a,                              \
                                         const ftype *__restrict__ kc__f) {    \
    D::run(kc__a, kc__f);                                                      \
  }

#define KC_MDFOR(name, ftype, f, idx, ...)                                     \
  struct name##__kcb {                                                         \
    KC__DEV void run(const ftype *f, KC__MD_PARAMS idx) {                      \
      do {                                                                     \
        __VA_ARGS__;                                                           \
      } while (0);                                                             \
    }                                                                          \
  };                                                                           \
  typedef kc__mdfor_drv<ftype, KC__MD_RANK idx, name##__kcb> name##__kcd;     \
  KC__CUDA_ENTRIES_A(name, ftype, name##__kcd, kc_cuda_md_args)

#define KC__MDREDUCE(name, ftype, f, idx, V, Op, acc, ...)                     \
  struct name##__kcb {                                                         \
    KC__DEV void run(const ftype *f, KC__MD_PARAMS idx, V &acc) {              \
      do {                                                                     \
        __VA_ARGS__;                                                           \
      } while (0);                                                             \
    }                                                                          \
  };                                                                           \
  typedef kc__mdreduce_drv<ftype, KC__MD_RANK idx, V, Op, name##__kcb>        \
      name##__kcd;                                                             \
  KC__CUDA_ENTRIES_A(name, ftype, name##__kcd, kc_cuda_md_args)

#define KC_MDREDUCE_SUM(name, ftype, f, idx, vtype, acc, ...)                  \
  KC__MDREDUCE(name, ftype, f, idx, vtype, kc__op_sum, acc, __VA_ARGS__)
#define KC_MDREDUCE_PROD(name, ftype, f, idx, vtype, acc, ...)                 \
  KC__MDREDUCE(name, ftype, f, idx, vtype, kc__op_prod, acc, __VA_ARGS__)
#define KC_MDREDUCE_MIN(name, ftype, f, idx, vtype, acc, ...)                  \
  KC__MDREDUCE(name, ftype, f, idx, vtype, kc__op_min, acc, __VA_ARGS__)
#define KC_MDREDUCE_MAX(name, ftype, f, idx, vtype, acc, ...)                  \
  KC__MDREDUCE(name, ftype, f, idx, vtype, kc__op_max, acc, __VA_ARGS__)
#define KC_MDREDUCE_CUSTOM(name, ftype, f, idx, rname, vtype, acc, ...)        \
  KC__CUSTOM_OP(name, rname, vtype)                                            \
  KC__MDREDUCE(name, ftype, f, idx, vtype, name##__kcop, acc, __VA_ARGS__)

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
  KC__DEV void param(const kc_cuda_team_args &, const kc__nopar &) {
    __trap();
  }
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
  KC__DEV void param(const kc_cuda_team_args &, const kc__nopar &) {
    __trap();
  }
};

#define KC_TEAM(name, ftype, f, team, ...)                                     \
  struct name##__kcb {                                                         \
    KC__DEV void run(const ftype *f, kc_team *team) {                          \
      (void)team;                                                              \
      do {                                                                     \
        __VA_ARGS__;                                                           \
      } while (0);                                                             \
    }                                                                          \
  };                                                                           \
  typedef kc__team_drv<ftype, name##__kcb> name##__kcd;                       \
  KC__CUDA_ENTRIES_A(name, ftype, name##__kcd, kc_cuda_team_args)

#define KC__TEAM_REDUCE(name, ftype, f, team, V, Op, acc, ...)                 \
  struct name##__kcb {                                                         \
    KC__DEV void run(const ftype *f, kc_team *team, V &acc) {                  \
      (void)team;                                                              \
      do {                                                                     \
        __VA_ARGS__;                                                           \
      } while (0);                                                             \
    }                                                                          \
  };                                                                           \
  typedef kc__team_reduce_drv<ftype, V, Op, name##__kcb> name##__kcd;        \
  KC__CUDA_ENTRIES_A(name, ftype, name##__kcd, kc_cuda_team_args)

#define KC_TEAM_REDUCE_SUM(name, ftype, f, team, vtype, acc, ...)              \
  KC__TEAM_REDUCE(name, ftype, f, team, vtype, kc__op_sum, acc, __VA_ARGS__)
#define KC_TEAM_REDUCE_PROD(name, ftype, f, team, vtype, acc, ...)             \
  KC__TEAM_REDUCE(name, ftype, f, team, vtype, kc__op_prod, acc, __VA_ARGS__)
#define KC_TEAM_REDUCE_MIN(name, ftype, f, team, vtype, acc, ...)              \
  KC__TEAM_REDUCE(name, ftype, f, team, vtype, kc__op_min, acc, __VA_ARGS__)
#define KC_TEAM_REDUCE_MAX(name, ftype, f, team, vtype, acc, ...)              \
  KC__TEAM_REDUCE(name, ftype, f, team, vtype, kc__op_max, acc, __VA_ARGS__)
#define KC_TEAM_REDUCE_CUSTOM(name, ftype, f, team, rname, vtype, acc, ...)    \
  KC__CUSTOM_OP(name, rname, vtype)                                            \
  KC__TEAM_REDUCE(name, ftype, f, team, vtype, name##__kcop, acc, __VA_ARGS__)

/* The team's scratch function is host code: parsed here, never compiled
 * to PTX. */
#define KC_TEAM_SCRATCH_SIZE(name, ftype, f, level, team_size)                 \
  static inline __attribute__((unused)) size_t kc__scratch_fn_##name(          \
      const ftype *f, int level, int team_size)

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
  static __device__ __forceinline__ float lo() { return -__int_as_float(0x7f800000); }
  static __device__ __forceinline__ float hi() { return __int_as_float(0x7f800000); }
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
  template <class V> static __device__ __forceinline__ V ident() { return (V)0; }
  template <class V> static __device__ __forceinline__ void join(V *d, const V *s) {
    *d += *s;
  }
};
struct kc__nop_PROD {
  template <class V> static __device__ __forceinline__ V ident() { return (V)1; }
  template <class V> static __device__ __forceinline__ void join(V *d, const V *s) {
    *d *= *s;
  }
};
struct kc__nop_MIN {
  template <class V> static __device__ __forceinline__ V ident() {
    return kc__lim<V>::hi();
  }
  template <class V> static __device__ __forceinline__ void join(V *d, const V *s) {
    if (*s < *d)
      *d = *s;
  }
};
struct kc__nop_MAX {
  template <class V> static __device__ __forceinline__ V ident() {
    return kc__lim<V>::lo();
  }
  template <class V> static __device__ __forceinline__ void join(V *d, const V *s) {
    if (*s > *d)
      *d = *s;
  }
};
/* A nested custom reducer, from the functions KC_REDUCER_IDENTITY and
 * KC_REDUCER_JOIN define. */
template <class V, void (*I)(V *), void (*J)(V *, const V *)> struct kc__nop_fn {
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

#define KC_TEAM_THREAD_FOR(team, i, begin, end, ...)                           \
  do {                                                                         \
    (void)(team);                                                              \
    const kc_index kc__ttf_e = (end);                                          \
    for (kc_index i = (begin) + (kc_index)threadIdx.y; i < kc__ttf_e;          \
         i += blockDim.y) {                                                    \
      do {                                                                     \
        __VA_ARGS__;                                                           \
      } while (0);                                                             \
    }                                                                          \
  } while (0)

#define KC_THREAD_VECTOR_FOR(team, i, begin, end, ...)                         \
  do {                                                                         \
    (void)(team);                                                              \
    const kc_index kc__tvf_e = (end);                                          \
    for (kc_index i = (begin) + (kc_index)threadIdx.x; i < kc__tvf_e;          \
         i += blockDim.x) {                                                    \
      do {                                                                     \
        __VA_ARGS__;                                                           \
      } while (0);                                                             \
    }                                                                          \
  } while (0)

#define KC_TEAM_VECTOR_FOR(team, i, begin, end, ...)                           \
  do {                                                                         \
    (void)(team);                                                              \
    const kc_index kc__tmf_e = (end);                                          \
    for (kc_index i = (begin) + (kc_index)kc__tid(); i < kc__tmf_e;            \
         i += kc__nthreads()) {                                                \
      do {                                                                     \
        __VA_ARGS__;                                                           \
      } while (0);                                                             \
    }                                                                          \
  } while (0)

/* Built-in nested reductions: indices strided over the threads (lanes),
 * then one join of the threads (lanes). */
#define KC__NESTED_REDUCE(first, step, JOIN, team, i, begin, end, Op, vtype,   \
                          acc, result, ...)                                    \
  do {                                                                         \
    (void)(team);                                                              \
    vtype acc = Op::template ident<vtype>();                                   \
    const kc_index kc__nr_e = (end);                                           \
    for (kc_index i = (begin) + (kc_index)(first); i < kc__nr_e;               \
         i += (step)) {                                                        \
      do {                                                                     \
        __VA_ARGS__;                                                           \
      } while (0);                                                             \
    }                                                                          \
    result = JOIN;                                                             \
  } while (0)

#define KC_TEAM_THREAD_REDUCE(team, i, begin, end, OP, vtype, acc, result,     \
                              ...)                                             \
  KC__NESTED_REDUCE(threadIdx.y, blockDim.y,                                   \
                    (kc__block_join<vtype, kc__nop_##OP>(acc, blockDim.x)),    \
                    team, i, begin, end, kc__nop_##OP, vtype, acc, result,     \
                    __VA_ARGS__)
#define KC_THREAD_VECTOR_REDUCE(team, i, begin, end, OP, vtype, acc, result,   \
                                ...)                                           \
  KC__NESTED_REDUCE(threadIdx.x, blockDim.x,                                   \
                    (kc__vector_join<vtype, kc__nop_##OP>(acc)), team, i,      \
                    begin, end, kc__nop_##OP, vtype, acc, result, __VA_ARGS__)
#define KC_TEAM_VECTOR_REDUCE(team, i, begin, end, OP, vtype, acc, result,     \
                              ...)                                             \
  KC__NESTED_REDUCE(kc__tid(), kc__nthreads(),                                 \
                    (kc__block_join<vtype, kc__nop_##OP>(acc, 1)), team, i,    \
                    begin, end, kc__nop_##OP, vtype, acc, result, __VA_ARGS__)

/* Custom nested reductions: contiguous parts per thread (lane), joined in
 * index order. */
#define KC__NESTED_REDUCE_CUSTOM(k, parts, JOIN, team, i, begin, end, Op,      \
                                 vtype, acc, result, ...)                      \
  do {                                                                         \
    (void)(team);                                                              \
    vtype acc = Op::ident();                                                   \
    kc_index kc__nc_lo, kc__nc_hi;                                             \
    kc__part((begin), (end), (k), (parts), &kc__nc_lo, &kc__nc_hi);            \
    for (kc_index i = kc__nc_lo; i < kc__nc_hi; i++) {                         \
      do {                                                                     \
        __VA_ARGS__;                                                           \
      } while (0);                                                             \
    }                                                                          \
    result = JOIN;                                                             \
  } while (0)

#define KC_TEAM_THREAD_REDUCE_CUSTOM(team, i, begin, end, rname, vtype, acc,   \
                                     result, ...)                              \
  KC__NESTED_REDUCE_CUSTOM(                                                    \
      threadIdx.y, blockDim.y,                                                 \
      (kc__block_join<vtype, KC__NOP_CUSTOM(rname, vtype)>(acc, blockDim.x)),  \
      team, i, begin, end, KC__NOP_CUSTOM(rname, vtype), vtype, acc, result,   \
      __VA_ARGS__)
#define KC_THREAD_VECTOR_REDUCE_CUSTOM(team, i, begin, end, rname, vtype, acc, \
                                       result, ...)                            \
  KC__NESTED_REDUCE_CUSTOM(                                                    \
      threadIdx.x, blockDim.x,                                                 \
      (kc__vector_join<vtype, KC__NOP_CUSTOM(rname, vtype)>(acc)), team, i,    \
      begin, end, KC__NOP_CUSTOM(rname, vtype), vtype, acc, result,            \
      __VA_ARGS__)

/* Nested scans: contiguous parts per thread (lane); the body runs over the
 * part with final = 0 to total it, then again with final = 1 and acc
 * holding the sum before the part. */
#define KC__NESTED_SCAN(k, parts, SCAN, team, i, begin, end, vtype, acc,       \
                        final, total, ...)                                     \
  do {                                                                         \
    (void)(team);                                                              \
    kc_index kc__ns_lo, kc__ns_hi;                                             \
    kc__part((begin), (end), (k), (parts), &kc__ns_lo, &kc__ns_hi);            \
    vtype acc = (vtype)0;                                                      \
    {                                                                          \
      const int final = 0;                                                     \
      (void)final;                                                             \
      for (kc_index i = kc__ns_lo; i < kc__ns_hi; i++) {                       \
        do {                                                                   \
          __VA_ARGS__;                                                         \
        } while (0);                                                           \
      }                                                                        \
    }                                                                          \
    vtype kc__ns_total;                                                        \
    acc = SCAN;                                                                \
    {                                                                          \
      const int final = 1;                                                     \
      (void)final;                                                             \
      for (kc_index i = kc__ns_lo; i < kc__ns_hi; i++) {                       \
        do {                                                                   \
          __VA_ARGS__;                                                         \
        } while (0);                                                           \
      }                                                                        \
    }                                                                          \
    total = kc__ns_total;                                                      \
  } while (0)

#define KC_TEAM_THREAD_SCAN(team, i, begin, end, vtype, acc, final, total,     \
                            ...)                                               \
  KC__NESTED_SCAN(threadIdx.y, blockDim.y,                                     \
                  (kc__block_exscan<vtype>(acc, blockDim.x, &kc__ns_total)),   \
                  team, i, begin, end, vtype, acc, final, total, __VA_ARGS__)
#define KC_THREAD_VECTOR_SCAN(team, i, begin, end, vtype, acc, final, total,   \
                              ...)                                             \
  KC__NESTED_SCAN(threadIdx.x, blockDim.x,                                     \
                  (kc__vector_exscan<vtype>(acc, &kc__ns_total)), team, i,     \
                  begin, end, vtype, acc, final, total, __VA_ARGS__)

#define KC_TEAM_SINGLE(team, ...)                                              \
  do {                                                                         \
    (void)(team);                                                              \
    if (threadIdx.x == 0 && threadIdx.y == 0) {                                \
      do {                                                                     \
        __VA_ARGS__;                                                           \
      } while (0);                                                             \
    }                                                                          \
  } while (0)

#define KC_THREAD_SINGLE(team, ...)                                            \
  do {                                                                         \
    (void)(team);                                                              \
    if (threadIdx.x == 0) {                                                    \
      do {                                                                     \
        __VA_ARGS__;                                                           \
      } while (0);                                                             \
    }                                                                          \
  } while (0)

/* The value goes through static shared memory of the block. */
#define KC_TEAM_BROADCAST(team, vtype, var, ...)                               \
  do {                                                                         \
    (void)(team);                                                              \
    static_assert(sizeof(vtype) <= 64,                                         \
                  "KC_TEAM_BROADCAST: at most 64 bytes");                      \
    __shared__ __align__(16) unsigned char kc__bc[sizeof(vtype)];              \
    if (threadIdx.x == 0 && threadIdx.y == 0) {                                \
      do {                                                                     \
        __VA_ARGS__;                                                           \
      } while (0);                                                             \
      memcpy(kc__bc, &(var), sizeof(vtype));                                   \
    }                                                                          \
    __syncthreads();                                                           \
    memcpy(&(var), kc__bc, sizeof(vtype));                                     \
    __syncthreads();                                                           \
  } while (0)

/* ------------------------------------------------------- chunk buffers */

/* One index per thread: the chunk is [i, i + 1), a chunk buffer one
 * element in a register. */
#define KC_FOR_CHUNKS(name, ftype, f, b, e, ...)                               \
  struct name##__kcb {                                                         \
    KC__DEV void run(const ftype *f, kc_index kc__i) {                         \
      const kc_index b = kc__i, e = kc__i + 1;                                 \
      (void)b;                                                                 \
      (void)e;                                                                 \
      do {                                                                     \
        __VA_ARGS__;                                                           \
      } while (0);                                                             \
    }                                                                          \
  };                                                                           \
  typedef kc__for_drv<ftype, name##__kcb> name##__kcd;                        \
  KC__CUDA_ENTRIES(name, ftype, name##__kcd)

#define KC_CHUNK_BUFFER(type, name)                                            \
  type name##__kcbuf[1];                                                       \
  type *const name = name##__kcbuf

/* kernel.h: this expansion has every macro of the model. */
#define KC_CUDA_HAS_MODEL 1

/* Host-side names: registration happens in the host object (kernel_host.h);
 * in the device compilation these only have to parse. */
#define KC_KERNEL_DECLARE(name) struct kc__kdecl_##name
#define KC_KERNEL(name) ((kc_kernel *)0)

#endif /* !KC_CUDA_ABI_ONLY */

#endif /* KC_KERNEL_CUDA_H */
