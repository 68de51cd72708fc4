/* The CUDA backend's choice of a 1-D for's grid at run time
 * (KC_CUDA_GRID=tune, the default; doc/backends.md, "Grid size"):
 *
 *  - while the first launches of a large range time the candidate grids
 *    (a wide grid, a thread per index on blocks of three sizes), every
 *    launch still runs each index exactly once: kt_count adds 1 to its
 *    index's counter, 30 launches over each of five sizes (one the
 *    tuning's slots have no room for; 18 under compute-sanitizer), the
 *    first ten (three) with no fence between them (a trial's end event
 *    is then often still pending when the next launch looks), the range
 *    of one size not starting at 0, and the guard elements around each
 *    range must stay 0;
 *  - the tuning ends: KC_VERBOSE reports one choice for each of the four
 *    sizes that got a slot, and none for the fifth;
 *  - under KC_CUDA_REDUCE_WAVES=16, a 1-D reduction over 2^26 + 3 indices
 *    (7 waves of an H100's resident grid) times its resident grid against
 *    the waves on its first launches: 12 sums of the indices, every other
 *    one into device memory, each followed by a fence (so that each trial
 *    is read at the next launch), all exact, and KC_VERBOSE reports one
 *    choice for it.
 *
 * Run as cuda-tune.cuda; SKIPs without a CUDA device. */
#include <unistd.h>

#include <kc/kernel.h>

#include "kc-test.h"
#include "kernels/functors.h"

KC_KERNEL_DECLARE(kt_count);
KC_KERNEL_DECLARE(kt_sum_index);

enum { SIZES = 5, PAD = 4 };

/* A file that takes what the plugin says on stderr. */
static FILE *capture_stderr(int *saved) {
  FILE *log = tmpfile();
  if (!log) {
    printf("FAIL: tmpfile\n");
    exit(1);
  }
  fflush(stderr);
  *saved = dup(2);
  dup2(fileno(log), 2);
  return log;
}

static char *restore_stderr(FILE *log, int saved) {
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  long n = ftell(log);
  char *text = kc_test_xmalloc((size_t)n + 1);
  rewind(log);
  n = (long)fread(text, 1, (size_t)n, log);
  text[n] = 0;
  fclose(log);
  return text;
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
    n++;
  return n;
}

int main(void) {
  setenv("KC_VERBOSE", "1", 1);
  unsetenv("KC_CUDA_GRID");
  setenv("KC_CUDA_REDUCE_WAVES", "16", 1); /* the reduction's tuning */
  kc_test_init_backend();
  if (strcmp(kc_backend_name(), "cuda") != 0)
    KC_SKIP("for the cuda backend only (runs %s)", kc_backend_name());

  /* Under compute-sanitizer (KC_TEST_SANITIZER) fewer launches, all but
   * the first three fenced: the tuning still completes (12 trials, each
   * read at the next launch). */
  const int sanitizer = getenv("KC_TEST_SANITIZER") != NULL;
  const int LAUNCHES = sanitizer ? 18 : 30, UNFENCED = sanitizer ? 3 : 10;
  kc_index n[SIZES], begin[SIZES];
  int32_t *dhits[SIZES];
  for (int s = 0; s < SIZES; s++) {
    n[s] = ((kc_index)1 << (22 + s)) + 3;
    begin[s] = s == 1 ? -5 : 0;
    dhits[s] =
        kc_test_dalloc((size_t)(n[s] + 2 * PAD) * sizeof(int32_t), "hits");
    KC_CHECK_OK(
        kc_memset(dhits[s], 0, (size_t)(n[s] + 2 * PAD) * sizeof(int32_t)));
  }
  int saved;
  FILE *log = capture_stderr(&saved);
  for (int l = 0; l < LAUNCHES; l++) {
    for (int s = 0; s < SIZES; s++) {
      kc_policy p = kc_range(begin[s], begin[s] + n[s]);
      kt_count c = {dhits[s], begin[s] - PAD};
      KC_CHECK_OK(
          kc_parallel_for("tune", KC_TEST_KERNEL(kt_count), &p, &c, sizeof c));
    }
    if (l >= UNFENCED)
      KC_CHECK_OK(kc_fence());
  }
  KC_CHECK_OK(kc_fence());
  /* The reduction: the trials alternate its two grids. */
  enum { REDUCES = 12 };
  const kc_index rn = ((kc_index)1 << 26) + 3;
  const int64_t want = (rn - 1) * rn / 2;
  int64_t *dsums = kc_test_dalloc(REDUCES * sizeof(int64_t), "sums");
  for (int l = 0; l < REDUCES; l++) {
    kc_policy p = kc_range(0, rn);
    kt_xi64 f = {NULL, 0};
    int64_t v = -1;
    KC_CHECK_OK(kc_parallel_reduce("tune sum", KC_TEST_KERNEL(kt_sum_index), &p,
                                   &f, sizeof f,
                                   l % 2 ? (void *)(dsums + l) : (void *)&v));
    if (l % 2 == 0 && v != want)
      KC_FAIL("reduction %d: sum %lld, want %lld", l, (long long)v,
              (long long)want);
    /* Each trial is read at a later launch once its end event completed:
     * a fence makes sure it has (a blocking reduction returns when its
     * result is there, maybe before the kernel has ended). */
    KC_CHECK_OK(kc_fence());
  }
  KC_CHECK_OK(kc_fence());
  int64_t *sums = kc_test_download(dsums, REDUCES * sizeof(int64_t));
  for (int l = 1; l < REDUCES; l += 2)
    if (sums[l] != want)
      KC_FAIL("reduction %d into device memory: sum %lld, want %lld", l,
              (long long)sums[l], (long long)want);
  free(sums);
  KC_CHECK_OK(kc_free(dsums));
  char *said = restore_stderr(log, saved);
  KC_CHECK_EQ_INT(count(said, "'kt_sum_index': ranges of 2^26 to 2^27 - 1 "
                              "indices take the "),
                  1);

  for (int s = 0; s < SIZES; s++) {
    const kc_index len = n[s] + 2 * PAD;
    int32_t *hits = kc_test_download(dhits[s], (size_t)len * sizeof(int32_t));
    kc_index bad = -1;
    for (kc_index k = 0; k < len && bad < 0; k++)
      if (hits[k] != (k >= PAD && k < PAD + n[s] ? LAUNCHES : 0))
        bad = k;
    if (bad >= 0)
      KC_FAIL("size %d (%lld indices from %lld): counter %lld is %d, want %d",
              s, (long long)n[s], (long long)begin[s], (long long)bad - PAD,
              hits[bad], bad >= PAD && bad < PAD + n[s] ? LAUNCHES : 0);
    free(hits);
    KC_CHECK_OK(kc_free(dhits[s]));
  }

  /* One choice for each size with a slot (2^22 + 3 indices: bit length
   * 23, ranges of 2^22 to 2^23 - 1), none for the fifth. */
  for (int s = 0; s < SIZES; s++) {
    char what[96];
    snprintf(what, sizeof what, "'kt_count': ranges of 2^%d to 2^%d - 1",
             22 + s, 23 + s);
    KC_CHECK_EQ_INT(count(said, what), s < 4 ? 1 : 0);
  }
  for (const char *line = said; *line;) {
    const char *e = strchr(line, '\n');
    const int len = e ? (int)(e - line) : (int)strlen(line);
    if (strstr(line, "take the") && strstr(line, "take the") < line + len)
      KC_INFO("%.*s", len, line);
    line += len + (e != NULL);
  }
  free(said);
  return kc_test_finish();
}
