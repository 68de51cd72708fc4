/* Conformance: every kc.h call made from inside a kernel's body either
 * works (the calls that use no runtime state) or returns KC_EINVAL with
 * one detail, "<fn> called from inside a kernel or a backend slot"; none
 * waits for the launch it runs in.
 *
 * Each call is one case in a process of its own with a time limit
 * (kc-isolate.h): before libkc refused them, kc_malloc, kc_free,
 * kc_memcpy, kc_memset, kc_get_info, kc_finalize, kc_mirror_create ...
 * deadlocked on the runtime lock that the outer launch holds.  In every
 * case the call is made at every index, on every thread that runs one
 * (dynamic chunks of one index), and afterwards the runtime must be
 * unchanged and usable: the allocations, the mirror and the reference
 * count of kc_init are as they were, and a fence, a launch and the last
 * kc_finalize work.  The queue calls are here too: kc_queue_destroy from
 * a kernel used to destroy the queue while it returned KC_EINVAL, and
 * kc_memcpy_on / kc_memset_on named kc_memcpy_async / kc_memset in their
 * details.
 *
 * The kernel calls kc, so it cannot be device code: this file is compiled
 * by the plain C compiler, which registers it host-only.  On a backend
 * whose kernels run on a device (cuda) the cases skip. */
#include <kc/kernel.h>

#include "kc-isolate.h"
#include "kc-test.h"
#include "kernels/functors.h"

KC_KERNEL_DECLARE(kt_count);
KC_KERNEL_DECLARE(kt_sum_index);
KC_KERNEL_DECLARE(kt_iscan_i32);

enum { N = 64, NB = 256, DETAIL = 512 };

/* What the kernel calls with. */
typedef struct reentry_env {
  char *a, *b;       /* two kc allocations of NB bytes */
  kc_mirror *mirror; /* a mirror of NB bytes */
  kc_kernel *count;  /* kt_count, to launch from inside */
  int32_t *hits;     /* its target */
  kc_queue *q;       /* a queue and an event made before the launch */
  kc_event *ev;
} reentry_env;

typedef int (*call_fn)(reentry_env *e);

static int c_init(reentry_env *e) { return (void)e, kc_init(); }
static int c_finalize(reentry_env *e) { return (void)e, kc_finalize(); }
static int c_fence(reentry_env *e) { return (void)e, kc_fence(); }
static int c_get_info(reentry_env *e) {
  kc_info info;
  (void)e;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  return kc_get_info(&info);
}
static int c_malloc(reentry_env *e) {
  void *p = NULL;
  int rc = kc_malloc(&p, 64, KC_SPACE_DEVICE, "from a kernel");
  (void)e;
  return rc == 0 && p == NULL ? 1 : rc;
}
static int c_free(reentry_env *e) { return kc_free(e->a); }
static int c_retain(reentry_env *e) { return kc_retain(e->a); }
static int c_pointer_info(reentry_env *e) {
  kc_alloc_info ai;
  return kc_pointer_info(e->a, &ai);
}
static int c_memcpy(reentry_env *e) { return kc_memcpy(e->b, e->a, NB); }
static int c_memcpy_async(reentry_env *e) {
  return kc_memcpy_async(e->b, e->a, NB);
}
static int c_memset(reentry_env *e) { return kc_memset(e->a, 7, NB); }
static int c_mirror_create(reentry_env *e) {
  kc_mirror *m = NULL;
  (void)e;
  return kc_mirror_create(&m, 64, "from a kernel");
}
static int c_mirror_destroy(reentry_env *e) {
  return kc_mirror_destroy(e->mirror);
}
static int c_mirror_modify_host(reentry_env *e) {
  return kc_mirror_modify_host(e->mirror);
}
static int c_mirror_modify_target(reentry_env *e) {
  return kc_mirror_modify_target(e->mirror);
}
static int c_mirror_sync_host(reentry_env *e) {
  return kc_mirror_sync_host(e->mirror);
}
static int c_mirror_sync_target(reentry_env *e) {
  return kc_mirror_sync_target(e->mirror);
}
static int c_kernel_get(reentry_env *e) {
  kc_kernel *k = NULL;
  (void)e;
  return kc_kernel_get("kt_count", &k);
}
static int c_kernel_register(reentry_env *e) {
  kc_kernel_desc d;
  (void)e;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.name = "t_reentry_new_kernel";
  d.kind = KC_KERNEL_FOR;
  d.host = (void (*)(void))c_fence;
  return kc_kernel_register(&d, NULL);
}
static int c_parallel_for(reentry_env *e) {
  kc_policy p = kc_range(0, 4);
  kt_count c = {e->hits, 0};
  return kc_parallel_for("inner", e->count, &p, &c, sizeof c);
}
static int c_parallel_reduce(reentry_env *e) {
  kc_policy p = kc_range(0, 4);
  kt_xi64 x = {NULL, 0};
  int64_t sum = 0;
  (void)e;
  return kc_parallel_reduce("inner", KC_TEST_KERNEL(kt_sum_index), &p, &x,
                            sizeof x, &sum);
}
static int c_parallel_scan(reentry_env *e) {
  kc_policy p = kc_range(0, 4);
  kt_scan_i32 x = {NULL, NULL, 0};
  (void)e;
  return kc_parallel_scan("inner", KC_TEST_KERNEL(kt_iscan_i32), &p, &x,
                          sizeof x, NULL);
}
static int c_queue_create(reentry_env *e) {
  kc_queue *q = NULL;
  (void)e;
  return kc_queue_create(&q, 0);
}
static int c_queue_destroy(reentry_env *e) { return kc_queue_destroy(e->q); }
static int c_queue_fence(reentry_env *e) { return kc_queue_fence(e->q); }
static int c_memcpy_on(reentry_env *e) {
  return kc_memcpy_on(e->q, e->b, e->a, NB);
}
static int c_memset_on(reentry_env *e) {
  return kc_memset_on(e->q, e->a, 7, NB);
}
static int c_malloc_on(reentry_env *e) {
  void *p = NULL;
  (void)e;
  return kc_malloc_on(&p, 64, KC_SPACE_DEVICE, 0, "from a kernel");
}
static int c_event_record(reentry_env *e) {
  return kc_event_record(e->ev, e->q);
}
static int c_event_create(reentry_env *e) {
  kc_event *ev = NULL;
  (void)e;
  return kc_event_create(&ev);
}
static int c_event_destroy(reentry_env *e) { return kc_event_destroy(e->ev); }
static int c_pointer_device(reentry_env *e) {
  int dev = -2;
  return kc_pointer_device(e->a, &dev);
}
/* The queue and event calls that never wait work from a kernel. */
static int c_queue_events_nowait(reentry_env *e) {
  int dev = -1;
  int rc = kc_queue_device(e->q, &dev);
  if (rc == 0)
    rc = kc_event_query(e->ev) == 1 ? 0 : 1;
  if (rc == 0)
    rc = kc_event_wait(e->q, e->ev);
  if (rc == 0)
    rc = kc_event_synchronize(e->ev);
  double ms = -1;
  if (rc == 0)
    rc = kc_event_elapsed(e->ev, e->ev, &ms);
  if (rc == 0 && ms != 0)
    rc = 1;
  return rc;
}
static int c_region_push(reentry_env *e) {
  return (void)e, kc_region_push("from a kernel");
}
static int c_region_pop(reentry_env *e) { return (void)e, kc_region_pop(); }
static int c_declare_metadata(reentry_env *e) {
  return (void)e, kc_declare_metadata("k", "v");
}
static int c_profile_event(reentry_env *e) {
  return (void)e, kc_profile_event("from a kernel");
}

/* The calls that use no runtime state work: 0 when they gave what they
 * give outside a kernel. */
static int c_pure(reentry_env *e) {
  kc_policy p = kc_range(0, 4);
  int ok = kc_is_initialized() == 1 && kc_backend_name() != NULL &&
           kc_version() != NULL &&
           strcmp(kc_err_name(KC_EINVAL), "KC_EINVAL") == 0 &&
           kc_space_name(KC_SPACE_HOST) != NULL &&
           strcmp(kc_kernel_name(e->count), "kt_count") == 0 && p.end[0] == 4 &&
           kc_mirror_size(e->mirror) == NB && kc_mirror_host(e->mirror) != NULL;
  return ok ? 0 : 1;
}

typedef struct reentry_case {
  const char *fn; /* what the detail names */
  call_fn call;
  int want; /* KC_EINVAL, or 0: the call works */
} reentry_case;

static const reentry_case cases[] = {
    {"kc_init", c_init, KC_EINVAL},
    {"kc_finalize", c_finalize, KC_EINVAL},
    {"kc_fence", c_fence, KC_EINVAL},
    {"kc_get_info", c_get_info, KC_EINVAL},
    {"kc_malloc", c_malloc, KC_EINVAL},
    {"kc_free", c_free, KC_EINVAL},
    {"kc_retain", c_retain, KC_EINVAL},
    {"kc_pointer_info", c_pointer_info, KC_EINVAL},
    {"kc_memcpy", c_memcpy, KC_EINVAL},
    {"kc_memcpy_async", c_memcpy_async, KC_EINVAL},
    {"kc_memset", c_memset, KC_EINVAL},
    {"kc_mirror_create", c_mirror_create, KC_EINVAL},
    {"kc_mirror_destroy", c_mirror_destroy, KC_EINVAL},
    {"kc_mirror_modify_host", c_mirror_modify_host, KC_EINVAL},
    {"kc_mirror_modify_target", c_mirror_modify_target, KC_EINVAL},
    {"kc_mirror_sync_host", c_mirror_sync_host, KC_EINVAL},
    {"kc_mirror_sync_target", c_mirror_sync_target, KC_EINVAL},
    {"kc_kernel_get", c_kernel_get, KC_EINVAL},
    {"kc_kernel_register", c_kernel_register, KC_EINVAL},
    {"kc_parallel_for", c_parallel_for, KC_EINVAL},
    {"kc_parallel_reduce", c_parallel_reduce, KC_EINVAL},
    {"kc_parallel_scan", c_parallel_scan, KC_EINVAL},
    {"kc_queue_create", c_queue_create, KC_EINVAL},
    {"kc_queue_destroy", c_queue_destroy, KC_EINVAL},
    {"kc_queue_fence", c_queue_fence, KC_EINVAL},
    {"kc_memcpy_on", c_memcpy_on, KC_EINVAL},
    {"kc_memset_on", c_memset_on, KC_EINVAL},
    {"kc_malloc_on", c_malloc_on, KC_EINVAL},
    {"kc_event_record", c_event_record, KC_EINVAL},
    {"kc_event_create", c_event_create, KC_EINVAL},
    {"kc_event_destroy", c_event_destroy, KC_EINVAL},
    {"kc_pointer_device", c_pointer_device, KC_EINVAL},
    {"(queue and event calls that never wait)", c_queue_events_nowait, 0},
    {"kc_region_push", c_region_push, KC_EINVAL},
    {"kc_region_pop", c_region_pop, KC_EINVAL},
    {"kc_declare_metadata", c_declare_metadata, KC_EINVAL},
    {"kc_profile_event", c_profile_event, KC_EINVAL},
    {"(state-free calls)", c_pure, 0},
};

typedef struct reentry_f {
  call_fn call;
  reentry_env *env;
  int *rc;      /* one per index */
  char *detail; /* kc_last_error() at index 0 */
} reentry_f;

KC_FOR(reentry_kernel, reentry_f, f, i, {
  f->rc[i] = f->call(f->env);
  if (i == 0) {
    const char *d = kc_last_error();
    snprintf(f->detail, DETAIL, "%s", d ? d : "(NULL)");
  }
})

static int count_not(const int *rc, int want) {
  int n = 0;
  for (int i = 0; i < N; i++)
    n += rc[i] != want;
  return n;
}

/* One case, in a child process. */
static int run_case(void *arg) {
  const reentry_case *c = arg;
  kc_test_init_backend();
  if (kc_test_device_is_distinct())
    KC_SKIP("backend '%s' runs kernels on its device: a kernel has no host "
            "code to call kc from, and this file's kernels are host-only",
            kc_backend_name());
  reentry_env e;
  memset(&e, 0, sizeof e);
  e.a = kc_test_dalloc(NB, "a");
  e.b = kc_test_dalloc(NB, "b");
  e.hits = kc_test_dalloc(4 * sizeof *e.hits, "hits");
  e.count = KC_TEST_KERNEL(kt_count);
  KC_REQUIRE_OK(kc_memset(e.a, 1, NB));
  KC_REQUIRE_OK(kc_memset(e.b, 2, NB));
  KC_REQUIRE_OK(kc_memset(e.hits, 0, 4 * sizeof *e.hits));
  KC_REQUIRE_OK(kc_mirror_create(&e.mirror, NB, "mirror"));
  KC_REQUIRE_OK(kc_queue_create(&e.q, 0));
  KC_REQUIRE_OK(kc_event_create(&e.ev));
  KC_REQUIRE_OK(kc_event_record(e.ev, e.q));

  int rc[N];
  char detail[DETAIL] = "";
  for (int i = 0; i < N; i++)
    rc[i] = 12345;
  reentry_f f = {c->call, &e, rc, detail};
  kc_policy p = kc_range_schedule(0, N, KC_SCHEDULE_DYNAMIC, 1);
  KC_CHECK_OK(kc_parallel_for("outer", KC_TEST_KERNEL(reentry_kernel), &p, &f,
                              sizeof f));
  KC_CHECK_OK(kc_fence());
  KC_INFO("%s from inside a kernel: %s: %s", c->fn, kc_err_name(rc[0]), detail);
  KC_CHECK_EQ_INT(count_not(rc, c->want), 0);
  KC_CHECK_EQ_INT(rc[0], c->want);
  KC_CHECK_EQ_INT(rc[N - 1], c->want);
  if (c->want == KC_EINVAL) {
    KC_CHECK_CONTAINS(detail, c->fn);
    KC_CHECK_CONTAINS(detail, "called from inside a kernel or a backend slot");
  }

  /* Nothing changed: the allocations are live with one reference, their
   * contents as they were, the inner launch ran nothing, the mirror is
   * there, and kc_init's count is still one. */
  kc_alloc_info ai;
  KC_CHECK_OK(kc_pointer_info(e.a, &ai));
  KC_CHECK_EQ_INT(ai.refcount, 1);
  unsigned char *ha = kc_test_download(e.a, NB);
  unsigned char *hb = kc_test_download(e.b, NB);
  int32_t *hits = kc_test_download(e.hits, 4 * sizeof *hits);
  KC_CHECK_EQ_INT(ha[0], 1);
  KC_CHECK_EQ_INT(ha[NB - 1], 1);
  KC_CHECK_EQ_INT(hb[0], 2);
  KC_CHECK_EQ_INT(hb[NB - 1], 2);
  KC_CHECK_EQ_INT(hits[0] + hits[3], 0);
  free(ha);
  free(hb);
  free(hits);
  KC_CHECK_EQ_INT(kc_mirror_need_sync_target(e.mirror), 0);
  KC_CHECK_OK(kc_mirror_destroy(e.mirror));
  KC_CHECK_OK(kc_event_destroy(e.ev)); /* still live */
  KC_CHECK_OK(kc_queue_destroy(e.q));
  kc_kernel *k = NULL;
  KC_CHECK_ERR(kc_kernel_get("t_reentry_new_kernel", &k), KC_ENOKERNEL);

  /* Still usable: a launch that runs. */
  kc_policy ph = kc_range(0, 4);
  kt_count cnt = {e.hits, 0};
  KC_CHECK_OK(kc_parallel_for("after", e.count, &ph, &cnt, sizeof cnt));
  KC_CHECK_OK(kc_fence());
  KC_CHECK_OK(kc_free(e.a));
  KC_CHECK_OK(kc_free(e.b));
  KC_CHECK_OK(kc_free(e.hits));
  KC_CHECK_OK(kc_finalize());
  KC_CHECK_EQ_INT(kc_is_initialized(), 0);
  return kc_test_done();
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  int skipped = 0, ran = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int rc = kc_isolate(cases[i].fn, run_case, (void *)&cases[i], 30);
    skipped += rc == KC_TEST_SKIP;
    ran++;
  }
  if (skipped == ran)
    KC_SKIP("every case skipped (see above)");
  return kc_test_done();
}
