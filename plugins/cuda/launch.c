/* kc CUDA plugin — modules, launch geometry, functor staging and launches.
 *
 * kernel_prepare does everything that needs a lookup, once per kernel:
 * loads the PTX module (once per PTX text), finds the entries, reads the
 * parameter layout, deduces the block size and the resident grid, sizes the
 * reduction scratch.  A launch then only picks the functor's way in, fills
 * the kc_cuda_args, and calls the driver.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

#define ALIGN_UP(x, a) (((x) + (a)-1) / (a) * (a))

/* a / b rounded up, for a >= 0 and b > 0, without overflow near
 * INT64_MAX. */
static inline kc_index cdiv(kc_index a, kc_index b) {
  return a / b + (a % b != 0);
}

/* 1-D ranges end at most this far below INT64_MAX: the device's grid-stride
 * loops and block chunks step past the end by less than a grid's threads
 * (2^31 blocks of 1024) times the chunk rounding. */
#define KC_CUDA_INDEX_SLACK ((kc_index)1 << 44)

/* Initial size of the staging ring (grown for a functor over half of it). */
#define RING_BYTES (4u << 20)

/* ------------------------------------------------------------ modules */

static int module_load(kc__cuda_state *s, const kc_kernel_info *k,
                       kc__cuda_module **out) {
  for (kc__cuda_module *m = s->modules; m; m = m->next)
    if (m->ptx == k->ptx) {
      m->users++;
      *out = m;
      return 0;
    }
  const kc__cu_api *cu = s->cu;
  kc__cuda_module *m = calloc(1, sizeof *m);
  if (!m)
    return kc_backend_error(KC_ENOMEM, "cuda: out of memory");
  static char elog[16384], ilog[4096];
  elog[0] = ilog[0] = 0;
  int opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {elog, (void *)(uintptr_t)sizeof elog, ilog,
                  (void *)(uintptr_t)sizeof ilog};
  CUresult r = cu->cuModuleLoadDataEx(&m->mod, k->ptx, 4, opts, vals);
  if (r != CUDA_SUCCESS) {
    free(m);
    if (kc__cu_is_sticky(r))
      return kc__cuda_fail(s, r, KC_EJIT, "cuModuleLoadDataEx");
    size_t n = strlen(elog);
    while (n && (elog[n - 1] == '\n' || elog[n - 1] == ' '))
      elog[--n] = 0;
    return kc_backend_error(KC_EJIT,
                            "cuda: kernel '%s': the driver could not load "
                            "its PTX: %s%s%s",
                            k->name, kc__cu_errstr(r),
                            n ? "; JIT log:\n" : " (the JIT left no log)",
                            elog);
  }
  if (ilog[0])
    kc_backend_verbose("cuda: JIT of '%s': %s", k->name, ilog);
  m->ptx = k->ptx;
  r = strstr(k->ptx, KC_CUDA_STAGING_SYMBOL)
          ? cu->cuModuleGetGlobal(&m->staging, &m->staging_size, m->mod,
                                  KC_CUDA_STAGING_SYMBOL)
          : CUDA_ERROR_NOT_FOUND;
  if (r != CUDA_SUCCESS) {
    m->staging = 0; /* a module not built from kernel.h, or without it */
    m->staging_size = 0;
  }
  m->users = 1;
  m->next = s->modules;
  s->modules = m;
  *out = m;
  return 0;
}

static void ring_free(kc__cuda_state *s, kc__cuda_ring *r) {
  const kc__cu_api *cu = s->cu;
  for (int h = 0; h < 2; h++)
    if (r->ev[h])
      cu->cuEventDestroy(r->ev[h]);
  if (r->host)
    cu->cuMemFreeHost(r->host);
  if (r->dev)
    cu->cuMemFree(r->dev);
  memset(r, 0, sizeof *r);
}

static void module_put(kc__cuda_state *s, kc__cuda_module *m) {
  if (--m->users > 0)
    return;
  for (kc__cuda_module **p = &s->modules; *p; p = &(*p)->next)
    if (*p == m) {
      *p = m->next;
      break;
    }
  s->cu->cuModuleUnload(m->mod);
  free(m);
}

/* ------------------------------------------------------------ geometry */

/* Kokkos' cuda_deduce_block_size: over block sizes from the largest the
 * function allows down to 32, the one with the most resident threads per
 * SM; at equal occupancy the smaller block, but not below 128.
 * `smem_per_thread` is the dynamic shared memory each thread needs. */
static int deduce(kc__cuda_state *s, const char *kname, kc__cuda_entry *e,
                  size_t smem_per_thread) {
  const kc__cu_api *cu = s->cu;
  int fmax = 0, fstatic = 0;
  cu->cuFuncGetAttribute(&fmax, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, e->fn);
  cu->cuFuncGetAttribute(&fstatic, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, e->fn);
  int maxb = s->info.max_threads_per_block;
  if (fmax > 0 && fmax < maxb)
    maxb = fmax;
  e->fmax = (unsigned)maxb;
  e->fstatic = (unsigned)(fstatic > 0 ? fstatic : 0);
  maxb -= maxb % 32;
  size_t smem_limit = s->info.shared_memory_per_block > (size_t)fstatic
                          ? s->info.shared_memory_per_block - (size_t)fstatic
                          : 0;
  int best = 0, best_tps = 0, best_bps = 0;
  for (int b = maxb; b > 0; b -= 32) {
    size_t dyn = (size_t)b * smem_per_thread;
    if (dyn > smem_limit)
      continue;
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
    if (bps >= 1 && (tps > best_tps || (b >= 128 && tps == best_tps))) {
      best = b;
      best_tps = tps;
      best_bps = bps;
    }
  }
  if (best == 0)
    return kc_backend_error(KC_ESCRATCH,
                            "cuda: kernel '%s': no block size fits the "
                            "device (%zu bytes of shared memory per thread, "
                            "%zu per block available)",
                            kname, smem_per_thread, smem_limit);
  e->block = (unsigned)best;
  e->max_grid = (unsigned)best_bps * (unsigned)s->info.multiprocessors;
  e->smem = (unsigned)((size_t)best * smem_per_thread);
  return 0;
}

/* Resident blocks per SM of entry e at `block` threads and `smem` bytes of
 * dynamic shared memory (capped by the SM's thread limit), cached per
 * block size.  A request over the default 48 KB first raises the
 * function's limit to all the device lets a block opt into. */
static int occupancy(kc__cuda_state *s, kc__cuda_entry *e, unsigned block,
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

static int find_entry(kc__cuda_state *s, kc__cuda_kernel *K, const char *base,
                      const char *suffix, CUfunction *fn) {
  char name[512];
  if (snprintf(name, sizeof name, "%s%s", base, suffix) >= (int)sizeof name)
    return kc_backend_error(KC_EINVAL, "cuda: entry name '%s%s' is too long",
                            base, suffix);
  /* Hand-written PTX often lacks an entry; not asking the driver for a name
   * the text does not hold keeps its error log (and compute-sanitizer's
   * API error report) clean. */
  if (!strstr(K->mod->ptx, name)) {
    *fn = NULL;
    return 0;
  }
  CUresult r = s->cu->cuModuleGetFunction(fn, K->mod->mod, name);
  if (r == CUDA_ERROR_NOT_FOUND) {
    *fn = NULL;
    return 0;
  }
  return r ? kc__cuda_fail(s, r, KC_EJIT, "cuModuleGetFunction") : 0;
}

/* Reduction scratch: one value per resident block.  Grown here, never on
 * the launch path; the stream is drained first because an earlier launch
 * may still use the old buffer. */
static int ensure_partials(kc__cuda_state *s, size_t bytes) {
  if (bytes <= s->partials_size)
    return 0;
  const kc__cu_api *cu = s->cu;
  CUresult r = cu->cuStreamSynchronize(s->stream);
  if (r)
    return kc__cuda_fail(s, r, KC_EDEVICE, "cuStreamSynchronize");
  if (s->partials)
    cu->cuMemFree(s->partials);
  s->partials = 0;
  s->partials_size = 0;
  bytes = ALIGN_UP(bytes, 4096);
  if ((r = cu->cuMemAlloc(&s->partials, bytes)) != CUDA_SUCCESS)
    return kc__cuda_fail(s, r, KC_ENOMEM, "allocating reduction scratch");
  s->partials_size = bytes;
  return 0;
}

static int ensure_result_slot(kc__cuda_state *s, size_t bytes) {
  if (bytes <= s->res_size)
    return 0;
  const kc__cu_api *cu = s->cu;
  CUresult r = cu->cuStreamSynchronize(s->stream);
  if (r)
    return kc__cuda_fail(s, r, KC_EDEVICE, "cuStreamSynchronize");
  if (s->res_host)
    cu->cuMemFreeHost(s->res_host);
  s->res_host = NULL;
  s->res_size = 0;
  bytes = ALIGN_UP(bytes < 256 ? 256 : bytes, 256);
  if ((r = cu->cuMemHostAlloc(&s->res_host, bytes,
                              CU_MEMHOSTALLOC_PORTABLE |
                                  CU_MEMHOSTALLOC_DEVICEMAP)) != CUDA_SUCCESS)
    return kc__cuda_fail(s, r, KC_ENOMEM, "allocating the result slot");
  if ((r = cu->cuMemHostGetDevicePointer(&s->res_dev, s->res_host, 0)) !=
      CUDA_SUCCESS)
    return kc__cuda_fail(s, r, KC_EDEVICE, "cuMemHostGetDevicePointer");
  s->res_size = bytes;
  return 0;
}

int kc__cuda_kernel_prepare(void *state, const kc_kernel_info *k,
                            void *kernel_state) {
  kc__cuda_state *s = state;
  kc__cuda_kernel *K = kernel_state;
  if (s->sticky)
    return kc__cuda_sticky(s);
  int rc = kc__cuda_current(s);
  if (rc)
    return rc;
  size_t args_size = sizeof(kc_cuda_args);
  switch (k->kind) {
  case KC_KERNEL_FOR:
  case KC_KERNEL_REDUCE:
  case KC_KERNEL_SCAN:
  case KC_KERNEL_CALL:
    break;
  case KC_KERNEL_MDFOR:
  case KC_KERNEL_MDREDUCE:
    args_size = sizeof(kc_cuda_md_args);
    break;
  case KC_KERNEL_TEAM:
  case KC_KERNEL_TEAM_REDUCE:
    args_size = sizeof(kc_cuda_team_args);
    break;
  default:
    return kc_backend_error(KC_ENOTSUP,
                            "cuda: kernel '%s': kind %d is unknown to the "
                            "CUDA backend",
                            k->name, (int)k->kind);
  }
  if (!k->ptx)
    return kc_backend_error(KC_ENOKERNEL,
                            "kernel '%s' has no PTX: rebuild its .kc.c with "
                            "kcc and a PTX compiler (KC_NVCC)",
                            k->name);
  memset(K, 0, sizeof *K);
  if ((rc = module_load(s, k, &K->mod)) != 0)
    return rc;

  if (k->kind == KC_KERNEL_CALL) {
    if ((rc = find_entry(s, K, k->ptx_entry, "", &K->call.fn)) != 0)
      goto fail;
    if (!K->call.fn) {
      rc = kc_backend_error(KC_ENOKERNEL,
                            "cuda: kernel '%s': its PTX has no entry '%s'",
                            k->name, k->ptx_entry);
      goto fail;
    }
    if ((rc = deduce(s, k->name, &K->call, 0)) != 0)
      goto fail;
    return 0;
  }

  if ((rc = find_entry(s, K, k->ptx_entry, KC_CUDA_ENTRY_PARAM, &K->p.fn)) ||
      (rc = find_entry(s, K, k->ptx_entry, KC_CUDA_ENTRY_GLOBAL, &K->g.fn)))
    goto fail;
  if (!K->g.fn) {
    rc = kc_backend_error(KC_ENOKERNEL,
                          "cuda: kernel '%s': its PTX has no entry '%s%s' "
                          "(kernels for kc_parallel_for/reduce/scan come "
                          "from <kc/kernel.h> built with kcc)",
                          k->name, k->ptx_entry, KC_CUDA_ENTRY_GLOBAL);
    goto fail;
  }
  const int reducing =
      k->kind == KC_KERNEL_REDUCE || k->kind == KC_KERNEL_SCAN ||
      k->kind == KC_KERNEL_MDREDUCE || k->kind == KC_KERNEL_TEAM_REDUCE;
  K->value_size = reducing ? k->value_size : 0;
  K->args_size = args_size;
  K->ordered = k->kind != KC_KERNEL_SCAN && reducing &&
               k->reducer.op == KC_REDUCE_CUSTOM;
  /* 1-D reductions and scans combine a block's values in dynamic shared
   * memory; MD and team kernels use shuffles and static shared memory, and
   * a team's dynamic shared memory is its level-0 scratch (sized per
   * launch). */
  const size_t smem_per_thread =
      (k->kind == KC_KERNEL_REDUCE || k->kind == KC_KERNEL_SCAN) ? K->value_size
                                                                 : 0;
  if (reducing && k->reducer.op != KC_REDUCE_CUSTOM) {
    if (k->value_size > sizeof K->proto.ident || !k->reducer.identity) {
      rc = kc_backend_error(KC_EINVAL,
                            "cuda: kernel '%s': built-in reducer without a "
                            "host identity of at most %zu bytes",
                            k->name, sizeof K->proto.ident);
      goto fail;
    }
    k->reducer.identity(K->proto.ident);
  }
  if ((rc = deduce(s, k->name, &K->g, smem_per_thread)) != 0)
    goto fail;
  if (K->p.fn) {
    if ((rc = deduce(s, k->name, &K->p, smem_per_thread)) != 0)
      goto fail;
    /* Where and how large the functor parameter really is (CUDA >= 12.4):
     * it guards against a functor_size that is not sizeof the functor
     * type, and against the placeholder of functors too large for the
     * parameter space. */
    K->param_off = ALIGN_UP(args_size, 8);
    if (s->cu->cuFuncGetParamInfo) {
      size_t off = 0, size = 0;
      if (s->cu->cuFuncGetParamInfo(K->p.fn, 1, &off, &size) == CUDA_SUCCESS) {
        K->param_off = off;
        K->param_size = size;
      }
    }
  }
  if (reducing) {
    unsigned grid =
        K->g.max_grid > K->p.max_grid ? K->g.max_grid : K->p.max_grid;
    if ((rc = ensure_partials(s, (size_t)grid * K->value_size)) != 0 ||
        (rc = ensure_result_slot(s, K->value_size)) != 0)
      goto fail;
  }
  kc_backend_verbose("cuda: kernel '%s': block %u, %u resident blocks%s%s",
                     k->name, K->g.block, K->g.max_grid,
                     K->p.fn ? "; by-value entry, functor parameter of "
                             : "; no by-value entry",
                     K->p.fn ? (K->param_size ? "known size" : "unknown size")
                             : "");
  return 0;
fail:
  module_put(s, K->mod);
  memset(K, 0, sizeof *K);
  return rc;
}

void kc__cuda_kernel_release(void *state, const kc_kernel_info *k,
                             void *kernel_state) {
  kc__cuda_state *s = state;
  kc__cuda_kernel *K = kernel_state;
  (void)k;
  if (K->mod) {
    kc__cuda_current(s);
    module_put(s, K->mod);
  }
  memset(K, 0, sizeof *K);
}

void kc__cuda_launch_finalize(kc__cuda_state *s) {
  const kc__cu_api *cu = s->cu;
  /* Modules whose kernels were not released (the core releases them all
   * before finalize; this is the safety net). */
  while (s->modules) {
    kc__cuda_module *m = s->modules;
    s->modules = m->next;
    cu->cuModuleUnload(m->mod);
    free(m);
  }
  ring_free(s, &s->ring);
  if (s->copied)
    cu->cuEventDestroy(s->copied);
  s->copied = NULL;
  if (s->copy_stream)
    cu->cuStreamDestroy(s->copy_stream);
  s->copy_stream = NULL;
  if (s->partials)
    cu->cuMemFree(s->partials);
  s->partials = 0;
  s->partials_size = 0;
  if (s->res_host)
    cu->cuMemFreeHost(s->res_host);
  s->res_host = NULL;
  s->res_size = 0;
  if (s->scratch1)
    cu->cuMemFree(s->scratch1);
  s->scratch1 = 0;
  s->scratch1_size = 0;
}

/* ------------------------------------------------------------- staging */

static int ring_setup(kc__cuda_state *s, kc__cuda_ring *r, size_t size) {
  const kc__cu_api *cu = s->cu;
  CUresult e;
  void *h = NULL;
  memset(r, 0, sizeof *r);
  if ((e = cu->cuMemHostAlloc(&h, size, CU_MEMHOSTALLOC_PORTABLE)) !=
          CUDA_SUCCESS ||
      (r->host = h, r->size = size,
       (e = cu->cuEventCreate(&r->ev[0], CU_EVENT_DISABLE_TIMING))) !=
          CUDA_SUCCESS ||
      (e = cu->cuEventCreate(&r->ev[1], CU_EVENT_DISABLE_TIMING)) !=
          CUDA_SUCCESS) {
    ring_free(s, r);
    return kc__cuda_fail(s, e, KC_ENOMEM, "setting up functor staging");
  }
  return 0;
}

static inline int ring_wait(kc__cuda_state *s, kc__cuda_ring *r, int h) {
  if (!r->pending[h])
    return 0;
  r->pending[h] = 0;
  CUresult e = s->cu->cuEventSynchronize(r->ev[h]);
  return e ? kc__cuda_fail(s, e, KC_EDEVICE, "cuEventSynchronize") : 0;
}

static inline int ring_record(kc__cuda_state *s, kc__cuda_ring *r, int h) {
  CUresult e = s->cu->cuEventRecord(r->ev[h], s->stream);
  if (e != CUDA_SUCCESS)
    return kc__cuda_fail(s, e, KC_ELAUNCH, "cuEventRecord");
  r->pending[h] = 1;
  return 0;
}

/* The host offset of a slot for n functor bytes.  Queue the copy out of
 * it before the next reservation. */
static int ring_reserve(kc__cuda_state *s, kc__cuda_ring *r, size_t n,
                        size_t *off) {
  size_t sz = ALIGN_UP(n ? n : 1, 256), half = r->size / 2;
  int rc;
  if (r->big) {
    /* The previous functor took the whole ring; its copy is queued now. */
    r->big = 0;
    if ((rc = ring_record(s, r, 0)) != 0)
      return rc;
  }
  if (sz > half) {
    /* Larger than half the ring (the caller made sure it fits): the whole
     * of it, once both halves are free. */
    if ((rc = ring_wait(s, r, 0)) || (rc = ring_wait(s, r, 1)))
      return rc;
    *off = 0;
    r->half = 1;
    r->cursor = r->size;
    r->big = 1;
    return 0;
  }
  if (r->cursor + sz > (size_t)(r->half + 1) * half) {
    /* Leave this half: its slots are free once the copies queued so far
     * have run. */
    if ((rc = ring_record(s, r, r->half)) != 0)
      return rc;
    r->half ^= 1;
    r->cursor = (size_t)r->half * half;
    if ((rc = ring_wait(s, r, r->half)) != 0)
      return rc;
  }
  *off = r->cursor;
  r->cursor += sz;
  return 0;
}

/* Copies the functor into the next slot and queues its copy to the device;
 * *dst receives the device address the kernel reads it from.  `global`:
 * to global memory, else to the module's constant region. */
static int stage(kc__cuda_state *s, kc__cuda_module *m, const void *src,
                 size_t n, int global, CUdeviceptr *dst) {
  const kc__cu_api *cu = s->cu;
  kc__cuda_ring *r = &s->ring;
  int rc;
  CUresult e;
  if (n > (SIZE_MAX >> 2))
    return kc_backend_error(KC_ENOMEM,
                            "cuda: a functor of %zu bytes cannot be staged", n);
  if (s->stage_pageable && n) {
    /* The driver copies pageable memory into its own staging before the
     * call returns; the device slot's reuse is ordered by the stream. */
    size_t sz = ALIGN_UP(n, 256);
    CUdeviceptr to;
    if (global) {
      if (!r->dev || sz > r->size) {
        if (r->dev) {
          if ((e = cu->cuStreamSynchronize(s->stream)) != CUDA_SUCCESS)
            return kc__cuda_fail(s, e, KC_EDEVICE, "cuStreamSynchronize");
          cu->cuMemFree(r->dev);
          r->dev = 0;
        }
        size_t want = r->size > sz ? r->size : RING_BYTES;
        while (want < sz)
          want *= 2;
        if ((e = cu->cuMemAlloc(&r->dev, want)) != CUDA_SUCCESS) {
          r->dev = 0;
          return kc__cuda_fail(s, e, KC_ENOMEM, "allocating functor staging");
        }
        r->size = want; /* no host side: ring_free frees only dev */
        r->cursor = 0;
      }
      if (r->cursor + sz > r->size)
        r->cursor = 0;
      to = r->dev + r->cursor;
      r->cursor += sz;
    } else {
      if (m->staging_next + sz > m->staging_size)
        m->staging_next = 0;
      to = m->staging + m->staging_next;
      m->staging_next += sz;
    }
    if ((e = cu->cuMemcpyHtoDAsync(to, src, n, s->stream)) != CUDA_SUCCESS)
      return kc__cuda_fail(s, e, KC_ELAUNCH,
                           "staging a functor (cuMemcpyHtoDAsync, pageable)");
    *dst = to;
    return 0;
  }
  if (!r->host || ALIGN_UP(n, 256) > r->size || (global && !r->dev)) {
    size_t want = r->size ? r->size : RING_BYTES;
    while (want < ALIGN_UP(n, 256))
      want *= 2;
    if (r->host && want != r->size) {
      /* Grow: the old slots may still be read by queued copies. */
      if ((e = cu->cuStreamSynchronize(s->stream)) != CUDA_SUCCESS)
        return kc__cuda_fail(s, e, KC_EDEVICE, "cuStreamSynchronize");
      ring_free(s, r);
    }
    if (!r->host && (rc = ring_setup(s, r, want)) != 0)
      return rc;
    if (global && !r->dev &&
        (e = cu->cuMemAlloc(&r->dev, r->size)) != CUDA_SUCCESS) {
      r->dev = 0;
      return kc__cuda_fail(s, e, KC_ENOMEM, "allocating functor staging");
    }
  }
  size_t off;
  if ((rc = ring_reserve(s, r, n, &off)) != 0)
    return rc;
  memcpy(r->host + off, src, n);
  CUdeviceptr to;
  if (global) {
    to = r->dev + off;
  } else {
    /* Constant slots in turn; a slot's reuse is ordered by the stream. */
    size_t sz = ALIGN_UP(n ? n : 1, 256);
    if (m->staging_next + sz > m->staging_size)
      m->staging_next = 0;
    to = m->staging + m->staging_next;
    m->staging_next += sz;
  }
  if (global && s->copy_stream_min && n >= s->copy_stream_min) {
    /* The device slot is free: its half's event, recorded on the launch
     * stream behind the kernels that read it, was waited for when the ring
     * came back to it. */
    if (!s->copy_stream &&
        ((e = cu->cuStreamCreate(&s->copy_stream, CU_STREAM_NON_BLOCKING)) !=
             CUDA_SUCCESS ||
         (e = cu->cuEventCreate(&s->copied, CU_EVENT_DISABLE_TIMING)) !=
             CUDA_SUCCESS))
      return kc__cuda_fail(s, e, KC_EDEVICE, "creating the copy stream");
    if ((e = cu->cuMemcpyHtoDAsync(to, r->host + off, n, s->copy_stream)) !=
            CUDA_SUCCESS ||
        (e = cu->cuEventRecord(s->copied, s->copy_stream)) != CUDA_SUCCESS ||
        (e = cu->cuStreamWaitEvent(s->stream, s->copied, 0)) != CUDA_SUCCESS)
      return kc__cuda_fail(s, e, KC_ELAUNCH,
                           "staging a functor on the copy stream");
  } else if (n && (e = cu->cuMemcpyHtoDAsync(to, r->host + off, n,
                                             s->stream)) != CUDA_SUCCESS) {
    return kc__cuda_fail(s, e, KC_ELAUNCH,
                         "staging a functor (cuMemcpyHtoDAsync)");
  }
  *dst = to;
  return 0;
}

/* --------------------------------------------------------------- launch */

static const char *const mode_names[] = {"auto", "param", "constant", "global"};

static int launch_error(kc__cuda_state *s, CUresult r, const kc_kernel_info *k,
                        unsigned grid, unsigned block, unsigned smem) {
  if (kc__cu_is_sticky(r) || r == CUDA_ERROR_OUT_OF_MEMORY)
    return kc__cuda_fail(s, r, KC_ELAUNCH, "cuLaunchKernel");
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
  kc_index g = cdiv(n, b);
  if (g > 0x7fffffff)
    return kc_backend_error(KC_ERANGE,
                            "cuda: kernel '%s': %lld indices need more "
                            "blocks than a grid has",
                            l->kernel->name, (long long)n);
  s->last_kernel = l->kernel->name;
  CUresult r = s->cu->cuLaunchKernel(K->call.fn, (unsigned)g, 1, 1, b, 1, 1, 0,
                                     s->stream, (void **)l->args, NULL);
  return r ? launch_error(s, r, l->kernel, (unsigned)g, b, 0) : 0;
}

/* ----------------------------------------------- MD and team geometry */

static unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }

/* An MD launch's tiles, block shape and kc_cuda_md_args (see kernel_cuda.h).
 * Tiles not given: the block the occupancy rule chose for the entry,
 * shaped as the box allows (last dimension on x, rounded up to a warp
 * when it is at least one, the rest of the block over the dimensions
 * before it).  Given tiles: as asked (a 0 entry: 1, or for the last
 * dimension up to a warp), the block the tile's size (what the function
 * allows of it); a tile's threads then loop over its points. */
static int md_geometry(kc__cuda_state *s, const kc__cuda_entry *e,
                       const kc_launch *l, kc_cuda_md_args *m, unsigned *bx,
                       unsigned *by) {
  const kc_launch_policy *p = &l->policy;
  const int R = p->rank;
  kc_index n[KC_MAX_RANK] = {0}, t[KC_MAX_RANK] = {0};
  int given = 0;
  (void)s;
  for (int d = 0; d < R; d++) {
    n[d] = p->end[d] - p->begin[d];
    given |= p->tile[d] > 0;
  }
  if (!given) {
    const kc_index B = e->block;
    kc_index x = n[R - 1] > B ? B : n[R - 1];
    if (x >= 32)
      x = ALIGN_UP(x, 32);
    if (x > B)
      x = B;
    if (x < 1)
      x = 1;
    t[R - 1] = x;
    kc_index rest = B / x;
    for (int d = R - 2; d >= 0; d--) {
      t[d] = rest < n[d] ? rest : n[d];
      if (t[d] < 1)
        t[d] = 1;
      rest /= t[d];
    }
  } else {
    for (int d = 0; d < R; d++)
      t[d] = p->tile[d] > 0 ? p->tile[d]
             : d < R - 1    ? 1
                            : (n[d] < 32 ? (n[d] > 0 ? n[d] : 1) : 32);
  }
  /* A tile larger than the box is the box. */
  kc_index tiles = 1, rest = 1;
  for (int d = 0; d < R; d++) {
    if (t[d] > n[d] && n[d] > 0)
      t[d] = n[d];
    m->begin[d] = p->begin[d];
    m->end[d] = p->end[d];
    m->tile[d] = t[d];
    m->ntiles[d] = cdiv(n[d], t[d]);
    if (m->ntiles[d] > 0 && tiles > (kc_index)0x7fffffff / m->ntiles[d])
      return kc_backend_error(KC_ERANGE,
                              "cuda: kernel '%s': the box is cut into more "
                              "than 2^31 tiles; ask for larger tiles",
                              l->kernel->name);
    tiles *= m->ntiles[d];
    if (d < R - 1) {
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
  *bx = (unsigned)(t[R - 1] < (kc_index)e->fmax ? t[R - 1] : e->fmax);
  *by = umin((unsigned)rest, e->fmax / *bx);
  if (*by < 1)
    *by = 1;
  return 0;
}

/* A team launch's team size, dynamic shared memory, grid, level-1 buffer
 * and kc_cuda_team_args.  Every scratch limit is checked here, before
 * anything is queued. */
static int team_geometry(kc__cuda_state *s, kc__cuda_entry *e,
                         const kc_launch *l, kc_cuda_team_args *ta,
                         unsigned *vlp, unsigned *tsp, size_t *smemp,
                         unsigned *gridp) {
  const kc_launch_policy *p = &l->policy;
  const char *kname = l->kernel->name;
  const unsigned warp =
      s->info.warp_size > 0 ? (unsigned)s->info.warp_size : 32;
  const int vl = p->vector_length;
  if (vl < 1 || (unsigned)vl > warp || (vl & (vl - 1)) != 0)
    return kc_backend_error(KC_EINVAL,
                            "cuda: kernel '%s': vector length %d; the CUDA "
                            "backend needs a power of two from 1 to %u (a "
                            "thread's lanes share a warp)",
                            kname, vl, warp);
  const size_t optin = s->info.shared_memory_per_block_optin
                           ? s->info.shared_memory_per_block_optin
                           : s->info.shared_memory_per_block;
  const size_t limit0 = optin > e->fstatic ? optin - e->fstatic : 0;
  size_t tp[2] = {0, 0}, st[2] = {0, 0}, tot[2] = {0, 0};
  int rc, ts = p->team_size, bps = 0;
  if (ts == KC_AUTO) {
    /* Kokkos' rule over block sizes (multiples of the warp), with each
     * size's level-0 scratch as its dynamic shared memory. */
    int best = 0, best_tps = 0, best_bps = 0;
    for (unsigned b = e->fmax - e->fmax % warp; b >= warp; b -= warp) {
      int t = (int)(b / (unsigned)vl), n = 0;
      if ((rc = kc_launch_scratch(l, 0, t, NULL, NULL, &tot[0])) != 0)
        return rc;
      if (tot[0] > limit0)
        continue;
      if ((rc = occupancy(s, e, b, tot[0], &n)) != 0)
        return rc;
      int tps = n * (int)b;
      if (n >= 1 && (tps > best_tps || (b >= 128 && tps == best_tps))) {
        best = t;
        best_tps = tps;
        best_bps = n;
      }
    }
    /* No warp's worth of threads fits: the largest team below a warp that
     * does (per-thread scratch too large for 32 threads). */
    for (int t = (int)(warp / (unsigned)vl) - 1; best == 0 && t >= 1; t--) {
      int n = 0;
      if ((rc = kc_launch_scratch(l, 0, t, NULL, NULL, &tot[0])) != 0)
        return rc;
      if (tot[0] > limit0)
        continue;
      if ((rc = occupancy(s, e, (unsigned)t * (unsigned)vl, tot[0], &n)) != 0)
        return rc;
      if (n >= 1) {
        best = t;
        best_bps = n;
      }
    }
    if (best == 0) {
      /* Not even one thread fits: report its request. */
      if ((rc = kc_launch_scratch(l, 0, 1, &tp[0], NULL, &tot[0])) != 0)
        return rc;
      return kc_backend_error(
          KC_ESCRATCH,
          "cuda: kernel '%s': %zu bytes of level-0 scratch per team (%zu per "
          "team + %zu per thread) leave no team size that fits in the %zu "
          "bytes of shared memory a block may use on %s (%zu opt-in limit - "
          "%u of the kernel's own); ask for large scratch at level 1",
          kname, tot[0], tp[0], p->scratch_per_thread[0], limit0, s->info.name,
          optin, e->fstatic);
    }
    ts = best;
    bps = best_bps;
  } else if ((long)ts * vl > (long)e->fmax) {
    return kc_backend_error(KC_EINVAL,
                            "cuda: kernel '%s': team size %d x vector "
                            "length %d = %ld threads per team; this "
                            "kernel runs at most %u threads per block on "
                            "%s",
                            kname, ts, vl, (long)ts * vl, e->fmax,
                            s->info.name);
  }
  for (int lev = 0; lev < 2; lev++)
    if ((rc = kc_launch_scratch(l, lev, ts, &tp[lev], &st[lev], &tot[lev])) !=
        0)
      return rc;
  if (tot[0] > limit0)
    return kc_backend_error(
        KC_ESCRATCH,
        "cuda: kernel '%s': %zu bytes of level-0 scratch per team (%zu per "
        "team + %zu per thread x %d threads, each part aligned to %d) exceed "
        "the %zu bytes of shared memory a block may use on %s (%zu opt-in "
        "limit - %u of the kernel's own); ask for large scratch at level 1",
        kname, tot[0], tp[0], p->scratch_per_thread[0], ts, KC_SCRATCH_ALIGN,
        limit0, s->info.name, optin, e->fstatic);
  if (tot[1] > s->info.total_memory)
    return kc_backend_error(KC_ESCRATCH,
                            "cuda: kernel '%s': %zu bytes of level-1 scratch "
                            "per team (%zu per team + %zu per thread x %d "
                            "threads) exceed the %zu bytes of memory of %s",
                            kname, tot[1], tp[1], p->scratch_per_thread[1], ts,
                            s->info.total_memory, s->info.name);
  const unsigned block = (unsigned)ts * (unsigned)vl;
  if (bps == 0) {
    if ((rc = occupancy(s, e, block, tot[0], &bps)) != 0)
      return rc;
    if (bps < 1)
      return kc_backend_error(KC_ELAUNCH,
                              "cuda: kernel '%s': a block of %u threads with "
                              "%zu bytes of shared memory cannot be resident "
                              "on %s",
                              kname, block, tot[0], s->info.name);
  }
  kc_index grid = (kc_index)bps * s->info.multiprocessors;
  if (grid > p->league_size)
    grid = p->league_size;
  if (grid < 1)
    grid = 1;
  if (tot[1] > 0 && p->league_size > 0) {
    /* Level 1: one slice per block.  Grow the buffer to the grid's need;
     * if the device cannot give that much, run fewer blocks. */
    size_t cap = s->scratch1_size / tot[1];
    if ((kc_index)cap < grid) {
      const kc__cu_api *cu = s->cu;
      CUresult r = cu->cuStreamSynchronize(s->stream);
      if (r != CUDA_SUCCESS)
        return kc__cuda_fail(s, r, KC_EDEVICE, "cuStreamSynchronize");
      if (s->scratch1)
        cu->cuMemFree(s->scratch1);
      s->scratch1 = 0;
      s->scratch1_size = 0;
      for (kc_index g = grid; g >= 1; g /= 2) {
        /* Sizes whose product or rounding overflows are not tried. */
        if (tot[1] > (SIZE_MAX - ((size_t)1 << 20)) / (size_t)g)
          continue;
        size_t want = ALIGN_UP((size_t)g * tot[1], (size_t)1 << 20);
        CUdeviceptr d;
        if (cu->cuMemAlloc(&d, want) == CUDA_SUCCESS) {
          s->scratch1 = d;
          s->scratch1_size = want;
          break;
        }
      }
      if (!s->scratch1)
        return kc_backend_error(KC_ESCRATCH,
                                "cuda: kernel '%s': cannot allocate %zu bytes "
                                "of level-1 scratch for one team on %s",
                                kname, tot[1], s->info.name);
      cap = s->scratch1_size / tot[1];
    }
    if ((kc_index)cap < grid)
      grid = (kc_index)cap;
  }
  ta->a.begin = 0;
  ta->a.end = p->league_size;
  ta->scratch1 = (void *)(uintptr_t)s->scratch1;
  for (int lev = 0; lev < 2; lev++) {
    ta->scratch_team[lev] = tp[lev];
    ta->scratch_thread[lev] = p->scratch_per_thread[lev];
    ta->scratch_offset[lev] = ALIGN_UP(tp[lev], KC_SCRATCH_ALIGN);
    ta->scratch_stride[lev] = st[lev];
    ta->scratch_total[lev] = tot[lev];
  }
  *vlp = (unsigned)vl;
  *tsp = (unsigned)ts;
  *smemp = tot[0];
  *gridp = (unsigned)grid;
  return 0;
}

int kc__cuda_launch(void *state, const kc_launch *l) {
  kc__cuda_state *s = state;
  kc__cuda_kernel *K = l->kernel_state;
  const kc_kernel_info *k = l->kernel;
  const kc__cu_api *cu = s->cu;
  if (s->sticky)
    return kc__cuda_sticky(s);
  int rc = kc__cuda_current(s);
  if (rc)
    return rc;
  const int md = l->policy.kind == KC_POLICY_MDRANGE;
  const int team = l->policy.kind == KC_POLICY_TEAM;
  const kc_index begin = l->policy.begin[0], end = l->policy.end[0];
  const kc_index n = end - begin;
  if (k->kind == KC_KERNEL_CALL)
    return launch_call(s, K, l, n);
  if (k->kind == KC_KERNEL_FOR && n == 0)
    return 0;
  if (k->kind == KC_KERNEL_MDFOR)
    for (int d = 0; d < l->policy.rank; d++)
      if (l->policy.end[d] == l->policy.begin[d])
        return 0;
  if (k->kind == KC_KERNEL_TEAM && l->policy.league_size == 0)
    return 0;

  /* How the functor gets in: by value if the by-value entry takes exactly
   * this functor and the driver takes that many parameter bytes; else the
   * module's constant region if it is large enough; else global memory.
   * A forced mode that cannot take this functor falls to the next one. */
  const size_t fsize = l->functor_size;
  const int param_ok =
      K->p.fn && K->param_off + fsize <= s->max_param &&
      (K->param_size == 0 ? fsize > 0 : K->param_size == fsize || fsize == 0);
  const int const_ok = K->mod->staging && fsize <= K->mod->staging_size;
  int mode = s->mode;
  if (mode == MODE_AUTO)
    mode = param_ok ? MODE_PARAM : const_ok ? MODE_CONSTANT : MODE_GLOBAL;
  else if ((mode == MODE_PARAM && !param_ok) ||
           (mode == MODE_CONSTANT && !const_ok)) {
    int want = mode;
    mode = (mode == MODE_PARAM && const_ok) ? MODE_CONSTANT : MODE_GLOBAL;
    if (!K->fallback_noted) {
      K->fallback_noted = 1;
      kc_backend_verbose("cuda: kernel '%s': a %zu-byte functor cannot go "
                         "by %s; using %s",
                         k->name, fsize, mode_names[want], mode_names[mode]);
    }
  }

  kc__cuda_entry *e = mode == MODE_PARAM ? &K->p : &K->g;
  /* The first parameter: kc_cuda_args alone (1-D) or inside the MD / team
   * arguments; `a` points at it either way. */
  kc_cuda_md_args ma;
  kc_cuda_team_args ta;
  kc_cuda_args *a = NULL;
  void *args = NULL;
  unsigned grid = 1, bx = e->block, by = 1;
  size_t smem = 0;
  if (md) {
    memset(&ma, 0, sizeof ma);
    ma.a = K->proto;
    if ((rc = md_geometry(s, e, l, &ma, &bx, &by)) != 0)
      return rc;
    int bps = 0;
    if ((rc = occupancy(s, e, bx * by, 0, &bps)) != 0)
      return rc;
    kc_index g = ma.a.end;
    if (g > (kc_index)bps * s->info.multiprocessors)
      g = (kc_index)bps * s->info.multiprocessors;
    if (g < 1)
      g = 1;
    grid = (unsigned)g;
    a = &ma.a;
    args = &ma;
  } else if (team) {
    memset(&ta, 0, sizeof ta);
    ta.a = K->proto;
    if ((rc = team_geometry(s, e, l, &ta, &bx, &by, &smem, &grid)) != 0)
      return rc;
    a = &ta.a;
    args = &ta;
  } else {
    a = &ta.a; /* storage only */
    *a = K->proto;
    a->begin = begin;
    a->end = end;
    if (end > INT64_MAX - KC_CUDA_INDEX_SLACK)
      return kc_backend_error(KC_ERANGE,
                              "cuda: kernel '%s': the range ends at %lld; "
                              "the CUDA backend takes 1-D ranges ending at "
                              "most INT64_MAX - 2^44",
                              k->name, (long long)end);
    kc_index g = cdiv(n, e->block);
    if (g > (kc_index)e->max_grid)
      g = e->max_grid;
    if (g < 1)
      g = 1;
    grid = (unsigned)g;
    smem = e->smem;
    args = a;
  }
  if ((md || team) && !K->geometry_noted) {
    K->geometry_noted = 1;
    kc_backend_verbose("cuda: kernel '%s': first launch: grid %u, block "
                       "%u x %u, %zu B dynamic shared memory",
                       k->name, grid, bx, by, smem);
  }

  /* The functor: its bytes (by value) or the address of its staged copy. */
  static const unsigned char zeros[64];
  CUdeviceptr fptr = 0;
  const void *fparam = l->functor;
  if (mode == MODE_PARAM) {
    if (fsize == 0)
      fparam = zeros; /* an empty C struct is one byte in C++ */
  } else {
    if ((rc = stage(s, K->mod, l->functor, fsize, mode == MODE_GLOBAL,
                    &fptr)) != 0)
      return rc;
    fparam = &fptr;
  }
  void *params[2] = {args, (void *)fparam};

  s->last_kernel = k->name;
  CUresult r;
  if (k->kind == KC_KERNEL_FOR || k->kind == KC_KERNEL_MDFOR ||
      k->kind == KC_KERNEL_TEAM) {
    r = cu->cuLaunchKernel(e->fn, grid, 1, 1, bx, by, 1, (unsigned)smem,
                           s->stream, params, NULL);
    return r ? launch_error(s, r, k, grid, bx * by, (unsigned)smem) : 0;
  }

  /* Reductions and scans. */
  const size_t vs = K->value_size;
  if ((md || team) && (rc = ensure_partials(s, (size_t)grid * vs)) != 0)
    return rc;
  const int to_host = !l->result_async || l->result_space == KC_SPACE_HOST;
  a->partials = (void *)(uintptr_t)s->partials;
  a->counter = (unsigned int *)(uintptr_t)s->counter;
  a->result = l->result == NULL ? NULL
              : to_host         ? (void *)(uintptr_t)s->res_dev
                                : l->result;
  if (K->ordered || k->kind == KC_KERNEL_SCAN) {
    /* Contiguous runs of indices (tiles, league ranks) per block. */
    const kc_index units = a->end - a->begin;
    a->chunk = cdiv(units, grid);
    if (a->chunk < 1)
      a->chunk = 1;
    if (!md && !team) {
      /* 1-D chunks a multiple of 64 indices: the warps' parts and the
       * tiles of the ordered walks (multiples of 32 * KC_CUDA_ORDERED_RUN
       * indices) then start on 128-byte boundaries of an aligned array of
       * elements of 2 bytes or more, when the range begins at 0.  The
       * rounding may leave blocks with nothing to do: fewer are launched
       * (both scan passes use this grid). */
      a->chunk = cdiv(a->chunk, 64) * 64;
    }
    kc_index g = cdiv(units, a->chunk);
    grid = g < 1 ? 1 : (unsigned)g;
  }
  if (k->kind == KC_KERNEL_SCAN) {
    a->pass = 0;
    r = cu->cuLaunchKernel(e->fn, grid, 1, 1, bx, by, 1, (unsigned)smem,
                           s->stream, params, NULL);
    if (r)
      return launch_error(s, r, k, grid, bx * by, (unsigned)smem);
    a->pass = 1;
    a->result = NULL;
    /* The second pass reads the functor from the same place: cuLaunchKernel
     * copied the parameters (and the staged copy is still in its slot). */
  }
  r = cu->cuLaunchKernel(e->fn, grid, 1, 1, bx, by, 1, (unsigned)smem,
                         s->stream, params, NULL);
  if (r)
    return launch_error(s, r, k, grid, bx * by, (unsigned)smem);
  if (to_host && l->result) {
    if ((r = cu->cuStreamSynchronize(s->stream)) != CUDA_SUCCESS)
      return kc__cuda_fail(s, r, KC_EDEVICE,
                           "waiting for a reduction's result");
    memcpy(l->result, s->res_host, vs);
  }
  return 0;
}
