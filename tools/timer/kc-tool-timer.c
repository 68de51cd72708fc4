/* kc-tool-timer — a Kokkos Tools library that times kernels.
 *
 * Load it with KC_TOOLS_LIBS=/path/libkc-tool-timer.so (or, in a Kokkos
 * program, KOKKOS_TOOLS_LIBS).  At kokkosp_finalize_library it prints
 * kernels by total time (calls, average, share), regions by total time,
 * the peak memory of each space, deep copies and fences; doc/profiling.md
 * describes the format.  It uses nothing but the kokkosp_* callbacks, so
 * it works on every backend: with the default "global fencing" the runtime
 * fences before each begin/end callback, so a kernel's time is its run
 * time on an asynchronous device too.
 *
 * KC_TIMER_OUTPUT=<file> writes the report to that file instead of
 * stderr.
 *
 * Callbacks may come from several threads at once: the tables are under
 * one mutex, taken only inside callbacks and never across a timed
 * interval.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TOOL_API __attribute__((visibility("default")))

/* The Kokkos Tools C ABI (Kokkos_Profiling_C_Interface.h), spelled here so
 * that the tool needs neither a Kokkos nor a kc header. */
struct kp_device_info {
  size_t deviceID;
};
struct kp_space_handle {
  char name[64];
};

/* ------------------------------------------------------------ state */

enum kind { K_FOR, K_REDUCE, K_SCAN };
static const char *const kind_name[] = {"for", "reduce", "scan"};

/* A kernel (kind + label) or a region (name); kind is unused for regions. */
struct entry {
  char *name;
  enum kind kind;
  uint64_t calls;
  double total; /* seconds */
};

struct table {
  struct entry *e;
  size_t n, cap;
};

struct space {
  char name[64];
  uint64_t live, peak, allocations;
};

/* A launch in flight; its address is the kernel id the runtime holds.  It
 * keeps the entry's index: entries move when the table grows. */
struct launch {
  size_t index;
  double start;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double t_init;
static struct table kernels, regions;
static struct space spaces[32];
static size_t nspaces;
static uint64_t copy_calls, copy_bytes, fence_calls, tool_fence_calls;
static uint64_t dropped;
static double copy_time, fence_time, tool_fence_time;
static char backend[64], device[128];

/* Each thread's open regions and deep copy (both nest per thread). */
struct open_region {
  size_t index;
  double start;
};
static _Thread_local struct open_region rstack[256];
static _Thread_local size_t rdepth;
static _Thread_local double copy_start;
static _Thread_local int copy_depth;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Index of (name, kind) in t, added if new; (size_t)-1 when out of
 * memory.  A linear search: programs have tens of distinct kernels, and
 * the search runs outside the timed interval.  Caller holds the lock. */
static size_t table_find(struct table *t, const char *name, enum kind kind) {
  for (size_t i = 0; i < t->n; i++)
    if (t->e[i].kind == kind && strcmp(t->e[i].name, name) == 0)
      return i;
  if (t->n == t->cap) {
    size_t ncap = t->cap ? 2 * t->cap : 32;
    struct entry *p = realloc(t->e, ncap * sizeof *p);
    if (!p)
      return (size_t)-1;
    t->e = p;
    t->cap = ncap;
  }
  char *copy = strdup(name ? name : "");
  if (!copy)
    return (size_t)-1;
  t->e[t->n] = (struct entry){copy, kind, 0, 0.0};
  return t->n++;
}

static void table_free(struct table *t) {
  for (size_t i = 0; i < t->n; i++)
    free(t->e[i].name);
  free(t->e);
  memset(t, 0, sizeof *t);
}

/* The space called `name`, added if new; NULL past 32 spaces. */
static struct space *space_find(const char *name) {
  for (size_t i = 0; i < nspaces; i++)
    if (strncmp(spaces[i].name, name, sizeof spaces[i].name) == 0)
      return &spaces[i];
  if (nspaces == sizeof spaces / sizeof spaces[0])
    return NULL;
  struct space *s = &spaces[nspaces++];
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%.*s", (int)sizeof s->name - 1, name);
  return s;
}

/* -------------------------------------------------------- callbacks */

TOOL_API void kokkosp_init_library(int seq, uint64_t version, uint32_t ndev,
                                   struct kp_device_info *devs) {
  (void)seq;
  (void)version;
  (void)ndev;
  (void)devs;
  pthread_mutex_lock(&lock);
  /* A program may initialise the runtime again after finalising it. */
  table_free(&kernels);
  table_free(&regions);
  nspaces = 0;
  copy_calls = copy_bytes = fence_calls = tool_fence_calls = dropped = 0;
  copy_time = fence_time = tool_fence_time = 0.0;
  backend[0] = device[0] = '\0';
  t_init = now();
  pthread_mutex_unlock(&lock);
}

TOOL_API void kokkosp_declare_metadata(const char *key, const char *value) {
  pthread_mutex_lock(&lock);
  if (strcmp(key, "kc_backend") == 0)
    snprintf(backend, sizeof backend, "%s", value);
  else if (strcmp(key, "kc_device_name") == 0)
    snprintf(device, sizeof device, "%s", value);
  pthread_mutex_unlock(&lock);
}

static void begin(enum kind kind, const char *name, uint64_t *kid) {
  *kid = 0;
  struct launch *l = malloc(sizeof *l);
  pthread_mutex_lock(&lock);
  size_t i = l ? table_find(&kernels, name, kind) : (size_t)-1;
  if (i == (size_t)-1)
    dropped++;
  pthread_mutex_unlock(&lock);
  if (i == (size_t)-1) {
    free(l);
    return;
  }
  l->index = i;
  *kid = (uint64_t)(uintptr_t)l;
  l->start = now(); /* last, so that the bookkeeping is not timed */
}

static void end(uint64_t kid) {
  double t = now();
  struct launch *l = (struct launch *)(uintptr_t)kid;
  if (!l)
    return;
  pthread_mutex_lock(&lock);
  if (l->index < kernels.n) {
    kernels.e[l->index].calls++;
    kernels.e[l->index].total += t - l->start;
  }
  pthread_mutex_unlock(&lock);
  free(l);
}

TOOL_API void kokkosp_begin_parallel_for(const char *name, uint32_t dev,
                                         uint64_t *kid) {
  (void)dev;
  begin(K_FOR, name, kid);
}
TOOL_API void kokkosp_begin_parallel_reduce(const char *name, uint32_t dev,
                                            uint64_t *kid) {
  (void)dev;
  begin(K_REDUCE, name, kid);
}
TOOL_API void kokkosp_begin_parallel_scan(const char *name, uint32_t dev,
                                          uint64_t *kid) {
  (void)dev;
  begin(K_SCAN, name, kid);
}
TOOL_API void kokkosp_end_parallel_for(uint64_t kid) { end(kid); }
TOOL_API void kokkosp_end_parallel_reduce(uint64_t kid) { end(kid); }
TOOL_API void kokkosp_end_parallel_scan(uint64_t kid) { end(kid); }

TOOL_API void kokkosp_push_profile_region(const char *name) {
  pthread_mutex_lock(&lock);
  size_t i = table_find(&regions, name, K_FOR);
  pthread_mutex_unlock(&lock);
  /* Past 256 levels regions are only counted, so that pops stay paired;
   * an index of -1 (out of memory) is skipped at the pop. */
  if (rdepth < sizeof rstack / sizeof rstack[0]) {
    rstack[rdepth].index = i;
    rstack[rdepth].start = now();
  }
  rdepth++;
}

TOOL_API void kokkosp_pop_profile_region(void) {
  double t = now();
  if (rdepth == 0)
    return; /* a pop without a push: nothing to close */
  rdepth--;
  if (rdepth >= sizeof rstack / sizeof rstack[0])
    return;
  pthread_mutex_lock(&lock);
  if (rstack[rdepth].index < regions.n) {
    regions.e[rstack[rdepth].index].calls++;
    regions.e[rstack[rdepth].index].total += t - rstack[rdepth].start;
  }
  pthread_mutex_unlock(&lock);
}

TOOL_API void kokkosp_allocate_data(struct kp_space_handle space,
                                    const char *label, const void *ptr,
                                    uint64_t size) {
  (void)label;
  (void)ptr;
  pthread_mutex_lock(&lock);
  struct space *s = space_find(space.name);
  if (s) {
    s->live += size;
    s->allocations++;
    if (s->live > s->peak)
      s->peak = s->live;
  }
  pthread_mutex_unlock(&lock);
}

TOOL_API void kokkosp_deallocate_data(struct kp_space_handle space,
                                      const char *label, const void *ptr,
                                      uint64_t size) {
  (void)label;
  (void)ptr;
  pthread_mutex_lock(&lock);
  struct space *s = space_find(space.name);
  if (s)
    s->live = s->live >= size ? s->live - size : 0;
  pthread_mutex_unlock(&lock);
}

TOOL_API void kokkosp_begin_deep_copy(struct kp_space_handle dst_space,
                                      const char *dst_label, const void *dst,
                                      struct kp_space_handle src_space,
                                      const char *src_label, const void *src,
                                      uint64_t size) {
  (void)dst_space;
  (void)dst_label;
  (void)dst;
  (void)src_space;
  (void)src_label;
  (void)src;
  pthread_mutex_lock(&lock);
  copy_calls++;
  copy_bytes += size;
  pthread_mutex_unlock(&lock);
  if (copy_depth++ == 0)
    copy_start = now();
}

TOOL_API void kokkosp_end_deep_copy(void) {
  double t = now();
  if (copy_depth == 0 || --copy_depth > 0)
    return;
  pthread_mutex_lock(&lock);
  copy_time += t - copy_start;
  pthread_mutex_unlock(&lock);
}

/* Fences the runtime makes only because a tool asked (the "global
 * fencing" before each kernel and region callback, or a tool's own fence
 * request) are counted apart from the program's.  kc names them
 * "kc::tools: ...", Kokkos "Kokkos::Tools::...". */
static bool tool_fence(const char *name) {
  return strncmp(name, "kc::tools:", 10) == 0 ||
         strncmp(name, "Kokkos::Tools::", 15) == 0;
}

/* A fence id is its start time in nanoseconds, times two, plus one for a
 * tool fence: nothing to allocate. */
TOOL_API void kokkosp_begin_fence(const char *name, uint32_t dev,
                                  uint64_t *id) {
  (void)dev;
  *id = (uint64_t)(now() * 1e9) * 2 + (name && tool_fence(name));
}

TOOL_API void kokkosp_end_fence(uint64_t id) {
  double t = now();
  double start = (double)(id / 2) * 1e-9;
  pthread_mutex_lock(&lock);
  if (id & 1) {
    tool_fence_calls++;
    tool_fence_time += t - start;
  } else {
    fence_calls++;
    fence_time += t - start;
  }
  pthread_mutex_unlock(&lock);
}

/* ------------------------------------------------------------ report */

static int by_total(const void *a, const void *b) {
  const struct entry *x = a, *y = b;
  if (x->total != y->total)
    return x->total < y->total ? 1 : -1;
  return strcmp(x->name, y->name);
}

static int by_name(const void *a, const void *b) {
  const struct space *x = a, *y = b;
  return strcmp(x->name, y->name);
}

/* A table that never grew has e == NULL, and qsort's pointer must not be
 * NULL even for zero elements (UBSan stops the program there). */
static void table_sort(struct table *t) {
  if (t->n > 1)
    qsort(t->e, t->n, sizeof *t->e, by_total);
}

static void report(FILE *out, double elapsed) {
  fprintf(out, "kc-tool-timer: %.6f s from init to finalize", elapsed);
  if (backend[0])
    fprintf(out, ", backend %s", backend);
  if (device[0])
    fprintf(out, ", device %s", device);
  fputc('\n', out);

  table_sort(&kernels);
  double ktotal = 0.0;
  uint64_t kcalls = 0;
  for (size_t i = 0; i < kernels.n; i++) {
    ktotal += kernels.e[i].total;
    kcalls += kernels.e[i].calls;
  }
  fprintf(out, "kernels by total time:\n");
  fprintf(out, "  %12s %10s %12s %7s  %-7s %s\n", "total_s", "calls", "avg_us",
          "pct", "type", "label");
  for (size_t i = 0; i < kernels.n; i++) {
    const struct entry *e = &kernels.e[i];
    double avg = e->calls ? e->total / (double)e->calls * 1e6 : 0.0;
    double pct = ktotal > 0.0 ? 100.0 * e->total / ktotal : 0.0;
    fprintf(out, "  %12.6f %10" PRIu64 " %12.3f %7.2f  %-7s %s\n", e->total,
            e->calls, avg, pct, kind_name[e->kind], e->name);
  }
  fprintf(out, "kernel total: %.6f s in %" PRIu64 " calls (%.2f%% of %.6f s)\n",
          ktotal, kcalls, elapsed > 0.0 ? 100.0 * ktotal / elapsed : 0.0,
          elapsed);

  table_sort(&regions);
  fprintf(out, "regions by total time:\n");
  fprintf(out, "  %12s %10s %12s  %s\n", "total_s", "calls", "avg_us", "name");
  for (size_t i = 0; i < regions.n; i++) {
    const struct entry *e = &regions.e[i];
    double avg = e->calls ? e->total / (double)e->calls * 1e6 : 0.0;
    fprintf(out, "  %12.6f %10" PRIu64 " %12.3f  %s\n", e->total, e->calls, avg,
            e->name);
  }

  qsort(spaces, nspaces, sizeof *spaces, by_name);
  fprintf(out, "memory by space:\n");
  fprintf(out, "  %-16s %16s %12s %16s\n", "space", "peak_bytes", "allocations",
          "live_bytes");
  for (size_t i = 0; i < nspaces; i++)
    fprintf(out, "  %-16s %16" PRIu64 " %12" PRIu64 " %16" PRIu64 "\n",
            spaces[i].name, spaces[i].peak, spaces[i].allocations,
            spaces[i].live);
  fprintf(out, "deep copies: %" PRIu64 " calls, %" PRIu64 " bytes, %.6f s\n",
          copy_calls, copy_bytes, copy_time);
  fprintf(out, "fences: %" PRIu64 " calls, %.6f s\n", fence_calls, fence_time);
  fprintf(out, "tool fences: %" PRIu64 " calls, %.6f s\n", tool_fence_calls,
          tool_fence_time);
  if (dropped)
    fprintf(out, "warning: %" PRIu64 " launches not timed (out of memory)\n",
            dropped);
}

/* Writes all n bytes to fd: write() may be cut short or interrupted by
 * a signal handler installed without SA_RESTART, which stdio would take
 * as an error and drop the rest of the report.  0, or -1 with errno. */
static int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

TOOL_API void kokkosp_finalize_library(void) {
  pthread_mutex_lock(&lock);
  double elapsed = now() - t_init;
  const char *path = getenv("KC_TIMER_OUTPUT");
  /* The report is made in memory, then written with write_all. */
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (mem) {
    report(mem, elapsed);
    if (fclose(mem) != 0) {
      free(text);
      text = NULL;
    }
  }
  int fd = STDERR_FILENO;
  if (path && *path) {
    /* Not blocking: a FIFO nobody reads would hold kc_finalize in open()
     * for ever (ENXIO instead: the report goes to stderr); a FIFO with a
     * reader is written as a file is. */
    do
      fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK,
                0666);
    while (fd < 0 && errno == EINTR);
    if (fd >= 0) {
      const int fl = fcntl(fd, F_GETFL);
      if (fl != -1)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    }
    if (fd < 0) {
      fprintf(stderr, "kc-tool-timer: cannot write %s: %s; report on stderr\n",
              path, strerror(errno));
      fd = STDERR_FILENO;
    }
  }
  if (!text) {
    fprintf(stderr, "kc-tool-timer: out of memory for the report\n");
  } else {
    fflush(stderr);
    if (write_all(fd, text, len) != 0)
      fprintf(stderr, "kc-tool-timer: the report was cut short: %s\n",
              strerror(errno));
    free(text);
  }
  if (fd != STDERR_FILENO)
    close(fd);
  table_free(&kernels);
  table_free(&regions);
  nspaces = 0;
  pthread_mutex_unlock(&lock);
}
