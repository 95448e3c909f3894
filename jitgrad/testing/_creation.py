"""``make_tensor``: a tensor of a given shape and dtype filled with values drawn uniformly from
``[low, high)`` (defaults by dtype, as ``torch.testing.make_tensor``), from jitgrad's generator."""

from __future__ import annotations

import collections.abc
import math
import warnings
from typing import Any

import numpy as np

from .. import dtypes
from ..creation import empty
from ..device import check
from ..randomness import randint
from ..tensor import Tensor

# (default low, default high) by kind of dtype
_DEFAULT_RANGE = {"b": (0, 2), "u": (-9, 10), "i": (-9, 10), "f": (-9, 9)}


def _range(dtype: np.dtype, low: float | None, high: float | None) -> tuple[float, float]:
    """``low``/``high`` (or the dtype's defaults) checked, clamped to what the dtype holds, and
    for integer dtypes rounded up (``randint``'s upper bound is exclusive)."""
    default_low, default_high = _DEFAULT_RANGE[dtype.kind]
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if dtype.kind == "b":
        lowest, highest = 0, 2
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        lowest, highest = int(info.min), int(info.max) + (dtype != dtypes.int64)
    else:
        info = np.finfo(dtype)
        lowest, highest = float(info.min), float(info.max)
    if low == high and dtype.kind == "f":
        warnings.warn("Passing `low==high` to `make_tensor` for floating types is deprecated; "
                      "use `jitgrad.full(...)` instead.", FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but jitgrad.{dtype.name} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    return (math.ceil(low), math.ceil(high)) if dtype.kind in "biu" else (low, high)


def make_tensor(
    *shape: Any, dtype: Any, device: Any, low: float | None = None, high: float | None = None,
    requires_grad: bool = False, noncontiguous: bool = False, exclude_zero: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """Random values in ``[low, high)``: defaults ``[-9, 9)`` for floats, ``[-9, 10)`` for
    integers (clamped to the dtype), ``{False, True}`` for bool. ``noncontiguous`` gives a
    strided view (every other element of a last dimension twice as long); ``exclude_zero``
    replaces zeros by 1 (integers) or the smallest normal float."""
    check("make_tensor()", device)
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = tuple(shape[0])
    sizes = tuple(int(s) for s in shape)
    target = dtypes.to_dtype(dtype, "make_tensor()")
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
                         f"but got noncontiguous={noncontiguous} and memory_format={memory_format}")
    if requires_grad and target.kind != "f":
        raise ValueError("`requires_grad=True` is not supported for boolean and integral dtypes, "
                         f"but got dtype=jitgrad.{target.name}")
    noncontiguous = noncontiguous and math.prod(sizes) > 1
    drawn = (*sizes[:-1], 2 * sizes[-1]) if noncontiguous else sizes
    low, high = _range(target, low, high)
    if target.kind == "f":
        result = empty(drawn, dtype=target)
        if high - low >= float(np.finfo(target).max):  # the width overflows: draw half, then double
            result.uniform_(low / 2, high / 2).mul_(2)
        else:
            result.uniform_(low, high)
    else:
        result = randint(int(low), int(high), drawn, dtype=target)
    if noncontiguous:
        result = result[..., 1::2]
    if exclude_zero:
        result[result == 0] = 1 if target.kind != "f" else float(np.finfo(target).tiny)
    if target.kind == "f":
        result.requires_grad_(requires_grad)
    return result
