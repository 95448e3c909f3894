"""``max_pool3d``, ``avg_pool3d``, ``adaptive_avg_pool3d``, ``adaptive_max_pool3d``: the window
tables of ``_pooling.py`` over 3 spatial dims, with PyTorch's 3-d argument checks (in its
order) and messages, and its nodes (``MaxPool3DWithIndicesBackward0``, ...)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor
from ._pool_functional import adaptive_sizes, window_divisors
from ._pooling import (
    AdaptiveAvgPool3DBackward0, AdaptiveMaxPool3DBackward0, AvgPool3DBackward0, MaxPool3DWithIndicesBackward0,
    adaptive_windows, check_dtype, check_tensor, output_size, pool_avg, pool_max, sliding_windows,
)

Triple = tuple[int, int, int]
_INTS = ("uint8", "int8", "int16", "int32", "int64")


def _triple(value: Any, message: str, default: Any = None) -> Triple:
    if value is None or (isinstance(value, (tuple, list)) and len(value) == 0 and default is not None):
        return default  # type: ignore[no-any-return]
    if isinstance(value, (tuple, list)):
        if len(value) == 1:
            return (int(value[0]),) * 3  # type: ignore[return-value]
        if len(value) != 3:
            raise RuntimeError(message)
        return int(value[0]), int(value[1]), int(value[2])
    return (int(value),) * 3  # type: ignore[return-value]


def _ctrunc_half(a: int) -> int:
    return abs(a) // 2 if a >= 0 else -(abs(a) // 2)


def _shape_check(input: Tensor, k: Triple, s: Triple, p: Triple, d: Triple, ceil_mode: bool, avg: bool) -> Triple:
    """``pooling_output_shape`` per dim, then ``pool3d_shape_check``."""
    if input.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    sizes = tuple(input.shape[-3:])
    outs = []
    for i in range(3):
        if s[i] == 0:
            raise RuntimeError("stride should not be zero")
        if p[i] < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p[i]}")
        if p[i] > _ctrunc_half((k[i] - 1) * d[i] + 1):
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p[i]}, "
                               f"kernel_size={k[i]} and dilation={d[i]}")
        outs.append(output_size(sizes[i], k[i], s[i], p[i], d[i], ceil_mode))
    if min(k) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {k[0]} kH: {k[1]} kW: {k[2]}")
    if min(s) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {s[0]} dH: {s[1]} dW: {s[2]}")
    if min(d) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {d[0]} dilationH: {d[1]} "
                           f"dilationW: {d[2]}")
    if 0 in sizes and not avg:
        raise RuntimeError(
            "max_pool3d_with_indices_out_cpu_template(): Expected input's non-batch dimensions to have positive "
            f"length, but input has a shape of {list(input.shape)} and non-batch dimension {sizes.index(0)} has "
            "length zero!"
        )
    if avg and any(size < kk for size, kk in zip(sizes, k)):
        raise RuntimeError(f"input image (T: {sizes[0]} H: {sizes[1]} W: {sizes[2]}) smaller than kernel size "
                           f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    if k[0] // 2 < p[0] or k[2] // 2 < p[2] or k[1] // 2 < p[1]:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got kT: {k[0]} kW: {k[2]} "
                           f"kH: {k[1]} padT: {p[0]} padW: {p[2]} padH: {p[1]}")
    if min(outs) < 1:
        c = input.shape[-4]
        raise RuntimeError(f"Given input size: ({c}x{sizes[0]}x{sizes[1]}x{sizes[2]}). Calculated output size: "
                           f"({c}x{outs[0]}x{outs[1]}x{outs[2]}). Output size is too small")
    return outs[0], outs[1], outs[2]


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The maximum of each ``kernel_size`` window over the last 3 dims (ties: the first)."""
    check_tensor("max_pool3d", input)
    k = _triple(kernel_size, "max_pool3d: kernel_size must either be a single int, or a tuple of three ints")
    s = _triple(stride, "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints", k)
    p = _triple(padding, "max_pool3d: padding must either be a single int, or a tuple of three ints")
    d = _triple(dilation, "max_pool3d: dilation must be either a single int, or a tuple of three ints")
    outs = _shape_check(input, k, s, p, d, ceil_mode, avg=False)
    check_dtype("max_pool3d", input, _INTS)
    windows = [sliding_windows(input.shape[-3 + i], outs[i], k[i], s[i], p[i], d[i]) for i in range(3)]
    out, indices = pool_max(input, windows, MaxPool3DWithIndicesBackward0)
    return (out, indices) if return_indices else out


def max_pool3d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = True) -> Any:
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The mean of each ``kernel_size`` window over the last 3 dims."""
    check_tensor("avg_pool3d", input)
    k = _triple(kernel_size, "avg_pool3d: kernel_size must be a single int, or a tuple of three ints")
    s = _triple(stride, "avg_pool3d: stride must be omitted, a single int, or a tuple of three ints", k)
    p = _triple(padding, "avg_pool3d: padding must be a single int, or a tuple of three ints")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    outs = _shape_check(input, k, s, p, (1, 1, 1), ceil_mode, avg=True)
    check_dtype("avg_pool3d_out_frame", input, ("int64",))
    sizes = tuple(input.shape[-3:])
    windows = [sliding_windows(sizes[i], outs[i], k[i], s[i], p[i], 1) for i in range(3)]
    divisor = window_divisors(windows, sizes, k, p, count_include_pad, divisor_override)
    return pool_avg(input, windows, divisor, AvgPool3DBackward0)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    op = "adaptive_avg_pool3d"
    outs = adaptive_sizes(op, input, output_size, f"{op}: output_size must be 3",
                          f"{op}(): Expected 4D or 5D tensor, but got ", 3)
    if min(outs) < 0:
        raise RuntimeError(f"{op}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{outs[0]}, {outs[1]},{outs[2]}}}")
    if outs == (1, 1, 1):  # (PyTorch's shortcut: a mean, ``MeanBackward1``)
        return input.mean((-3, -2, -1), keepdim=True)  # type: ignore[attr-defined,no-any-return]
    check_dtype("adaptive_avg_pool3d_cpu", input, ())
    windows = [adaptive_windows(input.shape[-3 + i], outs[i]) for i in range(3)]
    counts = [valid.sum(1) for _, valid in windows]
    divisor = (counts[0][:, None, None] * counts[1][None, :, None] * counts[2][None, None, :]).astype(np.float64)
    return pool_avg(input, windows, divisor, AdaptiveAvgPool3DBackward0)


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    op = "adaptive_max_pool3d"
    outs = adaptive_sizes(op, input, output_size, f"{op}(): internal error: output_size.size() must be 3",
                          f"{op}(): Expected 4D or 5D tensor, but got: ", 3)
    if min(outs) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(outs)}: "
                           f"{list(input.shape[:-3]) + list(outs)}")
    check_dtype("adaptive_max_pool3d_cpu", input, ())
    windows = [adaptive_windows(input.shape[-3 + i], outs[i]) for i in range(3)]
    out, indices = pool_max(input, windows, AdaptiveMaxPool3DBackward0)
    return (out, indices) if return_indices else out


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any, return_indices: bool = True) -> Any:
    return adaptive_max_pool3d(input, output_size, return_indices)
