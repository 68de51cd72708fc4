/* Unit test of the fork-join pool alone (no libkc, no plugin loading).
 *
 * Checks that every fork runs each tid exactly once with the right thread
 * count, that what tasks write with plain stores is visible after the join
 * (run it under ThreadSanitizer to check the orderings), hand-written
 * static and dynamic reductions, the sleep/wake path (pauses between forks
 * let the workers fall asleep), oversubscription, ownership (nested and
 * concurrent claims), create/destroy cycles, and the two placements (the
 * caller's mask narrowed to one CPU, as an OpenMP binding leaves it: MASK
 * keeps the pool there, SPREAD uses every CPU the process may use).
 *
 * KC_POOL_TEST_ROUNDS sets the number of fork-joins of the main loop
 * (default 200000).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "pool.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXT 64

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#define CHECK_EQ(a, b)                                                         \
  do {                                                                         \
    long long a_ = (long long)(a), b_ = (long long)(b);                        \
    if (a_ != b_) {                                                            \
      fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__,      \
              __LINE__, #a, #b, a_, b_);                                       \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

typedef struct padded {
  alignas(128) long v;
} padded;

struct count {
  int n;
  _Atomic long total;
  _Atomic uint64_t seen; /* bit tid: tid ran in this fork */
  _Atomic int bad_n;
  padded per[MAXT]; /* plain stores, one line per thread */
};

static void count_task(int tid, int n, void *arg) {
  struct count *c = arg;
  if (n != c->n || tid < 0 || tid >= n)
    atomic_fetch_add(&c->bad_n, 1);
  atomic_fetch_add_explicit(&c->total, 1, memory_order_relaxed);
  atomic_fetch_or_explicit(&c->seen, 1ull << tid, memory_order_relaxed);
  c->per[tid].v++;
}

struct sum {
  long n_items, chunk;
  _Atomic long next; /* dynamic schedule: next unclaimed index */
  padded part[MAXT];
};

static void static_sum(int tid, int n, void *arg) {
  struct sum *s = arg;
  long b = s->n_items * tid / n, e = s->n_items * (tid + 1) / n, acc = 0;
  for (long i = b; i < e; i++)
    acc += i;
  s->part[tid].v = acc;
}

static void dynamic_sum(int tid, int n, void *arg) {
  (void)n;
  struct sum *s = arg;
  long acc = 0;
  for (;;) {
    long b = atomic_fetch_add(&s->next, s->chunk);
    if (b >= s->n_items)
      break;
    long e = b + s->chunk < s->n_items ? b + s->chunk : s->n_items;
    for (long i = b; i < e; i++)
      acc += i;
  }
  s->part[tid].v = acc;
}

struct nest {
  kc__pool *pool;
  _Atomic int refused;
};

static void nest_task(int tid, int n, void *arg) {
  (void)tid;
  (void)n;
  struct nest *s = arg;
  if (!kc__pool_enter(s->pool))
    atomic_fetch_add(&s->refused, 1);
}

/* Tries to claim the pool from a thread outside it; releases a claim it
 * got.  Returns whether it got one. */
static void *claim_from_other_thread(void *arg) {
  int got = kc__pool_enter(arg);
  if (got)
    kc__pool_leave(arg);
  return (void *)(intptr_t)got;
}

/* Several application threads launching at once, as the core would if it
 * did not serialise launches: one owns the pool, the others run inline. */
struct racer {
  kc__pool *pool;
  long iters, inline_runs;
  struct sum s;
};

static void *race_launches(void *arg) {
  struct racer *r = arg;
  for (long i = 0; i < r->iters; i++) {
    int n = 1;
    r->s.n_items = 1 + i % 1000;
    if (kc__pool_enter(r->pool)) {
      n = kc__pool_size(r->pool);
      kc__pool_parallel(r->pool, static_sum, &r->s);
      kc__pool_leave(r->pool);
    } else {
      static_sum(0, 1, &r->s);
      r->inline_runs++;
    }
    long got = 0;
    for (int t = 0; t < n; t++)
      got += r->s.part[t].v;
    CHECK_EQ(got, r->s.n_items * (r->s.n_items - 1) / 2);
  }
  return NULL;
}

static void race(int nthreads, int napp, long iters) {
  char err[256];
  kc__pool *p = NULL;
  CHECK_EQ(kc__pool_create(&p, nthreads, KC__POOL_BIND_MASK, err, sizeof err),
           0);
  pthread_t th[8];
  struct racer *r = calloc((size_t)napp, sizeof *r);
  CHECK(r != NULL && napp <= 8);
  for (int i = 0; i < napp; i++) {
    r[i].pool = p;
    r[i].iters = iters;
    CHECK_EQ(pthread_create(&th[i], NULL, race_launches, &r[i]), 0);
  }
  long inl = 0;
  for (int i = 0; i < napp; i++) {
    CHECK_EQ(pthread_join(th[i], NULL), 0);
    inl += r[i].inline_runs;
  }
  printf("ok: %d application threads sharing a pool of %d, %ld launches, "
         "%ld ran inline\n",
         napp, kc__pool_size(p), napp * iters, inl);
  kc__pool_destroy(p);
  free(r);
}

static void run(int nthreads, long rounds, int pause_every) {
  char err[256];
  kc__pool *p = NULL;
  int rc = kc__pool_create(&p, nthreads, KC__POOL_BIND_MASK, err, sizeof err);
  if (rc != 0) {
    fprintf(stderr, "kc__pool_create(%d): %d: %s\n", nthreads, rc, err);
    exit(1);
  }
  int n = kc__pool_size(p);
  CHECK(n >= 1 && n <= MAXT);
  if (nthreads > 0)
    CHECK_EQ(n, nthreads);
  CHECK(kc__pool_enter(p));

  struct count *c = calloc(1, sizeof *c);
  CHECK(c != NULL);
  c->n = n;
  uint64_t all = n == 64 ? ~0ull : (1ull << n) - 1;
  for (long r = 0; r < rounds; r++) {
    atomic_store_explicit(&c->seen, 0, memory_order_relaxed);
    kc__pool_parallel(p, count_task, c);
    CHECK_EQ(atomic_load_explicit(&c->seen, memory_order_relaxed), all);
    if (pause_every && r % pause_every == 0)
      usleep(200 + (unsigned)(r % 800)); /* long enough to fall asleep */
  }
  CHECK_EQ(atomic_load(&c->bad_n), 0);
  CHECK_EQ(atomic_load(&c->total), rounds * n);
  for (int t = 0; t < n; t++)
    CHECK_EQ(c->per[t].v, rounds);

  struct sum *s = calloc(1, sizeof *s);
  CHECK(s != NULL);
  for (long items = 0; items < 5000; items += 131) {
    long want = items * (items - 1) / 2, got = 0;
    s->n_items = items;
    kc__pool_parallel(p, static_sum, s);
    for (int t = 0; t < n; t++)
      got += s->part[t].v;
    CHECK_EQ(got, want);

    s->chunk = 1 + items % 17;
    atomic_store(&s->next, 0);
    kc__pool_parallel(p, dynamic_sum, s);
    got = 0;
    for (int t = 0; t < n; t++)
      got += s->part[t].v;
    CHECK_EQ(got, want);
  }

  /* Owned: every task's claim and another thread's claim are refused. */
  struct nest ns = {p, 0};
  kc__pool_parallel(p, nest_task, &ns);
  CHECK_EQ(atomic_load(&ns.refused), n);
  pthread_t th;
  void *res;
  CHECK_EQ(pthread_create(&th, NULL, claim_from_other_thread, p), 0);
  CHECK_EQ(pthread_join(th, &res), 0);
  CHECK_EQ((intptr_t)res, 0);
  kc__pool_leave(p);
  /* Released: another thread may claim it, and after that this one. */
  CHECK_EQ(pthread_create(&th, NULL, claim_from_other_thread, p), 0);
  CHECK_EQ(pthread_join(th, &res), 0);
  CHECK_EQ((intptr_t)res, 1);
  CHECK(kc__pool_enter(p));
  atomic_store(&c->seen, 0);
  kc__pool_parallel(p, count_task, c);
  CHECK_EQ(atomic_load(&c->seen), all);
  kc__pool_leave(p);

  printf("ok: %d thread%s, %s, %ld fork-joins%s\n", n, n == 1 ? "" : "s",
         kc__pool_pinned(p) ? "pinned" : "not pinned", rounds,
         pause_every ? " with pauses (futex sleep/wake)" : "");
  kc__pool_destroy(p);
  free(c);
  free(s);
}

/* The affinity of the pool's workers, found by the names the pool gives
 * them in /proc/self/task: *workers of them, *pinned_to_cpu of which may
 * run on `cpu` alone. */
static void workers_on(int cpu, int *workers, int *pinned_to_cpu) {
  char want[32], line[256], path[300];
  snprintf(want, sizeof want, "Cpus_allowed_list:\t%d\n", cpu);
  *workers = *pinned_to_cpu = 0;
  DIR *d = opendir("/proc/self/task");
  CHECK(d != NULL);
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.')
      continue;
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    FILE *f = fopen(path, "r");
    int worker = f && fgets(line, sizeof line, f) &&
                 strncmp(line, "kc-worker-", 10) == 0;
    if (f)
      fclose(f);
    if (!worker)
      continue;
    ++*workers;
    snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
    f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
      if (strcmp(line, want) == 0)
        ++*pinned_to_cpu;
    if (f)
      fclose(f);
  }
  closedir(d);
}

/* The caller narrowed to one CPU: MASK sizes the pool by that CPU, SPREAD
 * by every CPU the process may use, with the caller's CPU first and each
 * worker pinned to another one. */
static void placements(void) {
  cpu_set_t all, one;
  CHECK_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  int first = 0;
  while (!CPU_ISSET(first, &all))
    first++;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  CHECK_EQ(sched_setaffinity(0, sizeof one, &one), 0);

  char err[256];
  kc__pool *p = NULL;
  CHECK_EQ(kc__pool_create(&p, 0, KC__POOL_BIND_MASK, err, sizeof err), 0);
  const kc__placement *pl = kc__pool_placement(p);
  CHECK_EQ(pl->mask, 1);
  CHECK_EQ(pl->n, 1);
  CHECK_EQ(kc__pool_size(p), 1);
  CHECK(pl->allowed >= CPU_COUNT(&all));
  int allowed = pl->allowed;
  kc__pool_destroy(p);

  CHECK_EQ(kc__pool_create(&p, 0, KC__POOL_BIND_SPREAD, err, sizeof err), 0);
  pl = kc__pool_placement(p);
  CHECK_EQ(pl->mask, 1);
  CHECK_EQ(pl->n, allowed);
  CHECK_EQ(kc__pool_size(p), allowed);
  int workers, on_first;
  workers_on(first, &workers, &on_first);
  CHECK_EQ(workers, allowed - 1);
  CHECK_EQ(on_first, 0);
  CHECK_EQ(kc__pool_pinned(p), allowed > 1);
  printf("ok: caller narrowed to CPU %d: MASK pool of 1, SPREAD pool of %d "
         "on CPUs %s, no worker on CPU %d\n",
         first, allowed, pl->allowed_list, first);
  kc__pool_destroy(p);

  /* Oversubscribed under SPREAD: workers may run on every allowed CPU. */
  CHECK_EQ(
      kc__pool_create(&p, allowed + 2, KC__POOL_BIND_SPREAD, err, sizeof err),
      0);
  CHECK_EQ(kc__pool_pinned(p), 0);
  workers_on(first, &workers, &on_first);
  CHECK_EQ(workers, allowed + 1);
  CHECK_EQ(on_first, allowed > 1 ? 0 : workers);
  kc__pool_destroy(p);
  CHECK_EQ(sched_setaffinity(0, sizeof all, &all), 0);
}

static void check_arranged(int n, const int *order, const int *core, int head,
                           int here, const int *want) {
  int o[8], c[8];
  memcpy(o, order, (size_t)n * sizeof *o);
  memcpy(c, core, (size_t)n * sizeof *c);
  kc__placement_arrange(o, c, n, head, here);
  for (int i = 0; i < n; i++) {
    CHECK_EQ(o[i], want[i]);
    int k = 0;
    while (order[k] != o[i])
      k++;
    CHECK_EQ(c[i], core[k]);
  }
}

/* The order workers are pinned in: the caller's CPU first, then one CPU of
 * each core before any core's second hardware thread. */
static void arrangements(void) {
  const int cpus[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  const int adjacent[8] = {0, 0, 2, 2, 4, 4, 6, 6}; /* 0,1 = one core */
  const int apart[8] = {0, 1, 2, 3, 0, 1, 2, 3};    /* 0,4 = one core */
  check_arranged(8, cpus, adjacent, 8, 0,
                 (const int[]){0, 2, 4, 6, 1, 3, 5, 7});
  check_arranged(8, cpus, adjacent, 8, 3,
                 (const int[]){3, 0, 4, 6, 1, 2, 5, 7});
  check_arranged(8, cpus, apart, 8, 0, cpus);
  check_arranged(8, cpus, apart, 8, 6, (const int[]){6, 0, 1, 3, 2, 4, 5, 7});
  check_arranged(8, cpus, cpus, 8, -1, cpus);
  /* SPREAD with the caller bound to CPU 5: the CPU it runs on counts only
   * within its mask (head), and its core's sibling goes last. */
  const int spread[8] = {5, 0, 1, 2, 3, 4, 6, 7};
  check_arranged(8, spread, (const int[]){4, 0, 0, 2, 2, 4, 6, 6}, 1, 2,
                 (const int[]){5, 0, 2, 6, 1, 3, 4, 7});
  printf("ok: placement order: caller's CPU first, one CPU per core first\n");
}

static void count_forks(kc__pool *p, int times) {
  struct count c = {.n = kc__pool_size(p)};
  CHECK(kc__pool_enter(p));
  for (int i = 0; i < times; i++) {
    atomic_store(&c.seen, 0);
    kc__pool_parallel(p, count_task, &c);
    CHECK_EQ(atomic_load(&c.seen), (1u << c.n) - 1);
  }
  kc__pool_leave(p);
}

/* The caller moved onto the CPU of a pinned worker (here by its own
 * affinity; in practice by the scheduler): the next fork moves the worker
 * to the CPU the pool left for the caller instead of sharing the CPU. */
static void follows_caller(void) {
  cpu_set_t all, one;
  CHECK_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  if (CPU_COUNT(&all) < 2) {
    printf("ok: (skipped) caller moved onto a worker's CPU: one CPU only\n");
    return;
  }
  char err[256];
  kc__pool *p = NULL;
  CHECK_EQ(kc__pool_create(&p, 2, KC__POOL_BIND_MASK, err, sizeof err), 0);
  CHECK_EQ(kc__pool_pinned(p), 1);
  int worker_cpu = -1, free_cpu = -1, workers, on;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, &all))
      continue;
    workers_on(c, &workers, &on);
    if (on == 1 && worker_cpu < 0)
      worker_cpu = c;
    else if (on == 0 && free_cpu < 0)
      free_cpu = c;
  }
  CHECK(worker_cpu >= 0 && free_cpu >= 0);
  count_forks(p, 10);
  CPU_ZERO(&one);
  CPU_SET(worker_cpu, &one);
  CHECK_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  count_forks(p, 10);
  workers_on(worker_cpu, &workers, &on);
  CHECK_EQ(workers, 1);
  CHECK_EQ(on, 0);
  printf("ok: caller moved onto worker CPU %d: the worker moved off it\n",
         worker_cpu);
  CHECK_EQ(sched_setaffinity(0, sizeof all, &all), 0);
  kc__pool_destroy(p);
}

int main(void) {
  const char *env = getenv("KC_POOL_TEST_ROUNDS");
  long rounds = env ? atol(env) : 200000;
  if (rounds < 1)
    rounds = 1;

  run(0, rounds, 0);       /* default size: one thread per CPU */
  run(1, 1000, 0);         /* no workers */
  run(2, rounds / 10, 50); /* sleep/wake path */
  run(8, rounds / 20, 0);  /* oversubscribed on small machines */
  run(8, rounds / 100 + 1, 25);
  run(MAXT, rounds / 200 + 1, 0);

  arrangements();
  placements();
  follows_caller();
  race(2, 3, rounds / 20 + 1);
  race(4, 2, rounds / 50 + 1);

  char err[128];
  kc__pool *p = NULL;
  CHECK_EQ(kc__pool_create(&p, -1, KC__POOL_BIND_MASK, err, sizeof err),
           KC_EINVAL);
  CHECK(strstr(err, "negative") != NULL);
  printf("ok: negative size refused: %s\n", err);

  for (int i = 0; i < 100; i++) {
    CHECK_EQ(
        kc__pool_create(&p, 1 + i % 9, KC__POOL_BIND_MASK, err, sizeof err), 0);
    if (i % 2) {
      CHECK(kc__pool_enter(p));
      kc__pool_parallel(p, nest_task, &(struct nest){p, 0});
      kc__pool_leave(p);
    }
    kc__pool_destroy(p);
  }
  kc__pool_destroy(NULL);
  printf("ok: 100 create/destroy cycles\n");
  return 0;
}
