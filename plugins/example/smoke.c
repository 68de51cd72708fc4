/* `make check` of the example backend: loads the freshly built plugin by
 * its absolute path (KC_BACKEND, set by Makefile.am), checks that it is the
 * backend in use, that a 1-D range runs its chunks last first, and that a
 * sum reduction over them is right.  kc's own conformance suite is the
 * thorough test; see README.md for running it on this backend.
 *
 * Kernels are registered by hand with plain C functions here, so the test
 * needs nothing but the installed headers and libkc. */
#include <kc/kc.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1000

struct order_functor {
  kc_index *begins; /* chunk begins, in the order the chunks ran */
  int *count;
  int max;
};

static void record_chunk(const void *fp, kc_index b, kc_index e) {
  const struct order_functor *f = fp;
  (void)e;
  if (*f->count < f->max)
    f->begins[*f->count] = b;
  ++*f->count;
}

struct sum_functor {
  const double *x;
};

static void sum_chunk(const void *fp, kc_index b, kc_index e, void *acc) {
  const struct sum_functor *f = fp;
  double s = *(double *)acc;
  for (kc_index i = b; i < e; i++)
    s += f->x[i];
  *(double *)acc = s;
}

#define CHECK(call)                                                            \
  do {                                                                         \
    int rc_ = (call);                                                          \
    if (rc_ != 0) {                                                            \
      fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call,       \
              kc_strerror(rc_), kc_last_error());                              \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(void) {
  kc_kernel *order = NULL, *sum = NULL;
  kc_kernel_desc d;

  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.name = "example_smoke_order";
  d.kind = KC_KERNEL_FOR;
  d.host = (void (*)(void))record_chunk;
  CHECK(kc_kernel_register(&d, &order));

  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.name = "example_smoke_sum";
  d.kind = KC_KERNEL_REDUCE;
  d.host = (void (*)(void))sum_chunk;
  d.reducer.op = KC_REDUCE_SUM;
  d.reducer.type = KC_DOUBLE;
  CHECK(kc_kernel_register(&d, &sum));

  CHECK(kc_init());
  if (strcmp(kc_backend_name(), "example") != 0) {
    fprintf(stderr, "backend in use is '%s', expected 'example'\n",
            kc_backend_name());
    return 1;
  }

  /* Static schedule: each share is a contiguous block of the range and the
   * last share runs first, so the first chunk to run does not begin at 0,
   * and the one that does begin at 0 runs later. */
  kc_index begins[64];
  int count = 0;
  struct order_functor of = {begins, &count, 64};
  kc_policy p = kc_range(0, N);
  CHECK(kc_parallel_for("smoke order", order, &p, &of, sizeof of));
  if (count < 2 || count > 64) {
    fprintf(stderr, "expected 2..64 chunks, saw %d\n", count);
    return 1;
  }
  int zero_at = -1;
  for (int c = 0; c < count; c++)
    if (begins[c] == 0)
      zero_at = c;
  if (zero_at <= 0) {
    fprintf(stderr,
            "the chunk beginning at 0 ran %s, expected it after "
            "the last share's (first chunk began at %lld)\n",
            zero_at < 0 ? "never" : "first", (long long)begins[0]);
    return 1;
  }

  double *x = NULL;
  CHECK(kc_malloc((void **)&x, N * sizeof *x, KC_SPACE_DEVICE, "smoke x"));
  for (int i = 0; i < N; i++)
    x[i] = i + 1;
  struct sum_functor sf = {x};
  double total = 0;
  CHECK(kc_parallel_reduce("smoke sum", sum, &p, &sf, sizeof sf, &total));
  if (total != N * (N + 1) / 2.0) {
    fprintf(stderr, "sum %.17g, expected %.17g\n", total, N * (N + 1) / 2.0);
    return 1;
  }
  CHECK(kc_free(x));
  CHECK(kc_finalize());
  printf("example backend: %d chunks, the first at %lld, chunk 0 ran %d-th; "
         "sum %.0f\n",
         count, (long long)begins[0], zero_at + 1, total);
  return 0;
}
