"""Gathers and scatters along a dim: ``gather``, ``scatter`` (tensor or value), ``scatter_add``,
``index_select``, ``take``, ``take_along_dim``, ``index_add``, ``index_copy``, ``index_fill``,
``repeat_interleave``, and the in-place variants (``inplace_result.write_result``). The mask
ops are in ``masking.py``, ``scatter_reduce`` in ``scatter_reduce.py``.

Each one turns its index tensor into a NumPy index tuple (open grids beside the indexed dim)
and is then a gather (``index_ops.gather``, backward a scatter-add) or a scatter-add, so
every gradient is a jitgrad op and double backward works. Each records PyTorch's node:
overwriting scatters (``scatter``, ``index_copy``) give the overwritten positions no
gradient and the source the gradient gathered back; adding ones (``scatter_add``,
``index_add``) pass the gradient to ``self`` and gather it for the source; fills
(``scatter`` of a value, ``index_fill``) are ``masked_fill`` under their own names.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np

from .. import copying, dtypes, indexing
from ..storage import Storage
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node, SavingNode
from ..geometry.strided import wrap_dim
from ..tensor import Tensor
from .operands import from_result
from .compare import where
from .elementwise import mul
from .index_ops import gather as gather_at
from .index_ops import index_put_zeros
from ._index_args import (
    GatherBackward0, IndexSelectBackward0, TakeBackward0, broadcast, check_bounds, fill_value, flat,
    gather_as, index_array, same_dtype, saved_dim, saved_sizes, tensor_arg,
)
from .assignment import IndexPutBackward0
from .inplace_result import write_result
from .masking import MaskedFillBackward0, MaskedFillBackward1, filled
from .structure import clone
from .view_ops import expand, reshape, unsqueeze


def along_index(idx: np.ndarray, dim: int) -> tuple[Any, ...]:
    """The NumPy index that picks ``idx[..., i, ...]`` along ``dim`` with the other
    coordinates taken from ``idx``'s own position (``np.take_along_axis``'s index)."""
    grids = np.ogrid[tuple(slice(0, s) for s in idx.shape)] if idx.ndim else []
    out: list[Any] = list(grids)
    if idx.ndim:
        out[dim] = idx
    return tuple(out) if idx.ndim else (idx,)


def _check_scatter_shapes(op: str, self: Tensor, dim: int, index: Tensor, src: Tensor | None) -> None:
    nd = max(self.ndim, 1)
    if max(index.ndim, 1) != nd and index.numel():
        raise RuntimeError(
            f"{op}(): Index tensor must have the same number of dimensions as self tensor "
            f"(got {index.ndim}, expected {self.ndim})"
        )
    if not index.numel():
        return
    if src is not None and max(src.ndim, 1) != nd:
        raise RuntimeError(
            f"{op}(): Index tensor must have the same number of dimensions as src tensor "
            f"(got {index.ndim}, expected {src.ndim})"
        )
    sizes = self._sizes or (1,)
    isizes = index._sizes or (1,)
    for d in range(nd):
        if d != dim and isizes[d] > sizes[d]:
            raise RuntimeError(
                f"{op}(): Expected index {list(index._sizes)} to be smaller than self "
                f"{list(self._sizes)} apart from dimension {dim}"
            )
        if src is not None and isizes[d] > (src._sizes or (1,))[d]:
            raise RuntimeError(
                f"{op}(): Expected index {list(index._sizes)} to be smaller than src "
                f"{list(src._sizes)} in every dimension"
            )


def scatter_index(
    op: str, self: Tensor, dim: int, index: Tensor, src: Tensor | None
) -> tuple[int, tuple[Any, ...]]:
    """``(dim, NumPy index)`` of a scatter/gather of ``index`` along ``dim`` into ``self``."""
    d = wrap_dim(dim, self.ndim, op)
    idx = index_array(op, index, int32=True)
    _check_scatter_shapes(op, self, d, index, src)
    idx = check_bounds(op, idx, (self._sizes or (1,))[d], d)
    if not self.ndim:  # a 0-d self is read as 1-D of size 1
        return d, (idx.reshape(-1),)
    return d, along_index(idx.reshape(index._sizes or (1,) * self.ndim), d)


def source_part(src: Tensor, sizes: tuple[int, ...]) -> Tensor:
    """The leading ``sizes`` corner of ``src`` (what a scatter of an index of ``sizes`` reads;
    a 0-d index reads one element)."""
    sizes = sizes or (1,) * src.ndim
    if src._sizes == sizes or not src.ndim:
        return src
    return src[tuple(slice(0, s) for s in sizes)]  # type: ignore[index]


def source_grad(gpart: Tensor, src_sizes: tuple[int, ...]) -> Tensor:
    """The gradient of a scatter's whole ``src`` from that of the corner it read (``gpart``):
    zeros elsewhere. A ``src`` larger than ``index`` is read only in its leading corner
    (PyTorch's backward refuses it: README, deliberate differences)."""
    if gpart._sizes == src_sizes:
        return gpart
    return index_put_zeros(gpart, src_sizes, tuple(slice(0, n) for n in gpart._sizes))


# -- gather ------------------------------------------------------------------------------------
def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """``out[i][j][k] = input[index[i][j][k]][j][k]`` (for ``dim=0``); shape of ``index``."""
    tensor_arg("gather", "input", input)
    d, np_index = scatter_index("gather", input, dim, index, None)
    source = reshape(input, 1) if not input.ndim else input
    out = gather_as(GatherBackward0, source, np_index, (input, index, saved_dim(dim), bool(sparse_grad)))
    return reshape(out, index._sizes) if out._sizes != index._sizes else out


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """``gather`` after broadcasting ``input`` and ``indices`` apart from ``dim``; with no
    ``dim``, a gather from the flattened ``input``."""
    tensor_arg("take_along_dim", "input", input)
    index_array("take_along_dim", indices, "indices")
    if dim is None:
        return gather(flat(input), 0, flat(indices))
    d = wrap_dim(dim, input.ndim, "take_along_dim")
    if input.ndim != indices.ndim:
        raise RuntimeError(
            f"take_along_dim(): input and indices should have the same number of dimensions, "
            f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices"
        )
    si, sx = list(input._sizes), list(indices._sizes)
    si[d] = sx[d] = 1
    common = list(broadcast("take_along_dim", tuple(si), tuple(sx)))
    ti, tx = list(common), list(common)
    ti[d], tx[d] = input._sizes[d], indices._sizes[d]
    return gather(expand(input, ti), d, expand(indices, tx))


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices of ``input`` along ``dim`` at the 1-D ``index`` (repeats allowed)."""
    tensor_arg("index_select", "input", input)
    idx = index_array("index_select", index, int32=True)
    if index.ndim > 1:
        raise IndexError(f"index_select(): Index is supposed to be a vector, got {index.ndim} dims")
    d = wrap_dim(dim, input.ndim, "index_select")
    source = reshape(input, 1) if not input.ndim else input
    idx = check_bounds("index_select", idx.reshape(-1), source._sizes[d], d, error=IndexError)
    out = gather_as(IndexSelectBackward0, source, (slice(None),) * d + (idx,),
                    (index, saved_dim(dim), saved_sizes(input)))
    return reshape(out, ()) if not input.ndim else out


def take(input: Tensor, index: Tensor) -> Tensor:
    """``input`` read as 1-D at ``index`` (negative indices count from the end)."""
    tensor_arg("take", "input", input)
    idx = index_array("take", index)
    n = input.numel()
    idx = check_bounds("take", idx, n, 0, negative=True, error=IndexError)
    return gather_as(TakeBackward0, flat(input), (idx,), (input, index))


# -- scatters --------------------------------------------------------------------------------
class ScatterBackward0(SavingNode):
    """Backward of an overwriting scatter: the overwritten positions of ``self`` get nothing,
    ``src`` gets the gradient gathered from where it was written. It saves what PyTorch's
    saves (``_saved_dim``, ``_saved_index``: writing the index in place makes backward
    refuse, as there), then the mask of the overwritten positions."""

    def __init__(self, np_index: tuple[Any, ...], part_sizes: tuple[int, ...], src_sizes: tuple[int, ...]) -> None:
        super().__init__()
        self.np_index = np_index
        self.part_sizes = part_sizes
        self.src_sizes = src_sizes

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        assert g is not None
        mask = self.unpack()[-1]
        gs = where(mask, 0.0, g) if self.needs_input_grad(0) else None
        gsrc = None
        if self.needs_input_grad(1):
            source = reshape(g, 1) if not g.ndim else g
            gsrc = gather_at(source, self.np_index)
            if gsrc._sizes != self.part_sizes:
                gsrc = reshape(gsrc, self.part_sizes)
            gsrc = source_grad(gsrc, self.src_sizes)
        return (gs, gsrc)


class IndexCopyBackward0(ScatterBackward0):
    optional_tensors = ("source",)


def _overwrite(node_cls: type, self: Tensor, np_index: tuple[Any, ...], src: Tensor, part: Tensor,
               saved: tuple[Any, ...]) -> Tensor:
    """A copy of ``self`` with ``part`` (``src`` or its leading corner) written at ``np_index``;
    its node saves ``saved`` (PyTorch's saved values) and the mask of the written positions."""
    values = self._numpy().copy().reshape(self._sizes or (1,))
    values[np_index] = part._numpy()
    out = from_result(values.reshape(self._sizes), self.dtype)
    if needs_grad(self, src):
        node = node_cls(np_index, part._sizes, src._sizes)
        record(node, (self, src), (out,))
        node.save(*saved, _mask_at(self, np_index))
    return out


def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
            reduce: str | None = None) -> Tensor:
    """A copy of ``input`` with ``src[i][j]`` (or ``value``) written at
    ``[index[i][j]][j]`` (``dim=0``). Duplicate indices: the last write wins."""
    op = "scatter"
    tensor_arg(op, "input", input)
    if reduce is not None:
        return _scatter_with_reduce(input, dim, index, value if src is None else src, reduce)
    if src is None:
        if isinstance(value, Tensor):  # (a Number: PyTorch takes a 0-d tensor that needs no grad as one)
            if value.ndim or value.requires_grad:
                raise TypeError(f"{op}(): argument 'value' must be a Number, got a Tensor (pass a tensor as src)")
            value = value._numpy().item()
        src = value
    if isinstance(src, Tensor):  # (a 0-d one too: PyTorch's scatter.src)
        same_dtype(op, input, src)
        _, np_index = scatter_index(op, input, dim, index, src)
        return _overwrite(ScatterBackward0, input, np_index, src, source_part(src, index._sizes),
                          (saved_dim(dim), index))
    _, np_index = scatter_index(op, input, dim, index, None)
    return filled(input, _mask_at(input, np_index), fill_value(op, input, src), _SCATTER_NODES, op,
                  (saved_dim(dim), index))


class ScatterBackward1(MaskedFillBackward0):
    """``scatter`` of a value: nothing for the overwritten positions."""


class IndexFillBackward0(MaskedFillBackward0):
    """``index_fill`` with a number: nothing for the filled slices."""


class IndexFillBackward1(MaskedFillBackward1):
    """``index_fill`` with a 0-d tensor value: it gets the sum of the filled slices' gradient."""


_SCATTER_NODES = (ScatterBackward1, ScatterBackward1)  # (a value is a number: ``fill_value`` gives no tensor)


class NotImplementedBackward(Node):
    """PyTorch's ``torch::autograd::NotImplemented``: the op has no derivative; backward
    through it raises."""

    def __init__(self, op: str) -> None:
        super().__init__()
        self.op = op

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")


class NoFormulaBackward(Node):
    """The node of an op whose derivative PyTorch declares ``not_implemented`` (``unique``):
    its output requires grad, as PyTorch's does, and backward through it raises PyTorch's
    NotImplementedError. Subclasses name the node and set ``aten``, the op's ATen name."""

    aten = ""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        raise NotImplementedError(f"the derivative for '{self.aten}' is not implemented.")


def record_no_formula(node_type: type[NoFormulaBackward], input: Tensor, out: Tensor) -> None:
    """Give ``out`` (the op's one floating output) a ``node_type`` node when ``input`` needs a
    gradient."""
    if out.dtype in dtypes.FLOATING and needs_grad(input):
        record(node_type(), (input,), (out,))


def _scatter_with_reduce(input: Tensor, dim: int, index: Tensor, src: Any, reduce: str) -> Tensor:
    """``scatter(..., reduce='add' | 'multiply')``: ``src`` (or a number, cast to
    ``input``'s dtype first) added or multiplied into the copy at the scattered positions.
    Not differentiable, as in PyTorch (its deprecated form of ``scatter_reduce``)."""
    op = "scatter"
    if reduce not in ("add", "multiply"):
        raise RuntimeError(f"{op}(): reduce argument must be either add or multiply, got {reduce!r}")
    if isinstance(src, Tensor):
        warnings.warn(
            "scatter(): the reduce argument with a Tensor src is deprecated in PyTorch; use "
            "scatter_reduce (more reductions, and differentiable)", UserWarning, stacklevel=3,
        )
        same_dtype(op, input, src)
        _, np_index = scatter_index(op, input, dim, index, src)
        part = source_part(src, index._sizes)._numpy()
        part = part.reshape(-1)[: len(np_index[0])] if not input.ndim else part
    else:
        _, np_index = scatter_index(op, input, dim, index, None)
        part = np.asarray(fill_value(op, input, src)).astype(input.dtype)  # type: ignore[assignment]
    values = np.array(input._numpy().reshape(input._sizes or (1,)), copy=True)
    with np.errstate(all="ignore"):
        (np.add if reduce == "add" else np.multiply).at(values, np_index, part)
    out = from_result(values.reshape(input._sizes), input.dtype)
    if needs_grad(input, src if isinstance(src, Tensor) else None):
        record(NotImplementedBackward(op), (input, src if isinstance(src, Tensor) else None), (out,))
    return out


def _mask_at(self: Tensor, np_index: tuple[Any, ...]) -> Tensor:
    mask = np.zeros(self._sizes or (1,), np.bool_)
    mask[np_index] = True
    return from_result(mask.reshape(self._sizes))


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of ``input`` with ``src[i][j]`` added at ``[index[i][j]][j]`` (``dim=0``)."""
    op = "scatter_add"
    tensor_arg(op, "input", input)
    tensor_arg(op, "src", src)
    same_dtype(op, input, src)
    _, np_index = scatter_index(op, input, dim, index, src)
    part = source_part(src, index._sizes)
    saved = (saved_dim(dim), index if needs_grad(src) else None)
    return _added_at(ScatterAddBackward0, input, src, part, np_index, 1, saved)


class _AddAtBackward(SavingNode):
    """Backward of adding ``alpha * src`` at ``np_index`` of a copy of ``self``: ``self`` gets
    the gradient as it is, ``src`` the gradient gathered from where it was added (times
    ``alpha``; zeros for a part of ``src`` that was not read). It saves only what PyTorch's
    saves (the index and source just for ``src``'s gradient) and reads none of it."""

    def __init__(self, np_index: tuple[Any, ...], part_sizes: tuple[int, ...], src_sizes: tuple[int, ...],
                 alpha: Any) -> None:
        super().__init__()
        self.np_index, self.part_sizes, self.src_sizes, self.alpha = np_index, part_sizes, src_sizes, alpha

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        assert g is not None
        self.unpack()  # (PyTorch's checks of what it saved)
        gsrc = None
        if self.needs_input_grad(1):
            gsrc = gather_at(reshape(g, 1) if not g.ndim else g, self.np_index)
            if gsrc._sizes != self.part_sizes:
                gsrc = reshape(gsrc, self.part_sizes)
            if self.alpha != 1:
                gsrc = mul(gsrc, self.alpha)
            gsrc = source_grad(gsrc, self.src_sizes)
        return (g if self.needs_input_grad(0) else None, gsrc)


class ScatterAddBackward0(_AddAtBackward):
    optional_tensors = ("index",)


class IndexAddBackward0(_AddAtBackward):
    optional_tensors = ("index", "source")


def _added_at(node_type: type[_AddAtBackward], input: Tensor, src: Tensor, part: Tensor,
              np_index: tuple[Any, ...], alpha: Any, saved: tuple[Any, ...]) -> Tensor:
    """A copy of ``input`` with ``alpha * part`` (``src`` or its leading corner) added at
    ``np_index`` (repeated positions add up), recorded as one ``node_type`` saving ``saved``."""
    values = np.array(input._numpy(), copy=True).reshape(input._sizes or (1,))  # (0-d: as 1-D)
    scaled = part._numpy() if alpha == 1 else (part._numpy() * np.asarray(alpha, dtype=input.dtype))
    with np.errstate(all="ignore"):
        np.add.at(values, np_index, scaled)
    out = from_result(values.reshape(input._sizes), input.dtype)
    if needs_grad(input, src):
        node = record(node_type(np_index, part._sizes, src._sizes, alpha), (input, src), (out,))
        node.save(*saved)
    return out


def _index_along(
    op: str, self: Tensor, dim: int, index: Tensor, source: Tensor | None
) -> tuple[int, tuple[Any, ...]]:
    """``(dim, NumPy index)`` for ``index_add``/``index_copy``/``index_fill``: whole slices
    of ``self`` along ``dim`` at the 1-D ``index``."""
    d = wrap_dim(dim, self.ndim, op)
    idx = index_array(op, index, int32=op == "index_add", error=IndexError if op == "index_fill" else RuntimeError)
    if index.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector, got {index.ndim} dims")
    sizes = self._sizes or (1,)
    error = RuntimeError if op == "index_add" else IndexError  # as PyTorch
    idx = check_bounds(op, idx.reshape(-1), sizes[d], d, negative=op == "index_fill", error=error)
    if source is not None:
        if op == "index_add" and source.ndim != self.ndim:
            raise RuntimeError(
                f"{op}(): source tensor shape must match self tensor shape, excluding the specified dimension. "
                f"Got self.shape = {list(self._sizes)} source.shape = {list(source._sizes)}"
            )
        expected = list(sizes)
        expected[d] = idx.size
        got = list(source._sizes or (1,))
        if source.ndim > 0 or self.ndim > 0:
            if got != expected:
                raise RuntimeError(
                    f"{op}(): source of shape {list(source._sizes)} doesn't match self of shape "
                    f"{list(self._sizes)} with {idx.size} slice(s) along dim {d}; expected "
                    f"{expected}"
                )
    return d, (slice(None),) * d + (idx,)


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """A copy of ``input`` with ``alpha * source[i]`` added to slice ``index[i]`` along ``dim``."""
    op = "index_add"
    tensor_arg(op, "input", input)
    tensor_arg(op, "source", source)
    same_dtype(op, input, source, "source")
    _, np_index = _index_along(op, input, dim, index, source)
    wanted = needs_grad(source)  # (PyTorch saves index and source only for source's gradient)
    saved = (saved_dim(dim), index if wanted else None, source if wanted else None, source.ndim, alpha)
    return _added_at(IndexAddBackward0, input, source, source, np_index, alpha, saved)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` with slice ``index[i]`` along ``dim`` replaced by ``source[i]``."""
    op = "index_copy"
    tensor_arg(op, "input", input)
    tensor_arg(op, "source", source)
    same_dtype(op, input, source, "source")
    _, np_index = _index_along(op, input, dim, index, source)
    wanted = needs_grad(source)  # (PyTorch saves source only for its own gradient)
    return _overwrite(IndexCopyBackward0, input, np_index, source, source,
                      (saved_dim(dim), index, source if wanted else None, source.ndim))


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """A copy of ``input`` with the slices ``index`` along ``dim`` set to ``value``."""
    op = "index_fill"
    tensor_arg(op, "input", input)
    _, np_index = _index_along(op, input, dim, index, None)
    return filled(input, _mask_at(input, np_index), fill_value(op, input, value),
                  (IndexFillBackward0, IndexFillBackward1), op, (saved_dim(dim), index))


def repeat_interleave(input: Tensor, repeats: Any = None, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:
    """Each element (each slice along ``dim``) repeated ``repeats`` times (an int, or one
    count per element); ``repeat_interleave(counts)`` alone gives the repeated indices.
    With an int, PyTorch's graph: ``unsqueeze``, ``expand``, ``clone``, then a view merging
    the two dims (and a flattening view first without ``dim``); with a tensor of counts, an
    ``index_select``."""
    op = "repeat_interleave"
    tensor_arg(op, "input", input)
    if repeats is None:  # repeat_interleave(repeats): 0, 1, ... each repeated
        counts = index_array(op, input, "repeats")
        if input.ndim > 1 or (counts < 0).any():
            raise RuntimeError(f"{op}(): repeats must be a 1-d tensor of non-negative counts")
        return from_result(np.repeat(np.arange(counts.size), counts.reshape(-1)), dtypes.int64)
    source = flat(input) if dim is None else input
    d = 0 if dim is None else wrap_dim(dim, input.ndim, op)
    n = (source._sizes or (1,))[d]
    if isinstance(repeats, Tensor):
        counts = index_array(op, repeats, "repeats").reshape(-1)
        if repeats.ndim > 1 or counts.size not in (1, n):
            raise RuntimeError(
                f"{op}(): repeats must have the same size as input along dim ({n}), but got "
                f"repeats of shape {list(repeats._sizes)}"
            )
    else:
        if isinstance(repeats, bool) or not isinstance(repeats, numbers.Integral):
            raise TypeError(f"{op}(): repeats must be an int or a Tensor, got {type(repeats).__name__}")
        counts = np.array([repeats])
    if (counts < 0).any():
        raise RuntimeError(f"{op}(): repeats can not be negative")
    total = n * int(counts[0]) if counts.size == 1 else int(counts.sum())
    if output_size is not None and output_size != total:
        raise RuntimeError(f"{op}(): output_size {output_size} doesn't match the total repeats {total}")
    if not isinstance(repeats, Tensor):
        sizes = list(source._sizes)
        copies = clone(expand(unsqueeze(source, d + 1), sizes[: d + 1] + [int(repeats)] + sizes[d + 1:]))
        return reshape(copies, sizes[:d] + [total] + sizes[d + 1:])
    idx = np.repeat(np.arange(n), np.broadcast_to(counts, (n,)))
    return index_select(source, d, from_result(idx, dtypes.int64))


# -- in-place variants -------------------------------------------------------------------------
def scatter_(self: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
             reduce: str | None = None) -> Tensor:
    result = scatter(self, dim, index, src, value=value, reduce=reduce)
    if isinstance(src, Tensor) and reduce is not None:
        if isinstance(result._grad_fn, NotImplementedBackward):
            result._grad_fn.op = "scatter_"  # (its backward names the in-place op, as PyTorch's)
        return write_result("scatter_", self, result, "torch::autograd::NotImplemented", (src,))
    if isinstance(src, Tensor):
        return write_result("scatter_", self, result, "ScatterBackward0", (src,))
    return write_result("scatter_", self, result, "ScatterBackward1")


def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return write_result("scatter_add_", self, scatter_add(self, dim, index, src), "ScatterAddBackward0", (src,))


def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    return write_result("index_add_", self, index_add(self, dim, index, source, alpha=alpha), "IndexAddBackward0",
                        (source,))


def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    return write_result("index_copy_", self, index_copy(self, dim, index, source), "IndexCopyBackward0", (source,))


def index_fill_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return write_result("index_fill_", self, index_fill(self, dim, index, value), "IndexFillBackward1", (value,))
    return write_result("index_fill_", self, index_fill(self, dim, index, value), "IndexFillBackward0")


# -- index_put (out of place) --------------------------------------------------------------------
def index_put(input: Tensor, indices: Any, values: Any, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` (laid out as it) with ``values`` written at ``indices`` (added
    with ``accumulate``): ``index_put_`` on a copy, recorded as one ``IndexPutBackward0`` on
    ``input`` and ``values``, the result at version 0, as PyTorch's."""
    tensor_arg("index_put", "input", input)
    g, advanced = indexing.split_index(input._geometry, tuple(indices))
    if g != input._geometry:
        raise IndexError("index_put: indices must all be index tensors or arrays")
    np_index = indexing.numpy_index(input.ndim, advanced)
    scratch = copying.clone(input)
    indexing.write_advanced(scratch, np_index, values, bool(accumulate), "index_put")
    out = Tensor._make(Storage(scratch._storage.buffer), scratch._sizes, scratch._strides, scratch._offset)
    value = values if isinstance(values, Tensor) else None
    if needs_grad(input, value):
        record(IndexPutBackward0(np_index, bool(accumulate)), (input, value), (out,))
    return out
