/* kc benchmarks — shared helpers (see bench.h). */
#include "bench.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

void bench_kc_fail(const char *what, int rc, const char *file, int line) {
  fprintf(stderr, "%s:%d: %s failed: %s (%s): %s\n", file, line, what,
          kc_err_name(rc), kc_strerror(rc), kc_last_error());
  exit(1);
}

void bench_die(const char *prog, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s: ", prog);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void bench_init(const char *prog, kc_info *info) {
  int rc = kc_init();
  if (rc == KC_ENOBACKEND || rc == KC_EPLUGIN || rc == KC_ENODEV ||
      rc == KC_EABI) {
    /* The backend asked for is not usable here: that is a fact about the
     * machine, not a failure of the benchmark. */
    printf("SKIP: %s: backend %s unavailable: %s (%s)\n", prog,
           getenv("KC_BACKEND") ? getenv("KC_BACKEND") : "(default)",
           kc_last_error(), kc_err_name(rc));
    exit(BENCH_SKIP);
  }
  if (rc != 0)
    bench_kc_fail("kc_init()", rc, __FILE__, __LINE__);
  memset(info, 0, sizeof *info);
  info->struct_size = sizeof *info;
  BENCH_KC(kc_get_info(info));
}

int bench_is_host_backend(const kc_info *info) {
  /* A device backend has distinct device memory; host backends map every
   * space to host memory. */
  return !(info->spaces & (1u << KC_SPACE_DEVICE)) || info->device < 0;
}

int bench_omp_set_threads(int n) {
#ifdef _OPENMP
  if (n < 1)
    n = 1;
  omp_set_num_threads(n);
  int got = 0;
#pragma omp parallel
  {
#pragma omp single
    got = omp_get_num_threads();
  }
  return got;
#else
  (void)n;
  return 1;
#endif
}

const char *bench_omp_label(void) {
#ifdef _OPENMP
#if defined(__clang__)
  return "OpenMP loop (clang " __clang_version__ ")";
#elif defined(__GNUC__)
  return "OpenMP loop (gcc " __VERSION__ ", libgomp)";
#else
  return "OpenMP loop";
#endif
#else
  return "serial C loop (built without OpenMP)";
#endif
}

void *bench_host_alloc(const char *prog, size_t bytes) {
  void *p = NULL;
  size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded == 0)
    rounded = 64;
  if (posix_memalign(&p, 64, rounded) != 0)
    bench_die(prog, "cannot allocate %zu bytes of host memory", bytes);
  return p;
}

size_t bench_mem_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f)
    return 0;
  char line[256];
  size_t kb = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long long v;
    if (sscanf(line, "MemAvailable: %llu kB", &v) == 1) {
      kb = (size_t)v;
      break;
    }
  }
  fclose(f);
  return kb * 1024;
}

/* Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom;
 * beyond 30 the normal 1.96 is close enough. */
static double t975(int dof) {
  static const double t[] = {
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof < 1)
    return 0.0;
  if (dof <= 30)
    return t[dof - 1];
  return 1.96;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double bench_median(double *x, int n, double *min) {
  qsort(x, (size_t)n, sizeof *x, cmp_double);
  if (min)
    *min = x[0];
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

bench_stats bench_stats_of(const double *x, int n) {
  bench_stats s = {x[0], x[0], 0.0, 0.0, 0.0, n};
  double sum = 0.0;
  for (int i = 0; i < n; i++) {
    sum += x[i];
    if (x[i] < s.min)
      s.min = x[i];
    if (x[i] > s.max)
      s.max = x[i];
  }
  s.mean = sum / n;
  if (n > 1) {
    double ss = 0.0;
    for (int i = 0; i < n; i++)
      ss += (x[i] - s.mean) * (x[i] - s.mean);
    s.sd = sqrt(ss / (n - 1));
    s.ci95 = t975(n - 1) * s.sd / sqrt((double)n);
  }
  return s;
}

FILE *bench_csv_open(const char *prog, const char *path, const char *header) {
  if (!path)
    return NULL;
  FILE *f = fopen(path, "w");
  if (!f)
    bench_die(prog, "cannot write %s: %s", path, strerror(errno));
  fprintf(f, "%s\n", header);
  return f;
}

void bench_csv_close(const char *prog, FILE *csv, const char *path) {
  if (!csv)
    return;
  if (ferror(csv) | fclose(csv))
    bench_die(prog, "error writing %s", path);
}

uint64_t bench_parse_size(const char *prog, const char *opt, const char *s) {
  char *end;
  errno = 0;
  if (strchr(s, '^')) {
    unsigned long base = strtoul(s, &end, 10);
    if (*end != '^')
      goto bad;
    unsigned long e = strtoul(end + 1, &end, 10);
    if (*end || base < 2 || e > 62)
      goto bad;
    uint64_t v = 1;
    for (unsigned long i = 0; i < e; i++) {
      if (v > UINT64_MAX / base)
        goto bad;
      v *= base;
    }
    return v;
  }
  if (strpbrk(s, "eE.")) {
    double d = strtod(s, &end);
    if (*end || errno || d < 0 || d > 1.8e19)
      goto bad;
    return (uint64_t)(d + 0.5);
  }
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s || errno)
    goto bad;
  uint64_t mul = 1;
  switch (*end) {
  case '\0':
    break;
  case 'k':
  case 'K':
    mul = 1ull << 10;
    end++;
    break;
  case 'm':
  case 'M':
    mul = 1ull << 20;
    end++;
    break;
  case 'g':
  case 'G':
    mul = 1ull << 30;
    end++;
    break;
  default:
    goto bad;
  }
  if (*end || v > UINT64_MAX / mul)
    goto bad;
  return v * mul;
bad:
  bench_die(prog,
            "%s: cannot read '%s' as a size (e.g. 33554432, 2^25, "
            "1e9, 64M)",
            opt, s);
}

int bench_sizes(uint64_t min, uint64_t max, uint64_t *out, int cap) {
  static const unsigned step[3] = {1, 2, 5};
  int n = 0;
  if (min < 1)
    min = 1;
  for (uint64_t decade = 1; decade <= max && n < cap; decade *= 10) {
    for (int j = 0; j < 3 && n < cap; j++) {
      uint64_t v = decade * step[j];
      if (v >= min && v <= max)
        out[n++] = v;
    }
    if (decade > UINT64_MAX / 10)
      break;
  }
  if (n < cap && (n == 0 || out[n - 1] != max) && max >= min)
    out[n++] = max;
  return n;
}
