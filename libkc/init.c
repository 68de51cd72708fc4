/* libkc — runtime lifetime (kc_init / kc_finalize), fences, information
 * and profiling regions. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

kc__runtime kc__rt = {
    .init_lock = PTHREAD_MUTEX_INITIALIZER,
    .lock = PTHREAD_MUTEX_INITIALIZER,
};

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
  return atomic_load_explicit(&kc__rt.up, memory_order_acquire);
}

const char *kc_backend_name(void) {
  return kc_is_initialized() ? kc__rt.name : NULL;
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

/* An integer environment variable; `def` when unset, -1 when malformed. */
static int env_int(const char *var, int def) {
  const char *v = getenv(var);
  if (!v || !*v)
    return def;
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
  int rc = kc__rt.ops->info(kc__rt.state, out);
  /* The core's fields are the core's, whatever the plugin wrote. */
  out->struct_size = sizeof *out;
  out->backend = kc__rt.name;
  out->path = kc__rt.path;
  out->spaces |= 1u << KC_SPACE_HOST;
  return rc;
}

static int init_locked(void) {
  kc__verbose_refresh();
  kc__backend_pick pick;
  int rc = kc__loader_pick(&pick);
  if (rc < 0)
    return rc;

  kc_backend_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.device = env_int("KC_DEVICE", 0);
  cfg.num_threads = env_int("KC_NUM_THREADS", 0);
  cfg.verbose = kc__verbose_on();
  if (cfg.device < 0)
    return kc__error(KC_EINVAL, "KC_DEVICE='%s' is not a device number",
                     getenv("KC_DEVICE"));
  if (cfg.num_threads < 0)
    return kc__error(KC_EINVAL,
                     "KC_NUM_THREADS='%s' is not a number of threads",
                     getenv("KC_NUM_THREADS"));
  if (cfg.device >= pick.ndevices)
    return kc__error(KC_ENODEV,
                     "KC_DEVICE=%d but backend '%s' (%s) has %d device(s)",
                     cfg.device, pick.ops->name, pick.path, pick.ndevices);

  const kc_backend_ops *ops = pick.ops;
  void *state = kc__zalloc64(ops->state_size);
  if (!state)
    return kc__error(KC_ENOMEM,
                     "kc_init: cannot allocate %zu bytes of state for "
                     "backend '%s'",
                     ops->state_size, ops->name);
  kc__error(0, "%s", "");
  rc = ops->init(state, &cfg);
  if (rc < 0) {
    char why[2048];
    snprintf(why, sizeof why, "%s",
             *kc_last_error() ? kc_last_error() : kc_strerror(rc));
    free(state);
    return kc__error(rc, "backend '%s' (%s) failed to initialise: %s",
                     ops->name, pick.path, why);
  }

  kc__rt.ops = ops;
  kc__rt.state = state;
  kc__rt.name = ops->name;
  kc__rt.ndevices = pick.ndevices;
  kc__rt.cfg = cfg;
  memcpy(kc__rt.path, pick.path, sizeof kc__rt.path);

  kc_info info;
  rc = fill_info(&info);
  if (rc < 0) {
    char why[2048];
    snprintf(why, sizeof why, "%s", kc_last_error());
    ops->finalize(state);
    free(state);
    kc__rt.ops = NULL;
    kc__rt.state = NULL;
    return kc__error(rc, "backend '%s': its info slot failed: %s", ops->name,
                     why);
  }
  kc__rt.spaces = info.spaces;
  kc__rt.gen++;
  atomic_store_explicit(&kc__rt.up, 1, memory_order_release);
  kc__verbose("initialised backend '%s' (%s): %d thread(s), %d device(s)",
              kc__rt.name, kc__rt.path, info.num_threads, info.device_count);
  kc__tools_init(&info);
  return 0;
}

int kc_init(void) {
  pthread_mutex_lock(&kc__rt.init_lock);
  int rc = 0;
  if (kc__rt.refs > 0)
    kc__rt.refs++;
  else if ((rc = init_locked()) == 0)
    kc__rt.refs = 1;
  pthread_mutex_unlock(&kc__rt.init_lock);
  return rc;
}

int kc_finalize(void) {
  pthread_mutex_lock(&kc__rt.init_lock);
  if (kc__rt.refs == 0) {
    pthread_mutex_unlock(&kc__rt.init_lock);
    return kc__noinit("kc_finalize");
  }
  if (--kc__rt.refs > 0) {
    pthread_mutex_unlock(&kc__rt.init_lock);
    return 0;
  }
  if (kc__unlikely(kc__tools_active))
    kc__tools_finalize();

  pthread_mutex_lock(&kc__rt.lock);
  /* From here every other call sees "not initialised". */
  atomic_store_explicit(&kc__rt.up, 0, memory_order_release);
  const kc_backend_ops *ops = kc__rt.ops;
  int rc = 0;
  if (KC__OPS_HAS(ops, fence))
    rc = ops->fence(kc__rt.state);
  kc__memory_release_all();
  kc__kernels_release();
  ops->finalize(kc__rt.state);
  free(kc__rt.state);
  kc__host_cleanup();
  kc__verbose("finalised backend '%s'", kc__rt.name);
  kc__rt.ops = NULL;
  kc__rt.state = NULL;
  kc__rt.name = NULL;
  kc__rt.path[0] = '\0';
  pthread_mutex_unlock(&kc__rt.lock);
  pthread_mutex_unlock(&kc__rt.init_lock);
  return rc < 0 ? rc : 0;
}

int kc_fence(void) {
  KC__CHECK_INIT("kc_fence");
  if (kc__unlikely(kc__in_kernel))
    return kc__nested("kc_fence");
  uint64_t fid = 0;
  if (kc__unlikely(kc__tools_active))
    kc__tools_begin_fence("kc_fence", &fid);
  pthread_mutex_lock(&kc__rt.lock);
  int rc = 0;
  if (!atomic_load_explicit(&kc__rt.up, memory_order_relaxed))
    rc = kc__noinit("kc_fence");
  else if (KC__OPS_HAS(kc__rt.ops, fence))
    rc = kc__rt.ops->fence(kc__rt.state);
  pthread_mutex_unlock(&kc__rt.lock);
  if (kc__unlikely(kc__tools_active))
    kc__tools_end_fence(fid);
  return rc;
}

int kc_get_info(kc_info *out) {
  KC__CHECK_INIT("kc_get_info");
  if (!out)
    return kc__error(KC_EINVAL, "kc_get_info: out is NULL");
  int rc0 = kc__out_check("kc_get_info", "out", out, sizeof out->struct_size);
  if (rc0 < 0)
    return rc0;
  size_t want = out->struct_size;
  if ((rc0 = kc__out_check("kc_get_info", "out", out,
                           want < sizeof(kc_info) ? want : sizeof(kc_info))) <
      0)
    return rc0;
  if (want < offsetof(kc_info, backend) + sizeof out->backend)
    return kc__error(KC_EINVAL,
                     "kc_get_info: out->struct_size is %zu; set it to "
                     "sizeof(kc_info)",
                     want);
  kc_info info;
  pthread_mutex_lock(&kc__rt.lock);
  int rc;
  if (!atomic_load_explicit(&kc__rt.up, memory_order_relaxed))
    rc = kc__noinit("kc_get_info");
  else
    rc = fill_info(&info);
  pthread_mutex_unlock(&kc__rt.lock);
  if (rc < 0)
    return rc;
  /* An older caller gets the prefix its struct has room for. */
  size_t n = want < sizeof info ? want : sizeof info;
  memcpy(out, &info, n);
  out->struct_size = want;
  return 0;
}

/* Region nesting is per thread, as profiling tools see it. */
static _Thread_local int region_depth;

int kc_region_push(const char *name) {
  KC__CHECK_INIT("kc_region_push");
  if (!name)
    return kc__error(KC_EINVAL, "kc_region_push: name is NULL");
  region_depth++;
  if (kc__unlikely(kc__tools_active))
    kc__tools_push_region(name);
  return 0;
}

int kc_region_pop(void) {
  KC__CHECK_INIT("kc_region_pop");
  if (region_depth == 0)
    return kc__error(KC_EINVAL,
                     "kc_region_pop: no region is open on this thread");
  region_depth--;
  if (kc__unlikely(kc__tools_active))
    kc__tools_pop_region();
  return 0;
}
