/* Stream compaction on a scan, kernels and program in one file.
 *
 * Fills n integers on the target, keeps those divisible by `modulus`
 * (packed, in order) with one scan, and checks the result against a
 * sequential loop.
 *   kcc -o compact-kc compact-kc.kc.c $(pkg-config --cflags --libs kc)
 *   KC_BACKEND=threads ./compact-kc 1000000 3
 */
#define KC_CHECK_EXIT
#include <kc/kernel.h>

/* The scan keeps the elements of `in` that satisfy a predicate, in order,
 * packed at the front of `out`.  One exclusive sum scan of the 0/1 "keep"
 * flags does it: when the scan's final pass reaches index i, `acc` holds
 * the number of kept elements before i, which is exactly where in[i] goes.
 * kc's scan runs the body twice per index (final = 0 to total the chunks,
 * final = 1 with acc holding the prefix), on every backend; the total is
 * the number of elements kept. */
KC_SCAN_ARGS(compact,
             ((const int32_t *, in), (int32_t *, out), (int32_t, modulus)), i,
             int64_t, acc, final, {
               const int keep = in[i] % modulus == 0;
               if (final && keep)
                 out[acc] = in[i];
               acc += keep;
             })

KC_FOR_ARGS(compact_fill, ((int32_t *, in)), i,
            in[i] = (int32_t)((i * 7919) % 10007))

#if !KC_DEVICE_PASS
int main(int argc, char **argv) {
  kc_index n = argc > 1 ? atoll(argv[1]) : 1000000;
  int32_t modulus = argc > 2 ? atoi(argv[2]) : 3;
  if (n < 0 || modulus < 1) {
    fprintf(stderr, "usage: compact-kc [n [modulus]]\n");
    return 2;
  }
  kc_init();
  printf("backend: %s\n", kc_backend_name());

  size_t bytes = (size_t)n * sizeof(int32_t);
  int32_t *in, *out;
  kc_malloc((void **)&in, bytes, KC_SPACE_DEVICE, "in");
  kc_malloc((void **)&out, bytes, KC_SPACE_DEVICE, "out");
  kc_run_for(compact_fill, kc_range(0, n), .in = in);

  /* The scan's total: kc_scan returns once it is there, and the kept
   * elements are in out[0 .. kept). */
  int64_t kept = kc_scan(compact, kc_range(0, n), .in = in, .out = out,
                         .modulus = modulus);

  int32_t *hin = malloc(bytes ? bytes : 1), *hout = malloc(bytes ? bytes : 1);
  if (!hin || !hout) {
    fprintf(stderr, "compact-kc: out of memory\n");
    return 1;
  }
  kc_memcpy(hin, in, bytes);
  kc_memcpy(hout, out, (size_t)kept * sizeof(int32_t));

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
  kc_free(in);
  kc_free(out);
  kc_finalize();
  return bad ? 1 : 0;
}
#endif
