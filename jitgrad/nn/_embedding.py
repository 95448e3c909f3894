"""``embedding`` and ``embedding_renorm_``: rows of a weight picked by integer indices.

The lookup is a gather (``weight[input]``, ``IndexBackward0``) unless
``scale_grad_by_freq`` is set: then ``EmbeddingBackward0`` divides each occurrence's
gradient by how often its index occurs in ``input`` before scatter-adding it into the
weight's rows (ATen's ``embedding_dense_backward``); its own backward is PyTorch's (a
gather without the counts). ``padding_idx`` rows get no gradient either way.

``max_norm`` renormalises, in place and without a graph, every row that ``input`` picks whose
``norm_type``-norm exceeds ``max_norm`` (scaled by ``max_norm / (norm + 1e-7)``) before the
lookup, as ``torch.embedding_renorm_``: one in-place write, so ``weight``'s version counter
moves once per call whether or not a row was rescaled (as PyTorch's).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import creation, dtypes
from ..autograd.grad_mode import no_grad
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node
from ..ops.compare import where
from ..ops.index_ops import IndexPutZerosBackward
from ..ops.inplace_result import write_result
from ..ops.norms import vector_norm
from ..ops.operands import from_result
from ..tensor import Tensor


class EmbeddingBackward0(Node):
    """Gradient of a lookup with ``scale_grad_by_freq``: each occurrence's gradient over its
    index's count, scatter-added into the weight's rows. Its own backward gathers the rows
    back without the counts, as PyTorch's ``embedding_dense_double_backward`` (so the
    second derivative of a function of this gradient carries the counts once, through
    this gradient's formula, as when the formula is written out with a plain lookup)."""

    def __init__(self, weight_sizes: tuple[int, ...], indices: np.ndarray, inverse_counts: np.ndarray) -> None:
        super().__init__()
        self.weight_sizes = weight_sizes
        self.indices = indices
        self.inverse_counts = inverse_counts

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        values = np.zeros(self.weight_sizes, g.dtype)  # type: ignore[union-attr]
        scaled = g._numpy() * self.inverse_counts.astype(g.dtype)[..., None]  # type: ignore[union-attr]
        np.add.at(values, (self.indices,), scaled)
        out = from_result(values)
        if needs_grad(g):  # type: ignore[arg-type]
            record(IndexPutZerosBackward((self.indices,)), (g,), (out,))  # type: ignore[arg-type]
        return (out,)


def _check_indices(op: str, input: Tensor, n: int, lowest: int) -> np.ndarray:
    if input.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"{op}: expected the indices to be int64 or int32, got {input.dtype.name}")
    idx = input._numpy()  # type: ignore[attr-defined]
    if idx.size and (idx.min() < lowest or idx.max() >= n):
        raise IndexError(f"{op}: index out of range in self: expected indices in [{lowest}, {n}), "
                         f"got {idx.min()}..{idx.max()}")
    return idx


def embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """Rescale in place the rows of ``weight`` that ``input`` picks and whose norm exceeds
    ``max_norm`` (``torch.embedding_renorm_``: one write, whether or not a row changed)."""
    if weight.dim() != 2:
        raise RuntimeError(f"embedding_renorm_: expected a 2-D weight, got {weight.dim()}-D")
    n = weight.shape[0]
    idx = _check_indices("embedding_renorm_", input, n, -n)  # (rows by select: -1 is the last)
    rows = np.unique(np.where(idx < 0, idx + n, idx))
    values = weight._numpy().copy()  # type: ignore[attr-defined]
    if rows.size:
        picked = creation.tensor(values[rows])
        norms = vector_norm(picked, norm_type, 1)._numpy()  # type: ignore[attr-defined]
        over = norms > max_norm
        scale = max_norm / (norms[over].astype(np.float64) + 1e-7)
        values[rows[over]] *= scale.astype(values.dtype)[:, None]
    return write_result("embedding_renorm_", weight, from_result(values))


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: Any = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` picked by the integer ``input``; rows at ``padding_idx`` get no
    gradient; ``max_norm`` renormalises the picked rows of ``weight`` in place first."""
    if sparse:
        raise NotImplementedError("embedding: sparse gradients (sparse=True) are not supported")
    n = weight.shape[0]
    if padding_idx is not None and not -n <= padding_idx < n:
        raise AssertionError("Padding_idx must be within num_embeddings")
    idx = _check_indices("embedding", input, n, 0)
    if max_norm is not None:
        with no_grad():
            embedding_renorm_(weight, input, max_norm, norm_type)
    if scale_grad_by_freq:
        rows = _lookup_scaled_by_freq(weight, idx)
    else:
        rows = weight[input]
    if padding_idx is None:
        return rows
    padding_idx = padding_idx + n if padding_idx < 0 else padding_idx
    mask = creation.tensor(idx == padding_idx).unsqueeze(-1)  # type: ignore[attr-defined]
    return where(mask, rows.detach(), rows)  # type: ignore[attr-defined]


def _lookup_scaled_by_freq(weight: Tensor, idx: np.ndarray) -> Tensor:
    rows = idx.astype(np.int64)
    out = from_result(weight._numpy()[rows])  # type: ignore[attr-defined]
    if needs_grad(weight):
        counts = np.bincount(rows.ravel(), minlength=weight.shape[0])
        record(EmbeddingBackward0(tuple(weight.shape), rows, 1.0 / counts[rows]), (weight,), (out,))
    return out
