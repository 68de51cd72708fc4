/* Empty fork-join cost of the pool against the OpenMP runtime, in one
 * process.  Not built by default: `make -C plugins/threads pool-bench`.
 *
 *   pool-bench [NTHREADS [ITERATIONS [REPETITIONS]]]
 *
 * NTHREADS 0 (the default) means one per CPU of the affinity mask.  Each
 * repetition times ITERATIONS back-to-back empty fork-joins of the pool,
 * of `#pragma omp parallel` and of `#pragma omp parallel for`; the two
 * runtimes get 20 ms of quiet before their turn so that neither's spinning
 * threads steal the other's CPUs.  Prints min and median per fork-join.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "pool.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static void empty_task(int tid, int n, void *arg) {
  (void)tid;
  (void)n;
  (void)arg;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

enum { MAXREP = 101 };

static void summary(const char *what, double *t, int reps) {
  qsort(t, (size_t)reps, sizeof *t, cmp_double);
  printf("  %-26s min %8.3f us   median %8.3f us\n", what, t[0], t[reps / 2]);
}

int main(int argc, char **argv) {
  int nthreads = argc > 1 ? atoi(argv[1]) : 0;
  long iters = argc > 2 ? atol(argv[2]) : 100000;
  int reps = argc > 3 ? atoi(argv[3]) : 7;
  if (iters < 1 || reps < 1 || reps > MAXREP) {
    fprintf(stderr, "usage: pool-bench [NTHREADS [ITERATIONS [REPS<=%d]]]\n",
            MAXREP);
    return 2;
  }
  char err[256];
  kc__pool *p;
  if (kc__pool_create(&p, nthreads, KC__POOL_BIND_MASK, err, sizeof err) != 0) {
    fprintf(stderr, "pool-bench: %s\n", err);
    return 1;
  }
  if (!kc__pool_enter(p))
    return 1;
  const int n = kc__pool_size(p);
  omp_set_dynamic(0);

  double tpool[MAXREP], tomp[MAXREP], tfor[MAXREP];
  for (int r = 0; r < reps; r++) {
    usleep(20000);
    for (long i = 0; i < iters / 10 + 1; i++) /* warm up */
      kc__pool_parallel(p, empty_task, NULL);
    double t0 = now_us();
    for (long i = 0; i < iters; i++)
      kc__pool_parallel(p, empty_task, NULL);
    tpool[r] = (now_us() - t0) / (double)iters;

    usleep(20000);
    for (long i = 0; i < iters / 10 + 1; i++) {
#pragma omp parallel num_threads(n)
      empty_task(omp_get_thread_num(), omp_get_num_threads(), NULL);
    }
    t0 = now_us();
    for (long i = 0; i < iters; i++) {
#pragma omp parallel num_threads(n)
      empty_task(omp_get_thread_num(), omp_get_num_threads(), NULL);
    }
    tomp[r] = (now_us() - t0) / (double)iters;

    t0 = now_us();
    for (long i = 0; i < iters; i++) {
#pragma omp parallel for num_threads(n) schedule(static)
      for (int k = 0; k < n; k++)
        empty_task(k, n, NULL);
    }
    tfor[r] = (now_us() - t0) / (double)iters;
  }
  printf("empty fork-join, %d threads (%s), %ld iterations x %d:\n", n,
         kc__pool_pinned(p) ? "pool pinned" : "pool not pinned", iters, reps);
  summary("kc threads pool", tpool, reps);
  summary("#pragma omp parallel", tomp, reps);
  summary("#pragma omp parallel for", tfor, reps);
  printf("  omp parallel for / pool (medians): %.2fx\n",
         tfor[reps / 2] / tpool[reps / 2]);
  kc__pool_leave(p);
  kc__pool_destroy(p);
  return 0;
}
