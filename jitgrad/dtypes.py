"""The four dtypes jitgrad supports, as NumPy dtypes, and how other spellings map to them."""

from __future__ import annotations

import builtins

import numpy as np

float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
int64 = np.dtype(np.int64)
bool_ = np.dtype(np.bool_)

SUPPORTED: tuple[np.dtype, ...] = (float32, float64, int64, bool_)
FLOATING: tuple[np.dtype, ...] = (float32, float64)
DEFAULT_FLOAT = float32

_PYTHON_TYPES = {builtins.float: float64, builtins.int: int64, builtins.bool: bool_}
_NAMES = ", ".join(d.name for d in SUPPORTED)


def to_dtype(dtype: object, op: str = "dtype") -> np.dtype:
    """Normalise ``dtype`` (a NumPy dtype, scalar type, name, or ``float``/``int``/``bool``)."""
    if isinstance(dtype, np.dtype) and dtype in SUPPORTED:
        return dtype
    if dtype in _PYTHON_TYPES:
        return _PYTHON_TYPES[dtype]  # type: ignore[index]
    try:
        resolved = np.dtype(dtype)  # type: ignore[call-overload]
    except TypeError:
        resolved = None
    if resolved is None or resolved not in SUPPORTED or dtype is None:
        raise TypeError(f"{op}: unsupported dtype {dtype!r}; expected one of {_NAMES}")
    return resolved


def is_floating_point(dtype: np.dtype) -> bool:
    return dtype in FLOATING


def name(dtype: np.dtype) -> str:
    """The PyTorch-style name, e.g. ``jitgrad.float32``."""
    return f"jitgrad.{dtype.name}"
