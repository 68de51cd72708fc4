"""Arrays in kc memory spaces, and the interchange protocols.

kc.Array owns one kc allocation (kc_malloc) with a shape and a numpy dtype,
C order.  Memory the host can read (host, managed, host_pinned, and every
space of a host backend) is exposed to numpy without a copy
(``__array_interface__``); device memory of the cuda backend is exposed to
CuPy, PyTorch, JAX and numba without a copy through
``__cuda_array_interface__`` (version 3) and DLPack (``__dlpack__``,
``__dlpack_device__``).  The reverse way, kc.data_ptr() takes the data
pointer of a numpy array, a CuPy array, a torch tensor or any object with one
of those protocols, after checking that the current backend can use it.
"""

import ctypes
import threading

import numpy as np

from . import _lib
from . import _runtime
from ._errors import check, by_code, by_name, byte_value, c_str

L = _lib.lib

SPACES = {name: i for i, name in enumerate(_runtime.SPACE_NAMES)}


def _space_index(space):
    if isinstance(space, int) and 0 <= space < len(SPACES):
        return space
    try:
        return SPACES[space]
    except KeyError:
        raise by_code[-1](-1, "unknown space %r (one of %s)" %
                          (space, ", ".join(SPACES))) from None


def _on_cuda():
    return _runtime.backend() == "cuda"


def _distinct(space_index):
    """True when this space is memory the host cannot read directly."""
    return space_index != 0 and space_index != 2 and (
        _runtime.SPACE_NAMES[space_index] in _runtime.distinct_spaces())


def _shape_tuple(shape):
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise by_code[-1](-1, "negative extent in shape %r" % (shape,))
    return shape


def _kc_dtype(dtype):
    """A dtype kc memory can hold: plain bytes, no Python objects (a copy
    of object references would skip their reference counts)."""
    dt = np.dtype(dtype)
    if dt.hasobject:
        raise by_code[-1](-1, "dtype %s holds Python objects, which kc "
                          "memory cannot hold" % dt)
    return dt


def _size_and_nbytes(shape, dt):
    """Elements and bytes of `shape` in exact integers: numpy's int64
    product wraps, and ctypes cuts a size_t over 2**64 silently."""
    size = 1
    for extent in shape:
        size *= extent
    nbytes = size * dt.itemsize
    if nbytes > 2**63 - 1:
        raise by_name["NOMEM"](by_name["NOMEM"].code,
                               "shape %r of %s is %d bytes, more than any "
                               "allocation can hold" % (shape, dt, nbytes))
    return size, nbytes


class _Bytes:
    """The bytes [ptr, ptr + nbytes) as a numpy uint8 array's base, keeping
    `owner` alive as long as any array viewing them."""

    def __init__(self, ptr, nbytes, owner, writeable=True):
        self._owner = owner
        self.__array_interface__ = {"shape": (nbytes,), "typestr": "|u1",
                                    "data": (ptr or 0, not writeable),
                                    "strides": None, "version": 3}


def _host_view(ptr, nbytes, shape, dtype, owner):
    """A numpy array of `shape` and `dtype` over host memory that keeps
    `owner` alive: built as bytes, then viewed, so that any dtype
    (structured ones with padding included) comes back exactly."""
    raw = np.asarray(_Bytes(ptr, nbytes, owner))
    return raw.view(dtype).reshape(shape)


class Array:
    """One kc allocation with a shape and dtype (C order).

    Attributes: ptr (int), shape, dtype, nbytes, space (name), label.
    The allocation is freed by free() or when the object is collected,
    whichever comes first (never after kc was finalized: kc frees what is
    live at the last kc_finalize itself)."""

    def __init__(self, shape, dtype=np.float64, space="device", label=None):
        self.shape = _shape_tuple(shape)
        self.dtype = _kc_dtype(dtype)
        self.size, self.nbytes = _size_and_nbytes(self.shape, self.dtype)
        self.space = _runtime.SPACE_NAMES[_space_index(space)]
        clabel = c_str(label, "kc.Array: label") or None
        self.label = label
        self._session = _runtime.session_id()
        p = ctypes.c_void_p()
        check(L.kc_malloc(ctypes.byref(p), self.nbytes, _space_index(space),
                          clabel), "kc_malloc")
        self.ptr = p.value
        self._freed = False
        self._host = not _distinct(_space_index(space))

    # -- lifetime ------------------------------------------------------
    def free(self):
        """Frees the allocation now (idempotent)."""
        if self._freed:
            return
        self._freed = True
        if self._session == _runtime.session_id() and L.kc_is_initialized():
            check(L.kc_free(self.ptr), "kc_free")

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass

    def _live(self):
        if self._freed or self._session != _runtime.session_id():
            raise by_code[-14](-14, "this kc.Array was freed (or kc was "
                               "finalized since it was allocated)")

    def __len__(self):
        return self.shape[0] if self.shape else 1

    def __repr__(self):
        return "kc.Array(shape=%r, dtype=%s, space=%r, ptr=0x%x)" % (
            self.shape, self.dtype, self.space, self.ptr or 0)

    @property
    def host_accessible(self):
        return self._host

    # -- copies --------------------------------------------------------
    def numpy(self):
        """A numpy view of the same memory (no copy); only for memory the
        host can read (see host_accessible)."""
        self._live()
        if not self._host:
            raise by_code[-1](-1, "kc.Array in %s memory of the %s backend "
                              "is not host-accessible: use to_host()" %
                              (self.space, _runtime.backend()))
        return _host_view(self.ptr, self.nbytes, self.shape, self.dtype, self)

    @property
    def __array_interface__(self):
        self._live()
        if not self._host:
            raise AttributeError("device memory has no __array_interface__")
        return {"shape": self.shape, "typestr": self.dtype.str,
                "descr": self.dtype.descr, "data": (self.ptr, False),
                "strides": None, "version": 3}

    def to_host(self, out=None):
        """Copies the contents into a new (or the given) numpy array."""
        self._live()
        if out is None:
            out = np.empty(self.shape, self.dtype)
        out = _host_contiguous(out, self.nbytes, "out", write=True)
        if out.dtype != self.dtype:
            raise by_code[-1](-1, "out has dtype %s, the kc.Array %s" %
                              (out.dtype, self.dtype))
        check(L.kc_memcpy(out.ctypes.data, self.ptr, self.nbytes),
              "kc_memcpy")
        return out

    def from_host(self, a):
        """Copies a numpy array (or anything np.asarray takes) with as many
        elements as this array into it, converting each element to this
        array's dtype (as np.asarray(a, dtype) does)."""
        self._live()
        given = a
        a = np.ascontiguousarray(a, dtype=self.dtype)
        if a.nbytes != self.nbytes:
            # Said in what the caller passed, not in the converted copy.
            what = given if isinstance(given, np.ndarray) else a
            raise by_code[-1](-1, "from_host: the source has %d elements "
                              "of %s (%d bytes), the kc.Array %d elements "
                              "of %s (%d bytes)" %
                              (what.size, what.dtype, what.nbytes, self.size,
                               self.dtype, self.nbytes))
        check(L.kc_memcpy(self.ptr, a.ctypes.data, self.nbytes),
              "kc_memcpy")
        return self

    def copy_(self, src):
        """Copies another kc.Array (or any object kc.data_ptr takes) of the
        same size in bytes into this one; directions are inferred."""
        self._live()
        p, nbytes = _ptr_and_nbytes(src)
        if nbytes != self.nbytes:
            raise by_code[-1](-1, "copy_: %d bytes into %d" %
                              (nbytes, self.nbytes))
        check(L.kc_memcpy(self.ptr, p, self.nbytes), "kc_memcpy")
        return self

    def fill_bytes(self, value):
        """Sets every byte to `value` (kc_memset): -128 to 255."""
        self._live()
        value = byte_value(value, "fill_bytes")
        check(L.kc_memset(self.ptr, value, self.nbytes), "kc_memset")
        return self

    # -- CUDA array interface (version 3) --------------------------------
    @property
    def __cuda_array_interface__(self):
        self._live()
        if not _on_cuda():
            raise AttributeError("__cuda_array_interface__ exists only on "
                                 "the cuda backend")
        return {"shape": self.shape, "typestr": self.dtype.str,
                "descr": self.dtype.descr, "data": (self.ptr, False),
                "strides": None, "version": 3,
                # kc's launches and copies are ordered on its own queue and
                # kc_memcpy blocks; a consumer on another stream must call
                # kc.fence() first (documented).
                "stream": None}

    # -- DLPack --------------------------------------------------------
    def __dlpack_device__(self):
        if not _on_cuda():
            return (_DL_CPU, 0)
        dev = max(_runtime.info().device, 0)
        return ({"device": _DL_CUDA, "managed": _DL_CUDA_MANAGED,
                 "host_pinned": _DL_CUDA_HOST}.get(self.space, _DL_CPU),
                dev if self.space != "host" else 0)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None,
                   copy=None):
        self._live()
        if copy:
            raise BufferError("kc.Array.__dlpack__: copy=True is not "
                              "supported")
        if _on_cuda() and stream not in (None, -1):
            # The consumer's stream must see kc's work: kc orders its own
            # queue, so wait for it.
            _runtime.fence()
        return _dlpack_capsule(self)


def _host_contiguous(a, nbytes, what, write=False):
    if not isinstance(a, np.ndarray) or not a.flags.c_contiguous:
        raise by_code[-1](-1, "%s must be a C-contiguous numpy array" % what)
    if write and not a.flags.writeable:
        raise by_code[-1](-1, "%s is read-only" % what)
    if a.nbytes != nbytes:
        raise by_code[-1](-1, "%s has %d bytes, the kc.Array %d" %
                          (what, a.nbytes, nbytes))
    return a


# ------------------------------------------------------------- DLPack

_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor),
                             ("manager_ctx", ctypes.c_void_p),
                             ("deleter", _DELETER)]

# Tensors handed out and not yet deleted, by address: the managed tensor
# struct, its shape array and the kc.Array (whose memory it points at).
_exported = {}
_exported_lock = threading.Lock()


def _dl_delete(addr):
    with _exported_lock:
        _exported.pop(addr, None)


_dl_deleter = _DELETER(_dl_delete)

_capsule_destructor_t = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_pyapi = ctypes.pythonapi
_pyapi.PyCapsule_New.restype = ctypes.py_object
_pyapi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                 _capsule_destructor_t]
_pyapi.PyCapsule_IsValid.restype = ctypes.c_int
_pyapi.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_pyapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
_pyapi.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]


def _capsule_destructor(capsule):
    # A capsule never consumed (still named "dltensor") owns its tensor.
    if _pyapi.PyCapsule_IsValid(capsule, b"dltensor"):
        addr = _pyapi.PyCapsule_GetPointer(capsule, b"dltensor")
        _dl_delete(addr)


_capsule_destructor_c = _capsule_destructor_t(_capsule_destructor)

_DL_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}


def _dl_dtype(dt):
    if dt.kind not in _DL_CODES or dt.fields is not None:
        raise BufferError("DLPack cannot describe dtype %s" % dt)
    # DLPack has no byte order (native is meant) and numpy reads no
    # floats wider than 64 bits (complex: 128) through it.
    if not dt.isnative:
        raise BufferError("DLPack cannot describe the non-native byte "
                          "order of %s" % dt)
    if (dt.kind == "f" and dt.itemsize > 8) or \
            (dt.kind == "c" and dt.itemsize > 16):
        raise BufferError("DLPack consumers do not take %s" % dt)
    return _DLDataType(_DL_CODES[dt.kind], dt.itemsize * 8, 1)


def _dlpack_capsule(arr):
    mt = _DLManagedTensor()
    ndim = len(arr.shape)
    shape = (ctypes.c_int64 * max(ndim, 1))(*arr.shape)
    dev_type, dev_id = arr.__dlpack_device__()
    mt.dl_tensor.data = arr.ptr
    mt.dl_tensor.device = _DLDevice(dev_type, dev_id)
    mt.dl_tensor.ndim = ndim
    mt.dl_tensor.dtype = _dl_dtype(arr.dtype)
    mt.dl_tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    mt.dl_tensor.strides = None  # compact, row-major
    mt.dl_tensor.byte_offset = 0
    mt.manager_ctx = None
    mt.deleter = _dl_deleter
    addr = ctypes.addressof(mt)
    with _exported_lock:
        _exported[addr] = (mt, shape, arr)
    return _pyapi.PyCapsule_New(addr, b"dltensor", _capsule_destructor_c)


# ------------------------------------------------ foreign arrays into kc

def _ptr_and_nbytes(obj, write=False):
    """(pointer, bytes) of an array kc can use; `write`: kc will write it
    (a read-only numpy array is refused)."""
    if isinstance(obj, Array):
        obj._live()
        return obj.ptr, obj.nbytes
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None and not isinstance(obj, np.ndarray):
        if not _on_cuda():
            raise by_code[-1](-1, "a CUDA array (%s) cannot be used by the "
                              "%s backend" % (type(obj).__name__,
                                              _runtime.backend()))
        _check_compact(cai, type(obj).__name__)
        n = int(np.prod(cai["shape"], dtype=np.int64)) * \
            np.dtype(cai["typestr"]).itemsize
        return int(cai["data"][0] or 0), n
    if isinstance(obj, np.generic):
        raise by_code[-1](-1, "a numpy scalar (dtype %s) has no lasting "
                          "address: it is immutable, and numpy copies it "
                          "into a temporary that is freed before kc would "
                          "use the pointer; pass an array (np.array([x]), "
                          "or the array the scalar came from)" % obj.dtype)
    if isinstance(obj, np.ndarray) or hasattr(obj, "__array_interface__"):
        a = obj if isinstance(obj, np.ndarray) else _viewed(obj)
        if not a.flags.c_contiguous:
            raise by_code[-1](-1, "the numpy array must be C-contiguous "
                              "(np.ascontiguousarray makes a copy)")
        if write and not a.flags.writeable:
            raise by_code[-1](-1, "the numpy array is read-only")
        return a.ctypes.data, a.nbytes
    if hasattr(obj, "__dlpack__"):
        # torch and others: read the pointer through the array interface
        # numpy builds from the DLPack capsule (host memory only).
        a = np.from_dlpack(obj)
        return _ptr_and_nbytes(a, write)
    raise by_code[-1](-1, "%s is not an array kc can use (no "
                      "__cuda_array_interface__, __array_interface__ or "
                      "__dlpack__)" % type(obj).__name__)


def _viewed(obj):
    """np.asarray(obj) for an object with __array_interface__, refused
    unless it views memory the object itself holds: a pointer into a copy
    (or into a buffer made for the call) would be freed on return."""
    a = np.asarray(obj)
    root = a
    while isinstance(root, np.ndarray) and root.base is not None:
        root = root.base
    if isinstance(root, memoryview):  # "data": None, obj's own buffer
        root = root.obj
    if root is not obj:
        raise by_code[-1](-1, "np.asarray of the %s is not a view of its "
                          "memory (its __array_interface__ gives a copy or "
                          "a temporary buffer, freed before kc would use "
                          "the pointer); pass a numpy array" %
                          type(obj).__name__)
    return a


def _check_compact(cai, what):
    strides = cai.get("strides")
    if strides is None:
        return
    itemsize = np.dtype(cai["typestr"]).itemsize
    expect, compact = itemsize, []
    for extent in reversed(cai["shape"]):
        compact.insert(0, expect)
        expect *= extent
    if tuple(strides) != tuple(compact):
        raise by_code[-1](-1, "the %s array is not C-contiguous" % what)


def data_ptr(obj):
    """The data pointer (int) of a kc.Array, numpy array, CuPy array, torch
    tensor or any object with __cuda_array_interface__, __array_interface__
    or __dlpack__, for a functor's pointer field.  Refuses device memory on
    a host backend and non-contiguous arrays (kc.EINVAL).  No copy: the
    object must stay alive while kc uses the pointer."""
    return _ptr_and_nbytes(obj)[0]


def empty(shape, dtype=np.float64, space="host", label=None):
    """Allocates in a kc space.  Host-accessible memory comes back as a
    numpy array (zero copy; the allocation lives as long as the array and
    its views); device memory as a kc.Array."""
    a = Array(shape, dtype, space, label)
    return a.numpy() if a.host_accessible else a


def zeros(shape, dtype=np.float64, space="host", label=None):
    a = Array(shape, dtype, space, label)
    a.fill_bytes(0)
    return a.numpy() if a.host_accessible else a


def to_device(a, space="device", label=None):
    """A new kc.Array in `space` holding a copy of numpy array `a`."""
    a = np.asarray(a, order="C")  # keeps a 0-d array 0-d
    out = Array(a.shape, a.dtype, space, label)
    return out.from_host(a)


def pointer_info(obj):
    """kc_pointer_info of an object's data pointer: dict with base, size,
    space, label, refcount; None if it is not in a kc allocation."""
    p = obj if isinstance(obj, int) else data_ptr(obj)
    out = _lib.AllocInfo()
    rc = L.kc_pointer_info(p, ctypes.byref(out))
    if rc == -14:
        return None
    check(rc, "kc_pointer_info")
    return {"base": out.base, "size": out.size,
            "space": _runtime.SPACE_NAMES[out.space],
            "label": out.label.decode() if out.label else None,
            "refcount": out.refcount}


class Mirror:
    """A mirrored array (kc_mirror): .host is a numpy array, .target a
    kc.Array (the same memory on host backends).  Mark the side you wrote
    with modify_host()/modify_target(); sync_*() copies only if needed."""

    def __init__(self, shape, dtype=np.float64, label=None):
        self.shape = _shape_tuple(shape)
        self.dtype = _kc_dtype(dtype)
        n = _size_and_nbytes(self.shape, self.dtype)[1]
        m = ctypes.c_void_p()
        check(L.kc_mirror_create(ctypes.byref(m), n,
                                 c_str(label, "kc.Mirror: label") or None),
              "kc_mirror_create")
        self._m = m.value
        self._session = _runtime.session_id()
        self.nbytes = L.kc_mirror_size(self._m)
        self._hostp = L.kc_mirror_host(self._m)
        self.target = _View(L.kc_mirror_target(self._m), self.shape,
                            self.dtype, self)

    @property
    def host(self):
        """The host side as a numpy array; it keeps the mirror alive (its
        memory is gone once the mirror is destroyed explicitly)."""
        self._live()
        return _host_view(self._hostp, self.nbytes, self.shape, self.dtype,
                          self)

    def modify_host(self):
        check(L.kc_mirror_modify_host(self._live()), "kc_mirror_modify_host")

    def modify_target(self):
        check(L.kc_mirror_modify_target(self._live()),
              "kc_mirror_modify_target")

    def sync_host(self):
        check(L.kc_mirror_sync_host(self._live()), "kc_mirror_sync_host")

    def sync_target(self):
        check(L.kc_mirror_sync_target(self._live()), "kc_mirror_sync_target")

    def clear_sync_state(self):
        """Forget both modified marks (after marking both sides by
        mistake): then mark the side to keep and sync."""
        check(L.kc_mirror_clear_sync_state(self._live()),
              "kc_mirror_clear_sync_state")

    def need_sync_host(self):
        return bool(L.kc_mirror_need_sync_host(self._live()))

    def need_sync_target(self):
        return bool(L.kc_mirror_need_sync_target(self._live()))

    def _live(self):
        if self._m is None or self._session != _runtime.session_id():
            raise by_code[-14](-14, "this kc.Mirror was destroyed (or kc "
                               "was finalized since it was created)")
        return self._m

    def destroy(self):
        if self._m is not None:
            m, self._m = self._m, None
            # A mirror of an earlier session (kc finalized since) has only
            # its handle freed by kc_mirror_destroy, which returns 0 then.
            rc = L.kc_mirror_destroy(m)
            if self._session == _runtime.session_id() and \
                    L.kc_is_initialized():
                check(rc, "kc_mirror_destroy")

    def __del__(self):
        try:
            self.destroy()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()
        return False


class _View(Array):
    """A kc.Array over memory another object owns (a mirror's target)."""

    def __init__(self, ptr, shape, dtype, owner):
        self.shape, self.dtype, self.ptr, self._owner = shape, dtype, ptr, \
            owner
        self.size, self.nbytes = _size_and_nbytes(shape, dtype)
        self.label = None
        self._session = _runtime.session_id()
        self._freed = False
        info = _lib.AllocInfo()
        check(L.kc_pointer_info(ptr, ctypes.byref(info)), "kc_pointer_info")
        self.space = _runtime.SPACE_NAMES[info.space]
        self._host = not _distinct(info.space)

    def free(self):
        self._freed = True

    def _live(self):
        self._owner._live()
        super()._live()
