"""``ExponentialFamily``: distributions whose density is ``h(x) exp(<theta, T(x)> - A(theta))``.

A member gives its natural parameters ``theta`` (``_natural_params``), the log normalizer
``A`` (``_log_normalizer``) and ``E[log h(X)]`` (``_mean_carrier_measure``); the entropy and the
KL divergence between two members of one family then follow from ``A`` and its gradient (a
Bregman divergence), computed with jitgrad's autograd. (Each member here has closed forms
too; these are the fallbacks PyTorch's ``ExponentialFamily`` provides.)"""

from __future__ import annotations

from typing import Any

from ..autograd import grad
from ..tensor import Tensor
from .distribution import Distribution


class ExponentialFamily(Distribution):
    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """``A(theta) - <theta, grad A(theta)> - E[log h(X)]``."""
        result: Any = -self._mean_carrier_measure
        thetas = [p.detach().requires_grad_() for p in self._natural_params]
        log_normalizer = self._log_normalizer(*thetas)
        gradients = grad(log_normalizer.sum(), thetas, create_graph=True)
        result = result + log_normalizer
        for theta, g in zip(thetas, gradients):
            result = result - (theta * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
