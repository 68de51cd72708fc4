/* Unit test of the CUDA plugin's grid tuning bookkeeping
 * (plugins/cuda/tune.c, included) alone:
 * no driver, no device, so it runs everywhere.  The candidates an entry
 * gets, the slots per size class, the order of the trials, the choice
 * from the least time of each candidate, times that are no times, and the
 * end of the tuning.  The launches that time the candidates run on the
 * GPU machine (tests/cuda-tune.c). */
#include <config.h>

#include <math.h>

#include "kc-test.h"
#include "tune.c"

static void entry(kc__cuda_entry *e, unsigned block, unsigned fmax,
                  unsigned smem) {
  memset(e, 0, sizeof *e);
  e->block = block;
  e->fmax = fmax;
  e->smem = smem;
  e->rblock = block;
}

/* A 1-D reduction's slot: its resident grid, then the waves, both at the
 * block of a range that fills the device (rblock, not block), whatever
 * the function allows; the tuning chooses between them as for a for. */
static void reduce_candidates(void) {
  kc__cuda_entry e;
  entry(&e, 128, 1024, 0);
  e.rblock = 1024;
  kc__cuda_tune *t = kc__cuda_tune_slot(&e, (kc_index)1 << 28, 1);
  KC_CHECK(t != NULL);
  KC_CHECK_EQ_INT(t->reduce, 1);
  KC_CHECK_EQ_INT(t->ncand, 2);
  for (int c = 0; c < 2; c++) {
    KC_CHECK_EQ_UINT(t->block[c], 1024);
    KC_CHECK_EQ_INT(t->full[c], c);
  }
  KC_CHECK_EQ_INT(kc__cuda_tune_pick(t), 0);
  int chosen = 0;
  for (int i = 0; i < 2 * KC__CUDA_TUNE_REPS; i++) {
    const int c = kc__cuda_tune_next(t);
    KC_CHECK_EQ_INT(c, i % 2);
    chosen += kc__cuda_tune_record(t, c, c == 1 ? 1.40f : 1.43f, 0);
  }
  KC_CHECK_EQ_INT(chosen, 1);
  KC_CHECK_EQ_INT(t->choice, 1);
  /* A for's slot for the same lengths is another one. */
  kc__cuda_tune *f = kc__cuda_tune_slot(&e, (kc_index)1 << 28, 0);
  KC_CHECK(f != NULL && f != t);
  KC_CHECK_EQ_INT(f->reduce, 0);
  KC_CHECK_EQ_PTR(kc__cuda_tune_slot(&e, (kc_index)1 << 28, 1), t);
}

static void candidates(void) {
  kc__cuda_entry e;
  entry(&e, 128, 1024, 0);
  kc__cuda_tune *t = kc__cuda_tune_slot(&e, (kc_index)1 << 28, 0);
  KC_CHECK(t != NULL);
  KC_CHECK_EQ_INT(t->cls, 29);
  KC_CHECK_EQ_INT(t->ncand, 4);
  static const unsigned block[] = {128, 128, 256, 512};
  static const int full[] = {0, 1, 1, 1};
  for (int c = 0; c < 4; c++) {
    KC_CHECK_EQ_UINT(t->block[c], block[c]);
    KC_CHECK_EQ_INT(t->full[c], full[c]);
  }
  KC_CHECK_EQ_INT(t->choice, -1);
  KC_CHECK_EQ_INT(t->pending, -1);
  /* The entry's block is already 512: wide and full at 512. */
  entry(&e, 512, 1024, 0);
  t = kc__cuda_tune_slot(&e, 5000000, 0);
  KC_CHECK_EQ_INT(t->ncand, 2);
  KC_CHECK_EQ_UINT(t->block[1], 512);
  /* The function allows 256 threads at most. */
  entry(&e, 128, 256, 0);
  t = kc__cuda_tune_slot(&e, 5000000, 0);
  KC_CHECK_EQ_INT(t->ncand, 3);
  KC_CHECK_EQ_UINT(t->block[2], 256);
  /* Dynamic shared memory per block: no other block size. */
  entry(&e, 128, 1024, 4096);
  t = kc__cuda_tune_slot(&e, 5000000, 0);
  KC_CHECK_EQ_INT(t->ncand, 2);
  /* A thread per index only on blocks whose grid holds the class's
   * longest range (2^31 - 1 blocks at most): 2^37 indices (class 38, up
   * to 2^38 - 1) not on 128, 2^38 on neither 128 nor 256, 2^62 on none
   * (a candidate some ranges of the class could not run was timed on
   * none of them and kept the tuning from ending). */
  entry(&e, 128, 1024, 0);
  t = kc__cuda_tune_slot(&e, (kc_index)1 << 37, 0);
  KC_CHECK_EQ_INT(t->ncand, 3);
  KC_CHECK_EQ_UINT(t->block[1], 256);
  KC_CHECK_EQ_INT(t->full[1], 1);
  t = kc__cuda_tune_slot(&e, (kc_index)1 << 38, 0);
  KC_CHECK_EQ_INT(t->ncand, 2);
  KC_CHECK_EQ_UINT(t->block[1], 512);
  t = kc__cuda_tune_slot(&e, (kc_index)1 << 62, 0);
  KC_CHECK_EQ_INT(t->ncand, 1);
  KC_CHECK_EQ_INT(t->full[0], 0);
  /* One below the limit still fits: 2^31 - 1 blocks of 128 for ranges
   * up to 2^37 - 1 (class 37). */
  t = kc__cuda_tune_slot(&e, (kc_index)1 << 36, 0);
  KC_CHECK_EQ_INT(t->ncand, 4);
}

/* Times are compared per index: a program that alternates two ranges of
 * one class times candidates 0 and 2 on the shorter one and 1 and 3 on
 * the one 1.5 times as long; candidate 1 is the fastest per index (1.8
 * ms per 2^28 indices against 2.0) though its raw times are the longest
 * but one. */
static void per_index(void) {
  kc__cuda_entry e;
  entry(&e, 128, 1024, 0);
  const kc_index n0 = (kc_index)1 << 28, n1 = n0 + n0 / 2;
  kc__cuda_tune *t = kc__cuda_tune_slot(&e, n0, 0);
  KC_CHECK_EQ_PTR(kc__cuda_tune_slot(&e, n1, 0), t);
  static const float per28[4] = {2.0f, 1.8f, 2.1f, 2.2f};
  for (int i = 0; i < 4 * KC__CUDA_TUNE_REPS; i++) {
    const int c = kc__cuda_tune_next(t);
    const kc_index n = c % 2 ? n1 : n0;
    kc__cuda_tune_record(t, c, per28[c] * (float)((double)n / (double)n0), n);
  }
  KC_CHECK_EQ_INT(t->choice, 1);
  KC_CHECK_EQ_DBL(t->best[1], 1.8, 1e-5);
  KC_CHECK_EQ_DBL(t->best[0], 2.0, 1e-5);
}

static void slots(void) {
  kc__cuda_entry e;
  entry(&e, 128, 1024, 0);
  kc__cuda_tune *a = kc__cuda_tune_slot(&e, (kc_index)1 << 28, 0);
  KC_CHECK_EQ_PTR(kc__cuda_tune_slot(&e, ((kc_index)1 << 29) - 1, 0), a);
  kc__cuda_tune *b = kc__cuda_tune_slot(&e, ((kc_index)1 << 28) - 1, 0);
  KC_CHECK(b != a);
  KC_CHECK_EQ_INT(b->cls, 28);
  KC_CHECK(kc__cuda_tune_slot(&e, 3000000, 0) != NULL);
  KC_CHECK(kc__cuda_tune_slot(&e, 30000000, 0) != NULL);
  /* Four classes hold the four slots: a fifth gets none (the wide grid). */
  KC_CHECK_EQ_PTR(kc__cuda_tune_slot(&e, 1000, 0), NULL);
  KC_CHECK_EQ_PTR(kc__cuda_tune_slot(&e, (kc_index)1 << 28, 0), a);
  /* Freeing (no events were made) clears every slot. */
  kc__cuda_tune_free(NULL, &e);
  for (int i = 0; i < KC__CUDA_TUNE_SLOTS; i++)
    KC_CHECK_EQ_INT(e.tune[i].cls, 0);
  KC_CHECK(kc__cuda_tune_slot(&e, 1000, 0) != NULL);
}

/* Candidate 2 is the fastest by its least time, though not in the first
 * round (a slow first launch), and candidate 1 has the best mean but not
 * the least time. */
static void choice(void) {
  kc__cuda_entry e;
  entry(&e, 128, 1024, 0);
  kc__cuda_tune *t = kc__cuda_tune_slot(&e, (kc_index)1 << 28, 0);
  static const float ms[KC__CUDA_TUNE_REPS][4] = {
      {2.10f, 2.09f, 9.00f, 2.20f},
      {2.11f, 2.09f, 2.07f, 2.21f},
      {2.10f, 2.09f, 2.12f, 2.19f},
  };
  KC_CHECK_EQ_INT(kc__cuda_tune_pick(t), 0);
  int trials = 0, chosen = 0;
  for (int r = 0; r < KC__CUDA_TUNE_REPS; r++)
    for (int c = 0; c < 4; c++) {
      KC_CHECK_EQ_INT(kc__cuda_tune_next(t), c);
      chosen += kc__cuda_tune_record(t, kc__cuda_tune_next(t), ms[r][c], 0);
      trials++;
      if (r == 0 && c == 1) /* the fastest measured so far */
        KC_CHECK_EQ_INT(kc__cuda_tune_pick(t), 1);
      KC_CHECK_EQ_INT(chosen, trials == 4 * KC__CUDA_TUNE_REPS);
    }
  KC_CHECK_EQ_INT(t->choice, 2);
  KC_CHECK_EQ_INT(kc__cuda_tune_pick(t), 2);
  KC_CHECK_EQ_INT(kc__cuda_tune_next(t), -1);
  KC_CHECK_EQ_DBL(t->best[2], 2.07, 1e-6);
  /* Once chosen, more times change nothing. */
  KC_CHECK_EQ_INT(kc__cuda_tune_record(t, 3, 0.5f, 0), 0);
  KC_CHECK_EQ_INT(kc__cuda_tune_pick(t), 2);
}

/* Times that are no times (a failed event read gives 0) count as trials
 * without a measurement: the tuning ends, on the wide grid if nothing was
 * measured; a candidate out of range is ignored. */
static void no_times(void) {
  kc__cuda_entry e;
  entry(&e, 128, 1024, 0);
  kc__cuda_tune *t = kc__cuda_tune_slot(&e, (kc_index)1 << 28, 0);
  KC_CHECK_EQ_INT(kc__cuda_tune_record(t, 7, 1.0f, 0), 0);
  KC_CHECK_EQ_INT(kc__cuda_tune_record(t, -1, 1.0f, 0), 0);
  KC_CHECK_EQ_INT(t->trials, 0);
  int chosen = 0;
  for (int i = 0; i < 4 * KC__CUDA_TUNE_REPS; i++) {
    const float bad[] = {0.0f, -1.0f, NAN};
    chosen += kc__cuda_tune_record(t, kc__cuda_tune_next(t), bad[i % 3], 0);
  }
  KC_CHECK_EQ_INT(chosen, 1);
  KC_CHECK_EQ_INT(t->choice, 0);
  /* One candidate measured among failed reads: that one. */
  t = kc__cuda_tune_slot(&e, 1000, 0);
  for (int i = 0; i < 4 * KC__CUDA_TUNE_REPS; i++) {
    const int c = kc__cuda_tune_next(t);
    kc__cuda_tune_record(t, c, c == 3 ? 4.0f : 0.0f, 0);
  }
  KC_CHECK_EQ_INT(t->choice, 3);
}

int main(void) {
  candidates();
  reduce_candidates();
  slots();
  choice();
  per_index();
  no_times();
  return kc_test_done();
}
