"""``torch.nn.functional``'s activations (declared in ``ops/activations.py``), with PyTorch's
names and defaults. ``elu``, ``hardtanh``, ``silu``, ``mish`` take ``inplace=`` as PyTorch's do.
"""

from __future__ import annotations


from ..ops import activations as _act
from ..ops.activations import gelu, softplus
from ..ops.pointwise import sigmoid, tanh
from ..tensor import Tensor


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return _act.relu_(input) if inplace else _act.relu(input)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _act.elu_(input, alpha=alpha) if inplace else _act.elu(input, alpha=alpha)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    fn = _act.hardtanh_ if inplace else _act.hardtanh
    return fn(input, min_val=min_val, max_val=max_val)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _act.silu_(input) if inplace else _act.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return _act.mish_(input) if inplace else _act.mish(input)


relu_ = _act.relu_
elu_ = _act.elu_
hardtanh_ = _act.hardtanh_

__all__ = ["elu", "elu_", "gelu", "hardtanh", "hardtanh_", "mish", "relu", "relu_", "sigmoid", "silu",
           "softplus", "tanh"]
