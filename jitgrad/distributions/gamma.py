"""``Gamma`` (shape ``concentration``, rate ``rate``; its ``cdf`` is ``ops/igamma.py``'s ``igamma``),
``Chi2`` and ``Beta`` on [0, 1].

Their ``rsample`` is differentiable with respect to ``rate`` only: the implicit gradient with
respect to a concentration (PyTorch's ``_standard_gamma_grad``) is not implemented, so
``rsample`` refuses (``NotImplementedError``) while a concentration requires grad;
``sample`` always works."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd import is_grad_enabled
from ..dtypes import finfo
from ..geometry import Size
from ..ops.binary_math import xlogy
from ..ops.compare import where
from ..ops.igamma import igamma as gammainc
from ..tensor import Tensor
from . import constraints
from .exp_family import ExponentialFamily
from .utils import draw


def _refuse_concentration_grad(name: str, *concentrations: Tensor) -> None:
    if is_grad_enabled() and any(c.requires_grad for c in concentrations):
        raise NotImplementedError(
            f"{name}.rsample(): the reparameterized gradient with respect to a concentration is not "
            "implemented in jitgrad (got a concentration that requires grad); use sample(), or "
            "detach the concentration")


def _numpy(t: Tensor, shape: Size) -> np.ndarray:
    return t.detach().expand(tuple(shape)).numpy()


class Gamma(ExponentialFamily):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self._init_broadcast(validate_args, concentration=concentration, rate=rate)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gamma:
        return self._expanded(Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        _refuse_concentration_grad(type(self).__name__, self.concentration)
        shape = self._extended_shape(sample_shape)
        alpha = _numpy(self.concentration, shape)
        tiny = finfo(self.rate.dtype).tiny
        g = draw(shape, self.rate.dtype, lambda rng, _: np.maximum(rng.standard_gamma(alpha), tiny))
        return g / self.rate

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        a = self.concentration
        return xlogy(a, self.rate) + xlogy(a - 1, value) - self.rate * value - a.lgamma()

    def entropy(self) -> Tensor:
        a = self.concentration
        return a - self.rate.log() + a.lgamma() + (1.0 - a) * a.digamma()

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return gammainc(self.concentration, self.rate * value)

    @property
    def _natural_params(self) -> tuple[Tensor, Tensor]:
        return self.concentration - 1, -self.rate

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:  # type: ignore[override]
        return (x + 1).lgamma() + (x + 1) * (-y.reciprocal()).log()


class Chi2(Gamma):
    """The chi-squared distribution with ``df`` degrees of freedom: ``Gamma(df / 2, 1 / 2)``."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: bool | None = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Chi2:
        return self._expanded(Chi2, batch_shape, _instance, ("concentration", "rate"))

    @property
    def df(self) -> Tensor:
        return self.concentration * 2


class Beta(ExponentialFamily):
    """Beta on [0, 1] with concentrations ``concentration1`` (of 1) and ``concentration0``."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: bool | None = None) -> None:
        self._init_broadcast(validate_args, _c1=concentration1, _c0=concentration0)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Beta:
        return self._expanded(Beta, batch_shape, _instance, ("_c1", "_c0"))

    @property
    def concentration1(self) -> Tensor:
        return self._c1

    @property
    def concentration0(self) -> Tensor:
        return self._c0

    @property
    def mean(self) -> Tensor:
        return self._c1 / (self._c1 + self._c0)

    @property
    def mode(self) -> Tensor:
        a1, b1 = (self._c1 - 1).clamp(min=0), (self._c0 - 1).clamp(min=0)
        # both below 1: the density peaks at both ends; PyTorch picks 1 (the first argmax)
        return where((self._c1 < 1) & (self._c0 < 1), 1.0, a1 / (a1 + b1))

    @property
    def variance(self) -> Tensor:
        total = self._c1 + self._c0
        return self._c1 * self._c0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        _refuse_concentration_grad("Beta", self._c1, self._c0)
        shape = self._extended_shape(sample_shape)
        a, b = _numpy(self._c1, shape), _numpy(self._c0, shape)
        info = finfo(self._c1.dtype)
        return draw(shape, self._c1.dtype,
                    lambda rng, _: np.clip(rng.beta(a, b), info.tiny, 1 - info.eps))

    def _log_beta(self) -> Tensor:
        return self._c1.lgamma() + self._c0.lgamma() - (self._c1 + self._c0).lgamma()

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return xlogy(self._c1 - 1, value) + xlogy(self._c0 - 1, 1 - value) - self._log_beta()

    @property
    def _natural_params(self) -> tuple[Tensor, Tensor]:
        return self._c1, self._c0

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:  # type: ignore[override]
        return x.lgamma() + y.lgamma() - (x + y).lgamma()

    def entropy(self) -> Tensor:
        a, b = self._c1, self._c0
        return self._log_beta() - (a - 1) * a.digamma() - (b - 1) * b.digamma() \
            + (a + b - 2) * (a + b).digamma()
