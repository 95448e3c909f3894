"""The in-place spellings of ``nn.functional``'s activations (``relu_``, ``elu_``, ...): each
is its activation with ``inplace=True`` (and returns ``input``, written)."""

from __future__ import annotations

from ..tensor import Tensor
from ._activations import elu, hardtanh, leaky_relu, relu
from ._more_activations import celu, selu, threshold as _threshold


def relu_(input: Tensor) -> Tensor:
    return relu(input, inplace=True)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return _threshold(input, threshold, value, inplace=True)


def selu_(input: Tensor) -> Tensor:
    return selu(input, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, inplace=True)
