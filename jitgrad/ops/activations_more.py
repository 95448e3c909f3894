"""More activations, declared (see ``declare.py``) so that they record PyTorch's nodes, in
place too: ``selu`` (``EluBackward0``; in place ``EluBackward1``), ``celu`` (``CeluBackward0``
/ ``1``), ``leaky_relu`` (``LeakyReluBackward0`` / ``1``), ``rrelu`` outside training
(``RreluWithNoiseBackward0`` / ``1``), ``threshold`` (``ThresholdBackward0``
/ ``1``), ``hardshrink``, ``softshrink``, ``hardsigmoid`` and ``hardswish``. The in-place forms whose node is numbered 1 read
the result (``elu_backward``'s ``is_result``), as PyTorch's in-place kernels keep no copy of
their input; ``threshold_`` keeps one. Forwards and derivatives follow ATen's CPU kernels.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.grad_mode import no_grad
from ..autograd.graph import needs_grad, record
from ..creation import zeros_like
from .activations import elu_backward, threshold_backward
from .compare import compare, logical_and, where
from .declare import FLOAT_ONLY, NO_BOOL, RESULT, SAME, SELF, Pointwise
from .elementwise import add, div, mul
from .gather_scatter import NotImplementedBackward

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
_ONE_SIXTH = float(np.float32(1.0) / np.float32(6.0))  # (ATen's ``1.0f / 6.0f``, in any dtype)


def _np_elu(x: Any, out: np.ndarray, dtype: Any, casting: str, negcoef: float, poscoef: float,
            negiptcoef: float) -> np.ndarray:
    """ATen's elu: ``expm1(x * negiptcoef) * negcoef`` where ``x <= 0``, else ``x * poscoef``."""
    np.multiply(x, negiptcoef, out=out, dtype=dtype, casting=casting)
    np.expm1(out, out=out)
    np.multiply(out, negcoef, out=out)
    np.copyto(out, np.multiply(x, poscoef, dtype=dtype, casting=casting), where=np.greater(x, 0))
    return out


# -- selu, celu: elu with a scale / an input scale -----------------------------------------------
def _np_selu(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe") -> np.ndarray:
    return _np_elu(x, out, dtype, casting, SELU_ALPHA * SELU_SCALE, SELU_SCALE, 1.0)


SELU = Pointwise(
    "selu", _np_selu, lambda g, x, r: elu_backward(g, x, SELU_ALPHA, SELU_SCALE, 1.0, False), SELF,
    dtype=SAME, refuse=FLOAT_ONLY, node_name="EluBackward", method=False, export=False,
    reference="nn.functional.selu",
    inplace_grads=lambda g, x, r: elu_backward(g, r, SELU_ALPHA, SELU_SCALE, 1.0, True), inplace_saves=RESULT,
    inplace_number=1)
selu, selu_ = SELU.fn, SELU.fn_


def _check_celu(op: str, x: Any, alpha: float = 1.0) -> None:
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")


def _np_celu(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe", alpha: float = 1.0) -> np.ndarray:
    return _np_elu(x, out, dtype, casting, alpha, 1.0, 1.0 / alpha)


def _celu_input_scale(alpha: float) -> float:
    """The input scale of celu's derivative: ``1 / alpha`` with ``alpha`` rounded to float32
    first (``derivatives.yaml``'s ``1.0/alpha.toFloat()``; the forward divides in double)."""
    return 1.0 / float(np.float32(alpha))


CELU = Pointwise(
    "celu", _np_celu, lambda g, x, r, alpha: elu_backward(g, x, alpha, 1.0, _celu_input_scale(alpha), False),
    SELF, dtype=SAME, refuse=FLOAT_ONLY, params={"alpha": 1.0}, check=_check_celu, method=False, export=False,
    reference="nn.functional.celu",
    inplace_grads=lambda g, x, r, alpha: elu_backward(g, r, alpha, 1.0, _celu_input_scale(alpha), True),
    inplace_saves=RESULT, inplace_number=1)
celu, celu_ = CELU.fn, CELU.fn_


# -- leaky_relu ------------------------------------------------------------------------------------
def _np_leaky_relu(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe",
                   negative_slope: float = 0.01) -> np.ndarray:
    """``x`` where ``x > 0``, else ``x * negative_slope``."""
    np.multiply(x, negative_slope, out=out, dtype=dtype, casting=casting)
    np.copyto(out, x, where=np.greater(x, 0), casting="unsafe")
    return out


def _np_leaky_relu_backward(g: Any, x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe",
                            negative_slope: float = 0.01, self_is_result: bool = False) -> np.ndarray:
    np.multiply(g, negative_slope, out=out, dtype=dtype, casting=casting)
    np.copyto(out, np.broadcast_to(np.asarray(g), out.shape), where=np.greater(x, 0), casting="unsafe")
    return out


# the first derivative as an op of its own, as PyTorch's: it keeps ``self`` in the graph of
# the gradient (whose derivative with respect to it is zero), so that under create_graph the
# gradient requires grad as PyTorch's does
LEAKY_RELU_BACKWARD = Pointwise(
    "leaky_relu_backward", _np_leaky_relu_backward,
    (lambda gg, g, x, r, negative_slope, self_is_result: _leaky_relu_backward(gg, x, negative_slope, self_is_result),
     lambda gg, g, x, r, negative_slope, self_is_result: zeros_like(x)),
    SELF, dtype=SAME, refuse=FLOAT_ONLY, arity=2, tensors_only=True,
    params={"negative_slope": 0.01, "self_is_result": False}, names=("grad_output", "self"), inplace=False,
    method=False, export=False, domain="grad-kinks", reference="ops.aten.leaky_relu_backward")
_leaky_relu_backward = LEAKY_RELU_BACKWARD.fn


def leaky_relu_backward(g: Any, x_or_r: Any, negative_slope: float, is_result: bool) -> Any:
    """ATen's ``leaky_relu_backward``: ``g`` where ``x > 0`` (or the result ``r > 0``: the
    in-place form, which PyTorch refuses for a negative slope), else ``g * negative_slope``."""
    if is_result and negative_slope < 0:
        raise RuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
            "supported. This is caused by calling in-place forward function with a negative slope, please "
            "call out-of-place version instead. File an issue at https://github.com/pytorch/pytorch if you "
            "do require supporting in-place leakRelu backward calculation with negative slope")
    return _leaky_relu_backward(g, x_or_r, negative_slope=negative_slope, self_is_result=is_result)


LEAKY_RELU = Pointwise(
    "leaky_relu", _np_leaky_relu, lambda g, x, r, negative_slope: leaky_relu_backward(g, x, negative_slope, False),
    SELF, dtype=SAME, refuse=FLOAT_ONLY, params={"negative_slope": 0.01}, method=False,
    export=False, domain="kinks", reference="nn.functional.leaky_relu",
    inplace_grads=lambda g, x, r, negative_slope: leaky_relu_backward(g, r, negative_slope, True),
    inplace_saves=RESULT, inplace_number=1)
leaky_relu, leaky_relu_ = LEAKY_RELU.fn, LEAKY_RELU.fn_


def _np_rrelu(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe", lower: float = 1.0 / 8,
              upper: float = 1.0 / 3) -> np.ndarray:
    return _np_leaky_relu(x, out, dtype, casting, (lower + upper) / 2)


# ``rrelu`` outside training: ``leaky_relu`` with the mean slope, as ``RreluWithNoiseBackward0``
# (in place ``1``); training draws the slopes (``nn/_extra_functional.py``)
RRELU = Pointwise(
    "rrelu", _np_rrelu, lambda g, x, r, lower, upper: leaky_relu_backward(g, x, (lower + upper) / 2, False),
    SELF, dtype=SAME, refuse=FLOAT_ONLY, params={"lower": 1.0 / 8, "upper": 1.0 / 3},
    node_name="RreluWithNoiseBackward", method=False, export=False, domain="kinks",
    reference="nn.functional.rrelu",
    inplace_grads=lambda g, x, r, lower, upper: leaky_relu_backward(g, r, (lower + upper) / 2, True),
    inplace_saves=RESULT, inplace_number=1)
rrelu, rrelu_ = RRELU.fn, RRELU.fn_


# -- threshold -------------------------------------------------------------------------------------
def _np_threshold(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe", threshold: float = 0.0,
                  value: float = 0.0) -> np.ndarray:
    """``value`` where ``x <= threshold``, else ``x``."""
    np.copyto(out, x, casting="unsafe")
    np.copyto(out, np.asarray(value).astype(out.dtype), where=np.less_equal(x, threshold))
    return out


THRESHOLD = Pointwise(
    "threshold", _np_threshold, lambda g, x, r, threshold, value: threshold_backward(g, x, threshold=threshold),
    SELF, dtype=SAME, refuse=NO_BOOL, params={"threshold": 0.0, "value": 0.0},
    method=False, export=False, domain="kinks", reference="nn.functional.threshold", inplace_number=1)
threshold, threshold_ = THRESHOLD.fn, THRESHOLD.fn_


# -- hardshrink, softshrink: ATen's kernels -----------------------------------------------------------
def _shrunk(x: Any, lambd: float) -> Any:
    """Where ATen's shrink kernels give nothing: ``-lambd <= x <= lambd``."""
    return np.logical_and(np.greater_equal(x, -lambd), np.less_equal(x, lambd))


def _np_hardshrink(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe", lambd: float = 0.5) -> np.ndarray:
    np.copyto(out, x, casting=casting)
    np.copyto(out, 0, where=_shrunk(x, lambd))
    return out


def _np_softshrink(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe", lambd: float = 0.5) -> np.ndarray:
    """(Zeros where shrunk, as ATen's vectorised kernel gives them; NaN stays NaN.)"""
    out.fill(0)
    np.copyto(out, np.subtract(x, lambd, dtype=dtype, casting=casting), where=np.greater(x, lambd))
    np.copyto(out, np.add(x, lambd, dtype=dtype, casting=casting), where=np.less(x, -lambd))
    np.copyto(out, x, casting=casting, where=np.isnan(x))
    return out


def _np_shrink_backward(g: Any, x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe",
                        lambd: float = 0.5) -> np.ndarray:
    """ATen's ``hardshrink_backward`` (``softshrink_backward`` is the same): nothing where the
    input was shrunk to zero, the gradient elsewhere."""
    np.copyto(out, g, casting=casting)
    np.copyto(out, 0, where=_shrunk(x, lambd))
    return out


def _shrink_backward_decl(name: str) -> Pointwise:
    decl: Pointwise = Pointwise(
        name, _np_shrink_backward,
        (lambda gg, g, x, r, lambd: decl.fn(gg, x, lambd=lambd), lambda gg, g, x, r, lambd: zeros_like(x)),
        SELF, dtype=SAME, refuse=FLOAT_ONLY, arity=2, tensors_only=True, params={"lambd": 0.5},
        names=("grad_out", "self"), inplace=False, method=False, export=False, domain="grad-kinks",
        reference=f"ops.aten.{name}")
    return decl


HARDSHRINK_BACKWARD = _shrink_backward_decl("hardshrink_backward")
SOFTSHRINK_BACKWARD = _shrink_backward_decl("softshrink_backward")


def _check_softshrink(op: str, x: Any, lambd: float = 0.5) -> None:
    if lambd < 0:
        names = {"float32": "Float", "float64": "Double", "float16": "Half"}
        raise RuntimeError(
            f"lambda must be in range [0, {float(np.finfo(x.dtype).max):g}] for input dtype "
            f"{names.get(x.dtype.name, x.dtype.name)}, but found {lambd:g}"
        )


HARDSHRINK = Pointwise(
    "hardshrink", _np_hardshrink, lambda g, x, r, lambd: HARDSHRINK_BACKWARD.fn(g, x, lambd=lambd), SELF, dtype=SAME,
    refuse=FLOAT_ONLY, params={"lambd": 0.5}, method=False, export=False, inplace=False, domain="kinks",
    reference="nn.functional.hardshrink")
hardshrink = HARDSHRINK.fn

SOFTSHRINK = Pointwise(
    "softshrink", _np_softshrink, lambda g, x, r, lambd: SOFTSHRINK_BACKWARD.fn(g, x, lambd=lambd), SELF, dtype=SAME,
    refuse=FLOAT_ONLY, params={"lambd": 0.5}, check=_check_softshrink, method=False, export=False,
    inplace=False, domain="kinks", reference="nn.functional.softshrink")
softshrink = SOFTSHRINK.fn


# -- hardsigmoid, hardswish ------------------------------------------------------------------------
def _np_hardsigmoid(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe") -> np.ndarray:
    """``min(max(x + 3, 0), 6) / 6``."""
    np.add(x, 3, out=out, dtype=dtype, casting=casting)
    np.clip(out, 0, 6, out=out)
    return np.divide(out, 6, out=out)


def _hardsigmoid_grad(g: Any, x: Any, r: Any) -> Any:
    """``g / 6`` strictly between -3 and 3 (the sixth ATen's kernel rounds to float32), else 0;
    PyTorch has no derivative of it (a backward through it raises)."""
    with no_grad():
        inside = logical_and(compare(np.greater, x, -3), compare(np.less, x, 3))
        out = where(inside, mul(g, _ONE_SIXTH), 0.0)
    if needs_grad(g, x):
        record(NotImplementedBackward("hardsigmoid_backward"), (g, x), (out,))
    return out


HARDSIGMOID = Pointwise(
    "hardsigmoid", _np_hardsigmoid, _hardsigmoid_grad, SELF, dtype=SAME, refuse=FLOAT_ONLY, method=False,
    export=False, domain="kinks", reference="nn.functional.hardsigmoid")
hardsigmoid, hardsigmoid_ = HARDSIGMOID.fn, HARDSIGMOID.fn_


def _np_hardswish(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe") -> np.ndarray:
    """``x * min(max(x + 3, 0), 6) / 6``."""
    np.add(x, 3, out=out, dtype=dtype, casting=casting)
    np.clip(out, 0, 6, out=out)
    np.multiply(x, out, out=out, dtype=dtype, casting=casting)
    return np.divide(out, 6, out=out)


def _hardswish_grad(g: Any, x: Any, r: Any) -> Any:
    """0 up to -3, ``g * (x / 3 + 1/2)`` below 3, ``g`` from 3 on."""
    middle = mul(g, add(div(x, 3), 0.5))
    return where(compare(np.less_equal, x, -3), 0.0, where(compare(np.less, x, 3), middle, g))


HARDSWISH = Pointwise(
    "hardswish", _np_hardswish, _hardswish_grad, SELF, dtype=SAME, refuse=FLOAT_ONLY, method=False,
    export=False, domain="kinks", reference="nn.functional.hardswish")
hardswish, hardswish_ = HARDSWISH.fn, HARDSWISH.fn_

__all__ = ["celu", "celu_", "hardsigmoid", "hardsigmoid_", "hardswish", "hardswish_", "leaky_relu", "leaky_relu_",
           "rrelu", "rrelu_", "selu", "selu_", "threshold", "threshold_"]
