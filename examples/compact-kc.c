/* Stream compaction on a scan, with kernels written once in compact.kc.c.
 *
 * Fills n integers on the target, keeps those divisible by `modulus`
 * (packed, in order) with one kc_parallel_scan, and checks the result
 * against a sequential loop.
 *   KC_BACKEND=threads ./compact-kc 1000000 3
 */
#include <stdio.h>
#include <stdlib.h>

#include <kc/kernel.h>

#include "compact-kc.h"

KC_KERNEL_DECLARE(compact);
KC_KERNEL_DECLARE(compact_fill);

#define CHECK(call)                                                            \
  do {                                                                         \
    int rc_ = (call);                                                          \
    if (rc_ < 0) {                                                             \
      fprintf(stderr, "compact-kc: %s failed: %s (%s)\n", #call,               \
              kc_strerror(rc_), kc_last_error());                              \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  kc_index n = argc > 1 ? atoll(argv[1]) : 1000000;
  int32_t modulus = argc > 2 ? atoi(argv[2]) : 3;
  if (n < 0 || modulus < 1) {
    fprintf(stderr, "usage: compact-kc [n [modulus]]\n");
    return 2;
  }
  CHECK(kc_init());
  printf("backend: %s\n", kc_backend_name());

  size_t bytes = (size_t)n * sizeof(int32_t);
  compact_functor f = {NULL, NULL, modulus};
  CHECK(kc_malloc((void **)&f.in, bytes, KC_SPACE_DEVICE, "in"));
  CHECK(kc_malloc((void **)&f.out, bytes, KC_SPACE_DEVICE, "out"));
  kc_policy range = kc_range(0, n);
  CHECK(kc_parallel_for("fill", KC_KERNEL(compact_fill), &range, &f, sizeof f));

  /* The scan's total, in a host variable: the call returns once it is
   * there, and the kept elements are in f.out[0 .. kept). */
  int64_t kept = 0;
  CHECK(kc_parallel_scan("compact", KC_KERNEL(compact), &range, &f, sizeof f,
                         &kept));

  int32_t *hin = malloc(bytes ? bytes : 1), *hout = malloc(bytes ? bytes : 1);
  if (!hin || !hout) {
    fprintf(stderr, "compact-kc: out of memory\n");
    return 1;
  }
  CHECK(kc_memcpy(hin, f.in, bytes));
  CHECK(kc_memcpy(hout, f.out, (size_t)kept * sizeof(int32_t)));

  int64_t want = 0, bad = 0;
  for (kc_index i = 0; i < n; i++) {
    int32_t v = (int32_t)((i * 7919) % 10007);
    if (hin[i] != v && bad++ < 5)
      fprintf(stderr, "compact-kc: in[%lld] = %d, expected %d\n", (long long)i,
              hin[i], v);
    if (v % modulus != 0)
      continue;
    if (want < kept && hout[want] != v && bad++ < 5)
      fprintf(stderr, "compact-kc: out[%lld] = %d, expected %d\n",
              (long long)want, hout[want], v);
    want++;
  }
  if (kept != want) {
    fprintf(stderr, "compact-kc: kept %lld elements, expected %lld\n",
            (long long)kept, (long long)want);
    bad++;
  }
  printf("compact-kc: n = %lld, kept %lld (multiples of %d): %s\n",
         (long long)n, (long long)kept, modulus,
         bad ? "MISMATCH" : "result correct");

  free(hin);
  free(hout);
  CHECK(kc_free(f.in));
  CHECK(kc_free(f.out));
  CHECK(kc_finalize());
  return bad ? 1 : 0;
}
