/* kcc: a kernel whose registration fails does not stop the program.
 *
 * This program registers the name "kt_dup" by hand before kcc's
 * constructors run (a constructor of higher priority), so the constructor
 * of kcc/dup.kc.c cannot register its own kt_dup.  It must print one line
 * on stderr (t-kcc-dup.sh checks it), leave KC_KERNEL(kt_dup) NULL, register
 * the file's other kernel all the same, and a launch of the NULL handle
 * must fail with KC_EINVAL. */
#include <kc/kernel.h>

#include "kc-test.h"

KC_KERNEL_DECLARE(kt_dup);
KC_KERNEL_DECLARE(kt_dup_ok);

typedef struct kt_dup_f {
  int64_t *out;
} kt_dup_f;

static void by_hand(const void *functor, kc_index b, kc_index e) {
  const kt_dup_f *f = functor;
  for (kc_index i = b; i < e; i++)
    f->out[i] = 7;
}

static kc_kernel *hand;
static int hand_rc = 1;

__attribute__((constructor(101))) static void take_the_name(void) {
  kc_kernel_desc d = {.struct_size = sizeof d,
                      .name = "kt_dup",
                      .kind = KC_KERNEL_FOR,
                      .host = (void (*)(void))by_hand};
  hand_rc = kc_kernel_register(&d, &hand);
}

int main(void) {
  kc_test_init_backend();
  KC_REQUIRE_OK(hand_rc);
  KC_CHECK_EQ_PTR(KC_KERNEL(kt_dup), NULL);
  KC_CHECK_NE_PTR(KC_KERNEL(kt_dup_ok), NULL);

  kc_kernel *k = NULL;
  KC_CHECK_OK(kc_kernel_get("kt_dup", &k));
  KC_CHECK_EQ_PTR(k, hand);

  enum { N = 100 };
  int64_t *out = kc_test_dalloc(N * sizeof *out, "out");
  kt_dup_f f = {out};
  kc_policy p = kc_range(0, N);
  KC_CHECK_ERR(kc_parallel_for(NULL, KC_KERNEL(kt_dup), &p, &f, sizeof f),
               KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), "NULL");
  KC_CHECK_OK(kc_parallel_for(NULL, hand, &p, &f, sizeof f));
  int64_t *got = kc_test_download(out, N * sizeof *got);
  for (int i = 0; i < N; i++)
    KC_CHECK_EQ_INT(got[i], 7);
  free(got);
  KC_CHECK_OK(kc_parallel_for(NULL, KC_KERNEL(kt_dup_ok), &p, &f, sizeof f));
  got = kc_test_download(out, N * sizeof *got);
  for (int i = 0; i < N; i++)
    KC_CHECK_EQ_INT(got[i], 2 * i);
  free(got);
  KC_CHECK_OK(kc_free(out));
  return kc_test_finish();
}
