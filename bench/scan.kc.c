/* kc benchmarks — scan: an inclusive prefix sum over an array of doubles,
 * and the kernel that fills it (see throughput.h). */
#include <kc/kernel.h>

#include "throughput.h"

KC_FOR(scan_fill, struct throughput_f, f, i, f->x[i] = THROUGHPUT_VALUE(i);)

/* x is read through the read-only path (KC_LDG): on a GPU a thread's loads
 * of x in the final pass then go ahead of its stores to y.  scan_sum_plain
 * (scan --plain) reads it as any load. */
KC_SCAN(scan_sum, struct throughput_f, f, i, double, acc, final, {
  acc += KC_LDG(&f->x[i]);
  if (final)
    f->y[i] = acc;
})

KC_SCAN(scan_sum_plain, struct throughput_f, f, i, double, acc, final, {
  acc += f->x[i];
  if (final)
    f->y[i] = acc;
})
