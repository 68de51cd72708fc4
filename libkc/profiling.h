/* libkc — profiling hooks (the Kokkos Tools interface), internal.
 *
 * The dispatch, memory and fence code calls these around its work.  Every
 * call site is guarded by `if (kc__unlikely(kc__tools_active))`, so with no
 * tool loaded the hooks cost one predictable branch.
 *
 * Rules for the call sites (profiling.c relies on them):
 *  - Call the hooks with no kc lock held (neither kc__rt.init_lock for the
 *    per-operation hooks nor kc__rt.lock).  A tool may call back into kc
 *    from a callback (the fence of Kokkos' tool programming interface), and
 *    with Kokkos' default "global fencing" the parallel and region hooks
 *    themselves call kc_fence().
 *  - Every begin has its end, on the same thread, even when the operation
 *    between them failed: tools keep stacks and id tables.
 *  - A kernel id or fence id received from a begin hook is passed unchanged
 *    to the matching end hook and to nothing else.
 * The hooks themselves are thread safe once kc__tools_init has returned;
 * init and finalize are called under kc's init lock.
 */
#ifndef KC_LIBKC_TOOLS_H
#define KC_LIBKC_TOOLS_H

#include <stdint.h>

#include <kc/kc.h>

#define kc__unlikely(x) __builtin_expect(!!(x), 0)

/* Hidden at the declaration, not only at the definition: the call sites in
 * other files then read kc__tools_active directly instead of through the
 * GOT, which keeps the no-tool branch at one load and one test. */
#pragma GCC visibility push(hidden)

/* Nonzero once a tool library with at least one callback is loaded. */
extern int kc__tools_active;

/* Loads KC_TOOLS_LIBS (or KOKKOS_TOOLS_LIBS) at kc_init, after the backend
 * is up; a library that fails to load is reported, not fatal. */
void kc__tools_init(const kc_info *info);
/* Calls kokkosp_finalize_library and forgets the tools; at kc_finalize. */
void kc__tools_finalize(void);

/* The library names of a tool list (the value of KC_TOOLS_LIBS,
 * KOKKOS_TOOLS_LIBS or KOKKOS_PROFILE_LIBRARY; NULL is ""): the ';'
 * separated entries, empty ones skipped, in order; with first_only, at most
 * the first (Kokkos opens only that one and leaves the rest to it).
 * Returns a NULL-terminated array whose strings live in the same block
 * (one free() releases all) and sets *count, or returns NULL out of memory.
 * Pure: no kc state, no locks (profiling-libs.c). */
char **kc__tools_libs_parse(const char *list, int first_only, int *count);

typedef enum kc__tools_parallel {
  KC__TOOLS_FOR = 0,
  KC__TOOLS_REDUCE = 1,
  KC__TOOLS_SCAN = 2
} kc__tools_parallel;

/* Around each launch; `devid` is the device id of the queue it runs on
 * (kc__queue_tools_id); *kid receives the tool's kernel id. */
void kc__tools_begin_parallel(kc__tools_parallel what, const char *label,
                              uint32_t devid, uint64_t *kid);
void kc__tools_end_parallel(kc__tools_parallel what, uint64_t kid);

void kc__tools_push_region(const char *name);
void kc__tools_pop_region(void);

void kc__tools_allocate(kc_space space, const char *label, const void *ptr,
                        uint64_t size);
void kc__tools_deallocate(kc_space space, const char *label, const void *ptr,
                          uint64_t size);

void kc__tools_begin_deep_copy(kc_space dst_space, const char *dst_label,
                               const void *dst, kc_space src_space,
                               const char *src_label, const void *src,
                               uint64_t size);
void kc__tools_end_deep_copy(void);

/* A global fence (kc_fence): the global-synchronisation device id. */
void kc__tools_begin_fence(const char *name, uint64_t *id);
/* A fence of one queue (kc_queue_fence, kc_queue_destroy), reported as
 * "<what>: queue <instance>" with the queue's device id `devid`. */
void kc__tools_begin_queue_fence(const char *what, uint32_t devid,
                                 uint64_t *id);
/* Ends either kind of fence. */
void kc__tools_end_fence(uint64_t id);

/* ------------------------------------------------ mirrors, metadata */

/* Mirrored arrays (kokkosp_dual_view_modify / kokkosp_dual_view_sync, as
 * Kokkos' DualView reports them).  `ptr` is the side concerned: the host
 * side with on_device/to_device 0, the target side with 1.
 *  - modify: from kc_mirror_modify_host (on_device 0) and
 *    kc_mirror_modify_target (on_device 1), each time they are called;
 *  - sync: from kc_mirror_sync_host (to_device 0, host pointer) and
 *    kc_mirror_sync_target (to_device 1, target pointer), only when the
 *    sync actually copies, after the copy. */
void kc__tools_dual_view_modify(const char *label, const void *ptr,
                                int on_device);
void kc__tools_dual_view_sync(const char *label, const void *ptr,
                              int to_device);

/* ------------------------------------------------ device ids, queues */

/* Instance numbers, the low 17 bits of a device id (doc/profiling.md,
 * "Device ids"): 0 is global synchronisation (kc_fence), 1 the default
 * queue; kc_queue_create hands out 2 .. KC__TOOLS_INSTANCE_LAST (queue.c).
 * The last number is one short of the 17 bits' maximum, which Kokkos
 * reserves, with device 127, for deep-copy synchronisation. */
enum {
  KC__TOOLS_INSTANCE_GLOBAL = 0,
  KC__TOOLS_INSTANCE_DEFAULT = 1,
  KC__TOOLS_INSTANCE_LAST = 0x1fffe
};

/* The Kokkos Tools device id of the default queue on the backend in use;
 * valid after kc__tools_init. */
uint32_t kc__tools_device_id(void);
/* The device id of instance `instance` on device `device` (a device below
 * 0, as on host backends, is 0); valid after kc__tools_init. */
uint32_t kc__tools_queue_id(int device, unsigned instance);

/* Defined in queue.c, for the hooks: */
struct kc_queue;
/* The device id of queue q (NULL: the default queue). */
uint32_t kc__queue_tools_id(const struct kc_queue *q);
/* The fence of the tool programming interface for `devid`: if that is the
 * id of exactly one live queue (the default one included), fences that
 * queue alone (as kc_queue_fence, reported as such), stores its result in
 * *rc and returns 1; else returns 0, and the caller fences everything.
 * The queue is pinned while it is fenced: a kc_queue_destroy of another
 * thread waits for the fence before the backend's queue is released. */
int kc__queue_tools_fence(uint32_t devid, int *rc);

#pragma GCC visibility pop

#endif
