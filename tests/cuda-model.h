/* Functors of cuda-model.c and cuda-model.kc.c: the CUDA backend's own
 * tests of MD and team launches.  Plain C structs, valid in C and in CUDA
 * C++. */
#ifndef KC_TEST_CUDA_MODEL_H
#define KC_TEST_CUDA_MODEL_H

#include <stdint.h>

#include "cuda-functors.h" /* kc_seqhash */

/* Team kernels. */
typedef struct cm_team {
  int64_t *out;       /* per league rank (or per index) results */
  int64_t *meta;      /* [0]: errors seen by any thread, [1]: team size,
                         [2]: vector length */
  int64_t m;          /* int64 values in the team's level-0 scratch */
  int64_t n;          /* nested loops' range */
  int64_t spin;       /* clock cycles the late writer waits */
  int64_t per_thread; /* level-0 bytes per thread (cm_thread_parts) */
} cm_team;

/* MD kernels: a dense count of visits over a box from (0, 0). */
typedef struct cm_md {
  int32_t *cnt;
  int64_t n1; /* extent of the last dimension */
} cm_md;

#endif
