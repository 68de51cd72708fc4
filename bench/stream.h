/* kc benchmarks — stream: the functors shared by the kc kernels
 * (stream.kc.c) and the program that launches them (stream.c).
 *
 * A functor is a plain struct of device pointers and scalars; it is copied
 * at every launch.  The same struct serves every kernel of one precision:
 * the kernels read the fields they need. */
#ifndef KC_BENCH_STREAM_H
#define KC_BENCH_STREAM_H

struct stream_f64 {
  double *a, *b, *c;
  double scalar;
  double init_a, init_b, init_c; /* stream_init_* only */
};

struct stream_f32 {
  float *a, *b, *c;
  float scalar;
  float init_a, init_b, init_c;
};

#endif
