"""``MixtureSameFamily``: a mixture, weighted by a ``Categorical``, of the components along
the rightmost batch dim of one distribution (a Gaussian mixture is
``MixtureSameFamily(Categorical(w), Normal(locs, scales))``)."""

from __future__ import annotations

from typing import Any

from ..autograd import no_grad
from ..geometry import Size
from ..tensor import Tensor
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .utils import as_size


class _MixtureSupport(constraints.Constraint):
    """The components' support, checked against every component."""

    def __init__(self, base_constraint: constraints.Constraint) -> None:
        self.base_constraint = base_constraint

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim

    def check(self, value: Tensor) -> Tensor:
        ok = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        kept = value.dim() - self.event_dim
        return ok.reshape(tuple(ok.shape[:kept]) + (-1,)).all(-1)

    def __repr__(self) -> str:
        return f"MixtureSameFamilyConstraint({self.base_constraint!r})"


class MixtureSameFamily(Distribution):
    arg_constraints: dict[str, constraints.Constraint] = {}
    has_rsample = False

    def __init__(self, mixture_distribution: Categorical, component_distribution: Distribution,
                 validate_args: bool | None = None) -> None:
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             "jitgrad.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "jitgrad.distributions.Distribution")
        mixture_batch, component_batch = mixture_distribution.batch_shape, component_distribution.batch_shape[:-1]
        for a, b in zip(reversed(mixture_batch), reversed(component_batch)):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mixture_batch}) is not compatible "
                                 f"with `component_distribution.batch_shape`({as_size(component_batch)})")
        k_mix, k_comp = mixture_distribution.logits.shape[-1], component_distribution.batch_shape[-1]
        if k_mix != k_comp:
            raise ValueError(f"`mixture_distribution component` ({k_mix}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({k_comp})")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        self._num_component = k_mix
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(component_batch, component_distribution.event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MixtureSameFamily:
        batch_shape = as_size(batch_shape)
        new = self._expanded(MixtureSameFamily, batch_shape, _instance, ())
        new._component_distribution = self._component_distribution.expand(tuple(batch_shape) + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        return new

    @constraints.dependent_property
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return _MixtureSupport(self._component_distribution.support)

    @property
    def mixture_distribution(self) -> Categorical:
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        return self._component_distribution

    def _pad(self, x: Tensor) -> Tensor:
        """``x`` with a component dim before its event dims."""
        return x.unsqueeze(-1 - self._event_ndims)

    def _weights(self) -> Tensor:
        """The mixture's probs, shaped to multiply the components' batch + event."""
        probs = self._mixture_distribution.probs
        mixture_ndims = len(self._mixture_distribution.batch_shape)
        pad = 0 if mixture_ndims == 1 else len(self._batch_shape) - mixture_ndims
        shape = tuple(probs.shape[:-1]) + (1,) * pad + tuple(probs.shape[-1:]) + (1,) * self._event_ndims
        return probs.reshape(shape)

    @property
    def mean(self) -> Tensor:
        return (self._weights() * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self) -> Tensor:
        w, dim = self._weights(), -1 - self._event_ndims
        within = (w * self._component_distribution.variance).sum(dim)
        between = (w * (self._component_distribution.mean - self._pad(self.mean)).pow(2.0)).sum(dim)
        return within + between

    def cdf(self, x: Any) -> Tensor:
        return (self._component_distribution.cdf(self._pad(x)) * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, x: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(x)
        log_weights = self._mixture_distribution.logits.log_softmax(-1)
        return (self._component_distribution.log_prob(self._pad(x)) + log_weights).logsumexp(-1)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        with no_grad():
            sample_shape = as_size(sample_shape)
            dim = len(sample_shape) + len(self._batch_shape)
            event = tuple(self._event_shape)
            picks = self._mixture_distribution.sample(sample_shape)
            components = self._component_distribution.sample(sample_shape)
            index = picks.reshape(tuple(picks.shape) + (1,) * (len(event) + 1))
            index = index.expand(tuple(picks.shape) + (1,) + event)
            return components.gather(dim, index).squeeze(dim)

    def __repr__(self) -> str:
        return f"MixtureSameFamily(\n  {self._mixture_distribution},\n  {self._component_distribution})"
