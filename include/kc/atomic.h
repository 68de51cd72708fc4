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
 * Semantics, identical on every backend: each operation is atomic with
 * respect to every other kc atomic on the same object, and relaxed: it
 * orders nothing else (the end of a launch, kc_fence() for asynchronous
 * ones, makes every effect visible to the host).  Unsigned arithmetic
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
 * elsewhere (float/double min and max, double add before sm_60, signed
 * 64-bit min/max before sm_35).
 *
 * Thread safety: that is the point.  Not async-signal-safe guarantees
 * beyond those of the builtins.
 */
#ifndef KC_ATOMIC_H
#define KC_ATOMIC_H

#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define KC__ATOMIC_FN static __host__ __device__ __forceinline__
#elif defined(__GNUC__)
#define KC__ATOMIC_FN static inline __attribute__((always_inline, unused))
#else
#error "kc/atomic.h needs GCC-compatible __atomic builtins or CUDA"
#endif

/* ------------------------------------------------------------ host side */

#if !defined(__CUDA_ARCH__)

#define KC__HOST_RELAXED __ATOMIC_RELAXED

/* Integer types: fetch-add/sub/exchange/CAS are builtins; min/max are
 * compare-and-swap loops (gcc 12 has no __atomic_fetch_min). */
#define KC__HOST_ATOMIC_INT(s, T)                                              \
  KC__ATOMIC_FN T kc__host_fetch_add_##s(T *p, T v) {                          \
    return __atomic_fetch_add(p, v, KC__HOST_RELAXED);                         \
  }                                                                            \
  KC__ATOMIC_FN T kc__host_fetch_sub_##s(T *p, T v) {                          \
    return __atomic_fetch_sub(p, v, KC__HOST_RELAXED);                         \
  }                                                                            \
  KC__ATOMIC_FN T kc__host_fetch_min_##s(T *p, T v) {                          \
    T old = __atomic_load_n(p, KC__HOST_RELAXED);                              \
    while (v < old &&                                                          \
           !__atomic_compare_exchange_n(p, &old, v, 1, KC__HOST_RELAXED,       \
                                        KC__HOST_RELAXED)) {                   \
    }                                                                          \
    return old;                                                                \
  }                                                                            \
  KC__ATOMIC_FN T kc__host_fetch_max_##s(T *p, T v) {                          \
    T old = __atomic_load_n(p, KC__HOST_RELAXED);                              \
    while (v > old &&                                                          \
           !__atomic_compare_exchange_n(p, &old, v, 1, KC__HOST_RELAXED,       \
                                        KC__HOST_RELAXED)) {                   \
    }                                                                          \
    return old;                                                                \
  }                                                                            \
  KC__ATOMIC_FN T kc__host_exchange_##s(T *p, T v) {                           \
    return __atomic_exchange_n(p, v, KC__HOST_RELAXED);                        \
  }                                                                            \
  KC__ATOMIC_FN T kc__host_cas_##s(T *p, T e, T d) {                           \
    __atomic_compare_exchange_n(p, &e, d, 0, KC__HOST_RELAXED,                 \
                                KC__HOST_RELAXED);                             \
    return e;                                                                  \
  }                                                                            \
  KC__ATOMIC_FN T kc__host_load_##s(const T *p) {                              \
    return __atomic_load_n(p, KC__HOST_RELAXED);                               \
  }                                                                            \
  KC__ATOMIC_FN void kc__host_store_##s(T *p, T v) {                           \
    __atomic_store_n(p, v, KC__HOST_RELAXED);                                  \
  }

KC__HOST_ATOMIC_INT(i32, int32_t)
KC__HOST_ATOMIC_INT(i64, int64_t)
KC__HOST_ATOMIC_INT(u32, uint32_t)
KC__HOST_ATOMIC_INT(u64, uint64_t)

/* Floating point: the value's bits in an unsigned integer of its size, and
 * a compare-and-swap loop for every read-modify-write.  `OP(old, v)` gives
 * the new value; `SKIP(old, v)` says no store is needed (min/max). */
#define KC__HOST_FLOAT_RMW(s, T, U, name, NEWV, SKIP)                          \
  KC__ATOMIC_FN T kc__host_fetch_##name##_##s(T *p, T v) {                     \
    U *u = (U *)(void *)p;                                                     \
    U ob = __atomic_load_n(u, KC__HOST_RELAXED), nb;                           \
    T old, nv;                                                                 \
    do {                                                                       \
      memcpy(&old, &ob, sizeof old);                                           \
      if (SKIP(old, v))                                                        \
        break;                                                                 \
      nv = NEWV(old, v);                                                       \
      memcpy(&nb, &nv, sizeof nb);                                             \
    } while (!__atomic_compare_exchange_n(u, &ob, nb, 1, KC__HOST_RELAXED,     \
                                          KC__HOST_RELAXED));                  \
    return old;                                                                \
  }
#define KC__F_ADD(o, v) ((o) + (v))
#define KC__F_SUB(o, v) ((o) - (v))
#define KC__F_PICK(o, v) (v)
#define KC__F_NEVER(o, v) 0
#define KC__F_NOT_LESS(o, v) (!((v) < (o)))
#define KC__F_NOT_GREATER(o, v) (!((v) > (o)))

#define KC__HOST_ATOMIC_FLOAT(s, T, U)                                         \
  KC__HOST_FLOAT_RMW(s, T, U, add, KC__F_ADD, KC__F_NEVER)                     \
  KC__HOST_FLOAT_RMW(s, T, U, sub, KC__F_SUB, KC__F_NEVER)                     \
  KC__HOST_FLOAT_RMW(s, T, U, min, KC__F_PICK, KC__F_NOT_LESS)                 \
  KC__HOST_FLOAT_RMW(s, T, U, max, KC__F_PICK, KC__F_NOT_GREATER)              \
  KC__ATOMIC_FN T kc__host_exchange_##s(T *p, T v) {                           \
    U nb, ob;                                                                  \
    T old;                                                                     \
    memcpy(&nb, &v, sizeof nb);                                                \
    ob = __atomic_exchange_n((U *)(void *)p, nb, KC__HOST_RELAXED);            \
    memcpy(&old, &ob, sizeof old);                                             \
    return old;                                                                \
  }                                                                            \
  KC__ATOMIC_FN T kc__host_cas_##s(T *p, T e, T d) {                           \
    U eb, db;                                                                  \
    T old;                                                                     \
    memcpy(&eb, &e, sizeof eb);                                                \
    memcpy(&db, &d, sizeof db);                                                \
    __atomic_compare_exchange_n((U *)(void *)p, &eb, db, 0, KC__HOST_RELAXED,  \
                                KC__HOST_RELAXED);                             \
    memcpy(&old, &eb, sizeof old);                                             \
    return old;                                                                \
  }                                                                            \
  KC__ATOMIC_FN T kc__host_load_##s(const T *p) {                              \
    U b = __atomic_load_n((const U *)(const void *)p, KC__HOST_RELAXED);       \
    T v;                                                                       \
    memcpy(&v, &b, sizeof v);                                                  \
    return v;                                                                  \
  }                                                                            \
  KC__ATOMIC_FN void kc__host_store_##s(T *p, T v) {                           \
    U b;                                                                       \
    memcpy(&b, &v, sizeof b);                                                  \
    __atomic_store_n((U *)(void *)p, b, KC__HOST_RELAXED);                     \
  }

KC__HOST_ATOMIC_FLOAT(f32, float, uint32_t)
KC__HOST_ATOMIC_FLOAT(f64, double, uint64_t)

#endif /* !__CUDA_ARCH__ */

/* ---------------------------------------------------------- device side */

#if defined(__CUDA_ARCH__)

/* Bit casts between a value and the unsigned type atomicCAS takes. */
__device__ __forceinline__ unsigned int kc__dev_bits(float v) {
  return __float_as_uint(v);
}
__device__ __forceinline__ unsigned long long kc__dev_bits(double v) {
  return (unsigned long long)__double_as_longlong(v);
}
__device__ __forceinline__ unsigned int kc__dev_bits(int32_t v) {
  return (unsigned int)v;
}
__device__ __forceinline__ unsigned long long kc__dev_bits(int64_t v) {
  return (unsigned long long)v;
}
__device__ __forceinline__ unsigned int kc__dev_bits(uint32_t v) { return v; }
__device__ __forceinline__ unsigned long long kc__dev_bits(uint64_t v) {
  return (unsigned long long)v;
}
template <class T> __device__ __forceinline__ T kc__dev_from(unsigned int b);
template <>
__device__ __forceinline__ float kc__dev_from<float>(unsigned int b) {
  return __uint_as_float(b);
}
template <>
__device__ __forceinline__ int32_t kc__dev_from<int32_t>(unsigned int b) {
  return (int32_t)b;
}
template <>
__device__ __forceinline__ uint32_t kc__dev_from<uint32_t>(unsigned int b) {
  return b;
}
template <class T>
__device__ __forceinline__ T kc__dev_from64(unsigned long long b);
template <>
__device__ __forceinline__ double kc__dev_from64<double>(unsigned long long b) {
  return __longlong_as_double((long long)b);
}
template <>
__device__ __forceinline__ int64_t
kc__dev_from64<int64_t>(unsigned long long b) {
  return (int64_t)b;
}
template <>
__device__ __forceinline__ uint64_t
kc__dev_from64<uint64_t>(unsigned long long b) {
  return (uint64_t)b;
}

/* The generic compare-and-swap loop: new = OP(old, v), skipped when
 * SKIP(old, v).  32-bit types. */
template <class T, class Op>
__device__ __forceinline__ T kc__dev_cas_loop32(T *p, T v) {
  unsigned int *u = (unsigned int *)p;
  unsigned int ob = *(volatile unsigned int *)u, prev;
  T old;
  do {
    old = kc__dev_from<T>(ob);
    if (Op::skip(old, v))
      break;
    prev = ob;
    ob = atomicCAS(u, prev, kc__dev_bits(Op::apply(old, v)));
  } while (ob != prev);
  return old;
}
template <class T, class Op>
__device__ __forceinline__ T kc__dev_cas_loop64(T *p, T v) {
  unsigned long long *u = (unsigned long long *)p;
  unsigned long long ob = *(volatile unsigned long long *)u, prev;
  T old;
  do {
    old = kc__dev_from64<T>(ob);
    if (Op::skip(old, v))
      break;
    prev = ob;
    ob = atomicCAS(u, prev, kc__dev_bits(Op::apply(old, v)));
  } while (ob != prev);
  return old;
}
struct kc__dev_op_add {
  template <class T> static __device__ __forceinline__ T apply(T o, T v) {
    return o + v;
  }
  template <class T> static __device__ __forceinline__ bool skip(T, T) {
    return false;
  }
};
struct kc__dev_op_min {
  template <class T> static __device__ __forceinline__ T apply(T, T v) {
    return v;
  }
  template <class T> static __device__ __forceinline__ bool skip(T o, T v) {
    return !(v < o);
  }
};
struct kc__dev_op_max {
  template <class T> static __device__ __forceinline__ T apply(T, T v) {
    return v;
  }
  template <class T> static __device__ __forceinline__ bool skip(T o, T v) {
    return !(v > o);
  }
};

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
  KC__ATOMIC_FN T kc_atomic_fetch_add_##s(T *p, T v) {                         \
    return KC__ATOMIC_PICK(kc__host_fetch_add_##s(p, v),                       \
                           KC__DEV_##S##_ADD(p, v));                           \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_fetch_sub_##s(T *p, T v) {                         \
    return KC__ATOMIC_PICK(kc__host_fetch_sub_##s(p, v),                       \
                           KC__DEV_##S##_SUB(p, v));                           \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_fetch_min_##s(T *p, T v) {                         \
    return KC__ATOMIC_PICK(kc__host_fetch_min_##s(p, v),                       \
                           KC__DEV_##S##_MIN(p, v));                           \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_fetch_max_##s(T *p, T v) {                         \
    return KC__ATOMIC_PICK(kc__host_fetch_max_##s(p, v),                       \
                           KC__DEV_##S##_MAX(p, v));                           \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_exchange_##s(T *p, T v) {                          \
    return KC__ATOMIC_PICK(kc__host_exchange_##s(p, v),                        \
                           KC__DEV_##S##_XCHG(p, v));                          \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_compare_exchange_##s(T *p, T e, T d) {             \
    return KC__ATOMIC_PICK(kc__host_cas_##s(p, e, d),                          \
                           KC__DEV_##S##_CAS(p, e, d));                        \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_load_##s(const T *p) {                             \
    return KC__ATOMIC_PICK(kc__host_load_##s(p), KC__DEV_LOAD(p));             \
  }                                                                            \
  KC__ATOMIC_FN void kc_atomic_store_##s(T *p, T v) {                          \
    KC__ATOMIC_PICK(kc__host_store_##s(p, v), (void)KC__DEV_##S##_XCHG(p, v)); \
  }                                                                            \
  KC__ATOMIC_FN void kc_atomic_add_##s(T *p, T v) {                            \
    (void)kc_atomic_fetch_add_##s(p, v);                                       \
  }                                                                            \
  KC__ATOMIC_FN void kc_atomic_sub_##s(T *p, T v) {                            \
    (void)kc_atomic_fetch_sub_##s(p, v);                                       \
  }                                                                            \
  KC__ATOMIC_FN void kc_atomic_min_##s(T *p, T v) {                            \
    (void)kc_atomic_fetch_min_##s(p, v);                                       \
  }                                                                            \
  KC__ATOMIC_FN void kc_atomic_max_##s(T *p, T v) {                            \
    (void)kc_atomic_fetch_max_##s(p, v);                                       \
  }

KC__ATOMIC_API(i32, I32, int32_t)
KC__ATOMIC_API(i64, I64, int64_t)
KC__ATOMIC_API(u32, U32, uint32_t)
KC__ATOMIC_API(u64, U64, uint64_t)
KC__ATOMIC_API(f32, F32, float)
KC__ATOMIC_API(f64, F64, double)

/* Type-generic names. */
#if defined(__cplusplus)
#define KC__ATOMIC_OVERLOADS(s, T)                                             \
  KC__ATOMIC_FN void kc_atomic_add(T *p, T v) { kc_atomic_add_##s(p, v); }     \
  KC__ATOMIC_FN void kc_atomic_sub(T *p, T v) { kc_atomic_sub_##s(p, v); }     \
  KC__ATOMIC_FN void kc_atomic_min(T *p, T v) { kc_atomic_min_##s(p, v); }     \
  KC__ATOMIC_FN void kc_atomic_max(T *p, T v) { kc_atomic_max_##s(p, v); }     \
  KC__ATOMIC_FN T kc_atomic_fetch_add(T *p, T v) {                             \
    return kc_atomic_fetch_add_##s(p, v);                                      \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_fetch_sub(T *p, T v) {                             \
    return kc_atomic_fetch_sub_##s(p, v);                                      \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_fetch_min(T *p, T v) {                             \
    return kc_atomic_fetch_min_##s(p, v);                                      \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_fetch_max(T *p, T v) {                             \
    return kc_atomic_fetch_max_##s(p, v);                                      \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_exchange(T *p, T v) {                              \
    return kc_atomic_exchange_##s(p, v);                                       \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_compare_exchange(T *p, T e, T d) {                 \
    return kc_atomic_compare_exchange_##s(p, e, d);                            \
  }                                                                            \
  KC__ATOMIC_FN T kc_atomic_load(const T *p) { return kc_atomic_load_##s(p); } \
  KC__ATOMIC_FN void kc_atomic_store(T *p, T v) { kc_atomic_store_##s(p, v); }
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
#endif

#endif /* KC_ATOMIC_H */
