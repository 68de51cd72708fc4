/* kc — kernel-authoring macros: one kernel body, two targets.
 *
 * A .kc.c file includes this header and defines kernels with the KC_FOR,
 * KC_REDUCE_*, KC_SCAN ... macros.  kcc compiles the file twice: as C11 for
 * the host (kernel_host.h: a function over a contiguous chunk [b, e), plus
 * a constructor that registers every kernel with libkc) and as CUDA C++ to
 * PTX (kernel_cuda.h: extern "C" __global__ entries following the CUDA
 * plugin's device ABI).  The PTX text is then embedded in the host object.
 */
#ifndef KC_KERNEL_H
#define KC_KERNEL_H

#include <kc/kc.h>

#if defined(__CUDACC__) || defined(__CUDA_ARCH__)
#include <kc/kernel_cuda.h>
#else
#include <kc/kernel_host.h>
#endif

#endif /* KC_KERNEL_H */
