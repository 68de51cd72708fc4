/* kc CUDA plugin — the run-time choice of a 1-D for's grid, and of a 1-D
 * reduction's under KC_CUDA_REDUCE_WAVES (its resident grid or waves of it;
 * launch.c, reduce_waves).
 *
 * Which grid streams a 1-D for fastest depends on the body and on the card:
 * on an H100 a thread per index in blocks of 256 ran bench/stream's double
 * Add 1.8% faster than the wide grid (4 indices a thread) and its float
 * Copy 55-80% slower; on an H200 the wide grid was ahead on Add as well
 * (doc/backends.md, "Grid size").  kc does not know a body's loads, so it
 * measures: the first launches of a large range time each candidate grid
 * (plugin.h, kc__cuda_tune), and the fastest is kept for that entry and
 * size.  Every candidate runs each index once, so the trials change only
 * the time.  This file holds the bookkeeping and ends a slot's events;
 * launch.c creates, records and reads them.
 */
#include <config.h>

#include <string.h>

#include "plugin.h"

/* Bit length of n >= 1: ranges from 2^(c-1) to 2^c - 1 share class c. */
static int size_class(kc_index n) {
  return 64 - __builtin_clzll((unsigned long long)n);
}

static void add(kc__cuda_tune *t, unsigned block, int full) {
  t->block[t->ncand] = block;
  t->full[t->ncand] = (unsigned char)full;
  t->ncand++;
}

/* Whether a thread per index on blocks of `block` fits a grid (2^31 - 1
 * blocks) for the longest range of class cls, 2^cls - 1 indices: a
 * candidate that some ranges of its class could not run would never be
 * measured on them. */
static int full_fits(int cls, unsigned block) {
  const unsigned long long longest =
      cls >= 63 ? (unsigned long long)INT64_MAX : (1ULL << cls) - 1;
  return (longest + block - 1) / block <= 0x7fffffffULL;
}

/* A reduction's two candidates (below), or for a for the wide grid first
 * (the choice while nothing is measured), then a thread
 * per index at the entry's block and at 256 and 512 threads: the blocks
 * at which a thread per index ran the stream kernels best on an H100
 * (1024 cost Add 5%).  Larger blocks only for entries without dynamic
 * shared memory (a 1-D for has none) and within the function's limit. */
static void claim(kc__cuda_tune *t, const kc__cuda_entry *e, int cls,
                  int reduce) {
  memset(t, 0, sizeof *t);
  t->cls = cls;
  t->pending = -1;
  t->choice = -1;
  t->reduce = reduce;
  if (reduce) {
    /* A reduction: its resident grid (the choice while nothing is
     * measured), then the waves of KC_CUDA_REDUCE_WAVES, both at the
     * block of a range that fills the device (launch.c, range_args). */
    add(t, e->rblock, 0);
    add(t, e->rblock, 1);
    return;
  }
  add(t, e->block, 0);
  if (full_fits(cls, e->block))
    add(t, e->block, 1);
  static const unsigned more[] = {256, 512};
  for (unsigned i = 0; i < sizeof more / sizeof more[0]; i++)
    if (more[i] > e->block && more[i] <= e->fmax && e->smem == 0 &&
        full_fits(cls, more[i]))
      add(t, more[i], 1);
}

kc__cuda_tune *kc__cuda_tune_slot(kc__cuda_entry *e, kc_index n, int reduce) {
  const int cls = size_class(n);
  for (int i = 0; i < KC__CUDA_TUNE_SLOTS; i++) {
    kc__cuda_tune *t = &e->tune[i];
    if (t->cls == cls && t->reduce == reduce)
      return t;
    if (t->cls == 0) {
      claim(t, e, cls, reduce);
      return t;
    }
  }
  return NULL;
}

int kc__cuda_tune_next(const kc__cuda_tune *t) {
  if (t->choice >= 0)
    return -1;
  /* Rounds: each candidate once, then again, so that a slow spell of the
   * card (another process, clocks) is spread over all of them. */
  return t->trials % t->ncand;
}

static int fastest(const kc__cuda_tune *t) {
  int c = 0;
  for (int i = 1; i < t->ncand; i++)
    if (t->best[i] > 0 && (t->best[c] == 0 || t->best[i] < t->best[c]))
      c = i;
  return c;
}

int kc__cuda_tune_pick(const kc__cuda_tune *t) {
  return t->choice >= 0 ? t->choice : fastest(t);
}

int kc__cuda_tune_record(kc__cuda_tune *t, int c, float ms, kc_index n) {
  if (t->choice >= 0 || c < 0 || c >= t->ncand)
    return 0;
  /* The time scaled to a range of 2^(cls-1) indices: launches of one
   * class may have ranges up to twice as long, and a program that
   * alternates two of them would otherwise time some candidates on the
   * longer one only.  A time that is no time (not a number, not above 0)
   * counts as a trial but not as a measurement. */
  if (n > 0)
    ms = (float)((double)ms * (double)(1ULL << (t->cls - 1)) / (double)n);
  if (ms > 0 && (t->best[c] == 0 || ms < t->best[c]))
    t->best[c] = ms;
  if (++t->trials < t->ncand * KC__CUDA_TUNE_REPS)
    return 0;
  t->choice = fastest(t);
  return 1;
}

void kc__cuda_tune_end(const kc__cu_api *cu, kc__cuda_tune *t, int c) {
  t->choice = c;
  t->pending = -1;
  for (int k = 0; k < 2; k++) {
    if (t->ev[k] && cu)
      cu->cuEventDestroy(t->ev[k]);
    t->ev[k] = NULL;
  }
}

void kc__cuda_tune_free(const kc__cu_api *cu, kc__cuda_entry *e) {
  for (int i = 0; i < KC__CUDA_TUNE_SLOTS; i++) {
    kc__cuda_tune_end(cu, &e->tune[i], -1);
    memset(&e->tune[i], 0, sizeof e->tune[i]);
  }
}
