"""``eye_``, ``orthogonal_`` and ``trunc_normal_`` for ``jitgrad.nn.init`` (in place, under
``no_grad``; random values from jitgrad's generator, not PyTorch's numbers)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import randomness
from ..tensor import Tensor
from .init import _check, _fill_from


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity (ones on the main diagonal of a rectangle)."""
    _check("eye_", tensor)
    if tensor.ndim != 2:
        raise ValueError(f"nn.init.eye_: Only tensors with 2 dimensions are supported, got {tensor.ndim}")
    return _fill_from(tensor, np.eye(*tensor.shape))


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Any = None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix: ``Q`` of the QR of a Gaussian
    ``size(0) x numel/size(0)`` matrix, its columns' signs set by ``R``'s diagonal, times ``gain``."""
    _check("orthogonal_", tensor)
    if tensor.ndim < 2:
        raise ValueError(f"nn.init.orthogonal_: Only tensors with 2 or more dimensions are supported, got {tensor.ndim}")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = randomness._rng("nn.init.orthogonal_", generator).standard_normal((rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill_from(tensor, gain * q)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Any = None) -> Tensor:
    """Fill with N(mean, std^2) draws conditioned on ``[a, b]`` (inverse-CDF sampling, as
    PyTorch's)."""
    from ..creation import from_numpy
    from ..ops.pointwise import erfinv

    _check("trunc_normal_", tensor)
    if mean < a - 2 * std or mean > b + 2 * std:
        import warnings

        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)

    def cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    low, high = cdf((a - mean) / std), cdf((b - mean) / std)
    u = randomness._rng("nn.init.trunc_normal_", generator).uniform(2 * low - 1, 2 * high - 1, tensor.numel())
    z = erfinv(from_numpy(u)).numpy()  # type: ignore[attr-defined]
    return _fill_from(tensor, np.clip(z * (std * math.sqrt(2.0)) + mean, a, b))
