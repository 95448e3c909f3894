"""``bincount`` and ``histc``: counts of values (not differentiable: PyTorch records no
gradient for either)."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..tensor import Tensor
from .operands import from_result


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each value ``0 .. max(input)`` occurs in the 1-D non-negative integer
    ``input`` (at least ``minlength`` bins); with ``weights``, their sums per value instead
    (float64 unless the weights are float32, as PyTorch)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"bincount(): argument 'input' must be Tensor, not {type(input).__name__}")
    if isinstance(minlength, bool) or not isinstance(minlength, (int, np.integer)):
        raise TypeError(f"bincount(): argument 'minlength' must be int, not {type(minlength).__name__}")
    if input.dtype in dtypes.FLOATING or input.dtype == dtypes.bool_:
        raise NotImplementedError(f'bincount(): "bincount_cpu" not implemented for {input.dtype.name} '
                                  "(an integer tensor is needed)")
    values = input._numpy()
    if input.ndim != 1 or (values.size and values.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs "
                           f"(got shape {list(input.shape)}"
                           + (f", min {values.min()})" if values.size else ")"))
    if minlength < 0:
        raise RuntimeError(f"bincount(): minlength should be >= 0, got {minlength}")
    if weights is None:
        return from_result(np.bincount(values, minlength=minlength).astype(np.int64), dtypes.int64)
    if not isinstance(weights, Tensor):
        raise TypeError(f"bincount(): argument 'weights' must be Tensor, not {type(weights).__name__}")
    if weights.ndim != 1 or weights.shape[0] != values.shape[0]:
        raise RuntimeError("bincount(): weights should be 1-d and have the same length as input "
                           f"(got {list(weights.shape)} for input {list(input.shape)})")
    target = dtypes.float32 if weights.dtype == dtypes.float32 else dtypes.float64
    counts = np.bincount(values, weights=weights._numpy().astype(np.float64), minlength=minlength)
    return from_result(counts.astype(target), target)


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:  # noqa: A002
    """A histogram of ``bins`` equal-width bins over ``[min, max]`` (the data's range when
    both are 0; widened by 1 each side when it is one value). Values outside, and NaN, are
    not counted; ``max`` itself falls in the last bin."""
    if not isinstance(input, Tensor):
        raise TypeError(f"histc(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dtype not in dtypes.FLOATING:
        raise NotImplementedError(f'histc(): "histogram_cpu" not implemented for {input.dtype.name} '
                                  "(a floating tensor is needed)")
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)):
        raise TypeError(f"histc(): argument 'bins' must be int, not {type(bins).__name__}")
    if bins <= 0:
        raise RuntimeError(f"histc(): bins must be > 0, but got {bins}")
    data = input._numpy().reshape(-1)
    lo, hi = float(min), float(max)
    if lo > hi:
        raise RuntimeError(f"histc(): max must be larger than min, got min={lo} and max={hi}")
    if lo == hi and data.size:
        finite = data[np.isfinite(data)]
        if finite.size:
            lo, hi = float(finite.min()), float(finite.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"histc(): range of [{lo}, {hi}] is not finite")
    inside = data[(data >= lo) & (data <= hi)]
    with np.errstate(all="ignore"):
        pos = ((inside.astype(np.float64) - lo) * bins / (hi - lo)).astype(np.int64)
    pos[pos == bins] = bins - 1
    counts = np.bincount(pos, minlength=bins)[:bins]
    return from_result(counts.astype(input.dtype), input.dtype)


def bincount_method(self: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    return bincount(self, weights, minlength)


def histc_method(self: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:  # noqa: A002
    return histc(self, bins, min, max)
