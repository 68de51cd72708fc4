/* The plugin loader against hostile files and hostile settings.
 *
 * Every broken file is put where the loader looks for the threads backend
 * (a directory of its own, as libkc-threads.so) and tried four ways, each
 * in a process of its own with a time limit (kc-isolate.h): by path
 * (KC_BACKEND=<file>), by name (KC_BACKEND=threads), in automatic mode
 * (KC_BACKEND unset: the file must be skipped, quietly unless KC_VERBOSE,
 * and another backend used), and through kc-info (listed as refused, with
 * the reason).  Each refusal must carry the reason that names the defect;
 * nothing may crash (a truncated file used to kill the process with SIGBUS
 * inside dlopen) or block (a FIFO).
 *
 * Then the other libraries kc loads from a path it is given (profiling
 * tools, KC_CUDA_DRIVER), as a FIFO and cut short, and a file refused for
 * its name, which must not be loaded at all (its constructors would run).
 *
 * Then settings of any length: a KC_BACKEND longer than 4 KiB or with more
 * than 64 elements, more than 64 plugin directories, and a path of PATH_MAX
 * bytes, which must be refused rather than cut to a different file.
 *
 * Environment (set by tests/run-backend): KC_TEST_PLUGIN_DIR (the test
 * plugins), KC_TEST_TOP_BUILDDIR. */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kc/backend.h>

#include "kc-isolate.h"

#define CASE_TIMEOUT 60

static const char *top;    /* the build tree */
static const char *tp_dir; /* test plugins */
static char work[1024];    /* files made by this test */

/* One broken file: `dir`/libkc-threads.so (or `path` for KC_BACKEND=path),
 * and the text every refusal of it must contain. */
typedef struct hostile {
  const char *name;
  char dir[PATH_MAX];
  char path[PATH_MAX + 32];
  const char *reason;
} hostile;

/* ------------------------------------------------------------ helpers */

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

/* Points stderr at a file, to read back what KC_VERBOSE printed. */
static void stderr_to(const char *file) {
  int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd >= 0) {
    dup2(fd, 2);
    close(fd);
  }
}

/* A file's first bytes (at most 64 KiB), NUL-terminated, in a static
 * buffer. */
static const char *slurp(const char *file) {
  static char buf[1 << 16];
  int fd = open(file, O_RDONLY);
  ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : 0;
  if (fd >= 0)
    close(fd);
  buf[n > 0 ? n : 0] = '\0';
  return buf;
}

/* Copies at most `max` bytes of src to dst (mode 0644). */
static int copy_file(const char *src, const char *dst, size_t max) {
  int in = open(src, O_RDONLY);
  int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int rc = in >= 0 && out >= 0 ? 0 : -1;
  char buf[8192];
  size_t done = 0;
  while (rc == 0 && done < max) {
    size_t want = max - done < sizeof buf ? max - done : sizeof buf;
    ssize_t n = read(in, buf, want);
    if (n <= 0)
      break;
    if (write(out, buf, (size_t)n) != n)
      rc = -1;
    done += (size_t)n;
  }
  if (in >= 0)
    close(in);
  if (out >= 0)
    close(out);
  return rc;
}

/* A good plugin file every mutation starts from. */
static void good_plugin(char *out, size_t cap) {
  snprintf(out, cap, "%s/libkc-future.so", tp_dir);
}

/* A new case directory under work/. */
static void case_dir(hostile *h, const char *sub) {
  snprintf(h->dir, sizeof h->dir, "%s/%s", work, sub);
  if (mkdir(h->dir, 0755) != 0 && errno != EEXIST)
    KC_FAIL("mkdir %s: %s", h->dir, strerror(errno));
  snprintf(h->path, sizeof h->path, "%s/libkc-threads.so", h->dir);
}

/* A copy of the good plugin with its ELF header changed by `patch`. */
static int patched_copy(hostile *h, void (*patch)(ElfW(Ehdr) *)) {
  char src[PATH_MAX];
  good_plugin(src, sizeof src);
  if (copy_file(src, h->path, (size_t)-1) != 0)
    return -1;
  int fd = open(h->path, O_RDWR);
  ElfW(Ehdr) eh;
  int rc = fd >= 0 && pread(fd, &eh, sizeof eh, 0) == sizeof eh ? 0 : -1;
  if (rc == 0) {
    patch(&eh);
    rc = pwrite(fd, &eh, sizeof eh, 0) == sizeof eh ? 0 : -1;
  }
  if (fd >= 0)
    close(fd);
  return rc;
}

static void p_phoff(ElfW(Ehdr) * e) { e->e_phoff = (ElfW(Off)) - 256; }
static void p_phnum0(ElfW(Ehdr) * e) { e->e_phnum = 0; }
static void p_phnum_big(ElfW(Ehdr) * e) { e->e_phnum = 60000; }
static void p_class32(ElfW(Ehdr) * e) { e->e_ident[EI_CLASS] = ELFCLASS32; }
static void p_endian(ElfW(Ehdr) * e) {
  e->e_ident[EI_DATA] =
      e->e_ident[EI_DATA] == ELFDATA2LSB ? ELFDATA2MSB : ELFDATA2LSB;
}
static void p_exec(ElfW(Ehdr) * e) { e->e_type = ET_EXEC; }
static void p_machine(ElfW(Ehdr) * e) {
  e->e_machine = e->e_machine == EM_AARCH64 ? EM_X86_64 : EM_AARCH64;
}

/* A copy of the good plugin with its program headers changed by `patch`
 * (given every loadable segment's header, in file order, and their count);
 * 0 when `patch` changed something. */
static int patched_segments(hostile *h, int (*patch)(ElfW(Phdr) *, int)) {
  char src[PATH_MAX];
  good_plugin(src, sizeof src);
  if (copy_file(src, h->path, (size_t)-1) != 0)
    return -1;
  int fd = open(h->path, O_RDWR);
  ElfW(Ehdr) eh;
  ElfW(Phdr) ph[64], *load[64];
  int rc = fd >= 0 && pread(fd, &eh, sizeof eh, 0) == sizeof eh &&
                   eh.e_phnum <= 64 &&
                   pread(fd, ph, eh.e_phnum * sizeof *ph, (off_t)eh.e_phoff) ==
                       (ssize_t)(eh.e_phnum * sizeof *ph)
               ? 0
               : -1;
  int n = 0;
  for (int i = 0; rc == 0 && i < eh.e_phnum; i++)
    if (ph[i].p_type == PT_LOAD)
      load[n++] = &ph[i];
  /* patch() sees copies: the array is written back whole. */
  ElfW(Phdr) seg[64];
  for (int i = 0; i < n; i++)
    seg[i] = *load[i];
  if (rc == 0 && (rc = patch(seg, n)) == 0) {
    for (int i = 0; i < n; i++)
      *load[i] = seg[i];
    rc = pwrite(fd, ph, eh.e_phnum * sizeof *ph, (off_t)eh.e_phoff) ==
                 (ssize_t)(eh.e_phnum * sizeof *ph)
             ? 0
             : -1;
  }
  if (fd >= 0)
    close(fd);
  if (rc != 0)
    KC_INFO("%s: skipped: the plugin's segments cannot be patched", h->name);
  return rc;
}

/* The segment before the last one reaches 16 MiB further in memory, over
 * the last one and past it (the dynamic loader then mapped zero pages over
 * other libraries and the process died). */
static int s_overlap(ElfW(Phdr) * seg, int n) {
  if (n < 2)
    return -1;
  seg[n - 2].p_memsz += (ElfW(Xword))16 << 20;
  return 0;
}

/* The last segment moved to the first one's address. */
static int s_order(ElfW(Phdr) * seg, int n) {
  if (n < 2)
    return -1;
  seg[n - 1].p_vaddr = seg[0].p_vaddr;
  return 0;
}

/* ---------------------------------------------------------- the modes */

/* kc_init must fail with the reason; kc then starts with serial. */
static int expect_refused(const hostile *h) {
  int before = kc_test_failures();
  int rc = kc_init();
  KC_CHECK(rc < 0);
  if (rc == 0)
    kc_finalize();
  KC_CHECK_CONTAINS(kc_last_error(), h->reason);
  set_env("serial", NULL);
  if (KC_CHECK_OK(kc_init()) == 0)
    KC_CHECK_OK(kc_finalize());
  return kc_test_failures() > before;
}

static int mode_path(void *arg) {
  const hostile *h = arg;
  set_env(h->path, NULL);
  return expect_refused(h);
}

static int mode_named(void *arg) {
  const hostile *h = arg;
  set_env("threads", h->dir);
  return expect_refused(h);
}

/* Skipped: another backend starts, nothing is printed; under KC_VERBOSE
 * the skip and its reason are. */
static int mode_auto(void *arg) {
  const hostile *h = arg;
  int before = kc_test_failures();
  char err[PATH_MAX + 64];
  snprintf(err, sizeof err, "%s/stderr-%d", work, (int)getpid());
  stderr_to(err);
  set_env(NULL, h->dir);
  if (KC_CHECK_OK(kc_init()) == 0) {
    KC_CHECK(strcmp(kc_backend_name(), "threads") != 0);
    KC_CHECK_OK(kc_finalize());
  }
  KC_CHECK_EQ_STR(slurp(err), "");
  setenv("KC_VERBOSE", "1", 1);
  if (KC_CHECK_OK(kc_init()) == 0)
    KC_CHECK_OK(kc_finalize());
  const char *out = slurp(err);
  KC_CHECK_CONTAINS(out, "skipping backend 'threads'");
  KC_CHECK_CONTAINS(out, h->reason);
  unlink(err);
  return kc_test_failures() > before;
}

/* kc-info's way of printing a path: control characters and '\' escaped. */
static void escaped(const char *s, char *out, size_t cap) {
  size_t n = 0;
  for (; *s && n + 5 < cap; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '\n')
      n += (size_t)snprintf(out + n, cap - n, "\\n");
    else if (c == '\\')
      n += (size_t)snprintf(out + n, cap - n, "\\\\");
    else if (c < 0x20 || c == 0x7f)
      n += (size_t)snprintf(out + n, cap - n, "\\x%02x", c);
    else
      out[n++] = (char)c;
  }
  out[n] = '\0';
}

/* kc-info lists the file as refused, with the reason, and exits 0 (it
 * starts the serial backend). */
static int mode_info(void *arg) {
  const hostile *h = arg;
  int before = kc_test_failures();
  char out[PATH_MAX + 64], exe[PATH_MAX + 32];
  snprintf(out, sizeof out, "%s/info-%d", work, (int)getpid());
  snprintf(exe, sizeof exe, "%s/tools/kc-info", top);
  set_env("serial", h->dir);
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || dup2(fd, 1) < 0)
      _exit(99);
    execl(exe, exe, (char *)NULL);
    _exit(98);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  const char *text = slurp(out);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
    KC_FAIL("kc-info ended with status 0x%x; its output:\n%s", st, text);
  char esc[2 * PATH_MAX], line[2 * PATH_MAX + 64];
  escaped(h->path, esc, sizeof esc);
  snprintf(line, sizeof line, "\nplugin: %s: refused: ", esc);
  KC_CHECK_CONTAINS(text, line);
  /* The reason is on that line. */
  const char *at = strstr(text, line);
  if (at) {
    const char *eol = strchr(at + 1, '\n');
    char one[4 * PATH_MAX];
    snprintf(one, sizeof one, "%.*s", (int)(eol ? eol - at : 0), at);
    char reason[512];
    escaped(h->reason, reason, sizeof reason);
    KC_CHECK_CONTAINS(one, reason);
  }
  unlink(out);
  return kc_test_failures() > before;
}

static void run_modes(hostile *h) {
  KC_INFO("--- %s: %s", h->name, h->path);
  kc_isolate("by path", mode_path, h, CASE_TIMEOUT);
  if (strncmp(h->path, h->dir, strlen(h->dir)) == 0) {
    kc_isolate("by name", mode_named, h, CASE_TIMEOUT);
    kc_isolate("automatic", mode_auto, h, CASE_TIMEOUT);
    kc_isolate("kc-info", mode_info, h, CASE_TIMEOUT);
  }
}

/* ---------------------------------------------------------- the files */

static void file_cases(void) {
  char good[PATH_MAX];
  good_plugin(good, sizeof good);
  hostile h;

  memset(&h, 0, sizeof h);
  h.name = "a plugin cut to 4 KiB";
  case_dir(&h, "truncated");
  h.reason = "it is truncated: its loadable segment";
  if (copy_file(good, h.path, 4096) == 0)
    run_modes(&h);

  h.name = "a plugin cut inside its program headers";
  case_dir(&h, "truncated-phdrs");
  h.reason = "its program headers";
  if (copy_file(good, h.path, 100) == 0)
    run_modes(&h);

  h.name = "an ELF header cut short";
  case_dir(&h, "truncated-ehdr");
  h.reason = "it is truncated: 20 bytes, less than an ELF header";
  if (copy_file(good, h.path, 20) == 0)
    run_modes(&h);

  h.name = "an empty file";
  case_dir(&h, "empty");
  h.reason = "it is an empty file";
  if (copy_file(good, h.path, 0) == 0)
    run_modes(&h);

  h.name = "a directory";
  case_dir(&h, "directory");
  h.reason = "it is a directory, not a file";
  if (mkdir(h.path, 0755) == 0)
    run_modes(&h);

  h.name = "a text file";
  case_dir(&h, "text");
  h.reason = "it is not an ELF file (no ELF magic number)";
  {
    FILE *f = fopen(h.path, "w");
    if (f) {
      fputs("#!/bin/sh\necho not a plugin\n", f);
      fclose(f);
      run_modes(&h);
    }
  }

  h.name = "an e_phoff far beyond the end";
  case_dir(&h, "phoff");
  h.reason = "its program headers";
  if (patched_copy(&h, p_phoff) == 0)
    run_modes(&h);

  h.name = "no program headers (e_phnum 0)";
  case_dir(&h, "phnum0");
  h.reason = "a corrupt ELF file: no program headers";
  if (patched_copy(&h, p_phnum0) == 0)
    run_modes(&h);

  h.name = "an e_phnum past the end of the file";
  case_dir(&h, "phnum-big");
  h.reason = "its program headers";
  if (patched_copy(&h, p_phnum_big) == 0)
    run_modes(&h);

  h.name = "loadable segments that overlap in memory";
  case_dir(&h, "overlap");
  h.reason = "must be in ascending order and must not overlap";
  if (patched_segments(&h, s_overlap) == 0)
    run_modes(&h);

  h.name = "loadable segments out of order";
  case_dir(&h, "order");
  h.reason = "must be in ascending order and must not overlap";
  if (patched_segments(&h, s_order) == 0)
    run_modes(&h);

  h.name = "a 32-bit ELF file";
  case_dir(&h, "class32");
  h.reason = "it is a 32-bit ELF file, but this process is 64-bit";
  if (sizeof(void *) == 8 && patched_copy(&h, p_class32) == 0)
    run_modes(&h);

  h.name = "an ELF file of the other byte order";
  case_dir(&h, "endian");
  h.reason = "it is an ELF file of the other byte order";
  if (patched_copy(&h, p_endian) == 0)
    run_modes(&h);

  h.name = "an ELF file of another architecture";
  case_dir(&h, "machine");
#if defined(__aarch64__)
  h.reason = "it is an ELF file for x86-64 (ELF machine 62), not for this "
             "machine (AArch64)";
#elif defined(__x86_64__)
  h.reason = "it is an ELF file for AArch64 (ELF machine 183), not for this "
             "machine (x86-64)";
#else
  h.reason = "it is an ELF file for ";
#endif
  if (patched_copy(&h, p_machine) == 0)
    run_modes(&h);

  h.name = "an executable, not a shared object";
  case_dir(&h, "exec");
  h.reason = "it is not a shared object: it is an executable";
  if (patched_copy(&h, p_exec) == 0)
    run_modes(&h);

  char src[PATH_MAX + 32];
  h.name = "a shared object without the entry symbol";
  case_dir(&h, "nosym");
  h.reason = "is not a kc plugin: it has no symbol kc_backend_threads";
  snprintf(src, sizeof src, "%s/libkc-nosym.so", tp_dir);
  if (copy_file(src, h.path, (size_t)-1) == 0)
    run_modes(&h);

  h.name = "an entry symbol of 4 bytes";
  snprintf(h.dir, sizeof h.dir, "%s/tests/testplugins/tiny/.libs", top);
  snprintf(h.path, sizeof h.path, "%s/libkc-threads.so", h.dir);
  h.reason = "is not a kc plugin: its kc_backend_threads is 4 bytes, too "
             "small for a kc_backend_ops";
  run_modes(&h);

  h.name = "an entry symbol that is a function";
  snprintf(h.dir, sizeof h.dir, "%s/tests/testplugins/fnsym/.libs", top);
  snprintf(h.path, sizeof h.path, "%s/libkc-threads.so", h.dir);
  h.reason = "is not a kc plugin: its kc_backend_threads is a function, not "
             "a kc_backend_ops";
  run_modes(&h);

  h.name = "a thread-local entry symbol";
  snprintf(h.dir, sizeof h.dir, "%s/tests/testplugins/tlssym/.libs", top);
  snprintf(h.path, sizeof h.path, "%s/libkc-threads.so", h.dir);
  h.reason = "is corrupt: its kc_backend_threads does not lie in the "
             "plugin's own memory";
  run_modes(&h);

  h.name = "an unreadable file (mode 000)";
  case_dir(&h, "unreadable");
  h.reason = "Permission denied";
  if (geteuid() == 0)
    KC_INFO("%s: skipped: this test runs as root, which reads it anyway",
            h.name);
  else if (copy_file(good, h.path, (size_t)-1) == 0 && chmod(h.path, 0) == 0)
    run_modes(&h);

  h.name = "a FIFO";
  case_dir(&h, "fifo");
  h.reason = "it is a FIFO, not a file";
  if (mkfifo(h.path, 0644) == 0)
    run_modes(&h);
  else
    KC_FAIL("mkfifo %s: %s", h.path, strerror(errno));

  static const char *const devices[] = {"/dev/zero", "/dev/urandom"};
  for (int d = 0; d < 2; d++) {
    h.name = devices[d];
    case_dir(&h, d ? "urandom" : "zero");
    h.reason = "it is a character device, not a file";
    if (symlink(devices[d], h.path) == 0)
      run_modes(&h);
    snprintf(h.path, sizeof h.path, "%s", devices[d]);
    run_modes(&h); /* by path only */
  }

  h.name = "a sparse file of 64 GiB";
  case_dir(&h, "sparse");
  h.reason = "it is not an ELF file (no ELF magic number)";
  {
    int fd = open(h.path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0 && ftruncate(fd, (off_t)64 << 30) == 0)
      run_modes(&h);
    else
      KC_INFO("%s: skipped: cannot make one here: %s", h.name, strerror(errno));
    if (fd >= 0)
      close(fd);
    unlink(h.path);
  }

  h.name = "a path with newlines";
  case_dir(&h, "new\nline\n");
  h.reason = "it is truncated: its loadable segment";
  if (copy_file(good, h.path, 4096) == 0)
    run_modes(&h);

  h.name = "a dangling symbolic link";
  case_dir(&h, "dangling");
  h.reason = "it is a dangling symbolic link (to '/nonexistent-kc/libkc-x.so'";
  if (symlink("/nonexistent-kc/libkc-x.so", h.path) == 0)
    run_modes(&h);

  h.name = "a symbolic link loop";
  case_dir(&h, "loop");
  h.reason = "it is a symbolic link loop";
  if (symlink("libkc-threads.so", h.path) == 0)
    run_modes(&h);
}

/* ------------------------------------------ libraries besides plugins */

/* A library kc is told to load (a tool, the CUDA driver) that is a FIFO or
 * a truncated file: dlopen() blocked on the FIFO for ever and died of
 * SIGBUS on the truncated file, inside kc_init. */
typedef struct other_lib {
  const char *var;    /* the variable that names it */
  const char *path;   /* the file */
  const char *reason; /* what the refusal must say */
} other_lib;

/* A tool that cannot be loaded is reported on stderr and kc_init goes on
 * (doc/profiling.md). */
static int tool_refused(void *arg) {
  const other_lib *o = arg;
  int before = kc_test_failures();
  char err[PATH_MAX + 64];
  snprintf(err, sizeof err, "%s/stderr-%d", work, (int)getpid());
  stderr_to(err);
  set_env("serial", NULL);
  setenv(o->var, o->path, 1);
  if (KC_CHECK_OK(kc_init()) == 0) {
    KC_CHECK_EQ_STR(kc_last_error(), "");
    KC_CHECK_OK(kc_finalize());
  }
  const char *out = slurp(err);
  KC_CHECK_CONTAINS(out, "kc: cannot load tool library");
  KC_CHECK_CONTAINS(out, o->reason);
  unlink(err);
  return kc_test_failures() > before;
}

/* KC_CUDA_DRIVER names a stand-in for libcuda: the cuda backend has no
 * device then, with the reason. */
static int driver_refused(void *arg) {
  const other_lib *o = arg;
  int before = kc_test_failures();
  char cuda[PATH_MAX + 64];
  snprintf(cuda, sizeof cuda, "%s/plugins/cuda/.libs/libkc-cuda.so", top);
  set_env(cuda, NULL);
  setenv(o->var, o->path, 1);
  int rc = kc_init();
  KC_CHECK_EQ_INT(rc, KC_ENODEV);
  if (rc == 0)
    kc_finalize();
  KC_CHECK_CONTAINS(kc_last_error(), o->reason);
  return kc_test_failures() > before;
}

/* A file refused for its name (not libkc-<name>.so) is never loaded: its
 * constructors do not run.  The marker library writes KC_TEST_MARKER when
 * it is loaded. */
static int misnamed_not_loaded(void *arg) {
  const char *file = arg;
  int before = kc_test_failures();
  char marker[PATH_MAX + 64];
  snprintf(marker, sizeof marker, "%s/marker-%d", work, (int)getpid());
  setenv("KC_TEST_MARKER", marker, 1);
  set_env(file, NULL);
  KC_CHECK_EQ_INT(kc_init(), KC_EPLUGIN);
  KC_CHECK_CONTAINS(kc_last_error(), "must be named libkc-<name>.so");
  KC_CHECK(access(marker, F_OK) != 0);
  unsetenv("KC_TEST_MARKER");
  return kc_test_failures() > before;
}

static void other_lib_cases(void) {
  KC_INFO("--- libraries besides plugins");
  char good[PATH_MAX], fifo[PATH_MAX + 32], cut[PATH_MAX + 32];
  good_plugin(good, sizeof good);
  snprintf(fifo, sizeof fifo, "%s/libkc-fifo-tool.so", work);
  snprintf(cut, sizeof cut, "%s/libkc-cut-tool.so", work);
  if (mkfifo(fifo, 0644) != 0)
    KC_FAIL("mkfifo %s: %s", fifo, strerror(errno));
  if (copy_file(good, cut, 4096) != 0)
    KC_FAIL("cannot copy %s", good);
  static const char *const vars[] = {"KC_TOOLS_LIBS", "KOKKOS_TOOLS_LIBS"};
  for (int v = 0; v < 2; v++) {
    other_lib f = {vars[v], fifo, "it is a FIFO, not a file"};
    other_lib c = {vars[v], cut, "it is truncated: its loadable segment"};
    kc_isolate(v ? "KOKKOS_TOOLS_LIBS=<a FIFO>" : "KC_TOOLS_LIBS=<a FIFO>",
               tool_refused, &f, CASE_TIMEOUT);
    kc_isolate(v ? "KOKKOS_TOOLS_LIBS=<truncated>"
                 : "KC_TOOLS_LIBS=<truncated>",
               tool_refused, &c, CASE_TIMEOUT);
    unsetenv(vars[v]);
  }
  char cuda[PATH_MAX + 64];
  snprintf(cuda, sizeof cuda, "%s/plugins/cuda/.libs/libkc-cuda.so", top);
  if (access(cuda, R_OK) == 0) {
    other_lib f = {"KC_CUDA_DRIVER", fifo, "it is a FIFO, not a file"};
    other_lib c = {"KC_CUDA_DRIVER", cut,
                   "it is truncated: its loadable segment"};
    kc_isolate("KC_CUDA_DRIVER=<a FIFO>", driver_refused, &f, CASE_TIMEOUT);
    kc_isolate("KC_CUDA_DRIVER=<truncated>", driver_refused, &c, CASE_TIMEOUT);
  } else {
    KC_INFO("KC_CUDA_DRIVER cases skipped: no cuda plugin built (%s)", cuda);
  }
  char marker_lib[PATH_MAX + 64], misnamed[PATH_MAX + 32];
  snprintf(marker_lib, sizeof marker_lib,
           "%s/tests/testplugins/marker/.libs/libkc-threads.so", top);
  snprintf(misnamed, sizeof misnamed, "%s/not-a-kc-plugin.so", work);
  if (copy_file(marker_lib, misnamed, (size_t)-1) == 0)
    kc_isolate("a misnamed file is not loaded", misnamed_not_loaded, misnamed,
               CASE_TIMEOUT);
  else
    KC_FAIL("cannot copy %s", marker_lib);
}

/* A link that leads nowhere is not an available backend. */
static int broken_links_not_available(void *arg) {
  (void)arg;
  int before = kc_test_failures();
  char dirs[3 * PATH_MAX];
  snprintf(dirs, sizeof dirs, "%s/dangling:%s/loop", work, work);
  set_env("bogus", dirs);
  KC_CHECK_EQ_INT(kc_init(), KC_ENOBACKEND);
  KC_CHECK_CONTAINS(kc_last_error(), "no backend named 'bogus' (available: ");
  KC_CHECK_NOT_CONTAINS(kc_last_error(), "threads");
  return kc_test_failures() > before;
}

/* ----------------------------------------------------- long settings */

/* A list of `n` unknown names, then the good test plugin `future`. */
static int long_list(void *arg) {
  int n = *(int *)arg, before = kc_test_failures();
  size_t cap = (size_t)n * 16 + 16;
  char *list = malloc(cap);
  size_t len = 0;
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(list + len, cap - len, "bogus%04d,", i);
  snprintf(list + len, cap - len, "future");
  KC_INFO("KC_BACKEND of %zu bytes, %d elements", strlen(list), n + 1);
  set_env(list, tp_dir);
  if (KC_CHECK_OK(kc_init()) == 0) {
    KC_CHECK_EQ_STR(kc_backend_name(), "future");
    KC_CHECK_OK(kc_finalize());
  }
  free(list);
  return kc_test_failures() > before;
}

/* `n` plugin directories that do not exist, then the test plugins. */
static int many_dirs(void *arg) {
  int n = *(int *)arg, before = kc_test_failures();
  size_t cap = (size_t)n * 32 + strlen(tp_dir) + 1;
  char *path = malloc(cap);
  size_t len = 0;
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(path + len, cap - len, "/nonexistent-kc/d%04d:", i);
  snprintf(path + len, cap - len, "%s", tp_dir);
  set_env("future", path);
  if (KC_CHECK_OK(kc_init()) == 0) {
    KC_CHECK_EQ_STR(kc_backend_name(), "future");
    KC_CHECK_OK(kc_finalize());
  }
  free(path);
  return kc_test_failures() > before;
}

/* A path of PATH_MAX - 1 bytes to the good plugin loads; one byte more
 * (a name the kernel cannot open) is refused, not cut back to the first. */
static int path_max(void *arg) {
  (void)arg;
  int before = kc_test_failures();
  char good[PATH_MAX], path[PATH_MAX + 2];
  good_plugin(good, sizeof good);
  /* work/ddd.../ddd.../libkc-future.so, nested to PATH_MAX - 1 bytes. */
  size_t tail = strlen("/libkc-future.so");
  size_t len = (size_t)snprintf(path, sizeof path, "%s", work);
  while (len + tail < PATH_MAX - 1) {
    size_t room = PATH_MAX - 1 - tail - len - 1; /* after the '/' */
    size_t seg = room > 200 ? 200 : room;
    if (seg == 0)
      break;
    path[len++] = '/';
    memset(path + len, 'd', seg);
    len += seg;
    path[len] = '\0';
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
      KC_FAIL("mkdir (%zu bytes): %s", len, strerror(errno));
      return 1;
    }
  }
  snprintf(path + len, sizeof path - len, "/libkc-future.so");
  KC_CHECK_EQ_INT((int)strlen(path), PATH_MAX - 1);
  if (symlink(good, path) != 0) {
    KC_FAIL("symlink (%zu bytes): %s", strlen(path), strerror(errno));
    return 1;
  }
  set_env(path, NULL);
  if (KC_CHECK_OK(kc_init()) == 0) {
    KC_CHECK_EQ_STR(kc_backend_name(), "future");
    KC_CHECK_OK(kc_finalize());
  }
  /* One byte longer: that file does not exist, and the loader must not
   * load its prefix. */
  strcat(path, "x");
  set_env(path, NULL);
  int rc = kc_init();
  KC_CHECK_EQ_INT(rc, KC_EPLUGIN);
  if (rc == 0)
    kc_finalize();
  KC_CHECK_CONTAINS(kc_last_error(), "longer than this system's limit");
  return kc_test_failures() > before;
}

/* ------------------------------------------------------------- main */

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  top = getenv("KC_TEST_TOP_BUILDDIR");
  tp_dir = getenv("KC_TEST_PLUGIN_DIR");
  if (!top || !tp_dir) {
    printf("ERROR: run me through tests/run-backend (make check)\n");
    return KC_TEST_HARD_ERROR;
  }
  const char *t = getenv("TMPDIR");
  snprintf(work, sizeof work, "%s/kc-t-loader-files-XXXXXX",
           t && *t ? t : "/tmp");
  if (!mkdtemp(work)) {
    printf("ERROR: mkdtemp(%s): %s\n", work, strerror(errno));
    return KC_TEST_HARD_ERROR;
  }
  unsetenv("KC_VERBOSE");
  unsetenv("KC_TOOLS_LIBS");
  unsetenv("KOKKOS_TOOLS_LIBS");

  file_cases();
  other_lib_cases();
  KC_ISOLATE(broken_links_not_available, NULL, CASE_TIMEOUT);
  int n64 = 64, n700 = 700;
  KC_INFO("--- settings of any length");
  kc_isolate("65-element KC_BACKEND", long_list, &n64, CASE_TIMEOUT);
  kc_isolate("7 KiB KC_BACKEND", long_list, &n700, CASE_TIMEOUT);
  kc_isolate("100 plugin directories", many_dirs, &(int){99}, CASE_TIMEOUT);
  KC_ISOLATE(path_max, NULL, CASE_TIMEOUT);

  char cmd[PATH_MAX + 32];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
  if (system(cmd) != 0)
    KC_INFO("could not remove %s", work);
  return kc_test_done();
}
