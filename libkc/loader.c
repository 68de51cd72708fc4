/* libkc — finding, checking and choosing a backend plugin.
 *
 * A plugin is a file libkc-<name>.so exporting kc_backend_<name>.  Files are
 * looked for in KC_PLUGIN_PATH, then the kc/ directory beside libkc.so, then
 * the configured $(pkglibdir).  Every check a file can fail has its own
 * one-line message naming the file, so that a user (and kc-info) can see
 * why a backend was not taken.
 *
 * A plugin is dlclose()d only when the core has called none of its code:
 * once probe ran it may hold threads or driver state, so it stays loaded.
 */
#include <config.h>

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "loader.h"

#ifndef KC_PLUGINDIR
#define KC_PLUGINDIR "/usr/local/lib/kc"
#endif

/* Preference order when KC_BACKEND is unset (serial is the last resort). */
static const char *const auto_order[] = {"cuda", "openmp", "threads"};

/* -------------------------------------------------------- search path */

#define MAX_DIRS 64

typedef struct search_path {
  int n;
  char dir[MAX_DIRS][PATH_MAX];
  const char *origin[MAX_DIRS];
  int exists[MAX_DIRS];
} search_path;

static int is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void add_dir(search_path *sp, const char *dir, size_t len,
                    const char *origin) {
  if (len == 0 || len >= PATH_MAX || sp->n == MAX_DIRS)
    return;
  char d[PATH_MAX];
  memcpy(d, dir, len);
  d[len] = '\0';
  while (len > 1 && d[len - 1] == '/')
    d[--len] = '\0';
  /* The same directory reached twice (a symlink, "lib/../lib") is listed
   * once, where it first appears. */
  char real[PATH_MAX];
  const char *key = realpath(d, real) ? real : d;
  for (int i = 0; i < sp->n; i++) {
    char ri[PATH_MAX];
    const char *ki = realpath(sp->dir[i], ri) ? ri : sp->dir[i];
    if (strcmp(ki, key) == 0)
      return;
  }
  memcpy(sp->dir[sp->n], d, len + 1);
  sp->origin[sp->n] = origin;
  sp->exists[sp->n] = is_dir(d);
  sp->n++;
}

static void search_path_build(search_path *sp) {
  sp->n = 0;
  const char *env = getenv("KC_PLUGIN_PATH");
  if (env) {
    for (const char *p = env;;) {
      const char *c = strchr(p, ':');
      size_t len = c ? (size_t)(c - p) : strlen(p);
      add_dir(sp, p, len, KC__DIR_ENV);
      if (!c)
        break;
      p = c + 1;
    }
  }
  /* The directory of the libkc.so that is running, found from one of its
   * own symbols, so that a relocated installation finds its plugins. */
  Dl_info di;
  if (dladdr((void *)&kc_init, &di) && di.dli_fname &&
      strchr(di.dli_fname, '/')) {
    char real[PATH_MAX];
    const char *f = realpath(di.dli_fname, real) ? real : di.dli_fname;
    const char *slash = strrchr(f, '/');
    char d[PATH_MAX];
    int n = snprintf(d, sizeof d, "%.*s/kc", (int)(slash - f), f);
    if (n > 0 && n < (int)sizeof d)
      add_dir(sp, d, (size_t)n, KC__DIR_BESIDE);
  }
  add_dir(sp, KC_PLUGINDIR, strlen(KC_PLUGINDIR), KC__DIR_CONFIGURED);
}

/* The <name> of a file called libkc-<name>.so, or NULL. */
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
 * frees each and the array. */
static int scan_dir(const char *dir, char ***out) {
  *out = NULL;
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  int n = 0, cap = 0;
  char **v = NULL;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    char name[256];
    if (!name_from_file(e->d_name, name, sizeof name))
      continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 8;
      char **nv = realloc(v, (size_t)cap * sizeof *v);
      if (!nv)
        break;
      v = nv;
    }
    if ((v[n] = strdup(e->d_name)) == NULL)
      break;
    n++;
  }
  closedir(d);
  if (n)
    qsort(v, (size_t)n, sizeof *v, cmp_str);
  *out = v;
  return n;
}

static void free_names(char **v, int n) {
  for (int i = 0; i < n; i++)
    free(v[i]);
  free(v);
}

/* The first file libkc-<name>.so in the search path. */
static int find_named(const search_path *sp, const char *name, char *path,
                      size_t cap) {
  for (int i = 0; i < sp->n; i++) {
    struct stat st;
    int n = snprintf(path, cap, "%s/libkc-%s.so", sp->dir[i], name);
    if (n > 0 && (size_t)n < cap && stat(path, &st) == 0)
      return 1;
  }
  return 0;
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
 * found in the search path, in search order, each once. */
static void available_names(const search_path *sp, char *buf, size_t cap) {
  size_t len = (size_t)snprintf(buf, cap, "serial");
  for (int i = 0; i < sp->n; i++) {
    char **files;
    int nf = scan_dir(sp->dir[i], &files);
    for (int f = 0; f < nf; f++) {
      char name[256];
      name_from_file(files[f], name, sizeof name);
      if (list_has(buf, name) || len + strlen(name) + 3 >= cap)
        continue;
      len += (size_t)snprintf(buf + len, cap - len, ", %s", name);
    }
    free_names(files, nf);
  }
}

/* --------------------------------------------------------- checking */

typedef struct checked {
  const kc_backend_ops *ops;
  int ndevices;
  unsigned abi_major, abi_minor;
} checked;

/* The one list of reasons a plugin file is refused.  On success the file
 * stays loaded and its probe found at least one device. */
static int check_file(const char *path, checked *c) {
  memset(c, 0, sizeof *c);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    return kc__error(KC_EPLUGIN, "cannot load %s: %s", path,
                     why ? why : "unknown dlopen error");
  }
  char name[256];
  if (!name_from_file(path, name, sizeof name)) {
    dlclose(h);
    return kc__error(KC_EPLUGIN,
                     "%s: a plugin file must be named libkc-<name>.so", path);
  }
  char sym[300];
  snprintf(sym, sizeof sym, "kc_backend_%s", name);
  dlerror();
  const kc_backend_ops *ops = (const kc_backend_ops *)dlsym(h, sym);
  if (!ops) {
    dlclose(h);
    return kc__error(KC_EPLUGIN,
                     "%s is not a kc plugin: it has no symbol %s", path, sym);
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
                     path, got, (size_t)KC__OPS_SIZE_1_0,
                     KC_BACKEND_ABI_MAJOR);
  }
  if (!ops->name || strcmp(ops->name, name) != 0) {
    char self[256];
    snprintf(self, sizeof self, "%s", ops->name ? ops->name : "(null)");
    dlclose(h);
    return kc__error(KC_EPLUGIN,
                     "%s calls itself '%s': a plugin's name must match its "
                     "file name libkc-%s.so",
                     path, self, name);
  }
  const char *missing = !ops->probe ? "probe"
                        : !ops->init ? "init"
                        : !ops->finalize ? "finalize"
                        : !ops->info   ? "info"
                        : !ops->launch ? "launch"
                                       : NULL;
  if (missing) {
    dlclose(h);
    return kc__error(KC_EPLUGIN, "%s: its required slot '%s' is NULL", path,
                     missing);
  }
  int nmem = !!ops->mem_alloc + !!ops->mem_free + !!ops->mem_copy +
             !!ops->mem_set;
  if (nmem != 0 && nmem != 4) {
    dlclose(h);
    return kc__error(KC_EPLUGIN,
                     "%s: mem_alloc, mem_free, mem_copy and mem_set must be "
                     "all set or all NULL",
                     path);
  }
  /* From here on the plugin's code has run: it is never unloaded. */
  int nd = 0;
  kc__error(0, "%s", "");
  int rc = ops->probe(&nd);
  if (rc < 0 || nd <= 0) {
    char why[2048];
    const char *d = kc_last_error();
    if (*d)
      snprintf(why, sizeof why, "%s", d);
    else if (rc < 0)
      snprintf(why, sizeof why, "its probe failed: %s", kc_strerror(rc));
    else
      snprintf(why, sizeof why, "its probe reported 0 devices");
    return kc__error(KC_ENODEV, "backend '%s' (%s) found no device: %s", name,
                     path, why);
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

/* One element of KC_BACKEND: a path (it has a '/'), "serial", or a name. */
static int try_token(const search_path *sp, const char *tok,
                     kc__backend_pick *out) {
  if (strchr(tok, '/'))
    return try_file(tok, out);
  if (strcmp(tok, "serial") == 0)
    return take_serial(out);
  char path[PATH_MAX];
  if (!find_named(sp, tok, path, sizeof path)) {
    char avail[4096];
    available_names(sp, avail, sizeof avail);
    kc__verbose("no file libkc-%s.so in the search path", tok);
    return kc__error(KC_ENOBACKEND, "no backend named '%s' (available: %s)",
                     tok, avail);
  }
  return try_file(path, out);
}

static void verbose_search_path(const search_path *sp) {
  if (!kc__verbose_on())
    return;
  for (int i = 0; i < sp->n; i++)
    kc__verbose("plugin search directory %s (%s%s)", sp->dir[i],
                sp->origin[i], sp->exists[i] ? "" : ", missing");
}

int kc__loader_pick(kc__backend_pick *out) {
  memset(out, 0, sizeof *out);
  search_path *sp = malloc(sizeof *sp);
  if (!sp)
    return kc__error(KC_ENOMEM, "kc_init: out of memory");
  search_path_build(sp);
  verbose_search_path(sp);

  int rc;
  const char *env = getenv("KC_BACKEND");
  char list[4096];
  snprintf(list, sizeof list, "%s", env ? env : "");
  /* Split the preference list in place, trimming blanks. */
  char *tok[64];
  int ntok = 0;
  for (char *s = list; ntok < 64;) {
    char *c = strchr(s, ',');
    if (c)
      *c = '\0';
    while (*s == ' ' || *s == '\t')
      s++;
    size_t len = strlen(s);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
      s[--len] = '\0';
    if (*s)
      tok[ntok++] = s;
    if (!c)
      break;
    s = c + 1;
  }

  if (ntok == 1) {
    /* The user named one backend: its failure is the answer. */
    kc__verbose("KC_BACKEND=%s", tok[0]);
    rc = try_token(sp, tok[0], out);
  } else if (ntok > 1) {
    /* A preference list: the first that works; if none does, every reason. */
    kc__verbose("KC_BACKEND=%s (preference list)", env);
    char why[6144];
    size_t len = 0;
    why[0] = '\0';
    rc = KC_ENOBACKEND;
    for (int i = 0; i < ntok; i++) {
      rc = try_token(sp, tok[i], out);
      if (rc == 0)
        break;
      if (len < sizeof why)
        len += (size_t)snprintf(why + len, sizeof why - len, "%s%s: %s",
                                i ? "; " : "", tok[i], kc_last_error());
    }
    if (rc < 0)
      kc__error(rc, "no backend of KC_BACKEND='%s' could be used: %s", env,
                why);
  } else {
    /* Auto-discovery: a backend that fails is skipped, quietly. */
    rc = -1;
    for (size_t i = 0; i < sizeof auto_order / sizeof *auto_order; i++) {
      char path[PATH_MAX];
      if (!find_named(sp, auto_order[i], path, sizeof path)) {
        kc__verbose("no plugin file libkc-%s.so in the search path",
                    auto_order[i]);
        continue;
      }
      if ((rc = try_file(path, out)) == 0)
        break;
    }
    if (rc != 0)
      rc = take_serial(out);
  }
  free(sp);
  if (rc == 0)
    kc__verbose("using backend '%s' (%s)", out->ops->name, out->path);
  return rc;
}

/* ----------------------------------------------------- kc-info's view */

int kc__plugin_dirs(void (*cb)(const char *dir, const char *origin,
                               int exists, void *arg),
                    void *arg) {
  search_path *sp = malloc(sizeof *sp);
  if (!sp)
    return kc__error(KC_ENOMEM, "kc__plugin_dirs: out of memory");
  search_path_build(sp);
  int n = sp->n;
  for (int i = 0; i < n; i++)
    if (cb)
      cb(sp->dir[i], sp->origin[i], sp->exists[i], arg);
  free(sp);
  return n;
}

int kc__plugin_list(void (*cb)(const kc__plugin_report *r, void *arg),
                    void *arg) {
  search_path *sp = malloc(sizeof *sp);
  if (!sp)
    return kc__error(KC_ENOMEM, "kc__plugin_list: out of memory");
  search_path_build(sp);
  int count = 0;
  /* Names already seen, with the file that provides them. */
  char(*seen_name)[256] = NULL;
  char(*seen_path)[PATH_MAX] = NULL;
  int nseen = 0, capseen = 0;
  for (int i = 0; i < sp->n; i++) {
    char **files;
    int nf = scan_dir(sp->dir[i], &files);
    for (int f = 0; f < nf; f++) {
      char path[PATH_MAX], name[256];
      snprintf(path, sizeof path, "%s/%s", sp->dir[i], files[f]);
      name_from_file(files[f], name, sizeof name);
      kc__plugin_report r;
      memset(&r, 0, sizeof r);
      r.path = path;
      r.name = name;
      r.detail = "";
      const char *first = strcmp(name, "serial") == 0 ? "built-in" : NULL;
      for (int s = 0; !first && s < nseen; s++)
        if (strcmp(seen_name[s], name) == 0)
          first = seen_path[s];
      if (first) {
        r.shadowed_by = first;
      } else {
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
        if (nseen == capseen) {
          capseen = capseen ? 2 * capseen : 8;
          void *a = realloc(seen_name, (size_t)capseen * sizeof *seen_name);
          if (a)
            seen_name = a;
          void *b = realloc(seen_path, (size_t)capseen * sizeof *seen_path);
          if (b)
            seen_path = b;
          if (!a || !b)
            capseen = nseen;
        }
        if (nseen < capseen) {
          snprintf(seen_name[nseen], 256, "%s", name);
          snprintf(seen_path[nseen], PATH_MAX, "%s", path);
          nseen++;
        }
      }
      if (cb)
        cb(&r, arg);
      count++;
    }
    free_names(files, nf);
  }
  free(seen_name);
  free(seen_path);
  free(sp);
  return count;
}
