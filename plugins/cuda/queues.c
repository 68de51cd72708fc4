/* kc CUDA plugin — queues and events (backend ABI 1.1).
 *
 * A queue is a lane (plugin.h): a stream of its own with its own reduction
 * scratch, result slot, level-1 scratch and staging ring, so that two
 * queues share no buffer and their work may overlap on the device.  Its
 * handle is the lane itself, on its device (lane->dev).  An event holds a
 * CUevent (with timing) for each device it was recorded on (below); a
 * queue of any device may wait for it.
 *
 * queue_fence and event_synchronize run without the core's runtime lock
 * (backend.h): they touch only their own stream or event, never s->cur,
 * and make the context current on the calling thread themselves.
 */
#include <config.h>

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

static kc__cuda_lane *lane_of(kc__cuda_state *s, void *queue) {
  return queue ? (kc__cuda_lane *)queue : &s->main;
}

/* An event: a CUevent per device it was recorded on (CUDA records an event
 * only on a stream of its own context), made at the first record there and
 * kept until the event is destroyed, so that a thread waiting for the
 * event while another records it on another device never meets a freed
 * CUevent; `cur` is the device of the latest record. */
typedef struct event {
  kc__cuda_state *top;
  _Atomic int cur;
  CUevent e[]; /* by device ordinal, top->ndev of them; NULL: not made */
} event;
int kc__cuda_queue_create(void *state, int device, void **queue) {
  kc__cuda_state *s;
  int rc = kc__cuda_device(state, device, &s);
  if (rc == 0)
    rc = kc__cuda_up(s);
  if (rc)
    return rc;
  kc__cuda_lane *L = calloc(1, sizeof *L);
  if (!L)
    return kc_backend_error(KC_ENOMEM, "cuda: out of memory for a queue");
  if ((rc = kc__cuda_lane_open(s, L, CU_STREAM_NON_BLOCKING)) != 0) {
    free(L);
    return rc;
  }
  L->dev = s;
  *queue = L;
  return 0;
}

void kc__cuda_queue_destroy(void *state, void *queue) {
  kc__cuda_lane *L = queue;
  (void)state;
  if (!L)
    return;
  kc__cuda_state *s = L->dev;
  /* The core fenced the queue just before; a fault found now is the
   * device's all the same.  The slot cannot return it: kc__cuda_fail
   * remembers a fault, which every later call then reports. */
  CUresult r = CUDA_SUCCESS;
  if (!s->sticky && kc__cuda_current(s) == 0)
    r = s->cu->cuStreamSynchronize(L->stream);
  if (r != CUDA_SUCCESS)
    kc__cuda_fail(s, r, KC_EDEVICE, "cuStreamSynchronize destroying a queue");
  if (s->cur == L)
    s->cur = &s->main;
  kc__cuda_lane_close(s, L);
  free(L);
}

int kc__cuda_queue_fence(void *state, void *queue) {
  kc__cuda_lane *L = lane_of(state, queue);
  kc__cuda_state *s = L->dev;
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  CUresult r = s->cu->cuStreamSynchronize(L->stream);
  return r ? kc__cuda_fail(s, r, KC_EDEVICE, "cuStreamSynchronize") : 0;
}

/* Event ev's CUevent on device s, made if it is not there yet. */
static int event_on(event *ev, kc__cuda_state *s, CUevent *out) {
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  if (!ev->e[s->ordinal]) {
    CUresult r = s->cu->cuEventCreate(&ev->e[s->ordinal], 0);
    if (r != CUDA_SUCCESS) {
      ev->e[s->ordinal] = NULL;
      return kc__cuda_fail(s, r, KC_ENOMEM, "cuEventCreate");
    }
  }
  *out = ev->e[s->ordinal];
  return 0;
}

/* The device and CUevent of ev's latest record (or of its creation). */
static kc__cuda_state *event_latest(const event *ev, CUevent *e) {
  const int d =
      atomic_load_explicit((_Atomic int *)&ev->cur, memory_order_acquire);
  *e = ev->e[d];
  return ev->top->devs[d];
}

int kc__cuda_event_create(void *state, void **out) {
  kc__cuda_state *top = state;
  event *ev = calloc(1, sizeof *ev + (size_t)top->ndev * sizeof(CUevent));
  if (!ev)
    return kc_backend_error(KC_ENOMEM, "cuda: out of memory for an event");
  ev->top = top;
  atomic_init(&ev->cur, top->ordinal);
  CUevent e;
  int rc = event_on(ev, top, &e);
  if (rc) {
    free(ev);
    return rc;
  }
  *out = ev;
  return 0;
}

void kc__cuda_event_destroy(void *state, void *handle) {
  event *ev = handle;
  (void)state;
  if (!ev)
    return;
  for (int d = 0; d < ev->top->ndev; d++) {
    kc__cuda_state *s = ev->top->devs[d];
    if (ev->e[d] && s && kc__cuda_current(s) == 0)
      s->cu->cuEventDestroy(ev->e[d]);
  }
  free(ev);
}

int kc__cuda_event_record(void *state, void *handle, void *queue) {
  event *ev = handle;
  kc__cuda_lane *L = lane_of(state, queue);
  kc__cuda_state *s = L->dev;
  CUevent e = NULL; /* set by event_on (-O3 cannot see it) */
  int rc = event_on(ev, s, &e);
  if (rc)
    return rc;
  CUresult r = s->cu->cuEventRecord(e, L->stream);
  if (r != CUDA_SUCCESS)
    return kc__cuda_fail(s, r, KC_EDEVICE, "cuEventRecord");
  atomic_store_explicit(&ev->cur, s->ordinal, memory_order_release);
  return 0;
}

int kc__cuda_event_wait(void *state, void *queue, void *handle) {
  kc__cuda_lane *L = lane_of(state, queue);
  kc__cuda_state *s = L->dev;
  CUevent e;
  event_latest(handle, &e);
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  CUresult r = s->cu->cuStreamWaitEvent(L->stream, e, 0);
  return r ? kc__cuda_fail(s, r, KC_EDEVICE, "cuStreamWaitEvent") : 0;
}

int kc__cuda_event_synchronize(void *state, void *handle) {
  CUevent e;
  kc__cuda_state *s = event_latest(handle, &e);
  (void)state;
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  CUresult r = s->cu->cuEventSynchronize(e);
  return r ? kc__cuda_fail(s, r, KC_EDEVICE, "cuEventSynchronize") : 0;
}

int kc__cuda_event_query(void *state, void *handle) {
  CUevent e;
  kc__cuda_state *s = event_latest(handle, &e);
  (void)state;
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  CUresult r = s->cu->cuEventQuery(e);
  if (r == CUDA_SUCCESS)
    return 1;
  if (r == CUDA_ERROR_NOT_READY)
    return 0;
  return kc__cuda_fail(s, r, KC_EDEVICE, "cuEventQuery");
}

int kc__cuda_event_elapsed(void *state, void *start, void *end, double *ms) {
  CUevent c0, c1;
  kc__cuda_state *s = event_latest(start, &c0), *s1 = event_latest(end, &c1);
  (void)state;
  if (s != s1)
    return kc_backend_error(KC_EINVAL,
                            "cuda: kc_event_elapsed: the events were recorded "
                            "on devices %d and %d; time events of one device",
                            s->ordinal, s1->ordinal);
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  float t = 0;
  CUresult r = s->cu->cuEventElapsedTime(&t, c0, c1);
  if (r == CUDA_ERROR_NOT_READY)
    return kc_backend_error(KC_EINVAL, "cuda: kc_event_elapsed: an event "
                                       "has not completed yet "
                                       "(kc_event_synchronize first)");
  if (r != CUDA_SUCCESS)
    return kc__cuda_fail(s, r, KC_EINVAL, "cuEventElapsedTime");
  /* Negative when `end` completed before `start`, as on the host
   * backends. */
  if (!isfinite(t))
    return kc_backend_error(KC_EDEVICE,
                            "cuda: kc_event_elapsed: cuEventElapsedTime "
                            "reported %g ms, which is not a time between "
                            "two events",
                            (double)t);
  *ms = t;
  return 0;
}

int kc__cuda_mem_copy_on(void *state, void *queue, void *dst,
                         kc_space dst_space, const void *src,
                         kc_space src_space, size_t bytes) {
  kc__cuda_lane *L = lane_of(state, queue);
  return kc__cuda_copy(L->dev, L, dst, dst_space, src, src_space, bytes, 1);
}

int kc__cuda_mem_set_on(void *state, void *queue, void *p, kc_space space,
                        int value, size_t bytes) {
  kc__cuda_lane *L = lane_of(state, queue);
  return kc__cuda_set(L->dev, L, p, space, value, bytes, 1);
}
