/* Signals and kc's own threads (an outside review, 2026-11-27).  The
 * threads and openmp backends' threads inherited the signal mask of the
 * thread calling kc_init, so a signal sent to the process could be
 * handled on one of them:
 *  - an application that blocks SIGUSR1/SIGTERM in its threads and waits
 *    for them in a sigwait() thread (the usual shutdown pattern) was
 *    killed by the default action on a kc worker instead;
 *  - a handler that runs kc (with the signal blocked around the main
 *    thread's kc calls) ran on a worker and deadlocked.
 * kc's threads now start with the application's signals blocked
 * (kc_backend_block_signals, <kc/backend.h>).  Each case runs in a
 * process of its own with a time limit. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <kc/kernel.h>

#include "kc-isolate.h"
#include "kc-test.h"
#include "kernels/functors.h"

KC_KERNEL_DECLARE(kt_count);

enum { N = 256, ROUNDS = 20 };

static void launches(int32_t *d, int rounds) {
  kc_policy p = kc_range(0, N);
  kt_count c = {d, 0};
  for (int r = 0; r < rounds; r++)
    KC_CHECK_OK(
        kc_parallel_for("count", KC_TEST_KERNEL(kt_count), &p, &c, sizeof c));
  KC_CHECK_OK(kc_fence());
}

static void *waiter(void *arg) {
  int *got = arg;
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGUSR1);
  for (int i = 0; i < ROUNDS; i++) {
    int sig = 0;
    if (sigwait(&s, &sig) != 0 || sig != SIGUSR1)
      break;
    __atomic_add_fetch(got, 1, __ATOMIC_SEQ_CST);
  }
  return NULL;
}

/* The sigwait pattern set up after kc_init: every SIGUSR1 sent to the
 * process reaches the waiting thread (before: the default action on a kc
 * worker ended the process). */
static int sigwait_after_init(void *arg) {
  (void)arg;
  kc_test_init_backend();
  int32_t *d = kc_test_dalloc(N * sizeof *d, "hits");
  KC_REQUIRE_OK(kc_memset(d, 0, N * sizeof *d));
  launches(d, 2); /* every backend thread is up */
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGUSR1);
  KC_REQUIRE(pthread_sigmask(SIG_BLOCK, &s, NULL) == 0);
  int got = 0;
  pthread_t t;
  KC_REQUIRE(pthread_create(&t, NULL, waiter, &got) == 0);
  for (int i = 0; i < ROUNDS; i++) {
    kill(getpid(), SIGUSR1);
    launches(d, 3);
    /* One SIGUSR1 pending at a time: wait until the waiter took it. */
    for (int k = 0; k < 100000 && __atomic_load_n(&got, __ATOMIC_SEQ_CST) <= i;
         k++) {
      struct timespec us = {0, 20000};
      nanosleep(&us, NULL);
    }
  }
  KC_REQUIRE(pthread_join(t, NULL) == 0);
  KC_CHECK_EQ_INT(got, ROUNDS);
  KC_CHECK_OK(kc_free(d));
  KC_CHECK_OK(kc_finalize());
  return kc_test_done();
}

/* A handler that runs kc, with SIGUSR2 blocked around the main thread's
 * kc calls, as a careful program does: the handler then runs on the main
 * thread between them (before: on a worker, where its launch waited for
 * the runtime lock held by the launch that waited for that worker). */
static int32_t *handler_d;
static volatile sig_atomic_t handled, handler_rc = 12345;

static void on_usr2(int sig) {
  (void)sig;
  kc_policy p = kc_range(0, N);
  kt_count c = {handler_d, 0};
  int rc =
      kc_parallel_for("handler", KC_TEST_KERNEL(kt_count), &p, &c, sizeof c);
  if (rc == 0)
    rc = kc_fence();
  handler_rc = rc;
  handled++;
}

static int handler_runs_kc(void *arg) {
  (void)arg;
  kc_test_init_backend();
  int32_t *d = kc_test_dalloc(N * sizeof *d, "hits");
  KC_REQUIRE_OK(kc_memset(d, 0, N * sizeof *d));
  handler_d = d;
  sigset_t s, old;
  sigemptyset(&s);
  sigaddset(&s, SIGUSR2);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr2;
  sigemptyset(&sa.sa_mask);
  KC_REQUIRE(sigaction(SIGUSR2, &sa, NULL) == 0);
  for (int i = 0; i < ROUNDS; i++) {
    KC_REQUIRE(pthread_sigmask(SIG_BLOCK, &s, &old) == 0);
    kill(getpid(), SIGUSR2);
    launches(d, 3);
    KC_REQUIRE(pthread_sigmask(SIG_SETMASK, &old, NULL) == 0);
  }
  KC_CHECK_EQ_INT(handled, ROUNDS);
  KC_CHECK_EQ_INT(handler_rc, 0);
  int32_t *h = kc_test_download(d, N * sizeof *h);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += h[i] != ROUNDS * 3 + ROUNDS;
  KC_CHECK_EQ_INT(bad, 0);
  free(h);
  KC_CHECK_OK(kc_free(d));
  KC_CHECK_OK(kc_finalize());
  return kc_test_done();
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  int a = KC_ISOLATE(sigwait_after_init, NULL, 60);
  int b = KC_ISOLATE(handler_runs_kc, NULL, 60);
  if (a == KC_TEST_SKIP && b == KC_TEST_SKIP)
    return KC_TEST_SKIP; /* no backend here: its reason is above */
  return kc_test_done();
}
