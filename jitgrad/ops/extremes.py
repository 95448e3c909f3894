"""``max``/``min`` (of every element, or over one dim with their indices; with a tensor, the
elementwise ``maximum``/``minimum``) and ``amax``/``amin``, with their backward nodes.
``max()``/``min()`` of every element take the fused per-op path (``fused_total.py``) first,
and their node keeps its input and result compactly (``SavingNode.save_input_result``).
"""

from __future__ import annotations

import numbers
from typing import Any, NamedTuple

import numpy as np

from .. import dtypes
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..geometry.strided import wrap_dim
from ..tensor import Tensor
from .elementwise import div, maximum, minimum, mul
from .fused_total import fused_total
from .out_arg import into_out
from .index_ops import index_put_zeros
from .operands import fresh_result, from_result, lean_data
from .reduction import _constant, _restore, keepdim_shape, reduce_dims

_maximum_reduce, _minimum_reduce = np.maximum.reduce, np.minimum.reduce


# -- max / min -------------------------------------------------------------------------------
class return_types:
    """The named results of ``max(dim)``/``min(dim)``, as PyTorch's ``torch.return_types``."""

    class max(NamedTuple):
        values: Tensor
        indices: Tensor

    class min(NamedTuple):
        values: Tensor
        indices: Tensor


class MaxBackward0(SavingNode):
    """Backward of ``max(dim)``/``min(dim)``: the gradient goes to the selected index only
    (PyTorch's ``value_selecting_reduction_backward``); its own backward gathers there."""

    def __init__(self, input_sizes: tuple[int, ...], dim: int, keepdim: bool) -> None:
        super().__init__()
        self.input_sizes = input_sizes
        self.dim = dim
        self.keepdim = keepdim

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        assert g is not None
        sizes = self.input_sizes
        if not sizes:
            return (g,)
        (indices,) = self.unpack()
        d = self.dim
        reduced = sizes[:d] + sizes[d + 1 :]
        if self.keepdim:
            g = g.reshape(reduced)  # type: ignore[attr-defined]
        np_index = []
        for axis, size in enumerate(sizes):
            if axis == d:
                np_index.append(indices._numpy().reshape(reduced))
                continue
            shape = [1] * len(reduced)
            shape[axis if axis < d else axis - 1] = size
            np_index.append(np.arange(size).reshape(shape))
        return (index_put_zeros(g, sizes, tuple(np_index)),)


class MinBackward0(MaxBackward0):
    pass


class MaxBackward1(SavingNode):
    """Backward of the full ``max()``/``min()``: the gradient shared evenly among every
    element equal to the result (or every nan, when the result is nan), as PyTorch's
    ``evenly_distribute_backward``.

    It saves its input and its result (``_saved_self``, ``_saved_result``), compactly
    (``SavingNode.save_input_result``)."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        self_, result = self.unpack()
        x, r = self_._numpy(), result._numpy()
        mask = np.isnan(x) if np.isnan(r) else x == r
        share = div(grads[0], int(np.count_nonzero(mask)))
        return (mul(share, _constant(mask, share)),)


class MinBackward1(MaxBackward1):
    pass


class AmaxBackward0(SavingNode):
    """Backward of ``amax``/``amin``: along the reduced dims, the gradient is shared evenly
    among the elements equal to the result (PyTorch's ``scale_grad_by_count``; a nan result
    matches nothing and gives nan, as in PyTorch)."""

    def __init__(self, dims: tuple[int, ...], keepdim: bool) -> None:
        super().__init__()
        self.dims = dims
        self.keepdim = keepdim

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        self_, result = self.unpack()
        return (share_among_ties(grads[0], self_, result, self.dims, self.keepdim),)  # type: ignore[arg-type]


def share_among_ties(g: Tensor, self_: Tensor, result: Tensor, dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """The gradient ``g`` of a reduction to ``result`` (amax, amin) shared evenly among the
    elements of ``self_`` equal to it (PyTorch's ``scale_grad_by_count``)."""
    sizes = self_._sizes
    r = result._numpy().reshape(keepdim_shape(sizes, dims))
    mask = self_._numpy() == r
    g = _restore(g, sizes, dims, keepdim)
    count = np.sum(mask, axis=dims, keepdims=True)
    return mul(div(g, _constant(count, g)), _constant(mask, g))


class AminBackward0(AmaxBackward0):
    pass


def _check_nonempty(op: str, self: Tensor, dims: tuple[int, ...], explicit: bool) -> None:
    if self.numel():
        return
    if not explicit:
        raise RuntimeError(
            f"{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify "
            "the reduction dim with the 'dim' argument."
        )
    for d in dims:
        if self._sizes[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


def _extreme(op: str, self: Tensor, dim: Any, keepdim: bool) -> Any:
    """``max``/``min``: the 0-d extreme with no ``dim``, else ``(values, indices)``; with a
    tensor in place of ``dim``, the elementwise ``maximum``/``minimum``, as PyTorch."""
    if isinstance(dim, Tensor):
        return (maximum if op == "max" else minimum)(self, dim)
    reduce, arg = (np.max, np.argmax) if op == "max" else (np.min, np.argmin)
    if dim is None:
        x = lean_data(self)
        if x is not None and len(x):  # Note [Lean paths]: the flat buffer, its one
            # loop (``np.max`` of a contiguous array collapses its dims into it), into the
            # result's own one-element buffer
            extreme = _maximum_reduce if op == "max" else _minimum_reduce
            out = fresh_result(extreme(x, 0, None, None, True), (), ())
        else:
            _check_nonempty(op, self, (), explicit=False)
            out = from_result(np.asarray(reduce(self._numpy())))
        if needs_grad(self):
            node = (MaxBackward1 if op == "max" else MinBackward1)()
            record(node, (self,), (out,))
            node.save_input_result(self, out)
        return out
    if not isinstance(dim, numbers.Integral) or isinstance(dim, (bool, np.bool_)):
        raise TypeError(f"{op}(): argument 'dim' must be int, not {type(dim).__name__}")
    d = wrap_dim(dim, self.ndim, op)
    x = self._numpy()
    if self.ndim:
        _check_nonempty(op, self, (d,), explicit=True)
        values = reduce(x, axis=d, keepdims=keepdim)
        indices = arg(x, axis=d, keepdims=keepdim)
    else:
        values, indices = x, np.zeros((), np.int64)
    out = from_result(np.asarray(values))
    idx = from_result(np.asarray(indices), dtypes.int64)
    if needs_grad(self):
        node = (MaxBackward0 if op == "max" else MinBackward0)(self._sizes, d, keepdim)
        record(node, (self,), (out,))
        node.save(idx)
    return (return_types.max if op == "max" else return_types.min)(out, idx)


def max(self: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:
    """``max()`` (a 0-d tensor) or ``max(dim)`` (``(values, indices)``: on ties the first
    index of the maximum; the first nan, if there is one, wins)."""
    if out is not None:  # (out_arg.py; ``max(x, 0, out=(values, indices))``)
        return into_out("max", out, max, (self, dim, keepdim))
    if dim is None and keepdim is False:
        out = _fused_max(self)  # the fused per-op path (``fused.py``)
        if out is not None:
            return out
    return _extreme("max", self, dim, keepdim)


def min(self: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:
    if out is not None:  # (out_arg.py; ``max(x, 0, out=(values, indices))``)
        return into_out("min", out, min, (self, dim, keepdim))
    if dim is None and keepdim is False:
        out = _fused_min(self)  # the fused per-op path (``fused.py``)
        if out is not None:
            return out
    return _extreme("min", self, dim, keepdim)


# (the lean path's reduction, ``_extreme``'s, written out)
_fused_max = fused_total(MaxBackward1, extreme=np.maximum)
_fused_min = fused_total(MinBackward1, extreme=np.minimum)


def _amextreme(op: str, self: Tensor, dim: Any, keepdim: bool) -> Tensor:
    dims = reduce_dims(op, self, dim)
    explicit = dim is not None and (isinstance(dim, numbers.Integral) or len(dim) > 0)
    _check_nonempty(op, self, dims, explicit)
    reduce = np.max if op == "amax" else np.min
    out = from_result(np.asarray(reduce(self._numpy(), axis=dims, keepdims=keepdim)))
    if needs_grad(self):
        node = (AmaxBackward0 if op == "amax" else AminBackward0)(dims, keepdim)
        record(node, (self,), (out,))
        node.save_input_result(self, out)
    return out


def amax(self: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return _amextreme("amax", self, dim, keepdim)


def amin(self: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return _amextreme("amin", self, dim, keepdim)
