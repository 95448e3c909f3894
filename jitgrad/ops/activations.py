"""Activation functions, declared (see ``declare.py``): ``relu``, ``hardtanh``, ``softplus``,
``elu``, ``gelu``, ``silu``, ``mish``, ``logit``, and the two masked gradients PyTorch's
double backward goes through (``threshold_backward``, ``hardtanh_backward``: their derivative
with respect to the input is zero, but they keep it in the graph, so the first gradient of
``relu`` requires grad under ``create_graph`` as PyTorch's does).

Forwards and derivatives follow ATen's CPU kernels and ``derivatives.yaml``; parameters
(``beta``, ``alpha``, ``approximate``, ...) are stored on the node.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autograd.grad_mode import no_grad
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..creation import zeros_like
from ..tensor import Tensor
from ..kernels import special as _special
from .compare import compare, logical_or, where
from .declare import FLOAT_ONLY, FLOATING, NO_BOOL, RESULT, SAME, SELF, Pointwise
from .elementwise import add, div, mul, sub
from .pointwise import ZERO_ONE, erf, exp, log1p, sigmoid, tanh

_SQRT1_2 = math.sqrt(0.5)
_GELU_ALPHA = 2.0 / math.sqrt(math.pi) * _SQRT1_2 * 0.5  # 1 / sqrt(2 pi)
_GELU_BETA = math.sqrt(2.0) * 2.0 / math.sqrt(math.pi) * 0.5  # sqrt(2 / pi)
_GELU_KAPPA = 0.044715


def _masked(g: Any, x: Any, lo: float | None, hi: float | None, out: np.ndarray, dtype: Any) -> np.ndarray:
    """``0`` where ``x <= lo`` or ``x >= hi`` (``x <= hi`` for relu's threshold), else ``g``."""
    np.copyto(out, g, casting="unsafe")
    dead = np.less_equal(x, lo) if hi is None else np.logical_or(np.less_equal(x, lo), np.greater_equal(x, hi))
    np.copyto(out, 0, where=dead)
    return out


# -- relu and its masked gradient ----------------------------------------------------------
def _np_threshold_backward(g: Any, x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe",
                           threshold: float = 0.0) -> np.ndarray:
    return _masked(g, x, threshold, None, out, dtype)


THRESHOLD_BACKWARD = Pointwise(
    "threshold_backward", _np_threshold_backward,
    (lambda gg, g, x, r, threshold: threshold_backward(gg, x, threshold=threshold),
     lambda gg, g, x, r, threshold: zeros_like(x)),
    SELF, dtype=SAME, refuse=NO_BOOL, arity=2, tensors_only=True, params={"threshold": 0.0}, names=("grad_output", "self"), inplace=False, method=False, export=False,
    domain="grad-kinks", reference="ops.aten.threshold_backward", layout_order=(1, 0))
threshold_backward = THRESHOLD_BACKWARD.fn


def _np_relu(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe") -> np.ndarray:
    if x.dtype is dtype and out.dtype is dtype and dtype in ZERO_ONE:
        return np.maximum(x, ZERO_ONE[dtype][0], out=out)  # (the same loop and values)
    return np.maximum(x, 0, out=out, dtype=dtype, casting=casting)


RELU = Pointwise("relu", _np_relu, lambda g, x, r: threshold_backward(g, r, threshold=0.0), RESULT,
                 dtype=SAME, refuse=NO_BOOL, refuse_error=RuntimeError, domain="kinks")
relu, relu_ = RELU.fn, RELU.fn_


# -- hardtanh ------------------------------------------------------------------------------
def _np_hardtanh_backward(g: Any, x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe",
                          min_val: float = -1.0, max_val: float = 1.0) -> np.ndarray:
    return _masked(g, x, min_val, max_val, out, dtype)


HARDTANH_BACKWARD = Pointwise(
    "hardtanh_backward", _np_hardtanh_backward,
    (lambda gg, g, x, r, min_val, max_val: hardtanh_backward(gg, x, min_val=min_val, max_val=max_val),
     lambda gg, g, x, r, min_val, max_val: zeros_like(x)),
    SELF, dtype=SAME, refuse=FLOAT_ONLY, arity=2, tensors_only=True, params={"min_val": -1.0, "max_val": 1.0}, names=("grad_output", "self"), inplace=False, method=False, export=False,
    domain="grad-kinks", reference="ops.aten.hardtanh_backward")
hardtanh_backward = HARDTANH_BACKWARD.fn


def _np_hardtanh(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe",
                 min_val: float = -1.0, max_val: float = 1.0) -> np.ndarray:
    np.maximum(x, min_val, out=out, dtype=dtype, casting=casting)
    return np.minimum(out, max_val, out=out, dtype=dtype, casting=casting)


HARDTANH = Pointwise(
    "hardtanh", _np_hardtanh,
    lambda g, x, r, min_val, max_val: hardtanh_backward(g, x, min_val=min_val, max_val=max_val),
    SELF, dtype=SAME, refuse=NO_BOOL, refuse_error=RuntimeError,
    params={"min_val": -1.0, "max_val": 1.0}, method=False, export=False, domain="kinks",
    reference="nn.functional.hardtanh")
hardtanh, hardtanh_ = HARDTANH.fn, HARDTANH.fn_


# -- softplus, elu -------------------------------------------------------------------------
def _np_softplus(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe",
                 beta: float = 1.0, threshold: float = 20.0) -> np.ndarray:
    """``x`` where ``x * beta > threshold``, else ``log1p(exp(x * beta)) / beta``."""
    bx = np.multiply(x, beta, dtype=dtype, casting=casting)
    np.divide(np.log1p(np.exp(bx)), beta, out=out, dtype=dtype, casting=casting)
    np.copyto(out, np.broadcast_to(np.asarray(x), out.shape), where=bx > threshold, casting="unsafe")
    return out


def _softplus_grad(g: Any, x: Any, r: Any, beta: float, threshold: float) -> Any:
    bx = mul(x, beta)
    z = exp(bx)
    return where(compare(np.greater, bx, threshold), g, div(mul(g, z), add(z, 1)))


SOFTPLUS = Pointwise("softplus", _np_softplus, _softplus_grad, SELF, dtype=SAME, refuse=FLOAT_ONLY,
                     params={"beta": 1.0, "threshold": 20.0}, inplace=False, method=False, export=False,
                 reference="nn.functional.softplus")
softplus = SOFTPLUS.fn


def _np_elu(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe", alpha: float = 1.0) -> np.ndarray:
    np.expm1(x, out=out, dtype=dtype, casting=casting)
    np.multiply(out, alpha, out=out, dtype=dtype, casting=casting)
    np.copyto(out, x, where=np.greater(x, 0), casting="unsafe")
    return out


def _scaled(t: Any, c: float) -> Any:
    """``t * c`` (``t`` itself for 1: the same values, one node less under create_graph)."""
    return t if c == 1.0 else mul(t, c)


def elu_backward(g: Any, x_or_r: Any, alpha: float, scale: float, input_scale: float, is_result: bool) -> Any:
    """ATen's ``elu_backward``: from the input, ``g * input_scale * alpha * scale *
    exp(x * input_scale)`` where ``x <= 0``, else ``g * scale``; from the result ``r`` (an
    in-place ``elu_``, which keeps no copy of its input), ``g * input_scale * (r + alpha *
    scale)`` where ``r <= 0`` (PyTorch refuses a negative ``alpha`` there: ``r`` no longer
    tells the sides apart). Recorded as one ``EluBackwardBackward0`` (PyTorch's derivative of
    it, whose mask is ``< 0``: no second derivative at 0)."""
    if is_result and alpha < 0:
        raise RuntimeError(
            "In-place elu backward calculation is triggered with a negative slope which is not supported. "
            "This is caused by calling in-place forward function with a negative slope, please call "
            "out-of-place version instead.")
    negcoef = alpha * scale
    with no_grad():
        if is_result:
            negative = mul(_scaled(g, input_scale), add(x_or_r, negcoef))
        else:
            negative = mul(_scaled(_scaled(g, input_scale), negcoef), exp(_scaled(x_or_r, input_scale)))
        out = where(compare(np.less_equal, x_or_r, 0), negative, _scaled(g, scale))
    if needs_grad(g, x_or_r):
        node = EluBackwardBackward0(alpha, scale, input_scale, is_result)
        record(node, (g, x_or_r), (out,))
        node.save(g, x_or_r)
    return out


class EluBackwardBackward0(SavingNode):
    """The derivative of ``elu_backward`` (ATen's ``elu_double_backward`` for the input or
    result: zero where it is not negative)."""

    def __init__(self, alpha: float, scale: float, input_scale: float, is_result: bool) -> None:
        super().__init__()
        self.alpha, self.scale, self.input_scale, self.is_result = alpha, scale, input_scale, is_result

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        gg = grads[0]
        g, x = self.unpack()
        coefs = (self.alpha, self.scale, self.input_scale)
        d_grad = elu_backward(gg, x, *coefs, self.is_result) if self.needs_input_grad(0) else None
        d_x = None
        if self.needs_input_grad(1):
            scaled = _scaled(mul(gg, g), self.input_scale)
            if not self.is_result:
                scaled = elu_backward(scaled, x, *coefs, False)
            d_x = mul(scaled, where(compare(np.less, x, 0), 1.0, 0.0))  # (0 * -y: -0.0, as PyTorch)
        return (d_grad, d_x)


ELU = Pointwise("elu", _np_elu, lambda g, x, r, alpha: elu_backward(g, x, alpha, 1.0, 1.0, False),
                SELF, dtype=SAME, refuse=FLOAT_ONLY, params={"alpha": 1.0}, method=False, export=False,
                reference="nn.functional.elu",
                inplace_grads=lambda g, x, r, alpha: elu_backward(g, r, alpha, 1.0, 1.0, True),
                inplace_saves=RESULT, inplace_number=1)
elu, elu_ = ELU.fn, ELU.fn_


# -- gelu, silu, mish ----------------------------------------------------------------------
def _check_gelu(op: str, x: Any, approximate: str = "none") -> None:
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"{op}: approximate must be 'none' or 'tanh' (got {approximate!r})")


def _np_gelu(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe", approximate: str = "none") -> np.ndarray:
    x = np.asarray(x, dtype=dtype)
    if approximate == "tanh":
        inner = (x + _GELU_KAPPA * (x * x * x)) * _GELU_BETA
        np.multiply(0.5 * x, 1 + np.tanh(inner), out=out, casting=casting)
    else:
        np.multiply(x * 0.5, 1 + _special.ufunc("erf")(x * dtype.type(_SQRT1_2)), out=out, casting=casting)
    return out


def _gelu_grad(g: Any, x: Any, r: Any, approximate: str) -> Any:
    if approximate == "tanh":
        x_sq = mul(x, x)
        inner = mul(add(x, mul(mul(x_sq, x), _GELU_KAPPA)), _GELU_BETA)
        t = tanh(inner)
        left_derivative = mul(add(t, 1), 0.5)
        right_derivative = mul(mul(mul(x, 0.5), sub(1, mul(t, t))), mul(add(mul(x_sq, 3 * _GELU_KAPPA), 1), _GELU_BETA))
        return mul(g, add(left_derivative, right_derivative))
    cdf = mul(add(erf(mul(x, _SQRT1_2)), 1), 0.5)
    pdf = mul(exp(mul(mul(x, x), -0.5)), _GELU_ALPHA)
    return mul(g, add(cdf, mul(x, pdf)))


GELU = Pointwise("gelu", _np_gelu, _gelu_grad, SELF, dtype=SAME, refuse=FLOAT_ONLY, params={"approximate": "none"},
                 check=_check_gelu, inplace=False, method=False, export=False,
                 reference="nn.functional.gelu")
gelu = GELU.fn


def _np_silu(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe") -> np.ndarray:
    x = np.asarray(x, dtype=dtype)
    return np.divide(x, 1 + np.exp(-x), out=out, casting=casting)


def _silu_grad(g: Any, x: Any, r: Any) -> Any:
    s = sigmoid(x)
    return mul(mul(g, s), add(mul(x, sub(1, s)), 1))


SILU = Pointwise("silu", _np_silu, _silu_grad, SELF, dtype=SAME, refuse=FLOAT_ONLY, method=False, export=False,
                 reference="nn.functional.silu")
silu, silu_ = SILU.fn, SILU.fn_


def _np_mish(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe") -> np.ndarray:
    x = np.asarray(x, dtype=dtype)
    return np.multiply(x, np.tanh(np.log1p(np.exp(x))), out=out, casting=casting)


def _mish_grad(g: Any, x: Any, r: Any) -> Any:
    t = tanh(log1p(exp(x)))
    return mul(g, add(t, mul(mul(x, sigmoid(x)), sub(1, mul(t, t)))))


MISH = Pointwise("mish", _np_mish, _mish_grad, SELF, dtype=SAME, refuse=FLOAT_ONLY, method=False, export=False,
                 reference="nn.functional.mish")
mish, mish_ = MISH.fn, MISH.fn_


# -- logit ---------------------------------------------------------------------------------
def _np_logit(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe", eps: float | None = None) -> np.ndarray:
    z = np.asarray(x, dtype=dtype)
    if eps is not None:
        z = np.clip(z, eps, 1 - eps)
    return np.log(np.divide(z, 1 - z), out=out, casting=casting)


def _logit_grad(g: Any, x: Any, r: Any, eps: float | None) -> Any:
    base = div(g, mul(x, sub(1, x)))
    lo, hi = (0.0, 1.0) if eps is None else (eps, 1 - eps)
    outside = logical_or(compare(np.less, x, lo), compare(np.greater, x, hi))
    return where(outside, math.nan if eps is None else 0.0, base)


LOGIT = Pointwise("logit", _np_logit, _logit_grad, SELF, dtype=FLOATING, params={"eps": None}, domain="prob")
logit, logit_ = LOGIT.fn, LOGIT.fn_

__all__ = ["elu", "elu_", "gelu", "hardtanh", "hardtanh_", "logit", "logit_", "mish", "mish_", "relu", "relu_",
           "silu", "silu_", "softplus"]
