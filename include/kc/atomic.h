/* kc — atomic operations for kernel bodies (and host code).
 *
 * Included by <kc/kernel.h>; may also be included on its own.  Every
 * function exists for six types, named by a suffix:
 *
 *   suffix  i32      i64      u32       u64       f32    f64
 *   type    int32_t  int64_t  uint32_t  uint64_t  float  double
 *
 *   void kc_atomic_add_<s>(T *p, T v)        *p += v
 *   void kc_atomic_sub_<s>(T *p, T v)        *p -= v
 *   void kc_atomic_min_<s>(T *p, T v)        *p = min(*p, v)
 *   void kc_atomic_max_<s>(T *p, T v)        *p = max(*p, v)
 *   T kc_atomic_fetch_add_<s>(T *p, T v)     the same four, returning the
 *   T kc_atomic_fetch_sub_<s>(T *p, T v)     value *p held before
 *   T kc_atomic_fetch_min_<s>(T *p, T v)
 *   T kc_atomic_fetch_max_<s>(T *p, T v)
 *   T kc_atomic_exchange_<s>(T *p, T v)      stores v, returns the old value
 *   T kc_atomic_compare_exchange_<s>(T *p, T expected, T desired)
 *                                            stores desired if *p equals
 *                                            expected (floats: bitwise);
 *                                            returns the old value either way
 *   T kc_atomic_load_<s>(const T *p)
 *   void kc_atomic_store_<s>(T *p, T v)
 *
 * and the same names without the suffix (kc_atomic_add(p, v), ...), which
 * pick the function by the type of `p`: C11 _Generic in C, overloads in
 * C++/CUDA.  `p` must then be exactly one of the six pointer types (an
 * int64_t * is not a long long * on LP64 systems).
 *
 * Ordered forms, for every suffix (and without it, picked by the type of
 * `p` as below), with a kc_memory_order `o`:
 *
 *   T kc_atomic_load_explicit_<s>(const T *p, o)
 *   void kc_atomic_store_explicit_<s>(T *p, T v, o)
 *   T kc_atomic_exchange_explicit_<s>(T *p, T v, o)
 *   T kc_atomic_compare_exchange_explicit_<s>(T *p, T expected, T desired, o)
 *   T kc_atomic_fetch_add_explicit_<s>(T *p, T v, o)   and fetch_sub,
 *                                            fetch_min, fetch_max
 *   void kc_atomic_thread_fence(kc_memory_order o)
 *   void kc_memory_fence(void)               a seq_cst fence (as
 *                                            Kokkos::memory_fence)
 *
 * KC_MEMORY_ORDER_RELAXED, _ACQUIRE, _RELEASE, _ACQ_REL, _SEQ_CST mean
 * what C11's memory_order_* mean.  An order an operation cannot have is
 * strengthened, never refused: a load with release or acq_rel is an
 * acquire load, a store with acquire or acq_rel a release store; a
 * compare-exchange that fails is a load of `o` without its release half
 * (relaxed for release, acquire for acq_rel).  A fence with relaxed does
 * nothing.  Pass a constant: the functions are always inlined and the
 * order then costs nothing (a variable works, and unoptimised host builds
 * may treat every order as seq_cst).
 *
 * The pattern they exist for: plain data handed between indices of one
 * launch (a flag-based pipeline, a wavefront):
 *
 *   producer:  data[k] = x;  kc_atomic_store_explicit(&flag, 1, RELEASE);
 *   consumer:  while (kc_atomic_load_explicit(&flag, ACQUIRE) == 0) {}
 *              y = data[k];             (sees x)
 *
 * or the same with relaxed flag accesses after
 * kc_atomic_thread_fence(RELEASE) / before kc_atomic_thread_fence(ACQUIRE).
 * A waiting index must only wait for work that is certain to run: on the
 * host, for a lower index of the same thread's share (every host backend
 * starts a share's indices in increasing order, and the serial backend
 * runs them one after the other, so a wait for a higher index never ends
 * there), or for another thread's index only when kc_info's concurrency
 * equals num_threads (a backend with less runs the shares one after
 * another, in any order); on a GPU, for a thread that is resident at the
 * same time (blocks are not all resident when the grid is larger than the
 * device holds).  Bound such waits.
 *
 * Scope: on a GPU every ordered operation and fence is at device ("gpu")
 * scope: it orders the accesses of every thread of the kernel (all blocks)
 * in device memory, not accesses of the host or of other GPUs to managed
 * or pinned memory while the kernel runs (the end of a launch, kc_fence(),
 * orders those).  sm_70 and later: loads are ld.relaxed.gpu /
 * ld.acquire.gpu (seq_cst: fence.sc.gpu first), stores st.relaxed.gpu /
 * st.release.gpu (seq_cst: fence.sc.gpu, then st.relaxed.gpu),
 * read-modify-writes the relaxed atomic between fence.acq_rel.gpu (release
 * half before it, fence.sc.gpu for seq_cst; acquire half after it), fences
 * fence.acq_rel.gpu or fence.sc.gpu.  Older GPUs: volatile accesses and
 * __threadfence().  Host: the __atomic builtins with the matching order
 * (__atomic_thread_fence for the fences).  ThreadSanitizer sees the
 * ordered atomics' synchronisation but not standalone fences (gcc warns
 * about them under -fsanitize=thread): fence-based hand-offs are reported
 * as races there, order-based ones are not.
 *
 * Semantics, identical on every backend: each operation is atomic with
 * respect to every other kc atomic on the same object.  The forms without
 * _explicit are relaxed: they order nothing else (the end of a launch,
 * kc_fence() for asynchronous ones, makes every effect visible to the
 * host).  Unsigned arithmetic
 * wraps; signed overflow wraps too (two's complement, as the hardware
 * does it).  Float min/max compare with `<`/`>`: a NaN argument is never
 * stored, and -0.0 and 0.0 count as equal (the old value stays).  The
 * object must be naturally aligned; on a GPU it must be in device-visible
 * memory (not a host stack).
 *
 * Host: GCC/clang __atomic builtins (compare-and-swap loops for float
 * arithmetic and for min/max).  Device (__CUDA_ARCH__): the PTX atomics
 * (atomicAdd, atomicSub, atomicMin, atomicMax, atomicExch, atomicCAS) where
 * the hardware has the operation for the type, compare-and-swap loops
 * elsewhere (float/double min and max, double add before sm_60).
 *
 * Where the backends differ: a min/max that leaves *p unchanged is, on the
 * host and for floats on the device, only a load (with o's acquire half,
 * like a failed compare-exchange), while an integer min/max on the device
 * always writes: do not publish data through the release half of a
 * min/max that may change nothing.  A NaN already in *p stays there for
 * min/max (the built-in MIN/MAX reducers instead treat a NaN as missing).
 * compare_exchange returns the old value; for f32/f64 it compares bits,
 * so test its success by comparing bits (memcmp), never with ==: a NaN
 * never equals itself, and -0.0 equals 0.0.  A misaligned object is
 * undefined: loads and stores may tear, and nothing checks it.
 *
 * Thread safety: that is the point.  Not async-signal-safe guarantees
 * beyond those of the builtins.
 */
#ifndef KC_ATOMIC_H
#define KC_ATOMIC_H

#include <stdint.h>
#include <string.h>

/* Every name declared below outside a macro's parameter list is a kc__
 * name (the parameters of the functions too): the header is compiled
 * after the user's -D options and #defines, where a plain T or p could be
 * a macro (t-kcc-names.sh).  The comments leave the prefix out. */

#if defined(__CUDACC__)
#define KC__ATOMIC_FN static __host__ __device__ __forceinline__
#elif defined(__GNUC__)
#define KC__ATOMIC_FN                                                          \
  static inline __attribute__((__always_inline__, __unused__))
#else
#error "kc/atomic.h needs GCC-compatible __atomic builtins or CUDA"
#endif

/* The orders of the _explicit functions and of the fences, weakest first
 * (C11's memory_order without consume). */
typedef enum kc_memory_order {
  KC_MEMORY_ORDER_RELAXED = 0,
  KC_MEMORY_ORDER_ACQUIRE = 1,
  KC_MEMORY_ORDER_RELEASE = 2,
  KC_MEMORY_ORDER_ACQ_REL = 3,
  KC_MEMORY_ORDER_SEQ_CST = 4
} kc_memory_order;

/* An order outside the five above (C11's memory_order_seq_cst is 5)
 * counts as SEQ_CST, the strongest, on every path: the host's loads and
 * stores once took it for acquire/release and the device's
 * read-modify-writes for relaxed.  C11's other constants are in range but
 * mean other orders here (its memory_order_acquire, 2, is kc's RELEASE):
 * pass kc's own. */
#define KC__MO(o)                                                              \
  ((unsigned)(o) <= (unsigned)KC_MEMORY_ORDER_SEQ_CST                          \
       ? (kc_memory_order)(o)                                                  \
       : KC_MEMORY_ORDER_SEQ_CST)

/* ------------------------------------------------------------ host side */

#if !defined(__CUDA_ARCH__)

#define KC__HOST_RELAXED __ATOMIC_RELAXED

/* kc_memory_order to the builtins' orders.  Every helper below takes the
 * order of its whole operation (mo) and, where it reads, the order of a
 * read that stores nothing (lmo: a compare-and-swap that fails, the first
 * load of a loop); the functions keep each pair one the builtins accept,
 * strengthening an order an operation cannot have (a release load). */
KC__ATOMIC_FN int kc__host_mo(kc_memory_order kc__o) {
  switch (KC__MO(kc__o)) {
  case KC_MEMORY_ORDER_RELAXED:
    return __ATOMIC_RELAXED;
  case KC_MEMORY_ORDER_ACQUIRE:
    return __ATOMIC_ACQUIRE;
  case KC_MEMORY_ORDER_RELEASE:
    return __ATOMIC_RELEASE;
  case KC_MEMORY_ORDER_ACQ_REL:
    return __ATOMIC_ACQ_REL;
  default:
    return __ATOMIC_SEQ_CST;
  }
}
/* A read that stores nothing: release adds nothing to it. */
KC__ATOMIC_FN int kc__host_fail_mo(kc_memory_order kc__o) {
  switch (KC__MO(kc__o)) {
  case KC_MEMORY_ORDER_RELAXED:
  case KC_MEMORY_ORDER_RELEASE:
    return __ATOMIC_RELAXED;
  case KC_MEMORY_ORDER_ACQUIRE:
  case KC_MEMORY_ORDER_ACQ_REL:
    return __ATOMIC_ACQUIRE;
  default:
    return __ATOMIC_SEQ_CST;
  }
}
/* A plain load: release and acq_rel become acquire. */
KC__ATOMIC_FN int kc__host_load_mo(kc_memory_order kc__o) {
  switch (KC__MO(kc__o)) {
  case KC_MEMORY_ORDER_RELAXED:
    return __ATOMIC_RELAXED;
  case KC_MEMORY_ORDER_SEQ_CST:
    return __ATOMIC_SEQ_CST;
  default:
    return __ATOMIC_ACQUIRE;
  }
}
/* A plain store: acquire and acq_rel become release. */
KC__ATOMIC_FN int kc__host_store_mo(kc_memory_order kc__o) {
  switch (KC__MO(kc__o)) {
  case KC_MEMORY_ORDER_RELAXED:
    return __ATOMIC_RELAXED;
  case KC_MEMORY_ORDER_SEQ_CST:
    return __ATOMIC_SEQ_CST;
  default:
    return __ATOMIC_RELEASE;
  }
}

/* Integer types: fetch-add/sub/exchange/CAS are builtins; min/max are
 * compare-and-swap loops (gcc 12 has no __atomic_fetch_min). */
#define KC__HOST_ATOMIC_INT(s, T)                                              \
  KC__ATOMIC_FN T kc__host_fetch_add_##s(T *kc__p, T kc__v, int kc__mo,        \
                                         int kc__lmo) {                        \
    (void)kc__lmo;                                                             \
    return __atomic_fetch_add(kc__p, kc__v, kc__mo);                           \
  }                                                                            \
  KC__ATOMIC_FN T kc__host_fetch_sub_##s(T *kc__p, T kc__v, int kc__mo,        \
                                         int kc__lmo) {                        \
    (void)kc__lmo;                                                             \
    return __atomic_fetch_sub(kc__p, kc__v, kc__mo);                           \
  }                                                                            \
  KC__ATOMIC_FN T kc__host_fetch_min_##s(T *kc__p, T kc__v, int kc__mo,        \
                                         int kc__lmo) {                        \
    T kc__old = __atomic_load_n(kc__p, kc__lmo);                               \
    while (kc__v < kc__old &&                                                  \
           !__atomic_compare_exchange_n(kc__p, &kc__old, kc__v, 1, kc__mo,     \
                                        kc__lmo)) {                            \
    }                                                                          \
    return kc__old;                                                            \
  }                                                                            \
  KC__ATOMIC_FN T kc__host_fetch_max_##s(T *kc__p, T kc__v, int kc__mo,        \
                                         int kc__lmo) {                        \
    T kc__old = __atomic_load_n(kc__p, kc__lmo);                               \
    while (kc__v > kc__old &&                                                  \
           !__atomic_compare_exchange_n(kc__p, &kc__old, kc__v, 1, kc__mo,     \
                                        kc__lmo)) {                            \
    }                                                                          \
    return kc__old;                                                            \
  }                                                                            \
  KC__ATOMIC_FN T kc__host_exchange_##s(T *kc__p, T kc__v, int kc__mo) {       \
    return __atomic_exchange_n(kc__p, kc__v, kc__mo);                          \
  }                                                                            \
  KC__ATOMIC_FN T kc__host_cas_##s(T *kc__p, T kc__e, T kc__d, int kc__mo,     \
                                   int kc__lmo) {                              \
    __atomic_compare_exchange_n(kc__p, &kc__e, kc__d, 0, kc__mo, kc__lmo);     \
    return kc__e;                                                              \
  }                                                                            \
  KC__ATOMIC_FN T kc__host_load_##s(const T *kc__p, int kc__mo) {              \
    return __atomic_load_n(kc__p, kc__mo);                                     \
  }                                                                            \
  KC__ATOMIC_FN void kc__host_store_##s(T *kc__p, T kc__v, int kc__mo) {       \
    __atomic_store_n(kc__p, kc__v, kc__mo);                                    \
  }

KC__HOST_ATOMIC_INT(i32, int32_t)
KC__HOST_ATOMIC_INT(i64, int64_t)
KC__HOST_ATOMIC_INT(u32, uint32_t)
KC__HOST_ATOMIC_INT(u64, uint64_t)

/* Floating point: the value's bits in an unsigned integer of its size, and
 * a compare-and-swap loop for every read-modify-write, function `fn`.
 * `NEWV(old, v)` gives the new value; `SKIP(old, v)` says no store is
 * needed (min/max).  Names are pasted where the type suffix is first
 * written, never passed on as a bare suffix: an argument a macro hands to
 * another is macro-expanded first, so a user's `#define f64 ...` would
 * reach the paste. */
#define KC__HOST_FLOAT_RMW(fn, T, U, NEWV, SKIP)                               \
  KC__ATOMIC_FN T fn(T *kc__p, T kc__v, int kc__mo, int kc__lmo) {             \
    U *kc__u = (U *)(void *)kc__p;                                             \
    U kc__ob = __atomic_load_n(kc__u, kc__lmo), kc__nb;                        \
    T kc__old, kc__nv;                                                         \
    do {                                                                       \
      memcpy(&kc__old, &kc__ob, sizeof kc__old);                               \
      if (SKIP(kc__old, kc__v))                                                \
        break;                                                                 \
      kc__nv = NEWV(kc__old, kc__v);                                           \
      memcpy(&kc__nb, &kc__nv, sizeof kc__nb);                                 \
    } while (!__atomic_compare_exchange_n(kc__u, &kc__ob, kc__nb, 1, kc__mo,   \
                                          kc__lmo));                           \
    return kc__old;                                                            \
  }
#define KC__F_ADD(o, v) ((o) + (v))
#define KC__F_SUB(o, v) ((o) - (v))
#define KC__F_PICK(o, v) (v)
#define KC__F_NEVER(o, v) 0
#define KC__F_NOT_LESS(o, v) (!((v) < (o)))
#define KC__F_NOT_GREATER(o, v) (!((v) > (o)))

#define KC__HOST_ATOMIC_FLOAT(s, T, U)                                         \
  KC__HOST_FLOAT_RMW(kc__host_fetch_add_##s, T, U, KC__F_ADD, KC__F_NEVER)     \
  KC__HOST_FLOAT_RMW(kc__host_fetch_sub_##s, T, U, KC__F_SUB, KC__F_NEVER)     \
  KC__HOST_FLOAT_RMW(kc__host_fetch_min_##s, T, U, KC__F_PICK, KC__F_NOT_LESS) \
  KC__HOST_FLOAT_RMW(kc__host_fetch_max_##s, T, U, KC__F_PICK,                 \
                     KC__F_NOT_GREATER)                                        \
  KC__ATOMIC_FN T kc__host_exchange_##s(T *kc__p, T kc__v, int kc__mo) {       \
    U kc__nb, kc__ob;                                                          \
    T kc__old;                                                                 \
    memcpy(&kc__nb, &kc__v, sizeof kc__nb);                                    \
    kc__ob = __atomic_exchange_n((U *)(void *)kc__p, kc__nb, kc__mo);          \
    memcpy(&kc__old, &kc__ob, sizeof kc__old);                                 \
    return kc__old;                                                            \
  }                                                                            \
  KC__ATOMIC_FN T kc__host_cas_##s(T *kc__p, T kc__e, T kc__d, int kc__mo,     \
                                   int kc__lmo) {                              \
    U kc__eb, kc__db;                                                          \
    T kc__old;                                                                 \
    memcpy(&kc__eb, &kc__e, sizeof kc__eb);                                    \
    memcpy(&kc__db, &kc__d, sizeof kc__db);                                    \
    __atomic_compare_exchange_n((U *)(void *)kc__p, &kc__eb, kc__db, 0,        \
                                kc__mo, kc__lmo);                              \
    memcpy(&kc__old, &kc__eb, sizeof kc__old);                                 \
    return kc__old;                                                            \
  }                                                                            \
  KC__ATOMIC_FN T kc__host_load_##s(const T *kc__p, int kc__mo) {              \
    U kc__b = __atomic_load_n((const U *)(const void *)kc__p, kc__mo);         \
    T kc__v;                                                                   \
    memcpy(&kc__v, &kc__b, sizeof kc__v);                                      \
    return kc__v;                                                              \
  }                                                                            \
  KC__ATOMIC_FN void kc__host_store_##s(T *kc__p, T kc__v, int kc__mo) {       \
    U kc__b;                                                                   \
    memcpy(&kc__b, &kc__v, sizeof kc__b);                                      \
    __atomic_store_n((U *)(void *)kc__p, kc__b, kc__mo);                       \
  }

KC__HOST_ATOMIC_FLOAT(f32, float, uint32_t)
KC__HOST_ATOMIC_FLOAT(f64, double, uint64_t)

#endif /* !__CUDA_ARCH__ */

/* ---------------------------------------------------------- device side */

#if defined(__CUDA_ARCH__)

/* Bit casts between a value and the unsigned type atomicCAS takes. */
__device__ __forceinline__ unsigned int kc__dev_bits(float kc__v) {
  return __float_as_uint(kc__v);
}
__device__ __forceinline__ unsigned long long kc__dev_bits(double kc__v) {
  return (unsigned long long)__double_as_longlong(kc__v);
}
__device__ __forceinline__ unsigned int kc__dev_bits(int32_t kc__v) {
  return (unsigned int)kc__v;
}
__device__ __forceinline__ unsigned long long kc__dev_bits(int64_t kc__v) {
  return (unsigned long long)kc__v;
}
__device__ __forceinline__ unsigned int kc__dev_bits(uint32_t kc__v) {
  return kc__v;
}
__device__ __forceinline__ unsigned long long kc__dev_bits(uint64_t kc__v) {
  return (unsigned long long)kc__v;
}
template <class kc__T>
__device__ __forceinline__ kc__T kc__dev_from(unsigned int kc__b);
template <>
__device__ __forceinline__ float kc__dev_from<float>(unsigned int kc__b) {
  return __uint_as_float(kc__b);
}
template <>
__device__ __forceinline__ int32_t kc__dev_from<int32_t>(unsigned int kc__b) {
  return (int32_t)kc__b;
}
template <>
__device__ __forceinline__ uint32_t kc__dev_from<uint32_t>(unsigned int kc__b) {
  return kc__b;
}
template <class kc__T>
__device__ __forceinline__ kc__T kc__dev_from64(unsigned long long kc__b);
template <>
__device__ __forceinline__ double
kc__dev_from64<double>(unsigned long long kc__b) {
  return __longlong_as_double((long long)kc__b);
}
template <>
__device__ __forceinline__ int64_t
kc__dev_from64<int64_t>(unsigned long long kc__b) {
  return (int64_t)kc__b;
}
template <>
__device__ __forceinline__ uint64_t
kc__dev_from64<uint64_t>(unsigned long long kc__b) {
  return (uint64_t)kc__b;
}

/* The generic compare-and-swap loop: new = OP(old, v), skipped when
 * SKIP(old, v).  32-bit types. */
template <class kc__T, class kc__Op>
__device__ __forceinline__ kc__T kc__dev_cas_loop32(kc__T *kc__p, kc__T kc__v) {
  unsigned int *kc__u = (unsigned int *)kc__p;
  unsigned int kc__ob = *(volatile unsigned int *)kc__u, kc__prev;
  kc__T kc__old;
  do {
    kc__old = kc__dev_from<kc__T>(kc__ob);
    if (kc__Op::kc__skip(kc__old, kc__v))
      break;
    kc__prev = kc__ob;
    kc__ob = atomicCAS(kc__u, kc__prev,
                       kc__dev_bits(kc__Op::kc__apply(kc__old, kc__v)));
  } while (kc__ob != kc__prev);
  return kc__old;
}
template <class kc__T, class kc__Op>
__device__ __forceinline__ kc__T kc__dev_cas_loop64(kc__T *kc__p, kc__T kc__v) {
  unsigned long long *kc__u = (unsigned long long *)kc__p;
  unsigned long long kc__ob = *(volatile unsigned long long *)kc__u, kc__prev;
  kc__T kc__old;
  do {
    kc__old = kc__dev_from64<kc__T>(kc__ob);
    if (kc__Op::kc__skip(kc__old, kc__v))
      break;
    kc__prev = kc__ob;
    kc__ob = atomicCAS(kc__u, kc__prev,
                       kc__dev_bits(kc__Op::kc__apply(kc__old, kc__v)));
  } while (kc__ob != kc__prev);
  return kc__old;
}
struct kc__dev_op_add {
  template <class kc__T>
  static __device__ __forceinline__ kc__T kc__apply(kc__T kc__o, kc__T kc__v) {
    return kc__o + kc__v;
  }
  template <class kc__T>
  static __device__ __forceinline__ bool kc__skip(kc__T, kc__T) {
    return false;
  }
};
struct kc__dev_op_min {
  template <class kc__T>
  static __device__ __forceinline__ kc__T kc__apply(kc__T, kc__T kc__v) {
    return kc__v;
  }
  template <class kc__T>
  static __device__ __forceinline__ bool kc__skip(kc__T kc__o, kc__T kc__v) {
    return !(kc__v < kc__o);
  }
};
struct kc__dev_op_max {
  template <class kc__T>
  static __device__ __forceinline__ kc__T kc__apply(kc__T, kc__T kc__v) {
    return kc__v;
  }
  template <class kc__T>
  static __device__ __forceinline__ bool kc__skip(kc__T kc__o, kc__T kc__v) {
    return !(kc__v > kc__o);
  }
};

/* Ordered accesses at device ("gpu") scope.  sm_70 and later have the
 * PTX memory model's ld.acquire, st.release and fences; older GPUs get
 * the same guarantees from volatile accesses and membar.gl
 * (__threadfence), as libcu++ does.  An order an operation cannot have is
 * strengthened: a release load is an acquire load, an acquire store a
 * release store. */
__device__ __forceinline__ void kc__dev_fence(kc_memory_order kc__o) {
  kc__o = KC__MO(kc__o);
#if __CUDA_ARCH__ >= 700
  if (kc__o == KC_MEMORY_ORDER_SEQ_CST)
    asm volatile("fence.sc.gpu;" ::: "memory");
  else if (kc__o != KC_MEMORY_ORDER_RELAXED)
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
#else
  if (kc__o != KC_MEMORY_ORDER_RELAXED)
    __threadfence();
#endif
}
/* Around a read-modify-write (its relaxed form): the release half before
 * it, the acquire half after it -- the PTX memory model's release and
 * acquire patterns (a fence, then a strong write; a strong read, then a
 * fence). */
__device__ __forceinline__ void kc__dev_rmw_before(kc_memory_order kc__o) {
  kc__o = KC__MO(kc__o);
  if (kc__o == KC_MEMORY_ORDER_RELEASE || kc__o == KC_MEMORY_ORDER_ACQ_REL ||
      kc__o == KC_MEMORY_ORDER_SEQ_CST)
    kc__dev_fence(kc__o);
}
__device__ __forceinline__ void kc__dev_rmw_after(kc_memory_order kc__o) {
  kc__o = KC__MO(kc__o);
  if (kc__o == KC_MEMORY_ORDER_ACQUIRE || kc__o == KC_MEMORY_ORDER_ACQ_REL ||
      kc__o == KC_MEMORY_ORDER_SEQ_CST)
    kc__dev_fence(KC_MEMORY_ORDER_ACQ_REL);
}
template <class kc__T>
__device__ __forceinline__ kc__T kc__dev_rmw_keep(kc__T kc__r,
                                                  kc_memory_order kc__o) {
  kc__dev_rmw_after(kc__o);
  return kc__r;
}

#if __CUDA_ARCH__ >= 700
#define KC__DEV_LD(W, R, B)                                                    \
  __device__ __forceinline__ W kc__dev_ld(const W *kc__p,                      \
                                          kc_memory_order kc__o) {             \
    W kc__v;                                                                   \
    kc__o = KC__MO(kc__o);                                                     \
    if (kc__o == KC_MEMORY_ORDER_RELAXED) {                                    \
      asm volatile("ld.relaxed.gpu.b" B " %0, [%1];"                           \
                   : "=" R(kc__v)                                              \
                   : "l"(kc__p)                                                \
                   : "memory");                                                \
      return kc__v;                                                            \
    }                                                                          \
    if (kc__o == KC_MEMORY_ORDER_SEQ_CST)                                      \
      asm volatile("fence.sc.gpu;" ::: "memory");                              \
    asm volatile("ld.acquire.gpu.b" B " %0, [%1];"                             \
                 : "=" R(kc__v)                                                \
                 : "l"(kc__p)                                                  \
                 : "memory");                                                  \
    return kc__v;                                                              \
  }                                                                            \
  __device__ __forceinline__ void kc__dev_st(W *kc__p, W kc__v,                \
                                             kc_memory_order kc__o) {          \
    kc__o = KC__MO(kc__o);                                                     \
    if (kc__o == KC_MEMORY_ORDER_SEQ_CST)                                      \
      asm volatile("fence.sc.gpu;" ::: "memory");                              \
    if (kc__o == KC_MEMORY_ORDER_RELAXED || kc__o == KC_MEMORY_ORDER_SEQ_CST)  \
      asm volatile("st.relaxed.gpu.b" B " [%0], %1;" ::"l"(kc__p), R(kc__v)    \
                   : "memory");                                                \
    else                                                                       \
      asm volatile("st.release.gpu.b" B " [%0], %1;" ::"l"(kc__p), R(kc__v)    \
                   : "memory");                                                \
  }
#else
#define KC__DEV_LD(W, R, B)                                                    \
  __device__ __forceinline__ W kc__dev_ld(const W *kc__p,                      \
                                          kc_memory_order kc__o) {             \
    kc__o = KC__MO(kc__o);                                                     \
    if (kc__o == KC_MEMORY_ORDER_SEQ_CST)                                      \
      __threadfence();                                                         \
    W kc__v = *(const volatile W *)kc__p;                                      \
    if (kc__o != KC_MEMORY_ORDER_RELAXED)                                      \
      __threadfence();                                                         \
    return kc__v;                                                              \
  }                                                                            \
  __device__ __forceinline__ void kc__dev_st(W *kc__p, W kc__v,                \
                                             kc_memory_order kc__o) {          \
    if (kc__o != KC_MEMORY_ORDER_RELAXED)                                      \
      __threadfence();                                                         \
    *(volatile W *)kc__p = kc__v;                                              \
  }
#endif
KC__DEV_LD(unsigned int, "r", "32")
KC__DEV_LD(unsigned long long, "l", "64")

/* Ordered loads and stores of each type, through its bits. */
#define KC__DEV_ORDERED_LS(T, U, FROM)                                         \
  __device__ __forceinline__ T kc__dev_load_explicit(const T *kc__p,           \
                                                     kc_memory_order kc__o) {  \
    return FROM(kc__dev_ld((const U *)(const void *)kc__p, kc__o));            \
  }                                                                            \
  __device__ __forceinline__ void kc__dev_store_explicit(                      \
      T *kc__p, T kc__v, kc_memory_order kc__o) {                              \
    kc__dev_st((U *)(void *)kc__p, (U)kc__dev_bits(kc__v), kc__o);             \
  }
KC__DEV_ORDERED_LS(int32_t, unsigned int, kc__dev_from<int32_t>)
KC__DEV_ORDERED_LS(uint32_t, unsigned int, kc__dev_from<uint32_t>)
KC__DEV_ORDERED_LS(float, unsigned int, kc__dev_from<float>)
KC__DEV_ORDERED_LS(int64_t, unsigned long long, kc__dev_from64<int64_t>)
KC__DEV_ORDERED_LS(uint64_t, unsigned long long, kc__dev_from64<uint64_t>)
KC__DEV_ORDERED_LS(double, unsigned long long, kc__dev_from64<double>)

#endif /* __CUDA_ARCH__ */

/* ------------------------------------------------------ the public names */

/* KC__ATOMIC_PICK(host-expr, device-expr): one function body for both
 * passes of a CUDA compiler, and the host expression alone in C. */
#if defined(__CUDA_ARCH__)
#define KC__ATOMIC_PICK(h, d) d
#else
#define KC__ATOMIC_PICK(h, d) h
#endif

/* Device expressions per type.  int32/uint32/uint64 and float have native
 * add/exchange/CAS; signed 64-bit goes through unsigned long long (two's
 * complement wrap-around is the same operation). */
#define KC__DEV_I32_ADD(p, v) atomicAdd((int *)(p), (int)(v))
#define KC__DEV_I32_SUB(p, v) atomicSub((int *)(p), (int)(v))
#define KC__DEV_I32_MIN(p, v) atomicMin((int *)(p), (int)(v))
#define KC__DEV_I32_MAX(p, v) atomicMax((int *)(p), (int)(v))
#define KC__DEV_I32_XCHG(p, v) atomicExch((int *)(p), (int)(v))
#define KC__DEV_I32_CAS(p, e, d) atomicCAS((int *)(p), (int)(e), (int)(d))

#define KC__DEV_U32_ADD(p, v) atomicAdd((unsigned int *)(p), (unsigned int)(v))
#define KC__DEV_U32_SUB(p, v) atomicSub((unsigned int *)(p), (unsigned int)(v))
#define KC__DEV_U32_MIN(p, v) atomicMin((unsigned int *)(p), (unsigned int)(v))
#define KC__DEV_U32_MAX(p, v) atomicMax((unsigned int *)(p), (unsigned int)(v))
#define KC__DEV_U32_XCHG(p, v)                                                 \
  atomicExch((unsigned int *)(p), (unsigned int)(v))
#define KC__DEV_U32_CAS(p, e, d)                                               \
  atomicCAS((unsigned int *)(p), (unsigned int)(e), (unsigned int)(d))

#define KC__ULL unsigned long long
#define KC__DEV_U64_ADD(p, v) (uint64_t) atomicAdd((KC__ULL *)(p), (KC__ULL)(v))
#define KC__DEV_U64_SUB(p, v)                                                  \
  (uint64_t) atomicAdd((KC__ULL *)(p), (KC__ULL)0 - (KC__ULL)(v))
#define KC__DEV_U64_MIN(p, v) (uint64_t) atomicMin((KC__ULL *)(p), (KC__ULL)(v))
#define KC__DEV_U64_MAX(p, v) (uint64_t) atomicMax((KC__ULL *)(p), (KC__ULL)(v))
#define KC__DEV_U64_XCHG(p, v)                                                 \
  (uint64_t) atomicExch((KC__ULL *)(p), (KC__ULL)(v))
#define KC__DEV_U64_CAS(p, e, d)                                               \
  (uint64_t) atomicCAS((KC__ULL *)(p), (KC__ULL)(e), (KC__ULL)(d))

#define KC__DEV_I64_ADD(p, v) (int64_t) atomicAdd((KC__ULL *)(p), (KC__ULL)(v))
#define KC__DEV_I64_SUB(p, v)                                                  \
  (int64_t) atomicAdd((KC__ULL *)(p), (KC__ULL)0 - (KC__ULL)(v))
#define KC__DEV_I64_MIN(p, v)                                                  \
  (int64_t) atomicMin((long long *)(p), (long long)(v))
#define KC__DEV_I64_MAX(p, v)                                                  \
  (int64_t) atomicMax((long long *)(p), (long long)(v))
#define KC__DEV_I64_XCHG(p, v)                                                 \
  (int64_t) atomicExch((KC__ULL *)(p), (KC__ULL)(v))
#define KC__DEV_I64_CAS(p, e, d)                                               \
  (int64_t) atomicCAS((KC__ULL *)(p), (KC__ULL)(e), (KC__ULL)(d))

#define KC__DEV_F32_ADD(p, v) atomicAdd((p), (v))
#define KC__DEV_F32_SUB(p, v) atomicAdd((p), -(v))
#define KC__DEV_F32_MIN(p, v) kc__dev_cas_loop32<float, kc__dev_op_min>(p, v)
#define KC__DEV_F32_MAX(p, v) kc__dev_cas_loop32<float, kc__dev_op_max>(p, v)
#define KC__DEV_F32_XCHG(p, v) atomicExch((p), (v))
#define KC__DEV_F32_CAS(p, e, d)                                               \
  __uint_as_float(                                                             \
      atomicCAS((unsigned int *)(p), __float_as_uint(e), __float_as_uint(d)))

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600
#define KC__DEV_F64_ADD(p, v) kc__dev_cas_loop64<double, kc__dev_op_add>(p, v)
#define KC__DEV_F64_SUB(p, v)                                                  \
  kc__dev_cas_loop64<double, kc__dev_op_add>(p, -(v))
#else
#define KC__DEV_F64_ADD(p, v) atomicAdd((p), (v))
#define KC__DEV_F64_SUB(p, v) atomicAdd((p), -(v))
#endif
#define KC__DEV_F64_MIN(p, v) kc__dev_cas_loop64<double, kc__dev_op_min>(p, v)
#define KC__DEV_F64_MAX(p, v) kc__dev_cas_loop64<double, kc__dev_op_max>(p, v)
#define KC__DEV_F64_XCHG(p, v)                                                 \
  __longlong_as_double(                                                        \
      (long long)atomicExch((KC__ULL *)(p), (KC__ULL)__double_as_longlong(v)))
#define KC__DEV_F64_CAS(p, e, d)                                               \
  __longlong_as_double((long long)atomicCAS((KC__ULL *)(p),                    \
                                            (KC__ULL)__double_as_longlong(e),  \
                                            (KC__ULL)__double_as_longlong(d)))

/* Device loads and stores: volatile accesses of the natural width (not
 * cached in L1 across the accesses of other threads). */
#define KC__DEV_LOAD(p) (*(const volatile __typeof__(*(p)) *)(p))

/* The public functions of one type. */
#define KC__ATOMIC_API(s, S, T)                                                \
  KC__ATOMIC_FN T kc_atomic_fetch_add_##s(T *kc__p, T kc__v) {                 \
    return KC__ATOMIC_PICK(kc__host_fetch_add_##s(kc__p, kc__v,                \
                                                  KC__HOST_RELAXED,            \
                                                  KC__HOST_RELAXED),           \
                           KC__DEV_##S##_ADD(kc__p, kc__v));                   \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_fetch_sub_##s(T *kc__p, T kc__v) {                 \
    return KC__ATOMIC_PICK(kc__host_fetch_sub_##s(kc__p, kc__v,                \
                                                  KC__HOST_RELAXED,            \
                                                  KC__HOST_RELAXED),           \
                           KC__DEV_##S##_SUB(kc__p, kc__v));                   \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_fetch_min_##s(T *kc__p, T kc__v) {                 \
    return KC__ATOMIC_PICK(kc__host_fetch_min_##s(kc__p, kc__v,                \
                                                  KC__HOST_RELAXED,            \
                                                  KC__HOST_RELAXED),           \
                           KC__DEV_##S##_MIN(kc__p, kc__v));                   \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_fetch_max_##s(T *kc__p, T kc__v) {                 \
    return KC__ATOMIC_PICK(kc__host_fetch_max_##s(kc__p, kc__v,                \
                                                  KC__HOST_RELAXED,            \
                                                  KC__HOST_RELAXED),           \
                           KC__DEV_##S##_MAX(kc__p, kc__v));                   \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_exchange_##s(T *kc__p, T kc__v) {                  \
    return KC__ATOMIC_PICK(                                                    \
        kc__host_exchange_##s(kc__p, kc__v, KC__HOST_RELAXED),                 \
        KC__DEV_##S##_XCHG(kc__p, kc__v));                                     \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_compare_exchange_##s(T *kc__p, T kc__e, T kc__d) { \
    return KC__ATOMIC_PICK(kc__host_cas_##s(kc__p, kc__e, kc__d,               \
                                            KC__HOST_RELAXED,                  \
                                            KC__HOST_RELAXED),                 \
                           KC__DEV_##S##_CAS(kc__p, kc__e, kc__d));            \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_load_##s(const T *kc__p) {                         \
    return KC__ATOMIC_PICK(kc__host_load_##s(kc__p, KC__HOST_RELAXED),         \
                           KC__DEV_LOAD(kc__p));                               \
  }                                                                            \
  KC__ATOMIC_FN void kc_atomic_store_##s(T *kc__p, T kc__v) {                  \
    KC__ATOMIC_PICK(kc__host_store_##s(kc__p, kc__v, KC__HOST_RELAXED),        \
                    (void)KC__DEV_##S##_XCHG(kc__p, kc__v));                   \
  }                                                                            \
  KC__ATOMIC_FN void kc_atomic_add_##s(T *kc__p, T kc__v) {                    \
    (void)kc_atomic_fetch_add_##s(kc__p, kc__v);                               \
  }                                                                            \
  KC__ATOMIC_FN void kc_atomic_sub_##s(T *kc__p, T kc__v) {                    \
    (void)kc_atomic_fetch_sub_##s(kc__p, kc__v);                               \
  }                                                                            \
  KC__ATOMIC_FN void kc_atomic_min_##s(T *kc__p, T kc__v) {                    \
    (void)kc_atomic_fetch_min_##s(kc__p, kc__v);                               \
  }                                                                            \
  KC__ATOMIC_FN void kc_atomic_max_##s(T *kc__p, T kc__v) {                    \
    (void)kc_atomic_fetch_max_##s(kc__p, kc__v);                               \
  }

KC__ATOMIC_API(i32, I32, int32_t)
KC__ATOMIC_API(i64, I64, int64_t)
KC__ATOMIC_API(u32, U32, uint32_t)
KC__ATOMIC_API(u64, U64, uint64_t)
KC__ATOMIC_API(f32, F32, float)
KC__ATOMIC_API(f64, F64, double)

/* The ordered (_explicit) functions of one type.  Host: the builtins
 * with the orders kc__host_*_mo give.  Device: ordered loads and stores,
 * and the relaxed read-modify-write between the halves of its order.
 * KC__ORDERED_FETCH gets whole names, pasted here (see
 * KC__HOST_FLOAT_RMW): a bare F64 or MIN handed on would be expanded if
 * the user defines it. */
#if defined(__CUDA_ARCH__)
#define KC__ORDERED_RMW(o, expr)                                               \
  (kc__dev_rmw_before(o), kc__dev_rmw_keep((expr), (o)))
#else
#define KC__ORDERED_RMW(o, expr) expr
#endif
#define KC__ORDERED_FETCH(fn, T, host, dev)                                    \
  KC__ATOMIC_FN T fn(T *kc__p, T kc__v, kc_memory_order kc__o) {               \
    return KC__ORDERED_RMW(                                                    \
        kc__o, KC__ATOMIC_PICK(host(kc__p, kc__v, kc__host_mo(kc__o),          \
                                    kc__host_fail_mo(kc__o)),                  \
                               dev(kc__p, kc__v)));                            \
  }
#define KC__ORDERED_API(s, S, T)                                               \
  KC__ORDERED_FETCH(kc_atomic_fetch_add_explicit_##s, T,                       \
                    kc__host_fetch_add_##s, KC__DEV_##S##_ADD)                 \
  KC__ORDERED_FETCH(kc_atomic_fetch_sub_explicit_##s, T,                       \
                    kc__host_fetch_sub_##s, KC__DEV_##S##_SUB)                 \
  KC__ORDERED_FETCH(kc_atomic_fetch_min_explicit_##s, T,                       \
                    kc__host_fetch_min_##s, KC__DEV_##S##_MIN)                 \
  KC__ORDERED_FETCH(kc_atomic_fetch_max_explicit_##s, T,                       \
                    kc__host_fetch_max_##s, KC__DEV_##S##_MAX)                 \
  KC__ATOMIC_FN T kc_atomic_exchange_explicit_##s(T *kc__p, T kc__v,           \
                                                  kc_memory_order kc__o) {     \
    return KC__ORDERED_RMW(                                                    \
        kc__o, KC__ATOMIC_PICK(                                                \
                   kc__host_exchange_##s(kc__p, kc__v, kc__host_mo(kc__o)),    \
                   KC__DEV_##S##_XCHG(kc__p, kc__v)));                         \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_compare_exchange_explicit_##s(                     \
      T *kc__p, T kc__e, T kc__d, kc_memory_order kc__o) {                     \
    return KC__ORDERED_RMW(                                                    \
        kc__o, KC__ATOMIC_PICK(kc__host_cas_##s(kc__p, kc__e, kc__d,           \
                                                kc__host_mo(kc__o),            \
                                                kc__host_fail_mo(kc__o)),      \
                               KC__DEV_##S##_CAS(kc__p, kc__e, kc__d)));       \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_load_explicit_##s(const T *kc__p,                  \
                                              kc_memory_order kc__o) {         \
    return KC__ATOMIC_PICK(kc__host_load_##s(kc__p, kc__host_load_mo(kc__o)),  \
                           kc__dev_load_explicit(kc__p, kc__o));               \
  }                                                                            \
  KC__ATOMIC_FN void kc_atomic_store_explicit_##s(T *kc__p, T kc__v,           \
                                                  kc_memory_order kc__o) {     \
    KC__ATOMIC_PICK(                                                           \
        kc__host_store_##s(kc__p, kc__v, kc__host_store_mo(kc__o)),            \
        kc__dev_store_explicit(kc__p, kc__v, kc__o));                          \
  }

KC__ORDERED_API(i32, I32, int32_t)
KC__ORDERED_API(i64, I64, int64_t)
KC__ORDERED_API(u32, U32, uint32_t)
KC__ORDERED_API(u64, U64, uint64_t)
KC__ORDERED_API(f32, F32, float)
KC__ORDERED_API(f64, F64, double)

/* Fences. */
KC__ATOMIC_FN void kc_atomic_thread_fence(kc_memory_order kc__o) {
  KC__ATOMIC_PICK(__atomic_thread_fence(kc__host_mo(kc__o)),
                  kc__dev_fence(kc__o));
}
KC__ATOMIC_FN void kc_memory_fence(void) {
  kc_atomic_thread_fence(KC_MEMORY_ORDER_SEQ_CST);
}

/* Type-generic names. */
#if defined(__cplusplus)
#define KC__ATOMIC_OVERLOADS(s, T)                                             \
  KC__ATOMIC_FN void kc_atomic_add(T *kc__p, T kc__v) {                        \
    kc_atomic_add_##s(kc__p, kc__v);                                           \
  }                                                                            \
  KC__ATOMIC_FN void kc_atomic_sub(T *kc__p, T kc__v) {                        \
    kc_atomic_sub_##s(kc__p, kc__v);                                           \
  }                                                                            \
  KC__ATOMIC_FN void kc_atomic_min(T *kc__p, T kc__v) {                        \
    kc_atomic_min_##s(kc__p, kc__v);                                           \
  }                                                                            \
  KC__ATOMIC_FN void kc_atomic_max(T *kc__p, T kc__v) {                        \
    kc_atomic_max_##s(kc__p, kc__v);                                           \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_fetch_add(T *kc__p, T kc__v) {                     \
    return kc_atomic_fetch_add_##s(kc__p, kc__v);                              \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_fetch_sub(T *kc__p, T kc__v) {                     \
    return kc_atomic_fetch_sub_##s(kc__p, kc__v);                              \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_fetch_min(T *kc__p, T kc__v) {                     \
    return kc_atomic_fetch_min_##s(kc__p, kc__v);                              \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_fetch_max(T *kc__p, T kc__v) {                     \
    return kc_atomic_fetch_max_##s(kc__p, kc__v);                              \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_exchange(T *kc__p, T kc__v) {                      \
    return kc_atomic_exchange_##s(kc__p, kc__v);                               \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_compare_exchange(T *kc__p, T kc__e, T kc__d) {     \
    return kc_atomic_compare_exchange_##s(kc__p, kc__e, kc__d);                \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_load(const T *kc__p) {                             \
    return kc_atomic_load_##s(kc__p);                                          \
  }                                                                            \
  KC__ATOMIC_FN void kc_atomic_store(T *kc__p, T kc__v) {                      \
    kc_atomic_store_##s(kc__p, kc__v);                                         \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_fetch_add_explicit(T *kc__p, T kc__v,              \
                                               kc_memory_order kc__o) {        \
    return kc_atomic_fetch_add_explicit_##s(kc__p, kc__v, kc__o);              \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_fetch_sub_explicit(T *kc__p, T kc__v,              \
                                               kc_memory_order kc__o) {        \
    return kc_atomic_fetch_sub_explicit_##s(kc__p, kc__v, kc__o);              \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_fetch_min_explicit(T *kc__p, T kc__v,              \
                                               kc_memory_order kc__o) {        \
    return kc_atomic_fetch_min_explicit_##s(kc__p, kc__v, kc__o);              \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_fetch_max_explicit(T *kc__p, T kc__v,              \
                                               kc_memory_order kc__o) {        \
    return kc_atomic_fetch_max_explicit_##s(kc__p, kc__v, kc__o);              \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_exchange_explicit(T *kc__p, T kc__v,               \
                                              kc_memory_order kc__o) {         \
    return kc_atomic_exchange_explicit_##s(kc__p, kc__v, kc__o);               \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_compare_exchange_explicit(                         \
      T *kc__p, T kc__e, T kc__d, kc_memory_order kc__o) {                     \
    return kc_atomic_compare_exchange_explicit_##s(kc__p, kc__e, kc__d,        \
                                                   kc__o);                     \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_load_explicit(const T *kc__p,                      \
                                          kc_memory_order kc__o) {             \
    return kc_atomic_load_explicit_##s(kc__p, kc__o);                          \
  }                                                                            \
  KC__ATOMIC_FN void kc_atomic_store_explicit(T *kc__p, T kc__v,               \
                                              kc_memory_order kc__o) {         \
    kc_atomic_store_explicit_##s(kc__p, kc__v, kc__o);                         \
  }
KC__ATOMIC_OVERLOADS(i32, int32_t)
KC__ATOMIC_OVERLOADS(i64, int64_t)
KC__ATOMIC_OVERLOADS(u32, uint32_t)
KC__ATOMIC_OVERLOADS(u64, uint64_t)
KC__ATOMIC_OVERLOADS(f32, float)
KC__ATOMIC_OVERLOADS(f64, double)
#else
/* clang-format off */
#define KC__ATOMIC_GENERIC(op, p)                                              \
  _Generic((p),                                                                \
      int32_t *: kc_atomic_##op##_i32,                                         \
      int64_t *: kc_atomic_##op##_i64,                                         \
      uint32_t *: kc_atomic_##op##_u32,                                        \
      uint64_t *: kc_atomic_##op##_u64,                                        \
      float *: kc_atomic_##op##_f32,                                           \
      double *: kc_atomic_##op##_f64)
#define KC__ATOMIC_GENERIC_CONST(op, p)                                        \
  _Generic((p),                                                                \
      const int32_t *: kc_atomic_##op##_i32, int32_t *: kc_atomic_##op##_i32,  \
      const int64_t *: kc_atomic_##op##_i64, int64_t *: kc_atomic_##op##_i64,  \
      const uint32_t *: kc_atomic_##op##_u32,                                  \
      uint32_t *: kc_atomic_##op##_u32,                                        \
      const uint64_t *: kc_atomic_##op##_u64,                                  \
      uint64_t *: kc_atomic_##op##_u64,                                        \
      const float *: kc_atomic_##op##_f32, float *: kc_atomic_##op##_f32,      \
      const double *: kc_atomic_##op##_f64, double *: kc_atomic_##op##_f64)
/* clang-format on */
#define kc_atomic_add(p, v) KC__ATOMIC_GENERIC(add, p)(p, v)
#define kc_atomic_sub(p, v) KC__ATOMIC_GENERIC(sub, p)(p, v)
#define kc_atomic_min(p, v) KC__ATOMIC_GENERIC(min, p)(p, v)
#define kc_atomic_max(p, v) KC__ATOMIC_GENERIC(max, p)(p, v)
#define kc_atomic_fetch_add(p, v) KC__ATOMIC_GENERIC(fetch_add, p)(p, v)
#define kc_atomic_fetch_sub(p, v) KC__ATOMIC_GENERIC(fetch_sub, p)(p, v)
#define kc_atomic_fetch_min(p, v) KC__ATOMIC_GENERIC(fetch_min, p)(p, v)
#define kc_atomic_fetch_max(p, v) KC__ATOMIC_GENERIC(fetch_max, p)(p, v)
#define kc_atomic_exchange(p, v) KC__ATOMIC_GENERIC(exchange, p)(p, v)
#define kc_atomic_compare_exchange(p, e, d)                                    \
  KC__ATOMIC_GENERIC(compare_exchange, p)(p, e, d)
#define kc_atomic_load(p) KC__ATOMIC_GENERIC_CONST(load, p)(p)
#define kc_atomic_store(p, v) KC__ATOMIC_GENERIC(store, p)(p, v)
#define kc_atomic_fetch_add_explicit(p, v, o)                                  \
  KC__ATOMIC_GENERIC(fetch_add_explicit, p)(p, v, o)
#define kc_atomic_fetch_sub_explicit(p, v, o)                                  \
  KC__ATOMIC_GENERIC(fetch_sub_explicit, p)(p, v, o)
#define kc_atomic_fetch_min_explicit(p, v, o)                                  \
  KC__ATOMIC_GENERIC(fetch_min_explicit, p)(p, v, o)
#define kc_atomic_fetch_max_explicit(p, v, o)                                  \
  KC__ATOMIC_GENERIC(fetch_max_explicit, p)(p, v, o)
#define kc_atomic_exchange_explicit(p, v, o)                                   \
  KC__ATOMIC_GENERIC(exchange_explicit, p)(p, v, o)
#define kc_atomic_compare_exchange_explicit(p, e, d, o)                        \
  KC__ATOMIC_GENERIC(compare_exchange_explicit, p)(p, e, d, o)
#define kc_atomic_load_explicit(p, o)                                          \
  KC__ATOMIC_GENERIC_CONST(load_explicit, p)(p, o)
#define kc_atomic_store_explicit(p, v, o)                                      \
  KC__ATOMIC_GENERIC(store_explicit, p)(p, v, o)
#endif

#endif /* KC_ATOMIC_H */
