"""``Uniform``: the continuous uniform distribution on ``[low, high)``."""

from __future__ import annotations

from typing import Any

from ..geometry import Size
from ..randomness import rand
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution


class Uniform(Distribution):
    """Uniform on ``[low, high)``; ``low < high`` is the validated parameter constraint."""

    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        self._init_broadcast(validate_args, low=low, high=high)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Uniform:
        return self._expanded(Uniform, batch_shape, _instance, ("low", "high"))

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:  # type: ignore[override]
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.interval(self.low, self.high)

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return self.high * float("nan")

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        u = rand(self._extended_shape(sample_shape), dtype=self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        inside = (self.low.le(value) & self.high.gt(value)).type_as(self.low)
        return inside.log() - (self.high - self.low).log()

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value: Any) -> Tensor:
        return self.low + value * (self.high - self.low)

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()
