/* kc — host expansion of the kernel macros of <kc/kernel.h>.
 *
 * Do not include this header directly: include <kc/kernel.h>, which picks
 * this file when compiling C for the host and <kc/kernel_cuda.h> under a
 * CUDA compiler.  The macro surface and its meaning are documented in
 * kernel.h; this file says how each macro becomes host code.
 *
 * Every kernel macro expands to three things at file scope:
 *
 *  1. A static host function with the exact type kc.h gives its kind
 *     (kc_host_for_fn, kc_host_reduce_fn, kc_host_scan_fn), kc__host_<name>,
 *     which calls a static inline "chunk" function holding the loop over
 *     [b, e) with the body pasted into it (inside do { } while (0)), so the
 *     compiler sees the whole loop and can vectorise it:
 *       - the functor pointer is a `const ftype *restrict` parameter of
 *         the chunk function: the functor is the launch's private copy and
 *         never changes during a chunk, so its fields are loop invariants
 *         the compiler hoists out of the loop;
 *       - a FOR loop is marked free of loop-carried dependences (indices of
 *         a parallel_for are independent on every backend): `omp simd`
 *         when OpenMP SIMD pragmas are enabled (kcc passes -fopenmp-simd
 *         and defines KC_HOST_OMP_SIMD; -fopenmp works too), else
 *         `GCC ivdep` / `clang loop vectorize(assume_safety)`;
 *       - a reduction keeps `acc` in a local of its value type, loaded from
 *         the caller's accumulator before the loop and stored back after
 *         it; built-in SUM/PROD/MIN/MAX reductions carry an `omp simd
 *         reduction(...)` clause when OpenMP SIMD pragmas are enabled;
 *       - a scan runs its loop sequentially (the prefix is loop-carried).
 *     Define KC_HOST_NO_VECTOR_HINTS before including kernel.h to get the
 *     plain loops without any pragma.  The chunk function returns a struct,
 *     which makes a `return` in a body a compile error: on the host it
 *     would silently skip the rest of the chunk.  `continue` and `break`
 *     end the current index only.
 *  2. The kernel handle `kc_kernel *kc__kernel_<name>` (external linkage,
 *     what KC_KERNEL(name) names), NULL until registration succeeds.
 *  3. A constructor that registers the kernel with kc_kernel_register()
 *     before main(): its name, kind, host function, reducer and, when kcc
 *     embedded PTX in the object, the PTX text.  A failed registration (the
 *     name is taken, libkc refused it) prints one line on stderr and leaves
 *     the handle NULL; the program goes on, and a launch of the NULL
 *     handle fails with KC_EINVAL.
 *
 * Each macro's expansion ends with a function definition, so the ';' after
 * a kernel macro is optional (with -Wpedantic, leave it out: ISO C calls
 * it an empty declaration).
 *
 * PTX embedding: kcc compiles the file with the macro KC_PTX_TEXT defined
 * as the name of a `const char[]` holding the file's PTX module (the
 * device expansion of the same kernels).  Without it (a plain C compiler,
 * or kcc --no-ptx) kernels are registered host-only (ptx == NULL).
 *
 * Thread safety: the constructors run single-threaded before main() (or
 * at dlopen() of a library holding kernels); handles are only written
 * there.
 */
#ifndef KC_KERNEL_HOST_H
#define KC_KERNEL_HOST_H

#include <stdint.h>
#include <stdio.h>

#include <kc/kc.h>

#if defined(__cplusplus)
#error "kc/kernel_host.h is C11: compile .kc.c files as C (kcc does)"
#endif

/* ------------------------------------------------------------ internals */

#define KC__STR(...) #__VA_ARGS__
#define KC__PRAGMA(...) _Pragma(KC__STR(__VA_ARGS__))

/* Loop hints: KC__HINT_<kind>(acc) goes right before a kernel's loop.
 * The _Pragma must come out of the last macro expansion, never out of a
 * macro argument (GCC would emit it ahead of the expansion), hence the
 * selection by name. */
#if defined(KC_HOST_NO_VECTOR_HINTS)
#define KC__HINT_FOR(acc)
#define KC__HINT_SUM(acc)
#define KC__HINT_PROD(acc)
#define KC__HINT_MIN(acc)
#define KC__HINT_MAX(acc)
#elif defined(_OPENMP) || defined(KC_HOST_OMP_SIMD)
#define KC__HINT_FOR(acc) KC__PRAGMA(omp simd)
#define KC__HINT_SUM(acc) KC__PRAGMA(omp simd reduction(+ : acc))
#define KC__HINT_PROD(acc) KC__PRAGMA(omp simd reduction(* : acc))
#define KC__HINT_MIN(acc) KC__PRAGMA(omp simd reduction(min : acc))
#define KC__HINT_MAX(acc) KC__PRAGMA(omp simd reduction(max : acc))
#else
#if defined(__clang__)
#define KC__HINT_FOR(acc) KC__PRAGMA(clang loop vectorize(assume_safety))
#elif defined(__GNUC__)
#define KC__HINT_FOR(acc) KC__PRAGMA(GCC ivdep)
#else
#define KC__HINT_FOR(acc)
#endif
#define KC__HINT_SUM(acc)
#define KC__HINT_PROD(acc)
#define KC__HINT_MIN(acc)
#define KC__HINT_MAX(acc)
#endif
#define KC__HINT_NONE(acc)

/* Every kernel's loop lives in a static inline "chunk" function that
 * returns this type, called by the host entry (which returns void, as kc.h
 * wants).  So a `return;` in a kernel body, which on the host would end the
 * whole chunk and skip the indices after it, is a compile error (gcc's
 * -Wreturn-type is raised to an error around the function), and so is
 * `return value;`.  The body also runs inside do { } while (0): `continue`
 * and `break` both end the current index only, as on the device. */
typedef struct kc__no_return_in_kernel_body {
  char unused;
} kc__no_return_in_kernel_body;
#define KC__BODY_DONE ((kc__no_return_in_kernel_body){0})
#define KC__BODY(...)                                                          \
  do {                                                                         \
    __VA_ARGS__;                                                               \
  } while (0)

/* Around each chunk function and host entry: the error above; and clang's
 * report of a hinted loop it could not vectorise (-Wpass-failed, at the
 * function the loop ends up in), which -Werror would turn into an error
 * although the code is correct. */
#if defined(__clang__)
#define KC__FN_BEGIN                                                           \
  KC__PRAGMA(clang diagnostic push)                                            \
  KC__PRAGMA(clang diagnostic error "-Wreturn-type")                           \
  KC__PRAGMA(clang diagnostic ignored "-Wunknown-warning-option")              \
  KC__PRAGMA(clang diagnostic ignored "-Wpass-failed")
#define KC__FN_END KC__PRAGMA(clang diagnostic pop)
#elif defined(__GNUC__)
#define KC__FN_BEGIN                                                           \
  KC__PRAGMA(GCC diagnostic push)                                              \
  KC__PRAGMA(GCC diagnostic error "-Wreturn-type")
#define KC__FN_END KC__PRAGMA(GCC diagnostic pop)
#else
#define KC__FN_BEGIN
#define KC__FN_END
#endif

#if defined(__GNUC__)
#define KC__CONSTRUCTOR __attribute__((constructor))
#define KC__UNUSED __attribute__((unused))
#else
#error "kc/kernel_host.h needs a compiler with __attribute__((constructor))"
#endif

/* The kc_scalar of a built-in reducer's value type. */
/* clang-format off */
#define KC__SCALAR(vtype)                                                      \
  _Generic((vtype)0,                                                           \
      int32_t: KC_INT32,                                                       \
      int64_t: KC_INT64,                                                       \
      float: KC_FLOAT,                                                         \
      double: KC_DOUBLE)
/* clang-format on */

/* kc__loc_<vtype>: the MINLOC/MAXLOC value type for each built-in vtype
 * spelling (token pasting needs one name per spelling). */
typedef kc_loc_int32 kc__loc_int32_t;
typedef kc_loc_int64 kc__loc_int64_t;
typedef kc_loc_float kc__loc_float;
typedef kc_loc_double kc__loc_double;

/* The embedded PTX, if kcc provided one. */
#if defined(KC_PTX_TEXT)
#define KC__PTX_FIELDS(name) .ptx = KC_PTX_TEXT, .ptx_entry = #name,
#else
#define KC__PTX_FIELDS(name) .ptx = NULL, .ptx_entry = NULL,
#endif

/* Registers one kernel; on failure one line on stderr, *out untouched. */
static inline KC__UNUSED void
kc__host_register(const kc_kernel_desc *d, kc_kernel **out, const char *file) {
  kc_kernel *k = NULL;
  int rc = kc_kernel_register(d, &k);
  if (rc == 0) {
    *out = k;
  } else {
    const char *detail = kc_last_error();
    fprintf(stderr, "kc: %s: kernel \"%s\" not registered: %s\n", file, d->name,
            detail && detail[0] ? detail : kc_strerror(rc));
  }
}

/* Handle + constructor of kernel `name`.  `reducer` is a kc_reducer
 * compound literal. */
#define KC__REGISTER(kname, kind_, fn, reducer_)                               \
  kc_kernel *kc__kernel_##kname = NULL;                                        \
  static void kc__register_##kname(void) KC__CONSTRUCTOR;                      \
  static void kc__register_##kname(void) {                                     \
    const kc_kernel_desc kc__d = {.struct_size = sizeof(kc_kernel_desc),       \
                                  .name = #kname,                              \
                                  .kind = (kind_),                             \
                                  .rank = 1,                                   \
                                  .host = (void (*)(void))(fn),                \
                                  KC__PTX_FIELDS(kname).reducer = reducer_,    \
                                  .signature = NULL};                          \
    kc__host_register(&kc__d, &kc__kernel_##kname, __FILE__);                  \
  }

#define KC__BUILTIN_REDUCER(op_, vtype)                                        \
  ((kc_reducer){.op = (op_), .type = KC__SCALAR(vtype)})

#define KC__CUSTOM_REDUCER(rname, vtype)                                       \
  ((kc_reducer){.op = KC_REDUCE_CUSTOM,                                        \
                .size = sizeof(vtype),                                         \
                .identity = kc__rid_##rname,                                   \
                .join = kc__rjoin_##rname})

#define KC__NO_REDUCER ((kc_reducer){.op = KC_REDUCE_NONE})

/* A reduction's chunk function and host entry, over a local accumulator of
 * type `atype` loaded from and stored back to the caller's. */
#define KC__REDUCE_FN(name, ftype, f, i, atype, acc, hint, ...)                \
  KC__FN_BEGIN                                                                 \
  static inline kc__no_return_in_kernel_body kc__chunk_##name(                 \
      const ftype *restrict const f, kc_index kc__b, kc_index kc__e,           \
      void *kc__acc) {                                                         \
    atype acc = *(atype *)kc__acc;                                             \
    (void)f;                                                                   \
    KC__HINT_##hint(acc) for (kc_index i = kc__b; i < kc__e; ++i) {            \
      KC__BODY(__VA_ARGS__);                                                   \
    }                                                                          \
    *(atype *)kc__acc = acc;                                                   \
    return KC__BODY_DONE;                                                      \
  }                                                                            \
  static void kc__host_##name(const void *kc__functor, kc_index kc__b,         \
                              kc_index kc__e, void *kc__acc) {                 \
    (void)kc__chunk_##name((const ftype *)kc__functor, kc__b, kc__e, kc__acc); \
  }                                                                            \
  KC__FN_END

#define KC__REDUCE_BUILTIN(name, ftype, f, i, vtype, acc, op, hint, ...)       \
  KC__REDUCE_FN(name, ftype, f, i, vtype, acc, hint, __VA_ARGS__)              \
  KC__REGISTER(name, KC_KERNEL_REDUCE, kc__host_##name,                        \
               KC__BUILTIN_REDUCER(op, vtype))

/* ------------------------------------------------------- public macros */

#define KC_FOR(name, ftype, f, i, ...)                                         \
  KC__FN_BEGIN                                                                 \
  static inline kc__no_return_in_kernel_body kc__chunk_##name(                 \
      const ftype *restrict const f, kc_index kc__b, kc_index kc__e) {         \
    (void)f;                                                                   \
    KC__HINT_FOR(~) for (kc_index i = kc__b; i < kc__e; ++i) {                 \
      KC__BODY(__VA_ARGS__);                                                   \
    }                                                                          \
    return KC__BODY_DONE;                                                      \
  }                                                                            \
  static void kc__host_##name(const void *kc__functor, kc_index kc__b,         \
                              kc_index kc__e) {                                \
    (void)kc__chunk_##name((const ftype *)kc__functor, kc__b, kc__e);          \
  }                                                                            \
  KC__FN_END                                                                   \
  KC__REGISTER(name, KC_KERNEL_FOR, kc__host_##name, KC__NO_REDUCER)

#define KC_REDUCE_SUM(name, ftype, f, i, vtype, acc, ...)                      \
  KC__REDUCE_BUILTIN(name, ftype, f, i, vtype, acc, KC_REDUCE_SUM, SUM,        \
                     __VA_ARGS__)

#define KC_REDUCE_PROD(name, ftype, f, i, vtype, acc, ...)                     \
  KC__REDUCE_BUILTIN(name, ftype, f, i, vtype, acc, KC_REDUCE_PROD, PROD,      \
                     __VA_ARGS__)

#define KC_REDUCE_MIN(name, ftype, f, i, vtype, acc, ...)                      \
  KC__REDUCE_BUILTIN(name, ftype, f, i, vtype, acc, KC_REDUCE_MIN, MIN,        \
                     __VA_ARGS__)

#define KC_REDUCE_MAX(name, ftype, f, i, vtype, acc, ...)                      \
  KC__REDUCE_BUILTIN(name, ftype, f, i, vtype, acc, KC_REDUCE_MAX, MAX,        \
                     __VA_ARGS__)

/* MINLOC / MAXLOC: the accumulator is a kc_loc_<vtype>; the loop runs in
 * index order, so a body that replaces acc only on a strictly better value
 * keeps the smallest index among ties. */
#define KC_REDUCE_MINLOC(name, ftype, f, i, vtype, acc, ...)                   \
  KC__REDUCE_FN(name, ftype, f, i, kc__loc_##vtype, acc, NONE, __VA_ARGS__)    \
  KC__REGISTER(name, KC_KERNEL_REDUCE, kc__host_##name,                        \
               KC__BUILTIN_REDUCER(KC_REDUCE_MINLOC, vtype))

#define KC_REDUCE_MAXLOC(name, ftype, f, i, vtype, acc, ...)                   \
  KC__REDUCE_FN(name, ftype, f, i, kc__loc_##vtype, acc, NONE, __VA_ARGS__)    \
  KC__REGISTER(name, KC_KERNEL_REDUCE, kc__host_##name,                        \
               KC__BUILTIN_REDUCER(KC_REDUCE_MAXLOC, vtype))

/* Custom reducers.  Each macro is followed by the function body in braces;
 * it defines the typed function the user writes and a static wrapper with
 * the void * signature kc_reducer wants (kc__rid_<rname>,
 * kc__rjoin_<rname>). */
#define KC_REDUCER_IDENTITY(rname, vtype, v)                                   \
  static void kc__ridt_##rname(vtype *v);                                      \
  static KC__UNUSED void kc__rid_##rname(void *kc__v) {                        \
    kc__ridt_##rname((vtype *)kc__v);                                          \
  }                                                                            \
  static void kc__ridt_##rname(vtype *v)

#define KC_REDUCER_JOIN(rname, vtype, dst, src)                                \
  static void kc__rjoint_##rname(vtype *dst, const vtype *src);                \
  static KC__UNUSED void kc__rjoin_##rname(void *kc__dst,                      \
                                           const void *kc__src) {              \
    kc__rjoint_##rname((vtype *)kc__dst, (const vtype *)kc__src);              \
  }                                                                            \
  static void kc__rjoint_##rname(vtype *dst, const vtype *src)

#define KC_REDUCE_CUSTOM(name, ftype, f, i, rname, vtype, acc, ...)            \
  KC__REDUCE_FN(name, ftype, f, i, vtype, acc, NONE, __VA_ARGS__)              \
  KC__REGISTER(name, KC_KERNEL_REDUCE, kc__host_##name,                        \
               KC__CUSTOM_REDUCER(rname, vtype))

/* Scans: kc calls the host function twice per chunk, with final = 0 to
 * total the chunk and final = 1 with acc holding the prefix before it. */
#define KC__SCAN_FN(name, ftype, f, i, vtype, acc, final, ...)                 \
  KC__FN_BEGIN                                                                 \
  static inline kc__no_return_in_kernel_body kc__chunk_##name(                 \
      const ftype *restrict const f, kc_index kc__b, kc_index kc__e,           \
      void *kc__acc, const int final) {                                        \
    vtype acc = *(vtype *)kc__acc;                                             \
    (void)f;                                                                   \
    (void) final;                                                              \
    for (kc_index i = kc__b; i < kc__e; ++i) {                                 \
      KC__BODY(__VA_ARGS__);                                                   \
    }                                                                          \
    *(vtype *)kc__acc = acc;                                                   \
    return KC__BODY_DONE;                                                      \
  }                                                                            \
  static void kc__host_##name(const void *kc__functor, kc_index kc__b,         \
                              kc_index kc__e, void *kc__acc, int kc__final) {  \
    (void)kc__chunk_##name((const ftype *)kc__functor, kc__b, kc__e, kc__acc,  \
                           kc__final);                                         \
  }                                                                            \
  KC__FN_END

#define KC_SCAN(name, ftype, f, i, vtype, acc, final, ...)                     \
  KC__SCAN_FN(name, ftype, f, i, vtype, acc, final, __VA_ARGS__)               \
  KC__REGISTER(name, KC_KERNEL_SCAN, kc__host_##name,                          \
               KC__BUILTIN_REDUCER(KC_REDUCE_SUM, vtype))

#define KC_SCAN_CUSTOM(name, ftype, f, i, rname, vtype, acc, final, ...)       \
  KC__SCAN_FN(name, ftype, f, i, vtype, acc, final, __VA_ARGS__)               \
  KC__REGISTER(name, KC_KERNEL_SCAN, kc__host_##name,                          \
               KC__CUSTOM_REDUCER(rname, vtype))

/* Handles. */
#define KC_KERNEL_DECLARE(name) extern kc_kernel *kc__kernel_##name
#define KC_KERNEL(name) (kc__kernel_##name)

#endif /* KC_KERNEL_HOST_H */
