"""Products built from differentiable pieces: ``outer``, ``tensordot``, ``kron``, ``cross``,
and the fused ``beta * input + alpha * product`` family (``addmm``, ``addmv``, ``baddbmm``,
``addbmm``). The first ones need no node of their own: their gradients (and gradients of
gradients) come from ``mul``, the matrix products and the views they are made of;
the fused family records PyTorch's one node per op (``AddmmBackward0``, ...), whose
gradients are matrix products again.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import dtypes
from .._warn_once import warn_once
from ..autograd.grad_mode import no_grad
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..geometry import broadcast_shapes
from ..geometry import views as vg
from ..tensor import Tensor
from .operands import from_result
from .compare import where
from .elementwise import add, mul, sub
from .inplace_result import write_result
from .linalg import _unsafe_view, bmm, dot, mm, mv
from .reduction import sum as sum_
from .stacking import stack


def _tensor_arg(op: str, name: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be a Tensor, got {type(x).__name__}")
    return x


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """``input[i] * vec2[j]``: the outer product of two 1-D tensors (types promote)."""
    _tensor_arg("outer", "input", input)
    _tensor_arg("outer", "vec2", vec2)
    for name, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return mul(input.unsqueeze(1), vec2)  # type: ignore[attr-defined]


ger = outer


def _tensordot_dims(a: Tensor, b: Tensor, dims: Any) -> tuple[list[int], list[int]]:
    if isinstance(dims, int) or (isinstance(dims, Tensor) and dims.ndim == 0):
        n = int(dims.item() if isinstance(dims, Tensor) else dims)  # type: ignore[attr-defined]
        if n < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={n}")
        if n > a.ndim or n > b.ndim:
            raise RuntimeError(
                f"tensordot expects dims < ndim_a or ndim_b, but got dims={n} for tensors of "
                f"{a.ndim} and {b.ndim} dims"
            )
        return list(range(a.ndim - n, a.ndim)), list(range(n))
    if not isinstance(dims, (list, tuple)) or len(dims) != 2:
        raise RuntimeError(f"tensordot: dims must be an int or a pair of lists of dims, got {dims!r}")
    da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(da) != len(db):
        raise RuntimeError(
            f"both dimension lists should have same length, got {len(da)} and {len(db)}"
        )
    wrap = []
    for ds, t, which in ((da, a, "first"), (db, b, "second")):
        out = []
        for d in ds:
            if not -t.ndim <= d < max(t.ndim, 1):
                raise IndexError(
                    f"tensordot: dimension {d} of the {which} tensor is out of range "
                    f"(expected to be in range of [{-t.ndim}, {t.ndim - 1}])"
                )
            out.append(d % t.ndim)
        wrap.append(out)
    return wrap[0], wrap[1]


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: None = None) -> Tensor:
    """Contract ``a``'s dims ``dims[0]`` with ``b``'s ``dims[1]`` (or the last ``dims`` of
    ``a`` with the first ``dims`` of ``b``); the free dims of ``a`` then ``b`` remain."""
    _tensor_arg("tensordot", "a", a)
    _tensor_arg("tensordot", "b", b)
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"both inputs should have same dtype, got {a.dtype.name} and {b.dtype.name}"
        )
    da, db = _tensordot_dims(a, b, dims)
    # recorded as PyTorch's: contracted dims of size 1 on one side are summed on the other at
    # once; the operands permuted (free dims, then contracted ones) and reshaped into one mm,
    # or, when nothing is left free, a dot (a mul and a sum when they are not contiguous)
    t1, t2, csize = a, b, 1
    for x, y in zip(da, db):
        s1, s2 = a._sizes[x], b._sizes[y]
        if s2 == 1:
            t1 = sum_(t1, x, keepdim=True, dtype=t1.dtype)
        elif s1 == 1:
            t2 = sum_(t2, y, keepdim=True, dtype=t2.dtype)
        elif s1 != s2:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {s1} in dim {x} and second "
                f"has size {s2} in dim {y}"
            )
        else:
            csize *= s1
    free1 = [i for i in range(a.ndim) if i not in da]
    free2 = [i for i in range(b.ndim) if i not in db]
    rsizes = tuple(t1._sizes[i] for i in free1) + tuple(t2._sizes[i] for i in free2)
    size1, size2 = _prod(t1._sizes[i] for i in free1), _prod(t2._sizes[i] for i in free2)
    t1 = t1.permute(free1 + da)  # type: ignore[attr-defined]
    t2 = t2.permute(db + free2)  # type: ignore[attr-defined]
    if size1 != 1 or size2 != 1:
        return mm(t1.reshape(size1, csize), t2.reshape(csize, size2)).reshape(rsizes)  # type: ignore[no-any-return]
    if t1.is_contiguous() and t2.is_contiguous():
        return dot(t1.flatten(), t2.flatten()).reshape(rsizes)  # type: ignore[no-any-return]
    return sum_(mul(t1.squeeze(), t2.squeeze()), dtype=t1.dtype).reshape(rsizes)  # type: ignore[no-any-return]


def _prod(sizes: Any) -> int:
    out = 1
    for s in sizes:
        out *= s
    return out


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: block ``(i, j, ...)`` of the result is ``input[i, j, ...] * other``."""
    _tensor_arg("kron", "input", input)
    _tensor_arg("kron", "other", other)
    n = max(input.ndim, other.ndim)
    sa = (1,) * (n - input.ndim) + input._sizes
    sb = (1,) * (n - other.ndim) + other._sizes
    a = _seen_as(input, tuple(x for s in sa for x in (s, 1)))
    b = _seen_as(other, tuple(x for s in sb for x in (1, s)))
    return _seen_as(mul(a, b), tuple(x * y for x, y in zip(sa, sb)))


def _seen_as(t: Tensor, sizes: tuple[int, ...]) -> Tensor:
    """``t`` with ``sizes`` as PyTorch's ``kron`` sees its operands and its product: an
    ``_unsafe_view`` (``UnsafeViewBackward0``); a copy where the strides allow no view
    (PyTorch raises there)."""
    strides = vg.view_strides(t._sizes, t._strides, sizes)
    if strides is None:
        return t.reshape(sizes)  # type: ignore[attr-defined,no-any-return]
    return _unsafe_view(t, sizes, strides)


def _cross(op: str, input: Tensor, other: Tensor, dim: int) -> Tensor:
    _tensor_arg(op, "input", input)
    _tensor_arg(op, "other", other)
    if input.ndim != other.ndim:
        raise RuntimeError(f"{op}: inputs must have the same number of dimensions.")
    if input.dtype != other.dtype:
        raise RuntimeError(
            f"{op}: expected both inputs to have the same dtype, got {input.dtype.name} and "
            f"{other.dtype.name}"
        )
    shape = broadcast_shapes(input._sizes, other._sizes)
    if not -len(shape) <= dim < max(len(shape), 1):
        raise IndexError(
            f"{op}: Dimension out of range (expected to be in range of [{-len(shape)}, "
            f"{len(shape) - 1}], but got {dim})"
        )
    if input._sizes[dim] != 3 or other._sizes[dim] != 3:
        raise RuntimeError(
            f"{op}: inputs dimension {dim} must have length 3. Got {input._sizes[dim]} and "
            f"{other._sizes[dim]}"
        )
    with no_grad():
        a = input.expand(shape).unbind(dim)  # type: ignore[attr-defined]
        b = other.expand(shape).unbind(dim)  # type: ignore[attr-defined]
        parts = [sub(mul(a[(i + 1) % 3], b[(i + 2) % 3]), mul(a[(i + 2) % 3], b[(i + 1) % 3])) for i in range(3)]
        out = stack(parts, dim)
    if needs_grad(input, other):
        node = LinalgCrossBackward0(dim)
        record(node, (input, other), (out,))
        node.save(input, other)
    return out


class LinalgCrossBackward0(SavingNode):
    """Backward of ``cross``: ``other x grad`` to ``input``, ``grad x input`` to ``other``
    (the engine sums them back over broadcast dims)."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        x, y = self.unpack()
        return (_cross("linalg.cross", y, g, self.dim) if self.needs_input_grad(0) else None,  # type: ignore[arg-type]
                _cross("linalg.cross", g, x, self.dim) if self.needs_input_grad(1) else None)  # type: ignore[arg-type]


def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """``torch.linalg.cross``: the cross product of 3-vectors along ``dim`` (broadcast)."""
    return _cross("linalg.cross", input, other, dim)


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """``torch.cross``: as ``linalg.cross``, but without ``dim`` it takes the first dim of
    size 3 (PyTorch's deprecated default)."""
    if dim is None and isinstance(input, Tensor) and isinstance(other, Tensor):
        warn_once(_CROSS_DIM_WARNING)
        shape = broadcast_shapes(input._sizes, other._sizes)
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return _cross("linalg.cross", input, other, -1 if dim is None else dim)


_CROSS_DIM_WARNING = (  # PyTorch's, once per process
    "Using torch.cross without specifying the dim arg is deprecated.\n"
    "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
    "The default value of dim will change to agree with that of linalg.cross in a future release.")


# -- beta * input + alpha * product: one node each, as PyTorch ---------------------------------
def _scaled(t: Tensor, factor: Any) -> Tensor:
    """PyTorch's ``maybe_multiply``: ``t`` itself when ``factor`` is 1, else ``t * factor``."""
    return t if factor == 1 else mul(t, factor)


class _FusedBackward(SavingNode):
    """Backward of ``beta * input + alpha * product(a, b)``: ``beta * grad`` to ``input`` (the
    engine sums it back to ``input``'s shape; zeros when ``beta`` is 0, as PyTorch's),
    ``alpha`` times the product's own gradient to ``a`` and ``b``. Saves ``a`` (when ``b``
    needs a gradient), ``b`` (when ``a`` does), ``alpha``, ``beta`` and the operands' sizes."""

    def __init__(self, alpha: Any, beta: Any) -> None:
        super().__init__()
        self.alpha, self.beta = alpha, beta

    def record_inputs(self, input: Tensor, a: Tensor, b: Tensor, out: Tensor) -> None:
        record(self, (input, a, b), (out,))
        self.save(a if self.needs_input_grad(2) else None, b if self.needs_input_grad(1) else None,
                  self.alpha, self.beta, a._sizes, b._sizes)

    def product_grads(self, g: Tensor, a: Tensor, b: Tensor) -> tuple[Tensor | None, Tensor | None]:
        raise NotImplementedError

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        a, b, alpha, beta, _, _ = self.unpack()
        ga, gb = self.product_grads(g, a, b)  # type: ignore[arg-type]
        return (_scaled(g, beta) if self.needs_input_grad(0) else None,
                None if ga is None else _scaled(ga, alpha), None if gb is None else _scaled(gb, alpha))


class AddmmBackward0(_FusedBackward):
    def product_grads(self, g: Tensor, a: Tensor, b: Tensor) -> tuple[Tensor | None, Tensor | None]:
        return (mm(g, b.t()) if self.needs_input_grad(1) else None,  # type: ignore[attr-defined]
                mm(a.t(), g) if self.needs_input_grad(2) else None)  # type: ignore[attr-defined]


class AddmvBackward0(_FusedBackward):
    def product_grads(self, g: Tensor, a: Tensor, b: Tensor) -> tuple[Tensor | None, Tensor | None]:
        return (outer(g, b) if self.needs_input_grad(1) else None,
                mv(a.t(), g) if self.needs_input_grad(2) else None)  # type: ignore[attr-defined]


class BaddbmmBackward0(_FusedBackward):
    def product_grads(self, g: Tensor, a: Tensor, b: Tensor) -> tuple[Tensor | None, Tensor | None]:
        return (bmm(g, b.transpose(1, 2)) if self.needs_input_grad(1) else None,  # type: ignore[attr-defined]
                bmm(a.transpose(1, 2), g) if self.needs_input_grad(2) else None)  # type: ignore[attr-defined]


class AddbmmBackward0(_FusedBackward):
    """(The gradient of the summed batch product is ``grad`` repeated over the batch.)"""

    def product_grads(self, g: Tensor, a: Tensor, b: Tensor) -> tuple[Tensor | None, Tensor | None]:
        sa, sb = self.unpack()[4:]
        spread = g.unsqueeze(0).expand(sa[0], sa[1], sb[2])  # type: ignore[attr-defined]
        return (bmm(spread, b.transpose(1, 2)) if self.needs_input_grad(1) else None,  # type: ignore[attr-defined]
                bmm(a.transpose(1, 2), spread) if self.needs_input_grad(2) else None)  # type: ignore[attr-defined]


def _fused(op: str, input: Tensor, a: Tensor, b: Tensor, product: Any, beta: Any, alpha: Any,
           node: type[_FusedBackward]) -> Tensor:
    """``beta * input + alpha * product(a, b)``; ``input`` is ignored (nan and inf included) when
    ``beta`` is 0, as in PyTorch, but its gradient is then zeros rather than missing."""
    _tensor_arg(op, "input", input)
    if input.dtype != a.dtype:
        raise RuntimeError(
            f"{op}: self and mat2 must have the same dtype, but got {input.dtype.name} and "
            f"{a.dtype.name}"
        )
    if not needs_grad(input, a, b):
        return _fused_values(op, input, a, b, product, beta, alpha)
    with no_grad():
        out = _fused_values(op, input, a, b, product, beta, alpha)
    node(alpha, beta).record_inputs(input, a, b, out)
    return out


def _fused_values(op: str, input: Tensor, a: Tensor, b: Tensor, product: Any, beta: Any, alpha: Any) -> Tensor:
    prod = product(a, b)
    shape = prod._sizes
    if not _broadcasts_to(input._sizes, shape):
        raise RuntimeError(
            f"{op}: the input of shape {list(input._sizes)} can't be broadcast to the product's "
            f"shape {list(shape)}"
        )
    scaled = prod if alpha == 1 else mul(prod, alpha)
    if beta == 0:
        return add(scaled, where(_true(input), 0, input))
    return add(scaled, input if beta == 1 else mul(input, beta))


def _broadcasts_to(src: tuple[int, ...], dst: tuple[int, ...]) -> bool:
    return len(src) <= len(dst) and all(a in (1, b) for a, b in zip(src[::-1], dst[::-1]))


def _true(t: Tensor) -> Tensor:
    return from_result(np.ones(t._sizes, dtype=dtypes.bool_))


def _matrices(op: str, a: Tensor, b: Tensor) -> None:
    for name, t in (("mat1", a), ("mat2", b)):
        if isinstance(t, Tensor) and t.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {t.ndim}-D tensor")


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``."""
    _matrices("addmm", mat1, mat2)
    return _fused("addmm", input, mat1, mat2, mm, beta, alpha, AddmmBackward0)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)``."""
    return _fused("addmv", input, mat, vec, mv, beta, alpha, AddmvBackward0)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * bmm(batch1, batch2)``."""
    return _fused("baddbmm", input, batch1, batch2, bmm, beta, alpha, BaddbmmBackward0)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``."""
    return _fused("addbmm", input, batch1, batch2, lambda a, b: sum_(bmm(a, b), 0), beta, alpha,
                  AddbmmBackward0)


__all__: Sequence[str] = [
    "addbmm", "addmm", "addmv", "baddbmm", "cross", "ger", "kron", "linalg_cross", "multi_dot",
    "outer", "tensordot", "vecdot",
]


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """``sum(x * y, dim)`` with broadcasting (``torch.linalg.vecdot`` for real tensors)."""
    _tensor_arg("linalg.vecdot", "x", x)
    _tensor_arg("linalg.vecdot", "y", y)
    if x.dtype != y.dtype:
        raise RuntimeError(
            f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{x.dtype.name} and y of type {y.dtype.name} instead"
        )
    return sum_(mul(x, y), dim)


def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    """``tensors[0] @ tensors[1] @ ...``: the first may be 1-D (a row), the last 1-D (a
    column), the others must be 2-D (multiplied left to right)."""
    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    for i, t in enumerate(ts):
        _tensor_arg("linalg.multi_dot", f"tensors[{i}]", t)
        end = i in (0, len(ts) - 1)
        if not (t.ndim == 2 or (end and t.ndim == 1)):
            which = "the first tensor" if i == 0 else "the last tensor" if end else f"tensor {i}"
            expected = "1D or 2D" if end else "2D"
            raise RuntimeError(f"multi_dot(): {which} must be {expected} but got {t.ndim}D")
    first, last = ts[0].ndim == 1, ts[-1].ndim == 1
    if first:
        ts[0] = ts[0].unsqueeze(0)  # type: ignore[attr-defined]
    if last:
        ts[-1] = ts[-1].unsqueeze(1)  # type: ignore[attr-defined]
    out = ts[0]
    for t in ts[1:]:
        out = mm(out, t)
    if first:
        out = out.squeeze(0)  # type: ignore[attr-defined]
    if last:
        out = out.squeeze(-1)  # type: ignore[attr-defined]
    return out


# -- in-place variants: the out-of-place node recorded as the write's (``inplace_result``), so
#    views of ``self`` and its base get PyTorch's CopySlices history -------------------------
def addmm_(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return write_result("addmm_", self, addmm(self, mat1, mat2, beta=beta, alpha=alpha), "AddmmBackward0",
                        (mat1, mat2))


def addmv_(self: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return write_result("addmv_", self, addmv(self, mat, vec, beta=beta, alpha=alpha), "AddmvBackward0",
                        (mat, vec))


def baddbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return write_result("baddbmm_", self, baddbmm(self, batch1, batch2, beta=beta, alpha=alpha),
                        "BaddbmmBackward0", (batch1, batch2))


def addbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return write_result("addbmm_", self, addbmm(self, batch1, batch2, beta=beta, alpha=alpha),
                        "AddbmmBackward0", (batch1, batch2))
