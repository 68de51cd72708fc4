/* examples/mpi: the functor of the halo kernels (halo.kc.c), shared with
 * the exchange built on them (exchange.c).  Plain C: valid C and CUDA
 * C++. */
#ifndef KC_EXAMPLE_HALO_H
#define KC_EXAMPLE_HALO_H

#include <stdint.h>

/* A rank exchanges halos with at most 4 neighbours. */
#define HALO_MAX 4

/* One segment of a grid: `count` values at grid[start + k * stride],
 * stored in the packed buffer from buf[offset] on. */
typedef struct halo_seg {
  int64_t start, stride, count, offset;
} halo_seg;

/* halo_pack: buf[offset + k] = grid[start + k * stride] for every segment;
 * halo_unpack: the reverse.  Segments are in increasing offset order and
 * back to back; one launch covers them all (index = position in buf). */
typedef struct halo_copy {
  double *grid;
  double *buf;
  int nseg;
  halo_seg seg[HALO_MAX];
} halo_copy;

#endif
