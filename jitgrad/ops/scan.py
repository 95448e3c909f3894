"""Scans along one dim: ``cumsum``, ``cumprod``, ``cummax``, ``cummin``, ``logcumsumexp``,
and ``cumsum_``/``cumprod_``.

Backward formulas follow PyTorch's (``FunctionsManual.cpp``): ``cumsum``'s is the reversed
cumulative sum; ``cumprod``'s is ``reversed_cumsum(grad * result) / input`` before the first
zero of each line and, at that zero, the reversed cumulative sum of ``grad`` times the
products that skip it (elements after the first zero get nothing); ``cummax``/``cummin``
scatter-add the gradient at the returned indices; ``logcumsumexp``'s splits the gradient by
sign and works in log space. All are written in jitgrad ops, so double backward works.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import dtypes
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..geometry.strided import wrap_dim
from .._quiet import quiet
from ..tensor import Tensor
from .operands import from_result
from .compare import where
from .elementwise import add, div, mul, sub
from .gather_scatter import along_index
from .index_ops import index_put_zeros
from .inplace_result import write_result
from .shape_ops import flip
from .reduction import sum as sum_
from .stacking import cat, stack
from .structure import clone, to_dtype
from .view_ops import narrow
from .pointwise import abs as abs_
from .pointwise import exp, log


def _scan_dtype(op: str, input: Tensor, dtype: Any) -> Tensor:
    """``input`` converted to ``dtype`` if given; integer and bool inputs scan as int64."""
    if dtype is not None:
        return to_dtype(input, dtypes.to_dtype(dtype, op))
    if input.dtype not in dtypes.FLOATING:
        return to_dtype(input, dtypes.int64)
    return input


def _axis(op: str, input: Tensor, dim: Any) -> int:
    return wrap_dim(dim, input.ndim, op)


def _lines(x: np.ndarray, d: int) -> np.ndarray:
    return x if x.ndim else x.reshape(1)


def reversed_cumsum(g: Tensor, d: int) -> Tensor:
    """``sum_{k >= i} g_k`` along ``d``."""
    return flip(cumsum(flip(g, d), d), d)


class ScanNode(SavingNode):
    """A scan's backward node: remembers the (non-negative) dim it scanned along."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim


# -- cumsum ------------------------------------------------------------------------------------
class CumsumBackward0(ScanNode):
    """``reversed_cumsum(grad)``, computed in the input's dtype (``cumsum(dtype=)`` converts
    the gradient first, as PyTorch)."""

    input_dtype: np.dtype | None = None

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        assert g is not None
        if self.input_dtype is not None and g.dtype != self.input_dtype:
            g = to_dtype(g, self.input_dtype)
        return (reversed_cumsum(g, self.dim) if g.ndim else g,)


def _running(op: str, np_scan: Any, input: Tensor, dim: int, dtype: Any) -> tuple[int, Tensor, Tensor]:
    """``(dim, the input in the scan's dtype, np_scan of it along dim)`` for cumsum/cumprod."""
    d = _axis(op, input, dim)
    x = _scan_dtype(op, input, dtype)
    with quiet():
        values = np_scan(_lines(x._numpy(), d), axis=d).reshape(x._sizes)
    return d, x, from_result(values, x.dtype)


def cumsum(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Running sums along ``dim`` (integer and bool inputs give int64)."""
    d, x, out = _running("cumsum", np.cumsum, input, dim, dtype)
    source = input if input.dtype in dtypes.FLOATING else x
    if needs_grad(source):
        node = CumsumBackward0(d)
        node.input_dtype = source.dtype
        record(node, (source,), (out,))
    return out


def cumsum_(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return write_result("cumsum_", self, to_dtype(cumsum(self, dim, dtype=dtype), self.dtype), "CumsumBackward0")


# -- cumprod -----------------------------------------------------------------------------------
class CumprodBackward0(ScanNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        assert g is not None
        x, result = self.unpack()
        if not x.ndim or not x.numel():
            return (g,)
        return (cumprod_backward(g, x, result, self.dim),)


def cumprod_backward(g: Tensor, x: Tensor, result: Tensor, d: int) -> Tensor:
    """The gradient of ``cumprod(x, d)`` (see the module docstring)."""
    if x._sizes[d] == 1:
        return g
    zero = x._numpy() == 0
    if not zero.any():
        return div(reversed_cumsum(mul(g, result), d), x)
    if is_grad_enabled():  # differentiable again: PyTorch's O(n^2) omitted products
        return _omitted_products_backward(g, x, result, d)
    seen = np.cumsum(zero, axis=d)
    before = from_result(seen == 0)           # strictly before the first zero of the line
    first = from_result(zero & (seen == 1))   # the first zero itself
    safe = where(before, x, 1.0)
    part = where(before, div(reversed_cumsum(mul(g, result), d), safe), 0.0)
    skip = cumprod(where(first, 1.0, x), d)   # products of the line without its first zero
    return add(part, where(first, reversed_cumsum(mul(g, skip), d), 0.0))


def _omitted_products_backward(g: Tensor, x: Tensor, result: Tensor, d: int) -> Tensor:
    """``grad_k = sum_{j >= k} g_j prod_{i <= j, i != k} x_i`` one ``k`` at a time, every
    product written as jitgrad ops, so its own gradient is cumprod's second derivative."""
    n = x._sizes[d]
    ones_shape = list(x._sizes)
    ones_shape[d] = 1
    ones = from_result(np.ones(ones_shape, x.dtype))
    slices = []
    for k in range(n):
        until = narrow(result, d, k - 1, 1) if k else ones  # prod(x[:k])
        if k < n - 1:
            after = cumprod(narrow(x, d, k + 1, n - k - 1), d)
            omitted = cat([until, mul(until, after) if k else after], d)
        else:
            omitted = until
        slices.append(sum_(mul(narrow(g, d, k, n - k), omitted), d))
    return stack(slices, d)


def cumprod(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Running products along ``dim`` (integer and bool inputs give int64)."""
    d, x, out = _running("cumprod", np.cumprod, input, dim, dtype)
    if needs_grad(x):
        node = CumprodBackward0(d)
        record(node, (x,), (out,))
        node.save_input_result(x, out)
    return out


def cumprod_(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    # the backward saves its input: give it a copy, the write changes self's version
    source = clone(self) if needs_grad(self) else self
    # (CumprodBackward0 saving ``self`` after the write as its result: ops/inplace_result.py)
    return write_result("cumprod_", self, to_dtype(cumprod(source, dim, dtype=dtype), self.dtype),
                        "CumprodBackward0", saves_result=True)


# -- cummax, cummin ------------------------------------------------------------------------------
class return_types:
    class cummax(NamedTuple):
        values: Tensor
        indices: Tensor

    class cummin(NamedTuple):
        values: Tensor
        indices: Tensor


class CummaxBackward0(ScanNode):
    """The gradient scatter-added at the indices the forward returned."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        assert g is not None
        _, indices, _ = self.unpack()
        if not g.ndim:
            return (g,)
        return (index_put_zeros(g, g._sizes, along_index(indices._numpy(), self.dim)),)


class CumminBackward0(CummaxBackward0):
    pass


def _cumextreme(op: str, input: Tensor, dim: int) -> Any:
    d = _axis(op, input, dim)
    x = np.moveaxis(_lines(input._numpy(), d), d, 0)
    values = np.empty_like(x)
    indices = np.zeros(x.shape, np.int64)
    better = np.greater_equal if op == "cummax" else np.less_equal
    floating = x.dtype.kind == "f"
    for i in range(x.shape[0]):
        if i == 0:
            values[0], indices[0] = x[0], 0
            continue
        cur, best = x[i], values[i - 1]
        # ties go to the later index; a nan takes over and then stays (as PyTorch)
        take = better(cur, best)
        if floating:
            take = (take | np.isnan(cur)) & ~np.isnan(best)
        values[i] = np.where(take, cur, best)
        indices[i] = np.where(take, i, indices[i - 1])
    out = from_result(np.moveaxis(values, 0, d).reshape(input._sizes))
    idx = from_result(np.moveaxis(indices, 0, d).reshape(input._sizes), dtypes.int64)
    if needs_grad(input):
        node = (CummaxBackward0 if op == "cummax" else CumminBackward0)(d)
        record(node, (input,), (out,))
        node.save(input, idx, dim % 2**64)  # (PyTorch's: the dim as given, read as uint64)
    return getattr(return_types, op)(out, idx)


def cummax(input: Tensor, dim: int) -> Any:
    """``(values, indices)``: the running maximum along ``dim`` and where it was (the last
    index among ties)."""
    return _cumextreme("cummax", input, dim)


def cummin(input: Tensor, dim: int) -> Any:
    return _cumextreme("cummin", input, dim)


# -- logcumsumexp --------------------------------------------------------------------------------
class LogcumsumexpBackward0(ScanNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        assert g is not None
        x, result = self.unpack()
        if not x.ndim or not x.numel():
            return (g,)
        d = self.dim
        lowest = float(np.finfo(g.dtype).min)
        log_abs = log(abs_(g))
        positive = where(from_result(g._numpy() > 0), log_abs, lowest)
        negative = where(from_result(g._numpy() < 0), log_abs, lowest)

        def part(log_grad: Tensor) -> Tensor:
            return exp(add(flip(logcumsumexp(flip(sub(log_grad, result), d), d), d), x))

        return (sub(part(positive), part(negative)),)


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """``log(cumsum(exp(input), dim))``, computed stably."""
    d = _axis("logcumsumexp", input, dim)
    x = input if input.dtype in dtypes.FLOATING else to_dtype(input, dtypes.DEFAULT_FLOAT)
    with quiet():
        values = np.logaddexp.accumulate(_lines(x._numpy(), d), axis=d).reshape(x._sizes)
    out = from_result(values, x.dtype)
    if needs_grad(x):
        node = LogcumsumexpBackward0(d)
        record(node, (x,), (out,))
        node.save_input_result(x, out)
    return out
