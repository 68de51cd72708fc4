/* Functors of the CUDA backend's own tests (cuda-*.c, cuda-kernels.kc.c).
 * Plain C structs, valid in C and in CUDA C++. */
#ifndef KC_TEST_CUDA_FUNCTORS_H
#define KC_TEST_CUDA_FUNCTORS_H

#include <stdint.h>

/* Functors of several sizes (24 + 8 n bytes), each carrying a tag and a
 * payload whose last word the kernel reads, so a functor that arrived
 * truncated, stale or from another launch's slot shows up as a wrong value:
 *   out[i - base] = tag * 1000003 + c[(i - base) % n] + c[n - 1]          */
#define KT_CUDA_SIZES(X)                                                       \
  X(32, 1)                                                                     \
  X(128, 13) X(1600, 197) X(24000, 2997) X(40000, 4997) X(240000, 29997)
#define KT_CUDA_FUNCTOR(bytes, n)                                              \
  typedef struct kc_f##bytes {                                                 \
    int64_t *out;                                                              \
    int64_t base, tag;                                                         \
    int64_t c[n];                                                              \
  } kc_f##bytes;
KT_CUDA_SIZES(KT_CUDA_FUNCTOR)
/* One larger than the CUDA plugin's 4 MB staging ring: the ring grows and
 * the functor takes the whole of it (cuda-launch's check_reuse). */
#define KT_CUDA_HUGE(X) X(4800024, 600000)
KT_CUDA_HUGE(KT_CUDA_FUNCTOR)

/* Order-sensitive reduction value: a polynomial hash of the sequence of
 * indices joined so far, and the sequence's length.  join(a, b) is the hash
 * of a's sequence followed by b's: associative, not commutative. */
typedef struct kc_seqhash {
  uint64_t h, pw; /* hash, and P^length */
  int64_t first, last;
} kc_seqhash;
#define KC_SEQHASH_P 1099511628211ull

/* Inputs of the reductions and scans. */
typedef struct kc_xs {
  const int64_t *x;
  int64_t *out;
  int64_t base;
} kc_xs;
typedef struct kc_xd {
  const double *x;
  int64_t base;
} kc_xd;

#endif
