"""``tensor_split``, ``hsplit``/``vsplit``/``dsplit`` and ``unflatten``: views, as PyTorch's
(each piece of a split a ``narrow``, a ``SliceBackward0``; ``unflatten`` a ``view``)."""

from __future__ import annotations

import math
import numbers
from typing import Any, Sequence

from .. import dtypes
from ..geometry.strided import wrap_dim
from ..tensor import Tensor
from .view_ops import narrow


def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """``input`` cut along ``dim`` into ``n`` near-equal pieces (the first ``size % n`` one
    longer) or at the given indices: piece ``k`` is ``[indices[k-1]:indices[k]]`` as a slice
    reads it (negative ones counted from the end, clamped; empty where they cross)."""
    d = wrap_dim(dim, input.ndim, "tensor_split")
    size = input._sizes[d]
    split = indices_or_sections
    if isinstance(split, Tensor):
        if split.dtype != dtypes.int64:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long, but "
                f"got {split.dtype.name}"
            )
        if split.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional tensor, but got a tensor with {split.ndim} dims"
            )
        split = split.item() if split.ndim == 0 else split.tolist()  # type: ignore[attr-defined]
    if isinstance(split, numbers.Integral) and not isinstance(split, bool):
        n = int(split)
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        small, extra = divmod(size, n)
        lengths = [small + 1] * extra + [small] * (n - extra)
        starts = [sum(lengths[:i]) for i in range(n)]
        return tuple(narrow(input, d, s, k) for s, k in zip(starts, lengths))
    if not isinstance(split, (list, tuple)) or not all(
        isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in split
    ):
        raise TypeError(
            "tensor_split(): argument 'indices_or_sections' must be an int, a sequence of ints "
            f"or an int64 tensor, got {type(indices_or_sections).__name__}"
        )
    pieces, previous = [], 0
    for index in [*split, size]:  # each piece from the previous index, as a slice clamps them
        start, stop, _ = slice(previous, int(index)).indices(size)
        pieces.append(narrow(input, d, start, max(stop - start, 0)))
        previous = int(index)
    return tuple(pieces)


def _split_along(op: str, input: Tensor, split: Any, dim: int, min_dims: int) -> tuple[Tensor, ...]:
    if input.ndim < min_dims:
        raise RuntimeError(
            f"torch.{op} requires a tensor with at least {min_dims} dimension, but got a tensor "
            f"with {input.ndim} dimensions!"
        )
    if isinstance(split, numbers.Integral) and not isinstance(split, bool):
        size = input._sizes[dim]
        if split != 0 and size % split != 0:
            raise RuntimeError(
                f"torch.{op} attempted to split along dimension {dim}, but the size of the "
                f"dimension {size} is not divisible by the split_size {split}!"
            )
    return tensor_split(input, split, dim)


def hsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """``tensor_split`` along dim 1 (dim 0 of a 1-D tensor); sections must divide it."""
    return _split_along("hsplit", input, indices_or_sections, 1 if input.ndim > 1 else 0, 1)


def vsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """``tensor_split`` along dim 0 of a tensor with at least 2 dims."""
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """``tensor_split`` along dim 2 of a tensor with at least 3 dims."""
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


def unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    """Dim ``dim`` of ``input`` viewed as ``sizes`` (one of them may be -1, inferred)."""
    if input.ndim == 0:  # (PyTorch wraps no dim of a 0-d tensor here, and says RuntimeError)
        raise RuntimeError(f"unflatten: Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, input.ndim, "unflatten")
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten: only one dimension can be inferred")
    size = input._sizes[d]
    known = math.prod(s for s in sizes if s != -1)
    if (-1 not in sizes and known != size) or (-1 in sizes and (known == 0 or size % known)):
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
            f"({size}) in the input tensor"
        )
    if -1 in sizes:
        sizes = tuple(size // known if s == -1 else s for s in sizes)
    return input.view(input._sizes[:d] + sizes + input._sizes[d + 1:])  # type: ignore[attr-defined,no-any-return]
