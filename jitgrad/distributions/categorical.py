"""``Categorical``: one of ``K`` classes, given by ``probs`` (normalized over the last dim)
or by ``logits`` (normalized to log-probabilities)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd import no_grad
from ..creation import full, tensor
from ..dtypes import finfo, int64
from ..geometry import Size
from ..randomness import default_rng
from ..ops.joins import broadcast_tensors
from ..tensor import Tensor
from . import constraints
from .bernoulli import _one_of, _support_values
from .distribution import Distribution
from .utils import lazy_property, logits_to_probs, probs_to_logits


class Categorical(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        _one_of(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = self._param = probs / probs.sum(-1, keepdim=True)
        else:
            assert logits is not None
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = self._param = logits - logits.logsumexp(-1, keepdim=True)
        self._num_events = self._param.shape[-1]
        super().__init__(self._param.shape[:-1], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Categorical:
        new = self._expanded(Categorical, batch_shape, _instance, ("probs", "logits"),
                             trailing=(self._num_events,))
        new._num_events = self._num_events
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        return full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(-1)

    @property
    def variance(self) -> Tensor:
        return full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        p = self.probs.detach().numpy().reshape(-1, self._num_events)
        cdf = np.cumsum(p, axis=-1)
        cdf /= cdf[:, -1:]
        n = int(np.prod(shape[: len(shape) - len(self._batch_shape)], dtype=np.int64))
        u = default_rng().random((n, p.shape[0], 1))
        # the first class whose cumulative probability passes u (never past the last)
        picks = np.minimum((cdf[None] <= u).sum(-1), self._num_events - 1)
        with no_grad():
            return tensor(picks.reshape(tuple(shape)), dtype=int64)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        index, log_pmf = broadcast_tensors(value.long().unsqueeze(-1), self.logits)
        return log_pmf.gather(-1, index[..., :1]).squeeze(-1)

    def entropy(self) -> Tensor:
        logits = self.logits.clamp(min=finfo(self.logits.dtype).min)  # -inf (a zero prob) counts 0
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        return _support_values(self._num_events, self._batch_shape, int64, expand)
