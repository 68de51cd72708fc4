/* kc benchmarks — built without nvcc: there is no hand-written CUDA
 * baseline, and the programs say so in their tables on the cuda backend. */
#include "cudadrv.h"

const char *const bench_ptx = NULL;
