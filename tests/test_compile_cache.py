"""``jitgrad.compile``'s interpreters and Numba's on-disk cache: a truncated, garbled or
emptied cache file is a miss (the interpreter recompiles, the answer is right), the next
save rewrites it, and a later process loads from the cache again without a warning. Each
step runs in a new process with ``NUMBA_CACHE_DIR`` pointed at a temporary directory."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

# d/dx sum(exp(x) * x ** 2 + x / 3), computed by a compiled function
PROGRAM = """
import warnings
warnings.simplefilter("always")
import numpy as np
import jitgrad
f = jitgrad.compile(lambda x: (x.exp() * x ** 2 + x / 3.0).sum())
x = jitgrad.tensor(np.array([0.5, -1.0, 2.0]), dtype=jitgrad.float64, requires_grad=True)
f(x)  # (traces)
x.grad = None
f(x).backward()
print(repr(x.grad.detach().numpy().tolist()))
"""


def _run(cache: str) -> tuple[list[float], str]:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return eval(proc.stdout.strip().splitlines()[-1]), proc.stderr


def _entries(cache: str, pattern: str) -> list[str]:
    return glob.glob(os.path.join(cache, "**", f"_interp_jit.{pattern}"), recursive=True)


def test_corrupt_cache_entries_are_misses_then_rewritten(tmp_path: Path) -> None:
    x = np.array([0.5, -1.0, 2.0])
    want = np.exp(x) * x ** 2 + np.exp(x) * 2 * x + 1 / 3
    cache = str(tmp_path)
    first, _ = _run(cache)  # compiles and fills the cache
    np.testing.assert_allclose(first, want, rtol=1e-14)
    data = _entries(cache, "interpret-*.nbc")
    index = _entries(cache, "_grad-*.nbi")
    offsets = _entries(cache, "_offsets-*.nbc")
    assert data and index and offsets, os.listdir(cache)
    for path in data:  # garbled
        Path(path).write_bytes(os.urandom(200))
    for path in index:  # truncated
        Path(path).write_bytes(Path(path).read_bytes()[:7])
    for path in offsets:  # emptied
        Path(path).write_bytes(b"")
    second, err = _run(cache)
    assert second == first
    assert "unreadable Numba cache entry for interpret" in err, err
    third, err = _run(cache)  # the entries were rewritten: loaded, no warning
    assert third == first
    assert "unreadable" not in err and "could not write" not in err, err


def test_bench_first_call_probe_compiles_cold_and_loads_warm() -> None:
    """``bench --compile``'s cold figure is a real compile (a new process, an empty cache),
    its warm one a load from the cache the cold run filled."""
    from jitgrad.cli.bench_compile import first_calls

    (cold,), (warm,) = first_calls(1)
    load_wall, load_cpu, first_wall, first_cpu = cold
    assert 0 < load_cpu <= load_wall + 0.05 and 0 < first_cpu <= first_wall + 0.05
    assert first_cpu > 3 * warm[3], (cold, warm)  # (compiling the interpreter is most of it)
