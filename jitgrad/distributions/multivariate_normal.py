"""``MultivariateNormal``: given by ``loc`` and one of ``covariance_matrix``,
``precision_matrix`` or ``scale_tril`` (the lower Cholesky factor of the covariance, which
every computation here uses)."""

from __future__ import annotations

import math
from typing import Any

from ..geometry import Size
from ..ops.cholesky_solve import cholesky_solve
from ..ops.decompositions import cholesky, solve_triangular
from ..ops.joins import broadcast_shapes
from ..ops.shape_ops import flip
from ..randomness import randn
from ..ranges import eye
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import lazy_property


def batch_mv(matrix: Tensor, vector: Tensor) -> Tensor:
    """``matrix @ vector`` over broadcast batch dims."""
    return (matrix @ vector.unsqueeze(-1)).squeeze(-1)


def batch_mahalanobis(L: Tensor, x: Tensor) -> Tensor:
    """``|L^-1 x|^2`` over the rightmost dim, for the lower triangular ``L`` (batches of
    both broadcast)."""
    n = x.shape[-1]
    batch = tuple(broadcast_shapes(L.shape[:-2], x.shape[:-1]))
    y = solve_triangular(L.expand(batch + (n, n)), x.expand(batch + (n,)).unsqueeze(-1), upper=False)
    return y.squeeze(-1).pow(2).sum(-1)


def _precision_to_scale_tril(P: Tensor) -> Tensor:
    """The lower Cholesky factor of ``P^-1``: the Cholesky factor of ``P`` with rows and
    columns reversed is upper triangular's transpose, whose inverse is the factor sought."""
    upper_inverse = flip(cholesky(flip(P, (-2, -1))), (-2, -1)).mT
    return solve_triangular(upper_inverse, eye(P.shape[-1], dtype=P.dtype), upper=False)


def the_one_matrix(covariance_matrix: Any, precision_matrix: Any, scale_tril: Any,
                   error: type[Exception]) -> tuple[str, Tensor]:
    """``(name, matrix)`` of the one matrix given (``error`` unless exactly one is)."""
    given = [(name, m) for name, m in (("covariance_matrix", covariance_matrix),
                                       ("precision_matrix", precision_matrix),
                                       ("scale_tril", scale_tril)) if m is not None]
    if len(given) != 1:
        raise error("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
    return given[0]


def scale_tril_from(name: str, matrix: Tensor) -> Tensor:
    """The lower Cholesky factor of the covariance, from the matrix given as ``name``."""
    if name == "scale_tril":
        return matrix
    return cholesky(matrix) if name == "covariance_matrix" else _precision_to_scale_tril(matrix)


class GaussianVector(Distribution):
    """What the Gaussian vector distributions share: ``loc`` is the mean and the mode, and
    their matrices have shape ``batch_shape + (n, n)``."""

    support = constraints.real_vector
    has_rsample = True

    def _matrix_shape(self) -> tuple[int, ...]:
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @property
    def mean(self) -> Tensor:
        return self.loc  # type: ignore[attr-defined,no-any-return]

    @property
    def mode(self) -> Tensor:
        return self.loc  # type: ignore[attr-defined,no-any-return]


class MultivariateNormal(GaussianVector):
    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}

    def __init__(self, loc: Tensor, covariance_matrix: Tensor | None = None,
                 precision_matrix: Tensor | None = None, scale_tril: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        name, matrix = the_one_matrix(covariance_matrix, precision_matrix, scale_tril, ValueError)
        if matrix.dim() < 2:
            what = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{what} must be at least two-dimensional, with optional leading batch dimensions")
        batch_shape = tuple(broadcast_shapes(matrix.shape[:-2], loc.shape[:-1]))
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        self._unbroadcasted_scale_tril = scale_tril_from(name, matrix)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MultivariateNormal:
        n = self._event_shape[0]
        new = self._expanded(MultivariateNormal, batch_shape, _instance,
                             ("covariance_matrix", "scale_tril", "precision_matrix"), trailing=(n, n))
        new.loc = self.loc.expand(tuple(new.batch_shape) + (n,))
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        return new

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        return cholesky_solve(eye(L.shape[-1], dtype=L.dtype), L).expand(self._matrix_shape())

    @property
    def variance(self) -> Tensor:
        shape = tuple(self._batch_shape) + tuple(self._event_shape)
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(shape)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        eps = randn(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.loc + batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self) -> Tensor:
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        M = batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - self._half_log_det()

    def entropy(self) -> Tensor:
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return H if len(self._batch_shape) == 0 else H.expand(tuple(self._batch_shape))
