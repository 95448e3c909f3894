"""The sigmoid kernels (``_sigmoid_jit.py`` says what they compute and why), loaded on first
use (``_lazy.py``). Called through ``LazyKernel.entry``: C-contiguous 1-D float32/float64
buffers and a length.
"""
from __future__ import annotations

from ._lazy import LazyKernel

forward = LazyKernel("_sigmoid_jit", "sigmoid_forward")
backward = LazyKernel("_sigmoid_jit", "sigmoid_backward")
