"""``linalg.matrix_exp``: the exponential of each square matrix by scaling and squaring with
the degree-13 Padé approximant (Higham 2005), and PyTorch's backward: the gradient is the
top-right block of ``exp([[A^T, G], [0, A^T]])``, itself written with ``matrix_exp``, so
gradients of gradients follow."""

from __future__ import annotations

import math

import numpy as np

from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..creation import zeros_like
from ..tensor import Tensor
from .._quiet import quiet
from .decompositions import check_square, mT
from .joins import cat
from .operands import from_result

_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def _expm(a: np.ndarray) -> np.ndarray:
    """``exp`` of one square matrix."""
    n = a.shape[0]
    if n == 0:
        return a.copy()
    norm = float(np.max(np.sum(np.abs(a), axis=0)))
    s = max(0, int(math.ceil(math.log2(norm / _THETA13)))) if norm > _THETA13 else 0
    a = a / 2.0**s
    b = _PADE13
    eye = np.eye(n, dtype=a.dtype)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    r = np.linalg.solve(v - u, v + u)
    for _ in range(s):
        r = r @ r
    return r  # type: ignore[no-any-return]


class LinalgMatrixExpBackward0(SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        (A,) = self.unpack()
        g = grads[0]
        n = A._sizes[-1]
        At = mT(A)
        block = cat([cat([At, g], -1), cat([zeros_like(At), At], -1)], -2)  # type: ignore[list-item]
        return (matrix_exp(block)[..., :n, n:],)  # type: ignore[index]


def matrix_exp(A: Tensor) -> Tensor:
    """``exp(A)`` of each square matrix of ``A`` (batched over leading dims)."""
    check_square("linalg.matrix_exp", A)
    a = A._numpy()
    if a.size == 0:
        values = a.copy()
    else:
        with quiet():
            values = np.stack([_expm(m) for m in a.reshape((-1,) + a.shape[-2:])]).reshape(a.shape)
    out = from_result(values, A.dtype)
    if needs_grad(A):
        node = LinalgMatrixExpBackward0()
        record(node, (A,), (out,))
        node.save(A)
    return out
