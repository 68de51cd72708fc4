"""kc.build's cache, as another local user or a crash would leave it: each
case ran someone else's code, crashed the process or reused a wrong
library before it was fixed (an outside review, 2026-11-27)."""

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import kc
from kc import _kernel

SRC = ('#include <kc/kernel.h>\ntypedef struct { double *y; } F;\n'
       'KC_FOR(%s, F, f, i, { f->y[i] = 1.0; })\n')


def source(tmp_path, name):
    p = tmp_path / (name + ".kc.c")
    p.write_text(SRC % name)
    return str(p)


def own_dir(tmp_path, name):
    d = tmp_path / name
    d.mkdir(mode=0o700)
    return str(d)


def test_no_home_is_no_default_cache(monkeypatch):
    # With HOME unset and no password entry, "~" stayed "~": the cache was
    # ./~/.cache/kc, under whatever directory the program ran in.
    monkeypatch.delenv("KC_PY_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setattr(os.path, "expanduser", lambda p: p)

    def no_home():
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(pathlib.Path, "home", staticmethod(no_home))
    with pytest.raises(kc.EINVAL, match="no home directory"):
        _kernel.cache_dir()


def test_relative_xdg_cache_home_is_ignored(monkeypatch):
    monkeypatch.delenv("KC_PY_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "rel/cache")
    assert os.path.isabs(_kernel.cache_dir())


def test_a_cache_others_may_write_is_refused(session, tmp_path):
    # A library planted in a shared or world-writable cache was loaded.
    d = own_dir(tmp_path, "open")
    os.chmod(d, 0o777)
    with pytest.raises(kc.EINVAL, match="others may write"):
        kc.build(source(tmp_path, "pyc_open"), cache=d)


def test_a_symlinked_cache_is_refused(session, tmp_path):
    real = own_dir(tmp_path, "real")
    link = str(tmp_path / "link")
    os.symlink(real, link)
    with pytest.raises(kc.EINVAL, match="symbolic link"):
        kc.build(source(tmp_path, "pyc_link"), cache=link)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to chown")
def test_a_cache_of_another_user_is_refused(session, tmp_path):
    d = own_dir(tmp_path, "theirs")
    os.chown(d, 65534, 65534)
    with pytest.raises(kc.EINVAL, match="belongs to uid 65534"):
        kc.build(source(tmp_path, "pyc_theirs"), cache=d)


def test_a_library_cut_short_is_built_again(session, tmp_path):
    # A cached library cut short (a crash while it was written) killed the
    # process with SIGBUS when loaded: it is now checked, and built again.
    d = own_dir(tmp_path, "cut")
    src = source(tmp_path, "pyc_cut")
    script = textwrap.dedent("""
        import glob, sys, kc
        kc.init()
        kc.build(sys.argv[1], cache=sys.argv[2])
        print("built")
    """)
    run = [sys.executable, "-c", script, src, d]
    first = subprocess.run(run, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    (so,) = [f for f in os.listdir(d) if f.endswith(".so")]
    with open(os.path.join(d, so), "r+b") as f:
        f.truncate(4096)
    again = subprocess.run(run, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, (again.returncode, again.stderr)
    assert "built" in again.stdout
    assert os.path.getsize(os.path.join(d, so)) > 4096


def test_the_key_keeps_flags_whole(session, tmp_path):
    # Flags were joined with spaces: ['-DPYC_A=1 -DPYC_B=2'] (one argument:
    # PYC_A is "1 -DPYC_B=2", PYC_B undefined) took the library built for
    # ['-DPYC_A=1', '-DPYC_B=2'].
    d = own_dir(tmp_path, "flags")
    p = tmp_path / "pyc_flags.kc.c"
    p.write_text("#ifndef PYC_B\n#error PYC_B is not defined\n#endif\n" +
                 SRC % "pyc_flags")
    kc.build(str(p), flags=["-DPYC_A=1", "-DPYC_B=2"], cache=d)
    with pytest.raises(kc.EJIT, match="PYC_B is not defined"):
        kc.build(str(p), flags=["-DPYC_A=1 -DPYC_B=2"], cache=d)


def test_a_failed_link_is_ejit(session, tmp_path):
    # ld removes its output when it fails: removing the temporary file
    # again raised FileNotFoundError, and kcc's output was lost.
    d = own_dir(tmp_path, "link")
    with pytest.raises(kc.EJIT, match="nonexistent_zz"):
        kc.build(source(tmp_path, "pyc_nolink"),
                 flags=["-lnonexistent_zz"], cache=d)
    assert [f for f in os.listdir(d) if f.startswith(".kc-tmp-")] == []


def test_kcc_that_cannot_run_is_einval(session, tmp_path, monkeypatch):
    monkeypatch.setenv("KC_KCC", str(tmp_path / "no-such-kcc"))
    with pytest.raises(kc.EINVAL, match="not an executable file"):
        kc.build(source(tmp_path, "pyc_nokcc"), cache=own_dir(tmp_path, "k"))


def test_library_path_is_a_file(session):
    assert os.path.isabs(kc.library_path) and os.path.isfile(
        kc.library_path)
