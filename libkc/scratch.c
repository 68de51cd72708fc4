/* libkc — team scratch requests: the functor's scratch function attached
 * to a kernel, and the one rule every backend uses to size and lay out a
 * team's scratch (kc_launch_scratch, <kc/backend.h>). */
#include <config.h>

#include <stdint.h>

#include "internal.h"

int kc_kernel_set_team_scratch(kc_kernel *k, kc_team_scratch_fn fn) {
  if (!k || k->magic != KC__KERNEL_MAGIC)
    return kc__error(KC_EINVAL,
                     "kc_kernel_set_team_scratch: %p is not a kc kernel "
                     "handle",
                     (void *)k);
  if (kc__kind_policy(k->info.kind) != KC_POLICY_TEAM)
    return kc__error(KC_EINVAL,
                     "kc_kernel_set_team_scratch: kernel '%s' is not a team "
                     "kernel",
                     k->info.name);
  atomic_store_explicit(&k->team_scratch, fn, memory_order_release);
  return 0;
}

static int add(size_t a, size_t b, size_t *out) {
  return __builtin_add_overflow(a, b, out);
}

static int align_up(size_t a, size_t *out) {
  if (add(a, KC_SCRATCH_ALIGN - 1, out))
    return 1;
  *out &= ~(size_t)(KC_SCRATCH_ALIGN - 1);
  return 0;
}

int kc_launch_scratch(const kc_launch *l, int level, int team_size,
                      size_t *team_part, size_t *thread_stride, size_t *total) {
  if (!l || !l->kernel)
    return kc__error(KC_EINVAL, "kc_launch_scratch: launch is NULL");
  const kc_kernel_info *ki = l->kernel;
  if (kc__kind_policy(ki->kind) != KC_POLICY_TEAM)
    return kc__error(KC_EINVAL,
                     "kc_launch_scratch: kernel '%s' is not a team kernel",
                     ki->name);
  if (level < 0 || level > 1 || team_size < 1)
    return kc__error(KC_EINVAL,
                     "kc_launch_scratch: level %d / team size %d (kernel "
                     "'%s'); levels are 0 and 1, team sizes positive",
                     level, team_size, ki->name);
  size_t tp = l->policy.scratch_per_team[level];
  const kc_kernel *k = kc__kernel_of(ki);
  kc_team_scratch_fn fn =
      k ? atomic_load_explicit(&((kc_kernel *)k)->team_scratch,
                               memory_order_acquire)
        : NULL;
  size_t tpa, st, tot, from_fn = 0;
  if ((fn && add(tp, from_fn = fn(l->functor, level, team_size), &tp)) ||
      align_up(tp, &tpa) ||
      align_up(l->policy.scratch_per_thread[level], &st) ||
      __builtin_mul_overflow(st, (size_t)team_size, &tot) ||
      add(tot, tpa, &tot))
    return kc__error(KC_ESCRATCH,
                     "kernel '%s': the level-%d scratch request (%zu per "
                     "team, %zu per thread, teams of %d; %zu more per team "
                     "from its scratch function) does not fit in size_t",
                     ki->name, level, l->policy.scratch_per_team[level],
                     l->policy.scratch_per_thread[level], team_size, from_fn);
  if (team_part)
    *team_part = tp;
  if (thread_stride)
    *thread_stride = st;
  if (total)
    *total = tot;
  return 0;
}
