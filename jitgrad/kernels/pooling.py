"""The pools' window loops (``_pool_jit.py``), loaded on first use (see ``_lazy.py``)."""
from __future__ import annotations

from ._lazy import LazyKernel

max_windows = LazyKernel("_pool_jit", "_max_windows")
sum_windows = LazyKernel("_pool_jit", "_sum_windows")
spread_windows = LazyKernel("_pool_jit", "_spread_windows")
