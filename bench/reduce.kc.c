/* kc benchmarks — reduce: a sum over an array of doubles, and the kernel
 * that fills it (see throughput.h). */
#include <kc/kernel.h>

#include "throughput.h"

KC_FOR(reduce_fill, struct throughput_f, f, i, f->x[i] = THROUGHPUT_VALUE(i);)

KC_REDUCE_SUM(reduce_sum, struct throughput_f, f, i, double, acc,
              acc += f->x[i];)
