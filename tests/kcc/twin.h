/* t-kcc-twins: the functor both libraries' "kt_twin" kernels take. */
#ifndef KC_TEST_TWIN_H
#define KC_TEST_TWIN_H

#include <stdint.h>

typedef struct kt_twin_f {
  int64_t *out;
} kt_twin_f;

#endif
