"""``Linear``, ``Identity``, ``Flatten``."""

from __future__ import annotations

import math
from typing import Any

from ... import creation
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


class Identity(Module):
    """Returns its input; accepts and ignores any constructor arguments."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


def weight_and_bias(module: Module, shape: tuple[int, ...], bias: bool, dtype: Any) -> None:
    """Register an uninitialised ``weight`` of ``shape`` and, with ``bias``, a ``bias`` of
    ``shape[0]`` (else None)."""
    module.weight = Parameter(creation.empty(shape, dtype=dtype))
    if bias:
        module.bias = Parameter(creation.empty(shape[0], dtype=dtype))
    else:
        module.register_parameter("bias", None)


def kaiming_reset(weight: Tensor, bias: Tensor | None) -> None:
    """PyTorch's init of Linear and Conv layers: Kaiming-uniform with ``a = sqrt(5)``, the
    bias uniform in ``±1/sqrt(fan_in)``."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


class Linear(Module):
    """``y = x W^T + b`` with ``W`` of shape ``(out_features, in_features)``, initialised as
    PyTorch does (Kaiming-uniform with ``a = sqrt(5)``; bias uniform in ``±1/sqrt(in)``),
    from jitgrad's generator (``jitgrad.manual_seed``)."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        weight_and_bias(self, (out_features, in_features), bias, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        kaiming_reset(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    """``y = x1^T A x2 + b`` with ``A`` of shape ``(out, in1, in2)``, both initialised
    uniform in ``±1/sqrt(in1)`` as PyTorch, from jitgrad's generator."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        weight_and_bias(self, (out_features, in1_features, in2_features), bias, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class Flatten(Module):
    """Flattens dims ``start_dim..end_dim`` (by default all but the batch dim)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)  # type: ignore[attr-defined]

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
