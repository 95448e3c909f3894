"""``Geometric`` (failures before the first success of Bernoulli(``probs``) trials) and
``NegativeBinomial`` (successes before ``total_count`` failures)."""

from __future__ import annotations

from typing import Any

from ..autograd import no_grad
from ..creation import zeros_like
from ..dtypes import finfo
from ..geometry import Size
from ..nn.functional import binary_cross_entropy_with_logits, logsigmoid
from ..ops.compare import where
from ..tensor import Tensor
from . import constraints
from .bernoulli import BinaryParametrized
from .utils import broadcast_all, draw


class Geometric(BinaryParametrized):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        self._init_probs_or_logits(probs, logits, validate_args)
        if self._validate_args and probs is not None:
            positive = self.probs > 0
            if not bool(positive.all()):
                raise ValueError(
                    f"Expected parameter probs ({type(self.probs).__name__} of shape "
                    f"{tuple(self.probs.shape)}) of distribution {self!r} to be positive but found "
                    f"invalid values:\n{self.probs.detach()[~positive]}")

    def expand(self, batch_shape: Any, _instance: Any = None) -> Geometric:
        return self._expanded(Geometric, batch_shape, _instance, ("probs", "logits"))

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        return zeros_like(self.probs)

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        tiny = finfo(self.probs.dtype).tiny
        with no_grad():
            u = draw(self._extended_shape(sample_shape), self.probs.dtype,
                     lambda rng, shape: rng.uniform(tiny, 1.0, shape))
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # a success at the first trial of a sure success: 0 * log(0) counts 0
        probs = where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs


class NegativeBinomial(BinaryParametrized):
    """Successes, each of probability ``probs``, before ``total_count`` failures (a Poisson
    whose rate is Gamma(total_count, exp(-logits)) distributed)."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        self._init_probs_or_logits(probs, logits, validate_args, total_count)

    def expand(self, batch_shape: Any, _instance: Any = None) -> NegativeBinomial:
        return self._expanded(NegativeBinomial, batch_shape, _instance, ("total_count", "probs", "logits"))

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.logits.exp()

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.mean / (-self.logits).sigmoid()

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        n = self.total_count.detach().expand(tuple(shape)).numpy()
        odds = self.logits.detach().exp().expand(tuple(shape)).numpy()
        with no_grad():
            return draw(shape, self._param.dtype, lambda rng, _: rng.poisson(rng.standard_gamma(n) * odds))

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        unnormalized = n * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        # log(n + k - 1 choose k); 0 at n + k == 0 (no trial at all)
        log_choose = (n + value).lgamma() - (1.0 + value).lgamma() - n.lgamma()
        return unnormalized + where(n + value == 0.0, 0.0, log_choose)
