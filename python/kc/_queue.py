"""Queues and events (doc/queues.md): kc.Queue, kc.Event, kc.on."""

import ctypes

from . import _runtime
from ._array import _ptr_and_nbytes
from ._errors import check, by_code, byte_value, to_c
from ._lib import lib as L, Policy as _Policy


class Queue:
    """An in-order stream of work on one device (kc_queue).  Launch on it
    with a policy from q.on(policy) (or kc.on(policy, q)); copy and fill
    on it with q.memcpy / q.memset.  q.fence() waits for its work;
    q.destroy(), leaving a `with` block, or the object's collection waits
    and destroys it."""

    def __init__(self, device=None):
        if device is None:
            d = ctypes.c_int(0)
            check(L.kc_queue_device(None, ctypes.byref(d)), "kc_queue_device")
            device = d.value
        h = ctypes.c_void_p()
        check(L.kc_queue_create(ctypes.byref(h),
                                to_c(device, "int", "kc.Queue: device")),
              "kc_queue_create")
        self._h = h.value
        self._session = _runtime.session_id()

    @property
    def handle(self):
        """The kc_queue * as an int (None once destroyed)."""
        return self._h

    def _live(self):
        if self._h is None or self._session != _runtime.session_id():
            raise by_code[-1](-1, "kc.Queue: the queue was destroyed (or kc "
                              "was finalised since it was made)")
        return self._h

    @property
    def device(self):
        d = ctypes.c_int(-1)
        check(L.kc_queue_device(self._live(), ctypes.byref(d)),
              "kc_queue_device")
        return d.value

    def on(self, policy):
        """A copy of `policy` (a kc.range_/mdrange/team result) on this
        queue."""
        if type(policy) is not _Policy:
            from ._kernel import _policy
            policy = _policy(policy)
        p = _Policy()
        ctypes.pointer(p)[0] = policy
        p.queue = self._live()
        # The policy holds the queue: a temporary Queue would otherwise be
        # destroyed here, its handle left in the policy.
        p._kc_queue = self
        return p

    def memcpy(self, dst, src, nbytes=None):
        """kc_memcpy_on: asynchronous on a device, ordered on this queue.
        dst and src are kc.Arrays, numpy / CuPy arrays or torch tensors;
        nbytes defaults to the smaller of the two."""
        d, dn = _ptr_and_nbytes(dst, write=True)
        s, sn = _ptr_and_nbytes(src)
        n = min(dn, sn) if nbytes is None else to_c(
            nbytes, "size_t", "kc.Queue.memcpy: nbytes")
        if n > dn or n > sn:
            raise by_code[-1](-1, "kc.Queue.memcpy: %d bytes, but dst has %d "
                              "and src %d" % (n, dn, sn))
        check(L.kc_memcpy_on(self._live(), d, s, n), "kc_memcpy_on")

    def memset(self, dst, value, nbytes=None):
        """kc_memset_on: fills bytes of dst with value (-128 to 255) on this
        queue."""
        value = byte_value(value, "kc.Queue.memset")
        d, dn = _ptr_and_nbytes(dst, write=True)
        n = dn if nbytes is None else to_c(nbytes, "size_t",
                                           "kc.Queue.memset: nbytes")
        if n > dn:
            raise by_code[-1](-1, "kc.Queue.memset: %d bytes, but dst has %d"
                              % (n, dn))
        check(L.kc_memset_on(self._live(), d, value, n), "kc_memset_on")

    def fence(self):
        check(L.kc_queue_fence(self._live()), "kc_queue_fence")

    def destroy(self):
        """Waits for the queue's work and destroys it; later calls are
        no-ops."""
        h, self._h = self._h, None
        if h is not None and self._session == _runtime.session_id() and \
                L.kc_is_initialized():
            check(L.kc_queue_destroy(h), "kc_queue_destroy")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()

    def __del__(self):
        try:
            self.destroy()
        except Exception:
            pass


def _queue(queue, what):
    """The handle of `queue`, a live kc.Queue or None (the default
    queue)."""
    if queue is None:
        return None
    if not isinstance(queue, Queue):
        raise by_code[-1](-1, "%s takes a kc.Queue or None, not %s" %
                          (what, type(queue).__name__))
    return queue._live()


def on(policy, queue):
    """kc_policy_on: `policy` on `queue` (None: the default queue)."""
    _queue(queue, "kc.on")
    if queue is None:
        from ._kernel import _policy
        p = _Policy()
        ctypes.pointer(p)[0] = _policy(policy)
        p.queue = None
        return p
    return queue.on(policy)


class Event:
    """A point in a queue's stream (kc_event).  e.record(q) marks the work
    submitted to q so far; e.wait(q2) makes q2 wait for it without blocking
    Python; e.synchronize() blocks; e.query() says whether it has happened;
    e.elapsed(end) gives the milliseconds between two recorded events."""

    def __init__(self):
        h = ctypes.c_void_p()
        check(L.kc_event_create(ctypes.byref(h)), "kc_event_create")
        self._h = h.value
        self._session = _runtime.session_id()

    def _live(self):
        if self._h is None or self._session != _runtime.session_id():
            raise by_code[-1](-1, "kc.Event: the event was destroyed (or kc "
                              "was finalised since it was made)")
        return self._h

    def record(self, queue=None):
        check(L.kc_event_record(self._live(),
                                _queue(queue, "kc.Event.record")),
              "kc_event_record")
        return self

    def wait(self, queue=None):
        check(L.kc_event_wait(_queue(queue, "kc.Event.wait"), self._live()),
              "kc_event_wait")

    def synchronize(self):
        check(L.kc_event_synchronize(self._live()), "kc_event_synchronize")

    def query(self):
        return check(L.kc_event_query(self._live()), "kc_event_query") == 1

    def elapsed(self, end):
        """Milliseconds from this event to `end` (both recorded and
        complete)."""
        if not isinstance(end, Event):
            raise by_code[-1](-1, "kc.Event.elapsed takes the end kc.Event, "
                              "not %s" % type(end).__name__)
        ms = ctypes.c_double(0)
        check(L.kc_event_elapsed(self._live(), end._live(), ctypes.byref(ms)),
              "kc_event_elapsed")
        return ms.value

    def destroy(self):
        h, self._h = self._h, None
        if h is not None and self._session == _runtime.session_id() and \
                L.kc_is_initialized():
            check(L.kc_event_destroy(h), "kc_event_destroy")

    def __del__(self):
        try:
            self.destroy()
        except Exception:
            pass
