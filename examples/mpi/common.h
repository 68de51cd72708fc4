/* examples/mpi: what heat-mpi and cg-mpi share: error checks that stop
 * every rank, a clock, a block split of an index range, and strict
 * parsers of numeric arguments. */
#ifndef KC_EXAMPLE_MPI_COMMON_H
#define KC_EXAMPLE_MPI_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <mpi.h>

#include <kc/kc.h>

/* A failed kc call ends the job: one rank cannot go on alone. */
#define CHECK(call)                                                            \
  do {                                                                         \
    int rc_ = (call);                                                          \
    if (rc_ < 0) {                                                             \
      fprintf(stderr, "%s: %s failed: %s (%s)\n", PROG, #call,                 \
              kc_strerror(rc_), kc_last_error());                              \
      MPI_Abort(MPI_COMM_WORLD, 1);                                            \
    }                                                                          \
  } while (0)

static inline double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Part p of n of [0, len): the first len % n parts one longer. */
static inline void split(int64_t len, int n, int p, int64_t *lo,
                         int64_t *count) {
  int64_t base = len / n, extra = len % n;
  *lo = p * base + (p < extra ? p : extra);
  *count = base + (p < extra);
}

#endif
