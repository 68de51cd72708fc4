/* kc benchmarks — stream: the BabelStream kernels written once with the
 * kernel.h macros.  kcc builds each for the host backends and, where nvcc
 * is available, as PTX for the CUDA backend.
 *
 * Dot accumulates in double in both precisions: a float accumulator over
 * 2^25 elements loses most of its digits on the host, and the hand-written
 * baselines do the same. */
#include <kc/kernel.h>

#include "stream.h"

/* double */
KC_FOR(stream_init_f64, struct stream_f64, f, i, f->a[i] = f->init_a;
       f->b[i] = f->init_b; f->c[i] = f->init_c;)
KC_FOR(stream_copy_f64, struct stream_f64, f, i, f->c[i] = f->a[i];)
KC_FOR(stream_mul_f64, struct stream_f64, f, i, f->b[i] = f->scalar * f->c[i];)
KC_FOR(stream_add_f64, struct stream_f64, f, i, f->c[i] = f->a[i] + f->b[i];)
KC_FOR(stream_triad_f64, struct stream_f64, f, i,
       f->a[i] = f->b[i] + f->scalar * f->c[i];)
KC_FOR(stream_nstream_f64, struct stream_f64, f, i,
       f->a[i] += f->b[i] + f->scalar * f->c[i];)
KC_REDUCE_SUM(stream_dot_f64, struct stream_f64, f, i, double, acc,
              acc += f->a[i] * f->b[i];)

/* float */
KC_FOR(stream_init_f32, struct stream_f32, f, i, f->a[i] = f->init_a;
       f->b[i] = f->init_b; f->c[i] = f->init_c;)
KC_FOR(stream_copy_f32, struct stream_f32, f, i, f->c[i] = f->a[i];)
KC_FOR(stream_mul_f32, struct stream_f32, f, i, f->b[i] = f->scalar * f->c[i];)
KC_FOR(stream_add_f32, struct stream_f32, f, i, f->c[i] = f->a[i] + f->b[i];)
KC_FOR(stream_triad_f32, struct stream_f32, f, i,
       f->a[i] = f->b[i] + f->scalar * f->c[i];)
KC_FOR(stream_nstream_f32, struct stream_f32, f, i,
       f->a[i] += f->b[i] + f->scalar * f->c[i];)
KC_REDUCE_SUM(stream_dot_f32, struct stream_f32, f, i, double, acc,
              acc += (double)f->a[i] * (double)f->b[i];)
