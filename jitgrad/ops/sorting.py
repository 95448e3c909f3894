"""Sorting and searching: ``sort``, ``argsort``, ``msort``, ``topk``, ``unique``,
``searchsorted``, ``bucketize``, ``nonzero``.

``sort`` and ``topk`` compute a permutation with NumPy and then gather the values with it, so
their gradient (a scatter of the gradient back to the sorted positions) and its own gradient
come from ``index_ops``. Nan sorts as the largest value. Ties come out in PyTorch's CPU order:
in their original order with ``stable=True`` (and where PyTorch's own sort is a stable radix
sort: 1-D integers ascending, from ``_RADIX`` elements on); otherwise in the order the C++
library's ``sort`` leaves them, and ``topk`` and ``kthvalue`` pick and order ties as PyTorch's
kernels do (``kernels/_select_jit.py`` runs the same algorithms).
"""

from __future__ import annotations

import numbers
from typing import Any, NamedTuple

import numpy as np

from .. import dtypes
from ..geometry.strided import wrap_dim
from ..kernels import select
from ..tensor import Tensor
from .operands import from_result
from .gather_scatter import NoFormulaBackward, along_index, record_no_formula
from ._index_args import SortBackward0, SortBackward1, TopkBackward0, gather_as, saved_dim, saved_sizes
from .view_ops import reshape


class return_types:
    class sort(NamedTuple):
        values: Tensor
        indices: Tensor

    class topk(NamedTuple):
        values: Tensor
        indices: Tensor


_RADIX = 32768  # PyTorch's GRAIN_SIZE: its 1-D integer sort from here on is fbgemm's radix sort


def _order(x: np.ndarray, d: int, descending: bool) -> np.ndarray:
    """The stable sorting permutation along ``d`` (nan largest; ties in original order)."""
    if not descending:
        return np.argsort(x, axis=d, kind="stable")
    n = x.shape[d]
    # ascending on the reversed line puts ties in reverse order; reversing the result
    # restores the original order among ties and makes the order descending
    reversed_order = np.argsort(np.flip(x, d), axis=d, kind="stable")
    return np.flip(n - 1 - reversed_order, d)


def _as_rows(x: np.ndarray, d: int) -> np.ndarray | None:
    """The lines of ``x`` along ``d`` as the rows of a C-contiguous float64 or int64 array
    (widening keeps every order and every tie), or None for a dtype the selection kernels do
    not take (uint64, complex) or an empty ``x``."""
    if x.dtype.kind == "f":
        wide: Any = np.float64
    elif x.dtype.kind in "bi" or (x.dtype.kind == "u" and x.dtype.itemsize < 8):
        wide = np.int64
    else:
        return None
    if not x.size:
        return None
    return np.ascontiguousarray(np.moveaxis(x, d, -1).reshape(-1, x.shape[d]), dtype=wide)


def _lines_back(rows: np.ndarray, shape: tuple[int, ...], d: int) -> np.ndarray:
    """Rows of results (one row per line of an array of ``shape`` along ``d``) put back along ``d``."""
    moved = shape[:d] + shape[d + 1:] + (rows.shape[1],)
    return np.ascontiguousarray(np.moveaxis(rows.reshape(moved), -1, d))


def topk_order(x: np.ndarray, d: int, k: int, largest: bool, ordered: bool) -> np.ndarray:
    """The indices of the ``k`` largest (smallest) elements of each line of ``x`` along ``d``,
    as PyTorch's CPU ``topk`` picks and orders them (``ordered``: its ``sorted``)."""
    rows = _as_rows(x, d)
    if rows is None:
        return np.take(_order(x, d, largest), np.arange(k), axis=d)
    out = np.zeros((rows.shape[0], k), np.int64)
    select.topk_rows(rows, k, largest, ordered, out)
    return _lines_back(out, x.shape, d)


def sort_order(x: np.ndarray, d: int, descending: bool, stable: bool) -> np.ndarray:
    """The permutation that sorts each line of ``x`` along ``d``, with ties in PyTorch's order."""
    radix = x.ndim == 1 and x.dtype.kind in "iu" and not descending and x.size >= _RADIX
    rows = None if stable or radix else _as_rows(x, d)
    if rows is None:
        return _order(x, d, descending)
    out = np.zeros(rows.shape, np.int64)
    select.sort_rows(rows, descending, out)
    return _lines_back(out, x.shape, d)


def kth_order(x: np.ndarray, d: int, k: int) -> np.ndarray:
    """The index of the ``k``-th smallest element (0-based; nan the largest) of each line of
    ``x`` along ``d`` (kept as a dim of size 1), the one PyTorch's CPU ``kthvalue`` picks."""
    rows = _as_rows(x, d)
    if rows is None:
        return np.take(_order(x, d, False), [k], axis=d)
    out = np.zeros((rows.shape[0], 1), np.int64)
    select.kth_rows(rows, k, out[:, 0])
    return _lines_back(out, x.shape, d)


def _gathered(input: Tensor, order: np.ndarray, d: int, saved: tuple[Any, ...] = (),
              node: type = SortBackward0) -> Tensor:
    return gather_as(node, input, along_index(order, d), saved)


class _Unset:
    def __repr__(self) -> str:
        return "False"


_UNSET: Any = _Unset()  # ``stable`` not passed (PyTorch's ``sort`` overload, not ``sort.stable``)


def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool | None = _UNSET) -> Any:
    """``(values, indices)`` sorted along ``dim``; ties keep their order with ``stable=True``,
    else they come out in PyTorch's CPU order."""
    node = SortBackward0 if stable is _UNSET else SortBackward1
    return _sort("sort", input, dim, descending, node, stable is not _UNSET and bool(stable))


def _sort(op: str, input: Tensor, dim: int, descending: bool, node: type = SortBackward0,
          stable: bool = False) -> Any:
    d = wrap_dim(dim, input.ndim, op)
    if not input.ndim:
        return return_types.sort(_gathered(reshape(input, 1), np.zeros(1, np.int64), 0, node=node).reshape(()),
                                 from_result(np.zeros((), np.int64)))
    order = sort_order(input._numpy(), d, bool(descending), stable)
    indices = from_result(order, dtypes.int64)
    saved = (indices, saved_dim(dim), saved_sizes(input))
    return return_types.sort(_gathered(input, order, d, saved, node), indices)


def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    return _sort("argsort", input, dim, descending, stable=bool(stable)).indices


def msort(input: Tensor) -> Tensor:
    return sort(input, 0).values


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    """``(values, indices)`` of the ``k`` largest (smallest, with ``largest=False``) elements
    along ``dim`` (in order unless ``sorted=False``), ties picked and ordered as PyTorch's CPU
    kernel does."""
    d = wrap_dim(dim, input.ndim, "topk")
    n = (input._sizes or (1,))[d]
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 0 <= k <= n:
        raise RuntimeError(f"topk(): selected index k out of range (got k={k} for dimension {d} of size {n})")
    if not input.ndim:
        return return_types.topk(*_sort("topk", input, d, largest))
    order = topk_order(input._numpy(), d, int(k), bool(largest), bool(sorted))
    indices = from_result(order, dtypes.int64)
    values = gather_as(TopkBackward0, input, along_index(order, d), (indices, saved_dim(dim), saved_sizes(input)))
    return return_types.topk(values, indices)


class Unique2Backward0(NoFormulaBackward):
    aten = "_unique2"


class UniqueDimBackward0(NoFormulaBackward):
    aten = "unique_dim"


def check_flags(op: str, **flags: Any) -> None:
    """PyTorch's argument parser: these flags must be bools (not 1, not a tensor)."""
    for name, value in flags.items():
        if value.__class__ is not bool:
            raise TypeError(f"{op}(): argument '{name}' must be bool, not {type(value).__name__}")


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,
           return_counts: bool = False, dim: int | None = None) -> Any:
    """The distinct elements (slices along ``dim``), sorted; optionally where each input
    element went (``return_inverse``) and how many there were (``return_counts``). Without a
    derivative, as in PyTorch: the values require grad when ``input`` does, and backward
    through them raises (``Unique2Backward0``, ``UniqueDimBackward0``)."""
    check_flags("_unique2" if dim is None else "unique_dim", sorted=sorted, return_inverse=return_inverse,
                return_counts=return_counts)
    x = input._numpy()
    if dim is None:
        values, inverse, counts = np.unique(x.reshape(-1), return_inverse=True, return_counts=True)
        inverse = inverse.reshape(input._sizes)
    else:
        d = wrap_dim(dim, input.ndim, "unique")
        if x.shape[d] == 0:
            values, inverse, counts = x, np.zeros(0, np.int64), np.zeros(0, np.int64)
        else:
            values, inverse, counts = np.unique(x, axis=d, return_inverse=True, return_counts=True)
            inverse = inverse.reshape(-1)
    out = [from_result(np.asarray(values), input.dtype)]
    record_no_formula(Unique2Backward0 if dim is None else UniqueDimBackward0, input, out[0])
    if return_inverse:
        out.append(from_result(np.asarray(inverse), dtypes.int64))
    if return_counts:
        out.append(from_result(np.asarray(counts), dtypes.int64))
    return out[0] if len(out) == 1 else tuple(out)


def _side(op: str, right: bool, side: str | None) -> str:
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"{op}(): side can only be 'left' or 'right' but got {side!r}")
        if right and side == "left":
            raise RuntimeError(
                f"{op}(): side and right can't be set to opposites, got side of left while right "
                "was True"
            )
        return side
    return "right" if right else "left"


def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Tensor | None = None) -> Tensor:
    """Where each ``input`` value would be inserted into the (last-dim) sorted
    ``sorted_sequence`` to keep it sorted (int64; int32 is not a jitgrad dtype)."""
    op = "searchsorted"
    how = _side(op, right, side)
    seq = sorted_sequence._numpy()
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter._numpy(), axis=-1)
    scalar = not isinstance(input, Tensor)
    values = np.asarray(input) if scalar else input._numpy()
    if seq.ndim == 0:
        raise RuntimeError(f"{op}(): boundaries tensor should have at least 1 dimension, got 0")
    if seq.ndim == 1 or scalar:
        if scalar and seq.ndim != 1:
            raise RuntimeError(f"{op}(): a scalar input needs a 1-D sorted_sequence, got {seq.ndim}-D")
        result = np.searchsorted(seq, values, side=how)
    else:
        if seq.shape[:-1] != values.shape[:-1]:
            raise RuntimeError(
                f"{op}(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                f"boundaries tensor and input value tensor must match, but we got boundaries "
                f"tensor {list(seq.shape)} and input value tensor {list(values.shape)}"
            )
        lines = seq.reshape(-1, seq.shape[-1])
        vals = values.reshape(-1, values.shape[-1])
        result = np.zeros(vals.shape, np.int64)
        for row, (a, v) in enumerate(zip(lines, vals)):
            result[row] = np.searchsorted(a, v, side=how)
        result = result.reshape(values.shape)
    return from_result(np.asarray(result), dtypes.int64)


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """The bucket of each element: ``boundaries[i-1] < x <= boundaries[i]`` (``<``, ``<=``
    swapped with ``right=True``)."""
    if not isinstance(boundaries, Tensor) or boundaries.ndim != 1:
        raise RuntimeError("bucketize(): boundaries tensor must be 1 dimension")
    return searchsorted(boundaries, input, right=right)


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    """The indices of the non-zero elements: an ``(n, ndim)`` int64 tensor, or one 1-D
    tensor per dim (``as_tuple=True``)."""
    x = input._numpy()
    if not input.ndim:
        x = x.reshape(1)
        idx = np.nonzero(x)
        if as_tuple:
            return (from_result(idx[0], dtypes.int64),)
        return from_result(np.zeros((len(idx[0]), 0), np.int64))
    idx = np.nonzero(x)
    if as_tuple:
        return tuple(from_result(i, dtypes.int64) for i in idx)
    return from_result(np.stack(idx, axis=1) if idx else np.zeros((0, 0), np.int64), dtypes.int64)
