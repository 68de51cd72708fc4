/* libkc — per-thread chunk buffers (KC_CHUNK_BUFFER in <kc/kernel.h>).
 *
 * A chunk kernel asks for its buffers at the start of every chunk, from
 * whatever thread runs it (a pool worker, an OpenMP thread, the caller).
 * Each thread keeps its own small set, found through a thread-local
 * pointer without any lock, allocated on first use and grown only when a
 * larger chunk or element type asks for more: after the first chunk a
 * thread runs, asking costs a thread-local load and a compare.  The set is
 * freed when the thread exits (a pthread key destructor).
 */
#include <config.h>

#include <pthread.h>
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
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_ok;

static void destroy(void *arg) {
  buffers *b = arg;
  for (int i = 0; i < KC_CHUNK_BUFFERS_MAX; i++)
    free(b->p[i]);
  free(b);
}

static void make_key(void) { key_ok = pthread_key_create(&key, destroy) == 0; }

/* A kernel body cannot return an error: a failure here is the end. */
static _Noreturn void die(const char *what, int slot, size_t bytes) {
  fprintf(stderr,
          "kc: KC_CHUNK_BUFFER: %s (buffer %d, %zu bytes); a chunk body may "
          "declare at most %d buffers, at its top level (not in a loop)\n",
          what, slot, bytes, KC_CHUNK_BUFFERS_MAX);
  abort();
}

void *kc__chunk_buffer(int slot, size_t bytes) {
  buffers *b = mine;
  if (slot < 0 || slot >= KC_CHUNK_BUFFERS_MAX)
    die("too many buffers in one chunk", slot, bytes);
  if (kc__likely(b && b->cap[slot] >= bytes))
    return b->p[slot];
  /* Rounding such a size up would wrap to a tiny buffer. */
  if (bytes > (size_t)PTRDIFF_MAX)
    die("larger than any object can be", slot, bytes);
  if (!b) {
    b = calloc(1, sizeof *b);
    if (!b)
      die("out of memory", slot, bytes);
    pthread_once(&key_once, make_key);
    if (key_ok)
      pthread_setspecific(key, b);
    mine = b;
  }
  /* Whole cache lines, at least 4 KiB: a thread's chunks differ in length
   * only at the end of a range. */
  size_t want = bytes < 4096 ? 4096 : (bytes + 63) & ~(size_t)63;
  void *p = aligned_alloc(64, want);
  if (!p)
    die("out of memory", slot, bytes);
  free(b->p[slot]);
  b->p[slot] = p;
  b->cap[slot] = want;
  return p;
}
