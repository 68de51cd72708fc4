/* The functor of the compaction kernels (compact.kc.c), shared with
 * compact-kc.c. */
#ifndef COMPACT_KC_H
#define COMPACT_KC_H

#include <stdint.h>

typedef struct compact_functor {
  int32_t *in;     /* the input */
  int32_t *out;    /* the kept elements, in order */
  int32_t modulus; /* keep in[i] when in[i] % modulus == 0 */
} compact_functor;

#endif
