"""Numba's on-disk kernel cache never stops jitgrad from working: a read-only install (falls
back to the user-wide cache dir), corrupted cache entries, and two processes compiling into
an empty cache at the same time. Each runs a copy of the package in a subprocess."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import jitgrad

PACKAGE = Path(jitgrad.__file__).parent
PROBE = Path(__file__).with_name("_cache_probe.py")


def _copy_package(tmp_path: Path, keep_cache: bool) -> Path:
    root = tmp_path / "site"
    shutil.copytree(PACKAGE, root / "jitgrad", ignore=shutil.ignore_patterns("*.pyc"))
    if not keep_cache:
        for f in (root / "jitgrad" / "kernels" / "__pycache__").glob("*.nb*"):
            f.unlink()
    return root


def _env(root: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(PYTHONPATH=str(root), HOME=str(home), PYTHONDONTWRITEBYTECODE="1")
    return env


def _check(proc: subprocess.CompletedProcess | tuple, root: Path) -> None:
    out, err, rc = (proc.stdout, proc.stderr, proc.returncode) if not isinstance(proc, tuple) else proc
    assert rc == 0, f"probe failed (rc {rc}):\n{out}\n{err[-3000:]}"
    assert f"OK {root / 'jitgrad' / '__init__.py'}" in out, out


def test_read_only_install_falls_back_to_user_cache(tmp_path):
    root = _copy_package(tmp_path, keep_cache=True)
    home = tmp_path / "home"
    home.mkdir()
    pkg = root / "jitgrad"
    cmd = [sys.executable, str(PROBE)]
    if os.geteuid() == 0:  # root ignores file modes: mount the copy read-only instead
        script = (f"mount --bind {pkg} {pkg} && mount -o remount,ro,bind {pkg} {pkg} && "
                  f"! touch {pkg}/kernels/__pycache__/probe 2>/dev/null && exec \"$@\"")
        cmd = ["unshare", "-m", "sh", "-c", script, "sh", *cmd]
        if shutil.which("unshare") is None or subprocess.run(
                ["unshare", "-m", "true"], capture_output=True).returncode != 0:
            pytest.skip("running as root without mount namespaces: cannot make a read-only copy")
    else:
        for p in [pkg, *pkg.rglob("*")]:
            p.chmod(0o555 if p.is_dir() else 0o444)
    try:
        proc = subprocess.run(cmd, env=_env(root, home), capture_output=True, text=True,
                              timeout=300, cwd=tmp_path)
    finally:
        for p in [pkg, *pkg.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
    _check(proc, root)
    assert list((home / ".cache" / "numba").rglob("*.nbi")), "no fallback cache was written"


@pytest.mark.parametrize("suffix", [".nbi", ".nbc"])
def test_corrupted_cache_entries_are_recompiled(tmp_path, suffix):
    root = _copy_package(tmp_path, keep_cache=True)
    cache = root / "jitgrad" / "kernels" / "__pycache__"
    files = sorted(cache.glob("*" + suffix))
    assert files, "the package has no kernel cache to corrupt (run `python -m jitgrad warmup`)"
    for k, f in enumerate(files):
        data = f.read_bytes()
        if k % 3 == 0:
            f.write_bytes(data[: len(data) // 2])             # truncated
        elif k % 3 == 1:
            f.write_bytes(bytes(b ^ 0x5A for b in data))      # garbled
        else:
            f.write_bytes(b"")                                # empty
    proc = subprocess.run([sys.executable, str(PROBE)], env=_env(root, tmp_path),
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    _check(proc, root)


def test_two_processes_compiling_into_an_empty_cache(tmp_path):
    root = _copy_package(tmp_path, keep_cache=False)
    procs = [subprocess.Popen([sys.executable, str(PROBE)], env=_env(root, tmp_path),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              cwd=tmp_path) for _ in range(2)]
    results = [(*p.communicate(timeout=300), p.returncode) for p in procs]
    for r in results:
        _check(r, root)
    assert list((root / "jitgrad" / "kernels" / "__pycache__").glob("*.nbi"))
    # ... and a third process loads what they wrote.
    third = subprocess.run([sys.executable, str(PROBE)], env=_env(root, tmp_path),
                           capture_output=True, text=True, timeout=300, cwd=tmp_path)
    _check(third, root)
