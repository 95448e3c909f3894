"""``LowRankMultivariateNormal``: covariance ``W W^T + diag(D)`` for a ``cov_factor`` ``W``
(``n x m``, ``m`` small) and a ``cov_diag`` ``D``, scored without forming the ``n x n``
matrix: by the capacitance ``C = I + W^T D^-1 W`` (``m x m``) and its Cholesky factor, the
determinant lemma and the Woodbury identity."""

from __future__ import annotations

import math
from typing import Any

from ..geometry import Size
from ..ops.decompositions import cholesky, solve_triangular
from ..ops.joins import broadcast_tensors
from ..randomness import randn
from ..ranges import eye
from ..tensor import Tensor
from . import constraints
from .multivariate_normal import GaussianVector, batch_mahalanobis, batch_mv
from .utils import lazy_property


def capacitance_tril(W: Tensor, D: Tensor) -> Tensor:
    """The lower Cholesky factor of ``I + W^T D^-1 W``."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    return cholesky(Wt_Dinv @ W + eye(W.shape[-1], dtype=W.dtype))


def lowrank_logdet(D: Tensor, capacitance: Tensor) -> Tensor:
    """``log det(W W^T + D) = log det C + log det D`` (the matrix determinant lemma)."""
    return 2 * capacitance.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def lowrank_mahalanobis(W: Tensor, D: Tensor, x: Tensor, capacitance: Tensor) -> Tensor:
    """``x^T (W W^T + D)^-1 x = x^T D^-1 x - |L_C^-1 W^T D^-1 x|^2`` (Woodbury)."""
    Wt_Dinv_x = batch_mv(W.mT / D.unsqueeze(-2), x)
    return (x.pow(2) / D).sum(-1) - batch_mahalanobis(capacitance, Wt_Dinv_x)


class LowRankMultivariateNormal(GaussianVector):
    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}

    def __init__(self, loc: Tensor, cov_factor: Tensor, cov_diag: Tensor, validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = tuple(loc.shape[-1:])
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if tuple(cov_diag.shape[-1:]) != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {Size(event_shape)}")
        try:
            loc_, self.cov_factor, diag_ = broadcast_tensors(loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                             f"cov_diag {cov_diag.shape}") from e
        self.loc, self.cov_diag = loc_[..., 0], diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LowRankMultivariateNormal:
        n = self._event_shape[0]
        new = self._expanded(LowRankMultivariateNormal, batch_shape, _instance, ("loc", "cov_diag"), trailing=(n,))
        new.cov_factor = self.cov_factor.expand(tuple(new.batch_shape) + (n, self.cov_factor.shape[-1]))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        return new

    @lazy_property
    def variance(self) -> Tensor:
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (W.pow(2).sum(-1) + D).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (W @ W.mT + D.diag_embed()).expand(self._matrix_shape())

    @lazy_property
    def scale_tril(self) -> Tensor:
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return cholesky(W @ W.mT + D.diag_embed()).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        A = solve_triangular(self._capacitance_tril, W.mT / D.unsqueeze(-2), upper=False)
        return (D.reciprocal().diag_embed() - A.mT @ A).expand(self._matrix_shape())

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps_W = randn(tuple(shape[:-1]) + (self.cov_factor.shape[-1],), dtype=self.loc.dtype)
        eps_D = randn(shape, dtype=self.loc.dtype)
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return self.loc + batch_mv(W, eps_W) + D.sqrt() * eps_D

    def _log_det(self) -> Tensor:
        return lowrank_logdet(self._unbroadcasted_cov_diag, self._capacitance_tril)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        M = lowrank_mahalanobis(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                value - self.loc, self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._log_det() + M)

    def entropy(self) -> Tensor:
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return H if len(self._batch_shape) == 0 else H.expand(tuple(self._batch_shape))
