/* Unit test of the CUDA plugin's grid tuning bookkeeping
 * (plugins/cuda/tune.c, included) alone:
 * no driver, no device, so it runs everywhere.  The candidates an entry
 * gets, the slots per size class, the order of the trials, the choice
 * from the least time of each candidate, times that are no times, and the
 * end of the tuning.  The launches that time the candidates run on the
 * GPU machine (tests/t-for-tune.sh). */
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
}

static void candidates(void) {
  kc__cuda_entry e;
  entry(&e, 128, 1024, 0);
  kc__cuda_tune *t = kc__cuda_tune_slot(&e, (kc_index)1 << 28);
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
  t = kc__cuda_tune_slot(&e, 5000000);
  KC_CHECK_EQ_INT(t->ncand, 2);
  KC_CHECK_EQ_UINT(t->block[1], 512);
  /* The function allows 256 threads at most. */
  entry(&e, 128, 256, 0);
  t = kc__cuda_tune_slot(&e, 5000000);
  KC_CHECK_EQ_INT(t->ncand, 3);
  KC_CHECK_EQ_UINT(t->block[2], 256);
  /* Dynamic shared memory per block: no other block size. */
  entry(&e, 128, 1024, 4096);
  t = kc__cuda_tune_slot(&e, 5000000);
  KC_CHECK_EQ_INT(t->ncand, 2);
}

static void slots(void) {
  kc__cuda_entry e;
  entry(&e, 128, 1024, 0);
  kc__cuda_tune *a = kc__cuda_tune_slot(&e, (kc_index)1 << 28);
  KC_CHECK_EQ_PTR(kc__cuda_tune_slot(&e, ((kc_index)1 << 29) - 1), a);
  kc__cuda_tune *b = kc__cuda_tune_slot(&e, ((kc_index)1 << 28) - 1);
  KC_CHECK(b != a);
  KC_CHECK_EQ_INT(b->cls, 28);
  KC_CHECK(kc__cuda_tune_slot(&e, 3000000) != NULL);
  KC_CHECK(kc__cuda_tune_slot(&e, 30000000) != NULL);
  /* Four classes hold the four slots: a fifth gets none (the wide grid). */
  KC_CHECK_EQ_PTR(kc__cuda_tune_slot(&e, 1000), NULL);
  KC_CHECK_EQ_PTR(kc__cuda_tune_slot(&e, (kc_index)1 << 28), a);
  /* Freeing (no events were made) clears every slot. */
  kc__cuda_tune_free(NULL, &e);
  for (int i = 0; i < KC__CUDA_TUNE_SLOTS; i++)
    KC_CHECK_EQ_INT(e.tune[i].cls, 0);
  KC_CHECK(kc__cuda_tune_slot(&e, 1000) != NULL);
}

/* Candidate 2 is the fastest by its least time, though not in the first
 * round (a slow first launch), and candidate 1 has the best mean but not
 * the least time. */
static void choice(void) {
  kc__cuda_entry e;
  entry(&e, 128, 1024, 0);
  kc__cuda_tune *t = kc__cuda_tune_slot(&e, (kc_index)1 << 28);
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
      chosen += kc__cuda_tune_record(t, kc__cuda_tune_next(t), ms[r][c]);
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
  KC_CHECK_EQ_INT(kc__cuda_tune_record(t, 3, 0.5f), 0);
  KC_CHECK_EQ_INT(kc__cuda_tune_pick(t), 2);
}

/* Times that are no times (a failed event read gives 0) count as trials
 * without a measurement: the tuning ends, on the wide grid if nothing was
 * measured; a candidate out of range is ignored. */
static void no_times(void) {
  kc__cuda_entry e;
  entry(&e, 128, 1024, 0);
  kc__cuda_tune *t = kc__cuda_tune_slot(&e, (kc_index)1 << 28);
  KC_CHECK_EQ_INT(kc__cuda_tune_record(t, 7, 1.0f), 0);
  KC_CHECK_EQ_INT(kc__cuda_tune_record(t, -1, 1.0f), 0);
  KC_CHECK_EQ_INT(t->trials, 0);
  int chosen = 0;
  for (int i = 0; i < 4 * KC__CUDA_TUNE_REPS; i++) {
    const float bad[] = {0.0f, -1.0f, NAN};
    chosen += kc__cuda_tune_record(t, kc__cuda_tune_next(t), bad[i % 3]);
  }
  KC_CHECK_EQ_INT(chosen, 1);
  KC_CHECK_EQ_INT(t->choice, 0);
  /* One candidate measured among failed reads: that one. */
  t = kc__cuda_tune_slot(&e, 1000);
  for (int i = 0; i < 4 * KC__CUDA_TUNE_REPS; i++) {
    const int c = kc__cuda_tune_next(t);
    kc__cuda_tune_record(t, c, c == 3 ? 4.0f : 0.0f);
  }
  KC_CHECK_EQ_INT(t->choice, 3);
}

int main(void) {
  candidates();
  slots();
  choice();
  no_times();
  return kc_test_done();
}
