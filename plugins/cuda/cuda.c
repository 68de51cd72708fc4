/* kc CUDA plugin — the backend table, device set-up, memory and fences.
 *
 * The default device (cfg->device: KC_DEVICE, else the node-local rank an
 * MPI or Slurm launcher set modulo the device count, chosen by the core)
 * is opened at init; any other device when a queue or an allocation first
 * names it (kc__cuda_device).  Each open device has its primary context
 * (shared with any other Driver/Runtime API user in the process), its
 * modules and one stream per queue (a lane: plugin.h) on which launches
 * and copies are queued in the order kc received them, the default
 * queue's included.  The launch path lives in launch.c, queues and events
 * in queues.c.
 *
 * KC_CUDA_VIRTUAL_DEVICES=N (testing aid) offers N devices mapped in turn
 * onto the ones the driver sees, so that the code for several devices runs
 * on a machine with one GPU: each virtual device has a state, modules and
 * lanes of its own, over the physical device's one primary context.
 */
#include <config.h>

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

/* ------------------------------------------------------------- errors */

/* A fault that poisons the context is a kernel's when one was launched;
 * before that, the driver reported it from another call (a broken driver,
 * or another user of the primary context), and no kernel is blamed. */
int kc__cuda_sticky(kc__cuda_state *s) {
  if (!s->last_kernel)
    return kc_backend_error(KC_ESTICKY,
                            "cuda: the CUDA context is unusable (%s, reported "
                            "before kc launched any kernel on device %d); "
                            "every later call fails; restart the process",
                            kc__cu_errstr(s->sticky), s->ordinal);
  return kc_backend_error(
      KC_ESTICKY,
      "cuda: the CUDA context is unusable since a kernel faulted (%s, last "
      "kernel launched: %s); every later call fails; restart the process",
      kc__cu_errstr(s->sticky), s->last_kernel);
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

/* KC_CUDA_VIRTUAL_DEVICES: 0 when unset, the count when valid, -1 when
 * not a number from 1 to KC__CUDA_MAX_DEVICES. */
static int virtual_devices(void) {
  const char *v = getenv("KC_CUDA_VIRTUAL_DEVICES");
  if (!v || !*v)
    return 0;
  /* digits only, as every count kc reads (strtol took " 2" and "+2") */
  long n = 0;
  for (; *v >= '0' && *v <= '9' && n <= KC__CUDA_MAX_DEVICES; v++)
    n = n * 10 + (*v - '0');
  return *v || n < 1 || n > KC__CUDA_MAX_DEVICES ? -1 : (int)n;
}

/* The devices the driver sees (*nphys) and those kc offers (*n). */
static int device_counts(const kc__cu_api *cu, int *nphys, int *n) {
  *nphys = *n = 0;
  CUresult r = cu->cuDeviceGetCount(nphys);
  if (r != CUDA_SUCCESS)
    return kc_backend_error(KC_ENODEV, "no CUDA device (cuDeviceGetCount: %s)",
                            kc__cu_errstr(r));
  if (*nphys < 0) {
    const int said = *nphys;
    *nphys = 0;
    return kc_backend_error(KC_ENODEV,
                            "no CUDA device (cuDeviceGetCount reported %d "
                            "devices)",
                            said);
  }
  if (*nphys == 0)
    return kc_backend_error(KC_ENODEV, "no CUDA device (the driver sees none)");
  if (*nphys > KC__CUDA_MAX_DEVICES)
    *nphys = KC__CUDA_MAX_DEVICES;
  int v = virtual_devices();
  if (v < 0)
    return kc_backend_error(KC_EINVAL,
                            "cuda: KC_CUDA_VIRTUAL_DEVICES=%s is not a count "
                            "from 1 to %d",
                            getenv("KC_CUDA_VIRTUAL_DEVICES"),
                            KC__CUDA_MAX_DEVICES);
  *n = v ? v : *nphys;
  return 0;
}

static int probe(int *ndevices) {
  *ndevices = 0;
  const kc__cu_api *cu = kc__cu_load();
  if (!cu)
    return 0; /* reason set */
  int nphys, n;
  if (device_counts(cu, &nphys, &n) == 0)
    *ndevices = n;
  return 0;
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
static int parse_grid(const char *v, int *mode) {
  static const char *const names[] = {"resident", "full", "wide", "tune"};
  *mode = GRID_TUNE; /* the default: doc/backends.md, "Grid size" */
  if (!v || !*v)
    return 0;
  for (int i = 0; i < 4; i++)
    if (strcmp(v, names[i]) == 0) {
      *mode = i;
      return 0;
    }
  return kc_backend_error(
      KC_EINVAL, "cuda: KC_CUDA_GRID=%s; use tune, wide, full or resident", v);
}

/* KC_CUDA_REDUCE_WAVES: how many times the resident grid a large 1-D
 * reduction may launch, timed against the resident grid on its first
 * launches (launch.c, reduce_waves); 1 keeps the resident grid, untimed.
 * A decimal from 1 to 64. */
static int parse_waves(const char *v, unsigned *waves) {
  *waves = KC_CUDA_REDUCE_WAVES_DEFAULT;
  if (!v || !*v)
    return 0;
  unsigned w = 0;
  const char *c = v;
  while (*c >= '0' && *c <= '9' && w <= 64)
    w = w * 10 + (unsigned)(*c++ - '0');
  if (*c || w < 1 || w > 64)
    return kc_backend_error(
        KC_EINVAL, "cuda: KC_CUDA_REDUCE_WAVES=%s; use a number from 1 to 64",
        v);
  *waves = w;
  return 0;
}

/* KC_CUDA_SCAN: one (a single pass with look-back, for modules built to
 * run it; the default) or two (the two-pass protocol for every module). */
static int parse_scan(const char *v, int *onepass) {
  *onepass = 1;
  if (!v || !*v || strcmp(v, "one") == 0)
    return 0;
  if (strcmp(v, "two") == 0) {
    *onepass = 0;
    return 0;
  }
  return kc_backend_error(KC_EINVAL, "cuda: KC_CUDA_SCAN=%s; use one or two",
                          v);
}

/* ------------------------------------------------- device properties */

/* The attributes device_open reads (as the driver gives them: ints). */
typedef struct props {
  int major, minor, sms, threads_per_block, smem, smem_optin, konst, warp,
      clock, memory_clock, bus_width, threads_per_sm, unified;
} props;

static const struct {
  int attr;
  const char *name; /* as messages say it */
  size_t off;       /* in props */
} attrs[] = {
    {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability major",
     offsetof(props, major)},
    {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability minor",
     offsetof(props, minor)},
    {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "multiprocessors",
     offsetof(props, sms)},
    {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "max threads per block",
     offsetof(props, threads_per_block)},
    {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "shared memory per block",
     offsetof(props, smem)},
    {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
     "shared memory per block (opt-in)", offsetof(props, smem_optin)},
    {CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, "constant memory",
     offsetof(props, konst)},
    {CU_DEVICE_ATTRIBUTE_WARP_SIZE, "warp size", offsetof(props, warp)},
    {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "clock rate", offsetof(props, clock)},
    {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, "memory clock rate",
     offsetof(props, memory_clock)},
    {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, "memory bus width",
     offsetof(props, bus_width)},
    {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, "max threads per SM",
     offsetof(props, threads_per_sm)},
    {CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, "unified addressing",
     offsetof(props, unified)},
};

/* The device is refused: the driver reports a value kc cannot work with
 * (a broken driver or stand-in, which would otherwise fail later and
 * obscurely: grids of 0 blocks, a block size blamed on shared memory). */
static int refuse(const kc__cuda_state *s, const char *name, int value,
                  const char *need) {
  return kc_backend_error(KC_ENODEV,
                          "cuda: device %d (%s): the driver reports %s = %d; "
                          "kc needs %s",
                          s->ordinal, s->info.name, name, value, need);
}

/* A property call failed: the device is refused, naming the call. */
static int property_failed(kc__cuda_state *s, CUresult r, const char *call) {
  char what[128];
  snprintf(what, sizeof what, "device %d: %s", s->ordinal, call);
  return kc__cuda_fail(s, r, KC_ENODEV, what);
}

/* Reads the attributes into *p and checks them. */
static int read_props(kc__cuda_state *s, props *p) {
  char need[96];
  for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++) {
    int *v = (int *)((char *)p + attrs[i].off);
    *v = 0;
    CUresult r = s->cu->cuDeviceGetAttribute(v, attrs[i].attr, s->dev);
    if (r != CUDA_SUCCESS) {
      snprintf(need, sizeof need, "cuDeviceGetAttribute (%s)", attrs[i].name);
      return property_failed(s, r, need);
    }
    if (*v < 0)
      return refuse(s, attrs[i].name, *v, "a value of at least 0");
  }
  if (p->sms < 1)
    return refuse(s, "multiprocessors", p->sms, "at least 1");
  if (p->warp < 1)
    return refuse(s, "warp size", p->warp, "at least 1");
  const int least = p->warp > 32 ? p->warp : 32;
  if (p->threads_per_block < least) {
    snprintf(need, sizeof need,
             "at least %d (a warp, and kc's smallest block of 32 threads)",
             least);
    return refuse(s, "max threads per block", p->threads_per_block, need);
  }
  if (p->threads_per_sm < p->threads_per_block) {
    snprintf(need, sizeof need, "at least max threads per block (%d)",
             p->threads_per_block);
    return refuse(s, "max threads per SM", p->threads_per_sm, need);
  }
  return 0;
}

/* Driver version, name, attributes and memory of the device into s. */
static int device_properties(kc__cuda_state *s) {
  const kc__cu_api *cu = s->cu;
  kc_device_info *d = &s->info;
  CUresult r;
  if ((r = cu->cuDriverGetVersion(&s->driver_version)) != CUDA_SUCCESS)
    return property_failed(s, r, "cuDriverGetVersion");
  /* A name that fills the buffer may come without a NUL. */
  r = cu->cuDeviceGetName(d->name, (int)sizeof d->name, s->dev);
  d->name[sizeof d->name - 1] = '\0';
  if (r != CUDA_SUCCESS)
    return property_failed(s, r, "cuDeviceGetName");
  props p;
  int rc = read_props(s, &p);
  if (rc)
    return rc;
  if ((r = cu->cuDeviceTotalMem(&d->total_memory, s->dev)) != CUDA_SUCCESS)
    return property_failed(s, r, "cuDeviceTotalMem");
  if (d->total_memory == 0)
    return refuse(s, "total memory", 0, "at least 1 byte");
  d->compute_major = p.major;
  d->compute_minor = p.minor;
  d->multiprocessors = p.sms;
  d->max_threads_per_block = p.threads_per_block;
  d->shared_memory_per_block = (size_t)p.smem;
  d->shared_memory_per_block_optin = (size_t)p.smem_optin;
  d->constant_memory = (size_t)p.konst;
  d->warp_size = p.warp;
  d->clock_khz = p.clock;
  d->memory_clock_khz = p.memory_clock;
  d->memory_bus_width = p.bus_width;
  s->max_threads_per_sm = p.threads_per_sm;
  /* Optional: a driver without the call or the attribute stages by copies
   * only. */
  int w = 0;
  s->stream_writes = cu->cuStreamWriteValue64 &&
                     cu->cuDeviceGetAttribute(
                         &w, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS,
                         s->dev) == CUDA_SUCCESS &&
                     w != 0;
  if (!p.unified)
    return kc_backend_error(KC_ENODEV,
                            "cuda: device %d (%s) lacks unified addressing, "
                            "which kc needs",
                            s->ordinal, d->name);
  return 0;
}

static void release_device(kc__cuda_state *s);

/* Opens device `ordinal` into s (zeroed but for cu, top, ndev, nphys and
 * the options): its primary context, properties and default lane.  On
 * failure nothing is held. */
static int device_open_here(kc__cuda_state *s, int ordinal);
static int device_open(kc__cuda_state *s, int ordinal) {
  /* The threads the driver starts for the context inherit a mask where
   * the application's signals never land (backend.h). */
  sigset_t old;
  const int masked = kc_backend_block_signals(&old) == 0;
  int rc = device_open_here(s, ordinal);
  if (masked)
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}

static int device_open_here(kc__cuda_state *s, int ordinal) {
  const kc__cu_api *cu = s->cu;
  int rc;
  CUresult r;
  s->ordinal = ordinal;
  s->physical = ordinal % s->nphys;
  if ((r = cu->cuDeviceGet(&s->dev, s->physical)) != CUDA_SUCCESS)
    return kc__cuda_fail(s, r, KC_ENODEV, "cuDeviceGet");
  if ((r = cu->cuDevicePrimaryCtxRetain(&s->ctx, s->dev)) != CUDA_SUCCESS)
    return kc__cuda_fail(s, r, KC_ENODEV, "cuDevicePrimaryCtxRetain");
  /* Init and the slots that open devices run under the runtime lock, so a
   * plain increment is enough. */
  s->generation = ++generation;
  if ((rc = kc__cuda_current(s)) != 0 || (rc = device_properties(s)) != 0)
    goto fail;
  kc_device_info *d = &s->info;
  /* Kernel parameters: 4 KB, or 32 764 B from CUDA 12.1 on sm_70+. */
  s->max_param =
      (s->driver_version >= 12010 && d->compute_major >= 7) ? 32764 : 4096;
  d->max_param_bytes = s->max_param;

  /* The default queue's lane: its stream and reduction counter. */
  s->cur = &s->main;
  if ((rc = kc__cuda_lane_open(s, &s->main, 0)) != 0)
    goto fail;
  s->main.dev = s;
  kc_backend_verbose("cuda: device %d%s: %s, sm_%d%d, %d SMs, %.1f GiB, driver "
                     "%d.%d, launch mode %s",
                     s->ordinal, s->physical != s->ordinal ? " (virtual)" : "",
                     d->name, d->compute_major, d->compute_minor,
                     d->multiprocessors,
                     (double)d->total_memory / (1024.0 * 1024 * 1024),
                     s->driver_version / 1000, s->driver_version % 1000 / 10,
                     getenv("KC_CUDA_LAUNCH") && *getenv("KC_CUDA_LAUNCH")
                         ? getenv("KC_CUDA_LAUNCH")
                         : "auto");
  return 0;
fail:
  release_device(s);
  return rc;
}

static int init(void *state, const kc_backend_config *cfg) {
  kc__cuda_state *s = state;
  int rc = parse_mode(getenv("KC_CUDA_LAUNCH"), &s->mode);
  if (rc == 0)
    rc = parse_grid(getenv("KC_CUDA_GRID"), &s->grid_mode);
  if (rc == 0)
    rc = parse_waves(getenv("KC_CUDA_REDUCE_WAVES"), &s->reduce_waves);
  if (rc == 0)
    rc = parse_scan(getenv("KC_CUDA_SCAN"), &s->scan_onepass);
  if (rc)
    return rc;
  s->verbose = cfg->verbose;
  s->top = s;
  s->cu = kc__cu_load();
  if (!s->cu)
    return KC_ENODEV;
  if ((rc = device_counts(s->cu, &s->nphys, &s->ndev)) != 0)
    return rc;
  if (cfg->device < 0 || cfg->device >= s->ndev)
    return kc_backend_error(KC_ENODEV,
                            "cuda: KC_DEVICE=%d, but there %s %d CUDA "
                            "device%s (0..%d)",
                            cfg->device, s->ndev == 1 ? "is" : "are", s->ndev,
                            s->ndev == 1 ? "" : "s", s->ndev - 1);
  if ((rc = device_open(s, cfg->device)) != 0)
    return rc;
  s->devs[s->ordinal] = s;
  return 0;
}

/* Lets each of two open devices read the other's memory directly (copies
 * and kernels), where the hardware allows; without it the driver stages
 * copies between them through the host.  Best effort. */
static void peer_enable(kc__cuda_state *a, kc__cuda_state *b) {
  const kc__cu_api *cu = a->cu;
  int can = 0;
  if (a->physical == b->physical || !cu->cuDeviceCanAccessPeer ||
      !cu->cuCtxEnablePeerAccess ||
      cu->cuDeviceCanAccessPeer(&can, a->dev, b->dev) != CUDA_SUCCESS || !can)
    return;
  if (kc__cuda_current(a) == 0) {
    CUresult r = cu->cuCtxEnablePeerAccess(b->ctx, 0);
    kc_backend_verbose("cuda: device %d reads device %d's memory: %s",
                       a->ordinal, b->ordinal,
                       r == CUDA_SUCCESS ? "peer access on" : kc__cu_errstr(r));
  }
}

int kc__cuda_device(kc__cuda_state *top, int device, kc__cuda_state **out) {
  if (device < 0 || device >= top->ndev)
    return kc_backend_error(KC_EINVAL,
                            "cuda: device %d does not exist (%d device%s)",
                            device, top->ndev, top->ndev == 1 ? "" : "s");
  if (top->devs[device]) {
    *out = top->devs[device];
    return 0;
  }
  kc__cuda_state *s = calloc(1, sizeof *s);
  if (!s)
    return kc_backend_error(KC_ENOMEM, "cuda: out of memory opening device %d",
                            device);
  s->cu = top->cu;
  s->top = top;
  s->ndev = top->ndev;
  s->nphys = top->nphys;
  s->mode = top->mode;
  s->grid_mode = top->grid_mode;
  s->reduce_waves = top->reduce_waves;
  s->scan_onepass = top->scan_onepass;
  s->verbose = top->verbose;
  int rc = device_open(s, device);
  if (rc) {
    free(s);
    return rc;
  }
  for (int i = 0; i < top->ndev; i++)
    if (top->devs[i]) {
      peer_enable(s, top->devs[i]);
      peer_enable(top->devs[i], s);
    }
  top->devs[device] = s;
  *out = s;
  return 0;
}

int kc__cuda_kernel_on(kc__cuda_state *s, const kc_kernel_info *k,
                       kc__cuda_kernel **out) {
  kc__cuda_kstate **pp = &s->kstates;
  while (*pp && (*pp)->k != k)
    pp = &(*pp)->next;
  kc__cuda_kstate *ks = *pp;
  if (!ks) {
    if (!(ks = calloc(1, sizeof *ks)))
      return kc_backend_error(KC_ENOMEM,
                              "cuda: out of memory preparing kernel '%s' on "
                              "device %d",
                              k->name, s->ordinal);
    ks->k = k;
    ks->next = s->kstates;
    s->kstates = ks;
  } else if (ks != s->kstates) { /* the latest used first */
    *pp = ks->next;
    ks->next = s->kstates;
    s->kstates = ks;
  }
  if (!ks->prepared) {
    int rc = kc__cuda_kernel_prepare(s, k, &ks->K);
    if (rc)
      return rc;
    ks->prepared = 1;
  }
  *out = &ks->K;
  return 0;
}

/* After its work (or a fault): the device's kernels, modules, default
 * lane and context. */
static void release_device(kc__cuda_state *s) {
  const kc__cu_api *cu = s->cu;
  if (s->ctx)
    kc__cuda_current(s);
  if (s->main.stream && !s->sticky)
    cu->cuCtxSynchronize();
  while (s->kstates) {
    kc__cuda_kstate *ks = s->kstates;
    s->kstates = ks->next;
    if (ks->prepared)
      kc__cuda_kernel_release(s, ks->k, &ks->K);
    free(ks);
  }
  kc__cuda_launch_finalize(s);
  kc__cuda_lane_close(s, &s->main);
  s->cur = NULL;
  if (s->ctx)
    cu->cuDevicePrimaryCtxRelease(s->dev);
  s->ctx = NULL;
}

static void finalize(void *state) {
  kc__cuda_state *s = state;
  for (int i = 0; i < s->ndev; i++)
    if (s->devs[i] && s->devs[i] != s) {
      release_device(s->devs[i]);
      free(s->devs[i]);
      s->devs[i] = NULL;
    }
  release_device(s);
}

static int info(void *state, kc_info *out) {
  kc__cuda_state *s = state;
  const long long threads =
      (long long)s->info.multiprocessors * s->max_threads_per_sm;
  out->concurrency = threads > INT_MAX ? INT_MAX : (int)threads;
  out->num_threads = 1;
  out->device_count = s->ndev;
  out->device = s->ordinal;
  out->spaces = (1u << KC_SPACE_HOST) | (1u << KC_SPACE_DEVICE) |
                (1u << KC_SPACE_MANAGED) | (1u << KC_SPACE_HOST_PINNED);
  out->dev = s->info;
  return 0;
}

/* ------------------------------------------------------------- memory */

/* mem_alloc on device s. */
static int alloc_on(kc__cuda_state *s, kc_space space, size_t bytes,
                    void **out) {
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

static int mem_alloc(void *state, kc_space space, size_t bytes, void **out) {
  return alloc_on(state, space, bytes, out);
}

static int mem_alloc_on(void *state, kc_space space, int device, size_t bytes,
                        void **out) {
  kc__cuda_state *s = NULL; /* set by kc__cuda_device on success */
  int rc = kc__cuda_device(state, device, &s);
  return rc ? rc : alloc_on(s, space, bytes, out);
}

/* The open device whose context owns device memory p: the default one
 * unless p is on another physical device. */
static kc__cuda_state *owner_of(kc__cuda_state *top, void *p) {
  int ord = -1;
  if (top->cu->cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                     (CUdeviceptr)(uintptr_t)p) !=
          CUDA_SUCCESS ||
      ord == top->physical)
    return top;
  for (int i = 0; i < top->ndev; i++)
    if (top->devs[i] && top->devs[i]->physical == ord)
      return top->devs[i];
  return top;
}

static int mem_free(void *state, kc_space space, void *p) {
  kc__cuda_state *s = state;
  if (space == KC_SPACE_HOST) {
    free(p);
    return 0;
  }
  if (space != KC_SPACE_HOST_PINNED && !s->sticky && kc__cuda_current(s) == 0)
    s = owner_of(s, p);
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

/* kc_fence: every queue's work (every stream of every open device's
 * context); the first error. */
static int fence(void *state) {
  kc__cuda_state *top = state;
  int first = 0;
  for (int i = 0; i < top->ndev; i++) {
    kc__cuda_state *s = top->devs[i];
    if (!s)
      continue;
    int rc = kc__cuda_up(s);
    CUresult r = rc ? CUDA_SUCCESS : s->cu->cuCtxSynchronize();
    if (r)
      rc = kc__cuda_fail(s, r, KC_EDEVICE, "cuCtxSynchronize");
    if (rc && !first)
      first = rc;
  }
  return first;
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
    .mem_alloc_on = mem_alloc_on,
};
