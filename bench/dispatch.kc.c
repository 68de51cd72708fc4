/* kc benchmarks — dispatch: the tiny kernels whose launch cost the
 * dispatch program measures: one index per thread, each running the EPCC
 * delay (see dispatch.h). */
/* The delay loop is a dependent chain: no SIMD to gain, and clang (14)
 * turns its "loop not vectorized" remark on the `omp simd` hint into an
 * error under -Werror.  Plain loops, then (kernel_host.h). */
#define KC_HOST_NO_VECTOR_HINTS 1
#include <kc/kernel.h>

#include "dispatch.h"

KC_FOR(dispatch_for, struct dispatch_f, f, i, {
  double v;
  DISPATCH_DELAY(f->delay, v);
  f->out[i] = v;
})

KC_REDUCE_SUM(dispatch_reduce, struct dispatch_f, f, i, double, acc, {
  double v;
  DISPATCH_DELAY(f->delay, v);
  acc += v;
})

/* Inclusive; the two-pass protocol runs the body twice per index. */
KC_SCAN(dispatch_scan, struct dispatch_f, f, i, double, acc, final, {
  double v;
  DISPATCH_DELAY(f->delay, v);
  acc += v;
  if (final)
    f->out[i] = acc;
})
