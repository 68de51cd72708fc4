import subprocess
import sys

import pytest

import kc


def test_version_and_errors():
    assert kc.version().count(".") == 2
    assert kc.strerror(-1) == "invalid argument"
    assert issubclass(kc.EINVAL, kc.Error) and issubclass(kc.EINVAL,
                                                          ValueError)
    assert kc.errors_by_code[-3] is kc.ENOINIT


def test_calls_before_init_raise_enoinit():
    code = ("import kc\n"
            "try:\n    kc.fence()\nexcept kc.ENOINIT as e:\n"
            "    print(e.code, e.name)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True).stdout
    assert out.split() == ["-3", "KC_ENOINIT"]


def test_bad_backend_is_enobackend():
    code = ("import kc\n"
            "try:\n    kc.init()\nexcept kc.ENOBACKEND as e:\n"
            "    print(e.name, 'detail' if e.detail else 'none')\n")
    import os
    env = dict(os.environ, KC_BACKEND="no-such-backend")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True, env=env).stdout
    assert out.split() == ["KC_ENOBACKEND", "detail"]


def test_init_context_manager_and_refcount(session):
    assert kc.is_initialized()
    with kc.init():
        assert kc.backend() == session.backend
    assert kc.is_initialized()  # the session fixture's reference remains


def test_info(session):
    import os
    i = kc.info()
    assert i.backend == kc.backend()
    want = os.environ.get("KC_BACKEND")
    if want:
        assert i.backend == want
    assert i.num_threads >= 1 and i.device_count >= 1
    assert "host" in i.distinct_spaces
    assert i.device_from  # what chose the device ("host backend" on host)
    assert "kc.Info" in repr(i)


def test_regions_metadata_events(session):
    with kc.region("python-region"):
        kc.profile_event("python-event")
    kc.declare_metadata("python", "yes")
    kc.region_push("r2")
    kc.region_pop()
    with pytest.raises(kc.EINVAL):
        kc.region_pop()  # pop without push


def test_fence(session):
    kc.fence()


def test_last_error_detail(session):
    with pytest.raises(kc.ENOKERNEL) as e:
        kc.kernel("no_such_kernel_anywhere")
    assert "no_such_kernel_anywhere" in e.value.detail
    assert "no_such_kernel_anywhere" in kc.last_error()
