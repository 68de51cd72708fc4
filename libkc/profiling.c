/* libkc — profiling hooks: loads Kokkos Tools libraries and calls their
 * kokkosp_* callbacks.
 *
 * The callback signatures, the interface version and the device-id layout
 * are those of Kokkos' C tools interface (Kokkos_Profiling_C_Interface.h),
 * so a tool built for Kokkos loads into a kc program unchanged.  The types
 * below are kc's own spelling of that ABI.
 */
#include <config.h>

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "profiling.h"

/* The interface version kc implements: that of Kokkos 4.5 and later
 * (KOKKOSP_INTERFACE_VERSION).  Tools compare it with their own. */
#define KOKKOSP_VERSION UINT64_C(20240906)

/* ----------------------------------------------- the Kokkos Tools C ABI */

struct kp_device_info {
  size_t deviceID;
};

struct kp_space_handle {
  char name[64];
};

struct kp_tool_settings {
  bool requires_global_fencing;
  bool padding[255];
};

typedef void (*kp_void_fn)(void);
struct kp_tool_interface {
  void (*fence)(uint32_t devID);
  kp_void_fn padding[31];
};

typedef void (*kp_init_fn)(int, uint64_t, uint32_t, struct kp_device_info *);
typedef void (*kp_finalize_fn)(void);
typedef void (*kp_parse_args_fn)(int, char **);
typedef void (*kp_begin_fn)(const char *, uint32_t, uint64_t *);
typedef void (*kp_end_fn)(uint64_t);
typedef void (*kp_push_fn)(const char *);
typedef void (*kp_pop_fn)(void);
typedef void (*kp_data_fn)(struct kp_space_handle, const char *, const void *,
                           uint64_t);
typedef void (*kp_begin_copy_fn)(struct kp_space_handle, const char *,
                                 const void *, struct kp_space_handle,
                                 const char *, const void *, uint64_t);
typedef void (*kp_end_copy_fn)(void);
typedef void (*kp_dual_view_fn)(const char *, const void *, bool);
typedef void (*kp_metadata_fn)(const char *, const char *);
typedef void (*kp_event_fn)(const char *);
typedef void (*kp_request_settings_fn)(uint32_t, struct kp_tool_settings *);
typedef void (*kp_provide_interface_fn)(uint32_t, struct kp_tool_interface);

/* One loaded library and the callbacks it defines (NULL when absent). */
struct tool {
  void *handle;
  char *path;
  kp_init_fn init;
  kp_finalize_fn finalize;
  kp_parse_args_fn parse_args;
  kp_begin_fn begin_parallel[3]; /* indexed by kc__tools_parallel */
  kp_end_fn end_parallel[3];
  kp_push_fn push_region;
  kp_pop_fn pop_region;
  kp_data_fn allocate, deallocate;
  kp_begin_copy_fn begin_deep_copy;
  kp_end_copy_fn end_deep_copy;
  kp_begin_fn begin_fence;
  kp_end_fn end_fence;
  kp_dual_view_fn dual_view_sync, dual_view_modify;
  kp_metadata_fn declare_metadata;
  kp_event_fn profile_event;
  kp_request_settings_fn request_settings;
  kp_provide_interface_fn provide_interface;
  bool global_fencing; /* what the tool asked for; Kokkos' default is yes */
  int ncallbacks;
};

int kc__tools_active = 0;

/* Written only by kc__tools_init / kc__tools_finalize (under kc's init
 * lock, while no other kc call may run), read by the hooks. */
static struct tool *tools;
static int ntools;
static uint32_t devid_queue;  /* the default queue (instance 1) */
static uint32_t devid_global; /* kc_fence: global device synchronisation */
static const char *space_names[KC_SPACE_COUNT];
/* Whether a fence precedes the parallel / region callbacks: some tool that
 * defines the callback asked for (or did not refuse) global fencing. */
static bool fence_parallel[3], fence_region;

/* Names an in-flight fence that profiling.c itself requested, so that tools
 * see why kc fenced (Kokkos names its own the same way). */
static _Thread_local const char *own_fence_name;

/* -------------------------------------------------------- device ids */

/* Kokkos' layout of a 32-bit device id: 8 bits of device type, 7 bits of
 * device number, 17 bits of instance.  Instance 0 is reserved for global
 * synchronisation; Kokkos numbers the instances of each execution space
 * from 1, one number per instance object (idForInstance), and kc numbers
 * its queues the same way (profiling.h).  Kokkos adds the number to the
 * rest of the id unmasked, so a number past 17 bits would spill into the
 * device bits; kc's never exceed KC__TOOLS_INSTANCE_LAST. */
enum {
  TYPE_SHIFT = 24,
  DEVICE_SHIFT = 17,
  DEVICE_MASK = 0x7f,
  INSTANCE_MASK = 0x1ffff
};

/* Kokkos' DeviceType numbering; backends Kokkos does not know are
 * "Unknown" (9). */
static uint32_t device_type(const char *backend) {
  static const struct {
    const char *name;
    uint32_t type;
  } map[] = {{"serial", 0},  {"openmp", 1},       {"cuda", 2},
             {"hip", 3},     {"openmptarget", 4}, {"hpx", 5},
             {"threads", 6}, {"sycl", 7},         {"openacc", 8}};
  for (size_t i = 0; backend && i < sizeof map / sizeof map[0]; i++)
    if (strcmp(backend, map[i].name) == 0)
      return map[i].type;
  return 9;
}

uint32_t kc__tools_device_id(void) { return devid_queue; }

uint32_t kc__tools_queue_id(int device, unsigned instance) {
  uint32_t dev = device > 0 ? (uint32_t)device : 0;
  return devid_global | (dev & DEVICE_MASK) << DEVICE_SHIFT |
         (instance & INSTANCE_MASK);
}

/* -------------------------------------------------------- space names */

/* Spaces are named as Kokkos names the memory spaces of the same device
 * type (CudaSpace::name() is "Cuda", ...), so that memory tools group kc's
 * allocations the way they group Kokkos'; tools know no other names
 * (space-time-stack and chrome-tracing abort on one they do not know).
 * A space that is host memory on this backend, and every space of a
 * backend Kokkos has no device type for, is "Host".  Kokkos has no managed
 * or pinned space for OpenMPTarget and OpenACC: those are named like the
 * device space. */
static const char *const kokkos_space_names[][KC_SPACE_COUNT] = {
    [2] = {"Host", "Cuda", "CudaUVM", "CudaHostPinned"},
    [3] = {"Host", "HIP", "HIPManaged", "HIPHostPinned"},
    [4] = {"Host", "OpenMPTargetSpace", "OpenMPTargetSpace",
           "OpenMPTargetSpace"},
    [7] = {"Host", "SYCLDeviceUSM", "SYCLSharedUSM", "SYCLHostUSM"},
    [8] = {"Host", "OpenACCSpace", "OpenACCSpace", "OpenACCSpace"},
};

static void name_spaces(const kc_info *info) {
  unsigned distinct = info ? info->spaces : 0;
  uint32_t type = device_type(info ? info->backend : NULL);
  const char *const *names =
      type < sizeof kokkos_space_names / sizeof kokkos_space_names[0]
          ? kokkos_space_names[type]
          : NULL;
  for (int s = 0; s < KC_SPACE_COUNT; s++) {
    if (s == KC_SPACE_HOST || !(distinct & (1u << s)) || !names || !names[s])
      space_names[s] = "Host";
    else
      space_names[s] = names[s];
  }
}

static struct kp_space_handle space_handle(kc_space space) {
  struct kp_space_handle h;
  memset(&h, 0, sizeof h);
  const char *name =
      (unsigned)space < KC_SPACE_COUNT ? space_names[space] : NULL;
  snprintf(h.name, sizeof h.name, "%s", name ? name : "Host");
  return h;
}

/* ------------------------------------------------------------ fencing */

/* A fence on behalf of the tools: of the one queue whose device id is
 * `devid` when `devid` names a live queue, else kc_fence.  kc reports it
 * to the tools like any other (begin/end_fence, under `why`).  Its failure
 * is left for the application's next fence to see: the detail of the call
 * in progress is put back, so a tool never changes what the application
 * is told. */
static void tools_fence(const char *why, uint32_t devid) {
  const char *prev = own_fence_name;
  char *saved = strdup(kc_last_error());
  /* Inside the runtime before any id is compared: a tool's own thread may
   * call this while another thread's kc_init sets the ids. */
  int rc = kc__enter("kc::tools fence");
  if (rc == 0) {
    own_fence_name = why;
    /* A global id (instance 0) needs no look-up: the fences before each
     * kernel and region callback pass one. */
    if ((devid & INSTANCE_MASK) == KC__TOOLS_INSTANCE_GLOBAL ||
        !kc__queue_tools_fence(devid, &rc))
      rc = kc_fence();
    own_fence_name = prev;
    kc__leave();
  }
  if (rc != 0 && saved)
    kc__error(rc, "%s", saved);
  free(saved);
}

/* The fence of Kokkos' tool programming interface: as Kokkos fences the
 * execution-space instance a device id names, kc fences the queue, or
 * everything for an id that names none (a global id, a queue destroyed
 * meanwhile, another device type). */
static void tool_invoked_fence(uint32_t devID) {
  tools_fence("kc::tools: fence requested by a tool", devID);
}

/* Contains Kokkos' label for the fences it adds for tools, which tools
 * (kernel-logger, the NVTX connector, ...) look for with strstr() to leave
 * them out of their reports. */
static const char *const global_fence_name =
    "kc::tools: global fence before a tool callback: Kokkos Profile Tool "
    "Fence";

/* ------------------------------------------------------- id bundles */

/* Each tool hands out its own kernel and fence ids, but the core keeps one
 * id per operation.  With one tool it is that tool's id; with several it
 * points at an array holding one id per tool, freed by the end hook.  On
 * allocation failure no tool hears of the operation (id 0), which keeps
 * every tool's begin/end pairs balanced. */
static uint64_t *ids_new(void) {
  return calloc((size_t)ntools, sizeof(uint64_t));
}

static uint64_t ids_pack(uint64_t *ids) { return (uint64_t)(uintptr_t)ids; }

static uint64_t *ids_unpack(uint64_t id) { return (uint64_t *)(uintptr_t)id; }

/* --------------------------------------------------------- loading */

static void lookup(void *handle, const char *name, void *fnptr, int *found) {
  void *p = dlsym(handle, name);
  /* A function pointer cannot be assigned from void * in ISO C; copying
   * the representation is what POSIX guarantees to work. */
  memcpy(fnptr, &p, sizeof p);
  if (p)
    ++*found;
}

/* A bare name ("timer": no '/', no ".so") means kc's own tool
 * libkc-tool-<name>.so, looked for where the backend plugins are:
 * KC_PLUGIN_PATH, the kc/ directory beside libkc.so, then $(pkglibdir).
 * Returns 1 with the path (allocated) in *found when one exists. */
/* "dir/libkc-tool-name.so" for the `len` bytes of `dir`, allocated, if
 * that file is readable; else NULL. */
static char *tool_in(const char *dir, size_t len, const char *name) {
  if (len == 0)
    return NULL;
  size_t n = len + strlen(name) + sizeof "/libkc-tool-.so";
  char *path = malloc(n);
  if (!path)
    return NULL;
  snprintf(path, n, "%.*s/libkc-tool-%s.so", (int)len, dir, name);
  if (access(path, R_OK) == 0)
    return path;
  free(path);
  return NULL;
}

static int find_named_tool(const char *name, char **found) {
  *found = NULL;
  if (strchr(name, '/') || strstr(name, ".so"))
    return 0;
  /* Any number of directories of any length: nothing is cut. */
  const char *env = kc__secure_getenv("KC_PLUGIN_PATH");
  for (const char *d = env; d && *d && !*found;) {
    size_t len = strcspn(d, ":");
    *found = tool_in(d, len, name);
    d += len + (d[len] == ':');
  }
  Dl_info self;
  if (!*found && dladdr((void *)&kc__tools_active, &self) && self.dli_fname &&
      strchr(self.dli_fname, '/')) {
    size_t dirlen = (size_t)(strrchr(self.dli_fname, '/') - self.dli_fname);
    size_t n = dirlen + sizeof "/kc";
    char *dir = malloc(n);
    if (dir) {
      snprintf(dir, n, "%.*s/kc", (int)dirlen, self.dli_fname);
      *found = tool_in(dir, strlen(dir), name);
      free(dir);
    }
  }
#ifdef KC_PLUGINDIR
  if (!*found)
    *found = tool_in(KC_PLUGINDIR, strlen(KC_PLUGINDIR), name);
#endif
  return *found != NULL;
}

static int tool_load(struct tool *t, const char *path, const char *var) {
  memset(t, 0, sizeof *t);
  char *named = NULL;
  if (find_named_tool(path, &named)) {
    kc__verbose("tools: '%s' is %s", path, named);
    path = named;
  }
  /* A path (not a name dlopen() looks up) is checked as a plugin is: a
   * FIFO would block dlopen() for ever, a truncated file kill the process
   * with SIGBUS.  The reason goes to stderr; kc_init goes on without it. */
  if (strchr(path, '/') && access(path, F_OK) == 0 &&
      kc__check_library(path) < 0) {
    /* The check's detail is "cannot load PATH: why". */
    const char *why = kc_last_error();
    size_t n = strlen(path);
    if (strncmp(why, "cannot load ", 12) == 0 &&
        strncmp(why + 12, path, n) == 0 && strncmp(why + 12 + n, ": ", 2) == 0)
      why += 12 + n + 2;
    fprintf(stderr, "kc: cannot load tool library '%s' (from %s): %s\n", path,
            var, why);
    kc__error(0, "%s", "");
    free(named);
    return -1;
  }
  dlerror();
  /* RTLD_GLOBAL as Kokkos does: connector tools load further tools that
   * resolve symbols against them. */
  t->handle = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (!t->handle) {
    const char *why = dlerror();
    fprintf(stderr, "kc: cannot load tool library '%s' (from %s): %s\n", path,
            var, why ? why : "unknown dlopen error");
    free(named);
    return -1;
  }
  int n = 0;
#define LOOKUP(field, name) lookup(t->handle, name, &t->field, &n)
  LOOKUP(init, "kokkosp_init_library");
  LOOKUP(finalize, "kokkosp_finalize_library");
  LOOKUP(parse_args, "kokkosp_parse_args");
  LOOKUP(begin_parallel[KC__TOOLS_FOR], "kokkosp_begin_parallel_for");
  LOOKUP(end_parallel[KC__TOOLS_FOR], "kokkosp_end_parallel_for");
  LOOKUP(begin_parallel[KC__TOOLS_REDUCE], "kokkosp_begin_parallel_reduce");
  LOOKUP(end_parallel[KC__TOOLS_REDUCE], "kokkosp_end_parallel_reduce");
  LOOKUP(begin_parallel[KC__TOOLS_SCAN], "kokkosp_begin_parallel_scan");
  LOOKUP(end_parallel[KC__TOOLS_SCAN], "kokkosp_end_parallel_scan");
  LOOKUP(push_region, "kokkosp_push_profile_region");
  LOOKUP(pop_region, "kokkosp_pop_profile_region");
  LOOKUP(allocate, "kokkosp_allocate_data");
  LOOKUP(deallocate, "kokkosp_deallocate_data");
  LOOKUP(begin_deep_copy, "kokkosp_begin_deep_copy");
  LOOKUP(end_deep_copy, "kokkosp_end_deep_copy");
  LOOKUP(begin_fence, "kokkosp_begin_fence");
  LOOKUP(end_fence, "kokkosp_end_fence");
  LOOKUP(dual_view_sync, "kokkosp_dual_view_sync");
  LOOKUP(dual_view_modify, "kokkosp_dual_view_modify");
  LOOKUP(declare_metadata, "kokkosp_declare_metadata");
  LOOKUP(profile_event, "kokkosp_profile_event");
  LOOKUP(request_settings, "kokkosp_request_tool_settings");
  LOOKUP(provide_interface, "kokkosp_provide_tool_programming_interface");
#undef LOOKUP
  if (n == 0) {
    fprintf(stderr,
            "kc: tool library '%s' (from %s) defines no kokkosp_* callback; "
            "ignored\n",
            path, var);
    /* Not closed: the library may have started something in its
     * constructors, and Kokkos never closes tool libraries either. */
    free(named);
    return -1;
  }
  t->path = strdup(path);
  free(named);
  t->global_fencing = true;
  t->ncallbacks = n;
  return 0;
}

/* KC_TOOLS_ARGS (or KOKKOS_TOOLS_ARGS) split on blanks, as Kokkos splits
 * KOKKOS_TOOLS_ARGS, for kokkosp_parse_args. */
static void tool_parse_args(struct tool *t, const char *args) {
  if (!t->parse_args || !args)
    return;
  char *copy = strdup(args);
  if (!copy)
    return;
  int argc = 0;
  char **argv = calloc(strlen(copy) / 2 + 2, sizeof *argv);
  if (argv) {
    char *save = NULL;
    for (char *tok = strtok_r(copy, " \t", &save); tok;
         tok = strtok_r(NULL, " \t", &save))
      argv[argc++] = tok;
    if (argc > 0)
      t->parse_args(argc, argv);
  }
  free(argv);
  free(copy);
}

static void declare_metadata_all(const char *key, const char *value) {
  for (int i = 0; i < ntools; i++)
    if (tools[i].declare_metadata)
      tools[i].declare_metadata(key, value);
}

/* kc's own configuration, as Kokkos declares its version and build
 * options at initialisation. */
static void declare_kc_metadata(const kc_info *info) {
  char buf[64];
  declare_metadata_all("kc_version", kc_version());
  if (!info)
    return;
  declare_metadata_all("kc_backend", info->backend ? info->backend : "");
  declare_metadata_all("kc_backend_path", info->path ? info->path : "");
  declare_metadata_all("kc_device_name", info->dev.name);
  snprintf(buf, sizeof buf, "%d", info->device);
  declare_metadata_all("kc_device", buf);
  snprintf(buf, sizeof buf, "%d", info->concurrency);
  declare_metadata_all("kc_concurrency", buf);
  snprintf(buf, sizeof buf, "0x%08x", (unsigned)devid_queue);
  declare_metadata_all("kc_tools_device_id", buf);
}

/* Kokkos still honours KOKKOS_PROFILE_LIBRARY, its variable before
 * KOKKOS_TOOLS_LIBS, with a deprecation warning; so does kc, below both
 * KC_TOOLS_LIBS and KOKKOS_TOOLS_LIBS.  `libs` and `*var` are what those
 * two gave. */
static const char *profile_library(const char *libs, const char **var) {
  const char *old = kc__secure_getenv("KOKKOS_PROFILE_LIBRARY");
  if (!old || strcmp(*var, "KC_TOOLS_LIBS") == 0)
    return libs;
  fprintf(stderr,
          "kc: warning: environment variable 'KOKKOS_PROFILE_LIBRARY' is "
          "deprecated; use 'KOKKOS_TOOLS_LIBS' (or 'KC_TOOLS_LIBS') "
          "instead%s\n",
          libs && strcmp(libs, old) != 0
              ? "; KOKKOS_TOOLS_LIBS is set as well and differs: it is used"
              : "");
  if (libs)
    return libs;
  *var = "KOKKOS_PROFILE_LIBRARY";
  return old;
}

static const char *env_or(const char *name, const char *fallback,
                          const char **which) {
  const char *v = kc__secure_getenv(name);
  if (v) {
    *which = name;
    return v;
  }
  v = kc__secure_getenv(fallback);
  *which = fallback;
  return v;
}

void kc__tools_init(const kc_info *info) {
  uint32_t type = device_type(info ? info->backend : NULL);
  uint32_t dev = (info && info->device > 0) ? (uint32_t)info->device : 0;
  devid_global = type << TYPE_SHIFT | KC__TOOLS_INSTANCE_GLOBAL;
  devid_queue = kc__tools_queue_id((int)dev, KC__TOOLS_INSTANCE_DEFAULT);
  name_spaces(info);

  const char *var;
  const char *libs = env_or("KC_TOOLS_LIBS", "KOKKOS_TOOLS_LIBS", &var);
  libs = profile_library(libs, &var);
  if (!libs || !*libs)
    return;

  /* KC_TOOLS_LIBS: every entry is a tool of its own.  Kokkos' variables:
   * the first entry only, as Kokkos opens it; a connector or sampler tool
   * there loads the next entries itself (kc.h, "Profiling"). */
  int first_only = strcmp(var, "KC_TOOLS_LIBS") != 0;
  int cap = 0;
  char **list = kc__tools_libs_parse(libs, first_only, &cap);
  struct tool *loaded = list ? calloc((size_t)cap + 1, sizeof *loaded) : NULL;
  if (!loaded) {
    fprintf(stderr, "kc: out of memory loading the tools of %s\n", var);
    free(list);
    return;
  }
  int n = 0;
  for (char **entry = list; *entry; entry++) {
    const char *path = *entry;
    if (tool_load(&loaded[n], path, var) != 0)
      continue;
    /* The same library named twice (or under two paths) is one tool. */
    int dup = 0;
    for (int i = 0; i < n; i++)
      dup |= loaded[i].handle == loaded[n].handle;
    if (dup) {
      free(loaded[n].path);
      continue;
    }
    kc__verbose("tools: loaded %s (%d kokkosp_* callbacks)", path,
                loaded[n].ncallbacks);
    n++;
  }
  free(list);
  if (n == 0) {
    free(loaded);
    return;
  }
  tools = loaded;
  ntools = n;

  const char *args_var;
  const char *args = env_or("KC_TOOLS_ARGS", "KOKKOS_TOOLS_ARGS", &args_var);
  struct kp_tool_interface tpi;
  memset(&tpi, 0, sizeof tpi);
  tpi.fence = tool_invoked_fence;
  for (int i = 0; i < ntools; i++) {
    struct tool *t = &tools[i];
    if (t->init) {
      struct kp_device_info di = {devid_queue};
      t->init(i, KOKKOSP_VERSION, 1, &di);
    }
    if (t->request_settings) {
      struct kp_tool_settings s;
      memset(&s, 0, sizeof s);
      s.requires_global_fencing = true;
      t->request_settings(1, &s);
      t->global_fencing = s.requires_global_fencing;
    }
    if (t->provide_interface)
      t->provide_interface(1, tpi);
    tool_parse_args(t, args);
  }

  for (int i = 0; i < ntools; i++) {
    const struct tool *t = &tools[i];
    for (int w = 0; w < 3; w++)
      fence_parallel[w] |=
          t->global_fencing && (t->begin_parallel[w] || t->end_parallel[w]);
    fence_region |= t->global_fencing && (t->push_region || t->pop_region);
  }
  kc__tools_active = 1;
  declare_kc_metadata(info);
}

void kc__tools_finalize(void) {
  if (!tools)
    return;
  /* A tool hears nothing after its kokkosp_finalize_library, though a
   * later tool's finalize may still launch, allocate or fence: its
   * callbacks are forgotten once its finalize returns. */
  for (int i = 0; i < ntools; i++) {
    struct tool *t = &tools[i];
    if (t->finalize)
      t->finalize();
    *t = (struct tool){.handle = t->handle, .path = t->path};
  }
  kc__tools_active = 0;
  for (int i = 0; i < ntools; i++)
    free(tools[i].path);
  /* The libraries stay loaded: a tool may have left threads or atexit
   * handlers behind, and a later kc_init opens the same handles again. */
  free(tools);
  tools = NULL;
  ntools = 0;
  memset(fence_parallel, 0, sizeof fence_parallel);
  fence_region = false;
}

/* ------------------------------------------------------------ hooks */

void kc__tools_begin_parallel(kc__tools_parallel what, const char *label,
                              uint32_t devid, uint64_t *kid) {
  *kid = 0;
  if ((unsigned)what > KC__TOOLS_SCAN || !tools)
    return;
  if (fence_parallel[what])
    tools_fence(global_fence_name, devid_global);
  if (!label)
    label = "";
  if (ntools == 1) {
    if (tools[0].begin_parallel[what])
      tools[0].begin_parallel[what](label, devid, kid);
    return;
  }
  uint64_t *ids = ids_new();
  if (!ids)
    return;
  for (int i = 0; i < ntools; i++)
    if (tools[i].begin_parallel[what])
      tools[i].begin_parallel[what](label, devid, &ids[i]);
  *kid = ids_pack(ids);
}

void kc__tools_end_parallel(kc__tools_parallel what, uint64_t kid) {
  if ((unsigned)what > KC__TOOLS_SCAN || !tools)
    return;
  if (fence_parallel[what])
    tools_fence(global_fence_name, devid_global);
  if (ntools == 1) {
    if (tools[0].end_parallel[what])
      tools[0].end_parallel[what](kid);
    return;
  }
  uint64_t *ids = ids_unpack(kid);
  if (!ids)
    return;
  for (int i = 0; i < ntools; i++)
    if (tools[i].end_parallel[what])
      tools[i].end_parallel[what](ids[i]);
  free(ids);
}

void kc__tools_push_region(const char *name) {
  if (!tools)
    return;
  if (fence_region)
    tools_fence(global_fence_name, devid_global);
  for (int i = 0; i < ntools; i++)
    if (tools[i].push_region)
      tools[i].push_region(name ? name : "");
}

void kc__tools_pop_region(void) {
  if (!tools)
    return;
  if (fence_region)
    tools_fence(global_fence_name, devid_global);
  for (int i = 0; i < ntools; i++)
    if (tools[i].pop_region)
      tools[i].pop_region();
}

void kc__tools_allocate(kc_space space, const char *label, const void *ptr,
                        uint64_t size) {
  struct kp_space_handle h = space_handle(space);
  for (int i = 0; i < ntools; i++)
    if (tools[i].allocate)
      tools[i].allocate(h, label ? label : "", ptr, size);
}

void kc__tools_deallocate(kc_space space, const char *label, const void *ptr,
                          uint64_t size) {
  struct kp_space_handle h = space_handle(space);
  for (int i = 0; i < ntools; i++)
    if (tools[i].deallocate)
      tools[i].deallocate(h, label ? label : "", ptr, size);
}

void kc__tools_begin_deep_copy(kc_space dst_space, const char *dst_label,
                               const void *dst, kc_space src_space,
                               const char *src_label, const void *src,
                               uint64_t size) {
  struct kp_space_handle dh = space_handle(dst_space);
  struct kp_space_handle sh = space_handle(src_space);
  for (int i = 0; i < ntools; i++)
    if (tools[i].begin_deep_copy)
      tools[i].begin_deep_copy(dh, dst_label ? dst_label : "", dst, sh,
                               src_label ? src_label : "", src, size);
}

void kc__tools_end_deep_copy(void) {
  for (int i = 0; i < ntools; i++)
    if (tools[i].end_deep_copy)
      tools[i].end_deep_copy();
}

static void begin_fence(const char *name, uint32_t devid, uint64_t *id) {
  *id = 0;
  if (!tools)
    return;
  if (own_fence_name)
    name = own_fence_name;
  if (ntools == 1) {
    if (tools[0].begin_fence)
      tools[0].begin_fence(name, devid, id);
    return;
  }
  uint64_t *ids = ids_new();
  if (!ids)
    return;
  for (int i = 0; i < ntools; i++)
    if (tools[i].begin_fence)
      tools[i].begin_fence(name, devid, &ids[i]);
  *id = ids_pack(ids);
}

void kc__tools_begin_fence(const char *name, uint64_t *id) {
  begin_fence(name ? name : "kc_fence", devid_global, id);
}

/* Kokkos names an instance's fence after the space and the instance
 * ("Kokkos::Cuda::fence(): Unnamed Instance Fence"); kc's queues have no
 * names, so the instance number says which queue. */
void kc__tools_begin_queue_fence(const char *what, uint32_t devid,
                                 uint64_t *id) {
  char name[64];
  snprintf(name, sizeof name, "%s: queue %u", what ? what : "kc_queue_fence",
           (unsigned)(devid & INSTANCE_MASK));
  begin_fence(name, devid, id);
}

void kc__tools_end_fence(uint64_t id) {
  if (!tools)
    return;
  if (ntools == 1) {
    if (tools[0].end_fence)
      tools[0].end_fence(id);
    return;
  }
  uint64_t *ids = ids_unpack(id);
  if (!ids)
    return;
  for (int i = 0; i < ntools; i++)
    if (tools[i].end_fence)
      tools[i].end_fence(ids[i]);
  free(ids);
}

void kc__tools_dual_view_modify(const char *label, const void *ptr,
                                int on_device) {
  for (int i = 0; i < ntools; i++)
    if (tools[i].dual_view_modify)
      tools[i].dual_view_modify(label ? label : "", ptr, on_device != 0);
}

void kc__tools_dual_view_sync(const char *label, const void *ptr,
                              int to_device) {
  for (int i = 0; i < ntools; i++)
    if (tools[i].dual_view_sync)
      tools[i].dual_view_sync(label ? label : "", ptr, to_device != 0);
}

/* -------------------------------------------------------- public API */

int kc_declare_metadata(const char *key, const char *value) {
  int rc = kc__enter("kc_declare_metadata");
  if (rc < 0)
    return rc;
  if (!key || !value)
    rc = kc__error(KC_EINVAL, "kc_declare_metadata: %s is NULL",
                   key ? "value" : "key");
  else if (kc__unlikely(kc__tools_active))
    declare_metadata_all(key, value);
  kc__leave();
  return rc;
}

int kc_profile_event(const char *name) {
  int rc = kc__enter("kc_profile_event");
  if (rc < 0)
    return rc;
  if (!name)
    rc = kc__error(KC_EINVAL, "kc_profile_event: name is NULL");
  else if (kc__unlikely(kc__tools_active))
    for (int i = 0; i < ntools; i++)
      if (tools[i].profile_event)
        tools[i].profile_event(name);
  kc__leave();
  return rc;
}
