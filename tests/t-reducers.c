/* The built-in reducers' host joins (libkc/reducer.c), called directly
 * through kc_kernel_describe (an outside review of numerical semantics,
 * 2026-11-27):
 *  - integer SUM and PROD wrap; before, the join overflowed a signed type
 *    (undefined behaviour, reported by the UBSan build of CI);
 *  - MIN and MAX take a NaN for a missing value on either side, as fmin
 *    and fmax do; before, a NaN already in the running value stayed there
 *    (and the CUDA joins, which combine partial values in a tree, kept a
 *    NaN partial where the host dropped it);
 *  - MINLOC/MAXLOC order a NaN after every value, and NaNs by index, so
 *    the join is commutative: any join order gives one answer. */
#include <math.h>
#include <string.h>

#include "kc-test.h"

static void nothing(void) {}

/* The host join and identity kc filled in for op over type. */
static kc_reducer builtin(kc_reduce_op op, kc_scalar type) {
  static int serial;
  char name[64];
  snprintf(name, sizeof name, "t_reducers_%d_%d_%d", (int)op, (int)type,
           serial++);
  kc_kernel_desc d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.name = name;
  d.kind = KC_KERNEL_REDUCE;
  d.host = nothing;
  d.reducer.op = op;
  d.reducer.type = type;
  kc_kernel *k = NULL;
  KC_REQUIRE_OK(kc_kernel_register(&d, &k));
  kc_kernel_desc out;
  memset(&out, 0, sizeof out);
  out.struct_size = sizeof out;
  KC_REQUIRE_OK(kc_kernel_describe(k, &out));
  KC_REQUIRE(out.reducer.join != NULL && out.reducer.identity != NULL);
  return out.reducer;
}

static void wraps(void) {
  kc_reducer r = builtin(KC_REDUCE_SUM, KC_INT32);
  int32_t a = INT32_MAX, b = 1;
  r.join(&a, &b);
  KC_CHECK_EQ_INT(a, INT32_MIN);
  r = builtin(KC_REDUCE_SUM, KC_INT64);
  int64_t x = INT64_MIN, y = -1;
  r.join(&x, &y);
  KC_CHECK(x == INT64_MAX);
  r = builtin(KC_REDUCE_PROD, KC_INT64);
  x = INT64_MAX;
  y = 2;
  r.join(&x, &y);
  KC_CHECK_EQ_INT(x, -2);
  r = builtin(KC_REDUCE_PROD, KC_INT32);
  a = 65536;
  b = 65536;
  r.join(&a, &b);
  KC_CHECK_EQ_INT(a, 0);
}

static void nan_is_missing(void) {
  kc_reducer mn = builtin(KC_REDUCE_MIN, KC_DOUBLE);
  kc_reducer mx = builtin(KC_REDUCE_MAX, KC_FLOAT);
  double d = NAN, s = 1.0;
  mn.join(&d, &s);
  KC_CHECK_EQ_DBL(d, 1.0, 0);
  d = 1.0;
  s = NAN;
  mn.join(&d, &s);
  KC_CHECK_EQ_DBL(d, 1.0, 0);
  d = NAN;
  s = NAN;
  mn.join(&d, &s);
  KC_CHECK(isnan(d));
  float f = NAN, g = -3.0f;
  mx.join(&f, &g);
  KC_CHECK_EQ_DBL(f, -3.0, 0);
  f = -3.0f;
  g = NAN;
  mx.join(&f, &g);
  KC_CHECK_EQ_DBL(f, -3.0, 0);
}

/* Every pair of these, joined both ways, gives one answer. */
static void loc_total_order(void) {
  static const double vals[] = {NAN, 1.0, 1.0, -2.0, NAN, INFINITY};
  enum { NV = sizeof vals / sizeof vals[0] };
  for (int op = 0; op < 2; op++) {
    kc_reducer r = builtin(op ? KC_REDUCE_MAXLOC : KC_REDUCE_MINLOC, KC_DOUBLE);
    int bad = 0;
    for (int i = 0; i < NV; i++)
      for (int j = 0; j < NV; j++) {
        kc_loc_double a = {vals[i], i}, b = {vals[j], j};
        kc_loc_double ab = a, ba = b;
        r.join(&ab, &b);
        r.join(&ba, &a);
        bad += ab.loc != ba.loc;
      }
    KC_CHECK_EQ_INT(bad, 0);
    /* A NaN gives way to a number; among NaNs the smaller index wins. */
    kc_loc_double d = {NAN, 5}, s = {2.0, 9};
    r.join(&d, &s);
    KC_CHECK_EQ_INT(d.loc, 9);
    d = (kc_loc_double){NAN, 7};
    s = (kc_loc_double){NAN, 2};
    r.join(&d, &s);
    KC_CHECK_EQ_INT(d.loc, 2);
    d = (kc_loc_double){1.0, 3};
    s = (kc_loc_double){NAN, 1};
    r.join(&d, &s);
    KC_CHECK_EQ_INT(d.loc, 3);
  }
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  wraps();
  nan_is_missing();
  loc_total_order();
  return kc_test_done();
}
