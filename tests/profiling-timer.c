/* Conformance: the bundled timer tool (tools/timer/kc-tool-timer.c).
 *
 * Runs a known mix of launches, regions, allocations, copies and fences
 * with KC_TOOLS_LIBS naming libkc-tool-timer.so, then parses the report it
 * wrote at kc_finalize (doc/profiling.md gives the format) and checks every
 * count: kernels by type and label with their calls, sorted by total time,
 * consistent averages and shares; regions; the peak memory of each space
 * as kc names it; deep copies; the program's fences apart from the fences
 * made for the tool. */
#define _POSIX_C_SOURCE 200809L /* setenv, mkstemp */

#include <sys/stat.h>
#include <unistd.h>

#include <kc/kernel.h>

#include "kernels/functors.h"
#include "profiling-log.h"

KC_KERNEL_DECLARE(kt_fill);
KC_KERNEL_DECLARE(kt_sum_i64);
KC_KERNEL_DECLARE(kt_iscan_i64);

/* What the report should say about memory: kc's space names, simulated. */
typedef struct mem {
  const char *name;
  uint64_t live, peak, allocations;
} mem;
static mem mems[4];
static int nmems;
static kc_info info;

static mem *mem_of(kc_space s) {
  const char *name = tl_space(&info, s);
  for (int i = 0; i < nmems; i++)
    if (strcmp(mems[i].name, name) == 0)
      return &mems[i];
  mems[nmems].name = name;
  return &mems[nmems++];
}

static void *alloc(size_t bytes, kc_space s, const char *label) {
  void *p = NULL;
  KC_REQUIRE_OK(kc_malloc(&p, bytes, s, label));
  mem *m = mem_of(s);
  m->live += bytes;
  m->allocations++;
  if (m->live > m->peak)
    m->peak = m->live;
  return p;
}

static void dealloc(void *p, size_t bytes, kc_space s) {
  KC_CHECK_OK(kc_free(p));
  mem_of(s)->live -= bytes;
}

/* The report line after the one starting with `head`, or NULL. */
static const char *after(const char *text, const char *head) {
  const char *p = strstr(text, head);
  if (!p)
    return NULL;
  p = strchr(p, '\n');
  return p ? p + 1 : NULL;
}

static void check_report(const char *rep) {
  char want[512];
  KC_CHECK(strncmp(rep, "kc-tool-timer: ", 15) == 0);
  double elapsed = -1;
  KC_CHECK_EQ_INT(
      sscanf(rep, "kc-tool-timer: %lf s from init to finalize", &elapsed), 1);
  snprintf(want, sizeof want, ", backend %s, device %s\n", info.backend,
           info.dev.name);
  KC_CHECK_CONTAINS(rep, want);

  /* Kernels: header, then one row each until "kernel total:". */
  const char *p = after(rep, "kernels by total time:\n");
  KC_REQUIRE(p != NULL);
  KC_CHECK(strncmp(p,
                   "       total_s      calls       avg_us     pct  type"
                   "    label\n",
                   60) == 0);
  p = strchr(p, '\n') + 1;
  struct {
    const char *type, *label;
    uint64_t calls;
    int seen;
  } want_k[] = {{"for", "timer fill", 3, 0},
                {"reduce", "kt_sum_i64", 2, 0},
                {"scan", "timer scan", 1, 0}};
  double prev = 1e300, sum_total = 0, sum_pct = 0;
  uint64_t sum_calls = 0;
  int rows = 0;
  while (p && strncmp(p, "kernel total:", 13) != 0 && *p) {
    double total, avg, pct;
    uint64_t calls;
    char type[16];
    int off = 0;
    const char *eol = strchr(p, '\n');
    KC_REQUIRE(eol != NULL);
    if (sscanf(p, " %lf %" SCNu64 " %lf %lf %15s %n", &total, &calls, &avg,
               &pct, type, &off) != 5 ||
        off == 0) {
      KC_FAIL("kernel row not understood: %.*s", (int)(eol - p), p);
      break;
    }
    char label[256];
    snprintf(label, sizeof label, "%.*s", (int)(eol - p - off), p + off);
    rows++;
    KC_CHECK(total <= prev); /* sorted by total time */
    prev = total;
    KC_CHECK(avg > 0.0);
    KC_CHECK_EQ_DBL(avg, total / (double)calls * 1e6, 1.0 + 1e-3 * avg);
    sum_total += total;
    sum_pct += pct;
    sum_calls += calls;
    int found = 0;
    for (size_t i = 0; i < sizeof want_k / sizeof want_k[0]; i++)
      if (strcmp(type, want_k[i].type) == 0 &&
          strcmp(label, want_k[i].label) == 0) {
        found = 1;
        want_k[i].seen++;
        KC_CHECK_EQ_UINT(calls, want_k[i].calls);
      }
    if (!found)
      KC_FAIL("unexpected kernel row: type %s, label '%s'", type, label);
    p = eol + 1;
  }
  KC_CHECK_EQ_INT(rows, 3);
  for (size_t i = 0; i < sizeof want_k / sizeof want_k[0]; i++)
    KC_CHECK_EQ_INT(want_k[i].seen, 1);
  if (sum_total > 0)
    KC_CHECK_EQ_DBL(sum_pct, 100.0, 0.05);
  double ktotal = -1, kel = -1;
  uint64_t kcalls = 0;
  KC_REQUIRE(p != NULL);
  KC_CHECK_EQ_INT(
      sscanf(p, "kernel total: %lf s in %" SCNu64 " calls (%*f%% of %lf s)",
             &ktotal, &kcalls, &kel),
      3);
  KC_CHECK_EQ_UINT(kcalls, 6);
  KC_CHECK_EQ_UINT(sum_calls, 6);
  KC_CHECK_EQ_DBL(ktotal, sum_total, 4e-6);
  KC_CHECK_EQ_DBL(kel, elapsed, 1e-6);
  KC_CHECK(ktotal <= elapsed);

  /* Regions. */
  p = after(rep, "regions by total time:\n");
  KC_REQUIRE(p != NULL);
  p = strchr(p, '\n') + 1;
  double rtotal, ravg;
  uint64_t rcalls = 0;
  int off = 0;
  KC_CHECK_EQ_INT(
      sscanf(p, " %lf %" SCNu64 " %lf %n", &rtotal, &rcalls, &ravg, &off), 3);
  KC_CHECK(strncmp(p + off, "timer region\n", 13) == 0);
  KC_CHECK_EQ_UINT(rcalls, 2);
  KC_CHECK(strncmp(strchr(p, '\n') + 1, "memory by space:\n", 17) == 0);

  /* Memory: one row per space, sorted by name. */
  p = after(rep, "memory by space:\n");
  KC_REQUIRE(p != NULL);
  KC_CHECK(strncmp(p,
                   "  space                  peak_bytes  allocations"
                   "       live_bytes\n",
                   66) == 0);
  p = strchr(p, '\n') + 1;
  int spaces = 0;
  while (strncmp(p, "deep copies:", 12) != 0 && *p) {
    char name[64];
    uint64_t peak, allocs, live;
    KC_REQUIRE(sscanf(p, " %63s %" SCNu64 " %" SCNu64 " %" SCNu64, name, &peak,
                      &allocs, &live) == 4);
    int found = 0;
    for (int i = 0; i < nmems; i++)
      if (strcmp(name, mems[i].name) == 0) {
        found = 1;
        KC_CHECK_EQ_UINT(peak, mems[i].peak);
        KC_CHECK_EQ_UINT(allocs, mems[i].allocations);
        KC_CHECK_EQ_UINT(live, 0);
      }
    if (!found)
      KC_FAIL("unexpected memory row for space '%s'", name);
    spaces++;
    p = strchr(p, '\n') + 1;
  }
  KC_CHECK_EQ_INT(spaces, nmems);

  uint64_t n1 = 0, n2 = 0;
  KC_CHECK_EQ_INT(
      sscanf(p, "deep copies: %" SCNu64 " calls, %" SCNu64 " bytes", &n1, &n2),
      2);
  KC_CHECK_EQ_UINT(n1, 2);
  KC_CHECK_EQ_UINT(n2, 2 * 1000 * sizeof(int64_t));
  p = after(rep, "deep copies:");
  KC_REQUIRE(p != NULL);
  KC_CHECK_EQ_INT(sscanf(p, "fences: %" SCNu64 " calls", &n1), 1);
  KC_CHECK_EQ_UINT(n1, 1); /* the program's one kc_fence */
  p = after(p, "fences:");
  KC_REQUIRE(p != NULL);
  /* Global fencing: before each of the 12 kernel and 4 region callbacks. */
  KC_CHECK_EQ_INT(sscanf(p, "tool fences: %" SCNu64 " calls", &n1), 1);
  KC_CHECK_EQ_UINT(n1, 16);
}

int main(void) {
  tl_watchdog();
  char *lib = tl_lib("tools", "kc-tool-timer");
  char *out = tl_tmpfile("profiling-timer");
  unsetenv("KOKKOS_TOOLS_LIBS");
  setenv("KC_TOOLS_LIBS", lib, 1);
  setenv("KC_TIMER_OUTPUT", out, 1);

  kc_test_init_backend();
  info = kc_test_info();

  const kc_index n = 1000;
  const size_t bytes = (size_t)n * sizeof(int64_t);
  void *h = alloc(64, KC_SPACE_HOST, "timer h");
  void *a = alloc(1000, KC_SPACE_DEVICE, "timer a");
  void *b = alloc(3000, KC_SPACE_DEVICE, "timer b");
  dealloc(a, 1000, KC_SPACE_DEVICE);
  void *c = alloc(500, KC_SPACE_DEVICE, "timer c");
  int64_t *x = alloc(bytes, KC_SPACE_DEVICE, "timer x");
  int64_t *y = alloc(bytes, KC_SPACE_DEVICE, "timer y");
  int64_t *hb = kc_test_xmalloc(bytes);
  memset(hb, 0, bytes);
  KC_CHECK_OK(kc_memcpy(x, hb, bytes));

  kc_policy range = kc_range(0, n);
  kt_fill ff = {x, 0, 1, 0};
  kt_xi64 fx = {x, 0};
  kt_scan_i64 fs = {x, y, 0};
  int64_t sum = 0, total = 0;
  for (int rep = 0; rep < 2; rep++) {
    KC_CHECK_OK(kc_region_push("timer region"));
    KC_CHECK_OK(kc_parallel_for("timer fill", KC_TEST_KERNEL(kt_fill), &range,
                                &ff, sizeof ff));
    KC_CHECK_OK(kc_parallel_reduce(NULL, KC_TEST_KERNEL(kt_sum_i64), &range,
                                   &fx, sizeof fx, &sum));
    KC_CHECK_OK(kc_region_pop());
  }
  KC_CHECK_OK(kc_parallel_for("timer fill", KC_TEST_KERNEL(kt_fill), &range,
                              &ff, sizeof ff));
  KC_CHECK_OK(kc_parallel_scan("timer scan", KC_TEST_KERNEL(kt_iscan_i64),
                               &range, &fs, sizeof fs, &total));
  KC_CHECK_OK(kc_fence());
  KC_CHECK_OK(kc_memcpy(hb, y, bytes));
  KC_CHECK_EQ_INT(sum, (int64_t)n * (n - 1) / 2);
  KC_CHECK_EQ_INT(total, (int64_t)n * (n - 1) / 2);
  KC_CHECK_EQ_INT(hb[n - 1], (int64_t)n * (n - 1) / 2);

  dealloc(h, 64, KC_SPACE_HOST);
  dealloc(b, 3000, KC_SPACE_DEVICE);
  dealloc(c, 500, KC_SPACE_DEVICE);
  dealloc(x, bytes, KC_SPACE_DEVICE);
  dealloc(y, bytes, KC_SPACE_DEVICE);
  KC_CHECK_OK(kc_finalize());

  char *rep = tl_slurp(out);
  printf("# --- the report ---\n%s# ---\n", rep);
  check_report(rep);
  free(rep);

  /* KC_TIMER_OUTPUT naming a FIFO that nobody reads: the report goes to
   * stderr (kc_finalize waited in open() for a reader for ever). */
  char fifo[4096];
  snprintf(fifo, sizeof fifo, "%s.fifo", out);
  remove(fifo);
  KC_REQUIRE(mkfifo(fifo, 0600) == 0);
  setenv("KC_TIMER_OUTPUT", fifo, 1);
  alarm(20);
  if (KC_CHECK_OK(kc_init()) == 0)
    KC_CHECK_OK(kc_finalize());
  alarm(0);
  remove(fifo);
  remove(out);
  free(out);
  free(lib);
  free(hb);
  return kc_test_done();
}
