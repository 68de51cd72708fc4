/* Conformance: hostile arguments to every public function of <kc/kc.h>:
 * NULL, negative, huge and overflowing values, before kc_init, while
 * initialised and after the last kc_finalize.  Each case runs in a process
 * of its own with a time limit (kc-isolate.h); each call must return its
 * exact KC_E... code with a non-empty kc_last_error(), never crash or hang.
 * Where hostile sizes are legal (huge ranges, huge chunks) the launch must
 * do exactly the work asked for. */
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <kc/kernel.h>

#include "kc-isolate.h"
#include "kc-test.h"
#include "kernels/order.h"

KC_KERNEL_DECLARE(kt_cat_reduce);
KC_KERNEL_DECLARE(kt_cat_scan);

#define TIMEOUT 60

/* --------------------------------------------- host kernels by hand */

/* Counts the indices and calls it was given without touching them, so that
 * ranges of 2^62 indices take a moment. */
typedef struct span_f {
  _Atomic int64_t *indices;
  _Atomic int64_t *calls;
} span_f;

static void span_for(const void *fp, kc_index b, kc_index e) {
  const span_f *f = fp;
  atomic_fetch_add(f->indices, e - b);
  atomic_fetch_add(f->calls, 1);
}

/* The same for boxes: the points of the box, or -1 for an empty or
 * inverted one. */
static void span_md(const void *fp, const kc_index *lo, const kc_index *hi) {
  const span_f *f = fp;
  int64_t pts = 1;
  for (int d = 0; d < 2; d++) {
    if (hi[d] <= lo[d] || __builtin_mul_overflow(pts, hi[d] - lo[d], &pts)) {
      atomic_store(f->calls, -1000000);
      return;
    }
  }
  atomic_fetch_add(f->indices, pts);
  atomic_fetch_add(f->calls, 1);
}

static void span_call(kc_index b, kc_index e, int64_t *sum) {
  (void)sum;
  (void)b;
  (void)e;
}

static void team_nop(const void *f, struct kc_team *t) {
  (void)f;
  (void)t;
}

/* Counts the league ranks of each call without running them. */
static void team_span(const void *fp, struct kc_team *t) {
  const span_f *f = fp;
  atomic_fetch_add(f->indices, t->league_end - t->league_rank);
  atomic_fetch_add(f->calls, 1);
}

static void red_id(void *v) { memset(v, 0, 16); }
static void red_join(void *d, const void *s) { (void)d, (void)s; }
static void red_body(const void *f, kc_index b, kc_index e, void *acc) {
  (void)f, (void)b, (void)e, (void)acc;
}

static kc_kernel *reg(const char *name, kc_kernel_kind kind, int rank,
                      void (*host)(void), const char *sig) {
  kc_kernel_desc d;
  kc_kernel *k = NULL;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.name = name;
  d.kind = kind;
  d.rank = rank;
  d.host = host;
  d.signature = sig;
  KC_REQUIRE_OK(kc_kernel_register(&d, &k));
  return k;
}

/* 1 when launches of hand-registered host kernels run here. */
static int host_runs(void) {
  return kc_backend_name() && strcmp(kc_backend_name(), "cuda") != 0;
}

static void start(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  kc_test_init_backend();
}

/* Failures counted before the case (the child inherits the parent's). */
static int case_base;

static int end(void) {
  if (kc_is_initialized())
    KC_CHECK_OK(kc_finalize());
  return kc_test_failures() > case_base ? 1 : 0;
}

/* ------------------------------------------ not initialised (before / after)
 */

/* A queue and an event made before the last kc_finalize, or NULL. */
static kc_queue *dead_q;
static kc_event *dead_e;

static void expect_noinit(void) {
  char buf[64];
  void *p = NULL;
  kc_info info;
  kc_alloc_info ai;
  kc_mirror *m = NULL;
  kc_policy r = kc_range(0, 10);
  kt_cat_f f = {NULL, 0};
  kt_cat v;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  KC_CHECK_EQ_INT(kc_is_initialized(), 0);
  KC_CHECK(kc_backend_name() == NULL);
  KC_CHECK_ERR(kc_finalize(), KC_ENOINIT);
  KC_CHECK_ERR(kc_fence(), KC_ENOINIT);
  KC_CHECK_ERR(kc_get_info(&info), KC_ENOINIT);
  KC_CHECK_ERR(kc_get_info(NULL), KC_ENOINIT);
  KC_CHECK_ERR(kc_malloc(&p, 16, KC_SPACE_HOST, "x"), KC_ENOINIT);
  KC_CHECK(p == NULL);
  KC_CHECK_ERR(kc_malloc(&p, SIZE_MAX, KC_SPACE_DEVICE, NULL), KC_ENOINIT);
  KC_CHECK_ERR(kc_free(buf), KC_ENOINIT);
  KC_CHECK_EQ_INT(kc_free(NULL), 0); /* documented no-op */
  KC_CHECK_ERR(kc_retain(buf), KC_ENOINIT);
  KC_CHECK_ERR(kc_pointer_info(buf, &ai), KC_ENOINIT);
  KC_CHECK_ERR(kc_memcpy(buf, buf + 32, 8), KC_ENOINIT);
  KC_CHECK_ERR(kc_memcpy_async(buf, buf + 32, 8), KC_ENOINIT);
  KC_CHECK_ERR(kc_memset(buf, 0, sizeof buf), KC_ENOINIT);
  /* Not initialised comes first, whatever else is wrong or empty (these
   * checked their arguments first: KC_EINVAL, or 0 for nothing to do). */
  KC_CHECK_ERR(kc_malloc(NULL, 16, KC_SPACE_HOST, "x"), KC_ENOINIT);
  KC_CHECK_ERR(kc_memcpy(NULL, buf, 4), KC_ENOINIT);
  KC_CHECK_ERR(kc_memcpy(buf, buf + 32, 0), KC_ENOINIT);
  KC_CHECK_ERR(kc_memset(buf, 0, 0), KC_ENOINIT);
  KC_CHECK_ERR(kc_memset(NULL, 0, 4), KC_ENOINIT);
  KC_CHECK_ERR(kc_queue_create(NULL, 0), KC_ENOINIT);
  KC_CHECK_ERR(kc_event_create(NULL), KC_ENOINIT);
  KC_CHECK_ERR(kc_queue_device(NULL, NULL), KC_ENOINIT);
  /* The queue and event calls given no handle, or a dead one (left by
   * case_after_finalize): they checked it first (KC_EINVAL). */
  KC_CHECK_ERR(kc_queue_destroy(dead_q), KC_ENOINIT);
  KC_CHECK_ERR(kc_queue_fence(dead_q), KC_ENOINIT);
  KC_CHECK_ERR(kc_queue_fence(NULL), KC_ENOINIT);
  KC_CHECK_ERR(kc_memcpy_on(dead_q, buf, buf + 32, 8), KC_ENOINIT);
  KC_CHECK_ERR(kc_memset_on(dead_q, buf, 0, 8), KC_ENOINIT);
  KC_CHECK_ERR(kc_event_destroy(dead_e), KC_ENOINIT);
  KC_CHECK_ERR(kc_event_record(dead_e, dead_q), KC_ENOINIT);
  KC_CHECK_ERR(kc_event_wait(dead_q, dead_e), KC_ENOINIT);
  KC_CHECK_ERR(kc_event_synchronize(dead_e), KC_ENOINIT);
  KC_CHECK_ERR(kc_event_query(dead_e), KC_ENOINIT);
  KC_CHECK_ERR(kc_event_elapsed(dead_e, dead_e, NULL), KC_ENOINIT);
  KC_CHECK_ERR(kc_malloc_on(&p, 16, KC_SPACE_HOST, 0, "x"), KC_ENOINIT);
  KC_CHECK_ERR(kc_pointer_device(buf, NULL), KC_ENOINIT);
  KC_CHECK_ERR(kc_mirror_clear_sync_state(NULL), KC_ENOINIT);
  KC_CHECK_ERR(kc_mirror_create(&m, 64, "m"), KC_ENOINIT);
  KC_CHECK(m == NULL);
  KC_CHECK_EQ_INT(kc_mirror_destroy(NULL), 0);
  KC_CHECK_ERR(kc_mirror_modify_host(NULL), KC_ENOINIT);
  KC_CHECK_ERR(kc_mirror_modify_target(NULL), KC_ENOINIT);
  KC_CHECK_ERR(kc_mirror_sync_host(NULL), KC_ENOINIT);
  KC_CHECK_ERR(kc_mirror_sync_target(NULL), KC_ENOINIT);
  KC_CHECK_ERR(kc_parallel_for(NULL, NULL, &r, NULL, 0), KC_ENOINIT);
  KC_CHECK_ERR(
      kc_parallel_reduce(NULL, KC_KERNEL(kt_cat_reduce), &r, &f, sizeof f, &v),
      KC_ENOINIT);
  KC_CHECK_ERR(
      kc_parallel_scan(NULL, KC_KERNEL(kt_cat_scan), &r, &f, sizeof f, NULL),
      KC_ENOINIT);
  KC_CHECK_ERR(kc_parallel_call(NULL, NULL, &r, 0, NULL), KC_ENOINIT);
  KC_CHECK_ERR(kc_region_push("r"), KC_ENOINIT);
  KC_CHECK_ERR(kc_region_pop(), KC_ENOINIT);
  KC_CHECK_ERR(kc_declare_metadata("k", "v"), KC_ENOINIT);
  KC_CHECK_ERR(kc_profile_event("e"), KC_ENOINIT);
  /* Calls that need no runtime. */
  KC_CHECK(kc_version() != NULL);
  KC_CHECK(kc_strerror(INT_MIN) != NULL && kc_err_name(INT_MAX) != NULL);
  KC_CHECK(kc_space_name((kc_space)-1) == NULL);
  KC_CHECK(kc_space_name(KC_SPACE_COUNT) == NULL);
  KC_CHECK_EQ_UINT(kc_reducer_value_size(NULL), 0);
  kc_kernel *k = (kc_kernel *)1;
  KC_CHECK_ERR(kc_kernel_get(NULL, &k), KC_EINVAL);
  KC_CHECK(k == NULL);
  KC_CHECK_ERR(kc_kernel_get("kt_cat_reduce", NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_kernel_get("no such kernel", &k), KC_ENOKERNEL);
}

static int case_before_init(void *arg) {
  (void)arg;
  expect_noinit();
  return kc_test_failures() > case_base ? 1 : 0;
}

static int case_after_finalize(void *arg) {
  (void)arg;
  start();
  void *p = NULL;
  kc_mirror *m = NULL;
  KC_CHECK_OK(kc_malloc(&p, 64, KC_SPACE_DEVICE, "left live"));
  KC_CHECK_OK(kc_mirror_create(&m, 64, "left live"));
  KC_CHECK_OK(kc_queue_create(&dead_q, 0));
  KC_CHECK_OK(kc_event_create(&dead_e));
  KC_CHECK_OK(kc_event_record(dead_e, dead_q));
  KC_CHECK_OK(kc_finalize());
  expect_noinit();
  /* What was live at finalize is gone. */
  KC_CHECK_ERR(kc_free(p), KC_ENOINIT);
  KC_CHECK_ERR(kc_mirror_sync_host(m), KC_ENOINIT);
  /* A mirror's handle is still the program's to free (its memory went
   * with kc_finalize): destroy frees it and says 0. */
  KC_CHECK_OK(kc_mirror_destroy(m));
  /* And kc comes back. */
  KC_CHECK_OK(kc_init());
  KC_CHECK_ERR(kc_free(p), KC_ENOTKC);
  /* Back up, the queue and the event kc_finalize destroyed are dead. */
  KC_CHECK_ERR(kc_queue_fence(dead_q), KC_EINVAL);
  KC_CHECK_ERR(kc_event_query(dead_e), KC_EINVAL);
  return end();
}

/* ------------------------------------------------------------- memory */

static int case_memory(void *arg) {
  (void)arg;
  start();
  char host[64];
  void *p = NULL, *q = NULL;
  kc_alloc_info ai;
  kc_info info;
  memset(&info, 0, sizeof info);
  KC_CHECK_ERR(kc_get_info(NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_get_info(&info), KC_EINVAL); /* struct_size 0 */
  info.struct_size = SIZE_MAX; /* a newer caller: gets what kc has */
  KC_CHECK_OK(kc_get_info(&info));
  KC_CHECK_ERR(kc_malloc(NULL, 8, KC_SPACE_HOST, NULL), KC_EINVAL);
  /* A negative size made unsigned (Fortran's c_size_t is signed), between
   * two host arrays kc did not allocate: it reached memmove (SIGSEGV). */
  char other[64];
  KC_CHECK_ERR(kc_memcpy(other, host, (size_t)-8), KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), "negative size");
  KC_CHECK_ERR(kc_memcpy_async(other, host, (size_t)PTRDIFF_MAX + 1),
               KC_EINVAL);
  KC_CHECK_ERR(kc_memset(other, 0, (size_t)-8), KC_EINVAL);
  KC_CHECK_ERR(kc_memcpy_on(NULL, other, host, (size_t)-8), KC_EINVAL);
  KC_CHECK_ERR(kc_malloc(&p, 8, (kc_space)-1, NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_malloc(&p, 8, KC_SPACE_COUNT, NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_malloc(&p, 8, (kc_space)INT_MAX, NULL), KC_EINVAL);
  for (int s = 0; s < KC_SPACE_COUNT; s++) {
    KC_CHECK_ERR(kc_malloc(&p, SIZE_MAX, (kc_space)s, "huge"), KC_ENOMEM);
    KC_CHECK_ERR(kc_malloc(&p, (size_t)PTRDIFF_MAX, (kc_space)s, "huge"),
                 KC_ENOMEM);
    KC_CHECK(p == NULL);
  }
  KC_CHECK_ERR(kc_free(host), KC_ENOTKC);
  KC_CHECK_ERR(kc_free((void *)-1), KC_ENOTKC);
  KC_CHECK_ERR(kc_retain(NULL), KC_ENOTKC);
  KC_CHECK_ERR(kc_pointer_info(NULL, &ai), KC_ENOTKC);
  KC_REQUIRE_OK(kc_malloc(&p, 64, KC_SPACE_DEVICE, "p"));
  KC_CHECK_ERR(kc_pointer_info(p, NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_free((char *)p + 8), KC_ENOTKC);
  KC_CHECK_ERR(kc_memcpy(NULL, host, 8), KC_EINVAL);
  KC_CHECK_ERR(kc_memcpy(host, NULL, 8), KC_EINVAL);
  KC_CHECK_OK(kc_memcpy(NULL, NULL, 0));
  KC_CHECK_ERR(kc_memcpy(p, host, 65), KC_EINVAL);
  KC_CHECK_ERR(kc_memcpy((char *)p + 60, host, 8), KC_EINVAL);
  KC_CHECK_ERR(kc_memcpy((char *)p + 8, host, SIZE_MAX), KC_EINVAL);
  KC_CHECK_ERR(kc_memcpy(host, (char *)p + 63, 2), KC_EINVAL);
  KC_CHECK_ERR(kc_memcpy_async((char *)p + 1, host, SIZE_MAX - 1), KC_EINVAL);
  KC_CHECK_ERR(kc_memset(NULL, 0, 8), KC_EINVAL);
  KC_CHECK_ERR(kc_memset(p, 0, 65), KC_EINVAL);
  KC_CHECK_ERR(kc_memset((char *)p + 32, 0, SIZE_MAX), KC_EINVAL);
  KC_CHECK_OK(kc_malloc(&q, 0, KC_SPACE_DEVICE, "empty"));
  KC_CHECK_ERR(kc_memset(q, 0, 1), KC_EINVAL);
  KC_CHECK_OK(kc_free(q));
  KC_CHECK_ERR(kc_free(q), KC_ENOTKC);
  KC_CHECK_OK(kc_free(p));
  KC_CHECK_ERR(kc_free(p), KC_ENOTKC);
  KC_CHECK_ERR(kc_retain(p), KC_ENOTKC);
  return end();
}

static int case_mirror(void *arg) {
  (void)arg;
  start();
  kc_mirror *m = NULL;
  KC_CHECK_ERR(kc_mirror_create(NULL, 8, "m"), KC_EINVAL);
  KC_CHECK_ERR(kc_mirror_create(&m, SIZE_MAX, "huge"), KC_ENOMEM);
  KC_CHECK(m == NULL);
  KC_CHECK_ERR(kc_mirror_modify_host(NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_mirror_modify_target(NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_mirror_sync_host(NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_mirror_sync_target(NULL), KC_EINVAL);
  KC_CHECK(kc_mirror_host(NULL) == NULL && kc_mirror_target(NULL) == NULL);
  KC_CHECK_EQ_UINT(kc_mirror_size(NULL), 0);
  KC_CHECK_EQ_INT(kc_mirror_need_sync_host(NULL), 0);
  KC_CHECK_EQ_INT(kc_mirror_need_sync_target(NULL), 0);
  KC_CHECK_OK(kc_mirror_destroy(NULL));
  return end();
}

static int case_misc(void *arg) {
  (void)arg;
  start();
  KC_CHECK_ERR(kc_region_push(NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_region_pop(), KC_EINVAL);
  KC_CHECK_ERR(kc_declare_metadata(NULL, "v"), KC_EINVAL);
  KC_CHECK_ERR(kc_declare_metadata("k", NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_profile_event(NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_policy_set_scratch(NULL, 0, 1, 1), KC_EINVAL);
  kc_policy p = kc_team_policy(1, 1, 1);
  KC_CHECK_ERR(kc_policy_set_scratch(&p, -1, 1, 1), KC_EINVAL);
  KC_CHECK_ERR(kc_policy_set_scratch(&p, 2, 1, 1), KC_EINVAL);
  KC_CHECK_ERR(kc_policy_set_scratch(&p, INT_MIN, 1, 1), KC_EINVAL);
  /* Constructors clamp what they cannot store. */
  kc_policy md = kc_mdrange(-1, NULL, NULL, NULL);
  KC_CHECK_EQ_INT(md.rank, -1);
  md = kc_mdrange(INT_MAX, NULL, NULL, NULL);
  KC_CHECK_EQ_INT(md.kind, KC_POLICY_MDRANGE);
  return end();
}

/* ------------------------------------------------------------ kernels */

static int case_register(void *arg) {
  (void)arg;
  start();
  kc_kernel_desc d;
  kc_kernel *k = (kc_kernel *)1;
  KC_CHECK_ERR(kc_kernel_register(NULL, &k), KC_EINVAL);
  KC_CHECK(k == NULL);
  memset(&d, 0, sizeof d);
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL); /* struct_size 0 */
  d.struct_size = sizeof d;
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL); /* no name */
  d.name = "";
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL);
  d.name = "hostile bad kind";
  d.host = (void (*)(void))span_for;
  d.kind = (kc_kernel_kind)0;
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL);
  d.kind = (kc_kernel_kind)INT_MAX;
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL);
  d.kind = (kc_kernel_kind)-1;
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL);
  d.kind = KC_KERNEL_FOR;
  d.host = NULL;
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL); /* no code */
  d.host = (void (*)(void))span_for;
  d.rank = -1;
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL);
  d.kind = KC_KERNEL_MDFOR;
  d.rank = KC_MAX_RANK + 1;
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL);
  d.rank = INT_MIN;
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL);
  d.kind = KC_KERNEL_CALL;
  d.rank = 0;
  d.signature = "px";
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL);
  char many[64 + 2];
  memset(many, 'i', sizeof many - 1);
  many[sizeof many - 1] = '\0';
  d.signature = many;
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL);
  /* Reducers. */
  d.kind = KC_KERNEL_REDUCE;
  d.signature = NULL;
  d.host = (void (*)(void))red_body;
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL); /* none */
  d.reducer.op = (kc_reduce_op)99;
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL);
  d.reducer.op = (kc_reduce_op)-1;
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL);
  d.reducer.op = KC_REDUCE_SUM;
  d.reducer.type = (kc_scalar)0;
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL);
  d.reducer.type = (kc_scalar)INT_MAX;
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL);
  d.reducer.op = KC_REDUCE_CUSTOM;
  d.reducer.identity = red_id;
  d.reducer.join = red_join;
  static const size_t sizes[] = {0,
                                 SIZE_MAX,
                                 SIZE_MAX - 8,
                                 (size_t)1 << 62,
                                 (size_t)1 << 32,
                                 KC_REDUCER_SIZE_MAX + 1};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    d.reducer.size = sizes[i];
    if (KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL) != KC_EINVAL)
      KC_INFO("  ... custom reducer of %zu bytes", sizes[i]);
  }
  d.reducer.size = 16;
  d.reducer.join = NULL;
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL);
  /* Duplicates. */
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EINVAL);
  d.reducer.join = red_join;
  d.name = "kt_cat_reduce";
  KC_CHECK_ERR(kc_kernel_register(&d, NULL), KC_EEXIST);
  /* Lookups and handles. */
  KC_CHECK_ERR(kc_kernel_get("", &k), KC_ENOKERNEL);
  KC_CHECK(kc_kernel_name(NULL) == NULL);
  /* Not a kernel handle: readable bytes of zeros, as large as a handle. */
  static _Alignas(64) unsigned char fake[4096];
  KC_CHECK_ERR(kc_kernel_set_team_scratch(NULL, NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_kernel_set_team_scratch((kc_kernel *)(void *)fake, NULL),
               KC_EINVAL);
  KC_CHECK_ERR(kc_kernel_set_team_scratch(KC_KERNEL(kt_cat_reduce), NULL),
               KC_EINVAL);
  return end();
}

/* ----------------------------------------------------------- launches */

static int case_launch_args(void *arg) {
  (void)arg;
  start();
  _Atomic int64_t n = 0, c = 0;
  span_f f = {&n, &c};
  kc_kernel *kf =
      reg("hostile for", KC_KERNEL_FOR, 0, (void (*)(void))span_for, NULL);
  kc_kernel *kc =
      reg("hostile call", KC_KERNEL_CALL, 0, (void (*)(void))span_call, "p");
  kc_kernel *kt =
      reg("hostile team", KC_KERNEL_TEAM, 0, (void (*)(void))team_nop, NULL);
  static _Alignas(64) unsigned char fake[4096]; /* not a kernel handle */
  kc_policy r = kc_range(0, 10);
  KC_CHECK_ERR(kc_parallel_for(NULL, NULL, &r, &f, sizeof f), KC_EINVAL);
  KC_CHECK_ERR(
      kc_parallel_for(NULL, (kc_kernel *)(void *)fake, &r, &f, sizeof f),
      KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_for(NULL, kf, NULL, &f, sizeof f), KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_for(NULL, kf, &r, NULL, sizeof f), KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_for(NULL, kf, &r, NULL, SIZE_MAX), KC_EINVAL);
  /* A real functor with an impossible size (a device backend copies it). */
  KC_CHECK_ERR(kc_parallel_for(NULL, kf, &r, &f, SIZE_MAX), KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_for(NULL, kf, &r, &f, (size_t)PTRDIFF_MAX + 1),
               KC_EINVAL);
  KC_CHECK_ERR(
      kc_parallel_for(NULL, KC_KERNEL(kt_cat_reduce), &r, &f, sizeof f),
      KC_EINVAL);
  kc_policy bad = r;
  bad.kind = (kc_policy_kind)77;
  KC_CHECK_ERR(kc_parallel_for(NULL, kf, &bad, &f, sizeof f), KC_EINVAL);
  bad = r;
  bad.schedule = (kc_schedule)-3;
  KC_CHECK_ERR(kc_parallel_for(NULL, kf, &bad, &f, sizeof f), KC_EINVAL);
  bad = kc_range_schedule(0, 10, KC_SCHEDULE_DYNAMIC, 0);
  KC_CHECK_ERR(kc_parallel_for(NULL, kf, &bad, &f, sizeof f), KC_EINVAL);
  bad.chunk = -2;
  KC_CHECK_ERR(kc_parallel_for(NULL, kf, &bad, &f, sizeof f), KC_EINVAL);
  bad.chunk = INT64_MIN;
  KC_CHECK_ERR(kc_parallel_for(NULL, kf, &bad, &f, sizeof f), KC_EINVAL);
  bad = kc_range(10, 0);
  KC_CHECK_ERR(kc_parallel_for(NULL, kf, &bad, &f, sizeof f), KC_ERANGE);
  bad = kc_range(INT64_MAX, INT64_MIN);
  KC_CHECK_ERR(kc_parallel_for(NULL, kf, &bad, &f, sizeof f), KC_ERANGE);
  /* Teams. */
  kc_policy t = kc_team_policy(-1, 1, 1);
  KC_CHECK_ERR(kc_parallel_for(NULL, kt, &t, NULL, 0), KC_ERANGE);
  t = kc_team_policy(INT64_MIN, 1, 1);
  KC_CHECK_ERR(kc_parallel_for(NULL, kt, &t, NULL, 0), KC_ERANGE);
  t = kc_team_policy(4, 0, 1);
  KC_CHECK_ERR(kc_parallel_for(NULL, kt, &t, NULL, 0), KC_EINVAL);
  t = kc_team_policy(4, INT_MIN, 1);
  KC_CHECK_ERR(kc_parallel_for(NULL, kt, &t, NULL, 0), KC_EINVAL);
  t = kc_team_policy(4, 1, 0);
  KC_CHECK_ERR(kc_parallel_for(NULL, kt, &t, NULL, 0), KC_EINVAL);
  t = kc_team_policy(4, 1, INT_MIN);
  KC_CHECK_ERR(kc_parallel_for(NULL, kt, &t, NULL, 0), KC_EINVAL);
  t = kc_team_policy(4, 1, 1);
  /* Scratch is sized at the launch, after the backend found the kernel's
   * code: host backends only (this kernel has no PTX). */
  for (int lev = 0; lev < 2 && host_runs(); lev++) {
    kc_policy s = t;
    KC_CHECK_OK(kc_policy_set_scratch(&s, lev, SIZE_MAX, 0));
    KC_CHECK_ERR(kc_parallel_for(NULL, kt, &s, NULL, 0), KC_ESCRATCH);
    KC_CHECK_OK(kc_policy_set_scratch(&s, lev, 0, SIZE_MAX - 8));
    KC_CHECK_ERR(kc_parallel_for(NULL, kt, &s, NULL, 0), KC_ESCRATCH);
    KC_CHECK_OK(kc_policy_set_scratch(&s, lev, SIZE_MAX / 2, SIZE_MAX / 2));
    KC_CHECK_ERR(kc_parallel_for(NULL, kt, &s, NULL, 0), KC_ESCRATCH);
  }
  /* CALL kernels. */
  int64_t x = 0;
  void *args[1] = {&x};
  void *nulls[1] = {NULL};
  KC_CHECK_ERR(kc_parallel_call(NULL, kc, &r, 0, args), KC_ESIGNATURE);
  KC_CHECK_ERR(kc_parallel_call(NULL, kc, &r, -1, args), KC_ESIGNATURE);
  KC_CHECK_ERR(kc_parallel_call(NULL, kc, &r, INT_MAX, args), KC_ESIGNATURE);
  KC_CHECK_ERR(kc_parallel_call(NULL, kc, &r, 1, NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_call(NULL, kc, &r, 1, nulls), KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_call(NULL, kf, &r, 0, NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_call(NULL, NULL, &r, 0, NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_call(NULL, kc, NULL, 1, args), KC_EINVAL);
  /* Reductions and scans. */
  kt_cat_f cf = {NULL, 0};
  KC_CHECK_ERR(kc_parallel_reduce(NULL, KC_KERNEL(kt_cat_reduce), &r, &cf,
                                  sizeof cf, NULL),
               KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_reduce(NULL, kf, &r, &f, sizeof f, &x), KC_EINVAL);
  KC_CHECK_ERR(kc_parallel_scan(NULL, KC_KERNEL(kt_cat_reduce), &r, &cf,
                                sizeof cf, NULL),
               KC_EINVAL);
  if (!host_runs())
    KC_INFO("hand-registered host kernels do not run on %s", kc_backend_name());
  return end();
}

/* Ranges of more indices than kc_index holds are refused, never run
 * partly or not at all with success. */
static int case_range_overflow(void *arg) {
  (void)arg;
  start();
  _Atomic int64_t n = 0, c = 0;
  span_f f = {&n, &c};
  kc_kernel *kf =
      reg("hostile for", KC_KERNEL_FOR, 0, (void (*)(void))span_for, NULL);
  kc_kernel *kc =
      reg("hostile call", KC_KERNEL_CALL, 0, (void (*)(void))span_call, "p");
  kc_kernel *kmd =
      reg("hostile md", KC_KERNEL_MDFOR, 2, (void (*)(void))span_md, NULL);
  static const kc_index spans[][2] = {
      {-2, INT64_MAX}, {INT64_MIN, INT64_MAX}, {INT64_MIN, 0}, {-1, INT64_MAX}};
  static const kc_index chunks[] = {KC_AUTO, 1, 1000, INT64_MAX};
  int64_t x = 0;
  void *args[1] = {&x};
  kt_cat_f cf = {NULL, 0};
  kt_cat v;
  for (size_t s = 0; s < sizeof spans / sizeof spans[0]; s++)
    for (int dyn = 0; dyn < 2; dyn++)
      for (size_t ch = 0; ch < sizeof chunks / sizeof chunks[0]; ch++) {
        kc_policy p = kc_range_schedule(
            spans[s][0], spans[s][1],
            dyn ? KC_SCHEDULE_DYNAMIC : KC_SCHEDULE_STATIC, chunks[ch]);
        const int before = kc_test_failures();
        KC_CHECK_ERR(kc_parallel_for(NULL, kf, &p, &f, sizeof f), KC_ERANGE);
        KC_CHECK_ERR(kc_parallel_call(NULL, kc, &p, 1, args), KC_ERANGE);
        KC_CHECK_ERR(kc_parallel_reduce(NULL, KC_KERNEL(kt_cat_reduce), &p, &cf,
                                        sizeof cf, &v),
                     KC_ERANGE);
        KC_CHECK_ERR(kc_parallel_scan(NULL, KC_KERNEL(kt_cat_scan), &p, &cf,
                                      sizeof cf, &v),
                     KC_ERANGE);
        if (kc_test_failures() != before)
          KC_INFO("  ... [%lld, %lld), %s, chunk %lld", (long long)spans[s][0],
                  (long long)spans[s][1], dyn ? "dynamic" : "static",
                  (long long)chunks[ch]);
      }
  KC_CHECK_EQ_INT(atomic_load(&n), 0);
  /* Boxes: a dimension, or the product of the extents, too large. */
  kc_index b[2] = {0, -2}, e[2] = {1, INT64_MAX};
  kc_policy md = kc_mdrange(2, b, e, NULL);
  KC_CHECK_ERR(kc_parallel_for(NULL, kmd, &md, &f, sizeof f), KC_ERANGE);
  kc_index b2[2] = {0, 0}, e2[2] = {(kc_index)1 << 32, (kc_index)1 << 32};
  md = kc_mdrange(2, b2, e2, NULL);
  KC_CHECK_ERR(kc_parallel_for(NULL, kmd, &md, &f, sizeof f), KC_ERANGE);
  kc_index t2[2] = {(kc_index)1 << 40, (kc_index)1 << 40};
  md = kc_mdrange(2, b2, e2, t2);
  KC_CHECK_ERR(kc_parallel_for(NULL, kmd, &md, &f, sizeof f), KC_ERANGE);
  KC_CHECK_EQ_INT(atomic_load(&n), 0);
  return end();
}

/* Legal but extreme: spans just below INT64_MAX, ranges at the ends of
 * kc_index, huge chunks and tiles.  Host backends must cover exactly the
 * indices asked for. */
static int case_range_extreme(void *arg) {
  (void)arg;
  start();
  if (!host_runs()) {
    end();
    KC_SKIP("hand-registered host kernels do not run on %s", kc_backend_name());
  }
  _Atomic int64_t n = 0, c = 0;
  span_f f = {&n, &c};
  kc_kernel *kf =
      reg("hostile for", KC_KERNEL_FOR, 0, (void (*)(void))span_for, NULL);
  kc_kernel *kmd =
      reg("hostile md", KC_KERNEL_MDFOR, 2, (void (*)(void))span_md, NULL);
  static const kc_index spans[][2] = {{0, INT64_MAX},
                                      {-1, INT64_MAX - 1},
                                      {INT64_MIN, -1},
                                      {INT64_MAX - 1000, INT64_MAX},
                                      {INT64_MIN, INT64_MIN + 1000},
                                      {INT64_MIN / 2, INT64_MAX / 2}};
  static const kc_index chunks[] = {KC_AUTO, INT64_MAX / 3, INT64_MAX - 1,
                                    INT64_MAX, (kc_index)1 << 61};
  for (size_t s = 0; s < sizeof spans / sizeof spans[0]; s++)
    for (int dyn = 0; dyn < 2; dyn++)
      for (size_t ch = 0; ch < sizeof chunks / sizeof chunks[0]; ch++) {
        kc_policy p = kc_range_schedule(
            spans[s][0], spans[s][1],
            dyn ? KC_SCHEDULE_DYNAMIC : KC_SCHEDULE_STATIC, chunks[ch]);
        if (dyn && chunks[ch] == KC_AUTO && spans[s][1] - spans[s][0] > 1000)
          continue; /* about 8 chunks a thread: fine, but covered below */
        atomic_store(&n, 0);
        const int before = kc_test_failures();
        if (KC_CHECK_OK(kc_parallel_for(NULL, kf, &p, &f, sizeof f)) == 0)
          KC_CHECK_EQ_INT(atomic_load(&n), spans[s][1] - spans[s][0]);
        if (kc_test_failures() != before)
          KC_INFO("  ... [%lld, %lld), %s, chunk %lld", (long long)spans[s][0],
                  (long long)spans[s][1], dyn ? "dynamic" : "static",
                  (long long)chunks[ch]);
      }
  /* Leagues of up to INT64_MAX teams, each schedule. */
  kc_kernel *kt = reg("hostile team span", KC_KERNEL_TEAM, 0,
                      (void (*)(void))team_span, NULL);
  static const kc_index leagues[] = {INT64_MAX, INT64_MAX - 1,
                                     (kc_index)1 << 62};
  static const kc_index tchunks[] = {KC_AUTO, INT64_MAX, INT64_MAX / 2 + 1,
                                     (kc_index)1 << 60};
  for (size_t l = 0; l < sizeof leagues / sizeof leagues[0]; l++)
    for (int dyn = 0; dyn < 2; dyn++)
      for (size_t ch = 0; ch < sizeof tchunks / sizeof tchunks[0]; ch++) {
        if (dyn && tchunks[ch] == KC_AUTO)
          continue;
        kc_policy tp = kc_team_policy(leagues[l], 1, 1);
        tp.schedule = dyn ? KC_SCHEDULE_DYNAMIC : KC_SCHEDULE_STATIC;
        tp.chunk = tchunks[ch];
        atomic_store(&n, 0);
        const int before = kc_test_failures();
        if (KC_CHECK_OK(kc_parallel_for(NULL, kt, &tp, &f, sizeof f)) == 0)
          KC_CHECK_EQ_INT(atomic_load(&n), leagues[l]);
        if (kc_test_failures() != before)
          KC_INFO("  ... league %lld, %s, chunk %lld", (long long)leagues[l],
                  dyn ? "dynamic" : "static", (long long)tchunks[ch]);
      }
  /* A box with one huge dimension and huge tiles (a tile's end past
   * INT64_MAX must not be computed). */
  const kc_index ext = ((kc_index)1 << 61) * 3;
  kc_index b[2] = {0, -((kc_index)1 << 61)}, e[2] = {1, (kc_index)1 << 62};
  static const kc_index tiles[] = {0, (kc_index)1 << 62, INT64_MAX,
                                   ((kc_index)1 << 62) + 1, 3};
  for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
    kc_index tl[2] = {1, tiles[t]};
    kc_policy md = kc_mdrange(2, b, e, tl);
    if (tiles[t] == 3) {
      /* 2^62 tiles: too many to run, not too many to count. */
      continue;
    }
    atomic_store(&n, 0);
    atomic_store(&c, 0);
    const int before = kc_test_failures();
    if (KC_CHECK_OK(kc_parallel_for(NULL, kmd, &md, &f, sizeof f)) == 0) {
      KC_CHECK_EQ_INT(atomic_load(&n), ext);
      KC_CHECK_GE_INT(atomic_load(&c), 1);
    }
    if (kc_test_failures() != before)
      KC_INFO("  ... box tile %lld", (long long)tiles[t]);
  }
  return end();
}

/* A result must fit where it is stored: a kc allocation smaller than the
 * reducer's value (or an interior pointer too near its end) is refused,
 * for reductions and scan totals. */
static int case_result_room(void *arg) {
  (void)arg;
  start();
  kc_policy p = kc_range(0, 100);
  kt_cat_f cf = {NULL, 0};
  static const size_t sizes[] = {0, 1, 8, 15};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    void *r = NULL;
    KC_REQUIRE_OK(kc_malloc(&r, sizes[i], KC_SPACE_DEVICE, "small result"));
    KC_CHECK_ERR(kc_parallel_reduce(NULL, KC_KERNEL(kt_cat_reduce), &p, &cf,
                                    sizeof cf, r),
                 KC_EINVAL);
    KC_CHECK_ERR(
        kc_parallel_scan(NULL, KC_KERNEL(kt_cat_scan), &p, &cf, sizeof cf, r),
        KC_EINVAL);
    KC_CHECK_OK(kc_free(r));
  }
  /* Interior pointers: 64 bytes, the value (16) fits only at 48 or less. */
  char *r = NULL;
  KC_REQUIRE_OK(kc_malloc((void **)&r, 64, KC_SPACE_DEVICE, "result"));
  static const size_t offs[] = {49, 56, 63};
  for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
    KC_CHECK_ERR(kc_parallel_reduce(NULL, KC_KERNEL(kt_cat_reduce), &p, &cf,
                                    sizeof cf, r + offs[i]),
                 KC_EINVAL);
    KC_CHECK_ERR(kc_parallel_scan(NULL, KC_KERNEL(kt_cat_scan), &p, &cf,
                                  sizeof cf, r + offs[i]),
                 KC_EINVAL);
  }
  KC_CHECK_OK(kc_parallel_reduce(NULL, KC_KERNEL(kt_cat_reduce), &p, &cf,
                                 sizeof cf, r + 48));
  KC_CHECK_OK(kc_parallel_scan(NULL, KC_KERNEL(kt_cat_scan), &p, &cf, sizeof cf,
                               r + 32));
  KC_CHECK_OK(kc_fence());
  kt_cat got[2];
  KC_CHECK_OK(kc_memcpy(got, r + 32, sizeof got));
  uint64_t want = 0;
  for (kc_index i = 0; i < 100; i++)
    want = want * 10 + kt_cat_digit(i);
  KC_CHECK_EQ_UINT(got[0].h, want);
  KC_CHECK_EQ_UINT(got[1].h, want);
  KC_CHECK_OK(kc_free(r));
  return end();
}

/* Output arguments that kc writes on the host must not run past the end
 * of a kc allocation they point into, nor be device memory. */
static int case_out_room(void *arg) {
  (void)arg;
  start();
  char *small = NULL, *big = NULL;
  void *pp = NULL;
  KC_REQUIRE_OK(kc_malloc((void **)&small, 4, KC_SPACE_HOST, "small"));
  KC_REQUIRE_OK(
      kc_malloc((void **)&big, sizeof(kc_info), KC_SPACE_HOST, "big"));
  KC_CHECK_ERR(kc_malloc((void **)small, 8, KC_SPACE_HOST, "x"), KC_EINVAL);
  KC_CHECK_ERR(
      kc_malloc((void **)(big + sizeof(kc_info) - 4), 8, KC_SPACE_HOST, "x"),
      KC_EINVAL);
  KC_CHECK_ERR(kc_pointer_info(big, (kc_alloc_info *)(void *)small), KC_EINVAL);
  KC_CHECK_ERR(kc_get_info((kc_info *)(void *)small), KC_EINVAL);
  KC_CHECK_ERR(kc_mirror_create((kc_mirror **)(void *)small, 8, "m"),
               KC_EINVAL);
  /* The queue calls' outputs (a handle, a device, milliseconds) too: they
   * wrote past the end of `small` and returned 0. */
  kc_event *ev = NULL;
  KC_REQUIRE_OK(kc_event_create(&ev));
  KC_CHECK_OK(kc_event_record(ev, NULL));
  KC_CHECK_ERR(kc_queue_create((kc_queue **)(void *)small, 0), KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), "kc_queue_create: out");
  KC_CHECK_ERR(kc_event_create((kc_event **)(void *)small), KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), "kc_event_create: out");
  KC_CHECK_ERR(kc_event_elapsed(ev, ev, (double *)(void *)small), KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), "kc_event_elapsed: ms");
  KC_CHECK_ERR(kc_queue_device(NULL, (int *)(void *)(small + 2)), KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), "kc_queue_device: device");
  KC_CHECK_ERR(kc_pointer_device(small, (int *)(void *)(small + 2)), KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), "kc_pointer_device: device");
  KC_CHECK_OK(kc_queue_device(NULL, (int *)(void *)small));
  KC_CHECK_OK(kc_event_destroy(ev));
  /* A kc_info in a kc allocation of its size is fine; one byte later it
   * is not. */
  kc_info *info = (kc_info *)(void *)big;
  memset(info, 0, sizeof *info);
  info->struct_size = sizeof *info;
  KC_CHECK_OK(kc_get_info(info));
  KC_CHECK_OK(kc_malloc((void **)big, 8, KC_SPACE_HOST, "fits"));
  memcpy(&pp, big, sizeof pp);
  KC_CHECK_OK(kc_free(pp));
  if (kc_test_device_is_distinct()) {
    void *dev = NULL;
    KC_REQUIRE_OK(kc_malloc(&dev, 4096, KC_SPACE_DEVICE, "device"));
    KC_CHECK_ERR(kc_pointer_info(big, (kc_alloc_info *)dev), KC_EINVAL);
    KC_CHECK_ERR(kc_malloc((void **)dev, 8, KC_SPACE_HOST, "x"), KC_EINVAL);
    KC_CHECK_ERR(kc_queue_create((kc_queue **)dev, 0), KC_EINVAL);
    KC_CHECK_ERR(kc_event_create((kc_event **)dev), KC_EINVAL);
    KC_CHECK_ERR(kc_queue_device(NULL, (int *)dev), KC_EINVAL);
    KC_CHECK_OK(kc_free(dev));
  }
  KC_CHECK_OK(kc_free(small));
  KC_CHECK_OK(kc_free(big));
  return end();
}

/* A chunk buffer of an impossible size ends the program (a kernel body
 * cannot return an error) with a message; it must not hand out a buffer
 * smaller than asked for.  The call runs in a process of its own, which
 * must die of SIGABRT. */
static int case_chunk_buffer(void *arg) {
  (void)arg;
  static const size_t sizes[] = {SIZE_MAX, SIZE_MAX - 63,
                                 (size_t)PTRDIFF_MAX + 1};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
      KC_FAIL("fork: %s", strerror(errno));
      break;
    }
    if (pid == 0) {
      void *p = kc__chunk_buffer(0, sizes[i]);
      printf("kc__chunk_buffer(0, %zu) returned %p\n", sizes[i], p);
      fflush(stdout);
      _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGABRT)
      KC_FAIL("a chunk buffer of %zu bytes did not abort (status 0x%x)",
              sizes[i], st);
  }
  /* Sizes that are fine still work. */
  void *p = kc__chunk_buffer(1, 100);
  KC_CHECK(p != NULL);
  return kc_test_failures() > case_base ? 1 : 0;
}

typedef struct hcase {
  const char *name;
  kc_isolate_fn fn;
} hcase;

#define CASE(fn)                                                               \
  { #fn, fn }
static const hcase cases[] = {
    CASE(case_before_init), CASE(case_after_finalize), CASE(case_memory),
    CASE(case_mirror),      CASE(case_misc),           CASE(case_register),
    CASE(case_launch_args), CASE(case_range_overflow), CASE(case_range_extreme),
    CASE(case_result_room), CASE(case_out_room),       CASE(case_chunk_buffer)};

int main(int argc, char **argv) {
  int ran = 0;
  setvbuf(stdout, NULL, _IOLBF, 0);
  /* One case by name (for a debugger): t-hostile-api case_memory. */
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
      continue;
    case_base = kc_test_failures();
    if (kc_isolate(cases[i].name, cases[i].fn, NULL, TIMEOUT) != 77)
      ran = 1;
  }
  if (!ran && kc_test_failures() == 0)
    return 77;
  return kc_test_done();
}
