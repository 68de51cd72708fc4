/* Teams of several threads on a backend that breaks its word: the
 * latecomers test plugin reports a concurrency of 2 and runs its first
 * fork-join (the core's census) on two threads at once, but every later
 * one task after another.  A team of two would wait forever for a
 * follower queued behind its leader; the core must notice that the team
 * cannot form, run it on its leader alone (a team of one thread) and
 * still give every kernel's right answer.  An alarm turns a hang into a
 * failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kc/kernel.h>

#include "kc-test.h"
#include "kernels/teamthreads.h"

KC_KERNEL_DECLARE(ktt_handle);
KC_KERNEL_DECLARE(ktt_barrier);
KC_KERNEL_DECLARE(ktt_nested);
KC_KERNEL_DECLARE(ktt_count);

enum { N = 37, LEAGUE = 2 };

static int64_t out[LEAGUE * N], meta[LEAGUE * KTT_MAXT], bad;

int main(void) {
  alarm(120);
  const char *dir = getenv("KC_TEST_PLUGIN_DIR");
  if (!dir || !*dir)
    KC_SKIP("KC_TEST_PLUGIN_DIR is not set: run through tests/run-backend");
  setenv("KC_PLUGIN_PATH", dir, 1);
  setenv("KC_BACKEND", "latecomers", 1);
  KC_REQUIRE_OK(kc_init());
  KC_REQUIRE(strcmp(kc_backend_name(), "latecomers") == 0);
  ktt_functor f = {out, meta, &bad, N};

  for (kc_index league = 1; league <= LEAGUE; league++) {
    /* Each rank once, on a team of one thread (the team of two never
     * formed). */
    kc_policy p = kc_team_policy(league, KC_AUTO, 1);
    memset(meta, 0, sizeof meta);
    bad = 0;
    KC_CHECK_OK(
        kc_parallel_for("handle", KC_KERNEL(ktt_handle), &p, &f, sizeof f));
    KC_CHECK_EQ_INT(bad, 0);
    for (kc_index lr = 0; lr < league; lr++) {
      KC_CHECK_EQ_INT(meta[lr * KTT_MAXT], 1001);
      KC_CHECK_EQ_INT(meta[lr * KTT_MAXT + 1], 0);
    }

    kc_policy ps = p;
    KC_CHECK_OK(kc_policy_set_scratch(&ps, 0, N * sizeof(int64_t),
                                      8 * sizeof(int64_t)));
    memset(out, 0, sizeof out);
    KC_CHECK_OK(
        kc_parallel_for("barrier", KC_KERNEL(ktt_barrier), &ps, &f, sizeof f));
    KC_CHECK_EQ_INT(bad, 0);
    for (kc_index k = 0; k < league * N; k++)
      KC_CHECK_EQ_INT(out[k], 1);

    KC_CHECK_OK(
        kc_parallel_for("nested", KC_KERNEL(ktt_nested), &p, &f, sizeof f));
    KC_CHECK_EQ_INT(bad, 0);
    KC_CHECK_EQ_INT(out[N - 1], (N - 1) * (N - 2) / 2);

    int64_t sum = -1;
    KC_CHECK_OK(kc_parallel_reduce("count", KC_KERNEL(ktt_count), &p, &f,
                                   sizeof f, &sum));
    KC_CHECK_EQ_INT(sum, league * (1000 + N * (N - 1) / 2));
  }
  KC_CHECK_OK(kc_finalize());
  return kc_test_finish();
}
