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
 *     detail/cuda_abi.h.
 *   - each entry loops grid-stride over [a.begin, a.end) (a FOR entry
 *     whose a.chunk is positive: over its block's chunk of it).
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
 * Scans in one launch (a.pass = 2, from plugins that know it, for modules
 * carrying KC_CUDA_SCAN_TILE_SYMBOL): tiles of blockDim.x *
 * kc__cuda_scan_tile indices claimed in order, each tile's aggregate
 * published, the prefix before it found by decoupled look-back over the
 * tiles' published states, the body run twice per index as below (the
 * second time from the cache): see kc__scan_drv::onepass.
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
 *
 * The header is split by job: detail/cuda_abi.h (what the plugin shares),
 * detail/cuda_block.h (block and warp primitives), detail/cuda_drivers.h
 * (the device loops and entries), and this file, the macro surface.
 */
#ifndef KC_DETAIL_KERNEL_CUDA_H
#define KC_DETAIL_KERNEL_CUDA_H

#if !defined(__CUDACC__) && !defined(__CUDA__)
#error                                                                         \
    "kc/detail/kernel_cuda.h is the device half of kc/kernel.h: compile it as CUDA"
#endif

#include <kc/detail/cuda_abi.h>

/* C's `restrict`, in kernel bodies and in the argument types of the _ARGS
 * forms, keeps its meaning here, where the file is compiled as C++: a
 * pointer to const data declared restrict is read through the read-only
 * data cache (ld.global.nc), and ptxas may then issue the loads of a
 * thread's next indices before the stores of the one it is on
 * (doc/kernels.md, "restrict").  Not a C++ keyword, so the name is free. */
#ifndef restrict
#define restrict __restrict__
#endif

/* A load through the read-only data path (kernel.h). */
#define KC_LDG(p) __ldg(p)

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

/* Keeps a symbol the plugin looks up in the module. */
#define KC__USED __attribute__((__used__))

/* Says to the plugin that this module's MD entries read kc_cuda_args.flags
 * (KC_CUDA_MD_LEFT, the shift); the plugin looks for the name in the PTX. */
extern "C" {
__constant__ KC__USED int kc__cuda_md_flags = 1;
}

#ifndef KC_CUDA_NO_STAGING
extern "C" {
__constant__ __align__(256) KC__USED
    unsigned char kc__cuda_staging[KC_CUDA_STAGING_BYTES];
}
#endif

/* Dynamic shared memory: 1-D reductions' and scans' blockDim.x values (of
 * which they use 2 per warp); a team's level-0 scratch. */
extern __shared__ __align__(16) unsigned char kc__cuda_smem[];

#include <kc/detail/cuda_block.h>
#include <kc/detail/cuda_drivers.h>

/* Says to the plugin that this module's scan entries run in one pass
 * (a.pass == 2, detail/cuda_abi.h), and how many indices each thread takes
 * per tile; the plugin reads it with cuModuleGetGlobal. */
extern "C" {
__constant__ KC__USED int kc__cuda_scan_tile =
    KC_CUDA_ORDERED_RUN * KC_CUDA_SCAN_RUNS;
}

/* Says to the plugin that this module's reductions honour
 * KC_CUDA_RESULT_DONE (detail/cuda_abi.h). */
extern "C" {
__constant__ KC__USED int kc__cuda_result_done = 1;
}

/* ----------------------------------------------------- the macro surface */

/* A kernel or reducer name that is a macro: see kernel_host.h (which
 * compares the two tags with __builtin_types_compatible_p). */
template <class kc__A, class kc__B> struct kc__same_type {
  static const bool kc__value = false;
};
template <class kc__A> struct kc__same_type<kc__A, kc__A> {
  static const bool kc__value = true;
};
#define KC__NAME_TAG(...) KC__NAME_TAG_(kc__nc_, __VA_ARGS__)
#define KC__NAME_TAG_(prefix, ...) prefix##__VA_ARGS__
#define KC__NAME_CHECK(what, str, tag, ...)                                    \
  static_assert(                                                               \
      kc__same_type<struct tag *,                                              \
                    struct KC__NAME_TAG(__VA_ARGS__) *>::kc__value,            \
      "kc: the " what " name " str " is a macro (it expands to " #__VA_ARGS__  \
      "): rename the " what                                                    \
      " or the macro (GNU modes such as -std=gnu17, the default, predefine "   \
      "linux and unix; -std=c11 does not) (doc/kernels.md)");

/* The user's body as the static member function `kc__run` of struct
 * <name>__kcb, with the parameter list `params` (parenthesised); the
 * statements of `prologue` (parenthesised) run first.  The body is pasted
 * as `do { body; } while (0)` so that `continue` ends the index's work. */
#define KC__UNPAREN(...) __VA_ARGS__
#define KC__BODY(name, params, prologue, ...)                                  \
  struct name##__kcb {                                                         \
    KC__DEV void kc__run params {                                              \
      KC__UNPAREN prologue;                                                    \
      do {                                                                     \
        __VA_ARGS__;                                                           \
      } while (0);                                                             \
    }                                                                          \
  };

/* Statements that run in front of the body, outside its do/while, when
 * pasted at the start of a body (the _ARGS forms bind their arguments with
 * it, kernel_args.h): nvcc forgets what `restrict` says of a pointer
 * declared inside a loop, even one that runs once. */
#define KC__BODY_FRONT(...)                                                    \
  }                                                                            \
  while (0)                                                                    \
    ;                                                                          \
  __VA_ARGS__ do {

#define KC_FOR(name, ftype, f, i, ...)                                         \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__BODY(name, (const ftype *f, kc_index i), ((void)0), __VA_ARGS__)         \
  typedef kc__for_drv<ftype, name##__kcb> name##__kcd;                         \
  KC__CUDA_ENTRIES(name, ftype, name##__kcd, kc_cuda_args)

#define KC__REDUCE(name, ftype, f, i, V, Op, acc, ...)                         \
  KC__BODY(name, (const ftype *f, kc_index i, V &acc), ((void)0), __VA_ARGS__) \
  typedef kc__reduce_drv<ftype, V, Op, name##__kcb> name##__kcd;               \
  KC__CUDA_ENTRIES(name, ftype, name##__kcd, kc_cuda_args)

#define KC_REDUCE_SUM(name, ftype, f, i, vtype, acc, ...)                      \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__REDUCE(name, ftype, f, i, vtype, kc__op_sum, acc, __VA_ARGS__)
#define KC_REDUCE_PROD(name, ftype, f, i, vtype, acc, ...)                     \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__REDUCE(name, ftype, f, i, vtype, kc__op_prod, acc, __VA_ARGS__)
#define KC_REDUCE_MIN(name, ftype, f, i, vtype, acc, ...)                      \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__REDUCE(name, ftype, f, i, vtype, kc__op_min, acc, __VA_ARGS__)
#define KC_REDUCE_MAX(name, ftype, f, i, vtype, acc, ...)                      \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__REDUCE(name, ftype, f, i, vtype, kc__op_max, acc, __VA_ARGS__)
#define KC_REDUCE_MINLOC(name, ftype, f, i, vtype, acc, ...)                   \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__REDUCE(name, ftype, f, i, kc__loc_of<vtype>::kc__type, kc__op_minloc,    \
             acc, __VA_ARGS__)
#define KC_REDUCE_MAXLOC(name, ftype, f, i, vtype, acc, ...)                   \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__REDUCE(name, ftype, f, i, kc__loc_of<vtype>::kc__type, kc__op_maxloc,    \
             acc, __VA_ARGS__)

/* Custom reducers: the user's two functions, device versions.  The body
 * follows the macro. */
#define KC_REDUCER_IDENTITY(rname, vtype, v)                                   \
  KC__DEV void rname##__kcident(vtype *v)
#define KC_REDUCER_JOIN(rname, vtype, dst, src)                                \
  KC__DEV void rname##__kcjoin(vtype *dst, const vtype *src)

#define KC__CUSTOM_OP(name, rname, vtype)                                      \
  struct name##__kcop {                                                        \
    static const bool kc__ordered = true;                                      \
    KC__DEV void kc__ident(vtype *kc__v, const kc_cuda_args &) {               \
      rname##__kcident(kc__v);                                                 \
    }                                                                          \
    KC__DEV void kc__join(vtype *kc__d, const vtype *kc__s) {                  \
      rname##__kcjoin(kc__d, kc__s);                                           \
    }                                                                          \
  };

#define KC_REDUCE_CUSTOM(name, ftype, f, i, rname, vtype, acc, ...)            \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__NAME_CHECK("reducer", #rname, kc__nc_##rname, rname)                     \
  KC__CUSTOM_OP(name, rname, vtype)                                            \
  KC__REDUCE(name, ftype, f, i, vtype, name##__kcop, acc, __VA_ARGS__)

#define KC__SCAN(name, ftype, f, i, V, Op, acc, final, ...)                    \
  KC__BODY(name, (const ftype *f, kc_index i, V &acc, const int final),        \
           ((void)0), __VA_ARGS__)                                             \
  typedef kc__scan_drv<ftype, V, Op, name##__kcb> name##__kcd;                 \
  KC__CUDA_ENTRIES(name, ftype, name##__kcd, kc_cuda_args)

#define KC_SCAN(name, ftype, f, i, vtype, acc, final, ...)                     \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__SCAN(name, ftype, f, i, vtype, kc__op_sum, acc, final, __VA_ARGS__)
#define KC_SCAN_CUSTOM(name, ftype, f, i, rname, vtype, acc, final, ...)       \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__NAME_CHECK("reducer", #rname, kc__nc_##rname, rname)                     \
  KC__CUSTOM_OP(name, rname, vtype)                                            \
  KC__SCAN(name, ftype, f, i, vtype, name##__kcop, acc, final, __VA_ARGS__)

#define KC_MDFOR(name, ftype, f, idx, ...)                                     \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__BODY(name, (const ftype *f, KC__MD_PARAMS idx), ((void)0), __VA_ARGS__)  \
  typedef kc__mdfor_drv<ftype, KC__MD_RANK idx, name##__kcb> name##__kcd;      \
  KC__CUDA_ENTRIES(name, ftype, name##__kcd, kc_cuda_md_args)

#define KC__MDREDUCE(name, ftype, f, idx, V, Op, acc, ...)                     \
  KC__BODY(name, (const ftype *f, KC__MD_PARAMS idx, V &acc), ((void)0),       \
           __VA_ARGS__)                                                        \
  typedef kc__mdreduce_drv<ftype, KC__MD_RANK idx, V, Op, name##__kcb>         \
      name##__kcd;                                                             \
  KC__CUDA_ENTRIES(name, ftype, name##__kcd, kc_cuda_md_args)

#define KC_MDREDUCE_SUM(name, ftype, f, idx, vtype, acc, ...)                  \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__MDREDUCE(name, ftype, f, idx, vtype, kc__op_sum, acc, __VA_ARGS__)
#define KC_MDREDUCE_PROD(name, ftype, f, idx, vtype, acc, ...)                 \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__MDREDUCE(name, ftype, f, idx, vtype, kc__op_prod, acc, __VA_ARGS__)
#define KC_MDREDUCE_MIN(name, ftype, f, idx, vtype, acc, ...)                  \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__MDREDUCE(name, ftype, f, idx, vtype, kc__op_min, acc, __VA_ARGS__)
#define KC_MDREDUCE_MAX(name, ftype, f, idx, vtype, acc, ...)                  \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__MDREDUCE(name, ftype, f, idx, vtype, kc__op_max, acc, __VA_ARGS__)
#define KC_MDREDUCE_CUSTOM(name, ftype, f, idx, rname, vtype, acc, ...)        \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__NAME_CHECK("reducer", #rname, kc__nc_##rname, rname)                     \
  KC__CUSTOM_OP(name, rname, vtype)                                            \
  KC__MDREDUCE(name, ftype, f, idx, vtype, name##__kcop, acc, __VA_ARGS__)

#define KC_TEAM(name, ftype, f, team, ...)                                     \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__BODY(name, (const ftype *f, kc_team *team), ((void)team), __VA_ARGS__)   \
  typedef kc__team_drv<ftype, name##__kcb> name##__kcd;                        \
  KC__CUDA_ENTRIES(name, ftype, name##__kcd, kc_cuda_team_args)

#define KC__TEAM_REDUCE(name, ftype, f, team, V, Op, acc, ...)                 \
  KC__BODY(name, (const ftype *f, kc_team *team, V &acc), ((void)team),        \
           __VA_ARGS__)                                                        \
  typedef kc__team_reduce_drv<ftype, V, Op, name##__kcb> name##__kcd;          \
  KC__CUDA_ENTRIES(name, ftype, name##__kcd, kc_cuda_team_args)

#define KC_TEAM_REDUCE_SUM(name, ftype, f, team, vtype, acc, ...)              \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__TEAM_REDUCE(name, ftype, f, team, vtype, kc__op_sum, acc, __VA_ARGS__)
#define KC_TEAM_REDUCE_PROD(name, ftype, f, team, vtype, acc, ...)             \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__TEAM_REDUCE(name, ftype, f, team, vtype, kc__op_prod, acc, __VA_ARGS__)
#define KC_TEAM_REDUCE_MIN(name, ftype, f, team, vtype, acc, ...)              \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__TEAM_REDUCE(name, ftype, f, team, vtype, kc__op_min, acc, __VA_ARGS__)
#define KC_TEAM_REDUCE_MAX(name, ftype, f, team, vtype, acc, ...)              \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__TEAM_REDUCE(name, ftype, f, team, vtype, kc__op_max, acc, __VA_ARGS__)
#define KC_TEAM_REDUCE_CUSTOM(name, ftype, f, team, rname, vtype, acc, ...)    \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__NAME_CHECK("reducer", #rname, kc__nc_##rname, rname)                     \
  KC__CUSTOM_OP(name, rname, vtype)                                            \
  KC__TEAM_REDUCE(name, ftype, f, team, vtype, name##__kcop, acc, __VA_ARGS__)

/* The team's scratch function is host code: parsed here, never compiled
 * to PTX. */
#define KC_TEAM_SCRATCH_SIZE(name, ftype, f, level, team_size)                 \
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  static inline __attribute__((__unused__))                                    \
  size_t kc__scratch_fn_##name(const ftype *f, int level, int team_size)

/* The nested loops' shared shape: the body for i in [begin, end), i =
 * begin + o for o = first, first + step, ... (unsigned offsets from the
 * start: kc__span, kc__at).  tag names its variables (kc__<tag>_b, ...),
 * one per loop kind, so that loops of different kinds nest without
 * shadowing each other. */
#define KC__STRIDED(tag, first, step, i, begin, end, ...)                      \
  const kc_index kc__##tag##_b = (begin);                                      \
  const unsigned long long kc__##tag##_n = kc__span(kc__##tag##_b, (end));     \
  for (unsigned long long kc__##tag##_o = (first);                             \
       kc__##tag##_o < kc__##tag##_n; kc__##tag##_o += (step)) {               \
    kc_index i = kc__at(kc__##tag##_b, kc__##tag##_o);                         \
    (void)i;                                                                   \
    do {                                                                       \
      __VA_ARGS__;                                                             \
    } while (0);                                                               \
  }

#define KC_TEAM_THREAD_FOR(team, i, begin, end, ...)                           \
  do {                                                                         \
    (void)(team);                                                              \
    KC__STRIDED(ttf, threadIdx.y, blockDim.y, i, begin, end, __VA_ARGS__)      \
  } while (0)

#define KC_THREAD_VECTOR_FOR(team, i, begin, end, ...)                         \
  do {                                                                         \
    (void)(team);                                                              \
    KC__STRIDED(tvf, threadIdx.x, blockDim.x, i, begin, end, __VA_ARGS__)      \
  } while (0)

#define KC_TEAM_VECTOR_FOR(team, i, begin, end, ...)                           \
  do {                                                                         \
    (void)(team);                                                              \
    KC__STRIDED(tmf, kc__tid(), kc__nthreads(), i, begin, end, __VA_ARGS__)    \
  } while (0)

/* Built-in nested reductions: indices strided over the threads (lanes),
 * then one join of the threads (lanes). */
#define KC__NESTED_REDUCE(first, step, JOIN, team, i, begin, end, Op, vtype,   \
                          acc, result, ...)                                    \
  do {                                                                         \
    (void)(team);                                                              \
    vtype acc = Op::template kc__ident<vtype>();                               \
    KC__STRIDED(nr, first, step, i, begin, end, __VA_ARGS__)                   \
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
    vtype acc = Op::kc__ident();                                               \
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
      (void) final;                                                            \
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
      (void) final;                                                            \
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
    static_assert(sizeof(vtype) <= 64, "KC_TEAM_BROADCAST: at most 64 bytes"); \
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
  KC__NAME_CHECK("kernel", #name, kc__nc_##name, name)                         \
  KC__BODY(name, (const ftype *f, kc_index kc__i),                             \
           (const kc_index b = kc__i, e = kc__i + 1; (void)b; (void)e),        \
           __VA_ARGS__)                                                        \
  typedef kc__for_drv<ftype, name##__kcb> name##__kcd;                         \
  KC__CUDA_ENTRIES(name, ftype, name##__kcd, kc_cuda_args)

#define KC_CHUNK_BUFFER(type, name)                                            \
  type name##__kcbuf[1];                                                       \
  type *const name = name##__kcbuf

/* kernel.h: this expansion has every macro of the model. */
#define KC_CUDA_HAS_MODEL 1

/* Host-side names: registration happens in the host object (kernel_host.h);
 * in the device compilation these only have to parse. */
#define KC_KERNEL_DECLARE(name) struct kc__kdecl_##name
#define KC_KERNEL(name) ((kc_kernel *)0)

#endif /* KC_DETAIL_KERNEL_CUDA_H */
