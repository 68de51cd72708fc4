/* A host backend that does not keep the concurrency it reports: its first
 * fork-join runs the tasks on threads of their own, all at once (so the
 * core's census finds distinct threads), every later one runs them one
 * after another on the caller, as an OpenMP runtime that grants a smaller
 * team does.  Teams of several threads must not hang on it: a team that
 * cannot form runs on its first thread alone (t-team-form). */
#include <pthread.h>

#include "common.h"

enum { LC_THREADS = 2 };

typedef struct lc_state {
  int calls;
} lc_state;

typedef struct lc_job {
  kc_host_task task;
  void *arg;
  int tid;
} lc_job;

static void *lc_thread(void *p) {
  lc_job *j = p;
  kc_backend_kernel_enter();
  j->task(j->tid, LC_THREADS, j->arg);
  kc_backend_kernel_leave();
  return NULL;
}

static void lc_parallel(void *ctx, kc_host_task task, void *arg) {
  lc_state *st = ctx;
  if (st->calls++ > 0) {
    for (int t = 0; t < LC_THREADS; t++)
      task(t, LC_THREADS, arg);
    return;
  }
  pthread_t th[LC_THREADS];
  lc_job jobs[LC_THREADS];
  int started[LC_THREADS] = {0};
  for (int t = 1; t < LC_THREADS; t++) {
    jobs[t] = (lc_job){task, arg, t};
    started[t] = pthread_create(&th[t], NULL, lc_thread, &jobs[t]) == 0;
    if (!started[t])
      task(t, LC_THREADS, arg); /* then the census sees one thread twice */
  }
  task(0, LC_THREADS, arg);
  for (int t = 1; t < LC_THREADS; t++)
    if (started[t])
      pthread_join(th[t], NULL);
}

static int lc_info(void *state, kc_info *out) {
  (void)state;
  kc_host_backend_info(out, LC_THREADS); /* concurrency LC_THREADS: a lie */
  return 0;
}

static int lc_launch(void *state, const kc_launch *l) {
  const kc_host_exec x = {lc_parallel, state, LC_THREADS};
  return kc_host_launch(&x, l);
}

KC_API const kc_backend_ops kc_backend_latecomers = {
    TP_OPS("latecomers"),
    .description = "kc test plugin whose later fork-joins run one task "
                   "after another",
    .state_size = sizeof(lc_state),
    .info = lc_info,
    .launch = lc_launch,
};
