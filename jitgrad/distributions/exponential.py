"""``Exponential`` (rate ``rate``) and ``Poisson`` (mean ``rate``)."""

from __future__ import annotations

from typing import Any

from ..autograd import no_grad
from ..creation import zeros_like
from ..geometry import Size
from ..tensor import Tensor
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all, draw


class Exponential(ExponentialFamily):
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        self._init_broadcast(validate_args, rate=rate)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Exponential:
        return self._expanded(Exponential, batch_shape, _instance, ("rate",))

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return zeros_like(self.rate)

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        e = draw(self._extended_shape(sample_shape), self.rate.dtype,
                 lambda rng, shape: rng.standard_exponential(shape))
        return e / self.rate

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -(-self.rate * value).expm1()

    def icdf(self, value: Any) -> Tensor:
        return -(-value).log1p() / self.rate

    def entropy(self) -> Tensor:
        return 1.0 - self.rate.log()

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (-self.rate,)

    def _log_normalizer(self, x: Tensor) -> Tensor:  # type: ignore[override]
        return -(-x).log()


class Poisson(ExponentialFamily):
    """Counts with mean ``rate`` (``sample`` only: no reparameterization)."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        self._init_broadcast(validate_args, rate=rate)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Poisson:
        return self._expanded(Poisson, batch_shape, _instance, ("rate",))

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        rate = self.rate.detach().expand(tuple(shape)).numpy()
        with no_grad():
            return draw(shape, self.rate.dtype, lambda rng, _: rng.poisson(rate))

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (self.rate.log(),)

    def _log_normalizer(self, x: Tensor) -> Tensor:  # type: ignore[override]
        return x.exp()
