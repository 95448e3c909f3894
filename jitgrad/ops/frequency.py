"""``mode`` (the most frequent value along a dimension) and ``histogram`` (counts, or summed
weights, per bin, with the bin edges).

``mode``'s rule is PyTorch's CPU one: the slice is sorted, its runs of equal values counted,
and the first longest run wins, so among equally frequent values the smallest is returned
(``-0.0`` equals ``0.0``; a NaN equals nothing, so each NaN is a run of its own). The index is
the one the C++ library's ``sort`` leaves last in the winning run, as PyTorch's
(``kernels/_select_jit.py``: ``mode_rows``; its element gives the returned value, so ``-0.0``
or ``0.0`` is whichever stands there). A slice with NaN is sorted stably with NaN last (the
last position of the winning value): PyTorch's comparator does not order NaN, so its answer
depends on positions (a deliberate difference, README). The gradient goes to the returned
index, as PyTorch's ``ModeBackward0``.

``histogram`` is not differentiable: as in PyTorch, its outputs require grad when an input
does, and backward through them raises ``derivative for aten::histogram is not implemented``.
"""

from __future__ import annotations

import numbers
from typing import Any, NamedTuple

import numpy as np

from .. import dtypes
from ..autograd.graph import needs_grad, record
from ..geometry.strided import wrap_dim
from ..kernels import select
from ..ranges import linspace
from ..tensor import Tensor
from .extremes import MaxBackward0
from .gather_scatter import NotImplementedBackward
from .operands import from_result


class return_types:
    """Named results, as ``torch.return_types``."""

    class mode(NamedTuple):
        values: Tensor
        indices: Tensor

    class histogram(NamedTuple):
        hist: Tensor
        bin_edges: Tensor

    class histogramdd(NamedTuple):
        hist: Tensor
        bin_edges: tuple[Tensor, ...]


# -- mode ----------------------------------------------------------------------------------------
class ModeBackward0(MaxBackward0):
    """``mode(dim)``: the gradient goes to the returned index."""


def _mode_rows(rows: np.ndarray) -> np.ndarray:
    """The index of each row's mode (``rows`` is 2-D, rows non-empty)."""
    m, n = rows.shape
    order = np.argsort(rows, axis=1, kind="stable")  # equal values keep their index order
    ordered = np.take_along_axis(rows, order, axis=1)
    with np.errstate(invalid="ignore"):
        starts = np.ones((m, n), np.bool_)
        starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]  # NaN != NaN: each NaN starts a run
    run = np.cumsum(starts, axis=1) - 1  # the run number of each position
    lengths = np.zeros((m, n), np.int64)
    np.add.at(lengths, (np.repeat(np.arange(m), n), run.reshape(-1)), 1)
    best = np.argmax(lengths, axis=1)  # the first (smallest) of the longest runs
    begin = np.argmax(run == best[:, None], axis=1)
    last = begin + lengths[np.arange(m), best] - 1
    return order[np.arange(m), last]


def _pytorch_modes(rows: np.ndarray) -> np.ndarray:
    """The index of each row's mode, PyTorch's where it is defined (rows without NaN)."""
    if rows.dtype.kind == "f":
        nan_rows = np.isnan(rows).any(axis=1)
        keys = rows.astype(np.float64)
    elif rows.dtype.kind in "bi" or (rows.dtype.kind == "u" and rows.dtype.itemsize < 8):
        nan_rows, keys = np.zeros(rows.shape[0], np.bool_), rows.astype(np.int64)
    else:
        return _mode_rows(rows)
    if nan_rows.any():
        out = _mode_rows(rows)
        plain = np.zeros(int((~nan_rows).sum()), np.int64)
        select.mode_rows(np.ascontiguousarray(keys[~nan_rows]), plain)
        out[~nan_rows] = plain
        return out
    out = np.zeros(rows.shape[0], np.int64)
    select.mode_rows(np.ascontiguousarray(keys), out)
    return out


def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest among equally
    frequent ones) and the last index where it stands."""
    if not isinstance(input, Tensor):
        raise TypeError(f"mode(): argument 'input' must be Tensor, not {type(input).__name__}")
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
        raise TypeError(f"mode(): argument 'dim' must be int, not {type(dim).__name__}")
    d = wrap_dim(dim, input.ndim, "mode")
    data = input._numpy()
    if not input.ndim:
        values, idx = data.copy(), np.zeros((), np.int64)
    else:
        n = input._sizes[d]
        if n == 0:
            raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
        moved = np.moveaxis(data, d, -1)
        rows = moved.reshape(-1, n)
        idx_rows = _pytorch_modes(rows) if rows.shape[0] else np.zeros(0, np.int64)
        idx = idx_rows.reshape(moved.shape[:-1])
        values = np.take_along_axis(moved, idx[..., None], axis=-1)[..., 0]
        if keepdim:
            values, idx = np.expand_dims(values, d), np.expand_dims(idx, d)
    out = from_result(np.asarray(values), input.dtype)
    indices = from_result(np.asarray(idx, dtype=np.int64), dtypes.int64)
    if needs_grad(input):
        node = ModeBackward0(input._sizes, d, keepdim)
        record(node, (input,), (out,))
        node.save(indices)
    return return_types.mode(out, indices)


# -- histogram -----------------------------------------------------------------------------------
_HIST = "torch.histogramdd"  # PyTorch's checks speak for the op histogram calls


def _float_tensor(name: str, value: Any) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"histogram(): argument '{name}' must be Tensor, not {type(value).__name__}")
    if value.dtype not in (dtypes.float32, dtypes.float64):
        raise NotImplementedError(f'"histogramdd" not implemented for {value.dtype.name} '
                                  "(histogram takes float32 or float64)")
    return value


def _linear_edges(data: np.ndarray, bins: int, range: Any, dtype: Any, dim: int = 0) -> Tensor:
    """``bins + 1`` equal-width edges over ``range`` (a pair) or the data's min and max."""
    if isinstance(bins, bool) or not isinstance(bins, numbers.Integral):
        raise TypeError(f"histogram(): argument 'bins' must be int or Tensor, not {type(bins).__name__}")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension {dim}")
    if range is not None:
        lo, hi = float(range[0]), float(range[1])
    elif data.size:
        lo, hi = float(data.min()), float(data.max())  # NaN when the data hold one
    else:
        lo, hi = 0.0, 1.0
    if lo > hi:
        raise RuntimeError(f"{_HIST}: min should not exceed max, but got min {lo:g} max {hi:g} for dimension {dim}")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"{_HIST}: dimension {dim}'s range [{lo:g}, {hi:g}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return linspace(lo, hi, int(bins) + 1, dtype=dtype)


def histogram(input: Tensor, bins: Any = 100, *, range: Any = None, weight: Tensor | None = None,  # noqa: A002
              density: bool = False, out: Any = None) -> Any:
    """``(hist, bin_edges)``: how many elements of ``input`` (or how much ``weight``) fall in
    each bin. ``bins`` is a count of equal-width bins over ``range`` (the data's min and max
    when not given) or a 1-D tensor of increasing edges; each bin holds its left edge, the last
    also its right one; elements outside (and NaN) are not counted. ``density`` divides by the
    total and the bin widths."""
    if out is not None:
        raise TypeError("histogram(): out= is not supported by jitgrad")
    _float_tensor("input", input)
    data = input._numpy().reshape(-1)
    if isinstance(bins, Tensor):
        if range is not None:
            raise TypeError("histogram(): range= is taken only with an int number of bins, not with a bins tensor")
        _check_edges(input, bins, 0)
        edges = from_result(bins._numpy().copy(), bins.dtype)
    else:
        _check_range(range, 1)
        edges = _linear_edges(data, bins, range, input.dtype)
    weights = _weights(input, weight, (data.size,), [data.size, 1])
    hist = _counts(data, edges._numpy(), weights, linear=not isinstance(bins, Tensor))
    if density:
        with np.errstate(all="ignore"):
            hist = hist / (hist.sum() * np.diff(edges._numpy()))
    hist_t = from_result(hist.astype(input.dtype.type, copy=False), input.dtype)
    sources = tuple(t for t in (input, bins, weight) if isinstance(t, Tensor))
    if needs_grad(*sources):
        record(NotImplementedBackward("histogram"), sources, (hist_t, edges))
    return return_types.histogram(hist_t, edges)


def _check_edges(input: Tensor, bins: Tensor, dim: int) -> None:
    if bins.dtype != input.dtype:
        raise RuntimeError(f"{_HIST}: input tensor and bins tensors should have the same dtype, but got "
                           f"input with dtype {input.dtype.name} and bins for dimension {dim} with dtype "
                           f"{bins.dtype.name}")
    if bins.ndim != 1:
        raise RuntimeError(f"{_HIST}: bins tensor should have one dimension, but got {bins.ndim} dimensions "
                           f"in the bins tensor for dimension {dim}")
    if bins.shape[0] == 0:
        raise RuntimeError(f"{_HIST}: bins tensor should have at least 1 element, but got 0 elements "
                           f"in the bins tensor for dimension {dim}")


def _check_range(range: Any, ndim: int) -> None:
    if range is not None and len(range) != 2 * ndim:
        raise RuntimeError(f"{_HIST}: for a {ndim}-dimensional histogram range should have {2 * ndim} elements, "
                           f"but got {len(range)}")


def _bin_of(values: np.ndarray, edges: np.ndarray, linear: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(inside, bin)``: which values satisfy ``edges[0] <= x <= edges[-1]`` and, for every
    value inside, the last bin whose left edge is ``<= x`` (the last bin for ``x == edges[-1]``).
    ``linear`` (equal-width edges): the bin is guessed by interpolation and checked against the
    edges, with a binary search only where the guess is wrong (the same bins, ~8x faster)."""
    nbins = max(edges.shape[0] - 1, 1)
    with np.errstate(invalid="ignore"):
        inside = (values >= edges[0]) & (values <= edges[-1])
    if not linear or nbins == 1 or not edges[-1] > edges[0]:
        return inside, np.clip(np.searchsorted(edges, values, side="right") - 1, 0, nbins - 1)
    with np.errstate(all="ignore"):
        guess = np.floor((values - edges[0]) * (nbins / (edges[-1] - edges[0])))
    pos = np.clip(np.nan_to_num(guess, nan=0.0), 0, nbins - 1).astype(np.intp)
    with np.errstate(invalid="ignore"):
        right = edges[pos + 1]
        wrong = inside & ((values < edges[pos]) | ((values >= right) & (pos < nbins - 1)))
    if wrong.any():
        pos[wrong] = np.clip(np.searchsorted(edges, values[wrong], side="right") - 1, 0, nbins - 1)
    return inside, pos


def _counts(data: np.ndarray, edges: np.ndarray, weights: np.ndarray | None, linear: bool = False) -> np.ndarray:
    """The (weighted) count per bin of the 1-D ``data``."""
    return _counts_dd(data[:, None], [edges], weights, linear)


def _counts_dd(data: np.ndarray, edges: list[np.ndarray], weights: np.ndarray | None,
               linear: bool = False) -> np.ndarray:
    """The (weighted) count per cell of the rows of ``data`` (``N x D``), in float64;
    ``linear``: the edges are equal-width (``_bin_of``)."""
    shape = tuple(max(e.shape[0] - 1, 0) for e in edges)
    if not all(shape):
        return np.zeros(shape)
    inside = np.ones(data.shape[0], np.bool_)
    cells = []
    for d, e in enumerate(edges):
        ok, pos = _bin_of(data[:, d], e, linear)
        inside &= ok
        cells.append(pos)
    flat = np.ravel_multi_index(tuple(c[inside] for c in cells), shape) if shape else np.zeros(0, np.int64)
    w = None if weights is None else weights[inside].astype(np.float64)
    size = int(np.prod(shape))
    return np.bincount(flat, weights=w, minlength=size)[:size].astype(np.float64).reshape(shape)


def histogramdd(input: Tensor, bins: Any = 10, *, range: Any = None, weight: Tensor | None = None,  # noqa: A002
                density: bool = False) -> Any:
    """``(hist, bin_edges)`` of the points in ``input``'s rows (its last dim holds the ``D``
    coordinates): ``bins`` an int, ``D`` ints or ``D`` edge tensors; ``range`` ``2 D`` numbers
    (for int bins); ``weight`` of ``input.shape[:-1]``; ``density`` divides by the total and
    the cell volumes. As ``histogram``, per dimension."""
    _float_tensor("input", input)
    if input.ndim < 2:
        raise RuntimeError(f"{_HIST}: input tensor should have at least 2 dimensions")
    ndim = input.shape[-1]
    data = input._numpy().reshape(int(np.prod(input.shape[:-1])), ndim)
    if isinstance(bins, Tensor) or isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        per_dim: list[Any] = [bins] * ndim
    else:
        per_dim = list(bins)
        if any(isinstance(b, Tensor) for b in per_dim) and not all(isinstance(b, Tensor) for b in per_dim):
            raise TypeError("histogramdd(): argument 'bins' must be an int, a sequence of ints or a sequence "
                            "of tensors, not a mix of ints and tensors")
    if len(per_dim) != ndim:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    tensor_bins = bool(per_dim) and isinstance(per_dim[0], Tensor)
    if tensor_bins:
        for d, b in enumerate(per_dim):
            _check_edges(input, b, d)
        edges = list(per_dim)
    else:
        _check_range(range, ndim)
        edges = [_linear_edges(data[:, d], b, None if range is None else range[2 * d:2 * d + 2], input.dtype, d)
                 for d, b in enumerate(per_dim)]
    weights = _weights(input, weight, tuple(input.shape[:-1]), list(input.shape))
    hist = _counts_dd(data, [e._numpy() for e in edges], weights, linear=not tensor_bins)
    if density:
        volume = np.ones(hist.shape)
        for d, e in enumerate(edges):
            volume = volume * np.diff(e._numpy()).reshape((-1,) + (1,) * (ndim - d - 1))
        with np.errstate(all="ignore"):
            hist = hist / hist.sum() / volume
    hist_t = from_result(hist.astype(input.dtype.type, copy=False), input.dtype)
    sources = tuple(t for t in (input, weight) if isinstance(t, Tensor))
    if needs_grad(*sources):
        if not tensor_bins:
            record(NotImplementedBackward("_histogramdd_bin_edges"), sources, tuple(edges))
        cts = "_histogramdd_from_bin_tensors" if tensor_bins else "_histogramdd_from_bin_cts"
        record(NotImplementedBackward(cts), sources, (hist_t,))
    return return_types.histogramdd(hist_t, tuple(edges))


def _weights(input: Tensor, weight: Tensor | None, shape: tuple[int, ...], shown: list[int]) -> np.ndarray | None:
    """``weight``'s values (flat), checked: a float tensor of ``input``'s dtype and ``shape``
    (``histogram`` compares element counts: ``shape`` is then ``(N,)``)."""
    if weight is None:
        return None
    _float_tensor("weight", weight)
    if weight.dtype != input.dtype:
        raise RuntimeError(f"{_HIST}: if weight tensor is provided, input tensor and weight tensor should "
                           f"have the same dtype, but got input({input.dtype.name}), and "
                           f"weight({weight.dtype.name})")
    count = weight.numel()  # type: ignore[attr-defined]
    fits = count == int(np.prod(shape)) if len(shape) == 1 else tuple(weight.shape) == shape
    if not fits:
        raise RuntimeError(f"{_HIST}: if weight tensor is provided it should have the same shape as the "
                           f"input tensor excluding its innermost dimension, but got input with shape "
                           f"{shown} and weight with shape {list(weight.shape)}")
    return weight._numpy().reshape(-1)


def histogram_method(self: Tensor, bins: Any = 100, *, range: Any = None, weight: Tensor | None = None,  # noqa: A002
                     density: bool = False) -> Any:
    """``Tensor.histogram``."""
    return histogram(self, bins, range=range, weight=weight, density=density)
