/* The launch benchmark's functors (launch.c, launch.kc.c): plain structs of
 * the sizes Kokkos' launch_latency benchmark uses. */
#ifndef KC_BENCH_LAUNCH_H
#define KC_BENCH_LAUNCH_H

#include <stdint.h>

#define LB_SIZES(X) X(8) X(128) X(1600) X(24000) X(240000)
#define LB_FUNCTOR(bytes)                                                      \
  typedef struct lb_f##bytes {                                                 \
    int64_t w[(bytes) / 8];                                                    \
  } lb_f##bytes;
LB_SIZES(LB_FUNCTOR)

#endif
