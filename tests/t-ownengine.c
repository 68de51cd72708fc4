/* Re-entry through a plugin with its own engine (tests/testplugins/
 * ownengine.c: FOR kernels on the calling thread and three worker threads
 * of the plugin's, not kc_host_launch).  The core itself must refuse what
 * would wait for itself, whatever the backend:
 *  - a kernel body calling kc_parallel_for, kc_fence, kc_malloc or
 *    kc_finalize gets KC_EINVAL at every index, on the calling thread (the
 *    core marks it around the launch slot) and on the plugin's workers
 *    (marked by kc_backend_kernel_enter, as <kc/backend.h> asks);
 *  - the launch slot itself calling kc_fence, kc_get_info, kc_malloc,
 *    kc_init, kc_finalize or kc_region_push gets KC_EINVAL.
 * Before the core did this (only kc_host_launch's threads were guarded),
 * each of these deadlocked.  Every case runs in a process of its own with
 * a time limit. */
#include <kc/kernel.h>

#include "kc-isolate.h"
#include "kc-test.h"

enum { N = 40, DETAIL = 512 };

typedef int (*call_fn)(void);

static int c_fence(void) { return kc_fence(); }
static int c_finalize(void) { return kc_finalize(); }
static int c_malloc(void) {
  void *p = NULL;
  return kc_malloc(&p, 64, KC_SPACE_HOST, "from a kernel");
}

typedef struct body_f {
  call_fn call; /* NULL: a nested launch of kc_nested_inner */
  kc_kernel *inner;
  int32_t *inner_hits;
  int *rc;
  char *detail;
} body_f;

typedef struct inner_f {
  int32_t *hits;
} inner_f;

KC_FOR(own_inner, inner_f, f, i, f->hits[i] += 1)

KC_FOR(own_outer, body_f, f, i, {
  if (f->call) {
    f->rc[i] = f->call();
  } else {
    kc_policy p = kc_range(0, 4);
    inner_f in = {f->inner_hits};
    f->rc[i] = kc_parallel_for("nested", f->inner, &p, &in, sizeof in);
  }
  if (i == 0)
    snprintf(f->detail, DETAIL, "%s", kc_last_error());
})

static void use_ownengine(void) {
  const char *dir = getenv("KC_TEST_PLUGIN_DIR");
  if (!dir || !*dir)
    KC_SKIP("KC_TEST_PLUGIN_DIR is not set: run through tests/run-backend");
  setenv("KC_PLUGIN_PATH", dir, 1);
  setenv("KC_BACKEND", "ownengine", 1);
  int rc = kc_init();
  if (rc != 0) {
    printf("FAIL: kc_init with the ownengine test plugin: %s: %s\n",
           kc_err_name(rc), kc_last_error());
    exit(1);
  }
  KC_REQUIRE(strcmp(kc_backend_name(), "ownengine") == 0);
}

typedef struct body_case {
  const char *fn;
  call_fn call;
} body_case;

/* A kernel body calling kc, on every thread of the plugin's engine. */
static int body_case_run(void *arg) {
  const body_case *c = arg;
  use_ownengine();
  int rc[N];
  char detail[DETAIL] = "";
  int32_t hits[4] = {0, 0, 0, 0};
  for (int i = 0; i < N; i++)
    rc[i] = 12345;
  body_f f = {c->call, KC_KERNEL(own_inner), hits, rc, detail};
  KC_REQUIRE(f.inner != NULL);
  kc_policy p = kc_range(0, N);
  KC_CHECK_OK(kc_parallel_for("outer", KC_KERNEL(own_outer), &p, &f, sizeof f));
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += rc[i] != KC_EINVAL;
  KC_CHECK_EQ_INT(bad, 0);
  KC_CHECK_EQ_INT(rc[N - 1], KC_EINVAL); /* the last worker's part */
  KC_CHECK_CONTAINS(detail, c->fn);
  KC_CHECK_CONTAINS(detail, "called from inside a kernel or a backend slot");
  KC_CHECK_EQ_INT(hits[0] + hits[1] + hits[2] + hits[3], 0);
  /* The runtime is still usable, and still initialised once. */
  inner_f in = {hits};
  kc_policy p4 = kc_range(0, 4);
  KC_CHECK_OK(kc_parallel_for("after", f.inner, &p4, &in, sizeof in));
  KC_CHECK_EQ_INT(hits[0] + hits[1] + hits[2] + hits[3], 4);
  KC_CHECK_OK(kc_finalize());
  KC_CHECK_EQ_INT(kc_is_initialized(), 0);
  return kc_test_done();
}

/* The launch slot itself calling kc. */
static int slot_case_run(void *arg) {
  const char *fn = arg;
  char label[64];
  int32_t hits[4] = {0, 0, 0, 0};
  inner_f in = {hits};
  use_ownengine();
  snprintf(label, sizeof label, "slot:%s", fn);
  kc_policy p = kc_range(0, 4);
  KC_CHECK_ERR(kc_parallel_for(label, KC_KERNEL(own_inner), &p, &in, sizeof in),
               KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), fn);
  KC_CHECK_CONTAINS(kc_last_error(),
                    "called from inside a kernel or a backend slot");
  KC_CHECK_OK(
      kc_parallel_for("after", KC_KERNEL(own_inner), &p, &in, sizeof in));
  KC_CHECK_EQ_INT(hits[0] + hits[1] + hits[2] + hits[3], 4);
  KC_CHECK_OK(kc_finalize());
  KC_CHECK_EQ_INT(kc_is_initialized(), 0);
  return kc_test_done();
}

int main(void) {
  static const body_case bodies[] = {{"kc_parallel_for", NULL},
                                     {"kc_fence", c_fence},
                                     {"kc_malloc", c_malloc},
                                     {"kc_finalize", c_finalize}};
  static const char *const slots[] = {"kc_fence",    "kc_get_info",
                                      "kc_malloc",   "kc_init",
                                      "kc_finalize", "kc_region_push"};
  setvbuf(stdout, NULL, _IOLBF, 0);
  char name[96];
  for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
    snprintf(name, sizeof name, "%s in a kernel body", bodies[i].fn);
    kc_isolate(name, body_case_run, (void *)&bodies[i], 30);
  }
  for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++) {
    snprintf(name, sizeof name, "%s in the launch slot", slots[i]);
    kc_isolate(name, slot_case_run, (void *)slots[i], 30);
  }
  return kc_test_done();
}
