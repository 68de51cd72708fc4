/* The host engine's static split of a 1-D range is OpenMP's
 * schedule(static): for every range and thread count, thread t of a kc
 * launch (kc_host_launch, as the threads, openmp and serial backends run
 * it) gets exactly the indices thread t of `#pragma omp parallel for
 * schedule(static)` gets.  Pages an initialising kernel first-touched are
 * then local to the thread that streams them later, whether the init ran
 * in kc or in OpenMP code beside it (BabelStream's layout).  The exec here
 * runs the tasks one after another on this thread, with the tid each
 * call announces; the OpenMP side runs a real team.  Built with OpenMP;
 * without it there is nothing to compare (exit 77). */
#include <kc/backend.h>

#include "kc-test.h"

#ifdef _OPENMP
#include <omp.h>

enum { MAXN = 1000, MAXT = 17 };

static int owner[MAXN]; /* thread of each index, kc's side */
static int current;     /* tid of the task running now */

static void record(const void *functor, kc_index b, kc_index e) {
  (void)functor;
  for (kc_index i = b; i < e; i++)
    owner[i] = current;
}

static void one_by_one(void *ctx, kc_host_task task, void *arg) {
  int nt = *(const int *)ctx;
  for (current = 0; current < nt; current++)
    task(current, nt, arg);
}

/* kc's owners of [0, n) on nt threads into owner[]. */
static int kc_split(int n, int nt) {
  kc_kernel_info k = {
      .name = "record", .kind = KC_KERNEL_FOR, .host = (void (*)(void))record};
  kc_launch l = {.label = "record", .kernel = &k};
  l.policy.kind = KC_POLICY_RANGE;
  l.policy.rank = 1;
  l.policy.end[0] = n;
  l.policy.schedule = KC_SCHEDULE_STATIC;
  l.policy.chunk = KC_AUTO;
  const kc_host_exec x = {one_by_one, &nt, nt};
  return kc_host_launch(&x, &l);
}

int main(void) {
  static int omp_owner[MAXN];
  omp_set_dynamic(0);
  int cases = 0;
  for (int nt = 1; nt <= MAXT; nt++) {
    for (int n = 1; n <= MAXN; n += n < 64 ? 1 : 37) {
      int team = 0;
#pragma omp parallel num_threads(nt)
      {
#pragma omp single
        team = omp_get_num_threads();
#pragma omp for schedule(static)
        for (int i = 0; i < n; i++)
          omp_owner[i] = omp_get_thread_num();
      }
      if (team != nt)
        continue; /* the runtime gave a smaller team: nothing to compare */
      KC_CHECK_EQ_INT(kc_split(n, nt), 0);
      for (int i = 0; i < n; i++)
        if (owner[i] != omp_owner[i]) {
          KC_CHECK_EQ_INT(owner[i], omp_owner[i]);
          printf("  (index %d of %d on %d threads)\n", i, n, nt);
          return kc_test_done();
        }
      cases++;
    }
  }
  printf("ok: %d ranges of 1..%d indices on 1..%d threads split as "
         "schedule(static)\n",
         cases, MAXN, MAXT);
  KC_CHECK_GT_INT(cases, 0);
  return kc_test_done();
}

#else
int main(void) {
  printf("SKIP: built without OpenMP: nothing to compare with\n");
  return KC_TEST_SKIP;
}
#endif
