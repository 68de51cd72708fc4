/* The plugin ABI, frozen: the layout of every struct a plugin and libkc
 * exchange (include/kc/backend.h and the kc.h types it embeds) and the
 * values of every enum and error code.
 *
 * A plugin built against an older <kc/backend.h> of the same major must
 * keep working, so nothing here may ever change.  Growing a struct at its
 * end is allowed (bump KC_BACKEND_ABI_MINOR for kc_backend_ops): then add
 * the new fields' offsets and update the size below, in the same commit.
 * Any other change to this file is an ABI break and needs a new major.
 *
 * The values are those of the x86-64 (LP64) System V ABI; on other
 * machines the test checks what does not depend on the machine (enum
 * values, field order) and skips the byte offsets. */
#include <stddef.h>

#include <kc/backend.h>
#include <kc/detail/team.h>

#include "kc-test.h"

static int lp64_x86;

#define OFF(T, f, v)                                                           \
  do {                                                                         \
    if (lp64_x86)                                                              \
      KC_CHECK_EQ_UINT(offsetof(T, f), v);                                     \
  } while (0)
#define SIZE(T, v)                                                             \
  do {                                                                         \
    if (lp64_x86)                                                              \
      KC_CHECK_EQ_UINT(sizeof(T), v);                                          \
  } while (0)
/* Field order, on every machine. */
#define BEFORE(T, a, b) KC_CHECK_LT_INT(offsetof(T, a), offsetof(T, b))

static void test_layouts(void) {
  SIZE(struct kc_backend_ops, 248); /* 144 in ABI 1.0 */
  OFF(struct kc_backend_ops, abi_major, 0);
  OFF(struct kc_backend_ops, abi_minor, 4);
  OFF(struct kc_backend_ops, struct_size, 8);
  OFF(struct kc_backend_ops, name, 16);
  OFF(struct kc_backend_ops, description, 24);
  OFF(struct kc_backend_ops, state_size, 32);
  OFF(struct kc_backend_ops, kernel_state_size, 40);
  OFF(struct kc_backend_ops, probe, 48);
  OFF(struct kc_backend_ops, init, 56);
  OFF(struct kc_backend_ops, finalize, 64);
  OFF(struct kc_backend_ops, info, 72);
  OFF(struct kc_backend_ops, mem_alloc, 80);
  OFF(struct kc_backend_ops, mem_free, 88);
  OFF(struct kc_backend_ops, mem_copy, 96);
  OFF(struct kc_backend_ops, mem_set, 104);
  OFF(struct kc_backend_ops, fence, 112);
  OFF(struct kc_backend_ops, kernel_prepare, 120);
  OFF(struct kc_backend_ops, kernel_release, 128);
  OFF(struct kc_backend_ops, launch, 136);
  /* ABI 1.1 */
  OFF(struct kc_backend_ops, queue_create, 144);
  OFF(struct kc_backend_ops, queue_destroy, 152);
  OFF(struct kc_backend_ops, queue_fence, 160);
  OFF(struct kc_backend_ops, event_create, 168);
  OFF(struct kc_backend_ops, event_destroy, 176);
  OFF(struct kc_backend_ops, event_record, 184);
  OFF(struct kc_backend_ops, event_wait, 192);
  OFF(struct kc_backend_ops, event_synchronize, 200);
  OFF(struct kc_backend_ops, event_query, 208);
  OFF(struct kc_backend_ops, event_elapsed, 216);
  OFF(struct kc_backend_ops, mem_copy_on, 224);
  OFF(struct kc_backend_ops, mem_set_on, 232);
  OFF(struct kc_backend_ops, mem_alloc_on, 240);
  SIZE(kc_launch, 304);
  OFF(kc_launch, label, 0);
  OFF(kc_launch, kernel, 8);
  OFF(kc_launch, kernel_state, 16);
  OFF(kc_launch, policy, 24);
  OFF(kc_launch, functor, 240);
  OFF(kc_launch, functor_size, 248);
  OFF(kc_launch, result, 256);
  OFF(kc_launch, result_space, 264);
  OFF(kc_launch, result_async, 268);
  OFF(kc_launch, nargs, 272);
  OFF(kc_launch, args, 280);
  OFF(kc_launch, queue, 288); /* appended: kc_policy's growth moves nothing */
  OFF(kc_launch, iterate, 296);
  /* kc_launch_policy is kc_policy's 1.0 prefix, field by field. */
  SIZE(kc_launch_policy, 216);
#define SAME(f)                                                                \
  KC_CHECK_EQ_UINT(offsetof(kc_launch_policy, f), offsetof(kc_policy, f))
  SAME(kind);
  SAME(rank);
  SAME(begin);
  SAME(end);
  SAME(tile);
  SAME(schedule);
  SAME(chunk);
  SAME(league_size);
  SAME(team_size);
  SAME(vector_length);
  SAME(scratch_per_team);
  SAME(scratch_per_thread);
#undef SAME
  KC_CHECK_LE_INT(sizeof(kc_launch_policy), offsetof(kc_policy, queue));
  SIZE(kc_kernel_info, 96);
  OFF(kc_kernel_info, name, 0);
  OFF(kc_kernel_info, kind, 8);
  OFF(kc_kernel_info, rank, 12);
  OFF(kc_kernel_info, host, 16);
  OFF(kc_kernel_info, ptx, 24);
  OFF(kc_kernel_info, ptx_entry, 32);
  OFF(kc_kernel_info, reducer, 40);
  OFF(kc_kernel_info, value_size, 72);
  OFF(kc_kernel_info, signature, 80);
  OFF(kc_kernel_info, nargs, 88);
  SIZE(kc_policy, 232);
  OFF(kc_policy, kind, 0);
  OFF(kc_policy, rank, 4);
  OFF(kc_policy, begin, 8);
  OFF(kc_policy, end, 56);
  OFF(kc_policy, tile, 104);
  OFF(kc_policy, schedule, 152);
  OFF(kc_policy, chunk, 160);
  OFF(kc_policy, league_size, 168);
  OFF(kc_policy, team_size, 176);
  OFF(kc_policy, vector_length, 180);
  OFF(kc_policy, scratch_per_team, 184);
  OFF(kc_policy, scratch_per_thread, 200);
  OFF(kc_policy, queue, 216);
  OFF(kc_policy, iterate, 224);
  SIZE(kc_kernel_desc, 104);
  OFF(kc_kernel_desc, struct_size, 0);
  OFF(kc_kernel_desc, name, 8);
  OFF(kc_kernel_desc, kind, 16);
  OFF(kc_kernel_desc, rank, 20);
  OFF(kc_kernel_desc, host, 24);
  OFF(kc_kernel_desc, ptx, 32);
  OFF(kc_kernel_desc, ptx_entry, 40);
  OFF(kc_kernel_desc, reducer, 48);
  OFF(kc_kernel_desc, signature, 80);
  OFF(kc_kernel_desc, functor_size, 88); /* appended in 0.2 */
  OFF(kc_kernel_desc, flags, 96);        /* appended after 0.2 */
  /* The host team handle: libkc fills it, kernels built against any kc
   * read it (<kc/detail/team.h>); fields are only appended. */
  SIZE(kc_team, 104);
  OFF(kc_team, league_rank, 0);
  OFF(kc_team, league_end, 8);
  OFF(kc_team, league_size, 16);
  OFF(kc_team, team_scratch, 24);
  OFF(kc_team, team_scratch_size, 40);
  OFF(kc_team, thread_scratch, 56);
  OFF(kc_team, thread_scratch_size, 72);
  OFF(kc_team, vector_length, 88);
  OFF(kc_team, reserved, 92);
  OFF(kc_team, rank, 96);
  OFF(kc_team, size, 100);
  SIZE(kc_reducer, 32);
  OFF(kc_reducer, op, 0);
  OFF(kc_reducer, type, 4);
  OFF(kc_reducer, size, 8);
  OFF(kc_reducer, identity, 16);
  OFF(kc_reducer, join, 24);
  SIZE(kc_backend_config, 12);
  OFF(kc_backend_config, device, 0);
  OFF(kc_backend_config, num_threads, 4);
  OFF(kc_backend_config, verbose, 8);
  SIZE(kc_host_exec, 24);
  OFF(kc_host_exec, parallel, 0);
  OFF(kc_host_exec, ctx, 8);
  OFF(kc_host_exec, nthreads, 16);
  SIZE(kc_info, 280);
  OFF(kc_info, struct_size, 0);
  OFF(kc_info, backend, 8);
  OFF(kc_info, path, 16);
  OFF(kc_info, abi_major, 24);
  OFF(kc_info, abi_minor, 28);
  OFF(kc_info, concurrency, 32);
  OFF(kc_info, num_threads, 36);
  OFF(kc_info, device_count, 40);
  OFF(kc_info, device, 44);
  OFF(kc_info, spaces, 48);
  OFF(kc_info, dev, 56);
  OFF(kc_info, device_from, 272);
  SIZE(kc_device_info, 216);
  OFF(kc_device_info, name, 0);
  OFF(kc_device_info, compute_major, 128);
  OFF(kc_device_info, compute_minor, 132);
  OFF(kc_device_info, multiprocessors, 136);
  OFF(kc_device_info, total_memory, 144);
  OFF(kc_device_info, max_threads_per_block, 152);
  OFF(kc_device_info, shared_memory_per_block, 160);
  OFF(kc_device_info, shared_memory_per_block_optin, 168);
  OFF(kc_device_info, constant_memory, 176);
  OFF(kc_device_info, warp_size, 184);
  OFF(kc_device_info, max_param_bytes, 192);
  OFF(kc_device_info, clock_khz, 200);
  OFF(kc_device_info, memory_clock_khz, 204);
  OFF(kc_device_info, memory_bus_width, 208);
  SIZE(kc_alloc_info, 40);
  OFF(kc_alloc_info, base, 0);
  OFF(kc_alloc_info, size, 8);
  OFF(kc_alloc_info, space, 16);
  OFF(kc_alloc_info, label, 24);
  OFF(kc_alloc_info, refcount, 32);
  SIZE(kc_loc_int32, 16);
  OFF(kc_loc_int32, val, 0);
  OFF(kc_loc_int32, loc, 8);
  SIZE(kc_loc_int64, 16);
  OFF(kc_loc_int64, val, 0);
  OFF(kc_loc_int64, loc, 8);
  SIZE(kc_loc_float, 16);
  OFF(kc_loc_float, val, 0);
  OFF(kc_loc_float, loc, 8);
  SIZE(kc_loc_double, 16);
  OFF(kc_loc_double, val, 0);
  OFF(kc_loc_double, loc, 8);
}

static void test_order(void) {
  BEFORE(struct kc_backend_ops, abi_major, abi_minor);
  BEFORE(struct kc_backend_ops, abi_minor, struct_size);
  BEFORE(struct kc_backend_ops, struct_size, name);
  BEFORE(struct kc_backend_ops, name, description);
  BEFORE(struct kc_backend_ops, description, state_size);
  BEFORE(struct kc_backend_ops, state_size, kernel_state_size);
  BEFORE(struct kc_backend_ops, kernel_state_size, probe);
  BEFORE(struct kc_backend_ops, probe, init);
  BEFORE(struct kc_backend_ops, init, finalize);
  BEFORE(struct kc_backend_ops, finalize, info);
  BEFORE(struct kc_backend_ops, info, mem_alloc);
  BEFORE(struct kc_backend_ops, mem_alloc, mem_free);
  BEFORE(struct kc_backend_ops, mem_free, mem_copy);
  BEFORE(struct kc_backend_ops, mem_copy, mem_set);
  BEFORE(struct kc_backend_ops, mem_set, fence);
  BEFORE(struct kc_backend_ops, fence, kernel_prepare);
  BEFORE(struct kc_backend_ops, kernel_prepare, kernel_release);
  BEFORE(struct kc_backend_ops, kernel_release, launch);
  /* The frozen head is the first thing in the struct, on every machine. */
  KC_CHECK_EQ_UINT(offsetof(struct kc_backend_ops, abi_major), 0);
  KC_CHECK_EQ_UINT(offsetof(struct kc_backend_ops, abi_minor), 4);
  KC_CHECK_EQ_UINT(offsetof(struct kc_backend_ops, struct_size),
                   offsetof(struct kc_backend_ops, abi_minor) + 4);
  KC_CHECK_EQ_UINT(sizeof(((struct kc_backend_ops *)0)->abi_major), 4);
  KC_CHECK_EQ_UINT(sizeof(((struct kc_backend_ops *)0)->abi_minor), 4);
  KC_CHECK_EQ_UINT(sizeof(((struct kc_backend_ops *)0)->struct_size),
                   sizeof(size_t));
  /* struct_size is always the first field of the caller-sized structs. */
  KC_CHECK_EQ_UINT(offsetof(kc_info, struct_size), 0);
  KC_CHECK_EQ_UINT(offsetof(kc_kernel_desc, struct_size), 0);
}

static void test_constants(void) {
  KC_CHECK_EQ_INT(KC_BACKEND_ABI_MAJOR, 1);
  KC_CHECK_GE_INT(KC_BACKEND_ABI_MINOR, 0);
  /* What a plugin of a newer minor asks the library it was loaded into. */
  KC_CHECK_EQ_INT(kc_backend_abi_minor(), KC_BACKEND_ABI_MINOR);
  KC_CHECK_EQ_INT(KC_MAX_RANK, 6);
  KC_CHECK_EQ_INT(KC_AUTO, -1);
  KC_CHECK_EQ_UINT(sizeof(kc_index), 8);
  KC_CHECK_EQ_INT((kc_index)-1 < 0, 1);

  KC_CHECK_EQ_INT(KC_SPACE_HOST, 0);
  KC_CHECK_EQ_INT(KC_SPACE_DEVICE, 1);
  KC_CHECK_EQ_INT(KC_SPACE_MANAGED, 2);
  KC_CHECK_EQ_INT(KC_SPACE_HOST_PINNED, 3);
  KC_CHECK_EQ_INT(KC_SPACE_COUNT, 4);

  KC_CHECK_EQ_INT(KC_REDUCE_NONE, 0);
  KC_CHECK_EQ_INT(KC_REDUCE_SUM, 1);
  KC_CHECK_EQ_INT(KC_REDUCE_PROD, 2);
  KC_CHECK_EQ_INT(KC_REDUCE_MIN, 3);
  KC_CHECK_EQ_INT(KC_REDUCE_MAX, 4);
  KC_CHECK_EQ_INT(KC_REDUCE_MINLOC, 5);
  KC_CHECK_EQ_INT(KC_REDUCE_MAXLOC, 6);
  KC_CHECK_EQ_INT(KC_REDUCE_CUSTOM, 7);

  KC_CHECK_EQ_INT(KC_INT32, 1);
  KC_CHECK_EQ_INT(KC_INT64, 2);
  KC_CHECK_EQ_INT(KC_FLOAT, 3);
  KC_CHECK_EQ_INT(KC_DOUBLE, 4);

  KC_CHECK_EQ_INT(KC_POLICY_RANGE, 1);
  KC_CHECK_EQ_INT(KC_POLICY_MDRANGE, 2);
  KC_CHECK_EQ_INT(KC_POLICY_TEAM, 3);
  KC_CHECK_EQ_INT(KC_SCHEDULE_STATIC, 0);
  KC_CHECK_EQ_INT(KC_SCHEDULE_DYNAMIC, 1);

  KC_CHECK_EQ_INT(KC_KERNEL_FOR, 1);
  KC_CHECK_EQ_INT(KC_KERNEL_REDUCE, 2);
  KC_CHECK_EQ_INT(KC_KERNEL_SCAN, 3);
  KC_CHECK_EQ_INT(KC_KERNEL_MDFOR, 4);
  KC_CHECK_EQ_INT(KC_KERNEL_MDREDUCE, 5);
  KC_CHECK_EQ_INT(KC_KERNEL_TEAM, 6);
  KC_CHECK_EQ_INT(KC_KERNEL_TEAM_REDUCE, 7);
  KC_CHECK_EQ_INT(KC_KERNEL_CALL, 8);

  /* Error codes are never renumbered. */
  KC_CHECK_EQ_INT(KC_EINVAL, -1);
  KC_CHECK_EQ_INT(KC_ENOMEM, -2);
  KC_CHECK_EQ_INT(KC_ENOINIT, -3);
  KC_CHECK_EQ_INT(KC_ENOBACKEND, -4);
  KC_CHECK_EQ_INT(KC_EPLUGIN, -5);
  KC_CHECK_EQ_INT(KC_EABI, -6);
  KC_CHECK_EQ_INT(KC_ENODEV, -7);
  KC_CHECK_EQ_INT(KC_ENOKERNEL, -8);
  KC_CHECK_EQ_INT(KC_EEXIST, -9);
  KC_CHECK_EQ_INT(KC_ENOTSUP, -10);
  KC_CHECK_EQ_INT(KC_EJIT, -11);
  KC_CHECK_EQ_INT(KC_ELAUNCH, -12);
  KC_CHECK_EQ_INT(KC_EDEVICE, -13);
  KC_CHECK_EQ_INT(KC_ENOTKC, -14);
  KC_CHECK_EQ_INT(KC_ERANGE, -15);
  KC_CHECK_EQ_INT(KC_ESTICKY, -16);
  KC_CHECK_EQ_INT(KC_ESIGNATURE, -17);
  KC_CHECK_EQ_INT(KC_ESCRATCH, -18);
  KC_CHECK_EQ_INT(KC_EINTERNAL, -19);
}

int main(void) {
#if defined(__x86_64__) && defined(__LP64__)
  lp64_x86 = 1;
#endif
  if (lp64_x86)
    test_layouts();
  else
    KC_INFO("not x86-64 LP64: byte offsets not checked (field order and "
            "constants are)");
  test_order();
  test_constants();
  return kc_test_done();
}
