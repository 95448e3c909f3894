"""Sums of squares in PyTorch's order for ``vector_norm`` (``_norm_jit.py`` says which),
loaded on first use (``_lazy.py``). Called with a C-contiguous 2-D float64 array of rows."""
from __future__ import annotations

from ._lazy import LazyKernel

sum_squares_rows = LazyKernel("_norm_jit", "sum_squares_rows")
