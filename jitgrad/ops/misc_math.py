"""``heaviside`` (not differentiable, as PyTorch), ``vdot`` (``dot`` recorded as
``VdotBackward0``), ``pinverse`` (``linalg.pinv`` with ``rcond`` as its ``rtol``),
``fill_diagonal_``, ``unique_consecutive``, ``nextafter``, ``mvlgamma``, ``sum_to_size``."""

from __future__ import annotations

from typing import Any


from ..autograd.grad_mode import no_grad
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..tensor import Tensor
from .compare import eq, gt, where
from .decompositions import check_float
from .gather_scatter import NoFormulaBackward, NotImplementedBackward, record_no_formula
from .inplace_result import write_result
from .linalg import DotBackward0, dot


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """1 where ``input > 0``, 0 where ``input < 0`` (and NaN), ``values`` where it is 0."""
    for name, x in (("input", input), ("values", values)):
        if not isinstance(x, Tensor):
            raise TypeError(f"heaviside(): argument '{name}' must be Tensor, not {type(x).__name__}")
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    with no_grad():
        out = where(eq(input, 0), values, gt(input, 0).to(input.dtype))  # type: ignore[attr-defined]
    if needs_grad(input, values):
        record(NotImplementedBackward("heaviside"), (input, values), (out,))
    return out


class VdotBackward0(DotBackward0):
    pass


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """``dot`` (the conjugation of complex ``input`` is moot for real dtypes)."""
    with no_grad():
        out = dot(input, other)
    if needs_grad(input, other):
        VdotBackward0().record(input, other, out)
    return out


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """``linalg.pinv(input, rtol=rcond)``: singular values below ``rcond`` times the largest
    are dropped."""
    from .spectral import pinv

    check_float("pinverse", input)
    return pinv(input, rtol=rcond)


def fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Fill the main diagonal (all dims equal beyond 2-D); ``wrap``: a tall matrix's diagonal
    starts again every ``cols + 1`` rows. ATen's: ``fill_`` through ``as_strided`` views."""
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = self.shape[0], self.shape[1]
    if self.ndim > 2 and any(s != height for s in self.shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    stride = sum(self.stride())  # type: ignore[attr-defined]
    size = min(height, width)
    offset = self.storage_offset()  # type: ignore[attr-defined]
    self.as_strided((size,), (stride,), offset).fill_(fill_value)  # type: ignore[attr-defined]
    if wrap and self.ndim == 2 and height > width + 1:
        step = width + 1
        wrap_size = (self.numel() + step - 1) // step - size
        self.as_strided((wrap_size,), (stride,), offset + self.stride(0) * step).fill_(fill_value)  # type: ignore[attr-defined]
    return self


class UniqueConsecutiveBackward0(NoFormulaBackward):
    aten = "unique_consecutive"


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:
    """The first element of each run of equal elements (slices along ``dim``), with where
    each input element went and each run's length on request. Without a derivative, as in
    PyTorch: the values require grad, backward through them raises."""
    import numpy as np

    from .operands import from_result
    from .sorting import check_flags

    check_flags("unique_consecutive", return_inverse=return_inverse, return_counts=return_counts)

    x = input._numpy()
    if dim is None:
        flat = x.reshape(-1)
        starts = np.ones(flat.shape[0], bool)
        starts[1:] = flat[1:] != flat[:-1]
        values = flat[starts]
        inverse = (np.cumsum(starts) - 1).reshape(x.shape)
    else:
        d = dim % max(x.ndim, 1)
        moved = np.moveaxis(x, d, 0).reshape(x.shape[d], -1)
        starts = np.ones(moved.shape[0], bool)
        starts[1:] = np.any(moved[1:] != moved[:-1], axis=1)
        values = np.take(x, np.nonzero(starts)[0], axis=d)
        inverse = np.cumsum(starts) - 1
    counts = np.diff(np.append(np.nonzero(starts)[0], starts.shape[0]))
    out = from_result(np.ascontiguousarray(values), input.dtype)
    record_no_formula(UniqueConsecutiveBackward0, input, out)
    if not return_inverse and not return_counts:
        return out
    extras = ([from_result(inverse.astype(np.int64))] if return_inverse else []) + (
        [from_result(counts.astype(np.int64))] if return_counts else [])
    return (out, *extras)


class NextafterBackward0(SavingNode):
    """PyTorch 2.13's derivative of ``nextafter``: the gradient passes to ``input`` where it
    differs from ``other`` (zero where they are equal); ``other`` gets zeros."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        from ..creation import zeros_like

        g = grads[0]
        if g is None:
            return (None, None)
        grad_input = None
        if self.needs_input_grad(0):
            input, other = self.unpack()
            grad_input = where(eq(input, other), zeros_like(g), g)
        return (grad_input, zeros_like(g) if self.needs_input_grad(1) else None)


def nextafter(input: Tensor, other: Tensor) -> Tensor:
    """The next representable float after ``input`` towards ``other`` (zero gradient)."""
    import numpy as np

    from .operands import from_result, result_type

    dtype = result_type(input, other, op="nextafter")
    out = from_result(np.asarray(np.nextafter(input._numpy().astype(dtype), other._numpy().astype(dtype))), dtype)
    if needs_grad(input, other):
        node = NextafterBackward0()
        record(node, (input, other), (out,))
        if node.needs_input_grad(0):
            node.save(input, other)
    return out


def nextafter_(self: Tensor, other: Tensor) -> Tensor:
    """In-place ``nextafter`` (``NextafterBackward0``, saving a copy of the old ``self``)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"nextafter_(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    source = self.clone() if needs_grad(self) else self  # type: ignore[attr-defined]
    return write_result("nextafter_", self, nextafter(source, other), "NextafterBackward0", (other,))


def heaviside_(self: Tensor, values: Tensor) -> Tensor:
    """In-place ``heaviside`` (recorded without a derivative, as PyTorch: backward raises)."""
    from .inplace import apply_inplace, check_inplace_operands
    from .operands import array_of

    if not isinstance(values, Tensor):
        raise TypeError(f"heaviside_(): argument 'values' (position 1) must be Tensor, not {type(values).__name__}")
    with no_grad():
        result = heaviside(self, values)
    dtype = self._storage.buffer.dtype
    check_inplace_operands("heaviside_", self, result.dtype, values)
    return apply_inplace("heaviside_", self, array_of(result), dtype, (self, values),
                         lambda: NotImplementedBackward("heaviside_"))


def mvlgamma_(self: Tensor, p: int) -> Tensor:
    """In-place ``mvlgamma`` (``MvlgammaBackward0``, saving a copy of the old ``self``)."""
    source = self.clone() if needs_grad(self) else self  # type: ignore[attr-defined]
    return write_result("mvlgamma_", self, mvlgamma(source, p), "MvlgammaBackward0")


class MvlgammaBackward0(SavingNode):
    """Backward of ``mvlgamma``: ``grad * sum_j digamma(self - j/2)``."""

    def __init__(self, p: int) -> None:
        super().__init__()
        self.p = p

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        from .gamma_fns import digamma

        (x,) = self.unpack()
        return (grads[0] * digamma(_mvlgamma_args(x, self.p)).sum(-1),)  # type: ignore[attr-defined,operator]


def _mvlgamma_args(x: Tensor, p: int) -> Tensor:
    """``x - j/2`` for ``j < p``, along a new last dim."""
    from ..ranges import arange

    return arange(-p * 0.5 + 0.5, 0.5, 0.5, dtype=x.dtype) + x.unsqueeze(-1)  # type: ignore[attr-defined,no-any-return]


def mvlgamma(input: Tensor, p: int) -> Tensor:
    """The multivariate log-gamma ``sum_j lgamma(x - j/2) + p(p-1)/4 log(pi)`` (ATen's)."""
    import math

    from .gamma_fns import lgamma

    if not isinstance(p, int) or isinstance(p, bool):
        raise TypeError(f"mvlgamma(): argument 'p' (position 2) must be int, not {type(p).__name__}")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    with no_grad():
        out = lgamma(_mvlgamma_args(input, p)).sum(-1) + p * (p - 1) * math.log(math.pi) * 0.25  # type: ignore[attr-defined]
    if needs_grad(input):
        node = MvlgammaBackward0(p)
        record(node, (input,), (out,))
        node.save(input)
    return out  # type: ignore[no-any-return]


def sum_to_size(self: Tensor, *size: Any) -> Tensor:
    """``self`` summed down to ``size`` (which must expand to ``self``'s shape)."""
    if not size:
        raise TypeError('sum_to_size() missing 1 required positional arguments: "size"')
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    lead = self.ndim - len(shape)
    if lead < 0 or any(s != t and s != 1 for s, t in zip(shape, self.shape[lead:])):
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(self.shape)}}}.")
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and self.shape[lead + i] != 1)
    if not dims:
        return self
    out = self.sum(dims, keepdim=True)  # type: ignore[attr-defined]
    return out.view(shape) if lead else out  # type: ignore[no-any-return]
