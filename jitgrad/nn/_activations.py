"""Pointwise activations of ``nn.functional`` composed from jitgrad ops.

Each composition keeps PyTorch's choice of branch at the kink (so gradients at 0 agree) and
clamps the argument of ``exp`` in the branch ``where`` does not take, so that branch never
produces inf * 0 = nan in backward.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import creation
from ..autograd import Function
from ..ops.compare import where
from ..ops.unary import clamp, exp, log, relu as _relu, sigmoid as _sigmoid, tanh as _tanh
from ..tensor import Tensor


def _inplace(input: Tensor, out: Tensor, inplace: bool) -> Tensor:
    if not inplace:
        return out
    return input.copy_(out)  # type: ignore[attr-defined]


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.relu_() if inplace else _relu(input)  # type: ignore[attr-defined]


def sigmoid(input: Tensor) -> Tensor:
    return _sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    return _tanh(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta x)) / beta``, and ``x`` itself where ``beta x > threshold``."""
    # TODO(merge): use jitgrad.softplus (branch optable); log1p would be exact for beta x << 0
    bx = input * beta
    soft = log(exp(clamp(bx, max=threshold)) + 1) / beta
    return where(bx > threshold, input, soft)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    # TODO(merge): use jitgrad.silu (branch optable)
    return _inplace(input, input * _sigmoid(input), inplace)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    # TODO(merge): use jitgrad's elu (branch optable)
    negative = (exp(clamp(input, max=0.0)) - 1) * alpha
    return _inplace(input, where(input > 0, input, negative), inplace)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    return _inplace(input, where(input > 0, input, input * negative_slope), inplace)


class _GeluExact(Function):
    """x Phi(x), Phi the normal CDF (needs erf, which jitgrad has no op for yet)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        erf = np.frompyfunc(math.erf, 1, 1)
        cdf_values = (0.5 * (1.0 + erf(x.numpy() / math.sqrt(2.0)))).astype(x.dtype)  # type: ignore[attr-defined]
        cdf = creation.from_numpy(cdf_values)
        ctx.save_for_backward(x, cdf)
        return x * cdf

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        x, cdf = ctx.saved_tensors
        pdf = exp(x * x * -0.5) / math.sqrt(2.0 * math.pi)
        return grad * (cdf + x * pdf)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    if approximate == "tanh":
        inner = (input + input * input * input * 0.044715) * math.sqrt(2.0 / math.pi)
        return input * 0.5 * (_tanh(inner) + 1)
    if approximate != "none":
        raise RuntimeError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    # TODO(merge): use jitgrad.gelu (branch optable); this Function's double backward
    # treats Phi(x) as a constant.
    return _GeluExact.apply(input)  # type: ignore[no-any-return]


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` (jitgrad's generator) and scale the rest by
    ``1 / (1 - p)``; the identity when ``training`` is false."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return _inplace(input, input * 0.0, inplace)
    keep = creation._generator.random(input.numel()) >= p
    mask = creation.from_numpy((keep / (1.0 - p)).astype(input.dtype).reshape(input.shape))
    return _inplace(input, input * mask, inplace)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """``clamp(x, min_val, max_val)`` with PyTorch's gradient: zero at the bounds too."""
    inside = (input > min_val) & (input < max_val)
    out = where(inside, input, clamp(input, min_val, max_val).detach())  # type: ignore[attr-defined]
    return _inplace(input, out, inplace)
