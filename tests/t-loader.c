/* The plugin loader: choosing a backend, and every way a plugin can be
 * wrong.
 *
 * Each scenario runs in a child process of its own (kc starts fresh, and a
 * crash is caught and reported instead of ending the test), with stderr
 * captured so that KC_VERBOSE output can be checked.  The test-only
 * plugins of tests/testplugins/ are each broken in one way; every refusal
 * must carry its exact documented message (doc/backends.md, "Choosing a
 * backend"), crash nothing, and leave kc able to start with a good backend
 * right after.
 *
 * Environment (set by tests/run-backend): KC_TEST_PLUGIN_DIR (the test
 * plugins), KC_TEST_PLUGIN_PATH (the build tree's real plugins),
 * KC_TEST_BACKENDS (the backends configure built). */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kc/backend.h>

#include "kc-test.h"

static const char *tp_dir;    /* test plugins */
static const char *real_path; /* the real plugins' directories */
static const char *built;     /* "serial threads openmp cuda" */
static char tmpdir[PATH_MAX]; /* files made by this test */
static char stderr_file[PATH_MAX + 16];

static int is_built(const char *name) {
  char pad[256], b[128];
  snprintf(pad, sizeof pad, " %s ", built);
  snprintf(b, sizeof b, " %s ", name);
  return strstr(pad, b) != NULL;
}

/* The text the child wrote on stderr so far. */
static char *captured(void) {
  static char buf[1 << 16];
  fflush(stderr);
  int fd = open(stderr_file, O_RDONLY);
  ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : 0;
  if (fd >= 0)
    close(fd);
  buf[n > 0 ? n : 0] = '\0';
  return buf;
}

/* Empties the captured stderr. */
static void captured_reset(void) {
  fflush(stderr);
  if (ftruncate(2, 0) != 0 || lseek(2, 0, SEEK_SET) < 0)
    KC_FAIL("cannot reset the captured stderr");
}

static void set_env(const char *backend, const char *plugin_path) {
  if (backend)
    setenv("KC_BACKEND", backend, 1);
  else
    unsetenv("KC_BACKEND");
  if (plugin_path)
    setenv("KC_PLUGIN_PATH", plugin_path, 1);
  else
    unsetenv("KC_PLUGIN_PATH");
}

static void plugin_file(char *out, size_t cap, const char *name) {
  snprintf(out, cap, "%s/libkc-%s.so", tp_dir, name);
}

/* After a refused kc_init: kc is not initialized, and a good backend starts
 * and runs at once, in the same process. */
static void check_recovers(void) {
  const char *good = is_built("threads") ? "threads" : "serial";
  KC_CHECK_EQ_INT(kc_is_initialized(), 0);
  set_env(good, real_path);
  if (KC_CHECK_OK(kc_init()) != 0)
    return;
  KC_CHECK_EQ_STR(kc_backend_name(), good);
  void *p = NULL;
  KC_CHECK_OK(kc_malloc(&p, 64, KC_SPACE_DEVICE, "recovered"));
  KC_CHECK_OK(kc_memset(p, 1, 64));
  KC_CHECK_OK(kc_free(p));
  KC_CHECK_OK(kc_finalize());
}

/* kc_init must fail with `code` and exactly `msg`. */
static void expect_refusal(int code, const char *msg) {
  int rc = kc_init();
  KC_CHECK_EQ_INT(rc, code);
  KC_CHECK_EQ_STR(kc_last_error(), msg);
  if (rc == 0)
    kc_finalize();
  check_recovers();
}

/* The test plugin `name` refused with `code` and `msg`, named by its path
 * and by its name in the test plugin directory. */
static void expect_plugin_refusal(const char *path, const char *name, int code,
                                  const char *msg) {
  set_env(path, NULL);
  expect_refusal(code, msg);
  set_env(name, tp_dir);
  expect_refusal(code, msg);
}

/* ------------------------------------------------------------ scenarios */

/* An unknown name: the message lists what is available. */
static void sc_unknown_name(void) {
  set_env("bogus", real_path);
  int rc = kc_init();
  KC_CHECK_EQ_INT(rc, KC_ENOBACKEND);
  KC_CHECK_CONTAINS(kc_last_error(),
                    "no backend named 'bogus' (available: serial");
  KC_CHECK(strchr(kc_last_error(), ')') != NULL);
  static const char *const plugins[] = {"threads", "openmp", "cuda"};
  for (int k = 0; k < 3; k++)
    if (is_built(plugins[k])) {
      char item[64];
      snprintf(item, sizeof item, ", %s", plugins[k]);
      KC_CHECK_CONTAINS(kc_last_error(), item);
    }
  check_recovers();
  /* With the test plugins in the path, they are listed too (by file). */
  set_env("bogus", tp_dir);
  KC_CHECK_EQ_INT(kc_init(), KC_ENOBACKEND);
  KC_CHECK_CONTAINS(kc_last_error(), "badabi");
  KC_CHECK_CONTAINS(kc_last_error(), "nodev");
  check_recovers();
}

static void sc_missing_path(void) {
  const char *path = "/nonexistent-kc-dir/libkc-ghost.so";
  char msg[2048];
  snprintf(msg, sizeof msg, "cannot load %s: %s", path, strerror(ENOENT));
  set_env(path, NULL);
  expect_refusal(KC_EPLUGIN, msg);
}

/* A text file named like a plugin, by path and by name. */
static void sc_not_a_shared_object(void) {
  char path[PATH_MAX + 32], msg[2 * PATH_MAX + 512];
  snprintf(path, sizeof path, "%s/libkc-notso.so", tmpdir);
  snprintf(msg, sizeof msg,
           "cannot load %s: it is not an ELF file (no ELF magic number)", path);
  set_env(path, NULL);
  expect_refusal(KC_EPLUGIN, msg);
  set_env("notso", tmpdir);
  expect_refusal(KC_EPLUGIN, msg);
}

static void sc_no_entry_symbol(void) {
  char path[PATH_MAX], msg[2 * PATH_MAX];
  plugin_file(path, sizeof path, "nosym");
  snprintf(msg, sizeof msg,
           "%s is not a kc plugin: it has no symbol kc_backend_nosym", path);
  expect_plugin_refusal(path, "nosym", KC_EPLUGIN, msg);
}

static void sc_wrong_abi(void) {
  char path[PATH_MAX], msg[2 * PATH_MAX];
  plugin_file(path, sizeof path, "badabi");
  snprintf(msg, sizeof msg,
           "%s was built for backend ABI %d.3 but this libkc speaks %d.%d: "
           "rebuild the plugin against this kc's <kc/backend.h>",
           path, KC_BACKEND_ABI_MAJOR + 1, KC_BACKEND_ABI_MAJOR,
           KC_BACKEND_ABI_MINOR);
  expect_plugin_refusal(path, "badabi", KC_EABI, msg);
}

static void sc_alloc_on_alone(void) {
  char path[PATH_MAX], msg[2 * PATH_MAX];
  plugin_file(path, sizeof path, "allocon");
  snprintf(msg, sizeof msg,
           "%s: mem_alloc_on needs the memory slots (mem_free gives its "
           "memory back)",
           path);
  expect_plugin_refusal(path, "allocon", KC_EPLUGIN, msg);
}

static void sc_misnamed(void) {
  char path[PATH_MAX], msg[2 * PATH_MAX];
  plugin_file(path, sizeof path, "misnamed");
  snprintf(msg, sizeof msg,
           "%s calls itself 'impostor': a plugin's name must match its file "
           "name libkc-misnamed.so",
           path);
  expect_plugin_refusal(path, "misnamed", KC_EPLUGIN, msg);
}

/* A file not called libkc-<name>.so, given by path. */
static void sc_badly_named_file(void) {
  char path[PATH_MAX + 32], msg[2 * PATH_MAX + 512];
  snprintf(path, sizeof path, "%s/future.so", tmpdir);
  snprintf(msg, sizeof msg, "%s: a plugin file must be named libkc-<name>.so",
           path);
  set_env(path, NULL);
  expect_refusal(KC_EPLUGIN, msg);
}

static void sc_no_device(void) {
  char path[PATH_MAX], msg[2 * PATH_MAX];
  plugin_file(path, sizeof path, "nodev");
  snprintf(msg, sizeof msg,
           "backend 'nodev' (%s) found no device: test plugin nodev has no "
           "device by design",
           path);
  expect_plugin_refusal(path, "nodev", KC_ENODEV, msg);
}

/* init fails: the error is reported and no other slot is called (they
 * abort(), which would kill this child). */
static void sc_init_fails(void) {
  char path[PATH_MAX];
  plugin_file(path, sizeof path, "initfail");
  set_env(path, NULL);
  int rc = kc_init();
  KC_CHECK(rc < 0);
  KC_CHECK_CONTAINS(kc_last_error(),
                    "test plugin initfail fails its init by design");
  KC_CHECK_CONTAINS(kc_last_error(), path);
  KC_INFO("init failure: %s: %s", kc_err_name(rc), kc_last_error());
  check_recovers();
  /* twice in a row, too */
  set_env(path, NULL);
  KC_CHECK(kc_init() < 0);
  check_recovers();
}

/* A backend whose init fails is one failure among others in a preference
 * list: the next one is started, and KC_VERBOSE says why. */
static void sc_init_fails_in_list(void) {
  char path_both[2 * PATH_MAX + 2], list[64];
  const char *good = is_built("threads") ? "threads" : "serial";
  snprintf(path_both, sizeof path_both, "%s:%s", tp_dir, real_path);
  snprintf(list, sizeof list, "initfail,%s", good);
  set_env(list, path_both);
  setenv("KC_VERBOSE", "1", 1);
  captured_reset();
  if (KC_CHECK_OK(kc_init()) == 0) {
    KC_CHECK_EQ_STR(kc_backend_name(), good);
    KC_CHECK_OK(kc_finalize());
  }
  const char *out = captured();
  KC_CHECK_CONTAINS(out, "'initfail' cannot be used");
  KC_CHECK_CONTAINS(out, "test plugin initfail fails its init by design");
  unsetenv("KC_VERBOSE");
  /* Every member failing: each reason, init's included. */
  set_env("initfail,nodev", path_both);
  KC_CHECK(kc_init() < 0);
  KC_CHECK_CONTAINS(kc_last_error(),
                    "no backend of KC_BACKEND='initfail,nodev' could be "
                    "used: initfail: backend 'initfail' (");
  KC_CHECK_CONTAINS(kc_last_error(), "failed to initialise: test plugin "
                                     "initfail fails its init by design; "
                                     "nodev: ");
  check_recovers();
}

/* Automatic mode: a "cuda" plugin that probes a device but fails its init
 * (a broken driver) is skipped quietly; the next backend is used. */
static void sc_init_fails_auto(void) {
  char dirs[3 * PATH_MAX];
  snprintf(dirs, sizeof dirs, "%s/tests/testplugins/initfail-cuda/.libs:%s",
           getenv("KC_TEST_TOP_BUILDDIR"), real_path);
  const char *want = is_built("openmp")    ? "openmp"
                     : is_built("threads") ? "threads"
                                           : "serial";
  set_env(NULL, dirs);
  captured_reset();
  if (KC_CHECK_OK(kc_init()) == 0) {
    KC_CHECK_EQ_STR(kc_backend_name(), want);
    KC_CHECK_OK(kc_finalize());
  }
  KC_CHECK_EQ_STR(captured(), "");
  setenv("KC_VERBOSE", "1", 1);
  if (KC_CHECK_OK(kc_init()) == 0)
    KC_CHECK_OK(kc_finalize());
  const char *out = captured();
  KC_CHECK_CONTAINS(out, "skipping backend 'cuda': backend 'cuda' (");
  KC_CHECK_CONTAINS(out, "fails its init by design");
  unsetenv("KC_VERBOSE");
  /* Named alone, the same plugin is a hard error. */
  set_env("cuda", dirs);
  KC_CHECK(kc_init() < 0);
  KC_CHECK_CONTAINS(kc_last_error(), "fails its init by design");
  check_recovers();
}

/* A plugin of a newer minor ABI with a bigger ops struct loads and runs,
 * and its NULL memory / fence slots fall back to the core's defaults. */
static void host_sum(const void *f, kc_index b, kc_index e, void *acc) {
  (void)f;
  for (kc_index i = b; i < e; i++)
    *(int64_t *)acc += i;
}

static void sc_future_minor(void) {
  set_env("future", tp_dir);
  if (KC_CHECK_OK(kc_init()) != 0)
    return;
  KC_CHECK_EQ_STR(kc_backend_name(), "future");
  kc_info info = kc_test_info();
  char path[PATH_MAX];
  plugin_file(path, sizeof path, "future");
  KC_CHECK_EQ_STR(info.path, path);
  KC_CHECK_EQ_INT(info.abi_major, KC_BACKEND_ABI_MAJOR);
  kc_kernel_desc d;
  kc_kernel *k = NULL;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.name = "loader_sum";
  d.kind = KC_KERNEL_REDUCE;
  d.host = (void (*)(void))host_sum;
  d.reducer.op = KC_REDUCE_SUM;
  d.reducer.type = KC_INT64;
  KC_CHECK_OK(kc_kernel_register(&d, &k));
  int64_t *r = NULL, v = -1;
  KC_CHECK_OK(kc_malloc((void **)&r, sizeof *r, KC_SPACE_DEVICE, "r"));
  kc_policy p = kc_range(0, 1000);
  KC_CHECK_OK(kc_parallel_reduce("sum", k, &p, NULL, 0, r));
  KC_CHECK_OK(kc_fence());
  KC_CHECK_OK(kc_memcpy(&v, r, sizeof v));
  KC_CHECK_EQ_INT(v, 999 * 1000 / 2);
  KC_CHECK_OK(kc_free(r));
  KC_CHECK_OK(kc_finalize());
}

/* A real plugin by absolute path, with no search path at all. */
static void sc_absolute_path(void) {
  static const char *const plugins[] = {"threads", "openmp"};
  int any = 0;
  for (int k = 0; k < 2; k++) {
    if (!is_built(plugins[k]))
      continue;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/plugins/%s/.libs/libkc-%s.so",
             getenv("KC_TEST_TOP_BUILDDIR"), plugins[k], plugins[k]);
    set_env(path, NULL);
    if (KC_CHECK_OK(kc_init()) != 0)
      continue;
    any = 1;
    kc_info info = kc_test_info();
    KC_CHECK_EQ_STR(kc_backend_name(), plugins[k]);
    KC_CHECK_EQ_STR(info.path, path);
    KC_CHECK_OK(kc_finalize());
  }
  if (!any)
    KC_INFO("no host plugin built: absolute paths not tried");
  /* "serial" needs no file */
  set_env("serial", NULL);
  if (KC_CHECK_OK(kc_init()) == 0) {
    kc_info info = kc_test_info();
    KC_CHECK_EQ_STR(info.path, "built-in");
    KC_CHECK_OK(kc_finalize());
  }
}

/* Preference lists: the first that works; if none, every reason. */
static void sc_preference_list(void) {
  char path_both[2 * PATH_MAX + 2];
  const char *good = is_built("threads") ? "threads" : "serial";
  char list[256];
  snprintf(path_both, sizeof path_both, "%s:%s", tp_dir, real_path);

  snprintf(list, sizeof list, "bogus, nodev,badabi , %s,serial", good);
  set_env(list, path_both);
  if (KC_CHECK_OK(kc_init()) == 0) {
    KC_CHECK_EQ_STR(kc_backend_name(), good);
    KC_CHECK_OK(kc_finalize());
  }
  set_env("nodev,serial", path_both);
  if (KC_CHECK_OK(kc_init()) == 0) {
    KC_CHECK_EQ_STR(kc_backend_name(), "serial");
    KC_CHECK_OK(kc_finalize());
  }
  /* none works */
  char nodev[PATH_MAX];
  plugin_file(nodev, sizeof nodev, "nodev");
  set_env("bogus,nodev", path_both);
  int rc = kc_init();
  KC_CHECK(rc < 0);
  KC_CHECK_CONTAINS(kc_last_error(),
                    "no backend of KC_BACKEND='bogus,nodev' could be used: "
                    "bogus: no backend named 'bogus' (available: serial");
  char tail[PATH_MAX + 128];
  snprintf(tail, sizeof tail, "; nodev: backend 'nodev' (%s) found no device",
           nodev);
  KC_CHECK_CONTAINS(kc_last_error(), tail);
  check_recovers();
}

/* The backend kc picks with KC_BACKEND unset: cuda if it works, then
 * openmp, threads, serial.  Broken plugins elsewhere in the path are
 * ignored, and nothing is printed. */
static const char *auto_expected(void) {
  if (is_built("cuda")) {
    /* cuda's availability is the machine's: ask kc. */
    set_env("cuda", real_path);
    if (kc_init() == 0) {
      kc_finalize();
      return "cuda";
    }
  }
  return is_built("openmp")    ? "openmp"
         : is_built("threads") ? "threads"
                               : "serial";
}

static void sc_auto(void) {
  char path_both[2 * PATH_MAX + 2];
  const char *want = auto_expected();
  snprintf(path_both, sizeof path_both, "%s:%s", tp_dir, real_path);
  captured_reset();
  set_env(NULL, path_both);
  if (KC_CHECK_OK(kc_init()) == 0) {
    KC_CHECK_EQ_STR(kc_backend_name(), want);
    KC_CHECK_OK(kc_finalize());
  }
  KC_CHECK_EQ_STR(captured(), "");
  /* An empty KC_BACKEND is the same as none. */
  set_env("", path_both);
  if (KC_CHECK_OK(kc_init()) == 0) {
    KC_CHECK_EQ_STR(kc_backend_name(), want);
    KC_CHECK_OK(kc_finalize());
  }
  KC_CHECK_EQ_STR(captured(), "");
}

/* KC_VERBOSE=1 names every file tried and the choice. */
static void sc_verbose(void) {
  char path_both[2 * PATH_MAX + 2];
  const char *want = auto_expected();
  snprintf(path_both, sizeof path_both, "%s:%s", tp_dir, real_path);
  setenv("KC_VERBOSE", "1", 1);
  captured_reset();
  set_env(NULL, path_both);
  if (KC_CHECK_OK(kc_init()) == 0)
    KC_CHECK_OK(kc_finalize());
  const char *out = captured();
  KC_INFO("KC_VERBOSE=1, auto:\n%s", out);
  KC_CHECK_CONTAINS(out, "kc: ");
  KC_CHECK_CONTAINS(out, tp_dir); /* the search directories */
  static const char *const order[] = {"cuda", "openmp", "threads"};
  for (int k = 0; k < 3; k++) {
    if (!is_built(order[k]))
      continue;
    char file[PATH_MAX];
    snprintf(file, sizeof file, "%s/plugins/%s/.libs/libkc-%s.so",
             getenv("KC_TEST_TOP_BUILDDIR"), order[k], order[k]);
    KC_CHECK_CONTAINS(out, file);
    if (strcmp(order[k], want) == 0)
      break;
  }
  char chosen[64];
  snprintf(chosen, sizeof chosen, "'%s'", want);
  KC_CHECK_CONTAINS(out, chosen);

  /* A named broken plugin: the file and its refusal. */
  char path[PATH_MAX];
  plugin_file(path, sizeof path, "badabi");
  captured_reset();
  set_env("badabi", tp_dir);
  KC_CHECK_EQ_INT(kc_init(), KC_EABI);
  out = captured();
  KC_INFO("KC_VERBOSE=1, KC_BACKEND=badabi:\n%s", out);
  KC_CHECK_CONTAINS(out, path);
  KC_CHECK_CONTAINS(out, "rebuild the plugin");
  unsetenv("KC_VERBOSE");
  check_recovers();
}

/* Device index and thread count from the environment.  A device past
 * the last is a device backend's refusal (t-devmap): serial, a host
 * backend, has no device and ignores KC_DEVICE. */
static void sc_bad_environment(void) {
  set_env("serial", NULL);
  setenv("KC_DEVICE", "3", 1);
  KC_CHECK_EQ_INT(kc_init(), 0);
  KC_CHECK_OK(kc_finalize());
  setenv("KC_DEVICE", "zero", 1);
  KC_CHECK_EQ_INT(kc_init(), KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), "KC_DEVICE");
  unsetenv("KC_DEVICE");
  check_recovers();
}

/* Every refusal in a row in one process, then a good init. */
static void sc_all_in_one_process(void) {
  static const char *const broken[] = {
      "bogus",    "notso", "nosym",    "badabi",
      "misnamed", "nodev", "initfail", "/nonexistent/libkc-x.so"};
  char dirs[2 * PATH_MAX + 2];
  snprintf(dirs, sizeof dirs, "%s:%s", tp_dir, tmpdir);
  for (int round = 0; round < 3; round++)
    for (size_t k = 0; k < sizeof broken / sizeof broken[0]; k++) {
      set_env(broken[k], dirs);
      int rc = kc_init();
      if (rc >= 0) {
        KC_FAIL("KC_BACKEND=%s was accepted", broken[k]);
        kc_finalize();
      }
      KC_CHECK(kc_last_error()[0] != '\0');
    }
  check_recovers();
}

/* ------------------------------------------------------------- harness */

typedef struct scenario {
  const char *name;
  void (*fn)(void);
} scenario;

static const scenario scenarios[] = {
    {"unknown backend name", sc_unknown_name},
    {"path that does not exist", sc_missing_path},
    {"file that is not a shared object", sc_not_a_shared_object},
    {"shared object without the entry symbol", sc_no_entry_symbol},
    {"plugin of another ABI major", sc_wrong_abi},
    {"plugin whose name does not match its file", sc_misnamed},
    {"plugin with mem_alloc_on but no memory slots", sc_alloc_on_alone},
    {"plugin file not named libkc-<name>.so", sc_badly_named_file},
    {"plugin whose probe finds no device", sc_no_device},
    {"plugin whose init fails", sc_init_fails},
    {"init failure in a preference list", sc_init_fails_in_list},
    {"init failure in automatic mode", sc_init_fails_auto},
    {"plugin of a newer minor ABI", sc_future_minor},
    {"absolute path to a real plugin", sc_absolute_path},
    {"preference list", sc_preference_list},
    {"automatic choice", sc_auto},
    {"KC_VERBOSE=1", sc_verbose},
    {"bad KC_DEVICE", sc_bad_environment},
    {"every refusal in one process", sc_all_in_one_process},
};

static int run_scenario(const scenario *s) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    KC_FAIL("fork: %s", strerror(errno));
    return 0;
  }
  if (pid == 0) {
    int fd = open(stderr_file, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || dup2(fd, 2) < 0)
      _exit(99);
    close(fd);
    unsetenv("KC_VERBOSE");
    unsetenv("KC_DEVICE");
    unsetenv("KC_NUM_THREADS");
    s->fn();
    if (kc_test_failures()) {
      printf("# stderr of the scenario:\n%s\n", captured());
      fflush(stdout);
    }
    _exit(kc_test_failures() ? 1 : 0);
  }
  int st = 0;
  if (waitpid(pid, &st, 0) < 0) {
    KC_FAIL("waitpid: %s", strerror(errno));
    return 0;
  }
  if (WIFSIGNALED(st)) {
    KC_FAIL("%s: the process died of signal %d (%s); its stderr:\n%s", s->name,
            WTERMSIG(st), strsignal(WTERMSIG(st)), captured());
    return 0;
  }
  if (WEXITSTATUS(st) != 0) {
    KC_FAIL("%s: failed (see above)", s->name);
    return 0;
  }
  return 1;
}

static void cleanup(void) {
  char p[PATH_MAX + 64];
  snprintf(p, sizeof p, "%s/libkc-notso.so", tmpdir);
  unlink(p);
  snprintf(p, sizeof p, "%s/future.so", tmpdir);
  unlink(p);
  unlink(stderr_file);
  rmdir(tmpdir);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  tp_dir = getenv("KC_TEST_PLUGIN_DIR");
  real_path = getenv("KC_TEST_PLUGIN_PATH");
  built = getenv("KC_TEST_BACKENDS");
  if (!tp_dir || !real_path || !built || !getenv("KC_TEST_TOP_BUILDDIR")) {
    printf("ERROR: run me through tests/run-backend (make check), which "
           "sets KC_TEST_PLUGIN_DIR and friends\n");
    return KC_TEST_HARD_ERROR;
  }
  {
    char probe[PATH_MAX];
    plugin_file(probe, sizeof probe, "nodev");
    if (access(probe, R_OK) != 0) {
      printf("ERROR: %s is missing: the test plugins were not built\n", probe);
      return KC_TEST_HARD_ERROR;
    }
  }

  /* The files this test makes: a text file named like a plugin, a real
   * plugin under a name that is not libkc-<name>.so, the stderr capture. */
  const char *t = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/kc-t-loader-XXXXXX",
           t && *t ? t : "/tmp");
  if (!mkdtemp(tmpdir)) {
    printf("ERROR: mkdtemp(%s): %s\n", tmpdir, strerror(errno));
    return KC_TEST_HARD_ERROR;
  }
  char p[PATH_MAX + 64], target[PATH_MAX];
  snprintf(p, sizeof p, "%s/libkc-notso.so", tmpdir);
  FILE *f = fopen(p, "w");
  if (!f) {
    printf("ERROR: %s: %s\n", p, strerror(errno));
    return KC_TEST_HARD_ERROR;
  }
  fputs("This is a text file, not a shared object.\n", f);
  fclose(f);
  plugin_file(target, sizeof target, "future");
  snprintf(p, sizeof p, "%s/future.so", tmpdir);
  if (symlink(target, p) != 0) {
    printf("ERROR: symlink %s: %s\n", p, strerror(errno));
    return KC_TEST_HARD_ERROR;
  }
  snprintf(stderr_file, sizeof stderr_file, "%s/stderr", tmpdir);

  int passed = 0, n = (int)(sizeof scenarios / sizeof scenarios[0]);
  for (int k = 0; k < n; k++) {
    int ok = run_scenario(&scenarios[k]);
    passed += ok;
    printf("%s: %s\n", ok ? "ok" : "FAILED", scenarios[k].name);
  }
  printf("# %d of %d scenarios passed\n", passed, n);
  cleanup();
  return kc_test_done();
}
