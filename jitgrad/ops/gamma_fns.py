"""``lgamma``, ``digamma`` and ``polygamma(n, input)`` on ``kernels.gamma``'s ufuncs.

Derivatives as PyTorch's ``derivatives.yaml``: ``lgamma' = digamma``, ``digamma' =
polygamma(1, .)``, ``polygamma(n, .)' = polygamma(n + 1, .)``, each written with these same
ops, so gradients of any order follow. Integer and bool inputs compute in the default float
dtype. (Not declared pointwise ops: PyTorch's ``trigamma``/``polygamma`` are accurate to
only ~1e-10 relative, ours to float64 round-off, so the declared suite's 1e-11 oracle check
does not fit; ``tests/test_ops_gamma.py`` checks against PyTorch and against mpmath.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..tensor import Tensor
from .operands import from_result
from .elementwise import mul
from .inplace_result import write_result


def _ufunc(name: str) -> Any:
    """``kernels.gamma``'s ufunc, imported on first use (so ``import jitgrad`` imports no
    Numba for it)."""
    from ..kernels import gamma

    return gamma.ufunc(name)


class LgammaBackward0(SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        (x,) = self.unpack()
        return (mul(grads[0], digamma(x)),)  # type: ignore[arg-type]


class DigammaBackward0(SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        (x,) = self.unpack()
        return (mul(grads[0], polygamma(1, x)),)  # type: ignore[arg-type]


class PolygammaBackward0(SavingNode):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        (x,) = self.unpack()
        return (mul(grads[0], polygamma(self.n + 1, x)),)  # type: ignore[arg-type]


class PolygammaBackward1(PolygammaBackward0):
    """``polygamma_``'s node (PyTorch numbers its in-place entry 1)."""


def _apply(op: str, input: Any, compute: Any, node: SavingNode, out: Any) -> Tensor:
    """``compute(array)`` on ``input``'s values in its float dtype (the default float for
    integers and bool; float16 through float32), recorded with ``node``."""
    if out is not None:
        raise TypeError(f"{op}(): out= is not supported by jitgrad")
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    target = input.dtype if input.dtype in dtypes.FLOATING else dtypes.DEFAULT_FLOAT
    compute_dtype = dtypes.float32 if target == dtypes.float16 else target
    with np.errstate(all="ignore"):
        values = np.asarray(compute(input._numpy().astype(compute_dtype, copy=False)))
    result = from_result(values.astype(target, copy=False), target)
    if needs_grad(input):
        record(node, (input,), (result,))
        node.save(input)
    return result


def lgamma(input: Tensor, *, out: None = None) -> Tensor:
    """``log |Gamma(input)|`` (inf at the non-positive integers)."""
    return _apply("lgamma", input, _ufunc("lgamma"), LgammaBackward0(), out)


def digamma(input: Tensor, *, out: None = None) -> Tensor:
    """``Gamma'(x) / Gamma(x)``: ``-inf`` at ``+0``, ``inf`` at ``-0``, nan at the negative integers."""
    return _apply("digamma", input, _ufunc("digamma"), DigammaBackward0(), out)


def polygamma(n: int, input: Tensor, *, out: None = None, node: type[PolygammaBackward0] = PolygammaBackward0) -> Tensor:
    """The ``n``-th derivative of ``digamma`` (``n = 0``: ``digamma`` itself)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"polygamma(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"polygamma(n, x) does not support negative n, got n={n}")
    compute = _ufunc("polygamma")
    return _apply("polygamma", input, lambda a: compute(np.int64(n), a), node(int(n)), out)


def polygamma_method(self: Tensor, n: int) -> Tensor:
    """``Tensor.polygamma(n)``."""
    return polygamma(n, self)


def _inplace(op: str, fn: Any) -> Any:
    def method(self: Tensor) -> Tensor:
        if self.dtype not in dtypes.FLOATING:
            raise RuntimeError(f"{op}: result type Float can't be cast to the desired output type "
                               f"{self.dtype.name}")
        source = self.clone()  # type: ignore[attr-defined]  # saved for backward, untouched by the write
        return write_result(op, self, fn(source), f"{op[:-1].title()}Backward0")

    method.__name__ = method.__qualname__ = op
    method.__doc__ = f"In-place ``{op[:-1]}`` (recording its own node, as PyTorch)."
    return method


lgamma_ = _inplace("lgamma_", lgamma)
digamma_ = _inplace("digamma_", digamma)


def polygamma_(self: Tensor, n: int) -> Tensor:
    """In-place ``polygamma(n, self)`` (``PolygammaBackward1``, saving a copy of the old ``self``)."""
    if self.dtype not in dtypes.FLOATING:
        raise RuntimeError(f"polygamma_: result type Float can't be cast to the desired output type {self.dtype.name}")
    source = self.clone()  # type: ignore[attr-defined]  # saved for backward, untouched by the write
    return write_result("polygamma_", self, polygamma(n, source, node=PolygammaBackward1), "PolygammaBackward1")
