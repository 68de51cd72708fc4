"""Queues and events from Python (kc.Queue, kc.Event, kc.on)."""

import numpy as np
import pytest

import kc
from conftest import XY, Saxpy


def arr(a):
    return kc.to_device(np.ascontiguousarray(a), "device")


def test_launch_copy_fill_on_a_queue(lib, session):
    n = 4097
    x = np.arange(n, dtype=np.float32)
    dx, dy = arr(x), arr(np.zeros(n, np.float32))
    with kc.Queue() as q:
        assert q.device >= 0
        q.memset(dy, 0)
        lib["pyk_saxpy"].for_(q.on(kc.range(0, n)),
                              kc.struct(Saxpy, a=2.0, x=dx, y=dy))
        h = np.full(n, -1, np.float32)
        q.memcpy(h, dy)
        q.fence()
        assert np.array_equal(h, 2 * x)
        p = kc.on(kc.range(0, n), q)
        assert p.queue == q.handle
        assert kc.on(p, None).queue is None


def test_reduce_on_a_queue(lib, session):
    n = 1000
    x = np.arange(n, dtype=np.float64)
    dx, dy = arr(x), arr(np.ones(n, np.float64))
    q = kc.Queue()
    got = lib["pyk_dot"].reduce(q.on(kc.range(0, n)), kc.struct(XY, x=dx,
                                                                 y=dy))
    assert got == pytest.approx(float(x.sum()))
    q.destroy()
    q.destroy()  # a no-op


def test_events_order_two_queues(lib, session):
    n = 2048
    x = np.arange(n, dtype=np.float32)
    dx, dy = arr(x), arr(np.zeros(n, np.float32))
    q1, q2 = kc.Queue(), kc.Queue()
    e0, e1 = kc.Event(), kc.Event()
    assert e1.query()  # never recorded: complete
    e0.record(q1)
    lib["pyk_saxpy"].for_(q1.on(kc.range(0, n)),
                          kc.struct(Saxpy, a=3.0, x=dx, y=dy))
    e1.record(q1)
    e1.wait(q2)  # q2 waits for the saxpy, Python does not
    h = np.zeros(n, np.float32)
    q2.memcpy(h, dy)
    q2.fence()
    assert np.array_equal(h, 3 * x)
    e1.synchronize()
    assert e1.query()
    assert e0.elapsed(e1) >= 0
    for o in (e0, e1, q1, q2):
        o.destroy()


def test_dead_handles_are_refused(session):
    q = kc.Queue()
    q.destroy()
    with pytest.raises(kc.EINVAL):
        q.fence()
    with pytest.raises(kc.EINVAL):
        q.on(kc.range(0, 4))
    e = kc.Event()
    e.destroy()
    with pytest.raises(kc.EINVAL):
        e.record()
    with pytest.raises(kc.EINVAL):
        kc.Queue(device=12345)
