/* libkc — state and helpers shared by the core's own files.
 *
 * Nothing here is part of any ABI.  Non-static names are `kc__`; they are
 * hidden (the library is built with -fvisibility=hidden) except the few in
 * loader.h that kc-info uses.
 *
 * Locks, always taken in this order:
 *   kc__rt.init_lock   kc_init / kc_finalize
 *   kc__rt.lock        every call into the backend (all slots), the memory
 *                      table's inserts and removals, kernel state
 *   memory table lock  (memory.c) lookups, inserts, removals
 *   kernel registry    (kernel.c) registration and lookup
 * A kernel running on the host must not call kc (it would wait on
 * kc__rt.lock, which its launch holds).  Profiling hooks (tools.h) are
 * called with no kc lock held: tools may call kc_fence from them.
 */
#ifndef KC_LIBKC_INTERNAL_H
#define KC_LIBKC_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>

#include <kc/backend.h>

#include "tools.h"

#define KC__HIDDEN __attribute__((visibility("hidden")))
#define kc__likely(x) __builtin_expect(!!(x), 1)

/* A slot of the backend ops table that a plugin may leave out: usable only
 * when the plugin's struct_size covers it and it is not NULL (ABI rule). */
#define KC__OPS_HAS(ops, slot)                                                 \
  ((ops)->struct_size >=                                                       \
       offsetof(kc_backend_ops, slot) + sizeof((ops)->slot) &&                 \
   (ops)->slot != NULL)

/* Size of the ABI 1.0 table: a 1.x plugin must provide at least this much. */
#define KC__OPS_SIZE_1_0                                                       \
  (offsetof(kc_backend_ops, launch) + sizeof(((kc_backend_ops *)0)->launch))

/* ------------------------------------------------------------- errors */

/* Sets the calling thread's detail and returns `code`. */
int kc__error(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3))) KC__HIDDEN;
int kc__verror(int code, const char *fmt, va_list ap) KC__HIDDEN;
/* Prints "kc: <line>" to stderr when KC_VERBOSE is set. */
void kc__verbose(const char *fmt, ...)
    __attribute__((format(printf, 1, 2))) KC__HIDDEN;
/* Re-reads KC_VERBOSE (at kc_init). */
void kc__verbose_refresh(void) KC__HIDDEN;
int kc__verbose_on(void) KC__HIDDEN;

/* ------------------------------------------------------------ runtime */

typedef struct kc__runtime {
  pthread_mutex_t init_lock;
  int refs;             /* kc_init references, under init_lock */
  atomic_int up;        /* 1 between init and last finalize */
  pthread_mutex_t lock; /* serialises every backend slot */

  const kc_backend_ops *ops;
  void *state;      /* plugin state, 64-byte aligned, zeroed */
  const char *name; /* ops->name */
  char path[4096];  /* file, or "built-in" */
  int ndevices;     /* what probe said */
  kc_backend_config cfg;
  unsigned spaces; /* from the backend's info slot */
  unsigned gen;    /* bumped at each successful init */
} kc__runtime;

extern kc__runtime kc__rt KC__HIDDEN;

/* Fails with KC_ENOINIT (naming `fn`) unless kc is initialised. */
#define KC__CHECK_INIT(fn)                                                     \
  do {                                                                         \
    if (!atomic_load_explicit(&kc__rt.up, memory_order_acquire))               \
      return kc__noinit(fn);                                                   \
  } while (0)
int kc__noinit(const char *fn) KC__HIDDEN;

/* Zeroed, 64-byte aligned allocation (NULL on failure). */
void *kc__zalloc64(size_t bytes) KC__HIDDEN;

/* ------------------------------------------------------------- loader */

/* A backend the loader found and accepted (probed, not initialised). */
typedef struct kc__backend_pick {
  const kc_backend_ops *ops;
  int ndevices;
  char path[4096];
} kc__backend_pick;

/* Resolves KC_BACKEND (or the default preference order) to a backend whose
 * probe found a device.  Sets the detail on failure. */
int kc__loader_pick(kc__backend_pick *out) KC__HIDDEN;

/* The built-in serial backend. */
extern const kc_backend_ops kc__serial_ops KC__HIDDEN;

/* ------------------------------------------------------------- memory */

/* Frees every live allocation (at the last kc_finalize, under rt.lock,
 * after the backend fenced); reports them under KC_VERBOSE. */
void kc__memory_release_all(void) KC__HIDDEN;

/* Looks up the allocation containing p: 1 and *space, or 0 (host memory). */
int kc__memory_space_of(const void *p, kc_space *space) KC__HIDDEN;
/* As kc__memory_space_of, with the bytes from p to the end of the
 * allocation (0 for a zero-byte one) and its label (cut to cap bytes). */
/* Checks an output argument of `bytes` bytes at p that kc writes on the
 * host: inside a kc allocation it must have that much room and be host
 * memory; otherwise KC_EINVAL naming fn and what.  0 if p is not kc's. */
int kc__out_check(const char *fn, const char *what, const void *p,
                  size_t bytes) KC__HIDDEN;
int kc__memory_room(const void *p, kc_space *space, size_t *room, char *label,
                    size_t cap) KC__HIDDEN;

/* ------------------------------------------------------------ kernels */

struct kc__ffi;

/* The core's record of a kernel.  `info` comes first: plugins receive
 * &k->info, and the host engine finds the record again from it. */
struct kc_kernel {
  kc_kernel_info info;
  unsigned magic; /* KC__KERNEL_MAGIC */
  kc_kernel *next;
  /* Backend state, under kc__rt.lock; reset at finalize. */
  void *state;  /* kernel_state_size bytes */
  int prepared; /* kernel_prepare succeeded */
  /* libffi call interface of a CALL kernel, built once (ffi.c). */
  atomic_int ffi_ready;
  struct kc__ffi *ffi;
  /* TEAM kinds: kc_kernel_set_team_scratch's function, or NULL (team.c). */
  _Atomic(kc_team_scratch_fn) team_scratch;
};

#define KC__KERNEL_MAGIC 0x6b636b6eu /* "kckn" */

/* The record owning a kernel_info handed to a plugin, or NULL. */
static inline kc_kernel *kc__kernel_of(const kc_kernel_info *info) {
  kc_kernel *k = (kc_kernel *)(void *)info;
  return (k && k->magic == KC__KERNEL_MAGIC) ? k : NULL;
}

/* Calls kernel_release for every prepared kernel and frees kernel states
 * (at the last kc_finalize, under rt.lock). */
void kc__kernels_release(void) KC__HIDDEN;

/* Maximum parameters of a CALL kernel after (begin, end). */
#define KC__CALL_MAX_ARGS 64

/* Calls a CALL kernel's host function as fn(b, e, args...) through libffi,
 * preparing its call interface at first use.  Thread safe. */
int kc__ffi_prepare(kc_kernel *k) KC__HIDDEN;
void kc__ffi_call(kc_kernel *k, kc_index b, kc_index e, int nargs,
                  void *const *args) KC__HIDDEN;

/* ----------------------------------------------------------- reducers */

/* Fills identity/join of a built-in reducer and returns its value size, or
 * 0 (with the detail set) if the reducer is invalid. */
size_t kc__reducer_complete(kc_reducer *r, const char *kernel) KC__HIDDEN;

/* ------------------------------------------------------------ host engine */

/* Frees the engine's cached accumulator buffer (at the last kc_finalize). */
void kc__host_cleanup(void) KC__HIDDEN;
/* Nonzero while the calling thread runs a host kernel (host.c). */
extern __thread int kc__in_kernel __attribute__((tls_model("initial-exec")))
KC__HIDDEN;
/* The error for a kc call that cannot be made from inside a kernel. */
int kc__nested(const char *fn) KC__HIDDEN;

#endif
