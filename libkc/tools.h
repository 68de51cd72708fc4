/* libkc — profiling hooks (the Kokkos Tools interface), internal.
 *
 * The dispatch, memory and fence code calls these around its work.  Every
 * call site is guarded by `if (kc__unlikely(kc__tools_active))`, so with no
 * tool loaded the hooks cost one predictable branch.
 */
#ifndef KC_LIBKC_TOOLS_H
#define KC_LIBKC_TOOLS_H

#include <stdint.h>

#include <kc/kc.h>

#define kc__unlikely(x) __builtin_expect(!!(x), 0)

/* Nonzero once a tool library with at least one callback is loaded. */
extern int kc__tools_active;

/* Loads KC_TOOLS_LIBS (or KOKKOS_TOOLS_LIBS) at kc_init, after the backend
 * is up; a library that fails to load is reported, not fatal. */
void kc__tools_init(const kc_info *info);
/* Calls kokkosp_finalize_library and forgets the tools; at kc_finalize. */
void kc__tools_finalize(void);

typedef enum kc__tools_parallel {
  KC__TOOLS_FOR = 0,
  KC__TOOLS_REDUCE = 1,
  KC__TOOLS_SCAN = 2
} kc__tools_parallel;

/* Around each launch; *kid receives the tool's kernel id. */
void kc__tools_begin_parallel(kc__tools_parallel what, const char *label,
                              uint64_t *kid);
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

void kc__tools_begin_fence(const char *name, uint64_t *id);
void kc__tools_end_fence(uint64_t id);

#endif
