/* libkc — calling CALL kernels' host functions through libffi.
 *
 * A CALL kernel's host function has a plain C parameter list,
 * fn(int64_t begin, int64_t end, args...), known only at run time from its
 * signature string.  Its libffi call interface is prepared once, at the
 * first launch, and kept in the core's kernel record; launches from any
 * backend thread then only call ffi_call once per chunk.
 */
#include <config.h>

#include <ffi.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct kc__ffi {
  ffi_cif cif;
  ffi_type *types[2 + KC__CALL_MAX_ARGS];
};

static pthread_mutex_t ffi_lock = PTHREAD_MUTEX_INITIALIZER;

void kc__ffi_fork_lock(int take) {
  if (take)
    pthread_mutex_lock(&ffi_lock);
  else
    pthread_mutex_unlock(&ffi_lock);
}

static ffi_type *type_of(char c) {
  switch (c) {
  case 'p':
    return &ffi_type_pointer;
  case 'i':
    return &ffi_type_sint32;
  case 'I':
    return &ffi_type_uint32;
  case 'l':
    return &ffi_type_sint64;
  case 'L':
    return &ffi_type_uint64;
  case 'f':
    return &ffi_type_float;
  case 'd':
    return &ffi_type_double;
  }
  return NULL; /* the registry accepted no other letter */
}

int kc__ffi_prepare(kc_kernel *k) {
  if (atomic_load_explicit(&k->ffi_ready, memory_order_acquire))
    return 0;
  int rc = 0;
  pthread_mutex_lock(&ffi_lock);
  if (!atomic_load_explicit(&k->ffi_ready, memory_order_relaxed)) {
    struct kc__ffi *f = calloc(1, sizeof *f);
    if (!f) {
      rc = kc__error(KC_ENOMEM,
                     "kernel '%s': out of memory for its libffi "
                     "call interface",
                     k->info.name);
    } else {
      int n = k->info.nargs;
      f->types[0] = &ffi_type_sint64;
      f->types[1] = &ffi_type_sint64;
      for (int i = 0; i < n; i++)
        f->types[2 + i] = type_of(k->info.signature[i]);
      ffi_status st = ffi_prep_cif(&f->cif, FFI_DEFAULT_ABI, (unsigned)(2 + n),
                                   &ffi_type_void, f->types);
      if (st != FFI_OK) {
        free(f);
        rc = kc__error(KC_ESIGNATURE,
                       "kernel '%s': libffi cannot prepare a call for "
                       "signature \"%s\" (ffi_prep_cif returned %d)",
                       k->info.name, k->info.signature, (int)st);
      } else {
        k->ffi = f;
        atomic_store_explicit(&k->ffi_ready, 1, memory_order_release);
      }
    }
  }
  pthread_mutex_unlock(&ffi_lock);
  return rc;
}

void kc__ffi_call(kc_kernel *k, kc_index b, kc_index e, int nargs,
                  void *const *args) {
  void *av[2 + KC__CALL_MAX_ARGS];
  int64_t bb = b, ee = e;
  av[0] = &bb;
  av[1] = &ee;
  for (int i = 0; i < nargs; i++)
    av[2 + i] = args[i];
  ffi_call(&k->ffi->cif, FFI_FN(k->info.host), NULL, av);
}
