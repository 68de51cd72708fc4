"""Fixtures of kc's Python tests: kc initialised once per session on the
backend KC_BACKEND names, and the test kernels built by kcc (cached in a
temporary directory)."""

import ctypes
import os

import numpy as np
import pytest

import kc

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="session")
def session():
    kc.init()
    yield kc.info()
    kc.finalize()


@pytest.fixture(scope="session")
def lib(session, tmp_path_factory):
    cache = os.environ.get("KC_PY_CACHE") or str(
        tmp_path_factory.mktemp("kc-cache"))
    return kc.build(os.path.join(HERE, "kernels", "pyk.kc.c"),
                    depends=[os.path.join(HERE, "kernels", "pyk.h")],
                    cache=cache)


class Saxpy(ctypes.Structure):
    _fields_ = [("a", ctypes.c_float), ("x", ctypes.c_void_p),
                ("y", ctypes.c_void_p)]


class XY(ctypes.Structure):
    _fields_ = [("x", ctypes.c_void_p), ("y", ctypes.c_void_p)]


class Scan(ctypes.Structure):
    _fields_ = [("inp", ctypes.c_void_p), ("out", ctypes.c_void_p)]


class MD(ctypes.Structure):
    _fields_ = [("a", ctypes.c_void_p), ("ld", ctypes.c_int64)]


class Team(ctypes.Structure):
    _fields_ = [("sums", ctypes.c_void_p), ("width", ctypes.c_int64)]


STATS = np.dtype([("count", np.int64), ("sum", np.float64)])
