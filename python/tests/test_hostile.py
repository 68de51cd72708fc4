"""What a careless or hostile Python user does: each case crashed the
process, corrupted memory or gave a wrong answer before it was fixed (an
outside review of the binding, 2026-11-27)."""

import ctypes
import gc
import os
import sys

import numpy as np
import pytest

import kc
from conftest import MD, Saxpy, Scan, XY


def test_mirror_host_keeps_the_mirror_alive(session):
    # The host array was a bare view: collecting the mirror freed the
    # memory under it, and writing to it corrupted the heap.
    m = kc.Mirror((1000,), np.float64)
    h = m.host
    del m
    gc.collect()
    info = kc.pointer_info(h)
    assert info is not None and info["size"] == 8000
    h[:] = 42
    assert h.sum() == 42000
    del h
    gc.collect()


def test_launch_without_a_functor_is_refused(lib, session):
    # A functor of size 0 is "none" to the C calls, which then cannot
    # compare sizes: the kernel read through NULL.
    k = lib["pyk_saxpy"]
    with pytest.raises(kc.EINVAL, match="takes a 24-byte functor; none"):
        k(10)
    with pytest.raises(kc.EINVAL, match="takes a 24-byte functor; none"):
        k.for_(10, b"")
    with pytest.raises(kc.EINVAL, match="none was given"):
        k.bind(10)
    with pytest.raises(kc.EINVAL, match="none was given"):
        lib["pyk_dot"].reduce(10)
    with pytest.raises(kc.EINVAL, match="none was given"):
        lib["pyk_iscan"].scan(10)


def test_object_dtypes_are_refused(session):
    # Object references copied as bytes skip their reference counts (a
    # double free when both copies die).
    with pytest.raises(kc.EINVAL, match="Python objects"):
        kc.to_device(np.array(["x" * 20] * 2, dtype=object))
    with pytest.raises(kc.EINVAL, match="Python objects"):
        kc.empty(3, object)
    with pytest.raises(kc.EINVAL, match="Python objects"):
        kc.Mirror(3, object)


def test_queue_copy_is_bounded_by_both_arrays(session):
    with kc.Queue() as q:
        src = kc.Array(8)
        dst = np.zeros(4)
        with pytest.raises(kc.EINVAL, match="64 bytes, but dst has 32"):
            q.memcpy(dst, src, 64)
        with pytest.raises(kc.EINVAL):
            q.memset(dst, 0, 33)
        q.memcpy(dst, src, 32)
        q.fence()


def test_read_only_outputs_are_refused(session):
    b = bytes(16)
    a = kc.to_device(np.array([1.5, 2.5]))
    with pytest.raises(kc.EINVAL, match="read-only"):
        a.to_host(out=np.frombuffer(b, np.float64))
    assert b == bytes(16)
    ro = np.zeros(2)
    ro.flags.writeable = False
    with kc.Queue() as q:
        with pytest.raises(kc.EINVAL, match="read-only"):
            q.memcpy(ro, a)


def test_reduce_into_a_freed_array_is_refused(lib, session):
    x = kc.to_device(np.ones(100))
    out = kc.Array(1)
    out.free()
    with pytest.raises(kc.ENOTKC):
        lib["pyk_dot"].reduce(100, kc.struct(XY, x=x, y=x), out=out)
    m = kc.Mirror(1)
    t = m.target
    m.destroy()
    with pytest.raises(kc.ENOTKC):
        lib["pyk_dot"].reduce(100, kc.struct(XY, x=x, y=x), out=t)


def test_an_edited_kernel_built_again_is_refused_not_the_old_one(
        session, tmp_path):
    # Kernel names are global: the second library's kernel is refused when
    # it loads, and asking it for the kernel returned the first one's code.
    src = '#include <kc/kernel.h>\ntypedef struct { double *y; } F;\n' \
        'KC_FOR(pyt_setk, F, f, i, { f->y[i] = %s; })\n'
    v1, v2 = tmp_path / "v1.kc.c", tmp_path / "v2.kc.c"
    v1.write_text(src % "1.0")
    v2.write_text(src % "2.0")

    class F(ctypes.Structure):
        _fields_ = [("y", ctypes.c_void_p)]

    y = kc.zeros(3, space="managed")
    lib1 = kc.build(str(v1), cache=str(tmp_path))
    lib1["pyt_setk"](3, kc.struct(F, y=y))
    kc.fence()
    assert list(np.asarray(y)) == [1, 1, 1]
    lib2 = kc.build(str(v2), cache=str(tmp_path))
    with pytest.raises(kc.EEXIST, match="refused when the library was "
                       "loaded"):
        lib2["pyt_setk"]
    with pytest.raises(kc.ENOKERNEL, match="defines no kernel"):
        lib1["pyk_saxpy"]


def test_a_policy_keeps_its_queue(lib, session):
    # The policy held only the queue's address: the temporary Queue was
    # destroyed at once, and a later queue could take its handle.
    p = kc.Queue().on(16)
    gc.collect()
    q2 = kc.Queue()
    assert p.queue != q2.handle
    x = kc.to_device(np.arange(16, dtype=np.float32))
    y = kc.to_device(np.zeros(16, dtype=np.float32))
    lib["pyk_saxpy"].for_(p, kc.struct(Saxpy, a=1.0, x=x, y=y))
    kc.fence()
    assert np.array_equal(y.to_host(), np.arange(16, dtype=np.float32))
    q2.destroy()


def test_structured_dtypes_with_padding_come_back_exactly(session):
    dt = np.dtype([("x", np.int8), ("y", np.float64)], align=True)
    e = kc.empty(2, dt)
    assert e.dtype == dt
    e[0] = (1, 2.0)
    e[1] = (3, 4.0)
    assert e["y"].sum() == 6.0
    m = kc.Mirror(2, dt)
    assert m.host.dtype == dt
    m.destroy()


def test_dlpack_refuses_what_it_cannot_describe(session):
    if session.backend == "cuda":
        pytest.skip("host memory only")
    a = kc.to_device(np.arange(4, dtype=">f8"), space="host")
    with pytest.raises(BufferError, match="byte order"):
        a.__dlpack__()
    b = kc.to_device(np.zeros(2, dtype=np.longdouble), space="host")
    with pytest.raises(BufferError):
        b.__dlpack__()


def test_huge_shapes_are_refused_not_wrapped(session):
    # numpy's int64 product wrapped to 0, and ctypes cut a size over 2**64.
    with pytest.raises(kc.ENOMEM, match="more than any allocation"):
        kc.Array((2**32, 2**32), np.uint8)
    with pytest.raises(kc.ENOMEM, match="more than any allocation"):
        kc.Array((2**61 + 1,), np.float64)
    with pytest.raises(kc.ENOMEM):
        kc.Mirror((2**40, 2**40), np.float64)


def test_small_conversions(lib, session):
    # A 0-d array stays 0-d; a scan's dtype must have the value's size;
    # to_host into another dtype is refused rather than copied as bits.
    assert kc.to_device(np.float64(3.5)).shape == ()
    n = 10
    dx = kc.to_device(np.arange(1, n + 1, dtype=np.int64))
    dout = kc.Array(n, np.int64)
    with pytest.raises(kc.EINVAL, match="scans values of 8 bytes"):
        lib["pyk_iscan"].scan(n, kc.struct(Scan, inp=dx, out=dout),
                              dtype=np.float32)
    with pytest.raises(kc.EINVAL, match="dtype"):
        kc.to_device(np.ones(2)).to_host(out=np.zeros(2, np.int64))


def test_integers_are_not_cut_to_their_c_type(lib, session):
    # ctypes cut 2**40 to 0 for a C int and a byte value.
    with pytest.raises(kc.EINVAL, match="not a byte value"):
        kc.Array(4).fill_bytes(2**40)
    if session.backend == "cuda":
        pytest.skip("the CALL kernel below is host-only")
    # Registered with an int argument; the range check refuses the call
    # before anything reaches the C function.
    k = kc.register_call("pyt_intarg", lib.cdll.pyk_scale, "pi")
    x = kc.empty(4, np.float64)
    with pytest.raises(kc.EINVAL, match="outside its C type's range"):
        k(4, x, 2**40)
    with pytest.raises(kc.EINVAL, match="outside"):
        k(4, x, -2**31 - 1)


def test_errors_pickle_and_copy(session):
    import copy
    import pickle
    try:
        kc.Array(-1)
    except kc.EINVAL as e:
        for again in (pickle.loads(pickle.dumps(e)), copy.copy(e)):
            assert type(again) is type(e) and again.code == e.code
            assert str(again) == str(e)


def test_a_library_of_another_abi_is_refused(tmp_path):
    # KC_LIBRARY naming a library with kc's function names but not its
    # current ABI (an older, unversioned libkc whose kc_parallel_for takes
    # other layouts) was loaded, and its calls got this package's structs.
    import re
    import shutil
    import subprocess
    cc = shutil.which(os.environ.get("CC", "cc"))
    if cc is None:
        pytest.skip("no C compiler to build the stand-in library")
    src = open(os.path.join(os.path.dirname(kc.__file__), "_lib.py")).read()
    names = sorted(set(re.findall(r'_decl\("(\w+)"', src)))
    assert "kc_parallel_for" in names
    c = tmp_path / "old.c"
    c.write_text("".join("int %s(void) { return 0; }\n" % n for n in names))
    so = tmp_path / "libkc.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(so), str(c)],
                   check=True)
    env = dict(os.environ, KC_LIBRARY=str(so))
    pkg = os.path.dirname(os.path.dirname(kc.__file__))
    env["PYTHONPATH"] = pkg + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", "import kc"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0, "an unversioned stand-in libkc was accepted"
    assert "ImportError" in r.stderr and "KC_0.2" in r.stderr, r.stderr
    # A library without kc's names is refused by name, not AttributeError.
    env["KC_LIBRARY"] = str(c)  # not even a library
    r = subprocess.run([sys.executable, "-c", "import kc"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "ImportError" in r.stderr, r.stderr


def test_numpy_scalars_have_no_lasting_address(lib, session):
    # np.asarray of a numpy scalar is a copy freed on return: the pointer
    # kc got was freed memory, and q.memset(scalar, 0xff) in a loop
    # corrupted the heap (SIGSEGV).
    big = np.zeros(1, dtype="V2000")[0]
    src = kc.to_device(np.ones(1))
    no_address = "numpy scalar .* no lasting address.*pass an array"
    with kc.Queue() as q:
        for s in (np.float64(1.5), big, np.int32(3)):
            with pytest.raises(kc.EINVAL, match=no_address):
                q.memset(s, 0xff)
            with pytest.raises(kc.EINVAL, match=no_address):
                q.memcpy(s, src)
        with pytest.raises(kc.EINVAL, match=no_address):
            q.memcpy(np.zeros(1), np.float64(1.5))
    with pytest.raises(kc.EINVAL, match=no_address):
        kc.struct(XY, x=np.float64(1.5), y=src)
    with pytest.raises(kc.EINVAL, match=no_address):
        kc.Array(1).copy_(np.float64(1.5))
    with pytest.raises(kc.EINVAL, match=no_address):
        kc.data_ptr(big)
    with pytest.raises(kc.EINVAL, match=no_address):
        kc.pointer_info(np.float64(0))
    if session.backend != "cuda":  # the CALL kernel is host-only
        k = kc.register_call("pyt_scalar_p", lib.cdll.pyk_scale, "pd")
        with pytest.raises(kc.EINVAL, match=no_address):
            k(1, np.float64(2.0), 3.0)
    # A 0-d or 1-element array is the way, and works.
    one = np.array(1.5)
    kc.Array((), np.float64).copy_(one)
    assert kc.data_ptr(one) == one.ctypes.data


def test_array_interfaces_must_view_the_objects_memory(session):
    # An __array_interface__ giving a fresh buffer (a copy made per call)
    # leaves kc a pointer to memory freed when the call returns.
    class Fresh:
        @property
        def __array_interface__(self):
            return {"shape": (4,), "typestr": "<f8", "version": 3,
                    "data": bytes(32)}

    class Holds:
        def __init__(self):
            self.a = np.arange(4.0)
            self.__array_interface__ = self.a.__array_interface__

    class OwnBuffer(bytearray):
        @property
        def __array_interface__(self):
            return {"shape": (4,), "typestr": "<f8", "version": 3,
                    "data": None}

    with pytest.raises(kc.EINVAL, match="not a view of its memory"):
        kc.data_ptr(Fresh())
    with kc.Queue() as q:
        with pytest.raises(kc.EINVAL, match="not a view"):
            q.memcpy(np.zeros(4), Fresh())
    h = Holds()
    assert kc.data_ptr(h) == h.a.ctypes.data
    b = OwnBuffer(32)
    with kc.Queue() as q:
        q.memcpy(b, np.full(4, 2.0))
        q.fence()
    assert np.frombuffer(b, np.float64).tolist() == [2.0] * 4


def test_policy_integers_are_not_cut_to_their_c_type(lib, session):
    # ctypes cut policy fields modulo their C type: kc.range(0, 2**64 + 2)
    # was [0, 2), a team_size of 2**32 + 1 was 1, a scratch size of -1
    # was 2**64 - 1.
    outside = "outside its C type's range"
    with pytest.raises(kc.ERANGE, match="range end is 18446744073709551618"):
        kc.range(0, 2**64 + 2)
    with pytest.raises(kc.ERANGE, match="range begin .*" + outside):
        kc.range(-2**63 - 1, 0)
    # Not "end -1 < begin 0": the uint64 is refused as itself.
    with pytest.raises(kc.ERANGE, match="end is 18446744073709551615, " +
                       outside):
        kc.range(0, np.uint64(2**64 - 1))
    with pytest.raises(kc.EINVAL, match="chunk .*" + outside):
        kc.range(0, 10, kc.DYNAMIC, 2**64 + 1)
    with pytest.raises(kc.EINVAL, match="team_size is 4294967297"):
        kc.team(2**32 + 5, 2**32 + 1)
    with pytest.raises(kc.ERANGE, match="league_size .*" + outside):
        kc.team(2**64 + 5)
    with pytest.raises(kc.EINVAL, match="vector_length"):
        kc.team(4, 1, 2**32 + 1)
    with pytest.raises(kc.EINVAL, match="per_team is -1, " + outside):
        kc.team(4, scratch={0: (-1, 0)})
    with pytest.raises(kc.EINVAL, match="per_thread is 18446744073709551616"):
        kc.team(4, scratch={1: (0, 2**64)})
    with pytest.raises(kc.EINVAL, match="scratch level is 4294967296"):
        kc.team(4, scratch={2**32: (0, 0)})
    with pytest.raises(kc.ERANGE, match=r"mdrange end\[1\]"):
        kc.mdrange((0, 0), (4, 2**64 + 4))
    with pytest.raises(kc.ERANGE, match=r"mdrange begin\[0\]"):
        kc.mdrange((-2**64, 0), (4, 4))
    # int() cut a fraction: kc.range(0, 2.7) was [0, 2).  A whole float
    # (1e6) is still a count.
    with pytest.raises(kc.ERANGE, match="range end is 2.7, not a whole"):
        kc.range(0, 2.7)
    with pytest.raises(kc.EINVAL, match="team_size is 1.5, not a whole"):
        kc.team(4, 1.5)
    assert kc.range(0, 1e6).end[0] == 1000000
    assert kc.range(0, np.float64(8.0)).end[0] == 8
    with pytest.raises(kc.EINVAL, match=r"mdrange tile\[0\]"):
        kc.mdrange((0, 0), (4, 4), (2**64 + 2, 1))
    with pytest.raises(kc.EINVAL, match="device is 4294967296"):
        kc.Queue(device=2**32)
    with pytest.raises(kc.EINVAL, match="MD.ld is 18446744073709551621"):
        kc.struct(MD, ld=2**64 + 5)
    # The launches: [0, 4) and 3.0 came back before.
    x = kc.to_device(np.ones(8))
    y = kc.to_device(np.zeros(8, np.float32))
    f = kc.struct(Saxpy, a=1.0, x=kc.to_device(np.ones(8, np.float32)), y=y)
    with pytest.raises(kc.ERANGE, match="range end"):
        lib["pyk_saxpy"](2**64 + 4, f)
    with pytest.raises(kc.ERANGE, match="range begin"):
        lib["pyk_dot"]((2**64, 2**64 + 3), kc.struct(XY, x=x, y=x))
    kc.fence()
    assert not y.to_host().any()
    # The ends of each range still work.
    assert kc.range(-2**63, 2**63 - 1).end[0] == 2**63 - 1
    assert kc.range(0, np.uint64(5)).end[0] == 5
    assert kc.team(3, 2**31 - 1).team_size == 2**31 - 1
    assert kc.struct(MD, ld=-2**63).ld == -2**63


def test_queue_memset_takes_only_byte_values(session):
    # kc_memset_on's int was cut to its low byte: 300 filled with 44,
    # 2**40 + 7 with 7.
    a = np.zeros(4, np.uint8)
    with kc.Queue() as q:
        for v in (300, 2**40 + 7, -129, 256):
            with pytest.raises(kc.EINVAL, match="kc.Queue.memset: %d is not "
                               "a byte value" % v):
                q.memset(a, v)
        q.fence()
        assert not a.any()
        with pytest.raises(kc.EINVAL, match="nbytes is -1"):
            q.memset(a, 1, -1)
        q.memset(a, 255, 2)
        q.memset(a[2:], -128)
        q.fence()
    assert a.tolist() == [255, 255, 128, 128]


def test_from_host_reports_what_was_passed(session):
    # The message gave the size of the float64 copy (64 bytes) of the 32
    # bytes passed.
    with pytest.raises(kc.EINVAL, match="source has 8 elements of int32 "
                       r"\(32 bytes\), the kc.Array 4 elements of float64"):
        kc.Array(4).from_host(np.arange(8, dtype=np.int32))
    # Elements are converted to the array's dtype, as documented.
    a = kc.Array(4).from_host(np.arange(4, dtype=np.int32))
    assert a.to_host().tolist() == [0.0, 1.0, 2.0, 3.0]


def test_wrong_argument_types_are_refused_by_name(lib, session):
    # These raised AttributeError ('int' object has no attribute '_live'
    # or 'encode') from inside the binding.
    with pytest.raises(kc.EINVAL, match="elapsed takes the end kc.Event, "
                       "not int"):
        kc.Event().elapsed(5)
    with pytest.raises(kc.EINVAL, match="kc.kernel: the name must be a str"):
        kc.kernel(None)
    with pytest.raises(kc.EINVAL, match="label must be a str or None, not "
                       "int"):
        kc.Array(4, label=5)
    with pytest.raises(kc.EINVAL, match="label"):
        kc.empty(4, label=5)
    with pytest.raises(kc.EINVAL, match="label"):
        kc.Mirror(4, label=5)
    x = kc.to_device(np.ones(4, np.float32))
    with pytest.raises(kc.EINVAL, match="label"):
        lib["pyk_saxpy"].for_(4, kc.struct(Saxpy, a=1.0, x=x, y=x), label=5)
    with pytest.raises(kc.EINVAL, match="record takes a kc.Queue or None"):
        kc.Event().record(5)
    with pytest.raises(kc.EINVAL, match="wait takes a kc.Queue"):
        kc.Event().wait("q")
    with pytest.raises(kc.EINVAL, match="kc.on takes a kc.Queue"):
        kc.on(4, 5)
    with pytest.raises(kc.EINVAL, match="name must be a str"):
        kc.region_push(5)
    assert isinstance(kc.EINVAL(-1), ValueError)
    assert kc.Array(4, label="named").label == "named"


def test_a_kernel_name_that_is_no_str_is_refused(lib, session):
    # lib[None] raised Python's TypeError ("can only concatenate str")
    # from inside the binding, not kc.EINVAL as kc.kernel(None) does.
    for bad in (None, 5, ["pyk_saxpy"]):
        with pytest.raises(kc.EINVAL, match="the kernel name must be a str, "
                           "not " + type(bad).__name__):
            lib[bad]
    with pytest.raises(kc.EINVAL, match="kernel name must be a str"):
        lib.kernel(None)
    assert lib[b"pyk_saxpy"].name == "pyk_saxpy"  # bytes, as kc.kernel


def test_bit_and_pointer_fields_are_not_cut(session):
    # ctypes kept the low bits: 9 in a 3-bit field became 1, 4 in a signed
    # one -4, and a pointer field given 2**64 + 5 held 5 (-1: 2**64 - 1).
    class Bits(ctypes.Structure):
        _fields_ = [("u", ctypes.c_uint32, 3), ("s", ctypes.c_int32, 3),
                    ("p", ctypes.c_void_p),
                    ("d", ctypes.POINTER(ctypes.c_double))]
    outside = "outside its C type's range"
    for field, value, rng in (("u", 8, r"\[0, 7\]"), ("u", -1, r"\[0, 7\]"),
                              ("s", 4, r"\[-4, 3\]"), ("s", -5, r"\[-4, 3\]")):
        with pytest.raises(kc.EINVAL, match=r"Bits\.%s is %d, %s \(c_u?int\w*,"
                           r" 3 bits: %s\)" % (field, value, outside, rng)):
            kc.struct(Bits, **{field: value})
    top = 2**(8 * ctypes.sizeof(ctypes.c_void_p)) - 1
    # A typed pointer field takes an address as an int too (it raised
    # ctypes' TypeError), checked the same way.
    for field in ("p", "d"):
        for value in (top + 6, -1):
            with pytest.raises(kc.EINVAL, match=r"Bits\.%s is %d, %s "
                               r"\(c_void_p: \[0, %d\]\)" %
                               (field, value, outside, top)):
                kc.struct(Bits, **{field: value})
    f = kc.struct(Bits, u=7, s=-4, p=top, d=top)
    assert (f.u, f.s, f.p) == (7, -4, top)
    assert ctypes.cast(f.d, ctypes.c_void_p).value == top
    assert kc.struct(Bits, s=np.int8(3), p=None, d=None).s == 3
    # A numpy integer is an address as an int is (it was taken for an
    # array and refused: "a numpy scalar has no lasting address").
    g = kc.struct(Bits, p=np.uint64(top), d=np.uint64(top))
    assert g.p == top and ctypes.cast(g.d, ctypes.c_void_p).value == top
    with pytest.raises(kc.EINVAL, match=r"Bits\.p is -1, %s" % outside):
        kc.struct(Bits, p=np.int64(-1))


def test_pointer_arguments_are_not_cut(lib, session):
    # A CALL kernel's pointer argument given as an int: 2**64 was cut to
    # NULL (over an empty range here, so nothing was touched).
    if session.backend == "cuda":
        pytest.skip("the CALL kernel below is host-only")
    k = kc.register_call("pyt_ptrarg", lib.cdll.pyk_scale, "pd")
    for value in (2**64, -1):
        with pytest.raises(kc.EINVAL, match="argument 1 of kernel "
                           "'pyt_ptrarg' is %d, outside" % value):
            k(0, value, 2.0)
    k(0, None, 2.0)
    k(0, 0, 2.0)


def test_binding_refusals_become_the_last_error(session):
    # The binding's own refusals (no C call failed) left kc.last_error()
    # telling of an older, unrelated failure.
    with pytest.raises(kc.ENOKERNEL):
        kc.kernel("pyt_no_such_kernel")
    assert "pyt_no_such_kernel" in kc.last_error()
    with pytest.raises(kc.EINVAL) as e:
        kc.struct(XY, nonesuch=1)
    assert kc.last_error() == e.value.detail
    assert "has no field 'nonesuch'" in kc.last_error()
    with pytest.raises(kc.EINVAL) as e:
        kc.kernel(None)
    assert kc.last_error() == e.value.detail
    # A C failure's exception leaves kc's own detail as it was.
    with pytest.raises(kc.ENOKERNEL) as e:
        kc.kernel("pyt_no_such_kernel_2")
    assert kc.last_error() == e.value.detail
    assert "pyt_no_such_kernel_2" in kc.last_error()
