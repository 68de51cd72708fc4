/* The timer tool's report comes out whole when the process runs a timer
 * signal whose handler has no SA_RESTART and stderr is a pipe with a slow
 * reader (an outside review, 2026-11-27): the report went through stdio,
 * which drops the rest of its buffer when write() is interrupted (EINTR),
 * so about a sixth of a 3000-kernel report was lost without a word.  The
 * report is now written with a loop that resumes after EINTR. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kc-isolate.h"
#include "kc-test.h"
#include "profiling-log.h"

enum { LABELS = 3000 };

static void nothing(const void *f, kc_index b, kc_index e) {
  (void)f;
  (void)b;
  (void)e;
}

static void on_alarm(int sig) { (void)sig; }

/* Reads the pipe slowly to its end; exits with 0 when the report ended
 * with its last line and named every kernel. */
static int reader(int fd) {
  struct timespec ms300 = {0, 300 * 1000 * 1000};
  nanosleep(&ms300, NULL);
  size_t cap = 1 << 20, len = 0;
  char *text = kc_test_xmalloc(cap + 1);
  for (;;) {
    if (len == cap) {
      cap *= 2;
      char *t = realloc(text, cap + 1);
      if (!t)
        return 3;
      text = t;
    }
    ssize_t r = read(fd, text + len, cap - len);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    len += (size_t)r;
  }
  text[len] = '\0';
  int named = 0;
  for (const char *p = text; (p = strstr(p, "kernel-with-a-long-label-")); p++)
    named++;
  int whole = strstr(text, "tool fences:") != NULL;
  printf("reader: %zu bytes, %d of %d kernels named, last line %s\n", len,
         named, LABELS, whole ? "there" : "missing");
  return named == LABELS && whole ? 0 : 1;
}

static int report_under_signals(void *arg) {
  (void)arg;
  unsetenv("KOKKOS_TOOLS_LIBS");
  unsetenv("KC_TIMER_OUTPUT");
  setenv("KC_TOOLS_LIBS", tl_lib("tools", "kc-tool-timer"), 1);
  setenv("KC_BACKEND", "serial", 1);
  int fds[2];
  KC_REQUIRE(pipe(fds) == 0);
  pid_t rd = fork();
  KC_REQUIRE(rd >= 0);
  if (rd == 0) {
    close(fds[1]);
    _exit(reader(fds[0]));
  }
  close(fds[0]);
  int saved = dup(STDERR_FILENO);
  KC_REQUIRE(saved >= 0 && dup2(fds[1], STDERR_FILENO) >= 0);
  close(fds[1]);

  KC_REQUIRE_OK(kc_init());
  kc_kernel_desc d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.name = "eintr_nothing";
  d.kind = KC_KERNEL_FOR;
  d.host = (void (*)(void))nothing;
  kc_kernel *k = NULL;
  KC_REQUIRE_OK(kc_kernel_register(&d, &k));
  kc_policy p = kc_range(0, 1);
  for (int i = 0; i < LABELS; i++) {
    char label[64];
    snprintf(label, sizeof label, "kernel-with-a-long-label-%06d", i);
    KC_CHECK_OK(kc_parallel_for(label, k, &p, NULL, 0));
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm; /* no SA_RESTART */
  sigemptyset(&sa.sa_mask);
  KC_REQUIRE(sigaction(SIGALRM, &sa, NULL) == 0);
  struct itimerval it = {{0, 1000}, {0, 1000}}, off;
  memset(&off, 0, sizeof off);
  KC_REQUIRE(setitimer(ITIMER_REAL, &it, NULL) == 0);
  int rc = kc_finalize();
  setitimer(ITIMER_REAL, &off, NULL);
  dup2(saved, STDERR_FILENO);
  close(saved);
  KC_CHECK_OK(rc);
  int status = 0;
  while (waitpid(rd, &status, 0) < 0 && errno == EINTR)
    ;
  KC_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return kc_test_done();
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (KC_ISOLATE(report_under_signals, NULL, 60) == KC_TEST_SKIP)
    return KC_TEST_SKIP; /* its reason is above */
  return kc_test_done();
}
