"""Continuous relaxations of discrete distributions (Concrete / Gumbel-softmax), differentiable
samples at a ``temperature``: ``RelaxedBernoulli`` on (0, 1) and ``RelaxedOneHotCategorical``
on the simplex, each the ``sigmoid``/``exp`` of a distribution on the reals
(``LogitRelaxedBernoulli``, ``ExpRelaxedCategorical``)."""

from __future__ import annotations

from typing import Any

from ..creation import full_like
from ..geometry import Size
from ..randomness import rand
from ..tensor import Tensor
from . import constraints
from .bernoulli import BinaryParametrized
from .categorical import Categorical
from .multiclass import CategoricalBacked
from .transformed import TransformedDistribution
from .transforms import ExpTransform, SigmoidTransform
from .utils import broadcast_all, clamp_probs


class LogitRelaxedBernoulli(BinaryParametrized):
    """The logit of a ``RelaxedBernoulli`` sample."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature: Tensor, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        self.temperature = temperature
        self._init_probs_or_logits(probs, logits, validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogitRelaxedBernoulli:
        new = self._expanded(LogitRelaxedBernoulli, batch_shape, _instance, ("probs", "logits"))
        new.temperature = self.temperature
        return new

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(tuple(shape)))
        u = clamp_probs(rand(shape, dtype=probs.dtype))
        return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    base_dist: LogitRelaxedBernoulli

    def __init__(self, temperature: Tensor, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        super().__init__(LogitRelaxedBernoulli(temperature, probs, logits), SigmoidTransform(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> RelaxedBernoulli:
        return super().expand(batch_shape, self._get_checked_instance(RelaxedBernoulli, _instance))  # type: ignore[return-value]

    @property
    def temperature(self) -> Tensor:
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        return self.base_dist.logits  # type: ignore[no-any-return]

    @property
    def probs(self) -> Tensor:
        return self.base_dist.probs  # type: ignore[no-any-return]


class ExpRelaxedCategorical(CategoricalBacked):
    """The log of a ``RelaxedOneHotCategorical`` sample."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature: Tensor, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ExpRelaxedCategorical:
        new = self._expanded(ExpRelaxedCategorical, batch_shape, _instance, ())
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        return new

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        u = clamp_probs(rand(self._extended_shape(sample_shape), dtype=self.logits.dtype))
        scores = (self.logits - (-u.log()).log()) / self.temperature  # logits + Gumbel noise
        return scores - scores.logsumexp(-1, keepdim=True)

    def log_prob(self, value: Any) -> Tensor:
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = full_like(self.temperature, float(k)).lgamma() + (k - 1) * self.temperature.log()
        score = logits - value * self.temperature
        return (score - score.logsumexp(-1, keepdim=True)).sum(-1) + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True
    base_dist: ExpRelaxedCategorical

    def __init__(self, temperature: Tensor, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        super().__init__(ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args),
                         ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> RelaxedOneHotCategorical:
        return super().expand(batch_shape, self._get_checked_instance(RelaxedOneHotCategorical, _instance))  # type: ignore[return-value]

    @property
    def temperature(self) -> Tensor:
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        return self.base_dist.probs
