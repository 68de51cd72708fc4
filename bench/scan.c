/* kc benchmarks — scan: throughput of parallel_scan (see throughput.c). */
#define BENCH_SCAN 1
#include "throughput.c"
