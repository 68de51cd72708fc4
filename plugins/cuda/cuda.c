/* kc CUDA plugin — the backend table, device set-up, memory and fences.
 *
 * One device (cfg->device: KC_DEVICE, else the node-local rank an MPI or
 * Slurm launcher set modulo the device count, chosen by the core), its
 * primary context (shared with any other Driver/Runtime API user in the
 * process), one stream per queue (a lane: plugin.h) on which its launches
 * and copies are queued in the order kc received them, the default
 * queue's included.  The launch path lives in launch.c, queues and events
 * in queues.c.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

/* ------------------------------------------------------------- errors */

int kc__cuda_sticky(kc__cuda_state *s) {
  return kc_backend_error(
      KC_ESTICKY,
      "cuda: the CUDA context is unusable since a kernel faulted (%s%s%s); "
      "every later call fails; restart the process",
      kc__cu_errstr(s->sticky),
      s->last_kernel ? ", last kernel launched: " : "",
      s->last_kernel ? s->last_kernel : "");
}

int kc__cuda_fail(kc__cuda_state *s, CUresult r, int code, const char *what) {
  if (kc__cu_is_sticky(r)) {
    s->sticky = r;
    return kc__cuda_sticky(s);
  }
  if (r == CUDA_ERROR_OUT_OF_MEMORY)
    code = KC_ENOMEM;
  return kc_backend_error(code, "cuda: %s: %s", what, kc__cu_errstr(r));
}

/* Bumped at every init, so a thread's remembered context from an earlier
 * kc_init/kc_finalize cycle is not trusted. */
static unsigned generation;

int kc__cuda_current(kc__cuda_state *s) {
  /* The driver's current context is per thread, and kc may be called from
   * any thread.  Remember what this thread last made current. */
  static _Thread_local unsigned mine;
  if (mine == s->generation)
    return 0;
  CUresult r = s->cu->cuCtxSetCurrent(s->ctx);
  if (r != CUDA_SUCCESS)
    return kc__cuda_fail(s, r, KC_EDEVICE, "cuCtxSetCurrent");
  mine = s->generation;
  return 0;
}

#define CHECK_UP(s)                                                            \
  do {                                                                         \
    int rc_ = kc__cuda_up(s);                                                  \
    if (rc_)                                                                   \
      return rc_;                                                              \
  } while (0)

/* -------------------------------------------------------- probe / init */

static int probe(int *ndevices) {
  *ndevices = 0;
  const kc__cu_api *cu = kc__cu_load();
  if (!cu)
    return 0; /* reason set */
  int n = 0;
  CUresult r = cu->cuDeviceGetCount(&n);
  if (r != CUDA_SUCCESS)
    kc_backend_error(KC_ENODEV, "no CUDA device (cuDeviceGetCount: %s)",
                     kc__cu_errstr(r));
  else if (n == 0)
    kc_backend_error(KC_ENODEV, "no CUDA device (the driver sees none)");
  *ndevices = r == CUDA_SUCCESS ? n : 0;
  return 0;
}

static int attr(kc__cuda_state *s, int a) {
  int v = 0;
  s->cu->cuDeviceGetAttribute(&v, a, s->dev);
  return v;
}

static int parse_mode(const char *v, int *mode) {
  static const char *const names[] = {"auto", "param", "constant", "global"};
  *mode = MODE_AUTO;
  if (!v || !*v)
    return 0;
  for (int i = 0; i < 4; i++)
    if (strcmp(v, names[i]) == 0) {
      *mode = i;
      return 0;
    }
  return kc_backend_error(KC_EINVAL,
                          "cuda: KC_CUDA_LAUNCH=%s; use auto, param, "
                          "constant or global",
                          v);
}

/* KC_CUDA_GRID: how a 1-D for sizes its grid (launch.c). */
static int parse_grid(const char *v, int *full) {
  *full = 0;
  if (!v || !*v || strcmp(v, "resident") == 0)
    return 0;
  if (strcmp(v, "full") == 0) {
    *full = 1;
    return 0;
  }
  return kc_backend_error(KC_EINVAL,
                          "cuda: KC_CUDA_GRID=%s; use resident or full", v);
}

static void release_all(kc__cuda_state *s);

static int init(void *state, const kc_backend_config *cfg) {
  kc__cuda_state *s = state;
  int rc = parse_mode(getenv("KC_CUDA_LAUNCH"), &s->mode);
  if (rc == 0)
    rc = parse_grid(getenv("KC_CUDA_GRID"), &s->grid_full);
  if (rc)
    return rc;
  s->verbose = cfg->verbose;
  s->cu = kc__cu_load();
  if (!s->cu)
    return KC_ENODEV;
  const kc__cu_api *cu = s->cu;
  CUresult r = cu->cuDeviceGetCount(&s->ndev);
  if (r != CUDA_SUCCESS || s->ndev == 0)
    return kc_backend_error(KC_ENODEV, "no CUDA device%s%s",
                            r ? " (cuDeviceGetCount: " : "",
                            r ? kc__cu_errstr(r) : "");
  s->ordinal = cfg->device;
  if (s->ordinal < 0 || s->ordinal >= s->ndev)
    return kc_backend_error(KC_ENODEV,
                            "cuda: KC_DEVICE=%d, but there %s %d CUDA "
                            "device%s (0..%d)",
                            s->ordinal, s->ndev == 1 ? "is" : "are", s->ndev,
                            s->ndev == 1 ? "" : "s", s->ndev - 1);
  if ((r = cu->cuDeviceGet(&s->dev, s->ordinal)) != CUDA_SUCCESS)
    return kc__cuda_fail(s, r, KC_ENODEV, "cuDeviceGet");
  if ((r = cu->cuDevicePrimaryCtxRetain(&s->ctx, s->dev)) != CUDA_SUCCESS)
    return kc__cuda_fail(s, r, KC_ENODEV, "cuDevicePrimaryCtxRetain");
  /* The core serialises init, so a plain increment is enough. */
  s->generation = ++generation;
  if ((rc = kc__cuda_current(s)) != 0)
    goto fail;
  cu->cuDriverGetVersion(&s->driver_version);

  kc_device_info *d = &s->info;
  cu->cuDeviceGetName(d->name, (int)sizeof d->name, s->dev);
  d->compute_major = attr(s, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  d->compute_minor = attr(s, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  d->multiprocessors = attr(s, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  cu->cuDeviceTotalMem(&d->total_memory, s->dev);
  d->max_threads_per_block = attr(s, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  d->shared_memory_per_block =
      (size_t)attr(s, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  d->shared_memory_per_block_optin =
      (size_t)attr(s, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  d->constant_memory =
      (size_t)attr(s, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
  d->warp_size = attr(s, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  d->clock_khz = attr(s, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  d->memory_clock_khz = attr(s, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  d->memory_bus_width = attr(s, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  s->max_threads_per_sm =
      attr(s, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  /* Kernel parameters: 4 KB, or 32 764 B from CUDA 12.1 on sm_70+. */
  s->max_param =
      (s->driver_version >= 12010 && d->compute_major >= 7) ? 32764 : 4096;
  d->max_param_bytes = s->max_param;
  if (!attr(s, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING)) {
    rc = kc_backend_error(KC_ENODEV,
                          "cuda: device %d (%s) lacks unified addressing, "
                          "which kc needs",
                          s->ordinal, d->name);
    goto fail;
  }

  /* The default queue's lane: its stream and reduction counter. */
  s->cur = &s->main;
  if ((rc = kc__cuda_lane_open(s, &s->main)) != 0)
    goto fail;
  kc_backend_verbose(
      "cuda: device %d: %s, sm_%d%d, %d SMs, %.1f GiB, driver "
      "%d.%d, launch mode %s",
      s->ordinal, d->name, d->compute_major, d->compute_minor,
      d->multiprocessors, (double)d->total_memory / (1024.0 * 1024 * 1024),
      s->driver_version / 1000, s->driver_version % 1000 / 10,
      getenv("KC_CUDA_LAUNCH") ? getenv("KC_CUDA_LAUNCH") : "auto");
  return 0;
fail:
  release_all(s);
  return rc;
}

static void release_all(kc__cuda_state *s) {
  const kc__cu_api *cu = s->cu;
  if (s->main.stream && !s->sticky)
    cu->cuCtxSynchronize();
  kc__cuda_launch_finalize(s);
  kc__cuda_lane_close(s, &s->main);
  s->cur = NULL;
  if (s->ctx)
    cu->cuDevicePrimaryCtxRelease(s->dev);
  s->ctx = NULL;
}

static void finalize(void *state) {
  kc__cuda_state *s = state;
  kc__cuda_current(s);
  release_all(s);
}

static int info(void *state, kc_info *out) {
  kc__cuda_state *s = state;
  out->concurrency = s->info.multiprocessors * s->max_threads_per_sm;
  out->num_threads = 1;
  out->device_count = s->ndev;
  out->device = s->ordinal;
  out->spaces = (1u << KC_SPACE_HOST) | (1u << KC_SPACE_DEVICE) |
                (1u << KC_SPACE_MANAGED) | (1u << KC_SPACE_HOST_PINNED);
  out->dev = s->info;
  return 0;
}

/* ------------------------------------------------------------- memory */

static int mem_alloc(void *state, kc_space space, size_t bytes, void **out) {
  kc__cuda_state *s = state;
  CHECK_UP(s);
  size_t n = bytes ? bytes : 1;
  CUresult r = CUDA_SUCCESS;
  CUdeviceptr d = 0;
  const char *call = "";
  switch (space) {
  case KC_SPACE_HOST: {
    void *p = NULL;
    if (posix_memalign(&p, 64, n) != 0)
      return kc_backend_error(
          KC_ENOMEM, "cuda: out of host memory allocating %zu bytes", bytes);
    *out = p;
    return 0;
  }
  case KC_SPACE_DEVICE:
    call = "cuMemAlloc";
    r = s->cu->cuMemAlloc(&d, n);
    break;
  case KC_SPACE_MANAGED:
    /* Asking for more managed memory than the device has can hang the GPU
     * on some systems instead of failing: refuse it up front. */
    if (n > s->info.total_memory)
      return kc_backend_error(KC_ENOMEM,
                              "cuda: %zu bytes of managed memory is more than "
                              "device %d has (%zu bytes)",
                              bytes, s->ordinal, s->info.total_memory);
    call = "cuMemAllocManaged";
    r = s->cu->cuMemAllocManaged(&d, n, CU_MEM_ATTACH_GLOBAL);
    break;
  case KC_SPACE_HOST_PINNED: {
    void *p = NULL;
    call = "cuMemHostAlloc";
    r = s->cu->cuMemHostAlloc(
        &p, n, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
    d = (CUdeviceptr)(uintptr_t)p;
    break;
  }
  default:
    return kc_backend_error(KC_EINVAL, "cuda: no memory space %d", (int)space);
  }
  if (r != CUDA_SUCCESS) {
    char what[160];
    snprintf(what, sizeof what, "%s of %zu bytes (%s memory) on device %d",
             call, bytes, kc_space_name(space), s->ordinal);
    return kc__cuda_fail(s, r, KC_ENOMEM, what);
  }
  *out = (void *)(uintptr_t)d;
  return 0;
}

static int mem_free(void *state, kc_space space, void *p) {
  kc__cuda_state *s = state;
  if (space == KC_SPACE_HOST) {
    free(p);
    return 0;
  }
  /* After a fault the driver refuses most calls; the memory goes with the
   * context. */
  if (s->sticky)
    return 0;
  int rc = kc__cuda_current(s);
  if (rc)
    return rc;
  CUresult r = space == KC_SPACE_HOST_PINNED
                   ? s->cu->cuMemFreeHost(p)
                   : s->cu->cuMemFree((CUdeviceptr)(uintptr_t)p);
  return r ? kc__cuda_fail(s, r, KC_EDEVICE, "freeing memory") : 0;
}

/* kc_fence: every queue's work (every stream of the context). */
static int fence(void *state) {
  kc__cuda_state *s = state;
  CHECK_UP(s);
  CUresult r = s->cu->cuCtxSynchronize();
  return r ? kc__cuda_fail(s, r, KC_EDEVICE, "cuCtxSynchronize") : 0;
}

/* Waits for one lane's work. */
static int lane_fence(kc__cuda_state *s, kc__cuda_lane *L) {
  CHECK_UP(s);
  CUresult r = s->cu->cuStreamSynchronize(L->stream);
  return r ? kc__cuda_fail(s, r, KC_EDEVICE, "cuStreamSynchronize") : 0;
}

/* A copy on lane L (async: may complete later, ordered on L). */
int kc__cuda_copy(kc__cuda_state *s, kc__cuda_lane *L, void *dst,
                  kc_space dst_space, const void *src, kc_space src_space,
                  size_t bytes, int async) {
  CHECK_UP(s);
  int rc;
  /* Host to host: nothing for the copy engines; order after the queue. */
  if (dst_space == KC_SPACE_HOST && src_space == KC_SPACE_HOST) {
    rc = lane_fence(s, L);
    if (rc == 0)
      memmove(dst, src, bytes);
    return rc;
  }
  /* With unified addressing one call covers every direction; the driver
   * treats pointers it does not know as pageable host memory. */
  CUresult r =
      s->cu->cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst,
                           (CUdeviceptr)(uintptr_t)src, bytes, L->stream);
  if (r != CUDA_SUCCESS)
    return kc__cuda_fail(s, r, KC_EDEVICE, "cuMemcpyAsync");
  if (!async && (r = s->cu->cuStreamSynchronize(L->stream)) != CUDA_SUCCESS)
    return kc__cuda_fail(s, r, KC_EDEVICE, "cuStreamSynchronize after a copy");
  return 0;
}

/* A fill on lane L (async: may complete later, ordered on L). */
int kc__cuda_set(kc__cuda_state *s, kc__cuda_lane *L, void *p, kc_space space,
                 int value, size_t bytes, int async) {
  CHECK_UP(s);
  int rc;
  if (space == KC_SPACE_HOST || space == KC_SPACE_HOST_PINNED) {
    rc = lane_fence(s, L);
    if (rc == 0)
      memset(p, value, bytes);
    return rc;
  }
  CUresult r = s->cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)p,
                                      (unsigned char)value, bytes, L->stream);
  if (r == CUDA_SUCCESS && !async)
    r = s->cu->cuStreamSynchronize(L->stream);
  return r ? kc__cuda_fail(s, r, KC_EDEVICE, "cuMemsetD8Async") : 0;
}

static int mem_copy(void *state, void *dst, kc_space dst_space, const void *src,
                    kc_space src_space, size_t bytes, int async) {
  kc__cuda_state *s = state;
  return kc__cuda_copy(s, &s->main, dst, dst_space, src, src_space, bytes,
                       async);
}

static int mem_set(void *state, void *p, kc_space space, int value,
                   size_t bytes) {
  kc__cuda_state *s = state;
  return kc__cuda_set(s, &s->main, p, space, value, bytes, 0);
}

/* ------------------------------------------------------------- table */

KC_API const kc_backend_ops kc_backend_cuda = {
    .abi_major = KC_BACKEND_ABI_MAJOR,
    .abi_minor = KC_BACKEND_ABI_MINOR,
    .struct_size = sizeof(kc_backend_ops),
    .name = "cuda",
    .description = "NVIDIA GPUs through the CUDA Driver API (PTX JIT, "
                   "occupancy-sized launches, functors staged in constant "
                   "memory)",
    .state_size = sizeof(kc__cuda_state),
    .kernel_state_size = sizeof(kc__cuda_kernel),
    .probe = probe,
    .init = init,
    .finalize = finalize,
    .info = info,
    .mem_alloc = mem_alloc,
    .mem_free = mem_free,
    .mem_copy = mem_copy,
    .mem_set = mem_set,
    .fence = fence,
    .kernel_prepare = kc__cuda_kernel_prepare,
    .kernel_release = kc__cuda_kernel_release,
    .launch = kc__cuda_launch,
    .queue_create = kc__cuda_queue_create,
    .queue_destroy = kc__cuda_queue_destroy,
    .queue_fence = kc__cuda_queue_fence,
    .event_create = kc__cuda_event_create,
    .event_destroy = kc__cuda_event_destroy,
    .event_record = kc__cuda_event_record,
    .event_wait = kc__cuda_event_wait,
    .event_synchronize = kc__cuda_event_synchronize,
    .event_query = kc__cuda_event_query,
    .event_elapsed = kc__cuda_event_elapsed,
    .mem_copy_on = kc__cuda_mem_copy_on,
    .mem_set_on = kc__cuda_mem_set_on,
};
