"""Creating tensors: from data, from NumPy (sharing memory), from DLPack, and factories."""

from __future__ import annotations

import math
import numbers
from typing import Any, Sequence

import numpy as np

from . import _tracing, dtypes
from .geometry import numel
from .geometry.strided import as_int, as_int_tuple
from .storage import Storage, allocate
from .tensor import Tensor, sizes_arg

_generator = np.random.default_rng()


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    if _tracing.ACTIVE is not None:  # jitgrad.compile: a constant made inside the function
        _tracing.ACTIVE.constant(t)
    if requires_grad:
        t.requires_grad_(True)  # type: ignore[attr-defined]
    return t


def _sizes(op: str, size: Sequence[Any]) -> tuple[int, ...]:
    sizes = as_int_tuple(op, "size", sizes_arg(op, size))
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"{op}(): Trying to create tensor with negative dimension: {list(sizes)}")
    return sizes


def _dtype_or(dtype: object, default: np.dtype, op: str) -> np.dtype:
    return default if dtype is None else dtypes.to_dtype(dtype, op)


def from_numpy_copy(array: np.ndarray, dtype: np.dtype | None = None) -> Tensor:
    """A new contiguous tensor holding a copy of ``array`` (converted to ``dtype`` if given)."""
    target = array.dtype if dtype is None else dtype
    flat = np.array(array, dtype=target, order="C", copy=True).reshape(-1)
    return Tensor._from_buffer(flat, tuple(array.shape))


def _infer_dtype(op: str, data: Any, array: np.ndarray) -> np.dtype:
    kind = array.dtype.kind
    if kind == "b":
        return dtypes.bool_
    if kind in "iu":
        return dtypes.int64
    if kind == "f":
        from_numpy_float = isinstance(data, (np.ndarray, np.floating)) and array.dtype == dtypes.float64
        return dtypes.float64 if from_numpy_float else dtypes.DEFAULT_FLOAT
    raise TypeError(
        f"{op}(): cannot make a tensor from data of type {array.dtype} "
        f"({type(data).__name__}); expected numbers (bool, int, float) or nested sequences of them"
    )


def tensor(data: Any, dtype: object = None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (nested sequences, scalars, arrays, tensors)."""
    if isinstance(data, Tensor):
        data = data.numpy()
    if data is None or isinstance(data, (str, bytes)):
        raise TypeError(f"tensor(): cannot make a tensor from {type(data).__name__}")
    try:
        array = np.asarray(data)
    except ValueError as exc:
        raise ValueError(
            f"tensor(): data is ragged (nested sequences of different lengths): {exc}"
        ) from None
    if array.dtype == object and array.size == 0 and array.ndim:
        array = array.astype(np.float64)
    if array.dtype == object:  # NumPy falls back to objects for ints beyond int64
        for v in array.flat:
            if isinstance(v, int) and not -(2**63) <= v < 2**63:
                raise ValueError(f"tensor(): integer {v} overflows int64")
    target = _infer_dtype("tensor", data, array) if dtype is None else dtypes.to_dtype(dtype, "tensor")
    if array.dtype.kind not in "biuf":
        _infer_dtype("tensor", data, array)  # raises with the reason
    return _finish(from_numpy_copy(array, target), requires_grad)


def as_tensor(data: Any, dtype: object = None) -> Tensor:
    """``data`` itself if it is a tensor of ``dtype``; a NumPy array shares memory when it can."""
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
    return Tensor._make(Storage(buffer), sizes, strides, 0)


def from_dlpack(obj: Any) -> Tensor:
    """Zero-copy import of any DLPack producer (NumPy arrays, PyTorch tensors, ...)."""
    if isinstance(obj, Tensor):
        return obj
    return from_numpy(np.from_dlpack(obj))


def empty(*size: Any, dtype: object = None, requires_grad: bool = False) -> Tensor:
    sizes = _sizes("empty", size)
    buffer = allocate(numel(sizes), _dtype_or(dtype, dtypes.DEFAULT_FLOAT, "empty"))
    return _finish(Tensor._from_buffer(buffer, sizes), requires_grad)


def full(size: Sequence[int], fill_value: Any, dtype: object = None, requires_grad: bool = False) -> Tensor:
    if not isinstance(fill_value, (numbers.Real, np.bool_)):
        raise TypeError(
            f"full(): fill_value must be a number (bool, int or float), got {type(fill_value).__name__}"
        )
    if dtype is None:
        if isinstance(fill_value, (bool, np.bool_)):
            dtype = dtypes.bool_
        elif isinstance(fill_value, numbers.Integral):
            dtype = dtypes.int64
        else:
            dtype = dtypes.DEFAULT_FLOAT
    sizes = _sizes("full", (size,))
    buffer = np.full(numel(sizes), fill_value, dtypes.to_dtype(dtype, "full"))
    return _finish(Tensor._from_buffer(buffer, sizes), requires_grad)


def zeros(*size: Any, dtype: object = None, requires_grad: bool = False) -> Tensor:
    sizes = _sizes("zeros", size)
    buffer = allocate(numel(sizes), _dtype_or(dtype, dtypes.DEFAULT_FLOAT, "zeros"), 0)
    return _finish(Tensor._from_buffer(buffer, sizes), requires_grad)


def ones(*size: Any, dtype: object = None, requires_grad: bool = False) -> Tensor:
    sizes = _sizes("ones", size)
    buffer = allocate(numel(sizes), _dtype_or(dtype, dtypes.DEFAULT_FLOAT, "ones"), 1)
    return _finish(Tensor._from_buffer(buffer, sizes), requires_grad)


def _like(op: str, t: Tensor, dtype: object) -> tuple[tuple[int, ...], np.dtype]:
    if not isinstance(t, Tensor):
        raise TypeError(f"{op}(): expected a Tensor, got {type(t).__name__}")
    return t._sizes, _dtype_or(dtype, t.dtype, op)


def zeros_like(t: Tensor, dtype: object = None, requires_grad: bool = False) -> Tensor:
    sizes, dt = _like("zeros_like", t, dtype)
    return zeros(sizes, dtype=dt, requires_grad=requires_grad)


def ones_like(t: Tensor, dtype: object = None, requires_grad: bool = False) -> Tensor:
    sizes, dt = _like("ones_like", t, dtype)
    return ones(sizes, dtype=dt, requires_grad=requires_grad)


def empty_like(t: Tensor, dtype: object = None, requires_grad: bool = False) -> Tensor:
    sizes, dt = _like("empty_like", t, dtype)
    return empty(sizes, dtype=dt, requires_grad=requires_grad)


def full_like(t: Tensor, fill_value: Any, dtype: object = None, requires_grad: bool = False) -> Tensor:
    sizes, dt = _like("full_like", t, dtype)
    return full(sizes, fill_value, dtype=dt, requires_grad=requires_grad)


def arange(
    start: float, end: float | None = None, step: float = 1, dtype: object = None,
    requires_grad: bool = False,
) -> Tensor:
    if end is None:
        start, end = 0, start
    for name, v in (("start", start), ("end", end), ("step", step)):
        if not isinstance(v, numbers.Real) or isinstance(v, bool):
            raise TypeError(f"arange(): {name} must be a number, got {type(v).__name__}")
    if step == 0:
        raise RuntimeError("arange(): step must be nonzero")
    if not all(math.isfinite(float(v)) for v in (start, end, step)):
        raise RuntimeError(f"arange(): unsupported range: {start} -> {end} with step {step}")
    if (end - start) * step < 0:
        raise RuntimeError(
            f"arange(): upper bound and lower bound inconsistent with step sign "
            f"(start={start}, end={end}, step={step})"
        )
    integral = all(isinstance(v, numbers.Integral) for v in (start, end, step))
    target = _dtype_or(dtype, dtypes.int64 if integral else dtypes.DEFAULT_FLOAT, "arange")
    if target == dtypes.int64 and not integral:  # PyTorch truncates all three to int64 first
        start, end, step, integral = int(start), int(end), int(step), True
        if step == 0:
            raise ValueError("arange(): step must be nonzero, got a step that truncates to 0 as int64")
    length = -((start - end) // step) if integral else math.ceil((end - start) / step)
    counter = allocate(length, np.int64 if integral else np.float64)  # OutOfMemoryError if huge
    counter[:] = np.arange(length, dtype=counter.dtype)
    values = start + counter * step
    return _finish(from_numpy_copy(values, target), requires_grad)


def linspace(
    start: float, end: float, steps: int, dtype: object = None, requires_grad: bool = False
) -> Tensor:
    """PyTorch's symmetric formula: the first half counts up from ``start``, the rest down from ``end``."""
    steps = as_int("linspace", "steps", steps)
    if steps < 0:
        raise RuntimeError(f"linspace(): number of steps must be non-negative, got {steps}")
    target = _dtype_or(dtype, dtypes.DEFAULT_FLOAT, "linspace")
    compute = target if target in dtypes.FLOATING else dtypes.float64
    if target == dtypes.int64:  # PyTorch truncates the ends to int64 first
        start, end = int(start), int(end)
    step = (compute.type(end) - compute.type(start)) / compute.type(max(steps - 1, 1))
    i = np.arange(steps, dtype=compute)
    half = steps // 2 if steps > 1 else 1  # one step: just ``start``, as in PyTorch
    values = np.where(
        np.arange(steps) < half,
        compute.type(start) + step * i,
        compute.type(end) - step * (compute.type(steps - 1) - i),
    )
    return _finish(from_numpy_copy(values.astype(compute), target), requires_grad)


def manual_seed(seed: int) -> None:
    """Seed the generator behind ``rand``/``randn``."""
    global _generator
    _generator = np.random.default_rng(int(seed))


def rand(*size: Any, dtype: object = None, requires_grad: bool = False) -> Tensor:
    sizes = _sizes("rand", size)
    target = _dtype_or(dtype, dtypes.DEFAULT_FLOAT, "rand")
    if target not in dtypes.FLOATING:
        raise RuntimeError(f"rand(): expected a floating dtype, got {target.name}")
    values = _generator.random(numel(sizes), dtype=target)
    return _finish(Tensor._from_buffer(values, sizes), requires_grad)


def randn(*size: Any, dtype: object = None, requires_grad: bool = False) -> Tensor:
    sizes = _sizes("randn", size)
    target = _dtype_or(dtype, dtypes.DEFAULT_FLOAT, "randn")
    if target not in dtypes.FLOATING:
        raise RuntimeError(f"randn(): expected a floating dtype, got {target.name}")
    values = _generator.standard_normal(numel(sizes), dtype=target)
    return _finish(Tensor._from_buffer(values, sizes), requires_grad)
