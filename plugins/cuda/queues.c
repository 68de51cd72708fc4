/* kc CUDA plugin — queues and events (backend ABI 1.1).
 *
 * A queue is a lane (plugin.h): a stream of its own with its own reduction
 * scratch, result slot, level-1 scratch and staging ring, so that two
 * queues share no buffer and their work may overlap on the device.  Its
 * handle is the lane itself.  An event is a CUevent (with timing).
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

int kc__cuda_queue_create(void *state, int device, void **queue) {
  kc__cuda_state *s = state;
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  if (device != s->ordinal)
    return kc_backend_error(KC_ENOTSUP,
                            "cuda: this backend drives device %d only, not "
                            "device %d",
                            s->ordinal, device);
  kc__cuda_lane *L = calloc(1, sizeof *L);
  if (!L)
    return kc_backend_error(KC_ENOMEM, "cuda: out of memory for a queue");
  if ((rc = kc__cuda_lane_open(s, L)) != 0) {
    free(L);
    return rc;
  }
  *queue = L;
  return 0;
}

void kc__cuda_queue_destroy(void *state, void *queue) {
  kc__cuda_state *s = state;
  kc__cuda_lane *L = queue;
  if (!L)
    return;
  if (!s->sticky && kc__cuda_current(s) == 0)
    s->cu->cuStreamSynchronize(L->stream);
  if (s->cur == L)
    s->cur = &s->main;
  kc__cuda_lane_close(s, L);
  free(L);
}

int kc__cuda_queue_fence(void *state, void *queue) {
  kc__cuda_state *s = state;
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  CUresult r = s->cu->cuStreamSynchronize(lane_of(s, queue)->stream);
  return r ? kc__cuda_fail(s, r, KC_EDEVICE, "cuStreamSynchronize") : 0;
}

int kc__cuda_event_create(void *state, void **event) {
  kc__cuda_state *s = state;
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  CUevent e = NULL;
  CUresult r = s->cu->cuEventCreate(&e, 0);
  if (r != CUDA_SUCCESS)
    return kc__cuda_fail(s, r, KC_ENOMEM, "cuEventCreate");
  *event = e;
  return 0;
}

void kc__cuda_event_destroy(void *state, void *event) {
  kc__cuda_state *s = state;
  if (event && kc__cuda_current(s) == 0)
    s->cu->cuEventDestroy((CUevent)event);
}

int kc__cuda_event_record(void *state, void *event, void *queue) {
  kc__cuda_state *s = state;
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  CUresult r = s->cu->cuEventRecord((CUevent)event, lane_of(s, queue)->stream);
  return r ? kc__cuda_fail(s, r, KC_EDEVICE, "cuEventRecord") : 0;
}

int kc__cuda_event_wait(void *state, void *queue, void *event) {
  kc__cuda_state *s = state;
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  CUresult r =
      s->cu->cuStreamWaitEvent(lane_of(s, queue)->stream, (CUevent)event, 0);
  return r ? kc__cuda_fail(s, r, KC_EDEVICE, "cuStreamWaitEvent") : 0;
}

int kc__cuda_event_synchronize(void *state, void *event) {
  kc__cuda_state *s = state;
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  CUresult r = s->cu->cuEventSynchronize((CUevent)event);
  return r ? kc__cuda_fail(s, r, KC_EDEVICE, "cuEventSynchronize") : 0;
}

int kc__cuda_event_query(void *state, void *event) {
  kc__cuda_state *s = state;
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  CUresult r = s->cu->cuEventQuery((CUevent)event);
  if (r == CUDA_SUCCESS)
    return 1;
  if (r == CUDA_ERROR_NOT_READY)
    return 0;
  return kc__cuda_fail(s, r, KC_EDEVICE, "cuEventQuery");
}

int kc__cuda_event_elapsed(void *state, void *start, void *end, double *ms) {
  kc__cuda_state *s = state;
  int rc = kc__cuda_up(s);
  if (rc)
    return rc;
  float t = 0;
  CUresult r = s->cu->cuEventElapsedTime(&t, (CUevent)start, (CUevent)end);
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
  kc__cuda_state *s = state;
  return kc__cuda_copy(s, lane_of(s, queue), dst, dst_space, src, src_space,
                       bytes, 1);
}

int kc__cuda_mem_set_on(void *state, void *queue, void *p, kc_space space,
                        int value, size_t bytes) {
  kc__cuda_state *s = state;
  return kc__cuda_set(s, lane_of(s, queue), p, space, value, bytes, 1);
}
