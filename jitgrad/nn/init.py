"""``jitgrad.nn.init``: fill a tensor in place (under ``no_grad``), as ``torch.nn.init``.

Random values come from jitgrad's generator (``jitgrad.manual_seed`` seeds it), so they are
reproducible within jitgrad but are not PyTorch's numbers.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import creation, randomness
from ..autograd import no_grad
from ..tensor import Tensor

__all__ = [
    "calculate_gain", "constant_", "kaiming_normal_", "kaiming_uniform_", "normal_", "ones_",
    "uniform_", "xavier_normal_", "xavier_uniform_", "zeros_",
]


def _fill_from(tensor: Tensor, values: np.ndarray) -> Tensor:
    with no_grad():
        tensor.copy_(creation.from_numpy(values.reshape(tensor.shape)))  # type: ignore[attr-defined]
    return tensor


def _check(op: str, tensor: Any) -> None:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"nn.init.{op}: expected a jitgrad.Tensor, got {type(tensor).__name__}")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with values drawn from U(a, b)."""
    _check("uniform_", tensor)
    return _fill_from(tensor, randomness.default_rng().uniform(a, b, tensor.numel()))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with values drawn from N(mean, std^2)."""
    _check("normal_", tensor)
    return _fill_from(tensor, randomness.default_rng().normal(mean, std, tensor.numel()))


def constant_(tensor: Tensor, val: float) -> Tensor:
    _check("constant_", tensor)
    with no_grad():
        tensor.fill_(val)  # type: ignore[attr-defined]
    return tensor


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (PyTorch's table)."""
    linear = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid"]
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (bool, int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions, "
            f"got {tensor.dim()}"
        )
    receptive = 1
    for n in tensor.shape[2:]:
        receptive *= n
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor: Tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)))


def kaiming_uniform_(
    tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    if 0 in tensor.shape:
        return tensor  # PyTorch warns and leaves an empty tensor alone
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(
    tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    if 0 in tensor.shape:
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std)


# -- eye_, orthogonal_, trunc_normal_ (nn/init_matrices.py) --
from .init_matrices import eye_, orthogonal_, trunc_normal_  # noqa: E402

__all__ += ["eye_", "orthogonal_", "trunc_normal_"]
