/* kc benchmarks — the Driver API opened at run time (see cudadrv.h). */
#include "cudadrv.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cuModuleLoadDataEx JIT options (cuda.h's CUjit_option values). */
#define JIT_ERROR_LOG_BUFFER 5
#define JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6

static void *sym(bench_cuda *cu, const char *name, const char *v2,
                 int *missing) {
  void *p = v2 ? dlsym(cu->lib, v2) : NULL;
  if (!p)
    p = dlsym(cu->lib, name);
  if (!p)
    *missing = 1;
  return p;
}

int bench_cuda_open(bench_cuda *cu, int device, const char *ptx, char *why,
                    size_t whylen) {
  memset(cu, 0, sizeof *cu);
  if (!ptx) {
    snprintf(why, whylen,
             "no hand-written CUDA baseline: nvcc was not "
             "available when bench/ was built");
    return -1;
  }
  cu->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cu->lib) {
    snprintf(why, whylen, "no CUDA driver (libcuda.so.1): %s", dlerror());
    return -1;
  }
  int missing = 0;
  /* The _v2 entry points are the ones cuda.h maps the plain names to. */
#define LOAD(f, v2) *(void **)&cu->f = sym(cu, #f, v2, &missing)
  LOAD(cuInit, NULL);
  LOAD(cuDeviceGet, NULL);
  LOAD(cuDeviceGetAttribute, NULL);
  LOAD(cuDevicePrimaryCtxRetain, NULL);
  LOAD(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  LOAD(cuCtxSetCurrent, NULL);
  LOAD(cuCtxGetCurrent, NULL);
  LOAD(cuCtxSynchronize, NULL);
  LOAD(cuModuleLoadDataEx, NULL);
  LOAD(cuModuleUnload, NULL);
  LOAD(cuModuleGetFunction, NULL);
  LOAD(cuLaunchKernel, NULL);
  LOAD(cuMemAlloc, "cuMemAlloc_v2");
  LOAD(cuMemFree, "cuMemFree_v2");
  LOAD(cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  LOAD(cuMemsetD8, "cuMemsetD8_v2");
  LOAD(cuGetErrorString, NULL);
  LOAD(cuStreamCreate, NULL);
  LOAD(cuStreamDestroy, "cuStreamDestroy_v2");
  LOAD(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
  LOAD(cuMemHostAlloc, NULL);
  LOAD(cuMemFreeHost, NULL);
  LOAD(cuMemAllocHost, "cuMemAllocHost_v2");
  LOAD(cuStreamSynchronize, NULL);
  LOAD(cuStreamWaitEvent, NULL);
  LOAD(cuEventCreate, NULL);
  LOAD(cuEventDestroy, "cuEventDestroy_v2");
  LOAD(cuEventRecord, NULL);
  LOAD(cuEventSynchronize, NULL);
  LOAD(cuFuncGetAttribute, NULL);
  LOAD(cuOccupancyMaxActiveBlocksPerMultiprocessor, NULL);
  LOAD(cuDeviceGetCount, NULL);
  LOAD(cuDeviceCanAccessPeer, NULL);
  LOAD(cuCtxEnablePeerAccess, NULL);
  LOAD(cuMemcpyPeerAsync, NULL);
#undef LOAD
  /* Optional: the stream's own 64-bit write (bench/launch's staging). */
  *(void **)&cu->cuStreamWriteValue64 =
      dlsym(cu->lib, "cuStreamWriteValue64_v2");
  if (missing) {
    snprintf(why, whylen, "libcuda.so.1 lacks a Driver API entry point");
    goto fail;
  }
  CUresult r = cu->cuInit(0);
  if (r == 0)
    r = cu->cuDeviceGet(&cu->dev, device);
  if (r != 0) {
    const char *s = NULL;
    cu->cuGetErrorString(r, &s);
    snprintf(why, whylen, "no CUDA device %d: %s", device, s ? s : "?");
    goto fail;
  }
  BENCH_CU(cu, cu->cuDevicePrimaryCtxRetain(&cu->ctx, cu->dev));
  BENCH_CU(cu, cu->cuCtxSetCurrent(cu->ctx));
  BENCH_CU(cu,
           cu->cuDeviceGetAttribute(
               &cu->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, cu->dev));
  char log[8192] = "";
  int opts[2] = {JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[2] = {log, (void *)(size_t)sizeof log};
  r = cu->cuModuleLoadDataEx(&cu->mod, ptx, 2, opts, vals);
  if (r != 0) {
    const char *s = NULL;
    cu->cuGetErrorString(r, &s);
    /* A baseline that does not load is a broken build, not a missing
     * device: the caller reports it as a failure. */
    snprintf(why, whylen, "the baseline PTX does not load: %s: %s", s ? s : "?",
             log);
    cu->cuDevicePrimaryCtxRelease(cu->dev);
    cu->ctx = NULL;
    dlclose(cu->lib);
    cu->lib = NULL;
    return -2;
  }
  return 0;
fail:
  dlclose(cu->lib);
  cu->lib = NULL;
  return -1;
}

void bench_cuda_close(bench_cuda *cu) {
  if (!cu->lib)
    return;
  if (cu->mod)
    cu->cuModuleUnload(cu->mod);
  if (cu->ctx)
    cu->cuDevicePrimaryCtxRelease(cu->dev);
  /* The kc plugin keeps its own handle on the driver; ours may go. */
  dlclose(cu->lib);
  memset(cu, 0, sizeof *cu);
}

CUfunction bench_cuda_function(bench_cuda *cu, const char *name) {
  CUfunction f = NULL;
  BENCH_CU(cu, cu->cuModuleGetFunction(&f, cu->mod, name));
  return f;
}

unsigned bench_cuda_block_size(bench_cuda *cu, CUfunction fn) {
  int fmax = 0, per_sm = 0;
  BENCH_CU(cu, cu->cuFuncGetAttribute(
                   &fmax, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn));
  BENCH_CU(cu, cu->cuDeviceGetAttribute(
                   &per_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
                   cu->dev));
  int best = 0, best_tps = 0;
  for (int b = fmax - fmax % 32; b > 0; b -= 32) {
    int bps = 0;
    BENCH_CU(cu,
             cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&bps, fn, b, 0));
    if (bps * b > per_sm)
      bps = per_sm / b;
    const int tps = bps * b;
    if (bps >= 1 && (tps > best_tps || (b >= 128 && tps == best_tps))) {
      best = b;
      best_tps = tps;
    }
  }
  if (best == 0) {
    fprintf(stderr, "bench: no block size of a kernel fits the device\n");
    exit(1);
  }
  return (unsigned)best;
}

void bench_cuda_check(bench_cuda *cu, CUresult r, const char *what,
                      const char *file, int line) {
  if (r == 0)
    return;
  const char *s = NULL;
  if (cu->cuGetErrorString)
    cu->cuGetErrorString(r, &s);
  fprintf(stderr, "%s:%d: %s failed: CUDA error %d: %s\n", file, line, what, r,
          s ? s : "?");
  exit(1);
}
