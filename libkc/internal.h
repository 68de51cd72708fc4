/* libkc — state and helpers shared by the core's own files.
 *
 * Nothing here is part of any ABI.  Non-static names are `kc__`; they are
 * hidden (the library is built with -fvisibility=hidden) except the few in
 * loader.h that kc-info uses.
 *
 * Locks, always taken in this order:
 *   kc__rt.init_lock   kc_init / kc_finalize
 *   kc__rt.lock        every call into the backend (all slots), the memory
 *                      table's inserts, kernel state
 *   memory table lock  (memory.c) lookups, inserts, removals
 *   kernel registry    (kernel.c) registration and lookup
 *
 * Lifetime: every public call that uses the runtime runs between
 * kc__enter() and kc__leave(), which count it in kc__rt.users.  The last
 * kc_finalize first makes the runtime KC__OWNED (new calls fail, except
 * on its own thread), waits until no call is in flight, and only then
 * finalises the tools and the backend; kc_init publishes the backend the
 * same way, so a call that entered sees one initialised runtime from its
 * start to its end, and none of them re-checks under a lock.
 *
 * Re-entry: the core marks the calling thread (kc__self.kernel) around
 * every backend slot it calls, and the host engine (like a plugin's own
 * engine, through kc_backend_kernel_enter) around kernel code on every
 * thread.  A marked thread that calls kc would wait for kc__rt.lock, which
 * its own slot holds, or for a launch that waits for it: every call that
 * could block fails with kc__nested() instead.  Profiling hooks (profiling.h)
 * are called with no kc lock held: tools may call kc_fence from them, but
 * not kc_init or kc_finalize (kc__self.calls).
 */
#ifndef KC_LIBKC_INTERNAL_H
#define KC_LIBKC_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <kc/backend.h>

#include "profiling.h"

#define KC__HIDDEN __attribute__((__visibility__("hidden")))
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
/* Kernel kinds, from KC_KERNEL_KIND_MAP (kc.h): whether a kind carries a
 * value, the policy it launches with, its upper-case name. */
static inline int kc__kind_has_value(kc_kernel_kind k) {
#define KC__X(K, n, p, v, c) k == KC_KERNEL_##K ? v:
  return KC_KERNEL_KIND_MAP(KC__X) 0;
#undef KC__X
}
static inline kc_policy_kind kc__kind_policy(kc_kernel_kind k) {
#define KC__X(K, n, p, v, c) k == KC_KERNEL_##K ? KC_POLICY_##p:
  return KC_KERNEL_KIND_MAP(KC__X) KC_POLICY_RANGE;
#undef KC__X
}
static inline const char *kc__kind_name(kc_kernel_kind k) {
#define KC__X(K, n, p, v, c) k == KC_KERNEL_##K ? #K:
  return KC_KERNEL_KIND_MAP(KC__X) "?";
#undef KC__X
}

/* Re-raises a lower layer's failure with context: sets the detail to
 * "<fmt ...>: <the detail it left>" (or "...: <kc_strerror(code)>" when it
 * left none) and returns `code`. */
int kc__error_wrap(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int kc__verror(int code, const char *fmt, va_list ap) KC__HIDDEN;
/* Prints "kc: <line>" to stderr when KC_VERBOSE is set. */
void kc__verbose(const char *fmt, ...)
    __attribute__((format(printf, 1, 2))) KC__HIDDEN;
/* Re-reads KC_VERBOSE (at kc_init). */
void kc__verbose_refresh(void) KC__HIDDEN;
int kc__verbose_on(void) KC__HIDDEN;

/* ------------------------------------------------------------ runtime */

/* kc__rt.up: what the runtime is. */
enum {
  KC__DOWN = 0,  /* not initialised */
  KC__UP = 1,    /* initialised: every thread may call */
  KC__OWNED = 2, /* being initialised or finalised: only that thread */
  KC__FORKED = 3 /* this process is a fork()ed child of one that was up */
};

typedef struct kc__runtime {
  pthread_mutex_t init_lock;
  int refs;                   /* kc_init references, under init_lock */
  atomic_int up;              /* KC__DOWN, KC__UP, ... */
  atomic_uint users;          /* calls between kc__enter and kc__leave */
  pthread_mutex_t drain_lock; /* with `drained`: the last kc_finalize */
  pthread_cond_t drained;     /* waits here for users to reach 0 */
  pthread_mutex_t lock;       /* serialises every backend slot */

  const kc_backend_ops *ops;
  void *state;      /* plugin state, 64-byte aligned, zeroed */
  const char *name; /* ops->name */
  char path[4096];  /* file, or "built-in" */
  int ndevices;     /* what probe said */
  kc_backend_config cfg;
  char device_from[128]; /* what chose cfg.device (launcher.c) */
  unsigned spaces;       /* from the backend's info slot */
  int concurrency;       /* from the backend's info slot: host backends,
                            how many of parallel()'s tasks run at once */
  unsigned gen;          /* bumped at each successful init */
} kc__runtime;

extern kc__runtime kc__rt KC__HIDDEN;

/* What the calling thread is doing inside kc. */
typedef struct kc__thread {
  int kernel;   /* > 0: in a backend slot or in kernel code */
  int calls;    /* > 0: in a kc call (a profiling hook may run) */
  int lifetime; /* in kc_init or kc_finalize */
} kc__thread;
extern __thread kc__thread kc__self KC__HIDDEN;

/* The calling thread's record, looked up once.  Each access to a
 * thread-local variable of a shared library is a __tls_get_addr call, and
 * GCC makes that call again for every access rather than keep the address
 * in a register across a call (three calls for an increment and a
 * decrement around one); the empty asm hides where the pointer came from,
 * so it is kept. */
static inline kc__thread *kc__self_ref(void) {
  kc__thread *p = &kc__self;
  __asm__("" : "+r"(p));
  return p;
}

/* The error for a kc call that cannot be made from inside a kernel or a
 * backend slot (kc__self.kernel set). */
int kc__nested(const char *fn) KC__HIDDEN;
int kc__enter_slow(const char *fn) KC__HIDDEN;
void kc__wake_finalize(void) KC__HIDDEN;

/* Starts a call that uses the runtime: 0, or the error (nested, not
 * initialised, forked child) with the detail naming `fn`.  Every 0 needs
 * one kc__leave(). */
static inline int kc__enter(const char *fn) {
  if (kc__unlikely(kc__self.kernel))
    return kc__nested(fn);
  /* Sequentially consistent with kc_finalize's store to `up` and its
   * reading of `users`: either this call sees the runtime closing, or the
   * finaliser sees this call and waits for it. */
  atomic_fetch_add_explicit(&kc__rt.users, 1, memory_order_seq_cst);
  if (kc__likely(atomic_load_explicit(&kc__rt.up, memory_order_seq_cst) ==
                 KC__UP)) {
    kc__self.calls++;
    return 0;
  }
  return kc__enter_slow(fn);
}

static inline void kc__leave(void) {
  kc__self.calls--;
  if (atomic_fetch_sub_explicit(&kc__rt.users, 1, memory_order_seq_cst) == 1 &&
      kc__unlikely(atomic_load_explicit(&kc__rt.up, memory_order_seq_cst) !=
                   KC__UP))
    kc__wake_finalize();
}

/* Calls a backend slot with the thread marked (see "Re-entry" above).
 * The mark is put back as it was, not counted down: a slot that called
 * kc_backend_kernel_leave() once too often (or enter) does not leave the
 * thread marked wrongly for good.  A code a slot returns other than 0 and
 * kc's own (<kc/error.h>) is a plugin's bug: KC_EINTERNAL, saying so
 * (kc__slot_bad).  KC__SLOT_UPTO(call, most) also lets through 1..most
 * (event_query's 1). */
enum {
#define KC__ERR_ONE(name, code, msg) +1
  KC__ERR_COUNT = 0 KC_ERRNO_MAP(KC__ERR_ONE) /* codes -1 .. -count */
#undef KC__ERR_ONE
};
int kc__slot_bad(int rc) KC__HIDDEN;
/* Whether a slot may return rc: 0, one of kc's codes, or 1..most. */
static inline int kc__slot_code_ok(int rc, int most) {
  return kc__likely(rc == 0) || (rc < 0 && rc >= -KC__ERR_COUNT) ||
         (rc > 0 && rc <= most);
}
static inline int kc__slot_rc(int rc, int most) {
  return kc__slot_code_ok(rc, most) ? rc : kc__slot_bad(rc);
}
#define KC__SLOT_UPTO(call, most)                                              \
  __extension__({                                                              \
    const int kc__slot_k = kc__self.kernel++;                                  \
    const int kc__slot_r = (call);                                             \
    kc__self.kernel = kc__slot_k;                                              \
    kc__slot_rc(kc__slot_r, most);                                             \
  })
#define KC__SLOT(call) KC__SLOT_UPTO(call, 0)
#define KC__SLOT_VOID(call)                                                    \
  do {                                                                         \
    const int kc__slot_k = kc__self.kernel++;                                  \
    call;                                                                      \
    kc__self.kernel = kc__slot_k;                                              \
  } while (0)

int kc__noinit(const char *fn) KC__HIDDEN;

/* 0 if the runtime is up for the calling thread (UP, or OWNED by it: a
 * profiling tool's init or finalize callback), else KC_ENOINIT naming
 * `fn`, and fork() where this process is a fork()ed child.  Takes no
 * part in kc__enter's count of calls in flight. */
int kc__check_init(const char *fn) KC__HIDDEN;

/* Fails early with KC_ENOINIT (naming `fn`) when kc is not up for this
 * thread (down, a fork()ed child, another thread's kc_init or
 * kc_finalize), before a call validates its arguments: an argument error
 * there would hide the documented KC_ENOINIT.  kc__enter makes the real
 * check. */
#define KC__CHECK_INIT(fn)                                                     \
  do {                                                                         \
    if (atomic_load_explicit(&kc__rt.up, memory_order_relaxed) != KC__UP) {    \
      const int kc__ci_rc = kc__check_init(fn);                                \
      if (kc__ci_rc)                                                           \
        return kc__ci_rc;                                                      \
    }                                                                          \
  } while (0)

/* Zeroed, 64-byte aligned allocation (NULL on failure). */
void *kc__zalloc64(size_t bytes) KC__HIDDEN;

/* ------------------------------------------------------------- loader */

/* A backend the loader found and accepted (probed, not initialised). */
typedef struct kc__backend_pick {
  const kc_backend_ops *ops;
  int ndevices;
  char path[4096];
} kc__backend_pick;

/* Starts a backend the loader picked (config, state, init, info); 0 or a
 * negative code with the detail set.  On failure it must leave nothing
 * behind: the loader may go on to the next candidate. */
typedef int (*kc__backend_start_fn)(const kc__backend_pick *pick, void *arg);

/* Resolves KC_BACKEND (or the default preference order) to backends whose
 * probe found a device and calls start on each until one starts.  A single
 * named backend is tried alone (its failure is the answer); a preference
 * list and the automatic order go on to the next candidate when a file is
 * refused or start fails, saying why under KC_VERBOSE.  Sets the detail on
 * failure. */
int kc__loader_start(kc__backend_start_fn start, void *arg) KC__HIDDEN;

/* 0 if `path` is a regular file whose ELF layout the dynamic loader can map
 * (loader-elf.c: not a FIFO or device, not truncated, this machine's kind
 * of ELF shared object); else KC_EPLUGIN with a detail "cannot load PATH:
 * ...".  Checked before every dlopen() of a path kc was given. */
int kc__check_library(const char *path) KC__HIDDEN;

/* The elements of KC_BACKEND: split at ',', blanks (space, tab) trimmed,
 * empty elements dropped.  Any length and any number of elements.  Returns
 * the count with *out an array of that many strings (free with
 * kc__strv_free), or KC_ENOMEM. */
int kc__backend_list_parse(const char *s, char ***out) KC__HIDDEN;

/* The directories of KC_PLUGIN_PATH: split at ':', empty elements dropped,
 * trailing '/' removed (a lone "/" stays).  As kc__backend_list_parse. */
int kc__plugin_path_parse(const char *s, char ***out) KC__HIDDEN;

void kc__strv_free(char **v, int n) KC__HIDDEN;

/* Reads `n` bytes at `off` into buf: 0, or -1 when they cannot all be read. */
typedef int (*kc__elf_read_fn)(void *ctx, uint64_t off, void *buf, size_t n);

/* Whether a file of `size` bytes, read through rd, is an ELF shared object
 * of this process's class, byte order and machine whose loadable segments
 * and dynamic section lie inside the file (so that dlopen() can map it
 * without faulting).  0, or -1 with the reason in why ("truncated: ...",
 * "an ELF file for AArch64 ..."), to follow "<path> is ". */
int kc__elf_check(kc__elf_read_fn rd, void *ctx, uint64_t size, char *why,
                  size_t cap) KC__HIDDEN;

/* getenv() for variables that name code to load or places to load it from
 * (KC_BACKEND, KC_PLUGIN_PATH, KC_TOOLS_LIBS, ...): NULL in a process
 * running with raised privileges (setuid, setgid, file capabilities:
 * secure_getenv()), saying under KC_VERBOSE that the variable was
 * ignored. */
const char *kc__secure_getenv(const char *name) KC__HIDDEN;

/* The built-in serial backend. */
extern const kc_backend_ops kc__serial_ops KC__HIDDEN;

/* ------------------------------------------------------------- memory */

/* Frees every live allocation (at the last kc_finalize, under rt.lock,
 * after the backend fenced); reports them under KC_VERBOSE. */
void kc__memory_release_all(void) KC__HIDDEN;

/* kc_malloc on `device` (checked by the caller; -1: the default queue's),
 * errors naming kc_malloc_on; called between kc__enter and kc__leave. */
int kc__malloc_on(void **out, size_t bytes, kc_space space, int device,
                  const char *label) KC__HIDDEN;
/* The device of the allocation containing p (-1: none): 1, or 0 if p is
 * not in a kc allocation. */
int kc__memory_device_of(const void *p, int *device) KC__HIDDEN;
/* Marks (side 1) or unmarks (0) the allocation starting at p as a live
 * mirror's side, whose last reference kc_free then refuses (KC_EINVAL):
 * only kc_mirror_destroy, which unmarks it first, frees it.  0 if p starts
 * no live allocation. */
int kc__memory_mirror_side(const void *p, int side) KC__HIDDEN;
/* Checks an output argument of `bytes` bytes at p that kc writes on the
 * host: inside a kc allocation it must have that much room and be host
 * memory; otherwise KC_EINVAL naming fn and what.  0 if p is not kc's. */
int kc__out_check(const char *fn, const char *what, const void *p,
                  size_t bytes) KC__HIDDEN;
/* Looks up the allocation containing p: 1 with its space, the bytes from p
 * to its end (0 for a zero-byte one) and its label (cut to cap bytes), or
 * 0 (host memory). */
int kc__memory_room(const void *p, kc_space *space, size_t *room, char *label,
                    size_t cap) KC__HIDDEN;
/* kc_memcpy (async 0) / kc_memcpy_async (1) and kc_memset, their errors
 * naming `fn` (kc_memcpy_on, kc_memset_on); on the backend's queue `bq`
 * (queue slots; asynchronous) when it is not NULL. */
int kc__memcpy(const char *fn, void *bq, void *dst, const void *src,
               size_t bytes, int async) KC__HIDDEN;
int kc__memset(const char *fn, void *bq, void *p, int value,
               size_t bytes) KC__HIDDEN;
/* The backend's handle of queue q (NULL: default queue, or no slots). */
void *kc__queue_backend(const struct kc_queue *q) KC__HIDDEN;

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
  /* TEAM kinds: kc_kernel_set_team_scratch's function, or NULL (scratch.c). */
  _Atomic(kc_team_scratch_fn) team_scratch;
  size_t functor_size; /* kc_kernel_desc.functor_size; 0: unchecked */
  unsigned flags;      /* kc_kernel_desc.flags */
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

/* queue.c: checks a queue handle (KC_EINVAL with a detail naming fn);
 * kc__queues_release kills every live queue and event (kc_finalize). */
int kc__queue_check(const struct kc_queue *q, const char *fn) KC__HIDDEN;
/* A launch's queue q (not NULL): KC_EINVAL naming fn unless live, else 0
 * and *bq its backend handle (NULL without queue slots). */
int kc__queue_launch(const struct kc_queue *q, const char *fn,
                     void **bq) KC__HIDDEN;
void kc__queues_release(void) KC__HIDDEN;

/* fork(): the forking thread takes each file's own lock (take = 1) before
 * fork() and releases it (take = 0) after, in the parent and in the child,
 * so that a child never inherits one that a thread it does not have held
 * (its kernel lookups deadlocked).  These locks are leaves: none is held
 * while waiting for another (init.c's handlers). */
void kc__kernels_fork_lock(int take) KC__HIDDEN;

/* host-chunkbuf.c: set when a KC_CHUNK_BUFFER could not be had (the chunk
 * returned early); kc__chunk_failed clears it and reports KC_ENOMEM for
 * the launch of `kernel`. */
extern atomic_int kc__chunk_oom KC__HIDDEN;
int kc__chunk_failed(const char *kernel) KC__HIDDEN;
void kc__memory_fork_lock(int take) KC__HIDDEN;
void kc__queues_fork_lock(int take) KC__HIDDEN;
void kc__ffi_fork_lock(int take) KC__HIDDEN;

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

#endif
