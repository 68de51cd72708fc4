/* kc benchmarks — reduce and scan: the functors of their kc kernels
 * (reduce.kc.c, scan.kc.c), and the data both programs work on. */
#ifndef KC_BENCH_THROUGHPUT_H
#define KC_BENCH_THROUGHPUT_H

/* Element i of the input: small integers, so every partial sum of up to
 * 2^49 elements is exact in double and results compare exactly whatever
 * order a backend adds them in. */
#define THROUGHPUT_VALUE(i) ((double)((i)&15))

struct throughput_f {
  double *x; /* input */
  double *y; /* scan output */
};

#endif
