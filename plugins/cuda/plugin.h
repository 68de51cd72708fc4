/* kc CUDA plugin — its state, shared by the plugin's files.
 *
 * The core allocates `kc__cuda_state` (zeroed) and one `kc__cuda_kernel` per
 * kernel, and serialises every call into the plugin (backend.h), so nothing
 * here needs a lock.  Everything a launch needs is found through these two
 * structs: no lookups and no system calls beyond the driver calls
 * themselves happen on the launch path, and no allocation but the growth
 * of a buffer a launch outgrows (staging.c).
 *
 * Files by job: cuda.c (init, finalize, info, memory, fence), driver.c
 * (loading the Driver API, cu.h), module.c (modules, kernel_prepare),
 * geometry.c (block sizes, MD and team geometry), staging.c (device buffers
 * and the functor staging ring, per lane), launch.c (the launch slot),
 * queues.c (queues and events: a lane per queue).
 */
#ifndef KC_CUDA_PLUGIN_H
#define KC_CUDA_PLUGIN_H

#include <kc/backend.h>
#include <kc/detail/cuda_abi.h>

#include "cu.h"

/* How a 1-D for sizes its grid (KC_CUDA_GRID, launch.c): TUNE, the
 * default, measures WIDE against FULL grids on its first launches
 * (tune.c). */
enum { GRID_RESIDENT = 0, GRID_FULL, GRID_WIDE, GRID_TUNE };

/* KC_CUDA_REDUCE_WAVES when unset (doc/backends.md, "Grid size"). */
#define KC_CUDA_REDUCE_WAVES_DEFAULT 1

/* 1-D ranges and MD boxes end at most this far below INT64_MAX: the
 * device's grid-stride loops, block chunks and tile loops step past the
 * end by less than a grid's threads (2^31 blocks of 1024) times the chunk
 * rounding, or a block's threads. */
#define KC_CUDA_INDEX_SLACK ((kc_index)1 << 44)

/* How a functor reaches the kernel (KC_CUDA_LAUNCH). */
enum { MODE_AUTO = 0, MODE_PARAM, MODE_CONSTANT, MODE_GLOBAL };

/* The functor staging ring: pinned host memory cut into slots as functors
 * come (256-byte aligned, wrapping).  A launch writes its functor into the
 * next slot and queues cuMemcpyHtoDAsync from it on the stream, to the
 * module's __constant__ region (constant mode) or to the same offset of a
 * global-memory buffer of the ring's size (global mode); the copy waits for
 * the kernels before it, so the device side needs no guard, and
 * consecutive launches never wait for each other.  A slot's host bytes may
 * be rewritten once its copy has run: one event per half ring, recorded
 * when the ring moves on to the other half and waited for before that half
 * is refilled (the scheme that measured best: doc/design.md, "The launch
 * path of each backend").  The device side needs no event: a launch that
 * reuses a staged copy (kc__cuda_staged) may be queued after its half's
 * event, but every later copy into that slot is queued on the same stream
 * behind it. */
typedef struct kc__cuda_ring {
  unsigned char *host; /* pinned, `size` bytes; NULL until first use */
  /* Pageable, `size` bytes, the same slots: functors of at most
   * PAGED_MAX bytes (staging.c) are copied from here instead. */
  unsigned char *paged;
  size_t size;
  size_t cursor; /* next free offset */
  int half;      /* the half the cursor is in */
  int pending[2];
  int big; /* the last reservation took the whole ring: record ev[0] */
  CUevent ev[2];
  CUdeviceptr dev; /* global mode's device buffer (size bytes), or 0 */
  /* Per half: a number, unique in the process, given each time the half
   * is (re)filled from its start; while a slot's half still has the number
   * it had when the slot was filled, no later copy has been queued into
   * the same offset of `dev` (global mode: kc__cuda_staged's device copy
   * is intact; a constant slot has kc__cuda_module.staging_mono's check
   * instead). */
  unsigned long long stamp[2];
} kc__cuda_ring;

/* One PTX module: loaded once per PTX text (several kernels of one .kc.c
 * file share it), with its constant staging region and ring. */
typedef struct kc__cuda_module {
  const char *ptx;
  CUmodule mod;
  CUdeviceptr staging; /* KC_CUDA_STAGING_SYMBOL, or 0 */
  size_t staging_size;
  size_t staging_next; /* where the next constant-mode functor goes */
  /* Bytes handed out of the region so far, a wrap's unused tail included
   * (so staging_next == staging_mono % staging_size): the slot handed out
   * at position P is intact while staging_mono - P <= staging_size. */
  unsigned long long staging_mono;
  int md_flags;    /* its MD entries read kc_cuda_args.flags */
  int result_done; /* its reductions honour KC_CUDA_RESULT_DONE */
  int scan_tile;   /* KC_CUDA_SCAN_TILE_SYMBOL: a scan is one pass, of
                      tiles of block * scan_tile indices; 0: two */
  int users;       /* kernels prepared on it */
  struct kc__cuda_module *next;
} kc__cuda_module;

/* Resident blocks per SM of one entry for a block size and dynamic shared
 * memory (MD and team launches choose their block per launch). */
typedef struct kc__cuda_occ {
  unsigned block;
  unsigned smem;
  int bps; /* 0: not filled */
} kc__cuda_occ;
#define KC__CUDA_OCC_SLOTS 32

/* The run-time choice of a 1-D for's grid (KC_CUDA_GRID=tune, tune.c),
 * for one entry and the ranges of one bit length that the wide grid
 * would cover with more than the resident blocks.  Candidate 0 is the
 * wide grid at the entry's block; the others a thread per index at the
 * entry's block and at blocks of 256 and 512 where the function allows
 * them and the class's longest range fits a grid.  A 1-D reduction's slot
 * (`reduce`, under KC_CUDA_REDUCE_WAVES > 1) has two: its resident grid
 * and the waves of it, both at the entry's rblock.  The first launches of such
 * a range time the candidates in turn (KC__CUDA_TUNE_REPS rounds, a pair of
 * events around each, read at a later launch once the end event has completed,
 * never waited for); the least time of each then picks the grid every later
 * launch uses, and the slot's events are destroyed. */
#define KC__CUDA_TUNE_CANDS 4
#define KC__CUDA_TUNE_REPS 3
#define KC__CUDA_TUNE_SLOTS 4
typedef struct kc__cuda_tune {
  int cls;    /* the ranges' bit length; 0: the slot is free */
  int ncand;  /* candidates (1 .. KC__CUDA_TUNE_CANDS) */
  int reduce; /* a 1-D reduction's slot: resident grid or waves */
  unsigned block[KC__CUDA_TUNE_CANDS];
  unsigned char full[KC__CUDA_TUNE_CANDS]; /* 0: wide, 1: full (a
                                              reduction: resident, waves) */
  float best[KC__CUDA_TUNE_CANDS];         /* least ms measured, scaled to
                                              2^(cls-1) indices; 0: none */
  int trials;                              /* measurements taken */
  int pending;        /* the candidate ev[] are timing, or -1 */
  kc_index pending_n; /* the range length of that launch */
  int choice;         /* the candidate chosen, or -1 while measuring */
  CUevent ev[2];
} kc__cuda_tune;

/* One device entry with its launch geometry, deduced once. */
typedef struct kc__cuda_entry {
  CUfunction fn; /* NULL if the module has no such entry */
  unsigned block;
  unsigned max_grid; /* resident blocks on the whole device at `block` */
  unsigned smem;     /* dynamic shared memory per block */
  /* A 1-D reduction with a built-in join whose range fills the resident
   * grid: the largest block at the best occupancy, its resident grid and
   * dynamic shared memory (launch.c, range_args); block, max_grid and smem
   * for every other entry. */
  unsigned rblock, rgrid, rsmem;
  unsigned fmax;     /* most threads per block the function allows */
  unsigned fstatic;  /* its static shared memory */
  unsigned dyn_attr; /* MAX_DYNAMIC_SHARED_SIZE_BYTES set on it, or 0 */
  kc__cuda_occ occ[KC__CUDA_OCC_SLOTS]; /* by (block + 31) / 32 - 1 */
  kc__cuda_tune tune[KC__CUDA_TUNE_SLOTS];
} kc__cuda_entry;

/* A kernel's last staged functor (constant and global modes): the device
 * address the kernel read it from, and a copy of its bytes of the
 * kernel's own (the shadow).  A launch whose functor has the same bytes,
 * on the same lane and in the same mode, while the device copy is intact,
 * passes that address again and copies nothing (kc__cuda_stage).  A
 * kernel keeps its last two whole copies (kc__cuda_kernel.staged[0], the
 * latest, and [1]), so that two functors launched in turn (pointers
 * swapped between sweeps, say) each find theirs.  One
 * whose bytes differ from the shadow only within a span of at most half
 * of them copies that span alone, into the same device address (a patch:
 * the launches that read the old bytes are before it on the stream).  A
 * kernel whose functor changed by more than that at two launches in a
 * row then skips the compare at its next 7 launches on the same lane, in
 * the same size and mode, and the shadow's upkeep with it (from the
 * launch that found the second change on); the last of them refills the
 * shadow, and the launch after it compares again: one more wide change
 * then skips the next 7 at once (misses stays until a launch matches or
 * patches). */
typedef struct kc__cuda_staged {
  const struct kc__cuda_lane *lane; /* NULL: nothing staged */
  int global;
  size_t n;                    /* functor bytes */
  int halves;                  /* the ring halves the slot's ring offset
                                  spans (bits 0, 1; read in global mode,
                                  where that is the device slot) */
  unsigned long long stamp[2]; /* those halves' stamps when it was filled */
  unsigned long long cpos;     /* constant mode: the region's staging_mono
                                  where the slot starts */
  CUdeviceptr dev;
  unsigned char *shadow; /* malloc'd, shadow_cap bytes, or NULL */
  size_t shadow_cap;
  int shadow_ok;         /* the shadow holds the device copy's n bytes */
  unsigned misses, skip; /* changed functors in a row; compares to skip */
} kc__cuda_staged;

/* Per kernel (the core's kernel_state bytes). */
typedef struct kc__cuda_kernel {
  kc__cuda_module *mod;
  kc__cuda_entry p;    /* <entry>__kcp, functor by value */
  kc__cuda_entry g;    /* <entry>__kcg, functor through a pointer */
  kc__cuda_entry call; /* CALL kernels: <entry> itself */
  size_t param_off;    /* offset of the functor parameter of __kcp */
  size_t param_size;   /* its size, 0 if the driver cannot say */
  size_t value_size;
  size_t args_size;   /* sizeof the entry's first parameter (kc_cuda_args,
                         kc_cuda_md_args or kc_cuda_team_args) */
  int ordered;        /* custom reducer: contiguous chunks (a.chunk) */
  int geometry_noted; /* KC_VERBOSE showed an MD/team launch's shape */
  kc_cuda_args proto; /* ident filled once */
  int fallback_noted; /* KC_VERBOSE said once that a forced mode fell back */
  kc__cuda_staged staged[2]; /* [0]: the latest; misses, skip: [0]'s */
} kc__cuda_kernel;

/* A stream and the device buffers its launches use: the default queue's
 * (kc__cuda_state.main) and one per kc queue (queues.c).  Launches on one
 * lane share its buffers in stream order; two lanes share none, so their
 * work may overlap.  Reductions and scans: one value per block, the
 * last-block counter, and the mapped pinned slot a blocking reduction's
 * result lands in.  Level-1 team scratch: block b of a team launch uses
 * the slice at b * (bytes per team).  Buffers grow (after a synchronisation
 * of the lane's stream) when a launch needs more, never shrink. */
typedef struct kc__cuda_lane {
  struct kc__cuda_state *dev; /* the device the lane's stream is on */
  CUstream stream;
  kc__cuda_ring ring; /* functor staging (constant and global modes) */
  CUdeviceptr partials;
  size_t partials_size;
  CUdeviceptr counter;
  void *res_host;
  CUdeviceptr res_dev;
  size_t res_size;
  CUdeviceptr scratch1;
  size_t scratch1_size;
  CUdeviceptr tiles; /* single-pass scans: the tiles' state */
  size_t tiles_size;
  unsigned epoch; /* the last single-pass scan's on `tiles` (0: none) */
} kc__cuda_lane;

/* A kernel prepared on a device other than the default one: its
 * kc__cuda_kernel for that device's context (the default device's lives
 * in the core's kernel_state). */
typedef struct kc__cuda_kstate {
  const kc_kernel_info *k;
  struct kc__cuda_kstate *next;
  int prepared;
  kc__cuda_kernel K;
} kc__cuda_kstate;

/* Devices kc can name (Kokkos Tools' device ids have 7 bits for it). */
#define KC__CUDA_MAX_DEVICES 128

/* One device: its primary context, properties, modules and default lane.
 * The core's plugin state is the default device's (KC_DEVICE); it opens
 * the others when a queue or an allocation first names them (`devs`,
 * kc__cuda_device) and closes them at finalize.  Everything but `devs`,
 * `nphys` and `top` is per device. */
typedef struct kc__cuda_state {
  const kc__cu_api *cu;
  struct kc__cuda_state *top; /* the default device's state */
  int ordinal, ndev, driver_version;
  int physical; /* the driver's ordinal (ordinal modulo nphys) */
  int nphys;    /* devices the driver sees (ndev: what kc offers) */
  CUdevice dev;
  CUcontext ctx;
  unsigned generation; /* of this init, for kc__cuda_current */
  kc_device_info info;
  int max_threads_per_sm;
  size_t max_param; /* kernel parameter bytes the driver takes */
  /* The stream can write 64-bit values itself (cuStreamWriteValue64 and
   * the device's attribute): staging.c writes a functor span of a word or
   * two that way instead of copying it. */
  int stream_writes;
  int mode;      /* forced launch mode, MODE_AUTO if none */
  int grid_mode; /* KC_CUDA_GRID: how a 1-D for sizes its grid (GRID_*) */
  /* KC_CUDA_REDUCE_WAVES: a large 1-D reduction's grid, at most this many
   * times the resident blocks (launch.c, reduce_waves) */
  unsigned reduce_waves;
  int scan_onepass; /* KC_CUDA_SCAN: 1 (one, the default) or 0 (two) */
  int verbose;
  /* A fault that made the context unusable; every later call reports it. */
  CUresult sticky;
  const char *last_kernel; /* name of the latest kernel launched */
  kc__cuda_module *modules;
  kc__cuda_lane main; /* the default queue */
  /* The lane of the slot running now (set by launch and the copy slots,
   * under the runtime lock): &main or a queue's. */
  kc__cuda_lane *cur;
  kc__cuda_kstate *kstates; /* kernels prepared here (not on top) */
  struct kc__cuda_state *devs[KC__CUDA_MAX_DEVICES]; /* top only */
} kc__cuda_state;

/* The state of device `device` (0 .. ndev - 1) of `top`: top itself, or
 * the device opened on first use (its primary context retained, its
 * default lane made).  0 and *out, or a KC_E code with a detail. */
int kc__cuda_device(kc__cuda_state *top, int device, kc__cuda_state **out);

/* Kernel k's state on device s (s not top): prepared on first use. */
int kc__cuda_kernel_on(kc__cuda_state *s, const kc_kernel_info *k,
                       kc__cuda_kernel **out);

/* Makes the plugin's context current on the calling thread (cheap when it
 * already is: a thread-local compare). */
int kc__cuda_current(kc__cuda_state *s);

/* Turns a failed driver call into a kc error: a fault that poisons the
 * context becomes KC_ESTICKY (and is remembered); CUDA_ERROR_OUT_OF_MEMORY
 * KC_ENOMEM; anything else `code`.  `what` says which operation. */
int kc__cuda_fail(kc__cuda_state *s, CUresult r, int code, const char *what);

/* KC_ESTICKY with the remembered fault, for calls after it. */
int kc__cuda_sticky(kc__cuda_state *s);

/* What every slot that talks to the device checks first: no remembered
 * fault (else KC_ESTICKY), and the plugin's context current here. */
static inline int kc__cuda_up(kc__cuda_state *s) {
  return s->sticky ? kc__cuda_sticky(s) : kc__cuda_current(s);
}

#define KC__ALIGN_UP(x, a) (((x) + (a)-1) / (a) * (a))

/* a / b rounded up, for a >= 0 and b > 0, without overflow near
 * INT64_MAX. */
static inline kc_index kc__cdiv(kc_index a, kc_index b) {
  return a / b + (a % b != 0);
}

/* Kernel kinds that carry a value (reductions and scans). */
static inline int kc__cuda_kind_reduces(kc_kernel_kind k) {
#define KC__X(K, n, p, v, c) k == KC_KERNEL_##K ? v:
  return KC_KERNEL_KIND_MAP(KC__X) 0;
#undef KC__X
}

/* module.c: the kernel slots. */
int kc__cuda_kernel_prepare(void *state, const kc_kernel_info *k,
                            void *kernel_state);
void kc__cuda_kernel_release(void *state, const kc_kernel_info *k,
                             void *kernel_state);

/* geometry.c.  deduce: entry e's block size, resident grid and dynamic
 * shared memory, once (Kokkos' block-size rule; with `largest`, also the
 * largest block at the best occupancy, as rblock).  occupancy: resident
 * blocks per SM at a block size and dynamic shared memory, cached per
 * entry.  md_geometry / team_geometry: one launch's tiles, block, grid,
 * shared memory and arguments, every limit checked before anything is
 * queued (team_geometry may grow the level-1 scratch). */
int kc__cuda_deduce(kc__cuda_state *s, const char *kname, kc__cuda_entry *e,
                    size_t smem_per_thread, int largest);
int kc__cuda_occupancy(kc__cuda_state *s, kc__cuda_entry *e, unsigned block,
                       size_t smem, int *bps);
int kc__cuda_md_geometry(kc__cuda_state *s, const kc__cuda_entry *e,
                         const kc_launch *l, int flags, int left,
                         kc_cuda_md_args *m, unsigned *bx, unsigned *by);
int kc__cuda_team_geometry(kc__cuda_state *s, kc__cuda_entry *e,
                           const kc_launch *l, kc_cuda_team_args *ta,
                           unsigned *vlp, unsigned *tsp, size_t *smemp,
                           unsigned *gridp);

/* staging.c, on the current lane (s->cur).  grow: makes *buf at least
 * `bytes` of device memory (rounded up to `align`); when it must grow,
 * waits for the lane's stream (an earlier launch may still use the old
 * buffer), frees it and allocates; on failure nothing is held.
 * ensure_partials / ensure_result_slot: the reduction scratch and the
 * mapped pinned result slot, grown likewise.  scan_tiles: the state of
 * a single-pass scan over `ntiles` tiles of values of `vs` bytes
 * (detail/cuda_abi.h) and the launch's epoch; zeroed when new or when the
 * epochs start over.  stage: kernel K's functor: copies it
 * into the lane's ring and queues its copy to the device, unless the
 * bytes K read at its last launch are still there (kc__cuda_staged), or
 * only the span of them that changed (a patch of that copy); what fits in
 * two 8-byte words is written by the stream instead (stream_writes);
 * *dst gets
 * the address the kernel reads it from (`global`: global memory, else the
 * module's constant region, used on the main lane only).  lane_open /
 * lane_close: a lane's stream and counter, and everything it grew.
 * launch_finalize: the modules. */
int kc__cuda_grow(kc__cuda_state *s, CUdeviceptr *buf, size_t *size,
                  size_t bytes, size_t align, const char *what);
int kc__cuda_ensure_partials(kc__cuda_state *s, size_t bytes);
int kc__cuda_ensure_result_slot(kc__cuda_state *s, size_t bytes);
int kc__cuda_scan_tiles(kc__cuda_state *s, unsigned ntiles, size_t vs,
                        unsigned *epoch);
int kc__cuda_stage(kc__cuda_state *s, kc__cuda_kernel *K, const void *src,
                   size_t n, int global, CUdeviceptr *dst);
void kc__cuda_staged_free(kc__cuda_staged st[2]);
int kc__cuda_lane_open(kc__cuda_state *s, kc__cuda_lane *L, unsigned flags);
void kc__cuda_lane_close(kc__cuda_state *s, kc__cuda_lane *L);
void kc__cuda_launch_finalize(kc__cuda_state *s);

/* cuda.c: a copy or fill on lane L (async 0: complete on return). */
int kc__cuda_copy(kc__cuda_state *s, kc__cuda_lane *L, void *dst,
                  kc_space dst_space, const void *src, kc_space src_space,
                  size_t bytes, int async);
int kc__cuda_set(kc__cuda_state *s, kc__cuda_lane *L, void *p, kc_space space,
                 int value, size_t bytes, int async);

/* queues.c: the ABI 1.1 queue and event slots. */
int kc__cuda_queue_create(void *state, int device, void **queue);
void kc__cuda_queue_destroy(void *state, void *queue);
int kc__cuda_queue_fence(void *state, void *queue);
int kc__cuda_event_create(void *state, void **event);
void kc__cuda_event_destroy(void *state, void *event);
int kc__cuda_event_record(void *state, void *event, void *queue);
int kc__cuda_event_wait(void *state, void *queue, void *event);
int kc__cuda_event_synchronize(void *state, void *event);
int kc__cuda_event_query(void *state, void *event);
int kc__cuda_event_elapsed(void *state, void *start, void *end, double *ms);
int kc__cuda_mem_copy_on(void *state, void *queue, void *dst,
                         kc_space dst_space, const void *src,
                         kc_space src_space, size_t bytes);
int kc__cuda_mem_set_on(void *state, void *queue, void *p, kc_space space,
                        int value, size_t bytes);

/* tune.c (no driver calls but the events' destruction).  slot: entry
 * e's tuning slot for ranges of n >= 1 indices, for a for (reduce 0) or a
 * 1-D reduction (reduce 1), claimed (its candidates set) if no slot has
 * their bit length and use yet; NULL when every slot holds another.  next: the
 * candidate the next timed launch runs, or -1 once chosen.  pick: the candidate
 * a launch not timed runs (the choice, else the fastest measured, else 0).
 * record: candidate c took `ms` on a range of n indices (n <= 0: taken as is);
 * after the last trial, makes the choice and returns 1.  end: ends t's tuning
 * on candidate c and destroys its events (through `cu`, the entry's context
 * current; a kernel's slots would otherwise hold two for as long as it lives).
 * free: ends every slot of e and clears them. */
kc__cuda_tune *kc__cuda_tune_slot(kc__cuda_entry *e, kc_index n, int reduce);
int kc__cuda_tune_next(const kc__cuda_tune *t);
int kc__cuda_tune_pick(const kc__cuda_tune *t);
int kc__cuda_tune_record(kc__cuda_tune *t, int c, float ms, kc_index n);
void kc__cuda_tune_end(const kc__cu_api *cu, kc__cuda_tune *t, int c);
void kc__cuda_tune_free(const kc__cu_api *cu, kc__cuda_entry *e);

/* launch.c: the launch slot. */
int kc__cuda_launch(void *state, const kc_launch *l);

#endif /* KC_CUDA_PLUGIN_H */
