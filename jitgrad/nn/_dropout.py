"""Channel-wise and self-normalising dropout: ``dropout1d/2d/3d`` zero whole channels
(one draw per sample and channel, the rest scaled by ``1 / (1 - p)``); ``alpha_dropout``
and ``feature_alpha_dropout`` set dropped values to SELU's negative saturation and rescale
so a zero-mean, unit-variance input keeps its mean and variance. Masks come from jitgrad's
generator (not PyTorch's numbers)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import creation, randomness
from ..tensor import Tensor
from ._activations import _inplace

_SELU_ALPHA = 1.7580993408473766  # -(SELU's negative saturation value) = scale * alpha


def _check_p(p: float) -> None:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(input: Tensor, p: float, per_channel: bool) -> np.ndarray:
    """1 where kept, 0 where dropped: per element, or per (sample, channel) of ``(N, C, *)``."""
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2) if per_channel else tuple(input.shape)
    return (randomness.default_rng().random(shape) >= p).astype(input.dtype)


def _apply(input: Tensor, keep: np.ndarray, p: float, alpha: bool) -> Tensor:
    if not alpha:
        return input * creation.from_numpy(keep / (1.0 - p))
    a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
    shift = (keep - 1.0) * (_SELU_ALPHA * a) + _SELU_ALPHA * a * p
    return input * creation.from_numpy(keep * a) + creation.from_numpy(shift.astype(keep.dtype))


def _channelwise(name: str, input: Tensor, p: float, training: bool, inplace: bool, dims: int) -> Tensor:
    """``dropout{dims}d``: inputs of ``dims`` spatial dims, batched or not."""
    if input.ndim not in (dims + 1, dims + 2):
        if dims == 1:
            raise RuntimeError(
                f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that dropout1d "
                "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, "
                "and an optional batch dimension (i.e. 2D or 3D inputs)."
            )
        warnings.warn(
            f"{name}: Received a {input.ndim}-D input to {name}, which is deprecated and will result in an error "
            f"in a future release. To retain the behavior and silence this warning, please use dropout instead. "
            f"Note that {name} exists to provide channel-wise dropout on inputs with {dims} spatial dimensions, "
            f"a channel dimension, and an optional batch dimension (i.e. {dims + 1}D or {dims + 2}D inputs).",
            stacklevel=3)
    _check_p(p)
    if not training or p == 0.0:
        return input
    unbatched = input.ndim == dims + 1  # (other sizes, after the warning: dims 0 and 1 are N and C)
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    keep = _keep_mask(input.unsqueeze(0) if unbatched else input, p, per_channel=True)  # type: ignore[attr-defined]
    out = input * 0.0 if p == 1.0 else _apply(input, keep[0] if unbatched else keep, p, alpha=False)
    return _inplace(input, out, inplace)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    return _channelwise("dropout1d", input, p, training, inplace, 1)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    return _channelwise("dropout2d", input, p, training, inplace, 2)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    return _channelwise("dropout3d", input, p, training, inplace, 3)


def _alpha(input: Tensor, p: float, training: bool, inplace: bool, per_channel: bool) -> Tensor:
    _check_p(p)
    if not training or p == 0.0:
        return input
    out = input * 0.0 if p == 1.0 else _apply(input, _keep_mask(input, p, per_channel), p, alpha=True)
    return _inplace(input, out, inplace)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Per element: dropped values become SELU's saturation; all rescaled (mean/variance kept)."""
    return _alpha(input, p, training, inplace, per_channel=False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """``alpha_dropout`` with one draw per (sample, channel)."""
    return _alpha(input, p, training, inplace, per_channel=input.ndim >= 2)
