"""The headline scenarios of ``python -m jitgrad bench`` as an asv suite, jitgrad beside torch.

Each class takes the library as its parameter (``jitgrad``, ``torch``, and ``numpy`` where
NumPy has an equivalent), so ``asv run`` prints the twins side by side and ``setup`` builds
only the graph of the library being measured -- which keeps the ``peakmem_`` twins
meaningful (asv's peakmem is the whole process's max RSS, setup included). The torch twins
are skipped (``NotImplementedError`` in ``setup``) when torch is not installed.

``number = 1``: asv re-runs ``setup`` before every timed call, so each backward walks a
fresh graph, and building it is never timed. ``setup`` first runs the scenario once on a
throwaway graph so Numba kernels are loaded (compile time is never timed).

The workloads are defined here rather than imported from ``jitgrad.cli.bench`` so the suite
can run against older commits. Per-node overhead (scenario 6) is ``bench_engine.NodeOverhead``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any, Callable

import numpy as np

import jitgrad

try:
    import torch
except ImportError:  # the torch twins are skipped
    torch = None

LIBRARIES = ["jitgrad", "torch"]
_WARMED: set[tuple[Callable[..., Any], str]] = set()  # (scenario, library) run once already


def _library(name: str) -> Any:
    if name == "torch" and torch is None:
        raise NotImplementedError("torch is not installed")
    lib = jitgrad if name == "jitgrad" else torch
    lib.manual_seed(0)
    return lib


def row_fill(lib: Any, rows: int = 1024, cols: int = 4096) -> Callable[[], None]:
    """``buf[i].copy_(src[i] * 2)`` for every row, then the backward of ``buf.sum()``."""
    buf = lib.zeros(rows, cols)
    src = lib.randn(rows, cols, requires_grad=True)
    for i in range(rows):
        buf[i].copy_(src[i] * 2)
    return buf.sum().backward


def strided_inplace(lib: Any, n: int = 4096) -> Callable[[], None]:
    """One in-place write through a strided view of a non-leaf, then the backward."""
    x = lib.randn(n, n, requires_grad=True)
    b = x * 1.0
    b[::2, 1:-1].mul_(2)
    return b.sum().backward


def dtype_copy(lib: Any, n: int = 4096) -> Callable[[], None]:
    """``copy_`` from float64 into float32; the backward casts the gradient back."""
    src = lib.randn(n, n, dtype=lib.float64, requires_grad=True)
    dst = lib.zeros(n, n, dtype=lib.float32)
    dst.copy_(src * 1.0)
    return (dst * 1.0).sum().backward


def fanout(lib: Any, n: int = 2048, branches: int = 8) -> Callable[[], None]:
    """One input used by ``branches`` products: the backward accumulates into one buffer."""
    x = lib.randn(n, n, requires_grad=True)
    loss = (x * 1.0).sum()
    for k in range(1, branches):
        loss = loss + (x * (1.0 + k)).sum()
    return loss.backward


class _Backward:
    """Time (and peak memory of) one backward through a fresh graph per sample."""

    params = [LIBRARIES]
    param_names = ["library"]
    number = 1
    repeat = (5, 20, 30.0)
    timeout = 300
    scenario: Callable[[Any], Callable[[], None]]

    def setup(self, library: str) -> None:
        lib = _library(library)
        scenario = type(self).scenario
        if (scenario, library) not in _WARMED:  # once per process: load kernels, start pools
            scenario(lib)()
            _WARMED.add((scenario, library))
        self.backward = scenario(lib)

    def time_backward(self, library: str) -> None:
        self.backward()

    def peakmem_backward(self, library: str) -> None:
        self.backward()


class RowFill(_Backward):
    scenario = staticmethod(row_fill)
    repeat = (3, 5, 60.0)  # torch's backward takes seconds here


class StridedInplace(_Backward):
    scenario = staticmethod(strided_inplace)


class DtypeCopy(_Backward):
    scenario = staticmethod(dtype_copy)


class Fanout(_Backward):
    scenario = staticmethod(fanout)


class RowFillForward:
    """The forward of ``RowFill``: 1024 recorded ``copy_`` calls into rows of one buffer."""

    params = [LIBRARIES]
    param_names = ["library"]
    number = 1
    repeat = (5, 20, 30.0)

    def setup(self, library: str) -> None:
        self.lib = _library(library)
        self.buf = self.lib.zeros(1024, 4096)
        self.src = self.lib.randn(1024, 4096, requires_grad=True)
        self.buf[0].copy_(self.src[0] * 2)  # warm

    def time_forward(self, library: str) -> None:
        for i in range(1024):
            self.buf[i].copy_(self.src[i] * 2)


class TransposeCopy:
    """``dst.copy_(a.t())`` at 4096^2 float32, no autograd (``np.copyto(d, a.T)`` for NumPy)."""

    params = [LIBRARIES + ["numpy"]]
    param_names = ["library"]
    repeat = (5, 30, 20.0)

    def setup(self, library: str) -> None:
        if library == "numpy":
            a = np.random.default_rng(0).standard_normal((4096, 4096), dtype=np.float32)
            d = np.zeros_like(a)
            self.copy = lambda: np.copyto(d, a.T)
        else:
            lib = _library(library)
            a, dst = lib.randn(4096, 4096), lib.zeros(4096, 4096)
            self.copy = lambda: dst.copy_(a.t())
        self.copy()

    def time_copy(self, library: str) -> None:
        self.copy()


COLD_START = ("import jitgrad\n"
              "x = jitgrad.randn(128, 128, requires_grad=True)\n"
              "b = x * 1.0\n"
              "b[1:, ::2].mul_(2)\n"
              "b.t().contiguous().sum().backward()\n")


class ColdStart:
    """``import jitgrad`` plus a first small backward (views, an in-place write, a transposed
    copy) in a fresh interpreter, with the on-disk kernel cache already warm. Wall seconds
    of the whole subprocess, interpreter start-up included; median of 5."""

    timeout = 300
    unit = "seconds"

    def setup(self) -> None:
        subprocess.run([sys.executable, "-c", COLD_START], check=True,
                       env={**os.environ, "PYTHONWARNINGS": "ignore"})  # fills the cache

    def track_import_and_first_backward(self) -> float:
        times = []
        for _ in range(5):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", COLD_START], check=True)
            times.append(time.perf_counter() - start)
        return float(np.median(times))
