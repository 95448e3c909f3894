"""Two more distributions on [0, 1]: ``Kumaraswamy`` (a transform of a Uniform, with Beta-like
shapes and a closed-form cdf) and ``ContinuousBernoulli`` (the normalized ``p^x (1-p)^(1-x)``;
near ``p = 1/2``, inside ``lims``, its normalizer and moments use their Taylor expansions)."""

from __future__ import annotations

import math
from typing import Any

from ..autograd import no_grad
from ..creation import full_like, ones_like
from ..geometry import Size
from ..nn.functional import binary_cross_entropy_with_logits
from ..ops.compare import where
from ..randomness import rand
from ..tensor import Tensor
from . import constraints
from .bernoulli import BinaryParametrized, _one_of
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .transformed import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all, clamp_probs, euler_constant, lazy_property, logits_to_probs


def _kumaraswamy_moment(a: Tensor, b: Tensor, n: int) -> Tensor:
    """``E[X^n] = b B(1 + n/a, b)``."""
    first = 1 + n / a
    return b * (first.lgamma() + b.lgamma() - (first + b).lgamma()).exp()


class Kumaraswamy(TransformedDistribution):
    """``(1 - U^(1/concentration0))^(1/concentration1)`` for ``U`` uniform on [0, 1]."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: bool | None = None) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(full_like(self.concentration0, 0), full_like(self.concentration0, 1), validate_args=validate_args)
        chain = [PowerTransform(exponent=self.concentration0.reciprocal()), AffineTransform(loc=1.0, scale=-1.0),
                 PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base, chain, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Kumaraswamy:
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(tuple(batch_shape))
        new.concentration0 = self.concentration0.expand(tuple(batch_shape))
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def mean(self) -> Tensor:
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        return where((b < 1) | (a < 1), math.nan, log_mode).exp()

    @property
    def variance(self) -> Tensor:
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        harmonic = (b + 1).digamma() + euler_constant  # H_b
        return (1 - b.reciprocal()) + (1 - a.reciprocal()) * harmonic - a.log() - b.log()


class ContinuousBernoulli(BinaryParametrized, ExponentialFamily):
    """The density ``C(p) p^x (1-p)^(1-x)`` on [0, 1]; ``probs`` are kept one epsilon inside
    (0, 1), and ``lims`` bound the region around 1/2 computed by Taylor expansion."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs: Any = None, logits: Any = None, lims: tuple[float, float] = (0.499, 0.501),
                 validate_args: bool | None = None) -> None:
        _one_of(probs, logits)
        if probs is not None:
            (given,) = broadcast_all(probs)
            # (PyTorch checks probs as given only when validate_args is passed; the clamped
            # probs, always inside (0, 1), are what the usual validation sees)
            if validate_args is not None and not bool(constraints.unit_interval.check(given).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = self._param = clamp_probs(given)
        else:
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        self._lims = lims
        Distribution.__init__(self, self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ContinuousBernoulli:
        new = self._expanded(ContinuousBernoulli, batch_shape, _instance, ("probs", "logits"))
        new._lims = self._lims
        return new

    @lazy_property
    def probs(self) -> Tensor:
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def _outside_unstable_region(self) -> Tensor:
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self) -> Tensor:
        """``probs``, with those near 1/2 moved to ``lims[0]`` (where the exact forms are fine)."""
        return where(self._outside_unstable_region(), self.probs, self._lims[0] * ones_like(self.probs))

    def _cont_bern_log_norm(self) -> Tensor:
        p = self._cut_probs()
        below, above = where(p <= 0.5, p, 0.0), where(p >= 0.5, p, 1.0)
        exact = ((-p).log1p() - p.log()).abs().log() - where(p <= 0.5, (-2.0 * below).log1p(), (2.0 * above - 1.0).log())
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside_unstable_region(), exact, taylor)

    @property
    def mean(self) -> Tensor:
        p = self._cut_probs()
        exact = p / (2.0 * p - 1.0) + 1.0 / ((-p).log1p() - p.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return where(self._outside_unstable_region(), exact, taylor)

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    @property
    def variance(self) -> Tensor:
        p = self._cut_probs()
        exact = p * (p - 1.0) / (1.0 - 2.0 * p).pow(2) + 1.0 / ((-p).log1p() - p.log()).pow(2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside_unstable_region(), exact, taylor)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        u = rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        with no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        return self.icdf(rand(self._extended_shape(sample_shape), dtype=self.probs.dtype))

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none") + self._cont_bern_log_norm()

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        p = self._cut_probs()
        inside = (p.pow(value) * (1.0 - p).pow(1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inside = where(self._outside_unstable_region(), inside, value)
        return where(value <= 0.0, 0.0 * value, where(value >= 1.0, 0.0 * value + 1.0, inside))

    def icdf(self, value: Any) -> Tensor:
        p = self._cut_probs()
        exact = ((-p + value * (2.0 * p - 1.0)).log1p() - (-p).log1p()) / (p.log() - (-p).log1p())
        return where(self._outside_unstable_region(), exact, value)

    def entropy(self) -> Tensor:
        log_q, log_p = (-self.probs).log1p(), self.probs.log()
        return self.mean * (log_q - log_p) - self._cont_bern_log_norm() - log_q

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (self.logits,)

    def _log_normalizer(self, x: Tensor) -> Tensor:  # type: ignore[override]
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = where(outside, x, (self._lims[0] - 0.5) * ones_like(x))
        exact = cut.expm1().abs().log() - cut.abs().log()
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return where(outside, exact, taylor)
