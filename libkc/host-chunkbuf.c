/* libkc — per-thread chunk buffers (KC_CHUNK_BUFFER in <kc/kernel.h>).
 *
 * A chunk kernel asks for its buffers at the start of every chunk, from
 * whatever thread runs it (a pool worker, an OpenMP thread, the caller).
 * Each thread keeps its own small set, found through a thread-local
 * pointer without any lock, allocated on first use and grown only when a
 * larger chunk or element type asks for more: after the first chunk a
 * thread runs, asking costs a thread-local load and a compare.  The set is
 * freed when the thread exits (a pthread key destructor).  Out of memory,
 * the chunk's call returns early and its launch fails with KC_ENOMEM.
 */
#include <config.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <kc/kernel.h>

#include "internal.h"

typedef struct buffers {
  void *p[KC_CHUNK_BUFFERS_MAX];
  size_t cap[KC_CHUNK_BUFFERS_MAX];
} buffers;

static _Thread_local buffers *mine;
static pthread_key_t key;
static pthread_mutex_t key_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int key_made; /* tried again until it works */

atomic_int kc__chunk_oom;

static void destroy(void *arg) {
  buffers *b = arg;
  for (int i = 0; i < KC_CHUNK_BUFFERS_MAX; i++)
    free(b->p[i]);
  free(b);
}

/* Without the key a thread's buffers could not be freed when it exits:
 * no buffers then (a failed pthread_key_create was never retried, and
 * every worker's buffers leaked). */
static int have_key(void) {
  if (atomic_load_explicit(&key_made, memory_order_acquire))
    return 1;
  pthread_mutex_lock(&key_lock);
  if (!atomic_load_explicit(&key_made, memory_order_relaxed) &&
      pthread_key_create(&key, destroy) == 0)
    atomic_store_explicit(&key_made, 1, memory_order_release);
  pthread_mutex_unlock(&key_lock);
  return atomic_load_explicit(&key_made, memory_order_relaxed);
}

/* A misused KC_CHUNK_BUFFER (a programming error) ends the process. */
static _Noreturn void die(const char *what, int slot, size_t bytes) {
  fprintf(stderr,
          "kc: KC_CHUNK_BUFFER: %s (buffer %d, %zu bytes); a chunk body may "
          "declare at most %d buffers, at its top level (not in a loop)\n",
          what, slot, bytes, KC_CHUNK_BUFFERS_MAX);
  abort();
}

/* The buffer, or NULL when memory (or the thread key) ran out. */
static void *get(int slot, size_t bytes) {
  buffers *b = mine;
  if (slot < 0 || slot >= KC_CHUNK_BUFFERS_MAX)
    die("too many buffers in one chunk", slot, bytes);
  if (kc__likely(b && b->cap[slot] >= bytes))
    return b->p[slot];
  /* Rounding such a size up would wrap to a tiny buffer. */
  if (bytes > (size_t)PTRDIFF_MAX)
    die("larger than any object can be", slot, bytes);
  if (!b) {
    if (!have_key() || !(b = calloc(1, sizeof *b)))
      return NULL;
    if (pthread_setspecific(key, b) != 0) {
      free(b);
      return NULL;
    }
    mine = b;
  }
  /* Whole cache lines, at least 4 KiB: a thread's chunks differ in length
   * only at the end of a range. */
  size_t want = bytes < 4096 ? 4096 : (bytes + 63) & ~(size_t)63;
  void *p = aligned_alloc(64, want);
  if (!p)
    return NULL;
  free(b->p[slot]);
  b->p[slot] = p;
  b->cap[slot] = want;
  return p;
}

/* Kernels built with kc 0.1's headers: they cannot return from a chunk. */
void *kc__chunk_buffer(int slot, size_t bytes) {
  void *p = get(slot, bytes);
  if (!p)
    die("out of memory", slot, bytes);
  return p;
}

/* KC_CHUNK_BUFFER: NULL ends the chunk's call early; the launch then
 * fails with KC_ENOMEM (dispatch.c reads kc__chunk_oom after it). */
void *kc__chunk_buffer_try(int slot, size_t bytes) {
  void *p = get(slot, bytes);
  if (kc__unlikely(!p))
    atomic_store_explicit(&kc__chunk_oom, 1, memory_order_relaxed);
  return p;
}

int kc__chunk_failed(const char *kernel) {
  atomic_store_explicit(&kc__chunk_oom, 0, memory_order_relaxed);
  return kc__error(KC_ENOMEM,
                   "kernel '%s': out of memory for a KC_CHUNK_BUFFER; the "
                   "chunks of the threads that had none were not run",
                   kernel);
}
