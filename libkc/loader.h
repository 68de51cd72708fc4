/* libkc — the plugin loader's report, for kc-info.
 *
 * These two functions are exported (default visibility) with internal
 * `kc__` names: kc-info links them, applications should not.  They do not
 * need kc_init and do not change the runtime's state; listing probes every
 * plugin it finds (which loads it, and it stays loaded).  Thread safe.
 */
#ifndef KC_LIBKC_LOADER_H
#define KC_LIBKC_LOADER_H

#include <kc/backend.h>

/* Where a search directory came from. */
#define KC__DIR_ENV "KC_PLUGIN_PATH"
#define KC__DIR_BESIDE "beside libkc"
#define KC__DIR_CONFIGURED "configured pkglibdir"

/* Calls cb once per plugin search directory, in search order (duplicates
 * removed): its path, where it came from (one of the strings above) and
 * whether it exists.  Returns the number of directories. */
KC_API int kc__plugin_dirs(void (*cb)(const char *dir, const char *origin,
                                      int exists, void *arg),
                           void *arg);

/* What the loader thinks of one plugin file. */
typedef struct kc__plugin_report {
  const char *path;        /* the file */
  const char *name;        /* from the file name libkc-<name>.so */
  int code;                /* 0: accepted; else why it was refused */
  const char *detail;      /* the refusal's one-line detail ("" if none) */
  const char *shadowed_by; /* non-NULL: a file of the same name earlier in
                              the search path (or the built-in serial
                              backend) is the one that is used; not probed */
  int ndevices;            /* accepted: devices its probe reported */
  unsigned abi_major, abi_minor; /* as built, when the file is a plugin */
  const char *description;       /* accepted: the plugin's own one line */
} kc__plugin_report;

/* Calls cb once per file named libkc-*.so in the search directories, in
 * search order (files sorted by name within a directory), after checking it
 * exactly as kc_init would (file layout, dlopen, entry symbol, ABI, name,
 * probe; a file whose layout is broken is reported, not loaded; what lies
 * past the layout, relocations and symbols, is dlopen()'s to judge).  The
 * report is valid during the call only.  Returns the number of files. */
KC_API int kc__plugin_list(void (*cb)(const kc__plugin_report *r, void *arg),
                           void *arg);

#endif
