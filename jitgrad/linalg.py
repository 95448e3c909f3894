"""``jitgrad.linalg``: PyTorch's ``torch.linalg`` namespace (real floating tensors).

Batched over leading dims; forwards by NumPy's LAPACK wrappers, backwards (and their
backwards) by differentiable jitgrad ops (see ``ops/decompositions.py`` and ``ops/norms.py``).
Failures on a singular or non-positive-definite input raise ``LinAlgError``, a
``RuntimeError`` (PyTorch's ``torch.linalg.LinAlgError`` is one too).
"""

from __future__ import annotations

from .ops.decompositions import (
    LinAlgError, cholesky, det, inv, matrix_power, slogdet, solve, solve_triangular,
)
from .ops.linalg import matmul
from .ops.norms import matrix_norm, norm, vector_norm
from .ops.products import linalg_cross as cross
from .ops.products import multi_dot, vecdot
from .ops.lstsq import lstsq
from .ops.matrix_exp import matrix_exp
from .ops.lu import lu, lu_factor, lu_factor_ex, lu_solve
from .ops.linalg_extras import cholesky_ex, cond, diagonal, inv_ex, solve_ex, tensorinv, tensorsolve, vander
from .ops.spectral import eigh, eigvalsh, matrix_rank, pinv, qr, svd, svdvals

__all__ = [
    "LinAlgError",
    "cholesky_ex",
    "cond",
    "diagonal",
    "inv_ex",
    "solve_ex",
    "tensorinv",
    "tensorsolve",
    "vander",
    "cholesky",
    "cross",
    "det",
    "eigh",
    "eigvalsh",
    "inv",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_triangular",
    "svd",
    "svdvals",
    "vecdot",
    "vector_norm",
]
