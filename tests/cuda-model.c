/* The CUDA backend's MD and team launches, where the backend shapes them
 * itself (run as cuda-model.cuda; SKIPs without a CUDA device):
 *
 *  - level-0 scratch beyond the 48 KB default, up to the largest a block of
 *    this kernel may opt into (the device's limit minus the kernel's own
 *    static shared memory) and one step over it (KC_ESCRATCH naming the
 *    kernel), shared by up to 512 threads, with many league ranks per
 *    block reusing it;
 *  - a barrier with a late writer at both scratch levels (and, outside
 *    compute-sanitizer, the same kernel without the barrier as a control
 *    showing that the check can fail);
 *  - team sizes chosen by the backend from per-thread scratch;
 *  - vector lengths and team sizes the device cannot run (KC_EINVAL);
 *  - joins that are associative but not commutative: league ranks, team
 *    threads and vector lanes are joined in order;
 *  - MD tiles larger than a block, and boxes of millions of points.
 *
 * The launch modes param, constant and global repeat a subset. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <kc/kernel.h>

#include "cuda-model.h"
#include "kc-test.h"

KC_KERNEL_DECLARE(cm_share);
KC_KERNEL_DECLARE(cm_barrier);
KC_KERNEL_DECLARE(cm_nobarrier);
KC_KERNEL_DECLARE(cm_thread_parts);
KC_KERNEL_DECLARE(cm_league_hash);
KC_KERNEL_DECLARE(cm_nested_hash);
KC_KERNEL_DECLARE(cm_md_count);
KC_KERNEL_DECLARE(cm_md_sum);

static kc_info info;
static int64_t *dout, *dmeta;
#define OUT_MAX 20000

static cm_team team_functor(void) {
  cm_team f;
  memset(&f, 0, sizeof f);
  f.out = dout;
  f.meta = dmeta;
  return f;
}

static void clear(void) {
  KC_REQUIRE_OK(kc_memset(dout, 0, OUT_MAX * sizeof(int64_t)));
  KC_REQUIRE_OK(kc_memset(dmeta, 0, 8 * sizeof(int64_t)));
}

static void fetch_meta(int64_t meta[8]) {
  KC_CHECK_OK(kc_fence());
  KC_CHECK_OK(kc_memcpy(meta, dmeta, 8 * sizeof(int64_t)));
}

/* Hash of the sequence x(0), x(1), ... x(n-1) (cuda-functors.h). */
static kc_seqhash hash_of(int64_t n, int64_t mul, int64_t add) {
  kc_seqhash h = {0, 1, -1, -1};
  for (int64_t j = 0; j < n; j++) {
    int64_t x = j * mul + add;
    h.h = h.h * KC_SEQHASH_P + (uint64_t)x;
    h.pw *= KC_SEQHASH_P;
    if (h.first < 0)
      h.first = x;
    h.last = x;
  }
  return h;
}

/* ------------------------------------------------------------ scratch */

/* m int64 of level-0 scratch per team, written by every thread and summed
 * after the barrier; `league` teams, many per block. */
static void share(const char *mode, int ts, int vl, int64_t m,
                  kc_index league) {
  cm_team f = team_functor();
  f.m = m;
  kc_policy p = kc_team_policy(league, ts, vl);
  KC_REQUIRE_OK(kc_policy_set_scratch(&p, 0, (size_t)m * 8, 0));
  clear();
  if (KC_CHECK_OK(kc_parallel_for("share", KC_TEST_KERNEL(cm_share), &p, &f,
                                  sizeof f)) != 0) {
    KC_INFO("%s", kc_last_error());
    return;
  }
  int64_t *out = kc_test_xmalloc((size_t)league * sizeof(int64_t));
  KC_CHECK_OK(kc_fence());
  KC_CHECK_OK(kc_memcpy(out, dout, (size_t)league * sizeof(int64_t)));
  int bad = 0;
  for (kc_index r = 0; r < league && bad < 3; r++) {
    int64_t want = m * r * 1000000 + m * (m - 1) / 2;
    if (out[r] != want) {
      KC_FAIL("mode %s, team size %d, vector length %d, %" PRId64
              " B of level-0 scratch: team %lld summed %" PRId64
              ", want %" PRId64,
              mode, ts, vl, m * 8, (long long)r, out[r], want);
      bad++;
    }
  }
  if (!bad)
    KC_INFO("mode %s: %lld teams of %d x %d threads shared %" PRId64
            " B of level-0 scratch: ok",
            mode, (long long)league, ts, vl, m * 8);
  free(out);
}

static void scratch_cases(const char *mode, int full) {
  /* What a block of cm_share may have: the device's opt-in limit minus the
   * kernel's static shared memory (its team reductions use 256 B; the
   * backend's error message states the exact figure). */
  const size_t l0 = info.dev.shared_memory_per_block_optin;
  KC_CHECK(l0 > 48 * 1024);
  const kc_index many = kc_test_large(2000);
  share(mode, 256, 1, 100 * 1024 / 8, many);
  if (!full)
    return;
  share(mode, KC_AUTO, 1, 150 * 1024 / 8, kc_test_large(700));
  share(mode, 32, 4, 60 * 1024 / 8, kc_test_large(300));
  share(mode, 1, 1, 1000, 3);
  share(mode, 7, 2, 999, kc_test_large(1000));

  /* The largest request this kernel can take: found by asking (a refusal
   * is KC_ESCRATCH naming the kernel and the level), within 4 KB of the
   * device's limit (the kernel's static shared memory is the difference),
   * then used by a team of 512 threads; one value more is refused. */
  cm_team f = team_functor();
  int64_t lo = (int64_t)((l0 - 4096) / 8), hi = (int64_t)(l0 / 8) + 1;
  for (int probe = 0; probe < 2; probe++) {
    /* lo must work and hi must not. */
    f.m = probe ? hi : lo;
    kc_policy p = kc_team_policy(1, 1, 1);
    KC_REQUIRE_OK(kc_policy_set_scratch(&p, 0, (size_t)f.m * 8, 0));
    int rc =
        kc_parallel_for("probe", KC_TEST_KERNEL(cm_share), &p, &f, sizeof f);
    KC_CHECK_EQ_INT(rc, probe ? KC_ESCRATCH : 0);
    if (probe) {
      KC_INFO("%s", kc_last_error());
      KC_CHECK_CONTAINS(kc_last_error(), "cm_share");
      KC_CHECK_CONTAINS(kc_last_error(), "level-0");
    }
  }
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    f.m = mid;
    kc_policy p = kc_team_policy(1, 1, 1);
    KC_REQUIRE_OK(kc_policy_set_scratch(&p, 0, (size_t)mid * 8, 0));
    int rc =
        kc_parallel_for("probe", KC_TEST_KERNEL(cm_share), &p, &f, sizeof f);
    if (rc == 0) {
      lo = mid;
    } else if (rc == KC_ESCRATCH) {
      hi = mid;
    } else {
      KC_FAIL("probing %" PRId64 " B of level-0 scratch: %s: %s", mid * 8,
              kc_err_name(rc), kc_last_error());
      return;
    }
  }
  KC_INFO("mode %s: largest level-0 scratch of cm_share: %" PRId64
          " B (device opt-in limit %zu B)",
          mode, lo * 8, l0);
  share(mode, 512, 1, lo, kc_test_large(300));
  kc_policy p = kc_team_policy(4, 512, 1);
  f.m = lo + 1;
  KC_REQUIRE_OK(kc_policy_set_scratch(&p, 0, (size_t)f.m * 8, 0));
  KC_CHECK_ERR(
      kc_parallel_for("over", KC_TEST_KERNEL(cm_share), &p, &f, sizeof f),
      KC_ESCRATCH);
}

/* ------------------------------------------------------------ barrier */

static void barrier_case(const char *mode, int ts, int vl) {
  cm_team f = team_functor();
  f.spin = 20000;
  const kc_index league = kc_test_large(400);
  kc_policy p = kc_team_policy(league, ts, vl);
  KC_REQUIRE_OK(kc_policy_set_scratch(&p, 0, 16, 0));
  KC_REQUIRE_OK(kc_policy_set_scratch(&p, 1, 16, 0));
  int64_t meta[8];
  clear();
  KC_CHECK_OK(
      kc_parallel_for("barrier", KC_TEST_KERNEL(cm_barrier), &p, &f, sizeof f));
  fetch_meta(meta);
  if (meta[0] != 0)
    KC_FAIL("mode %s, team size %d, vector length %d: %" PRId64
            " threads read scratch before the barrier made the late write "
            "visible",
            mode, ts, vl, meta[0]);
  /* The control: without the barrier the same check must see stale
   * values (it races on purpose, so not under compute-sanitizer). */
  const char *san = getenv("KC_TEST_SANITIZER");
  if (san && *san)
    return;
  clear();
  KC_CHECK_OK(kc_parallel_for("no barrier", KC_TEST_KERNEL(cm_nobarrier), &p,
                              &f, sizeof f));
  fetch_meta(meta);
  KC_INFO("mode %s, team size %d, vector length %d: without the barrier "
          "%" PRId64 " reads were stale%s",
          mode, ts, vl, meta[0],
          meta[0]           ? " (so the check above can fail)"
          : info.device < 0 ? " (a host team is one thread: no race)"
                            : " (the control did not catch the race this "
                              "time)");
}

/* ------------------------------------------------- team size from scratch */

static void thread_parts(const char *mode, int vl) {
  cm_team f = team_functor();
  f.per_thread = 2000;
  kc_policy p = kc_team_policy(kc_test_large(500), KC_AUTO, vl);
  KC_REQUIRE_OK(kc_policy_set_scratch(&p, 0, 0, 2000));
  int64_t meta[8];
  clear();
  KC_CHECK_OK(kc_parallel_for("parts", KC_TEST_KERNEL(cm_thread_parts), &p, &f,
                              sizeof f));
  fetch_meta(meta);
  KC_CHECK_EQ_INT(meta[0], 0);
  KC_CHECK_EQ_INT(meta[2], info.device >= 0 ? vl : 1);
  KC_CHECK(meta[1] >= 1 &&
           (size_t)meta[1] * 2000 <= info.dev.shared_memory_per_block_optin);
  KC_INFO("mode %s: 2000 B of level-0 scratch per thread, vector length %d: "
          "the backend chose teams of %" PRId64 " threads",
          mode, vl, meta[1]);
  /* Asked for explicitly, a team that large cannot have it. */
  const int too_many = (int)(info.dev.shared_memory_per_block_optin / 2000) + 1;
  if (too_many * vl <= info.dev.max_threads_per_block) {
    kc_policy q = kc_team_policy(3, too_many, vl);
    KC_REQUIRE_OK(kc_policy_set_scratch(&q, 0, 0, 2000));
    KC_CHECK_ERR(kc_parallel_for("parts", KC_TEST_KERNEL(cm_thread_parts), &q,
                                 &f, sizeof f),
                 KC_ESCRATCH);
    KC_CHECK_CONTAINS(kc_last_error(), "per thread");
  }
}

static void shape_errors(void) {
  if (info.device < 0)
    return; /* host teams are one thread of one lane: any shape runs */
  cm_team f = team_functor();
  kc_kernel *k = KC_TEST_KERNEL(cm_barrier);
  static const int bad[][2] = {{4, 3}, {2, 64}, {KC_AUTO, 12}};
  for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
    kc_policy p = kc_team_policy(4, bad[c][0], bad[c][1]);
    KC_CHECK_ERR(kc_parallel_for("shape", k, &p, &f, sizeof f), KC_EINVAL);
    KC_CHECK_CONTAINS(kc_last_error(), "power of two");
  }
  kc_policy p = kc_team_policy(4, info.dev.max_threads_per_block, 2);
  KC_CHECK_ERR(kc_parallel_for("shape", k, &p, &f, sizeof f), KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), "threads per block");
}

/* ------------------------------------------------------- ordered joins */

static void league_hash(const char *mode, int ts, int vl, kc_index league) {
  cm_team f = team_functor();
  kc_policy p = kc_team_policy(league, ts, vl);
  kc_seqhash got;
  memset(&got, 0, sizeof got);
  KC_CHECK_OK(kc_parallel_reduce("league hash", KC_TEST_KERNEL(cm_league_hash),
                                 &p, &f, sizeof f, &got));
  kc_seqhash want = hash_of(league, 1, 0);
  if (got.h != want.h || got.pw != want.pw || got.first != want.first ||
      got.last != want.last)
    KC_FAIL("mode %s, team size %d, vector length %d: %lld league ranks "
            "joined out of order (first %" PRId64 " last %" PRId64 ")",
            mode, ts, vl, (long long)league, got.first, got.last);
}

static void nested_hash(const char *mode, int ts, int vl) {
  cm_team f = team_functor();
  f.n = 1000;
  const kc_index league = 50;
  kc_policy p = kc_team_policy(league, ts, vl);
  int64_t meta[8];
  clear();
  KC_CHECK_OK(kc_parallel_for("nested hash", KC_TEST_KERNEL(cm_nested_hash), &p,
                              &f, sizeof f));
  fetch_meta(meta);
  KC_CHECK_EQ_INT(meta[0], 0);
  int64_t out[2 * 50];
  KC_CHECK_OK(kc_memcpy(out, dout, sizeof out));
  for (kc_index r = 0; r < league; r++) {
    kc_seqhash th = hash_of(f.n, 1, r), vh = hash_of(f.n, 3, r);
    if (out[r * 2] != (int64_t)th.h || out[r * 2 + 1] != (int64_t)vh.h) {
      KC_FAIL("mode %s, team size %d, vector length %d, team %lld: nested "
              "custom reductions joined out of index order (team-thread %s, "
              "thread-vector %s)",
              mode, ts, vl, (long long)r,
              out[r * 2] == (int64_t)th.h ? "ok" : "wrong",
              out[r * 2 + 1] == (int64_t)vh.h ? "ok" : "wrong");
      break;
    }
  }
}

/* ----------------------------------------------------------------- MD */

static void md_count(const char *mode, kc_index n0, kc_index n1,
                     const kc_index *tile) {
  size_t n = (size_t)n0 * (size_t)n1;
  int32_t *dcnt = kc_test_dalloc(n * sizeof(int32_t), "md count");
  KC_REQUIRE_OK(kc_memset(dcnt, 0, n * sizeof(int32_t)));
  cm_md f = {dcnt, n1};
  const kc_index b[2] = {0, 0}, e[2] = {n0, n1};
  kc_policy p = kc_mdrange(2, b, e, tile);
  KC_CHECK_OK(kc_parallel_for("md count", KC_TEST_KERNEL(cm_md_count), &p, &f,
                              sizeof f));
  int32_t *cnt = kc_test_xmalloc(n * sizeof(int32_t));
  KC_CHECK_OK(kc_fence());
  KC_CHECK_OK(kc_memcpy(cnt, dcnt, n * sizeof(int32_t)));
  size_t bad = 0, first = 0;
  for (size_t q = 0; q < n; q++)
    if (cnt[q] != 1 && bad++ == 0)
      first = q;
  if (bad)
    KC_FAIL("mode %s, box %lld x %lld, tile %s: %zu points not visited "
            "exactly once, first (%zu, %zu) %d times",
            mode, (long long)n0, (long long)n1, tile ? "given" : "none", bad,
            first / (size_t)n1, first % (size_t)n1, cnt[first]);
  free(cnt);
  KC_CHECK_OK(kc_free(dcnt));
}

static void md_cases(const char *mode, int full) {
  static const kc_index big[2] = {64, 64}, wide[2] = {1, 5000},
                        odd[2] = {3, 333};
  md_count(mode, 200, 300, big);
  if (full) {
    md_count(mode, 200, 300, wide);
    md_count(mode, 157, 1001, odd);
    md_count(mode, kc_test_large(3000), 2000, NULL);
  }
  const kc_index b[3] = {0, 0, 0},
                 e[3] = {kc_test_large(300), full ? 200 : 20, 100};
  int64_t want = 0, got = -1;
  for (kc_index i = 0; i < e[0]; i++)
    for (kc_index j = 0; j < e[1]; j++)
      for (kc_index k = 0; k < e[2]; k++)
        want += (i * 3 + j) * 5 + k;
  cm_md f = {NULL, 0};
  kc_policy p = kc_mdrange(3, b, e, NULL);
  KC_CHECK_OK(kc_parallel_reduce("md sum", KC_TEST_KERNEL(cm_md_sum), &p, &f,
                                 sizeof f, &got));
  KC_CHECK_EQ_INT(got, want);
}

int main(void) {
  static const char *const modes[] = {"auto", "param", "constant", "global"};
  for (int m = 0; m < 4; m++) {
    const int full = m == 0;
    setenv("KC_CUDA_LAUNCH", modes[m], 1);
    kc_test_init_backend();
    info = kc_test_info();
    dout = kc_test_dalloc(OUT_MAX * sizeof(int64_t), "out");
    dmeta = kc_test_dalloc(8 * sizeof(int64_t), "meta");
    scratch_cases(modes[m], full);
    barrier_case(modes[m], 256, 1);
    if (full) {
      barrier_case(modes[m], 32, 8);
      barrier_case(modes[m], KC_AUTO, 1);
      thread_parts(modes[m], 1);
      thread_parts(modes[m], 4);
      shape_errors();
      league_hash(modes[m], 64, 2, 5);
      league_hash(modes[m], 3, 8, kc_test_large(10007));
      nested_hash(modes[m], 7, 2);
    }
    league_hash(modes[m], KC_AUTO, 1, kc_test_large(10007));
    nested_hash(modes[m], 64, 8);
    md_cases(modes[m], full);
    KC_CHECK_OK(kc_free(dout));
    KC_CHECK_OK(kc_free(dmeta));
    KC_CHECK_OK(kc_finalize());
  }
  return kc_test_done();
}
