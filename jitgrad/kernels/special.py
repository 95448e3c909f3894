"""``erf``, ``erfc`` and ``erfinv`` as NumPy ufuncs (NumPy has none; scipy is not a dependency):
Numba ``@vectorize`` ufuncs over the scalar functions of ``_special_jit.py`` (see its docstring
for the algorithms). Built, or loaded from Numba's on-disk cache, on first use: importing this
module imports no numba (see ``_lazy.py``).
"""
from __future__ import annotations

import importlib
from typing import Any

import numpy as np

_built: dict[str, Any] = {}


def ufunc(name: str) -> np.ufunc:
    """The compiled ufunc ``name`` (``"erf"``, ``"erfc"`` or ``"erfinv"``), built once."""
    fn = _built.get(name)
    if fn is None:
        if name not in ("erf", "erfc", "erfinv"):
            raise ValueError(f"kernels.special.ufunc: unknown function {name!r}; expected erf, erfc or erfinv")
        jit = importlib.import_module(f"{__package__}._special_jit")
        import numba

        fn = numba.vectorize(jit.SIGNATURES, cache=True, nopython=True)(getattr(jit, name))
        _built[name] = fn
    return fn
