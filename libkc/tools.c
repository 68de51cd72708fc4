/* libkc — profiling hooks.  Interim: no tool is ever loaded yet; the Kokkos
 * Tools loader (issue 7) replaces this file. */
#include "tools.h"

int kc__tools_active = 0;

void kc__tools_init(const kc_info *info) { (void)info; }
void kc__tools_finalize(void) {}
void kc__tools_begin_parallel(kc__tools_parallel what, const char *label,
                              uint64_t *kid) { (void)what; (void)label; *kid = 0; }
void kc__tools_end_parallel(kc__tools_parallel what, uint64_t kid) { (void)what; (void)kid; }
void kc__tools_push_region(const char *name) { (void)name; }
void kc__tools_pop_region(void) {}
void kc__tools_allocate(kc_space space, const char *label, const void *ptr,
                        uint64_t size) { (void)space; (void)label; (void)ptr; (void)size; }
void kc__tools_deallocate(kc_space space, const char *label, const void *ptr,
                          uint64_t size) { (void)space; (void)label; (void)ptr; (void)size; }
void kc__tools_begin_deep_copy(kc_space dst_space, const char *dst_label,
                               const void *dst, kc_space src_space,
                               const char *src_label, const void *src,
                               uint64_t size) {
  (void)dst_space; (void)dst_label; (void)dst; (void)src_space; (void)src_label; (void)src; (void)size;
}
void kc__tools_end_deep_copy(void) {}
void kc__tools_begin_fence(const char *name, uint64_t *id) { (void)name; *id = 0; }
void kc__tools_end_fence(uint64_t id) { (void)id; }
