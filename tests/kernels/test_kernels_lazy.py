"""Kernels load on first use: ``import jitgrad`` and small-tensor programs import no Numba
(issue 11: cold start and resident memory); the first kernel call loads its module."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from jitgrad.kernels import _lazy, strided

ROOT = Path(__file__).resolve().parents[2]

SMALL_PROGRAM = """
import sys
import jitgrad
assert "numba" not in sys.modules, "import jitgrad imported numba"
x = jitgrad.randn(4, 4, dtype=jitgrad.float64, requires_grad=True)
b = x * 1.0
b[::2, 1:].mul_(2)
b.t()[0].copy_(x[0] * 3)
b.sum().backward()
assert "numba" not in sys.modules, "a small backward imported numba"
big = jitgrad.zeros(300, 300)
big.t().copy_(jitgrad.ones(300, 300))
assert "numba" in sys.modules, "a large transposed copy should run a kernel"
print(float(x.grad.sum()), float(big.sum()))
"""


def test_import_and_small_backward_load_no_numba() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SMALL_PROGRAM], capture_output=True, text=True, timeout=300,
        cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    # 12 entries outside column 0 (6 of them doubled: 18) + 3 * 4 through x[0]; 300 * 300
    assert proc.stdout.split() == ["30.0", "90000.0"]


def test_lazy_kernel_loads_its_dispatcher_once() -> None:
    kernel = _lazy.LazyKernel("_copy_jit", "_fill_strided")
    assert "not loaded" in repr(kernel)
    buf = np.zeros(6)
    kernel(buf, 1, np.array([[5], [1]], dtype=np.int64), np.float64(2.5))
    np.testing.assert_array_equal(buf, [0, 2.5, 2.5, 2.5, 2.5, 2.5])
    from jitgrad.kernels import _copy_jit

    assert kernel.load() is _copy_jit._fill_strided
    assert "loaded" in repr(kernel) and "not" not in repr(kernel)


def test_public_kernels_go_through_lazy_loaders() -> None:
    for name in ("_copy_strided", "_copy_strided_par", "_add_strided", "_add_strided_par",
                 "_scatter_block", "_fill_strided"):
        assert isinstance(getattr(strided, name), _lazy.LazyKernel), name
