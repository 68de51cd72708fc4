/* The kernels of chunk.kc.c in the _ARGS form of <kc/kernel_args.h>: the same
 * names, bodies and argument layouts (args.h), so the same test program
 * checks them.  chunk.kc.c's comment follows. */
/* Chunk-buffer conformance kernel (t-chunkbuf.c): y = t + 1/t with
 * t = (1 + x)^0.3, through two per-thread buffers, one of a struct type;
 * records how often each index is covered and the longest chunk seen. */
#include <math.h>

#include <kc/kernel.h>

#include "args.h"

#include "model.h"

KC_FOR_CHUNKS_ARGS(kt_chunk, KT_CHUNK_ARGS, b, e, {
  KC_CHUNK_BUFFER(double, t);
  KC_CHUNK_BUFFER(kt_chunk_pair, tu);
  for (kc_index i = b; i < e; i++)
    t[i - b] = pow(1.0 + x[i - base], 0.3);
  for (kc_index i = b; i < e; i++) {
    tu[i - b].t = t[i - b];
    tu[i - b].u = 1.0 / t[i - b];
  }
  /* Overwrite the first buffer after the second was filled: the two must
   * not overlap. */
  for (kc_index i = b; i < e; i++)
    t[i - b] = -1.0;
  for (kc_index i = b; i < e; i++) {
    y[i - base] = tu[i - b].t + tu[i - b].u;
    hits[i - base] += 1;
  }
  kc_atomic_max_i64(maxlen, (int64_t)(e - b));
})
