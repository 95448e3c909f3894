"""``meshgrid``: coordinate grids as expanded views of the inputs (differentiable; the
gradient of a grid sums back over the expanded dimensions), as PyTorch builds them."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .view_ops import expand, view


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """``meshgrid(x, y, ..., indexing='ij' | 'xy')`` (also one list of tensors). With
    ``'ij'`` output ``i`` varies along dimension ``i``; ``'xy'`` swaps the roles of the
    first two inputs (Cartesian indexing). Every input must be 0-d or 1-D, all of one dtype."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"meshgrid(): indexing must be 'ij' or 'xy', got {indexing!r}")
    if not tensors:
        raise RuntimeError("meshgrid(): expected a non-empty list of tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"meshgrid(): expected Tensor as element {i}, got {type(t).__name__}")
        if t.ndim > 1:
            raise RuntimeError(
                f"meshgrid(): expected 0D or 1D tensor in the tensor list but got a {t.ndim}-D "
                f"tensor (element {i})"
            )
        if t.dtype != tensors[0].dtype:
            raise RuntimeError(
                f"meshgrid(): expects all tensors to have the same dtype, got {tensors[0].dtype.name} "
                f"(element 0) and {t.dtype.name} (element {i})"
            )
    refs = list(tensors)
    swap = indexing == "xy" and len(refs) >= 2
    if swap:
        refs[0], refs[1] = refs[1], refs[0]
    shape = tuple(t.numel() for t in refs)
    grids = []
    for i, t in enumerate(refs):
        view_shape = [1] * len(refs)
        view_shape[i] = -1
        grids.append(expand(view(t, *view_shape), *shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)
