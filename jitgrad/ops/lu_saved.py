"""The LU factorisation PyTorch's ``det``, ``slogdet`` and ``solve`` nodes save
(``grad_fn._saved_LU``, ``grad_fn._saved_pivots``: LAPACK ``getrf``'s packed factors and its
1-based int32 row swaps). jitgrad's forwards call NumPy, which keeps its factorisation to
itself, and the backward formulas do not need one; so the factors are computed from the
saved matrix ``A`` when they are read (``A`` is version-checked and freed as any saved
tensor: reading them after backward raises as PyTorch does)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..autograd.node import SavedTensor
from ..tensor import Tensor
from .operands import from_result


def lu_factor(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Partial-pivoting LU of each matrix of ``a`` (``..., m, n``) as ``getrf`` returns it:
    ``L`` (unit diagonal, not stored) and ``U`` packed in one array, and the 1-based row
    each step swapped with (the first largest magnitude in the column, as ``idamax``)."""
    lu = np.array(a, dtype=a.dtype, copy=True)
    m, n = lu.shape[-2:]
    k_max = min(m, n)
    pivots = np.zeros(lu.shape[:-2] + (k_max,), np.int32)
    flat = lu.reshape((-1, m, n))
    piv = pivots.reshape((-1, k_max))
    with np.errstate(all="ignore"):
        for b in range(flat.shape[0]):
            x = flat[b]
            for k in range(k_max):
                p = k + int(np.argmax(np.abs(x[k:, k])))
                piv[b, k] = p + 1
                if p != k:
                    x[[k, p]] = x[[p, k]]
                if x[k, k] != 0:
                    x[k + 1:, k] /= x[k, k]
                x[k + 1:, k + 1:] -= np.outer(x[k + 1:, k], x[k, k + 1:])
    return lu, pivots


class SavesLU:
    """``_saved_LU`` / ``_saved_pivots`` of a node whose first saved value is ``A``. As
    PyTorch (``_linalg_det_out``, ``_linalg_solve_ex_out``), the factors are those of ``A^T``
    when ``A`` is contiguous (then ``A^T`` is the column-major matrix LAPACK takes without a
    copy; ``det(A^T) = det(A)``), else of ``A``."""

    def _lu(self) -> tuple[Tensor, Tensor]:
        A = self.unpack()[0]  # type: ignore[attr-defined]
        a = A._numpy()
        lu, pivots = lu_factor(np.swapaxes(a, -1, -2) if A.is_contiguous() else a)
        return from_result(lu, A.dtype), from_result(pivots, dtypes.int32)

    @property
    def _saved_LU(self) -> Any:
        return self._lu()[0]

    @property
    def _saved_pivots(self) -> Any:
        return self._lu()[1]

    @property
    def _raw_saved_LU(self) -> Any:
        return SavedTensor(self._lu()[0])

    @property
    def _raw_saved_pivots(self) -> Any:
        return SavedTensor(self._lu()[1])
