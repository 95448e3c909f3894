"""``TransformedDistribution``: the distribution of ``t_n(... t_1(x))`` for ``x`` from a base
distribution; ``log_prob`` by the change of variables (each transform's log-Jacobian)."""

from __future__ import annotations

from typing import Any

from ..autograd import no_grad
from ..geometry import Size
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .independent import Independent
from .transforms import ComposeTransform, Transform
from .utils import as_size, sum_rightmost


class TransformedDistribution(Distribution):
    arg_constraints: dict[str, constraints.Constraint] = {}

    def __init__(self, base_distribution: Distribution, transforms: Transform | list[Transform],
                 validate_args: bool | None = None) -> None:
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = Size(tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape))
        base_event_dim = len(base_distribution.event_shape)
        chain = ComposeTransform(self.transforms)
        if len(base_shape) < chain.domain.event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least "
                             f"{chain.domain.event_dim}, but got {base_shape}.")
        forward_shape = as_size(chain.forward_shape(base_shape))
        expanded_base = as_size(chain.inverse_shape(forward_shape))
        if expanded_base != base_shape:  # the transforms' parameters broadcast the base
            base_distribution = base_distribution.expand(expanded_base[: len(expanded_base) - base_event_dim])
        extra_event_dims = chain.domain.event_dim - base_event_dim
        if extra_event_dims > 0:
            base_distribution = Independent(base_distribution, extra_event_dims)
        self.base_dist = base_distribution
        event_dim = max(chain.codomain.event_dim,
                        base_event_dim + chain.codomain.event_dim - chain.domain.event_dim)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> TransformedDistribution:
        new = self._expanded(TransformedDistribution, batch_shape, _instance, ())
        shape: Any = tuple(new.batch_shape) + tuple(self._event_shape)
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        new.base_dist = self.base_dist.expand(tuple(shape)[: len(shape) - len(self.base_dist.event_shape)])
        new.transforms = self.transforms
        return new

    @constraints.dependent_property(is_discrete=False)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        extra = len(self._event_shape) - support.event_dim
        return constraints.independent(support, extra) if extra > 0 else support

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self._event_shape)
        log_prob: Any = 0.0
        y = value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            log_prob = log_prob - sum_rightmost(t.log_abs_det_jacobian(x, y), event_dim - t.domain.event_dim)
            y = x
        return log_prob + sum_rightmost(self.base_dist.log_prob(y), event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value: Any) -> Any:
        """The base's cdf value read for the transformed variable (``1 - cdf`` where the
        transforms reverse the order)."""
        sign: Any = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value: Any) -> Tensor:
        for t in reversed(self.transforms):
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value: Any) -> Tensor:
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for t in self.transforms:
            value = t(value)
        return value
