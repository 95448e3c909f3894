"""Kernel benchmarks: jitgrad's Numba kernels beside their NumPy equivalents.

Each class times ``jitgrad`` and ``numpy`` doing the same work on the same data, for
contiguous, transposed, step-sliced and broadcast-source layouts. ``setup`` runs the kernel
once so JIT compilation (or loading from the on-disk cache) is never timed.
"""

from __future__ import annotations

import warnings

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



class _TorchTwin:
    """PyTorch doing the same work on the same layouts (``torch.from_numpy`` keeps the
    strides), at its default thread count; skipped when torch is not installed. Above
    ``jitgrad.kernels._parallel.PARALLEL_MIN_NUMEL`` jitgrad's float kernels use every
    Numba thread too when the other cores are idle (serial otherwise: see ``_parallel.py``),
    so on an idle machine the large sizes are thread-for-thread comparisons."""

    params = _KernelBench.params
    param_names = _KernelBench.param_names
    repeat = _KernelBench.repeat

    def setup(self, kind: str, dtype: str, n: int) -> None:
        try:
            import torch
        except ImportError:
            raise NotImplementedError("torch is not installed") from None
        dst, src = layout(kind, n, dtype)
        with warnings.catch_warnings():  # broadcast sources are read-only NumPy views
            warnings.simplefilter("ignore", UserWarning)
            self.dst, self.src = torch.from_numpy(dst), torch.from_numpy(src)
        self.time_torch(kind, dtype, n)  # warm (thread pool start-up)

    def time_torch(self, kind: str, dtype: str, n: int) -> None:
        raise NotImplementedError


class StridedCopyTorch(_TorchTwin):
    """``dst.copy_(src)``: PyTorch's twin of ``StridedCopy``."""

    def time_torch(self, kind: str, dtype: str, n: int) -> None:
        self.dst.copy_(self.src)


class StridedAddTorch(_TorchTwin):
    """``dst.add_(src)``: PyTorch's twin of ``StridedAdd``."""

    def time_torch(self, kind: str, dtype: str, n: int) -> None:
        self.dst.add_(self.src)
