/* libkc — the built-in reducers' host identity and join functions.
 *
 * Generated for each (op, type) pair from one macro per op, so the 24
 * built-ins cannot drift apart.  MINLOC/MAXLOC join by value and, on a tie,
 * keep the smaller index, which makes the result independent of the order
 * in which per-thread values are joined.
 */
#include <config.h>

#include <float.h>
#include <math.h>
#include <stdint.h>

#include "internal.h"

#define KC__SUM_ID(T, LO, HI) 0
#define KC__PROD_ID(T, LO, HI) 1
#define KC__MIN_ID(T, LO, HI) HI
#define KC__MAX_ID(T, LO, HI) LO

#define KC__DEF_SCALAR(op, T, LO, HI, JOIN)                                    \
  static void id_##op##_##T(void *v) { *(T *)v = KC__##op##_ID(T, LO, HI); }   \
  static void join_##op##_##T(void *d, const void *s) {                        \
    T *dst = (T *)d;                                                           \
    const T src = *(const T *)s;                                               \
    JOIN;                                                                      \
  }

/* MINLOC/MAXLOC: whether src replaces dst.  A NaN value comes after every
 * other (missing, as for MIN/MAX); equal values, NaNs among them, keep the
 * smaller index.  A total order, so any join order gives one answer. */
#define KC__LOC_WINS(src, dst, CMP, ISNAN)                                     \
  (ISNAN((dst)->val) ? !ISNAN((src)->val) || (src)->loc < (dst)->loc           \
                     : !ISNAN((src)->val) && ((src)->val CMP(dst)->val ||      \
                                              ((src)->val == (dst)->val &&     \
                                               (src)->loc < (dst)->loc)))

/* Integer SUM and PROD wrap (in the unsigned type UT: a signed overflow
 * would be undefined); MIN and MAX treat a NaN as missing, as fmin and
 * fmax do: a running value that is NaN gives way to any other (ISNAN is 0
 * for integers). */
#define KC__DEF_TYPE(T, UT, ISNAN, LT, LO, HI)                                 \
  KC__DEF_SCALAR(SUM, T, LO, HI, *dst = (T)((UT)*dst + (UT)src))               \
  KC__DEF_SCALAR(PROD, T, LO, HI, *dst = (T)((UT)*dst * (UT)src))              \
  KC__DEF_SCALAR(MIN, T, LO, HI, if (src < *dst || ISNAN(*dst)) *dst = src)    \
  KC__DEF_SCALAR(MAX, T, LO, HI, if (src > *dst || ISNAN(*dst)) *dst = src)    \
  static void id_MINLOC_##T(void *v) {                                         \
    LT *x = (LT *)v;                                                           \
    x->val = HI;                                                               \
    x->loc = INT64_MAX;                                                        \
  }                                                                            \
  static void id_MAXLOC_##T(void *v) {                                         \
    LT *x = (LT *)v;                                                           \
    x->val = LO;                                                               \
    x->loc = INT64_MAX;                                                        \
  }                                                                            \
  static void join_MINLOC_##T(void *d, const void *s) {                        \
    LT *dst = (LT *)d;                                                         \
    const LT *src = (const LT *)s;                                             \
    if (KC__LOC_WINS(src, dst, <, ISNAN))                                      \
      *dst = *src;                                                             \
  }                                                                            \
  static void join_MAXLOC_##T(void *d, const void *s) {                        \
    LT *dst = (LT *)d;                                                         \
    const LT *src = (const LT *)s;                                             \
    if (KC__LOC_WINS(src, dst, >, ISNAN))                                      \
      *dst = *src;                                                             \
  }

#define KC__NO_NAN(x) 0
KC__DEF_TYPE(int32_t, uint32_t, KC__NO_NAN, kc_loc_int32, INT32_MIN, INT32_MAX)
KC__DEF_TYPE(int64_t, uint64_t, KC__NO_NAN, kc_loc_int64, INT64_MIN, INT64_MAX)
KC__DEF_TYPE(float, float, isnan, kc_loc_float, -INFINITY, INFINITY)
KC__DEF_TYPE(double, double, isnan, kc_loc_double, -INFINITY, INFINITY)

typedef struct builtin {
  void (*identity)(void *);
  void (*join)(void *, const void *);
} builtin;

#define KC__ROW(T)                                                             \
  {                                                                            \
    {id_SUM_##T, join_SUM_##T}, {id_PROD_##T, join_PROD_##T},                  \
        {id_MIN_##T, join_MIN_##T}, {id_MAX_##T, join_MAX_##T},                \
        {id_MINLOC_##T, join_MINLOC_##T}, {                                    \
      id_MAXLOC_##T, join_MAXLOC_##T                                           \
    }                                                                          \
  }

/* [type - KC_INT32][op - KC_REDUCE_SUM] */
static const builtin builtins[4][6] = {KC__ROW(int32_t), KC__ROW(int64_t),
                                       KC__ROW(float), KC__ROW(double)};

static size_t scalar_size(kc_scalar t) {
  switch (t) {
  case KC_INT32:
    return sizeof(int32_t);
  case KC_INT64:
    return sizeof(int64_t);
  case KC_FLOAT:
    return sizeof(float);
  case KC_DOUBLE:
    return sizeof(double);
  }
  return 0;
}

static size_t loc_size(kc_scalar t) {
  switch (t) {
  case KC_INT32:
    return sizeof(kc_loc_int32);
  case KC_INT64:
    return sizeof(kc_loc_int64);
  case KC_FLOAT:
    return sizeof(kc_loc_float);
  case KC_DOUBLE:
    return sizeof(kc_loc_double);
  }
  return 0;
}

size_t kc_reducer_value_size(const kc_reducer *r) {
  if (!r)
    return 0;
  switch (r->op) {
  case KC_REDUCE_SUM:
  case KC_REDUCE_PROD:
  case KC_REDUCE_MIN:
  case KC_REDUCE_MAX:
    return scalar_size(r->type);
  case KC_REDUCE_MINLOC:
  case KC_REDUCE_MAXLOC:
    return loc_size(r->type);
  case KC_REDUCE_CUSTOM:
    return (r->identity && r->join && r->size <= KC_REDUCER_SIZE_MAX) ? r->size
                                                                      : 0;
  default:
    return 0;
  }
}

size_t kc__reducer_complete(kc_reducer *r, const char *kernel) {
  size_t size = kc_reducer_value_size(r);
  if (size == 0) {
    if (r->op == KC_REDUCE_NONE)
      kc__error(KC_EINVAL, "kernel '%s': a reducing kernel needs a reducer",
                kernel);
    else if (r->op == KC_REDUCE_CUSTOM && r->size > KC_REDUCER_SIZE_MAX)
      kc__error(KC_EINVAL,
                "kernel '%s': a custom reducer of %zu bytes; values are "
                "limited to KC_REDUCER_SIZE_MAX (%d) bytes",
                kernel, r->size, KC_REDUCER_SIZE_MAX);
    else if (r->op == KC_REDUCE_CUSTOM)
      kc__error(KC_EINVAL,
                "kernel '%s': a custom reducer needs size > 0, identity and "
                "join",
                kernel);
    else if (r->op > KC_REDUCE_CUSTOM || (int)r->op < 0)
      kc__error(KC_EINVAL, "kernel '%s': %d is not a reduction op", kernel,
                (int)r->op);
    else
      kc__error(KC_EINVAL, "kernel '%s': %d is not a scalar type", kernel,
                (int)r->type);
    return 0;
  }
  if (r->op != KC_REDUCE_CUSTOM) {
    const builtin *b = &builtins[r->type - KC_INT32][r->op - KC_REDUCE_SUM];
    r->identity = b->identity;
    r->join = b->join;
    r->size = size;
  }
  return size;
}
