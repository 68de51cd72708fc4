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
 *       - the functor is the launch's private copy and never changes
 *         during a chunk.  A functor of at most KC_HOST_FUNCTOR_COPY_MAX
 *         (256) bytes is copied into a local of the chunk function and
 *         `f` points at that copy: its fields are then loop invariants the
 *         compiler keeps in registers (a `restrict` parameter alone did
 *         not suffice for gcc 12 in reductions: it treated `f->x[i]` as a
 *         gather and kept the accumulator on the stack).  A larger functor
 *         is read through the `const ftype *restrict` parameter;
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
 *  2. Two kernel handles, NULL until registration succeeds:
 *     `kc__handle_<name>`, hidden and weak, this executable's or shared
 *     library's own, and `kc__kernel_<name>`, exported, for code of other
 *     objects.  KC_KERNEL(name) reads the hidden one where the object
 *     defines the kernel (its address is then not NULL), else the exported
 *     one.  When two objects define a kernel of the same name, the dynamic
 *     linker binds every object's exported name to one of them, but the
 *     hidden handles stay apart: the second object's registration fails,
 *     its KC_KERNEL(name) stays NULL and never becomes the other object's
 *     kernel (which would run with this object's functors).  The two
 *     cannot be one variable under two names: an executable may hold a
 *     copy of the exported one (a copy relocation), which only writes
 *     through that name reach.
 *  3. A constructor that registers the kernel with kc_kernel_register()
 *     before main(): its name, kind, host function, reducer and, when kcc
 *     embedded PTX in the object, the PTX text, and sets both handles.  A
 *     failed registration (the name is taken, libkc refused it) prints one
 *     line on stderr and writes neither handle (the exported one may be
 *     another object's, which keeps its kernel); the program goes on, and
 *     a launch of the NULL handle fails with KC_EINVAL.
 *
 * The multi-dimensional, team and chunk kernels follow the same pattern
 * (see their sections below); a team body's `team` is the engine's
 * struct kc_team (<kc/detail/team.h>), on which the nested-loop macros and the
 * kc_team_* accessors work.  A host team has one vector lane (vector loops
 * are `omp simd` loops) and one or more threads: team kernels register
 * with KC_KERNEL_TEAM_THREADS, so the engine may run a team on several
 * threads, each calling the host function with its own handle.  The
 * team-thread loops then give each thread a contiguous part of the range,
 * and the team-wide reductions, scans and broadcast exchange values
 * through the team (kc__team_publish / kc__team_peer, between barriers).
 * With one thread (team->size == 1) every nested construct is the plain
 * loop it was before teams had threads.
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

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <kc/detail/team.h>
#include <kc/kc.h>

/* clang reports a hinted loop it could not vectorise (-Wpass-failed: at
 * -O1, where its vectoriser is off, every `omp simd` loop; at -O2 a body
 * calling a function, a float min without fast-math).  Under -Werror that
 * breaks correct code.  The report is issued by the optimizer at the
 * loop's location, which for a macro-generated loop is the macro's
 * invocation: a diagnostic push/pop inside the expansion does not cover
 * it, so it is turned off here, for the rest of the translation unit that
 * includes kernel.h (a kernel file). */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wunknown-warning-option"
#pragma clang diagnostic ignored "-Wpass-failed"
#endif

#if defined(__cplusplus)
#error "kc/kernel_host.h is C11: compile .kc.c files as C (kcc does)"
#endif

/* ------------------------------------------------------------ internals */

/* Every name this file declares outside the kernel macros' parameters is
 * reserved (kc__, KC__: parameters, locals, members; attributes spelt
 * __unused__): it is compiled after the user's -D options and #defines, so
 * a plain `t` or `level` could be a user's macro (t-kcc-names.sh). */

#define KC__STR(...) #__VA_ARGS__
#define KC__PRAGMA(...) _Pragma(KC__STR(__VA_ARGS__))

/* Loop hints: KC__HINT_<kind>(acc) goes right before a kernel's loop.
 * The _Pragma must come out of the last macro expansion, never out of a
 * macro argument (GCC would emit it ahead of the expansion): macros hand
 * each other a hint's name alone (KC__HINT_SUM), and the one that writes
 * the loop calls it, hint(acc).  The whole name, not SUM to be pasted
 * further down: an argument handed on is macro-expanded first, and a
 * user's `#define SUM 1` would turn it into KC__HINT_1.  For the same
 * reason a nested reduction's OP is pasted in the macro the user calls. */
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
  char kc__unused;
} kc__no_return_in_kernel_body;
#define KC__BODY_DONE ((kc__no_return_in_kernel_body){0})
#define KC__BODY(...)                                                          \
  do {                                                                         \
    __VA_ARGS__;                                                               \
  } while (0)

/* `f` in a chunk function: a local copy of a small functor (its fields are
 * then provably loop invariant), else the restrict parameter `kc__fp`.
 * The size test is a constant: the compiler keeps one branch.  memcpy,
 * not assignment, so a functor with const members compiles too.  A launch
 * with no functor (kc.h allows NULL with size 0) passes kc__fp == NULL:
 * memcpy from NULL is undefined even though such a body never reads `f`,
 * so the local is zeroed instead (one test before the loop; `f` still
 * points at the local, so the loop compiles as before, and the local is
 * set on both paths, which gcc's -Wmaybe-uninitialized wants). */
#ifndef KC_HOST_FUNCTOR_COPY_MAX
#define KC_HOST_FUNCTOR_COPY_MAX 256
#endif
#define KC__FUNCTOR_LOCAL(ftype, f)                                            \
  ftype kc__fl;                                                                \
  if (sizeof(ftype) <= KC_HOST_FUNCTOR_COPY_MAX) {                             \
    if (__builtin_expect(kc__fp != NULL, 1))                                   \
      __builtin_memcpy(&kc__fl, kc__fp, sizeof(ftype));                        \
    else                                                                       \
      __builtin_memset(&kc__fl, 0, sizeof(ftype));                             \
  }                                                                            \
  const ftype *const f =                                                       \
      sizeof(ftype) <= KC_HOST_FUNCTOR_COPY_MAX ? &kc__fl : kc__fp;            \
  (void)f

/* Around each chunk function and host entry: the error above (clang's
 * -Wpass-failed is off file-wide, see the top of this file). */
#if defined(__clang__)
#define KC__FN_BEGIN                                                           \
  KC__PRAGMA(clang diagnostic push)                                            \
  KC__PRAGMA(clang diagnostic error "-Wreturn-type")
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
#define KC__CONSTRUCTOR __attribute__((__constructor__))
#define KC__UNUSED __attribute__((__unused__))
#define KC__WEAK __attribute__((__weak__))
#define KC__HIDDEN __attribute__((__visibility__("hidden")))
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

/* Registers one kernel and sets its two handles; on failure one line on
 * stderr, the handles untouched. */
static inline KC__UNUSED void kc__host_register(const kc_kernel_desc *kc__d,
                                                kc_kernel **kc__own,
                                                kc_kernel **kc__exported,
                                                const char *kc__file) {
  kc_kernel *kc__k = NULL;
  int kc__rc = kc_kernel_register(kc__d, &kc__k);
  if (kc__rc == 0) {
    *kc__own = kc__k;
    *kc__exported = kc__k;
  } else {
    const char *kc__detail = kc_last_error();
    fprintf(stderr, "kc: %s: kernel \"%s\" not registered: %s\n", kc__file,
            kc__d->name,
            kc__detail && kc__detail[0] ? kc__detail : kc_strerror(kc__rc));
  }
}

/* Handle + constructor of kernel `name` over functors of type `ftype_`
 * (their size is registered: a launch with another size is refused).
 * `reducer` is a kc_reducer compound literal. */
#define KC__REGISTER(kname, ftype_, kind_, fn, reducer_)                       \
  KC__REGISTER_EX(kname, ftype_, kind_, fn, reducer_, 1, KC__AFTER_NONE)

/* The general form: `rank_` for MD kernels, and `after(kname)`, statements
 * run once the kernel is registered (team kernels attach their scratch
 * function there). */
#define KC__AFTER_NONE(kname)
#define KC__REGISTER_EX(kname, ftype_, kind_, fn, reducer_, rank_, after)      \
  extern KC__WEAK kc_kernel *kc__handle_##kname;                               \
  KC__HIDDEN kc_kernel *kc__handle_##kname = NULL;                             \
  kc_kernel *kc__kernel_##kname = NULL;                                        \
  static void kc__register_##kname(void) KC__CONSTRUCTOR;                      \
  static void kc__register_##kname(void) {                                     \
    const kc_kernel_desc kc__d = {.struct_size = sizeof(kc_kernel_desc),       \
                                  .name = #kname,                              \
                                  .kind = (kind_),                             \
                                  .rank = (rank_),                             \
                                  .host = (void (*)(void))(fn),                \
                                  KC__PTX_FIELDS(kname).reducer = reducer_,    \
                                  .signature = NULL,                           \
                                  .functor_size = sizeof(ftype_),              \
                                  .flags = KC__KIND_FLAGS(kind_)};             \
    kc__host_register(&kc__d, &kc__handle_##kname, &kc__kernel_##kname,        \
                      __FILE__);                                               \
    after(kname)                                                               \
  }

/* Team kernels' host functions run as one thread of a team (the nested
 * macros below split and synchronise by the handle's rank and size). */
#define KC__KIND_FLAGS(kind_)                                                  \
  (((kind_) == KC_KERNEL_TEAM || (kind_) == KC_KERNEL_TEAM_REDUCE)             \
       ? KC_KERNEL_TEAM_THREADS                                                \
       : 0u)

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
      const ftype *restrict const kc__fp, kc_index kc__b, kc_index kc__e,      \
      void *kc__acc) {                                                         \
    KC__FUNCTOR_LOCAL(ftype, f);                                               \
    atype acc = *(atype *)kc__acc;                                             \
    hint(acc) for (kc_index i = kc__b; i < kc__e; ++i) {                       \
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
  KC__REGISTER(name, ftype, KC_KERNEL_REDUCE, kc__host_##name,                 \
               KC__BUILTIN_REDUCER(op, vtype))

/* ------------------------------------------------------- public macros */

/* Every public kernel macro begins with KC__NAME_CHECK("kernel", #name,
 * kc__nc_##name, name) (and the same for a reducer's name): a name that is
 * a macro would be expanded wherever one macro hands it to another, so the
 * kernel would be registered, and its handle named, after the expansion,
 * and the device pass would fail on "1__kcb".  gcc and clang predefine
 * linux and unix (as 1) in their GNU modes, their default; nvcc follows
 * its host compiler.  The check compares the name as written with its
 * expansion, as names: ## does not expand its operands, so kc__nc_##name
 * is the name as written, while the last argument arrives expanded and
 * KC__NAME_TAG pastes the same prefix onto the expansion.  Both become
 * struct tags, and a pointer to an undeclared tag is a valid type (it
 * declares the tag), so the two types are the same exactly when the name
 * is not a macro, and the static assertion says so in its message, for a
 * macro of any length (the lengths alone let `#define foo bar` through).
 * An expansion that does not begin with a letter, digit or `_` is a
 * pasting error instead.  _Static_assert is C11: __extension__ keeps a C99
 * -pedantic build of a kernel file quiet, as its GNU compilers take it in
 * every mode. */
#if defined(__GNUC__)
#define KC__STATIC_ASSERT __extension__ _Static_assert
#else
#define KC__STATIC_ASSERT _Static_assert
#endif
#define KC__NAME_TAG(...) KC__NAME_TAG_(kc__nc_, __VA_ARGS__)
#define KC__NAME_TAG_(prefix, ...) prefix##__VA_ARGS__
#define KC__NAME_CHECK(what, str, tag, ...)                                    \
  KC__STATIC_ASSERT(                                                           \
      __builtin_types_compatible_p(struct tag *,                               \
                                   struct KC__NAME_TAG(__VA_ARGS__) *),        \
      "kc: the " what " name " str " is a macro (it expands to " #__VA_ARGS__  \
      "): rename the " what                                                    \
      " or the macro (GNU modes such as -std=gnu17, the default, predefine "   \
      "linux and unix; -std=c11 does not) (doc/kernels.md)");

/* The host has no read-only data path (kernel.h). */
#define KC_LDG(p) (*(p))

#define KC_FOR(name, ftype, f, i, ...)                                         \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__FN_BEGIN                                                                 \
  static inline kc__no_return_in_kernel_body kc__chunk_##name(                 \
      const ftype *restrict const kc__fp, kc_index kc__b, kc_index kc__e) {    \
    KC__FUNCTOR_LOCAL(ftype, f);                                               \
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
  KC__REGISTER(name, ftype, KC_KERNEL_FOR, kc__host_##name, KC__NO_REDUCER)

#define KC_REDUCE_SUM(name, ftype, f, i, vtype, acc, ...)                      \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__REDUCE_BUILTIN(name, ftype, f, i, vtype, acc, KC_REDUCE_SUM,             \
                     KC__HINT_SUM, __VA_ARGS__)

#define KC_REDUCE_PROD(name, ftype, f, i, vtype, acc, ...)                     \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__REDUCE_BUILTIN(name, ftype, f, i, vtype, acc, KC_REDUCE_PROD,            \
                     KC__HINT_PROD, __VA_ARGS__)

#define KC_REDUCE_MIN(name, ftype, f, i, vtype, acc, ...)                      \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__REDUCE_BUILTIN(name, ftype, f, i, vtype, acc, KC_REDUCE_MIN,             \
                     KC__HINT_MIN, __VA_ARGS__)

#define KC_REDUCE_MAX(name, ftype, f, i, vtype, acc, ...)                      \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__REDUCE_BUILTIN(name, ftype, f, i, vtype, acc, KC_REDUCE_MAX,             \
                     KC__HINT_MAX, __VA_ARGS__)

/* MINLOC / MAXLOC: the accumulator is a kc_loc_<vtype>; the loop runs in
 * index order, so a body that replaces acc only on a strictly better value
 * keeps the smallest index among ties. */
#define KC_REDUCE_MINLOC(name, ftype, f, i, vtype, acc, ...)                   \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__REDUCE_FN(name, ftype, f, i, kc__loc_##vtype, acc, KC__HINT_NONE,        \
                __VA_ARGS__)                                                   \
  KC__REGISTER(name, ftype, KC_KERNEL_REDUCE, kc__host_##name,                 \
               KC__BUILTIN_REDUCER(KC_REDUCE_MINLOC, vtype))

#define KC_REDUCE_MAXLOC(name, ftype, f, i, vtype, acc, ...)                   \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__REDUCE_FN(name, ftype, f, i, kc__loc_##vtype, acc, KC__HINT_NONE,        \
                __VA_ARGS__)                                                   \
  KC__REGISTER(name, ftype, KC_KERNEL_REDUCE, kc__host_##name,                 \
               KC__BUILTIN_REDUCER(KC_REDUCE_MAXLOC, vtype))

/* Custom reducers.  Each macro is followed by the function body in braces;
 * it defines the typed function the user writes and a static wrapper with
 * the void * signature kc_reducer wants (kc__rid_<rname>,
 * kc__rjoin_<rname>). */
#define KC_REDUCER_IDENTITY(rname, vtype, v)                                   \
  _Static_assert(_Alignof(vtype) <= 64,                                        \
                 "kc: a custom reducer's value type may need at most "         \
                 "64-byte alignment (doc/kernels.md)");                        \
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
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__NAME_CHECK("reducer", #rname, kc__nc_##rname, rname)                     \
  KC__REDUCE_FN(name, ftype, f, i, vtype, acc, KC__HINT_NONE, __VA_ARGS__)     \
  KC__REGISTER(name, ftype, KC_KERNEL_REDUCE, kc__host_##name,                 \
               KC__CUSTOM_REDUCER(rname, vtype))

/* Scans: kc calls the host function twice per chunk, with final = 0 to
 * total the chunk and final = 1 with acc holding the prefix before it. */
#define KC__SCAN_FN(name, ftype, f, i, vtype, acc, final, ...)                 \
  KC__FN_BEGIN                                                                 \
  static inline kc__no_return_in_kernel_body kc__chunk_##name(                 \
      const ftype *restrict const kc__fp, kc_index kc__b, kc_index kc__e,      \
      void *kc__acc, const int final) {                                        \
    KC__FUNCTOR_LOCAL(ftype, f);                                               \
    vtype acc = *(vtype *)kc__acc;                                             \
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
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__SCAN_FN(name, ftype, f, i, vtype, acc, final, __VA_ARGS__)               \
  KC__REGISTER(name, ftype, KC_KERNEL_SCAN, kc__host_##name,                   \
               KC__BUILTIN_REDUCER(KC_REDUCE_SUM, vtype))

#define KC_SCAN_CUSTOM(name, ftype, f, i, rname, vtype, acc, final, ...)       \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__NAME_CHECK("reducer", #rname, kc__nc_##rname, rname)                     \
  KC__SCAN_FN(name, ftype, f, i, vtype, acc, final, __VA_ARGS__)               \
  KC__REGISTER(name, ftype, KC_KERNEL_SCAN, kc__host_##name,                   \
               KC__CUSTOM_REDUCER(rname, vtype))

/* -------------------------------------------------- multi-dimensional */

/* An index list `(i, j, k)`: its length (the rank) and its names.  Every
 * list is unpacked with a trailing dummy argument so that no variadic
 * macro is invoked with an empty `...` (not ISO C11). */
#define KC__UNPACK(...) __VA_ARGS__
#define KC__APPLY(m, args) m args
#define KC__CAT(a, b) KC__CAT_(a, b)
#define KC__CAT_(a, b) a##b
#define KC__RANK_(a1, a2, a3, a4, a5, a6, n, ...) n
#define KC__RANK(idx)                                                          \
  KC__APPLY(KC__RANK_, (KC__UNPACK idx, 6, 5, 4, 3, 2, 1, 0))
#define KC__I0(a, ...) a
#define KC__I1(a, b, ...) b
#define KC__I2(a, b, c, ...) c
#define KC__I3(a, b, c, d, ...) d
#define KC__I4(a, b, c, d, e, ...) e
#define KC__I5(a, b, c, d, e, g, ...) g
#define KC__IDX(d, idx) KC__APPLY(KC__I##d, (KC__UNPACK idx, ~))

/* An outer dimension's loop, and the innermost one (contiguous, hinted:
 * `omp simd` for FOR, with a reduction clause for built-in reductions). */
#define KC__MDL(d, idx)                                                        \
  for (kc_index KC__IDX(d, idx) = kc__lo[d], kc__e##d = kc__hi[d];             \
       KC__IDX(d, idx) < kc__e##d; ++KC__IDX(d, idx))
#define KC__MDL_IN(d, idx, hint, acc)                                          \
  const kc_index kc__b##d = kc__lo[d], kc__e##d = kc__hi[d];                   \
  hint(acc) for (kc_index KC__IDX(d, idx) = kc__b##d;                          \
                 KC__IDX(d, idx) < kc__e##d; ++KC__IDX(d, idx))

#define KC__MDLOOPS_2(idx, hint, acc, ...)                                     \
  KC__MDL(0, idx) {                                                            \
    KC__MDL_IN(1, idx, hint, acc) { KC__BODY(__VA_ARGS__); }                   \
  }
#define KC__MDLOOPS_3(idx, hint, acc, ...)                                     \
  KC__MDL(0, idx) {                                                            \
    KC__MDL(1, idx) {                                                          \
      KC__MDL_IN(2, idx, hint, acc) { KC__BODY(__VA_ARGS__); }                 \
    }                                                                          \
  }
#define KC__MDLOOPS_4(idx, hint, acc, ...)                                     \
  KC__MDL(0, idx) {                                                            \
    KC__MDL(1, idx) {                                                          \
      KC__MDL(2, idx) {                                                        \
        KC__MDL_IN(3, idx, hint, acc) { KC__BODY(__VA_ARGS__); }               \
      }                                                                        \
    }                                                                          \
  }
#define KC__MDLOOPS_5(idx, hint, acc, ...)                                     \
  KC__MDL(0, idx) {                                                            \
    KC__MDL(1, idx) {                                                          \
      KC__MDL(2, idx) {                                                        \
        KC__MDL(3, idx) {                                                      \
          KC__MDL_IN(4, idx, hint, acc) { KC__BODY(__VA_ARGS__); }             \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }
#define KC__MDLOOPS_6(idx, hint, acc, ...)                                     \
  KC__MDL(0, idx) {                                                            \
    KC__MDL(1, idx) {                                                          \
      KC__MDL(2, idx) {                                                        \
        KC__MDL(3, idx) {                                                      \
          KC__MDL(4, idx) {                                                    \
            KC__MDL_IN(5, idx, hint, acc) { KC__BODY(__VA_ARGS__); }           \
          }                                                                    \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }
#define KC__MDLOOPS(idx, hint, acc, ...)                                       \
  _Static_assert(KC__RANK(idx) >= 2 && KC__RANK(idx) <= KC_MAX_RANK,           \
                 "an MD kernel takes 2 to 6 index names, as (i, j, ...)");     \
  KC__CAT(KC__MDLOOPS_, KC__RANK(idx))(idx, hint, acc, __VA_ARGS__)

/* The box [kc__lo[d], kc__hi[d]) of a kc_host_mdfor_fn / mdreduce_fn. */
#define KC__MDFOR_FN(name, ftype, f, idx, ...)                                 \
  KC__FN_BEGIN                                                                 \
  static inline kc__no_return_in_kernel_body kc__chunk_##name(                 \
      const ftype *restrict const kc__fp, const kc_index *restrict kc__lo,     \
      const kc_index *restrict kc__hi) {                                       \
    KC__FUNCTOR_LOCAL(ftype, f);                                               \
    KC__MDLOOPS(idx, KC__HINT_FOR, ~, __VA_ARGS__)                             \
    return KC__BODY_DONE;                                                      \
  }                                                                            \
  static void kc__host_##name(const void *kc__functor, const kc_index *kc__lo, \
                              const kc_index *kc__hi) {                        \
    (void)kc__chunk_##name((const ftype *)kc__functor, kc__lo, kc__hi);        \
  }                                                                            \
  KC__FN_END

#define KC__MDREDUCE_FN(name, ftype, f, idx, atype, acc, hint, ...)            \
  KC__FN_BEGIN                                                                 \
  static inline kc__no_return_in_kernel_body kc__chunk_##name(                 \
      const ftype *restrict const kc__fp, const kc_index *restrict kc__lo,     \
      const kc_index *restrict kc__hi, void *kc__acc) {                        \
    KC__FUNCTOR_LOCAL(ftype, f);                                               \
    atype acc = *(atype *)kc__acc;                                             \
    KC__MDLOOPS(idx, hint, acc, __VA_ARGS__)                                   \
    *(atype *)kc__acc = acc;                                                   \
    return KC__BODY_DONE;                                                      \
  }                                                                            \
  static void kc__host_##name(const void *kc__functor, const kc_index *kc__lo, \
                              const kc_index *kc__hi, void *kc__acc) {         \
    (void)kc__chunk_##name((const ftype *)kc__functor, kc__lo, kc__hi,         \
                           kc__acc);                                           \
  }                                                                            \
  KC__FN_END

#define KC_MDFOR(name, ftype, f, idx, ...)                                     \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__MDFOR_FN(name, ftype, f, idx, __VA_ARGS__)                               \
  KC__REGISTER_EX(name, ftype, KC_KERNEL_MDFOR, kc__host_##name,               \
                  KC__NO_REDUCER, KC__RANK(idx), KC__AFTER_NONE)

#define KC__MDREDUCE_BUILTIN(name, ftype, f, idx, vtype, acc, op, hint, ...)   \
  KC__MDREDUCE_FN(name, ftype, f, idx, vtype, acc, hint, __VA_ARGS__)          \
  KC__REGISTER_EX(name, ftype, KC_KERNEL_MDREDUCE, kc__host_##name,            \
                  KC__BUILTIN_REDUCER(op, vtype), KC__RANK(idx),               \
                  KC__AFTER_NONE)

#define KC_MDREDUCE_SUM(name, ftype, f, idx, vtype, acc, ...)                  \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__MDREDUCE_BUILTIN(name, ftype, f, idx, vtype, acc, KC_REDUCE_SUM,         \
                       KC__HINT_SUM, __VA_ARGS__)
#define KC_MDREDUCE_PROD(name, ftype, f, idx, vtype, acc, ...)                 \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__MDREDUCE_BUILTIN(name, ftype, f, idx, vtype, acc, KC_REDUCE_PROD,        \
                       KC__HINT_PROD, __VA_ARGS__)
#define KC_MDREDUCE_MIN(name, ftype, f, idx, vtype, acc, ...)                  \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__MDREDUCE_BUILTIN(name, ftype, f, idx, vtype, acc, KC_REDUCE_MIN,         \
                       KC__HINT_MIN, __VA_ARGS__)
#define KC_MDREDUCE_MAX(name, ftype, f, idx, vtype, acc, ...)                  \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__MDREDUCE_BUILTIN(name, ftype, f, idx, vtype, acc, KC_REDUCE_MAX,         \
                       KC__HINT_MAX, __VA_ARGS__)
#define KC_MDREDUCE_CUSTOM(name, ftype, f, idx, rname, vtype, acc, ...)        \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__NAME_CHECK("reducer", #rname, kc__nc_##rname, rname)                     \
  KC__MDREDUCE_FN(name, ftype, f, idx, vtype, acc, KC__HINT_NONE, __VA_ARGS__) \
  KC__REGISTER_EX(name, ftype, KC_KERNEL_MDREDUCE, kc__host_##name,            \
                  KC__CUSTOM_REDUCER(rname, vtype), KC__RANK(idx),             \
                  KC__AFTER_NONE)

/* ---------------------------------------------------------------- teams */

/* The team handle on the host: team->size threads, one lane.  The
 * accessors take the body's `kc_team *`; the level must be 0 or 1. */
static inline KC__UNUSED kc_index kc_team_league_rank(const kc_team *kc__t) {
  return kc__t->league_rank;
}
static inline KC__UNUSED kc_index kc_team_league_size(const kc_team *kc__t) {
  return kc__t->league_size;
}
static inline KC__UNUSED int kc_team_rank(const kc_team *kc__t) {
  return kc__t->rank;
}
static inline KC__UNUSED int kc_team_size(const kc_team *kc__t) {
  return kc__t->size;
}
static inline KC__UNUSED int kc_team_vector_lane(const kc_team *kc__t) {
  (void)kc__t;
  return 0;
}
static inline KC__UNUSED int kc_team_vector_length(const kc_team *kc__t) {
  (void)kc__t;
  return 1;
}
static inline KC__UNUSED void kc_team_barrier(const kc_team *kc__t) {
  if (kc__t->size > 1)
    kc__team_barrier(kc__t);
}
static inline KC__UNUSED void *kc_team_scratch(const kc_team *kc__t,
                                               int kc__level) {
  return kc__t->team_scratch[kc__level];
}
static inline KC__UNUSED void *kc_thread_scratch(const kc_team *kc__t,
                                                 int kc__level) {
  return kc__t->thread_scratch[kc__level];
}
static inline KC__UNUSED size_t kc_team_scratch_size(const kc_team *kc__t,
                                                     int kc__level) {
  return kc__t->team_scratch_size[kc__level];
}
static inline KC__UNUSED size_t kc_thread_scratch_size(const kc_team *kc__t,
                                                       int kc__level) {
  return kc__t->thread_scratch_size[kc__level];
}

/* The engine calls a team kernel's host function for a run of league
 * ranks [team->league_rank, team->league_end) (<kc/detail/team.h>), on
 * every thread of the team.  Consecutive ranks reuse the team's scratch:
 * a team of several threads passes a barrier between them, as a GPU block
 * does. */
#define KC__TEAM_FN(name, ftype, f, team, atype, acc, ...)                     \
  KC__FN_BEGIN                                                                 \
  static inline kc__no_return_in_kernel_body kc__chunk_##name(                 \
      const ftype *restrict const kc__fp, kc_team *restrict const team,        \
      void *kc__acc) {                                                         \
    KC__FUNCTOR_LOCAL(ftype, f);                                               \
    atype acc = *(atype *)kc__acc;                                             \
    const kc_index kc__le = team->league_end;                                  \
    for (kc_index kc__lr = team->league_rank; kc__lr < kc__le; ++kc__lr) {     \
      team->league_rank = kc__lr;                                              \
      KC__BODY(__VA_ARGS__);                                                   \
      if (kc__lr + 1 < kc__le)                                                 \
        kc_team_barrier(team);                                                 \
    }                                                                          \
    *(atype *)kc__acc = acc;                                                   \
    return KC__BODY_DONE;                                                      \
  }                                                                            \
  KC__FN_END

/* A team-for kernel's accumulator is a dummy the body cannot name. */
typedef struct kc__team_noacc {
  char kc__unused;
} kc__team_noacc;

/* The scratch function of team kernel `name`, if the program defines one
 * (KC_TEAM_SCRATCH_SIZE, in any file): a weak reference, NULL otherwise. */
#define KC__TEAM_SCRATCH_DECL(name)                                            \
  extern size_t kc__team_scratch_##name(const void *, int, int)                \
      __attribute__((__weak__));
#define KC__AFTER_TEAM(kname)                                                  \
  if (kc__handle_##kname && kc__team_scratch_##kname)                          \
    (void)kc_kernel_set_team_scratch(kc__handle_##kname,                       \
                                     kc__team_scratch_##kname);

#define KC_TEAM(name, ftype, f, team, ...)                                     \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__TEAM_FN(name, ftype, f, team, kc__team_noacc, kc__noacc_##name,          \
              __VA_ARGS__)                                                     \
  KC__FN_BEGIN                                                                 \
  static void kc__host_##name(const void *kc__functor,                         \
                              struct kc_team *kc__team) {                      \
    kc__team_noacc kc__a = {0};                                                \
    (void)kc__chunk_##name((const ftype *)kc__functor, kc__team, &kc__a);      \
  }                                                                            \
  KC__FN_END                                                                   \
  KC__TEAM_SCRATCH_DECL(name)                                                  \
  KC__REGISTER_EX(name, ftype, KC_KERNEL_TEAM, kc__host_##name,                \
                  KC__NO_REDUCER, 1, KC__AFTER_TEAM)

#define KC__TEAM_REDUCE(name, ftype, f, team, vtype, acc, reducer, ...)        \
  KC__TEAM_FN(name, ftype, f, team, vtype, acc, __VA_ARGS__)                   \
  KC__FN_BEGIN                                                                 \
  static void kc__host_##name(const void *kc__functor,                         \
                              struct kc_team *kc__team, void *kc__acc) {       \
    (void)kc__chunk_##name((const ftype *)kc__functor, kc__team, kc__acc);     \
  }                                                                            \
  KC__FN_END                                                                   \
  KC__TEAM_SCRATCH_DECL(name)                                                  \
  KC__REGISTER_EX(name, ftype, KC_KERNEL_TEAM_REDUCE, kc__host_##name,         \
                  reducer, 1, KC__AFTER_TEAM)

#define KC_TEAM_REDUCE_SUM(name, ftype, f, team, vtype, acc, ...)              \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__TEAM_REDUCE(name, ftype, f, team, vtype, acc,                            \
                  KC__BUILTIN_REDUCER(KC_REDUCE_SUM, vtype), __VA_ARGS__)
#define KC_TEAM_REDUCE_PROD(name, ftype, f, team, vtype, acc, ...)             \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__TEAM_REDUCE(name, ftype, f, team, vtype, acc,                            \
                  KC__BUILTIN_REDUCER(KC_REDUCE_PROD, vtype), __VA_ARGS__)
#define KC_TEAM_REDUCE_MIN(name, ftype, f, team, vtype, acc, ...)              \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__TEAM_REDUCE(name, ftype, f, team, vtype, acc,                            \
                  KC__BUILTIN_REDUCER(KC_REDUCE_MIN, vtype), __VA_ARGS__)
#define KC_TEAM_REDUCE_MAX(name, ftype, f, team, vtype, acc, ...)              \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__TEAM_REDUCE(name, ftype, f, team, vtype, acc,                            \
                  KC__BUILTIN_REDUCER(KC_REDUCE_MAX, vtype), __VA_ARGS__)
#define KC_TEAM_REDUCE_CUSTOM(name, ftype, f, team, rname, vtype, acc, ...)    \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__NAME_CHECK("reducer", #rname, kc__nc_##rname, rname)                     \
  KC__TEAM_REDUCE(name, ftype, f, team, vtype, acc,                            \
                  KC__CUSTOM_REDUCER(rname, vtype), __VA_ARGS__)

/* KC_TEAM_SCRATCH_SIZE(name, ftype, f, level, team_size) { body }: the
 * user's typed function and the external `void *` wrapper the kernel's
 * weak reference finds. */
#define KC_TEAM_SCRATCH_SIZE(name, ftype, f, level, team_size)                 \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  static size_t kc__tss_##name(const ftype *f KC__UNUSED,                      \
                               int level KC__UNUSED,                           \
                               int team_size KC__UNUSED);                      \
  size_t kc__team_scratch_##name(const void *, int, int);                      \
  size_t kc__team_scratch_##name(const void *kc__f, int kc__level,             \
                                 int kc__ts) {                                 \
    return kc__tss_##name((const ftype *)kc__f, kc__level, kc__ts);            \
  }                                                                            \
  static size_t kc__tss_##name(const ftype *f KC__UNUSED,                      \
                               int level KC__UNUSED, int team_size KC__UNUSED)

/* --------------------------------------------------------- nested loops */

/* Identities of the nested built-in reductions. */
/* clang-format off */
#define KC__NR_MAXOF(vtype)                                                    \
  ((vtype)_Generic((vtype)0,                                                   \
      int32_t: INT32_MAX, int64_t: INT64_MAX,                                  \
      uint32_t: UINT32_MAX, uint64_t: UINT64_MAX,                              \
      float: __builtin_inff(), double: __builtin_inf()))
#define KC__NR_MINOF(vtype)                                                    \
  ((vtype)_Generic((vtype)0,                                                   \
      int32_t: INT32_MIN, int64_t: INT64_MIN,                                  \
      uint32_t: 0u, uint64_t: (uint64_t)0,                                     \
      float: -__builtin_inff(), double: -__builtin_inf()))
/* clang-format on */
#define KC__NR_IDENT_SUM(vtype) ((vtype)0)
#define KC__NR_IDENT_PROD(vtype) ((vtype)1)
#define KC__NR_IDENT_MIN(vtype) KC__NR_MAXOF(vtype)
#define KC__NR_IDENT_MAX(vtype) KC__NR_MINOF(vtype)

/* Thread t->rank's contiguous part of [b, e) among the team's t->size
 * threads (near-equal parts in rank order; the whole range for one
 * thread). */
static inline KC__UNUSED void kc__team_part(const kc_team *kc__t,
                                            kc_index kc__b, kc_index kc__e,
                                            kc_index *kc__lo,
                                            kc_index *kc__hi) {
  const int kc__n = kc__t->size;
  if (kc__n == 1 || kc__e <= kc__b) {
    *kc__lo = kc__b;
    *kc__hi = kc__e;
    return;
  }
  const kc_index kc__len = kc__e - kc__b, kc__q = kc__len / kc__n,
                 kc__r = kc__len % kc__n, kc__k = kc__t->rank;
  *kc__lo = kc__b + kc__k * kc__q + (kc__k < kc__r ? kc__k : kc__r);
  *kc__hi = *kc__lo + kc__q + (kc__k < kc__r);
}

/* A nested loop over the calling thread's lanes: the whole range on its
 * one lane.  `hint` is a loop hint's name (KC__HINT_FOR, ..._NONE). */
#define KC__NESTED_LOOP(team, i, begin, end, hint, acc, ...)                   \
  (void)(team);                                                                \
  const kc_index kc__b_##i = (begin), kc__e_##i = (end);                       \
  hint(acc) for (kc_index i = kc__b_##i; i < kc__e_##i; ++i) {                 \
    KC__BODY(__VA_ARGS__);                                                     \
  }

/* A nested loop over the team's threads: the calling thread's part. */
#define KC__TEAM_LOOP(team, i, begin, end, hint, acc, ...)                     \
  kc_index kc__b_##i, kc__e_##i;                                               \
  kc__team_part((team), (begin), (end), &kc__b_##i, &kc__e_##i);               \
  hint(acc) for (kc_index i = kc__b_##i; i < kc__e_##i; ++i) {                 \
    KC__BODY(__VA_ARGS__);                                                     \
  }

#define KC_TEAM_THREAD_FOR(team, i, begin, end, ...)                           \
  do {                                                                         \
    KC__TEAM_LOOP(team, i, begin, end, KC__HINT_NONE, ~, __VA_ARGS__)          \
  } while (0)
#define KC_THREAD_VECTOR_FOR(team, i, begin, end, ...)                         \
  do {                                                                         \
    KC__NESTED_LOOP(team, i, begin, end, KC__HINT_FOR, ~, __VA_ARGS__)         \
  } while (0)
#define KC_TEAM_VECTOR_FOR(team, i, begin, end, ...)                           \
  do {                                                                         \
    KC__TEAM_LOOP(team, i, begin, end, KC__HINT_FOR, ~, __VA_ARGS__)           \
  } while (0)

/* Joins of the nested built-in reductions, as the top-level ones
 * (libkc/reducer.c): signed SUM and PROD wrap (computed unsigned), MIN and
 * MAX take a NaN running value for missing. */
static inline KC__UNUSED int kc__nr_nan(double kc__x) { return kc__x != kc__x; }
#define KC__NR_WRAP(a, b, op)                                                  \
  _Generic((a), int32_t                                                        \
           : (int32_t)((uint32_t)(a)op(uint32_t)(b)), int64_t                  \
           : (int64_t)((uint64_t)(a)op(uint64_t)(b)), default                  \
           : (a)op(b))
#define KC__NR_JOIN_SUM(a, b) ((a) = KC__NR_WRAP(a, b, +))
#define KC__NR_JOIN_PROD(a, b) ((a) = KC__NR_WRAP(a, b, *))
#define KC__NR_JOIN_MIN(a, b)                                                  \
  ((a) = (b) < (a) || kc__nr_nan((double)(a)) ? (b) : (a))
#define KC__NR_JOIN_MAX(a, b)                                                  \
  ((a) = (b) > (a) || kc__nr_nan((double)(a)) ? (b) : (a))

/* Over the thread's lanes: its one lane's loop. */
#define KC__NESTED_REDUCE(team, i, begin, end, ident, vtype, acc, result,      \
                          hint, ...)                                           \
  do {                                                                         \
    vtype acc = ident(vtype);                                                  \
    KC__NESTED_LOOP(team, i, begin, end, hint, acc, __VA_ARGS__)               \
    (result) = acc;                                                            \
  } while (0)

/* Over the team's threads: each thread folds its part, then every thread
 * joins all the parts in rank order (so all get the same value), and a
 * barrier keeps each part alive until everyone has read it. */
#define KC__TEAM_REDUCE_NR(team, i, begin, end, ident, join, vtype, acc,       \
                           result, hint, ...)                                  \
  do {                                                                         \
    vtype acc = ident(vtype);                                                  \
    KC__TEAM_LOOP(team, i, begin, end, hint, acc, __VA_ARGS__)                 \
    if ((team)->size > 1) {                                                    \
      kc__team_publish((team), &acc);                                          \
      vtype kc__nr_r = *(const vtype *)kc__team_peer((team), 0);               \
      for (int kc__m = 1; kc__m < (team)->size; kc__m++)                       \
        join(kc__nr_r, *(const vtype *)kc__team_peer((team), kc__m));          \
      kc__team_barrier(team);                                                  \
      acc = kc__nr_r;                                                          \
    }                                                                          \
    (result) = acc;                                                            \
  } while (0)

/* Team-thread loops stay plain loops (they may hold vector loops, and an
 * `omp simd` loop must not contain another). */
#define KC_TEAM_THREAD_REDUCE(team, i, begin, end, OP, vtype, acc, result,     \
                              ...)                                             \
  KC__TEAM_REDUCE_NR(team, i, begin, end, KC__NR_IDENT_##OP, KC__NR_JOIN_##OP, \
                     vtype, acc, result, KC__HINT_NONE, __VA_ARGS__)
#define KC_THREAD_VECTOR_REDUCE(team, i, begin, end, OP, vtype, acc, result,   \
                                ...)                                           \
  KC__NESTED_REDUCE(team, i, begin, end, KC__NR_IDENT_##OP, vtype, acc,        \
                    result, KC__HINT_##OP, __VA_ARGS__)
#define KC_TEAM_VECTOR_REDUCE(team, i, begin, end, OP, vtype, acc, result,     \
                              ...)                                             \
  KC__TEAM_REDUCE_NR(team, i, begin, end, KC__NR_IDENT_##OP, KC__NR_JOIN_##OP, \
                     vtype, acc, result, KC__HINT_##OP, __VA_ARGS__)

/* Custom reducers: the parts are contiguous and joined in rank order, so
 * joins happen in index order. */
#define KC__NESTED_REDUCE_CUSTOM(team, i, begin, end, rname, vtype, acc,       \
                                 result, ...)                                  \
  do {                                                                         \
    vtype acc;                                                                 \
    __builtin_memset(&acc, 0, sizeof acc);                                     \
    kc__ridt_##rname(&acc);                                                    \
    KC__NESTED_LOOP(team, i, begin, end, KC__HINT_NONE, acc, __VA_ARGS__)      \
    (result) = acc;                                                            \
  } while (0)
#define KC_TEAM_THREAD_REDUCE_CUSTOM(team, i, begin, end, rname, vtype, acc,   \
                                     result, ...)                              \
  do {                                                                         \
    vtype acc;                                                                 \
    __builtin_memset(&acc, 0, sizeof acc);                                     \
    kc__ridt_##rname(&acc);                                                    \
    KC__TEAM_LOOP(team, i, begin, end, KC__HINT_NONE, acc, __VA_ARGS__)        \
    if ((team)->size > 1) {                                                    \
      kc__team_publish((team), &acc);                                          \
      vtype kc__nr_r;                                                          \
      __builtin_memcpy(&kc__nr_r, kc__team_peer((team), 0), sizeof(vtype));    \
      for (int kc__m = 1; kc__m < (team)->size; kc__m++)                       \
        kc__rjoint_##rname(&kc__nr_r,                                          \
                           (const vtype *)kc__team_peer((team), kc__m));       \
      kc__team_barrier(team);                                                  \
      __builtin_memcpy(&acc, &kc__nr_r, sizeof(vtype));                        \
    }                                                                          \
    (result) = acc;                                                            \
  } while (0)
#define KC_THREAD_VECTOR_REDUCE_CUSTOM(team, i, begin, end, rname, vtype, acc, \
                                       result, ...)                            \
  KC__NESTED_REDUCE_CUSTOM(team, i, begin, end, rname, vtype, acc, result,     \
                           __VA_ARGS__)

/* Scans over a thread's lanes: one ordered pass with final = 1 gives every
 * index its prefix. */
#define KC__NESTED_SCAN(team, i, begin, end, vtype, acc, final, total, ...)    \
  do {                                                                         \
    vtype acc = (vtype)0;                                                      \
    const int final = 1;                                                       \
    (void) final;                                                              \
    KC__NESTED_LOOP(team, i, begin, end, KC__HINT_NONE, acc, __VA_ARGS__)      \
    (total) = acc;                                                             \
  } while (0)
/* Over the team's threads: one thread makes the same single pass; several
 * run their parts with final = 0 to total them, exchange the totals (each
 * takes the sum of the parts before its own, and the grand total), then
 * run their parts again with final = 1, as a device does. */
#define KC_TEAM_THREAD_SCAN(team, i, begin, end, vtype, acc, final, total,     \
                            ...)                                               \
  do {                                                                         \
    kc_index kc__sb_##i, kc__se_##i;                                           \
    kc__team_part((team), (begin), (end), &kc__sb_##i, &kc__se_##i);           \
    const int kc__sn = (team)->size;                                           \
    vtype acc = (vtype)0, kc__st = (vtype)0;                                   \
    for (int kc__sp = kc__sn > 1 ? 0 : 1; kc__sp < 2; kc__sp++) {              \
      if (kc__sp == 1 && kc__sn > 1) {                                         \
        kc__team_publish((team), &acc);                                        \
        vtype kc__pre = (vtype)0;                                              \
        for (int kc__m = 0; kc__m < kc__sn; kc__m++) {                         \
          const vtype kc__v = *(const vtype *)kc__team_peer((team), kc__m);    \
          if (kc__m < (team)->rank)                                            \
            kc__pre += kc__v;                                                  \
          kc__st += kc__v;                                                     \
        }                                                                      \
        kc__team_barrier(team);                                                \
        acc = kc__pre;                                                         \
      }                                                                        \
      const int final = kc__sp;                                                \
      (void) final;                                                            \
      for (kc_index i = kc__sb_##i; i < kc__se_##i; ++i) {                     \
        KC__BODY(__VA_ARGS__);                                                 \
      }                                                                        \
    }                                                                          \
    if (kc__sn == 1)                                                           \
      kc__st = acc;                                                            \
    (total) = kc__st;                                                          \
  } while (0)
#define KC_THREAD_VECTOR_SCAN(team, i, begin, end, vtype, acc, final, total,   \
                              ...)                                             \
  KC__NESTED_SCAN(team, i, begin, end, vtype, acc, final, total, __VA_ARGS__)

#define KC_TEAM_SINGLE(team, ...)                                              \
  do {                                                                         \
    if ((team)->rank == 0)                                                     \
      KC__BODY(__VA_ARGS__);                                                   \
  } while (0)
#define KC_THREAD_SINGLE(team, ...)                                            \
  do {                                                                         \
    (void)(team);                                                              \
    KC__BODY(__VA_ARGS__);                                                     \
  } while (0)
#define KC_TEAM_BROADCAST(team, vtype, var, ...)                               \
  do {                                                                         \
    _Static_assert(sizeof(vtype) <= 64 && sizeof(var) == sizeof(vtype),        \
                   "KC_TEAM_BROADCAST: var must be a vtype of <= 64 bytes");   \
    if ((team)->rank == 0)                                                     \
      KC__BODY(__VA_ARGS__);                                                   \
    if ((team)->size > 1) {                                                    \
      kc__team_publish((team), &(var));                                        \
      if ((team)->rank != 0)                                                   \
        __builtin_memcpy(&(var), kc__team_peer((team), 0), sizeof(vtype));     \
      kc__team_barrier(team);                                                  \
    }                                                                          \
  } while (0)

/* -------------------------------------------------------- chunk buffers */

#ifndef KC_CHUNK_MAX
#define KC_CHUNK_MAX 1024
#endif
#define KC_CHUNK_BUFFERS_MAX 8

/* The calling thread's buffer number `slot` (0 .. KC_CHUNK_BUFFERS_MAX-1),
 * at least `bytes` long, 64-byte aligned: allocated on first use, grown
 * when a larger one is asked for, kept until the thread exits.  Internal:
 * KC_CHUNK_BUFFER calls it.  Out of memory it returns NULL: the chunk's
 * call returns, and the launch fails with KC_ENOMEM.  A bad slot (a
 * KC_CHUNK_BUFFER inside a loop, or too many) prints the reason and
 * aborts.  (kc__chunk_buffer, kc 0.1's, aborts out of memory too.) */
KC_API void *kc__chunk_buffer_try(int kc__slot, size_t kc__bytes);
KC_API void *kc__chunk_buffer(int kc__slot, size_t kc__bytes);

/* The body runs for chunks [b, e) of at most KC_CHUNK_MAX indices of the
 * range the engine gave this call. */
#define KC_FOR_CHUNKS(name, ftype, f, b, e, ...)                               \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__FN_BEGIN                                                                 \
  static inline kc__no_return_in_kernel_body kc__chunk_##name(                 \
      const ftype *restrict const kc__fp, kc_index kc__b, kc_index kc__e) {    \
    KC__FUNCTOR_LOCAL(ftype, f);                                               \
    for (kc_index kc__cs = kc__b; kc__cs < kc__e;) {                           \
      const kc_index b = kc__cs;                                               \
      const kc_index e =                                                       \
          kc__e - kc__cs > KC_CHUNK_MAX ? kc__cs + KC_CHUNK_MAX : kc__e;       \
      const size_t kc__cn = (size_t)(e - b);                                   \
      int kc__cslot = 0;                                                       \
      (void)kc__cn;                                                            \
      (void)kc__cslot;                                                         \
      KC__BODY(__VA_ARGS__);                                                   \
      kc__cs = e;                                                              \
    }                                                                          \
    return KC__BODY_DONE;                                                      \
  }                                                                            \
  static void kc__host_##name(const void *kc__functor, kc_index kc__b,         \
                              kc_index kc__e) {                                \
    (void)kc__chunk_##name((const ftype *)kc__functor, kc__b, kc__e);          \
  }                                                                            \
  KC__FN_END                                                                   \
  KC__REGISTER(name, ftype, KC_KERNEL_FOR, kc__host_##name, KC__NO_REDUCER)

#define KC_CHUNK_BUFFER(type, name)                                            \
  type *restrict const name =                                                  \
      (type *)kc__chunk_buffer_try(kc__cslot++, sizeof(type) * kc__cn);        \
  if (__builtin_expect(name == NULL, 0))                                       \
  return KC__BODY_DONE

/* Handles. */
/* The hidden handle is weak: an object that does not define the kernel
 * sees its address as NULL and reads the exported handle (through a
 * function, so that compilers do not warn that the address of a defined
 * handle is never NULL). */
static inline KC__UNUSED kc_kernel *
kc__pick_handle(kc_kernel *const *kc__own, kc_kernel *const *kc__exported) {
  return kc__own ? *kc__own : *kc__exported;
}
#define KC_KERNEL_DECLARE(name)                                                \
  extern kc_kernel *kc__kernel_##name;                                         \
  extern KC__WEAK kc_kernel *kc__handle_##name
#define KC_KERNEL(name) kc__pick_handle(&kc__handle_##name, &kc__kernel_##name)

#endif /* KC_KERNEL_HOST_H */
