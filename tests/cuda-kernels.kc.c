/* Kernels of the CUDA backend's own tests (cuda-launch.c): functors of
 * every staging size, reductions and scans whose joins must run in index
 * order.  Built with kcc like the conformance kernels. */
#include <kc/kernel.h>

#include "cuda-functors.h"

#define KT_CUDA_KERNEL(bytes, n)                                               \
  KC_FOR(kc_cuda_f##bytes, kc_f##bytes, f, i, {                                \
    int64_t k = i - f->base;                                                   \
    f->out[k] = f->tag * 1000003 + f->c[k % (n)] + f->c[(n)-1];                \
  });
KT_CUDA_SIZES(KT_CUDA_KERNEL)
KT_CUDA_HUGE(KT_CUDA_KERNEL)

KC_REDUCER_IDENTITY(seqhash, kc_seqhash, v) {
  v->h = 0;
  v->pw = 1;
  v->first = -1;
  v->last = -1;
}
KC_REDUCER_JOIN(seqhash, kc_seqhash, d, s) {
  d->h = d->h * s->pw + s->h;
  d->pw *= s->pw;
  if (d->first < 0)
    d->first = s->first;
  if (s->last >= 0)
    d->last = s->last;
}

/* The hash of the sequence of x[i - base] in index order. */
KC_REDUCE_CUSTOM(kc_cuda_seqhash, kc_xs, f, i, seqhash, kc_seqhash, acc, {
  acc.h = acc.h * KC_SEQHASH_P + (uint64_t)f->x[i - f->base];
  acc.pw *= KC_SEQHASH_P;
  if (acc.first < 0)
    acc.first = i;
  acc.last = i;
});

/* Inclusive sum scan of x into out. */
KC_SCAN(kc_cuda_iscan, kc_xs, f, i, int64_t, acc, final, {
  acc += f->x[i - f->base];
  if (final)
    f->out[i - f->base] = acc;
});

/* Exclusive scan with the order-sensitive hash: out[k] = low bits of the
 * hash of x[0 .. k-1]. */
KC_SCAN_CUSTOM(kc_cuda_hscan, kc_xs, f, i, seqhash, kc_seqhash, acc, final, {
  if (final)
    f->out[i - f->base] = (int64_t)acc.h;
  acc.h = acc.h * KC_SEQHASH_P + (uint64_t)f->x[i - f->base];
  acc.pw *= KC_SEQHASH_P;
  if (acc.first < 0)
    acc.first = i;
  acc.last = i;
});

KC_REDUCE_SUM(kc_cuda_sum, kc_xd, f, i, double, acc, acc += f->x[i - f->base]);
KC_REDUCE_MAXLOC(kc_cuda_maxloc, kc_xd, f, i, double, acc, {
  double v = f->x[i - f->base];
  if (v > acc.val || (v == acc.val && i < acc.loc)) {
    acc.val = v;
    acc.loc = i;
  }
});
