/* kc — the user API.
 *
 * kc runs one kernel, written once, on host threads, OpenMP or an NVIDIA GPU;
 * the backend is a plugin chosen at run time (KC_BACKEND).  This header is
 * everything an application calls.  Kernels themselves are written with the
 * macros of <kc/kernel.h> and built with kcc, or registered by hand with
 * kc_kernel_register().
 *
 * Conventions that hold for every function below unless its comment says
 * otherwise:
 *  - Fallible calls return 0 or a negative KC_E... code (<kc/error.h>);
 *    kc_last_error() then holds a one-line detail for the calling thread.
 *  - Every call except kc_init, kc_version, kc_strerror, kc_err_name,
 *    kc_last_error, kc_set_last_error, kernel registration and lookup
 *    (kc_kernel_register, kc_kernel_get, kc_kernel_name,
 *    kc_kernel_describe, kc_kernel_set_team_scratch) and the pure helpers
 *    that touch no runtime state (policy constructors, kc_policy_on,
 *    kc_policy_set_scratch, kc_policy_set_iterate, kc_reducer_value_size,
 *    kc_space_name, the kc_mirror_ accessors and need_sync queries)
 *    returns KC_ENOINIT before kc_init() or after the last kc_finalize();
 *    kc_free(NULL) and
 *    kc_mirror_destroy(NULL) are no-ops (0) at any time, and
 *    kc_mirror_destroy of a mirror after the last kc_finalize frees its
 *    handle (0).
 *  - An output argument that points into a kc allocation (kc_malloc's
 *    out, kc_get_info, kc_pointer_info, kc_mirror_create, the out of
 *    kc_queue_create and kc_event_create, the device of kc_queue_device
 *    and kc_pointer_device, kc_event_elapsed's ms, a reduction's result, a
 *    scan's total) must have room for what kc writes between the pointer
 *    and the allocation's end, and one that kc writes on the host must not
 *    be device memory: KC_EINVAL otherwise.
 *  - Calls are thread safe.  Launches from several threads are serialised on
 *    the backend's one queue (stream); their order is the order in which the
 *    calls entered kc.
 *  - Re-entry: kc cannot be called back from where it is running.  From
 *    inside a kernel's body (on every thread that runs it), and from a
 *    backend plugin's slot, every call that uses the runtime returns
 *    KC_EINVAL with the detail "<fn> called from inside a kernel or a
 *    backend slot ..." instead of waiting for the launch it runs in: kc_init,
 *    kc_finalize, kc_fence, kc_get_info, the launches, kc_malloc, kc_free,
 *    kc_retain, kc_pointer_info, kc_memcpy(_async), kc_memset, the
 *    kc_mirror_ calls that take a mirror's state (create, destroy,
 *    modify_*, sync_*, clear_sync_state), kc_kernel_register,
 *    kc_kernel_get, the regions, kc_declare_metadata and kc_profile_event.
 *    What uses no runtime state works there: kc_version, kc_strerror,
 *    kc_err_name, kc_last_error, kc_set_last_error,
 *    kc_is_initialized, kc_backend_name, kc_space_name, the policy
 *    constructors and kc_policy_set_scratch, kc_reducer_value_size,
 *    kc_kernel_name, kc_kernel_set_team_scratch and the kc_mirror_
 *    accessors (host, target, size, need_sync_*).  A profiling tool's
 *    callback may call kc (kc_fence, kc_get_info ...), but kc_init and
 *    kc_finalize from a callback return KC_EINVAL ("called from inside
 *    another kc call"): they would wait for the call the callback runs in.
 *  - fork(): a child of a process in which kc is initialised has none of
 *    its backend's threads (nor its device context): there every call that
 *    uses the runtime, kc_init and kc_finalize included, returns KC_ENOINIT
 *    with a detail naming fork(), and kc_is_initialized() is 0.  Use kc in
 *    the parent, or exec() in the child.  A child forked after the last
 *    kc_finalize may kc_init afresh, except on the openmp backend once its
 *    OpenMP threads were started (GNU libgomp cannot run a parallel region
 *    in such a child): there kc_init fails with KC_ENODEV.
 *  - exit() from inside a kernel runs the atexit handlers on that thread:
 *    a kc_finalize there returns KC_EINVAL (see re-entry) and the process
 *    exits without finalising kc.
 */
#ifndef KC_KC_H
#define KC_KC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <kc/error.h>
#include <kc/version.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define KC_API __attribute__((__visibility__("default")))
#else
#define KC_API
#endif

/* Index type of every iteration space. */
typedef int64_t kc_index;

/* ---------------------------------------------------------------- runtime */

/* Loads the backend named by KC_BACKEND (or the best one available) and
 * initialises it.  Reference counted: each successful kc_init() needs one
 * kc_finalize(); only the first call loads anything.  Thread safe.
 * Errors: KC_ENOBACKEND (unknown name; the detail lists the available
 * ones), KC_EPLUGIN, KC_EABI, KC_ENODEV (the named backend has no device).
 *
 * Choice: KC_BACKEND naming one backend (a name, "serial" or a path with a
 * '/') takes that one or fails with its reason.  A comma-separated list
 * takes the first member that is accepted *and* initialises; if none does,
 * the detail gives every member's reason.  Unset, empty or only blanks and
 * commas: cuda, openmp, threads, then the built-in serial, skipping
 * (quietly; with the reason under KC_VERBOSE) any that is refused or whose
 * init fails.  Settings of
 * any length and any number of elements are honoured; a path of PATH_MAX
 * bytes or more is refused (KC_EPLUGIN), never shortened.
 *
 * Files: before a plugin file is loaded it must be a regular file (not a
 * directory, FIFO or device; a FIFO is never waited on) holding an ELF
 * shared object of this process's class, byte order and machine whose
 * program headers and loadable segments lie inside the file; a symbolic
 * link that leads nowhere or loops is named as such.  Each refusal is
 * KC_EPLUGIN, "cannot load <path>: <reason>".  Its entry symbol must be a
 * data object at least as large as its struct_size says (KC_EABI).
 *
 * Privileged processes: in a setuid/setgid program or one with file
 * capabilities (secure-execution mode), KC_BACKEND, KC_PLUGIN_PATH,
 * KC_TOOLS_LIBS, KOKKOS_TOOLS_LIBS, KOKKOS_PROFILE_LIBRARY, KC_TOOLS_ARGS,
 * KOKKOS_TOOLS_ARGS and the cuda plugin's KC_CUDA_DRIVER are ignored, as
 * if unset (KC_VERBOSE says so), so that a user
 * cannot make the program load code of theirs.
 *
 * The threads backend starts its pool here: KC_NUM_THREADS threads
 * (default: one per CPU of its placement), the calling thread being thread
 * 0 and worker k pinned to the placement's k-th CPU (none pinned when the
 * threads outnumber the CPUs).  KC_THREADS_BIND chooses the placement:
 *  - "mask" (the default): the calling thread's affinity mask, as the
 *    launcher left it (taskset, numactl, mpirun, srun);
 *  - "spread": every CPU the process may use (its cpuset), the calling
 *    thread's own CPUs first.  For a mask narrowed by accident: a program
 *    that links OpenMP and runs with OMP_PROC_BIND or OMP_PLACES has its
 *    main thread bound to one CPU by the OpenMP runtime before kc starts.
 *    Not for MPI ranks bound on purpose: their pools would share CPUs.
 * The calling thread's own affinity is never changed.  With KC_THREADS_BIND
 * unset, when the calling thread's mask is narrower than the CPUs the
 * process may use and either the pool has more threads than the mask has
 * CPUs, or its default size came from the mask while OMP_PROC_BIND,
 * OMP_PLACES, GOMP_CPU_AFFINITY or KMP_AFFINITY is set (to anything but
 * "false" or a value containing "none" or "disabled"), kc_init prints one
 * line "kc: warning: threads backend: ..." on stderr naming the mask, the
 * likely cause and the fix; setting KC_THREADS_BIND (either value)
 * silences it.  Another value fails with KC_EINVAL. */
KC_API int kc_init(void);

/* Drops one reference; the last one fences, frees every allocation still
 * live (reporting them under KC_VERBOSE), and shuts the backend down.
 * Returns KC_ENOINIT when kc is not initialised.  The last kc_finalize is
 * ordered with every other thread's calls: calls that began before it
 * (launches with their profiling events included) end first, calls that
 * begin after it return KC_ENOINIT, and only then do profiling tools hear
 * kokkosp_finalize_library and the backend shut down.  kc_init likewise
 * publishes the backend to other threads only once it and the tools are
 * up. */
KC_API int kc_finalize(void);

/* 1 between a successful kc_init() and the matching last kc_finalize(). */
KC_API int kc_is_initialized(void);

/* The version of the library that is running, "MAJOR.MINOR.PATCH". */
KC_API const char *kc_version(void);

/* Static message / name of an error code ("invalid argument", "KC_EINVAL");
 * 0 gives "success" / "KC_OK" (a name only: <kc/error.h> defines no
 * KC_OK), an unknown code "unknown error" / "KC_E?".  Never NULL. */
KC_API const char *kc_strerror(int code);
KC_API const char *kc_err_name(int code);

/* Detail of the last failed call on this thread ("" if none).  The string
 * stays valid until the next failing kc call on the same thread. */
KC_API const char *kc_last_error(void);

/* Makes `detail` (NULL: "") the calling thread's kc_last_error(), cut
 * where kc cuts its own details, and returns `code`.  For a layer over kc
 * (a language binding, a library) that refuses a call itself: its caller
 * then reads that refusal in kc_last_error(), not an older failure.  Write
 * the detail as kc does, "<call>: <what was wrong>".  kc keeps no code:
 * `code` is only handed back.  Any thread, at any time (before kc_init,
 * inside a host kernel, where it sets the detail of the thread that runs
 * the body); never fails. */
KC_API int kc_set_last_error(int code, const char *detail);

/* Name of the backend in use ("serial", "threads", "openmp", "cuda", ...),
 * or NULL before kc_init. */
KC_API const char *kc_backend_name(void);

/* Waits until every launch, asynchronous copy and asynchronous reduction
 * result issued so far has completed.  Errors raised by asynchronous work
 * (a kernel that faulted) are reported here.  Called from inside a running
 * kernel it returns KC_EINVAL (it would wait for itself; see re-entry). */
KC_API int kc_fence(void);

/* ------------------------------------------------------------ information */

typedef enum kc_space {
  KC_SPACE_HOST = 0,        /* ordinary host memory */
  KC_SPACE_DEVICE = 1,      /* device memory (host memory on host backends) */
  KC_SPACE_MANAGED = 2,     /* unified memory, usable on both sides */
  KC_SPACE_HOST_PINNED = 3, /* page-locked host memory, device-visible */
  KC_SPACE_COUNT = 4
} kc_space;

/* Name of a space: "host", "device", "managed", "host_pinned"; NULL if out
 * of range. */
KC_API const char *kc_space_name(kc_space space);

typedef struct kc_device_info {
  char name[128];
  int compute_major, compute_minor; /* 0 on host backends */
  int multiprocessors;              /* SMs, or cores on host backends */
  size_t total_memory;              /* bytes */
  int max_threads_per_block;        /* the largest team; host: num_threads */
  size_t shared_memory_per_block;   /* default limit, bytes */
  size_t shared_memory_per_block_optin; /* largest a kernel may opt into */
  size_t constant_memory;
  int warp_size;
  size_t max_param_bytes; /* largest kernel parameter block the driver takes */
  int clock_khz, memory_clock_khz, memory_bus_width;
} kc_device_info;

typedef struct kc_info {
  size_t struct_size;  /* set by the caller to sizeof(kc_info) */
  const char *backend; /* backend name */
  const char *path;    /* file it was loaded from ("built-in" for serial) */
  int abi_major, abi_minor;
  int concurrency;    /* host threads or device SMs x resident threads */
  int num_threads;    /* host worker threads (1 for serial, GPU: 1) */
  int device_count;   /* devices the backend offers */
  int device;         /* the device in use, -1 on host (device_from) */
  unsigned spaces;    /* bit (1u << kc_space) for each space with distinct
                         memory on this backend; host always set */
  kc_device_info dev; /* the device in use; on host backends the CPU */
  /* What chose `device`, valid until kc_finalize: "KC_DEVICE=1", or the
   * launcher's node-local rank ("OMPI_COMM_WORLD_LOCAL_RANK=3 (local rank
   * 3 mod 2 devices)"), "KC_DEVICE_MAP=none", a "default (...)" or, for a
   * backend without a device (device -1), "host backend".  doc/mpi.md
   * lists the launcher variables. */
  const char *device_from;
} kc_info;

/* Fills *out (whose struct_size the caller sets) for the backend in use. */
KC_API int kc_get_info(kc_info *out);

/* ----------------------------------------------------------------- memory */

/* Allocates `bytes` in `space`, labelled (the label is copied; NULL is
 * allowed) and recorded with reference count 1.  Zero bytes gives a unique
 * non-NULL pointer.  Errors: KC_EINVAL (bad space, out == NULL), KC_ENOMEM
 * (the detail says the space, label and size). */
KC_API int kc_malloc(void **out, size_t bytes, kc_space space,
                     const char *label);

/* Drops one reference of a kc allocation; the last frees it (after a fence
 * when the backend may still use it).  NULL is a no-op.  A pointer kc did
 * not allocate, or one already freed, gives KC_ENOTKC and is left alone.
 * A side of a live mirror (kc_mirror_host/_target) whose only reference
 * is the mirror's gives KC_EINVAL and is left alone: kc_mirror_destroy
 * frees it (a reference the caller took with kc_retain is the caller's to
 * drop). */
KC_API int kc_free(void *p);

/* Adds a reference to the allocation `p` points into.  KC_ENOTKC if none. */
KC_API int kc_retain(void *p);

typedef struct kc_alloc_info {
  void *base;  /* start of the allocation */
  size_t size; /* its size in bytes */
  kc_space space;
  const char *label; /* valid while the allocation lives */
  int refcount;
} kc_alloc_info;

/* Describes the live kc allocation that `p` points into (anywhere inside it).
 * KC_ENOTKC if `p` is not inside one: it is then ordinary host memory to
 * kc_memcpy. */
KC_API int kc_pointer_info(const void *p, kc_alloc_info *out);

/* Copies `bytes` from `src` to `dst`.  The direction is inferred from the
 * allocation records: a pointer kc did not allocate is host memory.  Blocks
 * until the copy is complete (and orders after earlier launches).
 * Errors: KC_EINVAL (NULL with bytes > 0, a range running past the end of
 * its allocation). */
KC_API int kc_memcpy(void *dst, const void *src, size_t bytes);

/* As kc_memcpy, but may return before the copy completes; kc_fence() waits.
 * The source must not change and the destination must not be read until
 * then.  On host backends it is synchronous. */
KC_API int kc_memcpy_async(void *dst, const void *src, size_t bytes);

/* Sets `bytes` bytes at `p` to the byte `value`; blocking. */
KC_API int kc_memset(void *p, int value, size_t bytes);

/* Allocates as kc_malloc, on device `device` of the backend (0 ..
 * kc_info.device_count - 1).  A host backend has one device, 0; cuda
 * drives every device of the machine, opening one on first use.  Memory
 * of one device may be copied to another's with kc_memcpy or
 * kc_memcpy_on; a kernel reads the memory of its queue's device.  Errors:
 * those of kc_malloc; KC_EINVAL (device out of range: the detail names the
 * count); KC_ENOTSUP (a device other than the one in use, kc_info.device,
 * on a backend that drives only that one: its plugin lacks the
 * mem_alloc_on slot). */
KC_API int kc_malloc_on(void **out, size_t bytes, kc_space space, int device,
                        const char *label);

/* Device of the kc allocation `p` points into: -1 for host memory
 * (HOST, HOST_PINNED, MANAGED, and every space of a host backend, which
 * has no device), else the device it was allocated on.  Errors: KC_EINVAL
 * (device NULL), KC_ENOTKC (p not in a kc allocation). */
KC_API int kc_pointer_device(const void *p, int *device);

/* ----------------------------------------------------------------- queues */

/* A queue: an in-order stream of work on one device (Kokkos' execution
 * space instance).  Work submitted to one queue runs in submission order;
 * work on different queues is unordered unless an event orders it.  The
 * default queue (policy.queue == NULL, and every call without a queue) is
 * the one all earlier kc calls use.  doc/queues.md says what is
 * asynchronous on which backend.  Every queue call may be made by any
 * application thread; several threads may each drive their own queue at
 * once.  A queue must not be destroyed while another thread submits to it
 * (launches, copies, fills, kc_event_record and kc_event_wait on it); it
 * may be while other threads wait for it (kc_queue_fence): their fences
 * end as they would have alone, and kc releases the queue after the last
 * of them.  From inside a kernel the calls that could wait or
 * take the runtime's lock (kc_queue_create, _destroy, _fence,
 * kc_event_create, _destroy, _record, kc_memcpy_on, kc_memset_on,
 * kc_malloc_on, kc_pointer_device) return KC_EINVAL; kc_queue_device,
 * kc_event_query, _wait, _synchronize and _elapsed work there on a host
 * backend (nothing to wait for).  A backend with queue slots (cuda) runs
 * each queue on a stream of its own, so queues overlap; the others run
 * every queue on their default one, in order (doc/queues.md). */
typedef struct kc_queue kc_queue;

/* Creates a queue on `device` (0 .. kc_info.device_count - 1); the first
 * queue or allocation on a device other than the default one opens it
 * (cuda: its context; may take some time).  Errors: KC_EINVAL (out NULL,
 * device out of range: the detail names the count), KC_ENOTSUP (a device
 * other than kc_info.device on a backend without queue slots, or that
 * cannot drive it), KC_ENOMEM, KC_ENOINIT. */
KC_API int kc_queue_create(kc_queue **out, int device);

/* Waits for the queue's work, then destroys it; the handle is dead after
 * (a later use is KC_EINVAL, never a crash).  kc_finalize destroys the
 * queues still alive the same way.  Returns the first error of the
 * queue's asynchronous work, like kc_fence.  Errors: KC_EINVAL (not a
 * live queue). */
KC_API int kc_queue_destroy(kc_queue *q);

/* Waits for the work submitted to `q` so far (NULL: the default queue).
 * kc_fence() still waits for every queue.  Errors: KC_EINVAL (not a live
 * queue), and those of asynchronous work, as kc_fence. */
KC_API int kc_queue_fence(kc_queue *q);

/* Device of queue `q` (NULL: the default queue's, kc_info.device, 0 on a
 * host backend).  Errors: KC_EINVAL (not a live queue, device NULL). */
KC_API int kc_queue_device(kc_queue *q, int *device);

/* kc_memcpy_async / kc_memset on queue `q` (NULL: the default queue):
 * ordered after the queue's earlier work, may complete later
 * (kc_queue_fence, an event, or kc_fence waits).  Direction and range
 * checks as kc_memcpy; either side may be on any device.  Errors: those of
 * kc_memcpy, and KC_EINVAL for a queue that is not live. */
KC_API int kc_memcpy_on(kc_queue *q, void *dst, const void *src, size_t bytes);
KC_API int kc_memset_on(kc_queue *q, void *p, int value, size_t bytes);

/* An event: a point in a queue's stream.  Created unrecorded (complete). */
typedef struct kc_event kc_event;

/* Creates an event.  Errors: KC_EINVAL (out NULL), KC_ENOMEM, KC_ENOINIT. */
KC_API int kc_event_create(kc_event **out);
/* Destroys an event (pending work it marks is not waited for).  The
 * handle is dead after; a later use is KC_EINVAL.  Other threads may be
 * using it meanwhile (kc_event_synchronize, _query, _wait ...): each such
 * call ends as it would have without the destroy, and kc frees the
 * backend's event after the last of them, without waiting for them here. */
KC_API int kc_event_destroy(kc_event *e);
/* Records `e` after the work submitted to `q` so far (NULL: default
 * queue); a recorded event is recorded anew.  Errors: KC_EINVAL. */
KC_API int kc_event_record(kc_event *e, kc_queue *q);
/* Makes `q`'s later work wait for `e` without blocking the host.  An event
 * never recorded is complete.  Errors: KC_EINVAL. */
KC_API int kc_event_wait(kc_queue *q, kc_event *e);
/* Blocks the host until `e` has completed.  Errors: KC_EINVAL, and those
 * of asynchronous work, as kc_fence. */
KC_API int kc_event_synchronize(kc_event *e);
/* 1 if `e` has completed (or was never recorded), 0 if not yet; never
 * blocks.  Errors: KC_EINVAL. */
KC_API int kc_event_query(kc_event *e);
/* Milliseconds from the completion of `start` to that of `end`, both
 * recorded and complete (kc_event_synchronize); negative when `end`
 * completed first.  Errors: KC_EINVAL (NULL ms, an event not recorded or
 * not complete). */
KC_API int kc_event_elapsed(kc_event *start, kc_event *end, double *ms);

/* ------------------------------------------------------- mirrored arrays */

/* A mirrored array (Kokkos DualView): one host side, one target side (the
 * backend's device space).  Mark the side you wrote as modified; a sync
 * copies only when the other side is stale.  When the target is the host
 * (host backends) both sides are the same memory and sync copies nothing. */
typedef struct kc_mirror kc_mirror;

KC_API int kc_mirror_create(kc_mirror **out, size_t bytes, const char *label);
/* Frees both sides (drops the mirror's reference to each) and the handle;
 * NULL is a no-op.  A mirror created
 * before the last kc_finalize (which freed its memory) only has its handle
 * freed, even after kc_finalize (0); every other call on such a mirror is
 * KC_EINVAL.  A destroyed mirror's handle (or a copy of it) is refused by
 * every call, KC_EINVAL "not a live kc mirror" (the accessors give NULL or
 * 0), until 1024 other mirrors died after it: the handle may then be
 * reused, as queues' and events' are. */
KC_API int kc_mirror_destroy(kc_mirror *m);
KC_API void *kc_mirror_host(const kc_mirror *m);
KC_API void *kc_mirror_target(const kc_mirror *m);
KC_API size_t kc_mirror_size(const kc_mirror *m);
KC_API int kc_mirror_modify_host(kc_mirror *m);
KC_API int kc_mirror_modify_target(kc_mirror *m);
/* Make the host (target) side current; copies only if it is stale.  Blocking.
 * Marking both sides modified without a sync in between is KC_EINVAL at the
 * next sync (the data of one side would be lost), and stays so until
 * kc_mirror_clear_sync_state. */
KC_API int kc_mirror_sync_host(kc_mirror *m);
KC_API int kc_mirror_sync_target(kc_mirror *m);
/* Forgets both modified marks (Kokkos' clear_sync_state): the sides are
 * taken to agree, and nothing is copied.  The way out of the both-modified
 * error: clear, then mark the side whose data to keep and sync. */
KC_API int kc_mirror_clear_sync_state(kc_mirror *m);
/* 1 if the host (target) side is stale and a sync would copy. */
KC_API int kc_mirror_need_sync_host(const kc_mirror *m);
KC_API int kc_mirror_need_sync_target(const kc_mirror *m);

/* ------------------------------------------------------------- reducers */

typedef enum kc_reduce_op {
  KC_REDUCE_NONE = 0,
  KC_REDUCE_SUM,
  KC_REDUCE_PROD,
  KC_REDUCE_MIN,
  KC_REDUCE_MAX,
  KC_REDUCE_MINLOC, /* value type kc_loc_<type> below */
  KC_REDUCE_MAXLOC,
  KC_REDUCE_CUSTOM /* identity + join supplied in kc_reducer */
} kc_reduce_op;

typedef enum kc_scalar {
  KC_INT32 = 1,
  KC_INT64,
  KC_FLOAT,
  KC_DOUBLE
} kc_scalar;

/* Value types of MINLOC / MAXLOC: the extreme value and its index.  Ties
 * resolve to the smallest index, on every backend. */
typedef struct kc_loc_int32 {
  int32_t val;
  kc_index loc;
} kc_loc_int32;
typedef struct kc_loc_int64 {
  int64_t val;
  kc_index loc;
} kc_loc_int64;
typedef struct kc_loc_float {
  float val;
  kc_index loc;
} kc_loc_float;
typedef struct kc_loc_double {
  double val;
  kc_index loc;
} kc_loc_double;

/* A reducer: a built-in op over a scalar type, or a custom one over any POD
 * of `size` bytes (1 to KC_REDUCER_SIZE_MAX) with `identity` (writes the
 * neutral value) and `join` (dst = dst (+) src; must be associative, need
 * not be commutative: every backend and schedule joins partial values in
 * index order).  For built-ins size, identity and join are ignored (kc
 * fills them).  A larger custom size is KC_EINVAL at registration; a device
 * backend may refuse a kernel whose values do not fit its on-chip memory
 * (the detail says so). */
#define KC_REDUCER_SIZE_MAX 65536
typedef struct kc_reducer {
  kc_reduce_op op;
  kc_scalar type;
  size_t size;
  void (*identity)(void *value);
  void (*join)(void *dst, const void *src);
} kc_reducer;

/* Size in bytes of a reducer's value (sizeof the scalar, the loc struct or
 * `size`); 0 if the reducer is invalid (NULL, a custom one without
 * identity or join, or of more than KC_REDUCER_SIZE_MAX bytes). */
KC_API size_t kc_reducer_value_size(const kc_reducer *r);

/* -------------------------------------------------------------- policies */

#define KC_MAX_RANK 6
#define KC_AUTO (-1)

typedef enum kc_policy_kind {
  KC_POLICY_RANGE = 1,   /* 1-D [begin, end) */
  KC_POLICY_MDRANGE = 2, /* rank 2..6 box, optional tiles */
  KC_POLICY_TEAM = 3     /* league of teams */
} kc_policy_kind;

typedef enum kc_schedule {
  KC_SCHEDULE_STATIC = 0, /* contiguous equal shares, one per thread; with
                             an explicit chunk, host backends deal chunks
                             round-robin to FOR kinds (OpenMP
                             schedule(static, chunk)) and give each thread
                             of a reduction one run of whole chunks */
  KC_SCHEDULE_DYNAMIC = 1 /* chunks handed out on demand (work stealing);
                             a reduction on a host backend takes groups of
                             consecutive chunks (at most 16 per thread) */
} kc_schedule;

/* An iteration space and how to run it.  Build it with kc_range() and
 * friends, then adjust fields; the struct only grows at its end. */
typedef struct kc_policy {
  kc_policy_kind kind;
  int rank; /* 1 for RANGE and TEAM */
  kc_index begin[KC_MAX_RANK];
  kc_index end[KC_MAX_RANK];
  kc_index tile[KC_MAX_RANK]; /* MDRANGE: 0 = backend's choice */
  kc_schedule schedule;
  kc_index chunk; /* indices per chunk; KC_AUTO = backend's choice; 0 is an
                     error */
  /* TEAM */
  kc_index league_size;
  int team_size;                /* threads per team or KC_AUTO */
  int vector_length;            /* lanes per thread; 1 by default */
  size_t scratch_per_team[2];   /* bytes, level 0 and level 1 */
  size_t scratch_per_thread[2]; /* bytes, level 0 and level 1 */
  struct kc_queue *queue; /* where the launch runs; NULL: the default queue
                             (every constructor sets NULL; kc_policy_on) */
  int iterate; /* MDRANGE: a kc_iterate (kc_policy_set_iterate); 0 = RIGHT */
} kc_policy;
/* kc_policy grows only at its end, and only with a new symbol version of
 * the functions that take or return it (libkc/libkc.map): programs built
 * against an older kc.h keep their layout (doc/design.md). */

/* [begin, end), static schedule, automatic chunk. */
KC_API kc_policy kc_range(kc_index begin, kc_index end);
/* [begin, end) with an explicit schedule and chunk (chunk > 0 or KC_AUTO). */
KC_API kc_policy kc_range_schedule(kc_index begin, kc_index end,
                                   kc_schedule schedule, kc_index chunk);
/* A rank-`rank` box [begin[d], end[d]); `tile` may be NULL.  Dimension
 * rank-1 is the fastest varying (contiguous) one. */
KC_API kc_policy kc_mdrange(int rank, const kc_index *begin,
                            const kc_index *end, const kc_index *tile);
/* `league_size` teams of `team_size` threads (KC_AUTO: backend's choice)
 * with `vector_length` lanes each. */
KC_API kc_policy kc_team_policy(kc_index league_size, int team_size,
                                int vector_length);

/* Which index of an MD range varies fastest (Kokkos' Iterate::Right and
 * Iterate::Left): RIGHT, the default, the last (C's row-major order);
 * LEFT, the first (Fortran's column-major order).  On cuda the fastest
 * index is the one consecutive threads of a warp take, so choosing the
 * index that is contiguous in the array a kernel writes (or reads) makes
 * those accesses coalesced.  It changes no result, only speed: host
 * backends keep the last index innermost inside each tile (a tile is
 * meant to fit the cache), and MD reductions with a custom reducer keep
 * RIGHT so that their join order stays the row-major one. */
typedef enum kc_iterate {
  KC_ITERATE_RIGHT = 0, /* the last index fastest (the default) */
  KC_ITERATE_LEFT = 1   /* the first index fastest */
} kc_iterate;

/* Sets an MD range policy's iteration order (kc_iterate).  Errors:
 * KC_EINVAL (p NULL, p not an MD range policy, order not a kc_iterate).
 * Thread safety: touches only *p. */
KC_API int kc_policy_set_iterate(kc_policy *p, kc_iterate order);

/* `p` sent to queue `q` (NULL: the default queue): every launch kind
 * takes its queue from its policy.  Touches nothing else; thread safe. */
KC_API kc_policy kc_policy_on(kc_policy p, struct kc_queue *q);

/* Alignment of every scratch region a team body gets (kc_team_scratch,
 * kc_thread_scratch in <kc/kernel.h>). */
#define KC_SCRATCH_ALIGN 16

/* Sets a TEAM policy's scratch request of `level` (0: fast, CUDA shared
 * memory; 1: large, global memory): `per_team` bytes shared by the team
 * plus `per_thread` bytes for each of its threads (Kokkos'
 * set_scratch_size(level, PerTeam, PerThread)).  Replaces the level's
 * earlier values.  What a backend cannot give fails the launch with
 * KC_ESCRATCH.  Errors: KC_EINVAL (p NULL, level not 0 or 1).
 * Thread safety: touches only *p. */
KC_API int kc_policy_set_scratch(kc_policy *p, int level, size_t per_team,
                                 size_t per_thread);

/* --------------------------------------------------------------- kernels */

typedef enum kc_kernel_kind {
  KC_KERNEL_FOR = 1,         /* host: kc_host_for_fn */
  KC_KERNEL_REDUCE = 2,      /* host: kc_host_reduce_fn */
  KC_KERNEL_SCAN = 3,        /* host: kc_host_scan_fn */
  KC_KERNEL_MDFOR = 4,       /* host: kc_host_mdfor_fn */
  KC_KERNEL_MDREDUCE = 5,    /* host: kc_host_mdreduce_fn */
  KC_KERNEL_TEAM = 6,        /* host: kc_host_team_fn */
  KC_KERNEL_TEAM_REDUCE = 7, /* host: kc_host_team_reduce_fn */
  KC_KERNEL_CALL = 8         /* plain C parameter list, see signature */
} kc_kernel_kind;

/* Every kernel kind with what it is, one row each (libuv's
 * UV_HANDLE_TYPE_MAP style), for code that classifies kinds:
 *   X(KIND, name, policy, value, call)
 * KIND: the enum's suffix (KC_KERNEL_<KIND>); name: lower case, for
 * messages; policy: the kc_policy_kind suffix it launches with; value: 1
 * for kinds that carry a value (reductions and scans); call: the launch
 * call's suffix (kc_parallel_<call>, FOR / REDUCE / SCAN / CALL). */
#define KC_KERNEL_KIND_MAP(X)                                                  \
  X(FOR, "for", RANGE, 0, FOR)                                                 \
  X(REDUCE, "reduce", RANGE, 1, REDUCE)                                        \
  X(SCAN, "scan", RANGE, 1, SCAN)                                              \
  X(MDFOR, "mdfor", MDRANGE, 0, FOR)                                           \
  X(MDREDUCE, "mdreduce", MDRANGE, 1, REDUCE)                                  \
  X(TEAM, "team", TEAM, 0, FOR)                                                \
  X(TEAM_REDUCE, "team_reduce", TEAM, 1, REDUCE)                               \
  X(CALL, "call", RANGE, 0, CALL)

struct kc_team;

/* Host entry points.  Each runs a contiguous chunk of the iteration space;
 * `functor` points at the launch's copy of the functor struct.  `acc` points
 * at the caller's accumulator (already holding a value: accumulate into it).
 * A scan runs twice over each chunk: with final = 0 to total it, then with
 * final = 1 and `acc` holding the prefix before the chunk. */
typedef void (*kc_host_for_fn)(const void *functor, kc_index b, kc_index e);
typedef void (*kc_host_reduce_fn)(const void *functor, kc_index b, kc_index e,
                                  void *acc);
typedef void (*kc_host_scan_fn)(const void *functor, kc_index b, kc_index e,
                                void *acc, int final);
/* MD: the box [lo[d], hi[d]) for d < rank. */
typedef void (*kc_host_mdfor_fn)(const void *functor, const kc_index *lo,
                                 const kc_index *hi);
typedef void (*kc_host_mdreduce_fn)(const void *functor, const kc_index *lo,
                                    const kc_index *hi, void *acc);
typedef void (*kc_host_team_fn)(const void *functor, struct kc_team *team);
typedef void (*kc_host_team_reduce_fn)(const void *functor,
                                       struct kc_team *team, void *acc);

/* A kernel registered with kc.  Owned by the core; valid until exit. */
typedef struct kc_kernel kc_kernel;

/* What kc_kernel_register() takes.  Unused fields are zero.  The strings
 * and the PTX text must outlive the program (kcc points them at static
 * data); they are not copied. */
typedef struct kc_kernel_desc {
  size_t struct_size; /* sizeof(kc_kernel_desc) */
  const char *name;   /* unique; the launch and lookup name */
  kc_kernel_kind kind;
  int rank;              /* MDFOR/MDREDUCE: 2..KC_MAX_RANK; else 0 or 1 */
  void (*host)(void);    /* host entry, cast to the kind's type; may be NULL
                            if the kernel only exists as PTX */
  const char *ptx;       /* PTX module text (NUL terminated) or NULL */
  const char *ptx_entry; /* base name of the device entries (default: name) */
  kc_reducer reducer;    /* REDUCE / SCAN / MDREDUCE / TEAM_REDUCE */
  /* CALL kernels: one letter per parameter after the (begin, end) pair the
   * host function takes first: p pointer, i int32, I uint32, l int64,
   * L uint64, f float, d double.  A device entry takes only the listed
   * parameters and computes its own indices. */
  const char *signature;
  /* Appended in 0.2 (a caller's smaller struct_size leaves it 0): the size
   * of the kernel's functor struct, which every launch with a functor must
   * then pass as functor_size (KC_EINVAL otherwise); 0: not checked.
   * kcc's kernel macros set it. */
  size_t functor_size;
  /* Appended after functor_size (a smaller struct_size leaves it 0):
   * KC_KERNEL_* flags below; unknown bits are KC_EINVAL. */
  unsigned flags;
} kc_kernel_desc;

/* kc_kernel_desc.flags: the host function of a TEAM / TEAM_REDUCE kernel
 * runs as one thread of a team of several.  Host backends then run every
 * thread of a team through it, each with its own handle: it must split its
 * nested loops by kc_team_rank/kc_team_size and synchronise through the
 * team (kc_team_barrier and the team-wide nested constructs), as the host
 * expansion of the team macros of <kc/kernel.h> does.  Without the flag
 * (plain C host functions, kernels built before it existed) a host team is
 * one thread.  Other kinds refuse it (KC_EINVAL). */
#define KC_KERNEL_TEAM_THREADS 1u

/* Registers a kernel; *out (may be NULL) receives its handle.  May be called
 * before kc_init (kcc's constructors do).  Errors: KC_EINVAL (no name, bad
 * kind, no host function and no PTX, bad signature letter), KC_EEXIST (the
 * name is taken). */
KC_API int kc_kernel_register(const kc_kernel_desc *desc, kc_kernel **out);

/* Looks a kernel up by name.  KC_ENOKERNEL (naming it) if there is none. */
KC_API int kc_kernel_get(const char *name, kc_kernel **out);

/* The name a handle was registered with. */
KC_API const char *kc_kernel_name(const kc_kernel *k);

/* Describes a registered kernel: fills *out (whose struct_size the caller
 * sets to sizeof(kc_kernel_desc)) with what it was registered with — its
 * name, kind, rank, host entry, PTX, reducer (for built-in ops the size is
 * the value's) and CALL signature — so that bindings in other languages
 * can size results and check arguments.  The strings belong to the kernel.
 * Errors: KC_EINVAL (k not a kernel handle, out NULL or its struct_size too
 * small).  Needs no kc_init.  Thread safe. */
KC_API int kc_kernel_describe(const kc_kernel *k, kc_kernel_desc *out);

/* Scratch a TEAM / TEAM_REDUCE kernel computes from its functor (Kokkos'
 * team_shmem_size): bytes of level-`level` scratch per team for a team of
 * `team_size` threads, added to the policy's per-team request.  Called on
 * the host before each launch, for levels 0 and 1, with the launch's
 * functor bytes; it must not call kc. */
typedef size_t (*kc_team_scratch_fn)(const void *functor, int level,
                                     int team_size);

/* Attaches (fn != NULL) or removes (NULL) a kernel's scratch function.
 * KC_TEAM_SCRATCH_SIZE in <kc/kernel.h> does this for kcc-built kernels.
 * Call it before launching the kernel; a launch already running keeps the
 * function it started with.  Errors: KC_EINVAL (k not a kernel handle, or
 * not a TEAM / TEAM_REDUCE kernel). */
KC_API int kc_kernel_set_team_scratch(kc_kernel *k, kc_team_scratch_fn fn);

/* -------------------------------------------------------------- dispatch */

/* Runs `kernel` over `policy`.  The functor (functor_size bytes at
 * `functor`; NULL allowed only with size 0; a kernel registered with its
 * functor's size, as kcc's macros do, takes exactly that size: it reads
 * its functor, so none (size 0) is KC_EINVAL) is copied before the call
 * returns, so the caller may reuse it at once.  Asynchronous on device
 * backends: kc_fence() waits.  `label` names the launch for profiling tools
 * (NULL or "": the kernel's name; tools get no empty kernel name).
 * Errors: KC_EINVAL (NULL kernel, NULL functor with size > 0, functor_size
 * over PTRDIFF_MAX or not the kernel's functor size (0 included), policy
 * that does not fit
 * the kernel's kind, chunk 0), KC_ERANGE (end < begin, a range of more than
 * INT64_MAX indices, a box of more than INT64_MAX points, a negative league
 * size; the CUDA backend also refuses 1-D ranges and MD boxes ending
 * within 2^44 of INT64_MAX, empty or not), KC_ENOKERNEL (the kernel has no code
 * for this backend: the detail says how to rebuild it), KC_ELAUNCH, KC_EJIT,
 * KC_ESCRATCH.  A launch made from inside a running host kernel is KC_EINVAL
 * (launches do not nest; use a team policy's nested loops). */
KC_API int kc_parallel_for(const char *label, kc_kernel *kernel,
                           const kc_policy *policy, const void *functor,
                           size_t functor_size);

/* As kc_parallel_for for REDUCE / MDREDUCE / TEAM_REDUCE kernels.  The
 * result (the reducer's value type) goes to `result`: if `result` points
 * into a kc allocation the call is asynchronous and the value is there
 * after kc_fence(); otherwise it is an ordinary host variable and the call
 * blocks until the value is stored.  An empty range gives the identity.
 * A result inside a kc allocation needs the whole value's room from
 * `result` to the allocation's end, else KC_EINVAL (nothing runs).  Custom
 * joins are applied in index order on every backend and schedule: for MD
 * kernels, tiles in row-major order and row-major within a tile (without
 * tiles on host backends, plain row-major order); for team kernels, league
 * rank order. */
KC_API int kc_parallel_reduce(const char *label, kc_kernel *kernel,
                              const kc_policy *policy, const void *functor,
                              size_t functor_size, void *result);

/* As kc_parallel_for for SCAN kernels (two-pass "final" protocol).  `total`
 * (may be NULL) receives the sum over the whole range, with the same
 * host-variable / kc-allocation rules (and room check) as
 * kc_parallel_reduce. */
KC_API int kc_parallel_scan(const char *label, kc_kernel *kernel,
                            const kc_policy *policy, const void *functor,
                            size_t functor_size, void *total);

/* Runs a CALL kernel over a 1-D range policy.  args[i] points at the value
 * of parameter i, of the type its signature letter names (as libffi's
 * avalues).  Host backends call the host function once per chunk as
 * fn(b, e, args...); the CUDA backend passes the arguments as kernel
 * parameters.  KC_ESIGNATURE if nargs differs from the signature. */
KC_API int kc_parallel_call(const char *label, kc_kernel *kernel,
                            const kc_policy *policy, int nargs,
                            void *const *args);

/* ------------------------------------------------------ profiling regions */

/* Profiling tools (Kokkos Tools libraries, unmodified) are loaded by
 * kc_init, from the first of these variables that is set:
 *  - KC_TOOLS_LIBS: a ';'-separated list; every entry is loaded as a tool
 *    of its own (load sequence 0, 1, ... in list order), each with its own
 *    kernel and fence ids, every event going to each.  Set (even empty), it
 *    hides the Kokkos variables.  Chaining tools (kokkos-sampler,
 *    kernel-filter) do not belong here: they find the tool to chain to in
 *    KOKKOS_TOOLS_LIBS.
 *  - KOKKOS_TOOLS_LIBS: Kokkos' meaning: only the first entry is loaded
 *    (load sequence 0); a chaining tool there opens the next entries
 *    itself, as under Kokkos.
 *  - KOKKOS_PROFILE_LIBRARY (deprecated in Kokkos): as KOKKOS_TOOLS_LIBS,
 *    with a warning line on stderr whenever it is set and KC_TOOLS_LIBS is
 *    not; KOKKOS_TOOLS_LIBS wins when both are set.
 * Empty entries are skipped.  An entry without '/' or ".so" names kc's own
 * tool libkc-tool-<entry>.so.  A library that does not load is reported on
 * stderr and skipped.  Tools see:
 *  - launch names: the label, or the kernel's name;
 *  - memory spaces under Kokkos' names for the backend's device type
 *    ("Cuda", "CudaUVM", "CudaHostPinned"; "HIP", "HIPManaged",
 *    "HIPHostPinned"; "SYCLDeviceUSM", "SYCLSharedUSM", "SYCLHostUSM";
 *    "OpenMPTargetSpace"; "OpenACCSpace"), "Host" for a space that is host
 *    memory on the backend and for every space of a backend that matches no
 *    Kokkos device type;
 *  - the global fences kc adds around callbacks for tools that want global
 *    fencing, named "kc::tools: ...: Kokkos Profile Tool Fence" (tools
 *    filter them on Kokkos' string). */

/* User regions for profiling tools (kokkosp_push/pop_profile_region). */
KC_API int kc_region_push(const char *name);
KC_API int kc_region_pop(void);

/* A key/value pair for the profiling tools (kokkosp_declare_metadata, as
 * Kokkos::Tools::declareMetadata): a run's configuration, input name,
 * problem size.  kc declares its own (kc_version, kc_backend, ...) at
 * kc_init; see doc/profiling.md ("Metadata").  Does nothing when no tool
 * is loaded; the strings are not kept.  Errors: KC_EINVAL (NULL key or value).
 */
KC_API int kc_declare_metadata(const char *key, const char *value);

/* A point event for the profiling tools (kokkosp_profile_event, as
 * Kokkos::Profiling::markEvent).  Does nothing when no tool is loaded.
 * Errors: KC_EINVAL (NULL name). */
KC_API int kc_profile_event(const char *name);

/* ------------------------------------------------------ error handling */

/* For programs that have nothing better to do with an error than stop.
 * kc_check(call) evaluates `call` (any expression giving a kc return
 * code) and returns its value when it is >= 0; on a negative code it
 * prints one line on stderr,
 *   FILE:LINE: CALL failed: KC_E... (<kc_strerror()>): <kc_last_error()>
 * and calls exit(EXIT_FAILURE).  Usable anywhere (it is a macro over an
 * inline function of this header).
 *
 * KC_CHECK_EXIT, defined before the first #include of <kc/kc.h> (or
 * <kc/kernel.h>), makes these kc calls checked that way at their call
 * sites: kc_init, kc_finalize, kc_fence, kc_get_info,
 * kc_malloc, kc_free, kc_retain, kc_pointer_info, kc_memcpy,
 * kc_memcpy_async, kc_memset, kc_malloc_on, kc_pointer_device,
 * kc_queue_create, kc_queue_destroy, kc_queue_fence, kc_queue_device,
 * kc_memcpy_on, kc_memset_on, kc_event_create, kc_event_destroy,
 * kc_event_record, kc_event_wait, kc_event_synchronize, kc_event_query
 * (its 1 comes back), kc_event_elapsed,
 * kc_mirror_create, kc_mirror_destroy, kc_mirror_modify_host/_target,
 * kc_mirror_sync_host/_target, kc_mirror_clear_sync_state,
 * kc_policy_set_scratch, kc_policy_set_iterate, kc_kernel_get,
 * kc_kernel_describe,
 * kc_parallel_for/_reduce/_scan/_call, kc_region_push/_pop,
 * kc_declare_metadata, kc_profile_event, and the kc_run_* launches of
 * <kc/kernel_args.h>.  They become function-like macros of the same name
 * (a call still returns the code, which is then >= 0; taking a function's
 * address is unaffected).  Registration
 * (kc_kernel_register, kc_kernel_set_team_scratch) keeps its codes: kcc's
 * constructors report those themselves.
 * Without KC_CHECK_EXIT (the default) every call returns its code as
 * documented above. */
static inline int kc__check(int kc__rc, const char *kc__call,
                            const char *kc__file, int kc__line) {
  if (kc__rc < 0) {
    const char *kc__detail = kc_last_error();
    int kc__more = kc__detail && kc__detail[0];
    fprintf(stderr, "%s:%d: %s failed: %s (%s)%s%s\n", kc__file, kc__line,
            kc__call, kc_err_name(kc__rc), kc_strerror(kc__rc),
            kc__more ? ": " : "", kc__more ? kc__detail : "");
    exit(EXIT_FAILURE);
  }
  return kc__rc;
}
#define kc_check(call) kc__check((call), #call, __FILE__, __LINE__)

#if defined(KC_CHECK_EXIT)
/* The arguments arrive stringified by each wrapper (as written: an argument
 * passed on to another macro would be macro-expanded first, so NULL would
 * print as ((void *)0)). */
#define KC__CHECKED(fn, args, ...)                                             \
  kc__check(fn(__VA_ARGS__), #fn "(" args ")", __FILE__, __LINE__)
#define kc_init() kc__check(kc_init(), "kc_init()", __FILE__, __LINE__)
#define kc_finalize()                                                          \
  kc__check(kc_finalize(), "kc_finalize()", __FILE__, __LINE__)
#define kc_fence() kc__check(kc_fence(), "kc_fence()", __FILE__, __LINE__)
#define kc_get_info(...) KC__CHECKED(kc_get_info, #__VA_ARGS__, __VA_ARGS__)
#define kc_malloc(...) KC__CHECKED(kc_malloc, #__VA_ARGS__, __VA_ARGS__)
#define kc_free(...) KC__CHECKED(kc_free, #__VA_ARGS__, __VA_ARGS__)
#define kc_retain(...) KC__CHECKED(kc_retain, #__VA_ARGS__, __VA_ARGS__)
#define kc_pointer_info(...)                                                   \
  KC__CHECKED(kc_pointer_info, #__VA_ARGS__, __VA_ARGS__)
#define kc_memcpy(...) KC__CHECKED(kc_memcpy, #__VA_ARGS__, __VA_ARGS__)
#define kc_memcpy_async(...)                                                   \
  KC__CHECKED(kc_memcpy_async, #__VA_ARGS__, __VA_ARGS__)
#define kc_memset(...) KC__CHECKED(kc_memset, #__VA_ARGS__, __VA_ARGS__)
#define kc_malloc_on(...) KC__CHECKED(kc_malloc_on, #__VA_ARGS__, __VA_ARGS__)
#define kc_pointer_device(...)                                                 \
  KC__CHECKED(kc_pointer_device, #__VA_ARGS__, __VA_ARGS__)
#define kc_queue_create(...)                                                   \
  KC__CHECKED(kc_queue_create, #__VA_ARGS__, __VA_ARGS__)
#define kc_queue_destroy(...)                                                  \
  KC__CHECKED(kc_queue_destroy, #__VA_ARGS__, __VA_ARGS__)
#define kc_queue_fence(...)                                                    \
  KC__CHECKED(kc_queue_fence, #__VA_ARGS__, __VA_ARGS__)
#define kc_memcpy_on(...) KC__CHECKED(kc_memcpy_on, #__VA_ARGS__, __VA_ARGS__)
#define kc_memset_on(...) KC__CHECKED(kc_memset_on, #__VA_ARGS__, __VA_ARGS__)
#define kc_event_record(...)                                                   \
  KC__CHECKED(kc_event_record, #__VA_ARGS__, __VA_ARGS__)
#define kc_event_wait(...) KC__CHECKED(kc_event_wait, #__VA_ARGS__, __VA_ARGS__)
#define kc_event_synchronize(...)                                              \
  KC__CHECKED(kc_event_synchronize, #__VA_ARGS__, __VA_ARGS__)
#define kc_event_create(...)                                                   \
  KC__CHECKED(kc_event_create, #__VA_ARGS__, __VA_ARGS__)
#define kc_event_destroy(...)                                                  \
  KC__CHECKED(kc_event_destroy, #__VA_ARGS__, __VA_ARGS__)
#define kc_event_query(...)                                                    \
  KC__CHECKED(kc_event_query, #__VA_ARGS__, __VA_ARGS__)
#define kc_event_elapsed(...)                                                  \
  KC__CHECKED(kc_event_elapsed, #__VA_ARGS__, __VA_ARGS__)
#define kc_queue_device(...)                                                   \
  KC__CHECKED(kc_queue_device, #__VA_ARGS__, __VA_ARGS__)
#define kc_kernel_describe(...)                                                \
  KC__CHECKED(kc_kernel_describe, #__VA_ARGS__, __VA_ARGS__)
#define kc_mirror_create(...)                                                  \
  KC__CHECKED(kc_mirror_create, #__VA_ARGS__, __VA_ARGS__)
#define kc_mirror_destroy(...)                                                 \
  KC__CHECKED(kc_mirror_destroy, #__VA_ARGS__, __VA_ARGS__)
#define kc_mirror_modify_host(...)                                             \
  KC__CHECKED(kc_mirror_modify_host, #__VA_ARGS__, __VA_ARGS__)
#define kc_mirror_modify_target(...)                                           \
  KC__CHECKED(kc_mirror_modify_target, #__VA_ARGS__, __VA_ARGS__)
#define kc_mirror_sync_host(...)                                               \
  KC__CHECKED(kc_mirror_sync_host, #__VA_ARGS__, __VA_ARGS__)
#define kc_mirror_sync_target(...)                                             \
  KC__CHECKED(kc_mirror_sync_target, #__VA_ARGS__, __VA_ARGS__)
#define kc_mirror_clear_sync_state(...)                                        \
  KC__CHECKED(kc_mirror_clear_sync_state, #__VA_ARGS__, __VA_ARGS__)
#define kc_policy_set_scratch(...)                                             \
  KC__CHECKED(kc_policy_set_scratch, #__VA_ARGS__, __VA_ARGS__)
#define kc_policy_set_iterate(...)                                             \
  KC__CHECKED(kc_policy_set_iterate, #__VA_ARGS__, __VA_ARGS__)
#define kc_kernel_get(...) KC__CHECKED(kc_kernel_get, #__VA_ARGS__, __VA_ARGS__)
#define kc_parallel_for(...)                                                   \
  KC__CHECKED(kc_parallel_for, #__VA_ARGS__, __VA_ARGS__)
#define kc_parallel_reduce(...)                                                \
  KC__CHECKED(kc_parallel_reduce, #__VA_ARGS__, __VA_ARGS__)
#define kc_parallel_scan(...)                                                  \
  KC__CHECKED(kc_parallel_scan, #__VA_ARGS__, __VA_ARGS__)
#define kc_parallel_call(...)                                                  \
  KC__CHECKED(kc_parallel_call, #__VA_ARGS__, __VA_ARGS__)
#define kc_region_push(...)                                                    \
  KC__CHECKED(kc_region_push, #__VA_ARGS__, __VA_ARGS__)
#define kc_region_pop()                                                        \
  kc__check(kc_region_pop(), "kc_region_pop()", __FILE__, __LINE__)
#define kc_declare_metadata(...)                                               \
  KC__CHECKED(kc_declare_metadata, #__VA_ARGS__, __VA_ARGS__)
#define kc_profile_event(...)                                                  \
  KC__CHECKED(kc_profile_event, #__VA_ARGS__, __VA_ARGS__)
#endif

#ifdef __cplusplus
}
#endif

#endif /* KC_KC_H */
