"""``max_pool1d/2d``, ``avg_pool1d/2d``, ``adaptive_avg_pool1d/2d``, ``adaptive_max_pool1d/2d``:
PyTorch's argument parsing, checks (in PyTorch's order) and messages, then the window
tables of ``_pooling.py``. The 1-d pools check their own arguments, then run the 2-d pool on
``input.unsqueeze(-2)`` as PyTorch does."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from ._pooling import (
    AdaptiveAvgPool2DBackward0, AdaptiveMaxPool2DBackward0, AvgPool2DBackward0,
    MaxPool2DWithIndicesBackward0, adaptive_windows, check_dtype, check_tensor, output_size, pool_avg,
    pool_max, sliding_windows,
)

import numpy as np


def _pair(value: Any, message: str, default: Any = None) -> tuple[int, int]:
    if value is None or (isinstance(value, (tuple, list)) and len(value) == 0 and default is not None):
        return default  # type: ignore[no-any-return]
    if isinstance(value, (tuple, list)):
        if len(value) == 1:
            return int(value[0]), int(value[0])
        if len(value) != 2:
            raise RuntimeError(message)
        return int(value[0]), int(value[1])
    return int(value), int(value)


def _one(op: str, name: str, value: Any, message: str = "{op}() argument '{name}' should contain one int "
                                                         "(got {n})") -> int:
    """A 1-d pool's argument (an int or a 1-sequence)."""
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise RuntimeError(message.format(op=op, name=name, n=len(value)))
        return int(value[0])
    return int(value)


def _ctrunc(a: int, b: int) -> int:
    """C++ integer division (toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _check_1d_input(op: str, input: Tensor) -> None:
    check_tensor(op, input)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 'self' "
            f"(while checking arguments for {op})"
        )


def _sliding_shape(input: Tensor, k: tuple[int, int], s: tuple[int, int], p: tuple[int, int],
                   d: tuple[int, int], ceil_mode: bool) -> tuple[int, int]:
    """``pooling_output_shape`` per dim, then ``pool2d_shape_check``."""
    sizes = input.shape[-2:] if input.ndim >= 2 else (1, 1)
    outs = []
    for i in range(2):
        if s[i] == 0:
            raise RuntimeError("stride should not be zero")
        if p[i] < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p[i]}")
        if p[i] > _ctrunc((k[i] - 1) * d[i] + 1, 2):
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p[i]}, "
                f"kernel_size={k[i]} and dilation={d[i]}"
            )
        outs.append(output_size(sizes[i], k[i], s[i], p[i], d[i], ceil_mode))
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {k[0]} kW: {k[1]}")
    if s[0] <= 0 or s[1] <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    if d[0] <= 0 or d[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {d[0]} dilationW: {d[1]}")
    if input.ndim not in (3, 4) or any(n == 0 for n in input.shape[-3:]):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:"
            f"{list(input.shape)}"
        )
    if k[1] // 2 < p[1] or k[0] // 2 < p[0]:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = {p[1]}, "
                           f"padH = {p[0]}, kW = {k[1]}, kH = {k[0]}")
    if outs[0] < 1 or outs[1] < 1:
        c = input.shape[-3]
        raise RuntimeError(
            f"Given input size: ({c}x{sizes[0]}x{sizes[1]}). Calculated output size: "
            f"({c}x{outs[0]}x{outs[1]}). Output size is too small"
        )
    return outs[0], outs[1]


# --- max --------------------------------------------------------------------------------------

def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The maximum of each ``kernel_size`` window (padding never wins; ties: the first)."""
    check_tensor("max_pool2d", input)
    k = _pair(kernel_size, "max_pool2d: kernel_size must either be a single int, or a tuple of two ints")
    s = _pair(stride, "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints", k)
    p = _pair(padding, "max_pool2d: padding must either be a single int, or a tuple of two ints")
    d = _pair(dilation, "max_pool2d: dilation must be either a single int, or a tuple of two ints")
    if input.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    outs = _sliding_shape(input, k, s, p, d, ceil_mode)
    check_dtype("max_pool2d", input, ("uint8", "int8", "int16", "int32", "int64"))
    windows = [sliding_windows(input.shape[-2 + i], outs[i], k[i], s[i], p[i], d[i]) for i in range(2)]
    out, indices = pool_max(input, windows, MaxPool2DWithIndicesBackward0)
    return (out, indices) if return_indices else out


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    op = "max_pool1d()"
    size_1 = "{op} {name} must be %s of size 1 but got size {n}"
    k = _one(op, "kernel_size", kernel_size, size_1 % "an int, list of ints or tuple of ints")
    s = k if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0) else _one(
        op, "stride", stride, size_1 % "None, an int, list of ints, or tuple of ints")
    p = _one(op, "padding", padding, size_1 % "an int, list of ints, or tuple of ints")
    d = _one(op, "dilation", dilation, size_1 % "an int, list of ints, or tuple of ints")
    check_tensor("max_pool1d", input)
    if input.ndim not in (2, 3) or input.shape[-1] == 0 or (input.ndim == 3 and input.shape[1] == 0):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, "
            f"but got:{list(input.shape)}"
        )
    if k <= 0:
        raise RuntimeError(f"{op} kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"{op} stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"{op} padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"{op} padding should be at most half of kernel size, but got padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"{op} dilation must be greater than zero, but got {d}")
    if output_size(input.shape[-1], k, s, p, d, ceil_mode) <= 0:
        raise RuntimeError(f"{op} Invalid computed output size: {output_size(input.shape[-1], k, s, p, d, ceil_mode)}")
    check_dtype("max_pool1d_impl", input, ())
    res = max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode, True)  # type: ignore[attr-defined]
    out, indices = res[0].squeeze(-2), res[1].squeeze(-2)
    return (out, indices) if return_indices else out


# --- average ----------------------------------------------------------------------------------

def window_divisors(windows: list[tuple[np.ndarray, np.ndarray]], sizes: tuple[int, ...], k: tuple[int, ...],
                    p: tuple[int, ...], count_include_pad: bool, divisor_override: Any) -> np.ndarray:
    """Each average window's divisor: ``divisor_override``, else the window's size clipped to
    the padded input (``count_include_pad``) or its count of in-bounds elements."""
    shape = tuple(len(pos) for pos, _ in windows)
    if divisor_override:
        return np.full(shape, float(divisor_override))
    divisor = np.ones((), np.int64)
    for i, (pos, valid) in enumerate(windows):
        if count_include_pad:
            start = pos[:, 0] if pos.shape[1] else np.zeros(len(pos), np.int64)
            per_dim = np.minimum(start + k[i], sizes[i] + p[i]) - start
        else:
            per_dim = valid.sum(1)
        divisor = np.multiply.outer(divisor, per_dim)
    return divisor.astype(np.float64).reshape(shape)


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The mean of each ``kernel_size`` window (the divisor counts padding unless
    ``count_include_pad=False``; ``divisor_override`` replaces it)."""
    check_tensor("avg_pool2d", input)
    k = _pair(kernel_size, "avg_pool2d: kernel_size must either be a single int, or a tuple of two ints")
    s = _pair(stride, "avg_pool2d: stride must either be omitted, a single int, or a tuple of two ints", k)
    p = _pair(padding, "avg_pool2d: padding must either be a single int, or a tuple of two ints")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if input.ndim < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(input.ndim, 1)}, "
                         f"{max(input.ndim, 1) - 1}], but got -3)")
    outs = _sliding_shape(input, k, s, p, (1, 1), ceil_mode)
    check_dtype("avg_pool2d", input, ("int64",))
    sizes = tuple(input.shape[-2:])
    windows = [sliding_windows(sizes[i], outs[i], k[i], s[i], p[i], 1) for i in range(2)]
    divisor = window_divisors(windows, sizes, k, p, count_include_pad, divisor_override)
    return pool_avg(input, windows, divisor, AvgPool2DBackward0)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    k = _one("avg_pool1d", "kernel_size", kernel_size)
    s = k if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0) else _one(
        "avg_pool1d", "stride", stride)
    p = _one("avg_pool1d", "padding", padding)
    _check_1d_input("avg_pool1d", input)
    out = avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad)  # type: ignore[attr-defined]
    return out.squeeze(-2)  # type: ignore[attr-defined,no-any-return]


# --- adaptive ---------------------------------------------------------------------------------

def adaptive_sizes(op: str, input: Tensor, output_size: Any, length_message: str, dims_message: str,
                   n: int = 2) -> tuple[int, ...]:
    """An adaptive pool's checks (PyTorch's order) and output size over the last ``n`` dims
    (``None`` keeps the input's size)."""
    check_tensor(op, input)
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != n:
            raise RuntimeError(length_message)
        sizes = tuple(input.shape[-n + i] if o is None else int(o) for i, o in enumerate(output_size))
    else:
        sizes = (int(output_size),) * n
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(dims_message + f"{list(input.shape)}")
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(
                f"{op}(): Expected input to have non-zero size for non-batch dimensions, but input has "
                f"sizes {list(input.shape)} with dimension {dim} being empty"
            )
    return sizes


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """The mean over ``output_size`` windows that tile the input (``[floor(i L / n), ceil((i + 1) L / n))``)."""
    op = "adaptive_avg_pool2d"
    outs = adaptive_sizes(op, input, output_size, f"{op}: output_size must be 2",
                          f"{op}(): Expected 3D or 4D tensor, but got ")
    check_dtype(op, input, ())
    if outs[0] < 0 or outs[1] < 0:
        raise RuntimeError(f"{op}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{outs[0]}, {outs[1]}}}")
    if outs == (1, 1):  # (PyTorch's shortcut: a mean, ``MeanBackward1``)
        return input.mean((-2, -1), keepdim=True)  # type: ignore[attr-defined,no-any-return]
    windows = [adaptive_windows(input.shape[-2 + i], outs[i]) for i in range(2)]
    divisor = (windows[0][1].sum(1)[:, None] * windows[1][1].sum(1)[None, :]).astype(np.float64)
    return pool_avg(input, windows, divisor, AdaptiveAvgPool2DBackward0)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The maximum over ``output_size`` windows that tile the input."""
    op = "adaptive_max_pool2d"
    outs = adaptive_sizes(op, input, output_size, f"{op}(): internal error: output_size.size() must be 2",
                          f"{op}(): Expected 3D or 4D tensor, but got: ")
    check_dtype(op, input, ())
    if outs[0] < 0 or outs[1] < 0:
        shape = list(input.shape[:-2]) + list(outs)
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(outs)}: {shape}")
    windows = [adaptive_windows(input.shape[-2 + i], outs[i]) for i in range(2)]
    out, indices = pool_max(input, windows, AdaptiveMaxPool2DBackward0)
    return (out, indices) if return_indices else out


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    n = _one("adaptive_avg_pool1d", "output_size", output_size)
    _check_1d_input("adaptive_avg_pool1d", input)
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, n)).squeeze(-2)  # type: ignore[attr-defined,no-any-return]


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    op = "adaptive_max_pool1d"
    n = _one(op, "output_size", output_size)
    _check_1d_input(op, input)
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(
                f"{op}(): Expected input to have non-zero size for non-batch dimensions, but input has "
                f"sizes {list(input.shape)} with dimension {dim} being empty"
            )
    out, indices = adaptive_max_pool2d(input.unsqueeze(-2), (1, n), True)  # type: ignore[attr-defined]
    out, indices = out.squeeze(-2), indices.squeeze(-2)
    return (out, indices) if return_indices else out
