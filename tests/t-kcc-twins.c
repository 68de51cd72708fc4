/* Two shared libraries define a kernel of the same name ("kt_twin", from
 * tests/kcc/twin-a.kc.c and twin-b.kc.c, built by kcc; A writes 1, B
 * writes 2).  Opened in that order with RTLD_GLOBAL, A registers the name;
 * B's registration must fail with one line on stderr naming both
 * libraries, B's own KC_KERNEL(kt_twin) must stay NULL (not become A's
 * handle through symbol interposition), and a launch of it must be
 * KC_EINVAL instead of running A's body with B's functor.  Runs once. */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include "kc-test.h"
#include "kcc/twin.h"

typedef kc_kernel *(*handle_fn)(void);

static void *open_lib(const char *top, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/.libs/lib%s.so", top, name);
  void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (!h) {
    printf("FAIL: dlopen(%s): %s\n", path, dlerror());
    exit(KC_TEST_HARD_ERROR);
  }
  return h;
}

static handle_fn handle_of(void *lib, const char *sym) {
  void *p = dlsym(lib, sym);
  handle_fn fn;
  KC_REQUIRE(p != NULL);
  memcpy(&fn, &p, sizeof fn);
  return fn;
}

static char *slurp(const char *path) {
  static char buf[8192];
  int fd = open(path, O_RDONLY);
  ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : 0;
  if (fd >= 0)
    close(fd);
  buf[n > 0 ? n : 0] = '\0';
  return buf;
}

/* The scenario is an ODR violation on purpose (two libraries define the
 * global kc__kernel_kt_twin): AddressSanitizer's ODR check must not stop
 * the test that shows kc handles it.  Options from the environment still
 * come on top. */
const char *__asan_default_options(void);
__attribute__((visibility("default"), used)) const char *
__asan_default_options(void) {
  return "detect_odr_violation=0";
}

int main(void) {
  const char *top = getenv("KC_TEST_TOP_BUILDDIR");
  if (!top || !*top)
    KC_SKIP("KC_TEST_TOP_BUILDDIR is not set: run through tests/run-backend");
  char errfile[] = "/tmp/kc-t-kcc-twins-XXXXXX";
  int efd = mkstemp(errfile);
  KC_REQUIRE(efd >= 0);

  void *a = open_lib(top, "kc-twin-a");
  fflush(stderr);
  int saved = dup(2);
  dup2(efd, 2);
  void *b = open_lib(top, "kc-twin-b"); /* its constructor complains */
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(efd);
  const char *err = slurp(errfile);
  printf("# B's registration said: %s", err);
  remove(errfile);

  kc_kernel *ka = handle_of(a, "twin_a_handle")();
  kc_kernel *kb = handle_of(b, "twin_b_handle")();
  KC_CHECK_NE_PTR(ka, NULL);
  KC_CHECK_EQ_PTR(kb, NULL);
  kc_kernel *byname = NULL;
  KC_CHECK_OK(kc_kernel_get("kt_twin", &byname));
  KC_CHECK_EQ_PTR(byname, ka);

  KC_CHECK_CONTAINS(err, "kernel \"kt_twin\" not registered");
  KC_CHECK_CONTAINS(err, "twin-b.kc.c");
  KC_CHECK_CONTAINS(err, "libkc-twin-a.so");
  KC_CHECK_CONTAINS(err, "libkc-twin-b.so");
  KC_CHECK_EQ_INT((int)(strchr(err, '\n') - err) + 1, (int)strlen(err));

  /* The clash is the same on every backend; host memory below needs a
   * host one. */
  setenv("KC_BACKEND", "serial", 1);
  KC_REQUIRE_OK(kc_init());
  enum { N = 64 };
  int64_t *out = NULL;
  KC_REQUIRE_OK(
      kc_malloc((void **)&out, N * sizeof *out, KC_SPACE_HOST, "out"));
  kt_twin_f f = {out};
  kc_policy p = kc_range(0, N);
  /* B's launch: refused, nothing written (not A's body with B's functor). */
  for (int i = 0; i < N; i++)
    out[i] = 0;
  KC_CHECK_ERR(kc_parallel_for(NULL, kb, &p, &f, sizeof f), KC_EINVAL);
  KC_CHECK_OK(kc_fence());
  int written = 0;
  for (int i = 0; i < N; i++)
    written += out[i] != 0;
  KC_CHECK_EQ_INT(written, 0);
  /* A's launch runs A's body. */
  KC_CHECK_OK(kc_parallel_for(NULL, ka, &p, &f, sizeof f));
  KC_CHECK_OK(kc_fence());
  for (int i = 0; i < N; i++)
    KC_CHECK_EQ_INT(out[i], 1);
  KC_CHECK_OK(kc_free(out));
  KC_CHECK_OK(kc_finalize());
  return kc_test_done();
}
