/* The CUDA plugin loads everywhere and says why it cannot run: with no
 * driver (here forced with KC_CUDA_DRIVER pointing at a missing library)
 * its probe reports "no CUDA driver (...)", and kc_init with
 * KC_BACKEND=cuda fails with KC_ENODEV and that reason.  With the real
 * driver it either reports "no CUDA driver" / "no CUDA device" (a machine
 * without a GPU) or comes up and describes the device.
 *
 * Each case runs in a child process, because the plugin opens the driver
 * once per process.  Runs once (not per backend); skips only when
 * configure left the CUDA backend out (--disable-cuda). */
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kc/backend.h>

#include "kc-test.h"

static const kc_backend_ops *open_plugin(void) {
  const char *dirs = getenv("KC_TEST_PLUGIN_PATH");
  char path[4096];
  snprintf(path, sizeof path, "%s/plugins/cuda/.libs/libkc-cuda.so",
           KC_TEST__S(getenv("KC_TEST_TOP_BUILDDIR")));
  (void)dirs;
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    KC_FAIL("the CUDA plugin does not load: %s", dlerror());
    return NULL;
  }
  const kc_backend_ops *ops = dlsym(h, "kc_backend_cuda");
  KC_CHECK(ops != NULL);
  if (ops) {
    KC_CHECK_EQ_INT(ops->abi_major, KC_BACKEND_ABI_MAJOR);
    KC_CHECK_EQ_STR(ops->name, "cuda");
  }
  return ops;
}

/* KC_CUDA_DRIVER names a library that does not exist. */
static int no_driver(void) {
  setenv("KC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
  const kc_backend_ops *ops = open_plugin();
  if (ops) {
    int n = -1;
    KC_CHECK_OK(ops->probe(&n));
    KC_CHECK_EQ_INT(n, 0);
    KC_CHECK_CONTAINS(kc_last_error(), "no CUDA driver (");
    KC_CHECK_CONTAINS(kc_last_error(), "/nonexistent/libcuda.so.1");
  }
  setenv("KC_BACKEND", "cuda", 1);
  KC_CHECK_ERR(kc_init(), KC_ENODEV);
  KC_CHECK_CONTAINS(kc_last_error(), "no CUDA driver");
  KC_INFO("forced missing driver: %s", kc_last_error());
  return kc_test_failures() ? 1 : 0;
}

/* The machine's own driver, whatever it is. */
static int real_driver(void) {
  unsetenv("KC_CUDA_DRIVER");
  const kc_backend_ops *ops = open_plugin();
  int n = -1;
  if (ops) {
    KC_CHECK_OK(ops->probe(&n));
    KC_CHECK_GE_INT(n, 0);
    if (n == 0) {
      const char *why = kc_last_error();
      if (!strstr(why, "no CUDA driver") && !strstr(why, "no CUDA device"))
        KC_FAIL("probe found no device but said: \"%s\"", why);
      KC_INFO("this machine: %s", why);
    }
  }
  setenv("KC_BACKEND", "cuda", 1);
  int rc = kc_init();
  if (n == 0) {
    KC_CHECK_EQ_INT(rc, KC_ENODEV);
    if (!strstr(kc_last_error(), "no CUDA driver") &&
        !strstr(kc_last_error(), "no CUDA device"))
      KC_FAIL("kc_init said: \"%s\"", kc_last_error());
  } else if (KC_CHECK_OK(rc) == 0) {
    kc_info info = kc_test_info();
    KC_CHECK_EQ_STR(info.backend, "cuda");
    KC_CHECK(info.dev.name[0] != '\0');
    KC_CHECK_GE_INT(info.dev.multiprocessors, 1);
    KC_CHECK_GE_INT(info.dev.compute_major, 5);
    KC_CHECK_GE_INT(info.dev.warp_size, 32);
    KC_CHECK(info.dev.total_memory > 0);
    KC_CHECK(info.dev.max_param_bytes >= 4096);
    KC_CHECK_EQ_UINT(info.spaces, 0xfu);
    KC_CHECK_EQ_INT(info.device, 0);
    KC_INFO("device %d of %d: %s, sm_%d%d, %d SMs, %zu MiB, params %zu B",
            info.device, info.device_count, info.dev.name,
            info.dev.compute_major, info.dev.compute_minor,
            info.dev.multiprocessors, info.dev.total_memory >> 20,
            info.dev.max_param_bytes);
    /* A device that does not exist is refused with the count. */
    KC_CHECK_OK(kc_finalize());
    char dev[32];
    snprintf(dev, sizeof dev, "%d", info.device_count);
    setenv("KC_DEVICE", dev, 1);
    KC_CHECK_ERR(kc_init(), KC_ENODEV);
    KC_CHECK_CONTAINS(kc_last_error(), "KC_DEVICE");
  }
  return kc_test_failures() ? 1 : 0;
}

static int in_child(int (*fn)(void), const char *what) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    printf("FAIL: fork: %s\n", strerror(errno));
    return 1;
  }
  if (pid == 0)
    _exit(fn());
  int st = 0;
  waitpid(pid, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    KC_FAIL("%s: the child failed (status %d)", what, st);
    return 1;
  }
  return 0;
}

/* 1 if configure built the CUDA plugin (run-backend's KC_TEST_BACKENDS). */
static int cuda_built(void) {
  char pad[256];
  snprintf(pad, sizeof pad, " %s ", KC_TEST__S(getenv("KC_TEST_BACKENDS")));
  return strstr(pad, " cuda ") != NULL;
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (!cuda_built())
    KC_SKIP("backend 'cuda' was not built: configure left it out (built: "
            "%s)",
            KC_TEST__S(getenv("KC_TEST_BACKENDS")));
  unsetenv("KC_DEVICE");
  in_child(no_driver, "missing driver");
  in_child(real_driver, "this machine's driver");
  return kc_test_done();
}
