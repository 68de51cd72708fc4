/* Argument lists of the _ARGS kernels of the conformance tests
 * (kcc/kernels-args.kc.c, kernels/md-args.kc.c, team-args.kc.c,
 * chunk-args.kc.c): member for member the layout of the functor structs
 * of kcc/kk.h and kernels/model.h, so that the same test programs launch
 * either form with their own functors and make the same checks.  Arrays
 * are wrapped in a struct (an argument is bound to a const local, and C
 * cannot copy an array). */
#ifndef KC_TEST_ARGS_H
#define KC_TEST_ARGS_H

#include <stdint.h>

typedef struct kt_i64x6 {
  int64_t v[6];
} kt_i64x6;
typedef struct kt_i64x2 {
  int64_t v[2];
} kt_i64x2;

#define KK_ARRAYS_ARGS                                                         \
  ((const int32_t *, i32), (const int64_t *, i64), (const float *, f32),       \
   (const double *, f64), (int64_t *, out), (int64_t, n))

#define KT_MD_ARGS                                                             \
  ((int32_t *, cnt), (int64_t *, val), (kt_i64x6, lo), (kt_i64x6, st))

#define KT_TEAM_ARGS                                                           \
  ((const double *, a), (const double *, x), (double *, y), (int64_t *, out),  \
   (int64_t *, meta), (int64_t, n), (kt_i64x2, per_team),                      \
   (kt_i64x2, per_thread), (kt_i64x2, extra))

#define KT_CHUNK_ARGS                                                          \
  ((const double *, x), (double *, y), (int32_t *, hits), (int64_t *, maxlen), \
   (int64_t, base))

#endif
