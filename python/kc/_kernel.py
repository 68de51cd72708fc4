"""Kernels: loading kcc-built libraries, building them, launching."""

import contextlib
import ctypes
import hashlib
import json
import os
import pathlib
import shutil
import stat
import subprocess
import tempfile
import threading
import warnings

import numpy as np

from . import _lib
from . import _array
from ._errors import check, by_code, by_name, c_str, to_c, INT_TYPES

L = _lib.lib
AUTO = _lib.KC_AUTO

FOR, REDUCE, SCAN, MDFOR, MDREDUCE, TEAM, TEAM_REDUCE, CALL = range(1, 9)
_KIND_NAMES = {FOR: "for", REDUCE: "reduce", SCAN: "scan", MDFOR: "mdfor",
               MDREDUCE: "mdreduce", TEAM: "team",
               TEAM_REDUCE: "team_reduce", CALL: "call"}
_SUM, _PROD, _MIN, _MAX, _MINLOC, _MAXLOC, _CUSTOM = range(1, 8)
_SCALARS = {1: np.dtype(np.int32), 2: np.dtype(np.int64),
            3: np.dtype(np.float32), 4: np.dtype(np.float64)}
_SIG = {"p": ctypes.c_void_p, "i": ctypes.c_int32, "I": ctypes.c_uint32,
        "l": ctypes.c_int64, "L": ctypes.c_uint64, "f": ctypes.c_float,
        "d": ctypes.c_double}

STATIC, DYNAMIC = 0, 1
_FOR_KINDS = (FOR, MDFOR, TEAM)


def _inval(msg):
    return by_code[-1](-1, msg)


_ERANGE = by_name["RANGE"].code


def _bound(value, what):
    """An iteration bound: a kc_index, else kc.ERANGE (as C refuses a
    range it cannot count)."""
    return to_c(value, "kc_index", what, _ERANGE)


# ------------------------------------------------------------- policies

def range_(begin, end=None, schedule=STATIC, chunk=AUTO):
    """A 1-D range [begin, end) (range_(n) is [0, n))."""
    if end is None:
        begin, end = 0, begin
    begin, end = _bound(begin, "range begin"), _bound(end, "range end")
    if schedule == STATIC and chunk == AUTO:
        return L.kc_range(begin, end)
    return L.kc_range_schedule(begin, end, to_c(schedule, "int", "schedule"),
                               to_c(chunk, "kc_index", "chunk"))


ITERATE_RIGHT, ITERATE_LEFT = 0, 1


def mdrange(begin, end, tile=None, iterate=ITERATE_RIGHT):
    """A rank-2..6 box [begin[d], end[d]); the last dimension is the
    fastest (iterate=ITERATE_RIGHT) or the first (ITERATE_LEFT: on cuda
    the index consecutive threads take; doc/kernels.md)."""
    rank = len(begin)
    if len(end) != rank or (tile is not None and len(tile) != rank):
        raise _inval("mdrange: begin, end and tile differ in length")
    arr = _lib.kc_index * max(rank, 1)
    b = arr(*[_bound(v, "mdrange begin[%d]" % d) for d, v in enumerate(begin)])
    e = arr(*[_bound(v, "mdrange end[%d]" % d) for d, v in enumerate(end)])
    t = None if tile is None else arr(*[
        to_c(v, "kc_index", "mdrange tile[%d]" % d)
        for d, v in enumerate(tile)])
    p = L.kc_mdrange(rank, b, e, t)
    if iterate != ITERATE_RIGHT:
        check(L.kc_policy_set_iterate(ctypes.byref(p),
                                      to_c(iterate, "int", "iterate")),
              "kc_policy_set_iterate")
    return p


def team(league_size, team_size=AUTO, vector_length=1, scratch=None):
    """A league of teams.  scratch: {level: (per_team, per_thread)}."""
    p = L.kc_team_policy(_bound(league_size, "team league_size"),
                         to_c(team_size, "int", "team_size"),
                         to_c(vector_length, "int", "vector_length"))
    for level, (per_team, per_thread) in (scratch or {}).items():
        what = "scratch level %r" % (level,)
        check(L.kc_policy_set_scratch(
            ctypes.byref(p), to_c(level, "int", "scratch level"),
            to_c(per_team, "size_t", what + " per_team"),
            to_c(per_thread, "size_t", what + " per_thread")),
            "kc_policy_set_scratch")
    return p


_Policy = _lib.Policy
# Range policies of recent `n`s, so that k(n, f) in a loop builds no policy
# (the launch copies the policy; the cached object is never changed).
_ranges = {}


def _policy(p):
    if type(p) is _Policy:
        return p
    if isinstance(p, (int, np.integer)):
        p = int(p)
        r = _ranges.get(p)
        if r is None:
            if len(_ranges) > 256:
                _ranges.clear()
            r = _ranges[p] = range_(p)
        return r
    if isinstance(p, tuple) and len(p) == 2:
        return range_(p[0], p[1])
    raise _inval("a policy is a kc.range_/mdrange/team result, an int n "
                 "(the range [0, n)) or a (begin, end) pair, not %r" % (p,))


# ------------------------------------------------------------- functors

_Structure = ctypes.Structure
_addressof = ctypes.addressof
_sizeof = ctypes.sizeof
_byref = ctypes.byref


def _functor_bytes(f):
    """(pointer, size, keepalive) of a functor: a ctypes.Structure, a numpy
    structured scalar or 1-element array, bytes, or None."""
    if f is None:
        return None, 0, None
    if isinstance(f, _Structure):
        return ctypes.addressof(f), ctypes.sizeof(f), f
    if isinstance(f, np.void):
        a = np.array(f)
        return a.ctypes.data, a.nbytes, a
    if isinstance(f, np.ndarray):
        if f.size != 1 or not f.flags.c_contiguous:
            raise _inval("a numpy functor is one structured element")
        return f.ctypes.data, f.nbytes, f
    if isinstance(f, (bytes, bytearray)):
        buf = ctypes.create_string_buffer(bytes(f), len(f))
        return ctypes.addressof(buf), len(f), buf
    raise _inval("a functor is a ctypes.Structure, a numpy structured "
                 "value or bytes, not %s" % type(f).__name__)


def struct(cls, **fields):
    """Builds a ctypes.Structure of class `cls`, converting arrays given for
    pointer fields (c_void_p or POINTER(...)) with kc.data_ptr.  A field
    name cls does not have is an error (no silent zero), and so is an
    integer its field cannot hold (kc.EINVAL; ctypes would cut it): one
    outside the field's C type, or its width for a bit field, or an
    address (an int given for a pointer field) outside a pointer's."""
    names = {f[0]: f for f in cls._fields_}
    obj = cls()
    for name, value in fields.items():
        if name not in names:
            raise _inval("%s has no field %r (fields: %s)" %
                         (cls.__name__, name, ", ".join(names)))
        ctype = names[name][1]
        bits = names[name][2] if len(names[name]) > 2 else None
        what = "%s.%s" % (cls.__name__, name)
        is_ptr = ctype is ctypes.c_void_p or (
            isinstance(ctype, type) and issubclass(ctype, ctypes._Pointer))
        if is_ptr and not isinstance(value, (type(None), ctypes._Pointer,
                                             ctypes.c_void_p)):
            value = to_c(value, ctypes.c_void_p, what) if \
                isinstance(value, (int, np.integer)) else \
                _array.data_ptr(value)
            if ctype is not ctypes.c_void_p:
                value = ctypes.cast(value, ctype)
        elif ctype in INT_TYPES and isinstance(value, (int, np.integer)):
            value = to_c(value, ctype, what, bits=bits)
        setattr(obj, name, value)
    return obj


# -------------------------------------------------------------- kernels

class Kernel:
    """A registered kc kernel (kc.kernel(name)).  Attributes: name, kind
    ("for", "reduce", ...), rank, signature (CALL kernels), result_dtype
    (reducing kernels with a built-in reducer), functor_size (bytes of the
    C functor struct the kernel was built for; 0: unknown, e.g. a kernel
    registered by hand).  A launch with a functor of another size is
    refused (kc.EINVAL naming both sizes)."""

    def __init__(self, handle):
        self.handle = handle
        d = _lib.KernelDesc()
        d.struct_size = ctypes.sizeof(d)
        check(L.kc_kernel_describe(handle, ctypes.byref(d)),
              "kc_kernel_describe")
        self.name = d.name.decode()
        self._kind = d.kind
        self.kind = _KIND_NAMES.get(d.kind, str(d.kind))
        self.rank = d.rank
        self.signature = d.signature.decode() if d.signature else None
        self.functor_size = d.functor_size
        self._op = d.reducer.op
        self.value_size = d.reducer.size
        self.result_dtype = None
        if self._op in (_SUM, _PROD, _MIN, _MAX):
            self.result_dtype = _SCALARS[d.reducer.type]
        elif self._op in (_MINLOC, _MAXLOC):
            self.result_dtype = np.dtype(
                {"names": ["val", "loc"],
                 "formats": [_SCALARS[d.reducer.type], np.int64],
                 "offsets": [0, 8], "itemsize": 16})
        if self._kind == CALL:
            self._argtypes = [_SIG[c] for c in self.signature or ""]

    def __repr__(self):
        return "kc.Kernel(%r, kind=%r)" % (self.name, self.kind)

    @staticmethod
    def _label(label):
        return c_str(label, "label") or None

    def _no_functor(self, fs):
        """The C launch calls take a functor of size 0 as 'none': a kernel
        built for a functor would then read through NULL.  Refused here,
        where the kernel's size is known."""
        if fs == 0 and self.functor_size > 0:
            raise _inval("kernel '%s' takes a %d-byte functor; none was "
                         "given" % (self.name, self.functor_size))

    def for_(self, policy, functor=None, label=None):
        """kc_parallel_for; asynchronous on device backends (kc.fence())."""
        p = policy if type(policy) is _Policy else _policy(policy)
        lb = None if label is None else self._label(label)
        if isinstance(functor, _Structure):  # the common case, kept short
            rc = _pfor(lb, self.handle, _byref(p), _addressof(functor),
                       _sizeof(functor))
        else:
            fp, fs, keep = _functor_bytes(functor)
            self._no_functor(fs)
            rc = _pfor(lb, self.handle, _byref(p), fp, fs)
            del keep
        if rc:
            check(rc, "kc_parallel_for")

    def bind(self, policy, functor=None, label=None):
        """A prepared kc_parallel_for of this kernel: calling the result
        launches again with the same policy and functor (the functor is
        read at each call, so changing its fields between calls is fine).
        The arguments are converted once, so a launch costs one foreign call
        and no conversion: the fastest way to launch from a Python loop."""
        if self._kind not in _FOR_KINDS:
            raise _inval("kernel '%s' is a %s kernel; bind() prepares "
                         "parallel_for launches" % (self.name, self.kind))
        return _Launch(self, _policy(policy), functor, label)

    def reduce(self, policy, functor=None, label=None, dtype=None, out=None):
        """kc_parallel_reduce.  Returns the value: a Python scalar for the
        built-in reducers, (val, loc) for MINLOC/MAXLOC, and for a custom
        reducer a numpy value of `dtype` (a structured dtype matching the C
        struct) or the raw bytes.  With out= (a kc.Array of the value's
        size) the call is asynchronous and the value lands in out."""
        if self._kind not in (REDUCE, MDREDUCE, TEAM_REDUCE):
            raise _inval("kernel '%s' is a %s kernel, not a reduction" %
                         (self.name, self.kind))
        p = _policy(policy)
        fp, fs, keep = _functor_bytes(functor)
        self._no_functor(fs)
        if out is not None:
            if not isinstance(out, _array.Array) or out.nbytes < \
                    self.value_size:
                raise _inval("out must be a kc.Array of at least %d bytes" %
                             self.value_size)
            out._live()  # a freed array's memory may be somebody else's
            check(L.kc_parallel_reduce(self._label(label), self.handle,
                                       ctypes.byref(p), fp, fs, out.ptr),
                  "kc_parallel_reduce")
            return out
        dt = np.dtype(dtype) if dtype is not None else self.result_dtype
        if dt is not None and dt.itemsize != self.value_size:
            raise _inval("dtype %s has %d bytes; kernel '%s' reduces values "
                         "of %d bytes" % (dt, dt.itemsize, self.name,
                                          self.value_size))
        buf = ctypes.create_string_buffer(max(self.value_size, 1))
        check(L.kc_parallel_reduce(self._label(label), self.handle,
                                   ctypes.byref(p), fp, fs, buf),
              "kc_parallel_reduce")
        del keep
        raw = buf.raw[:self.value_size]
        if dt is None:
            return raw
        v = np.frombuffer(raw, dt)[0]
        if self._op in (_MINLOC, _MAXLOC) and dtype is None:
            return (v["val"].item(), int(v["loc"]))
        if dt.fields is None and dtype is None:
            return v.item()
        return v

    def scan(self, policy, functor=None, label=None, dtype=None):
        """kc_parallel_scan; returns the total over the range (a Python
        scalar for built-in sums, else as reduce())."""
        if self._kind != SCAN:
            raise _inval("kernel '%s' is a %s kernel, not a scan" %
                         (self.name, self.kind))
        p = _policy(policy)
        fp, fs, keep = _functor_bytes(functor)
        self._no_functor(fs)
        dt = np.dtype(dtype) if dtype is not None else self.result_dtype
        if dt is not None and dt.itemsize != self.value_size:
            raise _inval("dtype %s has %d bytes; kernel '%s' scans values "
                         "of %d bytes" % (dt, dt.itemsize, self.name,
                                          self.value_size))
        buf = ctypes.create_string_buffer(max(self.value_size, 1))
        check(L.kc_parallel_scan(self._label(label), self.handle,
                                 ctypes.byref(p), fp, fs, buf),
              "kc_parallel_scan")
        del keep
        raw = buf.raw[:self.value_size]
        if dt is None:
            return raw
        v = np.frombuffer(raw, dt)[0]
        return v.item() if dt.fields is None and dtype is None else v

    def call(self, policy, *args, label=None):
        """kc_parallel_call of a CALL kernel with its plain arguments
        (arrays for 'p' parameters are passed by kc.data_ptr)."""
        if self._kind != CALL:
            raise _inval("kernel '%s' is a %s kernel, not a CALL kernel" %
                         (self.name, self.kind))
        if len(args) != len(self._argtypes):
            raise by_code[-17](-17, "kernel '%s' takes %d arguments "
                               "(signature '%s'), %d given" %
                               (self.name, len(self._argtypes),
                                self.signature, len(args)))
        p = _policy(policy)
        vals = []
        for t, a in zip(self._argtypes, args):
            if t is ctypes.c_void_p and not isinstance(
                    a, (int, np.integer, type(None))):
                a = _array.data_ptr(a)
            elif t in INT_TYPES or (t is ctypes.c_void_p and a is not None):
                a = to_c(a, t, "argument %d of kernel '%s'" %
                          (len(vals) + 1, self.name))
            vals.append(t(a))
        argv = (ctypes.c_void_p * max(len(vals), 1))(
            *[ctypes.addressof(v) for v in vals])
        check(L.kc_parallel_call(self._label(label), self.handle,
                                 ctypes.byref(p), len(vals), argv),
              "kc_parallel_call")

    def __call__(self, policy, *args, **kw):
        """Launches by kind: for/team → for_, reductions → reduce, scans →
        scan, CALL → call."""
        if self._kind in _FOR_KINDS:
            return self.for_(policy, *args, **kw)
        if self._kind in (REDUCE, MDREDUCE, TEAM_REDUCE):
            return self.reduce(policy, *args, **kw)
        if self._kind == SCAN:
            return self.scan(policy, *args, **kw)
        return self.call(policy, *args, **kw)


_pfor = L.kc_parallel_for


# kc_parallel_for without argtypes, for prepared launches: its arguments are
# ctypes objects made once, so ctypes converts nothing per call.
_pfor_raw = _lib.ctypes.CDLL(_lib.path).kc_parallel_for
_pfor_raw.restype = ctypes.c_int


class _Launch:
    """What Kernel.bind() returns; call it to launch."""

    def __init__(self, k, p, functor, label):
        fp, fs, keep = _functor_bytes(functor)
        k._no_functor(fs)
        self._keep = (k, p, keep)
        self._args = (ctypes.c_char_p(Kernel._label(label)),
                      ctypes.c_void_p(k.handle), ctypes.byref(p),
                      ctypes.c_void_p(fp), ctypes.c_size_t(fs))

    def __call__(self):
        rc = _pfor_raw(*self._args)
        if rc:
            check(rc, "kc_parallel_for")


def kernel(name):
    """The registered kernel `name` (kc.ENOKERNEL if none)."""
    h = ctypes.c_void_p()
    check(L.kc_kernel_get(c_str(name, "kc.kernel: the name", none_ok=False),
                          ctypes.byref(h)), "kc_kernel_get")
    return Kernel(h.value)


def register_call(name, host, signature, ptx=None, ptx_entry=None):
    """Registers a CALL kernel by hand: `host` is the address (int) or a
    ctypes function of fn(kc_index b, kc_index e, args...), `signature`
    its parameter letters (p i I l L f d).  The strings are kept alive for
    the life of the process, as kc requires."""
    d = _lib.KernelDesc()
    d.struct_size = ctypes.sizeof(d)
    keep = [c_str(name, "register_call: name", none_ok=False),
            c_str(signature, "register_call: signature", none_ok=False),
            c_str(ptx, "register_call: ptx") or None,
            c_str(ptx_entry, "register_call: ptx_entry") or None, host]
    _registered.append(keep)
    d.name, d.signature, d.ptx, d.ptx_entry = keep[0], keep[1], keep[2], \
        keep[3]
    d.kind = CALL
    d.host = host if isinstance(host, int) else ctypes.cast(
        host, ctypes.c_void_p).value
    h = ctypes.c_void_p()
    check(L.kc_kernel_register(ctypes.byref(d), ctypes.byref(h)),
          "kc_kernel_register")
    return Kernel(h.value)


_registered = []


# ---------------------------------------------------- kernel libraries

class Library:
    """A shared library built by kcc, loaded; its kernels registered
    themselves when it was loaded.  lib.kernel(name) or lib[name]: only a
    kernel this library defines, and only if its registration was not
    refused (kernel names are global to the process: a second library
    defining the same name, such as an edited source built again, has its
    kernel refused, kc.EEXIST, and must not run the first one's)."""

    def __init__(self, path, cdll):
        self.path = path
        self.cdll = cdll

    def kernel(self, name):
        # kcc's registration sets kc__kernel_<name> in the library to the
        # handle it registered, and leaves it NULL when kc refused it.
        if not isinstance(name, str):  # bytes, as kc.kernel; else EINVAL
            name = c_str(name, "%r[name]: the kernel name" % self,
                         none_ok=False).decode(errors="replace")
        try:
            mine = ctypes.c_void_p.in_dll(self.cdll, "kc__kernel_" + name)
        except ValueError:
            raise by_name["NOKERNEL"](
                by_name["NOKERNEL"].code,
                "%s defines no kernel '%s'" % (self.path, name)) from None
        if not mine.value:
            raise by_name["EXIST"](
                by_name["EXIST"].code,
                "kernel '%s' of %s was refused when the library was "
                "loaded: another library (%s) registered that name first; "
                "kernel names are global to the process (rename the "
                "kernel, or use the first library)" %
                (name, self.path, _owner_of(name)))
        k = kernel(name)
        if k.handle != mine.value:
            raise by_name["EXIST"](by_name["EXIST"].code,
                                   "kernel '%s' of %s is not the one "
                                   "registered" % (name, self.path))
        return k

    __getitem__ = kernel

    def __repr__(self):
        return "kc.Library(%r)" % self.path


def _owner_of(name):
    """The library that registered kernel `name` first, if loaded here."""
    h = ctypes.c_void_p()
    if L.kc_kernel_get(name.encode(), ctypes.byref(h)) != 0:
        return "unknown"
    for lib in list(_loaded.values()):
        try:
            if ctypes.c_void_p.in_dll(lib.cdll, "kc__kernel_" +
                                      name).value == h.value:
                return lib.path
        except ValueError:
            pass
    return "another object of this process"


_loaded = {}
_load_lock = threading.Lock()


def load(path):
    """Loads a shared library built by kcc (its constructors register its
    kernels).  Loading the same file twice returns the same Library."""
    real = os.path.realpath(path)
    with _load_lock:
        if real not in _loaded:
            _loaded[real] = Library(real, ctypes.CDLL(real))
        return _loaded[real]


def _kcc():
    env = os.environ.get("KC_KCC")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise _inval("KC_KCC=%s is not an executable file" % env)
        return env
    for moved in (False, True):
        r = _lib.pkg_config("--variable=kcc", moved=moved)
        cand = r.stdout.strip() if r else ""
        if cand and os.access(cand, os.X_OK):
            return cand
    found = shutil.which("kcc")
    if not found:
        raise _inval("kcc not found: set KC_KCC, or PKG_CONFIG_PATH to kc's "
                     "pkgconfig directory (kc.pc names kcc), or put kcc on "
                     "PATH")
    return found


def _run(cmd, timeout=60):
    """A helper program's result, or None if it could not run."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None


def _pkg_flags():
    # The moved answer only when the plain one's libdir is not there.
    lib = _lib.pkg_config("--variable=libdir")
    moved = bool(lib) and not os.path.isdir(lib.stdout.strip())
    r = _lib.pkg_config("--cflags", "--libs", moved=moved)
    return r.stdout.split() if r else []


def cache_dir():
    """Where build() keeps compiled libraries: $KC_PY_CACHE, else
    $XDG_CACHE_HOME/kc (an absolute XDG_CACHE_HOME only, as the XDG
    specification says) or ~/.cache/kc.  Without a home directory (HOME
    unset and none in the password database) there is no default: a
    relative "~" once put the cache under the current directory, where
    another user could plant a library."""
    d = os.environ.get("KC_PY_CACHE")
    if d:
        return os.path.abspath(d)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return os.path.join(xdg, "kc")
    try:
        home = str(pathlib.Path.home())
    except (RuntimeError, KeyError):
        home = ""
    if not home or not os.path.isabs(home):
        raise _inval("kc.build: no cache directory: there is no home "
                     "directory (HOME is unset and the user has none); set "
                     "KC_PY_CACHE or pass cache=")
    return os.path.join(home, ".cache", "kc")


def _own_dir(d):
    """Creates the cache directory d (mode 0700) if needed and checks that
    it is one the caller alone can write: a directory, not a symbolic link,
    owned by this user, not writable by group or others.  A library another
    user could put there would run in this process."""
    try:
        os.makedirs(d, mode=0o700, exist_ok=True)
        st = os.lstat(d)
    except OSError as e:
        raise _inval("kc.build: cannot use cache directory %s: %s" % (d, e))
    why = None
    if stat.S_ISLNK(st.st_mode):
        why = "it is a symbolic link"
    elif not stat.S_ISDIR(st.st_mode):
        why = "it is not a directory"
    elif st.st_uid != os.geteuid():
        why = "it belongs to uid %d, not to this user (uid %d)" % (
            st.st_uid, os.geteuid())
    elif st.st_mode & 0o022:
        why = "group or others may write to it (mode %o)" % (
            st.st_mode & 0o777)
    if why:
        raise _inval("kc.build: cache directory %s refused: %s (a library "
                     "put there by someone else would run in this process;"
                     " use a directory of your own: KC_PY_CACHE or cache=)"
                     % (d, why))


def _cached_ok(path):
    """Whether the cached library can be loaded: a regular file of this
    user's, not writable by others, that passes kc's own check of shared
    objects (a file cut short by a crash killed the process with SIGBUS).
    None when there is no such file."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if (not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid()
            or st.st_mode & 0o022):
        raise _inval("kc.build: cached library %s refused: not a regular "
                     "file of this user's that only this user may write"
                     % path)
    return _lib.lib.kc_backend_check_library(os.fsencode(path)) == 0


def _stamp(path):
    """What identifies a file that is not hashed: its real path, size and
    modification time."""
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
        return "%s:%d:%d" % (real, st.st_size, st.st_mtime_ns)
    except OSError:
        return path


def _key(kcc, source, flags, depends):
    """The cache key: the source and its dependencies, the flags (each one
    whole), and what else decides the library kcc writes: kcc and libkc
    (path, size, time), kcc's configuration (C compiler, PTX compiler and
    architecture, headers) and the environment it reads."""
    h = hashlib.sha256()
    with open(source, "rb") as f:
        h.update(f.read())
    for dep in depends:
        with open(dep, "rb") as f:
            h.update(b"\0dep\0" + f.read())
    conf = _run([kcc, "--print-config"])
    parts = {
        "flags": list(flags),
        "pkg": _pkg_flags(),
        "kcc": _stamp(kcc),
        "libkc": _stamp(_lib.library_file()),
        "config": conf.stdout if conf else "",
        "env": {k: os.environ.get(k) for k in (
            "CC", "KC_NVCC", "KC_NVCCFLAGS", "KC_PTX_ARCH", "KCC_INCLUDEDIR",
            "CFLAGS", "CPPFLAGS")},
    }
    h.update(b"\0" + json.dumps(parts, sort_keys=True).encode())
    return h.hexdigest()[:24]


def build(source, flags=(), depends=(), cache=None):
    """Builds a .kc.c file into a shared library with kcc (once: the result
    is cached under a key made of the source, the files in `depends`, the
    flags, kcc and libkc, kcc's configuration and the environment it
    reads) and loads it.  Returns a kc.Library.  A failed compile raises
    kc.EJIT with kcc's output; kcc's warnings of a build that worked come
    as Python warnings."""
    kcc = _kcc()
    d = os.path.abspath(cache) if cache else cache_dir()
    _own_dir(d)
    out = os.path.join(d, "%s-%s.so" % (
        os.path.basename(source).split(".")[0],
        _key(kcc, source, flags, depends)))
    ok = _cached_ok(out)
    if ok is False:  # cut short or broken: built again
        with contextlib.suppress(FileNotFoundError):
            os.unlink(out)
    if not ok:
        _compile(kcc, source, flags, d, out)
    return load(out)


def _compile(kcc, source, flags, d, out):
    fd, tmp = tempfile.mkstemp(prefix=".kc-tmp-", suffix=".so", dir=d)
    os.close(fd)
    try:
        cmd = [kcc, "-shared", "-fPIC", "-o", tmp,
               os.path.abspath(source)] + list(flags) + _pkg_flags()
        r = _run(cmd, timeout=None)
        if r is None or r.returncode != 0:
            raise by_code[-11](-11, "kcc failed (%s):\n%s%s" % (
                " ".join(cmd), r.stdout if r else "",
                r.stderr if r else "kcc could not be run"))
        if r.stderr.strip():
            warnings.warn("kcc (%s): %s" % (source, r.stderr.strip()),
                          stacklevel=3)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, out)  # atomic: concurrent builders agree
        dfd = os.open(d, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
