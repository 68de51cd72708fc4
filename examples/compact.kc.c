/* Stream compaction on a scan, written once for every backend.
 *
 * Keeps the elements of `in` that satisfy a predicate, in order, packed at
 * the front of `out`.  One exclusive sum scan of the 0/1 "keep" flags does
 * it: when the scan's final pass reaches index i, `acc` holds the number
 * of kept elements before i, which is exactly where in[i] goes.  kc's scan
 * runs the body twice per index (final = 0 to total the chunks, final = 1
 * with acc holding the prefix), on every backend; the total is the number
 * of elements kept.
 *   kcc -c compact.kc.c -o compact.kc.o
 */
#include <kc/kernel.h>

#include "compact-kc.h"

KC_SCAN(compact, compact_functor, f, i, int64_t, acc, final, {
  const int keep = f->in[i] % f->modulus == 0;
  if (final && keep)
    f->out[acc] = f->in[i];
  acc += keep;
})

/* The input, generated on the device: in[i] = (i * 7919) % 10007. */
KC_FOR(compact_fill, compact_functor, f, i,
       { f->in[i] = (int32_t)((i * 7919) % 10007); })
