/* kc — the backend plugin ABI.
 *
 * A backend is a shared object `libkc-<name>.so` exporting exactly one
 * symbol, `kc_backend_<name>`, a `const struct kc_backend_ops`.  The core
 * dlopen()s it, checks the frozen head, allocates `state_size` bytes for the
 * plugin's state, and calls the slots below.  Plugins link against libkc
 * and may use the helpers declared at the end of this file.
 *
 * Before dlopen() the core checks the file itself: a regular file holding
 * an ELF shared object of the process's class, byte order and machine,
 * with a dynamic section, whose loadable segments lie inside the file
 * (a truncated copy is refused instead of faulting).  After it, the entry
 * symbol must be a data object (not a function) of at least struct_size
 * bytes where the symbol table records its size.  If init fails, the core
 * calls no other slot; in a preference list or in automatic mode it then
 * moves on to the next backend, so init must leave nothing behind that
 * would disturb another backend in the same process.  A plugin reading a
 * variable that names code to load (as the cuda plugin's KC_CUDA_DRIVER)
 * should use secure_getenv(), as the core does for KC_BACKEND.
 *
 * ABI rules (SQLite-VFS style):
 *  - The head (abi_major, abi_minor, struct_size, name) never changes.
 *  - A different abi_major is refused.  Slots are only ever appended, with
 *    abi_minor bumped; the core uses a slot only when struct_size covers it
 *    and it is non-NULL.
 *  - Slots marked "may be NULL" have a core default.
 *  - The records the core passes (kc_launch, kc_backend_config) grow with
 *    the minor too, but carry no size: a plugin of a newer minor than the
 *    core's reads a field appended after the core's minor only when
 *    kc_backend_abi_minor() says the core has it.
 *  - A slot returns 0 or one of <kc/error.h>'s codes (event_query also 1).
 *    Any other value is a plugin's bug: the core turns it into
 *    KC_EINTERNAL with a detail saying so (probe: "no device").
 *  - A slot leaves the thread's kernel mark as it found it: the core puts
 *    it back after every slot, whatever enter/leave calls the slot made.
 *
 * Threading and locks.  The core has one lock around the backend, the
 * runtime lock: every slot but probe and init runs under it, so a plugin
 * never sees two of its slots run at the same time, whichever application
 * thread made the call (several threads launching at once take turns at
 * the slot; their work may still overlap on the device once a slot has
 * returned).  init runs before the runtime is published, from the one
 * thread inside kc_init, so nothing else can run then either.  probe runs
 * under no runtime lock (below).  A slot runs on the application thread
 * that made the kc call, never on a thread of the core's own.  Every slot
 * but probe receives the state the core allocated for the plugin: zeroed,
 * 64-byte aligned, state_size bytes, freed by the core after finalize.
 *
 * The profiling hooks (Kokkos Tools callbacks) run with no core lock held
 * and never inside a slot.
 *
 * What a slot may call: the helpers of this file (kc_backend_error,
 * kc_backend_verbose, kc_host_launch, kc_launch_scratch, kc_host_*,
 * kc_backend_kernel_enter/leave) and the functions of kc.h that use no
 * runtime state (kc_version, kc_strerror, kc_err_name, kc_last_error,
 * kc_space_name, kc_is_initialized, kc_backend_name, the policy
 * constructors, kc_reducer_value_size, kc_kernel_name, the kc_mirror_
 * accessors host/target/size/need_sync_*).  Any other kc.h call from a
 * slot (kc_malloc, kc_fence, a launch, kc_get_info, kc_init, kc_finalize,
 * kc_kernel_get ...) would wait for the lock the slot runs under: the core
 * marks the thread around every slot call and such a call returns
 * KC_EINVAL ("called from inside a kernel or a backend slot") instead;
 * from init, whose runtime is not up yet, calls that need it return
 * KC_ENOINIT.
 *
 * Kernel code: the same holds for a kernel's body, on every thread that
 * runs it.  kc_host_launch marks the threads it runs kernel code on.  A
 * plugin with its own engine must do the same on threads the core cannot
 * see: on each thread other than the one that called the launch slot, run
 * kernel code between kc_backend_kernel_enter() and
 * kc_backend_kernel_leave() (a persistent worker may call enter once when
 * it starts and never leave).  An unmarked worker whose kernel calls kc
 * waits for the launch that waits for it: a deadlock.  The calling thread
 * of the launch slot is marked by the core already.
 *
 * fork(): a backend's state is not used in a fork()ed child (kc.h).
 */
#ifndef KC_BACKEND_H
#define KC_BACKEND_H

#include <kc/kc.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KC_BACKEND_ABI_MAJOR 1
#define KC_BACKEND_ABI_MINOR 1

/* What the core tells a backend at init. */
typedef struct kc_backend_config {
  int device;      /* KC_DEVICE; unset: the launcher's node-local rank
                      modulo the devices probe reported (doc/mpi.md),
                      0 without one or with KC_DEVICE_MAP=none.  Always
                      below probe's count. */
  int num_threads; /* KC_NUM_THREADS, 0 = backend default */
  int verbose;     /* KC_VERBOSE */
} kc_backend_config;

/* A kernel as the core recorded it, read-only to plugins.  `reducer` has
 * identity/join filled in for built-ins too (host versions); value_size is
 * its value size. */
typedef struct kc_kernel_info {
  const char *name;
  kc_kernel_kind kind;
  int rank;
  void (*host)(void);
  const char *ptx;
  const char *ptx_entry; /* never NULL: defaults to name */
  kc_reducer reducer;
  size_t value_size;
  const char *signature; /* CALL kernels */
  int nargs;
} kc_kernel_info;

/* The policy as a plugin sees it: the fields kc_policy had in ABI 1.0, in
 * the same layout (kc_policy grew at its end; kc_launch must not). */
typedef struct kc_launch_policy {
  kc_policy_kind kind;
  int rank;
  kc_index begin[KC_MAX_RANK];
  kc_index end[KC_MAX_RANK];
  kc_index tile[KC_MAX_RANK];
  kc_schedule schedule;
  kc_index chunk;
  kc_index league_size;
  int team_size;
  int vector_length;
  size_t scratch_per_team[2];
  size_t scratch_per_thread[2];
} kc_launch_policy;

/* One launch, validated by the core.  Valid only during the launch slot:
 * a plugin that runs it asynchronously copies what it keeps (the functor
 * bytes above all). */
typedef struct kc_launch {
  const char *label;
  const kc_kernel_info *kernel;
  void *kernel_state;      /* this kernel's kernel_state_size bytes */
  kc_launch_policy policy; /* normalised: rank >= 1, chunk != 0; end - begin
                           (each dimension, and the product of an MD box's
                           extents) fits kc_index */
  const void *functor;     /* caller's bytes */
  size_t functor_size;
  void *result;          /* REDUCE: value; SCAN: total; may be NULL for scan.
                            In a kc allocation it has value_size bytes of
                            room (checked by the core) */
  kc_space result_space; /* space of `result` (HOST if not a kc allocation) */
  int result_async;      /* 1: result is a kc allocation, may complete later */
  int nargs;             /* CALL */
  void *const *args;     /* CALL */
  /* Appended after the 1.0 fields (a 1.0 plugin never reads it): the
   * queue the launch goes to, as the plugin's queue_create returned it
   * (ABI 1.1); NULL for the default queue, and always NULL on a backend
   * without queue slots. */
  void *queue;
  /* MD kinds: a kc_iterate (appended in ABI 1.1): which index the plugin
   * should make the fastest.  A plugin that ignores it is still correct:
   * the order changes no result. */
  int iterate;
} kc_launch;

typedef struct kc_backend_ops {
  /* ---- frozen head ---- */
  uint32_t abi_major; /* KC_BACKEND_ABI_MAJOR the plugin was built with */
  uint32_t abi_minor; /* KC_BACKEND_ABI_MINOR the plugin was built with */
  size_t struct_size; /* sizeof(struct kc_backend_ops) at build time */
  const char *name;   /* must match the file name libkc-<name>.so */

  /* ---- ABI 1.0 ---- */
  const char *description;  /* one line for kc-info */
  size_t state_size;        /* bytes of plugin state the core allocates */
  size_t kernel_state_size; /* bytes per kernel the core allocates lazily */

  /* probe: how many devices the plugin can drive here.
   *  - Called by: the loader, for each candidate plugin, when kc_init
   *    looks for a backend (KC_BACKEND's list or the automatic search),
   *    and by kc-info's listing.  Called again at every kc_init that
   *    follows a kc_finalize: more than once per process, and possibly
   *    while this plugin is up (a listing made by a process that has kc
   *    initialised).
   *  - Thread, lock: the caller's thread, with no state and not under
   *    the runtime lock: a listing (kc-info) may probe while this plugin
   *    is up, so it must touch no plugin state that init or a running
   *    backend uses, or protect it itself (the cuda plugin's probe guards
   *    its driver loading with a pthread_once).  Called from kc_init, it
   *    holds kc_init's own lock: a probe that waits for another thread's
   *    kc_init or kc_finalize waits for ever.
   *  - May block: briefly (loading a driver library).
   *  - Returns 0 with *ndevices set (0 means "unavailable here"), or a
   *    KC_E code; either way with the reason set through
   *    kc_backend_error() when there is no device ("no CUDA driver"): the
   *    loader quotes it.  Must not print, and must leave nothing behind
   *    that another backend would trip over (the plugin stays loaded: the
   *    core opens plugins with RTLD_NODELETE, since their constructors
   *    ran at dlopen(), refused or not).
   *  - Required. */
  int (*probe)(int *ndevices);

  /* init: brings the backend up on cfg->device.
   *  - Called by: kc_init (the first reference), once per kc_init /
   *    kc_finalize cycle, after probe returned at least one device.
   *  - Thread, lock: the thread inside kc_init, holding kc_init's own lock
   *    (not the runtime lock); no other slot and no other kc call can run.
   *  - Before it: state is zeroed and aligned; cfg->device is below the
   *    count probe reported; cfg lives until finalize returns.
   *  - Owns: everything it creates (threads, contexts, streams), until
   *    finalize.  May block (device setup).
   *  - Returns 0, or a KC_E code with a kc_backend_error() detail (a
   *    thread count the process cannot start: KC_ENOMEM; one above what
   *    the backend ever takes: KC_EINVAL; both naming the count).  On
   *    failure the core calls no other slot (not even finalize) and frees
   *    the state, so init must release what it made before returning; the
   *    core may then try the next backend in the same process.
   *  - Required. */
  int (*init)(void *state, const kc_backend_config *cfg);

  /* finalize: releases everything init made.
   *  - Called by: the last kc_finalize, once per successful init; and by
   *    kc_init itself, holding only kc_init's lock, right after init when
   *    the info slot fails, or when a backend of one device that
   *    KC_DEVICE points past (started on device 0) reports a device:
   *    only host backends, whose info says device -1, ignore KC_DEVICE.
   *  - Thread, lock: the finalising thread, under the runtime lock; every
   *    other kc call has drained first and no new one can start.
   *  - Before it: the core has called fence (when not NULL), freed every
   *    live allocation through mem_free, and released every prepared
   *    kernel through kernel_release.  Nothing of the plugin's is in use.
   *  - May block (joins its threads, destroys contexts).  Must not fail:
   *    it returns nothing, and the core frees the state afterwards.
   *  - Required. */
  void (*finalize)(void *state);

  /* info: fills the backend's part of *out.
   *  - Called by: kc_init right after init (a failure there undoes init),
   *    and by every kc_get_info.
   *  - Thread, lock: the caller's, under the runtime lock.
   *  - Before it: *out is zeroed, then the core sets struct_size, backend,
   *    path, abi_major/minor, device = -1, device_count (probe's count)
   *    and spaces = HOST.  The plugin sets concurrency (a host backend:
   *    how many of its parallel() tasks run at the same time; the core
   *    reads it once, after init, see kc_host_launch), num_threads,
   *    device, device_count (if it knows better), the spaces it serves
   *    (OR-ing into `spaces`) and dev (kc_host_device_info() fills it for
   *    a host backend).  The core rewrites its own fields afterwards
   *    (struct_size, backend, path, abi_major/minor) and keeps the rest
   *    within kc.h's ranges: device_count below 1 becomes probe's count, a
   *    device outside [-1, device_count) the one it started, spaces keeps
   *    only KC_SPACE_* bits and HOST, concurrency and num_threads at
   *    least 1.
   *  - Must not block on device work.  Returns 0 or a KC_E code.
   *  - Required. */
  int (*info)(void *state, kc_info *out);

  /* Memory: the four slots are all set or all NULL (the loader refuses a
   * plugin with some of them).  All NULL: the core maps every space onto
   * 64-byte aligned host memory, copies with memmove and sets with memset,
   * after calling fence.  All four run on the caller's thread under the
   * runtime lock.
   *
   * mem_alloc: `bytes` (at least 1: the core asks for one byte for
   * kc_malloc(0)) of memory in `space`.
   *  - Called by: kc_malloc and the kc_mirror calls that allocate.
   *  - `space` is any valid kc_space: the core checks the range, not
   *    whether info listed it, so the plugin serves every space, mapping
   *    those it lacks onto one it has (a host backend: all onto host
   *    memory, as kc.h promises).
   *  - Returns 0 with *out set to a non-NULL pointer (0 with NULL is
   *    taken as KC_ENOMEM), or KC_ENOMEM with a kc_backend_error()
   *    detail.  The core records
   *    the allocation (space, size, label) and owns it from then on.  May
   *    block (device allocation). */
  int (*mem_alloc)(void *state, kc_space space, size_t bytes, void **out);
  /* mem_free: gives back a pointer mem_alloc returned, with the space it
   * was allocated in.
   *  - Called by: kc_free (the last reference), and the last kc_finalize
   *    for every allocation still live, before finalize.
   *  - Before it: the core has called fence: no launch or copy of this
   *    backend still uses the memory.  Never called twice for a pointer,
   *    never for a pointer the plugin did not return.
   *  - Its return value is ignored: it must not fail. */
  int (*mem_free)(void *state, kc_space space, void *p);
  /* mem_copy: copies `bytes` from src to dst.  Either pointer may be
   * inside a kc allocation (its space given) or be HOST memory kc did not
   * allocate; both ranges have been checked to lie inside their
   * allocations.  The core does not check for overlap (a caller may copy
   * within one array; the core's own host copy uses memmove).
   *  - Called by: kc_memcpy (async = 0), kc_memcpy_async (async = 1) and
   *    the mirror sync calls.
   *  - Ordering: after every launch and copy the backend accepted before
   *    (the core does not fence first).  async = 0: complete when it
   *    returns.  async = 1: may return before completion; the plugin owns
   *    nothing of the caller's beyond the two ranges, which the caller
   *    leaves alone until fence.
   *  - Returns 0 or a KC_E code (KC_EDEVICE with a detail). */
  int (*mem_copy)(void *state, void *dst, kc_space dst_space, const void *src,
                  kc_space src_space, size_t bytes, int async);
  /* mem_set: sets `bytes` bytes at p (inside a kc allocation of `space`,
   * or HOST memory) to `value`.  Called by kc_memset; ordered after
   * earlier work, like mem_copy; complete when it returns (kc_memset
   * blocks).  Returns 0 or a KC_E code. */
  int (*mem_set)(void *state, void *p, kc_space space, int value, size_t bytes);

  /* fence: waits for every launch, asynchronous copy and asynchronous
   * reduction result the backend accepted.
   *  - Called by: kc_fence, and by the core before mem_free, before
   *    finalize, and before it copies or sets host memory itself (no
   *    memory slots).  Caller's thread, runtime lock held.
   *  - Blocks.  Returns 0, or the KC_E code of the first failure of
   *    asynchronous work since the last fence, with a detail (this is
   *    where errors of asynchronous launches are reported).
   *  - May be NULL on backends whose launches and copies complete before
   *    their slot returns. */
  int (*fence)(void *state);

  /* kernel_prepare: one-time work for a kernel (module load, function
   * lookup, occupancy, a libffi cif), stored in its kernel_state.
   *  - Called by: the first launch of the kernel on this backend (per
   *    kc_init cycle), before launch; caller's thread, runtime lock held.
   *  - Before it: kernel_state is kernel_state_size bytes, zeroed and
   *    64-byte aligned (NULL when kernel_state_size is 0); *k lives until
   *    kernel_release.
   *  - Owns: what it stores in kernel_state, until kernel_release.  May
   *    block (module load, JIT).
   *  - Returns 0, or a KC_E code with a detail: the launch returns that
   *    code, kernel_release is NOT called, the core re-zeroes
   *    kernel_state, and the next launch of the kernel calls
   *    kernel_prepare again.  So on failure it must free what it made.
   *  - May be NULL. */
  int (*kernel_prepare)(void *state, const kc_kernel_info *k,
                        void *kernel_state);
  /* kernel_release: frees what a successful kernel_prepare made.
   *  - Called by: the last kc_finalize, for every kernel whose
   *    kernel_prepare succeeded, after fence and before finalize (the core
   *    then frees kernel_state).  Finalising thread, runtime lock held.
   *  - May block; must not fail.  May be NULL. */
  void (*kernel_release)(void *state, const kc_kernel_info *k,
                         void *kernel_state);

  /* launch: runs one launch of any kernel kind.
   *  - Called by: every kc_parallel_* / kc_call launch; the caller's
   *    thread, runtime lock held (launches from several threads take
   *    turns here).  The calling thread is marked as running kernel code
   *    (see "Kernel code" above); the plugin marks its own workers.
   *  - Before it: the kernel is prepared (kernel_prepare returned 0);
   *    *l is validated (see kc_launch: normalised policy, sizes that fit,
   *    a result with value_size bytes of room) and valid only during the
   *    call: asynchronous work copies what it keeps (the functor bytes).
   *  - Result: with result_async == 0 the result (a host variable) is
   *    written before launch returns; with result_async == 1 it is a kc
   *    allocation the plugin may write later, before the next fence
   *    completes.  Without a result (kc_parallel_for) the launch may be
   *    asynchronous: ordered before later launches and copies, complete
   *    at fence.
   *  - May block (host backends run the whole launch here).
   *  - Returns 0 or a KC_E code with a detail: KC_ENOTSUP for a kind or
   *    policy the backend cannot run, KC_ENOKERNEL for a kernel with no
   *    code for it (no PTX, no host function), KC_ESCRATCH for scratch it
   *    cannot give, KC_EDEVICE for device failures.
   *  - Required. */
  int (*launch)(void *state, const kc_launch *l);

  /* ---- ABI 1.1: queues and events (doc/queues.md) ----
   * The twelve slots below are all set or all NULL (the loader refuses a
   * plugin with some of them).  All NULL, or a 1.0 plugin (its struct_size
   * ends before them): the core runs every kc_queue on the backend's
   * default queue, in order, fences the whole backend for a queue fence or
   * an event record, and kc_launch.queue is always NULL.
   *
   * A queue is the plugin's handle (void *) for an in-order stream of work
   * on one device; NULL everywhere means the default queue, the one every
   * call without a queue uses (launch, mem_copy, mem_set).  An event marks
   * a point in a queue.  Unless a slot says otherwise it is called under
   * the runtime lock on the caller's thread, like the 1.0 slots.
   *
   * queue_create: a new queue on `device` (below the device count probe
   *  reported; the core refuses other devices before the call).  Called
   *  by kc_queue_create.  Returns 0 with *queue set, or KC_ENOMEM /
   *  KC_ENOTSUP (a device it cannot drive from this init) with a detail.
   * queue_destroy: frees a queue after its work completed (the core has
   *  called queue_fence).  Called by kc_queue_destroy and, for queues still
   *  alive, by the last kc_finalize before the memory is freed.  Must not
   *  fail.
   * queue_fence: waits for the work submitted to `queue` (NULL: the
   *  default queue only); returns the first error of that work.  Called by
   *  kc_queue_fence and kc_queue_destroy WITHOUT the runtime lock, so that
   *  other threads keep submitting while it waits: it may run concurrently
   *  with any slot but finalize and must be thread safe against them; the
   *  core never calls queue_destroy for the queue it fences meanwhile.
   *  The fence slot (kc_fence) must wait for every queue.
   * event_create / event_destroy: an event handle (created complete) and
   *  its release; event_destroy must not fail and does not wait.
   * event_record: marks the end of the work submitted to `queue` so far.
   * event_wait: makes `queue`'s later work wait for the event, without
   *  blocking the caller.
   * event_synchronize: blocks until the event has completed.  Called
   *  WITHOUT the runtime lock, as queue_fence; never concurrently with
   *  event_destroy of that event (the core releases an event once no call
   *  uses it).
   * event_query: 1 when complete (or never recorded), 0 if not yet, or a
   *  KC_E code; never blocks.
   * event_elapsed: milliseconds between two recorded, completed events.
   * mem_copy_on / mem_set_on: mem_copy (async = 1) and mem_set on `queue`,
   *  ordered after the queue's earlier work, complete at the queue's next
   *  fence or at an event recorded after them.
   * launch: l->queue is the queue's handle (NULL: default queue).  A
   *  reduction to a host variable (result_async == 0) waits for its own
   *  queue only. */
  int (*queue_create)(void *state, int device, void **queue);
  void (*queue_destroy)(void *state, void *queue);
  int (*queue_fence)(void *state, void *queue);
  int (*event_create)(void *state, void **event);
  void (*event_destroy)(void *state, void *event);
  int (*event_record)(void *state, void *event, void *queue);
  int (*event_wait)(void *state, void *queue, void *event);
  int (*event_synchronize)(void *state, void *event);
  int (*event_query)(void *state, void *event);
  int (*event_elapsed)(void *state, void *start, void *end, double *ms);
  int (*mem_copy_on)(void *state, void *queue, void *dst, kc_space dst_space,
                     const void *src, kc_space src_space, size_t bytes);
  int (*mem_set_on)(void *state, void *queue, void *p, kc_space space,
                    int value, size_t bytes);

  /* ---- ABI 1.1: several devices (doc/queues.md) ----
   * mem_alloc_on: mem_alloc on `device` (below the device count probe
   *  reported; the core refuses other devices before the call).  Called by
   *  kc_malloc_on for a device other than the default queue's (KC_DEVICE);
   *  kc_malloc and kc_malloc_on for the default device call mem_alloc.
   *  Returns as mem_alloc; KC_ENOTSUP with a detail for a device it cannot
   *  drive.  mem_free receives its pointers as it does mem_alloc's: the
   *  plugin finds the device from the pointer.  May be NULL (then
   *  kc_malloc_on of another device is KC_ENOTSUP); needs the memory slots
   *  (the loader refuses it without them).  A plugin that offers queues on
   *  several devices (queue_create accepts them) sets it. */
  int (*mem_alloc_on)(void *state, kc_space space, int device, size_t bytes,
                      void **out);
} kc_backend_ops;

/* ------------------------------------------------ helpers for plugins */

/* Sets the calling thread's kc_last_error() detail (printf format) and
 * returns `code`, so a plugin can `return kc_backend_error(KC_EDEVICE, ...)`.
 */
KC_API int kc_backend_error(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((__format__(__printf__, 2, 3)))
#endif
    ;

/* Prints a line to stderr prefixed "kc: " when KC_VERBOSE is set. */
KC_API void kc_backend_verbose(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((__format__(__printf__, 1, 2)))
#endif
    ;

/* 0 if `path` names a regular file whose ELF layout this process's dynamic
 * loader can map: what the core checks before it dlopen()s a plugin (not a
 * FIFO, which dlopen() would wait on, nor a device; not truncated, whose
 * pages would kill the process with SIGBUS; an ELF shared object of this
 * machine's class, byte order and architecture, its loadable segments
 * inside the file, in order and not overlapping).  Else KC_EPLUGIN (or
 * KC_EINVAL for a NULL or empty path) with the reason as the detail,
 * "cannot load PATH: ...".  Call it before dlopen() of a path the user
 * gave (the CUDA plugin does for KC_CUDA_DRIVER); a bare file name that
 * dlopen() looks up is not a path.  Relocations and symbols are still
 * dlopen()'s to refuse.  Callable before kc_init; thread safe.  New with
 * the KC_0.2 symbols: a plugin that calls it does not load into an older
 * libkc (dlopen() names the missing symbol). */
KC_API int kc_backend_check_library(const char *path);

/* Blocks, in the calling thread, every signal but the synchronous ones
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT, and SIGPIPE
 * and SIGXFSZ, which a thread's own write raises) and the profiling
 * timers' (SIGPROF, SIGVTALRM); the mask before goes to *old,
 * a sigset_t (void * so that this header needs no POSIX feature macro), or
 * nowhere for NULL.  A plugin calls it around creating its own threads and
 * then restores the mask with pthread_sigmask(SIG_SETMASK, old, NULL), so
 * that its threads inherit the blocked mask: a signal sent to the process
 * (SIGTERM, SIGINT, SIGUSR1 ...) is then never handled on a backend's
 * thread, where a handler calling kc would deadlock, and an application
 * that blocks a signal in its own threads to sigwait() for it keeps it,
 * whichever backend runs (the threads and openmp plugins do this).  0, or
 * KC_EINVAL.  New with the KC_0.2 symbols. */
KC_API int kc_backend_block_signals(void *old);

/* The backend ABI minor version this libkc speaks (its
 * KC_BACKEND_ABI_MINOR).  The loader accepts a plugin of a newer minor
 * than its own and calls only the slots it knows, but the records it
 * hands over (kc_launch, kc_backend_config) are only as long as its own
 * minor makes them: a plugin built for minor m reads a field appended in
 * minor m only when kc_backend_abi_minor() >= m.  Fields of 1.1
 * (kc_launch.queue, .iterate) are safe for every plugin that calls this
 * function, since a libkc of ABI 1.0 does not have it and refuses the
 * plugin (dlopen() names the missing symbol).  Callable before kc_init;
 * thread safe.  New with the KC_0.2 symbols. */
KC_API int kc_backend_abi_minor(void);

/* Marks the calling thread as running kernel code (or leaves that state):
 * while marked, kc.h calls that could block return KC_EINVAL instead (see
 * "Kernel code" above).  Nestable: each enter needs one leave.  Cheap (a
 * thread-local counter); callable from any thread, before kc_init too. */
KC_API void kc_backend_kernel_enter(void);
KC_API void kc_backend_kernel_leave(void);

/* The host execution engine every host backend shares.  A host backend
 * supplies only a fork-join primitive: `parallel(ctx, task, arg)` runs
 * task(tid, nthreads, arg) once on each of its `nthreads` threads (the
 * caller's thread included, as tid 0) and returns when all have returned.
 * kc_host_launch() then splits the launch's work (indices, MD tiles or
 * league ranks) statically or dynamically, keeps one accumulator per
 * contiguous run of work (a thread's share; with chunks, a thread's run of
 * whole chunks or, dynamic, a group of consecutive chunks), joins them in
 * index order (deterministic for a thread count, and right for a join that
 * is not commutative), and runs scans in two passes.  It needs no locks
 * beyond what `parallel` does.  A reducer value over KC_REDUCER_SIZE_MAX
 * bytes is KC_EINVAL.
 *
 * Teams of several threads.  A team kernel registered with
 * KC_KERNEL_TEAM_THREADS (every kernel of the team macros) may run each
 * team on several of the backend's threads, whose tasks then wait for
 * each other at the team's barriers inside one parallel() call.  The
 * engine does so only when that cannot hang: the backend's info slot
 * reported a concurrency of at least nthreads, and one parallel() call
 * (a census, made once per kc_host_exec {parallel, ctx, nthreads} until
 * the last kc_finalize) ran its nthreads tasks on nthreads distinct
 * threads.  A parallel() that runs tasks one after another (on one thread,
 * or on fewer threads than nthreads, as the openmp plugin does when the
 * runtime grants a smaller team) therefore keeps one-thread teams, and any
 * parallel() may keep running its tasks in any order; one that reports a
 * concurrency of nthreads should run each call's tasks at the same time on
 * distinct threads, every time.  Should a later call not (the OpenMP
 * runtime may grant a smaller team to one call), a team whose threads have
 * not all arrived within 100 ms, before any kernel code runs, runs on its
 * first thread alone as a team of one: the results stay right, that
 * launch is slower.  Waiting threads spin briefly, then call
 * sched_yield(). */
typedef void (*kc_host_task)(int tid, int nthreads, void *arg);

typedef struct kc_host_exec {
  void (*parallel)(void *ctx, kc_host_task task, void *arg);
  void *ctx;
  int nthreads;
} kc_host_exec;

KC_API int kc_host_launch(const kc_host_exec *x, const kc_launch *l);

/* Number of usable CPUs of the process (sched_getaffinity), at least 1. */
KC_API int kc_host_cpu_count(void);

/* A host backend's default share of its CPU mask under an MPI or Slurm
 * launcher that started several ranks on this node without binding them
 * (the mask of `ncpus` CPUs is the whole machine): rank r of L takes the
 * r-th of L consecutive slices of the mask.  Returns the slice's CPU
 * count (at least 1) and sets *first to the index, within the mask's CPUs
 * in increasing order, of its first CPU.  Otherwise (no launcher, one rank
 * on the node, or a mask narrower than the machine, which is the rank's
 * share already) returns ncpus with *first = 0.  Reads the environment
 * only; thread safe. */
KC_API int kc_host_rank_share(int ncpus, int *first);

/* Fills dev with the host CPU's description (name from /proc/cpuinfo);
 * max_threads_per_block 1 (kc_host_backend_info sets the thread count). */
KC_API void kc_host_device_info(kc_device_info *dev);

/* Defaults for a host backend's probe and info slots.
 * kc_host_backend_probe: one device (the host), always there; usable as
 * the probe slot itself.  kc_host_backend_info: fills what every host
 * backend reports alike: concurrency and num_threads = nthreads,
 * device_count 1, device -1 (no device), spaces HOST, dev the CPU
 * (kc_host_device_info) with max_threads_per_block = nthreads (the
 * largest host team); an info slot calls it and overrides what differs
 * (e.g. concurrency, when its threads do not all run at once).  Both are
 * thread safe, touch no kc state and may be called from any slot. */
KC_API int kc_host_backend_probe(int *ndevices);
KC_API void kc_host_backend_info(kc_info *out, int nthreads);

/* Scratch of a TEAM / TEAM_REDUCE launch at `level` for teams of
 * `team_size` threads, laid out as the team handle presents it: the
 * per-team part (policy.scratch_per_team[level] plus the kernel's
 * kc_team_scratch_fn bytes) rounded up to KC_SCRATCH_ALIGN, then
 * team_size per-thread parts of policy.scratch_per_thread[level] bytes,
 * each rounded up to KC_SCRATCH_ALIGN.  Fills what is not NULL: *team_part
 * (the unrounded per-team bytes), *thread_stride (the rounded per-thread
 * size), *total (the bytes one team needs).  Calls the kernel's scratch
 * function, so call it once per launch and level.  Errors: KC_EINVAL (bad
 * level or team size, not a team launch), KC_ESCRATCH (the sizes overflow
 * size_t). */
KC_API int kc_launch_scratch(const kc_launch *l, int level, int team_size,
                             size_t *team_part, size_t *thread_stride,
                             size_t *total);

/* Host backends' scratch limits per team, in bytes: kc_host_launch refuses
 * more with KC_ESCRATCH before running anything.  Level 0 (kept per
 * thread, meant to stay in cache) is what kc_host_device_info() reports as
 * shared_memory_per_block(_optin); level 1 is ordinary memory. */
#define KC_HOST_SCRATCH0_MAX ((size_t)1 << 20)
#define KC_HOST_SCRATCH1_MAX ((size_t)1 << 30)

#ifdef __cplusplus
}
#endif

#endif /* KC_BACKEND_H */
