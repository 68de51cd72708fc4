/* The pool where waking a thread is slow, as waking a halted virtual CPU
 * is on a busy host: pool.c built with KC_POOL_TEST_SLOW_WAKE_NS, so every
 * thread that returns from a futex sleep first loses that long.
 *
 * Back-to-back forks must then cost a slow wake at most once, not at every
 * fork.  Before the joining caller polled on instead of sleeping (a
 * 16-virtual-CPU machine, right after a build: 120-290 us a fork against
 * 1.2 us), a launch that found the workers asleep ran past their spin
 * budget, the caller slept in the join, its own slow wake sent the workers
 * back to sleep before the next fork, and every fork after it paid two
 * slow wakes.
 *
 * Exits 77 (skip) when the pool of 2 threads is oversubscribed (fewer than
 * 2 CPUs for it): such a pool sleeps at once by design.  Each of ROUNDS
 * rounds sleeps, then times FORKS forks, and the test fails when the
 * median fork of two rounds or more is slow.  On the 2-CPU VM the convoy
 * made every round slow when idle (median 330-340 us) and two to four of
 * the four under two busy loops and a build (twelve runs); the fixed pool
 * had no slow round in twenty runs under that load.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef KC_POOL_TEST_SLOW_WAKE_NS
#error "build with -DKC_POOL_TEST_SLOW_WAKE_NS (plugins/threads/Makefile.am)"
#endif

#define FORKS 400
#define ROUNDS 4

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static void empty(int tid, int n, void *arg) {
  (void)tid;
  (void)n;
  (void)arg;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(void) {
  kc__pool *p = NULL;
  char err[256];
  if (kc__pool_create(&p, 2, KC__POOL_BIND_MASK, err, sizeof err) != 0) {
    fprintf(stderr, "FAIL: kc__pool_create: %s\n", err);
    return 1;
  }
  if (!kc__pool_pinned(p)) {
    printf("SKIP: a pool of 2 is oversubscribed here (fewer than 2 CPUs "
           "for it)\n");
    kc__pool_destroy(p);
    return 77;
  }
  static double t[FORKS];
  int slow = 0;
  for (int round = 0; round < ROUNDS; round++) {
    /* Long enough for the worker to sleep: the first fork wakes it. */
    struct timespec pause = {0, 5 * 1000 * 1000};
    nanosleep(&pause, NULL);
    for (int i = 0; i < FORKS; i++) {
      double t0 = now_us();
      kc__pool_parallel(p, empty, NULL);
      t[i] = now_us() - t0;
    }
    const double first = t[0];
    qsort(t, FORKS, sizeof *t, by_value);
    const double median = t[FORKS / 2];
    printf("round %d: %d back-to-back forks after a sleep, each thread's "
           "wake %.0f us late: first %.1f us, median %.1f us, slowest %.1f "
           "us\n",
           round, FORKS, KC_POOL_TEST_SLOW_WAKE_NS / 1000.0, first, median,
           t[FORKS - 1]);
    /* One slow wake at most (the round's first fork); a pool stuck in
     * its sleeps pays two at every fork. */
    slow += median > 50.0;
  }
  kc__pool_destroy(p);
  if (slow >= 2) {
    printf("FAIL: %d of %d rounds had a median fork over 50 us: every fork "
           "woke a sleeping thread\n",
           slow, ROUNDS);
    return 1;
  }
  printf("ok\n");
  return 0;
}
