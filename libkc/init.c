/* libkc — runtime lifetime (kc_init / kc_finalize), fences, information
 * and profiling regions. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "launcher.h"

kc__runtime kc__rt = {
    .init_lock = PTHREAD_MUTEX_INITIALIZER,
    .drain_lock = PTHREAD_MUTEX_INITIALIZER,
    .drained = PTHREAD_COND_INITIALIZER,
    .lock = PTHREAD_MUTEX_INITIALIZER,
};

/* The default (dynamic) TLS model, not initial-exec: libkc.so must load
 * into a program that is already running (Python's ctypes, Julia, R), and
 * glibc refuses a library with initial-exec TLS that does not fit its small
 * static surplus ("cannot allocate memory in static TLS block"; t-dlopen). */
__thread kc__thread kc__self;

/* ------------------------------------------------- entering and leaving */

static int forked(const char *fn) {
  return kc__error(KC_ENOINIT,
                   "%s: this process is a fork()ed child of the process that "
                   "initialised kc; the runtime (its backend's threads, its "
                   "device context) does not survive fork(): use kc in the "
                   "parent, or exec() in the child",
                   fn);
}

int kc__enter_slow(const char *fn) {
  int up = atomic_load_explicit(&kc__rt.up, memory_order_seq_cst);
  if (up == KC__UP || (up == KC__OWNED && kc__self.lifetime)) {
    /* UP: became so meanwhile.  OWNED on the thread in kc_init or
     * kc_finalize: a profiling tool's init or finalize callback. */
    kc__self.calls++;
    return 0;
  }
  kc__self.calls++;
  kc__leave();
  return up == KC__FORKED ? forked(fn) : kc__noinit(fn);
}

int kc__check_init(const char *fn) {
  const int up = atomic_load_explicit(&kc__rt.up, memory_order_seq_cst);
  if (up == KC__UP || (up == KC__OWNED && kc__self.lifetime))
    return 0;
  return up == KC__FORKED ? forked(fn) : kc__noinit(fn);
}

void kc__wake_finalize(void) {
  pthread_mutex_lock(&kc__rt.drain_lock);
  pthread_cond_broadcast(&kc__rt.drained);
  pthread_mutex_unlock(&kc__rt.drain_lock);
}

/* Makes the runtime the calling thread's alone and waits until no call of
 * another thread is in flight; init_lock held. */
static void own_runtime(void) {
  atomic_store_explicit(&kc__rt.up, KC__OWNED, memory_order_seq_cst);
  pthread_mutex_lock(&kc__rt.drain_lock);
  while (atomic_load_explicit(&kc__rt.users, memory_order_seq_cst) > 0)
    pthread_cond_wait(&kc__rt.drained, &kc__rt.drain_lock);
  pthread_mutex_unlock(&kc__rt.drain_lock);
}

void kc_backend_kernel_enter(void) { kc__self.kernel++; }

void kc_backend_kernel_leave(void) {
  if (kc__self.kernel > 0)
    kc__self.kernel--;
}

/* kc_init and kc_finalize cannot run where they would wait for themselves:
 * in a kernel or a slot, or in a profiling tool's callback (which runs
 * inside a kc call, or inside kc_init / kc_finalize). */
static int lifetime_refused(const char *fn) {
  if (kc__self.kernel)
    return kc__nested(fn);
  if (kc__self.calls || kc__self.lifetime)
    return kc__error(KC_EINVAL,
                     "%s called from inside another kc call (a profiling "
                     "tool's callback): it would wait for that call to end",
                     fn);
  if (atomic_load_explicit(&kc__rt.up, memory_order_acquire) == KC__FORKED)
    return forked(fn);
  return 0;
}

/* fork(): the child has only the forking thread, so a backend's workers
 * (and an OpenMP runtime's) are gone; every later kc call in the child
 * fails instead of waiting for them.  The runtime's locks may have been
 * held by other threads of the parent (for as long as a kernel runs): the
 * child gets fresh ones, and counts as in flight only the calls of the
 * forking thread (a call of another thread in flight at the fork had kept
 * the child's last kc_finalize waiting for ever).  The leaf locks of the
 * kernels, allocations, queues and libffi are taken around the fork, so
 * that what they guard is whole in the child.  Registered when libkc is
 * loaded: a fork before the first kc_init counts too. */
static void atfork_prepare(void) {
  kc__kernels_fork_lock(1);
  kc__ffi_fork_lock(1);
  kc__memory_fork_lock(1);
  kc__queues_fork_lock(1);
}

static void atfork_parent(void) {
  kc__queues_fork_lock(0);
  kc__memory_fork_lock(0);
  kc__ffi_fork_lock(0);
  kc__kernels_fork_lock(0);
}

static void atfork_child(void) {
  atfork_parent();
  if (atomic_load_explicit(&kc__rt.up, memory_order_relaxed) != KC__DOWN ||
      kc__rt.refs > 0)
    atomic_store_explicit(&kc__rt.up, KC__FORKED, memory_order_relaxed);
  atomic_store_explicit(&kc__rt.users,
                        kc__self.calls > 0 ? (unsigned)kc__self.calls : 0u,
                        memory_order_relaxed);
  pthread_mutex_init(&kc__rt.init_lock, NULL);
  pthread_mutex_init(&kc__rt.drain_lock, NULL);
  pthread_cond_init(&kc__rt.drained, NULL);
  pthread_mutex_init(&kc__rt.lock, NULL);
}

__attribute__((constructor)) static void atfork_register(void) {
  pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

void *kc__zalloc64(size_t bytes) {
  size_t n = (bytes + 63) & ~(size_t)63;
  if (n < bytes)
    return NULL;
  void *p = aligned_alloc(64, n ? n : 64);
  if (p)
    memset(p, 0, n ? n : 64);
  return p;
}

const char *kc_version(void) { return KC_VERSION_STRING; }

int kc_is_initialized(void) {
  int up = atomic_load_explicit(&kc__rt.up, memory_order_acquire);
  return up == KC__UP || (up == KC__OWNED && kc__self.lifetime);
}

/* No kc__enter: the name is wanted in kernels too (in details). */
const char *kc_backend_name(void) {
  atomic_fetch_add_explicit(&kc__rt.users, 1, memory_order_seq_cst);
  const char *name = kc_is_initialized() ? kc__rt.name : NULL;
  kc__self.calls++;
  kc__leave();
  return name;
}

const char *kc_space_name(kc_space space) {
  switch (space) {
  case KC_SPACE_HOST:
    return "host";
  case KC_SPACE_DEVICE:
    return "device";
  case KC_SPACE_MANAGED:
    return "managed";
  case KC_SPACE_HOST_PINNED:
    return "host_pinned";
  default:
    return NULL;
  }
}

/* An integer environment variable; `def` when unset, -1 when malformed:
 * decimal digits only (strtol would also take leading blanks and a sign,
 * which the launcher's own parsing of KC_DEVICE refuses). */
static int env_int(const char *var, int def) {
  const char *v = getenv(var);
  if (!v || !*v)
    return def;
  if (*v < '0' || *v > '9')
    return -1;
  char *end;
  long x = strtol(v, &end, 10);
  if (*end || x < 0 || x > 1000000)
    return -1;
  return (int)x;
}

/* The core's part of kc_info plus the backend's; rt.lock held. */
static int fill_info(kc_info *out) {
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  out->backend = kc__rt.name;
  out->path = kc__rt.path;
  out->abi_major = (int)kc__rt.ops->abi_major;
  out->abi_minor = (int)kc__rt.ops->abi_minor;
  out->device = -1;
  out->device_count = kc__rt.ndevices;
  out->spaces = 1u << KC_SPACE_HOST;
  int rc = KC__SLOT(kc__rt.ops->info(kc__rt.state, out));
  /* The core's fields are the core's, whatever the plugin wrote; what the
   * plugin reports is kept within what kc.h allows. */
  out->struct_size = sizeof *out;
  out->backend = kc__rt.name;
  out->path = kc__rt.path;
  out->abi_major = (int)kc__rt.ops->abi_major;
  out->abi_minor = (int)kc__rt.ops->abi_minor;
  if (out->device_count < 1)
    out->device_count = kc__rt.ndevices;
  if (out->device < -1 || out->device >= out->device_count)
    out->device = kc__rt.cfg.device;
  out->spaces &= (1u << KC_SPACE_COUNT) - 1;
  out->spaces |= 1u << KC_SPACE_HOST;
  if (out->concurrency < 1)
    out->concurrency = 1;
  if (out->num_threads < 1)
    out->num_threads = 1;
  out->device_from = out->device >= 0 ? kc__rt.device_from : "host backend";
  return rc;
}

/* Starts the backend the loader picked; on failure nothing is left
 * behind, and the loader may try the next one.
 *
 * KC_DEVICE names a device of a backend that has devices; a host backend
 * has none (its info says device -1, and kc_info "host backend"), so
 * KC_DEVICE does not apply to it and is ignored there: a GPU job's
 * KC_DEVICE=1 must not stop it on a CPU-only node.  Only the info slot
 * tells the two apart, after init: a backend of one device (what a host
 * backend probes) that KC_DEVICE points past is started on device 0, and
 * undone with KC_DEVICE's KC_ENODEV if its info then names a device. */
static int start_backend(const kc__backend_pick *pick, void *arg) {
  kc_info *info = arg;
  kc_backend_config *cfg = &kc__rt.cfg;
  /* KC_DEVICE, else the launcher's node-local rank (launcher.c). */
  int rc = kc__device_choose(pick->ops->name, pick->path, pick->ndevices,
                             &cfg->device, kc__rt.device_from,
                             sizeof kc__rt.device_from);
  const int maybe_host = rc == KC_ENODEV && pick->ndevices == 1;
  char refused[sizeof kc__rt.path + 128];
  if (maybe_host)
    snprintf(refused, sizeof refused, "%s", kc_last_error());
  else if (rc < 0)
    return rc;

  const kc_backend_ops *ops = pick->ops;
  void *state = kc__zalloc64(ops->state_size);
  if (!state)
    return kc__error(KC_ENOMEM,
                     "kc_init: cannot allocate %zu bytes of state for "
                     "backend '%s'",
                     ops->state_size, ops->name);
  kc__error(0, "%s", "");
  rc = KC__SLOT(ops->init(state, cfg));
  if (rc < 0) {
    free(state);
    return kc__error_wrap(rc, "backend '%s' (%s) failed to initialise",
                          ops->name, pick->path);
  }

  kc__rt.ops = ops;
  kc__rt.state = state;
  kc__rt.name = ops->name;
  kc__rt.ndevices = pick->ndevices;
  memcpy(kc__rt.path, pick->path, sizeof kc__rt.path);

  pthread_mutex_lock(&kc__rt.lock);
  rc = fill_info(info);
  pthread_mutex_unlock(&kc__rt.lock);
  if (rc < 0)
    kc__error_wrap(rc, "backend '%s': its info slot failed", ops->name);
  else if (maybe_host && info->device >= 0)
    rc = kc__error(KC_ENODEV, "%s", refused);
  if (rc < 0) {
    KC__SLOT_VOID(ops->finalize(state)); /* must not fail (backend.h) */
    free(state);
    kc__rt.ops = NULL;
    kc__rt.state = NULL;
    kc__rt.name = NULL;
    kc__rt.path[0] = '\0';
    return rc;
  }
  if (maybe_host)
    kc__verbose("KC_DEVICE=%s does not apply to host backend '%s' (it has "
                "no device): ignored",
                getenv("KC_DEVICE"), ops->name);
  return 0;
}

static int init_locked(void) {
  kc__verbose_refresh();
  kc_backend_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.num_threads = env_int("KC_NUM_THREADS", 0);
  cfg.verbose = kc__verbose_on();
  /* KC_DEVICE's syntax before any backend is tried; its value against each
   * candidate's devices in start_backend. */
  if (env_int("KC_DEVICE", 0) < 0)
    return kc__error(KC_EINVAL, "KC_DEVICE='%s' is not a device number",
                     getenv("KC_DEVICE"));
  if (cfg.num_threads < 0)
    return kc__error(KC_EINVAL,
                     "KC_NUM_THREADS='%s' is not a number of threads",
                     getenv("KC_NUM_THREADS"));
  kc__rt.cfg = cfg;

  kc_info info;
  int rc = kc__loader_start(start_backend, &info);
  if (rc < 0)
    return rc;
  kc__rt.spaces = info.spaces;
  kc__rt.concurrency = info.concurrency;
  kc__rt.gen++;
  kc__verbose("initialised backend '%s' (%s): %d thread(s), %d device(s)",
              kc__rt.name, kc__rt.path, info.num_threads, info.device_count);
  if (info.device >= 0)
    kc__verbose("device %d of %d, chosen by %s", info.device, info.device_count,
                kc__rt.device_from);
  /* The tools' init callbacks may call kc on this thread; other threads
   * wait for the runtime to be UP, so kc__tools_active is never written
   * while they read it. */
  atomic_store_explicit(&kc__rt.up, KC__OWNED, memory_order_seq_cst);
  kc__tools_init(&info);
  atomic_store_explicit(&kc__rt.up, KC__UP, memory_order_seq_cst);
  return 0;
}

/* kc_init and kc_finalize hold the runtime's locks across calls that are
 * cancellation points (the backend's start, waiting for calls in flight):
 * a thread cancelled there left them held, and every other thread hung.
 * They run with cancellation disabled. */
int kc_init(void) {
  int rc = lifetime_refused("kc_init");
  if (rc < 0)
    return rc;
  int cancel;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
  pthread_mutex_lock(&kc__rt.init_lock);
  if (kc__rt.refs > 0) {
    kc__rt.refs++;
  } else {
    kc__self.lifetime = 1;
    if ((rc = init_locked()) == 0)
      kc__rt.refs = 1;
    kc__self.lifetime = 0;
  }
  pthread_mutex_unlock(&kc__rt.init_lock);
  pthread_setcancelstate(cancel, NULL);
  return rc;
}

/* The last kc_finalize, with the runtime owned and no call in flight. */
static int finalize_owned(void) {
  if (kc__unlikely(kc__tools_active))
    kc__tools_finalize();
  pthread_mutex_lock(&kc__rt.lock);
  const kc_backend_ops *ops = kc__rt.ops;
  int rc = 0;
  if (KC__OPS_HAS(ops, fence))
    rc = KC__SLOT(ops->fence(kc__rt.state));
  kc__queues_release();
  kc__memory_release_all();
  kc__kernels_release();
  KC__SLOT_VOID(ops->finalize(kc__rt.state));
  free(kc__rt.state);
  kc__host_cleanup();
  kc__verbose("finalised backend '%s'", kc__rt.name);
  kc__rt.ops = NULL;
  kc__rt.state = NULL;
  kc__rt.name = NULL;
  kc__rt.path[0] = '\0';
  atomic_store_explicit(&kc__rt.up, KC__DOWN, memory_order_seq_cst);
  pthread_mutex_unlock(&kc__rt.lock);
  return rc;
}

int kc_finalize(void) {
  int rc = lifetime_refused("kc_finalize");
  if (rc < 0)
    return rc;
  int cancel;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
  pthread_mutex_lock(&kc__rt.init_lock);
  if (kc__rt.refs == 0) {
    pthread_mutex_unlock(&kc__rt.init_lock);
    pthread_setcancelstate(cancel, NULL);
    return kc__noinit("kc_finalize");
  }
  if (--kc__rt.refs == 0) {
    /* From here every other thread's call sees "not initialised"; the
     * calls in flight end first (their tool events included), then the
     * tools hear kokkosp_finalize_library, then the backend goes. */
    kc__self.lifetime = 1;
    own_runtime();
    rc = finalize_owned();
    kc__self.lifetime = 0;
  }
  pthread_mutex_unlock(&kc__rt.init_lock);
  pthread_setcancelstate(cancel, NULL);
  return rc < 0 ? rc : 0;
}

int kc_fence(void) {
  int rc = kc__enter("kc_fence");
  if (rc < 0)
    return rc;
  uint64_t fid = 0;
  if (kc__unlikely(kc__tools_active))
    kc__tools_begin_fence("kc_fence", &fid);
  if (KC__OPS_HAS(kc__rt.ops, fence)) {
    pthread_mutex_lock(&kc__rt.lock);
    rc = KC__SLOT(kc__rt.ops->fence(kc__rt.state));
    pthread_mutex_unlock(&kc__rt.lock);
  }
  if (kc__unlikely(kc__tools_active))
    kc__tools_end_fence(fid);
  kc__leave();
  return rc;
}

int kc_get_info(kc_info *out) {
  int rc = kc__enter("kc_get_info");
  if (rc < 0)
    return rc;
  /* The caller's struct must be writable host memory of the size it says
   * (it may live in a kc allocation): struct_size first, then the rest. */
  size_t want = 0;
  if (out && (rc = kc__out_check("kc_get_info", "out", out,
                                 sizeof out->struct_size)) == 0) {
    want = out->struct_size;
    rc = kc__out_check("kc_get_info", "out", out,
                       want < sizeof(kc_info) ? want : sizeof(kc_info));
  }
  if (rc < 0) {
    kc__leave();
    return rc;
  }
  kc_info info;
  if (!out) {
    rc = kc__error(KC_EINVAL, "kc_get_info: out is NULL");
  } else if (want < offsetof(kc_info, backend) + sizeof out->backend) {
    rc = kc__error(KC_EINVAL,
                   "kc_get_info: out->struct_size is %zu; set it to "
                   "sizeof(kc_info)",
                   want);
  } else {
    pthread_mutex_lock(&kc__rt.lock);
    rc = fill_info(&info);
    pthread_mutex_unlock(&kc__rt.lock);
  }
  kc__leave();
  if (rc < 0)
    return rc;
  /* An older caller gets the prefix its struct has room for. */
  size_t n = want < sizeof info ? want : sizeof info;
  memcpy(out, &info, n);
  out->struct_size = want;
  return 0;
}

/* Region nesting is per thread, as profiling tools see it, and per
 * kc_init: a region left open at kc_finalize is not closed by a pop after
 * the next kc_init (the new tools never heard of it).  The bottom `silent`
 * regions were opened while the tools did not listen (from a tool's
 * kokkosp_init_library): their pops are not reported either. */
static _Thread_local struct {
  unsigned gen; /* kc__rt.gen the counts belong to */
  int depth, silent;
} regions;

static void regions_now(void) {
  if (regions.gen != kc__rt.gen) {
    regions.gen = kc__rt.gen;
    regions.depth = regions.silent = 0;
  }
}

int kc_region_push(const char *name) {
  int rc = kc__enter("kc_region_push");
  if (rc < 0)
    return rc;
  regions_now();
  if (!name) {
    rc = kc__error(KC_EINVAL, "kc_region_push: name is NULL");
  } else {
    regions.depth++;
    if (kc__unlikely(kc__tools_active))
      kc__tools_push_region(name);
    else if (regions.silent == regions.depth - 1)
      regions.silent++;
  }
  kc__leave();
  return rc;
}

int kc_region_pop(void) {
  int rc = kc__enter("kc_region_pop");
  if (rc < 0)
    return rc;
  regions_now();
  if (regions.depth == 0) {
    rc =
        kc__error(KC_EINVAL, "kc_region_pop: no region is open on this thread");
  } else {
    if (regions.depth == regions.silent)
      regions.silent--;
    else if (kc__unlikely(kc__tools_active))
      kc__tools_pop_region();
    regions.depth--;
  }
  kc__leave();
  return rc;
}
