/* Helpers of the profiling-hook tests (tests/tools-*.c): where the tool
 * libraries of the build tree are, what kc's documented device ids and
 * space names are for the backend in use, and an expected-log builder that
 * compares line by line with what the recording tool wrote. */
#ifndef KC_TOOLS_LOG_H
#define KC_TOOLS_LOG_H

#include <signal.h>
#include <unistd.h>

#include "kc-test.h"

/* A tool library of the build tree: dir is "tests" or "tools". */
static KC_TEST__UNUSED char *tl_lib(const char *dir, const char *name) {
  const char *top = getenv("KC_TEST_TOP_BUILDDIR");
  if (!top || !*top)
    KC_SKIP("KC_TEST_TOP_BUILDDIR is not set: run through tests/run-backend");
  size_t n = strlen(top) + strlen(dir) + strlen(name) + 32;
  char *p = kc_test_xmalloc(n);
  snprintf(p, n, "%s/%s/.libs/lib%s.so", top, dir, name);
  if (access(p, R_OK) != 0) {
    printf("FAIL: %s is missing: run make check (it builds the tools)\n", p);
    exit(KC_TEST_HARD_ERROR);
  }
  return p;
}

/* A fresh temporary file name (the file is created empty). */
static KC_TEST__UNUSED char *tl_tmpfile(const char *tag) {
  const char *dir = getenv("TMPDIR");
  size_t n = 64 + strlen(tag) + (dir ? strlen(dir) : 4);
  char *p = kc_test_xmalloc(n);
  snprintf(p, n, "%s/kc-%s-XXXXXX", dir && *dir ? dir : "/tmp", tag);
  int fd = mkstemp(p);
  if (fd < 0) {
    printf("FAIL: mkstemp(%s): %s\n", p, strerror(errno));
    exit(KC_TEST_HARD_ERROR);
  }
  close(fd);
  return p;
}

/* The whole file as a string ("" when missing); the caller frees it. */
static KC_TEST__UNUSED char *tl_slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  size_t len = 0, cap = 4096;
  char *s = kc_test_xmalloc(cap);
  if (f) {
    size_t got;
    while ((got = fread(s + len, 1, cap - len - 1, f)) > 0) {
      len += got;
      if (cap - len < 2) {
        cap *= 2;
        char *t = realloc(s, cap);
        if (!t) {
          printf("FAIL: out of memory reading %s\n", path);
          exit(KC_TEST_HARD_ERROR);
        }
        s = t;
      }
    }
    fclose(f);
  }
  s[len] = '\0';
  return s;
}

/* A hung hook (a deadlock in a call site) must fail the test, not stall
 * the suite until run-backend's timeout. */
static void tl_alarm(int sig) {
  (void)sig;
  static const char msg[] =
      "FAIL: the test did not finish within 60 s (a profiling hook "
      "deadlocked?)\n";
  ssize_t r = write(1, msg, sizeof msg - 1);
  (void)r;
  _exit(1);
}
static KC_TEST__UNUSED void tl_watchdog(void) {
  signal(SIGALRM, tl_alarm);
  alarm(60);
}

/* ---------------------------------------------- kc's documented encoding */

/* Kokkos' device type of a backend (doc/profiling.md, "Device ids"). */
static KC_TEST__UNUSED unsigned tl_device_type(const char *backend) {
  if (strcmp(backend, "serial") == 0)
    return 0;
  if (strcmp(backend, "openmp") == 0)
    return 1;
  if (strcmp(backend, "cuda") == 0)
    return 2;
  if (strcmp(backend, "hip") == 0)
    return 3;
  if (strcmp(backend, "openmptarget") == 0)
    return 4;
  if (strcmp(backend, "hpx") == 0)
    return 5;
  if (strcmp(backend, "threads") == 0)
    return 6;
  if (strcmp(backend, "sycl") == 0)
    return 7;
  if (strcmp(backend, "openacc") == 0)
    return 8;
  return 9;
}

/* Device id of queue instance `instance` on `device`: 8 bits of type, 7
 * of device, 17 of instance. */
static KC_TEST__UNUSED unsigned tl_devid(const kc_info *info, int device,
                                         unsigned instance) {
  unsigned dev = device > 0 ? (unsigned)device : 0;
  return tl_device_type(info->backend) << 24 | (dev & 0x7f) << 17 |
         (instance & 0x1ffff);
}

/* Device id of the default queue's kernels (instance 1). */
static KC_TEST__UNUSED unsigned tl_devid_queue(const kc_info *info) {
  return tl_devid(info, info->device, 1);
}

/* Device id of fences (instance 0: global synchronisation). */
static KC_TEST__UNUSED unsigned tl_devid_fence(const kc_info *info) {
  return tl_device_type(info->backend) << 24;
}

/* The Kokkos space name kc reports for `space` (doc/profiling.md, "Memory
 * space names"). */
static KC_TEST__UNUSED const char *tl_space(const kc_info *info,
                                            kc_space space) {
  static const struct {
    const char *backend, *names[4];
  } map[] = {
      {"cuda", {"Host", "Cuda", "CudaUVM", "CudaHostPinned"}},
      {"hip", {"Host", "HIP", "HIPManaged", "HIPHostPinned"}},
      {"sycl", {"Host", "SYCLDeviceUSM", "SYCLSharedUSM", "SYCLHostUSM"}},
      {"openmptarget",
       {"Host", "OpenMPTargetSpace", "OpenMPTargetSpace", "OpenMPTargetSpace"}},
      {"openacc", {"Host", "OpenACCSpace", "OpenACCSpace", "OpenACCSpace"}},
  };
  if (space == KC_SPACE_HOST || !(info->spaces & (1u << space)))
    return "Host";
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (strcmp(info->backend, map[i].backend) == 0)
      return map[i].names[space];
  return "Host";
}

/* ------------------------------------------------------ expected logs */

typedef struct tl_expect {
  char *text;
  size_t len, cap;
} tl_expect;

static KC_TEST__UNUSED
KC_TEST__PRINTF(2, 3) void tl_line(tl_expect *e, const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof buf - 1) {
    printf("FAIL: expected line too long\n");
    exit(KC_TEST_HARD_ERROR);
  }
  buf[n++] = '\n';
  buf[n] = '\0';
  if (e->len + (size_t)n + 1 > e->cap) {
    size_t cap = e->cap ? e->cap * 2 : 8192;
    while (cap < e->len + (size_t)n + 1)
      cap *= 2;
    char *t = realloc(e->text, cap);
    if (!t) {
      printf("FAIL: out of memory\n");
      exit(KC_TEST_HARD_ERROR);
    }
    e->text = t;
    e->cap = cap;
  }
  memcpy(e->text + e->len, buf, (size_t)n + 1);
  e->len += (size_t)n;
}

static KC_TEST__UNUSED void tl_expect_free(tl_expect *e) {
  free(e->text);
  memset(e, 0, sizeof *e);
}

/* Compares a log with the expectation line by line; a difference fails
 * the test, naming the first line that differs, and prints both logs. */
#define TL_CHECK_LOG(got, want, what)                                          \
  tl_check_log((got), (want), (what), __FILE__, __LINE__)

static KC_TEST__UNUSED void tl_check_log(const char *got, const char *want,
                                         const char *what, const char *file,
                                         int line) {
  const char *g = got, *w = want ? want : "";
  int lineno = 1;
  while (*g || *w) {
    size_t gl = strcspn(g, "\n"), wl = strcspn(w, "\n");
    if (gl != wl || memcmp(g, w, gl) != 0) {
      kc_test__fail(file, line,
                    "%s: line %d differs:\n    got:  \"%.*s\"\n"
                    "    want: \"%.*s\"",
                    what, lineno, (int)gl, g, (int)wl, w);
      printf("# --- %s: the whole log ---\n%s# --- expected ---\n%s"
             "# --- end ---\n",
             what, got, want ? want : "");
      return;
    }
    g += gl + (g[gl] == '\n');
    w += wl + (w[wl] == '\n');
    lineno++;
  }
}

#endif
