"""The eager kernels and Numba's on-disk cache, as ``test_compile_cache.py`` for the
compiler's interpreter: an unreadable cache index or entry is a miss (the kernel recompiles,
the answer is right), the next save rewrites it, and a later process loads the kernel from
the cache without compiling or warning. One policy (``kernels/_policy._harden_cache``) serves
both. Each step runs in a new process with ``NUMBA_CACHE_DIR`` pointed at a temporary
directory."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PROGRAM = """
import warnings
warnings.simplefilter("always")
import numpy as np
import jitgrad.kernels as jk
buf = np.zeros(12)
jk.fill(buf, 1, (3,), (3,), 2.5)
print(repr(buf.tolist()))
"""
WANT = [0.0, 2.5, 0.0, 0.0, 2.5, 0.0, 0.0, 2.5, 0.0, 0.0, 0.0, 0.0]
COMPILING = "compiling Numba kernel fill_strided"


def _run(cache: str) -> str:
    """Runs the program; its stderr (warnings, compile notices)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert eval(proc.stdout.strip().splitlines()[-1]) == WANT
    return proc.stderr


def _entries(cache: str, pattern: str) -> list[str]:
    return glob.glob(os.path.join(cache, "**", f"_copy_jit._fill_strided-*.{pattern}"), recursive=True)


def _truncate(path: str) -> None:
    Path(path).write_bytes(Path(path).read_bytes()[:7])


def _garble(path: str) -> None:
    Path(path).write_bytes(os.urandom(200))


def _empty(path: str) -> None:
    Path(path).write_bytes(b"")


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache the program compiled into, and a second process loaded from."""
    cache = tmp_path_factory.mktemp("filled")
    assert COMPILING in _run(str(cache))
    assert COMPILING not in _run(str(cache))
    return cache


@pytest.mark.parametrize("damage", [_truncate, _garble, _empty])
def test_corrupt_kernel_index_is_a_miss_then_rewritten(filled: Path, tmp_path: Path, damage) -> None:
    cache = str(tmp_path / "cache")
    shutil.copytree(filled, cache)
    (index,) = _entries(cache, "nbi")
    damage(index)
    err = _run(cache)
    assert COMPILING in err  # the index reads as empty: a miss
    assert "could not write" not in err, err
    err = _run(cache)  # the index was rewritten: loaded, no warning
    assert COMPILING not in err and "unreadable" not in err and "could not write" not in err, err


def test_corrupt_kernel_entry_is_a_miss_then_rewritten(filled: Path, tmp_path: Path) -> None:
    cache = str(tmp_path / "cache")
    shutil.copytree(filled, cache)
    for path in _entries(cache, "nbc"):
        _garble(path)
    err = _run(cache)
    assert "unreadable Numba cache entry for _fill_strided" in err and COMPILING in err, err
    err = _run(cache)
    assert COMPILING not in err and "unreadable" not in err and "could not write" not in err, err
