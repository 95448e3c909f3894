"""Helpers the distributions share: parameter broadcasting, the probs/logits conversions,
``lazy_property`` (a parameter computed from the other one on first use) and the draws from
jitgrad's generator (``jitgrad.manual_seed`` seeds them; the numbers are not PyTorch's)."""

from __future__ import annotations

import numbers
from typing import Any, Callable, Generic, TypeVar

import numpy as np

from .. import randomness
from ..autograd import enable_grad
from ..creation import tensor
from ..dtypes import finfo, get_default_dtype
from ..geometry import Size
from ..ops.joins import broadcast_tensors
from ..tensor import Tensor

euler_constant = 0.57721566490153286061  # the Euler-Mascheroni constant


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """The parameters as tensors of one broadcast shape; numbers take the dtype of the first
    tensor among them (the default dtype when there is none)."""
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, jitgrad.Tensor or "
                         "objects implementing __torch_function__.")
    dtype = next((v.dtype for v in values if isinstance(v, Tensor)), get_default_dtype())
    as_tensors = [v if isinstance(v, Tensor) else tensor(v, dtype=dtype) for v in values]
    return tuple(broadcast_tensors(*as_tensors))


def clamp_probs(probs: Tensor) -> Tensor:
    """``probs`` kept one machine epsilon inside (0, 1), so its logits are finite."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Log-odds (``is_binary``) or log-probabilities of (clamped) ``probs``."""
    clamped = clamp_probs(probs)
    if is_binary:
        return clamped.log() - (-clamped).log1p()
    return clamped.log()


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """The sigmoid of log-odds (``is_binary``), or the softmax over the last dim."""
    return logits.sigmoid() if is_binary else logits.softmax(-1)


def sum_rightmost(value: Tensor, dims: int) -> Tensor:
    """``value`` summed over its ``dims`` rightmost dims."""
    if dims == 0:
        return value
    return value.reshape(tuple(value.shape[: value.dim() - dims]) + (-1,)).sum(-1)


T = TypeVar("T")
R = TypeVar("R")


class lazy_property(Generic[T, R]):  # noqa: N801  (PyTorch's name)
    """A parameter computed on first read (with grad enabled, so it stays differentiable
    even when first read under ``no_grad``) and then stored on the instance."""

    def __init__(self, wrapped: Callable[[T], R]) -> None:
        self.wrapped = wrapped
        self.__name__ = wrapped.__name__
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance: T | None, owner: Any = None) -> Any:
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.__name__, value)
        return value


def as_size(shape: Any) -> Size:
    """``shape`` (a ``Size``, a tuple or list of ints) as a ``Size``."""
    return Size(int(n) for n in shape)


def draw(shape: Size, dtype: Any, sampler: Callable[[np.random.Generator, tuple[int, ...]], Any]) -> Tensor:
    """A tensor of ``shape`` and ``dtype`` filled by ``sampler(rng, shape)`` from jitgrad's
    default generator (no gradient: the caller builds the reparameterization around it)."""
    values = np.asarray(sampler(randomness.default_rng(), tuple(shape)), dtype=np.float64)
    return tensor(values.reshape(tuple(shape)), dtype=dtype)
