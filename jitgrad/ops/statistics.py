"""Reductions beyond ``reduction.py``: ``prod`` (exact with zeros), ``var``/``std`` and
``var_mean``/``std_mean`` (``correction=``/``unbiased=``), ``argmax``/``argmin``,
``any``/``all``, ``count_nonzero``, ``median``/``nanmedian``, ``kthvalue``, ``nansum``,
``nanmean``, ``aminmax``.

Gradients follow PyTorch's formulas: ``prod``'s is ``grad * result / input`` without zeros and
products of the other elements (exclusive cumulative products from both ends) with them;
``var``'s is ``2 / (N - correction) * grad * (x - mean)``; ``std``'s is ``var``'s with
``grad / (2 std)`` (zero where ``std`` is zero); ``median``/``kthvalue`` with ``dim`` give the
gradient to the index they return, the global ``median`` shares it among equal elements.
"""

from __future__ import annotations

import numbers
from typing import Any, NamedTuple

import numpy as np

from .. import dtypes
from ..autograd.grad_mode import no_grad
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..creation import zeros
from ..geometry.strided import wrap_dim
from .._quiet import quiet
from ..tensor import Tensor
from .operands import from_result
from .compare import where
from .elementwise import add, div, mul, sub
from .extremes import MaxBackward0, MaxBackward1, amax, amin, share_among_ties
from .reduction import _restore, mean, reduce_dims
from .reduction import sum as sum_
from .scan import cumprod
from .shape_ops import flip
from .sorting import kth_order
from .stacking import cat
from .structure import to_dtype
from .view_ops import expand, narrow, reshape


class return_types:
    """Named results, as ``torch.return_types``."""

    class median(NamedTuple):
        values: Tensor
        indices: Tensor

    class nanmedian(NamedTuple):
        values: Tensor
        indices: Tensor

    class kthvalue(NamedTuple):
        values: Tensor
        indices: Tensor

    class aminmax(NamedTuple):
        min: Tensor
        max: Tensor


# -- prod ----------------------------------------------------------------------------------------
class ProdBackward0(SavingNode):
    """``prod()`` of everything (``dim`` None) or ``prod(dim)``."""

    def __init__(self, dim: int | None, keepdim: bool) -> None:
        super().__init__()
        self.dim = dim
        self.keepdim = keepdim

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        assert g is not None
        x, result = self.unpack()
        if not x.ndim:
            return (g,)
        sizes = x._sizes
        if self.dim is None:
            g = expand(g, sizes)
            result = expand(result, sizes)
        else:
            g = _restore(g, sizes, (self.dim,), self.keepdim)
            result = _restore(result, sizes, (self.dim,), self.keepdim)
        if not (x._numpy() == 0).any():
            return (mul(g, div(result, x)),)
        if self.dim is None:
            return (mul(g, reshape(_others_product(reshape(x, -1), 0), sizes)),)
        return (mul(g, _others_product(x, self.dim)),)


class ProdBackward1(ProdBackward0):
    pass


def _others_product(x: Tensor, d: int) -> Tensor:
    """For each element, the product of the other elements of its line along ``d``
    (PyTorch's ``prod_safe_zeros_backward``: exclusive cumulative products from both ends)."""
    n = x._sizes[d]
    if n == 0:
        return x
    ones_shape = list(x._sizes)
    ones_shape[d] = 1
    ones = from_result(np.ones(ones_shape, x.dtype))
    left = cumprod(cat([ones, narrow(x, d, 0, n - 1)], d), d)
    right = flip(cumprod(cat([ones, flip(narrow(x, d, 1, n - 1), d)], d), d), d)
    return mul(left, right)


def prod(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The product of all elements, or along ``dim`` (integer and bool inputs give int64)."""
    if dtype is not None:
        input = to_dtype(input, dtypes.to_dtype(dtype, "prod"))
    elif input.dtype not in dtypes.FLOATING:
        input = to_dtype(input, dtypes.int64)
    d = None if dim is None else wrap_dim(dim, input.ndim, "prod")
    with quiet():
        axis = None if d is None or not input.ndim else d
        values = np.prod(input._numpy(), axis=axis, keepdims=keepdim and d is not None)
    out = from_result(np.asarray(values), input.dtype)
    if needs_grad(input):
        node = (ProdBackward0 if d is None else ProdBackward1)(d if input.ndim else None, keepdim)
        record(node, (input,), (out,))
        node.save_input_result(input, out)
    return out


# -- var, std --------------------------------------------------------------------------------------
def _correction(op: str, dim: Any, unbiased: Any, correction: Any) -> tuple[Any, float]:
    """``(dim, correction)`` from PyTorch's overloads (``var(unbiased)``, ``var(dim, unbiased)``,
    ``var(dim, correction=)``)."""
    if isinstance(dim, (bool, np.bool_)):  # var(True): the old unbiased-only overload
        dim, unbiased = None, bool(dim)
    if unbiased is not None and correction is not None:
        raise RuntimeError(f"{op}(): can't pass both unbiased and correction")
    if correction is not None:
        if not isinstance(correction, numbers.Real) or isinstance(correction, bool):
            raise TypeError(f"{op}(): correction must be a number, got {type(correction).__name__}")
        return dim, float(correction)
    return dim, 1.0 if unbiased is None or unbiased else 0.0


class VarBackward0(SavingNode):
    """Saves the input only (as PyTorch's): writing into the result in place is allowed."""

    every_dim = False  # reduced with dim=None (or a 0-d input): PyTorch's special case
    def __init__(self, dims: tuple[int, ...], correction: float, keepdim: bool) -> None:
        super().__init__()
        self.dims = dims
        self.correction = correction
        self.keepdim = keepdim

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        (x,) = self.unpack()[:1]
        return (_var_backward(grads[0], x, self),)  # type: ignore[arg-type]


class StdBackward0(VarBackward0):
    """Saves the input and the result."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        x, result = self.unpack()
        g = where(from_result(result._numpy() == 0), 0.0, div(grads[0], mul(result, 2)))
        return (_var_backward(g, x, self),)


class _WithMeanBackward:
    """PyTorch's ``var_mean_backward``: one node for both outputs; the input's gradient sums
    the variance's (or standard deviation's) part and the mean's, for those that got one."""

    dims: tuple[int, ...]
    keepdim: bool

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g_moment, g_mean = grads[0], grads[1]
        out = None if g_moment is None else super().apply([g_moment])[0]  # type: ignore[misc]
        if g_mean is not None:
            x = self.unpack()[0]  # type: ignore[attr-defined]
            n = 1
            for d in self.dims:
                n *= x._sizes[d]
            part = div(expand(_restore(g_mean, x._sizes, self.dims, self.keepdim), x._sizes), n)
            out = part if out is None else add(out, part)
        return (out,)


class VarMeanBackward0(_WithMeanBackward, VarBackward0):
    pass


class StdMeanBackward0(_WithMeanBackward, StdBackward0):
    pass


def _var_backward(g: Tensor, x: Tensor, node: VarBackward0) -> Tensor:
    dims = node.dims
    n = 1
    for d in dims:
        n *= x._sizes[d]
    dof = n - node.correction  # not clamped at 0 here (the forward clamps), as PyTorch
    g = _restore(g, x._sizes, dims, node.keepdim)
    if node.every_dim and dof <= 0:  # PyTorch's constant: nan where x is its mean, else inf
        xv = x._numpy()
        flat = np.where(xv == xv.mean(), np.nan, np.inf)
        return mul(g, from_result(flat, g.dtype))
    scale = 2.0 / dof if dof else float("inf")
    return mul(mul(g, scale), sub(x, mean(x, dims, keepdim=True)))


def _moments(
    op: str, input: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any, root: bool,
    with_mean: bool = False,
) -> Any:
    if input.dtype not in dtypes.FLOATING:
        which = op if with_mean else "std and var"  # PyTorch's wording for each
        raise RuntimeError(
            f"{op}(): {which} only support floating point and complex dtypes, got "
            f"{input.dtype.name}"
        )
    mean_dim = None if isinstance(dim, bool) else dim
    dim, c = _correction(op, dim, unbiased, correction)
    dims = reduce_dims(op, input, dim)
    x = input._numpy()
    n = 1
    for d in dims:
        n *= input._sizes[d]
    with quiet():
        dev = x - np.mean(x, axis=dims, keepdims=True)
        total = np.sum(dev * dev, axis=dims, keepdims=keepdim)
        values = np.true_divide(total, max(0.0, n - c), dtype=input.dtype)
        if root:
            values = np.sqrt(values)
    out = from_result(np.asarray(values), input.dtype)
    outs: tuple[Tensor, ...] = (out,)
    if with_mean:
        with no_grad():
            outs = (out, mean(input, mean_dim, keepdim))
    if needs_grad(input):
        if with_mean:
            node: VarBackward0 = (StdMeanBackward0 if root else VarMeanBackward0)(dims, c, keepdim)
        else:
            node = (StdBackward0 if root else VarBackward0)(dims, c, keepdim)
        node.every_dim = dim is None or not input.ndim
        record(node, (input,), outs)
        if root:
            node.save_input_result(input, out)
        else:
            node.save(input)
    return outs if with_mean else out


def var(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    """The variance over ``dim`` with Bessel's ``correction`` (1 unless ``unbiased=False``)."""
    return _moments("var", input, dim, unbiased, keepdim, correction, root=False)


def std(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    return _moments("std", input, dim, unbiased, keepdim, correction, root=True)


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:
    """``(var, mean)`` from one node, ``VarMeanBackward0``, as in PyTorch."""
    return _moments("var_mean", input, dim, unbiased, keepdim, correction, root=False, with_mean=True)  # type: ignore[no-any-return]


def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:
    """``(std, mean)`` from one node, ``StdMeanBackward0``, as in PyTorch."""
    return _moments("std_mean", input, dim, unbiased, keepdim, correction, root=True, with_mean=True)  # type: ignore[no-any-return]


# -- argmax, argmin, any, all, count_nonzero ---------------------------------------------------------
def _arg(op: str, input: Tensor, dim: Any, keepdim: bool) -> Tensor:
    fn = np.argmax if op == "argmax" else np.argmin
    if dim is None:
        if not input.numel():
            raise IndexError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0.")
        flat = int(fn(input._numpy().reshape(-1)))
        shape = (1,) * input.ndim if keepdim else ()
        return from_result(np.full(shape, flat, np.int64))
    d = wrap_dim(dim, input.ndim, op)
    if not input.ndim:
        return from_result(np.zeros((), np.int64))
    if input._sizes[d] == 0:
        raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
    return from_result(np.asarray(fn(input._numpy(), axis=d, keepdims=keepdim)), dtypes.int64)


def argmax(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The index of the (first) maximum, of the flattened tensor when ``dim`` is None (a nan
    counts as the maximum)."""
    return _arg("argmax", input, dim, keepdim)


def argmin(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return _arg("argmin", input, dim, keepdim)


def _logical(op: str, fn: Any, input: Tensor, dim: Any, keepdim: bool) -> Tensor:
    dims = reduce_dims(op, input, dim)
    values = fn(input._numpy().astype(np.bool_), axis=dims, keepdims=keepdim and dim is not None)
    return from_result(np.asarray(values), dtypes.bool_)


def any(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """Whether any element (along ``dim``) is non-zero (a bool tensor)."""
    return _logical("any", np.any, input, dim, keepdim)


def all(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    return _logical("all", np.all, input, dim, keepdim)


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    dims = reduce_dims("count_nonzero", input, dim)
    return from_result(np.asarray(np.count_nonzero(input._numpy(), axis=dims)), dtypes.int64)


# -- median, nanmedian, kthvalue -----------------------------------------------------------------
class MedianBackward0(MaxBackward1):
    """Global ``median()``: the gradient shared among the elements equal to the result."""


class NanmedianBackward0(MaxBackward1):
    pass


class MedianBackward1(MaxBackward0):
    """``median(dim)``: the gradient goes to the returned index."""


class NanmedianBackward1(MaxBackward0):
    pass


class KthvalueBackward0(MaxBackward0):
    pass


def _kth_along(x: np.ndarray, d: int, k: Any, ignore_nan: bool) -> tuple[np.ndarray, np.ndarray]:
    """Values and indices of the ``k``-th smallest (0-based; an array per line, or a function
    of the line's nan count) along ``d``; a line with a nan gives that nan (unless
    ``ignore_nan``)."""
    order = np.argsort(x, axis=d, kind="stable")  # nans last, in their original order
    nans = np.sum(np.isnan(x) if x.dtype.kind == "f" else np.zeros(x.shape, np.bool_), axis=d, keepdims=True)
    n = x.shape[d]
    if callable(k):
        pos = k(n - nans if ignore_nan else np.full_like(nans, n))
    else:
        pos = np.full_like(nans, k)
    if not ignore_nan:  # the first nan, when there is one
        pos = np.where(nans > 0, n - nans, pos)
    pos = np.clip(pos, 0, n - 1)
    idx = np.take_along_axis(order, pos, axis=d)
    return np.take_along_axis(x, idx, axis=d), idx


def _pytorch_kth(x: np.ndarray, d: int, k: Any, ignore_nan: bool) -> tuple[np.ndarray, np.ndarray]:
    """``_kth_along`` for ``kthvalue``: the element PyTorch's CPU quickselect picks among ties
    (and nan the largest)."""
    idx = kth_order(x, d, k)
    return np.take_along_axis(x, idx, axis=d), idx


def _selected(
    op: str, node_cls: type, input: Tensor, d: int, keepdim: bool, k: Any, ignore_nan: bool, along: Any = _kth_along
) -> tuple[Tensor, Tensor]:
    if not input.ndim:
        values, idx = input._numpy(), np.zeros((), np.int64)
    else:
        if input._sizes[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
        values, idx = along(input._numpy(), d, k, ignore_nan)
        if not keepdim:
            values, idx = np.squeeze(values, d), np.squeeze(idx, d)
    out = from_result(np.asarray(values), input.dtype)
    indices = from_result(np.asarray(idx), dtypes.int64)
    if needs_grad(input):
        node = node_cls(input._sizes, d, keepdim)
        record(node, (input,), (out,))
        node.save(indices)
    return out, indices


def _global_median(op: str, node_cls: type, input: Tensor, ignore_nan: bool) -> Tensor:
    flat = input._numpy().reshape(-1)
    if flat.size:
        values, _ = _kth_along(flat, 0, lambda m: (m - 1) // 2, ignore_nan)
    else:  # the median of nothing is nan, as in PyTorch
        values = np.full((), np.nan)
    out = from_result(values.reshape(()), input.dtype)
    if needs_grad(input):
        node = node_cls()
        record(node, (input,), (out,))
        node.save_input_result(input, out)
    return out


def median(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """The lower median of all elements (nan if there is one), or ``(values, indices)``
    along ``dim``."""
    if dim is None:
        return _global_median("median", MedianBackward0, input, ignore_nan=False)
    d = wrap_dim(dim, input.ndim, "median")
    lower = _selected("median", MedianBackward1, input, d, keepdim, lambda m: (m - 1) // 2, False)
    return return_types.median(*lower)


def nanmedian(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """``median`` ignoring nans (nan only where everything is nan)."""
    if dim is None:
        return _global_median("nanmedian", NanmedianBackward0, input, ignore_nan=True)
    d = wrap_dim(dim, input.ndim, "nanmedian")
    lower = _selected(
        "nanmedian", NanmedianBackward1, input, d, keepdim, lambda m: np.maximum(m - 1, 0) // 2, True
    )
    return return_types.nanmedian(*lower)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    """``(values, indices)`` of the ``k``-th smallest element (1-based) along ``dim``."""
    d = wrap_dim(dim, input.ndim, "kthvalue")
    n = (input._sizes or (1,))[d]
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d} (got k={k}, size {n})")
    return return_types.kthvalue(*_selected("kthvalue", KthvalueBackward0, input, d, keepdim, k - 1, True,
                                            _pytorch_kth))


# -- nansum, nanmean, aminmax ---------------------------------------------------------------------
def _not_nan(input: Tensor) -> Tensor:
    return input.masked_fill(from_result(np.isnan(input._numpy())), 0)  # type: ignore[attr-defined]


class NansumBackward0(SavingNode):
    """Backward of ``nansum``: the gradient back over the reduced dims, times ``not isnan(x)``
    (a product, as PyTorch's: a negative gradient gives -0.0 at a nan)."""

    def __init__(self, dims: tuple[int, ...], keepdim: bool) -> None:
        super().__init__()
        self.dims, self.keepdim = dims, keepdim

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        (x,) = self.unpack()
        g = expand(_restore(grads[0], x._sizes, self.dims, self.keepdim), x._sizes)
        return (mul(g, from_result(~np.isnan(x._numpy()))),)


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """``sum`` treating nans as zero (``NansumBackward0``, as PyTorch)."""
    if input.dtype not in dtypes.FLOATING:
        return sum_(input, dim, keepdim, dtype=dtype)
    with no_grad():
        out = sum_(_not_nan(input), dim, keepdim, dtype=dtype)
    if needs_grad(input):
        node = NansumBackward0(reduce_dims("nansum", input, dim), keepdim)
        record(node, (input,), (out,))
        node.save(input)
    return out


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """``mean`` of the elements that are not nan."""
    if input.dtype not in dtypes.FLOATING:
        raise RuntimeError(f"nanmean(): expected a float input, got {input.dtype.name}")
    dims = reduce_dims("nanmean", input, dim)
    count = np.sum(~np.isnan(input._numpy()), axis=dims, keepdims=keepdim)
    total = nansum(input, dim, keepdim, dtype=dtype)
    return div(total, from_result(np.asarray(count), total.dtype))


class AminmaxBackward0(SavingNode):
    """Backward of ``aminmax`` (one node, two outputs): each output's gradient shared among
    the elements equal to it, as ``amin``'s and ``amax``'s, added to zeros (PyTorch's
    ``aminmax_backward``: a -0.0 share becomes 0.0)."""

    def __init__(self, dims: tuple[int, ...], keepdim: bool) -> None:
        super().__init__()
        self.dims, self.keepdim = dims, keepdim

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        x, low, high = self.unpack()
        out = zeros(x._sizes, dtype=x.dtype)
        for g, result in ((grads[0], low), (grads[1], high)):
            if g is not None:
                out = add(out, share_among_ties(g, x, result, self.dims, self.keepdim))
        return (out,)


def aminmax(input: Tensor, *, dim: Any = None, keepdim: bool = False) -> Any:
    reduced = () if dim is None else dim
    with no_grad():
        low, high = amin(input, reduced, keepdim), amax(input, reduced, keepdim)
    if needs_grad(input):
        node = AminmaxBackward0(reduce_dims("aminmax", input, reduced), keepdim)
        record(node, (input,), (low, high))
        node.save(input, low, high, outputs=(low, high))
    return return_types.aminmax(low, high)
