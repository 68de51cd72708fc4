/* A dot product written once for every backend: the built-in sum reducer.
 *
 * The body adds index i's term to `acc`; kc gives each thread (GPU: each
 * CUDA thread, host: each chunk) its own accumulator and joins them.
 *   kcc -c dot.kc.c -o dot.kc.o
 */
#include <kc/kernel.h>

#include "dot-kc.h"

KC_REDUCE_SUM(dot, dot_functor, f, i, double, acc,
              { acc += f->x[i] * f->y[i]; })
