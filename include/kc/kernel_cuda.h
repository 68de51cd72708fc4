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
 *   - each entry loops grid-stride over [a.begin, a.end).
 *
 * Reductions: each thread accumulates into a private `acc` (initialised to
 * the reducer's identity) over its indices (grid-stride for the built-in
 * reducers, whose joins commute; for a custom reducer, which need only be
 * associative, a contiguous part of the block's chunk of a.chunk indices),
 * the block combines the threads' values in thread
 * order in dynamic shared memory (blockDim.x * sizeof(value) bytes), block 0
 * ... G-1 write their value to a.partials[blockIdx.x], and the last block to
 * finish (a.counter, a last-block-done counter the plugin keeps at 0 between
 * launches) combines the partials in block order and stores the result at
 * a.result (a device-accessible pointer: a kc allocation or the plugin's
 * mapped pinned slot).  Joins are applied in index order, so a custom
 * reducer needs only associativity, not commutativity.
 *
 * Scans (two launches of the same entry): a.pass = 0 runs the body with
 * final = 0 over each block's contiguous chunk [begin + b*chunk, +chunk)
 * (each thread a contiguous sub-range), stores the block's total in
 * a.partials[b]; the last block turns a.partials into an exclusive scan in
 * place and stores the grand total at a.result (if not NULL).  a.pass = 1
 * re-runs each chunk: per-thread totals (final = 0), an exclusive scan of
 * them across the block, then the body again with final = 1 and acc holding
 * the prefix before the index.  The plugin launches both passes with the
 * same grid, block and a.chunk.
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

#define KC_CUDA_ABI_VERSION 1
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

/* Dynamic shared memory of reductions and scans (blockDim.x values). */
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

/* Combines s[0 .. n) (one value per thread, n <= blockDim.x) in index
 * order into s[0].  Adjacent pairs, so the join needs no commutativity. */
template <class V, class Op>
__device__ __forceinline__ void kc__block_reduce(V *s, unsigned n) {
  for (unsigned w = 1; w < n; w <<= 1) {
    unsigned t = 2 * w * threadIdx.x;
    if (t + w < n)
      Op::join(&s[t], &s[t + w]);
    __syncthreads();
  }
}

/* Exclusive scan of s[0 .. blockDim.x) in place (Hillis-Steele, left
 * operand first); returns the block's total to every thread. */
template <class V, class Op>
__device__ __forceinline__ V kc__block_exscan(V *s, const kc_cuda_args &a) {
  const unsigned t = threadIdx.x, n = blockDim.x;
  for (unsigned w = 1; w < n; w <<= 1) {
    V v = s[t];
    if (t >= w) {
      V l = s[t - w];
      Op::join(&l, &v);
      v = l;
    }
    __syncthreads();
    s[t] = v;
    __syncthreads();
  }
  V total = s[n - 1];
  V ex;
  if (t == 0)
    Op::ident(&ex, a);
  else
    ex = s[t - 1];
  __syncthreads();
  s[t] = ex;
  __syncthreads();
  return total;
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

/* Block-level sequential scan of vals[0 .. n) in place (exclusive), in index
 * order, by the whole block: thread t owns a contiguous sub-range.  Returns
 * the total.  Used by the last block on the partials. */
template <class V, class Op>
__device__ void kc__partials_exscan(V *vals, unsigned n, const kc_cuda_args &a) {
  V *s = (V *)kc__cuda_smem;
  const unsigned t = threadIdx.x, per = (n + blockDim.x - 1) / blockDim.x;
  const unsigned lo = min(n, t * per), hi = min(n, lo + per);
  V acc;
  Op::ident(&acc, a);
  for (unsigned k = lo; k < hi; k++) {
    V v = kc__load_cg(&vals[k]);
    Op::join(&acc, &v);
  }
  s[t] = acc;
  __syncthreads();
  V total = kc__block_exscan<V, Op>(s, a);
  acc = s[t];
  for (unsigned k = lo; k < hi; k++) {
    V v = kc__load_cg(&vals[k]);
    vals[k] = acc;
    Op::join(&acc, &v);
  }
  if (t == 0 && a.result)
    kc__store_result((V *)a.result, total);
}

/* ------------------------------------------------------------- drivers */

/* This thread's contiguous part [*lo, *hi) of its block's chunk
 * [begin + blockIdx.x * chunk, +chunk) (ordered reductions, scans). */
__device__ __forceinline__ void kc__thread_range(const kc_cuda_args &a,
                                                 kc_index *lo, kc_index *hi) {
  const kc_index cb = a.begin + (kc_index)blockIdx.x * a.chunk;
  const kc_index ce = cb + a.chunk < a.end ? cb + a.chunk : a.end;
  const kc_index per = (a.chunk + blockDim.x - 1) / blockDim.x;
  kc_index l = cb + (kc_index)threadIdx.x * per, h = l + per;
  *lo = l < ce ? l : ce;
  *hi = h < ce ? h : ce;
}

#define KC__DEV static __device__ __forceinline__

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
    V *s = (V *)kc__cuda_smem;
    V acc;
    Op::ident(&acc, a);
    if (!Op::ordered) {
      /* Built-in joins are commutative (MINLOC/MAXLOC break ties by index),
       * so threads may cover interleaved indices: coalesced loads. */
      const kc_index stride = (kc_index)blockDim.x * gridDim.x;
      for (kc_index i = a.begin + (kc_index)blockIdx.x * blockDim.x +
                        threadIdx.x;
           i < a.end; i += stride)
        B::run(f, i, acc);
    } else {
      /* A custom join need only be associative: block b takes the chunk
       * [begin + b*chunk, +chunk), thread t a contiguous part of it, and
       * every join below combines neighbours left to right. */
      kc_index lo, hi;
      kc__thread_range(a, &lo, &hi);
      for (kc_index i = lo; i < hi; i++)
        B::run(f, i, acc);
    }
    s[threadIdx.x] = acc;
    __syncthreads();
    kc__block_reduce<V, Op>(s, blockDim.x);
    if (threadIdx.x == 0)
      ((V *)a.partials)[blockIdx.x] = s[0];
    if (!kc__last_block(a.counter))
      return;
    /* The last block: combine the partials in block order. */
    const unsigned n = gridDim.x, t = threadIdx.x;
    const unsigned per = (n + blockDim.x - 1) / blockDim.x;
    const unsigned lo = min(n, t * per), hi = min(n, lo + per);
    Op::ident(&acc, a);
    for (unsigned k = lo; k < hi; k++) {
      V v = kc__load_cg(&((const V *)a.partials)[k]);
      Op::join(&acc, &v);
    }
    s[t] = acc;
    __syncthreads();
    kc__block_reduce<V, Op>(s, blockDim.x);
    if (t == 0) {
      if (a.result)
        kc__store_result((V *)a.result, s[0]);
      *a.counter = 0;
    }
  }
  KC__DEV void param(const kc_cuda_args &a, const F &f) { run(a, &f); }
  KC__DEV void param(const kc_cuda_args &, const kc__nopar &) { __trap(); }
};

template <class F, class V, class Op, class B> struct kc__scan_drv {
  KC__DEV void run(const kc_cuda_args &a, const F *f) {
    V *s = (V *)kc__cuda_smem;
    const unsigned t = threadIdx.x;
    kc_index lo, hi;
    kc__thread_range(a, &lo, &hi);
    V acc;
    Op::ident(&acc, a);
    for (kc_index i = lo; i < hi; i++)
      B::run(f, i, acc, 0);
    s[t] = acc;
    __syncthreads();
    if (a.pass == 0) {
      kc__block_reduce<V, Op>(s, blockDim.x);
      if (t == 0)
        ((V *)a.partials)[blockIdx.x] = s[0];
      if (!kc__last_block(a.counter))
        return;
      kc__partials_exscan<V, Op>((V *)a.partials, gridDim.x, a);
      if (t == 0)
        *a.counter = 0;
      return;
    }
    kc__block_exscan<V, Op>(s, a);
    acc = ((const V *)a.partials)[blockIdx.x];
    Op::join(&acc, &s[t]);
    for (kc_index i = lo; i < hi; i++)
      B::run(f, i, acc, 1);
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

/* Host-side names: registration happens in the host object (kernel_host.h);
 * in the device compilation these only have to parse. */
#define KC_KERNEL_DECLARE(name) struct kc__kdecl_##name
#define KC_KERNEL(name) ((kc_kernel *)0)

#endif /* !KC_CUDA_ABI_ONLY */

#endif /* KC_KERNEL_CUDA_H */
