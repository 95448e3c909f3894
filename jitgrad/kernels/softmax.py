"""Softmax of small contiguous rows by one kernel call (``_softmax_jit.py`` says what the
kernels compute and why), loaded on first use (``_lazy.py``).

The ops (``ops/softmax.py``) take these kernels for every softmax whose rows are
contiguous runs of a float32/float64 buffer (the last dim of a contiguous tensor, or a 1-D
tensor) and which has at most ``MAX_NUMEL`` elements, on every path (lean, fused and
general), so that a result never depends on the path taken. Larger ones take NumPy's
formula (its SIMD ``exp`` is faster there than the C library's, element by element).
"""
from __future__ import annotations

import numpy as np

from ._lazy import LazyKernel

MAX_NUMEL = 4096
DTYPES = frozenset((np.dtype(np.float32), np.dtype(np.float64)))

softmax_rows = LazyKernel("_softmax_jit", "softmax_rows")
log_softmax_rows = LazyKernel("_softmax_jit", "log_softmax_rows")
softmax_backward_rows = LazyKernel("_softmax_jit", "softmax_backward_rows")
log_softmax_backward_rows = LazyKernel("_softmax_jit", "log_softmax_backward_rows")


def takes(x: np.ndarray, dim: int) -> bool:
    """Whether a softmax of ``x`` along ``dim`` runs on the kernels: a C-contiguous
    float32/float64 array, ``dim`` its last, 1 to ``MAX_NUMEL`` elements."""
    return x.dtype in DTYPES and dim == x.ndim - 1 and 0 < x.size <= MAX_NUMEL \
        and x.flags.c_contiguous

