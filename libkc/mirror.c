/* libkc — mirrored arrays (Kokkos DualView, Kokkidio DualViewMap).
 *
 * A mirror is two kc allocations, a host side and a target side, and two
 * "modified" flags.  When the backend's device space is host memory (its
 * info leaves the device bit out of `spaces`) both sides are one
 * allocation: syncs copy nothing, yet the flags are still kept, so a
 * program that forgets a sync is caught on the host backends too.
 */
#include <config.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

struct kc_mirror {
  _Atomic unsigned magic; /* MIRROR_MAGIC while the mirror lives */
  void *host;
  void *target; /* == host when the target is the host */
  size_t bytes;
  int modified_host;
  int modified_target;
  unsigned gen; /* kc__rt.gen of the kc_init it was created in */
  char label[96];
};

/* A destroyed mirror's handle is kept, its magic cleared, until 1024
 * other mirrors died after it (as queues and events are): a call on it
 * (a second destroy; in Fortran, a copy of the handle) is KC_EINVAL, not
 * a use after free. */
#define MIRROR_MAGIC 0x6b636d72u
#define MIRROR_REUSE_AFTER 1024u
static kc_mirror *graves[MIRROR_REUSE_AFTER];
static unsigned next_grave;
static pthread_mutex_t graves_lock = PTHREAD_MUTEX_INITIALIZER;

static int dead(const kc_mirror *m) {
  return atomic_load_explicit(&m->magic, memory_order_acquire) != MIRROR_MAGIC;
}

static int not_live(const char *fn, const kc_mirror *m) {
  return kc__error(KC_EINVAL,
                   "%s: %p is not a live kc mirror (destroyed already, "
                   "perhaps through a copy of the handle)",
                   fn, (const void *)m);
}

/* Clears m's magic and keeps its memory; frees the handle that died
 * 1024 deaths before. */
static void bury(kc_mirror *m) {
  atomic_store_explicit(&m->magic, 0u, memory_order_release);
  pthread_mutex_lock(&graves_lock);
  kc_mirror *old = graves[next_grave];
  graves[next_grave] = m;
  next_grave = (next_grave + 1) % MIRROR_REUSE_AFTER;
  pthread_mutex_unlock(&graves_lock);
  free(old);
}

/* A mirror created before the last kc_finalize: its two allocations went
 * with it, and their addresses may belong to new allocations now. */
static int stale(const char *fn, const kc_mirror *m) {
  return kc__error(KC_EINVAL,
                   "%s: mirror '%s' was created before the last "
                   "kc_finalize, which freed its memory; destroy it",
                   fn, m->label);
}

/* Mirror calls enter the runtime themselves, so that a call from inside a
 * kernel is refused before it changes anything, and kc_finalize cannot
 * take the allocations away halfway. */
static int create(kc_mirror **out, size_t bytes, const char *label) {
  kc_mirror *m = calloc(1, sizeof *m);
  if (!m)
    return kc__error(KC_ENOMEM, "kc_mirror_create: out of memory");
  snprintf(m->label, sizeof m->label, "%s", label ? label : "");
  m->bytes = bytes;
  m->gen = kc__rt.gen;
  int rc = kc_malloc(&m->host, bytes, KC_SPACE_HOST, label);
  if (rc == 0) {
    if (kc__rt.spaces & (1u << KC_SPACE_DEVICE)) {
      rc = kc_malloc(&m->target, bytes, KC_SPACE_DEVICE, label);
      if (rc < 0)
        kc_free(m->host);
    } else {
      m->target = m->host;
    }
  }
  if (rc < 0) {
    free(m);
    return rc;
  }
  kc__memory_mirror_side(m->host, 1);
  kc__memory_mirror_side(m->target, 1);
  atomic_store_explicit(&m->magic, MIRROR_MAGIC, memory_order_release);
  *out = m;
  return 0;
}

int kc_mirror_create(kc_mirror **out, size_t bytes, const char *label) {
  KC__CHECK_INIT("kc_mirror_create");
  if (!out)
    return kc__error(KC_EINVAL, "kc_mirror_create: out is NULL");
  int rc0 = kc__out_check("kc_mirror_create", "out", out, sizeof *out);
  if (rc0 < 0)
    return rc0;
  *out = NULL;
  int rc = kc__enter("kc_mirror_create");
  if (rc < 0)
    return rc;
  rc = create(out, bytes, label);
  kc__leave();
  return rc;
}

int kc_mirror_destroy(kc_mirror *m) {
  if (!m)
    return 0;
  if (dead(m))
    return not_live("kc_mirror_destroy", m);
  int rc = kc__enter("kc_mirror_destroy");
  if (rc < 0) {
    /* After the last kc_finalize (not from inside a kernel, not in a
     * fork()ed child): its memory went with kc_finalize; the handle is
     * freed here, or nothing could free it. */
    if (!kc__self.kernel &&
        atomic_load_explicit(&kc__rt.up, memory_order_seq_cst) == KC__DOWN) {
      bury(m);
      kc__error(0, "%s", "");
      return 0;
    }
    return rc;
  }
  if (m->gen == kc__rt.gen) {
    kc__memory_mirror_side(m->host, 0);
    kc__memory_mirror_side(m->target, 0);
    rc = kc_free(m->host);
    if (m->target != m->host) {
      int rc2 = kc_free(m->target);
      if (rc == 0)
        rc = rc2;
    }
  }
  bury(m);
  kc__leave();
  return rc;
}

void *kc_mirror_host(const kc_mirror *m) {
  if (m && dead(m))
    not_live("kc_mirror_host", m);
  return m && !dead(m) ? m->host : NULL;
}
void *kc_mirror_target(const kc_mirror *m) {
  if (m && dead(m))
    not_live("kc_mirror_target", m);
  return m && !dead(m) ? m->target : NULL;
}
size_t kc_mirror_size(const kc_mirror *m) {
  if (m && dead(m))
    not_live("kc_mirror_size", m);
  return m && !dead(m) ? m->bytes : 0;
}

int kc_mirror_modify_host(kc_mirror *m) {
  int rc = kc__enter("kc_mirror_modify_host");
  if (rc < 0)
    return rc;
  if (!m) {
    rc = kc__error(KC_EINVAL, "kc_mirror_modify_host: mirror is NULL");
  } else if (dead(m)) {
    rc = not_live("kc_mirror_modify_host", m);
  } else if (m->gen != kc__rt.gen) {
    rc = stale("kc_mirror_modify_host", m);
  } else {
    m->modified_host = 1;
    if (kc__unlikely(kc__tools_active))
      kc__tools_dual_view_modify(m->label, m->host, 0);
  }
  kc__leave();
  return rc;
}

int kc_mirror_modify_target(kc_mirror *m) {
  int rc = kc__enter("kc_mirror_modify_target");
  if (rc < 0)
    return rc;
  if (!m) {
    rc = kc__error(KC_EINVAL, "kc_mirror_modify_target: mirror is NULL");
  } else if (dead(m)) {
    rc = not_live("kc_mirror_modify_target", m);
  } else if (m->gen != kc__rt.gen) {
    rc = stale("kc_mirror_modify_target", m);
  } else {
    m->modified_target = 1;
    if (kc__unlikely(kc__tools_active))
      kc__tools_dual_view_modify(m->label, m->target, 1);
  }
  kc__leave();
  return rc;
}

static int both_modified(const char *fn, const kc_mirror *m) {
  return kc__error(KC_EINVAL,
                   "%s: both sides of mirror '%s' were marked modified "
                   "without a sync in between; one side's changes would be "
                   "lost (kc_mirror_clear_sync_state forgets both marks: "
                   "then mark the side to keep and sync)",
                   fn, m->label);
}

/* Makes side `to` current from side `from`, whose modified flag is *stale. */
static int sync_entered(const char *fn, kc_mirror *m, int to_host) {
  if (!m)
    return kc__error(KC_EINVAL, "%s: mirror is NULL", fn);
  if (dead(m))
    return not_live(fn, m);
  if (m->gen != kc__rt.gen)
    return stale(fn, m);
  if (m->modified_host && m->modified_target)
    return both_modified(fn, m);
  int stale = to_host ? m->modified_target : m->modified_host;
  if (!stale)
    return 0;
  if (m->host != m->target) {
    int rc = to_host ? kc_memcpy(m->host, m->target, m->bytes)
                     : kc_memcpy(m->target, m->host, m->bytes);
    if (rc < 0)
      return rc;
    if (kc__unlikely(kc__tools_active))
      kc__tools_dual_view_sync(m->label, to_host ? m->host : m->target,
                               !to_host);
  }
  m->modified_host = m->modified_target = 0;
  return 0;
}

static int sync_side(const char *fn, kc_mirror *m, int to_host) {
  int rc = kc__enter(fn);
  if (rc < 0)
    return rc;
  rc = sync_entered(fn, m, to_host);
  kc__leave();
  return rc;
}

int kc_mirror_sync_host(kc_mirror *m) {
  return sync_side("kc_mirror_sync_host", m, 1);
}

int kc_mirror_sync_target(kc_mirror *m) {
  return sync_side("kc_mirror_sync_target", m, 0);
}

int kc_mirror_clear_sync_state(kc_mirror *m) {
  int rc = kc__enter("kc_mirror_clear_sync_state");
  if (rc < 0)
    return rc;
  if (!m)
    rc = kc__error(KC_EINVAL, "kc_mirror_clear_sync_state: mirror is NULL");
  else if (dead(m))
    rc = not_live("kc_mirror_clear_sync_state", m);
  else if (m->gen != kc__rt.gen)
    rc = stale("kc_mirror_clear_sync_state", m);
  else
    m->modified_host = m->modified_target = 0;
  kc__leave();
  return rc;
}

int kc_mirror_need_sync_host(const kc_mirror *m) {
  return m && !dead(m) && m->host != m->target && m->modified_target;
}

int kc_mirror_need_sync_target(const kc_mirror *m) {
  return m && !dead(m) && m->host != m->target && m->modified_host;
}
