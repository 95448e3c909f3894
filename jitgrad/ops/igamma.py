"""``igamma``/``igammac``: the regularized lower and upper incomplete gamma functions
``P(a, x)`` and ``Q(a, x) = 1 - P(a, x)`` (``torch.special.gammainc``/``gammaincc``, and
``Gamma.cdf``), with PyTorch's nodes ``IgammaBackward0``/``IgammacBackward0``.

Values by the power series for ``x < a + 1`` and by the continued fraction of ``Q``
(modified Lentz) elsewhere, both iterated on the unconverged elements only, in float64
(round-off grows slowly with ``a``: ~1e-13 relative at ``a = 1e3``, ~1e-9 at ``a = 1e6``);
PyTorch's limits where ``a`` is 0 or infinite. The gradient in ``x`` is the Gamma(a, 1)
density (negated for ``Q``), written in jitgrad ops; in ``a`` it is not implemented, as in
PyTorch: a backward that needs it raises PyTorch's ``NotImplementedError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..geometry.broadcast import broadcast_shapes
from ..tensor import Tensor
from .elementwise import mul, neg, sub
from .pointwise import exp, log
from .gamma_fns import lgamma
from .inplace_result import write_result
from .operands import from_result, result_type
from .structure import clone

_EPS = np.finfo(np.float64).eps
_TINY = np.finfo(np.float64).tiny


def _max_terms(a: np.ndarray) -> int:
    """Enough terms: near ``x = a`` both expansions need a few times ``sqrt(a)``."""
    return int(20 * np.sqrt(a.max(initial=1.0))) + 200


def _series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``sum_n x^n / (a (a+1) ... (a+n))``, to round-off."""
    term = 1.0 / a
    total = term.copy()
    active = np.arange(a.size)
    for n in range(1, _max_terms(a)):
        term[active] *= x[active] / (a[active] + n)
        total[active] += term[active]
        active = active[np.abs(term[active]) > np.abs(total[active]) * _EPS]
        if active.size == 0:
            break
    return total


def _continued_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The continued fraction of ``Q(a, x) e^x x^-a Gamma(a)`` (Lentz's method)."""
    b = x + 1.0 - a
    c = np.full_like(a, 1.0 / _TINY)
    d = 1.0 / np.where(np.abs(b) < _TINY, _TINY, b)
    h = d.copy()
    active = np.arange(a.size)
    for i in range(1, _max_terms(a)):
        an = -i * (i - a[active])
        b[active] += 2.0
        dd = an * d[active] + b[active]
        dd = np.where(np.abs(dd) < _TINY, _TINY, dd)
        cc = b[active] + an / c[active]
        cc = np.where(np.abs(cc) < _TINY, _TINY, cc)
        d[active] = 1.0 / dd
        c[active] = cc
        step = d[active] * c[active]
        h[active] *= step
        active = active[np.abs(step - 1.0) > _EPS]
        if active.size == 0:
            break
    return h


def regularized_gamma_p(a: np.ndarray, x: np.ndarray, upper: bool = False) -> np.ndarray:
    """``P(a, x)`` elementwise (``Q(a, x)`` with ``upper``, with full relative accuracy where
    it is small), float64, flat; NaN where PyTorch's is (``a < 0``, ``x < 0``, ``a = x = 0``)."""
    a, x = (np.asarray(v, dtype=np.float64).ravel() for v in (a, x))
    log_gamma_a = lgamma(from_result(a))._numpy()
    out = np.full(a.shape, np.nan)
    valid = (a > 0) & (x >= 0)
    out[valid & (x == 0)] = 1.0 if upper else 0.0
    out[valid & np.isposinf(x)] = 0.0 if upper else 1.0
    out[(a == 0) & (x > 0)] = 0.0 if upper else 1.0  # (PyTorch's limits)
    out[np.isposinf(a) & (x >= 0) & np.isfinite(x)] = 1.0 if upper else 0.0
    inner = valid & (x > 0) & np.isfinite(x) & np.isfinite(a)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        front = np.exp(a * np.log(np.where(inner, x, 1.0)) - x - log_gamma_a)
        low = inner & (x < a + 1)
        series = front[low] * _series(a[low], x[low])
        out[low] = 1.0 - series if upper else series
        high = inner & ~low
        fraction = front[high] * _continued_fraction(a[high], x[high])
        out[high] = fraction if upper else 1.0 - fraction
    return out


_ATEN_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


class IgammaBackward0(SavingNode):
    """``igamma(self, other)``: ``other`` gets ``grad * exp((self - 1) log(other) - other -
    lgamma(self))``; ``self``'s derivative is not implemented."""

    op, upper = "igamma", False

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        a, x = self.unpack()
        if self.needs_input_grad(0):
            raise NotImplementedError(f"the derivative for '{self.op}: input' is not implemented.")
        if not self.needs_input_grad(1):
            return (None, None)
        density = exp(sub(sub(mul(sub(a, 1), log(x)), x), lgamma(a)))
        g = neg(grads[0]) if self.upper else grads[0]
        return (None, mul(g, density))


class IgammacBackward0(IgammaBackward0):
    """``igammac(self, other)``: minus ``igamma``'s gradient for ``other``."""

    op, upper = "igammac", True


def _incomplete(op: str, node_type: type[IgammaBackward0], input: Any, other: Any, out: Any) -> Tensor:
    if out is not None:
        raise TypeError(f"{op}(): out= is not supported by jitgrad")
    for k, (name, value) in enumerate((("input", input), ("other", other))):
        if not isinstance(value, Tensor):
            raise TypeError(f"{op}(): argument '{name}' (position {k + 1}) must be Tensor, not "
                            f"{type(value).__name__}")
    dtype = result_type(input, other, op=op)
    if dtype not in dtypes.FLOATING:
        raise NotImplementedError(f'"{op}_cpu" not implemented for \'{_ATEN_NAMES.get(dtype.name, dtype.name)}\' '
                                  f"(got {dtype.name}; expected a floating-point dtype)")
    shape = broadcast_shapes(input._sizes, other._sizes)
    a = np.broadcast_to(input._numpy(), shape)
    x = np.broadcast_to(other._numpy(), shape)
    result = from_result(regularized_gamma_p(a, x, node_type.upper).reshape(shape).astype(dtype), dtype)
    if needs_grad(input, other):
        node = node_type()
        record(node, (input, other), (result,))
        node.save(input, other)
    return result


def igamma(input: Any, other: Any, *, out: Any = None) -> Tensor:
    """``P(input, other)``, the regularized lower incomplete gamma function, broadcast."""
    return _incomplete("igamma", IgammaBackward0, input, other, out)


def igammac(input: Any, other: Any, *, out: Any = None) -> Tensor:
    """``Q(input, other) = 1 - P(input, other)``, accurate where it is small."""
    return _incomplete("igammac", IgammacBackward0, input, other, out)


def igamma_(self: Tensor, other: Tensor) -> Tensor:
    # the node saves self's old value: a copy (ops/inplace_result.py)
    source = clone(self) if needs_grad(self, other) else self
    return write_result("igamma_", self, igamma(source, other), "IgammaBackward0", (other,))


def igammac_(self: Tensor, other: Tensor) -> Tensor:
    source = clone(self) if needs_grad(self, other) else self
    return write_result("igammac_", self, igammac(source, other), "IgammacBackward0", (other,))
