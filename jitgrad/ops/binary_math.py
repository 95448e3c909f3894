"""Pointwise functions of two or three tensors, declared (see ``declare.py``): ``atan2``,
``hypot``, ``fmod``, ``remainder``, ``logaddexp``, ``logaddexp2``, ``xlogy``,
``special.xlog1py``, ``lerp``, ``addcmul``, ``addcdiv``. Formulas as PyTorch's
``derivatives.yaml``: one per input, called only for the inputs that need a gradient
(``g``: the incoming gradient, then the inputs, then ``r``: the result).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..tensor import Tensor
from .operands import result_type
from .compare import compare, logical_and, where
from .declare import BOTH, FLOAT_ONLY, NO_BOOL, SAME, SELF, Pointwise
from .elementwise import add, check_integer_division, div, mul, neg, reciprocal, sub
from .pointwise import exp, exp2
from ..creation import zeros_like


def _is_t(x: Any) -> bool:
    return isinstance(x, Tensor)


def _both(x: Any, y: Any) -> bool:
    return isinstance(x, Tensor) and isinstance(y, Tensor)


def _tensor_other(x: Any = None, y: Any = None) -> int:
    """Overload 1 takes a Tensor ``other``, 0 a number (``FmodBackward1`` / ``FmodBackward0``)."""
    return int(isinstance(y, Tensor))


def _first_is_tensor(op: str, a: Any, *rest: Any, **params: Any) -> None:
    if not isinstance(a, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(a).__name__}")


# -- atan2, hypot ----------------------------------------------------------------------------
def _atan2_grad(which: int) -> Any:
    def grad(g: Any, x: Any, y: Any, r: Any) -> Any:  # PyTorch's atan2_backward
        recip = reciprocal(add(mul(x, x), mul(y, y)))
        return mul(mul(g, y), recip) if which == 0 else mul(mul(g, neg(x)), recip)
    return grad


ATAN2 = Pointwise("atan2", np.arctan2, (_atan2_grad(0), _atan2_grad(1)), SELF, arity=2, tensors_only=True)
HYPOT = Pointwise("hypot", np.hypot, (lambda g, x, y, r: mul(g, div(x, r)), lambda g, x, y, r: mul(g, div(y, r))),
                  BOTH, dtype=SAME, refuse=FLOAT_ONLY, arity=2, tensors_only=True)
atan2, atan2_ = ATAN2.fn, ATAN2.fn_
hypot, hypot_ = HYPOT.fn, HYPOT.fn_


# -- fmod, remainder -------------------------------------------------------------------------
def _check_modulo(op: str, a: Any, b: Any) -> None:
    _first_is_tensor(op, a)
    check_integer_division(op, a, b)


def _check_remainder(op: str, a: Any, b: Any) -> None:
    check_integer_division(op, a, b)


FMOD = Pointwise(
    "fmod", np.fmod,
    (lambda g, x, y, r: g, lambda g, x, y, r: mul(neg(g), div(x, y, rounding_mode="trunc"))),
    SELF, dtype=SAME, refuse=NO_BOOL, arity=2, check=_check_modulo, variant=_tensor_other, domain="away-nonzero",
    reads=((), (0, 1)))
REMAINDER = Pointwise(
    "remainder", np.remainder,
    (lambda g, x, y, r: g, lambda g, x, y, r: mul(neg(g), div(x, y, rounding_mode="floor"))),
    SELF, dtype=SAME, refuse=NO_BOOL, arity=2, check=_check_remainder, variant=_tensor_other,
    domain="away-nonzero", reads=((), (0, 1)))
fmod, fmod_ = FMOD.fn, FMOD.fn_
remainder, remainder_ = REMAINDER.fn, REMAINDER.fn_


# -- logaddexp, logaddexp2 -------------------------------------------------------------------
LOGADDEXP = Pointwise(
    "logaddexp", np.logaddexp,
    (lambda g, x, y, r: div(g, add(exp(sub(y, x)), 1)), lambda g, x, y, r: div(g, add(exp(sub(x, y)), 1))),
    SELF, dtype=SAME, refuse=FLOAT_ONLY, arity=2, tensors_only=True, inplace=False)
LOGADDEXP2 = Pointwise(
    "logaddexp2", np.logaddexp2,
    (lambda g, x, y, r: div(g, add(exp2(sub(y, x)), 1)), lambda g, x, y, r: div(g, add(exp2(sub(x, y)), 1))),
    SELF, dtype=SAME, refuse=FLOAT_ONLY, arity=2, tensors_only=True, inplace=False)
logaddexp = LOGADDEXP.fn
logaddexp2 = LOGADDEXP2.fn


# -- xlogy, xlog1py --------------------------------------------------------------------------
def _np_xlogy(log: np.ufunc) -> Any:
    def forward(x: Any, y: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe") -> np.ndarray:
        """``x * log(y)``, 0 where ``x == 0`` (unless ``y`` is nan), as PyTorch."""
        x, y = np.asarray(x, dtype=dtype), np.asarray(y, dtype=dtype)
        np.multiply(x, log(y), out=out, casting=casting)
        np.copyto(out, 0, where=np.equal(x, 0) & ~np.isnan(y), casting="unsafe")
        return out
    return forward


def _xlogy_self_grad(fn: Any, pole: float) -> Any:
    """PyTorch's ``fn(grad, other)``, zeroed where ``self == 0`` and ``other <= pole``."""
    def grad(g: Any, x: Any, y: Any, r: Any) -> Any:
        return where(logical_and(compare(np.equal, x, 0), compare(np.less_equal, y, pole)), 0.0, fn(g, y))
    return grad


XLOGY = Pointwise(
    "xlogy", _np_xlogy(np.log),
    (_xlogy_self_grad(lambda g, y: xlogy(g, y), 0.0), lambda g, x, y, r: div(mul(g, x), y)),
    SELF, arity=2, variant=lambda x=None, y=None: 0 if _both(x, y) else (1 if _is_t(y) else 2),
    domain="x-positive")
XLOG1PY = Pointwise(
    "xlog1py", _np_xlogy(np.log1p),
    (_xlogy_self_grad(lambda g, y: xlog1py(g, y), -1.0), lambda g, x, y, r: div(mul(g, x), add(y, 1))),
    SELF, arity=2, inplace=False, method=False, export=False, node_name="SpecialXlog1PyBackward",
    variant=lambda x=None, y=None: 0 if _both(x, y) else (2 if _is_t(x) else 1), domain="x-positive",
    reference="special.xlog1py")
xlogy, xlogy_ = XLOGY.fn, XLOGY.fn_
xlog1py = XLOG1PY.fn


# -- lerp, addcmul, addcdiv ------------------------------------------------------------------
def _np_lerp(a: Any, b: Any, w: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe") -> np.ndarray:
    """``a + w * (b - a)`` for ``|w| < 0.5``, else ``b - (b - a) * (1 - w)`` (ATen's lerp)."""
    a, b, w = (np.asarray(v, dtype=dtype) for v in (a, b, w))
    diff = b - a
    np.copyto(out, np.where(np.abs(w) < 0.5, a + w * diff, b - diff * (1 - w)), casting=casting)
    return out


def _check_lerp(op: str, a: Any, b: Any, w: Any) -> None:
    for name, x in (("input", a), ("end", b)):
        if not isinstance(x, Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(x).__name__}")


LERP = Pointwise(
    "lerp", _np_lerp,
    # (a number weight: ``1 - w`` in Python, as PyTorch's ``1 - weight.toDouble()``; ``sub(1, w)``
    # of two numbers would round it to the default dtype)
    (lambda g, a, b, w, r: mul(g, sub(1, w) if _is_t(w) else 1 - w), lambda g, a, b, w, r: mul(g, w),
     lambda g, a, b, w, r: mul(g, sub(b, a))),
    SELF, dtype=SAME, refuse=FLOAT_ONLY, arity=3, check=_check_lerp, names=("input", "end", "weight"),
    variant=lambda a=None, b=None, w=None: int(_is_t(w)), domain="lerp", numbers_are_operands=False,
    reads=((2,), (2,), (0, 1)))
lerp, lerp_ = LERP.fn, LERP.fn_


def _np_addcmul(a: Any, t1: Any, t2: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe",
                value: Any = 1) -> np.ndarray:
    np.multiply(t1, value, out=out, dtype=dtype, casting=casting)
    np.multiply(out, t2, out=out, dtype=dtype, casting=casting)
    return np.add(a, out, out=out, dtype=dtype, casting=casting)  # type: ignore[no-any-return]


def _np_addcdiv(a: Any, t1: Any, t2: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe",
                value: Any = 1) -> np.ndarray:
    np.multiply(t1, value, out=out, dtype=dtype, casting=casting)
    np.true_divide(out, t2, out=out, dtype=dtype, casting=casting)
    return np.add(a, out, out=out, dtype=dtype, casting=casting)  # type: ignore[no-any-return]


def _check_addcdiv(op: str, a: Any, t1: Any, t2: Any, value: Any = 1) -> None:
    if result_type(t1, t2, op=op) not in dtypes.FLOATING:
        raise RuntimeError(
            f"{op}: integer division with addcdiv is not supported (got {result_type(t1, t2).name} "
            "tensor1 and tensor2); use torch.floor_divide's counterpart, div(..., rounding_mode='floor')")


ADDCMUL = Pointwise(
    "addcmul", _np_addcmul,
    (lambda g, a, t1, t2, r, value: g, lambda g, a, t1, t2, r, value: mul(mul(g, t2), value),
     lambda g, a, t1, t2, r, value: mul(mul(g, t1), value)),
    SELF, dtype=SAME, refuse=NO_BOOL, arity=3, params={"value": 1}, names=("input", "tensor1", "tensor2"),
    reads=((), (2,), (1,)))
ADDCDIV = Pointwise(
    "addcdiv", _np_addcdiv,
    (lambda g, a, t1, t2, r, value: g, lambda g, a, t1, t2, r, value: mul(g, div(value, t2)),
     lambda g, a, t1, t2, r, value: div(mul(mul(neg(g), value), t1), mul(t2, t2))),
    SELF, dtype=SAME, arity=3, params={"value": 1}, check=_check_addcdiv, names=("input", "tensor1", "tensor2"), domain="third-nonzero",
    reads=((), (2,), (1, 2)))
addcmul, addcmul_ = ADDCMUL.fn, ADDCMUL.fn_
addcdiv, addcdiv_ = ADDCDIV.fn, ADDCDIV.fn_


# -- copysign ----------------------------------------------------------------------------------
def _copysign_self_grad(g: Any, x: Any, y: Any, r: Any) -> Any:
    """PyTorch's ``copysign_tensor_self_backward``: ``g * result / self``, 0 where self is 0."""
    return mul(g, where(compare(np.equal, x, 0), 0.0, div(r, x)))


COPYSIGN = Pointwise(
    "copysign", np.copysign, (_copysign_self_grad, lambda g, x, y, r: zeros_like(y)), BOTH, arity=2,
    variant=lambda x=None, y=None: int(not _is_t(y)), check=_first_is_tensor)
copysign, copysign_ = COPYSIGN.fn, COPYSIGN.fn_
