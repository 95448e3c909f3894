"""``Independent``: a distribution whose rightmost ``reinterpreted_batch_ndims`` batch dims
are taken as event dims (``log_prob`` and ``entropy`` sum over them)."""

from __future__ import annotations

from typing import Any

from ..geometry import Size
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import as_size, sum_rightmost


class Independent(Distribution):
    arg_constraints: dict[str, constraints.Constraint] = {}

    def __init__(self, base_distribution: Distribution, reinterpreted_batch_ndims: int,
                 validate_args: bool | None = None) -> None:
        base_batch = base_distribution.batch_shape
        if reinterpreted_batch_ndims > len(base_batch):
            raise ValueError("Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                             f"actual {reinterpreted_batch_ndims} vs {len(base_batch)}")
        shape = tuple(base_batch) + tuple(base_distribution.event_shape)
        split = len(shape) - reinterpreted_batch_ndims - len(base_distribution.event_shape)
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(shape[:split], shape[split:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Independent:
        batch_shape = as_size(batch_shape)
        new = self._expanded(Independent, batch_shape, _instance, ())
        kept = tuple(self._event_shape[: self.reinterpreted_batch_ndims])
        new.base_dist = self.base_dist.expand(tuple(batch_shape) + kept)
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        return new

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self) -> bool:  # type: ignore[override]
        return self.reinterpreted_batch_ndims == 0 and self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        base = self.base_dist.support
        n = self.reinterpreted_batch_ndims
        return constraints.independent(base, n) if n else base

    @property
    def mean(self) -> Tensor:
        return self.base_dist.mean

    @property
    def mode(self) -> Tensor:
        return self.base_dist.mode

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value: Any) -> Tensor:
        return sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self) -> Tensor:
        return sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self) -> str:
        return f"Independent({self.base_dist}, {self.reinterpreted_batch_ndims})"
