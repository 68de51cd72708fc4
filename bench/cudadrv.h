/* kc benchmarks — the CUDA Driver API for the hand-written baselines.
 *
 * The GPU baselines are what a user would write without kc: kernels in a .cu
 * file compiled to PTX by nvcc at build time, loaded with cuModuleLoadDataEx
 * and launched with raw cuLaunchKernel.  Like the CUDA plugin, the programs
 * open the driver at run time (dlopen("libcuda.so.1")) and declare the few
 * types they need themselves, so they build, and run their host part, on
 * machines with no CUDA toolkit or driver.
 *
 * Only one thread uses these calls; nothing here is thread safe.
 */
#ifndef KC_BENCH_CUDADRV_H
#define KC_BENCH_CUDADRV_H

#include <stddef.h>

/* The driver's types and constants, as the CUDA plugin declares them. */
#include "cu.h"

typedef struct bench_cuda {
  void *lib;
  CUdevice dev;
  CUcontext ctx; /* the device's primary context, the one kc's plugin uses */
  CUmodule mod;
  int sms; /* streaming multiprocessors */
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxSynchronize)(void);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  /* Streams and pinned memory (bench/queues). */
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
  CUresult (*cuMemHostAlloc)(void **, size_t, unsigned);
  CUresult (*cuMemFreeHost)(void *);
  /* Events, stream waits, occupancy (bench/queues). */
  CUresult (*cuMemAllocHost)(void **, size_t);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction,
                                                          int, size_t);
  /* Several devices (bench/devices). */
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceCanAccessPeer)(int *, CUdevice, CUdevice);
  CUresult (*cuCtxEnablePeerAccess)(CUcontext, unsigned);
  CUresult (*cuMemcpyPeerAsync)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext,
                                size_t, CUstream);
  /* NULL where the driver lacks it (bench/launch). */
  CUresult (*cuStreamWriteValue64)(CUstream, CUdeviceptr, unsigned long long,
                                   unsigned);
} bench_cuda;

/* Opens the driver, retains device `device`'s primary context (the one the
 * kc CUDA plugin uses, so kc's device pointers are valid CUdeviceptrs here),
 * makes it current and loads the PTX module `ptx`.  Returns 0; -1 when there
 * is no baseline to run here (no PTX was built, no driver, no such device);
 * -2 when the PTX does not load (a broken build: the JIT log is in why[]).
 * why[] says which. */
int bench_cuda_open(bench_cuda *cu, int device, const char *ptx, char *why,
                    size_t whylen);

/* Unloads the module and releases the context. */
void bench_cuda_close(bench_cuda *cu);

/* Looks up a kernel of the module; exits 1 if it is missing. */
CUfunction bench_cuda_function(bench_cuda *cu, const char *name);

/* The block size kc's CUDA plugin gives a 1-D launch of `fn` (Kokkos'
 * rule, plugins/cuda/geometry.c): over multiples of 32 up to what `fn`
 * allows, the most resident threads per SM, and at equal occupancy the
 * smaller block, but not below 128.  A raw launch with it is as strong as
 * kc's.  Exits 1 on a driver error. */
unsigned bench_cuda_block_size(bench_cuda *cu, CUfunction fn);

/* Checks a driver call's result: exits 1 naming the call and the error. */
#define BENCH_CU(cu, call)                                                     \
  bench_cuda_check((cu), (call), #call, __FILE__, __LINE__)
void bench_cuda_check(bench_cuda *cu, CUresult r, const char *what,
                      const char *file, int line);

/* The PTX of the program's hand-written kernels, embedded at build time
 * from bench/baseline.cu by nvcc; NULL when nvcc was not available then. */
extern const char *const bench_ptx;

#endif /* KC_BENCH_CUDADRV_H */
