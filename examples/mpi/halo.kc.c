/* examples/mpi: the kernels that pack a rank's halo segments into a
 * contiguous buffer and unpack its neighbours' into the grid, on the
 * device where the grid lives. */
#include <kc/kernel.h>

#include "halo.h"

/* The segment holding position i of the packed buffer (at most 4). */
#define HALO_SEG(f, i, s)                                                      \
  int s = 0;                                                                   \
  while (s + 1 < (f)->nseg && (i) >= (f)->seg[s + 1].offset)                   \
    s++;

KC_FOR(halo_pack, halo_copy, f, i, {
  HALO_SEG(f, i, s);
  const halo_seg *g = &f->seg[s];
  f->buf[i] = f->grid[g->start + (i - g->offset) * g->stride];
})

KC_FOR(halo_unpack, halo_copy, f, i, {
  HALO_SEG(f, i, s);
  const halo_seg *g = &f->seg[s];
  f->grid[g->start + (i - g->offset) * g->stride] = f->buf[i];
})
