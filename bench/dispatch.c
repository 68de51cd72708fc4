/* kc benchmarks — dispatch: the cost of launching a tiny parallel_for,
 * parallel_reduce and parallel_scan on a host backend, against
 * `#pragma omp parallel for` (and its reduction, and a hand-written OpenMP
 * scan) in the same run.
 *
 * The method is the EPCC OpenMP microbenchmarks' (syncbench): every
 * construct runs over one index per thread, each index doing a short delay
 * (0.1 us by default).  A reference loop times the delay alone; a test loop
 * times `inner` launches, with `inner` doubled until the loop takes at least
 * the target time; both are repeated `outer` times.  The overhead of one
 * launch is test/inner - reference/inner, reported as the mean over the
 * outer repetitions with its 95% confidence interval.  Each construct is
 * first launched untimed for --warmup-ms (200 ms): the figures are the
 * steady state, not the first launches of a pool whose threads are still
 * being placed.
 *
 * The thread count of a kc host backend is fixed when kc starts
 * (KC_NUM_THREADS); the baseline is given the same count.  bench/run runs
 * this program once per thread count.  Each implementation runs all its
 * constructs in one block, after a pause that lets the other runtime's idle
 * workers go to sleep.
 *
 * With --queue, kc also launches the same parallel_for on a queue of its
 * own (kc_queue_create, kc_policy_on): the row parallel_for@q, beside the
 * default queue's parallel_for in the same run.  Its baseline is the same
 * `omp parallel for`, measured once.
 *
 * With --paired (the openmp backend, whose launches and the baseline's
 * share one OpenMP runtime and its threads), each construct's outer
 * repetitions alternate between the two, kc's and OpenMP's test loops
 * back to back (their order swapped every repetition, the same number of
 * launches each), and the ratio printed is the median of the pairs'
 * ratios: a host whose speed drifts over a run, or stalls a loop now and
 * then, moves both loops of a pair, and a stall moves one pair, not the
 * median.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kc/kc.h>

#include "bench.h"
#include "dispatch-omp.h"
#include "dispatch.h"

static const char *prog = "dispatch";

/* C_FOR_QUEUE, measured with --queue only, is C_FOR on a kc queue. */
enum { C_FOR, C_REDUCE, C_SCAN, C_COUNT, C_FOR_QUEUE = C_COUNT, C_ALL };
static const char *const cname[C_ALL] = {"parallel_for", "parallel_reduce",
                                         "parallel_scan", "parallel_for@q"};
static const char *const bname[C_ALL] = {
    "omp parallel for", "omp parallel for reduction",
    "omp parallel (2-pass scan)", "omp parallel for"};
/* Delays per index each construct runs: the two-pass scan runs its body
 * twice. */
static const int cdelays[C_ALL] = {1, 1, 2, 1};

static struct {
  int outer;
  double target_us, delay_us;
  const char *csv;
  int verbose;
  double warmup_ms;
  int queue;
  int base_first; /* --baseline-first */
  int paired;     /* --paired */
} o = {20, 1000.0, 0.1, NULL, 0, 200.0, 0, 0, 0};

static long long n;           /* indices per launch: one per thread */
static long long delay_len;   /* DISPATCH_DELAY length giving delay_us */
static double *out, *partial; /* kc_malloc'd; host memory on host backends */
static kc_kernel *kk[C_COUNT];
static kc_queue *queue; /* --queue: where C_FOR_QUEUE launches */
static int bad;         /* results that failed validation */

static double delay_value(void) {
  double v;
  DISPATCH_DELAY(delay_len, v);
  return v;
}

/* One launch of construct c; kc (impl 0) or OpenMP (impl 1). */
static void launch(int impl, int c) {
  struct dispatch_f f = {out, delay_len};
  kc_policy p = kc_range(0, n);
  double r;
  if (impl == 0) {
    switch (c) {
    case C_FOR:
      BENCH_KC(kc_parallel_for("dispatch_for", kk[c], &p, &f, sizeof f));
      break;
    case C_FOR_QUEUE:
      p = kc_policy_on(p, queue);
      BENCH_KC(kc_parallel_for("dispatch_for", kk[C_FOR], &p, &f, sizeof f));
      break;
    case C_REDUCE:
      BENCH_KC(
          kc_parallel_reduce("dispatch_reduce", kk[c], &p, &f, sizeof f, &r));
      if (r != (double)n * delay_value())
        bad++;
      break;
    case C_SCAN:
      BENCH_KC(kc_parallel_scan("dispatch_scan", kk[c], &p, &f, sizeof f, &r));
      if (r != (double)n * delay_value())
        bad++;
      break;
    }
  } else {
    switch (c) {
    case C_FOR:
    case C_FOR_QUEUE:
      omp_dispatch_for(out, n, delay_len);
      break;
    case C_REDUCE:
      if (omp_dispatch_reduce(n, delay_len) != (double)n * delay_value())
        bad++;
      break;
    case C_SCAN:
      if (omp_dispatch_scan(out, n, delay_len, partial) !=
          (double)n * delay_value())
        bad++;
      break;
    }
  }
}

/* Checks what the last launch of construct c left in out[]. */
static void check_out(const char *who, int c) {
  double v = delay_value();
  if (c == C_REDUCE)
    return;
  for (long long i = 0; i < n; i++) {
    double want = c == C_SCAN ? (double)(i + 1) * v : v;
    if (out[i] != want) {
      fprintf(stderr, "%s: %s %s: out[%lld] = %.17g, want %.17g\n", prog, who,
              cname[c], i, out[i], want);
      bad++;
      return;
    }
  }
}

static double time_launches(int impl, int c, long inner) {
  double t0 = bench_now();
  for (long j = 0; j < inner; j++)
    launch(impl, c);
  if (impl == 0)
    BENCH_KC(kc_fence());
  return bench_now() - t0;
}

static double time_reference(int delays, long inner) {
  double t0 = bench_now(), sink = 0.0;
  for (long j = 0; j < inner; j++)
    for (int d = 0; d < delays; d++) {
      double v;
      DISPATCH_DELAY(delay_len, v);
      sink += v;
    }
  double t = bench_now() - t0;
  if (sink < 0) /* never: keeps the loop */
    puts("");
  return t;
}

/* Calibrates the delay length so one delay takes about delay_us. */
static void calibrate_delay(void) {
  if (o.delay_us <= 0) {
    delay_len = 0;
    return;
  }
  long long len = 1;
  for (;;) {
    long reps = 1000;
    double best = 1e30;
    for (int k = 0; k < 5; k++) {
      double s = 0.0, t0 = bench_now();
      for (long j = 0; j < reps; j++) {
        double v;
        DISPATCH_DELAY(len, v);
        s += v;
      }
      double us = (bench_now() - t0) / reps * 1e6;
      if (s < 0)
        puts("");
      if (us < best)
        best = us;
    }
    if (best >= o.delay_us || len > (1ll << 40)) {
      delay_len = len;
      return;
    }
    len = best > 0 ? (long long)(len * (o.delay_us / best)) + 1 : len * 2;
    if (len < 2)
      len = 2;
  }
}

typedef struct result {
  bench_stats st; /* of the per-launch overhead, microseconds */
  double ref_us;  /* reference per launch */
  long inner;
} result;

/* Launches of construct c by impl in one test loop: doubled, as EPCC does,
 * until the loop takes --target-us (the first, short, loops warm the pool
 * up). */
static long loop_length(int impl, int c) {
  long inner = 1;
  while (time_launches(impl, c, inner) * 1e6 < o.target_us &&
         inner < (1l << 30))
    inner *= 2;
  return inner;
}

/* The reference loop's time for `inner` launches of construct c: the best
 * of three. */
static double best_reference(int c, long inner) {
  double ref = 1e30;
  for (int r = 0; r < 3; r++) {
    double t = time_reference(cdelays[c], inner);
    if (t < ref)
      ref = t;
  }
  return ref;
}

static result measure(int impl, int c) {
  result res = {0};
  /* Warm-up: launches for --warmup-ms before anything is timed, so the
   * figures are the steady state (pools awake, threads placed).  Run with
   * --warmup-ms 0 -v to see the start-up instead. */
  double until = bench_now() + o.warmup_ms * 1e-3;
  while (bench_now() < until)
    time_launches(impl, c, 16);
  const long inner = loop_length(impl, c);
  res.inner = inner;
  const double ref = best_reference(c, inner);
  res.ref_us = ref / inner * 1e6;
  double *ov = malloc(sizeof(double) * o.outer);
  if (!ov)
    bench_die(prog, "out of memory");
  for (int r = 0; r < o.outer; r++)
    ov[r] = (time_launches(impl, c, inner) - ref) / inner * 1e6;
  res.st = bench_stats_of(ov, o.outer);
  if (o.verbose) {
    printf("dispatch: %s %s, %ld launches per rep, us per launch:",
           impl == 0 ? "kc" : "OpenMP", cname[c], inner);
    for (int r = 0; r < o.outer; r++)
      printf(" %.3f", ov[r]);
    printf("\n");
  }
  free(ov);
  check_out(impl == 0 ? "kc" : "OpenMP", c);
  return res;
}

/* --paired: construct c of both sides, rep by rep (see the top of the
 * file).  res[0] and res[1] get each side's overheads; returns the median
 * of the pairs' ratios. */
static double measure_paired(int c, result res[2]) {
  double until = bench_now() + o.warmup_ms * 1e-3;
  while (bench_now() < until) {
    time_launches(0, c, 16);
    time_launches(1, c, 16);
  }
  const long inner = loop_length(1, c); /* both sides run this many */
  const double ref = best_reference(c, inner);
  double *ov[2], *ratio = malloc(sizeof(double) * o.outer);
  ov[0] = malloc(sizeof(double) * o.outer);
  ov[1] = malloc(sizeof(double) * o.outer);
  if (!ratio || !ov[0] || !ov[1])
    bench_die(prog, "out of memory");
  int m = 0; /* pairs with a positive OpenMP overhead (all, but for noise) */
  for (int r = 0; r < o.outer; r++) {
    for (int j = 0; j < 2; j++) {
      const int impl = (r + j + o.base_first) % 2;
      ov[impl][r] = (time_launches(impl, c, inner) - ref) / inner * 1e6;
    }
    if (ov[1][r] > 0)
      ratio[m++] = ov[0][r] / ov[1][r];
  }
  for (int impl = 0; impl < 2; impl++) {
    res[impl].st = bench_stats_of(ov[impl], o.outer);
    res[impl].ref_us = ref / inner * 1e6;
    res[impl].inner = inner;
  }
  if (o.verbose) {
    printf("dispatch: paired %s, %ld launches per loop, kc/OpenMP per pair:",
           cname[c], inner);
    for (int r = 0; r < m; r++)
      printf(" %.3f", ratio[r]);
    printf("\n");
  }
  double med = m ? bench_median(ratio, m, NULL) : NAN;
  free(ov[0]);
  free(ov[1]);
  free(ratio);
  check_out("kc or OpenMP", c);
  return med;
}

static void pause_ms(int ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: %s [--outer N] [--target-us T] [--delay-us D] [--csv FILE]\n"
          "  Overhead of a tiny parallel_for, parallel_reduce and "
          "parallel_scan on a\n"
          "  host backend (KC_BACKEND, KC_NUM_THREADS threads) beside "
          "OpenMP, EPCC method.\n"
          "  --outer N      outer repetitions (default 20)\n"
          "  --target-us T  time of one test loop, microseconds (default "
          "1000)\n"
          "  --delay-us D   work per index, microseconds (default 0.1; 0: "
          "empty body)\n"
          "  --csv FILE     write the figures as CSV\n"
          "  --warmup-ms W  untimed launches before each construct "
          "(default 200)\n"
          "  --queue        also launch the parallel_for on a kc queue "
          "(row parallel_for@q)\n"
          "  --baseline-first\n"
          "                 measure OpenMP's constructs before kc's "
          "(default after)\n"
          "  --paired       alternate kc's and OpenMP's loops rep by rep; "
          "ratio = median\n"
          "                 of the pairs' ratios (openmp backend only)\n"
          "  -v, --verbose  print every outer repetition\n"
          "Exit status: 0 results valid, 1 a wrong answer or an error, "
          "2 bad options (--paired on a backend other than openmp), "
          "77 backend absent or not a host backend.\n",
          prog);
}

int main(int argc, char **argv) {
  static const struct option lo[] = {
      {"outer", required_argument, NULL, 'o'},
      {"target-us", required_argument, NULL, 't'},
      {"delay-us", required_argument, NULL, 'd'},
      {"csv", required_argument, NULL, 'c'},
      {"verbose", no_argument, NULL, 'v'},
      {"warmup-ms", required_argument, NULL, 'w'},
      {"queue", no_argument, NULL, 'q'},
      {"baseline-first", no_argument, NULL, 'B'},
      {"paired", no_argument, NULL, 'P'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "hv", lo, NULL)) != -1) {
    switch (ch) {
    case 'v':
      o.verbose = 1;
      break;
    case 'w':
      o.warmup_ms = atof(optarg);
      break;
    case 'q':
      o.queue = 1;
      break;
    case 'B':
      o.base_first = 1;
      break;
    case 'P':
      o.paired = 1;
      break;
    case 'o':
      o.outer = atoi(optarg);
      break;
    case 't':
      o.target_us = atof(optarg);
      break;
    case 'd':
      o.delay_us = atof(optarg);
      break;
    case 'c':
      o.csv = optarg;
      break;
    case 'h':
      usage(stdout);
      return 0;
    default:
      usage(stderr);
      return 2;
    }
  }
  if (optind != argc || o.outer < 2 || o.target_us <= 0 || o.delay_us < 0 ||
      o.warmup_ms < 0) {
    usage(stderr);
    return 2;
  }

  kc_info info;
  bench_init(prog, &info);
  if (!bench_is_host_backend(&info)) {
    printf("SKIP: %s: backend %s is not a host backend (bench/launch "
           "measures launches on the GPU)\n",
           prog, info.backend);
    kc_finalize();
    return BENCH_SKIP;
  }
  if (o.paired && strcmp(info.backend, "openmp") != 0) {
    /* The threads backend's pool and OpenMP's idle workers spin for
     * milliseconds after a loop, each taking cores from the other's next
     * loop: pairs would measure that. */
    fprintf(stderr,
            "%s: --paired needs the openmp backend (KC_BACKEND=%s): "
            "another runtime's idle workers would take cores from the "
            "loop after theirs\n",
            prog, info.backend);
    kc_finalize();
    return 2;
  }
  int threads = info.num_threads < 1 ? 1 : info.num_threads;
  int omp_threads = bench_omp_set_threads(threads);
  n = threads;
  BENCH_KC(kc_malloc((void **)&out, sizeof(double) * (size_t)n, KC_SPACE_HOST,
                     "dispatch out"));
  partial = calloc((size_t)omp_threads + 1, sizeof(double));
  if (!partial)
    bench_die(prog, "out of memory");
  BENCH_KC(kc_kernel_get("dispatch_for", &kk[C_FOR]));
  BENCH_KC(kc_kernel_get("dispatch_reduce", &kk[C_REDUCE]));
  BENCH_KC(kc_kernel_get("dispatch_scan", &kk[C_SCAN]));
  if (o.queue)
    BENCH_KC(kc_queue_create(&queue, 0));
  int nc = o.queue ? C_ALL : C_COUNT;
  calibrate_delay();
  double dus = time_reference(1, 100000) / 100000 * 1e6;

  printf("dispatch: kc %s on backend %s, %d thread%s; baseline %s, %d "
         "thread%s\n",
         kc_version(), info.backend, threads, threads == 1 ? "" : "s",
         bench_omp_label(), omp_threads, omp_threads == 1 ? "" : "s");
  printf("dispatch: %lld indices per launch, delay %.3f us per index "
         "(length %lld), %d outer reps of >= %.0f us, %s\n",
         n, dus, delay_len, o.outer, o.target_us,
         o.paired       ? "paired rep by rep"
         : o.base_first ? "OpenMP measured first"
                        : "kc measured first");
  fflush(stdout);

  result res[2][C_ALL];
  double paired[C_ALL];
  for (int side = 0; side < 2 && !o.paired; side++) {
    const int impl = o.base_first ? 1 - side : side;
    pause_ms(100);
    for (int c = 0; c < C_COUNT; c++)
      res[impl][c] = measure(impl, c);
  }
  for (int c = 0; c < C_COUNT && o.paired; c++) {
    result pr[2];
    paired[c] = measure_paired(c, pr);
    res[0][c] = pr[0];
    res[1][c] = pr[1];
  }
  if (o.queue) {
    res[0][C_FOR_QUEUE] = measure(0, C_FOR_QUEUE);
    res[1][C_FOR_QUEUE] = res[1][C_FOR]; /* OpenMP has no queue */
    /* Not paired: the ratio of the means. */
    paired[C_FOR_QUEUE] = res[0][C_FOR_QUEUE].st.mean / res[1][C_FOR].st.mean;
  }
  if (bad)
    fprintf(stderr, "%s: %d wrong results\n", prog, bad);
  printf("dispatch: validation: %s\n", bad ? "FAILED" : "OK");

  FILE *csv = bench_csv_open(prog, o.csv,
                             "backend,threads,construct,kc_us,kc_ci95_us,"
                             "base_us,base_ci95_us,ratio,delay_us,kc_inner,"
                             "base_inner,outer,baseline");
  printf("\n%-16s %9s %7s %9s %7s %7s  %s\n", "construct", "kc us", "+-95%",
         "omp us", "+-95%", "ratio", "baseline construct");
  for (int c = 0; c < nc; c++) {
    result *k = &res[0][c], *b = &res[1][c];
    double ratio = o.paired         ? paired[c]
                   : b->st.mean > 0 ? k->st.mean / b->st.mean
                                    : NAN;
    printf("%-16s %9.3f %7.3f %9.3f %7.3f %7.2f  %s\n", cname[c], k->st.mean,
           k->st.ci95, b->st.mean, b->st.ci95, ratio, bname[c]);
    if (csv)
      fprintf(csv,
              "%s,%d,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%ld,%ld,%d,\"%s: %s\"\n",
              info.backend, threads, cname[c], k->st.mean, k->st.ci95,
              b->st.mean, b->st.ci95, ratio, dus, k->inner, b->inner, o.outer,
              bench_omp_label(), bname[c]);
  }
  printf("(overhead per launch in microseconds, reference delay "
         "subtracted; ratio = kc / OpenMP, lower is better for kc%s)\n",
         o.paired ? "; the median of the pairs' ratios" : "");
  if (o.queue)
    printf("(parallel_for@q: the parallel_for on a kc queue; its OpenMP "
           "figure is the parallel_for row's)\n");
  bench_csv_close(prog, csv, o.csv);
  if (queue)
    BENCH_KC(kc_queue_destroy(queue));
  kc_free(out);
  free(partial);
  kc_finalize();
  return bad ? 1 : 0;
}
