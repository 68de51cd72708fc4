/* libkc — finding, checking and choosing a backend plugin.
 *
 * A plugin is a file libkc-<name>.so exporting kc_backend_<name>.  Files are
 * looked for in KC_PLUGIN_PATH, then the kc/ directory beside libkc.so, then
 * the configured $(pkglibdir).  Every check a file can fail has its own
 * one-line message naming the file, so that a user (and kc-info) can see
 * why a backend was not taken.
 *
 * A plugin, once dlopen()ed, is never unmapped (RTLD_NODELETE): its
 * constructors ran at dlopen() and may have started threads or kept
 * pointers into it, even when the loader then refuses the file (a wrong
 * ABI, a missing slot), and once probe ran it may hold driver state.  The
 * dlclose() calls on refusal only drop the reference.
 *
 * Nothing is dlopen()ed blindly: the file is first opened without blocking
 * and its ELF layout checked (loader-elf.c), since the dynamic loader
 * faults on a truncated file, maps overlapping segments over other
 * libraries and blocks on a FIFO.  What lies past the layout (relocations,
 * the dynamic symbol table) is dlopen()'s to judge: a file corrupt there
 * can still crash inside the dynamic loader, and an entry symbol of type
 * GNU_IFUNC runs its resolver inside dlsym().  The file is opened again
 * by dlopen(), so a file replaced between the check and the load is not
 * checked (whoever can replace plugin files can run code anyway).
 * Settings and paths are held in allocated memory, whatever their
 * length.
 */
#include <config.h>

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "loader.h"

#ifndef KC_PLUGINDIR
#define KC_PLUGINDIR "/usr/local/lib/kc"
#endif

/* Preference order when KC_BACKEND is unset (serial is the last resort). */
static const char *const auto_order[] = {"cuda", "openmp", "threads"};

/* ------------------------------------------------------------ strings */

/* A growing string; on allocation failure it stays as it was and `oom` is
 * set, so that a report degrades instead of failing. */
typedef struct strbuf {
  char *s;
  size_t len, cap;
  int oom;
} strbuf;

__attribute__((format(printf, 2, 3))) static void
sb_addf(strbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || b->oom)
    return;
  if (b->len + (size_t)n + 1 > b->cap) {
    size_t cap = (b->len + (size_t)n + 1) * 2;
    char *s = realloc(b->s, cap);
    if (!s) {
      b->oom = 1;
      return;
    }
    b->s = s;
    b->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

static const char *sb_str(const strbuf *b) {
  return b->s ? b->s : "(out of memory)";
}

/* "dir/libkc-name.so", allocated. */
static char *join_plugin(const char *dir, const char *name) {
  strbuf b = {0};
  sb_addf(&b, "%s/libkc-%s.so", dir, name);
  if (b.oom) {
    free(b.s);
    return NULL;
  }
  return b.s;
}

void kc__strv_free(char **v, int n) {
  for (int i = 0; i < n; i++)
    free(v[i]);
  free(v);
}

static int strv_push(char ***v, int *n, int *cap, char *s) {
  if (!s)
    return -1;
  if (*n == *cap) {
    int nc = *cap ? 2 * *cap : 8;
    char **nv = realloc(*v, (size_t)nc * sizeof *nv);
    if (!nv) {
      free(s);
      return -1;
    }
    *v = nv;
    *cap = nc;
  }
  (*v)[(*n)++] = s;
  return 0;
}

/* Splits s at `sep`; each element goes through `clean` (which shortens it
 * in place); empty elements are dropped. */
static int split(const char *s, char sep, void (*clean)(char *), char ***out) {
  char **v = NULL;
  int n = 0, cap = 0;
  *out = NULL;
  for (const char *p = s ? s : "";;) {
    const char *c = strchr(p, sep);
    size_t len = c ? (size_t)(c - p) : strlen(p);
    char *e = strndup(p, len);
    if (!e) {
      kc__strv_free(v, n);
      return kc__error(KC_ENOMEM, "out of memory splitting a list");
    }
    clean(e);
    if (!*e)
      free(e);
    else if (strv_push(&v, &n, &cap, e) < 0) {
      kc__strv_free(v, n);
      return kc__error(KC_ENOMEM, "out of memory splitting a list");
    }
    if (!c)
      break;
    p = c + 1;
  }
  *out = v;
  return n;
}

static void trim_blanks(char *e) {
  size_t skip = strspn(e, " \t"), len = strlen(e + skip);
  memmove(e, e + skip, len + 1);
  while (len && (e[len - 1] == ' ' || e[len - 1] == '\t'))
    e[--len] = '\0';
}

static void trim_slashes(char *e) {
  size_t len = strlen(e);
  while (len > 1 && e[len - 1] == '/')
    e[--len] = '\0';
}

int kc__backend_list_parse(const char *s, char ***out) {
  return split(s, ',', trim_blanks, out);
}

int kc__plugin_path_parse(const char *s, char ***out) {
  return split(s, ':', trim_slashes, out);
}

/* -------------------------------------------------------- search path */

typedef struct search_dir {
  char *dir;
  char *real; /* realpath() of dir, or NULL */
  const char *origin;
  int exists;
} search_dir;

typedef struct search_path {
  int n, cap;
  search_dir *d;
} search_path;

static int is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void search_path_free(search_path *sp) {
  for (int i = 0; i < sp->n; i++) {
    free(sp->d[i].dir);
    free(sp->d[i].real);
  }
  free(sp->d);
  sp->d = NULL;
  sp->n = sp->cap = 0;
}

/* Takes `dir` (allocated).  The same directory reached twice (a symlink,
 * "lib/../lib") is listed once, where it first appears. */
static int add_dir(search_path *sp, char *dir, const char *origin) {
  if (!dir)
    return kc__error(KC_ENOMEM, "out of memory building the plugin path");
  char *real = realpath(dir, NULL);
  const char *key = real ? real : dir;
  for (int i = 0; i < sp->n; i++) {
    const char *ki = sp->d[i].real ? sp->d[i].real : sp->d[i].dir;
    if (strcmp(ki, key) == 0) {
      free(dir);
      free(real);
      return 0;
    }
  }
  if (sp->n == sp->cap) {
    int nc = sp->cap ? 2 * sp->cap : 8;
    search_dir *nd = realloc(sp->d, (size_t)nc * sizeof *nd);
    if (!nd) {
      free(dir);
      free(real);
      return kc__error(KC_ENOMEM, "out of memory building the plugin path");
    }
    sp->d = nd;
    sp->cap = nc;
  }
  search_dir *d = &sp->d[sp->n++];
  d->dir = dir;
  d->real = real;
  d->origin = origin;
  d->exists = is_dir(dir);
  return 0;
}

/* The kc/ directory beside the libkc.so that is running, found from one of
 * its own symbols, so that a relocated installation finds its plugins. */
static char *beside_libkc(void) {
  Dl_info di;
  if (!dladdr((void *)&kc_init, &di) || !di.dli_fname ||
      !strchr(di.dli_fname, '/'))
    return NULL;
  char *real = realpath(di.dli_fname, NULL);
  const char *f = real ? real : di.dli_fname;
  strbuf b = {0};
  sb_addf(&b, "%.*s/kc", (int)(strrchr(f, '/') - f), f);
  free(real);
  if (b.oom) {
    free(b.s);
    return NULL;
  }
  return b.s;
}

static int search_path_build(search_path *sp) {
  memset(sp, 0, sizeof *sp);
  char **env = NULL;
  int n = kc__plugin_path_parse(kc__secure_getenv("KC_PLUGIN_PATH"), &env);
  if (n < 0)
    return n;
  int rc = 0;
  for (int i = 0; i < n && rc == 0; i++) {
    rc = add_dir(sp, env[i], KC__DIR_ENV);
    env[i] = NULL;
  }
  kc__strv_free(env, n);
  char *beside = rc == 0 ? beside_libkc() : NULL;
  if (beside)
    rc = add_dir(sp, beside, KC__DIR_BESIDE);
  if (rc == 0)
    rc = add_dir(sp, strdup(KC_PLUGINDIR), KC__DIR_CONFIGURED);
  if (rc < 0)
    search_path_free(sp);
  return rc;
}

/* The <name> of a file called libkc-<name>.so, or 0. */
static int name_from_file(const char *path, char *name, size_t cap) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t len = strlen(base);
  if (len <= 9 || strncmp(base, "libkc-", 6) != 0 ||
      strcmp(base + len - 3, ".so") != 0)
    return 0;
  size_t n = len - 9;
  if (n >= cap)
    return 0;
  for (size_t i = 0; i < n; i++) {
    char c = base[6 + i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_'))
      return 0;
  }
  memcpy(name, base + 6, n);
  name[n] = '\0';
  return 1;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The plugin file names (libkc-*.so) of one directory, sorted; the caller
 * frees them with kc__strv_free. */
static int scan_dir(const char *dir, char ***out) {
  *out = NULL;
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  int n = 0, cap = 0;
  char **v = NULL;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    char name[NAME_MAX + 1];
    if (!name_from_file(e->d_name, name, sizeof name))
      continue;
    if (strv_push(&v, &n, &cap, strdup(e->d_name)) < 0)
      break;
  }
  closedir(d);
  if (n)
    qsort(v, (size_t)n, sizeof *v, cmp_str);
  *out = v;
  return n;
}

/* The first file libkc-<name>.so in the search path: 0 and *path
 * (allocated); KC_ENOBACKEND when there is none; KC_ENOMEM (with the
 * detail) when a name could not be built, which is not "absent": a
 * preference list must not go on to its next backend for it.  A symbolic
 * link counts even when it leads nowhere: the file check then says so. */
static int find_named(const search_path *sp, const char *name, char **path) {
  *path = NULL;
  for (int i = 0; i < sp->n; i++) {
    struct stat st;
    char *p = join_plugin(sp->d[i].dir, name);
    if (!p)
      return kc__error(KC_ENOMEM,
                       "out of memory looking for backend '%s' in %s", name,
                       sp->d[i].dir);
    if (lstat(p, &st) == 0) {
      *path = p;
      return 0;
    }
    free(p);
  }
  return KC_ENOBACKEND;
}

/* Whether the ", "-separated list `list` has `name`. */
static int list_has(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    if (len == n && strncmp(p, name, n) == 0)
      return 1;
    p += len;
    while (*p == ',' || *p == ' ')
      p++;
  }
  return 0;
}

/* "serial, threads, openmp": the built-in backend and every plugin name
 * whose file is a regular file, or a link to one, in the search path (a
 * link that leads nowhere is not a backend), in search order, each once. */
static void available_names(const search_path *sp, strbuf *b) {
  sb_addf(b, "serial");
  for (int i = 0; i < sp->n; i++) {
    char **files;
    int nf = scan_dir(sp->d[i].dir, &files);
    for (int f = 0; f < nf; f++) {
      char name[NAME_MAX + 1];
      struct stat st;
      name_from_file(files[f], name, sizeof name);
      char *path = join_plugin(sp->d[i].dir, name);
      if (path && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
          !list_has(sb_str(b), name))
        sb_addf(b, ", %s", name);
      free(path);
    }
    kc__strv_free(files, nf);
  }
}

/* --------------------------------------------------------- checking */

typedef struct checked {
  const kc_backend_ops *ops;
  int ndevices;
  unsigned abi_major, abi_minor;
} checked;

static const char *file_kind(mode_t m) {
  return S_ISDIR(m)    ? "a directory"
         : S_ISFIFO(m) ? "a FIFO"
         : S_ISCHR(m)  ? "a character device"
         : S_ISBLK(m)  ? "a block device"
         : S_ISSOCK(m) ? "a socket"
                       : "not a regular file";
}

static int read_at(void *ctx, uint64_t off, void *buf, size_t n) {
  int fd = *(int *)ctx;
  for (size_t done = 0; done < n;) {
    ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    done += (size_t)r;
  }
  return 0;
}

/* What open() found instead of a file, for a symbolic link that leads
 * nowhere. */
static int refuse_link(const char *path, int err) {
  if (err == ELOOP)
    return kc__error(KC_EPLUGIN,
                     "cannot load %s: it is a symbolic link loop (or a chain "
                     "of links too long to follow)",
                     path);
  char *to = NULL;
  struct stat st;
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
      (to = malloc((size_t)st.st_size + 1)) != NULL) {
    ssize_t n = readlink(path, to, (size_t)st.st_size + 1);
    if (n >= 0 && n <= st.st_size) {
      to[n] = '\0';
      int rc = kc__error(KC_EPLUGIN,
                         "cannot load %s: it is a dangling symbolic link "
                         "(to '%s', which leads nowhere)",
                         path, to);
      free(to);
      return rc;
    }
  }
  free(to);
  return kc__error(KC_EPLUGIN, "cannot load %s: %s", path, strerror(err));
}

/* Before dlopen(): the file is a regular file whose ELF layout the dynamic
 * loader can map without faulting (loader-elf.c).  Opened without blocking,
 * so that a FIFO named like a plugin is refused instead of waited on.
 * Plugins, profiling tools (profiling.c) and, through
 * kc_backend_check_library, the CUDA driver a user names. */
int kc__check_library(const char *path) {
  if (strlen(path) >= PATH_MAX)
    return kc__error(KC_EPLUGIN,
                     "cannot load %.200s...: its path is %zu bytes long, "
                     "longer than this system's limit of %d",
                     path, strlen(path), PATH_MAX - 1);
  int fd;
  do /* a handler without SA_RESTART may interrupt a slow file system */
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    int err = errno;
    return err == ELOOP || err == ENOENT
               ? refuse_link(path, err)
               : kc__error(KC_EPLUGIN, "cannot load %s: %s", path,
                           strerror(err));
  }
  struct stat st;
  char why[512];
  int rc = 0;
  if (fstat(fd, &st) != 0)
    rc = kc__error(KC_EPLUGIN, "cannot load %s: %s", path, strerror(errno));
  else if (!S_ISREG(st.st_mode))
    rc = kc__error(KC_EPLUGIN, "cannot load %s: it is %s, not a file", path,
                   file_kind(st.st_mode));
  else if (kc__elf_check(read_at, &fd, (uint64_t)st.st_size, why, sizeof why) <
           0)
    rc = kc__error(KC_EPLUGIN, "cannot load %s: it is %s", path, why);
  close(fd);
  return rc;
}

int kc_backend_abi_minor(void) { return KC_BACKEND_ABI_MINOR; }

int kc_backend_check_library(const char *path) {
  if (!path || !*path)
    return kc__error(KC_EINVAL, "kc_backend_check_library: the path is %s",
                     path ? "empty" : "NULL");
  return kc__check_library(path);
}

/* The one list of reasons a plugin file is refused.  On success the file
 * stays loaded and its probe found at least one device. */
static int check_file(const char *path, checked *c) {
  memset(c, 0, sizeof *c);
  int rc = kc__check_library(path);
  if (rc < 0)
    return rc;
  /* The name before dlopen(): a file that is refused for its name anyway
   * must not have its constructors run. */
  char name[NAME_MAX + 1];
  if (!name_from_file(path, name, sizeof name))
    return kc__error(KC_EPLUGIN,
                     "%s: a plugin file must be named libkc-<name>.so", path);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!h) {
    const char *why = dlerror();
    return kc__error(KC_EPLUGIN, "cannot load %s: %s", path,
                     why ? why : "unknown dlopen error");
  }
  char sym[NAME_MAX + 16];
  snprintf(sym, sizeof sym, "kc_backend_%s", name);
  dlerror();
  const kc_backend_ops *ops = (const kc_backend_ops *)dlsym(h, sym);
  if (!ops) {
    dlclose(h);
    return kc__error(KC_EPLUGIN, "%s is not a kc plugin: it has no symbol %s",
                     path, sym);
  }
  /* The plugin must call this libkc: one linked against another copy (a
   * program linked with a static libkc.a brings the plugin's libkc.so.1
   * in as a second runtime) would report its errors and kernel marks to
   * that copy, which nobody reads. */
  void *theirs = dlsym(h, "kc_backend_error");
  if (theirs && theirs != (void *)kc_backend_error) {
    Dl_info other;
    const char *where = dladdr(theirs, &other) && other.dli_fname
                            ? other.dli_fname
                            : "another file";
    kc__error(KC_EPLUGIN,
              "%s calls another copy of libkc (%s), not this one: a "
              "program linked with the static libkc.a runs only the "
              "built-in serial backend; link it with the shared libkc",
              path, where);
    dlclose(h);
    return KC_EPLUGIN;
  }
  /* The symbol's own entry, where the dynamic loader knows it: a plugin
   * whose entry symbol is smaller than what it claims (or not an object at
   * all) would have the core read past it.  The address must lie in the
   * plugin's own mapping: a symbol whose value points elsewhere (a corrupt
   * file), or a thread-local one (dlsym gives this thread's copy, which no
   * object maps), would have the core read whatever is there. */
  const ElfW(Sym) *se = NULL;
  Dl_info sdi;
  struct link_map *in = NULL, *mine = NULL;
  if (!dladdr1(ops, &sdi, (void **)&in, RTLD_DL_LINKMAP) || !in ||
      dlinfo(h, RTLD_DI_LINKMAP, &mine) != 0 || in != mine) {
    dlclose(h);
    return kc__error(KC_EPLUGIN,
                     "%s is corrupt: its %s does not lie in the plugin's "
                     "own memory",
                     path, sym);
  }
  size_t symsize = (size_t)-1;
  if (dladdr1(ops, &sdi, (void **)&se, RTLD_DL_SYMENT) && se && se->st_size > 0)
    symsize = (size_t)se->st_size;
  if (se && ELF64_ST_TYPE(se->st_info) == STT_FUNC) {
    dlclose(h);
    return kc__error(KC_EPLUGIN,
                     "%s is not a kc plugin: its %s is a function, not a "
                     "kc_backend_ops",
                     path, sym);
  }
  if (se && ELF64_ST_TYPE(se->st_info) != STT_OBJECT) {
    unsigned type = ELF64_ST_TYPE(se->st_info);
    dlclose(h);
    return kc__error(KC_EPLUGIN,
                     "%s is not a kc plugin: its %s is not a data object "
                     "(ELF symbol type %u)",
                     path, sym, type);
  }
  if (symsize < offsetof(kc_backend_ops, struct_size) + sizeof(size_t)) {
    dlclose(h);
    return kc__error(KC_EABI,
                     "%s is not a kc plugin: its %s is %zu bytes, too small "
                     "for a kc_backend_ops",
                     path, sym, symsize);
  }
  c->abi_major = ops->abi_major;
  c->abi_minor = ops->abi_minor;
  if (ops->abi_major != KC_BACKEND_ABI_MAJOR) {
    unsigned maj = ops->abi_major, min = ops->abi_minor;
    dlclose(h);
    return kc__error(KC_EABI,
                     "%s was built for backend ABI %u.%u but this libkc speaks "
                     "%d.%d: rebuild the plugin against this kc's "
                     "<kc/backend.h>",
                     path, maj, min, KC_BACKEND_ABI_MAJOR,
                     KC_BACKEND_ABI_MINOR);
  }
  if (ops->struct_size < KC__OPS_SIZE_1_0) {
    size_t got = ops->struct_size;
    dlclose(h);
    return kc__error(KC_EABI,
                     "%s has a kc_backend_ops of %zu bytes, fewer than the "
                     "%zu of backend ABI %d.0: rebuild the plugin against "
                     "this kc's <kc/backend.h>",
                     path, got, (size_t)KC__OPS_SIZE_1_0, KC_BACKEND_ABI_MAJOR);
  }
  if (symsize < ops->struct_size) {
    size_t got = ops->struct_size;
    dlclose(h);
    return kc__error(KC_EABI,
                     "%s is corrupt: its %s says it has %zu bytes, but the "
                     "symbol has %zu",
                     path, sym, got, symsize);
  }
  if (!ops->name || strcmp(ops->name, name) != 0) {
    /* The message quotes the plugin's memory: made before dlclose. */
    kc__error(KC_EPLUGIN,
              "%s calls itself '%s': a plugin's name must match its file "
              "name libkc-%s.so",
              path, ops->name ? ops->name : "(null)", name);
    dlclose(h);
    return KC_EPLUGIN;
  }
  const char *missing = !ops->probe      ? "probe"
                        : !ops->init     ? "init"
                        : !ops->finalize ? "finalize"
                        : !ops->info     ? "info"
                        : !ops->launch   ? "launch"
                                         : NULL;
  if (missing) {
    dlclose(h);
    return kc__error(KC_EPLUGIN, "%s: its required slot '%s' is NULL", path,
                     missing);
  }
  int nmem =
      !!ops->mem_alloc + !!ops->mem_free + !!ops->mem_copy + !!ops->mem_set;
  if (nmem != 0 && nmem != 4) {
    dlclose(h);
    return kc__error(KC_EPLUGIN,
                     "%s: mem_alloc, mem_free, mem_copy and mem_set must be "
                     "all set or all NULL",
                     path);
  }
  int nq = KC__OPS_HAS(ops, queue_create) + KC__OPS_HAS(ops, queue_destroy) +
           KC__OPS_HAS(ops, queue_fence) + KC__OPS_HAS(ops, event_create) +
           KC__OPS_HAS(ops, event_destroy) + KC__OPS_HAS(ops, event_record) +
           KC__OPS_HAS(ops, event_wait) + KC__OPS_HAS(ops, event_synchronize) +
           KC__OPS_HAS(ops, event_query) + KC__OPS_HAS(ops, event_elapsed) +
           KC__OPS_HAS(ops, mem_copy_on) + KC__OPS_HAS(ops, mem_set_on);
  if (nq != 0 && nq != 12) {
    dlclose(h);
    return kc__error(KC_EPLUGIN,
                     "%s: the twelve queue and event slots (queue_create ... "
                     "mem_set_on) must be all set or all NULL; %d are set",
                     path, nq);
  }
  if (nq && nmem == 0) {
    dlclose(h);
    return kc__error(KC_EPLUGIN,
                     "%s: queue slots need the memory slots (mem_copy_on and "
                     "mem_set_on act on the plugin's memory)",
                     path);
  }
  if (KC__OPS_HAS(ops, mem_alloc_on) && nmem == 0) {
    dlclose(h);
    return kc__error(KC_EPLUGIN,
                     "%s: mem_alloc_on needs the memory slots (mem_free "
                     "gives its memory back)",
                     path);
  }
  /* From here on the plugin's code has run: it is never unloaded. */
  int nd = 0;
  kc__error(0, "%s", "");
  rc = ops->probe(&nd);
  if (!kc__slot_code_ok(rc, 0)) /* a plugin's bug: no devices */
    rc = kc__error(KC_EINTERNAL,
                   "its probe returned %d, neither 0 nor a kc error code "
                   "(<kc/error.h>), a bug of the plugin",
                   rc);
  if (rc < 0 || nd <= 0) {
    strbuf why = {0};
    const char *d = kc_last_error();
    if (*d)
      sb_addf(&why, "%s", d);
    else if (rc < 0)
      sb_addf(&why, "its probe failed: %s", kc_strerror(rc));
    else
      sb_addf(&why, "its probe reported 0 devices");
    kc__error(KC_ENODEV, "backend '%s' (%s) found no device: %s", name, path,
              sb_str(&why));
    free(why.s);
    return KC_ENODEV;
  }
  c->ops = ops;
  c->ndevices = nd;
  return 0;
}

static int check_serial(checked *c) {
  memset(c, 0, sizeof *c);
  c->ops = &kc__serial_ops;
  c->abi_major = KC_BACKEND_ABI_MAJOR;
  c->abi_minor = KC_BACKEND_ABI_MINOR;
  int nd = 0;
  int rc = kc__serial_ops.probe(&nd);
  if (rc < 0)
    return rc;
  c->ndevices = nd;
  return 0;
}

static int try_file(const char *path, kc__backend_pick *out) {
  kc__verbose("trying %s", path);
  checked c;
  int rc = check_file(path, &c);
  if (rc < 0) {
    kc__verbose("refused %s: %s", path, kc_last_error());
    return rc;
  }
  kc__verbose("accepted %s: backend '%s', %d device(s)", path, c.ops->name,
              c.ndevices);
  out->ops = c.ops;
  out->ndevices = c.ndevices;
  /* kc__check_library() opened it, so it is shorter than PATH_MAX. */
  snprintf(out->path, sizeof out->path, "%s", path);
  return 0;
}

static int take_serial(kc__backend_pick *out) {
  checked c;
  int rc = check_serial(&c);
  if (rc < 0)
    return rc;
  kc__verbose("accepted the built-in backend 'serial'");
  out->ops = c.ops;
  out->ndevices = c.ndevices;
  snprintf(out->path, sizeof out->path, "built-in");
  return 0;
}

/* Set when a backend could not be looked up for want of memory (under
 * kc's init lock): the search stops there instead of trying the next. */
static int lookup_failed;

/* One element of KC_BACKEND: a path (it has a '/'), "serial", or a name. */
static int try_token(const search_path *sp, const char *tok,
                     kc__backend_pick *out) {
  if (strchr(tok, '/'))
    return try_file(tok, out);
  if (strcmp(tok, "serial") == 0)
    return take_serial(out);
  char *path = NULL;
  int found = find_named(sp, tok, &path);
  if (found == KC_ENOMEM) {
    lookup_failed = 1;
    return found;
  }
  if (!path) {
    strbuf avail = {0};
    available_names(sp, &avail);
    kc__verbose("no file libkc-%s.so in the search path", tok);
    kc__error(KC_ENOBACKEND, "no backend named '%s' (available: %s)", tok,
              sb_str(&avail));
    free(avail.s);
    return KC_ENOBACKEND;
  }
  int rc = try_file(path, out);
  free(path);
  return rc;
}

/* A candidate that was accepted is started; a failure to start is the
 * candidate's failure like any refusal. */
static int try_start(const search_path *sp, const char *tok,
                     kc__backend_start_fn start, void *arg) {
  kc__backend_pick pick;
  memset(&pick, 0, sizeof pick);
  int rc = tok ? try_token(sp, tok, &pick) : take_serial(&pick);
  if (rc == 0) {
    kc__error(0, "%s", "");
    rc = start(&pick, arg);
    if (rc == 0)
      kc__verbose("using backend '%s' (%s)", pick.ops->name, pick.path);
  }
  return rc;
}

static void verbose_search_path(const search_path *sp) {
  if (!kc__verbose_on())
    return;
  for (int i = 0; i < sp->n; i++)
    kc__verbose("plugin search directory %s (%s%s)", sp->d[i].dir,
                sp->d[i].origin, sp->d[i].exists ? "" : ", missing");
}

/* A preference list: the first that works; if none does, every reason. */
static int start_list(const search_path *sp, const char *env, char **tok,
                      int ntok, kc__backend_start_fn start, void *arg) {
  kc__verbose("KC_BACKEND=%s (preference list)", env);
  strbuf why = {0};
  int rc = KC_ENOBACKEND;
  lookup_failed = 0;
  for (int i = 0; i < ntok; i++) {
    rc = try_start(sp, tok[i], start, arg);
    if (rc == 0)
      break;
    if (lookup_failed) {
      free(why.s);
      return rc; /* its own detail: out of memory, not "no backend" */
    }
    sb_addf(&why, "%s%s: %s", i ? "; " : "", tok[i], kc_last_error());
    if (i + 1 < ntok)
      kc__verbose("'%s' cannot be used (%s): trying '%s'", tok[i],
                  kc_last_error(), tok[i + 1]);
  }
  if (rc < 0)
    kc__error(rc, "no backend of KC_BACKEND='%s' could be used: %s", env,
              sb_str(&why));
  free(why.s);
  return rc;
}

/* KC_BACKEND unset: the default order; a backend that fails is skipped
 * (quietly, unless KC_VERBOSE), the built-in serial backend comes last. */
static int start_auto(const search_path *sp, kc__backend_start_fn start,
                      void *arg) {
  strbuf why = {0};
  int rc;
  for (size_t i = 0; i < sizeof auto_order / sizeof *auto_order; i++) {
    char *path = NULL;
    rc = find_named(sp, auto_order[i], &path);
    if (rc == KC_ENOMEM) {
      free(why.s);
      return rc;
    }
    if (!path) {
      kc__verbose("no plugin file libkc-%s.so in the search path",
                  auto_order[i]);
      continue;
    }
    rc = try_start(sp, path, start, arg);
    free(path);
    if (rc == 0) {
      free(why.s);
      return 0;
    }
    kc__verbose("skipping backend '%s': %s", auto_order[i], kc_last_error());
    sb_addf(&why, "%s: %s; ", auto_order[i], kc_last_error());
  }
  rc = try_start(sp, NULL, start, arg);
  if (rc < 0 && why.len) {
    /* Serial's reason joins the list first: kc__error writes the detail
     * kc_last_error() points at. */
    sb_addf(&why, "serial: %s", kc_last_error());
    kc__error(rc, "no backend could be used (KC_BACKEND is unset): %s",
              sb_str(&why));
  }
  free(why.s);
  return rc;
}

int kc__loader_start(kc__backend_start_fn start, void *arg) {
  search_path sp;
  int rc = search_path_build(&sp);
  if (rc < 0)
    return rc;
  verbose_search_path(&sp);

  const char *env = kc__secure_getenv("KC_BACKEND");
  char **tok = NULL;
  int ntok = kc__backend_list_parse(env, &tok);
  if (ntok < 0) {
    rc = ntok;
  } else if (ntok == 1) {
    /* The user named one backend: its failure is the answer. */
    kc__verbose("KC_BACKEND=%s", tok[0]);
    rc = try_start(&sp, tok[0], start, arg);
  } else if (ntok > 1) {
    rc = start_list(&sp, env, tok, ntok, start, arg);
  } else {
    rc = start_auto(&sp, start, arg);
  }
  kc__strv_free(tok, ntok);
  search_path_free(&sp);
  return rc;
}

/* ----------------------------------------------------- kc-info's view */

int kc__plugin_dirs(void (*cb)(const char *dir, const char *origin, int exists,
                               void *arg),
                    void *arg) {
  search_path sp;
  int rc = search_path_build(&sp);
  if (rc < 0)
    return rc;
  int n = sp.n;
  for (int i = 0; i < n; i++)
    if (cb)
      cb(sp.d[i].dir, sp.d[i].origin, sp.d[i].exists, arg);
  search_path_free(&sp);
  return n;
}

/* The file that provides each name seen so far. */
typedef struct seen_list {
  char **name, **path;
  int n, cap;
} seen_list;

static const char *seen_find(const seen_list *s, const char *name) {
  if (strcmp(name, "serial") == 0)
    return "built-in";
  for (int i = 0; i < s->n; i++)
    if (strcmp(s->name[i], name) == 0)
      return s->path[i];
  return NULL;
}

static void seen_add(seen_list *s, const char *name, const char *path) {
  if (s->n == s->cap) {
    int nc = s->cap ? 2 * s->cap : 8;
    char **a = realloc(s->name, (size_t)nc * sizeof *a);
    if (a)
      s->name = a;
    char **b = realloc(s->path, (size_t)nc * sizeof *b);
    if (b)
      s->path = b;
    if (!a || !b)
      return;
    s->cap = nc;
  }
  char *n = strdup(name), *p = strdup(path);
  if (!n || !p) {
    free(n);
    free(p);
    return;
  }
  s->name[s->n] = n;
  s->path[s->n] = p;
  s->n++;
}

static void report_one(const char *path, const char *name, seen_list *seen,
                       void (*cb)(const kc__plugin_report *r, void *arg),
                       void *arg) {
  kc__plugin_report r;
  memset(&r, 0, sizeof r);
  r.path = path;
  r.name = name;
  r.detail = "";
  r.shadowed_by = seen_find(seen, name);
  if (!r.shadowed_by) {
    checked c;
    r.code = check_file(path, &c);
    r.abi_major = c.abi_major;
    r.abi_minor = c.abi_minor;
    if (r.code < 0) {
      r.detail = kc_last_error();
    } else {
      r.ndevices = c.ndevices;
      r.description = c.ops->description ? c.ops->description : "";
    }
    seen_add(seen, name, path);
  }
  if (cb)
    cb(&r, arg);
}

int kc__plugin_list(void (*cb)(const kc__plugin_report *r, void *arg),
                    void *arg) {
  search_path sp;
  int rc = search_path_build(&sp);
  if (rc < 0)
    return rc;
  int count = 0;
  seen_list seen = {0};
  for (int i = 0; i < sp.n; i++) {
    char **files;
    int nf = scan_dir(sp.d[i].dir, &files);
    for (int f = 0; f < nf; f++) {
      char name[NAME_MAX + 1];
      name_from_file(files[f], name, sizeof name);
      char *path = join_plugin(sp.d[i].dir, name);
      if (!path)
        continue;
      report_one(path, name, &seen, cb, arg);
      free(path);
      count++;
    }
    kc__strv_free(files, nf);
  }
  kc__strv_free(seen.name, seen.n);
  kc__strv_free(seen.path, seen.n);
  search_path_free(&sp);
  return count;
}
