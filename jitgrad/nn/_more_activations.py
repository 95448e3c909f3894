"""More activations of ``nn.functional``, each written so that its values and gradients are
PyTorch's, boundaries included (``where`` picks the branch whose derivative PyTorch's
backward uses; the declared ones of ``ops/activations_more.py`` record PyTorch's nodes, in
place too): ``relu6``, ``hardsigmoid``, ``hardswish``, ``logsigmoid``, ``softsign``,
``tanhshrink``, ``selu``, ``celu``, ``glu``, ``softmin``, ``threshold``, ``hardshrink``,
``softshrink``, ``rms_norm``."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..ops import activations_more as _more
from ..ops.pointwise import tanh
from ..ops.softmax import softmax
from ..tensor import Tensor
from ._activations import hardtanh, softplus


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return _more.hardsigmoid_(input) if inplace else _more.hardsigmoid(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return _more.hardswish_(input) if inplace else _more.hardswish(input)


def logsigmoid(input: Tensor) -> Tensor:
    return -softplus(-input)


def softsign(input: Tensor) -> Tensor:
    return input / (input.abs() + 1)  # type: ignore[attr-defined,no-any-return]


def tanhshrink(input: Tensor) -> Tensor:
    return input - tanh(input)  # type: ignore[no-any-return]


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    return _more.selu_(input) if inplace else _more.selu(input)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _more.celu_(input, alpha=alpha) if inplace else _more.celu(input, alpha=alpha)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """``a * sigmoid(b)`` for the two halves ``a``, ``b`` of ``input`` along ``dim``."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % input.ndim
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}")
    a, b = input.chunk(2, d)  # type: ignore[attr-defined]
    return a * b.sigmoid()  # type: ignore[no-any-return]


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    if dim is None:
        raise TypeError("softmin(): dim must be given (PyTorch's implicit-dim choice is deprecated)")
    return softmax(-input, dim, dtype)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    fn = _more.threshold_ if inplace else _more.threshold
    return fn(input, threshold=threshold, value=value)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return _more.hardshrink(input, lambd=lambd)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return _more.softshrink(input, lambd=lambd)


def rms_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """``x / sqrt(mean(x^2) + eps)`` over the trailing ``normalized_shape`` (eps defaults to
    the dtype's machine epsilon), times ``weight``."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(
            f"rms_norm: expected input with trailing shape {list(shape)}, got {list(input.shape)}")
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    e = float(np.finfo(input.dtype).eps) if eps is None else eps
    out = input * ((input * input).mean(dims, keepdim=True) + e).rsqrt()  # type: ignore[attr-defined]
    return out if weight is None else out * weight
