/* The MD-range and team benchmark's functor and constants (md.c,
 * md.kc.c, md-omp.c). */
#ifndef KC_BENCH_MD_H
#define KC_BENCH_MD_H

#include <stdint.h>

/* Edge of a tile: the MD ranges' explicit tile, the team kernels' tile and
 * the hand-written CUDA kernels' (baseline.cu says it again). */
#define MD_TILE 32
/* A transpose tile's row in scratch: one pad column, so that reading the
 * tile by columns hits distinct shared-memory banks. */
#define MD_PAD (MD_TILE + 1)
/* Rows of a strip: the MD-range strip stencil's (md.kc.c's
 * mdb_stencil_strip) and the hand-written one's (baseline.cu's
 * MDB_STRIP). */
#define MD_STRIP 8
/* A stencil tile's row in scratch, with its halo on both sides. */
#define MD_HALO (MD_TILE + 2)
/* The team kernels' shape on a GPU: MD_TEAM_LANES lanes (threadIdx.x)
 * across a tile's columns, MD_TEAM_THREADS threads (threadIdx.y) over its
 * rows, each thread MD_TILE / MD_TEAM_THREADS rows. */
#define MD_TEAM_LANES 32
#define MD_TEAM_THREADS 8

/* The input matrix: small integers scaled by a power of two, so the
 * transpose compares exactly, and no pattern a transposed or shifted
 * index would reproduce. */
#define MD_INPUT(i, j) ((double)(((i)*7 + (j)*13) % 1021) * 0.25 - 100.0)

/* The stencil's weights: out = C0 * centre + C1 * (4 neighbours). */
#define MD_C0 0.6
#define MD_C1 0.1

/* Every kernel of md.kc.c takes this functor; an n x n row-major matrix. */
struct md_functor {
  const double *in;
  double *out;
  int64_t n;
  int64_t ntiles; /* team kernels: tiles across a row of their tile grid
                     (mdb_team_bands: rows per team) */
  double c0, c1;  /* stencil weights; mdb_fill's value in c0 */
};

#endif
