"""The sigmoid ufunc and its backward kernel (``_sigmoid_jit.py`` says what they compute and
why), built or loaded from Numba's on-disk cache on first use: importing this module
imports no numba (see ``_lazy.py``).
"""
from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from ._lazy import LazyKernel

backward = LazyKernel("_sigmoid_jit", "sigmoid_backward")
_built: list[np.ufunc] = []


def ufunc() -> np.ufunc:
    """``sigmoid`` as a NumPy ufunc with float32 and float64 loops, built once."""
    if not _built:
        jit: Any = importlib.import_module(f"{__package__}._sigmoid_jit")
        import numba

        built = numba.vectorize(jit.SIGNATURES, cache=True, nopython=True)(jit.sigmoid)
        # (the NumPy ufunc itself: Numba's dynamic wrapper adds ~1 us of Python per call)
        _built.append(getattr(built, "ufunc", built))
    return _built[0]
