"""The eager kernels and Numba's on-disk cache, as ``test_compile_cache.py`` for the
compiler's interpreter: an unreadable cache index or entry is a miss (the kernel recompiles,
the answer is right), the next save rewrites it, and a later process loads the kernel from
the cache without compiling or warning. One policy (``kernels/_policy._harden_cache``) serves
both. Each step runs in a new process with ``NUMBA_CACHE_DIR`` pointed at a temporary
directory."""

from __future__ import annotations

import glob
import os
import pickle
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


def _run(cache: str, program: str = PROGRAM) -> str:
    """Runs the program; its stderr (warnings, compile notices)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert eval(proc.stdout.strip().splitlines()[-1]) == WANT
    return proc.stderr


def _entries(cache: str, pattern: str) -> list[str]:
    return glob.glob(os.path.join(cache, "**", f"_copy_jit._fill_strided-*.{pattern}"), recursive=True)


def _runtime(cache: str) -> list[str]:
    return glob.glob(os.path.join(cache, "**", "numba-nrt-*.nbo"), recursive=True)


def _truncate(path: str) -> None:
    Path(path).write_bytes(Path(path).read_bytes()[:7])


def _garble(path: str) -> None:
    Path(path).write_bytes(os.urandom(200))


def _flip_a_byte(path: str) -> None:
    """Damage inside the file that leaves it a valid pickle (a byte of the object code)."""
    data = bytearray(Path(path).read_bytes())
    data[len(data) // 2] ^= 0xFF
    Path(path).write_bytes(bytes(data))


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


LEAN = """
import sys
import numpy as np
import numba
import jitgrad.kernels as jk
buf = np.zeros(12)
jk.fill(buf, 1, (3,), (3,), 2.5)
loaded = sorted(m for m in ("numba.np.linalg", "numba.typed.dictobject", "numba.np.arraymath") if m in sys.modules)
# a compile after the lean load refreshes the whole target itself
@numba.njit
def uses_registries(a):
    d = {1: np.sqrt(np.sum(a * a))}
    return d[1] + np.sort(a)[0] + np.cumsum(a)[-1]
print(repr((buf.tolist(), loaded, uses_registries(np.array([3.0, 4.0])))))
"""


def test_a_cached_load_imports_no_lowering_registries(filled: Path, tmp_path: Path) -> None:
    """Loading a cached kernel starts Numba's runtime only (``kernels/_policy``, "A lean
    cache load"): none of Numba's lowering registries are imported, and a compile afterwards
    (here of a function using a dict and NumPy functions) still finds them."""
    cache = str(tmp_path / "cache")
    shutil.copytree(filled, cache)
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", LEAN], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    values, loaded, compiled = eval(proc.stdout.strip().splitlines()[-1])
    assert values == WANT and COMPILING not in proc.stderr
    assert loaded == []
    assert compiled == 15.0


# counts Numba's compiles of its runtime (NRT) library
COUNT = """
import sys
from numba.core.runtime import nrtdynmod
create = nrtdynmod.create_nrt_module
def counted(ctx):
    print("compiling the runtime", file=sys.stderr)
    return create(ctx)
nrtdynmod.create_nrt_module = counted
"""
COUNTED = COUNT + PROGRAM
NRT = "compiling the runtime"


def test_runtime_library_is_loaded_from_the_cache(filled: Path, tmp_path: Path) -> None:
    """Numba's runtime library is cached beside the kernels (``kernels/_nrt_cache.py``):
    compiled once, loaded after; a missing or unreadable file is compiled and rewritten."""
    (nbo,) = _runtime(str(filled))
    cache = str(tmp_path / "cache")
    shutil.copytree(filled, cache)
    assert NRT not in _run(cache, COUNTED)
    (nbo,) = _runtime(cache)
    for damage in (os.remove, _truncate, _garble, _flip_a_byte):
        damage(nbo)
        err = _run(cache, COUNTED)
        assert NRT in err and COMPILING not in err and "unreadable" not in err, err
        assert _runtime(cache) == [nbo]
        assert NRT not in _run(cache, COUNTED)


def _object_code(nbc: str) -> bytes:
    """The machine code in a kernel's cache entry (its pickled ``CompileResult``)."""
    import numba  # noqa: F401  (the entry's types unpickle with numba)

    with open(nbc, "rb") as f:
        libdata = pickle.loads(f.read())[0]
    name, kind, (object_code, bitcode) = libdata
    assert kind == "object"
    return object_code


def test_a_kernel_compiled_with_the_cached_runtime_is_the_same(filled: Path, tmp_path: Path) -> None:
    """A kernel compiled in a process that loaded the runtime from the cache links the
    cached runtime's bitcode: its machine code is the one compiled beside the runtime Numba
    compiles itself (here started by refreshing the CPU target first, as a compile does)."""
    (nbo,) = _runtime(str(filled))
    cache = tmp_path / "cache"
    (cache / Path(nbo).parent.name).mkdir(parents=True)
    shutil.copy(nbo, cache / Path(nbo).parent.name)
    err = _run(str(cache), COUNTED)
    assert COMPILING in err and NRT not in err, err
    own = str(tmp_path / "numba's own")
    refresh = "from numba.core.registry import cpu_target\ncpu_target.target_context.refresh()\n"
    err = _run(own, COUNT + refresh + PROGRAM)
    assert COMPILING in err and _runtime(own) == [], err
    (with_cached,), (with_own,) = _entries(str(cache), "nbc"), _entries(own, "nbc")
    assert _object_code(with_cached) == _object_code(with_own)
