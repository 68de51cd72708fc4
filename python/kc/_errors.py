"""kc's error codes as Python exceptions.

Every negative code of kc's error list becomes a subclass of ``kc.Error``
named after the code (``kc.EINVAL``, ``kc.ENOMEM``, ...).  An exception
carries the code, its name, kc's message for it and kc_last_error()'s
detail of the failed call.  The list is read from the library at import, so
codes added to the C list appear here without a change.
"""

from . import _lib


class Error(Exception):
    """A kc call failed.  Attributes: code (negative int), name ("KC_EINVAL"),
    message (kc_strerror) and detail (kc_last_error at the time)."""

    code = 0
    name = "KC_E?"

    def __init__(self, code, detail="", call=""):
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
    return by_code.get(code, Error)(code, detail, call)


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
    raise cls(rc, detail, call)


def check(rc, call=""):
    if rc < 0:
        raise_for(rc, call)
    return rc
