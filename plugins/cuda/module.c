/* kc CUDA plugin — modules and kernel preparation.
 *
 * kernel_prepare does everything that needs a lookup, once per kernel:
 * loads the PTX module (once per PTX text), finds the entries, reads the
 * parameter layout, deduces the block size and the resident grid
 * (geometry.c), sizes the reduction scratch (staging.c).  A launch then
 * only picks the functor's way in, fills the arguments and calls the
 * driver (launch.c).
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

/* The value of KC_CUDA_SCAN_TILE_SYMBOL in the PTX text (nvcc writes an
 * initialised constant as `.const .align 4 .u32 name = v;`), or 0 when the
 * module has none (or a value no plugin would use). */
static int scan_tile(const char *ptx) {
  const char *p = strstr(ptx, KC_CUDA_SCAN_TILE_SYMBOL);
  if (!p)
    return 0;
  p += strlen(KC_CUDA_SCAN_TILE_SYMBOL);
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p++ != '=')
    return 0;
  char *end;
  long v = strtol(p, &end, 10);
  while (*end == ' ' || *end == '\t')
    end++;
  return *end == ';' && v > 0 && v <= 64 ? (int)v : 0;
}

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
  /* The driver may fill a log to the size it is given without a NUL: it
   * is given one byte less, which is the NUL. */
  static char elog[16384], ilog[4096];
  elog[0] = ilog[0] = 0;
  int opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {elog, (void *)(uintptr_t)(sizeof elog - 1), ilog,
                  (void *)(uintptr_t)(sizeof ilog - 1)};
  CUresult r = cu->cuModuleLoadDataEx(&m->mod, k->ptx, 4, opts, vals);
  elog[sizeof elog - 1] = ilog[sizeof ilog - 1] = 0;
  if (r != CUDA_SUCCESS) {
    free(m);
    if (kc__cu_is_sticky(r))
      return kc__cuda_fail(s, r, KC_EJIT, "cuModuleLoadDataEx");
    size_t n = strlen(elog);
    char head[64] = "; JIT log:\n";
    if (n == sizeof elog - 1)
      snprintf(head, sizeof head, "; JIT log (cut at %zu bytes):\n", n);
    while (n && (elog[n - 1] == '\n' || elog[n - 1] == ' '))
      elog[--n] = 0;
    return kc_backend_error(KC_EJIT,
                            "cuda: kernel '%s': the driver could not load "
                            "its PTX: %s%s%s",
                            k->name, kc__cu_errstr(r),
                            n ? head : " (the JIT left no log)", elog);
  }
  if (ilog[0])
    kc_backend_verbose("cuda: JIT of '%s': %s", k->name, ilog);
  m->ptx = k->ptx;
  m->md_flags = strstr(k->ptx, KC_CUDA_MD_FLAGS_SYMBOL) != NULL;
  m->scan_tile = s->scan_onepass ? scan_tile(k->ptx) : 0;
  m->result_done = strstr(k->ptx, KC_CUDA_RESULT_DONE_SYMBOL) != NULL;
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

/* The size of the first parameter of the kernel's entries, by the policy
 * its kind launches with. */
#define ARGS_RANGE kc_cuda_args
#define ARGS_MDRANGE kc_cuda_md_args
#define ARGS_TEAM kc_cuda_team_args
static int entry_args_size(const kc_kernel_info *k, size_t *size) {
#define KC__X(K, n, p, v, c) k->kind == KC_KERNEL_##K ? sizeof(ARGS_##p):
  *size = KC_KERNEL_KIND_MAP(KC__X) 0;
#undef KC__X
  if (*size)
    return 0;
  return kc_backend_error(KC_ENOTSUP,
                          "cuda: kernel '%s': kind %d is unknown to the "
                          "CUDA backend",
                          k->name, (int)k->kind);
}

/* A CALL kernel: the PTX entry itself, launched with the caller's
 * arguments. */
static int prepare_call(kc__cuda_state *s, const kc_kernel_info *k,
                        kc__cuda_kernel *K) {
  int rc = find_entry(s, K, k->ptx_entry, "", &K->call.fn);
  if (rc)
    return rc;
  if (!K->call.fn)
    return kc_backend_error(KC_ENOKERNEL,
                            "cuda: kernel '%s': its PTX has no entry '%s'",
                            k->name, k->ptx_entry);
  return kc__cuda_deduce(s, k->name, &K->call, 0, 0);
}

/* The value a reduction or scan carries, and a built-in reducer's
 * identity, which every launch passes in kc_cuda_args.ident. */
static int prepare_reducer(const kc_kernel_info *k, kc__cuda_kernel *K) {
  if (!kc__cuda_kind_reduces(k->kind))
    return 0;
  K->value_size = k->value_size;
  K->ordered = k->kind != KC_KERNEL_SCAN && k->reducer.op == KC_REDUCE_CUSTOM;
  if (k->reducer.op == KC_REDUCE_CUSTOM)
    return 0;
  if (k->value_size > sizeof K->proto.ident || !k->reducer.identity)
    return kc_backend_error(KC_EINVAL,
                            "cuda: kernel '%s': built-in reducer without a "
                            "host identity of at most %zu bytes",
                            k->name, sizeof K->proto.ident);
  k->reducer.identity(K->proto.ident);
  return 0;
}

/* Where and how large the by-value entry's functor parameter really is
 * (CUDA >= 12.4): it guards against a functor_size that is not sizeof the
 * functor type, and against the placeholder of functors too large for the
 * parameter space. */
static void prepare_param_layout(kc__cuda_state *s, kc__cuda_kernel *K) {
  K->param_off = KC__ALIGN_UP(K->args_size, 8);
  size_t off = 0, size = 0;
  if (s->cu->cuFuncGetParamInfo &&
      s->cu->cuFuncGetParamInfo(K->p.fn, 1, &off, &size) == CUDA_SUCCESS) {
    K->param_off = off;
    K->param_size = size;
  }
}

/* The two entries of a FOR / REDUCE / SCAN / MD / team kernel with their
 * geometry, and the reduction scratch the largest grid needs. */
static int prepare_entries(kc__cuda_state *s, const kc_kernel_info *k,
                           kc__cuda_kernel *K) {
  int rc;
  if ((rc = find_entry(s, K, k->ptx_entry, KC_CUDA_ENTRY_PARAM, &K->p.fn)) ||
      (rc = find_entry(s, K, k->ptx_entry, KC_CUDA_ENTRY_GLOBAL, &K->g.fn)))
    return rc;
  if (!K->g.fn)
    return kc_backend_error(KC_ENOKERNEL,
                            "cuda: kernel '%s': its PTX has no entry '%s%s' "
                            "(kernels for kc_parallel_for/reduce/scan come "
                            "from <kc/kernel.h> built with kcc)",
                            k->name, k->ptx_entry, KC_CUDA_ENTRY_GLOBAL);
  if ((rc = prepare_reducer(k, K)) != 0)
    return rc;
  /* 1-D reductions and scans combine a block's values in dynamic shared
   * memory; MD and team kernels use shuffles and static shared memory, and
   * a team's dynamic shared memory is its level-0 scratch (sized per
   * launch). */
  const size_t smem_per_thread =
      (k->kind == KC_KERNEL_REDUCE || k->kind == KC_KERNEL_SCAN) ? K->value_size
                                                                 : 0;
  const int largest = k->kind == KC_KERNEL_REDUCE && !K->ordered;
  if ((rc = kc__cuda_deduce(s, k->name, &K->g, smem_per_thread, largest)) != 0)
    return rc;
  if (K->p.fn) {
    if ((rc = kc__cuda_deduce(s, k->name, &K->p, smem_per_thread, largest)) !=
        0)
      return rc;
    prepare_param_layout(s, K);
  }
  if (kc__cuda_kind_reduces(k->kind)) {
    unsigned grid =
        K->g.max_grid > K->p.max_grid ? K->g.max_grid : K->p.max_grid;
    if ((rc = kc__cuda_ensure_partials(s, (size_t)grid * K->value_size)) ||
        (rc = kc__cuda_ensure_result_slot(s, K->value_size)))
      return rc;
  }
  kc_backend_verbose(
      "cuda: kernel '%s': block %u, %u resident blocks (a "
      "range that fills them: block %u, %u blocks)%s%s",
      k->name, K->g.block, K->g.max_grid, K->g.rblock, K->g.rgrid,
      K->p.fn ? "; by-value entry, functor parameter of "
              : "; no by-value entry",
      K->p.fn ? (K->param_size ? "known size" : "unknown size") : "");
  return 0;
}

int kc__cuda_kernel_prepare(void *state, const kc_kernel_info *k,
                            void *kernel_state) {
  kc__cuda_state *s = state;
  kc__cuda_kernel *K = kernel_state;
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  /* Buffers grown here are the default queue's; a queue's lane grows its
   * own at its first launch (launch.c). */
  s->cur = &s->main;
  size_t args_size = 0;
  if ((rc = entry_args_size(k, &args_size)) != 0)
    return rc;
  if (!k->ptx)
    return kc_backend_error(KC_ENOKERNEL,
                            "kernel '%s' has no PTX: rebuild its .kc.c with "
                            "kcc and a PTX compiler (KC_NVCC)",
                            k->name);
  memset(K, 0, sizeof *K);
  if ((rc = module_load(s, k, &K->mod)) != 0)
    return rc;
  K->args_size = args_size;
  rc = k->kind == KC_KERNEL_CALL ? prepare_call(s, k, K)
                                 : prepare_entries(s, k, K);
  if (rc) {
    module_put(s, K->mod);
    memset(K, 0, sizeof *K);
  }
  return rc;
}

void kc__cuda_kernel_release(void *state, const kc_kernel_info *k,
                             void *kernel_state) {
  kc__cuda_state *s = state;
  kc__cuda_kernel *K = kernel_state;
  (void)k;
  if (K->mod) {
    kc__cuda_current(s);
    kc__cuda_tune_free(s->cu, &K->p);
    kc__cuda_tune_free(s->cu, &K->g);
    module_put(s, K->mod);
  }
  kc__cuda_staged_free(K->staged);
  memset(K, 0, sizeof *K);
}
