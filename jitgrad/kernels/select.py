"""Selection in PyTorch's CPU order among ties (``_select_jit.py`` says how), loaded on
first use (``_lazy.py``). Called with a C-contiguous 2-D float64 or int64 array of rows.
"""
from __future__ import annotations

from ._lazy import LazyKernel

topk_rows = LazyKernel("_select_jit", "topk_rows")
kth_rows = LazyKernel("_select_jit", "kth_rows")
sort_rows = LazyKernel("_select_jit", "sort_rows")
mode_rows = LazyKernel("_select_jit", "mode_rows")
