/* Two kernels for t-kcc-dup: "kt_dup", whose name the test program takes
 * first (so this file's registration fails), and "kt_dup_ok". */
#include <kc/kernel.h>

#include <stdint.h>

typedef struct kt_dup_f {
  int64_t *out;
} kt_dup_f;

KC_FOR(kt_dup, kt_dup_f, f, i, f->out[i] = 1)
KC_FOR(kt_dup_ok, kt_dup_f, f, i, f->out[i] = 2 * i)
