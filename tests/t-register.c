/* Conformance: kernels registered by hand as C function pointers
 * (kc_kernel_register), and what host backends promise about the calls
 * they make.
 *
 * On a host backend a kernel is called once per contiguous chunk [b, e),
 * never once per index: the calls of one launch partition the range
 * exactly, a static launch makes at most one call per thread, an explicit
 * chunk size bounds every call, and a scan calls each chunk twice (final =
 * 0 then 1, with the prefix before the chunk).  On a device backend a
 * host-only kernel cannot run: KC_ENOKERNEL with a detail.  Registration
 * itself checks its input, refuses a taken name and is thread safe. */
#include <pthread.h>
#include <stddef.h>

#include <kc/backend.h>

#include "kc-test.h"

/* ------------------------------------------------------------ call log */

typedef struct call {
  kc_index b, e;
  int final;
  int bad_functor; /* the functor did not hold what the launch passed */
  int64_t acc_in;
} call;

enum { MAXCALLS = 1 << 20 };
static call *calls;
static int ncalls, overflow;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void log_call(kc_index b, kc_index e, int final, int bad_functor,
                     int64_t acc_in) {
  pthread_mutex_lock(&log_lock);
  if (ncalls < MAXCALLS)
    calls[ncalls++] = (call){b, e, final, bad_functor, acc_in};
  else
    overflow = 1;
  pthread_mutex_unlock(&log_lock);
}

static void log_reset(void) {
  ncalls = 0;
  overflow = 0;
}

static int cmp_call(const void *a, const void *b) {
  const call *x = a, *y = b;
  if (x->b != y->b)
    return x->b < y->b ? -1 : 1;
  return x->final - y->final;
}

/* ------------------------------------------------------------- kernels */

typedef struct tr_functor {
  int64_t magic;
  int64_t *out; /* may be NULL */
} tr_functor;

static void tr_for(const void *functor, kc_index b, kc_index e) {
  const tr_functor *f = functor;
  log_call(b, e, 0, f && f->magic != 0x600d, f ? f->magic : 0);
  if (f && f->out)
    for (kc_index i = b; i < e; i++)
      f->out[i] = i;
}

static void tr_sum(const void *functor, kc_index b, kc_index e, void *acc) {
  (void)functor;
  int64_t *a = acc;
  log_call(b, e, 0, 0, *a);
  for (kc_index i = b; i < e; i++)
    *a += i;
}

/* Sum scan of the index; writes the exclusive prefix into out[i]. */
static void tr_scan(const void *functor, kc_index b, kc_index e, void *acc,
                    int final) {
  const tr_functor *f = functor;
  int64_t *a = acc;
  log_call(b, e, final, 0, *a);
  for (kc_index i = b; i < e; i++) {
    if (final && f->out)
      f->out[i] = *a;
    *a += i;
  }
}

/* A custom reducer by hand: (count, sum of squares). */
typedef struct tr_pair {
  int64_t count, sumsq;
} tr_pair;
static void tr_pair_identity(void *v) {
  tr_pair *p = v;
  p->count = 0;
  p->sumsq = 0;
}
static void tr_pair_join(void *dst, const void *src) {
  tr_pair *d = dst;
  const tr_pair *s = src;
  d->count += s->count;
  d->sumsq += s->sumsq;
}
static void tr_pairs(const void *functor, kc_index b, kc_index e, void *acc) {
  (void)functor;
  tr_pair *a = acc;
  for (kc_index i = b; i < e; i++) {
    a->count++;
    a->sumsq += i * i;
  }
}

static kc_kernel *k_for, *k_sum, *k_scan, *k_pairs, *k_ptx_only;

static void register_kernels(void) {
  kc_kernel_desc d;

  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.name = "tr_for";
  d.kind = KC_KERNEL_FOR;
  d.host = (void (*)(void))tr_for;
  KC_REQUIRE_OK(kc_kernel_register(&d, &k_for));
  KC_REQUIRE(k_for != NULL);

  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.name = "tr_sum";
  d.kind = KC_KERNEL_REDUCE;
  d.host = (void (*)(void))tr_sum;
  d.reducer.op = KC_REDUCE_SUM;
  d.reducer.type = KC_INT64;
  KC_REQUIRE_OK(kc_kernel_register(&d, &k_sum));

  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.name = "tr_scan";
  d.kind = KC_KERNEL_SCAN;
  d.host = (void (*)(void))tr_scan;
  d.reducer.op = KC_REDUCE_SUM;
  d.reducer.type = KC_INT64;
  KC_REQUIRE_OK(kc_kernel_register(&d, &k_scan));

  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.name = "tr_pairs";
  d.kind = KC_KERNEL_REDUCE;
  d.host = (void (*)(void))tr_pairs;
  d.reducer.op = KC_REDUCE_CUSTOM;
  d.reducer.size = sizeof(tr_pair);
  d.reducer.identity = tr_pair_identity;
  d.reducer.join = tr_pair_join;
  KC_REQUIRE_OK(kc_kernel_register(&d, &k_pairs));

  /* A kernel that exists only as PTX: no host backend can run it. */
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.name = "tr_ptx_only";
  d.kind = KC_KERNEL_FOR;
  d.ptx = ".version 7.0\n.target sm_70\n.address_size 64\n";
  KC_REQUIRE_OK(kc_kernel_register(&d, &k_ptx_only));

  kc_kernel *k = NULL;
  KC_CHECK_OK(kc_kernel_get("tr_scan", &k));
  KC_CHECK_EQ_PTR(k, k_scan);
  KC_CHECK_EQ_STR(kc_kernel_name(k_pairs), "tr_pairs");
}

/* Registration refuses what it cannot use. */
static void test_bad_registration(void) {
  kc_kernel_desc d;
  kc_kernel *k = (kc_kernel *)&d;

  KC_CHECK_ERR(kc_kernel_register(NULL, &k), KC_EINVAL);
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.kind = KC_KERNEL_FOR;
  d.host = (void (*)(void))tr_for;
  KC_CHECK_ERR(kc_kernel_register(&d, &k), KC_EINVAL); /* no name */
  KC_CHECK_EQ_PTR(k, NULL);
  d.name = "";
  KC_CHECK_ERR(kc_kernel_register(&d, &k), KC_EINVAL);
  d.name = "tr_bad";
  d.kind = (kc_kernel_kind)0;
  KC_CHECK_ERR(kc_kernel_register(&d, &k), KC_EINVAL);
  d.kind = (kc_kernel_kind)99;
  KC_CHECK_ERR(kc_kernel_register(&d, &k), KC_EINVAL);
  d.kind = KC_KERNEL_FOR;
  d.host = NULL;
  KC_CHECK_ERR(kc_kernel_register(&d, &k), KC_EINVAL); /* no code at all */
  KC_CHECK_CONTAINS(kc_last_error(), "tr_bad");
  d.host = (void (*)(void))tr_for;
  d.struct_size = 0;
  KC_CHECK_ERR(kc_kernel_register(&d, &k), KC_EINVAL);
  d.struct_size = sizeof d;
  /* CALL kernels: a signature letter kc does not know. */
  d.kind = KC_KERNEL_CALL;
  d.signature = "pdx";
  KC_CHECK_ERR(kc_kernel_register(&d, &k), KC_EINVAL);
  d.signature = NULL;
  /* A reduction needs a usable reducer. */
  d.kind = KC_KERNEL_REDUCE;
  d.reducer.op = KC_REDUCE_CUSTOM;
  d.reducer.size = 16;
  d.reducer.identity = tr_pair_identity;
  d.reducer.join = NULL;
  KC_CHECK_ERR(kc_kernel_register(&d, &k), KC_EINVAL);
  d.reducer.join = tr_pair_join;
  d.reducer.size = 0;
  KC_CHECK_ERR(kc_kernel_register(&d, &k), KC_EINVAL);
  d.reducer.op = KC_REDUCE_SUM;
  d.reducer.type = (kc_scalar)77;
  KC_CHECK_ERR(kc_kernel_register(&d, &k), KC_EINVAL);
  d.reducer.op = KC_REDUCE_NONE;
  KC_CHECK_ERR(kc_kernel_register(&d, &k), KC_EINVAL);
  /* A taken name. */
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.name = "tr_for";
  d.kind = KC_KERNEL_FOR;
  d.host = (void (*)(void))tr_for;
  KC_CHECK_ERR(kc_kernel_register(&d, &k), KC_EEXIST);
  KC_CHECK_CONTAINS(kc_last_error(), "tr_for");
  /* None of the refused names got in. */
  KC_CHECK_ERR(kc_kernel_get("tr_bad", &k), KC_ENOKERNEL);
  KC_CHECK_CONTAINS(kc_last_error(), "tr_bad");
  KC_CHECK_ERR(kc_kernel_get(NULL, &k), KC_EINVAL);
}

static void test_reducer_sizes(void) {
  kc_reducer r;
  memset(&r, 0, sizeof r);
  r.op = KC_REDUCE_SUM;
  r.type = KC_INT32;
  KC_CHECK_EQ_UINT(kc_reducer_value_size(&r), 4);
  r.type = KC_INT64;
  KC_CHECK_EQ_UINT(kc_reducer_value_size(&r), 8);
  r.type = KC_FLOAT;
  KC_CHECK_EQ_UINT(kc_reducer_value_size(&r), 4);
  r.op = KC_REDUCE_MAX;
  r.type = KC_DOUBLE;
  KC_CHECK_EQ_UINT(kc_reducer_value_size(&r), 8);
  r.op = KC_REDUCE_MINLOC;
  r.type = KC_INT32;
  KC_CHECK_EQ_UINT(kc_reducer_value_size(&r), sizeof(kc_loc_int32));
  r.op = KC_REDUCE_MAXLOC;
  r.type = KC_FLOAT;
  KC_CHECK_EQ_UINT(kc_reducer_value_size(&r), sizeof(kc_loc_float));
  r.type = KC_DOUBLE;
  KC_CHECK_EQ_UINT(kc_reducer_value_size(&r), sizeof(kc_loc_double));
  r.op = KC_REDUCE_CUSTOM;
  r.size = 40;
  r.identity = tr_pair_identity;
  r.join = tr_pair_join;
  KC_CHECK_EQ_UINT(kc_reducer_value_size(&r), 40);
  r.op = KC_REDUCE_NONE;
  KC_CHECK_EQ_UINT(kc_reducer_value_size(&r), 0);
  r.op = KC_REDUCE_SUM;
  r.type = (kc_scalar)0;
  KC_CHECK_EQ_UINT(kc_reducer_value_size(&r), 0);
  KC_CHECK_EQ_UINT(kc_reducer_value_size(NULL), 0);
}

/* Several threads register at once: every unique name gets in once, and of
 * one contested name exactly one registration wins. */
enum { REG_THREADS = 8, REG_EACH = 50 };
static atomic_int contested_wins;

static void *register_many(void *arg) {
  int t = (int)(intptr_t)arg;
  static char names[REG_THREADS][REG_EACH][32];
  for (int k = 0; k < REG_EACH; k++) {
    kc_kernel_desc d;
    kc_kernel *h = NULL;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    snprintf(names[t][k], sizeof names[t][k], "tr_mt_%d_%d", t, k);
    d.name = names[t][k];
    d.kind = KC_KERNEL_FOR;
    d.host = (void (*)(void))tr_for;
    KC_CHECK_OK(kc_kernel_register(&d, &h));
    d.name = "tr_contested";
    if (kc_kernel_register(&d, &h) == 0)
      atomic_fetch_add(&contested_wins, 1);
  }
  return NULL;
}

static void test_concurrent_registration(void) {
  pthread_t th[REG_THREADS];
  for (int t = 0; t < REG_THREADS; t++)
    KC_REQUIRE(
        pthread_create(&th[t], NULL, register_many, (void *)(intptr_t)t) == 0);
  for (int t = 0; t < REG_THREADS; t++)
    pthread_join(th[t], NULL);
  KC_CHECK_EQ_INT(atomic_load(&contested_wins), 1);
  int missing = 0;
  for (int t = 0; t < REG_THREADS; t++)
    for (int k = 0; k < REG_EACH; k++) {
      char name[32];
      kc_kernel *h = NULL;
      snprintf(name, sizeof name, "tr_mt_%d_%d", t, k);
      missing +=
          kc_kernel_get(name, &h) != 0 || strcmp(kc_kernel_name(h), name) != 0;
    }
  KC_CHECK_EQ_INT(missing, 0);
}

/* ------------------------------------------------- host call structure */

/* Checks the calls of one FOR launch over [b, e): sorted, they tile the
 * range with no gap and no overlap, none is empty, none exceeds `chunk`. */
static void check_tiling(kc_index b, kc_index e, kc_index chunk,
                         const char *what) {
  const int failures = kc_test_failures();
  KC_CHECK_EQ_INT(overflow, 0);
  qsort(calls, (size_t)ncalls, sizeof *calls, cmp_call);
  kc_index at = b;
  for (int c = 0; c < ncalls; c++) {
    if (calls[c].bad_functor) {
      KC_FAIL("the kernel saw a functor with magic %" PRId64 ", not 0x600d",
              calls[c].acc_in);
      break;
    }
    if (calls[c].b != at || calls[c].e <= calls[c].b) {
      KC_FAIL("call %d is [%" PRId64 ", %" PRId64
              "), expected to start at %" PRId64 " and be non-empty",
              c, calls[c].b, calls[c].e, at);
      break;
    }
    if (chunk != KC_AUTO && calls[c].e - calls[c].b > chunk) {
      KC_FAIL("call [%" PRId64 ", %" PRId64
              ") is longer than the chunk %" PRId64,
              calls[c].b, calls[c].e, chunk);
      break;
    }
    at = calls[c].e;
  }
  KC_CHECK_EQ_INT(at, e);
  if (kc_test_failures() != failures)
    KC_INFO("  ... %s over [%" PRId64 ", %" PRId64 ")", what, b, e);
}

static void test_host_calls(int nthreads) {
  static const kc_index ranges[][2] = {
      {0, 1}, {0, 5}, {3, 1003}, {-9, 9}, {0, 1000000}};
  static const struct {
    kc_schedule s;
    kc_index chunk;
    const char *name;
  } scheds[] = {{KC_SCHEDULE_STATIC, KC_AUTO, "static/auto"},
                {KC_SCHEDULE_STATIC, 1, "static/1"},
                {KC_SCHEDULE_STATIC, 7, "static/7"},
                {KC_SCHEDULE_DYNAMIC, KC_AUTO, "dynamic/auto"},
                {KC_SCHEDULE_DYNAMIC, 1, "dynamic/1"},
                {KC_SCHEDULE_DYNAMIC, 1000, "dynamic/1000"}};
  tr_functor f = {0x600d, NULL};
  for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
    for (size_t s = 0; s < sizeof scheds / sizeof scheds[0]; s++) {
      kc_index b = ranges[r][0], e = ranges[r][1];
      kc_policy p = kc_range_schedule(b, e, scheds[s].s, scheds[s].chunk);
      log_reset();
      if (KC_CHECK_OK(
              kc_parallel_for(scheds[s].name, k_for, &p, &f, sizeof f)) != 0)
        continue;
      check_tiling(b, e, scheds[s].chunk, scheds[s].name);
      /* Chunks, not indices: a static launch without a chunk size makes
       * one call per thread at most; a dynamic one far fewer calls than
       * indices. */
      if (scheds[s].chunk == KC_AUTO && scheds[s].s == KC_SCHEDULE_STATIC)
        KC_CHECK_LE_INT(ncalls, nthreads);
      if (scheds[s].chunk == KC_AUTO && e - b >= 1000000)
        KC_CHECK_LE_INT(ncalls, (e - b) / 100);
      /* reductions make the same kind of calls */
      int64_t sum = -1;
      log_reset();
      if (KC_CHECK_OK(kc_parallel_reduce(scheds[s].name, k_sum, &p, NULL, 0,
                                         &sum)) == 0) {
        KC_CHECK_EQ_INT(sum, (b + e - 1) * (e - b) / 2);
        check_tiling(b, e, scheds[s].chunk, "reduce");
      }
    }
  /* An empty range calls nothing. */
  {
    kc_policy p = kc_range(5, 5);
    int64_t sum = -1;
    log_reset();
    KC_CHECK_OK(kc_parallel_for("empty", k_for, &p, &f, sizeof f));
    KC_CHECK_OK(kc_parallel_reduce("empty", k_sum, &p, NULL, 0, &sum));
    KC_CHECK_EQ_INT(ncalls, 0);
    KC_CHECK_EQ_INT(sum, 0);
  }
}

/* The scan protocol: each chunk is called with final = 0 and then with
 * final = 1 over the same [b, e), the second time with acc = the sum of
 * everything before b; the two passes tile the range alike. */
static void test_scan_protocol(void) {
  static const kc_index sizes[] = {1, 10, 1000, 100000};
  static const kc_index chunks[] = {KC_AUTO, 1, 64};
  for (size_t z = 0; z < 4; z++)
    for (size_t c = 0; c < 3; c++)
      for (int dyn = 0; dyn < 2; dyn++) {
        kc_index n = sizes[z], b = 100;
        int64_t *out = kc_test_xmalloc((size_t)(b + n) * sizeof *out);
        tr_functor f = {0x600d, out};
        kc_policy p = kc_range_schedule(
            b, b + n, dyn ? KC_SCHEDULE_DYNAMIC : KC_SCHEDULE_STATIC,
            chunks[c]);
        int64_t total = -1;
        const int failures = kc_test_failures();
        if (sizes[z] == 100000 && chunks[c] == 1) {
          free(out);
          continue;
        }
        log_reset();
        if (KC_CHECK_OK(kc_parallel_scan("scan", k_scan, &p, &f, sizeof f,
                                         &total)) != 0) {
          free(out);
          continue;
        }
        KC_CHECK_EQ_INT(total, (b + b + n - 1) * n / 2);
        qsort(calls, (size_t)ncalls, sizeof *calls, cmp_call);
        /* pairs (final 0, final 1) over the same chunk, in order */
        KC_CHECK_EQ_INT(ncalls % 2, 0);
        kc_index at = b;
        for (int k = 0; k + 1 < ncalls; k += 2) {
          const call *x = &calls[k], *y = &calls[k + 1];
          int64_t prefix = (b + at - 1) * (at - b) / 2;
          if (x->b != at || y->b != at || x->e != y->e || x->final != 0 ||
              y->final != 1 || y->acc_in != prefix) {
            KC_FAIL("scan calls %d, %d: [%" PRId64 ", %" PRId64 ") final %d "
                    "and [%" PRId64 ", %" PRId64 ") final %d with acc %" PRId64
                    "; expected [%" PRId64
                    ", ...) final 0 then 1, acc %" PRId64,
                    k, k + 1, x->b, x->e, x->final, y->b, y->e, y->final,
                    y->acc_in, at, prefix);
            break;
          }
          if (chunks[c] != KC_AUTO)
            KC_CHECK_LE_INT(x->e - x->b, chunks[c]);
          at = x->e;
        }
        KC_CHECK_EQ_INT(at, b + n);
        int64_t acc = 0;
        int bad = 0;
        for (kc_index i = b; i < b + n; i++) {
          bad += out[i] != acc;
          acc += i;
        }
        KC_CHECK_EQ_INT(bad, 0);
        if (kc_test_failures() != failures)
          KC_INFO("  ... scan of %" PRId64 " chunk %" PRId64 " %s", n,
                  chunks[c], dyn ? "dynamic" : "static");
        free(out);
      }
}

static void test_custom_by_hand(void) {
  for (kc_index n = 0; n < 3000; n = n * 3 + 1) {
    tr_pair r = {-1, -1}, w = {0, 0};
    kc_policy p = kc_range_schedule(-n, n, KC_SCHEDULE_DYNAMIC, 3);
    for (kc_index i = -n; i < n; i++) {
      w.count++;
      w.sumsq += i * i;
    }
    KC_CHECK_OK(kc_parallel_reduce("pairs", k_pairs, &p, NULL, 0, &r));
    KC_CHECK_EQ_INT(r.count, w.count);
    KC_CHECK_EQ_INT(r.sumsq, w.sumsq);
  }
}

/* On a device backend, host-only kernels have no code: a clear error. */
static void test_device_backend(void) {
  tr_functor f = {0x600d, NULL};
  kc_policy p = kc_range(0, 100);
  int64_t sum;
  KC_CHECK_ERR(kc_parallel_for("host only", k_for, &p, &f, sizeof f),
               KC_ENOKERNEL);
  KC_CHECK_CONTAINS(kc_last_error(), "tr_for");
  KC_CHECK_ERR(kc_parallel_reduce("host only", k_sum, &p, NULL, 0, &sum),
               KC_ENOKERNEL);
  KC_CHECK_OK(kc_fence());
}

/* kc_kernel_describe gives back what was registered; functor_size is 0
 * for a kernel registered without it, and a caller with 0.1's smaller
 * struct gets its fields and nothing written past them.  A functor size,
 * once registered, is checked at every launch. */
static void test_describe(void) {
  kc_kernel_desc d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  KC_CHECK_OK(kc_kernel_describe(k_sum, &d));
  KC_CHECK_EQ_STR(d.name, "tr_sum");
  KC_CHECK_EQ_INT(d.kind, KC_KERNEL_REDUCE);
  KC_CHECK(d.host == (void (*)(void))tr_sum);
  KC_CHECK_EQ_INT(d.reducer.op, KC_REDUCE_SUM);
  KC_CHECK_EQ_UINT(d.reducer.size, sizeof(int64_t));
  KC_CHECK_EQ_UINT(d.functor_size, 0);
  KC_CHECK_EQ_UINT(d.struct_size, sizeof d);

  struct {
    kc_kernel_desc d;
    unsigned char after[16];
  } old;
  memset(&old, 0xa5, sizeof old);
  old.d.struct_size = offsetof(kc_kernel_desc, functor_size);
  KC_CHECK_OK(kc_kernel_describe(k_for, &old.d));
  KC_CHECK_EQ_STR(old.d.name, "tr_for");
  KC_CHECK_EQ_UINT(old.d.struct_size, offsetof(kc_kernel_desc, functor_size));
  const unsigned char *tail = (const unsigned char *)&old.d.functor_size;
  int touched = 0;
  for (size_t i = 0; i < sizeof old.d.functor_size; i++)
    touched += tail[i] != 0xa5;
  KC_CHECK_EQ_INT(touched, 0);
  old.d.struct_size = offsetof(kc_kernel_desc, signature);
  KC_CHECK_ERR(kc_kernel_describe(k_for, &old.d), KC_EINVAL);
  KC_CHECK_ERR(kc_kernel_describe(NULL, &d), KC_EINVAL);
  KC_CHECK_ERR(kc_kernel_describe(k_for, NULL), KC_EINVAL);

  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.name = "tr_sized";
  d.kind = KC_KERNEL_FOR;
  d.host = (void (*)(void))tr_for;
  d.functor_size = 24;
  kc_kernel *k = NULL;
  KC_CHECK_OK(kc_kernel_register(&d, &k));
  kc_kernel_desc back;
  memset(&back, 0, sizeof back);
  back.struct_size = sizeof back;
  KC_CHECK_OK(kc_kernel_describe(k, &back));
  KC_CHECK_EQ_UINT(back.functor_size, 24);
  unsigned char f[32] = {0};
  kc_policy p = kc_range(0, 0);
  KC_CHECK_ERR(kc_parallel_for("sized", k, &p, f, 16), KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), "takes a 24-byte functor");
  KC_CHECK_ERR(kc_parallel_for("sized", k, &p, f, 32), KC_EINVAL);
}

int main(void) {
  calls = kc_test_xmalloc(MAXCALLS * sizeof *calls);
  test_reducer_sizes();
  register_kernels(); /* before kc_init, as kcc's constructors do */
  test_bad_registration();
  test_concurrent_registration();
  kc_test_init_backend();
  test_describe();

  kc_info info = kc_test_info();
  if (info.dev.compute_major == 0) {
    KC_INFO("host backend with %d thread(s)", info.num_threads);
    test_host_calls(info.num_threads);
    test_scan_protocol();
    test_custom_by_hand();
    /* A PTX-only kernel has no host code. */
    kc_policy p = kc_range(0, 10);
    KC_CHECK_ERR(kc_parallel_for("ptx only", k_ptx_only, &p, NULL, 0),
                 KC_ENOKERNEL);
    KC_CHECK_CONTAINS(kc_last_error(), "tr_ptx_only");
  } else {
    KC_INFO("device backend (compute %d.%d)", info.dev.compute_major,
            info.dev.compute_minor);
    test_device_backend();
  }
  /* Still usable after every refusal above. */
  {
    int64_t sum = -1;
    kc_policy p = kc_range(0, 10);
    if (info.dev.compute_major == 0) {
      KC_CHECK_OK(kc_parallel_reduce("after", k_sum, &p, NULL, 0, &sum));
      KC_CHECK_EQ_INT(sum, 45);
    }
  }
  free(calls);
  return kc_test_finish();
}
