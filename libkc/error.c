/* libkc — error codes, names, messages and the per-thread detail. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *kc_strerror(int code) {
  switch (code) {
  case 0:
    return "success";
#define KC__ERR_MSG(name, value, msg)                                          \
  case value:                                                                  \
    return msg;
    KC_ERRNO_MAP(KC__ERR_MSG)
#undef KC__ERR_MSG
  default:
    return "unknown error";
  }
}

const char *kc_err_name(int code) {
  switch (code) {
  case 0:
    return "KC_OK";
#define KC__ERR_NAME(name, value, msg)                                         \
  case value:                                                                  \
    return "KC_E" #name;
    KC_ERRNO_MAP(KC__ERR_NAME)
#undef KC__ERR_NAME
  default:
    return "KC_E?";
  }
}

/* The detail is a fixed per-thread buffer: no allocation that could fail
 * while reporting a failure, and nothing to free at thread exit.  Longer
 * details (a JIT log) are cut with "..." at the end. */
#define KC__DETAIL_MAX 8192
static _Thread_local char detail[KC__DETAIL_MAX];

const char *kc_last_error(void) { return detail; }

int kc__verror(int code, const char *fmt, va_list ap) {
  int n = vsnprintf(detail, sizeof detail, fmt, ap);
  if (n >= (int)sizeof detail)
    memcpy(detail + sizeof detail - 4, "...", 4);
  return code;
}

int kc__error(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kc__verror(code, fmt, ap);
  va_end(ap);
  return code;
}

int kc_set_last_error(int code, const char *text) {
  if (!text)
    text = "";
  const uintptr_t t = (uintptr_t)text, d = (uintptr_t)detail;
  if (t >= d && t < d + sizeof detail) {
    /* Part of the detail itself (kc_last_error() + k): moved, not printed
     * over itself. */
    memmove(detail, text, strlen(text) + 1);
    return code;
  }
  return kc__error(code, "%s", text);
}

/* The plugins' names (backend.h) for kc__error and kc__verbose. */
int kc_backend_error(int code, const char *fmt, ...)
    __attribute__((alias("kc__error")));

int kc__error_wrap(int code, const char *fmt, ...) {
  /* The lower layer's detail is read before it is overwritten; no
   * allocation (this reports failures, out of memory among them). */
  static _Thread_local char below[KC__DETAIL_MAX];
  memcpy(below, detail, sizeof below);
  char *at = detail;
  size_t room = sizeof detail;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(at, room, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n < room) {
    /* The precision bounds what is copied (and tells the compiler so). */
    const int rest = (int)(room - (size_t)n);
    snprintf(at + n, (size_t)rest, ": %.*s", rest,
             *below ? below : kc_strerror(code));
  }
  if (strlen(detail) == sizeof detail - 1)
    memcpy(detail + sizeof detail - 4, "...", 4);
  return code;
}

int kc__noinit(const char *fn) {
  return kc__error(KC_ENOINIT, "%s: kc is not initialized (call kc_init first)",
                   fn);
}

int kc__nested(const char *fn) {
  return kc__error(KC_EINVAL,
                   "%s called from inside a kernel or a backend slot: kc "
                   "cannot be re-entered from there, launches do not nest "
                   "(use a team policy's nested loops instead)",
                   fn);
}

int kc__slot_bad(int rc) {
  char said[256]; /* the plugin's detail: kc__error writes over it */
  snprintf(said, sizeof said, "%.*s", (int)sizeof said - 1, kc_last_error());
  return kc__error(KC_EINTERNAL,
                   "%s%s%s returned %d from a slot: neither 0 nor a kc "
                   "error code (<kc/error.h>), a bug of the plugin%s%s",
                   kc__rt.name ? "backend '" : "the backend",
                   kc__rt.name ? kc__rt.name : "", kc__rt.name ? "'" : "", rc,
                   *said ? "; it said: " : "", said);
}

/* KC_VERBOSE is read lazily and again at each kc_init, so that a program
 * (or a test) that sets it before initialising is heard. */
static atomic_int verbose_level = -1;

void kc__verbose_refresh(void) {
  const char *v = getenv("KC_VERBOSE");
  int on = v && *v && strcmp(v, "0") != 0;
  atomic_store_explicit(&verbose_level, on, memory_order_relaxed);
}

int kc__verbose_on(void) {
  int v = atomic_load_explicit(&verbose_level, memory_order_relaxed);
  if (v < 0) {
    kc__verbose_refresh();
    v = atomic_load_explicit(&verbose_level, memory_order_relaxed);
  }
  return v;
}

static void vverbose(const char *fmt, va_list ap) {
  char line[4096], *big = NULL;
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  /* A line naming a long path or list is printed whole. */
  if (n >= (int)sizeof line && (big = malloc((size_t)n + 1)) != NULL)
    vsnprintf(big, (size_t)n + 1, fmt, again);
  va_end(again);
  /* One fprintf per line so that lines from several threads do not mix. */
  fprintf(stderr, "kc: %s%s\n", big ? big : line,
          n >= (int)sizeof line && !big ? "..." : "");
  free(big);
}

void kc__verbose(const char *fmt, ...) {
  if (!kc__verbose_on())
    return;
  va_list ap;
  va_start(ap, fmt);
  vverbose(fmt, ap);
  va_end(ap);
}

void kc_backend_verbose(const char *fmt, ...)
    __attribute__((alias("kc__verbose")));

const char *kc__secure_getenv(const char *name) {
  const char *v = secure_getenv(name);
  /* getenv() only to tell the user why the setting had no effect. */
  if (!v && getenv(name))
    kc__verbose("%s is ignored: this program runs with raised privileges "
                "(setuid, setgid or file capabilities)",
                name);
  return v;
}
