"""``OneHotCategorical`` (a ``Categorical`` whose values are one-hot vectors; its
``StraightThrough`` variant has a gradient-carrying ``rsample``) and
``Multinomial`` (counts of ``total_count`` draws of a ``Categorical``)."""

from __future__ import annotations

import math
from typing import Any

from ..creation import tensor, zeros
from ..geometry import Size
from ..nn.functional import one_hot
from ..ops.compare import where
from ..ranges import eye
from ..tensor import Tensor
from . import constraints
from .bernoulli import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all


class CategoricalBacked(Distribution):
    """A distribution over ``K`` classes whose parameters are its ``_categorical``'s."""

    _categorical: Categorical

    @property
    def _param(self) -> Tensor:
        return self._categorical._param

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape


class OneHotCategorical(CategoricalBacked):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> OneHotCategorical:
        new = self._expanded(OneHotCategorical, batch_shape, _instance, ())
        new._categorical = self._categorical.expand(batch_shape)
        return new

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        return one_hot(self.probs.argmax(-1), self.probs.shape[-1]).type_as(self.probs)

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        indices = self._categorical.sample(sample_shape)
        return one_hot(indices, self._categorical._num_events).type_as(self.probs.detach())

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self._event_shape[0]
        values = eye(n, dtype=self._param.dtype).reshape((n,) + (1,) * len(self._batch_shape) + (n,))
        return values.expand((n,) + tuple(self._batch_shape) + (n,)) if expand else values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """``rsample`` is a one-hot sample whose gradient is that of ``probs`` (the
    straight-through estimator)."""

    has_rsample = True

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        probs = self._categorical.probs
        return self.sample(sample_shape) + (probs - probs.detach())


class Multinomial(CategoricalBacked):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count: int = 1, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Multinomial:
        new = self._expanded(Multinomial, batch_shape, _instance, ())
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = Binomial(total_count=self.total_count, probs=new.probs)
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.multinomial(self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        if self.total_count == 0:
            return zeros(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        draws = self._categorical.sample((self.total_count,) + tuple(sample_shape))
        return one_hot(draws, self._categorical._num_events).sum(0).type_as(self.probs.detach())

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # a class of probability 0 that was not drawn contributes 0 (not 0 * -inf)
        logits = where((value == 0) & (logits == -math.inf), 0.0, logits)
        return ((value.sum(-1) + 1).lgamma() - (value + 1).lgamma().sum(-1)
                + (logits * value).sum(-1))

    def entropy(self) -> Tensor:
        n = tensor(float(self.total_count), dtype=self.probs.dtype)
        counts = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = self._binomial.log_prob(counts).exp()
        return (n * self._categorical.entropy() - (n + 1).lgamma()
                + (binomial_probs * (counts + 1).lgamma()).sum(0).sum(-1))
