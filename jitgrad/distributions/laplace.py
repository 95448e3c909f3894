"""``Laplace``: the double-exponential distribution around ``loc`` with scale ``scale``."""

from __future__ import annotations

from typing import Any

from ..dtypes import finfo
from ..geometry import Size
from ..tensor import Tensor
from .distribution import LocScale
from .utils import draw


class Laplace(LocScale):
    """The double-exponential distribution: density ``exp(-|x - loc| / scale) / (2 scale)``."""

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return 2**0.5 * self.scale

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        # u uniform on (-1, 1) (eps - 1 as the lower end keeps log1p(-|u|) finite)
        low = finfo(self.loc.dtype).eps - 1
        u = draw(self._extended_shape(sample_shape), self.loc.dtype,
                 lambda rng, shape: rng.uniform(low, 1.0, shape))
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * (-d.abs() / self.scale).expm1()

    def icdf(self, value: Any) -> Tensor:
        t = value - 0.5
        return self.loc - self.scale * t.sign() * (-2 * t.abs()).log1p()

    def entropy(self) -> Tensor:
        return 1 + (2 * self.scale).log()
