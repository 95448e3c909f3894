"""``heaviside`` (not differentiable, as PyTorch), ``vdot`` (``dot`` recorded as
``VdotBackward0``) and ``pinverse`` (``linalg.pinv`` with ``rcond`` as its ``rtol``)."""

from __future__ import annotations


from ..autograd.grad_mode import no_grad
from ..autograd.graph import needs_grad, record
from ..tensor import Tensor
from .compare import eq, gt, where
from .decompositions import check_float
from .gather_scatter import NotImplementedBackward
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
