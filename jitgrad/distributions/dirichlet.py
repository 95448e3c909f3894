"""``Dirichlet``: distributions on the simplex with concentrations ``concentration``
(``rsample`` refuses a concentration gradient, as ``Gamma``'s: see ``gamma.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import finfo
from ..geometry import Size
from ..nn.functional import one_hot
from ..ops.compare import where
from ..ops.binary_math import xlogy
from ..tensor import Tensor
from . import constraints
from .exp_family import ExponentialFamily
from .gamma import _numpy, _refuse_concentration_grad
from .utils import draw


class Dirichlet(ExponentialFamily):
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Dirichlet:
        return self._expanded(Dirichlet, batch_shape, _instance, ("concentration",),
                              trailing=tuple(self._event_shape))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self) -> Tensor:
        above = (self.concentration - 1).clamp(min=0.0)
        mode = above / above.sum(-1, keepdim=True)
        # every concentration below 1: the density peaks at a corner; PyTorch picks the
        # argmax of the (NaN) mode, i.e. the first corner
        corner = one_hot(mode.detach().argmax(-1), self._event_shape[0]).type_as(mode)
        return where((self.concentration < 1).all(-1, keepdim=True), corner, mode)

    @property
    def variance(self) -> Tensor:
        total = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        _refuse_concentration_grad("Dirichlet", self.concentration)
        shape = self._extended_shape(sample_shape)
        alpha = _numpy(self.concentration, shape)
        info = finfo(self.concentration.dtype)

        def sampler(rng: np.random.Generator, _: Any) -> np.ndarray:
            g = rng.standard_gamma(alpha)
            return np.clip(g / g.sum(-1, keepdims=True), info.tiny, 1 - info.eps)

        return draw(shape, self.concentration.dtype, sampler)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return xlogy(c - 1.0, value).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1)

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (self.concentration,)

    def _log_normalizer(self, x: Tensor) -> Tensor:  # type: ignore[override]
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()

    def entropy(self) -> Tensor:
        c = self.concentration
        k, total = c.shape[-1], c.sum(-1)
        return (c.lgamma().sum(-1) - total.lgamma() - (k - total) * total.digamma()
                - ((c - 1.0) * c.digamma()).sum(-1))
