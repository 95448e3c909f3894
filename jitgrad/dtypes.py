"""jitgrad's dtypes (NumPy dtypes under PyTorch's names), the default float dtype, PyTorch's
type promotion lattice, and ``finfo`` / ``iinfo``.

A jitgrad dtype *is* a ``numpy.dtype`` (``jitgrad.float32 == np.dtype("float32")``), so
buffers carry their dtype and nothing converts. The Numba kernels are compiled for
``KERNEL`` dtypes only; data of the other dtypes moves through NumPy (``regions.py``).

The default float dtype is ``DEFAULT_FLOAT``, changed only by ``set_default_dtype``; every
reader looks it up as ``dtypes.DEFAULT_FLOAT`` at call time (never import the name).
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

dtype = np.dtype  # the type of every jitgrad dtype: ``isinstance(t.dtype, jitgrad.dtype)``

bool_ = np.dtype(np.bool_)
uint8 = np.dtype(np.uint8)
int8 = np.dtype(np.int8)
int16 = np.dtype(np.int16)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
float16 = np.dtype(np.float16)
float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)

SUPPORTED: tuple[np.dtype, ...] = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64)
FLOATING: tuple[np.dtype, ...] = (float16, float32, float64)
INTEGRAL: tuple[np.dtype, ...] = (uint8, int8, int16, int32, int64)
# The dtypes jitgrad/kernels compiles signatures for (kernels/_layout.SUPPORTED_DTYPES).
KERNEL: frozenset[np.dtype] = frozenset((float32, float64, int64, bool_))

DEFAULT_FLOAT: np.dtype = float32

_PYTHON_TYPES = {builtins.float: float64, builtins.int: int64, builtins.bool: bool_}
_NAMES = ", ".join(d.name for d in SUPPORTED)


# -- PyTorch's dtype flags ---------------------------------------------------------------------
def _flags(kind: str) -> tuple[bool, bool, bool]:
    """``(is_floating_point, is_complex, is_signed)`` of a dtype of NumPy kind ``kind``."""
    return kind == "f", kind == "c", kind in "ifc"


def _give_numpy_dtypes_pytorch_flags() -> None:
    """PyTorch's ``dtype.is_floating_point``, ``is_complex`` and ``is_signed`` on jitgrad's
    dtypes, which are NumPy's (``itemsize`` NumPy's dtype has, in bytes as PyTorch's).

    ``numpy.dtype`` is an immutable type to Python code, and NumPy refuses subclasses of it,
    so the three properties go into its type dictionary directly (then the interpreter's
    attribute cache for it is reset): every NumPy dtype in the process gains them, and
    nothing else about NumPy changes. A name NumPy defines itself is left alone."""
    import ctypes
    import gc

    namespaces = [d for d in gc.get_referents(np.dtype.__dict__) if isinstance(d, dict)]
    if not namespaces:  # (not CPython's mappingproxy: the flags are missing)
        return
    for i, flag in enumerate(("is_floating_point", "is_complex", "is_signed")):
        namespaces[0].setdefault(flag, property(lambda d, i=i: _flags(d.kind)[i]))
    ctypes.pythonapi.PyType_Modified(ctypes.py_object(np.dtype))


_give_numpy_dtypes_pytorch_flags()


class UnsupportedDtype:
    """A PyTorch dtype jitgrad does not implement (``jitgrad.bfloat16``, complex, wide
    unsigned): it exists so code that names it imports, and any use raises ``TypeError``;
    it has PyTorch's flags and ``itemsize``."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"jitgrad.{self.name}"

    @property
    def is_floating_point(self) -> bool:
        return self.name == "bfloat16"

    @property
    def is_complex(self) -> bool:
        return self.name.startswith("complex")

    @property
    def is_signed(self) -> bool:
        return not self.name.startswith("uint")

    @property
    def itemsize(self) -> int:
        return _ITEMSIZES[self.name]


_ITEMSIZES = {"bfloat16": 2, "complex32": 4, "complex64": 8, "complex128": 16, "uint16": 2,
              "uint32": 4, "uint64": 8}


bfloat16 = UnsupportedDtype("bfloat16")
complex32 = UnsupportedDtype("complex32")
complex64 = UnsupportedDtype("complex64")
complex128 = UnsupportedDtype("complex128")
uint16 = UnsupportedDtype("uint16")
uint32 = UnsupportedDtype("uint32")
uint64 = UnsupportedDtype("uint64")


def to_dtype(dtype: object, op: str = "dtype") -> np.dtype:
    """Normalise ``dtype`` (a jitgrad/NumPy dtype, NumPy scalar type, name, or Python
    ``float``/``int``/``bool``); ``TypeError`` naming ``op`` for anything unsupported."""
    if isinstance(dtype, np.dtype) and dtype in SUPPORTED:
        return dtype
    if dtype in _PYTHON_TYPES:
        return _PYTHON_TYPES[dtype]  # type: ignore[index]
    if isinstance(dtype, UnsupportedDtype):
        raise TypeError(f"{op}: dtype {dtype!r} is not supported by jitgrad; expected one of {_NAMES}")
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


# -- the default float dtype ---------------------------------------------------------------
def set_default_dtype(d: Any) -> None:
    """Make ``d`` (a floating dtype) what float data, Python floats in arithmetic and the
    float factories default to, as ``torch.set_default_dtype``."""
    global DEFAULT_FLOAT
    resolved = to_dtype(d, "set_default_dtype")
    if resolved not in FLOATING:
        raise TypeError(
            f"set_default_dtype: only floating-point types are supported as the default type, "
            f"got {name(resolved)}; expected one of {', '.join(f.name for f in FLOATING)}"
        )
    DEFAULT_FLOAT = resolved


def get_default_dtype() -> np.dtype:
    return DEFAULT_FLOAT


# -- PyTorch's promotion lattice -------------------------------------------------------------
def _promote(a: np.dtype, b: np.dtype) -> np.dtype:
    if a == bool_:
        return b
    if b == bool_:
        return a
    if (a in FLOATING) != (b in FLOATING):  # integer with float: the float, whatever sizes
        return a if a in FLOATING else b
    return np.promote_types(a, b)  # within a category NumPy's table is PyTorch's (u8+i8 = i16)


_PROMOTE = {(a, b): _promote(a, b) for a in SUPPORTED for b in SUPPORTED}
_CATEGORY = {d: 0 if d == bool_ else 2 if d in FLOATING else 1 for d in SUPPORTED}


def promote_types(a: np.dtype, b: np.dtype) -> np.dtype:
    """``torch.promote_types`` for two jitgrad dtypes."""
    return _PROMOTE[a, b]


def category(d: np.dtype) -> int:
    """0 for bool, 1 for integers, 2 for floating point."""
    return _CATEGORY[d]


# -- finfo / iinfo -----------------------------------------------------------------------------
class finfo:  # noqa: N801  (PyTorch's name)
    """Machine limits of a floating dtype (``torch.finfo``): ``bits eps max min tiny
    smallest_normal resolution dtype``. ``finfo()`` describes the default dtype."""

    def __init__(self, type: Any = None) -> None:  # noqa: A002  (PyTorch's keyword)
        d = DEFAULT_FLOAT if type is None else to_dtype(type, "finfo")
        if d not in FLOATING:
            raise TypeError(f"finfo() requires a floating point input type, got {name(d)}; use iinfo")
        info = np.finfo(d)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = float(info.smallest_normal)
        self.smallest_normal = self.tiny
        self.resolution = 10.0 ** -int(info.precision)  # a Python float, as in PyTorch
        self.dtype = d.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )


class iinfo:  # noqa: N801  (PyTorch's name)
    """Limits of an integer dtype (``torch.iinfo``): ``bits min max dtype``."""

    def __init__(self, type: Any) -> None:  # noqa: A002  (PyTorch's keyword)
        d = to_dtype(type, "iinfo")
        if d not in INTEGRAL:
            raise TypeError(f"iinfo() requires an integer input type, got {name(d)}; use finfo")
        info = np.iinfo(d)
        self.bits = int(info.bits)
        self.min = int(info.min)
        self.max = int(info.max)
        self.dtype = d.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"  # torch's %g


def check_python_int(op: str, value: int) -> None:
    """PyTorch's argument parser turns a Python int into a Scalar: int64, or uint64 from
    2**63 on; beyond those it raises OverflowError before the op runs (``t.add_(10**30)``,
    whatever ``t``'s dtype)."""
    if not -(2**63) <= value < 2**64:
        raise OverflowError(
            f"{op}: int too big to convert: got {value}, expected a Python int in [-2**63, 2**64) "
            "(use a float for a larger number)"
        )


def _limits(d: np.dtype) -> tuple[float, float]:
    """The values a Scalar converted to ``d`` may take: ``(lowest, max)``; an unsigned dtype
    lets a negative value down to ``-max`` wrap (c10's ``overflows``)."""
    if d.kind == "f":
        top = float(np.finfo(d).max)
        return -top, top
    info = np.iinfo(d)
    return (-int(info.max) if info.min == 0 else int(info.min)), int(info.max)


_LIMITS = {d: _limits(d) for d in SUPPORTED if d != bool_}


def check_scalar_fits(op: str, value: bool | int | float, dtype: np.dtype) -> None:
    """c10's ``checked_convert`` of a Scalar argument to ``dtype`` (``alpha``, ``clamp``'s
    bounds, ``where``'s numbers, ``fill_``): RuntimeError when a finite value is beyond the
    dtype's range (NaN and, for a float dtype, infinities pass)."""
    limits = _LIMITS.get(dtype)
    if limits is None or isinstance(value, bool):
        return
    low, high = limits
    if (value > high or value < low) and not (dtype.kind == "f" and math.isinf(value)):
        raise RuntimeError(f"{op}: value {value!r} cannot be converted to type {dtype.name} without overflow")
