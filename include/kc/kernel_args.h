/* kc — kernels with named arguments, and one-line launches.
 *
 * Included by <kc/kernel.h> in both passes (host C and CUDA C++).  Every
 * kernel macro of kernel.h has a form ending in _ARGS that takes, instead
 * of `ftype, f`, the kernel's arguments as one parenthesised list of
 * (type, name) pairs.  The macro defines the argument struct and the body
 * uses the arguments by name, as a lambda uses what it captures:
 *
 *   KC_FOR_ARGS(saxpy, ((float, a), (const float *, x), (float *, y)), i,
 *               y[i] = a * x[i] + y[i])
 *
 * is KC_FOR(saxpy, kc_args_saxpy, f, i, { ...body with f->a, f->x ... })
 * plus, ahead of it,
 *
 *   typedef struct kc_args_saxpy { float a; const float *x; float *y; }
 *       kc_args_saxpy;
 *
 * Inside the body each argument is a `const` local of its type holding the
 * launch's value (`float *const y`: the pointer is fixed, what it points
 * at is not).  Nothing else changes: the kernel is registered, launched,
 * vectorised and compiled to PTX exactly as the functor form (the locals
 * are copies of loop invariants the compiler hoists).  1 to 32 arguments;
 * a type is any type whose name can be followed by `const name` (scalars,
 * pointers, structs, typedefs; not arrays or function pointers: typedef
 * those first).  An argument must not be named like the kernel's index,
 * accumulator or other macro parameters (it would hide them).
 *
 * The forms (arguments as for the kernel.h macro of the same name without
 * _ARGS, `ftype, f` replaced by `args`):
 *
 *   KC_FOR_ARGS(name, args, i, body...)
 *   KC_REDUCE_SUM_ARGS / _PROD_ / _MIN_ / _MAX_ / _MINLOC_ / _MAXLOC_ARGS
 *       (name, args, i, vtype, acc, body...)
 *   KC_REDUCE_CUSTOM_ARGS(name, args, i, rname, vtype, acc, body...)
 *   KC_SCAN_ARGS(name, args, i, vtype, acc, final, body...)
 *   KC_SCAN_CUSTOM_ARGS(name, args, i, rname, vtype, acc, final, body...)
 *   KC_MDFOR_ARGS(name, args, (i0, i1, ...), body...)
 *   KC_MDREDUCE_SUM_ARGS / _PROD_ / _MIN_ / _MAX_ARGS
 *       (name, args, (i0, ...), vtype, acc, body...)
 *   KC_MDREDUCE_CUSTOM_ARGS(name, args, (i0, ...), rname, vtype, acc, body...)
 *   KC_TEAM_ARGS(name, args, team, body...)
 *   KC_TEAM_REDUCE_SUM / _PROD / _MIN / _MAX_ARGS
 *       (name, args, team, vtype, acc, body...)
 *   KC_TEAM_REDUCE_CUSTOM_ARGS(name, args, team, rname, vtype, acc, body...)
 *   KC_FOR_CHUNKS_ARGS(name, args, b, e, body...)
 *   KC_TEAM_SCRATCH_SIZE_ARGS(name, f, level, team_size) { return n; }
 *       f is a `const kc_args_<name> *` (read f->field)
 *
 * Each also defines `enum { kc__nargs_<name> = <count> }` and, on the host,
 * for reductions and scans, `typedef vtype kc_value_<name>` (MINLOC and
 * MAXLOC: kc_loc_<vtype>), which the launch macros below use.
 *
 * Launches (host C, a .c or .kc.c file that sees the kernel's _ARGS macro,
 * see "Separate files" below).  `policy` is a kc_policy value (kc_range(0,
 * n), kc_mdrange(...), kc_team_policy(...), or a variable); the arguments
 * are designated initializers of kc_args_<name> (or, in declaration order,
 * plain values):
 *
 *   int kc_run_for(name, policy, .a = 2.0f, .x = x, .y = y)
 *       kc_parallel_for; FOR, MDFOR, TEAM and chunk kernels.
 *   int kc_run_reduce(name, policy, result, args...)
 *       kc_parallel_reduce into `result` (a kc_value_<name> *).
 *   int kc_run_scan(name, policy, total, args...)
 *       kc_parallel_scan; `total` may be NULL.
 *   kc_value_<name> kc_reduce(name, policy, args...)
 *   kc_value_<name> kc_scan(name, policy, args...)
 *       the value itself (the reduction; the scan's total).  Having no
 *       way to return an error, these print the failure (the call site,
 *       kc_err_name and kc_last_error()) on stderr and exit(EXIT_FAILURE),
 *       as kc_check() does; they block until the value is there.
 *   The label given to the profiling tools is the kernel's name.
 *
 *   Every argument must be given: a misspelled one is a compile error
 *   ("kc_args_saxpy has no member named ..."), and so is a missing one
 *   (a static assertion: "kc launch: give every argument of the kernel
 *   ..."), counted as the top-level commas of the list: wrap an argument
 *   whose value holds a comma outside parentheses (a compound literal's
 *   braces) in parentheses.  Giving one twice is a warning (gcc -Wextra
 *   -Woverride-init, clang -Winitializer-overrides).  The int forms return
 *   kc_parallel_*'s code; with KC_CHECK_EXIT defined (kc.h) a failure
 *   exits instead, naming the kc_run_* call site.
 *
 * One file: a .kc.c file may hold the host program too.  kcc compiles it
 * twice; its device pass (CUDA C++) must see only kernels, so put the host
 * program (its #includes of system headers too) between
 * `#if !KC_DEVICE_PASS` and `#endif`.  KC_DEVICE_PASS is defined by
 * <kc/kernel.h>: 1 in the device pass, 0 on the host.  Build and link in
 * one step: kcc -o app app.kc.c $(pkg-config --libs kc).
 *
 * Separate files: a host .c file launches kernels of another file by
 * including it with KC_DECLARE_ONLY defined:
 *
 *   #define KC_DECLARE_ONLY
 *   #include "saxpy.kc.c"
 *
 * Then each _ARGS macro gives only the argument struct, the counts, the
 * value types and KC_KERNEL_DECLARE(name): the kernels themselves come
 * from the kcc-built object.  KC_DECLARE_ONLY holds for the whole
 * translation unit (it is read when kernel.h is first included).  The
 * functor forms of kernel.h, hand-registered kernels and the explicit
 * kc_parallel_* calls work as before, beside these.
 */
#ifndef KC_KERNEL_ARGS_H
#define KC_KERNEL_ARGS_H

/* ------------------------------------------------------------ internals */

/* Argument counting (0 to 64) and a map over 1 to 32 items. */
/* clang-format off */
#define KC__NARGS(...) KC__NARGS_(__VA_ARGS__, 64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define KC__NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, _33, _34, _35, _36, _37, _38, _39, _40, _41, _42, _43, _44, _45, _46, _47, _48, _49, _50, _51, _52, _53, _54, _55, _56, _57, _58, _59, _60, _61, _62, _63, _64, n, ...) n
#define KC__MAP_1(m, x) m x
#define KC__MAP_2(m, x, ...) m x KC__MAP_1(m, __VA_ARGS__)
#define KC__MAP_3(m, x, ...) m x KC__MAP_2(m, __VA_ARGS__)
#define KC__MAP_4(m, x, ...) m x KC__MAP_3(m, __VA_ARGS__)
#define KC__MAP_5(m, x, ...) m x KC__MAP_4(m, __VA_ARGS__)
#define KC__MAP_6(m, x, ...) m x KC__MAP_5(m, __VA_ARGS__)
#define KC__MAP_7(m, x, ...) m x KC__MAP_6(m, __VA_ARGS__)
#define KC__MAP_8(m, x, ...) m x KC__MAP_7(m, __VA_ARGS__)
#define KC__MAP_9(m, x, ...) m x KC__MAP_8(m, __VA_ARGS__)
#define KC__MAP_10(m, x, ...) m x KC__MAP_9(m, __VA_ARGS__)
#define KC__MAP_11(m, x, ...) m x KC__MAP_10(m, __VA_ARGS__)
#define KC__MAP_12(m, x, ...) m x KC__MAP_11(m, __VA_ARGS__)
#define KC__MAP_13(m, x, ...) m x KC__MAP_12(m, __VA_ARGS__)
#define KC__MAP_14(m, x, ...) m x KC__MAP_13(m, __VA_ARGS__)
#define KC__MAP_15(m, x, ...) m x KC__MAP_14(m, __VA_ARGS__)
#define KC__MAP_16(m, x, ...) m x KC__MAP_15(m, __VA_ARGS__)
#define KC__MAP_17(m, x, ...) m x KC__MAP_16(m, __VA_ARGS__)
#define KC__MAP_18(m, x, ...) m x KC__MAP_17(m, __VA_ARGS__)
#define KC__MAP_19(m, x, ...) m x KC__MAP_18(m, __VA_ARGS__)
#define KC__MAP_20(m, x, ...) m x KC__MAP_19(m, __VA_ARGS__)
#define KC__MAP_21(m, x, ...) m x KC__MAP_20(m, __VA_ARGS__)
#define KC__MAP_22(m, x, ...) m x KC__MAP_21(m, __VA_ARGS__)
#define KC__MAP_23(m, x, ...) m x KC__MAP_22(m, __VA_ARGS__)
#define KC__MAP_24(m, x, ...) m x KC__MAP_23(m, __VA_ARGS__)
#define KC__MAP_25(m, x, ...) m x KC__MAP_24(m, __VA_ARGS__)
#define KC__MAP_26(m, x, ...) m x KC__MAP_25(m, __VA_ARGS__)
#define KC__MAP_27(m, x, ...) m x KC__MAP_26(m, __VA_ARGS__)
#define KC__MAP_28(m, x, ...) m x KC__MAP_27(m, __VA_ARGS__)
#define KC__MAP_29(m, x, ...) m x KC__MAP_28(m, __VA_ARGS__)
#define KC__MAP_30(m, x, ...) m x KC__MAP_29(m, __VA_ARGS__)
#define KC__MAP_31(m, x, ...) m x KC__MAP_30(m, __VA_ARGS__)
#define KC__MAP_32(m, x, ...) m x KC__MAP_31(m, __VA_ARGS__)
/* clang-format on */
#define KC__ACAT(a, b) KC__ACAT_(a, b)
#define KC__ACAT_(a, b) a##b
#define KC__AUNPAREN(...) __VA_ARGS__
#define KC__ACALL(m, args) m args
#define KC__MAP(m, ...)                                                        \
  KC__ACAT(KC__MAP_, KC__NARGS(__VA_ARGS__))(m, __VA_ARGS__)

/* One argument as a struct member, and as a const local in a body. */
#define KC__ARG_MEMBER(type, name) type name;
#define KC__ARG_BIND(type, name)                                               \
  type const name = kc__args->name;                                            \
  (void)name;

/* The argument struct and its count, identical in both passes. */
#define KC__ARGS_TYPE(kname, args)                                             \
  typedef struct kc_args_##kname {                                             \
    KC__MAP(KC__ARG_MEMBER, KC__AUNPAREN args)                                 \
  } kc_args_##kname;                                                           \
  enum { kc__nargs_##kname = KC__NARGS(KC__AUNPAREN args) };

/* The body with the arguments bound in front of it (in the device pass
 * outside the body's do/while, so that restrict arguments keep their
 * meaning there: detail/kernel_cuda.h). */
#ifdef KC__BODY_FRONT
#define KC__ARGS_BODY(args, ...)                                               \
  KC__BODY_FRONT(KC__MAP(KC__ARG_BIND, KC__AUNPAREN args)) __VA_ARGS__
#else
#define KC__ARGS_BODY(args, ...)                                               \
  KC__MAP(KC__ARG_BIND, KC__AUNPAREN args) __VA_ARGS__
#endif

#if defined(__CUDACC__) || defined(__CUDA_ARCH__)
#define KC__ARGS_VALUE(kname, vtype)
#define KC__ARGS_LOCVALUE(kname, vtype)
#else
#define KC__ARGS_VALUE(kname, vtype) typedef vtype kc_value_##kname;
#define KC__ARGS_LOCVALUE(kname, vtype)                                        \
  typedef kc__loc_##vtype kc_value_##kname;
#endif

/* KC__ARGS_DEF(kname, args, value, macro, (params...), body...): the
 * struct, `value` (a value typedef or nothing), then macro(kname,
 * kc_args_<kname>, kc__args, params..., bound body) — or, with
 * KC_DECLARE_ONLY, the kernel's declaration in its place. */
#define KC__ARGS_NOVALUE(kname, vtype)
#if defined(KC_DECLARE_ONLY) && !(defined(__CUDACC__) || defined(__CUDA_ARCH__))
#define KC__ARGS_DEF(kname, args, value, vtype, macro, params, ...)            \
  KC__ARGS_TYPE(kname, args)                                                   \
  value(kname, vtype) KC_KERNEL_DECLARE(kname);
#else
#define KC__ARGS_DEF(kname, args, value, vtype, macro, params, ...)            \
  KC__ARGS_TYPE(kname, args)                                                   \
  value(kname, vtype)                                                          \
      KC__ACALL(macro, (kname, kc_args_##kname, kc__args, KC__AUNPAREN params, \
                        KC__ARGS_BODY(args, __VA_ARGS__)))
#endif

/* ---------------------------------------------------------- the kernels */

#define KC_FOR_ARGS(name, args, i, ...)                                        \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_NOVALUE, ~, KC_FOR, (i), __VA_ARGS__)

#define KC_REDUCE_SUM_ARGS(name, args, i, vtype, acc, ...)                     \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_VALUE, vtype, KC_REDUCE_SUM,               \
               (i, vtype, acc), __VA_ARGS__)
#define KC_REDUCE_PROD_ARGS(name, args, i, vtype, acc, ...)                    \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_VALUE, vtype, KC_REDUCE_PROD,              \
               (i, vtype, acc), __VA_ARGS__)
#define KC_REDUCE_MIN_ARGS(name, args, i, vtype, acc, ...)                     \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_VALUE, vtype, KC_REDUCE_MIN,               \
               (i, vtype, acc), __VA_ARGS__)
#define KC_REDUCE_MAX_ARGS(name, args, i, vtype, acc, ...)                     \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_VALUE, vtype, KC_REDUCE_MAX,               \
               (i, vtype, acc), __VA_ARGS__)
#define KC_REDUCE_MINLOC_ARGS(name, args, i, vtype, acc, ...)                  \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_LOCVALUE, vtype, KC_REDUCE_MINLOC,         \
               (i, vtype, acc), __VA_ARGS__)
#define KC_REDUCE_MAXLOC_ARGS(name, args, i, vtype, acc, ...)                  \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_LOCVALUE, vtype, KC_REDUCE_MAXLOC,         \
               (i, vtype, acc), __VA_ARGS__)
#define KC_REDUCE_CUSTOM_ARGS(name, args, i, rname, vtype, acc, ...)           \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__NAME_CHECK("reducer", #rname, kc__nc_##rname, rname)                     \
  KC__ARGS_DEF(name, args, KC__ARGS_VALUE, vtype, KC_REDUCE_CUSTOM,            \
               (i, rname, vtype, acc), __VA_ARGS__)

#define KC_SCAN_ARGS(name, args, i, vtype, acc, final, ...)                    \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_VALUE, vtype, KC_SCAN,                     \
               (i, vtype, acc, final), __VA_ARGS__)
#define KC_SCAN_CUSTOM_ARGS(name, args, i, rname, vtype, acc, final, ...)      \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__NAME_CHECK("reducer", #rname, kc__nc_##rname, rname)                     \
  KC__ARGS_DEF(name, args, KC__ARGS_VALUE, vtype, KC_SCAN_CUSTOM,              \
               (i, rname, vtype, acc, final), __VA_ARGS__)

#define KC_MDFOR_ARGS(name, args, idx, ...)                                    \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_NOVALUE, ~, KC_MDFOR, (idx), __VA_ARGS__)
#define KC_MDREDUCE_SUM_ARGS(name, args, idx, vtype, acc, ...)                 \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_VALUE, vtype, KC_MDREDUCE_SUM,             \
               (idx, vtype, acc), __VA_ARGS__)
#define KC_MDREDUCE_PROD_ARGS(name, args, idx, vtype, acc, ...)                \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_VALUE, vtype, KC_MDREDUCE_PROD,            \
               (idx, vtype, acc), __VA_ARGS__)
#define KC_MDREDUCE_MIN_ARGS(name, args, idx, vtype, acc, ...)                 \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_VALUE, vtype, KC_MDREDUCE_MIN,             \
               (idx, vtype, acc), __VA_ARGS__)
#define KC_MDREDUCE_MAX_ARGS(name, args, idx, vtype, acc, ...)                 \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_VALUE, vtype, KC_MDREDUCE_MAX,             \
               (idx, vtype, acc), __VA_ARGS__)
#define KC_MDREDUCE_CUSTOM_ARGS(name, args, idx, rname, vtype, acc, ...)       \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__NAME_CHECK("reducer", #rname, kc__nc_##rname, rname)                     \
  KC__ARGS_DEF(name, args, KC__ARGS_VALUE, vtype, KC_MDREDUCE_CUSTOM,          \
               (idx, rname, vtype, acc), __VA_ARGS__)

#define KC_TEAM_ARGS(name, args, team, ...)                                    \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_NOVALUE, ~, KC_TEAM, (team), __VA_ARGS__)
#define KC_TEAM_REDUCE_SUM_ARGS(name, args, team, vtype, acc, ...)             \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_VALUE, vtype, KC_TEAM_REDUCE_SUM,          \
               (team, vtype, acc), __VA_ARGS__)
#define KC_TEAM_REDUCE_PROD_ARGS(name, args, team, vtype, acc, ...)            \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_VALUE, vtype, KC_TEAM_REDUCE_PROD,         \
               (team, vtype, acc), __VA_ARGS__)
#define KC_TEAM_REDUCE_MIN_ARGS(name, args, team, vtype, acc, ...)             \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_VALUE, vtype, KC_TEAM_REDUCE_MIN,          \
               (team, vtype, acc), __VA_ARGS__)
#define KC_TEAM_REDUCE_MAX_ARGS(name, args, team, vtype, acc, ...)             \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_VALUE, vtype, KC_TEAM_REDUCE_MAX,          \
               (team, vtype, acc), __VA_ARGS__)
#define KC_TEAM_REDUCE_CUSTOM_ARGS(name, args, team, rname, vtype, acc, ...)   \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__NAME_CHECK("reducer", #rname, kc__nc_##rname, rname)                     \
  KC__ARGS_DEF(name, args, KC__ARGS_VALUE, vtype, KC_TEAM_REDUCE_CUSTOM,       \
               (team, rname, vtype, acc), __VA_ARGS__)

#define KC_FOR_CHUNKS_ARGS(name, args, b, e, ...)                              \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__ARGS_DEF(name, args, KC__ARGS_NOVALUE, ~, KC_FOR_CHUNKS, (b, e),         \
               __VA_ARGS__)

#if defined(KC_DECLARE_ONLY) && !(defined(__CUDACC__) || defined(__CUDA_ARCH__))
/* Declarations only: the function is compiled (and checked) but unused. */
#define KC_TEAM_SCRATCH_SIZE_ARGS(name, f, level, team_size)                   \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  static inline size_t kc__tss_unused_##name(                                  \
      const kc_args_##name *f __attribute__((__unused__)),                     \
      int level __attribute__((__unused__)),                                   \
      int team_size __attribute__((__unused__)))
#else
#define KC_TEAM_SCRATCH_SIZE_ARGS(name, f, level, team_size)                   \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC_TEAM_SCRATCH_SIZE(name, kc_args_##name, f, level, team_size)
#endif

/* ---------------------------------------------------------- the launches */

#if !(defined(__CUDACC__) || defined(__CUDA_ARCH__))

#include <stdio.h>
#include <stdlib.h>

/* A compile error unless the launch names as many values as the kernel
 * has arguments (designated initializers leave a missing one zero). */
#define KC__ARGS_COUNT(name, ...)                                              \
  (void)sizeof(struct {                                                        \
    _Static_assert(KC__NARGS(__VA_ARGS__) == kc__nargs_##name,                 \
                   "kc launch: give every argument of the kernel (a "          \
                   "missing one would silently be zero)");                     \
    char kc__unused;                                                           \
  })
#define KC__ARGS_PTR(name, ...) (&(const kc_args_##name){__VA_ARGS__})
#define KC__POLICY_PTR(policy) ((const kc_policy[1]){policy})

#if defined(KC_CHECK_EXIT)
#define KC__RUN_RESULT(what, call) kc__check((call), what, __FILE__, __LINE__)
#else
#define KC__RUN_RESULT(what, call) (call)
#endif

#define kc_run_for(name, policy, ...)                                          \
  (KC__ARGS_COUNT(name, __VA_ARGS__),                                          \
   KC__RUN_RESULT("kc_run_for(" #name ", ...)",                                \
                  (kc_parallel_for)(NULL, KC_KERNEL(name),                     \
                                    KC__POLICY_PTR(policy),                    \
                                    KC__ARGS_PTR(name, __VA_ARGS__),           \
                                    sizeof(kc_args_##name))))
#define kc_run_reduce(name, policy, result, ...)                               \
  (KC__ARGS_COUNT(name, __VA_ARGS__),                                          \
   KC__RUN_RESULT("kc_run_reduce(" #name ", ...)",                             \
                  (kc_parallel_reduce)(NULL, KC_KERNEL(name),                  \
                                       KC__POLICY_PTR(policy),                 \
                                       KC__ARGS_PTR(name, __VA_ARGS__),        \
                                       sizeof(kc_args_##name),                 \
                                       (kc_value_##name *)(result))))
#define kc_run_scan(name, policy, total, ...)                                  \
  (KC__ARGS_COUNT(name, __VA_ARGS__),                                          \
   KC__RUN_RESULT("kc_run_scan(" #name ", ...)",                               \
                  (kc_parallel_scan)(NULL, KC_KERNEL(name),                    \
                                     KC__POLICY_PTR(policy),                   \
                                     KC__ARGS_PTR(name, __VA_ARGS__),          \
                                     sizeof(kc_args_##name),                   \
                                     (kc_value_##name *)(total))))

/* The value forms: the result lands in a compound literal of the caller's
 * block, whose address comes back and is read at once. */
static inline void *kc__args_value(int kc__scan, kc_kernel *kc__k,
                                   const kc_policy *kc__p, const void *kc__argp,
                                   size_t kc__size, void *kc__value,
                                   const char *kc__what, const char *kc__file,
                                   int kc__line) {
  int kc__rc = kc__scan ? (kc_parallel_scan)(NULL, kc__k, kc__p, kc__argp,
                                             kc__size, kc__value)
                        : (kc_parallel_reduce)(NULL, kc__k, kc__p, kc__argp,
                                               kc__size, kc__value);
  (void)kc__check(kc__rc, kc__what, kc__file, kc__line);
  return kc__value;
}
#define KC__ARGS_VALUE_CALL(scan, what, name, policy, ...)                     \
  (KC__ARGS_COUNT(name, __VA_ARGS__),                                          \
   *(kc_value_##name *)kc__args_value(                                         \
       scan, KC_KERNEL(name), KC__POLICY_PTR(policy),                          \
       KC__ARGS_PTR(name, __VA_ARGS__), sizeof(kc_args_##name),                \
       (kc_value_##name[1]){0}, what "(" #name ", ...)", __FILE__, __LINE__))
#define kc_reduce(name, policy, ...)                                           \
  KC__ARGS_VALUE_CALL(0, "kc_reduce", name, policy, __VA_ARGS__)
#define kc_scan(name, policy, ...)                                             \
  KC__ARGS_VALUE_CALL(1, "kc_scan", name, policy, __VA_ARGS__)
#endif

#endif /* KC_KERNEL_ARGS_H */
