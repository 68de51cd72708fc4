/* t-team-threads.c and kernels/teamthreads.kc.c. */
#ifndef KT_TEAMTHREADS_H
#define KT_TEAMTHREADS_H

#include <stdint.h>

/* The most threads a team may have in the test (its policies ask for at
 * most this many; KC_AUTO on a host backend gives at most its threads). */
#define KTT_MAXT 1024

typedef struct ktt_functor {
  int64_t *out;  /* league x n */
  int64_t *meta; /* league x KTT_MAXT: what each team thread added */
  int64_t *bad;  /* problems the kernels saw */
  int64_t n;     /* the nested loops' range */
} ktt_functor;

typedef struct ktt_seq {
  int64_t lo, hi, ok;
} ktt_seq;

#endif
