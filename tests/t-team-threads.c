/* Conformance: teams of several threads (kernels/teamthreads.kc.c).
 *
 * Leagues smaller and larger than the thread count, with team sizes
 * KC_AUTO, 1, 2 and 3, static and dynamic schedules: every rank of every
 * team runs once and the team size is the same for all teams; barriers
 * order scratch writes before other threads' reads; thread scratch stays
 * private; team-wide reductions (built-in and custom, the latter in index
 * order), scans and broadcast give every thread the team's value; a
 * league reduction counts each team's KC_TEAM_SINGLE once and a custom one
 * joins teams in rank order.  On the threads and openmp backends a league
 * of one team with KC_AUTO must run on all the backend's threads (and a
 * team size of 1 on one), and per-thread scratch too large for a team
 * of all of them gives teams of one thread, not KC_ESCRATCH.  The backend
 * runs 8 threads unless KC_NUM_THREADS says otherwise: more than this
 * machine's CPUs, so the barriers must give way to the threads they wait
 * for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kc/backend.h>
#include <kc/kernel.h>

#include "kc-test.h"
#include "kernels/teamthreads.h"

KC_KERNEL_DECLARE(ktt_handle);
KC_KERNEL_DECLARE(ktt_barrier);
KC_KERNEL_DECLARE(ktt_nested);
KC_KERNEL_DECLARE(ktt_count);
KC_KERNEL_DECLARE(ktt_order);

enum { N = 37, LEAGUE_MAX = 40 };

static int64_t *dout, *dmeta, *dbad;
static int64_t hout[LEAGUE_MAX * N];
static int64_t hmeta[LEAGUE_MAX * KTT_MAXT];
static kc_info info;
static int host_threads; /* threads or openmp: the backend's thread count */

static ktt_functor functor(void) {
  ktt_functor f = {dout, dmeta, dbad, N};
  return f;
}

static kc_policy policy(kc_index league, int team_size, int dynamic) {
  kc_policy p = kc_team_policy(league, team_size, 1);
  if (dynamic) {
    p.schedule = KC_SCHEDULE_DYNAMIC;
    p.chunk = 1;
  }
  return p;
}

static void clear(void) {
  KC_CHECK_OK(kc_memset(dout, 0, sizeof hout));
  KC_CHECK_OK(kc_memset(dmeta, 0, sizeof hmeta));
  KC_CHECK_OK(kc_memset(dbad, 0, sizeof(int64_t)));
}

static int64_t bad(void) {
  int64_t b = -1;
  KC_CHECK_OK(kc_fence());
  KC_CHECK_OK(kc_memcpy(&b, dbad, sizeof b));
  return b;
}

/* Each rank of each team once, one team size for all; returns it. */
static int check_handle(kc_index league, int team_size, int dynamic) {
  ktt_functor f = functor();
  kc_policy p = policy(league, team_size, dynamic);
  clear();
  KC_CHECK_OK(
      kc_parallel_for("handle", KC_KERNEL(ktt_handle), &p, &f, sizeof f));
  KC_CHECK_EQ_INT(bad(), 0);
  KC_CHECK_OK(kc_memcpy(hmeta, dmeta, sizeof hmeta));
  const int size = (int)(hmeta[0] / 1000);
  KC_CHECK_GE_INT(size, 1);
  if (team_size != KC_AUTO)
    KC_CHECK_LE_INT(size, team_size);
  for (kc_index lr = 0; lr < league; lr++)
    for (int rk = 0; rk < KTT_MAXT; rk++) {
      const int64_t want = rk < size ? (int64_t)size * 1000 + rk + 1 : 0;
      if (hmeta[lr * KTT_MAXT + rk] != want) {
        KC_CHECK_EQ_INT(hmeta[lr * KTT_MAXT + rk], want);
        return size;
      }
    }
  return size;
}

static void check_barrier(kc_index league, int team_size, int dynamic) {
  ktt_functor f = functor();
  kc_policy p = policy(league, team_size, dynamic);
  KC_CHECK_OK(
      kc_policy_set_scratch(&p, 0, N * sizeof(int64_t), 8 * sizeof(int64_t)));
  clear();
  KC_CHECK_OK(
      kc_parallel_for("barrier", KC_KERNEL(ktt_barrier), &p, &f, sizeof f));
  KC_CHECK_EQ_INT(bad(), 0);
  KC_CHECK_OK(kc_memcpy(hout, dout, sizeof hout));
  for (kc_index k = 0; k < league * N; k++)
    if (hout[k] != 1) {
      KC_CHECK_EQ_INT(hout[k], 1); /* each index of each team once */
      break;
    }
}

static void check_nested(kc_index league, int team_size, int dynamic) {
  ktt_functor f = functor();
  kc_policy p = policy(league, team_size, dynamic);
  clear();
  KC_CHECK_OK(
      kc_parallel_for("nested", KC_KERNEL(ktt_nested), &p, &f, sizeof f));
  KC_CHECK_EQ_INT(bad(), 0);
  KC_CHECK_OK(kc_memcpy(hout, dout, sizeof hout));
  for (kc_index lr = 0; lr < league; lr++)
    for (int64_t i = 0; i < N; i++)
      if (hout[lr * N + i] != i * (i - 1) / 2) {
        KC_CHECK_EQ_INT(hout[lr * N + i], i * (i - 1) / 2); /* the scan */
        return;
      }
}

static void check_reductions(kc_index league, int team_size, int dynamic) {
  ktt_functor f = functor();
  kc_policy p = policy(league, team_size, dynamic);
  int64_t sum = -1;
  KC_CHECK_OK(kc_parallel_reduce("count", KC_KERNEL(ktt_count), &p, &f,
                                 sizeof f, &sum));
  KC_CHECK_EQ_INT(sum, league * (1000 + N * (N - 1) / 2));
  ktt_seq seq = {-2, -2, 0};
  KC_CHECK_OK(kc_parallel_reduce("order", KC_KERNEL(ktt_order), &p, &f,
                                 sizeof f, &seq));
  KC_CHECK_EQ_INT(seq.lo, 0);
  KC_CHECK_EQ_INT(seq.hi, league);
  KC_CHECK_EQ_INT(seq.ok, 1);
}

/* Per-thread scratch that fits one thread's team but not a team of all
 * the threads: host backends run teams of one thread rather than refuse
 * the launch (as they did before teams had threads). */
static void check_big_thread_scratch(void) {
  if (!host_threads)
    return;
  ktt_functor f = functor();
  kc_policy p = policy(1, KC_AUTO, 0);
  KC_CHECK_OK(kc_policy_set_scratch(&p, 0, 0, KC_HOST_SCRATCH0_MAX / 2 + 16));
  clear();
  KC_CHECK_OK(
      kc_parallel_for("handle", KC_KERNEL(ktt_handle), &p, &f, sizeof f));
  KC_CHECK_EQ_INT(bad(), 0);
  KC_CHECK_OK(kc_memcpy(hmeta, dmeta, sizeof hmeta));
  KC_CHECK_EQ_INT(hmeta[0], 1001); /* thread 0 of a team of 1 */
}

static void config(kc_index league, int team_size, int dynamic) {
  printf("league %lld, team size %d, %s schedule\n", (long long)league,
         team_size, dynamic ? "dynamic" : "static");
  const int size = check_handle(league, team_size, dynamic);
  /* One team of the smallest size within 1/8 of all the threads (the
   * rule of doc/kernels.md): all of them up to 8 threads, 15 of 16. */
  if (host_threads > 1 && league == 1 && team_size == KC_AUTO)
    KC_CHECK_EQ_INT(size, (8 * host_threads + 8) / 9);
  if (team_size == 1)
    KC_CHECK_EQ_INT(size, 1);
  check_barrier(league, team_size, dynamic);
  check_nested(league, team_size, dynamic);
  check_reductions(league, team_size, dynamic);
}

int main(void) {
  setenv("KC_NUM_THREADS", "8", 0);
  kc_test_init_backend();
  info = kc_test_info();
  /* An OpenMP thread limit may grant fewer threads than the backend
   * reports; then it keeps teams of one thread, which is right too. */
  if (!strcmp(info.backend, "threads") ||
      (!strcmp(info.backend, "openmp") && !getenv("OMP_THREAD_LIMIT")))
    host_threads = info.num_threads;
  KC_REQUIRE_OK(kc_malloc((void **)&dout, sizeof hout, KC_SPACE_DEVICE, "out"));
  KC_REQUIRE_OK(
      kc_malloc((void **)&dmeta, sizeof hmeta, KC_SPACE_DEVICE, "meta"));
  KC_REQUIRE_OK(
      kc_malloc((void **)&dbad, sizeof(int64_t), KC_SPACE_DEVICE, "bad"));

  static const kc_index leagues[] = {1, 2, 3, 5, LEAGUE_MAX};
  static const int sizes[] = {KC_AUTO, 1, 2, 3};
  for (size_t a = 0; a < sizeof leagues / sizeof leagues[0]; a++)
    for (size_t b = 0; b < sizeof sizes / sizeof sizes[0]; b++)
      for (int dynamic = 0; dynamic < 2; dynamic++)
        config(leagues[a], sizes[b], dynamic);
  check_big_thread_scratch();

  kc_free(dout);
  kc_free(dmeta);
  kc_free(dbad);
  return kc_test_finish();
}
