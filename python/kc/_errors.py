"""kc's error codes as Python exceptions.

Every negative code of kc's error list becomes a subclass of ``kc.Error``
named after the code (``kc.EINVAL``, ``kc.ENOMEM``, ...).  An exception
carries the code, its name, kc's message for it and kc_last_error()'s
detail of the failed call.  The list is read from the library at import, so
codes added to the C list appear here without a change.

The checks of the values the binding hands to C parameters and fields
live here too, raising those exceptions: ctypes cuts an integer to its C
type silently (2**64 + 4 became 4), so every integer passes through
to_c() (or byte_value()), and every string through c_str().
"""

import ctypes

from . import _lib


class Error(Exception):
    """A kc call failed.  Attributes: code (negative int), name ("KC_EINVAL"),
    message (kc_strerror) and detail (kc_last_error at the time).

    Made by the binding itself (a refusal no C call returned; own=True),
    it also becomes the thread's kc_last_error() ("<call>: <detail>"), as
    the C library's own failures do, so that kc.last_error() tells of it
    and not of an older, unrelated failure."""

    code = 0
    name = "KC_E?"

    def __init__(self, code, detail="", call="", own=True):
        if own:
            text = (call + ": " + detail if call else detail).encode(
                errors="replace")
            _lib.lib.kc_set_last_error(code, text)
        self.code = code
        self.name = _lib.lib.kc_err_name(code).decode()
        self.message = _lib.lib.kc_strerror(code).decode()
        self.detail = detail
        self.call = call
        text = "%s: %s" % (self.name, self.message)
        if detail:
            text += ": " + detail
        if call:
            text = call + ": " + text
        super().__init__(text)

    def __reduce__(self):
        # The classes are made at import (not module attributes by name):
        # pickle and copy rebuild an exception from its code.
        return (_rebuild, (self.code, self.detail, self.call))


def _rebuild(code, detail, call):
    return by_code.get(code, Error)(code, detail, call, own=False)


# Python exceptions a kc code also is, so that ordinary handlers work.
_ALSO = {"INVAL": ValueError, "NOMEM": MemoryError,
         "NOTSUP": NotImplementedError, "RANGE": ValueError,
         "SIGNATURE": TypeError, "NOKERNEL": LookupError}

by_code = {}
by_name = {}  # "INVAL" -> kc.EINVAL, ...


def _make_classes():
    code = -1
    while True:
        name = _lib.lib.kc_err_name(code).decode()
        if not name.startswith("KC_E") or name == "KC_E?":
            break
        short = name[len("KC_E"):]
        bases = (Error,) + ((_ALSO[short],) if short in _ALSO else ())
        cls = type("E" + short, bases, {
            "code": code, "name": name,
            "__doc__": _lib.lib.kc_strerror(code).decode()})
        by_code[code] = cls
        by_name[short] = cls
        code -= 1


_make_classes()


def raise_for(rc, call=""):
    """Raises the exception of code rc (< 0) with the thread's detail."""
    if rc >= 0:
        return rc
    detail = (_lib.lib.kc_last_error() or b"").decode(errors="replace")
    cls = by_code.get(rc, Error)
    raise cls(rc, detail, call, own=False)


def check(rc, call=""):
    if rc < 0:
        raise_for(rc, call)
    return rc


# The C types of kc's parameters and fields, by what the messages call
# them, and the range of every ctypes integer type.
C_TYPES = {"int": ctypes.c_int, "kc_index": _lib.kc_index,
           "size_t": ctypes.c_size_t}


def int_range(ctype):
    """(lowest, highest) value of the ctypes integer type `ctype`."""
    bits = 8 * ctypes.sizeof(ctype)
    if ctype(-1).value < 0:
        return -2**(bits - 1), 2**(bits - 1) - 1
    return 0, 2**bits - 1


INT_TYPES = {t: int_range(t) for t in (
    ctypes.c_byte, ctypes.c_ubyte, ctypes.c_short, ctypes.c_ushort,
    ctypes.c_int, ctypes.c_uint, ctypes.c_long, ctypes.c_ulong,
    ctypes.c_longlong, ctypes.c_ulonglong, ctypes.c_size_t,
    ctypes.c_ssize_t, ctypes.c_int8, ctypes.c_uint8, ctypes.c_int16,
    ctypes.c_uint16, ctypes.c_int32, ctypes.c_uint32, ctypes.c_int64,
    ctypes.c_uint64)}


# What to_c checks against: the integer types' ranges, and a pointer's for
# an address given as an int (ctypes cuts that to a pointer's width too).
_RANGES = dict(INT_TYPES)
_RANGES[ctypes.c_void_p] = int_range(ctypes.c_void_p)


def to_c(value, ctype, what, code=-1, bits=None):
    """int(value), refused with error `code` (kc.EINVAL; kc.ERANGE for
    iteration bounds) naming `what` when the C type `ctype` (a name of
    C_TYPES, a ctypes integer type, or ctypes.c_void_p for an address) cannot
    hold it; `bits`: the width of a bit field of that type."""
    name = ctype if isinstance(ctype, str) else ctype.__name__
    lo, hi = _RANGES[C_TYPES.get(ctype, ctype)]
    if bits is not None:
        lo, hi = (-2**(bits - 1), 2**(bits - 1) - 1) if lo < 0 else \
            (0, 2**bits - 1)
        name = "%s, %d bits" % (name, bits)
    try:
        v = int(value)
    except (ValueError, OverflowError):  # nan, inf
        v = None
    if v is None or v != value:
        # int() cut 2.7 to 2: a fraction (or nan) is no count of anything.
        raise by_code[code](code, "%s is %r, not a whole number" %
                            (what, value))
    if not lo <= v <= hi:
        raise by_code[code](code, "%s is %d, outside its C type's range "
                            "(%s: [%d, %d])" % (what, v, name, lo, hi))
    return v


def byte_value(value, what):
    """A memset value: -128 to 255 (C's memset keeps the low byte)."""
    v = int(value)
    if not -128 <= v <= 255:
        raise by_code[-1](-1, "%s: %d is not a byte value (-128 to 255)" %
                          (what, v))
    return v


def c_str(value, what, none_ok=True):
    """The bytes of a string parameter (None stays None where allowed)."""
    if value is None and none_ok:
        return None
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bytes):
        return value
    raise by_code[-1](-1, "%s must be a str%s, not %s" % (
        what, " or None" if none_ok else "", type(value).__name__))
