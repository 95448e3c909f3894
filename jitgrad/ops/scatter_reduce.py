"""``scatter_reduce`` (``reduce`` = ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``,
``include_self=``) and ``scatter_reduce_``.

``sum`` and ``mean`` pass the gradient (divided by the count for ``mean``) to ``self`` and
gather it for ``src``. ``amax``/``amin`` share the gradient evenly among every contributor equal
to the result, and ``prod`` gives each contributor the product of the others, both as
PyTorch's ``scatter_reduce_backward`` (``FunctionsManual.cpp``), written in jitgrad ops.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._warn_once import warn_once
from ..autograd.function import delayed_error
from ..autograd.grad_mode import no_grad
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..geometry.strided import wrap_dim
from ..tensor import Tensor
from .operands import from_result
from .compare import where
from .elementwise import add, div, mul
from ._index_args import same_dtype, saved_dim, tensor_arg
from .gather_scatter import scatter_index, source_grad, source_part
from .masking import masked_fill
from .index_ops import gather as gather_at
from .index_ops import index_put_zeros
from .inplace_result import write_result
from .structure import clone

_UFUNC = {"sum": np.add, "prod": np.multiply, "mean": np.add, "amax": np.maximum, "amin": np.minimum}


def _identity(reduce: str, dtype: np.dtype) -> Any:
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(dtype) if dtype.kind == "i" else None
    if info is None:  # bool
        return reduce == "amin"
    return info.min if reduce == "amax" else info.max


def _const(array: np.ndarray, like: Tensor) -> Tensor:
    return from_result(np.array(array), like.dtype)


def _mask(array: np.ndarray) -> Tensor:
    return from_result(np.array(array, dtype=np.bool_))


def _raw(self: np.ndarray, np_index: tuple[Any, ...], src: np.ndarray, reduce: str,
         include_self: bool, written: np.ndarray) -> np.ndarray:
    values = self.copy()
    if not include_self:
        values[written] = _identity(reduce, values.dtype)
    with np.errstate(all="ignore"):
        _UFUNC[reduce].at(values, np_index, src)
    return values


class ScatterReduceBackward0(SavingNode):
    """See the module docstring. It saves what PyTorch's saves: ``self``, ``dim`` (as given),
    ``index``, ``src``, ``reduce``, ``include_self`` and the result."""

    _op, _source = "scatter_reduce", "src"  # for the double-backward error

    def __init__(self, dim: int, np_index: tuple[Any, ...], reduce: str, include_self: bool,
                 written: np.ndarray) -> None:
        super().__init__()
        self.dim = dim
        self.np_index = np_index
        self.reduce = reduce
        self.include_self = include_self
        self.written = written

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        assert g is not None
        self_, _, _, whole_src, _, _, result = self.unpack()
        src = source_part(whole_src, self.np_index[self.dim].shape)
        if self.reduce in ("sum", "mean"):
            gs, gsrc = self._sum(g)
        elif self.reduce == "prod":
            gs, gsrc = self._prod(g, self_, src, result)
        else:
            gs, gsrc = self._extreme(g, self_, src, result)
        if not self.include_self:
            gs = where(_mask(self.written), 0.0, gs)
        gsrc = source_grad(gsrc, whole_src._sizes) if self.needs_input_grad(1) else None
        return (gs if self.needs_input_grad(0) else None, gsrc)

    def _sum(self, g: Tensor) -> tuple[Tensor, Tensor]:
        """``sum``: the gradient to ``self``, gathered to ``src``; ``mean``: both divided by
        the count of values each position took."""
        if self.reduce == "sum":
            return g, gather_at(g, self.np_index)
        count = _const(_count(g._sizes, self.np_index, self.include_self), g)
        return div(g, count), div(gather_at(g, self.np_index), gather_at(count, self.np_index))

    def _extreme(self, g: Tensor, self_: Tensor, src: Tensor, result: Tensor) -> tuple[Tensor, Tensor]:
        r = result._numpy()
        value = r[self.np_index]
        self_is = self_._numpy() == r
        if not self.include_self:
            self_is &= ~self.written
        src_is = src._numpy() == value
        count = self_is.astype(np.float64)
        np.add.at(count, self.np_index, src_is)
        shared = div(g, _const(count, g))
        return (where(_mask(self_is), shared, 0.0),
                where(_mask(src_is), gather_at(shared, self.np_index), 0.0))

    def _again(self, self_: Tensor, src: Tensor) -> Tensor:
        """The same product scatter of other values (differentiable)."""
        _, dim, index, *_ = self.unpack()
        return _scatter_reduce(self_, (dim, self.dim), (index, self.np_index), src, "prod", self.include_self,
                               self.written, type(self))

    def _prod(self, g: Tensor, self_: Tensor, src: Tensor, result: Tensor) -> tuple[Tensor, Tensor]:
        x, s = self_._numpy(), src._numpy()
        self_zero = _mask(x == 0)
        masked_self = masked_fill(self_, self_zero, 1)
        others = self._again(masked_self, src)
        gs = div(mul(g, others), masked_self)
        src_zero = s == 0
        zeros_there = np.zeros(x.shape)
        np.add.at(zeros_there, self.np_index, src_zero)
        single = src_zero & (zeros_there[self.np_index] == 1)
        single_t = _mask(single)
        masked_src = masked_fill(src, single_t, 1)
        without = self._again(self_, masked_src)
        gsrc = where(
            single_t,
            gather_at(mul(g, without), self.np_index),
            div(gather_at(mul(g, result), self.np_index), masked_fill(src, _mask(src_zero), 1)),
        )
        if (zeros_there > 1).any():  # PyTorch's DelayedError: no second derivative there
            gsrc = delayed_error(
                f"{self._op}(): Double backward is unsupported for {self._source} when >1 zeros "
                f"in {self._source} are scattered to the same position in self", gsrc,
            )
        return gs, gsrc


def _summed(self: Tensor, np_index: tuple[Any, ...], src: Tensor, reduce: str, include_self: bool,
            written: np.ndarray) -> Tensor:
    """``sum``/``mean``: a scatter-add (onto zeros where ``self`` is left out), divided by
    the count for ``mean`` (rounded down for integers, as PyTorch)."""
    base = self if include_self else masked_fill(self, _mask(written), 0)
    total = add(base, index_put_zeros(src, self._sizes, np_index))
    if reduce == "sum":
        return total
    count = _count(self._sizes, np_index, include_self)
    if self.dtype.kind != "f":
        return from_result(np.floor_divide(total._numpy(), count.astype(self.dtype)), self.dtype)
    return div(total, _const(count, total))


def _count(sizes: tuple[int, ...], np_index: tuple[Any, ...], include_self: bool) -> np.ndarray:
    """How many values a mean takes at each position (1 where none)."""
    count = np.full(sizes, 1.0 if include_self else 0.0)
    np.add.at(count, np_index, 1)
    return np.where(count == 0, 1, count)  # type: ignore[no-any-return]


class IndexReduceBackward0(ScatterReduceBackward0):
    """``index_reduce``: the same formulas (PyTorch's ``index_reduce_backward``)."""

    _op, _source = "index_reduce", "source"


def _scatter_reduce(self: Tensor, dims: tuple[int, int], index: tuple[Tensor, tuple[Any, ...]], src: Tensor,
                    reduce: str, include_self: bool, written: np.ndarray,
                    node_cls: type[ScatterReduceBackward0] = ScatterReduceBackward0) -> Tensor:
    """``src`` (its leading corner the shape of the NumPy index's arrays) reduced into a copy of
    ``self``, recorded as one ``node_cls`` on ``self`` and the whole ``src``. ``dims``: the dim
    as given (saved) and wrapped; ``index``: the index tensor (saved) and its NumPy index."""
    (given_dim, dim), (index_tensor, np_index) = dims, index
    part = source_part(src, np_index[dim].shape)
    if reduce in ("sum", "mean"):
        with no_grad():  # (the values of the composition; the node is PyTorch's)
            out = _summed(self, np_index, part, reduce, include_self, written)
    else:
        out = from_result(_raw(self._numpy(), np_index, part._numpy(), reduce, include_self, written), self.dtype)
    if needs_grad(self, src):
        node = node_cls(dim, np_index, reduce, include_self, written)
        record(node, (self, src), (out,))
        node.save(self, saved_dim(given_dim), index_tensor, src, reduce, include_self, out, outputs=(out,))
    return out


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """A copy of ``input`` with each ``src[i][j]`` reduced into ``[index[i][j]][j]``
    (``dim=0``) by ``reduce``; ``include_self=False`` leaves the old values of the written
    positions out of the reduction."""
    op = "scatter_reduce"
    tensor_arg(op, "input", input)
    tensor_arg(op, "src", src)
    if reduce not in _UFUNC:
        raise RuntimeError(f"{op}(): reduce argument must be one of sum, prod, mean, amax, amin, got {reduce!r}")
    same_dtype(op, input, src)
    if not input.ndim:
        raise RuntimeError(f"{op}(): expected a tensor with at least one dimension, got a 0-d tensor")
    d, np_index = scatter_index(op, input, dim, index, src)
    written = np.zeros(input._sizes, np.bool_)
    written[np_index] = True
    return _scatter_reduce(input, (dim, d), (index, np_index), src, reduce, bool(include_self), written)


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """A copy of ``input`` with each slice ``source.select(dim, i)`` reduced into
    ``input.select(dim, index[i])`` by ``reduce`` (``prod``, ``mean``, ``amax``, ``amin``);
    ``scatter_reduce`` with ``index`` spread along ``dim``, as PyTorch's (in beta there)."""
    op = "index_reduce"
    tensor_arg(op, "input", input)
    tensor_arg(op, "index", index)
    tensor_arg(op, "source", source)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"{op}(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    warn_once("index_reduce() is in beta and the API may change at any time.")
    if not input.ndim:  # a 0-d input and source: as one-element vectors
        out = index_reduce(input.reshape(1), dim, index, source.reshape(1), reduce,  # type: ignore[attr-defined]
                           include_self=include_self)
        return out.reshape(())  # type: ignore[attr-defined,no-any-return]
    d = wrap_dim(dim, input.ndim, op)
    if index.ndim > 1:
        raise IndexError(f"{op}_(): Index is supposed to be a vector, but got dim: {index.ndim} with "
                         f"type: {index.dtype.name} and size: {list(index._sizes)}")
    if index.dtype not in (np.int32, np.int64):
        raise RuntimeError(f"{op}_(): Expected dtype int32/int64 for index but got: {index.dtype.name}")
    if input.dtype != source.dtype:
        raise RuntimeError(f"{op}_(): self ({input.dtype.name}) and source ({source.dtype.name}) must "
                           "have the same scalar type")
    n = index.numel()
    if source.ndim == input.ndim and source._sizes[d] != n:
        raise RuntimeError(f"{op}_(): Number of indices ({n}) should be equal to source.size(dim): "
                           f"({source._sizes[d]}), for dim: {d}")
    if source.ndim != input.ndim or any(
        a != b for k, (a, b) in enumerate(zip(input._sizes, source._sizes)) if k != d
    ):
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified "
                           f"dimension. Got self.shape = {list(input._sizes)} source.shape = "
                           f"{list(source._sizes)}")
    idx = index._numpy().reshape(-1).astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= input._sizes[d]):
        raise IndexError("index out of range in self")
    positions = list(np.indices(source._sizes))
    positions[d] = idx[positions[d]]
    np_index = tuple(positions)
    written = np.zeros(input._sizes, np.bool_)
    written[np_index] = True
    return _scatter_reduce(input, (dim, d), (index, np_index), source, reduce, bool(include_self), written,
                           IndexReduceBackward0)


def index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:
    # the node saves its input (a copy: the write changes self's version) and its result
    # (self after the write, as PyTorch's: ops/inplace_result.py)
    source_copy = clone(self) if needs_grad(self) else self
    result = index_reduce(source_copy, dim, index, source, reduce, include_self=include_self)
    return write_result("index_reduce_", self, result, "IndexReduceBackward0", (source,), saves_result=True)


def scatter_reduce_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                    include_self: bool = True) -> Tensor:
    # as index_reduce_
    source = clone(self) if needs_grad(self) else self
    result = scatter_reduce(source, dim, index, src, reduce, include_self=include_self)
    return write_result("scatter_reduce_", self, result, "ScatterReduceBackward0", (src,), saves_result=True)
