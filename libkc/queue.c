/* libkc — queues and events.
 *
 * A backend with the ABI 1.1 queue slots (backend.h) runs each kc_queue on
 * a queue of its own: the core keeps a handle per queue and per event and
 * passes the plugin's handle down (kc_launch.queue, mem_copy_on, ...).
 *
 * A backend without them (every host backend, any 1.0 plugin) runs every
 * queue on its default one: a queue is a core object naming a device, its
 * launches and copies go to the backend in the calling thread in
 * submission order, and the backend's own ordering (in order on its
 * default stream) keeps each queue in order.  Over-waiting is correct
 * there: a queue fence and an event record fence the whole backend (a
 * no-op on host backends, whose work is complete when its call returns),
 * so every recorded event is complete and waiting for one costs nothing.
 *
 * Handles are never freed while the process lives: a destroyed queue or
 * event keeps its memory with its magic cleared, so using it again is
 * KC_EINVAL and never a crash.  A handle is its object's address, so an
 * object given out again would make a stale handle live again, naming
 * somebody else's queue: dead objects wait in a FIFO and are given out
 * again only once KC__HANDLE_REUSE_AFTER others have died after them
 * (creating and destroying in a loop stays within that many objects).
 * The plugin's handles are released with them (queue_destroy,
 * event_destroy), and at the last kc_finalize for those still alive.
 *
 * Every read of an object's fields but its (atomic) magic happens between
 * kc__enter and kc__leave: the last kc_finalize writes them
 * (kc__queues_release) once no call is inside.
 *
 * Pins: a call that hands a queue's or an event's backend handle to a slot
 * holds a pin on the object (under qlock, taken only while it is live), so
 * that a destroy in another thread does not release the handle under a
 * slot still using it (queue_fence and event_synchronize run without the
 * runtime lock and may wait long; cuda's then read a freed stream or
 * event).  A destroy waits for no other thread's call (one of them may be
 * the caller's own, from a profiling tool's fence callback): it marks the
 * object dying, and the last pin's holder releases it.  Launches and
 * copies on a queue take no pin: a queue must not be destroyed while
 * another thread submits to it (kc.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "internal.h"
#include "profiling.h"

#define QUEUE_MAGIC 0x6b637175u /* "kcqu" */
#define EVENT_MAGIC 0x6b636576u /* "kcev" */
#define QUEUE_DYING 1u          /* being destroyed: neither live nor free */
#define EVENT_DYING 1u
/* How many objects must die after a dead one before it is given out
 * again (see the top of the file). */
#define KC__HANDLE_REUSE_AFTER 1024u

struct kc_queue {
  _Atomic unsigned magic;
  int device;
  unsigned instance;   /* 2, 3, ...: the Kokkos Tools instance (profiling.h) */
  unsigned pins;       /* fences in progress (under qlock) */
  void *bq;            /* the backend's queue (queue slots), or NULL */
  kc_queue *next;      /* all queues ever made (live or on the free list) */
  kc_queue *next_dead; /* the dead FIFO (under qlock) */
};

struct kc_event {
  _Atomic unsigned magic;
  unsigned pins; /* calls using `be` (under qlock) */
  int recorded;
  double t_ms; /* no queue slots: CLOCK_MONOTONIC when recorded */
  void *be;    /* the backend's event (queue slots), or NULL */
  kc_event *next;
  kc_event *next_dead;
};

static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static kc_queue *queues;       /* every queue object, under qlock */
static kc_event *events;       /* every event object, under qlock */
static unsigned last_instance; /* under qlock; 0 after kc_finalize */
/* Under qlock: how many live (or dying) queues have each instance number
 * (saturating: UINT8_MAX means "count them"), a bit each for the numbers
 * in use, and the highest number handed out since kc_init. */
static uint8_t instance_count[KC__TOOLS_INSTANCE_LAST + 1];
static uint64_t instance_used[KC__TOOLS_INSTANCE_LAST / 64 + 1];
static unsigned instance_high;
static unsigned said_gen; /* kc__rt.gen of the last "no queue slots" line */
/* Dead objects, oldest first, and how many (under qlock). */
static kc_queue *dead_q, *dead_q_last;
static kc_event *dead_e, *dead_e_last;
static unsigned ndead_q, ndead_e;

void kc__queues_fork_lock(int take) {
  if (take)
    pthread_mutex_lock(&qlock);
  else
    pthread_mutex_unlock(&qlock);
}

/* A dead queue joins the FIFO; qlock held. */
static void instance_free(unsigned n);

static void queue_died(kc_queue *q) {
  instance_free(q->instance);
  q->next_dead = NULL;
  if (dead_q_last)
    dead_q_last->next_dead = q;
  else
    dead_q = q;
  dead_q_last = q;
  ndead_q++;
}

static void event_died(kc_event *e) {
  e->next_dead = NULL;
  if (dead_e_last)
    dead_e_last->next_dead = e;
  else
    dead_e = e;
  dead_e_last = e;
  ndead_e++;
}

/* Queue and event objects are carved from blocks mapped for them alone,
 * never from the malloc heap.  They are never freed, and one taken from
 * the heap stayed where it landed, above whatever the application had
 * allocated just before: freed again, that memory was left below it as a
 * hole later rounds only partly reused.  A service that allocated five
 * buffers of 512 KiB, created a queue and an event and freed everything,
 * per request, grew by 512 KiB a request until dead handles were reused
 * (KC__HANDLE_REUSE_AFTER), to 530 MB (t-longrun).  Zeroed (fresh
 * anonymous pages), a cache line each; qlock held. */
#define HANDLE_BLOCK ((size_t)64 << 10)
#define HANDLE_ALIGN ((size_t)64)
static unsigned char *block_next;
static size_t block_left;

static void *handle_new(size_t size) {
  size = (size + HANDLE_ALIGN - 1) & ~(HANDLE_ALIGN - 1);
  if (block_left < size) {
    void *b = mmap(NULL, HANDLE_BLOCK, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b == MAP_FAILED)
      return NULL;
    block_next = b;
    block_left = HANDLE_BLOCK;
  }
  void *p = block_next;
  block_next += size;
  block_left -= size;
  return p;
}

/* The oldest dead queue, if enough died after it; else a new one (NULL:
 * out of memory).  qlock held. */
static kc_queue *queue_object(void) {
  kc_queue *q = NULL;
  if (ndead_q > KC__HANDLE_REUSE_AFTER) {
    q = dead_q;
    dead_q = q->next_dead;
    if (!dead_q)
      dead_q_last = NULL;
    ndead_q--;
  } else if ((q = handle_new(sizeof *q)) != NULL) {
    q->next = queues;
    queues = q;
  }
  return q;
}

static kc_event *event_object(void) {
  kc_event *e = NULL;
  if (ndead_e > KC__HANDLE_REUSE_AFTER) {
    e = dead_e;
    dead_e = e->next_dead;
    if (!dead_e)
      dead_e_last = NULL;
    ndead_e--;
  } else if ((e = handle_new(sizeof *e)) != NULL) {
    e->next = events;
    events = e;
  }
  return e;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int kc__queue_check(const kc_queue *q, const char *fn) {
  if (q->magic != QUEUE_MAGIC)
    return kc__error(KC_EINVAL, "%s: %p is not a live kc queue", fn,
                     (const void *)q);
  return 0;
}

static int event_check(const kc_event *e, const char *fn) {
  if (!e)
    return kc__error(KC_EINVAL, "%s: event is NULL", fn);
  if (e->magic != EVENT_MAGIC)
    return kc__error(KC_EINVAL, "%s: %p is not a live kc event", fn,
                     (const void *)e);
  return 0;
}

/* A queue argument: NULL is the default queue. */
static int queue_arg(const kc_queue *q, const char *fn) {
  return q ? kc__queue_check(q, fn) : 0;
}

/* The backend's queue or event slot `call`, under the runtime lock. */
#define BACKEND(call)                                                          \
  do {                                                                         \
    pthread_mutex_lock(&kc__rt.lock);                                          \
    call;                                                                      \
    pthread_mutex_unlock(&kc__rt.lock);                                        \
  } while (0)

/* Pins queue q (NULL: the default queue, nothing to pin) while it is live:
 * 0, or KC_EINVAL.  Inside kc__enter. */
static int queue_pin(kc_queue *q, const char *fn) {
  if (!q)
    return 0;
  pthread_mutex_lock(&qlock);
  const int live = q->magic == QUEUE_MAGIC;
  if (live)
    q->pins++;
  pthread_mutex_unlock(&qlock);
  return live ? 0
              : kc__error(KC_EINVAL, "%s: %p is not a live kc queue", fn,
                          (void *)q);
}

/* A dying queue's backend queue goes (its work is done: its destroy
 * fenced it), and the object joins the dead FIFO; inside kc__enter, no
 * lock held. */
static void queue_release(kc_queue *q) {
  if (q->bq)
    BACKEND(KC__SLOT_VOID(kc__rt.ops->queue_destroy(kc__rt.state, q->bq)));
  q->bq = NULL;
  pthread_mutex_lock(&qlock);
  atomic_store(&q->magic, 0u);
  queue_died(q);
  pthread_mutex_unlock(&qlock);
}

/* Ends a pin of queue_pin; the last one of a dying queue releases it. */
static void queue_unpin(kc_queue *q) {
  if (!q)
    return;
  pthread_mutex_lock(&qlock);
  const int last = --q->pins == 0 && q->magic == QUEUE_DYING;
  pthread_mutex_unlock(&qlock);
  if (last)
    queue_release(q);
}

/* kc__enter for the calls that never wait, which also work from inside a
 * kernel: there the launch the kernel runs in keeps kc_finalize out.  1:
 * entered (kc__leave when done), 0: inside a kernel (nothing to leave), or
 * the error. */
static int enter_nowait(const char *fn) {
  if (kc__self.kernel)
    return 0;
  int rc = kc__enter(fn);
  return rc < 0 ? rc : 1;
}

static void leave_nowait(int entered) {
  if (entered)
    kc__leave();
}

/* Whether the backend runs queues itself (all twelve slots: the loader
 * checked). */
static inline int slots(void) {
  return kc__rt.ops && KC__OPS_HAS(kc__rt.ops, queue_create);
}

void *kc__queue_backend(const kc_queue *q) { return q ? q->bq : NULL; }

int kc__queue_launch(const kc_queue *q, const char *fn, void **bq) {
  if (kc__unlikely(q->magic != QUEUE_MAGIC))
    return kc__queue_check(q, fn);
  *bq = q->bq;
  return 0;
}

/* Waits for the backend's work (every queue's): what a queue fence and an
 * event record need while queues share the default one. */
static int backend_fence(void) {
  int rc = 0;
  if (KC__OPS_HAS(kc__rt.ops, fence)) {
    pthread_mutex_lock(&kc__rt.lock);
    rc = KC__SLOT(kc__rt.ops->fence(kc__rt.state));
    pthread_mutex_unlock(&kc__rt.lock);
  }
  return rc;
}

/* Device `device` for call `fn`: in range, and one the backend can drive:
 * the default queue's, or any when it has `several` (queue slots for a
 * queue, mem_alloc_on for an allocation). */
static int device_arg(int device, int several, const char *fn) {
  int count = kc__rt.ndevices;
  if (device < 0 || device >= count)
    return kc__error(KC_EINVAL,
                     "%s: device %d does not exist: backend '%s' has %d "
                     "device(s), 0 to %d",
                     fn, device, kc__rt.name, count, count - 1);
  if (device != kc__rt.cfg.device && !several)
    return kc__error(KC_ENOTSUP,
                     "%s: backend '%s' drives only device %d (KC_DEVICE), "
                     "not device %d",
                     fn, kc__rt.name, kc__rt.cfg.device, device);
  return 0;
}

/* The Kokkos Tools instance of a new queue, qlock held: 2, 3, ... in
 * creation order, as Kokkos numbers an execution space's instances.  Past
 * KC__TOOLS_INSTANCE_LAST the numbers start again at 2 and skip those of
 * live queues, so that a device id names one queue as long as fewer than
 * KC__TOOLS_INSTANCE_LAST - 1 queues live at once (beyond, queues share
 * numbers, and kc__queue_tools_fence fences everything for them).  A
 * bitmap finds the next free number: a scan of the live queues for each
 * candidate number took seconds a queue once all numbers were taken, and
 * counts let a destroy free a shared number without such a scan. */
static void instance_take(unsigned n) {
  if (instance_count[n] < UINT8_MAX)
    instance_count[n]++;
  instance_used[n / 64] |= UINT64_C(1) << (n % 64);
  if (n > instance_high)
    instance_high = n;
}

static unsigned instance_after(unsigned n) {
  return n >= KC__TOOLS_INSTANCE_LAST || n < KC__TOOLS_INSTANCE_DEFAULT
             ? KC__TOOLS_INSTANCE_DEFAULT + 1
             : n + 1;
}

static unsigned new_instance(void) {
  unsigned n = last_instance;
  for (unsigned tries = 0; tries < KC__TOOLS_INSTANCE_LAST - 1; tries++) {
    n = instance_after(n);
    if (n % 64 == 0 && instance_used[n / 64] == UINT64_MAX &&
        n + 63 <= KC__TOOLS_INSTANCE_LAST) {
      n += 63; /* a whole word in use */
      tries += 63;
    } else if (!instance_count[n]) {
      break;
    }
  }
  /* n is free, or else every number is in use and this queue shares the
   * one after the last given. */
  if (instance_count[n])
    n = instance_after(last_instance);
  instance_take(n);
  return last_instance = n;
}

/* A queue with number n died (qlock held, its magic already 0). */
static void instance_free(unsigned n) {
  unsigned c = instance_count[n];
  if (c == UINT8_MAX) {
    c = 0;
    for (const kc_queue *q = queues; q && c < UINT8_MAX; q = q->next) {
      unsigned m = atomic_load(&q->magic);
      c += (m == QUEUE_MAGIC || m == QUEUE_DYING) && q->instance == n;
    }
  } else if (c > 0) {
    c--;
  }
  instance_count[n] = (uint8_t)c;
  if (!c)
    instance_used[n / 64] &= ~(UINT64_C(1) << (n % 64));
}

uint32_t kc__queue_tools_id(const kc_queue *q) {
  return q ? kc__tools_queue_id(q->device, q->instance)
           : kc__tools_queue_id(kc__rt.cfg.device, KC__TOOLS_INSTANCE_DEFAULT);
}

kc_policy kc_policy_on(kc_policy p, kc_queue *q) {
  p.queue = q;
  return p;
}

int kc_queue_create(kc_queue **out, int device) {
  KC__CHECK_INIT("kc_queue_create");
  if (!out)
    return kc__error(KC_EINVAL, "kc_queue_create: out is NULL");
  int rc = kc__out_check("kc_queue_create", "out", out, sizeof *out);
  if (rc < 0)
    return rc;
  *out = NULL;
  rc = kc__enter("kc_queue_create");
  if (rc < 0)
    return rc;
  rc = device_arg(device, KC__OPS_HAS(kc__rt.ops, queue_create),
                  "kc_queue_create");
  void *bq = NULL;
  if (rc == 0 && slots())
    BACKEND(rc = KC__SLOT(kc__rt.ops->queue_create(kc__rt.state, device, &bq)));
  if (rc == 0) {
    pthread_mutex_lock(&qlock);
    kc_queue *q = queue_object();
    if (q) {
      q->device = device;
      q->instance = new_instance();
      q->bq = bq;
      q->magic = QUEUE_MAGIC;
      *out = q;
    }
    int say = q && !bq && said_gen != kc__rt.gen;
    if (say)
      said_gen = kc__rt.gen;
    pthread_mutex_unlock(&qlock);
    if (!q) {
      if (bq)
        BACKEND(KC__SLOT_VOID(kc__rt.ops->queue_destroy(kc__rt.state, bq)));
      rc = kc__error(KC_ENOMEM, "kc_queue_create: out of memory");
    } else if (say) {
      kc__verbose("backend '%s' has no queue slots: every queue runs on the "
                  "default one, in order",
                  kc__rt.name);
    }
  }
  kc__leave();
  return rc;
}

/* The fence of kc_queue_fence and kc_queue_destroy (`fn`), inside
 * kc__enter: the backend's queue fence (without the runtime lock:
 * backend.h), or the whole backend's.  Tools see a fence of this queue,
 * even where the backend waits for more. */
static int queue_fence_entered(const kc_queue *q, const char *fn) {
  uint64_t fid = 0;
  int tools = kc__tools_active;
  if (kc__unlikely(tools))
    kc__tools_begin_queue_fence(fn, kc__queue_tools_id(q), &fid);
  int rc = slots() ? KC__SLOT(kc__rt.ops->queue_fence(kc__rt.state,
                                                      kc__queue_backend(q)))
                   : backend_fence();
  if (kc__unlikely(tools))
    kc__tools_end_fence(fid);
  return rc;
}

int kc__queue_tools_fence(uint32_t devid, int *rc) {
  if (devid == kc__queue_tools_id(NULL)) {
    *rc = kc_queue_fence(NULL);
    return 1;
  }
  if ((*rc = kc__enter("kc_queue_fence")) < 0)
    return 1;
  kc_queue *found = NULL;
  int n = 0;
  pthread_mutex_lock(&qlock);
  for (kc_queue *q = queues; q; q = q->next)
    if (q->magic == QUEUE_MAGIC && kc__queue_tools_id(q) == devid) {
      found = q;
      n++;
    }
  if (n == 1)
    found->pins++;
  pthread_mutex_unlock(&qlock);
  if (n == 1) {
    *rc = queue_fence_entered(found, "kc_queue_fence");
    queue_unpin(found);
  }
  kc__leave();
  return n == 1;
}

int kc_queue_fence(kc_queue *q) {
  KC__CHECK_INIT("kc_queue_fence");
  int rc = queue_arg(q, "kc_queue_fence");
  if (rc < 0)
    return rc;
  rc = kc__enter("kc_queue_fence");
  if (rc < 0)
    return rc;
  /* Checked again inside: the last kc_finalize may have released it. */
  rc = queue_pin(q, "kc_queue_fence");
  if (rc == 0) {
    rc = queue_fence_entered(q, "kc_queue_fence");
    queue_unpin(q);
  }
  kc__leave();
  return rc;
}

/* Refused from inside a kernel before anything happens (the queue stays
 * live); an error of the queue's asynchronous work is returned after the
 * queue is destroyed.  Fences of the queue in other threads (or the fence
 * of another kc_queue_destroy of it) pinned it while it was live: the last
 * of them releases the backend's queue. */
int kc_queue_destroy(kc_queue *q) {
  KC__CHECK_INIT("kc_queue_destroy");
  if (!q)
    return kc__error(KC_EINVAL, "kc_queue_destroy: queue is NULL (the "
                                "default queue cannot be destroyed)");
  int rc = queue_arg(q, "kc_queue_destroy");
  if (rc < 0)
    return rc;
  rc = kc__enter("kc_queue_destroy");
  if (rc < 0)
    return rc;
  int rc2 = queue_pin(q, "kc_queue_destroy");
  if (rc2 < 0) {
    kc__leave();
    return rc2;
  }
  rc = queue_fence_entered(q, "kc_queue_destroy");
  pthread_mutex_lock(&qlock);
  const int won = q->magic == QUEUE_MAGIC;
  if (won)
    atomic_store(&q->magic, QUEUE_DYING);
  pthread_mutex_unlock(&qlock);
  queue_unpin(q);
  kc__leave();
  if (!won)
    return kc__error(KC_EINVAL, "kc_queue_destroy: %p is not a live kc queue",
                     (void *)q);
  return rc;
}

int kc_queue_device(kc_queue *q, int *device) {
  KC__CHECK_INIT("kc_queue_device");
  if (!device)
    return kc__error(KC_EINVAL, "kc_queue_device: device is NULL");
  int rc = kc__out_check("kc_queue_device", "device", device, sizeof *device);
  if (rc < 0)
    return rc;
  int in = enter_nowait("kc_queue_device");
  if (in < 0)
    return in;
  rc = queue_arg(q, "kc_queue_device");
  if (rc == 0)
    *device = q ? q->device : kc__rt.cfg.device;
  leave_nowait(in);
  return rc;
}

/* The last kc_finalize, runtime lock held, after the fence: queues and
 * events still alive die, with their backend handles. */
void kc__queues_release(void) {
  const kc_backend_ops *ops = kc__rt.ops;
  pthread_mutex_lock(&qlock);
  unsigned n = 0;
  for (kc_queue *q = queues; q; q = q->next) {
    if (atomic_exchange(&q->magic, 0u) == QUEUE_MAGIC) {
      n++;
      queue_died(q);
    }
    if (q->bq)
      KC__SLOT_VOID(ops->queue_destroy(kc__rt.state, q->bq));
    q->bq = NULL;
  }
  for (kc_event *e = events; e; e = e->next) {
    if (atomic_exchange(&e->magic, 0u) == EVENT_MAGIC)
      event_died(e);
    if (e->be)
      KC__SLOT_VOID(ops->event_destroy(kc__rt.state, e->be));
    e->be = NULL;
  }
  last_instance = 0;
  memset(instance_count, 0, instance_high + 1);
  memset(instance_used, 0, (instance_high / 64 + 1) * sizeof(uint64_t));
  instance_high = 0;
  pthread_mutex_unlock(&qlock);
  if (n)
    kc__verbose("kc_finalize: destroyed %u queue(s) still live", n);
}

int kc_memcpy_on(kc_queue *q, void *dst, const void *src, size_t bytes) {
  KC__CHECK_INIT("kc_memcpy_on");
  int rc = kc__enter("kc_memcpy_on");
  if (rc < 0)
    return rc;
  rc = queue_arg(q, "kc_memcpy_on");
  if (rc == 0)
    rc = kc__memcpy("kc_memcpy_on", kc__queue_backend(q), dst, src, bytes, 1);
  kc__leave();
  return rc;
}

int kc_memset_on(kc_queue *q, void *p, int value, size_t bytes) {
  KC__CHECK_INIT("kc_memset_on");
  int rc = kc__enter("kc_memset_on");
  if (rc < 0)
    return rc;
  rc = queue_arg(q, "kc_memset_on");
  if (rc == 0)
    rc = kc__memset("kc_memset_on", kc__queue_backend(q), p, value, bytes);
  kc__leave();
  return rc;
}

int kc_event_create(kc_event **out) {
  KC__CHECK_INIT("kc_event_create");
  if (!out)
    return kc__error(KC_EINVAL, "kc_event_create: out is NULL");
  int rc = kc__out_check("kc_event_create", "out", out, sizeof *out);
  if (rc < 0)
    return rc;
  *out = NULL;
  rc = kc__enter("kc_event_create");
  if (rc < 0)
    return rc;
  void *be = NULL;
  if (slots())
    BACKEND(rc = KC__SLOT(kc__rt.ops->event_create(kc__rt.state, &be)));
  kc_event *e = NULL;
  if (rc == 0) {
    pthread_mutex_lock(&qlock);
    e = event_object();
    if (e) {
      e->recorded = 0;
      e->t_ms = 0;
      e->be = be;
      e->magic = EVENT_MAGIC;
    }
    pthread_mutex_unlock(&qlock);
    if (!e) {
      if (be)
        BACKEND(KC__SLOT_VOID(kc__rt.ops->event_destroy(kc__rt.state, be)));
      rc = kc__error(KC_ENOMEM, "kc_event_create: out of memory");
    }
  }
  kc__leave();
  if (rc == 0)
    *out = e;
  return rc;
}

/* A dead event's backend handle goes, and the object joins the dead FIFO;
 * inside kc__enter, no lock held. */
static void event_release(kc_event *e, void *be) {
  if (be)
    BACKEND(KC__SLOT_VOID(kc__rt.ops->event_destroy(kc__rt.state, be)));
  pthread_mutex_lock(&qlock);
  atomic_store(&e->magic, 0u);
  event_died(e);
  pthread_mutex_unlock(&qlock);
}

/* The backend handle of event e for `fn`, pinned (event_unpin when done)
 * where there is one, while e is live: 0 (*be NULL without a backend
 * event), KC_EINVAL, or, from inside a kernel (`entered` 0, enter_nowait),
 * the refusal of every call that would use a backend slot there. */
static int event_pin(kc_event *e, int entered, const char *fn, void **be) {
  pthread_mutex_lock(&qlock);
  const int live = e->magic == EVENT_MAGIC;
  *be = live ? e->be : NULL;
  if (*be && entered)
    e->pins++;
  pthread_mutex_unlock(&qlock);
  if (!live)
    return kc__error(KC_EINVAL, "%s: %p is not a live kc event", fn, (void *)e);
  if (*be && !entered) {
    *be = NULL;
    return kc__nested(fn);
  }
  return 0;
}

/* Ends a pin of event_pin; the last one of a destroyed event releases it. */
static void event_unpin(kc_event *e) {
  void *be = NULL;
  pthread_mutex_lock(&qlock);
  const int last = --e->pins == 0 && e->magic == EVENT_DYING;
  if (last) {
    be = e->be;
    e->be = NULL;
  }
  pthread_mutex_unlock(&qlock);
  if (last)
    event_release(e, be);
}

/* Another thread's call may still use the event's backend handle (a pin):
 * the last of them releases it, so this never waits. */
int kc_event_destroy(kc_event *e) {
  KC__CHECK_INIT("kc_event_destroy");
  int rc = event_check(e, "kc_event_destroy");
  if (rc < 0)
    return rc;
  if ((rc = kc__enter("kc_event_destroy")) < 0)
    return rc;
  void *be = NULL;
  pthread_mutex_lock(&qlock);
  const int live = e->magic == EVENT_MAGIC;
  const int now = live && e->pins == 0;
  if (live)
    atomic_store(&e->magic, EVENT_DYING);
  if (now) {
    be = e->be;
    e->be = NULL;
  }
  pthread_mutex_unlock(&qlock);
  if (now)
    event_release(e, be);
  kc__leave();
  if (!live)
    return kc__error(KC_EINVAL, "kc_event_destroy: %p is not a live kc event",
                     (void *)e);
  return 0;
}

int kc_event_record(kc_event *e, kc_queue *q) {
  KC__CHECK_INIT("kc_event_record");
  int rc = event_check(e, "kc_event_record");
  if (rc == 0)
    rc = queue_arg(q, "kc_event_record");
  if (rc < 0)
    return rc;
  rc = kc__enter("kc_event_record");
  if (rc < 0)
    return rc;
  /* Checked again inside: the last kc_finalize may have released them. */
  void *be = NULL;
  rc = event_pin(e, 1, "kc_event_record", &be);
  if (rc == 0)
    rc = queue_arg(q, "kc_event_record");
  double t = 0;
  if (rc == 0 && be) {
    BACKEND(rc = KC__SLOT(kc__rt.ops->event_record(kc__rt.state, be,
                                                   kc__queue_backend(q))));
  } else if (rc == 0) {
    rc = backend_fence();
    t = now_ms();
  }
  if (rc == 0) {
    /* Another thread may record or time the same event meanwhile. */
    pthread_mutex_lock(&qlock);
    e->t_ms = t;
    e->recorded = 1;
    pthread_mutex_unlock(&qlock);
  }
  if (be)
    event_unpin(e);
  kc__leave();
  return rc;
}

/* Checks a live event (and queue) where kc_finalize cannot release them
 * meanwhile (enter_nowait); what enter_nowait returned, or the error with
 * nothing left to leave. */
static int entered_event(const char *fn, const kc_event *e, const kc_queue *q) {
  int in = enter_nowait(fn);
  if (in < 0)
    return in;
  int rc = event_check(e, fn);
  if (rc == 0)
    rc = queue_arg(q, fn);
  if (rc < 0) {
    leave_nowait(in);
    return rc;
  }
  return in;
}

int kc_event_wait(kc_queue *q, kc_event *e) {
  KC__CHECK_INIT("kc_event_wait");
  int rc = event_check(e, "kc_event_wait");
  if (rc == 0)
    rc = queue_arg(q, "kc_event_wait");
  if (rc < 0)
    return rc;
  int in = entered_event("kc_event_wait", e, q);
  if (in < 0)
    return in;
  /* Without a backend event, recorded events are complete
   * (kc_event_record fenced). */
  void *be = NULL;
  rc = event_pin(e, in, "kc_event_wait", &be);
  if (be) {
    BACKEND(rc = KC__SLOT(kc__rt.ops->event_wait(kc__rt.state,
                                                 kc__queue_backend(q), be)));
    event_unpin(e);
  }
  leave_nowait(in);
  return rc;
}

int kc_event_synchronize(kc_event *e) {
  KC__CHECK_INIT("kc_event_synchronize");
  int rc = event_check(e, "kc_event_synchronize");
  if (rc < 0)
    return rc;
  int in = entered_event("kc_event_synchronize", e, NULL);
  if (in < 0)
    return in;
  /* Without the runtime lock (backend.h): other threads submit meanwhile,
   * and may destroy the event (the pin keeps its handle). */
  void *be = NULL;
  rc = event_pin(e, in, "kc_event_synchronize", &be);
  if (be) {
    rc = KC__SLOT(kc__rt.ops->event_synchronize(kc__rt.state, be));
    event_unpin(e);
  }
  leave_nowait(in);
  return rc;
}

int kc_event_query(kc_event *e) {
  KC__CHECK_INIT("kc_event_query");
  int rc = event_check(e, "kc_event_query");
  if (rc < 0)
    return rc;
  int in = entered_event("kc_event_query", e, NULL);
  if (in < 0)
    return in;
  void *be = NULL;
  rc = event_pin(e, in, "kc_event_query", &be);
  if (rc == 0)
    rc = 1;
  if (be) {
    BACKEND(rc = KC__SLOT_UPTO(kc__rt.ops->event_query(kc__rt.state, be), 1));
    event_unpin(e);
  }
  leave_nowait(in);
  return rc;
}

int kc_event_elapsed(kc_event *start, kc_event *end, double *ms) {
  KC__CHECK_INIT("kc_event_elapsed");
  int rc = event_check(start, "kc_event_elapsed");
  if (rc == 0)
    rc = event_check(end, "kc_event_elapsed");
  if (rc < 0)
    return rc;
  if (!ms)
    return kc__error(KC_EINVAL, "kc_event_elapsed: ms is NULL");
  if ((rc = kc__out_check("kc_event_elapsed", "ms", ms, sizeof *ms)) < 0)
    return rc;
  int in = entered_event("kc_event_elapsed", start, NULL);
  if (in < 0)
    return in;
  void *b0 = NULL, *b1 = NULL;
  rc = event_pin(start, in, "kc_event_elapsed", &b0);
  if (rc == 0)
    rc = event_pin(end, in, "kc_event_elapsed", &b1);
  if (rc == 0) {
    pthread_mutex_lock(&qlock);
    const int recorded = start->recorded && end->recorded;
    const char *never = start->recorded ? "end" : "start";
    const double t = end->t_ms - start->t_ms;
    pthread_mutex_unlock(&qlock);
    if (!recorded)
      rc = kc__error(KC_EINVAL,
                     "kc_event_elapsed: the %s event was never "
                     "recorded",
                     never);
    else if (!b0 || !b1)
      *ms = t;
    else
      BACKEND(
          rc = KC__SLOT(kc__rt.ops->event_elapsed(kc__rt.state, b0, b1, ms)));
  }
  if (b0)
    event_unpin(start);
  if (b1)
    event_unpin(end);
  leave_nowait(in);
  return rc;
}

int kc_malloc_on(void **out, size_t bytes, kc_space space, int device,
                 const char *label) {
  int rc = kc__enter("kc_malloc_on");
  if (rc < 0)
    return rc;
  if (rc == 0)
    rc = device_arg(device, KC__OPS_HAS(kc__rt.ops, mem_alloc_on),
                    "kc_malloc_on");
  if (rc == 0)
    rc = kc__malloc_on(out, bytes, space, device, label);
  kc__leave();
  return rc;
}

int kc_pointer_device(const void *p, int *device) {
  KC__CHECK_INIT("kc_pointer_device");
  if (!device)
    return kc__error(KC_EINVAL, "kc_pointer_device: device is NULL");
  int rc = kc__out_check("kc_pointer_device", "device", device, sizeof *device);
  if (rc < 0)
    return rc;
  rc = kc__enter("kc_pointer_device");
  if (rc < 0)
    return rc;
  int found = kc__memory_device_of(p, device);
  kc__leave();
  if (!found)
    return kc__error(KC_ENOTKC,
                     "kc_pointer_device: %p is not inside a live kc "
                     "allocation",
                     p);
  return 0;
}
