"""Distributions made from Gammas: ``InverseGamma`` (``1 / X``) and ``FisherSnedecor`` (a
ratio of two scaled chi-squareds). Their ``rsample`` differentiates ``rate`` but not a
concentration or ``df`` (see ``gamma.py``)."""

from __future__ import annotations

import math
from typing import Any

from ..creation import tensor
from ..dtypes import finfo
from ..geometry import Size
from ..ops.compare import where
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .gamma import Gamma, _refuse_concentration_grad
from .transformed import TransformedDistribution
from .transforms import PowerTransform
from .utils import as_size


class InverseGamma(TransformedDistribution):
    """``1 / X`` for ``X ~ Gamma(concentration, rate)`` (``base_dist``)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True
    base_dist: Gamma

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        base = Gamma(concentration, rate, validate_args=validate_args)
        super().__init__(base, PowerTransform(tensor(-1.0, dtype=base.rate.dtype)), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> InverseGamma:
        return super().expand(batch_shape, self._get_checked_instance(InverseGamma, _instance))  # type: ignore[return-value]

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        _refuse_concentration_grad("InverseGamma", self.concentration)
        return super().rsample(sample_shape)

    @property
    def concentration(self) -> Tensor:
        return self.base_dist.concentration

    @property
    def rate(self) -> Tensor:
        return self.base_dist.rate

    @property
    def mean(self) -> Tensor:
        return where(self.concentration > 1, self.rate / (self.concentration - 1), math.inf)

    @property
    def mode(self) -> Tensor:
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Tensor:
        a = self.concentration
        return where(a > 2, self.rate.square() / ((a - 1).square() * (a - 2)), math.inf)

    def entropy(self) -> Tensor:
        a = self.concentration
        return a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()


class FisherSnedecor(Distribution):
    """The F distribution with ``df1`` and ``df2`` degrees of freedom."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1: Any, df2: Any, validate_args: bool | None = None) -> None:
        self._init_broadcast(validate_args, df1=df1, df2=df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)

    def expand(self, batch_shape: Any, _instance: Any = None) -> FisherSnedecor:
        new = self._expanded(FisherSnedecor, batch_shape, _instance, ("df1", "df2"))
        new._gamma1, new._gamma2 = self._gamma1.expand(batch_shape), self._gamma2.expand(batch_shape)
        return new

    @property
    def mean(self) -> Tensor:
        df2 = where(self.df2 > 2, self.df2, math.nan)
        return df2 / (df2 - 2)

    @property
    def mode(self) -> Tensor:
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return where(self.df1 > 2, mode, math.nan)

    @property
    def variance(self) -> Tensor:
        # (NaN where df2 <= 4 enters the formula, so df1's gradient there is NaN too, as PyTorch's)
        df1, df2 = self.df1, where(self.df2 > 4, self.df2, math.nan)
        return 2 * df2.pow(2) * (df1 + df2 - 2) / (df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        _refuse_concentration_grad("FisherSnedecor", self.df1, self.df2)
        shape = tuple(self._extended_shape(as_size(sample_shape)))
        tiny = finfo(self.df1.dtype).tiny
        x1 = self._gamma1.rsample(sample_shape).reshape(shape)
        x2 = self._gamma2.rsample(sample_shape).reshape(shape).clamp(min=tiny)
        return (x1 / x2).clamp(min=tiny)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        h1, h2, ratio = self.df1 * 0.5, self.df2 * 0.5, self.df1 / self.df2
        log_norm = (h1 + h2).lgamma() - h1.lgamma() - h2.lgamma()
        return log_norm + h1 * ratio.log() + (h1 - 1) * value.log() - (h1 + h2) * (ratio * value).log1p()
