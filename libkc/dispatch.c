/* libkc — launches: validation, normalisation, and the call into the
 * backend.
 *
 * Everything a backend may assume about a kc_launch is established here,
 * once, so that plugins (and the host engine) do not re-check it.  This is
 * the per-launch path: it allocates nothing and takes one lock (kc__rt.lock,
 * which serialises launches into the backend), plus the memory table's for
 * a reduction whose result might be a kc allocation.
 */
#include <config.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

typedef enum call { CALL_FOR, CALL_REDUCE, CALL_SCAN, CALL_CALL } call;

static const char *const call_fn[] = {"kc_parallel_for", "kc_parallel_reduce",
                                      "kc_parallel_scan", "kc_parallel_call"};

static const char *policy_name(kc_policy_kind k) {
  switch (k) {
  case KC_POLICY_RANGE:
    return "RANGE";
  case KC_POLICY_MDRANGE:
    return "MDRANGE";
  case KC_POLICY_TEAM:
    return "TEAM";
  }
  return "unknown";
}

/* Which launch call runs a kernel kind. */
static call call_of(kc_kernel_kind k) {
#define KC__X(K, n, p, v, c) k == KC_KERNEL_##K ? CALL_##c:
  return KC_KERNEL_KIND_MAP(KC__X) CALL_FOR;
#undef KC__X
}

_Static_assert(offsetof(kc_launch, policy) == 3 * sizeof(void *) &&
                   offsetof(kc_launch, functor) ==
                       offsetof(kc_launch, policy) + sizeof(kc_launch_policy),
               "validate() sets label, kernel and kernel_state, copies the "
               "policy and zeroes the fields after it");

/* Checks a launch and fills *l; the detail names the call and kernel. */
static int validate(call c, kc_kernel *k, const kc_policy *p,
                    const void *functor, size_t functor_size, kc_launch *l) {
  const char *fn = call_fn[c];
  /* Every field is set here: the policy is copied over, the rest zeroed
   * (a memset of the whole struct as well cost 40 instructions). */
  l->kernel_state = NULL;
  memset(&l->functor, 0, sizeof *l - offsetof(kc_launch, functor));
  if (!k)
    return kc__error(KC_EINVAL, "%s: kernel is NULL", fn);
  if (k->magic != KC__KERNEL_MAGIC)
    return kc__error(KC_EINVAL, "%s: %p is not a kc kernel handle", fn,
                     (void *)k);
  const kc_kernel_info *ki = &k->info;
  if (!p)
    return kc__error(KC_EINVAL, "%s: policy is NULL (kernel '%s')", fn,
                     ki->name);
  if (!functor && functor_size > 0)
    return kc__error(KC_EINVAL,
                     "%s: functor is NULL but functor_size is %zu (kernel "
                     "'%s')",
                     fn, functor_size, ki->name);
  if (functor_size > (size_t)PTRDIFF_MAX)
    return kc__error(KC_EINVAL,
                     "%s: functor_size %zu is larger than any object can be "
                     "(kernel '%s')",
                     fn, functor_size, ki->name);
  /* Sizes agree in every correct launch: one compare on that path. */
  if (kc__unlikely(functor_size != k->functor_size) && k->functor_size &&
      functor_size)
    return kc__error(KC_EINVAL,
                     "%s: functor_size is %zu but kernel '%s' takes a %zu-byte "
                     "functor (pass sizeof its functor struct)",
                     fn, functor_size, ki->name, k->functor_size);
  if (call_of(ki->kind) != c)
    return kc__error(
        KC_EINVAL, "%s: kernel '%s' is a %s kernel; launch it with %s", fn,
        ki->name, kc__kind_name(ki->kind), call_fn[call_of(ki->kind)]);
  kc_policy_kind want = kc__kind_policy(ki->kind);
  if (p->kind != want)
    return kc__error(KC_EINVAL,
                     "%s: kernel '%s' is a %s kernel and needs a %s policy, "
                     "not %s",
                     fn, ki->name, kc__kind_name(ki->kind), policy_name(want),
                     policy_name(p->kind));
  if (p->schedule != KC_SCHEDULE_STATIC && p->schedule != KC_SCHEDULE_DYNAMIC)
    return kc__error(KC_EINVAL, "%s: %d is not a schedule (kernel '%s')", fn,
                     (int)p->schedule, ki->name);
  if (p->chunk == 0 || (p->chunk < 0 && p->chunk != KC_AUTO))
    return kc__error(KC_EINVAL,
                     "%s: chunk size %lld is not valid (kernel '%s'); use a "
                     "positive size or KC_AUTO",
                     fn, (long long)p->chunk, ki->name);

  /* kc_launch_policy is kc_policy's 1.0 prefix (tests/t-abi.c). */
  memcpy(&l->policy, p, sizeof l->policy);
  kc_index span = 1; /* indices (points) of the space: must fit kc_index */
  switch (want) {
  case KC_POLICY_RANGE:
    if (p->end[0] < p->begin[0])
      return kc__error(KC_ERANGE, "%s: end %lld < begin %lld (kernel '%s')", fn,
                       (long long)p->end[0], (long long)p->begin[0], ki->name);
    if (__builtin_sub_overflow(p->end[0], p->begin[0], &span))
      return kc__error(KC_ERANGE,
                       "%s: [%lld, %lld) has more than INT64_MAX indices "
                       "(kernel '%s')",
                       fn, (long long)p->begin[0], (long long)p->end[0],
                       ki->name);
    l->policy.rank = 1;
    break;
  case KC_POLICY_MDRANGE:
    if (p->rank != ki->rank)
      return kc__error(
          KC_EINVAL, "%s: kernel '%s' has rank %d but the policy has rank %d%s",
          fn, ki->name, ki->rank, p->rank,
          p->rank < 1 || p->rank > KC_MAX_RANK
              ? " (kc_mdrange takes a rank from 1 to KC_MAX_RANK; Fortran's "
                "kc_mdrange(b, e [, tile]) gives rank 0 when its arrays' "
                "sizes differ or exceed KC_MAX_RANK)"
              : "");
    int empty = 0, over = 0, over_d = 0;
    for (int d = 0; d < p->rank; d++) {
      if (p->end[d] < p->begin[d])
        return kc__error(KC_ERANGE,
                         "%s: end %lld < begin %lld in dimension %d (kernel "
                         "'%s')",
                         fn, (long long)p->end[d], (long long)p->begin[d], d,
                         ki->name);
      if (p->tile[d] < 0)
        return kc__error(KC_EINVAL,
                         "%s: tile %lld in dimension %d is negative (kernel "
                         "'%s')",
                         fn, (long long)p->tile[d], d, ki->name);
      kc_index ext;
      if (__builtin_sub_overflow(p->end[d], p->begin[d], &ext))
        return kc__error(KC_ERANGE,
                         "%s: dimension %d, [%lld, %lld), has more than "
                         "INT64_MAX indices (kernel '%s')",
                         fn, d, (long long)p->begin[d], (long long)p->end[d],
                         ki->name);
      /* An empty dimension empties the box: the product of the others may
       * overflow and does not count. */
      if (ext == 0)
        empty = 1;
      else if (!over && __builtin_mul_overflow(span, ext, &span)) {
        over = 1;
        over_d = d;
      }
    }
    if (over && !empty)
      return kc__error(KC_ERANGE,
                       "%s: the box has more than INT64_MAX points "
                       "(dimension %d is [%lld, %lld); kernel '%s')",
                       fn, over_d, (long long)p->begin[over_d],
                       (long long)p->end[over_d], ki->name);
    if (p->iterate != KC_ITERATE_RIGHT && p->iterate != KC_ITERATE_LEFT)
      return kc__error(KC_EINVAL,
                       "%s: %d is not an iteration order (kernel '%s'); use "
                       "KC_ITERATE_RIGHT or KC_ITERATE_LEFT",
                       fn, p->iterate, ki->name);
    l->iterate = p->iterate;
    break;
  case KC_POLICY_TEAM:
    if (p->league_size < 0)
      return kc__error(KC_ERANGE,
                       "%s: league size %lld is negative (kernel "
                       "'%s')",
                       fn, (long long)p->league_size, ki->name);
    if (p->team_size == 0 || (p->team_size < 0 && p->team_size != KC_AUTO))
      return kc__error(KC_EINVAL,
                       "%s: team size %d is not valid (kernel '%s'); use a "
                       "positive size or KC_AUTO",
                       fn, p->team_size, ki->name);
    if (p->vector_length < 1)
      return kc__error(KC_EINVAL,
                       "%s: vector length %d is not valid (kernel '%s')", fn,
                       p->vector_length, ki->name);
    l->policy.rank = 1;
    l->policy.begin[0] = 0;
    l->policy.end[0] = p->league_size;
    break;
  }
  /* A kernel registered with its functor's size (kcc's macros) reads its
   * functor through the pointer: without one it would read through NULL.
   * Checked last, so that a bad policy is named first. */
  if (kc__unlikely(!functor_size) && k->functor_size)
    return kc__error(KC_EINVAL,
                     "%s: kernel '%s' takes a %zu-byte functor; none was "
                     "given (functor_size 0)",
                     fn, ki->name, k->functor_size);
  l->label = ki->name;
  l->kernel = ki;
  l->functor = functor;
  l->functor_size = functor_size;
  return 0;
}

/* The kernel's backend state and one-time preparation; rt.lock held. */
static int prepare(kc_kernel *k) {
  const kc_backend_ops *ops = kc__rt.ops;
  if (ops->kernel_state_size && !k->state) {
    k->state = kc__zalloc64(ops->kernel_state_size);
    if (!k->state)
      return kc__error(KC_ENOMEM,
                       "kernel '%s': cannot allocate %zu bytes of backend "
                       "state",
                       k->info.name, ops->kernel_state_size);
  }
  if (KC__OPS_HAS(ops, kernel_prepare)) {
    int rc = KC__SLOT(ops->kernel_prepare(kc__rt.state, &k->info, k->state));
    if (rc < 0) {
      /* Retried at the next launch, from zeroed state again. */
      if (k->state)
        memset(k->state, 0, ops->kernel_state_size);
      return rc;
    }
  }
  k->prepared = 1;
  return 0;
}

/* The launch proper, between kc__enter and kc__leave: the runtime stays up
 * until it returns, so nothing is re-checked after a lock.  `q` is the
 * policy's queue, only for the tools (the backend has l->queue). */
static int launch_entered(call c, kc_kernel *k, kc_launch *l,
                          const kc_queue *q) {
  static const kc__tools_parallel what[] = {KC__TOOLS_FOR, KC__TOOLS_REDUCE,
                                            KC__TOOLS_SCAN, KC__TOOLS_FOR};
  uint64_t kid = 0;
  int rc = 0;
  pthread_mutex_lock(&kc__rt.lock);
  if (kc__unlikely(!k->prepared))
    rc = prepare(k);
  if (kc__unlikely(kc__tools_active)) {
    /* The tool hooks run with no kc lock held: a tool may fence from them
     * (Kokkos' global fencing), and kc_fence takes kc__rt.lock.  The
     * kernel was prepared first, so a tool times the launch and not the
     * one-time module load and JIT. */
    pthread_mutex_unlock(&kc__rt.lock);
    if (rc < 0)
      return rc;
    kc__tools_begin_parallel(what[c], l->label, kc__queue_tools_id(q), &kid);
    pthread_mutex_lock(&kc__rt.lock);
    l->kernel_state = k->state;
    rc = KC__SLOT(kc__rt.ops->launch(kc__rt.state, l));
    if (kc__unlikely(
            atomic_load_explicit(&kc__chunk_oom, memory_order_relaxed)))
      rc = kc__chunk_failed(k->info.name);
    pthread_mutex_unlock(&kc__rt.lock);
    kc__tools_end_parallel(what[c], kid);
    return rc;
  }
  if (kc__likely(rc == 0)) {
    l->kernel_state = k->state;
    rc = KC__SLOT(kc__rt.ops->launch(kc__rt.state, l));
    /* Read under the lock, after the launch's join: its own chunks. */
    if (kc__unlikely(
            atomic_load_explicit(&kc__chunk_oom, memory_order_relaxed)))
      rc = kc__chunk_failed(k->info.name);
  }
  pthread_mutex_unlock(&kc__rt.lock);
  return rc;
}

static int launch(call c, kc_kernel *k, kc_launch *l, const kc_queue *q) {
  int rc = kc__enter(call_fn[c]);
  if (kc__unlikely(rc < 0))
    return rc;
  /* The queue inside kc__enter: the last kc_finalize releases queues once
   * no call is inside. */
  if (kc__unlikely(q != NULL))
    rc = kc__queue_launch(q, call_fn[c], &l->queue);
  if (rc == 0)
    rc = launch_entered(c, k, l, q);
  kc__leave();
  return rc;
}

/* A result in a kc allocation is asynchronous; anything else is a host
 * variable the launch must have written when it returns.  An allocation
 * must hold the whole value from `result` on. */
static int result_target(call c, kc_launch *l, void *result) {
  l->result = result;
  l->result_space = KC_SPACE_HOST;
  l->result_async = 0;
  size_t room = 0;
  char label[64];
  if (result &&
      kc__memory_room(result, &l->result_space, &room, label, sizeof label)) {
    l->result_async = 1;
    if (room < l->kernel->value_size)
      return kc__error(KC_EINVAL,
                       "%s: the result %p is %zu byte(s) before the end of "
                       "the kc allocation '%s', but kernel '%s' stores a "
                       "%zu-byte value",
                       call_fn[c], result, room, label, l->kernel->name,
                       l->kernel->value_size);
  }
  return 0;
}

int kc_parallel_for(const char *label, kc_kernel *kernel,
                    const kc_policy *policy, const void *functor,
                    size_t functor_size) {
  KC__CHECK_INIT("kc_parallel_for");
  kc_launch l;
  int rc = validate(CALL_FOR, kernel, policy, functor, functor_size, &l);
  if (rc < 0)
    return rc;
  if (label && *label)
    l.label = label;
  return launch(CALL_FOR, kernel, &l, policy->queue);
}

int kc_parallel_reduce(const char *label, kc_kernel *kernel,
                       const kc_policy *policy, const void *functor,
                       size_t functor_size, void *result) {
  KC__CHECK_INIT("kc_parallel_reduce");
  kc_launch l;
  int rc = validate(CALL_REDUCE, kernel, policy, functor, functor_size, &l);
  if (rc < 0)
    return rc;
  if (!result)
    return kc__error(KC_EINVAL,
                     "kc_parallel_reduce: result is NULL (kernel "
                     "'%s')",
                     kernel->info.name);
  if (label && *label)
    l.label = label;
  if ((rc = result_target(CALL_REDUCE, &l, result)) < 0)
    return rc;
  return launch(CALL_REDUCE, kernel, &l, policy->queue);
}

int kc_parallel_scan(const char *label, kc_kernel *kernel,
                     const kc_policy *policy, const void *functor,
                     size_t functor_size, void *total) {
  KC__CHECK_INIT("kc_parallel_scan");
  kc_launch l;
  int rc = validate(CALL_SCAN, kernel, policy, functor, functor_size, &l);
  if (rc < 0)
    return rc;
  if (label && *label)
    l.label = label;
  if ((rc = result_target(CALL_SCAN, &l, total)) < 0)
    return rc;
  return launch(CALL_SCAN, kernel, &l, policy->queue);
}

int kc_parallel_call(const char *label, kc_kernel *kernel,
                     const kc_policy *policy, int nargs, void *const *args) {
  KC__CHECK_INIT("kc_parallel_call");
  kc_launch l;
  int rc = validate(CALL_CALL, kernel, policy, NULL, 0, &l);
  if (rc < 0)
    return rc;
  if (nargs != kernel->info.nargs)
    return kc__error(KC_ESIGNATURE,
                     "kc_parallel_call: kernel '%s' takes %d argument(s) "
                     "(signature \"%s\") but %d were passed",
                     kernel->info.name, kernel->info.nargs,
                     kernel->info.signature, nargs);
  if (nargs > 0 && !args)
    return kc__error(KC_EINVAL,
                     "kc_parallel_call: args is NULL with %d "
                     "argument(s) (kernel '%s')",
                     nargs, kernel->info.name);
  for (int i = 0; i < nargs; i++)
    if (!args[i])
      return kc__error(KC_EINVAL,
                       "kc_parallel_call: args[%d] is NULL (kernel '%s')", i,
                       kernel->info.name);
  if (label && *label)
    l.label = label;
  l.nargs = nargs;
  l.args = args;
  return launch(CALL_CALL, kernel, &l, policy->queue);
}
