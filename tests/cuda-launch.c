/* The CUDA backend's launch path, in each launch mode (KC_CUDA_LAUNCH =
 * auto, param, constant, global; each a kc_init/kc_finalize cycle):
 *
 *  - functors of 8 B to 240 KB arrive whole and are the launch's own copy:
 *    hundreds of back-to-back launches, each with a different tag, write
 *    disjoint outputs; a staging slot reused too early shows up as another
 *    launch's tag (the ring's wrap-around included; its whole-ring path,
 *    for functors over half the 4 MB ring, is check_reuse's 4.8 MB one);
 *  - reductions and scans whose custom join is associative but NOT
 *    commutative come out in index order; results to a host variable and
 *    left in a device allocation; empty ranges give the identity;
 *  - a functor launched again unchanged may be read from the copy staged
 *    for the launch before (constant and global modes): every launch still
 *    sees exactly its own bytes, through one word changed and changed back,
 *    other kernels refilling the ring and the constant region in between,
 *    launches on a queue of its own, a functor equal to bytes another
 *    kernel left in the ring, and a 4.8 MB functor (the ring grows to
 *    8 MB; each changed copy takes all of it right after forty 1.6 KB
 *    launches whose copies must run first);
 *  - a functor that changes a little at every launch (the staged copy may
 *    be patched: only the span that changed is copied) is read whole and
 *    current by each launch, the span wandering over the functor, with
 *    changes too wide to patch, refills and queues in between;
 *  - a CALL kernel (hand-written PTX) gets its arguments as parameters.
 *
 * Run as cuda-launch.cuda; SKIPs without a CUDA device. */
#include <kc/kernel.h>

#include "cuda-functors.h"
#include "kc-test.h"

#define KT_DECL(bytes, n) KC_KERNEL_DECLARE(kc_cuda_f##bytes);
KT_CUDA_SIZES(KT_DECL)
KT_CUDA_HUGE(KT_DECL)
KC_KERNEL_DECLARE(kc_cuda_seqhash);
KC_KERNEL_DECLARE(kc_cuda_iscan);
KC_KERNEL_DECLARE(kc_cuda_hscan);
KC_KERNEL_DECLARE(kc_cuda_sum);
KC_KERNEL_DECLARE(kc_cuda_maxloc);

/* ----------------------------------------------------------- functors */

#define LAUNCHES 300 /* back-to-back launches per functor size */
#define SPAN 37      /* indices per launch */

static void check_functor(const char *mode, kc_kernel *k, size_t bytes,
                          size_t n) {
  /* Every functor type is {out, base, tag, c[n]}. */
  size_t fsize = 3 * sizeof(int64_t) + n * sizeof(int64_t);
  KC_REQUIRE(fsize == bytes);
  int64_t *f = kc_test_xmalloc(fsize);
  int64_t *dout = kc_test_dalloc(sizeof(int64_t) * LAUNCHES * SPAN, "out");
  KC_REQUIRE_OK(kc_memset(dout, 0xff, sizeof(int64_t) * LAUNCHES * SPAN));
  int64_t *c = f + 3;
  for (size_t j = 0; j < n; j++)
    c[j] = (int64_t)(j * 7 + bytes);
  int failed = 0;
  for (int l = 0; l < LAUNCHES && !failed; l++) {
    /* Launch l covers [l*SPAN, (l+1)*SPAN) and writes out[that range]. */
    f[0] = (int64_t)(intptr_t)dout;
    f[1] = 0;
    f[2] = l;
    c[n - 1] = 5 * l; /* the last word differs per launch too */
    kc_policy p = kc_range((kc_index)l * SPAN, (kc_index)(l + 1) * SPAN);
    if (KC_CHECK_OK(kc_parallel_for(NULL, k, &p, f, fsize)) != 0)
      failed = 1;
    /* The caller may reuse the functor at once: scribble over it. */
    memset(c, 0x5a, n > 8 ? 8 * sizeof(int64_t) : n * sizeof(int64_t));
    for (size_t j = 0; j < (n > 8 ? 8 : n); j++)
      c[j] = (int64_t)(j * 7 + bytes);
  }
  int64_t *out = kc_test_download(dout, sizeof(int64_t) * LAUNCHES * SPAN);
  long bad = 0, first = -1;
  for (int l = 0; l < LAUNCHES; l++)
    for (int s = 0; s < SPAN; s++) {
      size_t k = (size_t)l * SPAN + (size_t)s;
      int64_t last = 5 * (int64_t)l; /* c[n - 1] of launch l */
      int64_t ck = k % n == n - 1 ? last : (int64_t)((k % n) * 7 + bytes);
      int64_t want = (int64_t)l * 1000003 + ck + last;
      if (out[k] != want && bad++ == 0)
        first = (long)k;
    }
  if (bad)
    KC_FAIL("mode %s, %zu-byte functor: %ld of %d outputs wrong, first at "
            "%ld (launch %ld): %" PRId64,
            mode, bytes, bad, LAUNCHES * SPAN, first, first / SPAN, out[first]);
  else
    KC_INFO("mode %s: %d launches with a %zu-byte functor: ok", mode, LAUNCHES,
            bytes);
  free(out);
  free(f);
  KC_CHECK_OK(kc_free(dout));
}

/* ---------------------------------------------- unchanged functors */

#define REUSE_LAUNCHES 96 /* 12 runs of 8 */

/* One launch of check_reuse: its tag and the payload word it changed
 * (pos < 0: none) to val. */
typedef struct reuse_step {
  int64_t tag;
  long pos;
  int64_t val;
} reuse_step;

/* Launches `churn` of kernel ck (cbytes, payload cn) writing to cout: other
 * functors that take new ring slots and constant slots. */
static void churn(kc_kernel *ck, size_t cbytes, size_t cn, int64_t *cout,
                  int times) {
  int64_t *g = kc_test_xmalloc(cbytes);
  memset(g, 0, cbytes);
  g[0] = (int64_t)(intptr_t)cout;
  for (int t = 0; t < times; t++) {
    g[2] = 77 + t;
    g[3 + cn - 1] = -t;
    kc_policy p = kc_range(0, SPAN);
    KC_CHECK_OK(kc_parallel_for(NULL, ck, &p, g, cbytes));
  }
  free(g);
}

/* Runs of identical functors (the plugin may pass the copy it staged
 * before), with one payload word changed (the first, one in the middle,
 * the last, in turn) for two launches and changed back.  Before the last
 * two launches of each run other kernels refill every slot of the
 * constant region (40 KB and 1.6 KB functors), every other time the
 * staging ring too (20 functors of 240 KB: both halves of its 4 MB); in
 * some runs two launches of the unchanged functor go to a queue of their
 * own.  Each launch's outputs are checked against the bytes it was given.
 * The compare and the constant region's position check are each needed
 * to pass. */
static void check_reuse(const char *mode, kc_kernel *k, size_t bytes, size_t n,
                        kc_kernel *big, kc_kernel *mid, kc_kernel *small) {
  size_t fsize = 3 * sizeof(int64_t) + n * sizeof(int64_t);
  KC_REQUIRE(fsize == bytes);
  int64_t *f = kc_test_xmalloc(fsize);
  int64_t *dout =
      kc_test_dalloc(sizeof(int64_t) * REUSE_LAUNCHES * SPAN, "out");
  int64_t *cout = kc_test_dalloc(sizeof(int64_t) * SPAN, "churn out");
  KC_REQUIRE_OK(kc_memset(dout, 0xff, sizeof(int64_t) * REUSE_LAUNCHES * SPAN));
  kc_queue *q = NULL;
  KC_REQUIRE_OK(kc_queue_create(&q, 0));
  reuse_step step[REUSE_LAUNCHES];
  int64_t *c = f + 3;
  int failed = 0;
  for (int l = 0; l < REUSE_LAUNCHES && !failed; l++) {
    /* Runs of 8 with one tag: A A A B B A A A, B one word off A.  No two
     * changed functors in a row, so the plugin keeps comparing (two in a
     * row would make it skip the compare for a while). */
    const int r = l % 8, run = l / 8;
    const long where[3] = {0, (long)n / 2, (long)n - 1};
    step[l].tag = 1000 + run;
    step[l].pos = r == 3 || r == 4 ? where[run % 3] : -1;
    step[l].val = 424242 + run;
    f[0] = (int64_t)(intptr_t)dout;
    f[1] = 0;
    f[2] = step[l].tag;
    for (size_t j = 0; j < n; j++)
      c[j] = (int64_t)(j * 7 + bytes);
    if (step[l].pos >= 0)
      c[step[l].pos] = step[l].val;
    if (r == 6) {
      /* Every other run the ring too; else only the constant region, the
       * ring's halves left as they were (mostly). */
      if (run % 2 == 0)
        churn(big, 240000, 29997, cout, 20);
      churn(mid, 40000, 4997, cout, 3);
      churn(small, 1600, 197, cout, 40);
    }
    kc_policy p = kc_range((kc_index)l * SPAN, (kc_index)(l + 1) * SPAN);
    if ((r == 1 || r == 2) && run % 3 == 1)
      p = kc_policy_on(p, q);
    if (KC_CHECK_OK(kc_parallel_for(NULL, k, &p, f, fsize)) != 0)
      failed = 1;
    /* The caller may reuse the functor at once. */
    memset(f, 0x5a, fsize);
  }
  KC_CHECK_OK(kc_queue_fence(q));
  KC_CHECK_OK(kc_queue_destroy(q));
  int64_t *out =
      kc_test_download(dout, sizeof(int64_t) * REUSE_LAUNCHES * SPAN);
  long bad = 0, first = -1;
  for (int l = 0; l < REUSE_LAUNCHES; l++)
    for (int s = 0; s < SPAN; s++) {
      size_t kk = (size_t)l * SPAN + (size_t)s, j = kk % n;
      const reuse_step *st = &step[l];
      int64_t cj = (long)j == st->pos ? st->val : (int64_t)(j * 7 + bytes);
      int64_t last =
          (long)(n - 1) == st->pos ? st->val : (int64_t)((n - 1) * 7 + bytes);
      int64_t want = st->tag * 1000003 + cj + last;
      if (out[kk] != want && bad++ == 0)
        first = (long)kk;
    }
  if (bad)
    KC_FAIL("mode %s, %zu-byte functor launched again: %ld of %d outputs "
            "wrong, first at %ld (launch %ld): %" PRId64,
            mode, bytes, bad, REUSE_LAUNCHES * SPAN, first, first / SPAN,
            out[first]);
  else
    KC_INFO("mode %s: %d launches of a %zu-byte functor, unchanged runs, "
            "changed words, refills: ok",
            mode, REUSE_LAUNCHES, bytes);
  free(out);
  free(f);
  KC_CHECK_OK(kc_free(cout));
  KC_CHECK_OK(kc_free(dout));
}

/* Bytes another kernel left in the ring, in constant mode: kc_cuda_f1600
 * is staged (its constant slot and a ring slot) with a functor F; then 20
 * functors of 240 KB go to global memory (the whole ring refilled, the
 * constant region untouched), their bytes repeating every 256 bytes, as
 * the ring's slots do; then f1600 gets 1600 of those bytes as its functor
 * G.  Its old ring slot now holds G's bytes, but its constant slot still
 * holds F: a compare against the ring slot would take G for unchanged
 * (the plugin once told it by the ring's stamps; it now compares against
 * a copy of the functor of its own).  Run first after kc_init, before
 * f1600 has changed functors twice in a row (which would skip the
 * compare). */
static void check_reuse_aliased(const char *mode, kc_kernel *k,
                                kc_kernel *big) {
  enum { N = 197, PERIOD = 32 }; /* kc_f1600: 24 + 8 * 197 bytes */
  int64_t *dout = kc_test_dalloc(sizeof(int64_t) * 2 * SPAN, "out");
  int64_t *xout = kc_test_dalloc(sizeof(int64_t) * 2 * SPAN, "x out");
  KC_REQUIRE_OK(kc_memset(dout, 0xff, sizeof(int64_t) * 2 * SPAN));
  KC_REQUIRE_OK(kc_memset(xout, 0xff, sizeof(int64_t) * 2 * SPAN));
  /* F: out = dout, base 0, tag 7, c[j] = j. */
  int64_t f[3 + N];
  f[0] = (int64_t)(intptr_t)dout;
  f[1] = 0;
  f[2] = 7;
  for (int j = 0; j < N; j++)
    f[3 + j] = j;
  kc_policy p = kc_range(0, SPAN);
  KC_CHECK_OK(kc_parallel_for(NULL, k, &p, f, sizeof f));
  /* The 256-byte pattern: out = xout, base 0, tag 9, then 1000 + j. */
  int64_t pat[PERIOD];
  pat[0] = (int64_t)(intptr_t)xout;
  pat[1] = 0;
  pat[2] = 9;
  for (int j = 3; j < PERIOD; j++)
    pat[j] = 1000 + j;
  int64_t *g = kc_test_xmalloc(240000);
  for (int j = 0; j < 30000; j++)
    g[j] = pat[j % PERIOD];
  /* The 240 KB kernel writes xout[0, SPAN).  Its last word differs at
   * each launch, or the plugin would reuse the first one's copy and the
   * ring would not move. */
  p = kc_range(0, SPAN);
  for (int t = 0; t < 20; t++) {
    g[29999] = t;
    KC_CHECK_OK(kc_parallel_for(NULL, big, &p, g, 240000));
  }
  /* G = the pattern's first 1600 bytes; it writes xout[SPAN, 2 SPAN). */
  p = kc_range(SPAN, 2 * SPAN);
  KC_CHECK_OK(kc_parallel_for(NULL, k, &p, g, 1600));
  int64_t *x = kc_test_download(xout, sizeof(int64_t) * 2 * SPAN);
  long bad = 0;
  for (int i = SPAN; i < 2 * SPAN; i++) {
    int64_t want = pat[2] * 1000003 + g[3 + i % N] + g[3 + N - 1];
    bad += x[i] != want;
  }
  if (bad)
    KC_FAIL("mode %s: a 1.6 KB functor whose bytes another kernel left in "
            "the staging ring: %ld of %d outputs wrong (it read the "
            "functor it was given before)",
            mode, bad, SPAN);
  else
    KC_INFO("mode %s: a functor equal to bytes another kernel left in the "
            "ring: ok",
            mode);
  free(x);
  free(g);
  KC_CHECK_OK(kc_free(xout));
  KC_CHECK_OK(kc_free(dout));
}

/* ------------------------------------------------ patched functors */

#define PATCH_LAUNCHES 240

/* A functor that changes a little at every launch (the staged copy may be
 * patched in place, only the span that changed copied): launch l covers
 * [l*SPAN, (l+1)*SPAN) and so reads the payload words (l*SPAN + s) % n and
 * the last one; it first sets the words it reads to values of its own
 * (a span of SPAN words that wanders over the whole functor and wraps
 * around it), and at some launches also the last word (a span over half
 * the functor: copied whole), three times in a row at some (the plugin
 * then stops comparing for a while).  The tag stays, so a launch that
 * read a stale or half-patched copy shows another launch's word.  Other
 * kernels refill the ring and the constant region now and then, and some
 * launches go to a queue of their own.  Each launch's outputs are checked
 * against the bytes it was given. */
static void check_patch(const char *mode, kc_kernel *k, size_t bytes, size_t n,
                        kc_kernel *big, kc_kernel *mid) {
  size_t fsize = 3 * sizeof(int64_t) + n * sizeof(int64_t);
  KC_REQUIRE(fsize == bytes);
  const size_t outs = (size_t)PATCH_LAUNCHES * SPAN;
  int64_t *f = kc_test_xmalloc(fsize);
  int64_t *want = kc_test_xmalloc(sizeof(int64_t) * outs);
  int64_t *dout = kc_test_dalloc(sizeof(int64_t) * outs, "out");
  int64_t *cout = kc_test_dalloc(sizeof(int64_t) * SPAN, "churn out");
  KC_REQUIRE_OK(kc_memset(dout, 0xff, sizeof(int64_t) * outs));
  kc_queue *q = NULL;
  KC_REQUIRE_OK(kc_queue_create(&q, 0));
  int64_t *c = f + 3;
  f[0] = (int64_t)(intptr_t)dout;
  f[1] = 0;
  f[2] = 4711;
  for (size_t j = 0; j < n; j++)
    c[j] = (int64_t)(j * 7 + bytes);
  int failed = 0;
  for (int l = 0; l < PATCH_LAUNCHES && !failed; l++) {
    for (int s = 0; s < SPAN; s++)
      c[((size_t)l * SPAN + (size_t)s) % n] = (int64_t)l * 1000 + s;
    const int r = l % 16;
    if (r == 5 || r == 8 || r == 9 || r == 10)
      c[n - 1] = -l;
    for (int s = 0; s < SPAN; s++) {
      const size_t i = (size_t)l * SPAN + (size_t)s;
      want[i] = f[2] * 1000003 + c[i % n] + c[n - 1];
    }
    if (l % 40 == 20)
      churn(big, 240000, 29997, cout, 20);
    if (l % 40 == 30)
      churn(mid, 40000, 4997, cout, 3);
    kc_policy p = kc_range((kc_index)l * SPAN, (kc_index)(l + 1) * SPAN);
    if (l % 50 == 49 || l % 50 == 0)
      p = kc_policy_on(p, q);
    if (KC_CHECK_OK(kc_parallel_for(NULL, k, &p, f, fsize)) != 0)
      failed = 1;
  }
  KC_CHECK_OK(kc_queue_fence(q));
  KC_CHECK_OK(kc_queue_destroy(q));
  int64_t *out = kc_test_download(dout, sizeof(int64_t) * outs);
  long bad = 0, first = -1;
  for (size_t i = 0; i < outs; i++)
    if (out[i] != want[i] && bad++ == 0)
      first = (long)i;
  if (bad)
    KC_FAIL("mode %s, %zu-byte functor changed a little at every launch: "
            "%ld of %zu outputs wrong, first at %ld (launch %ld): %" PRId64
            ", want %" PRId64,
            mode, bytes, bad, outs, first, first / SPAN, out[first],
            want[first]);
  else
    KC_INFO("mode %s: %d launches of a %zu-byte functor changed a little "
            "each time: ok",
            mode, PATCH_LAUNCHES, bytes);
  free(out);
  free(want);
  free(f);
  KC_CHECK_OK(kc_free(cout));
  KC_CHECK_OK(kc_free(dout));
}

/* --------------------------------------------------- ordered reductions */

static kc_seqhash seq_of(const int64_t *x, kc_index b, kc_index e) {
  kc_seqhash v = {0, 1, -1, -1};
  for (kc_index i = b; i < e; i++) {
    v.h = v.h * KC_SEQHASH_P + (uint64_t)x[i];
    v.pw *= KC_SEQHASH_P;
    if (v.first < 0)
      v.first = i;
    v.last = i;
  }
  return v;
}

static void check_reductions(const char *mode, kc_index n) {
  kc_test_rng rng = {0x9e3779b97f4a7c15ull ^ (uint64_t)n};
  int64_t *x = kc_test_xmalloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  double *xd = kc_test_xmalloc(sizeof(double) * (size_t)(n ? n : 1));
  for (kc_index i = 0; i < n; i++) {
    x[i] = kc_test_rand_range(&rng, -1000, 1000);
    xd[i] = (double)kc_test_rand_range(&rng, -50, 50); /* ties for maxloc */
  }
  int64_t *dx = kc_test_upload(x, sizeof(int64_t) * (size_t)n, "x");
  double *dxd = kc_test_upload(xd, sizeof(double) * (size_t)n, "xd");
  int64_t *dout = kc_test_dalloc(sizeof(int64_t) * (size_t)(n ? n : 1), "o");

  /* Custom, order-sensitive reduction: to a host variable... */
  kc_xs fs = {dx, dout, 0};
  kc_policy p = kc_range(0, n);
  kc_seqhash want = seq_of(x, 0, n), got;
  memset(&got, 0x77, sizeof got);
  if (KC_CHECK_OK(kc_parallel_reduce(NULL, KC_TEST_KERNEL(kc_cuda_seqhash), &p,
                                     &fs, sizeof fs, &got)) == 0) {
    if (got.h != want.h || got.pw != want.pw || got.first != want.first ||
        got.last != want.last)
      KC_FAIL("mode %s, n %lld: seqhash {%llx, first %lld, last %lld}, "
              "want {%llx, %lld, %lld}",
              mode, (long long)n, (unsigned long long)got.h,
              (long long)got.first, (long long)got.last,
              (unsigned long long)want.h, (long long)want.first,
              (long long)want.last);
  }
  /* ... and left in a device allocation (asynchronous). */
  kc_seqhash *dres = kc_test_dalloc(sizeof(kc_seqhash), "res");
  if (KC_CHECK_OK(kc_parallel_reduce(NULL, KC_TEST_KERNEL(kc_cuda_seqhash), &p,
                                     &fs, sizeof fs, dres)) == 0) {
    kc_seqhash *h = kc_test_download(dres, sizeof *h);
    KC_CHECK_EQ_UINT(h->h, want.h);
    KC_CHECK_EQ_INT(h->last, want.last);
    free(h);
  }

  /* Built-in reducers: sum (exact: small integers) and maxloc with ties. */
  kc_xd fd = {dxd, 0};
  double s = 0, ws = 0;
  kc_loc_double ml, wml = {-INFINITY, INT64_MAX};
  for (kc_index i = 0; i < n; i++) {
    ws += xd[i];
    if (xd[i] > wml.val) {
      wml.val = xd[i];
      wml.loc = i;
    }
  }
  if (KC_CHECK_OK(kc_parallel_reduce(NULL, KC_TEST_KERNEL(kc_cuda_sum), &p, &fd,
                                     sizeof fd, &s)) == 0)
    KC_CHECK_EQ_DBL(s, ws, 0);
  if (KC_CHECK_OK(kc_parallel_reduce(NULL, KC_TEST_KERNEL(kc_cuda_maxloc), &p,
                                     &fd, sizeof fd, &ml)) == 0) {
    KC_CHECK_EQ_DBL(ml.val, wml.val, 0);
    KC_CHECK_EQ_INT(ml.loc, wml.loc);
  }

  /* Scans: inclusive sum with its total, and the order-sensitive custom
   * exclusive scan. */
  int64_t total = -1, wtotal = 0;
  int64_t *ref = kc_test_xmalloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  for (kc_index i = 0; i < n; i++)
    ref[i] = (wtotal += x[i]);
  if (KC_CHECK_OK(kc_parallel_scan(NULL, KC_TEST_KERNEL(kc_cuda_iscan), &p, &fs,
                                   sizeof fs, &total)) == 0) {
    KC_CHECK_EQ_INT(total, wtotal);
    int64_t *o = kc_test_download(dout, sizeof(int64_t) * (size_t)n);
    KC_CHECK_ARRAY_EQ_I64(o, ref, n);
    free(o);
  }
  kc_seqhash htotal;
  uint64_t h = 0;
  for (kc_index i = 0; i < n; i++) {
    ref[i] = (int64_t)h;
    h = h * KC_SEQHASH_P + (uint64_t)x[i];
  }
  if (KC_CHECK_OK(kc_parallel_scan(NULL, KC_TEST_KERNEL(kc_cuda_hscan), &p, &fs,
                                   sizeof fs, &htotal)) == 0) {
    KC_CHECK_EQ_UINT(htotal.h, h);
    int64_t *o = kc_test_download(dout, sizeof(int64_t) * (size_t)n);
    KC_CHECK_ARRAY_EQ_I64(o, ref, n);
    free(o);
  }
  /* The single-pass scan's tiles are claimed and published anew by every
   * launch (a new epoch, counters put back by the last block): the same
   * order-sensitive scan, again and again, must give the same total. */
  for (int rep = 0; n > 1000000 && rep < 24; rep++) {
    memset(&htotal, 0, sizeof htotal);
    if (KC_CHECK_OK(kc_parallel_scan(NULL, KC_TEST_KERNEL(kc_cuda_hscan), &p,
                                     &fs, sizeof fs, &htotal)) != 0)
      break;
    if (htotal.h != h) {
      KC_FAIL("repeated scan %d: total %llu, want %llu", rep,
              (unsigned long long)htotal.h, (unsigned long long)h);
      break;
    }
  }
  /* Scan total left on the device. */
  int64_t *dtot = kc_test_dalloc(sizeof(int64_t), "tot");
  if (KC_CHECK_OK(kc_parallel_scan(NULL, KC_TEST_KERNEL(kc_cuda_iscan), &p, &fs,
                                   sizeof fs, dtot)) == 0) {
    int64_t *t = kc_test_download(dtot, sizeof *t);
    KC_CHECK_EQ_INT(*t, wtotal);
    free(t);
  }
  KC_INFO("mode %s: reductions and scans over %lld indices done", mode,
          (long long)n);
  free(ref);
  free(x);
  free(xd);
  KC_CHECK_OK(kc_free(dx));
  KC_CHECK_OK(kc_free(dxd));
  KC_CHECK_OK(kc_free(dout));
  KC_CHECK_OK(kc_free(dres));
  KC_CHECK_OK(kc_free(dtot));
}

/* ------------------------------------------------------------ CALL */

/* y[i] = a * i + n for i < n: an ordinary __global__ taking (double *y,
 * long n, double a), written by hand. */
static const char call_ptx[] =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    ".visible .entry kc_cuda_call(.param .u64 y, .param .u64 n,\n"
    "                             .param .f64 a)\n"
    "{\n"
    "  .reg .pred p;\n"
    "  .reg .b32 r<4>;\n"
    "  .reg .b64 d<8>;\n"
    "  .reg .f64 f<4>;\n"
    "  ld.param.u64 d1, [y];\n"
    "  ld.param.u64 d2, [n];\n"
    "  ld.param.f64 f1, [a];\n"
    "  mov.u32 r1, %ctaid.x;\n"
    "  mov.u32 r2, %ntid.x;\n"
    "  mov.u32 r3, %tid.x;\n"
    "  mul.wide.u32 d3, r1, r2;\n"
    "  cvt.u64.u32 d4, r3;\n"
    "  add.s64 d3, d3, d4;\n"
    "  setp.ge.s64 p, d3, d2;\n"
    "  @p bra done;\n"
    "  cvt.rn.f64.s64 f2, d3;\n"
    "  cvt.rn.f64.s64 f3, d2;\n"
    "  fma.rn.f64 f2, f2, f1, f3;\n"
    "  cvta.to.global.u64 d1, d1;\n"
    "  shl.b64 d5, d3, 3;\n"
    "  add.s64 d1, d1, d5;\n"
    "  st.global.f64 [d1], f2;\n"
    "done:\n"
    "  ret;\n"
    "}\n";

static void check_call(void) {
  static kc_kernel *k;
  if (!k) {
    kc_kernel_desc d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    d.name = "kc_cuda_call";
    d.kind = KC_KERNEL_CALL;
    d.ptx = call_ptx;
    d.signature = "pld";
    KC_REQUIRE_OK(kc_kernel_register(&d, &k));
  }
  const long n = 100003;
  double *dy = kc_test_dalloc(sizeof(double) * (size_t)n, "y");
  double a = 0.5;
  long nn = n;
  void *args[] = {&dy, &nn, &a};
  kc_policy p = kc_range(0, n);
  if (KC_CHECK_OK(kc_parallel_call(NULL, k, &p, 3, args)) == 0) {
    double *y = kc_test_download(dy, sizeof(double) * (size_t)n);
    long bad = 0;
    for (long i = 0; i < n; i++)
      bad += y[i] != 0.5 * (double)i + (double)n;
    KC_CHECK_EQ_INT(bad, 0);
    free(y);
  }
  KC_CHECK_ERR(kc_parallel_call(NULL, k, &p, 2, args), KC_ESIGNATURE);
  KC_CHECK_OK(kc_free(dy));
}

int main(void) {
  static const char *const modes[] = {"auto", "param", "constant", "global"};
  kc_kernel *fk[] = {
#define KT_K(bytes, n) KC_KERNEL(kc_cuda_f##bytes),
      KT_CUDA_SIZES(KT_K)};
  static const size_t fb[] = {
#define KT_B(bytes, n) bytes,
      KT_CUDA_SIZES(KT_B)};
  static const size_t fn[] = {
#define KT_N(bytes, n) n,
      KT_CUDA_SIZES(KT_N)};
  static const kc_index sizes[] = {0, 1, 31, 1000, 65536 + 7, 3000017};
  for (int m = 0; m < 4; m++) {
    setenv("KC_CUDA_LAUNCH", modes[m], 1);
    kc_test_init_backend();
    check_reuse_aliased(modes[m], KC_KERNEL(kc_cuda_f1600),
                        KC_KERNEL(kc_cuda_f240000));
    for (size_t s = 0; s < sizeof fb / sizeof fb[0]; s++) {
      KC_REQUIRE(fk[s] != NULL);
      check_functor(modes[m], fk[s], fb[s], fn[s]);
    }
    for (size_t s = 0; s < sizeof fb / sizeof fb[0]; s++)
      check_reuse(modes[m], fk[s], fb[s], fn[s], KC_KERNEL(kc_cuda_f240000),
                  KC_KERNEL(kc_cuda_f40000), KC_KERNEL(kc_cuda_f1600));
    for (size_t s = 2; s < sizeof fb / sizeof fb[0]; s++)
      check_patch(modes[m], fk[s], fb[s], fn[s], KC_KERNEL(kc_cuda_f240000),
                  KC_KERNEL(kc_cuda_f40000));
    /* Last (the ring grows to 8 MB for it): a functor over the whole ring. */
    check_reuse(modes[m], KC_KERNEL(kc_cuda_f4800024), 4800024, 600000,
                KC_KERNEL(kc_cuda_f240000), KC_KERNEL(kc_cuda_f40000),
                KC_KERNEL(kc_cuda_f1600));
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      check_reductions(modes[m],
                       kc_test_large(sizes[s]) < sizes[s] && sizes[s] > 100000
                           ? kc_test_large(sizes[s])
                           : sizes[s]);
    check_call();
    KC_CHECK_OK(kc_finalize());
  }
  return kc_test_done();
}
