/* Conformance: team policies (kc_team_policy) and the team kernels of
 * kernels/team.kc.c.
 *
 * For several team sizes (KC_AUTO, 1, 2, 7, 32 ...) and vector lengths:
 * the handle (league rank and size, team size, scratch sizes and
 * alignment, each team run once), scratch at both levels per team and per
 * thread from the policy plus a scratch function, a barrier between
 * threads writing and reading each other's scratch, nested team-thread /
 * thread-vector / team-vector reductions (sum, min, max, prod, custom) and
 * scans, broadcast, and league-level reductions (sum, max, min, prod,
 * custom).  Then the limits: the largest level-0 scratch the backend
 * reports (kc_info.dev.shared_memory_per_block_optin) and one byte more
 * (KC_ESCRATCH), level-1 and overflowing requests, a scratch function's
 * bytes; empty leagues; and the argument errors. */
#include <kc/kernel.h>

#include "kc-test.h"
#include "kernels/functors.h"
#include "kernels/model.h"

KC_KERNEL_DECLARE(kt_team_meta);
KC_KERNEL_DECLARE(kt_team_barrier);
KC_KERNEL_DECLARE(kt_team_matvec);
KC_KERNEL_DECLARE(kt_team_matvec3);
KC_KERNEL_DECLARE(kt_team_nested);
KC_KERNEL_DECLARE(kt_team_scan);
KC_KERNEL_DECLARE(kt_vector_scan);
KC_KERNEL_DECLARE(kt_team_bcast);
KC_KERNEL_DECLARE(kt_team_rowsum);
KC_KERNEL_DECLARE(kt_team_count);
KC_KERNEL_DECLARE(kt_team_max);
KC_KERNEL_DECLARE(kt_team_min);
KC_KERNEL_DECLARE(kt_team_prod);
KC_KERNEL_DECLARE(kt_team_minmax);
KC_KERNEL_DECLARE(kt_fill);
KC_KERNEL_DECLARE(kt_team_edges);

enum { ROWS = 39, N = 45 }; /* ROWS: a multiple of 3 (matvec3, vector scan) */

static double ha[ROWS * N], hx[N];
static double *da, *dx, *dy;
static int64_t *dout, *dmeta;
static kc_info info;

static double a_of(int row, int j) { return (row * 7 + j * 3) % 23 - 5; }

static kt_team functor(void) {
  kt_team f;
  memset(&f, 0, sizeof f);
  f.a = da;
  f.x = dx;
  f.y = dy;
  f.out = dout;
  f.meta = dmeta;
  f.n = N;
  return f;
}

static void clear(void) {
  KC_CHECK_OK(kc_memset(dy, 0, ROWS * sizeof(double)));
  KC_CHECK_OK(kc_memset(dout, 0, ROWS * N * sizeof(int64_t)));
  KC_CHECK_OK(kc_memset(dmeta, 0, ROWS * 8 * sizeof(int64_t)));
}

static void fetch(int64_t *out, int64_t *meta, double *y) {
  KC_CHECK_OK(kc_fence());
  if (out)
    KC_CHECK_OK(kc_memcpy(out, dout, ROWS * N * sizeof(int64_t)));
  if (meta)
    KC_CHECK_OK(kc_memcpy(meta, dmeta, ROWS * 8 * sizeof(int64_t)));
  if (y)
    KC_CHECK_OK(kc_memcpy(y, dy, ROWS * sizeof(double)));
}

/* One configuration of team size and vector length. */
static void config(int ts, int vl) {
  static int64_t out[ROWS * N], meta[ROWS * 8];
  static double y[ROWS];
  char what[64];
  snprintf(what, sizeof what, "team size %d, vector length %d", ts, vl);
  KC_INFO("%s", what);
  kt_team f = functor();
  kc_policy p = kc_team_policy(ROWS, ts, vl);

  /* The handle and scratch sizes: policy plus scratch function. */
  clear();
  f.per_team[0] = 24;
  f.per_team[1] = 100;
  f.per_thread[0] = 8;
  f.per_thread[1] = 40;
  f.extra[0] = 40;
  f.extra[1] = 8;
  kc_policy ps = p;
  KC_CHECK_OK(kc_policy_set_scratch(&ps, 0, 24, 8));
  KC_CHECK_OK(kc_policy_set_scratch(&ps, 1, 100, 40));
  KC_CHECK_OK(
      kc_parallel_for("meta", KC_TEST_KERNEL(kt_team_meta), &ps, &f, sizeof f));
  fetch(NULL, meta, NULL);
  for (int r = 0; r < ROWS; r++) {
    const int64_t *m = &meta[r * 8];
    if (m[0] != r || m[1] != ROWS || m[4] != 1 || m[5] != 1 || m[6] != 0 ||
        m[7] != 1 || m[2] < 1 || m[3] < 1 ||
        m[2] * m[3] > info.dev.max_threads_per_block ||
        (info.device < 0 && (m[3] != 1 || m[2] > info.num_threads ||
                             (ts != KC_AUTO && m[2] > ts))) ||
        (info.device >= 0 && ts != KC_AUTO && m[2] != ts)) {
      KC_FAIL("%s: team %d saw rank %lld, league %lld, team size %lld, "
              "vector length %lld, sizes ok %lld/%lld, scratch problems "
              "%lld, ran %lld times",
              what, r, (long long)m[0], (long long)m[1], (long long)m[2],
              (long long)m[3], (long long)m[4], (long long)m[5],
              (long long)m[6], (long long)m[7]);
      break;
    }
  }
  f.extra[0] = f.extra[1] = 0;
  memset(f.per_team, 0, sizeof f.per_team);
  memset(f.per_thread, 0, sizeof f.per_thread);

  /* Barrier: threads read each other's scratch. */
  clear();
  kc_policy pb = p;
  KC_CHECK_OK(kc_policy_set_scratch(&pb, 0, N * sizeof(int64_t), 0));
  KC_CHECK_OK(kc_policy_set_scratch(&pb, 1, N * sizeof(int64_t), 0));
  KC_CHECK_OK(kc_parallel_for("barrier", KC_TEST_KERNEL(kt_team_barrier), &pb,
                              &f, sizeof f));
  fetch(out, NULL, NULL);
  for (int r = 0, bad = 0; r < ROWS && bad < 3; r++)
    for (int j = 0; j < N && bad < 3; j++) {
      int64_t want = r * 1000 + (N - 1 - j) + r * 100000 + ((j + 3) % N) * 3;
      if (out[r * N + j] != want) {
        KC_FAIL("%s: barrier: out[%d][%d] = %lld, want %lld", what, r, j,
                (long long)out[r * N + j], (long long)want);
        bad++;
      }
    }

  /* Matrix-vector products, two ways. */
  double want_y[ROWS];
  for (int r = 0; r < ROWS; r++) {
    want_y[r] = 0;
    for (int j = 0; j < N; j++)
      want_y[r] += ha[r * N + j] * hx[j];
  }
  clear();
  KC_CHECK_OK(kc_parallel_for("matvec", KC_TEST_KERNEL(kt_team_matvec), &p, &f,
                              sizeof f));
  fetch(NULL, NULL, y);
  for (int r = 0; r < ROWS; r++)
    KC_CHECK_EQ_DBL(y[r], want_y[r], 0);
  clear();
  kc_policy p3 = kc_team_policy(ROWS / 3, ts, vl);
  KC_CHECK_OK(kc_parallel_for("matvec3", KC_TEST_KERNEL(kt_team_matvec3), &p3,
                              &f, sizeof f));
  fetch(NULL, NULL, y);
  for (int r = 0; r < ROWS; r++)
    KC_CHECK_EQ_DBL(y[r], want_y[r], 0);

  /* Nested min / max / prod / custom. */
  clear();
  KC_CHECK_OK(kc_parallel_for("nested", KC_TEST_KERNEL(kt_team_nested), &p, &f,
                              sizeof f));
  fetch(NULL, meta, NULL);
  for (int r = 0; r < ROWS; r++) {
    int64_t mn = INT64_MAX, mx = INT64_MIN, prod = 1;
    for (int j = 0; j < N; j++) {
      int64_t v = (int64_t)ha[r * N + j];
      mn = v < mn ? v : mn;
      mx = v > mx ? v : mx;
      if (j < 20)
        prod *= v % 3 == 0 ? 2 : 1;
    }
    const int64_t *m = &meta[r * 8];
    if (m[0] != mn || m[1] != mx || m[2] != mn || m[3] != mx || m[4] != prod ||
        m[5] != mn * 1000 + mx) {
      KC_FAIL("%s: nested reductions of row %d: %lld %lld %lld %lld %lld "
              "%lld, want min %lld max %lld prod %lld",
              what, r, (long long)m[0], (long long)m[1], (long long)m[2],
              (long long)m[3], (long long)m[4], (long long)m[5], (long long)mn,
              (long long)mx, (long long)prod);
      break;
    }
  }

  /* Scans: team-thread, then thread-vector. */
  for (int form = 0; form < 2; form++) {
    clear();
    if (form == 0)
      KC_CHECK_OK(kc_parallel_for("scan", KC_TEST_KERNEL(kt_team_scan), &p, &f,
                                  sizeof f));
    else
      KC_CHECK_OK(kc_parallel_for("vscan", KC_TEST_KERNEL(kt_vector_scan), &p3,
                                  &f, sizeof f));
    fetch(out, meta, NULL);
    for (int r = 0, bad = 0; r < ROWS && bad < 3; r++) {
      int64_t pre = 0;
      for (int j = 0; j < N; j++) {
        if (out[r * N + j] != pre && bad++ < 3)
          KC_FAIL("%s: %s scan row %d index %d: %lld, want %lld", what,
                  form ? "thread-vector" : "team-thread", r, j,
                  (long long)out[r * N + j], (long long)pre);
        pre += (int64_t)ha[r * N + j];
      }
      if (meta[r * 8 + form] != pre && bad++ < 3)
        KC_FAIL("%s: %s scan row %d total %lld, want %lld", what,
                form ? "thread-vector" : "team-thread", r,
                (long long)meta[r * 8 + form], (long long)pre);
    }
  }

  /* Broadcast. */
  clear();
  KC_CHECK_OK(kc_parallel_for("bcast", KC_TEST_KERNEL(kt_team_bcast), &p, &f,
                              sizeof f));
  fetch(out, NULL, NULL);
  for (int r = 0, bad = 0; r < ROWS && bad < 3; r++)
    for (int j = 0; j < N && bad < 3; j++)
      if (out[r * N + j] != 5 * r + j) {
        KC_FAIL("%s: broadcast out[%d][%d] = %lld", what, r, j,
                (long long)out[r * N + j]);
        bad++;
      }

  /* League-level reductions. */
  int64_t sum = 0, prod = 1, got64;
  double mx = -1e300, gotd;
  int32_t mn = INT32_MAX, got32;
  kt_minmax mm = {1e300, -1e300}, gotmm;
  for (int r = 0; r < ROWS; r++) {
    prod *= r % 4 == 1 ? 3 : 1;
    for (int j = 0; j < N; j++) {
      double v = ha[r * N + j];
      sum += (int64_t)v;
      mx = v > mx ? v : mx;
      mn = (int32_t)v - r < mn ? (int32_t)v - r : mn;
      mm.min = v + r < mm.min ? v + r : mm.min;
      mm.max = v + r > mm.max ? v + r : mm.max;
    }
  }
  KC_CHECK_OK(kc_parallel_reduce("rowsum", KC_TEST_KERNEL(kt_team_rowsum), &p,
                                 &f, sizeof f, &got64));
  KC_CHECK_EQ_INT(got64, sum);
  KC_CHECK_OK(kc_parallel_reduce("count", KC_TEST_KERNEL(kt_team_count), &p, &f,
                                 sizeof f, &got64));
  KC_CHECK_EQ_INT(got64, ROWS * N);
  KC_CHECK_OK(kc_parallel_reduce("max", KC_TEST_KERNEL(kt_team_max), &p, &f,
                                 sizeof f, &gotd));
  KC_CHECK_EQ_DBL(gotd, mx, 0);
  KC_CHECK_OK(kc_parallel_reduce("min", KC_TEST_KERNEL(kt_team_min), &p, &f,
                                 sizeof f, &got32));
  KC_CHECK_EQ_INT(got32, mn);
  KC_CHECK_OK(kc_parallel_reduce("prod", KC_TEST_KERNEL(kt_team_prod), &p, &f,
                                 sizeof f, &got64));
  KC_CHECK_EQ_INT(got64, prod);
  KC_CHECK_OK(kc_parallel_reduce("minmax", KC_TEST_KERNEL(kt_team_minmax), &p,
                                 &f, sizeof f, &gotmm));
  KC_CHECK_EQ_DBL(gotmm.min, mm.min, 0);
  KC_CHECK_EQ_DBL(gotmm.max, mm.max, 0);

  /* The same reduction into a kc allocation, dynamic schedule. */
  int64_t *dres;
  KC_REQUIRE_OK(
      kc_malloc((void **)&dres, sizeof *dres, KC_SPACE_DEVICE, "team result"));
  kc_policy pd = p;
  pd.schedule = KC_SCHEDULE_DYNAMIC;
  pd.chunk = 2;
  KC_CHECK_OK(kc_parallel_reduce("rowsum", KC_TEST_KERNEL(kt_team_rowsum), &pd,
                                 &f, sizeof f, dres));
  KC_CHECK_OK(kc_fence());
  KC_CHECK_OK(kc_memcpy(&got64, dres, sizeof got64));
  KC_CHECK_EQ_INT(got64, sum);
  kc_free(dres);
}

/* A scratch function set through the public API. */
static size_t extra_fn(const void *functor, int level, int team_size) {
  (void)team_size;
  return (size_t)((const kt_team *)functor)->extra[level];
}

/* A league of about 5 * 10^4 ranks, more than the blocks a GPU holds at
 * once (cuda launches a block per rank for a team for without level-1
 * scratch): each rank runs exactly once and sees its own rank and the
 * league's size. */
static void large_league(void) {
  const kc_index league = kc_test_large(50001);
  const size_t bytes = (size_t)league * 8 * sizeof(int64_t);
  int64_t *dm = kc_test_dalloc(bytes, "meta (large league)");
  KC_CHECK_OK(kc_memset(dm, 0, bytes));
  kt_team f = functor();
  f.meta = dm;
  kc_policy p = kc_team_policy(league, KC_AUTO, 1);
  KC_CHECK_OK(kc_parallel_for("large league", KC_TEST_KERNEL(kt_team_meta), &p,
                              &f, sizeof f));
  int64_t *m = kc_test_download(dm, bytes);
  kc_index bad = 0, first = -1;
  for (kc_index r = 0; r < league; r++) {
    const int64_t *x = &m[r * 8];
    if ((x[0] != r || x[1] != league || x[4] != 1 || x[5] != 1 || x[6] != 0 ||
         x[7] != 1) &&
        bad++ == 0)
      first = r;
  }
  if (bad)
    KC_FAIL("a league of %lld: %lld ranks wrong, first %lld (rank %lld, "
            "league %lld, ran %lld times)",
            (long long)league, (long long)bad, (long long)first,
            (long long)m[first * 8], (long long)m[first * 8 + 1],
            (long long)m[first * 8 + 7]);
  free(m);
  KC_CHECK_OK(kc_free(dm));
  KC_INFO("a league of %lld ranks done", (long long)league);
}

static void limits(void) {
  static int64_t meta[ROWS * 8];
  kt_team f = functor();
  kc_kernel *k = KC_TEST_KERNEL(kt_team_meta);
  const size_t l0 = info.dev.shared_memory_per_block_optin;
  KC_INFO("level-0 scratch limit: %zu bytes", l0);
  KC_CHECK(l0 > 0);

  /* The largest level-0 request, per team, teams of one thread. */
  clear();
  kc_policy p = kc_team_policy(3, 1, 1);
  KC_CHECK_OK(kc_policy_set_scratch(&p, 0, l0, 0));
  f.per_team[0] = (int64_t)l0;
  KC_CHECK_OK(kc_parallel_for("max scratch", k, &p, &f, sizeof f));
  fetch(NULL, meta, NULL);
  for (int r = 0; r < 3; r++)
    if (meta[r * 8 + 4] != 1 || meta[r * 8 + 6] != 0 || meta[r * 8 + 7] != 1)
      KC_FAIL("largest level-0 scratch: team %d: sizes ok %lld, problems "
              "%lld, runs %lld",
              r, (long long)meta[r * 8 + 4], (long long)meta[r * 8 + 6],
              (long long)meta[r * 8 + 7]);
  /* One byte more, by the policy or by the scratch function. */
  KC_CHECK_OK(kc_policy_set_scratch(&p, 0, l0 + 1, 0));
  KC_CHECK_ERR(kc_parallel_for("scratch+1", k, &p, &f, sizeof f), KC_ESCRATCH);
  KC_CHECK_CONTAINS(kc_last_error(), "kt_team_meta");
  KC_CHECK_OK(kc_policy_set_scratch(&p, 0, l0, 0));
  f.extra[0] = 1;
  KC_CHECK_ERR(kc_parallel_for("scratch fn +1", k, &p, &f, sizeof f),
               KC_ESCRATCH);
  /* A function whose bytes overflow the sum: the message names them (it
   * named only the policy's numbers). */
  f.extra[0] = -1; /* SIZE_MAX bytes from the function */
  KC_CHECK_ERR(kc_parallel_for("scratch fn max", k, &p, &f, sizeof f),
               KC_ESCRATCH);
  KC_CHECK_CONTAINS(kc_last_error(), "18446744073709551615 more per team "
                                     "from its scratch function");
  f.extra[0] = 0;
  f.per_team[0] = 0;
  /* Per thread, and at level 1: requests no memory can hold. */
  kc_policy q = kc_team_policy(3, KC_AUTO, 1);
  KC_CHECK_OK(kc_policy_set_scratch(&q, 0, 0, l0 + 1));
  KC_CHECK_ERR(kc_parallel_for("thread scratch", k, &q, &f, sizeof f),
               KC_ESCRATCH);
  kc_policy q1 = kc_team_policy(3, KC_AUTO, 1);
  KC_CHECK_OK(kc_policy_set_scratch(&q1, 1, SIZE_MAX / 2, 0));
  KC_CHECK_ERR(kc_parallel_for("level 1", k, &q1, &f, sizeof f), KC_ESCRATCH);
  KC_CHECK_OK(kc_policy_set_scratch(&q1, 1, SIZE_MAX - 8, SIZE_MAX / 3));
  KC_CHECK_ERR(kc_parallel_for("overflow", k, &q1, &f, sizeof f), KC_ESCRATCH);
  /* A moderate level-1 request works (4 MiB per team). */
  clear();
  kc_policy big = kc_team_policy(5, KC_AUTO, 1);
  KC_CHECK_OK(kc_policy_set_scratch(&big, 1, (size_t)4 << 20, 64));
  f.per_team[1] = (int64_t)4 << 20;
  f.per_thread[1] = 64;
  KC_CHECK_OK(kc_parallel_for("big level 1", k, &big, &f, sizeof f));
  fetch(NULL, meta, NULL);
  for (int r = 0; r < 5; r++)
    if (meta[r * 8 + 4] != 1 || meta[r * 8 + 5] != 1 || meta[r * 8 + 6] != 0 ||
        meta[r * 8 + 7] != 1)
      KC_FAIL("4 MiB level-1 scratch: team %d: sizes ok %lld/%lld, "
              "problems %lld, runs %lld",
              r, (long long)meta[r * 8 + 4], (long long)meta[r * 8 + 5],
              (long long)meta[r * 8 + 6], (long long)meta[r * 8 + 7]);
  f.per_team[1] = f.per_thread[1] = 0;

  /* The scratch function: removed, its bytes are missing; set again
   * through the API, they are back. */
  clear();
  kc_policy pf = kc_team_policy(4, KC_AUTO, 1);
  f.extra[0] = 48;
  KC_CHECK_OK(kc_kernel_set_team_scratch(k, NULL));
  KC_CHECK_OK(kc_parallel_for("no fn", k, &pf, &f, sizeof f));
  fetch(NULL, meta, NULL);
  KC_CHECK_EQ_INT(meta[4], 0);
  clear();
  KC_CHECK_OK(kc_kernel_set_team_scratch(k, extra_fn));
  KC_CHECK_OK(kc_parallel_for("api fn", k, &pf, &f, sizeof f));
  fetch(NULL, meta, NULL);
  KC_CHECK_EQ_INT(meta[4], 1);
  KC_CHECK_EQ_INT(meta[6], 0);
}

/* Nested ranges at INT64_MAX and INT64_MIN run exactly their indices
 * (kt_team_edges): sums of the distances from the end, counts of empty
 * ranges at INT64_MAX (0). */
static void edges(int ts, int vl) {
  static int64_t meta[ROWS * 8], out[ROWS * N];
  static const int64_t want[8] = {15, 0, 6, 6, 3, 28, 0, 15};
  kt_team f = functor();
  clear();
  kc_policy p = kc_team_policy(ROWS, ts, vl);
  KC_CHECK_OK(kc_parallel_for("edges", KC_TEST_KERNEL(kt_team_edges), &p, &f,
                              sizeof f));
  fetch(out, meta, NULL);
  for (int r = 0, bad = 0; r < ROWS && bad < 3; r++) {
    /* out: the scan's total and its value before INT64_MAX - 1, the
     * custom reduction's min and max */
    const int64_t *o = &out[r * N];
    if (o[0] != 45 || o[2] != 44 || o[1] != 40100) {
      KC_FAIL("edges (team size %d, vector length %d): team %d: scan total "
              "%lld (45), prefix %lld (44), min/max %lld (40100)",
              ts, vl, r, (long long)o[0], (long long)o[2], (long long)o[1]);
      bad++;
    }
    for (int k = 0; k < 8; k++)
      if (meta[r * 8 + k] != want[k]) {
        KC_FAIL("edges (team size %d, vector length %d): team %d: meta[%d] = "
                "%lld, want %lld",
                ts, vl, r, k, (long long)meta[r * 8 + k], (long long)want[k]);
        bad++;
      }
  }
}

static void empty_and_errors(void) {
  kt_team f = functor();
  /* An empty league runs nothing; a reduction gives the identity. */
  clear();
  kc_policy e = kc_team_policy(0, KC_AUTO, 1);
  KC_CHECK_OK(kc_parallel_for("empty", KC_TEST_KERNEL(kt_team_bcast), &e, &f,
                              sizeof f));
  int64_t s = 99, pr = 99;
  double mx = 0;
  KC_CHECK_OK(kc_parallel_reduce("empty", KC_TEST_KERNEL(kt_team_rowsum), &e,
                                 &f, sizeof f, &s));
  KC_CHECK_EQ_INT(s, 0);
  KC_CHECK_OK(kc_parallel_reduce("empty", KC_TEST_KERNEL(kt_team_prod), &e, &f,
                                 sizeof f, &pr));
  KC_CHECK_EQ_INT(pr, 1);
  KC_CHECK_OK(kc_parallel_reduce("empty", KC_TEST_KERNEL(kt_team_max), &e, &f,
                                 sizeof f, &mx));
  KC_CHECK(mx < -1e300);

  kc_kernel *k = KC_TEST_KERNEL(kt_team_bcast);
  kc_policy r = kc_range(0, 10);
  KC_CHECK_ERR(kc_parallel_for("range", k, &r, &f, sizeof f), KC_EINVAL);
  kc_policy bad = kc_team_policy(-1, KC_AUTO, 1);
  KC_CHECK_ERR(kc_parallel_for("league", k, &bad, &f, sizeof f), KC_ERANGE);
  bad = kc_team_policy(4, 0, 1);
  KC_CHECK_ERR(kc_parallel_for("team size", k, &bad, &f, sizeof f), KC_EINVAL);
  bad = kc_team_policy(4, 1, 0);
  KC_CHECK_ERR(kc_parallel_for("vector", k, &bad, &f, sizeof f), KC_EINVAL);
  KC_CHECK_ERR(kc_policy_set_scratch(&bad, 2, 1, 1), KC_EINVAL);
  KC_CHECK_ERR(kc_policy_set_scratch(NULL, 0, 1, 1), KC_EINVAL);
  KC_CHECK_ERR(kc_kernel_set_team_scratch(KC_TEST_KERNEL(kt_fill), extra_fn),
               KC_EINVAL);
  KC_CHECK_ERR(kc_kernel_set_team_scratch(NULL, extra_fn), KC_EINVAL);
  /* A team kernel through the wrong call. */
  int64_t out;
  kc_policy t = kc_team_policy(4, KC_AUTO, 1);
  KC_CHECK_ERR(kc_parallel_reduce("wrong call", k, &t, &f, sizeof f, &out),
               KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_for("wrong call", KC_TEST_KERNEL(kt_team_rowsum), &t,
                               &f, sizeof f),
               KC_EINVAL);
}

int main(void) {
  kc_test_init_backend();
  info = kc_test_info();
  for (int r = 0; r < ROWS; r++)
    for (int j = 0; j < N; j++)
      ha[r * N + j] = a_of(r, j);
  for (int j = 0; j < N; j++)
    hx[j] = j % 5 - 1;
  KC_REQUIRE_OK(kc_malloc((void **)&da, sizeof ha, KC_SPACE_DEVICE, "a"));
  KC_REQUIRE_OK(kc_malloc((void **)&dx, sizeof hx, KC_SPACE_DEVICE, "x"));
  KC_REQUIRE_OK(
      kc_malloc((void **)&dy, ROWS * sizeof(double), KC_SPACE_DEVICE, "y"));
  KC_REQUIRE_OK(kc_malloc((void **)&dout, ROWS * N * sizeof(int64_t),
                          KC_SPACE_DEVICE, "out"));
  KC_REQUIRE_OK(kc_malloc((void **)&dmeta, ROWS * 8 * sizeof(int64_t),
                          KC_SPACE_DEVICE, "meta"));
  KC_CHECK_OK(kc_memcpy(da, ha, sizeof ha));
  KC_CHECK_OK(kc_memcpy(dx, hx, sizeof hx));

  static const int configs[][2] = {{KC_AUTO, 1}, {1, 1},      {2, 1},
                                   {7, 1},       {4, 8},      {32, 1},
                                   {16, 4},      {KC_AUTO, 8}};
  for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++)
    config(configs[c][0], configs[c][1]);
  edges(KC_AUTO, 1);
  edges(4, 8);
  edges(32, 1);
  limits();
  large_league();
  empty_and_errors();

  kc_free(da);
  kc_free(dx);
  kc_free(dy);
  kc_free(dout);
  kc_free(dmeta);
  return kc_test_finish();
}
