"""``LKJCholesky`` (Cholesky factors of correlation matrices, density proportional to
``det(L L^T)^(concentration - 1)``) and ``Wishart`` (positive definite matrices: sums of
``df`` outer products of Gaussian vectors with the given scale).

``LKJCholesky.sample`` is the onion method (Lewandowski, Kurowicka and Joe, 2009): row ``i``
is ``sqrt(y_i)`` times a random unit direction with ``y_i ~ Beta(i/2, concentration +
(dim - 2)/2 - (i - 1)/2)``, and its diagonal entry closes the row to unit norm; it has no
``rsample``, mean, variance or entropy, as PyTorch's. ``Wishart.rsample`` is Bartlett's
decomposition ``L A A^T L^T`` (``A`` lower triangular, ``sqrt(chi2(df - i))`` on the
diagonal, standard normals below); a sample that is not positive definite is drawn again
(up to ``max_try_correction`` times) with a "Singular sample detected." warning. PyTorch
2.13 issues that warning for every rsample (its check is inverted): jitgrad only for a
singular one. Draws come from jitgrad's generator, and rsample refuses a gradient with
respect to ``df`` (the Chi2 draws': see ``gamma.py``).
"""

from __future__ import annotations

import math
import warnings
from numbers import Number
from typing import Any

import numpy as np

from ..autograd.grad_mode import is_grad_enabled
from ..creation import tensor
from ..geometry import Size
from ..ops.cholesky_solve import cholesky_solve
from ..ops.decompositions import slogdet
from ..ops.gamma_fns import digamma, lgamma
from ..ops.joins import broadcast_shapes
from ..ops.misc_math import mvlgamma
from ..ops.stacking import cat
from ..randomness import randn
from ..ranges import arange, eye
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .gamma import Beta, Chi2
from .multivariate_normal import scale_tril_from, the_one_matrix
from .utils import broadcast_all, lazy_property

__all__ = ["LKJCholesky", "Wishart"]

_LOG_2 = math.log(2.0)


class LKJCholesky(Distribution):
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration: Any = 1.0, validate_args: bool | None = None) -> None:
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        super().__init__(batch_shape, Size((dim, dim)), validate_args=validate_args)
        # row i's squared off-diagonal norm ~ Beta(i/2, marginal - (i-1)/2); row 0's is unused
        marginal = self.concentration + 0.5 * (dim - 2)
        offset = arange(dim - 1, dtype=self.concentration.dtype)
        offset = cat([offset.new_zeros((1,)), offset])  # type: ignore[attr-defined]
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset, validate_args=False)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LKJCholesky:
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(tuple(batch_shape))
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        normal = randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)  # type: ignore[attr-defined]
        norms = normal.norm(dim=-1, keepdim=True)
        direction = normal / norms.masked_fill(norms == 0, 1.0)  # (row 0 stays 0)
        w = y.sqrt() * direction
        tiny = float(np.finfo(w.dtype).tiny)
        diagonal = (1 - (w * w).sum(-1)).clamp(min=tiny).sqrt()
        return w + diagonal.diag_embed()  # type: ignore[no-any-return]

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diagonal = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = arange(2, self.dim + 1, dtype=self.concentration.dtype)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diagonal.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalizer = 0.5 * dm1 * math.log(math.pi) + mvlgamma(alpha - 0.5, dm1) - lgamma(alpha) * dm1
        return unnormalized - normalizer  # type: ignore[no-any-return]


def _mvdigamma(x: Tensor, p: int) -> Tensor:
    """``sum_j digamma(x - j/2)``, ``j = 0 .. p-1`` (the derivative of ``mvlgamma``)."""
    return digamma(x.unsqueeze(-1) - arange(p, dtype=x.dtype) / 2).sum(-1)  # type: ignore[no-any-return]


class Wishart(ExponentialFamily):
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:  # type: ignore[override]
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self._event_shape[-1] - 1)}

    def __init__(self, df: Any, covariance_matrix: Tensor | None = None, precision_matrix: Tensor | None = None,
                 scale_tril: Tensor | None = None, validate_args: bool | None = None) -> None:
        name, matrix = the_one_matrix(covariance_matrix, precision_matrix, scale_tril, AssertionError)
        if matrix.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, Number):
            batch_shape = tuple(matrix.shape[:-2])
            self.df = tensor(df, dtype=matrix.dtype)
        else:
            batch_shape = tuple(broadcast_shapes(matrix.shape[:-2], df.shape))
            self.df = df.expand(batch_shape)
        p = matrix.shape[-1]
        if bool((self.df <= p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        if bool((self.df < p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur for ndim - 1 < "
                          "df < ndim.", UserWarning, stacklevel=2)
        super().__init__(batch_shape, matrix.shape[-2:], validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        self._unbroadcasted_scale_tril = scale_tril_from(name, matrix)
        self._dist_chi2 = self._chi2(batch_shape)

    def _chi2(self, batch_shape: tuple[int, ...]) -> Chi2:
        p = self._event_shape[-1]
        steps = arange(p, dtype=self._unbroadcasted_scale_tril.dtype).expand(batch_shape + (-1,))
        return Chi2(self.df.unsqueeze(-1) - steps, validate_args=False)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Wishart:
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        matrix_shape = tuple(batch_shape) + tuple(self._event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(matrix_shape)
        new.df = self.df.expand(tuple(batch_shape))
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(matrix_shape))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._dist_chi2 = new._chi2(tuple(batch_shape))
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(tuple(self._batch_shape) + tuple(self._event_shape))  # type: ignore[attr-defined]

    @lazy_property
    def precision_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        identity = eye(self._event_shape[-1], dtype=L.dtype)
        return cholesky_solve(identity, L).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    def _per_matrix(self, t: Tensor) -> Tensor:
        return t.reshape(tuple(self._batch_shape) + (1, 1))  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return self._per_matrix(self.df) * self.covariance_matrix  # type: ignore[no-any-return]

    @property
    def mode(self) -> Tensor:
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = factor.masked_fill(factor <= 0, math.nan)
        return self._per_matrix(factor) * self.covariance_matrix  # type: ignore[no-any-return]

    @property
    def variance(self) -> Tensor:
        V = self.covariance_matrix
        diag = V.diagonal(dim1=-2, dim2=-1)
        outer = diag.unsqueeze(-1) * diag.unsqueeze(-2)
        return self._per_matrix(self.df) * (V.pow(2) + outer)  # type: ignore[no-any-return]

    def _bartlett_sampling(self, sample_shape: Size) -> Tensor:
        p = self._event_shape[-1]
        tiny = float(np.finfo(self._unbroadcasted_scale_tril.dtype).eps)
        diagonal = self._dist_chi2.rsample(sample_shape).sqrt().clamp(min=tiny)
        below = randn(tuple(sample_shape) + tuple(self._batch_shape) + (p, p),
                      dtype=self._unbroadcasted_scale_tril.dtype).tril(-1)  # type: ignore[attr-defined]
        factor = self._unbroadcasted_scale_tril @ (diagonal.diag_embed() + below)
        return factor @ factor.mT  # type: ignore[no-any-return]

    def rsample(self, sample_shape: Any = Size(), max_try_correction: int | None = None) -> Tensor:
        if is_grad_enabled() and self.df.requires_grad:
            raise NotImplementedError(
                "Wishart.rsample(): the reparameterized gradient with respect to df is not implemented in "
                "jitgrad (got a df that requires grad); use sample(), or detach df")
        tries = 10 if max_try_correction is None else max_try_correction
        sample_shape = Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        singular = ~self.support.check(sample.detach())
        for _ in range(tries):
            if not bool(singular.any()):
                break
            warnings.warn("Singular sample detected.", UserWarning, stacklevel=2)
            again = self._bartlett_sampling(sample_shape)
            mask = singular.reshape(tuple(singular.shape) + (1, 1))
            sample = sample.masked_fill(mask, 0.0) + again * mask
            singular = singular & ~self.support.check(again.detach())
        return sample

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        half_log_det = L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return (-nu * (p * _LOG_2 / 2 + half_log_det) - mvlgamma(nu / 2, p)
                + (nu - p - 1) / 2 * slogdet(value).logabsdet
                - cholesky_solve(value, L).diagonal(dim1=-2, dim2=-1).sum(-1) / 2)

    def entropy(self) -> Tensor:
        nu = self.df
        p = self._event_shape[-1]
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * (p * _LOG_2 / 2 + half_log_det) + mvlgamma(nu / 2, p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p) + nu * p / 2)

    @property
    def _natural_params(self) -> tuple[Tensor, Tensor]:
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:
        p = self._event_shape[-1]
        return ((y + (p + 1) / 2) * (-slogdet(-2 * x).logabsdet + _LOG_2 * p)
                + mvlgamma(y + (p + 1) / 2, p))
