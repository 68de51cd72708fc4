/* kc CUDA plugin — launch geometry: block sizes from occupancy (once per
 * entry), the tiles and block shape of MD launches, and the team size,
 * shared memory, grid and level-1 scratch of team launches.  Every limit
 * is checked here, before anything is queued. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

static unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }

/* Resident blocks on the whole device: bps per SM, saturated at the
 * largest grid (a device reporting absurdly many SMs must not wrap it). */
static unsigned device_blocks(int bps, int sms) {
  const long long n = (long long)bps * sms;
  return n > 0x7fffffff ? 0x7fffffffu : (unsigned)n;
}

/* Why kc__cuda_deduce found no block size: the function allows less than
 * a warp, no block of a warp or more fits the shared memory, or the driver
 * gives none of those that fit a resident block. */
static int no_block(const char *kname, const kc__cuda_entry *e, int maxb,
                    int smem_fits, size_t smem_per_thread, size_t smem_limit) {
  if (maxb < 32)
    return kc_backend_error(KC_ELAUNCH,
                            "cuda: kernel '%s': the function allows at most "
                            "%u threads per block, less than a warp of 32",
                            kname, e->fmax);
  if (!smem_fits)
    return kc_backend_error(KC_ESCRATCH,
                            "cuda: kernel '%s': no block size fits the "
                            "device (%zu bytes of shared memory per thread, "
                            "%zu per block available)",
                            kname, smem_per_thread, smem_limit);
  return kc_backend_error(
      KC_ELAUNCH,
      "cuda: kernel '%s': the driver's occupancy calculator gives no "
      "resident block at any block size of 32 to %d threads that fits its "
      "shared memory (cuOccupancyMaxActiveBlocksPerMultiprocessor)",
      kname, maxb);
}

/* The function's limits: threads per block and static shared memory. */
static int function_limits(kc__cuda_state *s, const char *kname,
                           kc__cuda_entry *e) {
  const kc__cu_api *cu = s->cu;
  int fmax = 0, fstatic = 0;
  CUresult r = cu->cuFuncGetAttribute(
      &fmax, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, e->fn);
  if (r == CUDA_SUCCESS)
    r = cu->cuFuncGetAttribute(&fstatic, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                               e->fn);
  if (r != CUDA_SUCCESS) {
    char what[600];
    snprintf(what, sizeof what, "kernel '%s': cuFuncGetAttribute", kname);
    return kc__cuda_fail(s, r, KC_ELAUNCH, what);
  }
  int maxb = s->info.max_threads_per_block;
  if (fmax > 0 && fmax < maxb)
    maxb = fmax;
  e->fmax = (unsigned)maxb;
  e->fstatic = (unsigned)(fstatic > 0 ? fstatic : 0);
  return 0;
}

/* Kokkos' cuda_deduce_block_size: over block sizes from the largest the
 * function allows down to 32, the one with the most resident threads per
 * SM; at equal occupancy the smaller block, but not below 128.  With
 * `largest`, the largest block at that occupancy also becomes the entry's
 * rblock (kc__cuda_entry).  `smem_per_thread` is the dynamic shared
 * memory each thread needs. */
int kc__cuda_deduce(kc__cuda_state *s, const char *kname, kc__cuda_entry *e,
                    size_t smem_per_thread, int largest) {
  const kc__cu_api *cu = s->cu;
  int rc = function_limits(s, kname, e);
  if (rc)
    return rc;
  int maxb = (int)e->fmax;
  maxb -= maxb % 32;
  size_t smem_limit = s->info.shared_memory_per_block > e->fstatic
                          ? s->info.shared_memory_per_block - e->fstatic
                          : 0;
  int best = 0, best_tps = 0, best_bps = 0, large = 0, large_bps = 0;
  int smem_fits = 0;
  for (int b = maxb; b > 0; b -= 32) {
    size_t dyn = (size_t)b * smem_per_thread;
    if (dyn > smem_limit)
      continue;
    smem_fits = 1;
    int bps = 0;
    CUresult r =
        cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&bps, e->fn, b, dyn);
    if (r != CUDA_SUCCESS)
      return kc__cuda_fail(s, r, KC_ELAUNCH,
                           "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    int tps = bps * b;
    if (tps > s->max_threads_per_sm) {
      bps = s->max_threads_per_sm / b;
      tps = bps * b;
    }
    if (bps >= 1 && tps > best_tps) {
      /* the first (largest) block at this occupancy */
      best = large = b;
      best_tps = tps;
      best_bps = large_bps = bps;
    } else if (bps >= 1 && b >= 128 && tps == best_tps) {
      best = b;
      best_bps = bps;
    }
  }
  if (best == 0)
    return no_block(kname, e, maxb, smem_fits, smem_per_thread, smem_limit);
  e->block = (unsigned)best;
  e->max_grid = device_blocks(best_bps, s->info.multiprocessors);
  e->smem = (unsigned)((size_t)best * smem_per_thread);
  if (!largest) {
    large = best;
    large_bps = best_bps;
  }
  e->rblock = (unsigned)large;
  e->rgrid = device_blocks(large_bps, s->info.multiprocessors);
  e->rsmem = (unsigned)((size_t)large * smem_per_thread);
  return 0;
}

/* Resident blocks per SM of entry e at `block` threads and `smem` bytes of
 * dynamic shared memory (capped by the SM's thread limit), cached per
 * block size.  A request over the default 48 KB first raises the
 * function's limit to all the device lets a block opt into. */
int kc__cuda_occupancy(kc__cuda_state *s, kc__cuda_entry *e, unsigned block,
                       size_t smem, int *bps) {
  kc__cuda_occ *c = &e->occ[((block + 31) / 32 - 1) % KC__CUDA_OCC_SLOTS];
  if (c->bps && c->block == block && c->smem == smem) {
    *bps = c->bps;
    return 0;
  }
  const kc__cu_api *cu = s->cu;
  CUresult r;
  if (smem + e->fstatic > s->info.shared_memory_per_block &&
      smem > e->dyn_attr) {
    size_t optin = s->info.shared_memory_per_block_optin;
    int want = (int)(optin > e->fstatic ? optin - e->fstatic : 0);
    r = cu->cuFuncSetAttribute(
        e->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, want);
    if (r != CUDA_SUCCESS)
      return kc__cuda_fail(s, r, KC_ELAUNCH,
                           "raising a kernel's dynamic shared memory limit "
                           "(cuFuncSetAttribute)");
    e->dyn_attr = (unsigned)want;
  }
  int n = 0;
  r = cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, e->fn, (int)block,
                                                      smem);
  if (r != CUDA_SUCCESS)
    return kc__cuda_fail(s, r, KC_ELAUNCH,
                         "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  if ((long)n * block > s->max_threads_per_sm)
    n = s->max_threads_per_sm / (int)block;
  c->block = block;
  c->smem = (unsigned)smem;
  c->bps = n;
  *bps = n;
  return 0;
}

/* An MD launch's tiles, block shape and kc_cuda_md_args (see
 * detail/cuda_abi.h). Tiles not given: the block the occupancy rule chose for
 * the entry, shaped as the box allows (last dimension on x, rounded up to a
 * warp when it is at least one, the rest of the block over the dimensions
 * before it).  Given tiles: as asked (a 0 entry: 1, or for the last
 * dimension up to a warp), the block the tile's size (what the function
 * allows of it); a tile's threads then loop over its points. */
/* MD blocks have at most this many threads, each taking several points of
 * its tile (KC__MD_POINTS without tiles asked for): the per-tile work is
 * shared by those points and a block's rows stay near each other (a
 * stencil's neighbours come from L1).  Measured with bench/md
 * (doc/benchmarks.md). */
#define KC__MD_THREADS 256
#define KC__MD_POINTS 4

int kc__cuda_md_geometry(kc__cuda_state *s, const kc__cuda_entry *e,
                         const kc_launch *l, int flags, int left,
                         kc_cuda_md_args *m, unsigned *bx, unsigned *by) {
  const kc_launch_policy *p = &l->policy;
  const int R = p->rank;
  /* The fastest dimension (threadIdx.x), and the k-th fastest. */
  const int F = left ? 0 : R - 1;
#define KC__MD_D(k) (left ? (k) : R - 1 - (k))
  kc_index n[KC_MAX_RANK] = {0}, t[KC_MAX_RANK] = {0};
  int given = 0;
  (void)s;
  for (int d = 0; d < R; d++) {
    if (p->end[d] > INT64_MAX - KC_CUDA_INDEX_SLACK)
      return kc_backend_error(KC_ERANGE,
                              "cuda: kernel '%s': dimension %d of the box "
                              "ends at %lld; the CUDA backend takes boxes "
                              "ending at most INT64_MAX - 2^44",
                              l->kernel->name, d, (long long)p->end[d]);
    n[d] = p->end[d] - p->begin[d];
    given |= p->tile[d] > 0;
  }
  const unsigned T = umin(e->block, flags ? KC__MD_THREADS : e->block);
  if (!given) {
    /* A warp across the fastest dimension (modules that read flags),
     * else the block; KC__MD_POINTS points per thread. */
    const kc_index B = T;
    kc_index x = flags ? 32 : B;
    if (n[F] < x)
      x = n[F] >= 32 ? KC__ALIGN_UP(n[F], 32) : n[F];
    if (x > B)
      x = B;
    if (x < 1)
      x = 1;
    t[F] = x;
    kc_index rest = (flags ? KC__MD_POINTS : 1) * B / x;
    for (int k = 1; k < R; k++) {
      const int d = KC__MD_D(k);
      t[d] = rest < n[d] ? rest : n[d];
      if (t[d] < 1)
        t[d] = 1;
      rest /= t[d];
    }
  } else {
    for (int d = 0; d < R; d++)
      t[d] = p->tile[d] > 0 ? p->tile[d]
             : d != F       ? 1
                            : (n[d] < 32 ? (n[d] > 0 ? n[d] : 1) : 32);
  }
#undef KC__MD_D
  /* Warps start at multiples of 32 in the fastest dimension: the tiles'
   * origin moves back by the box's misalignment (kc_cuda_md_args), where
   * tiles there are whole warps. */
  unsigned shift = 0;
  if (flags && t[F] % 32 == 0 && n[F] > 0 && n[F] <= INT64_MAX - 32 &&
      p->begin[F] > INT64_MIN + 32) {
    shift = (unsigned)(((p->begin[F] % 32) + 32) % 32);
    n[F] += shift;
  }
  /* A tile larger than the box is the box.  An empty box has no tiles,
   * however many its other dimensions would have (a reduction over it
   * still runs, to store the identity). */
  int empty = 0;
  for (int d = 0; d < R; d++)
    empty |= n[d] == 0;
  kc_index tiles = 1, rest = 1;
  for (int d = 0; d < R; d++) {
    if (t[d] > n[d])
      t[d] = n[d] > 0 ? n[d] : 1; /* an empty dimension: no tiles */
    m->begin[d] = p->begin[d] - (d == F ? (kc_index)shift : 0);
    m->end[d] = p->end[d];
    m->tile[d] = t[d];
    m->ntiles[d] = kc__cdiv(n[d], t[d]);
    if (empty) {
      tiles = 0;
    } else {
      if (tiles > (kc_index)0x7fffffff / m->ntiles[d])
        return kc_backend_error(KC_ERANGE,
                                "cuda: kernel '%s': the box is cut into more "
                                "than 2^31 tiles; ask for larger tiles",
                                l->kernel->name);
      tiles *= m->ntiles[d];
    }
    if (d != F && !empty) {
      if (rest > (kc_index)0x7fffffff / t[d])
        return kc_backend_error(KC_EINVAL,
                                "cuda: kernel '%s': a tile of more than "
                                "2^31 points; ask for smaller tiles",
                                l->kernel->name);
      rest *= t[d];
    }
  }
  for (int d = R; d < KC_MAX_RANK; d++)
    m->begin[d] = m->end[d] = m->tile[d] = m->ntiles[d] = 0;
  m->a.begin = 0;
  m->a.end = tiles;
  m->tile_rest = (unsigned)rest;
  m->rank = R;
  m->a.flags = (left ? KC_CUDA_MD_LEFT : 0) | (int)(shift << KC_CUDA_MD_SHIFT);
  *bx = (unsigned)(t[F] < (kc_index)e->fmax ? t[F] : e->fmax);
  *by = umin((unsigned)rest, (flags ? T : e->fmax) / *bx);
  if (*by < 1)
    *by = 1;
  return 0;
}

/* ---------------------------------------------------------------- teams */

/* What a team launch's geometry is computed against. */
typedef struct team_limits {
  const char *kname;
  unsigned warp;
  size_t optin;  /* shared memory a block may opt into */
  size_t limit0; /* what of it level-0 scratch may take */
} team_limits;

/* The team size Kokkos' rule picks (KC_AUTO): over block sizes that are
 * multiples of the warp, the most resident threads, each size with its
 * level-0 scratch as dynamic shared memory; else the largest team below a
 * warp that fits.  Sets *bps to its resident blocks per SM. */
static int team_size_auto(kc__cuda_state *s, kc__cuda_entry *e,
                          const kc_launch *l, const team_limits *t, int vl,
                          int *ts, int *bps) {
  size_t tot = 0, tp = 0;
  int rc, best = 0, best_tps = 0, best_bps = 0;
  for (unsigned b = e->fmax - e->fmax % t->warp; b >= t->warp; b -= t->warp) {
    int size = (int)(b / (unsigned)vl), n = 0;
    if ((rc = kc_launch_scratch(l, 0, size, NULL, NULL, &tot)) != 0)
      return rc;
    if (tot > t->limit0)
      continue;
    if ((rc = kc__cuda_occupancy(s, e, b, tot, &n)) != 0)
      return rc;
    int tps = n * (int)b;
    if (n >= 1 && (tps > best_tps || (b >= 128 && tps == best_tps))) {
      best = size;
      best_tps = tps;
      best_bps = n;
    }
  }
  /* No warp's worth of threads fits: the largest team below a warp that
   * does (per-thread scratch too large for 32 threads). */
  for (int size = (int)(t->warp / (unsigned)vl) - 1; best == 0 && size >= 1;
       size--) {
    int n = 0;
    if ((rc = kc_launch_scratch(l, 0, size, NULL, NULL, &tot)) != 0)
      return rc;
    if (tot > t->limit0)
      continue;
    if ((rc = kc__cuda_occupancy(s, e, (unsigned)size * (unsigned)vl, tot,
                                 &n)) != 0)
      return rc;
    if (n >= 1) {
      best = size;
      best_bps = n;
    }
  }
  if (best == 0) {
    /* Not even one thread fits: report its request. */
    if ((rc = kc_launch_scratch(l, 0, 1, &tp, NULL, &tot)) != 0)
      return rc;
    return kc_backend_error(
        KC_ESCRATCH,
        "cuda: kernel '%s': %zu bytes of level-0 scratch per team (%zu per "
        "team + %zu per thread) leave no team size that fits in the %zu "
        "bytes of shared memory a block may use on %s (%zu opt-in limit - "
        "%u of the kernel's own); ask for large scratch at level 1",
        t->kname, tot, tp, l->policy.scratch_per_thread[0], t->limit0,
        s->info.name, t->optin, e->fstatic);
  }
  *ts = best;
  *bps = best_bps;
  return 0;
}

/* Both levels' scratch for teams of ts threads, checked against the
 * device: tp, st, tot as kc_launch_scratch gives them. */
static int team_scratch(kc__cuda_state *s, const kc__cuda_entry *e,
                        const kc_launch *l, const team_limits *t, int ts,
                        size_t tp[2], size_t st[2], size_t tot[2]) {
  int rc;
  for (int lev = 0; lev < 2; lev++)
    if ((rc = kc_launch_scratch(l, lev, ts, &tp[lev], &st[lev], &tot[lev])) !=
        0)
      return rc;
  if (tot[0] > t->limit0)
    return kc_backend_error(
        KC_ESCRATCH,
        "cuda: kernel '%s': %zu bytes of level-0 scratch per team (%zu per "
        "team + %zu per thread x %d threads, each part aligned to %d) exceed "
        "the %zu bytes of shared memory a block may use on %s (%zu opt-in "
        "limit - %u of the kernel's own); ask for large scratch at level 1",
        t->kname, tot[0], tp[0], l->policy.scratch_per_thread[0], ts,
        KC_SCRATCH_ALIGN, t->limit0, s->info.name, t->optin, e->fstatic);
  if (tot[1] > s->info.total_memory)
    return kc_backend_error(KC_ESCRATCH,
                            "cuda: kernel '%s': %zu bytes of level-1 scratch "
                            "per team (%zu per team + %zu per thread x %d "
                            "threads) exceed the %zu bytes of memory of %s",
                            t->kname, tot[1], tp[1],
                            l->policy.scratch_per_thread[1], ts,
                            s->info.total_memory, s->info.name);
  return 0;
}

/* Level-1 scratch, one slice of `per_team` bytes per block: grows the
 * buffer to the grid's need; if the device cannot give that much, fewer
 * blocks run (*grid lowered). */
static int team_scratch1(kc__cuda_state *s, const team_limits *t,
                         size_t per_team, kc_index *grid) {
  size_t cap = s->cur->scratch1_size / per_team;
  if ((kc_index)cap >= *grid)
    return 0;
  for (kc_index g = *grid; g >= 1; g /= 2) {
    /* Sizes whose product or rounding overflows are not tried. */
    if (per_team > (SIZE_MAX - ((size_t)1 << 20)) / (size_t)g)
      continue;
    int rc = kc__cuda_grow(s, &s->cur->scratch1, &s->cur->scratch1_size,
                           (size_t)g * per_team, (size_t)1 << 20,
                           "allocating level-1 scratch");
    cap = s->cur->scratch1_size / per_team;
    if (rc == 0)
      break;
    if (s->sticky)
      return kc__cuda_sticky(s);
  }
  if (cap == 0)
    return kc_backend_error(KC_ESCRATCH,
                            "cuda: kernel '%s': cannot allocate %zu bytes "
                            "of level-1 scratch for one team on %s",
                            t->kname, per_team, s->info.name);
  if ((kc_index)cap < *grid)
    *grid = (kc_index)cap;
  return 0;
}

int kc__cuda_team_geometry(kc__cuda_state *s, kc__cuda_entry *e,
                           const kc_launch *l, kc_cuda_team_args *ta,
                           unsigned *vlp, unsigned *tsp, size_t *smemp,
                           unsigned *gridp) {
  const kc_launch_policy *p = &l->policy;
  team_limits t;
  t.kname = l->kernel->name;
  t.warp = s->info.warp_size > 0 ? (unsigned)s->info.warp_size : 32;
  t.optin = s->info.shared_memory_per_block_optin
                ? s->info.shared_memory_per_block_optin
                : s->info.shared_memory_per_block;
  t.limit0 = t.optin > e->fstatic ? t.optin - e->fstatic : 0;
  const int vl = p->vector_length;
  if (vl < 1 || (unsigned)vl > t.warp || (vl & (vl - 1)) != 0)
    return kc_backend_error(KC_EINVAL,
                            "cuda: kernel '%s': vector length %d; the CUDA "
                            "backend needs a power of two from 1 to %u (a "
                            "thread's lanes share a warp)",
                            t.kname, vl, t.warp);
  size_t tp[2] = {0, 0}, st[2] = {0, 0}, tot[2] = {0, 0};
  int rc, ts = p->team_size, bps = 0;
  if (ts == KC_AUTO) {
    if ((rc = team_size_auto(s, e, l, &t, vl, &ts, &bps)) != 0)
      return rc;
  } else if ((long)ts * vl > (long)e->fmax) {
    return kc_backend_error(KC_EINVAL,
                            "cuda: kernel '%s': team size %d x vector "
                            "length %d = %ld threads per team; this "
                            "kernel runs at most %u threads per block on "
                            "%s",
                            t.kname, ts, vl, (long)ts * vl, e->fmax,
                            s->info.name);
  }
  if ((rc = team_scratch(s, e, l, &t, ts, tp, st, tot)) != 0)
    return rc;
  const unsigned block = (unsigned)ts * (unsigned)vl;
  if (bps == 0) {
    if ((rc = kc__cuda_occupancy(s, e, block, tot[0], &bps)) != 0)
      return rc;
    if (bps < 1)
      return kc_backend_error(KC_ELAUNCH,
                              "cuda: kernel '%s': a block of %u threads with "
                              "%zu bytes of shared memory cannot be resident "
                              "on %s",
                              t.kname, block, tot[0], s->info.name);
  }
  /* A block per league rank for a team for without level-1 scratch (its
   * blocks striding over the ranks from a grid of the resident blocks ran
   * bench/md's team stencil at 0.69 of the hand-written kernel, a block
   * per rank at 0.86); the resident blocks at most for a team reduction (a
   * partial value per block) and with level-1 scratch (a slice per
   * block). */
  kc_index grid = (kc_index)bps * s->info.multiprocessors;
  if (l->kernel->kind == KC_KERNEL_TEAM && tot[1] == 0)
    grid = p->league_size < 0x7fffffff ? p->league_size : 0x7fffffff;
  if (grid > p->league_size)
    grid = p->league_size;
  if (grid < 1)
    grid = 1;
  if (tot[1] > 0 && p->league_size > 0 &&
      (rc = team_scratch1(s, &t, tot[1], &grid)) != 0)
    return rc;
  ta->a.begin = 0;
  ta->a.end = p->league_size;
  ta->scratch1 = (void *)(uintptr_t)s->cur->scratch1;
  for (int lev = 0; lev < 2; lev++) {
    ta->scratch_team[lev] = tp[lev];
    ta->scratch_thread[lev] = p->scratch_per_thread[lev];
    ta->scratch_offset[lev] = KC__ALIGN_UP(tp[lev], KC_SCRATCH_ALIGN);
    ta->scratch_stride[lev] = st[lev];
    ta->scratch_total[lev] = tot[lev];
  }
  *vlp = (unsigned)vl;
  *tsp = (unsigned)ts;
  *smemp = tot[0];
  *gridp = (unsigned)grid;
  return 0;
}
