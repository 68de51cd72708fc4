/* kc — kernel-authoring macros: one kernel body, two targets.
 *
 * A .kc.c file includes this header and defines kernels with the macros
 * below.  kcc compiles the file twice: as C for the host (kernel_host.h:
 * a function over a contiguous chunk [b, e), plus a constructor that
 * registers every kernel with libkc at program start) and as CUDA C++ to
 * PTX (kernel_cuda.h: extern "C" __global__ entries following the CUDA
 * plugin's device ABI).  kcc embeds the PTX text in the host object.  A
 * .kc.c file compiled by a plain C compiler gives host-only kernels.
 *
 * The macro surface (identical in kernel_host.h and kernel_cuda.h).  The
 * body is always the last, variadic argument, so commas inside it are fine:
 *
 *   KC_FOR(name, ftype, f, i, body...)
 *       body runs for each index i (kc_index) with f a `const ftype *`.
 *
 *   KC_REDUCE_SUM (name, ftype, f, i, vtype, acc, body...)
 *   KC_REDUCE_PROD(name, ftype, f, i, vtype, acc, body...)
 *   KC_REDUCE_MIN (name, ftype, f, i, vtype, acc, body...)
 *   KC_REDUCE_MAX (name, ftype, f, i, vtype, acc, body...)
 *       vtype is one of int32_t, int64_t, float, double; acc is an lvalue of
 *       type vtype that the body updates (acc += ..., acc = min(acc, ...)).
 *   KC_REDUCE_MINLOC(name, ftype, f, i, vtype, acc, body...)
 *   KC_REDUCE_MAXLOC(name, ftype, f, i, vtype, acc, body...)
 *       acc is a kc_loc_<vtype> (acc.val, acc.loc); ties keep the smaller
 *       index.
 *
 *   KC_REDUCER_IDENTITY(rname, vtype, v) { ... *v = neutral ... }
 *   KC_REDUCER_JOIN(rname, vtype, dst, src) { ... *dst = *dst (+) *src ... }
 *       a custom reducer over any POD vtype (v, dst: vtype *; src:
 *       const vtype *); both functions are compiled for host and device.
 *   KC_REDUCE_CUSTOM(name, ftype, f, i, rname, vtype, acc, body...)
 *
 *   KC_SCAN(name, ftype, f, i, vtype, acc, final, body...)
 *       a sum scan with the Kokkos two-pass protocol: the body adds index
 *       i's contribution to acc and, when `final` is nonzero, may store acc
 *       (after adding: inclusive; before: exclusive).
 *   KC_SCAN_CUSTOM(name, ftype, f, i, rname, vtype, acc, final, body...)
 *
 *   KC_KERNEL_DECLARE(name);   at file scope in any C file
 *   KC_KERNEL(name)            the kc_kernel * registered under "name"
 *                              (NULL if registration failed).  In an
 *                              executable or shared library that defines
 *                              kernel "name", its own kernel: NULL when the
 *                              name was taken first (by hand, or by another
 *                              library's kernel of that name, which this
 *                              handle never becomes; a launch of NULL is
 *                              KC_EINVAL).  Elsewhere, the kernel of that
 *                              name that registered.
 *
 *   A kernel's name (and a custom reducer's) is an identifier that is not
 *   a macro: the macros hand it on to one another, which would expand
 *   it.  Such a name is a compile error in both expansions that names it
 *   (gcc and clang predefine linux and unix, as 1, in their GNU modes).
 *
 * ------------------------------------------------------------------------
 * Multi-dimensional ranges, teams, scratch, atomics and chunk buffers.
 * The same contract: identical meaning in both expansions.
 *
 * Multi-dimensional ranges (launch with kc_mdrange(rank, begin, end, tile)
 * through kc_parallel_for / kc_parallel_reduce).  The indices are a
 * parenthesised list of 2 to 6 names, one per dimension; its length is the
 * kernel's rank.  The LAST name is the fastest-varying (contiguous)
 * dimension: host backends make it the innermost, vectorised loop, the
 * CUDA backend puts it on threadIdx.x.
 *
 *   KC_MDFOR(name, ftype, f, (i0, i1, ...), body...)
 *   KC_MDREDUCE_SUM (name, ftype, f, (i0, i1, ...), vtype, acc, body...)
 *   KC_MDREDUCE_PROD(name, ftype, f, (i0, i1, ...), vtype, acc, body...)
 *   KC_MDREDUCE_MIN (name, ftype, f, (i0, i1, ...), vtype, acc, body...)
 *   KC_MDREDUCE_MAX (name, ftype, f, (i0, i1, ...), vtype, acc, body...)
 *   KC_MDREDUCE_CUSTOM(name, ftype, f, (i0, i1, ...), rname, vtype, acc,
 *                      body...)
 *       as KC_FOR / KC_REDUCE_*, each index a kc_index.  The order in which
 *       points run (tiles, threads, lanes) is unspecified.
 *
 * Teams (launch with kc_team_policy(league, team_size, vector_length)
 * through kc_parallel_for / kc_parallel_reduce).  `team` names the team
 * handle, a `kc_team *`; the body is run by every thread and vector lane
 * of each team (host backends: one lane per thread, and one thread per
 * team unless the league is too small to keep the backend's threads busy;
 * then teams of several threads, at most the policy's team_size).
 *
 *   KC_TEAM(name, ftype, f, team, body...)
 *   KC_TEAM_REDUCE_SUM (name, ftype, f, team, vtype, acc, body...)
 *   KC_TEAM_REDUCE_PROD(name, ftype, f, team, vtype, acc, body...)
 *   KC_TEAM_REDUCE_MIN (name, ftype, f, team, vtype, acc, body...)
 *   KC_TEAM_REDUCE_MAX (name, ftype, f, team, vtype, acc, body...)
 *   KC_TEAM_REDUCE_CUSTOM(name, ftype, f, team, rname, vtype, acc, body...)
 *       acc is private to each thread *and lane* of the team; all of them
 *       are joined into the launch's result.  So update acc only where
 *       the update happens once: inside KC_TEAM_SINGLE (once per team),
 *       inside KC_THREAD_SINGLE within a team-thread loop (once per
 *       index), or inside a vector loop (KC_THREAD_VECTOR_FOR,
 *       KC_TEAM_VECTOR_FOR: once per index).  Code outside vector loops
 *       runs on every lane of a thread (redundantly, as in Kokkos).
 *
 *   KC_TEAM_SCRATCH_SIZE(name, ftype, f, level, team_size) { return n; }
 *       optional, anywhere in the program (before or after the kernel):
 *       host code returning the bytes of level-`level` scratch team
 *       kernel `name` needs per team for a team of `team_size` threads
 *       (Kokkos' team_shmem_size), `f` the launch's functor.  Called by
 *       the backend before each launch, for levels 0 and 1; its bytes are
 *       added to the policy's per-team scratch of that level.
 *
 * Team handle, in team bodies (functions or macros of the same name in
 * both expansions; `team` is the body's handle):
 *
 *   kc_index kc_team_league_rank(team)   0 .. league_size-1
 *   kc_index kc_team_league_size(team)
 *   int kc_team_rank(team)               this thread, 0 .. team_size-1
 *   int kc_team_size(team)               threads per team (host: the
 *                                        backend's choice, 1 for most
 *                                        leagues)
 *   int kc_team_vector_lane(team)        this lane, 0 .. vector_length-1
 *   int kc_team_vector_length(team)      lanes per thread (host: 1)
 *   void kc_team_barrier(team)           every thread and lane of the team
 *                                        waits; all must reach it (not in
 *                                        divergent code)
 *   void *kc_team_scratch(team, level)   the team's shared scratch of level
 *                                        0 (fast: CUDA shared memory) or 1
 *                                        (large: a global-memory slice):
 *                                        scratch_per_team[level] plus the
 *                                        KC_TEAM_SCRATCH_SIZE bytes
 *   void *kc_thread_scratch(team, level) this thread's own part:
 *                                        scratch_per_thread[level] bytes
 *   size_t kc_team_scratch_size(team, level)
 *   size_t kc_thread_scratch_size(team, level)
 *       Scratch is uninitialised, lives for one team's run, and is aligned
 *       to KC_SCRATCH_ALIGN (16) bytes; per level, the per-team part comes
 *       first, then one per-thread part per thread, each padded to 16.
 *       A request over the backend's limit (level 0: kc_info.dev.
 *       shared_memory_per_block_optin; level 1: device memory on a GPU,
 *       KC_HOST_SCRATCH1_MAX (1 GiB) a team on the host) fails
 *       the launch with KC_ESCRATCH before anything runs.
 *
 * Nested loops, in team bodies.  `i` is declared by the macro (kc_index);
 * the range is [begin, end), evaluated once; the body follows the body
 * rules above.  No barrier is implied before or after, except where said.
 *
 *   KC_TEAM_THREAD_FOR(team, i, begin, end, body...)
 *       indices split over the team's threads (all lanes of a thread run
 *       its indices redundantly; nest a vector loop to split further)
 *   KC_THREAD_VECTOR_FOR(team, i, begin, end, body...)
 *       indices split over the calling thread's vector lanes (host: one
 *       `omp simd` loop)
 *   KC_TEAM_VECTOR_FOR(team, i, begin, end, body...)
 *       indices split over every thread and lane of the team
 *
 *   KC_TEAM_THREAD_REDUCE  (team, i, begin, end, OP, vtype, acc, result,
 *                           body...)
 *   KC_THREAD_VECTOR_REDUCE(team, i, begin, end, OP, vtype, acc, result,
 *                           body...)
 *   KC_TEAM_VECTOR_REDUCE  (team, i, begin, end, OP, vtype, acc, result,
 *                           body...)
 *       OP is SUM, PROD, MIN or MAX; vtype int32_t, int64_t, uint32_t,
 *       uint64_t, float or double; acc (declared by the macro, starting at
 *       the identity) is what the body folds index i into; `result` is an
 *       lvalue of vtype the caller declared, which receives the reduction
 *       over [begin, end) in every thread and lane taking part (team
 *       thread and team vector forms: the whole team, so they contain a
 *       barrier on the device and must be reached by all of it; thread
 *       vector form: the thread's lanes).
 *   KC_TEAM_THREAD_REDUCE_CUSTOM(team, i, begin, end, rname, vtype, acc,
 *                                result, body...)
 *   KC_THREAD_VECTOR_REDUCE_CUSTOM(...same...)
 *       the same with a reducer of KC_REDUCER_IDENTITY / KC_REDUCER_JOIN;
 *       joins are applied in index order.
 *
 *   KC_TEAM_THREAD_SCAN  (team, i, begin, end, vtype, acc, final, total,
 *                         body...)
 *   KC_THREAD_VECTOR_SCAN(team, i, begin, end, vtype, acc, final, total,
 *                         body...)
 *       a sum scan over [begin, end) across the team's threads (lanes of
 *       the thread), with the protocol of KC_SCAN: the body adds index i's
 *       contribution to acc and, when `final` is nonzero, sees in acc the
 *       sum over the indices before i (before its own addition).  A
 *       host thread alone (thread vector scans, one-thread teams) runs a
 *       single ordered pass with final = 1; teams of several threads and
 *       a device may run the body twice per index.  `total` (an lvalue
 *       of vtype the caller declared) receives the sum over the whole
 *       range in every thread (lane) taking part.  vtype: as for the
 *       nested reductions.
 *
 *   KC_TEAM_SINGLE(team, body...)     body once per team (thread 0, lane 0)
 *   KC_THREAD_SINGLE(team, body...)   body once per thread (lane 0)
 *       no barrier implied: follow with kc_team_barrier() before other
 *       threads read what the body wrote to scratch.
 *   KC_TEAM_BROADCAST(team, vtype, var, body...)
 *       body once per team, then the value it left in `var` (an lvalue of
 *       vtype the caller declared, at most 64 bytes) is copied to every
 *       thread and lane; contains barriers (the whole team must reach it).
 *
 * Atomics (<kc/atomic.h>, included by this header; also usable in host
 * code).  For s = i32 (int32_t), i64 (int64_t), u32 (uint32_t), u64
 * (uint64_t), f32 (float), f64 (double), T its type, all relaxed (no
 * ordering with other memory; a launch's end orders everything):
 *
 *   void kc_atomic_add_s(T *p, T v)       also _sub, _min, _max
 *   T kc_atomic_fetch_add_s(T *p, T v)    also fetch_sub, fetch_min,
 *                                         fetch_max: return the old value
 *   T kc_atomic_exchange_s(T *p, T v)     store v, return the old value
 *   T kc_atomic_compare_exchange_s(T *p, T expected, T desired)
 *                                         store desired iff *p == expected
 *                                         (floats: bitwise); return the
 *                                         old value
 *   T kc_atomic_load_s(const T *p), void kc_atomic_store_s(T *p, T v)
 *   kc_atomic_add(p, v) ... kc_atomic_compare_exchange(p, e, d): the same
 *       without the suffix, chosen by the type of p (C11 _Generic on the
 *       host, overloads on the device).
 *   Float min/max compare with < and >: a NaN operand is never stored.
 *   Ordered forms: kc_atomic_<op>_explicit_s(..., kc_memory_order o) for
 *   load, store, exchange, compare_exchange and the fetch_ operations,
 *   kc_atomic_thread_fence(o) and kc_memory_fence() (<kc/atomic.h> has
 *   their contract, and where the backends differ).
 *
 * Chunk buffers (Kokkidio's ChunkBuffer): a FOR kernel whose body sees a
 * whole chunk, and per-thread buffers sized by it, for intermediate values
 * a body would otherwise keep in a full-size temporary array.
 *
 *   KC_FOR_CHUNKS(name, ftype, f, b, e, body...)
 *       launched like KC_FOR over a 1-D range; the body runs once per
 *       chunk [b, e) (kc_index, b < e), loops over it itself, and covers
 *       each index of its chunk.  Host: contiguous chunks of at most
 *       KC_CHUNK_MAX (default 1024; -D to change) indices, so that the
 *       body's loops vectorise; device: one index per thread (e == b + 1).
 *   KC_CHUNK_BUFFER(type, name);
 *       at the top level of a KC_FOR_CHUNKS body (not inside a loop or a
 *       condition; at most KC_CHUNK_BUFFERS_MAX = 8 per body): declares
 *       `type *const name`, a per-thread buffer of e - b elements, indexed
 *       name[i - b].  Host: memory each thread allocates once and reuses
 *       across chunks and launches (cache-resident); device: a one-element
 *       local array (a register).  Contents are uninitialised and do not
 *       survive the chunk.
 *
 * Arrays that do not overlap (doc/kernels.md, "restrict"):
 *
 *   restrict on a pointer argument of an _ARGS form (below)
 *       promises that, during the launch, what it reaches is reached
 *       through no other pointer; for, MD and team kernels then read
 *       const ones through the GPU's read-only path, which lets a thread's
 *       next loads go ahead of its earlier stores.
 *   KC_LDG(p)
 *       the value *p, read through the read-only path on the GPU (CUDA's
 *       __ldg; p a pointer to a scalar: integer, float or double); *p on
 *       the host.  For any kernel kind, reductions and scans included,
 *       where restrict does not reach.  *p must not change during the
 *       launch (no index writes it, through any pointer).
 *
 * Named arguments and one-line launches (<kc/kernel_args.h>, included
 * here): every kernel macro above has a form ending in _ARGS whose
 * arguments are a list of (type, name) pairs, used by name in the body;
 * kc_run_for / kc_run_reduce / kc_reduce ... launch such a kernel with
 * designated initializers.  KC_DEVICE_PASS (defined here: 1 when kcc
 * compiles the file to PTX, else 0) lets a .kc.c file hold its host
 * program too, inside #if !KC_DEVICE_PASS.
 *
 * Device intent (for kernel_cuda.h and the CUDA plugin): an MD launch maps
 * tiles to blocks with the last index on threadIdx.x; a team is one block
 * of vector_length x team_size threads (lane = threadIdx.x, team thread =
 * threadIdx.y; vector_length a power of two <= 32 so a thread's lanes
 * share a warp), league ranks grid-stride over blockIdx.x; level-0
 * scratch is dynamic shared memory (after whatever the nested reductions,
 * scans and broadcasts reserve), level 1 a per-block slice of a global
 * buffer the plugin keeps and grows; kc_team_barrier is __syncthreads();
 * atomics are the PTX atomics, with compare-and-swap loops where the
 * hardware has no instruction; KC_CHUNK_BUFFER is a local variable.
 */
#ifndef KC_KERNEL_H
#define KC_KERNEL_H

#if defined(__CUDACC__) || defined(__CUDA_ARCH__)
#include <kc/detail/kernel_cuda.h>
#define KC_DEVICE_PASS 1
#else
#include <kc/detail/kernel_host.h>
#include <kc/kc.h>
#define KC_DEVICE_PASS 0
#endif

#include <kc/atomic.h>
#include <kc/kernel_args.h>

#endif /* KC_KERNEL_H */
