/* libkc — the kernel registry.
 *
 * Kernels register themselves from kcc's constructors, before main and so
 * before kc_init: the registry needs nothing from the runtime, only its own
 * statically initialised lock.  Records are never freed (handles stay valid
 * until exit, as kc.h promises); what a backend attached to them is
 * released at each last kc_finalize.
 */
#include <config.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;

void kc__kernels_fork_lock(int take) {
  if (take)
    pthread_mutex_lock(&reg_lock);
  else
    pthread_mutex_unlock(&reg_lock);
}

/* The hash table, under reg_lock.  It starts with the static buckets
 * (kcc's constructors register before anything else runs) and doubles
 * whenever it holds twice as many kernels as buckets: with a fixed 256,
 * a program that registered kernels all along (an interpreter building
 * them as it goes) paid a walk of n / 256 records for each registration
 * and lookup (10000 lookups took 171 ms among 64000 kernels, 0.9 ms among
 * 4000; t-longrun). */
#define NBUCKETS0 256
static kc_kernel *buckets0[NBUCKETS0];
static kc_kernel **buckets = buckets0;
static size_t nbuckets = NBUCKETS0; /* a power of two */
static size_t nkernels;

static size_t hash(const char *s) {
  unsigned h = 2166136261u; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 16777619u;
  return h & (nbuckets - 1);
}

static kc_kernel *lookup(const char *name) {
  for (kc_kernel *k = buckets[hash(name)]; k; k = k->next)
    if (strcmp(k->info.name, name) == 0)
      return k;
  return NULL;
}

/* Doubles the table once it holds twice as many kernels as buckets; out
 * of memory, the table stays as it is (longer chains, still right). */
static void grow(void) {
  if (nkernels <= 2 * nbuckets || nbuckets > SIZE_MAX / 2 / sizeof *buckets)
    return;
  kc_kernel **old = buckets;
  size_t n = nbuckets;
  kc_kernel **b = calloc(2 * n, sizeof *b);
  if (!b)
    return;
  buckets = b;
  nbuckets = 2 * n;
  for (size_t i = 0; i < n; i++)
    for (kc_kernel *k = old[i], *next; k; k = next) {
      next = k->next;
      size_t h = hash(k->info.name);
      k->next = buckets[h];
      buckets[h] = k;
    }
  if (old != buckets0)
    free(old);
}

/* The file of the executable or shared library holding a kernel's code
 * (its host function, else its PTX text), for the detail of a name clash;
 * "an unknown object" when dladdr cannot tell. */
static const char *object_of(void (*host)(void), const char *ptx) {
  Dl_info info;
  void *addr;
  if (host)
    memcpy(&addr, &host, sizeof addr); /* POSIX: a function as a void * */
  else
    addr = (void *)ptx;
  if (addr && dladdr(addr, &info) && info.dli_fname && *info.dli_fname)
    return info.dli_fname;
  return "an unknown object";
}

static int name_taken(const kc_kernel *old, const kc_kernel_desc *d) {
  const char *was = object_of(old->info.host, old->info.ptx);
  const char *now = object_of(d->host, d->ptx);
  if (strcmp(was, now) == 0)
    return kc__error(KC_EEXIST,
                     "kernel '%s' is already registered (by %s, which "
                     "registers it twice)",
                     d->name, was);
  return kc__error(KC_EEXIST,
                   "kernel '%s' is already registered by %s; the one of %s "
                   "is refused (kernel names are global to the program: "
                   "rename one)",
                   d->name, was, now);
}

static int parse_signature(const char *name, const char *sig) {
  if (!sig)
    return 0;
  int n = 0;
  for (const char *c = sig; *c; c++, n++)
    if (!strchr("piIlLfd", *c))
      return kc__error(KC_EINVAL,
                       "kernel '%s': signature \"%s\" has '%c' at position "
                       "%d; the letters are p i I l L f d",
                       name, sig, *c, n);
  if (n > KC__CALL_MAX_ARGS)
    return kc__error(KC_EINVAL,
                     "kernel '%s': signature \"%s\" has %d parameters; at "
                     "most %d",
                     name, sig, n, KC__CALL_MAX_ARGS);
  return n;
}

int kc_kernel_register(const kc_kernel_desc *desc, kc_kernel **out) {
  if (out)
    *out = NULL;
  if (kc__unlikely(kc__self.kernel))
    return kc__nested("kc_kernel_register");
  if (!desc)
    return kc__error(KC_EINVAL, "kc_kernel_register: desc is NULL");
  /* A desc from an older header is the prefix it has; newer fields are
   * ignored.  Below the fields every kernel needs, it is a mistake. */
  size_t need = offsetof(kc_kernel_desc, ptx_entry);
  if (desc->struct_size < need)
    return kc__error(KC_EINVAL,
                     "kc_kernel_register: desc->struct_size is %zu; set it "
                     "to sizeof(kc_kernel_desc)",
                     desc->struct_size);
  kc_kernel_desc d;
  memset(&d, 0, sizeof d);
  memcpy(&d, desc, desc->struct_size < sizeof d ? desc->struct_size : sizeof d);

  if (!d.name || !*d.name)
    return kc__error(KC_EINVAL, "kc_kernel_register: the kernel has no name");
  if (d.kind < KC_KERNEL_FOR || d.kind > KC_KERNEL_CALL)
    return kc__error(KC_EINVAL, "kernel '%s': %d is not a kernel kind", d.name,
                     (int)d.kind);
  if (!d.host && !d.ptx)
    return kc__error(KC_EINVAL,
                     "kernel '%s': it has neither a host function nor PTX",
                     d.name);
  int md = d.kind == KC_KERNEL_MDFOR || d.kind == KC_KERNEL_MDREDUCE;
  if (md ? (d.rank < 2 || d.rank > KC_MAX_RANK) : (d.rank < 0 || d.rank > 1))
    return kc__error(KC_EINVAL,
                     "kernel '%s': rank %d is not valid for its "
                     "kind (MD kernels: 2..%d; others: 0 or 1)",
                     d.name, d.rank, KC_MAX_RANK);
  int nargs = 0;
  if (d.kind == KC_KERNEL_CALL &&
      (nargs = parse_signature(d.name, d.signature)) < 0)
    return nargs;
  kc_reducer red = d.reducer;
  size_t vsize = 0;
  if (kc__kind_has_value(d.kind) &&
      (vsize = kc__reducer_complete(&red, d.name)) == 0)
    return KC_EINVAL; /* detail set */
  if (!kc__kind_has_value(d.kind))
    memset(&red, 0, sizeof red);
  int team = d.kind == KC_KERNEL_TEAM || d.kind == KC_KERNEL_TEAM_REDUCE;
  if ((d.flags & ~KC_KERNEL_TEAM_THREADS) ||
      ((d.flags & KC_KERNEL_TEAM_THREADS) && !team))
    return kc__error(KC_EINVAL,
                     "kernel '%s': flags 0x%x (only TEAM and TEAM_REDUCE "
                     "kernels take KC_KERNEL_TEAM_THREADS, and no other flag "
                     "exists)",
                     d.name, d.flags);

  kc_kernel *k = calloc(1, sizeof *k);
  char *name = strdup(d.name);
  char *entry = strdup(d.ptx_entry && *d.ptx_entry ? d.ptx_entry : d.name);
  char *sig = strdup(d.signature ? d.signature : "");
  if (!k || !name || !entry || !sig) {
    free(k);
    free(name);
    free(entry);
    free(sig);
    return kc__error(KC_ENOMEM, "kc_kernel_register: out of memory for '%s'",
                     d.name);
  }
  k->info.name = name;
  k->info.kind = d.kind;
  k->info.rank = md ? d.rank : 1;
  k->info.host = d.host;
  k->info.ptx = d.ptx;
  k->info.ptx_entry = entry;
  k->info.reducer = red;
  k->info.value_size = vsize;
  k->info.signature = sig;
  k->info.nargs = nargs;
  k->functor_size = d.functor_size;
  k->flags = d.flags;
  k->magic = KC__KERNEL_MAGIC;

  pthread_mutex_lock(&reg_lock);
  kc_kernel *taken = lookup(name);
  if (!taken) {
    size_t h = hash(name);
    k->next = buckets[h];
    buckets[h] = k;
    nkernels++;
    grow();
  }
  pthread_mutex_unlock(&reg_lock);
  if (taken) {
    free(k);
    free(name);
    free(entry);
    free(sig);
    /* Records are never freed: `taken` stays valid without the lock. */
    return name_taken(taken, &d);
  }
  if (out)
    *out = k;
  return 0;
}

int kc_kernel_get(const char *name, kc_kernel **out) {
  if (out)
    *out = NULL;
  /* The registry's lock is held around the kernel_release slot. */
  if (kc__unlikely(kc__self.kernel))
    return kc__nested("kc_kernel_get");
  if (!name || !out)
    return kc__error(KC_EINVAL, "kc_kernel_get: %s is NULL",
                     name ? "out" : "name");
  pthread_mutex_lock(&reg_lock);
  kc_kernel *k = lookup(name);
  pthread_mutex_unlock(&reg_lock);
  if (!k)
    return kc__error(KC_ENOKERNEL,
                     "no kernel named '%s' is registered (is the object "
                     "file that defines it linked in?)",
                     name);
  *out = k;
  return 0;
}

const char *kc_kernel_name(const kc_kernel *k) {
  return k ? k->info.name : NULL;
}

int kc_kernel_describe(const kc_kernel *k, kc_kernel_desc *out) {
  if (!k || k->magic != KC__KERNEL_MAGIC)
    return kc__error(KC_EINVAL, "kc_kernel_describe: %s",
                     k ? "not a kernel handle" : "kernel is NULL");
  /* A caller built against 0.1 has the struct up to `signature`: it gets
   * those fields. */
  size_t need = offsetof(kc_kernel_desc, functor_size);
  if (!out || out->struct_size < need)
    return kc__error(KC_EINVAL,
                     "kc_kernel_describe: %s (set out->struct_size to "
                     "sizeof(kc_kernel_desc))",
                     out ? "out->struct_size is too small" : "out is NULL");
  size_t size = out->struct_size < sizeof *out ? out->struct_size : sizeof *out;
  kc_kernel_desc d;
  memset(&d, 0, sizeof d);
  d.struct_size = size;
  d.functor_size = k->functor_size;
  d.flags = k->flags;
  kc_kernel_desc *full = out;
  out = &d;
  out->name = k->info.name;
  out->kind = k->info.kind;
  out->rank = k->info.rank;
  out->host = k->info.host;
  out->ptx = k->info.ptx;
  out->ptx_entry = k->info.ptx_entry;
  out->reducer = k->info.reducer;
  out->reducer.size = k->info.value_size;
  out->signature = k->info.signature;
  memcpy(full, &d, size);
  return 0;
}

void kc__kernels_release(void) {
  const kc_backend_ops *ops = kc__rt.ops;
  pthread_mutex_lock(&reg_lock);
  for (size_t b = 0; b < nbuckets; b++)
    for (kc_kernel *k = buckets[b]; k; k = k->next) {
      if (k->prepared && KC__OPS_HAS(ops, kernel_release))
        KC__SLOT_VOID(ops->kernel_release(kc__rt.state, &k->info, k->state));
      free(k->state);
      k->state = NULL;
      k->prepared = 0;
    }
  pthread_mutex_unlock(&reg_lock);
}
