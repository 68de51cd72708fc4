/* kc CUDA plugin — opening the CUDA driver at run time.
 *
 * The plugin links against nothing of CUDA: it dlopen()s libcuda.so.1 the
 * first time it is probed, so the same plugin file loads on machines with
 * no driver and says why it cannot work there.  The library is never
 * closed: the driver keeps threads and state for the process's lifetime.
 */
#include <config.h>

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kc/backend.h>

#include "cu.h"

/* The driver's entry points as resolved (drv), and the table the plugin
 * uses (api): the same, but for the allocation calls, which go through
 * the checks below. */
static kc__cu_api drv, api;
static int api_status; /* 0 ok, else the KC_E code of the failure */
static char api_why[512];
/* The driver is loaded once it loads: a failure is tried again at the
 * next kc_init (KC_CUDA_DRIVER may name another file by then), a success
 * is kept (a changed KC_CUDA_DRIVER is then ignored, said under
 * KC_VERBOSE).  api_lock guards the attempt. */
static pthread_mutex_t api_lock = PTHREAD_MUTEX_INITIALIZER;
static int api_loaded;
static char api_file[512]; /* the file that loaded */
static pthread_once_t api_atfork = PTHREAD_ONCE_INIT;

/* Each entry: where it goes, the symbol, whether it may be missing. */
#define SYM(field, name, optional)                                             \
  { (void **)&drv.field, name, optional }
static const struct {
  void **slot;
  const char *name;
  int optional;
} syms[] = {
    SYM(cuInit, "cuInit", 0),
    SYM(cuDriverGetVersion, "cuDriverGetVersion", 0),
    SYM(cuGetErrorName, "cuGetErrorName", 0),
    SYM(cuGetErrorString, "cuGetErrorString", 0),
    SYM(cuDeviceGetCount, "cuDeviceGetCount", 0),
    SYM(cuDeviceGet, "cuDeviceGet", 0),
    SYM(cuDeviceGetName, "cuDeviceGetName", 0),
    SYM(cuDeviceGetAttribute, "cuDeviceGetAttribute", 0),
    SYM(cuDeviceTotalMem, "cuDeviceTotalMem_v2", 0),
    SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 0),
    SYM(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", 0),
    SYM(cuCtxSetCurrent, "cuCtxSetCurrent", 0),
    SYM(cuStreamCreate, "cuStreamCreate", 0),
    SYM(cuStreamDestroy, "cuStreamDestroy_v2", 0),
    SYM(cuStreamSynchronize, "cuStreamSynchronize", 0),
    SYM(cuEventCreate, "cuEventCreate", 0),
    SYM(cuEventDestroy, "cuEventDestroy_v2", 0),
    SYM(cuEventRecord, "cuEventRecord", 0),
    SYM(cuEventSynchronize, "cuEventSynchronize", 0),
    SYM(cuStreamWaitEvent, "cuStreamWaitEvent", 0),
    SYM(cuEventQuery, "cuEventQuery", 0),
    SYM(cuEventElapsedTime, "cuEventElapsedTime", 0),
    SYM(cuCtxSynchronize, "cuCtxSynchronize", 0),
    SYM(cuPointerGetAttribute, "cuPointerGetAttribute", 0),
    SYM(cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer", 1),
    SYM(cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess", 1),
    SYM(cuMemAlloc, "cuMemAlloc_v2", 0),
    SYM(cuMemFree, "cuMemFree_v2", 0),
    SYM(cuMemAllocManaged, "cuMemAllocManaged", 0),
    SYM(cuMemHostAlloc, "cuMemHostAlloc", 0),
    SYM(cuMemFreeHost, "cuMemFreeHost", 0),
    SYM(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", 0),
    SYM(cuMemcpyAsync, "cuMemcpyAsync", 0),
    SYM(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", 0),
    SYM(cuMemsetD8Async, "cuMemsetD8Async", 0),
    SYM(cuStreamWriteValue64, "cuStreamWriteValue64_v2", 1),
    SYM(cuModuleLoadDataEx, "cuModuleLoadDataEx", 0),
    SYM(cuModuleUnload, "cuModuleUnload", 0),
    SYM(cuModuleGetFunction, "cuModuleGetFunction", 0),
    SYM(cuModuleGetGlobal, "cuModuleGetGlobal_v2", 0),
    SYM(cuFuncGetAttribute, "cuFuncGetAttribute", 0),
    SYM(cuFuncSetAttribute, "cuFuncSetAttribute", 0),
    SYM(cuFuncGetParamInfo, "cuFuncGetParamInfo", 1),
    SYM(cuOccupancyMaxActiveBlocksPerMultiprocessor,
        "cuOccupancyMaxActiveBlocksPerMultiprocessor", 0),
    SYM(cuLaunchKernel, "cuLaunchKernel", 0),
};

/* An allocation call that reports success but gives no address (NULL or
 * 0) has allocated nothing the plugin could use: a stand-in driver or an
 * interposed library may do it, and the plugin would write through the
 * null pointer or hand it to a kernel.  Every allocation the plugin makes
 * goes through these, so such a result is CUDA_ERROR_OUT_OF_MEMORY
 * everywhere (KC_ENOMEM, with the operation's own detail). */
static CUresult got_nothing(CUresult r, int none, const char *call) {
  if (r != CUDA_SUCCESS || !none)
    return r;
  kc_backend_verbose("cuda: %s reported success but gave no address: taken "
                     "as out of memory",
                     call);
  return CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult mem_alloc(CUdeviceptr *d, size_t bytes) {
  *d = 0;
  CUresult r = drv.cuMemAlloc(d, bytes);
  return got_nothing(r, *d == 0, "cuMemAlloc");
}

static CUresult mem_alloc_managed(CUdeviceptr *d, size_t bytes,
                                  unsigned flags) {
  *d = 0;
  CUresult r = drv.cuMemAllocManaged(d, bytes, flags);
  return got_nothing(r, *d == 0, "cuMemAllocManaged");
}

static CUresult mem_host_alloc(void **p, size_t bytes, unsigned flags) {
  *p = NULL;
  CUresult r = drv.cuMemHostAlloc(p, bytes, flags);
  return got_nothing(r, *p == NULL, "cuMemHostAlloc");
}

/* The device address of mapped pinned memory: 0 is no mapping either. */
static CUresult mem_host_get_device_pointer(CUdeviceptr *d, void *p,
                                            unsigned flags) {
  *d = 0;
  CUresult r = drv.cuMemHostGetDevicePointer(d, p, flags);
  return got_nothing(r, *d == 0, "cuMemHostGetDevicePointer");
}

/* CUDA cannot be used in a fork()ed child of a process that initialised
 * the driver (every call there fails, CUDA_ERROR_NOT_INITIALIZED); the
 * child is told why instead. */
static atomic_int api_forked;
static void forked(void) {
  atomic_store_explicit(&api_forked, 1, memory_order_relaxed);
}
/* A fork() while another thread tried the driver leaves the child a lock
 * nobody will release. */
static void child_unlock(void) { pthread_mutex_init(&api_lock, NULL); }
static void register_child_unlock(void) {
  pthread_atfork(NULL, NULL, child_unlock);
}

/* The file load() tries: KC_CUDA_DRIVER where it may be used, else the
 * driver's versioned soname. */
static const char *driver_file(void) {
  /* KC_CUDA_DRIVER lets tests point at a stand-in library (or a missing
   * one).  It names code to load, so a privileged (setuid, setgid,
   * capabilities) process ignores it, as libkc does KC_BACKEND. */
  const char *file = secure_getenv("KC_CUDA_DRIVER");
  return file && *file ? file : "libcuda.so.1";
}

static void load(void) {
  const char *file = driver_file();
  if (!secure_getenv("KC_CUDA_DRIVER") && getenv("KC_CUDA_DRIVER"))
    kc_backend_verbose("KC_CUDA_DRIVER is ignored: this program runs with "
                       "raised privileges (setuid, setgid or file "
                       "capabilities)");
  /* A path is checked as the core checks a plugin (a FIFO would block
   * dlopen() for ever, a truncated file kill the process with SIGBUS). */
  if (strchr(file, '/') && kc_backend_check_library(file) < 0) {
    snprintf(api_why, sizeof api_why, "no CUDA driver (KC_CUDA_DRIVER: %s)",
             kc_last_error());
    api_status = KC_ENODEV;
    return;
  }
  void *lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(api_why, sizeof api_why, "no CUDA driver (%s)", e ? e : file);
    api_status = KC_ENODEV;
    return;
  }
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
    *syms[i].slot = dlsym(lib, syms[i].name);
    if (!*syms[i].slot && !syms[i].optional) {
      snprintf(api_why, sizeof api_why,
               "no CUDA driver: %s lacks %s (the driver is too old)", file,
               syms[i].name);
      api_status = KC_ENODEV;
      return;
    }
  }
  api = drv;
  api.cuMemAlloc = mem_alloc;
  api.cuMemAllocManaged = mem_alloc_managed;
  api.cuMemHostAlloc = mem_host_alloc;
  api.cuMemHostGetDevicePointer = mem_host_get_device_pointer;
  /* Threads the driver starts here inherit a mask where the
   * application's signals never land (backend.h). */
  sigset_t old;
  const int masked = kc_backend_block_signals(&old) == 0;
  CUresult r = api.cuInit(0);
  if (masked)
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (r != CUDA_SUCCESS) {
    snprintf(api_why, sizeof api_why, "no CUDA device (cuInit: %s)",
             kc__cu_errstr(r));
    api_status = KC_ENODEV;
    return;
  }
  api_status = 0;
  snprintf(api_file, sizeof api_file, "%s", file);
  pthread_atfork(NULL, NULL, forked);
}

const kc__cu_api *kc__cu_load(void) {
  pthread_once(&api_atfork, register_child_unlock);
  if (atomic_load_explicit(&api_forked, memory_order_relaxed)) {
    kc_backend_error(KC_ENODEV,
                     "cuda backend: this process is a fork()ed child of one "
                     "that had initialised the CUDA driver, and CUDA cannot "
                     "be used in such a child (initialise kc after fork(), "
                     "or exec())");
    return NULL;
  }
  pthread_mutex_lock(&api_lock);
  if (!api_loaded) {
    load();
    api_loaded = api_status == 0;
  } else if (strcmp(driver_file(), api_file) != 0) {
    kc_backend_verbose("cuda: KC_CUDA_DRIVER now names %s; the driver "
                       "loaded before, %s, stays (a driver is not unloaded)",
                       driver_file(), api_file);
  }
  const int status = api_status;
  char why[sizeof api_why];
  memcpy(why, api_why, sizeof why);
  pthread_mutex_unlock(&api_lock);
  if (status != 0) {
    kc_backend_error(status, "%s", why);
    return NULL;
  }
  return &api;
}

const char *kc__cu_errstr(CUresult r) {
  static _Thread_local char buf[256];
  const char *name = NULL, *msg = NULL;
  if (api.cuGetErrorName)
    api.cuGetErrorName(r, &name);
  if (api.cuGetErrorString)
    api.cuGetErrorString(r, &msg);
  if (name && msg)
    snprintf(buf, sizeof buf, "%s (%s)", name, msg);
  else
    snprintf(buf, sizeof buf, "CUDA error %d", (int)r);
  return buf;
}

int kc__cu_is_sticky(CUresult r) {
  switch (r) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED:
    return 1;
  default:
    return 0;
  }
}
