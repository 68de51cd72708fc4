/* kc CUDA plugin — queues and events (backend ABI 1.1).
 *
 * A queue is a lane (plugin.h): a stream of its own with its own reduction
 * scratch, result slot, level-1 scratch and staging ring, so that two
 * queues share no buffer and their work may overlap on the device.  Its
 * handle is the lane itself, on its device (lane->dev).  An event is a
 * CUevent (with timing) of the device it was last recorded on: recording
 * it on another device's queue makes it anew there (CUDA records an event
 * only on a stream of its own context); a queue of any device may wait
 * for it.
 *
 * queue_fence and event_synchronize run without the core's runtime lock
 * (backend.h): they touch only their own stream or event, never s->cur,
 * and make the context current on the calling thread themselves.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

static kc__cuda_lane *lane_of(kc__cuda_state *s, void *queue) {
  return queue ? (kc__cuda_lane *)queue : &s->main;
}

typedef struct event {
  CUevent e;
  kc__cuda_state *dev; /* whose context e belongs to */
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
  if ((rc = kc__cuda_lane_open(s, L)) != 0) {
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
  if (!s->sticky && kc__cuda_current(s) == 0)
    s->cu->cuStreamSynchronize(L->stream);
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

/* A new CUevent in device s's context into ev. */
static int event_make(kc__cuda_state *s, event *ev) {
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  CUresult r = s->cu->cuEventCreate(&ev->e, 0);
  if (r != CUDA_SUCCESS)
    return kc__cuda_fail(s, r, KC_ENOMEM, "cuEventCreate");
  ev->dev = s;
  return 0;
}

static void event_unmake(event *ev) {
  if (ev->e && kc__cuda_current(ev->dev) == 0)
    ev->dev->cu->cuEventDestroy(ev->e);
  ev->e = NULL;
}

int kc__cuda_event_create(void *state, void **out) {
  event *ev = calloc(1, sizeof *ev);
  if (!ev)
    return kc_backend_error(KC_ENOMEM, "cuda: out of memory for an event");
  int rc = event_make(state, ev);
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
  if (ev) {
    event_unmake(ev);
    free(ev);
  }
}

int kc__cuda_event_record(void *state, void *handle, void *queue) {
  event *ev = handle;
  kc__cuda_lane *L = lane_of(state, queue);
  kc__cuda_state *s = L->dev;
  int rc;
  if (ev->dev != s) { /* last recorded on another device */
    event fresh = {0};
    if ((rc = event_make(s, &fresh)) != 0)
      return rc;
    event_unmake(ev);
    *ev = fresh;
  }
  if ((rc = kc__cuda_up(s)) != 0)
    return rc;
  CUresult r = s->cu->cuEventRecord(ev->e, L->stream);
  return r ? kc__cuda_fail(s, r, KC_EDEVICE, "cuEventRecord") : 0;
}

int kc__cuda_event_wait(void *state, void *queue, void *handle) {
  event *ev = handle;
  kc__cuda_lane *L = lane_of(state, queue);
  kc__cuda_state *s = L->dev;
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  CUresult r = s->cu->cuStreamWaitEvent(L->stream, ev->e, 0);
  return r ? kc__cuda_fail(s, r, KC_EDEVICE, "cuStreamWaitEvent") : 0;
}

int kc__cuda_event_synchronize(void *state, void *handle) {
  event *ev = handle;
  kc__cuda_state *s = ev->dev;
  (void)state;
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  CUresult r = s->cu->cuEventSynchronize(ev->e);
  return r ? kc__cuda_fail(s, r, KC_EDEVICE, "cuEventSynchronize") : 0;
}

int kc__cuda_event_query(void *state, void *handle) {
  event *ev = handle;
  kc__cuda_state *s = ev->dev;
  (void)state;
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  CUresult r = s->cu->cuEventQuery(ev->e);
  if (r == CUDA_SUCCESS)
    return 1;
  if (r == CUDA_ERROR_NOT_READY)
    return 0;
  return kc__cuda_fail(s, r, KC_EDEVICE, "cuEventQuery");
}

int kc__cuda_event_elapsed(void *state, void *start, void *end, double *ms) {
  const event *e0 = start, *e1 = end;
  kc__cuda_state *s = e0->dev;
  (void)state;
  if (e0->dev != e1->dev)
    return kc_backend_error(KC_EINVAL,
                            "cuda: kc_event_elapsed: the events were recorded "
                            "on devices %d and %d; time events of one device",
                            e0->dev->ordinal, e1->dev->ordinal);
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  float t = 0;
  CUresult r = s->cu->cuEventElapsedTime(&t, e0->e, e1->e);
  if (r == CUDA_ERROR_NOT_READY)
    return kc_backend_error(KC_EINVAL, "cuda: kc_event_elapsed: an event "
                                       "has not completed yet "
                                       "(kc_event_synchronize first)");
  if (r != CUDA_SUCCESS)
    return kc__cuda_fail(s, r, KC_EINVAL, "cuEventElapsedTime");
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
