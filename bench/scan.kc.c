/* kc benchmarks — scan: an inclusive prefix sum over an array of doubles,
 * and the kernel that fills it (see throughput.h). */
#include <kc/kernel.h>

#include "throughput.h"

KC_FOR(scan_fill, struct throughput_f, f, i, f->x[i] = THROUGHPUT_VALUE(i);)

KC_SCAN(scan_sum, struct throughput_f, f, i, double, acc, final, {
  acc += f->x[i];
  if (final)
    f->y[i] = acc;
})
