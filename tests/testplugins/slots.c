/* A host plugin with the twelve queue and event slots of ABI 1.1, so that
 * the core's paths for such a backend (cuda's, on a GPU) run on any
 * machine: t-queue-slots.sh puts t-queue through it.  Work is done when its
 * slot returns, as on the host backends, but the plugin checks how the core
 * uses its handles: a slot given a queue or an event after queue_destroy
 * or event_destroy, a handle destroyed twice, or one destroyed while
 * queue_fence or event_synchronize is still using it on another thread
 * ends the process with a line on stderr (the cuda plugin would read freed
 * memory there).  KC_TEST_SLOTS_WAIT_MS, read at each call (unset: 0),
 * makes queue_fence and event_synchronize take that many milliseconds, as
 * a device may, so that a test can destroy the handle meanwhile.
 *
 * Destroyed handles are kept, marked dead, until the last kc_finalize, so
 * that the checks read the plugin's own memory. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

#define LIVE 0x51u
#define DEAD 0xdeu

typedef struct handle {
  unsigned mark; /* LIVE or DEAD */
  int busy;      /* fences or synchronizes in progress (under `mu`) */
  int recorded;
  double t_ms;
  struct handle *next; /* every handle made (under `mu`) */
} handle;

/* queue_fence and event_synchronize run without the runtime lock. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static handle *all;

static void die(const char *slot, const char *what, const void *h) {
  fprintf(stderr, "slots: %s: %s %p\n", slot, what, h);
  fflush(stderr);
  abort();
}

/* A handle the slot may use: NULL (the default queue) where `null_ok`, or
 * a live one. */
static handle *use(const char *slot, void *p, int null_ok) {
  handle *h = p;
  if (!h && null_ok)
    return NULL;
  pthread_mutex_lock(&mu);
  unsigned mark = h ? h->mark : 0;
  pthread_mutex_unlock(&mu);
  if (mark != LIVE)
    die(slot, h ? "was given a destroyed handle" : "was given NULL", p);
  return h;
}

static int make(void **out) {
  handle *h = calloc(1, sizeof *h);
  if (!h)
    return kc_backend_error(KC_ENOMEM, "slots: out of memory");
  h->mark = LIVE;
  pthread_mutex_lock(&mu);
  h->next = all;
  all = h;
  pthread_mutex_unlock(&mu);
  *out = h;
  return 0;
}

static void unmake(const char *slot, void *p) {
  handle *h = use(slot, p, 0);
  pthread_mutex_lock(&mu);
  int busy = h->busy;
  h->mark = DEAD;
  pthread_mutex_unlock(&mu);
  if (busy)
    die(slot, "destroyed a handle another thread is waiting for", p);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* A fence or a synchronize: the wait a device would take, during which
 * the handle must stay alive. */
static int wait_on(const char *slot, void *p) {
  handle *h = use(slot, p, 1);
  if (h) {
    pthread_mutex_lock(&mu);
    h->busy++;
    pthread_mutex_unlock(&mu);
  }
  const char *v = getenv("KC_TEST_SLOTS_WAIT_MS");
  long ms = v ? atol(v) : 0;
  if (ms > 0) {
    struct timespec nap = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&nap, NULL);
  }
  if (h) {
    pthread_mutex_lock(&mu);
    h->busy--;
    unsigned mark = h->mark;
    pthread_mutex_unlock(&mu);
    if (mark != LIVE)
      die(slot, "handle destroyed while the slot waited for it", p);
  }
  return 0;
}

static void slots_finalize(void *state) {
  (void)state;
  pthread_mutex_lock(&mu);
  for (handle *h = all, *next; h; h = next) {
    next = h->next;
    if (h->mark == LIVE)
      fprintf(stderr, "slots: finalize: handle %p was never destroyed\n",
              (void *)h);
    free(h);
  }
  all = NULL;
  pthread_mutex_unlock(&mu);
}

static int slots_launch(void *state, const kc_launch *l) {
  use("launch", l->queue, 1);
  return tp_launch(state, l);
}

static int mem_alloc(void *state, kc_space space, size_t bytes, void **out) {
  (void)state;
  (void)space;
  *out = malloc(bytes ? bytes : 1);
  return *out ? 0 : kc_backend_error(KC_ENOMEM, "slots: out of memory");
}

static int queue_create(void *state, int device, void **queue) {
  (void)state;
  (void)device;
  return make(queue);
}

static void queue_destroy(void *state, void *queue) {
  (void)state;
  unmake("queue_destroy", queue);
}

static int queue_fence(void *state, void *queue) {
  (void)state;
  return wait_on("queue_fence", queue);
}

static int event_create(void *state, void **event) {
  (void)state;
  return make(event);
}

static void event_destroy(void *state, void *event) {
  (void)state;
  unmake("event_destroy", event);
}

static int event_record(void *state, void *event, void *queue) {
  (void)state;
  use("event_record", queue, 1);
  handle *e = use("event_record", event, 0);
  pthread_mutex_lock(&mu);
  e->recorded = 1;
  e->t_ms = now_ms();
  pthread_mutex_unlock(&mu);
  return 0;
}

static int event_wait(void *state, void *queue, void *event) {
  (void)state;
  use("event_wait", queue, 1);
  use("event_wait", event, 0);
  return 0;
}

static int event_synchronize(void *state, void *event) {
  (void)state;
  if (!event)
    die("event_synchronize", "was given NULL", event);
  return wait_on("event_synchronize", event);
}

static int event_query(void *state, void *event) {
  (void)state;
  use("event_query", event, 0);
  return 1;
}

static int event_elapsed(void *state, void *start, void *end, double *ms) {
  (void)state;
  handle *a = use("event_elapsed", start, 0), *b = use("event_elapsed", end, 0);
  pthread_mutex_lock(&mu);
  *ms = b->t_ms - a->t_ms;
  pthread_mutex_unlock(&mu);
  return 0;
}

static int mem_copy_on(void *state, void *queue, void *dst, kc_space dst_space,
                       const void *src, kc_space src_space, size_t bytes) {
  use("mem_copy_on", queue, 1);
  return tp_mem_copy(state, dst, dst_space, src, src_space, bytes, 1);
}

static int mem_set_on(void *state, void *queue, void *p, kc_space space,
                      int value, size_t bytes) {
  use("mem_set_on", queue, 1);
  return tp_mem_set(state, p, space, value, bytes);
}

KC_API const kc_backend_ops kc_backend_slots = {
    TP_OPS("slots"),
    .description = "kc test plugin with queue and event slots that checks "
                   "the core's use of its handles",
    .finalize = slots_finalize,
    .launch = slots_launch,
    .mem_alloc = mem_alloc,
    .mem_free = tp_mem_free,
    .mem_copy = tp_mem_copy,
    .mem_set = tp_mem_set,
    .queue_create = queue_create,
    .queue_destroy = queue_destroy,
    .queue_fence = queue_fence,
    .event_create = event_create,
    .event_destroy = event_destroy,
    .event_record = event_record,
    .event_wait = event_wait,
    .event_synchronize = event_synchronize,
    .event_query = event_query,
    .event_elapsed = event_elapsed,
    .mem_copy_on = mem_copy_on,
    .mem_set_on = mem_set_on,
};
