"""Creating tensors: from data, from NumPy (sharing memory), from DLPack, and factories."""

from __future__ import annotations

import numbers
import sys
from typing import Any, Sequence

import numpy as np

from . import _tracing, dtypes
from .geometry import numel
from .geometry.strided import as_int_tuple
from .copying import scalar_value
from .device import check as check_device
from .geometry.layout import preserve_strides
from .layouts import check_layout, check_memory_format, check_pin_memory, format_strides
from .storage import Storage, allocate
from .tensor import Tensor, sizes_arg

def _finish(t: Tensor, requires_grad: bool | None) -> Tensor:
    if requires_grad.__class__ is not bool and requires_grad is not None:  # (None: False, but
        _refuse_requires_grad(requires_grad)  # not for ``tensor()``, which checks first)
    if _tracing.ACTIVE is not None:  # jitgrad.compile: a constant made inside the function
        _tracing.ACTIVE.constant(t)
    if requires_grad:
        t.requires_grad_(True)  # type: ignore[attr-defined]
    return t


def _refuse_requires_grad(value: Any) -> None:
    """PyTorch's argument parser takes only a bool (or None, but not for ``tensor``: not 1,
    not numpy.bool) for a factory's ``requires_grad``; the error names the public factory called (the first
    caller whose name is not private: ``zeros`` for ``zeros`` and ``new_zeros`` alike)."""
    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_code.co_name.startswith("_"):
        frame = frame.f_back
    cls = type(value)
    name = cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    raise TypeError(f"{frame.f_code.co_name}(): argument 'requires_grad' must be bool, not {name}")


def _sizes(op: str, size: Sequence[Any]) -> tuple[int, ...]:
    sizes = as_int_tuple(op, "size", sizes_arg(op, size))
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"{op}(): Trying to create tensor with negative dimension: {list(sizes)}")
    return sizes


def _size_arg(op: str, args: tuple[Any, ...], size: Any) -> tuple[int, ...]:
    """Sizes given positionally (``zeros(2, 3)``, ``zeros((2, 3))``) or as ``size=``."""
    if size is not None:
        if args:
            raise TypeError(f"{op}(): got sizes both positionally {args!r} and as size={size!r}")
        args = (size,)
    return _sizes(op, args)


def _dtype_or(dtype: object, default: np.dtype, op: str) -> np.dtype:
    return default if dtype is None else dtypes.to_dtype(dtype, op)


def _options(
    op: str, dtype: object, default: np.dtype, device: Any = None, layout: Any = None,
    pin_memory: bool = False,
) -> np.dtype:
    """Check the PyTorch tensor options every factory takes; return the dtype to make."""
    check_device(f"{op}()", device)
    check_layout(op, layout)
    check_pin_memory(op, pin_memory)
    return _dtype_or(dtype, default, op)


def from_numpy_copy(array: np.ndarray, dtype: np.dtype | None = None) -> Tensor:
    """A new contiguous tensor holding a copy of ``array`` (converted to ``dtype`` if given)."""
    target = array.dtype if dtype is None else dtype
    with np.errstate(over="ignore", invalid="ignore"):  # overflow to inf, as PyTorch casts
        flat = np.array(array, dtype=target, order="C", copy=True).reshape(-1)
    return Tensor._from_buffer(flat, tuple(array.shape))


def _scalar_dtype(v: Any) -> np.dtype | None:
    """The dtype PyTorch infers for one leaf of ``tensor()`` data (None for a non-number)."""
    kind = type(v)
    if kind is float:
        return dtypes.DEFAULT_FLOAT
    if kind is int:
        return dtypes.int64
    if kind is bool:
        return dtypes.bool_
    if isinstance(v, (np.generic, np.ndarray)) and v.dtype in dtypes.SUPPORTED:
        return v.dtype  # NumPy data keeps its dtype (np.float64(1.5) -> float64)
    if isinstance(v, Tensor):
        return v.dtype
    if isinstance(v, (bool, np.bool_)):
        return dtypes.bool_
    if isinstance(v, numbers.Integral):
        return dtypes.int64
    if isinstance(v, numbers.Real):
        return dtypes.DEFAULT_FLOAT
    return None


def _infer_dtype(op: str, data: Any, array: np.ndarray) -> np.dtype:
    """PyTorch's ``infer_scalar_type``: promote the dtypes of every leaf of ``data``."""
    if array.dtype.kind not in "biuf" and not (  # (objects: NumPy's form of ints past int64)
            array.dtype.kind == "O" and isinstance(data, (list, tuple, int))
            and all(isinstance(v, (bool, int, float)) for v in _python_leaves(data))):
        raise TypeError(
            f"{op}(): cannot make a tensor from data of type {array.dtype} "
            f"({type(data).__name__}); expected numbers (bool, int, float) or nested sequences of them"
        )
    if not isinstance(data, (list, tuple)):
        found = _scalar_dtype(data)
        if found is None:  # some other array-like: what NumPy made of it
            found = array.dtype if array.dtype in dtypes.SUPPORTED else _scalar_dtype(array.flat[0] if array.size else 0.0)
        return found  # type: ignore[return-value]
    result: np.dtype | None = None
    stack = [data]
    while stack:
        for v in stack.pop():
            if isinstance(v, (list, tuple)):
                stack.append(v)
                continue
            d = _scalar_dtype(v)
            if d is None:  # not a number: NumPy's array already refused or will convert it
                d = dtypes.DEFAULT_FLOAT
            if d is not result:
                result = d if result is None else dtypes.promote_types(result, d)
    return dtypes.DEFAULT_FLOAT if result is None else result


def tensor(
    data: Any, *, dtype: object = None, device: Any = None, requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A new tensor holding a copy of ``data`` (nested sequences, scalars, arrays, tensors)."""
    if requires_grad is None:
        _refuse_requires_grad(requires_grad)
    check_device("tensor()", device)
    check_pin_memory("tensor", pin_memory)
    if isinstance(data, Tensor):
        data = data._numpy()
    if isinstance(data, (str, bytes)):
        raise TypeError(f"tensor(): cannot make a tensor from {type(data).__name__}")
    try:
        array = np.asarray(data)
    except ValueError as exc:
        _refuse_non_numbers(data, dtype)
        raise ValueError(
            f"tensor(): data is ragged (nested sequences of different lengths): {exc}"
        ) from None
    if array.dtype.kind in "OU" and (isinstance(data, (list, tuple)) or array.ndim == 0):
        _refuse_non_numbers(data, dtype)  # (an array of objects: _infer_dtype's refusal)
    if array.dtype == object and array.size == 0 and array.ndim:
        array = array.astype(np.float64)
    inferred = _infer_dtype("tensor", data, array)
    target = inferred if dtype is None else dtypes.to_dtype(dtype, "tensor")
    if target.kind in "iu" and array.dtype.kind not in "ib" and isinstance(data, (list, tuple, int)) \
            and _beyond_int64(data):
        # (PyTorch reads each Python int as a C long long for an integer dtype, and says so
        # in CPython's words; NumPy makes uint64, float64 or objects of ints past int64, and
        # int64 of any others: only then are the leaves looked at)
        raise ValueError("Overflow when unpacking long long")
    if target in dtypes.INTEGRAL and isinstance(data, (list, tuple, int, float)):
        _check_fits("tensor", array, target)
    return _finish(from_numpy_copy(array, target), requires_grad)


_NUMBERS = (bool, int, float, np.generic, Tensor)
_NOTHING = object()


def _leaves_in_order(data: Any) -> Any:
    """The leaves of nested lists and tuples, first to last (depth first)."""
    for v in data:
        if isinstance(v, (list, tuple)):
            yield from _leaves_in_order(v)
        else:
            yield v


def _refuse_non_numbers(data: Any, dtype: object) -> None:
    """PyTorch's refusal of ``tensor()`` data holding something other than numbers: a str
    first in every dim reads as one more dim; then, without a dtype, the first leaf that is
    no number stops the dtype's inference; with one, its conversion fails."""
    first = data
    while isinstance(first, (list, tuple)) and first:
        first = first[0]
    if isinstance(first, str):
        raise ValueError(f"tensor(): too many dimensions '{type(first).__name__}'")
    leaves = _leaves_in_order(data) if isinstance(data, (list, tuple)) else iter((data,))
    leaf = next((v for v in leaves if not isinstance(v, _NUMBERS)), _NOTHING)
    if leaf is _NOTHING:
        return
    name = type(leaf).__name__
    if dtype is None:
        if isinstance(leaf, str):
            raise TypeError(f"tensor(): invalid data type '{name}' (expected numbers)")
        raise RuntimeError(f"tensor(): Could not infer dtype of {name} (expected numbers)")
    if dtypes.to_dtype(dtype, "tensor").kind == "f":
        raise TypeError(f"tensor(): must be real number, not {name}")
    raise TypeError(f"tensor(): '{name}' object cannot be interpreted as an integer")


def _python_leaves(data: Any) -> Any:
    """The leaves of nested lists and tuples (``data`` itself if it is neither)."""
    if not isinstance(data, (list, tuple)):
        yield data
        return
    stack = [data]
    while stack:
        for v in stack.pop():
            if isinstance(v, (list, tuple)):
                stack.append(v)
            else:
                yield v


def _beyond_int64(data: Any) -> bool:
    """Whether Python data holds an int outside int64's range."""
    return any(type(v) is int and not -(2**63) <= v < 2**63 for v in _python_leaves(data))


def _check_fits(op: str, array: np.ndarray, target: np.dtype) -> None:
    """PyTorch's checked conversion of Python numbers to an integer dtype: a float must be
    finite and in range; an int in range, or down to ``-max`` for an unsigned dtype (it wraps)."""
    if array.size == 0 or array.dtype.kind == "b":
        return
    info = np.iinfo(target)
    with np.errstate(invalid="ignore"):
        if array.dtype.kind == "f":
            bad = ~np.isfinite(array) | (array < info.min) | (array > info.max)
        else:
            low = -int(info.max) if info.min == 0 else int(info.min)
            bad = (array < low) | (array > info.max)
    if bad.any():
        value = array[bad].flat[0].item()
        raise RuntimeError(f"{op}(): value {value!r} cannot be converted to {target.name} without overflow")


def as_tensor(data: Any, *, dtype: object = None, device: Any = None) -> Tensor:
    """``data`` itself if it is a tensor of ``dtype``; a NumPy array shares memory when it can."""
    check_device("as_tensor()", device)
    if isinstance(data, Tensor) and (dtype is None or dtypes.to_dtype(dtype) == data.dtype):
        return data
    if isinstance(data, np.ndarray) and (dtype is None or dtypes.to_dtype(dtype) == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing ``array``'s memory.

    Arrays whose layout a (non-negative, element-strided) tensor cannot describe — negative
    strides, strides that are not a multiple of the item size, misaligned or byte-swapped data
    — are copied. A read-only array gives a tensor that refuses in-place writes.
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy(): expected np.ndarray, got {type(array).__name__}")
    dtype = array.dtype
    if dtype.newbyteorder("=") not in dtypes.SUPPORTED:
        raise TypeError(
            f"from_numpy(): unsupported dtype {dtype}; expected one of "
            f"{', '.join(d.name for d in dtypes.SUPPORTED)} (convert first, e.g. a.astype(np.float32))"
        )
    item = dtype.itemsize
    shareable = (
        dtype.isnative
        and array.flags.aligned
        and all(s >= 0 and s % item == 0 for s in array.strides)
    )
    if not shareable:
        out = from_numpy_copy(array, dtype.newbyteorder("="))
        if not array.flags.writeable:
            out._storage.buffer.flags.writeable = False
        return out
    sizes = tuple(array.shape)
    strides = tuple(s // item for s in array.strides)
    span = 0 if array.size == 0 else sum((n - 1) * s for n, s in zip(sizes, strides)) + 1
    buffer = np.lib.stride_tricks.as_strided(
        array, shape=(span,), strides=(item,), writeable=array.flags.writeable
    )
    t = Tensor._make(Storage(buffer), sizes, strides, 0)
    t._storage.resizable = False  # NumPy owns this memory: resize_ may not reallocate it
    return t


def from_dlpack(obj: Any) -> Tensor:
    """Zero-copy import of any DLPack producer (NumPy arrays, PyTorch tensors, ...)."""
    if isinstance(obj, Tensor):
        if obj.requires_grad:  # type: ignore[attr-defined]  # (PyTorch's ``__dlpack__`` refuses it)
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        return obj
    return from_numpy(np.from_dlpack(obj))


# -- factories ---------------------------------------------------------------------------------
def _filled(
    op: str, args: tuple[Any, ...], size: Any, fill: Any, dtype: object, device: Any, layout: Any,
    pin_memory: bool, requires_grad: bool,
) -> Tensor:
    sizes = _size_arg(op, args, size)
    target = _options(op, dtype, dtypes.DEFAULT_FLOAT, device, layout, pin_memory)
    return _finish(Tensor._from_buffer(allocate(numel(sizes), target, fill), sizes), requires_grad)


def empty(
    *args: Any, size: Any = None, dtype: object = None, layout: Any = None, device: Any = None,
    requires_grad: bool = False, pin_memory: bool = False, memory_format: Any = None,
    out: None = None,
) -> Tensor:
    check_memory_format("empty", memory_format, ("contiguous_format", "channels_last", "channels_last_3d"))
    _no_out("empty", out)
    t = _filled("empty", args, size, None, dtype, device, layout, pin_memory, requires_grad)
    if memory_format is not None:
        t._strides = format_strides("empty", memory_format, t._sizes)  # type: ignore[assignment]
    return t


def zeros(
    *args: Any, size: Any = None, dtype: object = None, layout: Any = None, device: Any = None,
    requires_grad: bool = False, pin_memory: bool = False, out: None = None,
) -> Tensor:
    _no_out("zeros", out)
    return _filled("zeros", args, size, 0, dtype, device, layout, pin_memory, requires_grad)


def ones(
    *args: Any, size: Any = None, dtype: object = None, layout: Any = None, device: Any = None,
    requires_grad: bool = False, pin_memory: bool = False, out: None = None,
) -> Tensor:
    _no_out("ones", out)
    return _filled("ones", args, size, 1, dtype, device, layout, pin_memory, requires_grad)


def _no_out(op: str, out: Any) -> None:
    if out is not None:
        raise TypeError(f"{op}(): out= is not supported by jitgrad; assign the result instead")


def empty_strided(
    size: Sequence[int], stride: Sequence[int], *, dtype: object = None, layout: Any = None,
    device: Any = None, requires_grad: bool = False, pin_memory: bool = False,
) -> Tensor:
    """An uninitialised tensor with exactly these sizes and strides, on a storage just big
    enough for them."""
    sizes = _sizes("empty_strided", (size,))
    strides = as_int_tuple("empty_strided", "stride", stride)
    if len(strides) != len(sizes):
        raise RuntimeError(
            f"empty_strided(): mismatch in length of strides and shape: {len(strides)} strides "
            f"for {len(sizes)} sizes"
        )
    if any(s < 0 for s in strides):
        raise RuntimeError(f"empty_strided(): strides must be non-negative, got {list(strides)}")
    target = _options("empty_strided", dtype, dtypes.DEFAULT_FLOAT, device, layout, pin_memory)
    span = 0 if numel(sizes) == 0 else 1 + sum((n - 1) * s for n, s in zip(sizes, strides))
    return _finish(Tensor._make(Storage(allocate(span, target)), sizes, strides), requires_grad)


def fill_scalar(op: str, fill_value: Any) -> bool | int | float:
    """``fill_value`` as a Python number: a number, or a 0-d tensor (``TypeError`` otherwise,
    as PyTorch's factories say for a tensor with dimensions)."""
    if isinstance(fill_value, Tensor) and fill_value.ndim != 0:
        raise TypeError(
            f"{op}(): fill_value must be a number or a 0-d tensor, got a tensor of shape "
            f"{list(fill_value.shape)}"
        )
    return scalar_value(op, fill_value)


def _checked_fill(op: str, value: bool | int | float, target: np.dtype) -> Any:
    """``value`` converted to ``target``; RuntimeError when it does not fit, as in PyTorch
    (which lets a negative int down to ``-max`` wrap into an unsigned dtype)."""
    if target == dtypes.uint8 and type(value) is int and -255 <= value < 0:
        value += 256
    dtypes.check_scalar_fits(f"{op}()", value, target)  # (65505 in float16: beyond, though it rounds)
    with np.errstate(invalid="raise", over="raise"):
        try:
            return target.type(value)
        except (ValueError, OverflowError, FloatingPointError):
            raise RuntimeError(
                f"{op}(): value {value!r} cannot be converted to {target.name} without overflow"
            ) from None


def _fill_value(op: str, value: bool | int | float, target: np.dtype, n: int) -> Any:
    """``_checked_fill``, but PyTorch fills one float16 element unchecked: 70000 is inf
    (``fill_``'s one-element path), while two elements raise."""
    if n == 1 and target == dtypes.float16 and not isinstance(value, bool):
        with np.errstate(over="ignore"):
            return np.float16(value)
    return _checked_fill(op, value, target)


def full(
    size: Sequence[int], fill_value: Any, *, dtype: object = None, layout: Any = None,
    device: Any = None, requires_grad: bool = False, pin_memory: bool = False, out: None = None,
) -> Tensor:
    _no_out("full", out)
    value = fill_scalar("full", fill_value)
    if isinstance(value, bool):
        default = dtypes.bool_
    elif isinstance(value, int):
        default = dtypes.int64
    else:
        default = dtypes.DEFAULT_FLOAT
    target = _options("full", dtype, default, device, layout, pin_memory)
    sizes = _sizes("full", (size,))
    buffer = allocate(numel(sizes), target)
    buffer.fill(_fill_value("full", value, target, buffer.shape[0]))
    return _finish(Tensor._from_buffer(buffer, sizes), requires_grad)


# -- *_like: the input's shape and (preserve_format) memory layout ------------------------------
def _like(
    op: str, t: Tensor, dtype: object, device: Any, layout: Any, memory_format: Any,
    pin_memory: bool = False,
) -> tuple[tuple[int, ...], tuple[int, ...], np.dtype]:
    """``(sizes, strides, dtype)`` of a ``*_like`` result: the strides are ``t``'s layout as
    PyTorch's default ``preserve_format`` keeps it, or contiguous."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{op}(): expected a Tensor, got {type(t).__name__}")
    target = _options(op, dtype, t.dtype, device, layout, pin_memory)
    strides = format_strides(op, memory_format, t._sizes)
    if strides is None:
        strides = preserve_strides(t._sizes, t._strides)
    return t._sizes, strides, target


def _new_like(sizes: tuple[int, ...], strides: tuple[int, ...], buffer: np.ndarray, requires_grad: bool) -> Tensor:
    return _finish(Tensor._make(Storage(buffer), sizes, strides), requires_grad)


def empty_like(
    input: Tensor, *, dtype: object = None, layout: Any = None, device: Any = None,
    requires_grad: bool = False, memory_format: Any = None, pin_memory: bool = False,
) -> Tensor:
    sizes, strides, target = _like("empty_like", input, dtype, device, layout, memory_format, pin_memory)
    return _new_like(sizes, strides, allocate(numel(sizes), target), requires_grad)


def zeros_like(
    input: Tensor, *, dtype: object = None, layout: Any = None, device: Any = None,
    requires_grad: bool = False, memory_format: Any = None,
) -> Tensor:
    sizes, strides, target = _like("zeros_like", input, dtype, device, layout, memory_format)
    return _new_like(sizes, strides, allocate(numel(sizes), target, 0), requires_grad)


def ones_like(
    input: Tensor, *, dtype: object = None, layout: Any = None, device: Any = None,
    requires_grad: bool = False, memory_format: Any = None,
) -> Tensor:
    sizes, strides, target = _like("ones_like", input, dtype, device, layout, memory_format)
    return _new_like(sizes, strides, allocate(numel(sizes), target, 1), requires_grad)


def full_like(
    input: Tensor, fill_value: Any, *, dtype: object = None, layout: Any = None,
    device: Any = None, requires_grad: bool = False, memory_format: Any = None,
) -> Tensor:
    sizes, strides, target = _like("full_like", input, dtype, device, layout, memory_format)
    buffer = allocate(numel(sizes), target)
    buffer.fill(_fill_value("full_like", fill_scalar("full_like", fill_value), target, buffer.shape[0]))
    return _new_like(sizes, strides, buffer, requires_grad)
