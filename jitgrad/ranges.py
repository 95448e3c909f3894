"""Range factories: ``arange``, ``linspace``, ``logspace``, ``eye``, with PyTorch's dtype
inference, lengths and endpoint arithmetic."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from . import dtypes
from .creation import _checked_fill, _finish, _options, from_numpy_copy
from .geometry.strided import as_int
from .kernels.fma import fma
from .storage import allocate
from .tensor import Tensor


def _number(op: str, name: str, v: Any) -> bool | int | float:
    """A range end point: a real number or a 0-d tensor (its value)."""
    if isinstance(v, Tensor):
        if v.numel() != 1:
            raise TypeError(f"{op}(): {name} must be a number or a 1-element tensor, got shape {list(v.shape)}")
        return v.item()
    if not isinstance(v, numbers.Real) or isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{op}(): {name} must be a number, got {type(v).__name__}")
    return int(v) if isinstance(v, numbers.Integral) else float(v)


def arange(
    start: Any, end: Any = None, step: Any = 1, *, dtype: object = None, layout: Any = None,
    device: Any = None, requires_grad: bool = False, pin_memory: bool = False,
) -> Tensor:
    """``[start, end)`` by ``step``: int64 when all three are integers, else the default
    float dtype; the length is ``ceil((end - start) / step)`` computed in double."""
    if end is None:
        start, end = 0, start
    start, end, step = (_number("arange", n, v) for n, v in (("start", start), ("end", end), ("step", step)))
    integral = all(isinstance(v, int) for v in (start, end, step))
    default = dtypes.int64 if integral else dtypes.DEFAULT_FLOAT
    target = _options("arange", dtype, default, device, layout, pin_memory)
    if target == dtypes.bool_:
        raise NotImplementedError("arange(): not implemented for bool; make an integer range and compare")
    if not all(math.isfinite(float(v)) for v in (start, end, step)):
        raise RuntimeError(f"arange(): unsupported range: {start} -> {end} with step {step}")
    # The length is ceil((end - start) / step) in double, except that an int64 range truncates
    # its three arguments first; an integer range's values are int(start) + int(step) * i.
    float_length = math.ceil((end - start) / step) if step and not integral else None
    if step == 0:
        raise RuntimeError("arange(): step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError(
            f"arange(): upper bound and lower bound inconsistent with step sign "
            f"(start={start}, end={end}, step={step})"
        )
    if target not in dtypes.FLOATING:
        start, step, integral = int(start), int(step), True
        end = int(end) if target == dtypes.int64 else end
        if step == 0:
            raise ValueError("arange(): step must be nonzero, got a step that truncates to 0 as an integer")
    if float_length is None or target == dtypes.int64:
        length = -((start - end) // step) if isinstance(end, int) else math.ceil((end - start) / step)
    else:
        length = float_length
    # PyTorch computes ``start + step * i`` in the accumulate type: double, float for half.
    compute = np.int64 if integral else (np.float32 if target == dtypes.float16 else np.float64)
    counter = allocate(length, compute)  # OutOfMemoryError if huge
    counter[:] = np.arange(length, dtype=compute)
    values = compute(start) + counter * compute(step)
    return _finish(from_numpy_copy(values, target), requires_grad)


def _linspace_values(op: str, start: Any, end: Any, steps: Any, target: np.dtype) -> np.ndarray:
    """PyTorch's CPU kernel: ``step = (end - start) / (steps - 1)``; the first half counts up
    from ``start``, the rest down from ``end``, each value one fused multiply-add
    (``kernels/fma.py``) in the target dtype, or in double for integers (truncated after). float16
    multiplies and adds rounding each to float16, as ``c10::Half`` does."""
    start, end = _number(op, "start", start), _number(op, "end", end)
    compute = target if target in (dtypes.float32, dtypes.float64, dtypes.float16) else dtypes.float64
    if steps == 0:
        return np.empty(0, compute)
    if steps == 1:  # PyTorch fills ``start`` (converted as ``fill_`` does) and ignores ``end``
        if target == dtypes.float16:  # unchecked: overflows to inf
            with np.errstate(over="ignore"):
                return np.array([start], compute)
        return np.array([_checked_fill(op, start, target)], compute)
    # the ends converted to the target dtype (checked: RuntimeError on overflow), then computed
    # in the target dtype, or in double for integers
    start, end = (_checked_fill(op, v, target) for v in (start, end))
    first, last = compute.type(start), compute.type(end)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        step = (last - first) / compute.type(steps - 1)
        half = steps // 2
        up = np.arange(half, dtype=compute)
        down = np.arange(steps - half - 1, -1, -1, dtype=compute)  # steps - 1 - i
        if compute == dtypes.float16:
            return np.concatenate([first + step * up, last - step * down])
        return np.concatenate([
            fma(np.full_like(up, step), up, np.full_like(up, first)),
            fma(np.full_like(down, -step), down, np.full_like(down, last)),
        ])


def _steps(op: str, steps: Any) -> int:
    steps = as_int(op, "steps", steps)
    if steps < 0:
        raise RuntimeError(f"{op}(): number of steps must be non-negative, got {steps}")
    return steps


def linspace(
    start: Any, end: Any, steps: int, *, dtype: object = None, layout: Any = None,
    device: Any = None, requires_grad: bool = False,
) -> Tensor:
    steps = _steps("linspace", steps)
    target = _options("linspace", dtype, dtypes.DEFAULT_FLOAT, device, layout)
    return _finish(from_numpy_copy(_linspace_values("linspace", start, end, steps, target), target), requires_grad)


def logspace(
    start: Any, end: Any, steps: int, base: float = 10.0, *, dtype: object = None,
    layout: Any = None, device: Any = None, requires_grad: bool = False,
) -> Tensor:
    """``base ** linspace(start, end, steps)`` as PyTorch's CPU ``logspace_out`` computes it:
    the ends (and their difference) in the target dtype, the exponents in double without
    fused multiply-adds (that file is not built per CPU capability), and the powers by the C
    library's ``pow`` (``math.pow``: NumPy's SIMD ``power`` differs from it by an ulp now and
    then), rounded (or truncated) to the target dtype."""
    steps = _steps("logspace", steps)
    target = _options("logspace", dtype, dtypes.DEFAULT_FLOAT, device, layout)
    base = float(_number("logspace", "base", base))
    start, end = _number("logspace", "start", start), _number("logspace", "end", end)
    if steps == 1:  # PyTorch fills ``base ** start`` computed in double
        return _finish(from_numpy_copy(np.array([_pow(base, float(start))]), target), requires_grad)
    if target not in dtypes.FLOATING:  # converted unchecked, unlike linspace's ends
        start, end = int(start), int(end)
        span = float(end - start)
    else:  # the ends, and their difference, are rounded to the target dtype first
        with np.errstate(over="ignore", invalid="ignore"):
            span = float(target.type(end) - target.type(start))
            start, end = float(target.type(start)), float(target.type(end))
    step = span / max(steps - 1, 1)
    half = steps // 2
    exponents = [start + step * i for i in range(half)]
    exponents += [end - step * (steps - i - 1) for i in range(half, steps)]
    values = np.array([_pow(base, e) for e in exponents], dtype=np.float64)
    return _finish(from_numpy_copy(values, target), requires_grad)


def _pow(base: float, exponent: float) -> float:
    """C's ``pow``; where Python raises (overflow, a pole, a negative base's fractional
    power) NumPy's answer, which is C's: a signed infinity or NaN."""
    try:
        return math.pow(base, exponent)
    except (OverflowError, ValueError):
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return float(np.power(np.float64(base), np.float64(exponent)))


def eye(
    n: int, m: int | None = None, *, dtype: object = None, layout: Any = None,
    device: Any = None, requires_grad: bool = False, pin_memory: bool = False,
) -> Tensor:
    """An ``n x m`` (default ``n x n``) tensor with ones on the diagonal."""
    n = as_int("eye", "n", n)
    m = n if m is None else as_int("eye", "m", m)
    for name, v in (("n", n), ("m", m)):
        if v < 0:
            raise RuntimeError(f"eye(): {name} must be greater or equal to 0, got {v}")
    target = _options("eye", dtype, dtypes.DEFAULT_FLOAT, device, layout, pin_memory)
    buffer = allocate(n * m, target, 0)
    k = min(n, m)
    buffer[: k * (m + 1) : m + 1] = 1
    return _finish(Tensor._from_buffer(buffer, (n, m)), requires_grad)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """The ``(2, N)`` row and column indices of the lower triangle of a ``row x col`` matrix
    (the diagonal ``offset`` and below), row by row."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, lower=True)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """The ``(2, N)`` row and column indices of the upper triangle (the diagonal ``offset``
    and above), row by row."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, lower=False)


def _triangle_indices(op: str, row: int, col: int, offset: int, dtype: Any, lower: bool) -> Tensor:
    for name, v in (("row", row), ("col", col)):
        if as_int(op, name, v) < 0:
            raise RuntimeError(f"{name} must be non-negative, got{v}")
    d = dtypes.int64 if dtype is None else dtypes.to_dtype(dtype, op)
    if d not in dtypes.INTEGRAL:
        raise NotImplementedError(f'"{op}" not implemented for \'{dtypes.name(d)}\'')
    r, c = np.indices((row, col))
    keep = (c - r <= offset) if lower else (c - r >= offset)
    return from_numpy_copy(np.stack([r[keep], c[keep]]).astype(d))
