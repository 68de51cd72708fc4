/* kc CUDA plugin — the device buffers a launch uses and functor staging.
 *
 * Buffers (reduction partials, the result slot, level-1 team scratch) are
 * grown on demand, never shrunk: after a launch that needed more, later
 * launches of the same shape find them large enough and allocate nothing.
 * Growing is the one allocation a launch may make; it waits for the
 * stream first, because an earlier launch may still use the old buffer.
 *
 * Functors that do not travel as kernel parameters go through the staging
 * ring (plugin.h): copied into a slot of pinned host memory, then queued
 * on the stream to the module's constant region or to global memory; a
 * functor or changed span of one or two 8-byte words is written by the
 * stream itself instead (WRITE_WORDS).
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

/* Initial size of the staging ring (grown for a functor over half of it). */
#define RING_BYTES (4u << 20)

/* Functors up to this size are copied from the ring's pageable mirror:
 * the driver takes pageable bytes into its own command stream before
 * cuMemcpyHtoDAsync returns, which on an H100 cost 4.7-5.5 us a launch at
 * 1.6 KB where a copy from pinned memory (a DMA the copy engine runs
 * between the kernels) cost 7.6-10.2, and 6.6-7.4 against 9.2-10.4 at
 * 24 KB; at 240 KB the pinned ring was faster (16.2-20.1 against
 * 19.1-22.1).  A mirror of kc's own, not the caller's functor: that one
 * may be pinned memory, whose copy would run later, after the caller may
 * have changed it. */
#define PAGED_MAX ((size_t)64 << 10)

static inline unsigned char *ring_bytes(const kc__cuda_ring *r, size_t n) {
  return n <= PAGED_MAX ? r->paged : r->host;
}

/* ------------------------------------------------------------- buffers */

/* Waits for every launch queued on the stream: a buffer is about to be
 * freed and replaced. */
static int drain(kc__cuda_state *s) {
  CUresult r = s->cu->cuStreamSynchronize(s->cur->stream);
  return r ? kc__cuda_fail(s, r, KC_EDEVICE, "cuStreamSynchronize") : 0;
}

int kc__cuda_grow(kc__cuda_state *s, CUdeviceptr *buf, size_t *size,
                  size_t bytes, size_t align, const char *what) {
  if (bytes <= *size)
    return 0;
  const kc__cu_api *cu = s->cu;
  int rc = drain(s);
  if (rc)
    return rc;
  if (*buf)
    cu->cuMemFree(*buf);
  *buf = 0;
  *size = 0;
  bytes = KC__ALIGN_UP(bytes, align);
  CUresult r = cu->cuMemAlloc(buf, bytes);
  if (r != CUDA_SUCCESS) {
    *buf = 0;
    return kc__cuda_fail(s, r, KC_ENOMEM, what);
  }
  *size = bytes;
  return 0;
}

int kc__cuda_ensure_partials(kc__cuda_state *s, size_t bytes) {
  return kc__cuda_grow(s, &s->cur->partials, &s->cur->partials_size, bytes,
                       4096, "allocating reduction scratch");
}

/* The flags of a single-pass scan need no clearing between launches: each
 * launch on the buffer has an epoch of its own, and a flag of another
 * epoch reads as "not yet published".  Only a new buffer (whatever its
 * bytes were) and the wrap of the epoch (2^30 launches) zero them. */
int kc__cuda_scan_tiles(kc__cuda_state *s, unsigned ntiles, size_t vs,
                        unsigned *epoch) {
  kc__cuda_lane *L = s->cur;
  const size_t need =
      vs <= 8 ? 16 * (size_t)ntiles
              : KC__ALIGN_UP((size_t)ntiles * 4, 256) + 2 * (size_t)ntiles * vs;
  const int fresh = need > L->tiles_size;
  int rc = kc__cuda_grow(s, &L->tiles, &L->tiles_size, need, 4096,
                         "allocating a scan's tile state");
  if (rc)
    return rc;
  if (fresh || L->epoch >= (1u << 30) - 1) {
    CUresult r = s->cu->cuMemsetD8Async(L->tiles, 0, L->tiles_size, L->stream);
    if (r != CUDA_SUCCESS)
      return kc__cuda_fail(s, r, KC_EDEVICE, "clearing a scan's tile state");
    L->epoch = 0;
  }
  *epoch = ++L->epoch;
  return 0;
}

int kc__cuda_ensure_result_slot(kc__cuda_state *s, size_t bytes) {
  if (bytes <= s->cur->res_size)
    return 0;
  const kc__cu_api *cu = s->cu;
  int rc = drain(s);
  if (rc)
    return rc;
  if (s->cur->res_host)
    cu->cuMemFreeHost(s->cur->res_host);
  s->cur->res_host = NULL;
  s->cur->res_size = 0;
  bytes = KC__ALIGN_UP(bytes < 256 ? 256 : bytes, 256);
  CUresult r =
      cu->cuMemHostAlloc(&s->cur->res_host, bytes,
                         CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  if (r != CUDA_SUCCESS)
    return kc__cuda_fail(s, r, KC_ENOMEM, "allocating the result slot");
  if ((r = cu->cuMemHostGetDevicePointer(&s->cur->res_dev, s->cur->res_host,
                                         0)) != CUDA_SUCCESS)
    return kc__cuda_fail(s, r, KC_EDEVICE, "cuMemHostGetDevicePointer");
  s->cur->res_size = bytes;
  return 0;
}

/* ---------------------------------------------------------------- ring */

static void ring_free(kc__cuda_state *s, kc__cuda_ring *r) {
  const kc__cu_api *cu = s->cu;
  for (int h = 0; h < 2; h++)
    if (r->ev[h])
      cu->cuEventDestroy(r->ev[h]);
  if (r->host)
    cu->cuMemFreeHost(r->host);
  free(r->paged);
  if (r->dev)
    cu->cuMemFree(r->dev);
  memset(r, 0, sizeof *r);
}

/* The next ring stamp: unique in the process (rings are set up, freed and
 * set up again; a lane's memory may be a later queue's), so a stamp a
 * kernel remembers can match only the half it was taken from. */
static unsigned long long next_stamp(void) {
  static unsigned long long stamps;
  return __atomic_add_fetch(&stamps, 1, __ATOMIC_RELAXED);
}

static int ring_setup(kc__cuda_state *s, kc__cuda_ring *r, size_t size) {
  const kc__cu_api *cu = s->cu;
  CUresult e;
  void *h = NULL;
  memset(r, 0, sizeof *r);
  r->stamp[0] = next_stamp();
  r->stamp[1] = next_stamp();
  if ((e = cu->cuMemHostAlloc(&h, size, CU_MEMHOSTALLOC_PORTABLE)) ==
      CUDA_SUCCESS) {
    r->host = h;
    r->size = size;
    if (!(r->paged = aligned_alloc(64, size)))
      e = CUDA_ERROR_OUT_OF_MEMORY;
  }
  if (e == CUDA_SUCCESS)
    e = cu->cuEventCreate(&r->ev[0], CU_EVENT_DISABLE_TIMING);
  if (e == CUDA_SUCCESS)
    e = cu->cuEventCreate(&r->ev[1], CU_EVENT_DISABLE_TIMING);
  if (e != CUDA_SUCCESS) {
    ring_free(s, r);
    return kc__cuda_fail(s, e, KC_ENOMEM, "setting up functor staging");
  }
  return 0;
}

/* A ring with room for an n-byte functor (and a device side in global
 * mode): set up at first use, grown (after draining the stream, since
 * queued copies may still read the old slots) for a larger functor. */
static int ring_ready(kc__cuda_state *s, kc__cuda_ring *r, size_t n,
                      int global) {
  const size_t sz = KC__ALIGN_UP(n, 256);
  int rc;
  if (r->host && sz <= r->size && (!global || r->dev))
    return 0;
  size_t want = r->size ? r->size : RING_BYTES;
  while (want < sz)
    want *= 2;
  if (r->host && want != r->size) {
    if ((rc = drain(s)) != 0)
      return rc;
    ring_free(s, r);
  }
  if (!r->host && (rc = ring_setup(s, r, want)) != 0)
    return rc;
  if (global && !r->dev) {
    CUresult e = s->cu->cuMemAlloc(&r->dev, r->size);
    if (e != CUDA_SUCCESS) {
      r->dev = 0;
      return kc__cuda_fail(s, e, KC_ENOMEM, "allocating functor staging");
    }
  }
  return 0;
}

/* A failed wait leaves the half pending, so a later reservation waits
 * again rather than refill a half whose copies may not have run. */
static inline int ring_wait(kc__cuda_state *s, kc__cuda_ring *r, int h) {
  if (!r->pending[h])
    return 0;
  CUresult e = s->cu->cuEventSynchronize(r->ev[h]);
  if (e != CUDA_SUCCESS)
    return kc__cuda_fail(s, e, KC_EDEVICE, "cuEventSynchronize");
  r->pending[h] = 0;
  return 0;
}

static inline int ring_record(kc__cuda_state *s, kc__cuda_ring *r, int h) {
  CUresult e = s->cu->cuEventRecord(r->ev[h], s->cur->stream);
  if (e != CUDA_SUCCESS)
    return kc__cuda_fail(s, e, KC_ELAUNCH, "cuEventRecord");
  r->pending[h] = 1;
  return 0;
}

/* The host offset of a slot for n functor bytes.  Queue the copy out of
 * it before the next reservation. */
static int ring_reserve(kc__cuda_state *s, kc__cuda_ring *r, size_t n,
                        size_t *off) {
  size_t sz = KC__ALIGN_UP(n ? n : 1, 256), half = r->size / 2;
  int rc;
  if (r->big) {
    /* The previous functor took the whole ring; its copy is queued now
     * (recorded before big is cleared, so a failed record is retried). */
    if ((rc = ring_record(s, r, 0)) != 0)
      return rc;
    r->big = 0;
  }
  if (sz > half) {
    /* Larger than half the ring (ring_ready made sure it fits): the whole
     * of it, once both halves are free.  The half the cursor is in has no
     * event for the copies queued from it since it was entered: record
     * one, or its slots would be overwritten before those copies ran (the
     * launches before would read this functor's bytes). */
    if ((rc = ring_record(s, r, r->half)) != 0 ||
        (rc = ring_wait(s, r, 0)) != 0 || (rc = ring_wait(s, r, 1)) != 0)
      return rc;
    *off = 0;
    r->half = 1;
    r->cursor = r->size;
    r->big = 1;
    r->stamp[0] = next_stamp();
    r->stamp[1] = next_stamp();
    return 0;
  }
  if (r->cursor + sz > (size_t)(r->half + 1) * half) {
    /* Leave this half: its slots are free once the copies queued so far
     * have run. */
    if ((rc = ring_record(s, r, r->half)) != 0)
      return rc;
    r->half ^= 1;
    r->cursor = (size_t)r->half * half;
    r->stamp[r->half] = next_stamp();
  }
  /* The half's copies from its last filling have run (a wait that failed
   * before, when the cursor entered the half, is tried again: the slots
   * are not handed out until it succeeds; nothing when none is pending). */
  if ((rc = ring_wait(s, r, r->half)) != 0)
    return rc;
  *off = r->cursor;
  r->cursor += sz;
  return 0;
}

/* The next slot of the module's constant staging region, in turn; a slot's
 * reuse is ordered by the stream. */
static CUdeviceptr constant_slot(kc__cuda_module *m, size_t n,
                                 unsigned long long *pos) {
  size_t sz = KC__ALIGN_UP(n ? n : 1, 256);
  if (m->staging_next + sz > m->staging_size) {
    m->staging_mono += m->staging_size - m->staging_next;
    m->staging_next = 0;
  }
  CUdeviceptr to = m->staging + m->staging_next;
  *pos = m->staging_mono;
  m->staging_next += sz;
  m->staging_mono += sz;
  return to;
}

/* Does a staged copy of K's (st: staged[0] or [1]) still hold its bytes,
 * on this lane and in this mode, with the shadow to compare against? */
static int staged_intact(const kc__cuda_state *s, const kc__cuda_kernel *K,
                         const kc__cuda_staged *st, size_t n, int global) {
  const kc__cuda_ring *r = &s->cur->ring;
  if (st->lane != s->cur || st->n != n || st->global != global ||
      !st->shadow_ok || !r->host)
    return 0;
  if (!global)
    return K->mod->staging_mono - st->cpos <= K->mod->staging_size;
  for (int h = 0; h < 2; h++)
    if ((st->halves >> h & 1) && st->stamp[h] != r->stamp[h])
      return 0;
  return 1;
}

/* The scans for the span two functors differ in compare pieces of these
 * sizes in turn with memcmp (which reads 4 KB of equal bytes much faster
 * than a loop), then 8-byte words and bytes inline, narrowing down to the
 * byte.  Pieces of one byte by memcmp, as before, cost a 128-byte functor
 * whose last word changed 56 calls and 0.19 us a launch (perf, against
 * the fake driver): more than all the rest of a launch. */
static const size_t diff_pieces[] = {4096, 512, 64};

static int words_differ(const unsigned char *a, const unsigned char *b) {
  uint64_t x, y;
  memcpy(&x, a, 8);
  memcpy(&y, b, 8);
  return x != y;
}

/* The first byte at which a and b (n bytes) differ, or n. */
static size_t first_diff(const unsigned char *a, const unsigned char *b,
                         size_t n) {
  size_t i = 0;
  for (size_t p = 0; p < sizeof diff_pieces / sizeof *diff_pieces; p++)
    while (i < n) {
      const size_t c = n - i < diff_pieces[p] ? n - i : diff_pieces[p];
      if (memcmp(a + i, b + i, c) != 0)
        break; /* the difference is in [i, i + c): narrower pieces */
      i += c;
    }
  while (n - i >= 8 && !words_differ(a + i, b + i))
    i += 8;
  while (i < n && a[i] == b[i])
    i++;
  return i;
}

/* One past the last byte at which a and b (n bytes) differ, or 0. */
static size_t last_diff(const unsigned char *a, const unsigned char *b,
                        size_t n) {
  size_t e = n;
  for (size_t p = 0; p < sizeof diff_pieces / sizeof *diff_pieces; p++)
    while (e > 0) {
      const size_t c = e < diff_pieces[p] ? e : diff_pieces[p];
      if (memcmp(a + e - c, b + e - c, c) != 0)
        break;
      e -= c;
    }
  while (e >= 8 && !words_differ(a + e - 8, b + e - 8))
    e -= 8;
  while (e > 0 && a[e - 1] == b[e - 1])
    e--;
  return e;
}

/* Copies the n bytes at src into the ring slot at off and queues their
 * copy to the device address `to`. */
static int copy_out(kc__cuda_state *s, kc__cuda_ring *r, size_t off,
                    const unsigned char *src, size_t n, CUdeviceptr to) {
  if (n == 0) /* no functor: src may be NULL, nothing to copy */
    return 0;
  unsigned char *from = ring_bytes(r, n) + off;
  memcpy(from, src, n);
  CUresult e;
  if ((e = s->cu->cuMemcpyHtoDAsync(to, from, n, s->cur->stream)) !=
      CUDA_SUCCESS)
    return kc__cuda_fail(s, e, KC_ELAUNCH,
                         "staging a functor (cuMemcpyHtoDAsync)");
  return 0;
}

/* Spans of at most this many 8-byte words are written by the stream
 * itself (cuStreamWriteValue64 with the values in the call), not copied:
 * no copy-engine transfer, and a patch takes no ring slot (a whole
 * functor still reserves one, as its global-memory slot is the ring's).  On an
 * H100 (CUDA 13, driver 580) a launch after one such write cost 1.0-1.4 us more
 * than the bare parameter launch where one after cuMemcpyHtoDAsync of the same
 * 8 bytes cost 2.2-2.5 us more; each further word costs the GPU about 0.7 us
 * (every write is fenced), so a longer span is copied. */
#define WRITE_WORDS 2

/* write_words' answer when it wrote nothing and the caller copies: the
 * bytes are not for stream writes, or the driver refused the call. */
#define NOT_WRITTEN 1

/* Queues stream writes of the n bytes at src to `to`, the last word's
 * bytes past n as zeros (the slot's padding); each word is built in the
 * device's byte order (little-endian), whatever the host's.  Returns 0, a
 * KC_E code, or NOT_WRITTEN: the device has no stream writes, `to` is not
 * 8-byte aligned, the bytes take more than WRITE_WORDS words, or the
 * driver answered CUDA_ERROR_NOT_SUPPORTED or CUDA_ERROR_INVALID_VALUE
 * (for an address kc checked), after which stream writes are off for the
 * device.  A failure leaves the device bytes partly written: the caller
 * has forgotten the staged copy already. */
static int write_words(kc__cuda_state *s, CUdeviceptr to,
                       const unsigned char *src, size_t n) {
  if (!s->stream_writes || !n || (to & 7) ||
      KC__ALIGN_UP(n, 8) > 8 * WRITE_WORDS)
    return NOT_WRITTEN;
  for (size_t i = 0; i < n; i += 8) {
    unsigned long long w = 0;
    for (size_t j = 0; j < 8 && i + j < n; j++)
      w |= (unsigned long long)src[i + j] << 8 * j;
    CUresult e = s->cu->cuStreamWriteValue64(s->cur->stream, to + i, w,
                                             CU_STREAM_WRITE_VALUE_DEFAULT);
    if (e == CUDA_ERROR_NOT_SUPPORTED || e == CUDA_ERROR_INVALID_VALUE) {
      s->stream_writes = 0;
      kc_backend_verbose("cuda: device %d: cuStreamWriteValue64 refused "
                         "(CUresult %d): functors are copied from now on",
                         s->ordinal, (int)e);
      return NOT_WRITTEN;
    }
    if (e != CUDA_SUCCESS)
      return kc__cuda_fail(s, e, KC_ELAUNCH,
                           "staging a functor (cuStreamWriteValue64)");
  }
  return 0;
}

/* The latest copy becomes the one before and the one before the latest;
 * the counters of misses and skips stay with staged[0], the kernel's. */
static void rotate(kc__cuda_kernel *K) {
  kc__cuda_staged t = K->staged[0];
  K->staged[0] = K->staged[1];
  K->staged[1] = t;
  K->staged[0].misses = t.misses;
  K->staged[0].skip = t.skip;
}

int kc__cuda_stage(kc__cuda_state *s, kc__cuda_kernel *K, const void *src,
                   size_t n, int global, CUdeviceptr *dst) {
  kc__cuda_ring *r = &s->cur->ring;
  kc__cuda_staged *st = &K->staged[0], *before = &K->staged[1];
  int rc;
  if (n > (SIZE_MAX >> 2))
    return kc_backend_error(KC_ENOMEM,
                            "cuda: a functor of %zu bytes cannot be staged", n);
  /* The bytes of K's last launch, still in place: the device has them (the
   * copy was queued before on this lane's stream) and the kernel only
   * reads them, so pass the same address, or patch the span that changed
   * there if it is at most half of them.  Else the whole copy before it,
   * in place as well: pass its address if it has the same bytes, or patch
   * it (two functors in turn that also carry a changing scalar). */
  size_t lo = 0, hi = n;
  int patch = 0, replace_latest = 0;
  if (n && st->lane == s->cur && st->n == n && st->global == global && st->skip)
    st->skip--;
  else if (n) {
    const int latest = staged_intact(s, K, st, n, global),
              prior = staged_intact(s, K, before, n, global);
    if (latest && (lo = first_diff(st->shadow, src, n)) == n) {
      st->misses = 0;
      *dst = st->dev;
      return 0;
    }
    if (!latest)
      lo = 0;
    /* Compared from where the bytes left the latest copy's first: a copy
     * that is not theirs most likely differs there. */
    if (prior &&
        memcmp(before->shadow + lo, (const char *)src + lo, n - lo) == 0 &&
        memcmp(before->shadow, src, lo) == 0) {
      rotate(K);
      st->misses = st->skip = 0;
      *dst = st->dev;
      return 0;
    }
    if (latest) {
      hi = last_diff(st->shadow, src, n);
      patch = hi - lo <= n / 2;
    }
    if (!patch && prior) {
      const size_t lo1 = first_diff(before->shadow, src, n),
                   hi1 = last_diff(before->shadow, src, n);
      if (hi1 - lo1 <= n / 2) {
        rotate(K);
        lo = lo1;
        hi = hi1;
        patch = 1;
      }
    }
    if (patch)
      st->misses = 0;
    else {
      /* A wide change from a copy compared with (not a first staging, nor
       * one whose copies were overwritten) */
      if ((latest || prior) && ++st->misses >= 2)
        st->skip = 7;
      /* A whole copy replaces the copy that is no longer valid, if one is
       * and the other is. */
      replace_latest = !latest && prior;
    }
  }
  if ((rc = ring_ready(s, r, n, global)) != 0)
    return rc;
  /* A ring set up anew (it never is for a size it staged before) takes
   * the global buffer the patch was to go to with it. */
  if (patch && !staged_intact(s, K, st, n, global))
    patch = 0;
  const unsigned char *bytes = src;
  size_t off;
  if (patch) {
    /* As whole words if few: from the word holding lo to the one holding
     * hi - 1 (the bytes around the span are the device's already). */
    st->lane = NULL;
    const size_t wlo = lo & ~(size_t)7, whi = KC__ALIGN_UP(hi, 8);
    rc = write_words(s, st->dev + wlo, bytes + wlo, (whi < n ? whi : n) - wlo);
    if (rc == NOT_WRITTEN && (rc = ring_reserve(s, r, hi - lo, &off)) == 0)
      rc = copy_out(s, r, off, bytes + lo, hi - lo, st->dev + lo);
    if (rc)
      return rc;
    memcpy(st->shadow + lo, bytes + lo, hi - lo);
    st->lane = s->cur;
    *dst = st->dev;
    return 0;
  }
  /* The whole functor, to a slot of its own: the ring's (global) or the
   * constant region's, each free once the copies before it ran.  Its
   * record is the one before the latest's (or the latest's, if only that
   * one is no longer valid), which it replaces; it is the latest once
   * staged. */
  kc__cuda_staged *nw = replace_latest ? st : before;
  nw->lane = NULL;
  if ((rc = ring_reserve(s, r, n, &off)) != 0)
    return rc;
  unsigned long long cpos = 0;
  CUdeviceptr to = global ? r->dev + off : constant_slot(K->mod, n, &cpos);
  rc = write_words(s, to, bytes, n);
  if (rc == NOT_WRITTEN)
    rc = copy_out(s, r, off, bytes, n, to);
  if (rc)
    return rc;
  /* Remember where they went (a slot past half the ring, r->big, spans
   * both halves), and, unless the compares are being skipped, what. */
  const size_t half = r->size / 2;
  nw->lane = s->cur;
  nw->global = global;
  nw->n = n;
  nw->halves = r->big ? 3 : off < half ? 1 : 2;
  nw->stamp[0] = r->stamp[0];
  nw->stamp[1] = r->stamp[1];
  nw->cpos = cpos;
  nw->dev = to;
  nw->shadow_ok = 0;
  if (n && !st->skip) {
    if (nw->shadow_cap < n) {
      free(nw->shadow);
      nw->shadow_cap = 0;
      if ((nw->shadow = malloc(n)) != NULL)
        nw->shadow_cap = n;
    }
    /* Without a shadow (out of memory) every launch copies. */
    if (nw->shadow) {
      memcpy(nw->shadow, src, n);
      nw->shadow_ok = 1;
    }
  }
  if (nw == before)
    rotate(K);
  *dst = to;
  return 0;
}

void kc__cuda_staged_free(kc__cuda_staged st[2]) {
  for (int i = 0; i < 2; i++) {
    free(st[i].shadow);
    st[i].shadow = NULL;
    st[i].shadow_cap = 0;
    st[i].shadow_ok = 0;
  }
}

void kc__cuda_launch_finalize(kc__cuda_state *s) {
  const kc__cu_api *cu = s->cu;
  /* Modules whose kernels were not released (the core releases them all
   * before finalize; this is the safety net). */
  while (s->modules) {
    kc__cuda_module *m = s->modules;
    s->modules = m->next;
    cu->cuModuleUnload(m->mod);
    free(m);
  }
}

/* ---------------------------------------------------------------- lanes */

int kc__cuda_lane_open(kc__cuda_state *s, kc__cuda_lane *L, unsigned flags) {
  const kc__cu_api *cu = s->cu;
  memset(L, 0, sizeof *L);
  /* The default queue's stream is a blocking one: it also orders against
   * the legacy default stream, so code mixing kc with its own CUDA calls
   * on stream 0 stays ordered.  A kc queue's is non-blocking
   * (CU_STREAM_NON_BLOCKING): ordered by events and fences only, as
   * independent queues are meant to be.  The last-block-done counter of
   * reductions and scans starts at 0; the last block of every launch puts
   * it back. */
  CUresult r;
  if ((r = cu->cuStreamCreate(&L->stream, flags)) != CUDA_SUCCESS) {
    L->stream = NULL;
    return kc__cuda_fail(s, r, KC_EDEVICE, "cuStreamCreate");
  }
  if ((r = cu->cuMemAlloc(&L->counter, 256)) != CUDA_SUCCESS ||
      (r = cu->cuMemsetD8Async(L->counter, 0, 256, L->stream)) !=
          CUDA_SUCCESS ||
      (r = cu->cuStreamSynchronize(L->stream)) != CUDA_SUCCESS) {
    int rc = kc__cuda_fail(s, r, KC_EDEVICE, "allocating a reduction counter");
    kc__cuda_lane_close(s, L);
    return rc;
  }
  return 0;
}

/* After the lane's work: the caller synchronised it (or the context is
 * lost). */
void kc__cuda_lane_close(kc__cuda_state *s, kc__cuda_lane *L) {
  const kc__cu_api *cu = s->cu;
  ring_free(s, &L->ring);
  if (L->partials)
    cu->cuMemFree(L->partials);
  if (L->res_host)
    cu->cuMemFreeHost(L->res_host);
  if (L->scratch1)
    cu->cuMemFree(L->scratch1);
  if (L->tiles)
    cu->cuMemFree(L->tiles);
  if (L->counter)
    cu->cuMemFree(L->counter);
  if (L->stream)
    cu->cuStreamDestroy(L->stream);
  memset(L, 0, sizeof *L);
}
