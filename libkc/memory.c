/* libkc — allocations and their records.
 *
 * Every kc allocation has a record (base, size, space, label, reference
 * count), the idea of Kokkos' SharedAllocationRecord.  The records live in
 * an array sorted by base address, so that any pointer into an allocation
 * finds its record by binary search (O(log n)); that is what lets
 * kc_memcpy infer copy directions and reject ranges that run off the end.
 * Insertion is O(n) (a memmove of pointers), which is cheap next to the
 * allocation itself.
 */
#include <config.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct record {
  uintptr_t base;
  size_t size; /* as requested; 0 is allowed */
  kc_space space;
  int refcount;
  int backend; /* allocated by the backend's mem_alloc */
  int device;  /* its device (kc_pointer_device), -1 if none */
  int told;    /* the tools heard of it (not from a tool's init) */
  int mirror;  /* a live mirror's side: the mirror holds one reference */
  char *label;
} record;

static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;
static record **recs; /* sorted by base */
static size_t nrecs, caprecs;

void kc__memory_fork_lock(int take) {
  if (take)
    pthread_mutex_lock(&mem_lock);
  else
    pthread_mutex_unlock(&mem_lock);
}

/* The bytes a record owns: a zero-byte allocation still owns the one
 * byte its unique pointer addresses. */
static size_t span_of(const record *r) { return r->size ? r->size : 1; }

/* Index of the record whose allocation contains p, or -1. */
static long find(const void *p) {
  uintptr_t a = (uintptr_t)p;
  size_t lo = 0, hi = nrecs;
  while (lo < hi) { /* first record with base > a */
    size_t mid = lo + (hi - lo) / 2;
    if (recs[mid]->base <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return -1;
  return a - recs[lo - 1]->base < span_of(recs[lo - 1]) ? (long)(lo - 1) : -1;
}

/* Records r in address order: 0; -1 out of memory; -2 when r's bytes
 * overlap a live allocation's (a backend that gave an address twice: the
 * core would otherwise free it twice, backend.h). */
static int insert(record *r) {
  size_t at = nrecs;
  while (at > 0 && recs[at - 1]->base > r->base)
    at--;
  const uintptr_t end = r->base + span_of(r);
  if (find((const void *)r->base) >= 0 ||
      (at < nrecs && recs[at]->base < end) || end < r->base)
    return -2;
  if (nrecs == caprecs) {
    size_t cap = caprecs ? 2 * caprecs : 64;
    record **n = realloc(recs, cap * sizeof *n);
    if (!n)
      return -1;
    recs = n;
    caprecs = cap;
  }
  memmove(recs + at + 1, recs + at, (nrecs - at) * sizeof *recs);
  recs[at] = r;
  nrecs++;
  return 0;
}

static void erase(long i) {
  memmove(recs + i, recs + i + 1, (nrecs - (size_t)i - 1) * sizeof *recs);
  nrecs--;
}

static int backend_has_memory(void) {
  return KC__OPS_HAS(kc__rt.ops, mem_alloc);
}

/* Gives memory back to whoever allocated it; rt.lock held. */
static void release(record *r) {
  if (r->backend)
    KC__SLOT(kc__rt.ops->mem_free(kc__rt.state, r->space, (void *)r->base));
  else
    free((void *)r->base);
  free(r->label);
  free(r);
}

/* Allocates on `device` (-1: the default queue's), which the caller
 * checked (queue.c). */
static int malloc_entered(void **out, size_t bytes, kc_space space, int device,
                          const char *label) {
  /* No object can be larger than PTRDIFF_MAX (here: after rounding up to
   * 64 bytes); asking an allocator anyway
   * only upsets checkers (AddressSanitizer aborts instead of failing). */
  if (bytes > (size_t)PTRDIFF_MAX - 63)
    return kc__error(KC_ENOMEM,
                     "kc_malloc: cannot allocate %zu bytes of %s memory for "
                     "'%s': larger than any object can be",
                     bytes, kc_space_name(space), label ? label : "");
  record *r = calloc(1, sizeof *r);
  char *lab = strdup(label ? label : "");
  if (!r || !lab) {
    free(r);
    free(lab);
    return kc__error(KC_ENOMEM,
                     "kc_malloc: out of memory for the record of "
                     "'%s'",
                     label ? label : "");
  }
  r->size = bytes;
  r->space = space;
  r->refcount = 1;
  int other = device >= 0 && device != kc__rt.cfg.device;
  r->device =
      space == KC_SPACE_DEVICE && (kc__rt.spaces & (1u << KC_SPACE_DEVICE))
          ? (device >= 0 ? device : kc__rt.cfg.device)
          : -1;
  r->label = lab;
  int told = kc__tools_active;
  /* Zero bytes still gets its own byte, so the pointer is unique. */
  size_t ask = bytes ? bytes : 1;
  void *p = NULL;
  int rc = 0;

  pthread_mutex_lock(&kc__rt.lock);
  if (backend_has_memory()) {
    r->backend = 1;
    rc = other ? KC__SLOT(kc__rt.ops->mem_alloc_on(kc__rt.state, space, device,
                                                   ask, &p))
               : KC__SLOT(kc__rt.ops->mem_alloc(kc__rt.state, space, ask, &p));
    if (rc == 0 && !p)
      rc = kc__error(KC_ENOMEM, "the backend gave no address (NULL)");
    if (rc < 0)
      kc__error_wrap(rc,
                     "kc_malloc: cannot allocate %zu bytes of %s memory for "
                     "'%s' on backend '%s' (device %d)",
                     bytes, kc_space_name(space), lab, kc__rt.name,
                     device >= 0 ? device : kc__rt.cfg.device);
  } else {
    size_t n = (ask + 63) & ~(size_t)63;
    p = n >= ask ? aligned_alloc(64, n) : NULL;
    if (!p)
      rc = kc__error(KC_ENOMEM,
                     "kc_malloc: cannot allocate %zu bytes of %s memory for "
                     "'%s'",
                     bytes, kc_space_name(space), lab);
  }
  if (rc == 0) {
    r->base = (uintptr_t)p;
    r->told = told;
    pthread_mutex_lock(&mem_lock);
    int in = insert(r);
    pthread_mutex_unlock(&mem_lock);
    if (in == -2) {
      /* Not given back: its bytes belong to the live allocation too. */
      rc = kc__error(KC_EINTERNAL,
                     "kc_malloc: backend '%s' gave %p for '%s', inside a "
                     "live allocation (a bug of the plugin)",
                     kc__rt.name, p, lab);
    } else if (in != 0) {
      release(r);
      r = NULL;
      rc = kc__error(KC_ENOMEM, "kc_malloc: out of memory for the record "
                                "table");
    }
  }
  pthread_mutex_unlock(&kc__rt.lock);
  if (rc < 0) {
    if (r) {
      free(r->label);
      free(r);
    }
    return rc;
  }
  if (kc__unlikely(told))
    kc__tools_allocate(space, lab, p, bytes);
  *out = p;
  return 0;
}

/* kc_malloc's and kc_malloc_on's arguments, errors naming `fn`; clears
 * *out. */
static int malloc_args(const char *fn, void **out, kc_space space) {
  if (!out)
    return kc__error(KC_EINVAL, "%s: out is NULL", fn);
  int rc = kc__out_check(fn, "out", out, sizeof *out);
  if (rc < 0)
    return rc;
  *out = NULL;
  if ((unsigned)space >= KC_SPACE_COUNT)
    return kc__error(KC_EINVAL, "%s: %d is not a memory space", fn, (int)space);
  return 0;
}

int kc_malloc(void **out, size_t bytes, kc_space space, const char *label) {
  KC__CHECK_INIT("kc_malloc");
  int rc = malloc_args("kc_malloc", out, space);
  if (rc < 0)
    return rc;
  rc = kc__enter("kc_malloc");
  if (rc < 0)
    return rc;
  rc = malloc_entered(out, bytes, space, -1, label);
  kc__leave();
  return rc;
}

int kc__malloc_on(void **out, size_t bytes, kc_space space, int device,
                  const char *label) {
  int rc = malloc_args("kc_malloc_on", out, space);
  return rc < 0 ? rc : malloc_entered(out, bytes, space, device, label);
}

int kc__memory_device_of(const void *p, int *device) {
  pthread_mutex_lock(&mem_lock);
  long i = find(p);
  if (i >= 0)
    *device = recs[i]->device;
  pthread_mutex_unlock(&mem_lock);
  return i >= 0;
}

int kc__memory_mirror_side(const void *p, int side) {
  pthread_mutex_lock(&mem_lock);
  long i = find(p);
  if (i >= 0 && recs[i]->base == (uintptr_t)p)
    recs[i]->mirror = side;
  else
    i = -1;
  pthread_mutex_unlock(&mem_lock);
  return i >= 0;
}

/* Takes p's record out of the table when this drops its last reference:
 * the record, NULL (still referenced), or NULL with *rc set. */
static record *take(void *p, int *rc) {
  pthread_mutex_lock(&mem_lock);
  long i = find(p);
  record *r = i >= 0 ? recs[i] : NULL;
  if (!r) {
    *rc = kc__error(KC_ENOTKC,
                    "kc_free: %p is not a live kc allocation (kc did not "
                    "allocate it, or it was already freed)",
                    p);
  } else if (r->base != (uintptr_t)p) {
    *rc = kc__error(KC_ENOTKC,
                    "kc_free: %p points inside allocation '%s' (which starts "
                    "at %p), not at its start",
                    p, r->label, (void *)r->base);
    r = NULL;
  } else if (r->mirror && r->refcount == 1) {
    /* Only the mirror's own reference is left: kc_mirror_destroy frees it
     * (freed here, the mirror would sync from and to freed memory). */
    *rc = kc__error(KC_EINVAL,
                    "kc_free: %p is a side of mirror '%s'; "
                    "kc_mirror_destroy frees it",
                    p, r->label);
    r = NULL;
  } else if (--r->refcount > 0) {
    r = NULL; /* still referenced */
  } else {
    erase(i); /* the record is now ours alone */
  }
  pthread_mutex_unlock(&mem_lock);
  return r;
}

int kc_free(void *p) {
  if (!p)
    return 0;
  int rc = kc__enter("kc_free");
  if (rc < 0)
    return rc;
  record *r = take(p, &rc);
  if (r) {
    /* Tools hear of it while the memory still exists, and without kc's
     * lock (a tool may fence). */
    if (kc__unlikely(kc__tools_active && r->told))
      kc__tools_deallocate(r->space, r->label, p, r->size);
    pthread_mutex_lock(&kc__rt.lock);
    if (KC__OPS_HAS(kc__rt.ops, fence))
      rc = KC__SLOT(kc__rt.ops->fence(kc__rt.state));
    release(r);
    pthread_mutex_unlock(&kc__rt.lock);
  }
  kc__leave();
  return rc;
}

int kc_retain(void *p) {
  int rc = kc__enter("kc_retain");
  if (rc < 0)
    return rc;
  pthread_mutex_lock(&mem_lock);
  long i = find(p);
  if (i >= 0)
    recs[i]->refcount++;
  pthread_mutex_unlock(&mem_lock);
  kc__leave();
  if (i < 0)
    return kc__error(KC_ENOTKC,
                     "kc_retain: %p is not inside a live kc "
                     "allocation",
                     p);
  return 0;
}

int kc_pointer_info(const void *p, kc_alloc_info *out) {
  int rc = kc__enter("kc_pointer_info");
  if (rc < 0)
    return rc;
  if (!out) {
    kc__leave();
    return kc__error(KC_EINVAL, "kc_pointer_info: out is NULL");
  }
  int rc0 = kc__out_check("kc_pointer_info", "out", out, sizeof *out);
  if (rc0 < 0) {
    kc__leave();
    return rc0;
  }
  pthread_mutex_lock(&mem_lock);
  long i = find(p);
  if (i >= 0) {
    const record *r = recs[i];
    out->base = (void *)r->base;
    out->size = r->size;
    out->space = r->space;
    out->label = r->label;
    out->refcount = r->refcount;
  }
  pthread_mutex_unlock(&mem_lock);
  kc__leave();
  if (i < 0)
    return kc__error(KC_ENOTKC,
                     "kc_pointer_info: %p is not inside a live kc "
                     "allocation",
                     p);
  return 0;
}

int kc__out_check(const char *fn, const char *what, const void *p,
                  size_t bytes) {
  pthread_mutex_lock(&mem_lock);
  long i = find(p);
  size_t room = 0;
  kc_space space = KC_SPACE_HOST;
  char label[64] = "";
  if (i >= 0) {
    const record *r = recs[i];
    room = r->size - ((uintptr_t)p - r->base);
    space = r->space;
    snprintf(label, sizeof label, "%s", r->label ? r->label : "");
  }
  pthread_mutex_unlock(&mem_lock);
  if (i < 0)
    return 0;
  if (space == KC_SPACE_DEVICE && (kc__rt.spaces & (1u << KC_SPACE_DEVICE)))
    return kc__error(KC_EINVAL,
                     "%s: %s %p is in device allocation '%s', which the host "
                     "cannot write",
                     fn, what, p, label);
  if (room < bytes)
    return kc__error(KC_EINVAL,
                     "%s: %s %p is %zu byte(s) before the end of kc "
                     "allocation '%s'; %zu are written there",
                     fn, what, p, room, label, bytes);
  return 0;
}

int kc__memory_room(const void *p, kc_space *space, size_t *room, char *label,
                    size_t cap) {
  pthread_mutex_lock(&mem_lock);
  long i = find(p);
  if (i >= 0) {
    const record *r = recs[i];
    *space = r->space;
    *room = r->size - ((uintptr_t)p - r->base);
    if (cap)
      snprintf(label, cap, "%s", r->label ? r->label : "");
  }
  pthread_mutex_unlock(&mem_lock);
  return i >= 0;
}

/* The space of [p, p + bytes), checking that a kc allocation holds all of
 * it, and (when `label` is not NULL and tools listen) a copy of its whole
 * label for them, to free; mem_lock held. */
static int classify(const char *fn, const char *what, const void *p,
                    size_t bytes, kc_space *space, char **label) {
  long i = find(p);
  if (i < 0) {
    *space = KC_SPACE_HOST;
    return 0;
  }
  const record *r = recs[i];
  size_t off = (uintptr_t)p - r->base;
  if (bytes > r->size || off > r->size - bytes)
    return kc__error(KC_EINVAL,
                     "%s: %zu bytes at %s %p run past the end of allocation "
                     "'%s' (%zu bytes at %p)",
                     fn, bytes, what, p, r->label, r->size, (void *)r->base);
  *space = r->space;
  if (label && kc__unlikely(kc__tools_active))
    *label = strdup(r->label);
  return 0;
}

/* Copies [src, src + bytes) to dst through the backend; rt.lock held. */
static int copy_locked(void *bq, void *dst, kc_space ds, const void *src,
                       kc_space ss, size_t bytes, int async) {
  const kc_backend_ops *ops = kc__rt.ops;
  if (bq) /* a backend queue: the queue slots exist (queue.c) */
    return KC__SLOT(
        ops->mem_copy_on(kc__rt.state, bq, dst, ds, src, ss, bytes));
  if (backend_has_memory())
    return KC__SLOT(
        ops->mem_copy(kc__rt.state, dst, ds, src, ss, bytes, async));
  /* Host memory: order after earlier launches, then copy.  memmove,
   * because nothing stops a caller from copying within one array. */
  int rc = 0;
  if (KC__OPS_HAS(ops, fence))
    rc = KC__SLOT(ops->fence(kc__rt.state));
  if (rc == 0)
    memmove(dst, src, bytes);
  return rc;
}

static int copy_entered(const char *fn, void *bq, void *dst, const void *src,
                        size_t bytes, int async) {
  kc_space ds, ss;
  char *dl = NULL, *sl = NULL; /* the labels, for the tools */
  pthread_mutex_lock(&mem_lock);
  int rc = classify(fn, "destination", dst, bytes, &ds, &dl);
  if (rc == 0)
    rc = classify(fn, "source", src, bytes, &ss, &sl);
  pthread_mutex_unlock(&mem_lock);
  /* Hooks outside kc's locks: a tool may fence from them. */
  if (rc == 0 && kc__unlikely(kc__tools_active))
    kc__tools_begin_deep_copy(ds, dl, dst, ss, sl, src, bytes);
  free(dl);
  free(sl);
  if (rc < 0)
    return rc;
  pthread_mutex_lock(&kc__rt.lock);
  rc = copy_locked(bq, dst, ds, src, ss, bytes, async);
  pthread_mutex_unlock(&kc__rt.lock);
  if (kc__unlikely(kc__tools_active))
    kc__tools_end_deep_copy();
  return rc;
}

static int copy(const char *fn, void *bq, void *dst, const void *src,
                size_t bytes, int async) {
  KC__CHECK_INIT(fn);
  if (bytes == 0)
    return 0;
  /* No object is that large: a negative size converted (Fortran's
   * c_size_t is signed) reached memmove between host arrays. */
  if (bytes > (size_t)PTRDIFF_MAX)
    return kc__error(KC_EINVAL,
                     "%s: %zu bytes is more than any object holds (a "
                     "negative size?)",
                     fn, bytes);
  if (!dst || !src)
    return kc__error(KC_EINVAL, "%s: %s is NULL with %zu bytes to copy", fn,
                     dst ? "src" : "dst", bytes);
  int rc = kc__enter(fn);
  if (rc < 0)
    return rc;
  rc = copy_entered(fn, bq, dst, src, bytes, async);
  kc__leave();
  return rc;
}

int kc_memcpy(void *dst, const void *src, size_t bytes) {
  return copy("kc_memcpy", NULL, dst, src, bytes, 0);
}

int kc_memcpy_async(void *dst, const void *src, size_t bytes) {
  return copy("kc_memcpy_async", NULL, dst, src, bytes, 1);
}

int kc__memset(const char *fn, void *bq, void *p, int value, size_t bytes) {
  KC__CHECK_INIT(fn);
  if (bytes == 0)
    return 0;
  if (bytes > (size_t)PTRDIFF_MAX)
    return kc__error(KC_EINVAL,
                     "%s: %zu bytes is more than any object holds (a "
                     "negative size?)",
                     fn, bytes);
  if (!p)
    return kc__error(KC_EINVAL, "%s: p is NULL with %zu bytes to set", fn,
                     bytes);
  int rc = kc__enter(fn);
  if (rc < 0)
    return rc;
  kc_space space = KC_SPACE_HOST; /* set by classify (-O3 cannot see it) */
  pthread_mutex_lock(&mem_lock);
  rc = classify(fn, "destination", p, bytes, &space, NULL);
  pthread_mutex_unlock(&mem_lock);
  if (rc == 0) {
    const kc_backend_ops *ops = kc__rt.ops;
    pthread_mutex_lock(&kc__rt.lock);
    if (bq) {
      rc = KC__SLOT(ops->mem_set_on(kc__rt.state, bq, p, space, value, bytes));
    } else if (backend_has_memory()) {
      rc = KC__SLOT(ops->mem_set(kc__rt.state, p, space, value, bytes));
    } else {
      if (KC__OPS_HAS(ops, fence))
        rc = KC__SLOT(ops->fence(kc__rt.state));
      if (rc == 0)
        memset(p, value, bytes);
    }
    pthread_mutex_unlock(&kc__rt.lock);
  }
  kc__leave();
  return rc;
}

int kc_memset(void *p, int value, size_t bytes) {
  return kc__memset("kc_memset", NULL, p, value, bytes);
}

int kc__memcpy(const char *fn, void *bq, void *dst, const void *src,
               size_t bytes, int async) {
  return copy(fn, bq, dst, src, bytes, async);
}

void kc__memory_release_all(void) {
  pthread_mutex_lock(&mem_lock);
  if (nrecs)
    kc__verbose("kc_finalize: freeing %zu allocation(s) still live", nrecs);
  for (size_t i = 0; i < nrecs; i++) {
    record *r = recs[i];
    kc__verbose("  '%s': %zu bytes of %s memory at %p, refcount %d", r->label,
                r->size, kc_space_name(r->space), (void *)r->base, r->refcount);
    release(r);
  }
  free(recs);
  recs = NULL;
  nrecs = caprecs = 0;
  pthread_mutex_unlock(&mem_lock);
}
