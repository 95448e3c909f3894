"""``Normal``, ``LogNormal`` (``exp`` of a Normal) and ``LogisticNormal`` (a Normal mapped to
the simplex by stick breaking)."""

from __future__ import annotations

import math
from typing import Any

from ..randomness import randn
from ..geometry import Size
from ..tensor import Tensor
from . import constraints
from .distribution import LocScale
from .exp_family import ExponentialFamily
from .transformed import TransformedDistribution
from .transforms import ExpTransform, StickBreakingTransform


class Normal(LocScale, ExponentialFamily):
    """The normal distribution with mean ``loc`` and standard deviation ``scale``."""

    _mean_carrier_measure = 0

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        eps = randn(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -0.5 * z * z - self.scale.log() - 0.5 * math.log(2 * math.pi)

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        # (value's dtype first: a float32 scale must not round the float64 value's z)
        return 0.5 * (1 + ((value - self.loc) / self.scale / math.sqrt(2)).erf())

    def icdf(self, value: Any) -> Tensor:
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)

    def entropy(self) -> Tensor:
        return 0.5 * (1 + math.log(2 * math.pi)) + self.scale.log()

    @property
    def _natural_params(self) -> tuple[Tensor, Tensor]:
        return self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal()

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:  # type: ignore[override]
        return -0.25 * x.pow(2) / y + 0.5 * (-math.pi / y).log()


class LogNormal(TransformedDistribution):
    """``exp(X)`` for ``X ~ Normal(loc, scale)`` (``base_dist``)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True
    base_dist: Normal

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogNormal:
        return super().expand(batch_shape, self._get_checked_instance(LogNormal, _instance))  # type: ignore[return-value]

    @property
    def loc(self) -> Tensor:
        return self.base_dist.loc

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        return (self.loc + 0.5 * self.scale.pow(2)).exp()

    @property
    def mode(self) -> Tensor:
        return (self.loc - self.scale.pow(2)).exp()

    @property
    def variance(self) -> Tensor:
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() + self.loc


class LogisticNormal(TransformedDistribution):
    """A Normal vector of length ``K - 1`` mapped onto the ``K``-simplex by
    ``StickBreakingTransform``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogisticNormal:
        return super().expand(batch_shape, self._get_checked_instance(LogisticNormal, _instance))  # type: ignore[return-value]

    @property
    def loc(self) -> Tensor:
        return self.base_dist.base_dist.loc  # type: ignore[attr-defined,no-any-return]

    @property
    def scale(self) -> Tensor:
        return self.base_dist.base_dist.scale  # type: ignore[attr-defined,no-any-return]
