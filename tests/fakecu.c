/* A stand-in for the CUDA driver (libcuda.so.1), for tests only: the CUDA
 * plugin loads it through KC_CUDA_DRIVER, so that its host logic runs on
 * machines without a GPU, against a driver that misbehaves on request
 * (t-cuda-fake.c).  Kernels do nothing; device memory is host memory.
 *
 * Every entry point the plugin needs is here but the optional ones
 * (cuFuncGetParamInfo, peer access).  Environment, all optional:
 *   FAKECU_FAIL="rule,rule..."  rule: NAME@N=ERR (the Nth call of the
 *       exported symbol NAME, 1-based), NAME@N+=ERR (the Nth and every
 *       later one) or NAME@0=ERR (every one).  ERR is a CUresult, or
 *       `null`: the call succeeds but its result pointer or address is
 *       NULL / 0 (the allocation calls).
 *   FAKECU_NDEV=n          the device count (default 1; may be negative)
 *   FAKECU_ATTR="a=v,..."  device attributes (CUdevice_attribute numbers)
 *   FAKECU_FATTR="a=v,..." function attributes (CUfunction_attribute)
 *   FAKECU_NAME=full       the device name fills the buffer, without a NUL
 *   FAKECU_LOG=full        a failed module load fills the error and info
 *                          logs to their given sizes, without a NUL
 *   FAKECU_ILOG=full       a good module load fills the info log likewise
 *   FAKECU_OCC=n           resident blocks per SM the occupancy call gives
 *   FAKECU_ELAPSED=nan|inf|neg   what cuEventElapsedTime measures
 *   FAKECU_TRACE=1         every call on stderr
 * A handle or address the fake did not hand out is refused with
 * CUDA_ERROR_INVALID_HANDLE / INVALID_VALUE and a line on stderr. */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

enum {
  OK = 0,
  INVALID_VALUE = 1,
  OUT_OF_MEMORY = 2,
  INVALID_DEVICE = 101,
  INVALID_HANDLE = 400,
  NOT_FOUND = 500,
  NOT_READY = 600
};

/* A result that says "succeed, but give NULL" (FAKECU_FAIL's `null`). */
#define GIVE_NULL (-1)

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v ? v : "";
}

static long env_long(const char *name, long dflt) {
  const char *v = getenv(name);
  return v && *v ? strtol(v, NULL, 0) : dflt;
}

/* ------------------------------------------------------------- failures */

typedef struct rule {
  char name[64];
  long n;    /* the call it hits (0: every one) */
  int from;  /* and every later one */
  int err;   /* CUresult, or GIVE_NULL */
  long seen; /* calls so far */
} rule;

static rule rules[32];
static int nrules, configured, tracing;

static void configure(void) {
  configured = 1;
  tracing = *env("FAKECU_TRACE") != '\0';
  char spec[2048];
  snprintf(spec, sizeof spec, "%s", env("FAKECU_FAIL"));
  char *save = NULL;
  for (char *t = strtok_r(spec, ",", &save); t && nrules < 32;
       t = strtok_r(NULL, ",", &save)) {
    rule *r = &rules[nrules];
    char *at = strchr(t, '@'), *eq = strchr(t, '='), *end;
    if (!at || !eq || eq < at)
      continue;
    *at = '\0';
    snprintf(r->name, sizeof r->name, "%s", t);
    r->n = strtol(at + 1, &end, 10);
    r->from = *end == '+';
    r->err = strcmp(eq + 1, "null") == 0 ? GIVE_NULL : atoi(eq + 1);
    nrules++;
  }
}

/* The result to inject into this call of `name`, or OK. */
static CUresult inject(const char *name) {
  pthread_mutex_lock(&mu);
  if (!configured)
    configure();
  if (tracing)
    fprintf(stderr, "fakecu: %s\n", name);
  CUresult e = OK;
  for (int i = 0; i < nrules && e == OK; i++) {
    rule *r = &rules[i];
    if (strcmp(r->name, name) != 0)
      continue;
    r->seen++;
    if (r->n == 0 || r->seen == r->n || (r->from && r->seen >= r->n))
      e = r->err;
  }
  pthread_mutex_unlock(&mu);
  return e;
}

/* Returns the injected error, if any (not GIVE_NULL: the caller's). */
#define INJECT()                                                               \
  do {                                                                         \
    CUresult e_ = inject(__func__);                                            \
    if (e_ != OK && e_ != GIVE_NULL)                                           \
      return e_;                                                               \
  } while (0)

/* --------------------------------------------------------------- objects */

enum { K_MEM = 1, K_HOST, K_STREAM, K_EVENT, K_MODULE };

/* Everything handed out: allocations (device, managed and pinned memory
 * alike, as host memory) and handles. */
typedef struct obj {
  void *p;
  size_t size;
  int kind;
  int recorded; /* events */
} obj;

static obj *objs;
static size_t nobjs, capobjs;

static int track(void *p, size_t size, int kind) {
  int ok = 1;
  pthread_mutex_lock(&mu);
  if (nobjs == capobjs) {
    size_t cap = capobjs ? 2 * capobjs : 64;
    obj *o = realloc(objs, cap * sizeof *o);
    if (o) {
      objs = o;
      capobjs = cap;
    } else
      ok = 0;
  }
  if (ok)
    objs[nobjs++] = (obj){p, size, kind, 0};
  pthread_mutex_unlock(&mu);
  return ok;
}

/* The index of live object p of `kind`, or -1.  Under mu. */
static long find_locked(const void *p, int kind) {
  for (size_t i = 0; i < nobjs; i++)
    if (objs[i].p == p && objs[i].kind == kind)
      return (long)i;
  return -1;
}

static int known(const void *p, int kind) {
  pthread_mutex_lock(&mu);
  long i = find_locked(p, kind);
  pthread_mutex_unlock(&mu);
  if (i < 0 && p)
    fprintf(stderr, "fakecu: unknown handle %p (kind %d)\n", p, kind);
  return i >= 0;
}

/* Forgets p and frees it; 0 if it was not a live object of `kind`. */
static int untrack(void *p, int kind) {
  pthread_mutex_lock(&mu);
  long i = find_locked(p, kind);
  if (i >= 0)
    objs[i] = objs[--nobjs];
  pthread_mutex_unlock(&mu);
  if (i < 0) {
    fprintf(stderr, "fakecu: freeing unknown %p (kind %d)\n", p, kind);
    return 0;
  }
  free(p);
  return 1;
}

/* Does [a, a + n) lie within one allocation? */
static int in_memory(CUdeviceptr a, size_t n) {
  int in = 0;
  pthread_mutex_lock(&mu);
  for (size_t i = 0; i < nobjs && !in; i++) {
    uintptr_t b = (uintptr_t)objs[i].p;
    in = (objs[i].kind == K_MEM || objs[i].kind == K_HOST) && a >= b &&
         a - b <= objs[i].size && n <= objs[i].size - (a - b);
  }
  pthread_mutex_unlock(&mu);
  if (!in)
    fprintf(stderr, "fakecu: %zu bytes at 0x%llx are not device memory\n", n,
            a);
  return in;
}

/* A new handle of `kind` (a small allocation of its own). */
static CUresult new_handle(void **out, int kind) {
  void *h = calloc(1, 16);
  if (!h || !track(h, 16, kind)) {
    free(h);
    return OUT_OF_MEMORY;
  }
  *out = h;
  return OK;
}

/* -------------------------------------------------------- device, context */

EXPORT CUresult cuInit(unsigned flags) {
  (void)flags;
  INJECT();
  return OK;
}

EXPORT CUresult cuDriverGetVersion(int *v) {
  INJECT();
  *v = 12040;
  return OK;
}

static const char *error_name(CUresult r) {
  static const struct {
    CUresult r;
    const char *name;
  } names[] = {{0, "CUDA_SUCCESS"},
               {1, "CUDA_ERROR_INVALID_VALUE"},
               {2, "CUDA_ERROR_OUT_OF_MEMORY"},
               {101, "CUDA_ERROR_INVALID_DEVICE"},
               {218, "CUDA_ERROR_INVALID_PTX"},
               {400, "CUDA_ERROR_INVALID_HANDLE"},
               {500, "CUDA_ERROR_NOT_FOUND"},
               {600, "CUDA_ERROR_NOT_READY"},
               {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
               {719, "CUDA_ERROR_LAUNCH_FAILED"},
               {999, "CUDA_ERROR_UNKNOWN"}};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (names[i].r == r)
      return names[i].name;
  return NULL;
}

EXPORT CUresult cuGetErrorName(CUresult r, const char **s) {
  *s = error_name(r);
  return *s ? OK : INVALID_VALUE;
}

EXPORT CUresult cuGetErrorString(CUresult r, const char **s) {
  *s = error_name(r) ? "from the fake driver" : NULL;
  return *s ? OK : INVALID_VALUE;
}

EXPORT CUresult cuDeviceGetCount(int *n) {
  INJECT();
  *n = (int)env_long("FAKECU_NDEV", 1);
  return OK;
}

EXPORT CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  INJECT();
  if (ordinal < 0 || ordinal >= env_long("FAKECU_NDEV", 1))
    return INVALID_DEVICE;
  *d = ordinal;
  return OK;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
  (void)d;
  INJECT();
  if (len <= 0)
    return INVALID_VALUE;
  if (strcmp(env("FAKECU_NAME"), "full") == 0)
    memset(name, 'N', (size_t)len);
  else
    snprintf(name, (size_t)len, "Fake GPU");
  return OK;
}

/* "a=v,a=v": v for attribute a, if listed. */
static int override(const char *var, int a, int *v) {
  const char *s = env(var);
  while (*s) {
    char *end;
    long k = strtol(s, &end, 10);
    if (*end != '=')
      return 0;
    long val = strtol(end + 1, &end, 0);
    if (k == a) {
      *v = (int)val;
      return 1;
    }
    if (*end != ',')
      return 0;
    s = end + 1;
  }
  return 0;
}

/* An H100's attributes, by CUdevice_attribute number. */
static int device_attribute(int a) {
  static const int values[][2] = {
      {1, 1024},  {5, 2147483647}, {8, 49152},   {9, 65536},
      {10, 32},   {13, 1980000},   {16, 132},    {36, 2619000},
      {37, 5120}, {39, 2048},      {41, 1},      {75, 9},
      {76, 0},    {83, 1},         {97, 232448}, {122, 1}};
  int v = 0;
  for (size_t i = 0; i < sizeof values / sizeof *values; i++)
    if (values[i][0] == a)
      v = values[i][1];
  override("FAKECU_ATTR", a, &v);
  return v;
}

EXPORT CUresult cuDeviceGetAttribute(int *v, int a, CUdevice d) {
  (void)d;
  INJECT();
  *v = device_attribute(a);
  return OK;
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) {
  (void)d;
  INJECT();
  *bytes = (size_t)80 << 30;
  return OK;
}

static char contexts[8];

EXPORT CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice d) {
  INJECT();
  *ctx = &contexts[d & 7];
  return OK;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
  (void)d;
  INJECT();
  return OK;
}

EXPORT CUresult cuCtxSetCurrent(void *ctx) {
  INJECT();
  if (ctx && ((char *)ctx < contexts || (char *)ctx >= contexts + 8))
    return INVALID_HANDLE;
  return OK;
}

EXPORT CUresult cuCtxSynchronize(void) {
  INJECT();
  return OK;
}

/* ------------------------------------------------------- streams, events */

EXPORT CUresult cuStreamCreate(void **s, unsigned flags) {
  (void)flags;
  INJECT();
  return new_handle(s, K_STREAM);
}

/* NULL is the legacy default stream. */
static int stream_ok(void *s) { return !s || known(s, K_STREAM); }

EXPORT CUresult cuStreamDestroy_v2(void *s) {
  INJECT();
  return untrack(s, K_STREAM) ? OK : INVALID_HANDLE;
}

EXPORT CUresult cuStreamSynchronize(void *s) {
  INJECT();
  return stream_ok(s) ? OK : INVALID_HANDLE;
}

EXPORT CUresult cuEventCreate(void **e, unsigned flags) {
  (void)flags;
  INJECT();
  return new_handle(e, K_EVENT);
}

EXPORT CUresult cuEventDestroy_v2(void *e) {
  INJECT();
  return untrack(e, K_EVENT) ? OK : INVALID_HANDLE;
}

EXPORT CUresult cuEventRecord(void *e, void *s) {
  INJECT();
  if (!stream_ok(s))
    return INVALID_HANDLE;
  pthread_mutex_lock(&mu);
  long i = find_locked(e, K_EVENT);
  if (i >= 0)
    objs[i].recorded = 1;
  pthread_mutex_unlock(&mu);
  return i >= 0 ? OK : INVALID_HANDLE;
}

EXPORT CUresult cuEventSynchronize(void *e) {
  INJECT();
  return known(e, K_EVENT) ? OK : INVALID_HANDLE;
}

EXPORT CUresult cuEventQuery(void *e) {
  INJECT();
  return known(e, K_EVENT) ? OK : INVALID_HANDLE;
}

EXPORT CUresult cuStreamWaitEvent(void *s, void *e, unsigned flags) {
  (void)flags;
  INJECT();
  return stream_ok(s) && known(e, K_EVENT) ? OK : INVALID_HANDLE;
}

EXPORT CUresult cuEventElapsedTime(float *ms, void *a, void *b) {
  INJECT();
  pthread_mutex_lock(&mu);
  long i = find_locked(a, K_EVENT), j = find_locked(b, K_EVENT);
  int recorded = i >= 0 && j >= 0 && objs[i].recorded && objs[j].recorded;
  pthread_mutex_unlock(&mu);
  if (!recorded)
    return INVALID_HANDLE; /* what the driver says of an unrecorded event */
  const char *m = env("FAKECU_ELAPSED");
  *ms = strcmp(m, "nan") == 0   ? NAN
        : strcmp(m, "inf") == 0 ? INFINITY
        : strcmp(m, "neg") == 0 ? -5.0f
                                : 0.25f;
  return OK;
}

/* ---------------------------------------------------------------- memory */

/* n bytes of "device" memory of `kind` into *p, or NULL when the call was
 * told to give NULL. */
static CUresult allocate(CUresult injected, void **p, size_t n, int kind) {
  *p = NULL;
  if (injected == GIVE_NULL)
    return OK;
  if (n == 0 || n > ((size_t)1 << 36))
    return n ? OUT_OF_MEMORY : INVALID_VALUE;
  void *m = calloc(1, n);
  if (!m || !track(m, n, kind)) {
    free(m);
    return OUT_OF_MEMORY;
  }
  *p = m;
  return OK;
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *d, size_t n) {
  CUresult e = inject(__func__);
  if (e != OK && e != GIVE_NULL)
    return e;
  void *p;
  e = allocate(e, &p, n, K_MEM);
  *d = (CUdeviceptr)(uintptr_t)p;
  return e;
}

EXPORT CUresult cuMemAllocManaged(CUdeviceptr *d, size_t n, unsigned flags) {
  (void)flags;
  CUresult e = inject(__func__);
  if (e != OK && e != GIVE_NULL)
    return e;
  void *p;
  e = allocate(e, &p, n, K_MEM);
  *d = (CUdeviceptr)(uintptr_t)p;
  return e;
}

EXPORT CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags) {
  (void)flags;
  CUresult e = inject(__func__);
  if (e != OK && e != GIVE_NULL)
    return e;
  return allocate(e, p, n, K_HOST);
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr d) {
  INJECT();
  return untrack((void *)(uintptr_t)d, K_MEM) ? OK : INVALID_VALUE;
}

EXPORT CUresult cuMemFreeHost(void *p) {
  INJECT();
  return untrack(p, K_HOST) ? OK : INVALID_VALUE;
}

EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *d, void *p,
                                             unsigned flags) {
  (void)flags;
  CUresult e = inject(__func__);
  if (e != OK && e != GIVE_NULL)
    return e;
  if (!known(p, K_HOST))
    return INVALID_VALUE;
  *d = e == GIVE_NULL ? 0 : (CUdeviceptr)(uintptr_t)p;
  return OK;
}

EXPORT CUresult cuPointerGetAttribute(void *data, int a, CUdeviceptr p) {
  INJECT();
  if (a != 9 /* DEVICE_ORDINAL */ || !in_memory(p, 0))
    return INVALID_VALUE;
  *(int *)data = 0;
  return OK;
}

/* Copies between the caller's memory and the fake's: both are host memory
 * here; the fake's side must be one of its allocations. */
EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n,
                              void *s) {
  INJECT();
  if (!stream_ok(s))
    return INVALID_HANDLE;
  if (n && (!dst || !src))
    return INVALID_VALUE;
  if (n)
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  return OK;
}

EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n,
                                     void *s) {
  INJECT();
  if (!stream_ok(s))
    return INVALID_HANDLE;
  if (!in_memory(dst, n) || (n && !src))
    return INVALID_VALUE;
  memcpy((void *)(uintptr_t)dst, src, n);
  return OK;
}

EXPORT CUresult cuStreamWriteValue64_v2(void *s, CUdeviceptr dst,
                                        unsigned long long v, unsigned flags) {
  INJECT();
  if (!stream_ok(s))
    return INVALID_HANDLE;
  if (flags != 0 || dst % 8 || !in_memory(dst, 8))
    return INVALID_VALUE;
  unsigned char *d = (unsigned char *)(uintptr_t)dst;
  for (int j = 0; j < 8; j++) /* little-endian, as a GPU stores it */
    d[j] = (unsigned char)(v >> 8 * j);
  return OK;
}

EXPORT CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n,
                                void *s) {
  INJECT();
  if (!stream_ok(s))
    return INVALID_HANDLE;
  if (!in_memory(d, n))
    return INVALID_VALUE;
  memset((void *)(uintptr_t)d, v, n);
  return OK;
}

/* --------------------------------------------------------------- modules */

/* A module: its __constant__ staging region (device memory, freed with
 * the module) and the functions asked of it, whose handles point into
 * the module. */
#define CONST_BYTES 65536
typedef struct function {
  char name[128];
} function;
typedef struct module {
  void *konst;
  int nfn;
  function fn[16];
} module;

/* Fills `n` bytes of a JIT log buffer with `c`, no NUL. */
static void fill_log(void *buf, size_t n, int c) {
  if (buf && n)
    memset(buf, c, n);
}

EXPORT CUresult cuModuleLoadDataEx(void **out, const void *image,
                                   unsigned nopts, int *opts, void **vals) {
  void *elog = NULL, *ilog = NULL;
  size_t esize = 0, isize = 0;
  for (unsigned i = 0; i < nopts; i++) {
    uintptr_t v = (uintptr_t)vals[i];
    switch (opts[i]) {
    case 3:
      ilog = vals[i];
      break;
    case 4:
      isize = v;
      break;
    case 5:
      elog = vals[i];
      break;
    case 6:
      esize = v;
      break;
    default:
      break;
    }
  }
  CUresult e = inject(__func__);
  if (e != OK && e != GIVE_NULL) {
    if (strcmp(env("FAKECU_LOG"), "full") == 0) {
      fill_log(elog, esize, 'E');
      fill_log(ilog, isize, 'I');
    } else if (elog && esize)
      snprintf(elog, esize, "ptxas fatal   : the fake driver refuses\n");
    return e;
  }
  if (!image)
    return INVALID_VALUE;
  if (strcmp(env("FAKECU_ILOG"), "full") == 0)
    fill_log(ilog, isize, 'I');
  module *m = calloc(1, sizeof *m);
  void *konst = calloc(1, CONST_BYTES);
  if (!m || !konst || !track(konst, CONST_BYTES, K_MEM)) {
    free(m);
    free(konst);
    return OUT_OF_MEMORY;
  }
  if (!track(m, sizeof *m, K_MODULE)) {
    untrack(konst, K_MEM);
    free(m);
    return OUT_OF_MEMORY;
  }
  m->konst = konst;
  *out = m;
  return OK;
}

EXPORT CUresult cuModuleUnload(void *h) {
  INJECT();
  if (!known(h, K_MODULE))
    return INVALID_HANDLE;
  module *m = h;
  untrack(m->konst, K_MEM);
  untrack(m, K_MODULE);
  return OK;
}

EXPORT CUresult cuModuleGetFunction(void **f, void *h, const char *name) {
  INJECT();
  if (!known(h, K_MODULE))
    return INVALID_HANDLE;
  module *m = h;
  CUresult e = NOT_FOUND;
  pthread_mutex_lock(&mu);
  for (int i = 0; i < m->nfn && e != OK; i++)
    if (strcmp(m->fn[i].name, name) == 0) {
      *f = &m->fn[i];
      e = OK;
    }
  if (e != OK && m->nfn < 16 && strlen(name) < sizeof m->fn[0].name) {
    snprintf(m->fn[m->nfn].name, sizeof m->fn[0].name, "%s", name);
    *f = &m->fn[m->nfn++];
    e = OK;
  }
  pthread_mutex_unlock(&mu);
  return e;
}

EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *d, size_t *size, void *h,
                                     const char *name) {
  (void)name;
  INJECT();
  if (!known(h, K_MODULE))
    return INVALID_HANDLE;
  module *m = h;
  if (d)
    *d = (CUdeviceptr)(uintptr_t)m->konst;
  if (size)
    *size = CONST_BYTES;
  return OK;
}

/* Is f a function of a live module? */
static int function_ok(const void *f) {
  int ok = 0;
  pthread_mutex_lock(&mu);
  for (size_t i = 0; i < nobjs && !ok; i++) {
    const module *m = objs[i].p;
    ok = objs[i].kind == K_MODULE && (const char *)f >= (const char *)m->fn &&
         (const char *)f < (const char *)(m->fn + m->nfn);
  }
  pthread_mutex_unlock(&mu);
  if (!ok)
    fprintf(stderr, "fakecu: unknown function %p\n", f);
  return ok;
}

EXPORT CUresult cuFuncGetAttribute(int *v, int a, void *f) {
  INJECT();
  if (!function_ok(f))
    return INVALID_HANDLE;
  *v = a == 0 ? 1024 : a == 4 ? 32 : 0;
  override("FAKECU_FATTR", a, v);
  return OK;
}

EXPORT CUresult cuFuncSetAttribute(void *f, int a, int v) {
  (void)a;
  (void)v;
  INJECT();
  return function_ok(f) ? OK : INVALID_HANDLE;
}

EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *f,
                                                            int block,
                                                            size_t smem) {
  (void)smem;
  INJECT();
  if (!function_ok(f))
    return INVALID_HANDLE;
  if (block <= 0)
    return INVALID_VALUE;
  int per_sm = 2048 / block;
  *n = (int)env_long("FAKECU_OCC", per_sm > 32 ? 32 : per_sm);
  return OK;
}

EXPORT CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                               unsigned bx, unsigned by, unsigned bz,
                               unsigned smem, void *s, void **params,
                               void **extra) {
  (void)extra;
  INJECT();
  if (tracing)
    fprintf(stderr, "fakecu:   grid %u,%u,%u block %u,%u,%u smem %u\n", gx, gy,
            gz, bx, by, bz, smem);
  if (!function_ok(f) || !stream_ok(s))
    return INVALID_HANDLE;
  if (!params || !gx || !gy || !gz || !bx || !by || !bz ||
      (unsigned long long)bx * by * bz > 1024) {
    fprintf(stderr, "fakecu: invalid launch: grid %u,%u,%u block %u,%u,%u\n",
            gx, gy, gz, bx, by, bz);
    return INVALID_VALUE;
  }
  return OK;
}
