/* kc — running a hostile test case in a process of its own.
 *
 * A case that crashes or hangs must be observed, not suffered: the case runs
 * in a fork()ed child with a time limit, and the parent reports how it ended.
 *
 *   int kc_isolate(const char *name, kc_isolate_fn fn, void *arg,
 *                  unsigned timeout_s);
 *
 * runs fn(arg) in a child.  The child's exit status is fn's return value
 * (0 pass, 1 fail, 77 skip).  The parent waits at most timeout_s seconds,
 * then kills the child's process group with SIGKILL.  It returns
 *
 *   0   the case exited 0
 *   77  the case exited 77 (a skip; its reason is in its own output)
 *   1   anything else: a non-zero exit, a signal (named), or a hang
 *
 * and, unless the result is 0 or 77, counts a failed check with a line
 * naming the case and how it ended.  KC_ISOLATE(fn, arg, timeout) uses the
 * function's name as the case's name.
 *
 * The child starts from a copy of the parent: call it before kc_init() in
 * the parent (or after kc_finalize()), so that no worker thread of a
 * backend is missing in the child.  Output of parent and child goes to the
 * same stdout; both flush before forking.
 */
#ifndef KC_ISOLATE_H
#define KC_ISOLATE_H

#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kc-test.h"

typedef int (*kc_isolate_fn)(void *arg);

static KC_TEST__UNUSED int kc_isolate(const char *name, kc_isolate_fn fn,
                                      void *arg, unsigned timeout_s) {
  struct timespec nap = {0, 2 * 1000 * 1000};
  struct timespec t0, now;
  int status = 0;
  pid_t pid, got;

  fflush(stdout);
  fflush(stderr);
  pid = fork();
  if (pid < 0) {
    KC_FAIL("case %s: fork failed: %s", name, strerror(errno));
    return 1;
  }
  if (pid == 0) {
    int rc;
    setpgid(0, 0);
    rc = fn(arg);
    fflush(stdout);
    fflush(stderr);
    _exit(rc);
  }
  setpgid(pid, pid);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    got = waitpid(pid, &status, WNOHANG);
    if (got == pid)
      break;
    if (got < 0 && errno != EINTR) {
      KC_FAIL("case %s: waitpid failed: %s", name, strerror(errno));
      return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - t0.tv_sec >= (time_t)timeout_s) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      KC_FAIL("case %s: hung (killed after %u s)", name, timeout_s);
      return 1;
    }
    nanosleep(&nap, NULL);
  }
  if (WIFSIGNALED(status)) {
    KC_FAIL("case %s: killed by signal %d (%s)", name, WTERMSIG(status),
            strsignal(WTERMSIG(status)));
    return 1;
  }
  if (WIFEXITED(status)) {
    int rc = WEXITSTATUS(status);
    if (rc == 0 || rc == KC_TEST_SKIP) {
      KC_INFO("case %s: %s", name, rc == 0 ? "ok" : "skipped");
      return rc;
    }
    KC_FAIL("case %s: exited with status %d", name, rc);
    return 1;
  }
  KC_FAIL("case %s: ended in an unknown way (status 0x%x)", name, status);
  return 1;
}

#define KC_ISOLATE(fn, arg, timeout) kc_isolate(#fn, (fn), (arg), (timeout))

#endif
