"""Pointwise activations of ``nn.functional``: the declared ops of ``ops/activations.py`` with
PyTorch's functional signatures (``inplace=``), plus ``leaky_relu`` and ``dropout``.
"""

from __future__ import annotations

from .. import creation, randomness
from ..ops import activations as _act, activations_more as _more
from ..ops.pointwise import sigmoid as _sigmoid, tanh as _tanh
from ..tensor import Tensor


def _inplace(input: Tensor, out: Tensor, inplace: bool) -> Tensor:
    if not inplace:
        return out
    return input.copy_(out)  # type: ignore[attr-defined]


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return _act.relu_(input) if inplace else _act.relu(input)


def sigmoid(input: Tensor) -> Tensor:
    return _sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    return _tanh(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    return _act.softplus(input, beta=beta, threshold=threshold)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _act.silu_(input) if inplace else _act.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return _act.mish_(input) if inplace else _act.mish(input)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _act.elu_(input, alpha=alpha) if inplace else _act.elu(input, alpha=alpha)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    fn = _more.leaky_relu_ if inplace else _more.leaky_relu
    return fn(input, negative_slope=negative_slope)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    return _act.gelu(input, approximate=approximate)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    fn = _act.hardtanh_ if inplace else _act.hardtanh
    return fn(input, min_val=min_val, max_val=max_val)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` (jitgrad's generator) and scale the rest by
    ``1 / (1 - p)``; the identity when ``training`` is false."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return _inplace(input, input * 0.0, inplace)
    keep = randomness.default_rng().random(input.numel()) >= p
    mask = creation.from_numpy((keep / (1.0 - p)).astype(input.dtype).reshape(input.shape))
    return _inplace(input, input * mask, inplace)
