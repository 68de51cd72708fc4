"""Finding libkc.so and declaring its C API with ctypes.

kc's Python package binds the installed C library at run time (ctypes, from
the standard library): nothing is compiled when the package is installed, and
one package works with every kc installation whose ABI major version matches.

libkc is found, in this order:
  1. the environment variable KC_LIBRARY: the path of libkc.so (or of the
     directory holding it);
  2. pkg-config: ``pkg-config --variable=libdir kc`` (so PKG_CONFIG_PATH
     selects an installation, as it does for C programs);
  3. the dynamic linker's own search (LD_LIBRARY_PATH, ldconfig's cache).
"""

import ctypes
import ctypes.util
import os
import shutil
import subprocess

# The soname major version this package speaks (libkc.so.1).
SONAME_MAJOR = 1

kc_index = ctypes.c_int64
KC_MAX_RANK = 6
KC_AUTO = -1


class DeviceInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char * 128),
        ("compute_major", ctypes.c_int),
        ("compute_minor", ctypes.c_int),
        ("multiprocessors", ctypes.c_int),
        ("total_memory", ctypes.c_size_t),
        ("max_threads_per_block", ctypes.c_int),
        ("shared_memory_per_block", ctypes.c_size_t),
        ("shared_memory_per_block_optin", ctypes.c_size_t),
        ("constant_memory", ctypes.c_size_t),
        ("warp_size", ctypes.c_int),
        ("max_param_bytes", ctypes.c_size_t),
        ("clock_khz", ctypes.c_int),
        ("memory_clock_khz", ctypes.c_int),
        ("memory_bus_width", ctypes.c_int),
    ]


class Info(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("backend", ctypes.c_char_p),
        ("path", ctypes.c_char_p),
        ("abi_major", ctypes.c_int),
        ("abi_minor", ctypes.c_int),
        ("concurrency", ctypes.c_int),
        ("num_threads", ctypes.c_int),
        ("device_count", ctypes.c_int),
        ("device", ctypes.c_int),
        ("spaces", ctypes.c_uint),
        ("dev", DeviceInfo),
        ("device_from", ctypes.c_char_p),
    ]


class AllocInfo(ctypes.Structure):
    _fields_ = [
        ("base", ctypes.c_void_p),
        ("size", ctypes.c_size_t),
        ("space", ctypes.c_int),
        ("label", ctypes.c_char_p),
        ("refcount", ctypes.c_int),
    ]


IDENTITY_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
JOIN_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)


class Reducer(ctypes.Structure):
    _fields_ = [
        ("op", ctypes.c_int),
        ("type", ctypes.c_int),
        ("size", ctypes.c_size_t),
        ("identity", ctypes.c_void_p),
        ("join", ctypes.c_void_p),
    ]


class Policy(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int),
        ("rank", ctypes.c_int),
        ("begin", kc_index * KC_MAX_RANK),
        ("end", kc_index * KC_MAX_RANK),
        ("tile", kc_index * KC_MAX_RANK),
        ("schedule", ctypes.c_int),
        ("chunk", kc_index),
        ("league_size", kc_index),
        ("team_size", ctypes.c_int),
        ("vector_length", ctypes.c_int),
        ("scratch_per_team", ctypes.c_size_t * 2),
        ("scratch_per_thread", ctypes.c_size_t * 2),
        ("queue", ctypes.c_void_p),  # kc_queue *, NULL: the default queue
        ("iterate", ctypes.c_int),  # MD: 0 RIGHT (last index fastest), 1 LEFT
    ]


class KernelDesc(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("name", ctypes.c_char_p),
        ("kind", ctypes.c_int),
        ("rank", ctypes.c_int),
        ("host", ctypes.c_void_p),
        ("ptx", ctypes.c_char_p),
        ("ptx_entry", ctypes.c_char_p),
        ("reducer", Reducer),
        ("signature", ctypes.c_char_p),
        ("functor_size", ctypes.c_size_t),
    ]


def pkg_config(*args, moved=False):
    """pkg-config's answer about kc (a CompletedProcess, returncode 0), or
    None.  moved=True asks with --define-prefix, which puts `prefix` two
    directories above kc.pc: right for an installation moved after `make
    install`, wrong for a multiarch libdir (lib/x86_64-linux-gnu), so the
    callers ask plainly first and moved only when the plain answer names
    files that are not there."""
    pkg = shutil.which(os.environ.get("PKG_CONFIG", "pkg-config"))
    if not pkg:
        return None
    pre = ["--define-prefix"] if moved else []
    try:
        r = subprocess.run([pkg] + pre + list(args) + ["kc"],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return r if r.returncode == 0 else None


def _candidates():
    env = os.environ.get("KC_LIBRARY")
    if env:
        if os.path.isdir(env):
            yield os.path.join(env, "libkc.so.%d" % SONAME_MAJOR)
            yield os.path.join(env, "libkc.so")
        else:
            yield env
        return
    for moved in (False, True):
        out = pkg_config("--variable=libdir", moved=moved)
        libdir = out.stdout.strip() if out is not None else ""
        if libdir:
            yield os.path.join(libdir, "libkc.so.%d" % SONAME_MAJOR)
            yield os.path.join(libdir, "libkc.so")
    yield "libkc.so.%d" % SONAME_MAJOR
    found = ctypes.util.find_library("kc")
    if found:
        yield found


def _load():
    tried = []
    for path in _candidates():
        try:
            # RTLD_GLOBAL: kernel libraries built by kcc resolve kc's symbols
            # against this copy, so that their kernels register with it.
            return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL), path
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError(
        "kc: libkc.so not found; tried: %s.  Set KC_LIBRARY to its path, or "
        "PKG_CONFIG_PATH to the directory of kc.pc." % "; ".join(tried))


lib, path = _load()

# The newest symbol version this package's declarations need (libkc.map):
# the layouts of kc_policy and the launch calls it declares are KC_0.2's.
ABI_NODE = b"KC_0.2"


def _check_abi():
    """Refuses a library that is not a libkc of this package's ABI: one
    without kc's symbols, or an older libkc whose calls with the same names
    take other layouts (its kc_parallel_for is KC_0.1's)."""
    try:
        dlvsym = ctypes.CDLL(None).dlvsym
    except (AttributeError, OSError):
        dlvsym = None  # no symbol versions (not glibc): the names decide
    if dlvsym is not None:
        dlvsym.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
        dlvsym.restype = ctypes.c_void_p
        # The loader matches an unversioned symbol to any version asked
        # for, so a version kc never had must find nothing.
        if (not dlvsym(lib._handle, b"kc_parallel_for", ABI_NODE)
                or dlvsym(lib._handle, b"kc_parallel_for", b"KC_NONE")):
            raise ImportError(
                "kc: %s is not a libkc this package can use: it has no "
                "kc_parallel_for of symbol version %s (an older libkc, or "
                "another library); point KC_LIBRARY at the libkc.so of the kc "
                "source this package comes from" % (path, ABI_NODE.decode()))


_check_abi()


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def library_file():
    """The file libkc was loaded from (its real path): the loader's own
    answer (dladdr), also when it was found by its soname alone."""
    try:
        dladdr = ctypes.CDLL(None).dladdr
        dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
        dladdr.restype = ctypes.c_int
        info = _DlInfo()
        addr = ctypes.cast(lib.kc_version, ctypes.c_void_p)
        if dladdr(addr, ctypes.byref(info)) and info.dli_fname:
            return os.path.realpath(os.fsdecode(info.dli_fname))
    except (AttributeError, OSError):
        pass
    return path


# kc.library_path: a file, also when the linker's search found libkc.
path = library_file()

_c_int = ctypes.c_int
_vp = ctypes.c_void_p
_sz = ctypes.c_size_t
_cp = ctypes.c_char_p


def _decl(name, restype, *argtypes):
    try:
        fn = getattr(lib, name)
    except AttributeError:
        raise ImportError("kc: %s has no function %s: it is not a libkc "
                          "this package can use" % (path, name)) from None
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


_decl("kc_init", _c_int)
_decl("kc_backend_check_library", _c_int, _cp)
_decl("kc_finalize", _c_int)
_decl("kc_is_initialized", _c_int)
_decl("kc_version", _cp)
_decl("kc_strerror", _cp, _c_int)
_decl("kc_err_name", _cp, _c_int)
_decl("kc_last_error", _cp)
_decl("kc_set_last_error", _c_int, _c_int, _cp)
_decl("kc_backend_name", _cp)
_decl("kc_fence", _c_int)
_decl("kc_space_name", _cp, _c_int)
_decl("kc_get_info", _c_int, ctypes.POINTER(Info))
_decl("kc_malloc", _c_int, ctypes.POINTER(_vp), _sz, _c_int, _cp)
_decl("kc_free", _c_int, _vp)
_decl("kc_retain", _c_int, _vp)
_decl("kc_pointer_info", _c_int, _vp, ctypes.POINTER(AllocInfo))
_decl("kc_memcpy", _c_int, _vp, _vp, _sz)
_decl("kc_memcpy_async", _c_int, _vp, _vp, _sz)
_decl("kc_memset", _c_int, _vp, _c_int, _sz)
_decl("kc_mirror_create", _c_int, ctypes.POINTER(_vp), _sz, _cp)
_decl("kc_mirror_destroy", _c_int, _vp)
_decl("kc_mirror_host", _vp, _vp)
_decl("kc_mirror_target", _vp, _vp)
_decl("kc_mirror_size", _sz, _vp)
_decl("kc_mirror_modify_host", _c_int, _vp)
_decl("kc_mirror_modify_target", _c_int, _vp)
_decl("kc_mirror_sync_host", _c_int, _vp)
_decl("kc_mirror_sync_target", _c_int, _vp)
_decl("kc_mirror_need_sync_host", _c_int, _vp)
_decl("kc_mirror_need_sync_target", _c_int, _vp)
_decl("kc_mirror_clear_sync_state", _c_int, _vp)
_decl("kc_reducer_value_size", _sz, ctypes.POINTER(Reducer))
_decl("kc_range", Policy, kc_index, kc_index)
_decl("kc_range_schedule", Policy, kc_index, kc_index, _c_int, kc_index)
_decl("kc_mdrange", Policy, _c_int, ctypes.POINTER(kc_index),
      ctypes.POINTER(kc_index), ctypes.POINTER(kc_index))
_decl("kc_team_policy", Policy, kc_index, _c_int, _c_int)
_decl("kc_policy_set_iterate", _c_int, ctypes.POINTER(Policy), _c_int)
_decl("kc_policy_set_scratch", _c_int, ctypes.POINTER(Policy), _c_int, _sz,
      _sz)
_decl("kc_kernel_register", _c_int, ctypes.POINTER(KernelDesc),
      ctypes.POINTER(_vp))
_decl("kc_kernel_get", _c_int, _cp, ctypes.POINTER(_vp))
_decl("kc_kernel_name", _cp, _vp)
_decl("kc_kernel_describe", _c_int, _vp, ctypes.POINTER(KernelDesc))
_decl("kc_parallel_for", _c_int, _cp, _vp, ctypes.POINTER(Policy), _vp, _sz)
_decl("kc_parallel_reduce", _c_int, _cp, _vp, ctypes.POINTER(Policy), _vp,
      _sz, _vp)
_decl("kc_parallel_scan", _c_int, _cp, _vp, ctypes.POINTER(Policy), _vp, _sz,
      _vp)
_decl("kc_parallel_call", _c_int, _cp, _vp, ctypes.POINTER(Policy), _c_int,
      ctypes.POINTER(_vp))
_decl("kc_region_push", _c_int, _cp)
_decl("kc_region_pop", _c_int)
_decl("kc_declare_metadata", _c_int, _cp, _cp)
_decl("kc_profile_event", _c_int, _cp)

# Queues and events (doc/queues.md).
_decl("kc_queue_create", _c_int, ctypes.POINTER(_vp), _c_int)
_decl("kc_queue_destroy", _c_int, _vp)
_decl("kc_queue_fence", _c_int, _vp)
_decl("kc_queue_device", _c_int, _vp, ctypes.POINTER(_c_int))
_decl("kc_memcpy_on", _c_int, _vp, _vp, _vp, _sz)
_decl("kc_memset_on", _c_int, _vp, _vp, _c_int, _sz)
_decl("kc_event_create", _c_int, ctypes.POINTER(_vp))
_decl("kc_event_destroy", _c_int, _vp)
_decl("kc_event_record", _c_int, _vp, _vp)
_decl("kc_event_wait", _c_int, _vp, _vp)
_decl("kc_event_synchronize", _c_int, _vp)
_decl("kc_event_query", _c_int, _vp)
_decl("kc_event_elapsed", _c_int, _vp, _vp, ctypes.POINTER(ctypes.c_double))
