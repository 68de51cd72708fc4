/* Memory-order kernels (t-atomic-order.c): plain data handed from one
 * index to another through a flag, which only the flag's ordering makes
 * correct.  Every wait is bounded (f->spin polls), so a missing producer
 * shows as a count in err[1], never as a hang. */
#include <kc/kernel.h>

#include "model.h"

#ifdef __CUDACC__
#define KT_HD static __host__ __device__ inline
#else
#define KT_HD static inline
#endif

/* The order of the flag accesses themselves in each mode. */
KT_HD kc_memory_order kt_flag_order(int32_t mode, int release) {
  switch (mode) {
  case KT_ORDER_ACQREL:
  case KT_ORDER_RMW:
    return release ? KC_MEMORY_ORDER_RELEASE : KC_MEMORY_ORDER_ACQUIRE;
  case KT_ORDER_SEQCST:
    return KC_MEMORY_ORDER_SEQ_CST;
  default:
    return KC_MEMORY_ORDER_RELAXED;
  }
}

/* Waits until *p >= want: 1 when it got there, 0 when it gave up. */
KT_HD int kt_wait(const kt_order *f, int64_t *p, int64_t want) {
  const kc_memory_order o = kt_flag_order(f->mode, 0);
  for (int64_t n = 0; n < f->spin; n++) {
    const int64_t v =
        f->mode == KT_ORDER_RMW
            ? kc_atomic_compare_exchange_explicit_i64(p, want, want, o)
            : kc_atomic_load_explicit_i64(p, o);
    if (v >= want) {
#if !KT_TSAN
      if (f->mode == KT_ORDER_FENCE)
        kc_atomic_thread_fence(KC_MEMORY_ORDER_ACQUIRE);
      else if (f->mode == KT_ORDER_SCFENCE)
        kc_memory_fence();
#endif
      return 1;
    }
  }
  return 0;
}

/* Publishes: *p = v (add == 0) or *p += 1 (add != 0). */
KT_HD void kt_publish(const kt_order *f, int64_t *p, int64_t v, int add) {
  const kc_memory_order o = kt_flag_order(f->mode, 1);
#if !KT_TSAN
  if (f->mode == KT_ORDER_FENCE)
    kc_atomic_thread_fence(KC_MEMORY_ORDER_RELEASE);
  else if (f->mode == KT_ORDER_SCFENCE)
    kc_memory_fence();
#endif
  if (add)
    (void)kc_atomic_fetch_add_explicit_i64(
        p, 1, f->mode == KT_ORDER_RMW ? KC_MEMORY_ORDER_ACQ_REL : o);
  else if (f->mode == KT_ORDER_RMW)
    (void)kc_atomic_exchange_explicit_i64(p, v, o);
  else
    kc_atomic_store_explicit_i64(p, v, o);
}

/* Message passing, f->rounds times: the producer waits until the last
 * message was read, writes the next one (plain stores), publishes its
 * round number; the consumer waits for it, checks every word, and says
 * it has read it. */
KC_FOR(kt_order_mp, kt_order, f, i, {
  if (i == f->producer) {
    for (int64_t r = 1; r <= f->rounds; r++) {
      if (!kt_wait(f, &f->flag[1], r - 1)) {
        kc_atomic_add_i64(&f->err[1], 1);
        break;
      }
      for (int64_t w = 0; w < f->words; w++)
        f->data[w] = r * f->words + w;
      kt_publish(f, &f->flag[0], r, 0);
    }
  } else if (i == f->consumer) {
    int64_t bad = 0;
    for (int64_t r = 1; r <= f->rounds; r++) {
      if (!kt_wait(f, &f->flag[0], r)) {
        kc_atomic_add_i64(&f->err[1], 1);
        break;
      }
      for (int64_t w = 0; w < f->words; w++)
        bad += f->data[w] != r * f->words + w;
      kt_publish(f, &f->flag[1], r, 0);
    }
    if (bad)
      kc_atomic_add_i64(&f->err[0], bad);
  }
})

/* A wavefront: index i is element i % width of stage i / width.  Stage s
 * waits until all of stage s - 1 has published (its counter reaches
 * width), reads two of its elements (written by other indices), and
 * writes s + 1.  Every index waits only for lower indices. */
KC_FOR(kt_order_wave, kt_order, f, i, {
  const int64_t w = f->width, s = i / w, j = i % w;
  if (s > 0) {
    const int64_t *prev = f->data + (s - 1) * w;
    if (!kt_wait(f, &f->flag[s - 1], w))
      kc_atomic_add_i64(&f->err[1], 1);
    else if (prev[(j + 1) % w] != s || prev[(j + w / 2) % w] != s)
      kc_atomic_add_i64(&f->err[0], 1);
  }
  f->data[i] = s + 1;
  kt_publish(f, &f->flag[s], 0, 1);
})
