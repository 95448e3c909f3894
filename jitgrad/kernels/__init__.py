"""jitgrad's kernel layer: Numba-compiled strided kernels on flat NumPy buffers.

Imports only numba, numpy and the standard library. Tensors are described as
(flat 1-D buffer, sizes, strides, storage offset), all in elements, strides >= 0.
Every public function validates its arguments before any jitted code runs. Numba itself
is imported only when a kernel first runs (``_lazy.py``).
"""
from __future__ import annotations

from .overlap import has_internal_overlap, regions_overlap, shared_only_at_same_index
from .strided import fill, scatter, strided_add, strided_copy

__all__ = ["fill", "has_internal_overlap", "regions_overlap", "scatter", "shared_only_at_same_index",
           "strided_add", "strided_copy"]
