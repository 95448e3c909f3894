"""``embedding_bag``: the sum, mean or max of the ``weight`` rows each bag of indices picks
(bags: the rows of a 2-d ``input``, or the runs of a 1-d one between ``offsets``), without
the padding index; an empty bag gives zeros. Composed from a row gather and ``index_add`` /
``scatter_reduce``, under one ``EmbeddingBagBackward0`` (``_composite.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import creation
from ..ops.gather_scatter import index_add
from ..ops.operands import array_of, from_result
from ..ops.scatter_reduce import scatter_reduce
from ..tensor import Tensor
from ._composite import CompositeBackward, one_node


class EmbeddingBagBackward0(CompositeBackward):
    pass


def _bags(input: Tensor, offsets: Tensor | None, include_last_offset: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """The flat indices, the bag of each, and the number of bags (PyTorch's checks)."""
    idx = array_of(input)
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        return idx.reshape(-1), np.repeat(np.arange(idx.shape[0]), idx.shape[1]), idx.shape[0]
    if input.ndim != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.ndim != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    offs = array_of(offsets).astype(np.int64)
    if len(offs) and offs[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {int(offs[0])}\n[ torch.LongTensor{{}} ]")
    if len(offs) and offs[-1] > len(idx):
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {len(idx)} but got offsets[-1] of "
                           f"{int(offs[-1])}")
    n_bags = len(offs) - 1 if include_last_offset else len(offs)
    if n_bags <= 0:
        return idx[:0], idx[:0], max(n_bags, 0)
    # (with include_last_offset the last offset only counts the bags: the last bag runs to the end)
    bag = np.minimum(np.searchsorted(offs, np.arange(len(idx)), side="right") - 1, n_bags - 1)
    return idx, bag, n_bags


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding_bag: max_norm, scale_grad_by_freq and sparse are not supported")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
            f"(got mode='{mode}'). Please open a feature request on GitHub."
        )
    flat, bag, n_bags = _bags(input, offsets, include_last_offset)
    n = weight.shape[0]
    bad = flat[(flat < 0) | (flat >= n)]
    if bad.size:
        raise RuntimeError(f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {int(bad[0])}")
    keep = np.ones(len(flat), bool) if padding_idx is None else flat != (padding_idx % n)
    d = weight.shape[1]

    def compute(weight: Tensor, per_sample_weights: Tensor | None = None) -> Tensor:
        rows = weight[from_result(flat[keep])]
        if per_sample_weights is not None:
            w = per_sample_weights.reshape(-1)[from_result(np.nonzero(keep)[0])]  # type: ignore[attr-defined]
            rows = rows * w.unsqueeze(1)  # type: ignore[attr-defined]
        zeros = creation.zeros((n_bags, d), dtype=weight.dtype)
        if mode == "max":
            where = from_result(np.repeat(bag[keep][:, None], d, axis=1))
            return scatter_reduce(zeros, 0, where, rows, "amax", include_self=False)
        total = index_add(zeros, 0, from_result(bag[keep]), rows)
        if mode == "sum":
            return total
        counts = np.bincount(bag[keep], minlength=n_bags).astype(weight.dtype)
        return total / from_result(np.maximum(counts, 1)[:, None])

    inputs = (weight,) if per_sample_weights is None else (weight, per_sample_weights)
    # (PyTorch's node saves the weight only for the per-sample weights' gradient: a weight
    # written in place before backward is refused only then)
    return one_node(EmbeddingBagBackward0, compute, inputs, inputs[:1] if per_sample_weights is not None else ())
