"""``HalfNormal``, ``Cauchy``, ``HalfCauchy`` and ``StudentT``."""

from __future__ import annotations

import math
from typing import Any

from ..autograd import is_grad_enabled
from ..creation import full, zeros_like
from ..geometry import Size
from ..ops.compare import where
from ..randomness import randn
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, LocScale
from .gamma import Chi2
from .normal import Normal
from .transformed import TransformedDistribution
from .transforms import AbsTransform
from .utils import broadcast_all, draw


class _Half(TransformedDistribution):
    """``|X|`` for ``X`` of ``_base(0, scale)`` (``base_dist``), a distribution symmetric
    about 0."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _base: type

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(self._base(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> TransformedDistribution:
        return super().expand(batch_shape, self._get_checked_instance(type(self), _instance))

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale  # type: ignore[attr-defined,no-any-return]

    @property
    def mode(self) -> Tensor:
        return zeros_like(self.scale)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return where(value >= 0, self.base_dist.log_prob(value) + math.log(2), -math.inf)

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, value: Any) -> Tensor:
        return self.base_dist.icdf((value + 1) / 2)

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_Half):
    """``|X|`` for ``X ~ Normal(0, scale)``."""

    _base = Normal

    @property
    def mean(self) -> Tensor:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * (1 - 2 / math.pi)


class Cauchy(LocScale):
    """The Cauchy (Lorentz) distribution: no mean, infinite variance."""

    @property
    def mean(self) -> Tensor:
        return full(self._extended_shape(), math.nan, dtype=self.loc.dtype)

    @property
    def variance(self) -> Tensor:
        return full(self._extended_shape(), math.inf, dtype=self.loc.dtype)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        eps = draw(self._extended_shape(sample_shape), self.loc.dtype, lambda rng, shape: rng.standard_cauchy(shape))
        return self.loc + eps * self.scale

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - ((value - self.loc) / self.scale).pow(2).log1p()

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value: Any) -> Tensor:
        return (math.pi * (value - 0.5)).tan() * self.scale + self.loc

    def entropy(self) -> Tensor:
        return math.log(4 * math.pi) + self.scale.log()


class HalfCauchy(_Half):
    """``|X|`` for ``X ~ Cauchy(0, scale)``: no finite mean."""

    _base = Cauchy

    @property
    def mean(self) -> Tensor:
        return full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom, location ``loc`` and scale ``scale``
    (``rsample`` differentiates ``loc`` and ``scale``, not ``df``: see ``gamma.py``)."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0, validate_args: bool | None = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)  # (validates df first, as PyTorch's)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> StudentT:
        new = self._expanded(StudentT, batch_shape, _instance, ("df", "loc", "scale"))
        new._chi2 = self._chi2.expand(batch_shape)
        return new

    @property
    def mean(self) -> Tensor:
        return where(self.df <= 1, math.nan, self.loc)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        df = self.df
        finite = where(df > 2, self.scale.pow(2) * df / where(df > 2, df - 2, 1.0), df)
        return where(df <= 1, math.nan, where(df <= 2, math.inf, finite))

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        if is_grad_enabled() and self.df.requires_grad:
            raise NotImplementedError(
                "StudentT.rsample(): the reparameterized gradient with respect to df is not "
                "implemented in jitgrad (got a df that requires grad); use sample(), or detach df")
        x = randn(self._extended_shape(sample_shape), dtype=self.df.dtype)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * (z / self.df).rsqrt()

    def _log_normalizer(self) -> Tensor:
        half = 0.5 * self.df
        return (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
                + half.lgamma() - (half + 0.5).lgamma())

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        return -0.5 * (self.df + 1.0) * (y.pow(2) / self.df).log1p() - self._log_normalizer()

    def entropy(self) -> Tensor:
        half = 0.5 * self.df
        log_beta = half.lgamma() + math.lgamma(0.5) - (half + 0.5).lgamma()
        return (self.scale.log() + (half + 0.5) * ((half + 0.5).digamma() - half.digamma())
                + 0.5 * self.df.log() + log_beta)
