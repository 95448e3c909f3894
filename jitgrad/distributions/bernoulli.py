"""``Bernoulli`` and ``Binomial``, each given by ``probs`` or by ``logits`` (log-odds); the
other parametrization is computed on first use (``lazy_property``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd import no_grad
from ..geometry import Size
from ..nn.functional import binary_cross_entropy_with_logits
from ..ops.compare import where
from ..ranges import arange
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .utils import broadcast_all, draw, lazy_property, logits_to_probs, probs_to_logits


def _one_of(probs: Any, logits: Any) -> None:
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class BinaryParametrized(Distribution):
    """A distribution given by the probability of one event, ``probs``, or by its log-odds,
    ``logits`` (``_param`` is the one given); the other follows on first use."""

    def _init_probs_or_logits(self, probs: Any, logits: Any, validate_args: bool | None,
                              total_count: Any = None) -> None:
        """``__init__``: exactly one of ``probs`` and ``logits``, and the ``total_count`` of
        trials (broadcast with it, in its dtype) when there is one."""
        _one_of(probs, logits)
        given = probs if probs is not None else logits
        if total_count is None:
            (param,) = broadcast_all(given)
        else:
            total, param = broadcast_all(total_count, given)
            self.total_count = total.type_as(param)
        setattr(self, "probs" if probs is not None else "logits", param)
        self._param = param
        Distribution.__init__(self, param.size(), validate_args=validate_args)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()


def _support_values(count: int, batch_shape: Size, dtype: Any, expand: bool) -> Tensor:
    """``0 .. count-1`` along dim 0, over the batch dims (size 1 unless ``expand``)."""
    values = arange(count, dtype=dtype).reshape((-1,) + (1,) * len(batch_shape))
    return values.expand((-1,) + tuple(batch_shape)) if expand else values


class Bernoulli(BinaryParametrized, ExponentialFamily):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        self._init_probs_or_logits(probs, logits, validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Bernoulli:
        return self._expanded(Bernoulli, batch_shape, _instance, ("probs", "logits"))

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        p = self.probs.detach()
        return where(p == 0.5, float("nan"), (p >= 0.5).type_as(p))

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        p = self.probs.detach().expand(tuple(shape)).numpy()
        with no_grad():
            return draw(shape, self._param.dtype, lambda rng, _: rng.random(p.shape) < p)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        return _support_values(2, self._batch_shape, self._param.dtype, expand)

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (self.probs.logit(),)

    def _log_normalizer(self, x: Tensor) -> Tensor:  # type: ignore[override]
        return x.exp().log1p()


class Binomial(BinaryParametrized):
    """Successes in ``total_count`` Bernoulli trials."""

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        self._init_probs_or_logits(probs, logits, validate_args, total_count)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Binomial:
        return self._expanded(Binomial, batch_shape, _instance, ("total_count", "probs", "logits"))

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        n = self.total_count.detach().expand(tuple(shape)).numpy().astype(np.int64)
        p = self.probs.detach().expand(tuple(shape)).numpy()
        with no_grad():
            return draw(shape, self._param.dtype, lambda rng, _: rng.binomial(n, p))

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        log_choose = (n + 1).lgamma() - (value + 1).lgamma() - (n - value + 1).lgamma()
        # log(1 + e^logits), written so that it stays finite and exact for large |logits|
        log1p_exp = logits.clamp(min=0) + (-logits.abs()).exp().log1p()
        return log_choose + value * logits - n * log1p_exp

    def _homogeneous_count(self, op: str) -> int:
        n = int(self.total_count.max())
        if not self.total_count.min() == n:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{op}`.")
        return n

    def entropy(self) -> Tensor:
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self._homogeneous_count("enumerate_support")
        return _support_values(1 + n, self._batch_shape, self._param.dtype, expand)
