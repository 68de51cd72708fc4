/* kc — the CUDA device ABI: what the CUDA plugin and the device code that
 * kcc generates from <kc/kernel.h> (detail/kernel_cuda.h) agree on.  Plain
 * C, included by both; installed because an out-of-tree plugin or code
 * generator may target it.
 *
 * Every kernel is two `extern "C"` entries, <ptx_entry>KC_CUDA_ENTRY_PARAM
 * (functor by value, after the arguments below) and
 * <ptx_entry>KC_CUDA_ENTRY_GLOBAL (functor through a pointer).  Their first
 * parameter is a kc_cuda_args (1-D kinds), a kc_cuda_md_args (MD kinds) or
 * a kc_cuda_team_args (team kinds), passed by value.  Every module carries
 * one `.const` array named KC_CUDA_STAGING_SYMBOL of KC_CUDA_STAGING_BYTES
 * bytes (256-byte aligned), which the plugin uses as a ring of functor
 * slots (unless the module was built with KC_CUDA_NO_STAGING).  An entry
 * only reads its functor: the plugin may pass the same staged copy to
 * later launches whose functor has the same bytes.  The structs only grow
 * at their end, together with KC_CUDA_ABI_VERSION.
 */
#ifndef KC_DETAIL_CUDA_ABI_H
#define KC_DETAIL_CUDA_ABI_H

#include <kc/kc.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The first parameter of every kc device entry, passed by value.  Only ever
 * grows at its end, together with KC_CUDA_ABI_VERSION. */
typedef struct kc_cuda_args {
  kc_index begin;        /* first index of the range */
  kc_index end;          /* one past the last index */
  kc_index chunk;        /* SCAN and custom REDUCE: indices per block
                            (a multiple of nothing in particular; > 0).
                            FOR: 0, a grid-stride loop over the range; or
                            > 0, block b takes the indices [begin + b chunk,
                            begin + (b + 1) chunk) (a module that ignores
                            it still covers the range) */
  void *partials;        /* REDUCE/SCAN: one value per block (device) */
  void *result;          /* REDUCE: the value; SCAN: the total (or NULL) */
  unsigned int *counter; /* REDUCE/SCAN: last-block-done counter, 0 */
  int pass;              /* SCAN: 0 = block totals, 1 = final pass,
                            2 = the single pass (see below) */
  int flags;             /* MD: KC_CUDA_MD_LEFT | shift << KC_CUDA_MD_SHIFT;
                            SCAN pass 2: the launch's epoch; else 0
                            (was `reserved`) */
  long long ident[2];    /* built-in reducers: the identity value's bytes,
                            as the host reducer's identity() wrote them */
} kc_cuda_args;

/* The single-pass scan (pass = 2; only for modules that carry
 * KC_CUDA_SCAN_TILE_SYMBOL, an int: the indices a thread takes per tile).
 * The grid is one block per tile of blockDim.x * that many indices of
 * [begin, end), at most 2^31 - 1 tiles; `chunk` is unused.  `partials`
 * points at the tiles' state.  For values of 8 bytes or less: 16 bytes
 * per tile, the value's bytes and a 64-bit flag word, written and read
 * together (one vector access); else gridDim.x 32-bit flag words (rounded
 * up to 256 bytes), then gridDim.x values (the tiles' aggregates), then
 * gridDim.x values (their inclusive prefixes).  A flag word is (epoch <<
 * 2) | state, state 1 = aggregate published, 2 = inclusive prefix
 * published.
 * `flags` is the epoch, 1 .. 2^30 - 1, new for every launch on the buffer
 * (the plugin zeroes the flags when it starts the epochs over, and when
 * the buffer is new), so the flags need no clearing between launches.
 * counter[0] and counter[1] are 0 at the launch (counter[1] hands out the
 * tiles in order; the last block sets both back to 0). */

/* MDFOR / MDREDUCE entries take this in place of kc_cuda_args (ABI 2).
 * The box [begin[d], end[d]) is cut into tiles of tile[d] points, ntiles[d]
 * per dimension; a.begin = 0 and a.end = the number of tiles (the product
 * of ntiles, < 2^31), which blocks take grid-stride (custom reducers: a
 * contiguous run of a.chunk tiles per block).  A block of blockDim.x x
 * blockDim.y threads walks its tile: the last dimension over threadIdx.x,
 * the others, flattened (tile_rest = product of tile[0 .. rank-2] points,
 * < 2^31), over threadIdx.y; tiles are numbered with the last dimension
 * fastest.  With a.flags & KC_CUDA_MD_LEFT all of this is mirrored: the
 * first dimension is the fastest (threadIdx.x, tile numbering), tile_rest
 * is the product of tile[1 .. rank-1].  A shift s = (a.flags >>
 * KC_CUDA_MD_SHIFT) & 31 moves the tiles' origin in the fastest dimension
 * s points before the box (begin[that dimension] is the origin; the box
 * starts s points later), so that warps start at multiples of 32; the
 * points before the box are skipped.  The plugin sets flags only for
 * modules that carry KC_CUDA_MD_FLAGS_SYMBOL (built from headers that read
 * them). */
typedef struct kc_cuda_md_args {
  kc_cuda_args a;
  kc_index begin[KC_MAX_RANK];
  kc_index end[KC_MAX_RANK];
  kc_index tile[KC_MAX_RANK];
  kc_index ntiles[KC_MAX_RANK];
  unsigned int tile_rest;
  int rank;
} kc_cuda_md_args;

/* TEAM / TEAM_REDUCE entries take this in place of kc_cuda_args (ABI 2).
 * A block is one team: blockDim.x = vector length (lanes), blockDim.y =
 * team size (threads).  a.begin = 0, a.end = the league size; league ranks
 * go grid-stride over blockIdx.x (custom reducers: a contiguous run of
 * a.chunk ranks per block).  Scratch, per level (0: the block's dynamic
 * shared memory; 1: block b's slice of scratch1 at b * scratch_total[1]),
 * laid out as kc_launch_scratch() says: the per-team part (scratch_team
 * bytes), then at scratch_offset one part per team thread, scratch_stride
 * apart, of scratch_thread bytes each. */
typedef struct kc_cuda_team_args {
  kc_cuda_args a;
  void *scratch1;
  size_t scratch_team[2];
  size_t scratch_thread[2];
  size_t scratch_offset[2];
  size_t scratch_stride[2];
  size_t scratch_total[2];
} kc_cuda_team_args;

#define KC_CUDA_ABI_VERSION 2
#define KC_CUDA_ENTRY_PARAM "__kcp"  /* suffix: functor by value */
#define KC_CUDA_ENTRY_GLOBAL "__kcg" /* suffix: functor through pointer */
#define KC_CUDA_STAGING_SYMBOL "kc__cuda_staging"
#define KC_CUDA_MD_LEFT 1  /* kc_cuda_args.flags of MD launches */
#define KC_CUDA_MD_SHIFT 8 /* where the flags hold the origin's shift */
#define KC_CUDA_MD_FLAGS_SYMBOL "kc__cuda_md_flags"
#define KC_CUDA_SCAN_TILE_SYMBOL "kc__cuda_scan_tile"
/* Indices per thread of a FOR's wide grid (kc_cuda_args.chunk = this many
 * times blockDim.x): the kernels' drivers unroll chunks of exactly this
 * shape; any other chunk still runs, by a tested loop. */
#define KC_CUDA_WIDE_RUN 4
/* kc_cuda_args.flags of REDUCE, MDREDUCE and TEAMREDUCE launches whose
 * result goes to the plugin's mapped pinned slot: after the result, the
 * last block writes 1 to the 32-bit word KC_CUDA_RESULT_DONE_AT(V) bytes
 * past it (the plugin zeroed it and waits on it in place of the stream).
 * Only for modules that carry KC_CUDA_RESULT_DONE_SYMBOL. */
#define KC_CUDA_RESULT_DONE (1 << 30)
#define KC_CUDA_RESULT_DONE_AT(V) ((sizeof(V) + 7) & ~(size_t)7)
#define KC_CUDA_RESULT_DONE_SYMBOL "kc__cuda_result_done"
#ifndef KC_CUDA_STAGING_BYTES
#define KC_CUDA_STAGING_BYTES 61440 /* 60 KiB of the 64 KiB constant bank */
#endif

#ifdef __cplusplus
}
#endif

#endif /* KC_DETAIL_CUDA_ABI_H */
