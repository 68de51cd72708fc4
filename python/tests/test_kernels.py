import ctypes

import numpy as np
import pytest

import kc
from conftest import MD, STATS, XY, Saxpy, Scan, Team


def arr(a, session):
    """A kc allocation holding a copy of a (device memory on cuda)."""
    return kc.to_device(np.ascontiguousarray(a), "device")


def test_functor_sizes_match_c(lib):
    # The C structs of pyk.h, as the kernels registered them.
    assert ctypes.sizeof(Saxpy) == 24 and ctypes.sizeof(XY) == 16
    assert lib["pyk_saxpy"].functor_size == ctypes.sizeof(Saxpy)


def test_functor_of_the_wrong_size_is_refused(lib, session):
    # A functor that is not the kernel's struct: refused before anything
    # runs, the error naming both sizes.
    n = 16
    wrong = XY(None, None)
    with pytest.raises(kc.EINVAL, match="16 but kernel 'pyk_saxpy' takes a "
                       "24-byte functor"):
        lib["pyk_saxpy"].for_(n, wrong)
    with pytest.raises(kc.EINVAL, match="takes a 24-byte functor"):
        lib["pyk_saxpy"].for_(n, np.zeros(1, dtype=[("a", "f8")])[0])


def test_for_saxpy(lib, session):
    n = 10001
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    dx, dy = arr(x, session), arr(y, session)
    k = lib["pyk_saxpy"]
    assert k.kind == "for" and k.name == "pyk_saxpy"
    k(n, kc.struct(Saxpy, a=2.0, x=dx, y=dy))
    k.for_(kc.range(0, n), kc.struct(Saxpy, a=1.0, x=dx, y=dy), label="s2")
    kc.fence()
    assert np.array_equal(dy.to_host(), 3 * x + 1)


def test_struct_refuses_unknown_field(lib):
    with pytest.raises(kc.EINVAL) as e:
        kc.struct(Saxpy, a=1.0, xx=None)
    assert "xx" in str(e.value)


def test_numpy_structured_functor(lib, session):
    n = 100
    x = np.arange(n, dtype=np.float32)
    dx, dy = arr(x, session), arr(np.zeros(n, np.float32), session)
    dt = np.dtype({"names": ["a", "x", "y"], "formats": [np.float32, np.uintp,
                  np.uintp], "offsets": [0, 8, 16], "itemsize": 24})
    f = np.zeros((), dt)
    f["a"], f["x"], f["y"] = 3.0, dx.ptr, dy.ptr
    lib["pyk_saxpy"](n, f[()])
    assert np.array_equal(dy.to_host(), 3 * x)


def test_reduce_sum_and_maxloc(lib, session):
    n = 5000
    x = np.linspace(-1, 1, n)
    y = np.cos(x)
    dx, dy = arr(x, session), arr(y, session)
    f = kc.struct(XY, x=dx, y=dy)
    s = lib["pyk_dot"](n, f)
    assert isinstance(s, float) and abs(s - float(x @ y)) < 1e-9
    assert lib["pyk_dot"].result_dtype == np.float64
    assert lib["pyk_dot"](0, f) == 0.0  # empty range: the identity
    val, loc = lib["pyk_maxloc"](n, kc.struct(XY, x=dx, y=dy))
    assert (val, loc) == (1.0, n - 1)


def test_reduce_into_kc_allocation_is_async(lib, session):
    n = 1000
    x = np.ones(n)
    dx = arr(x, session)
    out = kc.Array(1, np.float64, "device")
    lib["pyk_dot"].reduce(n, kc.struct(XY, x=dx, y=dx), out=out)
    kc.fence()
    assert out.to_host()[0] == n
    with pytest.raises(kc.EINVAL):
        lib["pyk_dot"].reduce(n, kc.struct(XY, x=dx, y=dx),
                              out=kc.Array(1, np.float32))


def test_custom_reducer(lib, session):
    n = 777
    x = np.arange(n, dtype=np.float64)
    dx = arr(x, session)
    k = lib["pyk_stats"]
    v = k(n, kc.struct(XY, x=dx, y=dx), dtype=STATS)
    assert int(v["count"]) == n and float(v["sum"]) == float(x.sum())
    raw = k(n, kc.struct(XY, x=dx, y=dx))
    assert isinstance(raw, bytes) and len(raw) == 16
    with pytest.raises(kc.EINVAL):
        k(n, kc.struct(XY, x=dx, y=dx), dtype=np.float64)  # 8 != 16 bytes


def test_scan_total(lib, session):
    n = 1234
    x = np.arange(1, n + 1, dtype=np.int64)
    dx, dout = arr(x, session), kc.Array(n, np.int64, "device")
    total = lib["pyk_iscan"](n, kc.struct(Scan, inp=dx, out=dout))
    assert total == n * (n + 1) // 2
    assert np.array_equal(dout.to_host(), np.cumsum(x))


def test_mdrange(lib, session):
    a = kc.Array((30, 40), np.float64, "device")
    lib["pyk_md2"](kc.mdrange((0, 0), (30, 40), (8, 8)),
                   kc.struct(MD, a=a, ld=40))
    i, j = np.meshgrid(np.arange(30), np.arange(40), indexing="ij")
    assert np.array_equal(a.to_host(), i * 1000.0 + j)
    # The first index fastest: the same values.
    b = kc.Array((30, 40), np.float64, "device")
    p = kc.mdrange((0, 0), (30, 40), iterate=kc.ITERATE_LEFT)
    assert p.iterate == kc.ITERATE_LEFT
    lib["pyk_md2"](p, kc.struct(MD, a=b, ld=40))
    assert np.array_equal(b.to_host(), i * 1000.0 + j)
    with pytest.raises(kc.EINVAL):
        kc.mdrange((0, 0), (30, 40), iterate=3)


def test_team(lib, session):
    league, width = 17, 33
    sums = kc.Array(league, np.float64, "device")
    lib["pyk_team_sum"](kc.team(league), kc.struct(Team, sums=sums,
                                                    width=width))
    want = [sum(range(t * width, t * width + width)) for t in range(league)]
    assert np.array_equal(sums.to_host(), want)
    lib["pyk_team_sum"](kc.team(league, scratch={0: (64, 0)}),
                        kc.struct(Team, sums=sums, width=width))


def test_schedules(lib, session):
    n = 1000
    x = np.ones(n)
    dx = arr(x, session)
    for sched in (kc.STATIC, kc.DYNAMIC):
        for chunk in (1, 7, kc.AUTO):
            p = kc.range(0, n, schedule=sched, chunk=chunk)
            assert lib["pyk_dot"](p, kc.struct(XY, x=dx, y=dx)) == n


def test_call_kernel(lib, session):
    if session.backend == "cuda":
        pytest.skip("pyk_scale is a host-only CALL kernel")
    k = kc.register_call("pyk_scale_py", lib.cdll.pyk_scale, "pd")
    x = kc.empty(50, np.float64)
    x[:] = 2
    k(50, x, 4.0)
    assert np.all(x == 8)
    with pytest.raises(kc.ESIGNATURE):
        k(50, x)


def test_wrong_kind_and_bad_policy(lib, session):
    with pytest.raises(kc.EINVAL):
        lib["pyk_saxpy"].reduce(10)
    with pytest.raises(kc.EINVAL):
        lib["pyk_dot"].scan(10)
    with pytest.raises(kc.EINVAL):
        lib["pyk_saxpy"]("ten")
    with pytest.raises(kc.ERANGE):
        lib["pyk_empty"](kc.range(10, 5), kc.struct(Saxpy))
    with pytest.raises(kc.EINVAL):
        lib["pyk_saxpy"](10, 3.5)  # not a functor


def test_build_cache_and_errors(lib, tmp_path):
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    src_ok = os.path.join(here, "kernels", "pyk.kc.c")
    dep = os.path.join(here, "kernels", "pyk.h")
    mtime = os.path.getmtime(lib.path)
    again = kc.build(src_ok, depends=[dep], cache=os.path.dirname(lib.path))
    assert again is lib and os.path.getmtime(lib.path) == mtime  # cached
    src = tmp_path / "bad.kc.c"
    src.write_text("#include <kc/kernel.h>\nthis is not C;\n")
    with pytest.raises(kc.EJIT) as e:
        kc.build(str(src), cache=str(tmp_path))
    assert "kcc failed" in str(e.value)
    assert kc.load(lib.path) is lib  # same file, same Library


def test_profiling_through_region(lib, session):
    with kc.region("py"):
        lib["pyk_empty"](10, kc.struct(Saxpy))


def test_bind_prepared_launch(lib, session):
    n = 100
    x = np.arange(n, dtype=np.float32)
    dx, dy = arr(x, session), arr(np.zeros(n, np.float32), session)
    f = kc.struct(Saxpy, a=1.0, x=dx, y=dy)
    launch = lib["pyk_saxpy"].bind(n, f)
    launch()
    f.a = 2.0  # read at each call
    launch()
    kc.fence()
    assert np.array_equal(dy.to_host(), 3 * x)
    with pytest.raises(kc.EINVAL):
        lib["pyk_dot"].bind(n)
    bad = lib["pyk_empty"].bind(kc.range(10, 5), kc.struct(Saxpy))
    with pytest.raises(kc.ERANGE):
        bad()
