/* kc benchmarks — stream: the BabelStream kernels written once with the
 * kernel.h macros.  kcc builds each for the host backends and, where nvcc
 * is available, as PTX for the CUDA backend.
 *
 * Every kernel exists twice, with the same argument layout (struct
 * stream_f64 / stream_f32 of stream.h, which the launches pass):
 *   stream_<kernel>_<type>        the arrays declared restrict (an _ARGS
 *                                 form, doc/kernels.md "restrict"), as the
 *                                 hand-written baselines declare theirs;
 *   stream_<kernel>_<type>_plain  plain pointers (bench/stream --plain),
 *                                 as BabelStream's CUDA model writes them.
 *
 * Dot accumulates in double in both precisions: a float accumulator over
 * 2^25 elements loses most of its digits on the host, and the hand-written
 * baselines do the same. */
#include <kc/kernel.h>

#include "stream.h"

/* The fields of struct stream_<type>, a, b and c restrict. */
#define STREAM_ARGS(T)                                                         \
  ((T *restrict, a), (T *restrict, b), (T *restrict, c), (T, scalar),          \
   (T, init_a), (T, init_b), (T, init_c))

/* One precision: T the element type, S the suffix, F the functor struct. */
#define STREAM_KERNELS(T, S, F)                                                \
  KC_FOR_ARGS(stream_init_##S, STREAM_ARGS(T), i, a[i] = init_a;               \
              b[i] = init_b; c[i] = init_c;)                                   \
  KC_FOR_ARGS(stream_copy_##S, STREAM_ARGS(T), i, c[i] = a[i];)                \
  KC_FOR_ARGS(stream_mul_##S, STREAM_ARGS(T), i, b[i] = scalar * c[i];)        \
  KC_FOR_ARGS(stream_add_##S, STREAM_ARGS(T), i, c[i] = a[i] + b[i];)          \
  KC_FOR_ARGS(stream_triad_##S, STREAM_ARGS(T), i,                             \
              a[i] = b[i] + scalar * c[i];)                                    \
  KC_FOR_ARGS(stream_nstream_##S, STREAM_ARGS(T), i,                           \
              a[i] += b[i] + scalar * c[i];)                                   \
  KC_REDUCE_SUM_ARGS(stream_dot_##S, STREAM_ARGS(T), i, double, acc,           \
                     acc += (double)a[i] * (double)b[i];)                      \
                                                                               \
  KC_FOR(stream_init_##S##_plain, F, f, i, f->a[i] = f->init_a;                \
         f->b[i] = f->init_b; f->c[i] = f->init_c;)                            \
  KC_FOR(stream_copy_##S##_plain, F, f, i, f->c[i] = f->a[i];)                 \
  KC_FOR(stream_mul_##S##_plain, F, f, i, f->b[i] = f->scalar * f->c[i];)      \
  KC_FOR(stream_add_##S##_plain, F, f, i, f->c[i] = f->a[i] + f->b[i];)        \
  KC_FOR(stream_triad_##S##_plain, F, f, i,                                    \
         f->a[i] = f->b[i] + f->scalar * f->c[i];)                             \
  KC_FOR(stream_nstream_##S##_plain, F, f, i,                                  \
         f->a[i] += f->b[i] + f->scalar * f->c[i];)                            \
  KC_REDUCE_SUM(stream_dot_##S##_plain, F, f, i, double, acc,                  \
                acc += (double)f->a[i] * (double)f->b[i];)

STREAM_KERNELS(double, f64, struct stream_f64)
STREAM_KERNELS(float, f32, struct stream_f32)
