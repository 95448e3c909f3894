"""Range factories: ``arange``, ``linspace``, ``logspace``, ``eye``, with PyTorch's dtype
inference, lengths and endpoint arithmetic."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from . import dtypes
from .creation import _finish, _options, from_numpy_copy
from .geometry.strided import as_int
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
    """PyTorch's symmetric formula: the first half counts up from ``start``, the rest down
    from ``end`` (in the target dtype for floats, in double for integers)."""
    start, end = _number(op, "start", start), _number(op, "end", end)
    compute = target if target in dtypes.FLOATING else dtypes.float64
    if target not in dtypes.FLOATING:  # PyTorch truncates the ends to the integer dtype first
        start, end = int(start), int(end)
    step = (compute.type(end) - compute.type(start)) / compute.type(max(steps - 1, 1))
    i = np.arange(steps, dtype=compute)
    half = steps // 2 if steps > 1 else 1  # one step: just ``start``, as in PyTorch
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(
            np.arange(steps) < half,
            compute.type(start) + step * i,
            compute.type(end) - step * (compute.type(steps - 1) - i),
        ).astype(compute)


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
    """``base ** linspace(start, end, steps)``; the exponents and powers in double (float
    for integer dtypes), as PyTorch's CPU kernel computes them."""
    steps = _steps("logspace", steps)
    target = _options("logspace", dtype, dtypes.DEFAULT_FLOAT, device, layout)
    base = _number("logspace", "base", base)
    start, end = _number("logspace", "start", start), _number("logspace", "end", end)
    if steps == 1:  # PyTorch fills ``base ** start`` computed in double
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            one = np.array([np.power(np.float64(base), np.float64(start))])
        return _finish(from_numpy_copy(one, target), requires_grad)
    integral = target not in dtypes.FLOATING
    compute = np.float32 if integral else np.float64
    if integral:
        start, end = int(start), int(end)
        span = compute(end - start)
    else:  # the ends, and their difference, are rounded to the target dtype first
        span = float(target.type(end) - target.type(start))
        start, end = float(target.type(start)), float(target.type(end))
    step = compute(span) / compute(max(steps - 1, 1))
    i = np.arange(steps, dtype=compute)
    half = steps // 2 if steps > 1 else 1
    exponents = np.where(i < half, compute(start) + step * i, compute(end) - step * (compute(steps - 1) - i))
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        values = np.power(compute(base), exponents.astype(compute))
    return _finish(from_numpy_copy(values, target), requires_grad)


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
