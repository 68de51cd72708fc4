"""Zero-copy interop with CuPy and PyTorch on the cuda backend.

Runs only where KC_BACKEND is cuda and the library is importable (the GPU
machine's Python has both); elsewhere each test is skipped with the reason.
kc's cuda plugin uses the device's primary context, the one CuPy and
PyTorch use, so pointers pass between them unchanged."""

import numpy as np
import pytest

import kc
from conftest import XY, Saxpy


@pytest.fixture
def cuda(session):
    if session.backend != "cuda":
        pytest.skip("backend is %s, not cuda" % session.backend)
    return session


def _cupy():
    return pytest.importorskip("cupy", reason="CuPy is not installed")


def _torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    return torch


def test_kc_array_to_cupy_same_pointer(cuda):
    cp = _cupy()
    src = np.arange(1000, dtype=np.float32)
    a = kc.to_device(src)
    c = cp.asarray(a)  # __cuda_array_interface__
    assert c.data.ptr == a.ptr
    assert np.array_equal(cp.asnumpy(c), src)
    d = cp.from_dlpack(a)  # DLPack
    assert d.data.ptr == a.ptr
    c *= 2  # a CuPy kernel over kc's memory
    cp.cuda.runtime.deviceSynchronize()
    assert np.array_equal(a.to_host(), 2 * src)


def test_kc_array_to_torch_same_pointer(cuda):
    torch = _torch()
    src = np.arange(256, dtype=np.float64)
    a = kc.to_device(src)
    t = torch.from_dlpack(a)
    assert t.data_ptr() == a.ptr and t.is_cuda
    assert np.array_equal(t.cpu().numpy(), src)
    t += 1
    torch.cuda.synchronize()
    assert np.array_equal(a.to_host(), src + 1)


def test_kc_kernel_over_torch_tensors(cuda, lib):
    torch = _torch()
    n = 4096
    x = torch.arange(n, dtype=torch.float32, device="cuda")
    y = torch.ones(n, dtype=torch.float32, device="cuda")
    assert kc.data_ptr(x) == x.data_ptr()
    torch.cuda.synchronize()
    lib["pyk_saxpy"](n, kc.struct(Saxpy, a=3.0, x=x, y=y))
    kc.fence()
    assert torch.equal(y, 3 * x + 1)


def test_kc_reduce_over_cupy_arrays(cuda, lib):
    cp = _cupy()
    x = cp.linspace(0, 1, 10000)
    cp.cuda.runtime.deviceSynchronize()
    s = lib["pyk_dot"](x.size, kc.struct(XY, x=x, y=x))
    assert abs(s - float(cp.dot(x, x))) < 1e-8


def test_cuda_memory_refused_on_host_backend(session):
    if session.backend == "cuda":
        pytest.skip("only meaningful on a host backend")
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    try:
        x = cp.zeros(4)
    except Exception as e:  # no device here
        pytest.skip("CuPy has no device: %s" % e)
    with pytest.raises(kc.EINVAL):
        kc.data_ptr(x)
