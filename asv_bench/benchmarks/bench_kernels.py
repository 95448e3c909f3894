"""Kernel benchmarks: jitgrad's Numba kernels beside their NumPy equivalents.

Each class times ``jitgrad`` and ``numpy`` doing the same work on the same data, for
contiguous, transposed, step-sliced and broadcast-source layouts. ``setup`` runs the kernel
once so JIT compilation (or loading from the on-disk cache) is never timed.
"""

from __future__ import annotations

import numpy as np

from jitgrad import kernels

from .common import DTYPES, LAYOUTS, SIZES, layout, strided


class _KernelBench:
    params = [LAYOUTS, DTYPES, SIZES]
    param_names = ["layout", "dtype", "n"]
    repeat = (3, 10, 5.0)

    def setup(self, kind: str, dtype: str, n: int) -> None:
        self.dst, self.src = layout(kind, n, dtype)
        self.dst_buf, self.dst_off, self.dst_strides = strided(self.dst)
        self.src_buf, self.src_off, self.src_strides = strided(self.src)
        self.sizes = self.dst.shape
        self.time_jitgrad(kind, dtype, n)  # warm the JIT (or load the cached kernel)
        self.time_numpy(kind, dtype, n)

    def time_jitgrad(self, kind: str, dtype: str, n: int) -> None:
        raise NotImplementedError

    def time_numpy(self, kind: str, dtype: str, n: int) -> None:
        raise NotImplementedError


class StridedCopy(_KernelBench):
    """``dst[...] = src`` — the kernel behind ``copy_``, ``clone`` and ``contiguous``."""

    def time_jitgrad(self, kind: str, dtype: str, n: int) -> None:
        kernels.strided_copy(
            self.dst_buf, self.dst_off, self.dst_strides,
            self.src_buf, self.src_off, self.src_strides, self.sizes,
        )

    def time_numpy(self, kind: str, dtype: str, n: int) -> None:
        np.copyto(self.dst, self.src)


class StridedAdd(_KernelBench):
    """``dst += src`` — gradient accumulation."""

    def time_jitgrad(self, kind: str, dtype: str, n: int) -> None:
        kernels.strided_add(
            self.dst_buf, self.dst_off, self.dst_strides,
            self.src_buf, self.src_off, self.src_strides, self.sizes,
        )

    def time_numpy(self, kind: str, dtype: str, n: int) -> None:
        np.add(self.dst, self.src, out=self.dst)


class Fill(_KernelBench):
    """``dst.fill_(v)`` on a step-sliced destination (the source layout is unused)."""

    params = [["step_sliced"], DTYPES, SIZES]

    def setup(self, kind: str, dtype: str, n: int) -> None:
        super().setup("contiguous", dtype, n)
        self.view = np.zeros((self.dst.shape[0], 2 * self.dst.shape[1]), dtype)[:, ::2]
        self.buf, self.off, self.strides = strided(self.view)

    def time_jitgrad(self, kind: str, dtype: str, n: int) -> None:
        if hasattr(self, "view"):
            kernels.fill(self.buf, self.off, self.strides, self.view.shape, 1.5)

    def time_numpy(self, kind: str, dtype: str, n: int) -> None:
        if hasattr(self, "view"):
            self.view.fill(1.5)
