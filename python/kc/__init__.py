"""kc from Python: kernels built by kcc, arrays in every kc memory space.

    import numpy as np, kc
    with kc.init():
        lib = kc.build("saxpy.kc.c")            # kcc, cached
        x = kc.empty(n, np.float32)             # numpy, kc host memory
        ...
        lib["saxpy"](n, kc.struct(Saxpy, a=2.0, x=x, y=y))

See doc/python.md in kc's sources for the whole chapter.
"""

from ._lib import KC_AUTO as AUTO, path as library_path  # noqa: F401
from ._errors import Error, by_code as errors_by_code  # noqa: F401

from ._runtime import (init, finalize, is_initialized, version,  # noqa: F401
                       backend, fence, info, Info, last_error, strerror,
                       region, region_push, region_pop, declare_metadata,
                       profile_event, SPACE_NAMES)
from ._array import (Array, Mirror, empty, zeros, to_device,  # noqa: F401
                     data_ptr, pointer_info)
from ._kernel import (Kernel, Library, kernel, load, build,  # noqa: F401
                      cache_dir, register_call, struct, range_, mdrange,
                      team, STATIC, DYNAMIC, ITERATE_RIGHT, ITERATE_LEFT)
from ._queue import Queue, Event, on  # noqa: F401
from . import _errors

# Every error class by its short name: kc.EINVAL, kc.ENOMEM, ...
for _cls in _errors.by_code.values():
    globals()[_cls.__name__] = _cls
del _cls

range = range_  # noqa: A001  kc.range(0, n), like kc_range

__version__ = "0.2.0"
