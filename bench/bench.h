/* kc benchmarks — helpers shared by the programs in bench/.
 *
 * Every benchmark program measures kc and a hand-written baseline in the same
 * process and run, validates both answers (a wrong one exits 1), prints a
 * short table last and can write the figures as CSV (--csv FILE).  This file
 * holds what they share: timing, statistics, start-up (a backend that is not
 * there is a SKIP, exit 77), the baseline's thread count, CSV output and
 * the CUDA baseline's hooks.
 */
#ifndef KC_BENCH_H
#define KC_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <kc/kc.h>

/* Exit status of a benchmark whose backend or device is not present; the
 * same as automake's SKIP so `make check`-style drivers understand it. */
#define BENCH_SKIP 77

/* Runs a kc call and exits with status 1, printing the error name and the
 * kc_last_error() detail, when it fails.  A benchmark has nothing sensible
 * to report after a failed launch or allocation. */
#define BENCH_KC(call)                                                         \
  do {                                                                         \
    int bench_rc_ = (call);                                                    \
    if (bench_rc_ != 0)                                                        \
      bench_kc_fail(#call, bench_rc_, __FILE__, __LINE__);                     \
  } while (0)

void bench_kc_fail(const char *what, int rc, const char *file, int line);

/* Prints "<prog>: <message>" to stderr and exits 1. */
void bench_die(const char *prog, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

/* Monotonic wall-clock time in seconds. */
double bench_now(void);

/* kc_init(); a backend that cannot be had (unknown, missing plugin, no
 * device) prints "SKIP: <prog>: ..." and exits 77.  Fills *info. */
void bench_init(const char *prog, kc_info *info);

/* 1 on a host backend (serial, threads, openmp ...), 0 on a device one. */
int bench_is_host_backend(const kc_info *info);

/* Sets the OpenMP baseline's thread count to `n` (omp_set_num_threads) and
 * returns the count the baseline will really use; 1 when the programs were
 * built without OpenMP (the baseline then is a plain serial loop). */
int bench_omp_set_threads(int n);

/* A short description of the baseline the host programs compare with,
 * e.g. "OpenMP (libgomp), 4 threads" or "serial C loop (no OpenMP)". */
const char *bench_omp_label(void);

/* Allocates `bytes` of host memory, 64-byte aligned, for the host baseline;
 * exits on failure.  The pages are not touched: the baseline's own
 * initialisation loop places them (first touch).  Free with free(). */
void *bench_host_alloc(const char *prog, size_t bytes);

/* Bytes of memory that can be allocated without swapping (MemAvailable),
 * 0 when unknown. */
size_t bench_mem_available(void);

/* ------------------------------------------------------------ statistics */

typedef struct bench_stats {
  double min, max, mean, sd;
  double ci95; /* half-width of the 95% confidence interval of the mean */
  int n;
} bench_stats;

/* Statistics of x[0..n-1] (n >= 1). */
bench_stats bench_stats_of(const double *x, int n);

/* Median of x[0..n-1] (n >= 1), sorting x in place; *min (if not NULL)
 * gets the smallest. */
double bench_median(double *x, int n, double *min);

/* ------------------------------------------------------------------- CSV */

/* Opens `path` for writing and writes `header` (a comma separated line
 * without the newline).  NULL path: returns NULL and nothing is written.
 * Exits on failure. */
FILE *bench_csv_open(const char *prog, const char *path, const char *header);

/* Closes a CSV file from bench_csv_open (NULL is fine), exiting on a write
 * error so a truncated file is never mistaken for a result. */
void bench_csv_close(const char *prog, FILE *csv, const char *path);

/* ------------------------------------------------------------ parsing */

/* Parses a size such as "33554432", "2^25", "1e9", "64M" (K, M, G are
 * powers of 1024; e is decimal).  Exits on a malformed value. */
uint64_t bench_parse_size(const char *prog, const char *opt, const char *s);

/* Fills out[0..cap-1] with the sizes from `min` to `max` in a 1-2-5 series
 * (1000, 2000, 5000, 10000 ...), ending with `max` itself when it is not on
 * the series; returns how many. */
int bench_sizes(uint64_t min, uint64_t max, uint64_t *out, int cap);

#endif /* KC_BENCH_H */
