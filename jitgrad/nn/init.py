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
    "uniform_", "xavier_normal_", "xavier_uniform_", "zeros_", "eye_", "dirac_", "orthogonal_", "trunc_normal_",
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


# -- eye_, orthogonal_, trunc_normal_ ------------------------------------------------------
def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity (ones on the main diagonal of a rectangle)."""
    _check("eye_", tensor)
    if tensor.ndim != 2:
        raise ValueError(f"nn.init.eye_: Only tensors with 2 dimensions are supported, got {tensor.ndim}")
    return _fill_from(tensor, np.eye(*tensor.shape))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta: each of the ``groups``
    groups maps input channel ``d`` to output channel ``d`` unchanged (centre tap 1)."""
    _check("dirac_", tensor)
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    values = np.zeros(sizes)
    centre = tuple(k // 2 for k in sizes[2:])
    for g in range(groups):
        for d in range(min(out_per_group, sizes[1])):
            values[(g * out_per_group + d, d) + centre] = 1
    return _fill_from(tensor, values)


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
    z = erfinv(from_numpy(u))._numpy()  # type: ignore[attr-defined]
    return _fill_from(tensor, np.clip(z * (std * math.sqrt(2.0)) + mean, a, b))
