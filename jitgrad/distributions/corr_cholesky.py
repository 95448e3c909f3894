"""``CorrCholeskyTransform``: unconstrained vectors of ``D (D - 1) / 2`` reals onto Cholesky
factors of ``D x D`` correlation matrices (``tanh`` into (-1, 1), then stick-breaking on the
squares along each row, as Stan's), and the packing helpers ``tril_matrix_to_vec`` /
``vec_to_tril_matrix`` (lower triangles in row order; differentiable: plain indexing)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..creation import tensor
from ..nn.functional import softplus
from ..ops.stacking import cat
from ..ranges import eye
from ..tensor import Tensor
from . import constraints
from .transform_base import Transform

__all__ = ["CorrCholeskyTransform", "tril_matrix_to_vec", "vec_to_tril_matrix"]


def _tril_mask(n: int, diag: int) -> np.ndarray:
    rows = np.arange(n)
    return rows[None, :] < rows[:, None] + (diag + 1)


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The entries of ``mat`` (a batch of ``n x n``) on and below diagonal ``diag``, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = np.nonzero(_tril_mask(n, diag))
    return mat[..., rows, cols]  # type: ignore[no-any-return]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The ``n x n`` matrix (batch) whose entries on and below diagonal ``diag`` are ``vec``'s,
    row by row, zeros elsewhere."""
    m = vec.shape[-1]
    root = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(root) - root > float(np.finfo(vec.dtype).eps):
        raise ValueError(f"The size of last dimension is {m} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(root)
    mask = _tril_mask(n, diag)
    where = np.zeros((n, n), np.int64)
    where[mask] = np.arange(int(mask.sum()))
    if m == 0:
        return vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))  # type: ignore[attr-defined,no-any-return]
    picked = vec[..., tensor(where)]
    return picked * tensor(mask.astype(np.float64), dtype=vec.dtype)  # type: ignore[no-any-return]


class CorrCholeskyTransform(Transform):
    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x: Tensor) -> Tensor:
        eps = float(np.finfo(x.dtype).eps)
        r = vec_to_tril_matrix(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)  # type: ignore[attr-defined]
        # stick-breaking on the squares: y = r * sqrt(prod of (1 - r^2) over the row so far)
        remaining = (1 - r * r).sqrt().cumprod(-1)
        shifted = cat([remaining.new_ones(tuple(remaining.shape[:-1]) + (1,)), remaining[..., :-1]], dim=-1)
        return (r + eye(r.shape[-1], dtype=r.dtype)) * shifted  # type: ignore[no-any-return]

    def _inverse(self, y: Tensor) -> Tensor:
        left = 1 - (y * y).cumsum(-1)
        shifted = cat([left.new_ones(tuple(left.shape[:-1]) + (1,)), left[..., :-1]], dim=-1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(shifted, diag=-1).sqrt()
        return (t.log1p() - (-t).log1p()) / 2  # type: ignore[no-any-return]  # atanh

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor, intermediates: Any = None) -> Tensor:
        """Of ``x`` and ``y``'s strictly lower triangle (the spaces differ in dimension)."""
        left = 1 - (y * y).cumsum(-1)
        stick_breaking = 0.5 * tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        tanh = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(-1)
        return stick_breaking + tanh  # type: ignore[no-any-return]

    def forward_shape(self, shape: Any) -> Any:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return tuple(shape[:-1]) + (d, d)

    def inverse_shape(self, shape: Any) -> Any:
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return tuple(shape[:-2]) + (d * (d - 1) // 2,)
