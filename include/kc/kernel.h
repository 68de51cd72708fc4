/* kc — kernel-authoring macros: one kernel body, two targets.
 *
 * A .kc.c file includes this header and defines kernels with the macros
 * below.  kcc compiles the file twice: as C11 for the host (kernel_host.h:
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
 *                              (NULL if registration failed)
 */
#ifndef KC_KERNEL_H
#define KC_KERNEL_H

#if defined(__CUDACC__) || defined(__CUDA_ARCH__)
#include <kc/kernel_cuda.h>
#else
#include <kc/kc.h>
#include <kc/kernel_host.h>
#endif

#endif /* KC_KERNEL_H */
