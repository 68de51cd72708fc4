/* kc benchmarks — reduce: throughput of parallel_reduce (see throughput.c). */
#define BENCH_SCAN 0
#include "throughput.c"
