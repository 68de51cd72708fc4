/* A reducer whose join is associative but not commutative, for the
 * conformance test of the order of joins (t-order.c): the value is a
 * string of decimal digits, kept as its number modulo 2^64 (h) and 10 to
 * the power of its length modulo 2^64 (p); joining appends src to dst.
 * Index i contributes the digit 1 + (i mod 9), so [0, 8) gives 12345678
 * when every join happens in index order.  Plain C, valid for kcc's CUDA
 * side too. */
#ifndef KC_TEST_ORDER_H
#define KC_TEST_ORDER_H

#include <stdint.h>

typedef struct kt_cat {
  uint64_t h;
  uint64_t p;
} kt_cat;

/* out (may be NULL) receives an inclusive scan, indexed by i - base. */
typedef struct kt_cat_f {
  uint64_t *out;
  int64_t base;
} kt_cat_f;

/* A macro, not a function: kernel bodies call it on the device too. */
#define kt_cat_digit(i) ((uint64_t)(1 + (((int64_t)(i) % 9) + 9) % 9))

#endif
