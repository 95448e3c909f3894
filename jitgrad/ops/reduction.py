"""Reductions: ``sum`` (and ``sum_to``, the engine's un-broadcast), ``mean``, ``logsumexp``
(``max``/``min``/``amax``/``amin``: ``extremes.py``; ``softmax``/``log_softmax``:
``softmax.py``).

Every backward is written with differentiable jitgrad ops, so ``create_graph=True`` works
through all of them.
"""

from __future__ import annotations

import builtins
import numbers
from typing import Any, Sequence

import numpy as np

from .. import _tracing, dtypes
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node, SavingNode
from ..geometry.strided import numel, wrap_dim
from .._quiet import IGNORE_ALL, QUIET, QUIET_RUN, quiet, quiet_call
from ..tensor import Tensor
from .operands import array_of, fresh_result, from_result, layout, lean_data
from .fused_total import fused_total
from .out_arg import into_out
from .elementwise import div, mul, sub
from .lean_grads import expanded_total
from .pointwise import exp


def reduce_dims(op: str, self: Tensor, dim: Any) -> tuple[int, ...]:
    """``dim`` (None, an int or a sequence) as sorted non-negative dims of ``self``.

    As in PyTorch, None and an empty sequence both mean every dim, and a 0-d tensor accepts
    dim 0 / -1 (which reduce nothing: the result is the element itself)."""
    if type(dim) is int:  # the common case, without the ABC instance checks below
        wrapped = wrap_dim(dim, self.ndim, op)
        return (wrapped,) if self.ndim else ()
    if dim is None or (not isinstance(dim, numbers.Integral) and len(dim) == 0):
        return tuple(range(self.ndim))
    dims = (dim,) if isinstance(dim, numbers.Integral) else tuple(dim)
    wrapped = tuple(sorted(wrap_dim(d, self.ndim, op) for d in dims))
    if len(set(wrapped)) != len(wrapped):
        dup = next(d for d in wrapped if wrapped.count(d) > 1)
        raise RuntimeError(f"{op}: dim {dup} appears multiple times in the list of dims")
    return wrapped if self.ndim else ()


def keepdim_shape(sizes: tuple[int, ...], dims: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if d in dims else s for d, s in enumerate(sizes))


def _count(sizes: tuple[int, ...], dims: tuple[int, ...]) -> int:
    n = 1
    for d in dims:
        n *= sizes[d]
    return n


def _restore(t: Tensor, sizes: tuple[int, ...], dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """A reduced tensor (or its gradient) with the reduced dims back as size 1."""
    if keepdim or not sizes:
        return t
    return t.reshape(keepdim_shape(sizes, dims))  # type: ignore[attr-defined]


def _constant(array: np.ndarray, like: Tensor) -> Tensor:
    """A NumPy array (a mask, a count) as a tensor of ``like``'s dtype, outside the graph."""
    return from_result(array, like.dtype)


# -- sum -------------------------------------------------------------------------------------
class SumBackward0(Node):
    """Backward of ``sum``: the gradient broadcast back over the reduced dims."""

    __slots__ = ("input_sizes", "_dims")
    keepdim: bool = False  # set on the node only when True (no __dict__ for the common node)

    def __init__(self, input_sizes: tuple[int, ...], dims: tuple[int, ...] | None = None,
                 keepdim: bool = False) -> None:
        Node.__init__(self)  # (not super(): one of the costs of every sum)
        self.input_sizes = input_sizes
        self._dims = dims  # None: every dim
        if keepdim:
            self.keepdim = keepdim

    @property
    def dims(self) -> tuple[int, ...]:
        dims = self._dims
        return _all_dims(len(self.input_sizes)) if dims is None else dims

    # SumBackward1/MeanBackward1 (over ``dim``): the reduced dims come back by unsqueeze
    _over_dims = False

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        # PyTorch's sum_backward: a full sum's 0-d gradient expands as is; a sum over ``dim``
        # unsqueezes the reduced dims one at a time (create_graph's graph has those nodes)
        g = grads[0]
        if self._dims is None:  # (every element: a 0-d gradient, expanded without a trace)
            out = expanded_total(g, self.input_sizes)
            if out is not None:
                return (out,)
        if self._over_dims and not self.keepdim and self.input_sizes:
            for d in sorted(self.dims):
                g = g.unsqueeze(d)  # type: ignore[union-attr]
        return (g.expand(self.input_sizes),)  # type: ignore[union-attr]


class SumBackward1(SumBackward0):
    _over_dims = True


def _lean_total(self: Tensor) -> Tensor | None:
    """The 0-d sum of every element of a tensor on the lean path (Note [Lean paths] in
    ``operands.py``: the reduction runs on the flat buffer, into the result's own
    one-element buffer, and sums in the order the general path's does); None otherwise."""
    data = lean_data(self)
    if data is None:
        return None
    return fresh_result(_summed(data, 0, None, True), (), ())


_add_reduce, _true_divide, _multiply, _subtract = np.add.reduce, np.true_divide, np.multiply, np.subtract


def _summed(x: np.ndarray, axis: Any, dtype: Any, keepdims: bool) -> np.ndarray:
    """``np.add.reduce`` (``np.sum`` without its dispatch layers) quietly: inf - inf is nan,
    silently, as in PyTorch. Every sum of this module reduces through it."""
    try:
        return QUIET_RUN(_add_reduce, x, axis, dtype, None, keepdims)  # type: ignore[no-any-return]
    except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
        return quiet_call(_add_reduce, x, axis, dtype, None, keepdims)  # type: ignore[no-any-return]


def _all_dims(ndim: int) -> tuple[int, ...]:
    dims = _ALL_DIMS.get(ndim)
    if dims is None:
        dims = _ALL_DIMS[ndim] = tuple(range(ndim))
    return dims


_ALL_DIMS: dict[int, tuple[int, ...]] = {}


_fused_sum = fused_total(SumBackward0)


def sum(self: Tensor, dim: Any = None, keepdim: bool = False, dtype: Any = None, *,
        out: Tensor | None = None) -> Tensor:
    if out is not None:  # (out_arg.py; summed in ``out``'s dtype unless ``dtype`` is given, as PyTorch)
        return into_out("sum", out, sum, (self, dim, keepdim, getattr(out, "dtype", None) if dtype is None else dtype))
    if dim is None and not keepdim and dtype is None:
        out = _fused_sum(self)  # the fused per-op path (``fused.py``)
        if out is not None:
            return out
        out = _lean_total(self)
        if out is not None:
            if needs_grad(self):
                record(SumBackward0(self._sizes), (self,), (out,))
            return out
    dims = reduce_dims("sum", self, dim)
    if dtype is not None:
        out_dtype = dtypes.to_dtype(dtype, "sum")
    elif self.dtype in dtypes.FLOATING:
        out_dtype = self.dtype
    else:
        out_dtype = dtypes.int64  # PyTorch sums bool and integer tensors as int64
    values = _summed(array_of(self), dims, out_dtype, keepdim)
    out = from_result(np.asarray(values), out_dtype)
    if needs_grad(self):
        node = (SumBackward0 if dim is None else SumBackward1)(self._sizes, dims, keepdim)
        record(node, (self,), (out,))
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.reduce("sum" if dtype is None else "sum(dtype=)", out, self, dims, keepdim)
    return out


# ``Tensor.sum``: the fused per-op path (``fused.py``) first, in the method itself (``x.sum()``)
sum_method = fused_total(SumBackward0, otherwise=sum, by_dim=SumBackward1)


def sum_to(self: Tensor, shape: Sequence[int]) -> Tensor:
    """Sum ``self`` down to ``shape`` (which it must broadcast from): the adjoint of expand."""
    shape = tuple(shape)
    if self._sizes == shape:
        return self
    if not shape and not is_grad_enabled():  # (the engine reducing a scalar's gradient)
        out = _lean_total(self)  # the sum over every dim, as below, without the view
        if out is not None:
            return out
    lead = self.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and self._sizes[lead + i] != 1
    )
    if dims and not is_grad_enabled():  # (the engine un-broadcasting a gradient)
        data = lean_data(self)
        if data is not None and data.dtype in dtypes.FLOATING:
            # ``sum``'s reduction itself (the same values), without its checks, node and view
            values = _summed(data.reshape(self._sizes), dims, data.dtype, True)
            return fresh_result(values.reshape(-1), shape, layout(shape)[0])
    out = sum(self, dims, keepdim=True) if dims else self
    return out.view(shape) if out._sizes != shape else out  # type: ignore[attr-defined]


# -- mean ------------------------------------------------------------------------------------
class MeanBackward0(SumBackward0):
    """Backward of ``mean``: the gradient divided by the count, broadcast back."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        n = _count(self.input_sizes, self.dims)
        scaled = div(grads[0], n) if n else grads[0]  # an empty input's gradient is empty
        return super().apply([scaled])


class MeanBackward1(MeanBackward0):
    _over_dims = True


def _float_dtype(op: str, self: Tensor, dtype: Any) -> np.dtype:
    """The floating dtype ``op`` computes in: ``dtype`` if given, else the input's own."""
    target = self.dtype if dtype is None else dtypes.to_dtype(dtype, op)
    if target not in dtypes.FLOATING:
        which = "Input" if dtype is None else "Optional"
        raise RuntimeError(
            f"{op}(): could not infer output dtype. {which} dtype must be either a floating "
            f"point or complex dtype. Got: {target.name}"
        )
    return target


_fused_mean = fused_total(MeanBackward0, mean=True)


def mean(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
         out: Tensor | None = None) -> Tensor:
    """The mean over ``dim`` (all dims when None); the mean of nothing is nan, as in PyTorch."""
    if out is not None:  # (out_arg.py)
        return into_out("mean", out, mean, (self, dim, keepdim), {"dtype": dtype})
    if dim is None and not keepdim and dtype is None:
        out = _fused_mean(self)  # the fused per-op path (``fused.py``)
        if out is not None:
            return out
        out = _lean_total(self)
        if out is not None:
            values, n = out._storage.buffer, numel(self._sizes)
            try:  # (in place: the buffer is the result's own)
                QUIET_RUN(_true_divide, values, n, values)
            except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
                quiet_call(_true_divide, values, n, values)
            if needs_grad(self):
                record(MeanBackward0(self._sizes), (self,), (out,))
            return out
    out_dtype = _float_dtype("mean", self, dtype)
    dims = reduce_dims("mean", self, dim)
    if dtype is not None and self.dtype != out_dtype:
        self = self.to(out_dtype)  # type: ignore[attr-defined]
    with quiet():
        total = np.sum(self._numpy(), axis=dims, keepdims=keepdim, dtype=out_dtype)
    with np.errstate(invalid="ignore"):
        values = np.true_divide(total, _count(self._sizes, dims), dtype=out_dtype)
    out = from_result(np.asarray(values), out_dtype)
    if needs_grad(self):
        node = (MeanBackward0 if dim is None else MeanBackward1)(self._sizes, dims, keepdim)
        record(node, (self,), (out,))
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.reduce("mean", out, self, dims, keepdim)
    return out


# ``Tensor.mean``: the fused per-op path (``fused.py``) first, in the method itself (``x.mean()``)
mean_method = fused_total(MeanBackward0, mean=True, otherwise=mean, by_dim=MeanBackward1)


# -- logsumexp, softmax, log_softmax ---------------------------------------------------------
def _shifted(x: np.ndarray, axis: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(x - m, m)`` with ``m`` the max over ``axis`` (kept as size 1), an infinite ``m``
    replaced by 0 so that ``exp`` of the shift never meets ``inf - inf``."""
    m = np.maximum.reduce(x, axis=axis, keepdims=True, initial=-np.inf)  # np.max, undispatched
    m = np.where(np.isinf(m), 0, m).astype(x.dtype)
    return x - m, m


class LogsumexpBackward0(SavingNode):
    """``grad * exp(self - result)`` (the softmax of ``self`` along the reduced dims)."""

    # a 1-D input's: set on the node otherwise (the common node has no __init__ call)
    dims: tuple[int, ...] = (0,)
    keepdim: bool = False

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        self_, result = self.unpack()
        sizes = self_._sizes
        if not is_grad_enabled():  # (no graph of the backward to build)
            if len(sizes) == 1:
                # the 0-d gradient and result broadcast against a 1-D input as their (1,)
                # reshapes would: the same products, without two views
                return (mul(grads[0], exp(sub(self_, result))),)  # type: ignore[arg-type]
            out = _logsumexp_grad_data(grads[0], self_, result, self.dims)
            if out is not None:
                return (out,)
        g = _restore(grads[0], sizes, self.dims, self.keepdim)  # type: ignore[arg-type]
        r = _restore(result, sizes, self.dims, self.keepdim)
        return (mul(g, exp(sub(self_, r))),)


def _logsumexp_grad_data(grad: Any, x: Tensor, result: Tensor, dims: tuple[int, ...]) -> Tensor | None:
    """``grad * exp(x - result)`` with the reduced dims of ``grad`` and ``result`` put back as
    size 1, computed on the data (the general path's ufuncs in its order: the same values)
    when all three are lean tensors of one dtype; None otherwise."""
    xd, rd, gd = lean_data(x), lean_data(result), lean_data(grad)
    if xd is None or rd is None or gd is None or not (xd.dtype is rd.dtype is gd.dtype):
        return None
    sizes = x._sizes
    shape = keepdim_shape(sizes, dims)
    token = QUIET.set(IGNORE_ALL)
    try:
        values = np.multiply(gd.reshape(shape), np.exp(np.subtract(xd.reshape(sizes), rd.reshape(shape))))
    finally:
        QUIET.reset(token)
    return fresh_result(values.reshape(-1), sizes, layout(sizes)[0])


_INF = float("inf")
_py_max, _py_sum = builtins.max, builtins.sum  # (this module defines ``max`` and ``sum``)


def _few_max(x: np.ndarray) -> float | None:
    """The max of a 1-D array of at most 16 elements as a Python float: cheaper than a
    ufunc's reduction, and equal to it (with or without ``initial=-inf``) but for the sign
    of a zero, which none of the softmax family's later steps can tell (a max of either
    zero gives a sum of at least 2 when both are there). None for more elements, and for a
    nan, which Python's ``max`` does not propagate (the sum is nan then, as it is for
    ``inf - inf``, whose max is inf either way)."""
    if len(x) > 16:
        return None
    elements = x.tolist()
    total = _py_sum(elements)
    return _py_max(elements) if total == total else None


def _lean_logsumexp(self: Tensor, keepdim: bool) -> Tensor | None:
    """``logsumexp`` of a non-empty 1-D tensor on the lean path (Note [Lean paths]
    in ``operands.py``): the general path's steps on the flat buffer, with the max a scalar,
    into the result's own buffer (the same operations, so the same bits)."""
    x = lean_data(self)
    if x is None:
        return None
    m = _few_max(x)
    if m is None:
        m = np.maximum.reduce(x)
    if m == _INF or m == -_INF:  # np.isinf, without a ufunc call on a scalar
        m = 0.0
    try:
        values = QUIET_RUN(_log_sum_exp, x, m)
    except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
        values = quiet_call(_log_sum_exp, x, m)
    return fresh_result(values, (1,), (1,)) if keepdim else fresh_result(values, (), ())


def _log_sum_exp(x: np.ndarray, m: float) -> np.ndarray:
    """``_lean_logsumexp``'s NumPy calls (run quietly), into a one-element array. (New
    arrays: NumPy writes into a one-element array in place more slowly.)"""
    return np.log(np.add.reduce(np.exp(x - m), keepdims=True)) + m


def _lean_logsumexp_dim(self: Tensor, d: int, keepdim: bool) -> Tensor | None:
    """``logsumexp`` over dim ``d`` of an N-d tensor on the lean path (an HMM's
    ``logsumexp(alpha[:, None] + log_a, 0)``): the general path's NumPy calls on the same
    N-d view of the flat buffer, along one axis, into the result's own buffer. The max's
    infinities are replaced only when there are any, so the same bits."""
    x = lean_data(self)
    sizes = self._sizes
    if x is None or not sizes[d] or len(x) == 0:
        return None
    x = x.reshape(sizes)
    kept = d != 0  # (maxima and sums over the first dim broadcast against it as they are)
    try:
        values = QUIET_RUN(_log_sum_exp_dim, x, d, kept)
    except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
        values = quiet_call(_log_sum_exp_dim, x, d, kept)
    shape = sizes[:d] + ((1,) if keepdim else ()) + sizes[d + 1:]
    return fresh_result(values if values.ndim == 1 else values.ravel(), shape, layout(shape)[0])


def _log_sum_exp_dim(x: np.ndarray, d: int, kept: bool) -> np.ndarray:
    """``_lean_logsumexp_dim``'s NumPy calls (run quietly): ``_shifted``'s steps along ``d``."""
    m = np.maximum.reduce(x, d, None, None, kept)
    if m.size <= 64:  # a few maxima: Python's test is cheaper than a ufunc's
        total = _py_sum(m.ravel().tolist())
        infinite = total - total != 0  # (or a nan: then the where changes nothing)
    else:
        total = np.add.reduce(m, None)
        infinite = total - total != 0  # (or a nan: then the where changes nothing)
    if infinite:  # _shifted's where
        m = np.where(np.isinf(m), 0, m).astype(x.dtype)
    shifted = x - m
    return np.log(np.add.reduce(np.exp(shifted, out=shifted), d, None, None, kept)) + m


def logsumexp(self: Tensor, dim: Any, keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:
    """``log(sum(exp(self), dim))``, computed stably (PyTorch's algorithm: shift by the max)."""
    if out is not None:  # (out_arg.py; an integer input computed in a float ``out``'s dtype, as PyTorch)
        if isinstance(out, Tensor) and self.dtype not in dtypes.FLOATING and out.dtype in dtypes.FLOATING:
            self = self.to(out.dtype)  # type: ignore[attr-defined]
        return into_out("logsumexp", out, logsumexp, (self, dim, keepdim))
    if dim.__class__ is int:
        ndim = len(self._sizes)
        d = 0  # the dim reduced: the node's dims are set when not the class default (0,)
        if ndim == 1 and (dim == 0 or dim == -1) and self._sizes[0]:
            out = _lean_logsumexp(self, keepdim)
        elif ndim > 1 and -ndim <= dim < ndim:
            d = dim % ndim
            out = _lean_logsumexp_dim(self, d, keepdim)
        else:
            out = None
        if out is not None:
            if needs_grad(self):
                node = LogsumexpBackward0()
                if d:
                    node.dims = (d,)
                if keepdim:
                    node.keepdim = keepdim
                record(node, (self,), (out,))
                node.save_input_result(self, out)
            return out
    dims = reduce_dims("logsumexp", self, dim)
    x = self._numpy()
    if x.dtype not in dtypes.FLOATING:
        x = x.astype(dtypes.DEFAULT_FLOAT)
    token = QUIET.set(IGNORE_ALL)
    try:
        shifted, m = _shifted(x, dims)
        values = np.log(np.add.reduce(np.exp(shifted), axis=dims, keepdims=True)) + m
    finally:
        QUIET.reset(token)
    if not keepdim:
        values = values.reshape([s for d, s in enumerate(self._sizes) if d not in dims])
    out = from_result(values, x.dtype)
    if needs_grad(self):
        node = LogsumexpBackward0()
        node.dims, node.keepdim = dims, keepdim
        record(node, (self,), (out,))
        node.save_input_result(self, out)
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.reduce("logsumexp", out, self, dims, keepdim)
    return out
