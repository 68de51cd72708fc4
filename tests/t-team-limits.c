/* Host teams at the edges a review of teams and scratch found (2026-11-27):
 *  - an OpenMP runtime that grants fewer threads than asked (the program
 *    set omp_set_dynamic(1)): a team could not form, its leader waited
 *    100 ms and ran alone, and every later launch waited the 100 ms again
 *    (20 launches: 2.0 s).  Now the first miss makes that parallel() run
 *    teams of one thread until the last kc_finalize;
 *  - a league smaller than the teams the threads make: every team's leader
 *    got the level-1 scratch, so a league of 1 asking for 1 GB on 16
 *    threads needed 16 GB (KC_ENOMEM under an address-space limit).
 * Results are checked in both.  Each case runs in a process of its own. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <kc/kernel.h>

#include "kc-isolate.h"
#include "kc-test.h"
#include "kernels/teamthreads.h"

#ifdef _OPENMP
#include <omp.h>
#endif

KC_KERNEL_DECLARE(ktt_handle);

enum { LEAGUE = 3, LAUNCHES = 20 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void start(const char *backend, const char *threads) {
  setenv("KC_BACKEND", backend, 1);
  setenv("KC_NUM_THREADS", threads, 1);
  int rc = kc_init();
  if (rc == KC_ENOBACKEND || rc == KC_EPLUGIN || rc == KC_ENODEV)
    KC_SKIP("backend %s: %s", backend, kc_last_error());
  KC_REQUIRE_OK(rc);
}

/* One launch of ktt_handle over `league` teams; every team thread adds
 * size * 1000 + rank + 1 to its cell: checks that each team ran once. */
static void launch(kc_policy *p, kc_index league, int64_t *meta, int64_t *bad) {
  memset(meta, 0, (size_t)league * KTT_MAXT * sizeof *meta);
  ktt_functor f = {NULL, meta, bad, 0};
  KC_CHECK_OK(
      kc_parallel_for("teams", KC_TEST_KERNEL(ktt_handle), p, &f, sizeof f));
  KC_CHECK_OK(kc_fence());
  for (kc_index lr = 0; lr < league; lr++) {
    int64_t sz = meta[lr * KTT_MAXT] / 1000, sum = 0, want = 0;
    for (int rk = 0; rk < KTT_MAXT; rk++)
      sum += meta[lr * KTT_MAXT + rk];
    for (int64_t rk = 0; rk < sz; rk++)
      want += sz * 1000 + rk + 1;
    KC_CHECK(sz >= 1 && sum == want);
  }
}

static int dynamic_openmp(void *arg) {
  (void)arg;
#ifndef _OPENMP
  KC_SKIP("built without OpenMP");
#else
  start("openmp", "8");
  int64_t *meta = calloc(LEAGUE * KTT_MAXT, sizeof *meta), bad = 0;
  KC_REQUIRE(meta != NULL);
  kc_policy p = kc_team_policy(LEAGUE, KC_AUTO, 1);
  /* The census of the threads is taken while the runtime grants them all;
   * then the program lets it grant fewer. */
  launch(&p, LEAGUE, meta, &bad);
  omp_set_dynamic(1);
  launch(&p, LEAGUE, meta, &bad); /* may wait once */
  double t0 = now();
  for (int i = 0; i < LAUNCHES; i++)
    launch(&p, LEAGUE, meta, &bad);
  double took = now() - t0;
  KC_INFO("%d team launches after omp_set_dynamic(1): %.3f s", LAUNCHES, took);
  KC_CHECK(took < 1.0); /* 100 ms a launch before: 2 s */
  KC_CHECK_EQ_INT(bad, 0);
  free(meta);
  KC_CHECK_OK(kc_finalize());
  return kc_test_done();
#endif
}

static int small_league_scratch(void *arg) {
  const char *backend = arg;
  struct rlimit lim = {(rlim_t)6 << 30, (rlim_t)6 << 30};
  if (setrlimit(RLIMIT_AS, &lim) != 0)
    KC_SKIP("setrlimit(RLIMIT_AS) refused");
  start(backend, "16");
  int64_t *meta = calloc(KTT_MAXT, sizeof *meta), bad = 0;
  KC_REQUIRE(meta != NULL);
  kc_policy p = kc_team_policy(1, 1, 1);
  p.scratch_per_team[1] = (size_t)1 << 30;
  launch(&p, 1, meta, &bad);
  KC_CHECK_EQ_INT(bad, 0);
  free(meta);
  KC_CHECK_OK(kc_finalize());
  return kc_test_done();
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  int a = KC_ISOLATE(dynamic_openmp, NULL, 60);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  KC_INFO("1 GB of scratch under 6 GB of address space: not run under a "
          "sanitizer, which maps more than that itself");
  int b = KC_TEST_SKIP, c = KC_TEST_SKIP;
#else
  int b =
      kc_isolate("small league, threads", small_league_scratch, "threads", 60);
  int c =
      kc_isolate("small league, openmp", small_league_scratch, "openmp", 60);
#endif
  if (a == KC_TEST_SKIP && b == KC_TEST_SKIP && c == KC_TEST_SKIP)
    return KC_TEST_SKIP;
  return kc_test_done();
}
