/* kc CUDA plugin — launches.
 *
 * A launch picks the functor's way in (by value, the module's constant
 * region, or global memory), fills the entry's first parameter (1-D, MD or
 * team arguments, geometry.c), stages the functor if it does not travel by
 * value (staging.c), and calls the driver; reductions and scans add their
 * scratch, the chunking of ordered joins, the scan's two passes and, for a
 * result in a host variable, the wait for it.  Nothing here allocates,
 * except that an MD or team reduction whose grid outgrows the reduction
 * scratch grows it (staging.c), once.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin.h"

static const char *const mode_names[] = {"auto", "param", "constant", "global"};

/* One launch as it is being built. */
typedef struct job {
  const kc_launch *l;
  const kc_kernel_info *k;
  kc__cuda_kernel *K;
  kc__cuda_entry *e;
  int mode;
  /* The entry's first parameter: kc_cuda_args alone (1-D) or inside the
   * MD / team arguments; `a` points at it either way, `args` at the
   * whole. */
  union {
    kc_cuda_args one;
    kc_cuda_md_args md;
    kc_cuda_team_args team;
  } u;
  kc_cuda_args *a;
  void *args;
  unsigned grid, bx, by;
  size_t smem;
  /* KC_CUDA_GRID=tune: the slot whose candidate `tcand` this launch
   * times, or NULL (tune.c). */
  kc__cuda_tune *tune;
  int tcand;
} job;

static int launch_error(kc__cuda_state *s, CUresult r, const kc_kernel_info *k,
                        unsigned grid, unsigned block, unsigned smem) {
  if (kc__cu_is_sticky(r))
    return kc__cuda_fail(s, r, KC_ELAUNCH, "cuLaunchKernel");
  if (r == CUDA_ERROR_OUT_OF_MEMORY)
    return kc_backend_error(KC_ENOMEM,
                            "cuda: launching kernel '%s' (grid %u, block %u, "
                            "%u B shared memory): %s",
                            k->name, grid, block, smem, kc__cu_errstr(r));
  return kc_backend_error(KC_ELAUNCH,
                          "cuda: launching kernel '%s' (grid %u, block %u, "
                          "%u B shared memory): %s",
                          k->name, grid, block, smem, kc__cu_errstr(r));
}

static int launch_call(kc__cuda_state *s, kc__cuda_kernel *K,
                       const kc_launch *l, kc_index n) {
  if (n == 0)
    return 0;
  unsigned b = K->call.block;
  kc_index g = kc__cdiv(n, b);
  if (g > 0x7fffffff)
    return kc_backend_error(KC_ERANGE,
                            "cuda: kernel '%s': %lld indices need more "
                            "blocks than a grid has",
                            l->kernel->name, (long long)n);
  s->last_kernel = l->kernel->name;
  CUresult r = s->cu->cuLaunchKernel(K->call.fn, (unsigned)g, 1, 1, b, 1, 1, 0,
                                     s->cur->stream, (void **)l->args, NULL);
  return r ? launch_error(s, r, l->kernel, (unsigned)g, b, 0) : 0;
}

/* A launch with no work: an empty range, box or league (reductions still
 * run, to store the identity). */
static int nothing_to_do(const kc_launch *l) {
  const kc_launch_policy *p = &l->policy;
  switch (l->kernel->kind) {
  case KC_KERNEL_FOR:
    return p->end[0] == p->begin[0];
  case KC_KERNEL_MDFOR:
    for (int d = 0; d < p->rank; d++)
      if (p->end[d] == p->begin[d])
        return 1;
    return 0;
  case KC_KERNEL_TEAM:
    return p->league_size == 0;
  default:
    return 0;
  }
}

/* How the functor gets in: by value if the by-value entry takes exactly
 * this functor and the driver takes that many parameter bytes; else the
 * module's constant region if it is large enough; else global memory.  A
 * forced mode (KC_CUDA_LAUNCH) that cannot take this functor falls to the
 * next one. */
static int choose_mode(const kc__cuda_state *s, kc__cuda_kernel *K,
                       const kc_launch *l) {
  const size_t fsize = l->functor_size;
  const int param_ok =
      K->p.fn && K->param_off + fsize <= s->max_param &&
      (K->param_size == 0 ? fsize > 0 : K->param_size == fsize || fsize == 0);
  /* The module's constant region is one for all streams, its slots
   * ordered by the default queue's stream: a queue of its own uses global
   * memory instead. */
  const int const_ok =
      K->mod->staging && fsize <= K->mod->staging_size && s->cur == &s->main;
  int mode = s->mode;
  if (mode == MODE_AUTO)
    return param_ok ? MODE_PARAM : const_ok ? MODE_CONSTANT : MODE_GLOBAL;
  if ((mode == MODE_PARAM && !param_ok) ||
      (mode == MODE_CONSTANT && !const_ok)) {
    int want = mode;
    mode = (mode == MODE_PARAM && const_ok) ? MODE_CONSTANT : MODE_GLOBAL;
    if (!K->fallback_noted) {
      K->fallback_noted = 1;
      kc_backend_verbose("cuda: kernel '%s': a %zu-byte functor cannot go "
                         "by %s; using %s",
                         l->kernel->name, fsize, mode_names[want],
                         mode_names[mode]);
    }
  }
  return mode;
}

/* A tuning candidate's grid, as tune_note names it. */
static const char *grid_name(const kc__cuda_tune *t, int c) {
  return t->reduce ? (t->full[c] ? "waves" : "resident")
                   : (t->full[c] ? "full" : "wide");
}

/* Says once which grid the tuning chose for a size of an entry, and the
 * least times it measured. */
static void tune_note(const kc_kernel_info *k, const kc__cuda_tune *t) {
  char times[160];
  size_t at = 0;
  times[0] = 0;
  for (int c = 0; c < t->ncand && at < sizeof times; c++)
    at += (size_t)snprintf(times + at, sizeof times - at, "%s%s/%u %.4f ms",
                           c ? ", " : "", grid_name(t, c), t->block[c],
                           (double)t->best[c]);
  const int c = t->choice;
  kc_backend_verbose("cuda: kernel '%s': ranges of 2^%d to 2^%d - 1 "
                     "indices take the %s grid, blocks of %u (least "
                     "times, per 2^%d indices: %s)",
                     k->name, t->cls - 1, t->cls, grid_name(t, c), t->block[c],
                     t->cls - 1, times);
}

/* The trial in flight, if its end event has completed: its time goes in
 * (a failed query or reading counts as a trial without a time, so a
 * broken event cannot keep the tuning going).  0 while it runs. */
static int tune_poll(kc__cuda_state *s, const kc_kernel_info *k,
                     kc__cuda_tune *t) {
  const kc__cu_api *cu = s->cu;
  CUresult r = cu->cuEventQuery(t->ev[1]);
  if (r == CUDA_ERROR_NOT_READY)
    return 0;
  float ms = 0;
  if (r != CUDA_SUCCESS ||
      cu->cuEventElapsedTime(&ms, t->ev[0], t->ev[1]) != CUDA_SUCCESS)
    ms = 0;
  const int c = t->pending;
  t->pending = -1;
  if (kc__cuda_tune_record(t, c, ms, t->pending_n)) {
    tune_note(k, t);
    kc__cuda_tune_end(s->cu, t, t->choice);
  }
  return 1;
}

/* The candidate of entry j->e's tuning slot for ranges like n (tune.c)
 * that this launch runs, timed if a trial is due and none is in flight
 * (then j->tune and j->tcand say so); -1, and *tp NULL, if the entry has
 * no slot free for n. */
static int tune_choose(kc__cuda_state *s, job *j, kc_index n, int reduce,
                       kc__cuda_tune **tp) {
  kc__cuda_tune *t = *tp = kc__cuda_tune_slot(j->e, n, reduce);
  if (!t)
    return -1;
  int c = -1;
  if (t->pending < 0 || tune_poll(s, j->k, t))
    c = kc__cuda_tune_next(t);
  if (c >= 0 && !t->ev[0] &&
      (s->cu->cuEventCreate(&t->ev[0], 0) != CUDA_SUCCESS ||
       s->cu->cuEventCreate(&t->ev[1], 0) != CUDA_SUCCESS)) {
    kc__cuda_tune_end(s->cu, t, 0); /* no events, no tuning: candidate 0 */
    c = -1;
  }
  if (c < 0)
    return kc__cuda_tune_pick(t);
  j->tune = t;
  j->tcand = c;
  return c;
}

/* KC_CUDA_GRID=tune, a range the wide grid covers with more than the
 * resident blocks: sets a full candidate's grid and returns 1; 0 leaves
 * the wide grid. */
static int tune_grid(kc__cuda_state *s, job *j, kc_index n) {
  kc__cuda_tune *t;
  const int c = tune_choose(s, j, n, 0, &t);
  if (c < 0)
    return 0;
  if (!t->full[c])
    return 0;
  const kc_index g = kc__cdiv(n, (kc_index)t->block[c]);
  if (g > (kc_index)0x7fffffff) {
    /* Not for a candidate tune.c let in (it fits the class's longest
     * range); were it to happen, a trial without a time, so that the
     * tuning still ends. */
    if (j->tune && kc__cuda_tune_record(t, c, 0, 0))
      kc__cuda_tune_end(s->cu, t, t->choice);
    j->tune = NULL;
    return 0;
  }
  j->bx = t->block[c];
  j->grid = (unsigned)g;
  j->a->chunk = 0;
  return 1;
}

/* How many times the resident grid a 1-D reduction with a built-in join
 * may launch: one more wave of blocks for every REDUCE_RUN indices per
 * thread of the resident grid, up to KC_CUDA_REDUCE_WAVES (s->reduce_waves).
 * Each block still strides over the whole range and leaves one partial
 * value.  Which grid is faster depends on the body: on an H100, 16 waves
 * ran bench/stream's Dot 1-2% faster than the resident grid and
 * bench/reduce's sum 3-8% slower from 10^8 to 5 * 10^8 bytes.  So the
 * first launches of such a range time both (tune.c) and keep the faster
 * for that kernel and size.  Not by default (1: the resident grid only):
 * a floating-point sum's last bits follow the grid, so the trials and a
 * choice that differs from run to run would change results that are
 * otherwise the same at every launch (doc/backends.md, "Grid size"). */
#define REDUCE_RUN 32
static unsigned reduce_waves(const kc__cuda_state *s, const kc__cuda_entry *e,
                             kc_index n) {
  const kc_index per = n / ((kc_index)e->rgrid * e->rblock);
  kc_index w = per / REDUCE_RUN;
  if (w > (kc_index)s->reduce_waves)
    w = s->reduce_waves;
  if (w > (kc_index)(0x7fffffff / e->rgrid)) /* a grid's limit */
    w = (kc_index)(0x7fffffff / e->rgrid);
  return w < 1 ? 1u : (unsigned)w;
}

/* 1-D: the range and a grid striding over it: for a for (KC_CUDA_GRID,
 * default tune) about KC_CUDA_WIDE_RUN (4) indices per thread once the
 * range outgrows the resident blocks (resident: the resident blocks at
 * most; full: a thread per index while that fits a grid); reductions and
 * scans keep the resident grid (their scratch holds one value per block;
 * KC_CUDA_REDUCE_WAVES may give a reduction more, reduce_waves).
 * The wide grid's blocks take contiguous chunks of at most
 * KC_CUDA_WIDE_RUN blockDim.x indices (kc_cuda_args.chunk; the drivers
 * unroll chunks of exactly that size) instead of striding over the whole
 * range: up to 2.5% more bandwidth on the stream kernels on an H100.
 * doc/backends.md has the measurements behind the default. */
static int range_args(kc__cuda_state *s, job *j) {
  const kc_index begin = j->l->policy.begin[0], end = j->l->policy.end[0];
  j->a = &j->u.one;
  *j->a = j->K->proto;
  j->a->begin = begin;
  j->a->end = end;
  if (end > INT64_MAX - KC_CUDA_INDEX_SLACK)
    return kc_backend_error(KC_ERANGE,
                            "cuda: kernel '%s': the range ends at %lld; "
                            "the CUDA backend takes 1-D ranges ending at "
                            "most INT64_MAX - 2^44",
                            j->k->name, (long long)end);
  kc_index g = kc__cdiv(end - begin, j->e->block);
  const int mode = j->k->kind == KC_KERNEL_FOR ? s->grid_mode : GRID_RESIDENT;
  j->smem = j->e->smem;
  if (j->k->kind == KC_KERNEL_REDUCE && g >= (kc_index)j->e->max_grid) {
    /* A reduction that fills the resident grid (for a custom, ordered one
     * rblock is its block and rgrid its resident grid).  A built-in one: the
     * resident blocks of the largest size (times reduce_waves), each striding
     * over the whole range, so an SM's accesses of a step are a few contiguous
     * runs (two blocks of 1024 where sixteen of 128 scattered them).
     * bench/stream Dot, doubles, 2^28, on an H100: 0.988-0.989 of the hand-
     * written kernel with blocks of 128, 0.994-0.996 with 1024.  A smaller
     * range keeps the smaller blocks, which spread it over more SMs and launch
     * sooner (a reduction of 10^4 doubles took 1 us longer on blocks of 1024).
     */
    j->bx = j->e->rblock;
    j->smem = j->e->rsmem;
    j->grid = j->e->rgrid;
    const unsigned w = j->K->ordered ? 1 : reduce_waves(s, j->e, end - begin);
    kc__cuda_tune *t;
    if (w > 1 && tune_choose(s, j, end - begin, 1, &t) == 1)
      j->grid *= w;
    j->args = j->a;
    return 0;
  }
  if (mode == GRID_FULL) {
    if (g > (kc_index)0x7fffffff)
      g = j->e->max_grid;
  } else if (g > (kc_index)j->e->max_grid) {
    /* wide: about KC_CUDA_WIDE_RUN indices per thread once that is more
     * blocks than the device holds at once */
    kc_index w = mode == GRID_WIDE || mode == GRID_TUNE
                     ? kc__cdiv(g, KC_CUDA_WIDE_RUN)
                     : 0;
    const int wide = w > (kc_index)j->e->max_grid && w <= (kc_index)0x7fffffff;
    if (wide && mode == GRID_TUNE && tune_grid(s, j, end - begin)) {
      j->args = j->a;
      return 0;
    }
    g = wide ? w : (kc_index)j->e->max_grid;
    /* Chunks of KC_CUDA_WIDE_RUN blocks' worth only where the wide grid is
     * wider than the resident blocks: between 1 and 4 times their threads
     * (cg's vectors of 10^6) the grid-stride loop over the resident grid
     * was 1% faster (cg -n 100 -check 50 on an H100: 72.4-72.7 against
     * 73.3-74.2 us an iteration). */
    if (wide)
      j->a->chunk = kc__cdiv(end - begin, g * (kc_index)j->e->block) *
                    (kc_index)j->e->block;
  }
  j->grid = g < 1 ? 1 : (unsigned)g;
  j->args = j->a;
  return 0;
}

/* MD: tiles and block shape; a for launches a block per tile (its blocks
 * striding over the tiles from a grid of the resident blocks ran the MD
 * stencil of bench/md at 0.903 of the hand-written kernel, a block per
 * tile at 0.977; doc/benchmarks.md), a reduction the resident blocks at
 * most (it keeps a partial value per block). */
static int md_args(kc__cuda_state *s, job *j) {
  int rc, bps = 0;
  j->u.md.a = j->K->proto;
  /* Flags (LEFT, the origin's shift) and the geometry that goes with them
   * where the module reads them, but not for a custom join: its tiles and
   * their order stay what they were (row-major, as the box begins). */
  const int flags = j->K->mod->md_flags && !j->K->ordered;
  int left = j->l->iterate == KC_ITERATE_LEFT && flags;
  if ((rc = kc__cuda_md_geometry(s, j->e, j->l, flags, left, &j->u.md, &j->bx,
                                 &j->by)) ||
      (rc = kc__cuda_occupancy(s, j->e, j->bx * j->by, 0, &bps)))
    return rc;
  kc_index g = j->u.md.a.end; /* tiles: < 2^31 (kc__cuda_md_geometry) */
  if (j->k->kind != KC_KERNEL_MDFOR &&
      g > (kc_index)bps * s->info.multiprocessors)
    g = (kc_index)bps * s->info.multiprocessors;
  j->grid = g < 1 ? 1 : (unsigned)g;
  j->a = &j->u.md.a;
  j->args = &j->u.md;
  return 0;
}

static int team_args(kc__cuda_state *s, job *j) {
  j->u.team.a = j->K->proto;
  int rc = kc__cuda_team_geometry(s, j->e, j->l, &j->u.team, &j->bx, &j->by,
                                  &j->smem, &j->grid);
  j->a = &j->u.team.a;
  j->args = &j->u.team;
  return rc;
}

static int geometry(kc__cuda_state *s, job *j) {
  const int kind = j->l->policy.kind;
  memset(&j->u, 0, sizeof j->u);
  j->tune = NULL;
  j->tcand = -1;
  j->grid = 1;
  j->bx = j->e->block;
  j->by = 1;
  j->smem = 0;
  int rc = kind == KC_POLICY_MDRANGE ? md_args(s, j)
           : kind == KC_POLICY_TEAM  ? team_args(s, j)
                                     : range_args(s, j);
  /* (an empty launch, checked and not run, is not the first) */
  if (rc == 0 && kind != KC_POLICY_RANGE && !j->K->geometry_noted &&
      !nothing_to_do(j->l)) {
    j->K->geometry_noted = 1;
    kc_backend_verbose("cuda: kernel '%s': first launch: grid %u, block "
                       "%u x %u, %zu B dynamic shared memory",
                       j->k->name, j->grid, j->bx, j->by, j->smem);
  }
  return rc;
}

static inline CUresult run(kc__cuda_state *s, const job *j, void **params) {
  return s->cu->cuLaunchKernel(j->e->fn, j->grid, 1, 1, j->bx, j->by, 1,
                               (unsigned)j->smem, s->cur->stream, params, NULL);
}

/* How long a blocking reduction spins on its done word before it leaves
 * the wait to the driver. */
#define DONE_SPIN_NS 200000

/* Waits for a reduction's result: spins on the word its last block writes
 * after it (a short reduction's result is there within microseconds of
 * the launch, sooner than the stream's end reaches the host), then, after
 * DONE_SPIN_NS, waits for the stream as before, which also reports a
 * kernel that faulted (and never wrote the word) and does not keep a CPU
 * busy through a long kernel. */
static int wait_done(kc__cuda_state *s, volatile unsigned *done) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (unsigned i = 1;; i++) {
    if (__atomic_load_n(done, __ATOMIC_ACQUIRE))
      return 0;
    if (i % 256 == 0) {
      clock_gettime(CLOCK_MONOTONIC, &t);
      if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) >
          DONE_SPIN_NS)
        break;
    }
  }
  CUresult r = s->cu->cuStreamSynchronize(s->cur->stream);
  return r ? kc__cuda_fail(s, r, KC_EDEVICE, "waiting for a reduction's result")
           : 0;
}

/* run(), inside a tuning trial's pair of events when the launch is one
 * (j->tune): they are read at a later launch (tune_poll); one that cannot
 * be recorded ends the tuning with the fastest candidate so far. */
static CUresult timed_run(kc__cuda_state *s, job *j, void **params) {
  kc__cuda_tune *t = j->tune;
  if (t && s->cu->cuEventRecord(t->ev[0], s->cur->stream) != CUDA_SUCCESS) {
    kc__cuda_tune_end(s->cu, t, kc__cuda_tune_pick(t));
    t = NULL;
  }
  CUresult r = run(s, j, params);
  if (r || !t)
    return r;
  if (s->cu->cuEventRecord(t->ev[1], s->cur->stream) == CUDA_SUCCESS) {
    t->pending = j->tcand;
    t->pending_n = j->l->policy.end[0] - j->l->policy.begin[0];
  } else
    kc__cuda_tune_end(s->cu, t, kc__cuda_tune_pick(t));
  return CUDA_SUCCESS;
}

/* Reductions and scans: scratch, result, chunks, then one launch (two for
 * a scan); a result in a host variable is waited for. */
static int launch_reduce(kc__cuda_state *s, job *j, void **params) {
  const kc_launch *l = j->l;
  kc_cuda_args *a = j->a;
  const size_t vs = j->K->value_size;
  const int tiled = l->policy.kind != KC_POLICY_RANGE;
  int rc;
  const int to_host = !l->result_async || l->result_space == KC_SPACE_HOST;
  /* A scan in one pass (modules that run it): a block per tile of
   * block * scan_tile indices, the tiles' state in the lane's buffer for
   * them (detail/cuda_abi.h), while the tiles fit a grid. */
  kc_index tiles = 0;
  if (j->k->kind == KC_KERNEL_SCAN && j->K->mod->scan_tile) {
    tiles = kc__cdiv(a->end - a->begin, (kc_index)j->bx * j->K->mod->scan_tile);
    if (tiles > (kc_index)0x7fffffff)
      tiles = 0;
  }
  /* The lane's scratch and result slot (kernel_prepare sized the default
   * queue's for the largest 1-D grid; a queue's lane grows at its first
   * reduction, MD and team grids wherever they outgrow it). */
  unsigned epoch = 0;
  if ((tiles ? (rc = kc__cuda_scan_tiles(s, (unsigned)tiles, vs, &epoch))
             : (rc = kc__cuda_ensure_partials(s, (size_t)j->grid * vs))) != 0 ||
      (to_host &&
       (rc = kc__cuda_ensure_result_slot(s, KC__ALIGN_UP(vs, 8) + 8)) != 0))
    return rc;
  /* A blocking reduction's result in the pinned slot: the module's last
   * block says when it is there (detail/cuda_abi.h), sooner than the
   * stream's end reaches the host. */
  volatile unsigned *done = NULL;
  if (to_host && l->result && j->k->kind != KC_KERNEL_SCAN &&
      j->K->mod->result_done) {
    done =
        (volatile unsigned *)((char *)s->cur->res_host + KC__ALIGN_UP(vs, 8));
    *done = 0;
  }
  a->partials = (void *)(uintptr_t)(tiles ? s->cur->tiles : s->cur->partials);
  a->counter = (unsigned int *)(uintptr_t)s->cur->counter;
  a->result = l->result == NULL ? NULL
              : to_host         ? (void *)(uintptr_t)s->cur->res_dev
                                : l->result;
  if (done)
    a->flags |= KC_CUDA_RESULT_DONE;
  if (tiles) {
    a->pass = 2;
    a->flags = (int)epoch;
    j->grid = (unsigned)tiles;
  } else if (j->K->ordered || j->k->kind == KC_KERNEL_SCAN) {
    /* Contiguous runs of indices (tiles, league ranks) per block. */
    const kc_index units = a->end - a->begin;
    a->chunk = kc__cdiv(units, j->grid);
    if (a->chunk < 1)
      a->chunk = 1;
    if (!tiled) {
      /* 1-D chunks a multiple of 64 indices: the warps' parts and the
       * tiles of the ordered walks (multiples of 32 * KC_CUDA_ORDERED_RUN
       * indices) then start on 128-byte boundaries of an aligned array of
       * elements of 2 bytes or more, when the range begins at 0.  The
       * rounding may leave blocks with nothing to do: fewer are launched
       * (both scan passes use this grid). */
      a->chunk = kc__cdiv(a->chunk, 64) * 64;
    }
    kc_index g = kc__cdiv(units, a->chunk);
    j->grid = g < 1 ? 1 : (unsigned)g;
  }
  CUresult r;
  if (j->k->kind == KC_KERNEL_SCAN && !tiles) {
    a->pass = 0;
    if ((r = run(s, j, params)) != CUDA_SUCCESS)
      return launch_error(s, r, j->k, j->grid, j->bx * j->by,
                          (unsigned)j->smem);
    a->pass = 1;
    a->result = NULL;
    /* The second pass reads the functor from the same place: cuLaunchKernel
     * copied the parameters (and the staged copy is still in its slot). */
  }
  if ((r = timed_run(s, j, params)) != CUDA_SUCCESS)
    return launch_error(s, r, j->k, j->grid, j->bx * j->by, (unsigned)j->smem);
  if (to_host && l->result) {
    if ((rc = done ? wait_done(s, done)
              : (r = s->cu->cuStreamSynchronize(s->cur->stream))
                  ? kc__cuda_fail(s, r, KC_EDEVICE,
                                  "waiting for a reduction's result")
                  : 0) != 0)
      return rc;
    memcpy(l->result, s->cur->res_host, vs);
  }
  return 0;
}

int kc__cuda_launch(void *state, const kc_launch *l) {
  kc__cuda_state *s = state;
  /* The queue's lane (queues.c), or the default queue's, and its device:
   * the kernel's state there (the core's is the default device's). */
  kc__cuda_lane *L = l->queue ? (kc__cuda_lane *)l->queue : &s->main;
  job j;
  j.l = l;
  j.k = l->kernel;
  j.K = l->kernel_state;
  int rc;
  if (L->dev != s) {
    s = L->dev;
    if ((rc = kc__cuda_up(s)) != 0 ||
        (rc = kc__cuda_kernel_on(s, l->kernel, &j.K)) != 0)
      return rc;
  }
  if ((rc = kc__cuda_up(s)) != 0)
    return rc;
  s->cur = L;
  if (j.k->kind == KC_KERNEL_CALL)
    return launch_call(s, j.K, l, l->policy.end[0] - l->policy.begin[0]);
  j.mode = choose_mode(s, j.K, l);
  j.e = j.mode == MODE_PARAM ? &j.K->p : &j.K->g;
  /* The geometry first: a policy this device cannot run (a vector length
   * of 3, a team larger than a block, too much scratch, a range too near
   * INT64_MAX) is refused whether or not it is empty, as its reduction
   * is. */
  if ((rc = geometry(s, &j)) != 0)
    return rc;
  if (nothing_to_do(l))
    return 0;

  /* The functor: its bytes (by value) or the address of its staged copy. */
  static const unsigned char zeros[64];
  CUdeviceptr fptr = 0;
  const void *fparam = l->functor;
  if (j.mode == MODE_PARAM) {
    if (l->functor_size == 0)
      fparam = zeros; /* an empty C struct is one byte in C++ */
  } else {
    if ((rc = kc__cuda_stage(s, j.K, l->functor, l->functor_size,
                             j.mode == MODE_GLOBAL, &fptr)) != 0)
      return rc;
    fparam = &fptr;
  }
  void *params[2] = {j.args, (void *)fparam};

  s->last_kernel = j.k->name;
  if (kc__cuda_kind_reduces(j.k->kind))
    return launch_reduce(s, &j, params);
  CUresult r = timed_run(s, &j, params);
  if (r)
    return launch_error(s, r, j.k, j.grid, j.bx * j.by, (unsigned)j.smem);
  return 0;
}
