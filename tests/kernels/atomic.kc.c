/* Atomic conformance kernels (t-atomic.c): every operation on every type,
 * many indices hitting few cells at once. */
#include <kc/kernel.h>

#include "model.h"

/* Histograms: add to bin i % bins (typed names). */
KC_FOR(kt_atomic_add, kt_atomic, f, i, {
  const int64_t b = i % f->bins;
  kc_atomic_add_i32(&f->hi32[b], 1);
  kc_atomic_add_i64(&f->hi64[b], 2);
  kc_atomic_add_u32(&f->hu32[b], 3u);
  kc_atomic_add_u64(&f->hu64[b], 4u);
  kc_atomic_add_f32(&f->hf32[b], 0.5f);
  kc_atomic_add_f64(&f->hf64[b], 0.25);
})

/* Subtract (type-generic names), through the fetch form for half the
 * indices. */
KC_FOR(kt_atomic_sub, kt_atomic, f, i, {
  const int64_t b = i % f->bins;
  if (i % 2) {
    kc_atomic_sub(&f->hi32[b], (int32_t)1);
    kc_atomic_sub(&f->hi64[b], (int64_t)1);
    kc_atomic_sub(&f->hu32[b], (uint32_t)1);
    kc_atomic_sub(&f->hu64[b], (uint64_t)1);
    kc_atomic_sub(&f->hf32[b], 0.125f);
    kc_atomic_sub(&f->hf64[b], 0.125);
  } else {
    (void)kc_atomic_fetch_sub(&f->hi32[b], (int32_t)1);
    (void)kc_atomic_fetch_sub(&f->hi64[b], (int64_t)1);
    (void)kc_atomic_fetch_sub(&f->hu32[b], (uint32_t)1);
    (void)kc_atomic_fetch_sub(&f->hu64[b], (uint64_t)1);
    (void)kc_atomic_fetch_sub(&f->hf32[b], 0.125f);
    (void)kc_atomic_fetch_sub(&f->hf64[b], 0.125);
  }
})

/* Tickets: fetch_add hands out every number once; fetch_sub too (from the
 * top). */
KC_FOR(kt_atomic_tickets, kt_atomic, f, i, {
  f->tickets[i] = kc_atomic_fetch_add_i64(&f->counter[0], 1);
  const int64_t down = kc_atomic_fetch_sub_i64(&f->counter[1], 1);
  kc_atomic_add_i64(&f->counter[2], down); /* sum of what fetch_sub saw */
})

/* Min and max of v(i) = i * 7919 % 1000003 over every type, plain and
 * fetch forms. */
KC_FOR(kt_atomic_minmax, kt_atomic, f, i, {
  const int64_t v = i * 7919 % 1000003;
  const kc_memory_order o = (kc_memory_order)(i % 5);
  if (i % 3 == 1) {
    (void)kc_atomic_fetch_min_explicit(&f->mins[0], v, o);
    (void)kc_atomic_fetch_max_explicit(&f->mins[1], v, o);
    (void)kc_atomic_fetch_min_explicit_f64(&f->fmins[0], (double)v, o);
    (void)kc_atomic_fetch_max_explicit_f64(&f->fmins[1], (double)v, o);
    (void)kc_atomic_fetch_min_explicit(&f->umins[0], (uint32_t)v, o);
    (void)kc_atomic_fetch_max_explicit(&f->umins[1], (uint32_t)v, o);
  } else if (i % 3 == 0) {
    kc_atomic_min_i64(&f->mins[0], v);
    kc_atomic_max_i64(&f->mins[1], v);
    kc_atomic_min_f64(&f->fmins[0], (double)v);
    kc_atomic_max_f64(&f->fmins[1], (double)v);
    kc_atomic_min_u32(&f->umins[0], (uint32_t)v);
    kc_atomic_max_u32(&f->umins[1], (uint32_t)v);
  } else {
    (void)kc_atomic_fetch_min(&f->mins[0], v);
    (void)kc_atomic_fetch_max(&f->mins[1], v);
    (void)kc_atomic_fetch_min(&f->fmins[0], (double)v);
    (void)kc_atomic_fetch_max(&f->fmins[1], (double)v);
    (void)kc_atomic_fetch_min(&f->umins[0], (uint32_t)v);
    (void)kc_atomic_fetch_max(&f->umins[1], (uint32_t)v);
  }
  if (i % 2) {
    (void)kc_atomic_fetch_min_explicit(&f->f32mins[0], (float)v, o);
    (void)kc_atomic_fetch_max_explicit(&f->f32mins[1], (float)v, o);
    (void)kc_atomic_fetch_min_explicit_i32(&f->i32mins[0], (int32_t)v - 500000,
                                           o);
    (void)kc_atomic_fetch_max_explicit_i32(&f->i32mins[1], (int32_t)v - 500000,
                                           o);
    (void)kc_atomic_fetch_min_explicit(&f->u64mins[0], (uint64_t)v << 20, o);
    (void)kc_atomic_fetch_max_explicit(&f->u64mins[1], (uint64_t)v << 20, o);
  } else {
    kc_atomic_min_f32(&f->f32mins[0], (float)v);
    kc_atomic_max_f32(&f->f32mins[1], (float)v);
    kc_atomic_min_i32(&f->i32mins[0], (int32_t)v - 500000);
    kc_atomic_max_i32(&f->i32mins[1], (int32_t)v - 500000);
    kc_atomic_min_u64(&f->u64mins[0], (uint64_t)v << 20);
    kc_atomic_max_u64(&f->u64mins[1], (uint64_t)v << 20);
  }
})

/* Exchange: every index swaps i + 1 into one cell and keeps what it got
 * (odd indices with an order, i % 5). */
KC_FOR(kt_atomic_xchg, kt_atomic, f, i,
       f->xold[i] = i % 2
                        ? kc_atomic_exchange_explicit(f->xchg, i + 1,
                                                      (kc_memory_order)(i % 5))
                        : kc_atomic_exchange_i64(f->xchg, i + 1))

/* Compare-exchange loops adding 1 to bin i % bins of every type (the
 * float bins hold integers here, so bitwise equality is value equality). */
#define KT_CAS_ADD(s, T, p)                                                    \
  do {                                                                         \
    T kt_old = kc_atomic_load_##s(p);                                          \
    for (;;) {                                                                 \
      T kt_was = kc_atomic_compare_exchange_##s(p, kt_old, (T)(kt_old + 1));   \
      if (kt_was == kt_old)                                                    \
        break;                                                                 \
      kt_old = kt_was;                                                         \
    }                                                                          \
  } while (0)
KC_FOR(kt_atomic_cas, kt_atomic, f, i, {
  const int64_t b = i % f->bins;
  KT_CAS_ADD(i32, int32_t, &f->hi32[b]);
  KT_CAS_ADD(i64, int64_t, &f->hi64[b]);
  KT_CAS_ADD(u32, uint32_t, &f->hu32[b]);
  KT_CAS_ADD(u64, uint64_t, &f->hu64[b]);
  KT_CAS_ADD(f32, float, &f->hf32[b]);
  KT_CAS_ADD(f64, double, &f->hf64[b]);
})

/* Stores and loads: index i stores into cell i % bins of the i64 bins the
 * value bins * k + b for some k, so every final value is congruent to its
 * bin. */
KC_FOR(kt_atomic_store, kt_atomic, f, i, {
  const int64_t b = i % f->bins;
  const kc_memory_order o = (kc_memory_order)(i % 5);
  if (i % 2) {
    kc_atomic_store_explicit_i64(&f->hi64[b], i, o);
    kc_atomic_store_explicit(&f->hf64[b], (double)i, o);
    (void)kc_atomic_load_explicit(&f->hi64[b], o);
  } else {
    kc_atomic_store_i64(&f->hi64[b], i);
    kc_atomic_store(&f->hf64[b], (double)i);
    (void)kc_atomic_load(&f->hi64[b]);
  }
})

/* Every ordered read-modify-write on every type, the order chosen by
 * i % 5 (relaxed ... seq_cst): the bins must come out as kt_atomic_add's
 * (1, 2, 3, 4, 0.5, 0.25 per index), through compare-exchange loops on
 * ordered loads for i32, u64 and f64. */
#define KT_CAS_ADD_EXPLICIT(s, T, p, v, o)                                     \
  do {                                                                         \
    T kt_old = kc_atomic_load_explicit_##s(p, o);                              \
    for (;;) {                                                                 \
      T kt_was =                                                               \
          kc_atomic_compare_exchange_explicit_##s(p, kt_old, kt_old + (v), o); \
      if (kt_was == kt_old)                                                    \
        break;                                                                 \
      kt_old = kt_was;                                                         \
    }                                                                          \
  } while (0)
KC_FOR(kt_atomic_ordered, kt_atomic, f, i, {
  const int64_t b = i % f->bins;
  const kc_memory_order o = (kc_memory_order)(i % 5);
  KT_CAS_ADD_EXPLICIT(i32, int32_t, &f->hi32[b], 1, o);
  (void)kc_atomic_fetch_add_explicit_i64(&f->hi64[b], 2, o);
  (void)kc_atomic_fetch_add_explicit(&f->hu32[b], (uint32_t)4, o);
  (void)kc_atomic_fetch_sub_explicit(&f->hu32[b], (uint32_t)1, o);
  KT_CAS_ADD_EXPLICIT(u64, uint64_t, &f->hu64[b], 4u, o);
  (void)kc_atomic_fetch_add_explicit_f32(&f->hf32[b], 0.75f, o);
  (void)kc_atomic_fetch_sub_explicit(&f->hf32[b], 0.25f, o);
  KT_CAS_ADD_EXPLICIT(f64, double, &f->hf64[b], 0.25, o);
})
