/* Conformance: the one-line launches of <kc/kernel_args.h> (kc_run_for,
 * kc_run_reduce, kc_run_scan, kc_reduce, kc_scan) on kernels of every kind
 * written in the _ARGS form (kernels/launch-args.kc.c, which this file
 * includes with KC_DECLARE_ONLY: the structs and handles, not the
 * kernels).  Each result is checked against values computed here; the
 * designated-initializer and positional spellings both work; a policy
 * variable works as well as a call; a failed launch returns its code (no
 * KC_CHECK_EXIT here).  The _ARGS forms of the explicit-launch tests (the
 * same checks as t-kcc-kernels, t-md, t-team, t-chunkbuf) are the programs
 * t-*-args. */
#define KC_DECLARE_ONLY
#include "kernels/launch-args.kc.c"

#include "kc-test.h"

enum { N = 1000, ROWS = 13, COLS = 17, LEAGUE = 37 };

static int64_t *download_i64(const int64_t *d, size_t n) {
  return kc_test_download(d, n * sizeof *d);
}

static void for_and_reduce(void) {
  int64_t *out = kc_test_dalloc(N * sizeof *out, "out");
  KC_CHECK_EQ_INT(
      kc_run_for(la_fill, kc_range(0, N), .out = out, .a = 3, .b = -7), 0);
  int64_t *h = download_i64(out, N);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += h[i] != 3 * i - 7;
  KC_CHECK_EQ_INT(bad, 0);

  /* Positional arguments, in declaration order; a policy variable. */
  kc_policy half = kc_range(N / 2, N);
  KC_CHECK_EQ_INT(kc_run_for(la_fill, half, out, 1, 0), 0);
  free(h);
  h = download_i64(out, N);
  bad = 0;
  for (int i = 0; i < N; i++)
    bad += h[i] != (i < N / 2 ? 3 * i - 7 : i);
  KC_CHECK_EQ_INT(bad, 0);

  int64_t want = 0, lo = INT64_MAX, hi = INT64_MIN;
  for (int i = 0; i < N; i++) {
    want += h[i];
    lo = h[i] < lo ? h[i] : lo;
    hi = h[i] > hi ? h[i] : hi;
  }
  KC_CHECK_EQ_INT(kc_reduce(la_sum, kc_range(0, N), .in = out), want);
  /* On a queue: the policy carries it, the one-line forms take any. */
  kc_queue *q = NULL;
  int dev = 0;
  KC_CHECK_OK(kc_queue_device(NULL, &dev));
  KC_CHECK_OK(kc_queue_create(&q, dev));
  int64_t *qout = kc_test_dalloc(N * sizeof *qout, "qout");
  KC_CHECK_EQ_INT(kc_run_for(la_fill, kc_policy_on(kc_range(0, N), q),
                             .out = qout, .a = 1, .b = 0),
                  0);
  KC_CHECK_EQ_INT(
      kc_reduce(la_sum, kc_policy_on(kc_range(0, N), q), .in = qout),
      (int64_t)N * (N - 1) / 2);
  KC_CHECK_OK(kc_queue_destroy(q));
  KC_CHECK_OK(kc_free(qout));
  int64_t sum = -1;
  KC_CHECK_EQ_INT(kc_run_reduce(la_sum, kc_range(0, N), &sum, .in = out), 0);
  KC_CHECK_EQ_INT(sum, want);
  /* An empty range gives the identity. */
  KC_CHECK_EQ_INT(kc_reduce(la_sum, kc_range(5, 5), .in = out), 0);
  la_range r = kc_reduce(la_range_of, kc_range(0, N), .in = out);
  KC_CHECK_EQ_INT(r.lo, lo);
  KC_CHECK_EQ_INT(r.hi, hi);

  double hv[N];
  for (int i = 0; i < N; i++)
    hv[i] = (double)((i * 37) % 101) - 50.0;
  hv[611] = -99.0;
  hv[733] = -99.0; /* a tie: the smaller index wins */
  double *v = kc_test_upload(hv, sizeof hv, "v");
  kc_loc_double m = kc_reduce(la_minloc, kc_range(0, N), .v = v);
  KC_CHECK_EQ_DBL(m.val, -99.0, 0);
  KC_CHECK_EQ_INT(m.loc, 611);
  KC_CHECK_EQ_DBL(kc_reduce(la_max, kc_range(0, N), .v = v, .scale = -2.0),
                  198.0, 0);

  /* A failed launch returns its code. */
  KC_CHECK_EQ_INT(
      kc_run_for(la_fill, kc_range(5, 4), .out = out, .a = 0, .b = 0),
      KC_ERANGE);
  KC_CHECK_EQ_INT(kc_run_reduce(la_sum, kc_range(5, 4), &sum, .in = out),
                  KC_ERANGE);
  free(h);
  KC_REQUIRE_OK(kc_free(v));
  KC_REQUIRE_OK(kc_free(out));
}

static void scan(void) {
  int64_t hin[N];
  for (int i = 0; i < N; i++)
    hin[i] = (i * 7) % 11;
  int64_t *in = kc_test_upload(hin, sizeof hin, "in");
  int64_t *out = kc_test_dalloc(N * sizeof *out, "out");
  int64_t total = kc_scan(la_scan, kc_range(0, N), .in = in, .out = out);
  int64_t *h = download_i64(out, N);
  int64_t run = 0;
  int bad = 0;
  for (int i = 0; i < N; i++) {
    bad += h[i] != run;
    run += hin[i];
  }
  KC_CHECK_EQ_INT(bad, 0);
  KC_CHECK_EQ_INT(total, run);
  int64_t t2 = -1;
  KC_CHECK_EQ_INT(
      kc_run_scan(la_scan, kc_range(0, N), &t2, .in = in, .out = out), 0);
  KC_CHECK_EQ_INT(t2, run);
  KC_CHECK_EQ_INT(
      kc_run_scan(la_scan, kc_range(0, N), NULL, .in = in, .out = out), 0);
  free(h);
  KC_REQUIRE_OK(kc_free(in));
  KC_REQUIRE_OK(kc_free(out));
}

static void md_team_chunk(void) {
  int64_t *out = kc_test_dalloc(ROWS * COLS * sizeof *out, "md");
  const kc_index b[2] = {0, 0}, e[2] = {ROWS, COLS}, t[2] = {4, 8};
  KC_CHECK_EQ_INT(
      kc_run_for(la_md, kc_mdrange(2, b, e, t), .out = out, .ld = COLS), 0);
  int64_t *h = download_i64(out, ROWS * COLS);
  int bad = 0;
  int64_t want = 0;
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++) {
      bad += h[i * COLS + j] != i * 1000 + j;
      want += i * j * 3;
    }
  KC_CHECK_EQ_INT(bad, 0);
  KC_CHECK_EQ_INT(kc_reduce(la_mdsum, kc_mdrange(2, b, e, NULL), .scale = 3),
                  want);
  free(h);
  KC_REQUIRE_OK(kc_free(out));

  out = kc_test_dalloc(LEAGUE * sizeof *out, "team");
  KC_CHECK_EQ_INT(kc_run_for(la_team, kc_team_policy(LEAGUE, KC_AUTO, 1),
                             .out = out, .scale = 5),
                  0);
  h = download_i64(out, LEAGUE);
  bad = 0;
  for (int i = 0; i < LEAGUE; i++)
    bad += h[i] != 5 * i;
  KC_CHECK_EQ_INT(bad, 0);
  KC_CHECK_EQ_INT(
      kc_reduce(la_teamsum, kc_team_policy(LEAGUE, KC_AUTO, 1), .scale = 2),
      LEAGUE * (LEAGUE - 1));
  free(h);
  KC_REQUIRE_OK(kc_free(out));

  out = kc_test_dalloc(5000 * sizeof *out, "chunk");
  KC_CHECK_EQ_INT(
      kc_run_for(la_chunk, kc_range(0, 5000), .out = out, .base = 11), 0);
  h = download_i64(out, 5000);
  bad = 0;
  for (int i = 0; i < 5000; i++)
    bad += h[i] != 11 + 2 * i;
  KC_CHECK_EQ_INT(bad, 0);
  free(h);
  KC_REQUIRE_OK(kc_free(out));
}

int main(void) {
  kc_test_init_backend();
  for_and_reduce();
  scan();
  md_team_chunk();
  return kc_test_finish();
}
