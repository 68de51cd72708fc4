/* t-oom.sh's program: kc from kc_init to kc_finalize (KC_OOM_CYCLES
 * times, default 2), each allocation of kc's in turn made to fail
 * (tests/fixtures/failalloc.c).  Every call must succeed with the right
 * result or fail with an error and a detail; kc_init must not call the
 * backend KC_BACKEND names absent (the loader took its own out-of-memory
 * for "no backend named ...").  Exit 0: all consistent; 3: a wrong result
 * or a silent failure; 4: the backend said absent, or another one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kc/kernel.h>

#include "kernels/functors.h"
#include "kernels/model.h"

KC_KERNEL_DECLARE(kt_fill);
KC_KERNEL_DECLARE(kt_sum_i64);
KC_KERNEL_DECLARE(kt_iscan_i64);
KC_KERNEL_DECLARE(kt_chunk);

enum { N = 5000 };
static int bad;

/* rc < 0 must come with a detail; returns whether the call worked. */
static int ok(const char *what, int rc) {
  if (rc == 0)
    return 1;
  const char *d = kc_last_error();
  if (rc > 0 || !d || !*d) {
    printf("BAD: %s returned %d with no detail\n", what, rc);
    bad = 3;
  }
  return 0;
}

static void work(void) {
  int64_t *x = NULL, *y = NULL;
  if (!ok("kc_malloc",
          kc_malloc((void **)&x, N * sizeof *x, KC_SPACE_DEVICE, "oom x")))
    return;
  if (ok("kc_malloc",
         kc_malloc((void **)&y, N * sizeof *y, KC_SPACE_DEVICE, "oom y"))) {
    kc_policy p = kc_range(0, N);
    kt_fill f = {x, 0, 1, 0};
    if (ok("for",
           kc_parallel_for("oom fill", KC_KERNEL(kt_fill), &p, &f, sizeof f))) {
      kt_xi64 s = {x, 0};
      int64_t sum = -1, total = -1;
      if (ok("reduce", kc_parallel_reduce("oom sum", KC_KERNEL(kt_sum_i64), &p,
                                          &s, sizeof s, &sum)) &&
          sum != (int64_t)N * (N - 1) / 2) {
        printf("BAD: sum %lld\n", (long long)sum);
        bad = 3;
      }
      kt_scan_i64 sc = {x, y, 0};
      if (ok("scan", kc_parallel_scan("oom scan", KC_KERNEL(kt_iscan_i64), &p,
                                      &sc, sizeof sc, &total)) &&
          total != (int64_t)N * (N - 1) / 2) {
        printf("BAD: scan total %lld\n", (long long)total);
        bad = 3;
      }
    }
    ok("kc_free", kc_free(y));
  }
  ok("kc_free", kc_free(x));

  /* Chunk buffers: a thread that gets none skips its chunks; the launch
   * says so (it aborted the process). */
  double *in = NULL, *out = NULL;
  int32_t *hits = NULL;
  int64_t *maxlen = NULL;
  if (ok("kc_malloc",
         kc_malloc((void **)&in, N * sizeof *in, KC_SPACE_HOST, "oom in")) &&
      ok("kc_malloc",
         kc_malloc((void **)&out, N * sizeof *out, KC_SPACE_HOST, "oom out")) &&
      ok("kc_malloc", kc_malloc((void **)&hits, N * sizeof *hits, KC_SPACE_HOST,
                                "oom hits")) &&
      ok("kc_malloc", kc_malloc((void **)&maxlen, sizeof *maxlen, KC_SPACE_HOST,
                                "oom maxlen"))) {
    for (int i = 0; i < N; i++) {
      in[i] = i;
      hits[i] = 0;
    }
    *maxlen = 0;
    kc_policy p = kc_range(0, N);
    kt_chunk c = {in, out, hits, maxlen, 0};
    if (ok("chunks", kc_parallel_for("oom chunks", KC_KERNEL(kt_chunk), &p, &c,
                                     sizeof c)))
      for (int i = 0; i < N; i++)
        if (hits[i] != 1) {
          printf("BAD: index %d run %d times after a launch that worked\n", i,
                 hits[i]);
          bad = 3;
          break;
        }
  }
  kc_free(maxlen);
  kc_free(hits);
  kc_free(out);
  kc_free(in);

  kc_mirror *m = NULL;
  if (ok("kc_mirror_create", kc_mirror_create(&m, 256, "oom mirror"))) {
    memset(kc_mirror_host(m), 7, 256);
    if (ok("modify", kc_mirror_modify_host(m)))
      ok("sync", kc_mirror_sync_target(m));
    ok("kc_mirror_destroy", kc_mirror_destroy(m));
  }
  kc_queue *q = NULL;
  if (ok("kc_queue_create", kc_queue_create(&q, 0))) {
    ok("kc_queue_fence", kc_queue_fence(q));
    ok("kc_queue_destroy", kc_queue_destroy(q));
  }
}

int main(void) {
  const char *want = getenv("KC_BACKEND");
  char first[64] = "";
  if (want)
    snprintf(first, sizeof first, "%.*s", (int)strcspn(want, ","), want);
  const char *cycles = getenv("KC_OOM_CYCLES");
  int ncycles = cycles ? atoi(cycles) : 2;
  for (int cycle = 0; cycle < ncycles; cycle++) {
    int rc = kc_init();
    if (rc == KC_ENOBACKEND) {
      printf("BAD: kc_init: %s\n", kc_last_error());
      bad = 4;
    }
    if (!ok("kc_init", rc))
      continue;
    if (*first && strcmp(kc_backend_name(), first) != 0) {
      printf("BAD: KC_BACKEND=%s, but kc_init chose '%s'\n", want,
             kc_backend_name());
      bad = 4;
    }
    work();
    ok("kc_finalize", kc_finalize());
  }
  return bad;
}
