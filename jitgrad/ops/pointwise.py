"""Pointwise functions of one tensor, declared (see ``declare.py``): one entry per op names
its forward, its derivative in jitgrad ops (``g``: the incoming gradient, ``x``: the input,
``r``: the result; formulas as PyTorch's ``derivatives.yaml``), what it saves and its dtype rule.
The node (``ExpBackward0``, ...), the in-place variant (``exp_``) and the test rows follow.

Floating-point functions of integer or bool tensors compute in the default float dtype, as
PyTorch. Ops whose derivative is zero almost everywhere (``sign``, ``floor``, ...) return
zeros; ``abs`` and ``relu`` keep their input in the graph of their first gradient (through
``sgn`` and ``threshold_backward``, whose own derivative is zero), so that a Hessian-vector
product through them is zeros, as PyTorch's, instead of an error.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes
from ..creation import zeros, zeros_like
from ..kernels import sigmoid as _sigmoid_kernels, special as _special
from .compare import eq as compare_eq
from .compare import where
from .declare import BOOL, FLOAT_ONLY, NO_BOOL, NOTHING, RESULT, SAME, SELF, Pointwise
from .elementwise import add, div, mul, neg, sub
from .lean_grads import sigmoid_grad

_LN2, _LN10 = math.log(2.0), math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _zero(g: Any, *inputs: Any, **params: Any) -> Any:
    """The derivative of a piecewise-constant function: zeros (PyTorch's ``zeros_like(grad)``)."""
    return zeros_like(g)


def _numba(name: str) -> Any:
    """A forward calling ``kernels.special``'s ufunc ``name`` (built on first use)."""
    def forward(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe") -> np.ndarray:
        return _special.ufunc(name)(x, out=out, dtype=dtype, casting=casting)  # type: ignore[no-any-return]
    forward.__name__ = name
    return forward


def _constants(dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    zero, one = np.zeros((), dtype), np.ones((), dtype)
    zero.flags.writeable = one.flags.writeable = False
    return zero, one


# 0 and 1 as read-only 0-d arrays of the dtypes of the lean and fused paths, for forwards
# computing in their input's dtype: NumPy takes one ~0.15 us faster than a Python number
# (which it converts to the loop's dtype: the same value, exact in either), and a positional
# ``out`` faster than keywords
ZERO_ONE = {np.dtype(t): _constants(t) for t in (np.float32, np.float64)}


def _np_sigmoid(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe") -> np.ndarray:
    """``1 / (1 + exp(-x))``, the way PyTorch computes it: in float32 and float64 by the
    sigmoid kernel (``kernels/_sigmoid_jit.py``: one call instead of four; on every path and
    layout alike, through a contiguous copy where needed: the values never depend on the
    path), in float16 by NumPy's calls."""
    if dtype in ZERO_ONE and out.dtype is dtype:
        kernel = _sigmoid_kernels.forward
        function = kernel._entries.get(dtype) or kernel.entry(dtype)
        if x.dtype is dtype and x.ndim == 1 and out.ndim == 1 and x.flags.c_contiguous and out.flags.c_contiguous:
            function(x, out, len(x))  # (the fused and lean paths' flat buffers)
            return out
        flat = np.ascontiguousarray(x, dtype).reshape(-1)  # (``casting="unsafe"``: NumPy's cast)
        values = np.empty(flat.size, dtype)
        function(flat, values, flat.size)
        out[...] = values.reshape(out.shape)
        return out
    np.negative(x, out=out, dtype=dtype, casting=casting)
    np.exp(out, out=out)
    np.add(out, 1, out=out)
    return np.reciprocal(out, out=out)


def _np_sgn(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe") -> np.ndarray:
    """-1, 0 or 1, and 0 for nan (PyTorch's ``sign``); bool stays bool."""
    if out.dtype == np.bool_:
        np.copyto(out, x, casting=casting)
        return out
    np.sign(x, out=out, dtype=dtype, casting=casting)
    if out.dtype.kind == "f":
        out[np.isnan(out)] = 0
    return out


def _np_frac(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe") -> np.ndarray:
    """``x - trunc(x)``, PyTorch's ``frac``."""
    np.trunc(x, out=out, dtype=dtype, casting=casting)
    return np.subtract(x, out, out=out, dtype=dtype, casting=casting)


def _np_round(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe", decimals: int = 0) -> np.ndarray:
    """Round half to even, at ``decimals`` (PyTorch: ``nearbyint(x * 10**d) / 10**d``, and
    ``nearbyint(x / 10**-d) * 10**-d`` for negative ``d``)."""
    if out.dtype.kind != "f":  # integers are already round
        np.copyto(out, x, casting=casting)
        return out
    if decimals == 0:
        return np.rint(x, out=out, dtype=dtype, casting=casting)  # type: ignore[no-any-return]
    scale = dtype.type(10.0 ** (decimals if decimals > 0 else -decimals))
    if decimals > 0:
        np.multiply(x, scale, out=out, dtype=dtype, casting=casting)
        np.rint(out, out=out)
        return np.divide(out, scale, out=out)
    np.divide(x, scale, out=out, dtype=dtype, casting=casting)
    np.rint(out, out=out)
    return np.multiply(out, scale, out=out)


def _check_round(op: str, x: Any, decimals: int = 0) -> None:
    if decimals != 0 and x.dtype not in dtypes.FLOATING:
        raise NotImplementedError(
            f"{op}: decimals is only supported for floating-point tensors (got {x.dtype.name}, decimals={decimals})")


def _np_nan_to_num(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe",
                   nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> np.ndarray:
    np.copyto(out, x, casting=casting)
    if out.dtype.kind == "f":
        info = np.finfo(out.dtype)
        np.copyto(out, nan, where=np.isnan(out), casting="unsafe")
        np.copyto(out, info.max if posinf is None else posinf, where=np.isposinf(out), casting="unsafe")
        np.copyto(out, info.min if neginf is None else neginf, where=np.isneginf(out), casting="unsafe")
    return out


def _np_predicate(ufunc: np.ufunc) -> Any:
    """A bool-valued forward (``isnan``, ...) that also takes bool inputs."""
    def forward(x: Any, out: np.ndarray) -> np.ndarray:
        x = np.asarray(x)
        return ufunc(x.view(np.uint8) if x.dtype == np.bool_ else x, out=out)  # type: ignore[no-any-return]
    forward.__name__ = ufunc.__name__
    return forward


def _rsqrt(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe") -> np.ndarray:
    np.sqrt(x, out=out, dtype=dtype, casting=casting)
    return np.reciprocal(out, out=out)


# -- exponentials and logarithms -----------------------------------------------------------
EXP = Pointwise("exp", np.exp, lambda g, x, r: mul(g, r), RESULT)
LOG = Pointwise("log", np.log, lambda g, x, r: div(g, x), SELF, domain="positive")
SQRT = Pointwise("sqrt", np.sqrt, lambda g, x, r: div(g, mul(r, 2)), RESULT, domain="positive")
RSQRT = Pointwise("rsqrt", _rsqrt, lambda g, x, r: mul(mul(g, -0.5), mul(mul(r, r), r)), RESULT, domain="positive")
LOG1P = Pointwise("log1p", np.log1p, lambda g, x, r: div(g, add(x, 1)), SELF, domain="gt-1")
EXPM1 = Pointwise("expm1", np.expm1, lambda g, x, r: mul(g, add(r, 1)), RESULT)
LOG2 = Pointwise("log2", np.log2, lambda g, x, r: div(g, mul(x, _LN2)), SELF, domain="positive")
LOG10 = Pointwise("log10", np.log10, lambda g, x, r: div(g, mul(x, _LN10)), SELF, domain="positive")
EXP2 = Pointwise("exp2", np.exp2, lambda g, x, r: mul(g, mul(r, _LN2)), RESULT)
exp, exp_ = EXP.fn, EXP.fn_
log, log_ = LOG.fn, LOG.fn_
sqrt, sqrt_ = SQRT.fn, SQRT.fn_
rsqrt, rsqrt_ = RSQRT.fn, RSQRT.fn_
log1p, log1p_ = LOG1P.fn, LOG1P.fn_
expm1, expm1_ = EXPM1.fn, EXPM1.fn_
log2, log2_ = LOG2.fn, LOG2.fn_
log10, log10_ = LOG10.fn, LOG10.fn_
exp2, exp2_ = EXP2.fn, EXP2.fn_

# -- trigonometric and hyperbolic ----------------------------------------------------------
SIN = Pointwise("sin", np.sin, lambda g, x, r: mul(g, cos(x)), SELF)
COS = Pointwise("cos", np.cos, lambda g, x, r: mul(g, neg(sin(x))), SELF)
TAN = Pointwise("tan", np.tan, lambda g, x, r: mul(g, add(mul(r, r), 1)), RESULT)
ASIN = Pointwise("asin", np.arcsin, lambda g, x, r: mul(g, rsqrt(add(mul(neg(x), x), 1))), SELF, domain="unit")
ACOS = Pointwise("acos", np.arccos, lambda g, x, r: mul(g, neg(rsqrt(add(mul(neg(x), x), 1)))), SELF, domain="unit")
ATAN = Pointwise("atan", np.arctan, lambda g, x, r: div(g, add(mul(x, x), 1)), SELF)
SINH = Pointwise("sinh", np.sinh, lambda g, x, r: mul(g, cosh(x)), SELF)
COSH = Pointwise("cosh", np.cosh, lambda g, x, r: mul(g, sinh(x)), SELF)
TANH = Pointwise("tanh", np.tanh, lambda g, x, r: mul(g, sub(1, mul(r, r))), RESULT)
ASINH = Pointwise("asinh", np.arcsinh, lambda g, x, r: mul(g, rsqrt(add(mul(x, x), 1))), SELF)
ACOSH = Pointwise("acosh", np.arccosh, lambda g, x, r: mul(g, rsqrt(sub(mul(x, x), 1))), SELF, domain="gt1")
ATANH = Pointwise("atanh", np.arctanh, lambda g, x, r: div(g, sub(1, mul(x, x))), SELF, domain="unit")
sin, sin_ = SIN.fn, SIN.fn_
cos, cos_ = COS.fn, COS.fn_
tan, tan_ = TAN.fn, TAN.fn_
asin, asin_ = ASIN.fn, ASIN.fn_
acos, acos_ = ACOS.fn, ACOS.fn_
atan, atan_ = ATAN.fn, ATAN.fn_
sinh, sinh_ = SINH.fn, SINH.fn_
cosh, cosh_ = COSH.fn, COSH.fn_
tanh, tanh_ = TANH.fn, TANH.fn_
asinh, asinh_ = ASINH.fn, ASINH.fn_
acosh, acosh_ = ACOSH.fn, ACOSH.fn_
atanh, atanh_ = ATANH.fn, ATANH.fn_

# -- error function ------------------------------------------------------------------------
ERF = Pointwise("erf", _numba("erf"), lambda g, x, r: mul(mul(exp(neg(mul(x, x))), _TWO_OVER_SQRT_PI), g), SELF)
ERFC = Pointwise("erfc", _numba("erfc"), lambda g, x, r: mul(mul(exp(neg(mul(x, x))), -_TWO_OVER_SQRT_PI), g), SELF)
def _erfinv_grad(g: Any, x: Any, r: Any) -> Any:
    """PyTorch's formula, which saves ``self`` and computes ``erfinv(self)`` again."""
    e = erfinv(x)
    return mul(mul(exp(mul(e, e)), 0.5 * math.sqrt(math.pi)), g)


ERFINV = Pointwise("erfinv", _numba("erfinv"), _erfinv_grad, SELF, domain="unit")
erf, erf_ = ERF.fn, ERF.fn_
erfc, erfc_ = ERFC.fn, ERFC.fn_
erfinv, erfinv_ = ERFINV.fn, ERFINV.fn_

# -- sigmoid, abs, sign, rounding ----------------------------------------------------------
_np_sigmoid.flat = _sigmoid_kernels.forward  # type: ignore[attr-defined]  # (the fused path's call)


def _sigmoid_grad(g: Any, x: Any, r: Any) -> Any:
    """``g * (1 - r) * r``: on data by the backward kernel (``lean_grads.sigmoid_grad``, the
    same operations in the same dtype) when no graph is recorded, else in jitgrad ops."""
    out = sigmoid_grad(g, r)
    return mul(mul(g, sub(1, r)), r) if out is None else out


SIGMOID = Pointwise("sigmoid", _np_sigmoid, _sigmoid_grad, RESULT)
def _contiguous_zeros(g: Any, *inputs: Any, **params: Any) -> Any:
    """PyTorch's ``sgn`` derivative of a real input: a ZeroTensor, which is contiguous."""
    return zeros(g._sizes, dtype=g.dtype)


SGN = Pointwise("sgn", _np_sgn, _contiguous_zeros, NOTHING, dtype=SAME, domain="kinks")
SIGN = Pointwise("sign", _np_sgn, _zero, NOTHING, dtype=SAME, domain="kinks")
ABS = Pointwise("abs", np.absolute, lambda g, x, r: mul(g, sgn(x)), SELF, dtype=SAME, refuse=NO_BOOL, domain="kinks")
FLOOR = Pointwise("floor", np.floor, _zero, NOTHING, dtype=SAME, refuse=NO_BOOL, domain="away")
CEIL = Pointwise("ceil", np.ceil, _zero, NOTHING, dtype=SAME, refuse=NO_BOOL, domain="away")
TRUNC = Pointwise("trunc", np.trunc, _zero, NOTHING, dtype=SAME, refuse=NO_BOOL, domain="away")
ROUND = Pointwise("round", _np_round, _zero, NOTHING, dtype=SAME, refuse=NO_BOOL, params={"decimals": 0}, check=_check_round, domain="away",
                 variant=lambda x=None, decimals=0: int(decimals != 0), keyword_params=True)
FRAC = Pointwise("frac", _np_frac, lambda g, x, r: g, NOTHING, dtype=SAME, refuse=FLOAT_ONLY, domain="away")
NAN_TO_NUM = Pointwise("nan_to_num", _np_nan_to_num, lambda g, x, r, **_: mul(g, isfinite(x)), SELF, dtype=SAME,
                       params={"nan": 0.0, "posinf": None, "neginf": None}, domain="special")
sigmoid, sigmoid_ = SIGMOID.fn, SIGMOID.fn_
sgn, sgn_ = SGN.fn, SGN.fn_
sign, sign_ = SIGN.fn, SIGN.fn_
abs, abs_ = ABS.fn, ABS.fn_  # noqa: A001
floor, floor_ = FLOOR.fn, FLOOR.fn_
ceil, ceil_ = CEIL.fn, CEIL.fn_
trunc, trunc_ = TRUNC.fn, TRUNC.fn_
round, round_ = ROUND.fn, ROUND.fn_  # noqa: A001
frac, frac_ = FRAC.fn, FRAC.fn_
nan_to_num, nan_to_num_ = NAN_TO_NUM.fn, NAN_TO_NUM.fn_

# -- deg2rad, rad2deg, sinc ------------------------------------------------------------------
def _np_scaled(factor: float) -> Any:
    def forward(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe") -> np.ndarray:
        return np.multiply(x, factor, out=out, dtype=dtype, casting=casting)  # type: ignore[no-any-return]
    return forward


def _np_sinc(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe") -> np.ndarray:
    """``sin(pi x) / (pi x)``, 1 at 0 (ATen's kernel)."""
    x = np.asarray(x, dtype=dtype)
    y = np.multiply(x, math.pi, dtype=dtype)
    np.copyto(out, np.where(x == 0, 1, np.sin(y) / y), casting=casting)
    return out


def _sinc_grad(g: Any, x: Any, r: Any) -> Any:
    """PyTorch's ``sinc_backward``: ``g (pi x cos(pi x) - sin(pi x)) / (pi x^2)``, 0 at 0."""
    x_pi = mul(x, math.pi)
    x_squared_pi = mul(mul(x, x), math.pi)
    out = div(mul(g, sub(mul(x_pi, cos(x_pi)), sin(x_pi))), x_squared_pi)
    return where(compare_eq(x_squared_pi, 0.0), 0.0, out)


DEG2RAD = Pointwise("deg2rad", _np_scaled(math.pi / 180), lambda g, x, r: mul(g, math.pi / 180), NOTHING)
RAD2DEG = Pointwise("rad2deg", _np_scaled(180 / math.pi), lambda g, x, r: mul(g, 180 / math.pi), NOTHING)
SINC = Pointwise("sinc", _np_sinc, _sinc_grad, SELF)
deg2rad, deg2rad_ = DEG2RAD.fn, DEG2RAD.fn_
rad2deg, rad2deg_ = RAD2DEG.fn, RAD2DEG.fn_
sinc, sinc_ = SINC.fn, SINC.fn_

# -- predicates (bool results, not differentiable) ------------------------------------------
ISNAN = Pointwise("isnan", _np_predicate(np.isnan), None, dtype=BOOL, inplace=False, domain="special")
ISINF = Pointwise("isinf", _np_predicate(np.isinf), None, dtype=BOOL, inplace=False, domain="special")
ISFINITE = Pointwise("isfinite", _np_predicate(np.isfinite), None, dtype=BOOL, inplace=False, domain="special")
ISPOSINF = Pointwise("isposinf", _np_predicate(np.isposinf), None, dtype=BOOL, inplace=False, domain="special")
ISNEGINF = Pointwise("isneginf", _np_predicate(np.isneginf), None, dtype=BOOL, inplace=False, domain="special")
SIGNBIT = Pointwise("signbit", _np_predicate(np.signbit), None, dtype=BOOL, inplace=False, domain="special")
isnan = ISNAN.fn
isinf = ISINF.fn
isfinite = ISFINITE.fn
isposinf = ISPOSINF.fn
isneginf = ISNEGINF.fn
signbit = SIGNBIT.fn

