"""Runtime: init/finalize, information, regions and profiling calls."""

import contextlib
import threading

from . import _lib
from ._errors import check, c_str

L = _lib.lib

# Incremented by every finalize that shuts kc down: an allocation made in an
# earlier session is gone (kc frees what is live at the last kc_finalize),
# so objects of that session must not free their pointer again.
_state = {"session": 0}
_lock = threading.Lock()


def session_id():
    return _state["session"]


class _Session:
    """What kc.init() returns: a context manager whose exit finalizes."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        finalize()
        return False


def init():
    """Loads and initialises the backend (KC_BACKEND, or the best one).
    Reference counted like kc_init.  Usable as ``with kc.init(): ...``."""
    with _lock:
        check(L.kc_init(), "kc_init")
    return _Session()


def finalize():
    """Drops one kc_init reference; the last one frees every allocation that
    is still live and shuts the backend down."""
    with _lock:
        check(L.kc_finalize(), "kc_finalize")
        if not L.kc_is_initialized():
            _state["session"] += 1


def is_initialized():
    return bool(L.kc_is_initialized())


def version():
    return L.kc_version().decode()


def backend():
    """Name of the backend in use, or None before init."""
    name = L.kc_backend_name()
    return name.decode() if name else None


def fence():
    """Waits for every launch and asynchronous copy issued so far."""
    check(L.kc_fence(), "kc_fence")


def last_error():
    return (L.kc_last_error() or b"").decode(errors="replace")


def strerror(code):
    return L.kc_strerror(code).decode()


class Info:
    """kc.info(): the backend, its device and its spaces (kc_get_info)."""

    def __init__(self, raw):
        self.backend = raw.backend.decode() if raw.backend else None
        self.path = raw.path.decode() if raw.path else None
        self.abi = (raw.abi_major, raw.abi_minor)
        self.concurrency = raw.concurrency
        self.num_threads = raw.num_threads
        self.device_count = raw.device_count
        self.device = raw.device
        self.device_from = (raw.device_from.decode(errors="replace")
                            if raw.device_from else None)
        self.distinct_spaces = tuple(
            name for bit, name in enumerate(SPACE_NAMES)
            if raw.spaces & (1 << bit))
        d = raw.dev
        self.device_name = d.name.decode(errors="replace")
        self.compute_capability = (d.compute_major, d.compute_minor)
        self.multiprocessors = d.multiprocessors
        self.total_memory = d.total_memory
        self.warp_size = d.warp_size

    def __repr__(self):
        return ("kc.Info(backend=%r, device=%r, device_name=%r, "
                "num_threads=%d, device_count=%d, distinct_spaces=%r)" %
                (self.backend, self.device, self.device_name,
                 self.num_threads, self.device_count, self.distinct_spaces))


SPACE_NAMES = ("host", "device", "managed", "host_pinned")


_info_cache = {}


def distinct_spaces():
    """The spaces with memory of their own on this backend (cached for the
    session: the backend does not change while kc is initialised)."""
    sid = _state["session"]
    if sid not in _info_cache:
        _info_cache.clear()
        _info_cache[sid] = info().distinct_spaces
    return _info_cache[sid]


def info():
    raw = _lib.Info()
    raw.struct_size = _lib.ctypes.sizeof(raw)
    check(L.kc_get_info(_lib.ctypes.byref(raw)), "kc_get_info")
    return Info(raw)


@contextlib.contextmanager
def region(name):
    """A profiling region (kokkosp_push/pop_profile_region) around a block."""
    check(L.kc_region_push(c_str(name, "kc.region: name", none_ok=False)),
          "kc_region_push")
    try:
        yield
    finally:
        check(L.kc_region_pop(), "kc_region_pop")


def region_push(name):
    check(L.kc_region_push(c_str(name, "kc.region_push: name",
                                 none_ok=False)), "kc_region_push")


def region_pop():
    check(L.kc_region_pop(), "kc_region_pop")


def declare_metadata(key, value):
    check(L.kc_declare_metadata(str(key).encode(), str(value).encode()),
          "kc_declare_metadata")


def profile_event(name):
    check(L.kc_profile_event(c_str(name, "kc.profile_event: name",
                                   none_ok=False)), "kc_profile_event")
