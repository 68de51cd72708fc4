/* Variables that name code to load are ignored in a privileged process.
 *
 * KC_BACKEND, KC_PLUGIN_PATH, KC_TOOLS_LIBS, KOKKOS_TOOLS_LIBS,
 * KOKKOS_PROFILE_LIBRARY and KC_CUDA_DRIVER each make kc dlopen() a file
 * of the user's choosing.  In a
 * setuid-root program run by an unprivileged user that would run the
 * user's code as root, so kc reads them with secure_getenv() and says
 * under KC_VERBOSE that it ignored them.
 *
 * The test (it must run as root) copies secure-env-prog twice into a
 * directory of its own: as is, and setuid root.  Both run as user nobody
 * with one variable pointing at testplugins/marker/libkc-threads.so, a
 * library whose constructor writes a marker file.  The plain copy must
 * load it (the variable works), the setuid copy must not, and must say the
 * variable was ignored.  It skips, with the reason, when not root, when
 * the directory is on a nosuid mount, or when the setuid bit gives no
 * secure-execution mode here (no_new_privs). */
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kc-test.h"

#define NOBODY 65534

static const char *top;
static char dir[1024]; /* the copies, markers and outputs */
static char plain[PATH_MAX + 16], setuid_copy[PATH_MAX + 16];
static char marker_dir[PATH_MAX], marker_lib[PATH_MAX + 32];

static const char *slurp(const char *file) {
  static char buf[1 << 16];
  int fd = open(file, O_RDONLY);
  ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : 0;
  if (fd >= 0)
    close(fd);
  buf[n > 0 ? n : 0] = '\0';
  return buf;
}

static int copy_file(const char *src, const char *dst, mode_t mode) {
  int in = open(src, O_RDONLY);
  int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0700);
  int rc = in >= 0 && out >= 0 ? 0 : -1;
  char buf[8192];
  ssize_t n;
  while (rc == 0 && (n = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)n) != n)
      rc = -1;
  if (in >= 0)
    close(in);
  if (out >= 0)
    close(out);
  if (rc == 0 && (chown(dst, 0, 0) != 0 || chmod(dst, mode) != 0))
    rc = -1;
  return rc;
}

/* Runs prog as user nobody with a clean environment plus `var`=`value`
 * (NULL: none), its output in `out`; the exit status, or -1 when it did
 * not end within 60 s (then it is killed). */
static int run_as_nobody(const char *prog, char *const argv[], const char *var,
                         const char *value, const char *marker,
                         const char *out) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
      _exit(120);
    /* Sanitizer settings of an ASan/TSan build carry over. */
    static const char *const keep[] = {"ASAN_OPTIONS", "UBSAN_OPTIONS",
                                       "TSAN_OPTIONS", "LSAN_OPTIONS"};
    char *kept[4];
    for (int i = 0; i < 4; i++)
      kept[i] = getenv(keep[i]) ? strdup(getenv(keep[i])) : NULL;
    clearenv();
    for (int i = 0; i < 4; i++)
      if (kept[i])
        setenv(keep[i], kept[i], 1);
    setenv("PATH", "/usr/bin:/bin", 1);
    setenv("KC_VERBOSE", "1", 1);
    setenv("KC_TEST_MARKER", marker, 1);
    if (var)
      setenv(var, value, 1);
    if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
      _exit(121);
    execv(prog, argv);
    _exit(122);
  }
  int st = 0;
  for (int i = 0; i < 6000; i++) {
    if (waitpid(pid, &st, WNOHANG) == pid)
      return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &st, 0);
  return -1;
}

/* One variable: the plain copy loads the marker library, the setuid copy
 * does not and says why. */
static void one_variable(const char *var, const char *value, char *mode[]) {
  char marker[PATH_MAX + 64], out[PATH_MAX + 64];
  char *argv[5] = {NULL, mode[0], mode[1], mode[2], NULL};

  snprintf(marker, sizeof marker, "%s/marker-%s-plain", dir, var);
  snprintf(out, sizeof out, "%s/out-%s-plain", dir, var);
  argv[0] = plain;
  int rc = run_as_nobody(plain, argv, var, value, marker, out);
  if (access(marker, F_OK) != 0)
    KC_FAIL("%s: the unprivileged run (exit %d) did not load %s, so the "
            "setuid run proves nothing; its output:\n%s",
            var, rc, value, slurp(out));

  snprintf(marker, sizeof marker, "%s/marker-%s-setuid", dir, var);
  snprintf(out, sizeof out, "%s/out-%s-setuid", dir, var);
  argv[0] = setuid_copy;
  rc = run_as_nobody(setuid_copy, argv, var, value, marker, out);
  const char *text = slurp(out);
  KC_INFO("%s=%s, setuid root, run by nobody (exit %d):\n%s", var, value, rc,
          text);
  if (access(marker, F_OK) == 0)
    KC_FAIL("%s: the setuid-root program loaded %s", var, value);
  char said[128];
  snprintf(said, sizeof said,
           "kc: %s is ignored: this program runs with "
           "raised privileges",
           var);
  KC_CHECK_CONTAINS(text, said);
  KC_CHECK_CONTAINS(text, "secure: 1");
}

static int skip(const char *why) {
  printf("SKIP: %s\n", why);
  if (*dir) {
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
      printf("# could not remove %s\n", dir);
  }
  return KC_TEST_SKIP;
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  top = getenv("KC_TEST_TOP_BUILDDIR");
  if (!top) {
    printf("ERROR: run me through tests/run-backend (make check)\n");
    return KC_TEST_HARD_ERROR;
  }
  if (geteuid() != 0)
    return skip("not root: a setuid-root copy of a program cannot be made");

  snprintf(dir, sizeof dir, "%s/tests/t-secure-env.XXXXXX", top);
  if (!mkdtemp(dir) || chmod(dir, 0777) != 0) {
    printf("ERROR: mkdtemp/chmod %s: %s\n", dir, strerror(errno));
    return KC_TEST_HARD_ERROR;
  }
  struct statvfs vfs;
  if (statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_NOSUID)) {
    char why[PATH_MAX + 128];
    snprintf(why, sizeof why,
             "%s is on a nosuid mount: a setuid copy would not be setuid", dir);
    return skip(why);
  }
  char src[PATH_MAX + 32];
  snprintf(src, sizeof src, "%s/tests/secure-env-prog", top);
  snprintf(plain, sizeof plain, "%s/plain", dir);
  snprintf(setuid_copy, sizeof setuid_copy, "%s/setuid", dir);
  if (copy_file(src, plain, 0755) != 0 ||
      copy_file(src, setuid_copy, 04755) != 0) {
    printf("ERROR: copying %s: %s\n", src, strerror(errno));
    return KC_TEST_HARD_ERROR;
  }
  snprintf(marker_dir, sizeof marker_dir, "%s/tests/testplugins/marker/.libs",
           top);
  snprintf(marker_lib, sizeof marker_lib, "%s/libkc-threads.so", marker_dir);

  /* Can nobody run the program at all, and does the setuid bit give
   * secure-execution mode here? */
  char out[PATH_MAX + 32], marker[PATH_MAX + 32];
  snprintf(out, sizeof out, "%s/out-preflight", dir);
  snprintf(marker, sizeof marker, "%s/marker-preflight", dir);
  char *init_argv[] = {plain, "init", NULL};
  int rc = run_as_nobody(plain, init_argv, NULL, NULL, marker, out);
  if (rc != 0) {
    char why[8192];
    snprintf(why, sizeof why,
             "user %d cannot run %s (exit %d; is the build tree readable "
             "by all?): %.3000s",
             NOBODY, plain, rc, slurp(out));
    return skip(why);
  }
  init_argv[0] = setuid_copy;
  rc = run_as_nobody(setuid_copy, init_argv, NULL, NULL, marker, out);
  if (rc != 0) {
    /* A sanitizer runtime may not start in a setuid process (TSan needs
     * the ASLR setting that setuid execution resets). */
    char why[8192];
    snprintf(why, sizeof why,
             "the setuid-root copy does not run for user %d here (exit %d), "
             "with no kc variable set: %.3000s",
             NOBODY, rc, slurp(out));
    return skip(why);
  }
  if (!strstr(slurp(out), "secure: 1")) {
    char why[8192];
    snprintf(why, sizeof why,
             "a setuid-root program run by user %d is not in "
             "secure-execution mode here (no_new_privs?): %.3000s",
             NOBODY, slurp(out));
    return skip(why);
  }

  char *init[] = {"init", NULL, NULL};
  one_variable("KC_BACKEND", marker_lib, init);
  one_variable("KC_PLUGIN_PATH", marker_dir, init);
  one_variable("KC_TOOLS_LIBS", marker_lib, init);
  one_variable("KOKKOS_TOOLS_LIBS", marker_lib, init);
  one_variable("KOKKOS_PROFILE_LIBRARY", marker_lib, init);

  char cuda[PATH_MAX + 64];
  snprintf(cuda, sizeof cuda, "%s/plugins/cuda/.libs/libkc-cuda.so", top);
  if (access(cuda, R_OK) == 0) {
    char *probe[] = {"probe", cuda, "cuda"};
    one_variable("KC_CUDA_DRIVER", marker_lib, probe);
  } else {
    KC_INFO("KC_CUDA_DRIVER not tried: the cuda plugin was not built");
  }

  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    KC_INFO("could not remove %s", dir);
  return kc_test_done();
}
