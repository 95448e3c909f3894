"""``torch.special.zeta`` (Hurwitz) and the Bessel functions ``bessel_j0/j1/y0/y1``,
``modified_bessel_i0/i1/k0/k1`` and ``scaled_modified_bessel_k0/k1`` on ``kernels.cylinder``'s
ufuncs (``modified_bessel_i0/i1`` are ``ops/bessel.py``'s ``i0``/``i1`` values).

Autograd as PyTorch 2.13: ``zeta`` is differentiable in ``q`` (``-x zeta(x + 1, q)``) and
raises ``NotImplementedError: the derivative for 'zeta' is not implemented.`` when a backward
needs its gradient in ``x``, under PyTorch's node names (``SpecialZetaBackward0`` for two
tensors, ``1`` for a number ``x``, ``2`` for a number ``q``). The Bessel functions are not
differentiable at all: their results never require grad.

Values are exact to float64 round-off (see ``kernels/cylinder.py``); PyTorch 2.13's Bessel
functions of the first and second kind err by up to ~1e-6 relative between 2 and 25, lose
the phase above ~1e8 and give nan at +-inf (the limits are 0), and its ``modified_bessel_i0``
/ ``i1`` give nan at +-inf (the limits are inf, +-inf): deliberate differences (README).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .. import dtypes
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..geometry.broadcast import broadcast_shapes
from ..tensor import Tensor
from .bessel import _bessel
from .elementwise import add, mul, neg
from .operands import from_result, result_type


def _ufunc(name: str) -> Any:
    """``kernels.cylinder``'s ufunc, imported on first use (``import jitgrad`` imports no
    Numba for it)."""
    from ..kernels import cylinder

    return cylinder.ufunc(name)


def _refuse_half(op: str, dtype: Any) -> None:
    if dtype == dtypes.float16:
        raise NotImplementedError(f'"{op}_cpu" not implemented for \'Half\' (got float16; expected '
                                  "float32, float64 or an integer or bool dtype)")


# -- zeta ----------------------------------------------------------------------------------------
class SpecialZetaBackward0(SavingNode):
    """``zeta(x, q)`` of two tensors: ``-x zeta(x + 1, q)`` for ``q``; none for ``x``."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        x, q = self.unpack()
        return (self._no_x_grad(0), self._q_grad(grads[0], x, q, 1))

    def _no_x_grad(self, i: int) -> None:
        if self.needs_input_grad(i):
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        return None

    def _q_grad(self, g: Any, x: Any, q: Any, i: int) -> Tensor | None:
        if not self.needs_input_grad(i):
            return None
        return mul(g, neg(mul(x, zeta(add(x, 1), q))))


class SpecialZetaBackward1(SpecialZetaBackward0):
    """``zeta(number, q)``."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        x, q = self.unpack()
        return (self._q_grad(grads[0], x, q, 0),)


class SpecialZetaBackward2(SpecialZetaBackward0):
    """``zeta(x, number)``."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (self._no_x_grad(0),)


def _zeta_operand(value: Any) -> bool:
    return isinstance(value, Tensor) or (isinstance(value, numbers.Number) and not isinstance(value, complex))


def zeta(input: Any, other: Any, *, out: Any = None) -> Tensor:
    """The Hurwitz zeta function ``sum_k (other + k)^-input``, broadcast; one of the two may
    be a number."""
    op = "special.zeta"
    if out is not None:
        raise TypeError(f"{op}(): out= is not supported by jitgrad")
    if not (_zeta_operand(input) and _zeta_operand(other)) or not (
            isinstance(input, Tensor) or isinstance(other, Tensor)):
        raise TypeError(f"{op}(): expected (Tensor, Tensor), (Number, Tensor) or (Tensor, Number), got "
                        f"({type(input).__name__}, {type(other).__name__})")
    promoted = result_type(input, other, op=op)
    _refuse_half("zeta", promoted)
    target = promoted if promoted in dtypes.FLOATING else dtypes.DEFAULT_FLOAT
    arrays = [v._numpy() if isinstance(v, Tensor) else np.asarray(v) for v in (input, other)]
    broadcast_shapes(arrays[0].shape, arrays[1].shape)  # PyTorch's error for shapes that do not fit
    with np.errstate(all="ignore"):
        values = np.asarray(_ufunc("zeta")(arrays[0].astype(target), arrays[1].astype(target)), dtype=target)
    result = from_result(values, target)
    tensors = tuple(v for v in (input, other) if isinstance(v, Tensor))
    if target in dtypes.FLOATING and needs_grad(*tensors):
        if len(tensors) == 2:
            node: SavingNode = SpecialZetaBackward0()
        else:
            node = SpecialZetaBackward1() if isinstance(other, Tensor) else SpecialZetaBackward2()
        record(node, tensors, (result,))
        node.save(input, other)
    return result


# -- Bessel functions (not differentiable) --------------------------------------------------------
def _unary(name: str, compute: Any) -> Any:
    op = f"special.{name}"

    def function(input: Tensor, *, out: Any = None) -> Tensor:
        if out is not None:
            raise TypeError(f"{op}(): out= is not supported by jitgrad")
        if not isinstance(input, Tensor):
            raise TypeError(f"special_{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        _refuse_half(name, input.dtype)
        target = input.dtype if input.dtype in dtypes.FLOATING else dtypes.DEFAULT_FLOAT
        with np.errstate(all="ignore"):
            values = np.asarray(compute(input._numpy().astype(target, copy=False)), dtype=target)
        return from_result(values, target)  # no node: as PyTorch's

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.special.{name}`` (not differentiable, as in PyTorch)."
    return function


def _cylinder(name: str) -> Any:
    return _unary(name, lambda a: _ufunc(name)(a))


bessel_j0 = _cylinder("bessel_j0")
bessel_j1 = _cylinder("bessel_j1")
bessel_y0 = _cylinder("bessel_y0")
bessel_y1 = _cylinder("bessel_y1")
modified_bessel_k0 = _cylinder("modified_bessel_k0")
modified_bessel_k1 = _cylinder("modified_bessel_k1")
scaled_modified_bessel_k0 = _cylinder("scaled_modified_bessel_k0")
scaled_modified_bessel_k1 = _cylinder("scaled_modified_bessel_k1")
modified_bessel_i0 = _unary("modified_bessel_i0", lambda a: _bessel(a, 0, False))
modified_bessel_i1 = _unary("modified_bessel_i1", lambda a: _bessel(a, 1, False))
