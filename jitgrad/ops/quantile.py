"""``quantile`` / ``nanquantile``: ATen's ``quantile_compute`` written with jitgrad ops (sort,
gather, lerp), so values, NaN handling, interpolation modes and gradients follow PyTorch."""

from __future__ import annotations

from typing import Any

from .. import creation, dtypes
from ..tensor import Tensor

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(op: str, input: Tensor, q: Any, dim: int | None, keepdim: bool, interpolation: str,
              ignore_nan: bool) -> Tensor:
    if input.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(f"{op}() input tensor must be either float or double dtype")
    if interpolation not in _MODES:
        raise RuntimeError(
            f"{op}() interpolation must be one of linear, lower, higher, midpoint or nearest, but got {interpolation}"
        )
    scalar_q = not isinstance(q, Tensor)
    if scalar_q:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{op}() q must be in the range [0, 1] but got {q}")
        q = creation.tensor(q, dtype=input.dtype)
    else:
        if q.ndim > 1:
            raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError(f"{op}() q tensor must be same dtype as the input tensor")
        if q.numel() and (bool((q < 0).any()) or bool((q > 1).any())):  # type: ignore[operator]
            raise RuntimeError(f"{op}() q values must be in the range [0, 1]")
    if input.numel() == 0:
        raise RuntimeError(f"{op}() input tensor must be non-empty")
    if dim is None:
        sorted_ = input.flatten().sort().values  # type: ignore[attr-defined]
        out_shape = [1] * input.ndim if keepdim else []
    else:
        d = dim % max(input.ndim, 1)
        if d == input.ndim - 1:  # (PyTorch sorts the last dim as it is)
            sorted_ = input.sort().values  # type: ignore[attr-defined]
        else:
            sorted_ = input.unsqueeze(-1).transpose(d, -1).sort().values  # type: ignore[attr-defined]
        out_shape = list(input.shape)
        if keepdim:
            out_shape[d] = 1
        else:
            out_shape.pop(d)
    out_shape = [int(s) for s in out_shape]
    if q.ndim == 0:
        out_shape.insert(0, 1)
    else:
        out_shape.insert(0, q.numel())
    in_shape = out_shape[1:] + [sorted_.shape[-1]] if out_shape[1:] else [sorted_.shape[-1]]
    sorted_ = sorted_.reshape(in_shape)
    last = sorted_.shape[-1] - 1
    qq = q.reshape(-1)  # (q as 1-D: the last dim of ranks)
    if ignore_nan:
        count = sorted_.isnan().logical_not().sum(-1, keepdim=True)  # type: ignore[attr-defined]
        ranks = qq * (count - 1).to(input.dtype)
        ranks = ranks.masked_fill(ranks < 0, 0)  # type: ignore[attr-defined]
    else:
        has_nan = sorted_.isnan().any(-1, keepdim=True)  # type: ignore[attr-defined]
        ranks = (qq * last).expand(*has_nan.shape[:-1], qq.numel())  # type: ignore[attr-defined]
        ranks = ranks.masked_fill(has_nan, last)  # type: ignore[attr-defined]
    if interpolation == "lower":
        ranks = ranks.floor()  # type: ignore[attr-defined]
    elif interpolation == "higher":
        ranks = ranks.ceil()  # type: ignore[attr-defined]
    elif interpolation == "nearest":
        ranks = ranks.round()  # type: ignore[attr-defined]
    below = ranks.long()  # type: ignore[attr-defined]
    values = sorted_.gather(-1, below)  # type: ignore[attr-defined]
    if interpolation in ("linear", "midpoint"):
        if interpolation == "midpoint":
            weights = creation.full_like(ranks, 0.5).masked_fill(ranks == below.to(ranks.dtype), 0)  # type: ignore[attr-defined]
        else:
            weights = ranks - below.to(ranks.dtype)  # type: ignore[attr-defined]
        above = sorted_.gather(-1, ranks.ceil().long())  # type: ignore[attr-defined]
        values = values.lerp(above, weights)  # type: ignore[attr-defined]
    # (in place, on the fresh result, as PyTorch: SqueezeBackward4, TransposeBackward1, ...)
    if q.ndim == 0:
        return values.squeeze_(-1)  # type: ignore[no-any-return]
    return values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)  # type: ignore[no-any-return]


def quantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    """The ``q``-th quantiles (``q`` a number or a 1-D tensor: its dim first) of ``input``
    (flattened) or along ``dim``; NaN where a NaN is present."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    """``quantile`` ignoring NaN (NaN only where every value is)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)
