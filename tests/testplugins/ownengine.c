/* A good plugin with an engine of its own: FOR kernels run on the calling
 * thread and NWORKERS persistent worker threads that the plugin created,
 * without the core's kc_host_launch (other kinds run on the calling thread
 * through kc_host_launch).  The ABI allows this; the core cannot see these
 * workers, so each marks itself once with kc_backend_kernel_enter(), as
 * <kc/backend.h> asks.
 *
 * For the re-entry tests, a launch whose label is "slot:<kc function>"
 * makes that kc.h call from inside the launch slot itself and returns its
 * result, running nothing. */
#include <pthread.h>
#include <string.h>

#include "common.h"

enum { NWORKERS = 3, NTHREADS = NWORKERS + 1 };

typedef struct own_state {
  pthread_mutex_t lock;
  pthread_cond_t go, done;
  pthread_t workers[NWORKERS];
  int nstarted;
  unsigned gen; /* bumped per fork-join */
  int pending;  /* workers still running the current job */
  int stop;
  const kc_launch *job;
} own_state;

/* Part `t` of NTHREADS near-equal parts of the launch's range. */
static void run_part(const kc_launch *l, int t) {
  kc_index b = l->policy.begin[0], n = l->policy.end[0] - b;
  kc_index lo = b + n * t / NTHREADS, hi = b + n * (t + 1) / NTHREADS;
  if (lo < hi)
    ((kc_host_for_fn)l->kernel->host)(l->functor, lo, hi);
}

typedef struct worker_arg {
  own_state *st;
  int t;
} worker_arg;

static worker_arg args[NWORKERS];

static void *worker(void *p) {
  worker_arg *a = p;
  own_state *st = a->st;
  unsigned seen = 0;
  /* This thread runs nothing but kernel code. */
  kc_backend_kernel_enter();
  pthread_mutex_lock(&st->lock);
  for (;;) {
    while (!st->stop && st->gen == seen)
      pthread_cond_wait(&st->go, &st->lock);
    if (st->stop)
      break;
    seen = st->gen;
    const kc_launch *l = st->job;
    pthread_mutex_unlock(&st->lock);
    run_part(l, a->t);
    pthread_mutex_lock(&st->lock);
    if (--st->pending == 0)
      pthread_cond_signal(&st->done);
  }
  pthread_mutex_unlock(&st->lock);
  kc_backend_kernel_leave();
  return NULL;
}

static void own_finalize(void *state) {
  own_state *st = state;
  pthread_mutex_lock(&st->lock);
  st->stop = 1;
  pthread_cond_broadcast(&st->go);
  pthread_mutex_unlock(&st->lock);
  for (int i = 0; i < st->nstarted; i++)
    pthread_join(st->workers[i], NULL);
  pthread_cond_destroy(&st->go);
  pthread_cond_destroy(&st->done);
  pthread_mutex_destroy(&st->lock);
}

static int own_init(void *state, const kc_backend_config *cfg) {
  own_state *st = state;
  (void)cfg;
  pthread_mutex_init(&st->lock, NULL);
  pthread_cond_init(&st->go, NULL);
  pthread_cond_init(&st->done, NULL);
  for (int i = 0; i < NWORKERS; i++) {
    args[i].st = st;
    args[i].t = i + 1;
    if (pthread_create(&st->workers[i], NULL, worker, &args[i]) != 0) {
      own_finalize(st);
      return kc_backend_error(KC_EINTERNAL, "ownengine: pthread_create");
    }
    st->nstarted++;
  }
  return 0;
}

static int own_info(void *state, kc_info *out) {
  (void)state;
  out->concurrency = NTHREADS;
  out->num_threads = NTHREADS;
  out->device_count = 1;
  out->device = -1;
  out->spaces = 1u << KC_SPACE_HOST;
  kc_host_device_info(&out->dev);
  return 0;
}

/* A kc.h call from inside this slot, by name. */
static int slot_call(const char *fn) {
  kc_info info;
  void *p = NULL;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  if (strcmp(fn, "kc_fence") == 0)
    return kc_fence();
  if (strcmp(fn, "kc_get_info") == 0)
    return kc_get_info(&info);
  if (strcmp(fn, "kc_malloc") == 0)
    return kc_malloc(&p, 64, KC_SPACE_HOST, "from a slot");
  if (strcmp(fn, "kc_init") == 0)
    return kc_init();
  if (strcmp(fn, "kc_finalize") == 0)
    return kc_finalize();
  if (strcmp(fn, "kc_region_push") == 0)
    return kc_region_push("from a slot");
  return kc_backend_error(KC_ENOTSUP, "ownengine: no slot call '%s'", fn);
}

static int own_launch(void *state, const kc_launch *l) {
  own_state *st = state;
  if (l->label && strncmp(l->label, "slot:", 5) == 0)
    return slot_call(l->label + 5);
  if (l->kernel->kind != KC_KERNEL_FOR || !l->kernel->host) {
    static const kc_host_exec one = {tp_parallel, NULL, 1};
    return kc_host_launch(&one, l);
  }
  pthread_mutex_lock(&st->lock);
  st->job = l;
  st->pending = NWORKERS;
  st->gen++;
  pthread_cond_broadcast(&st->go);
  pthread_mutex_unlock(&st->lock);
  run_part(l, 0);
  pthread_mutex_lock(&st->lock);
  while (st->pending > 0)
    pthread_cond_wait(&st->done, &st->lock);
  pthread_mutex_unlock(&st->lock);
  return 0;
}

KC_API const kc_backend_ops kc_backend_ownengine = {
    TP_OPS("ownengine"),
    .description = "kc test plugin with its own worker threads",
    .state_size = sizeof(own_state),
    .init = own_init,
    .finalize = own_finalize,
    .info = own_info,
    .launch = own_launch,
};
