import gc
import os

import numpy as np
import pytest

import kc


def test_empty_host_is_numpy_zero_copy(session):
    a = kc.empty((3, 4), np.float32)
    assert isinstance(a, np.ndarray) and a.shape == (3, 4)
    info = kc.pointer_info(a)
    assert info["space"] == "host" and info["size"] == 48
    a[:] = 7
    assert kc.pointer_info(a)["base"] == a.ctypes.data


@pytest.mark.parametrize("space", ["host", "device", "managed",
                                   "host_pinned"])
def test_every_space_round_trip(session, space):
    src = np.arange(1000, dtype=np.float64)
    d = kc.to_device(src, space=space, label="rt-" + space)
    back = d.to_host()
    assert np.array_equal(back, src)
    assert kc.pointer_info(d)["label"] == "rt-" + space
    assert kc.pointer_info(d)["space"] == space
    e = kc.Array(1000, np.float64, space)
    e.copy_(d)
    assert np.array_equal(e.to_host(), src)
    e.fill_bytes(0)
    assert not e.to_host().any()
    d.free()
    d.free()  # idempotent
    with pytest.raises(kc.ENOTKC):
        d.to_host()


def test_zeros_and_shapes(session):
    z = kc.zeros((2, 3), np.int32, space="managed")
    z = np.asarray(z)
    assert z.shape == (2, 3) and not z.any()
    s = kc.empty((), np.float64)
    assert s.shape == ()
    zero = kc.Array(0, np.float64)
    assert zero.nbytes == 0 and zero.ptr


def test_bad_arguments(session):
    with pytest.raises(kc.EINVAL):
        kc.Array((-1, 2))
    with pytest.raises(kc.EINVAL):
        kc.Array(4, np.float64, space="nowhere")
    with pytest.raises(kc.EINVAL):
        kc.data_ptr(object())
    d = kc.Array(10, np.float64)
    with pytest.raises(kc.EINVAL):
        d.from_host(np.zeros(11))
    with pytest.raises(kc.EINVAL):
        kc.data_ptr(np.zeros((4, 4))[:, 1])  # not contiguous
    with pytest.raises(kc.EINVAL):
        d.copy_(kc.Array(5, np.float64))
    with pytest.raises(kc.ENOMEM):
        kc.Array(1 << 62, np.uint8, "host")


def test_not_host_accessible_on_distinct_device(session):
    d = kc.Array(8, np.float64, "device")
    if "device" in session.distinct_spaces:
        assert not d.host_accessible
        with pytest.raises(kc.EINVAL):
            d.numpy()
    else:
        assert d.host_accessible
        d.numpy()[:] = 3
        assert np.all(d.to_host() == 3)


def test_lifetime_view_keeps_allocation(session):
    a = kc.empty(100, np.int64)
    v = a[10:20]
    del a
    gc.collect()
    # The view keeps the kc.Array (and so the allocation) alive.
    assert kc.pointer_info(v) is not None
    v[:] = 5
    assert kc.pointer_info(v.ctypes.data)["size"] == 800


def test_no_leak_after_10000_cycles(session):
    probe = kc.Array(1, np.uint8, "host", label="probe")
    for i in range(10000):
        a = kc.empty(64, np.float64, "host", label="cycle")
        b = kc.Array(16, np.float32, "device", label="cycle")
        if i % 2:
            b.free()
        del a, b
    gc.collect()
    # kc's records hold no cycle allocation: a fresh allocation is the only
    # one in its size class reusing memory, and the resident set did not
    # grow by the 10000 * 576 bytes a leak would keep.
    rss0 = _rss()
    for i in range(10000):
        a = kc.empty(64, np.float64, "host", label="cycle")
        del a
    gc.collect()
    assert _rss() - rss0 < 2 * 1024 * 1024
    probe.free()


def _rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_mirror(session):
    with kc.Mirror((4, 5), np.float64, label="m") as m:
        assert m.host.shape == (4, 5)
        m.host[:] = np.arange(20).reshape(4, 5)
        m.modify_host()
        separate = "device" in session.distinct_spaces
        assert m.need_sync_target() == separate
        m.sync_target()
        assert not m.need_sync_target()
        assert np.array_equal(m.target.to_host(), m.host)
        m.modify_target()
        m.sync_host()
        # Both sides marked: refused until the marks are cleared.
        m.modify_host()
        m.modify_target()
        with pytest.raises(kc.EINVAL):
            m.sync_target()
        with pytest.raises(kc.EINVAL):
            m.sync_target()
        m.clear_sync_state()
        m.host[:] = 7
        m.modify_host()
        m.sync_target()
        assert np.array_equal(m.target.to_host(), m.host)
    with pytest.raises(kc.ENOTKC):
        m.sync_host()


def test_dlpack_and_array_interface_round_trip_numpy(session):
    d = kc.to_device(np.arange(12, dtype=np.float32).reshape(3, 4),
                     space="host")
    assert d.__dlpack_device__()[0] in (1, 3)  # CPU, or CUDA host memory
    if session.backend != "cuda":
        v = np.from_dlpack(d)
        assert v.ctypes.data == d.ptr and v.shape == (3, 4)
        assert np.array_equal(v, np.arange(12).reshape(3, 4))
        d.numpy()[0, 0] = 42  # same memory (numpy < 2 marks v read-only)
        assert v[0, 0] == 42
        w = np.asarray(d)  # __array_interface__
        assert w.ctypes.data == d.ptr
        # A capsule that no one consumes frees its tensor.
        cap = d.__dlpack__()
        del cap
        with pytest.raises(AttributeError):
            d.__cuda_array_interface__
    else:
        cai = kc.Array(6, np.float64, "device").__cuda_array_interface__
        assert cai["version"] == 3 and cai["shape"] == (6,)


def test_numpy_array_passes_without_copy(session):
    a = np.zeros(16)
    assert kc.data_ptr(a) == a.ctypes.data
    assert kc.pointer_info(a) is None  # ordinary host memory
