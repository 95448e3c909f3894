"""``Gumbel``, ``Weibull`` and ``Pareto``: transforms of a ``Uniform`` or an ``Exponential``
(so ``rsample``, ``cdf`` and ``icdf`` come from ``TransformedDistribution``), with their
densities, moments and entropies in closed form."""

from __future__ import annotations

import math
from typing import Any

from ..creation import full_like, ones_like
from ..dtypes import finfo
from ..tensor import Tensor
from . import constraints
from .exponential import Exponential
from .transformed import TransformedDistribution
from .transforms import AffineTransform, ExpTransform, PowerTransform
from .uniform import Uniform
from .utils import as_size, broadcast_all, euler_constant


class Gumbel(TransformedDistribution):
    """The Gumbel (type I extreme value) distribution: ``loc - scale * log(-log(U))``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        info = finfo(self.loc.dtype)
        base = Uniform(full_like(self.loc, info.tiny), full_like(self.loc, 1 - info.eps), validate_args=validate_args)
        chain = [ExpTransform().inv, AffineTransform(loc=0, scale=-ones_like(self.scale)), ExpTransform().inv,
                 AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base, chain, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gumbel:
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc, new.scale = self.loc.expand(tuple(batch_shape)), self.scale.expand(tuple(batch_shape))
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return y - y.exp() - self.scale.log()

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * euler_constant

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return math.pi / math.sqrt(6) * self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def entropy(self) -> Tensor:
        return self.scale.log() + (1 + euler_constant)


class Weibull(TransformedDistribution):
    """``scale * E ** (1 / concentration)`` for ``E ~ Exponential(1)``."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        super().__init__(Exponential(ones_like(self.scale), validate_args=validate_args), self._chain(),
                         validate_args=validate_args)

    def _chain(self) -> list[Any]:
        return [PowerTransform(exponent=self.concentration_reciprocal), AffineTransform(loc=0, scale=self.scale)]

    def expand(self, batch_shape: Any, _instance: Any = None) -> Weibull:
        new = self._get_checked_instance(Weibull, _instance)
        shape = tuple(as_size(batch_shape))
        new.scale, new.concentration = self.scale.expand(shape), self.concentration.expand(shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        TransformedDistribution.__init__(new, self.base_dist.expand(shape), new._chain(), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.scale * (1 + self.concentration_reciprocal).lgamma().exp()

    @property
    def mode(self) -> Tensor:
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self) -> Tensor:
        r = self.concentration_reciprocal
        return self.scale.pow(2) * ((1 + 2 * r).lgamma().exp() - (2 * (1 + r).lgamma()).exp())

    def entropy(self) -> Tensor:
        r = self.concentration_reciprocal
        return euler_constant * (1 - r) + (self.scale * r).log() + 1


class Pareto(TransformedDistribution):
    """``scale * exp(E)`` for ``E ~ Exponential(alpha)``: support ``[scale, inf)``."""

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale: Any, alpha: Any, validate_args: bool | None = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        super().__init__(Exponential(self.alpha, validate_args=validate_args),
                         [ExpTransform(), AffineTransform(loc=0, scale=self.scale)], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Pareto:
        new = self._get_checked_instance(Pareto, _instance)
        new.scale, new.alpha = self.scale.expand(tuple(batch_shape)), self.alpha.expand(tuple(batch_shape))
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def mean(self) -> Tensor:
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.greater_than_eq(self.scale)

    def entropy(self) -> Tensor:
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
