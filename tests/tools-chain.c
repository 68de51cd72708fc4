/* A chaining Kokkos Tools library for the tests, built as kokkos-sampler
 * and kernel-filter are: it opens the next library itself, from the same
 * list Kokkos opened it from (KOKKOS_TOOLS_LIBS, else
 * KOKKOS_PROFILE_LIBRARY), skipping `loadSeq` entries after the first, and
 * initialises it with loadSeq + 1.  It passes on init, finalize, metadata
 * and events, except events whose name starts with "chain-filtered": a
 * runtime that also loads the child by itself defeats that filter and
 * initialises the child twice, which tools-load detects in the child's
 * log.  No list entry to chain to: a line on stderr, nothing passed on. */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL_API __attribute__((visibility("default")))

typedef void (*init_fn)(int, uint64_t, uint32_t, void *);
typedef void (*void_fn)(void);
typedef void (*str_fn)(const char *);
typedef void (*str2_fn)(const char *, const char *);

static init_fn child_init;
static void_fn child_finalize;
static str_fn child_event;
static str2_fn child_metadata;

/* The entry loadSeq + 1 places after the first (strtok's view of the
 * list, as the Kokkos tools parse it), copied into buf; NULL if none. */
static const char *next_entry(const char *list, int seq, char *buf,
                              size_t cap) {
  snprintf(buf, cap, "%s", list);
  char *save = NULL;
  char *e = strtok_r(buf, ";", &save);
  for (int i = 0; e && i <= seq; i++)
    e = strtok_r(NULL, ";", &save);
  return e;
}

TOOL_API void kokkosp_init_library(int seq, uint64_t version, uint32_t ndev,
                                   void *devs) {
  const char *list = getenv("KOKKOS_TOOLS_LIBS");
  if (!list)
    list = getenv("KOKKOS_PROFILE_LIBRARY");
  char buf[8192];
  const char *next = list ? next_entry(list, seq, buf, sizeof buf) : NULL;
  if (!next) {
    fprintf(stderr, "tools-chain: no library to chain to after entry %d\n",
            seq);
    return;
  }
  void *h = dlopen(next, RTLD_NOW | RTLD_GLOBAL);
  if (!h) {
    fprintf(stderr, "tools-chain: cannot load %s: %s\n", next, dlerror());
    return;
  }
  void *p;
  p = dlsym(h, "kokkosp_init_library");
  memcpy(&child_init, &p, sizeof p);
  p = dlsym(h, "kokkosp_finalize_library");
  memcpy(&child_finalize, &p, sizeof p);
  p = dlsym(h, "kokkosp_profile_event");
  memcpy(&child_event, &p, sizeof p);
  p = dlsym(h, "kokkosp_declare_metadata");
  memcpy(&child_metadata, &p, sizeof p);
  if (child_init)
    child_init(seq + 1, version, ndev, devs);
}

TOOL_API void kokkosp_finalize_library(void) {
  if (child_finalize)
    child_finalize();
}

TOOL_API void kokkosp_profile_event(const char *name) {
  if (child_event && strncmp(name, "chain-filtered", 14) != 0)
    child_event(name);
}

TOOL_API void kokkosp_declare_metadata(const char *key, const char *value) {
  if (child_metadata)
    child_metadata(key, value);
}
