"""The pointwise API around the declarations: ``where(condition)``, ``clamp_min`` /
``clamp_max`` / ``clip``, ``square``, ``div(rounding_mode=)`` as methods, and bad arguments
(PyTorch's error family, a message naming the op, nothing changed)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import jitgrad
from grad_oracle import assert_close, check, check_error

A = np.array([[0.5, -1.5, 2.0], [0.0, 3.0, -0.25]])
B = np.array([[1.5, 2.0, -0.5], [1.0, -2.0, 0.75]])


@pytest.mark.parametrize("values", [A, A > 0, np.array(2.0), np.zeros((0, 3))])
def test_where_condition_alone_is_nonzero(values: np.ndarray) -> None:
    ours = jitgrad.where(jitgrad.from_numpy(np.array(values)))
    theirs = torch.where(torch.from_numpy(np.array(values)))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert_close(a, b, "index")


PROGRAMS = {
    "clamp_min": lambda L, a: a.clamp_min(0.1),
    "clamp_max": lambda L, a: L.clamp_max(a, 0.1),
    "clip": lambda L, a: L.clip(a, -1.0, 1.0),
    "clip_tensor_bounds": lambda L, a, b: a.clip(b * 0 - 0.5, b),
    "clamp_min_": lambda L, a: (a * 1).clamp_min_(0.1),
    "clip_": lambda L, a: (a * 1).clip_(-1.0, 1.0),
    "square": lambda L, a: a.square(),
    "square_func": lambda L, a: L.square(a),
    "square_": lambda L, a: (a * 1).square_(),
    "div_floor_method": lambda L, a, b: a.div(b, rounding_mode="floor"),
    "div_trunc_func": lambda L, a, b: L.div(a, b, rounding_mode="trunc"),
    "div__floor": lambda L, a, b: (a * 1).div_(b, rounding_mode="floor"),
    "relu_abs_chain": lambda L, a: (a.relu() * a).abs().sum(),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_against_torch(name: str) -> None:
    fn = PROGRAMS[name]
    args = (A, B)[: fn.__code__.co_argcount - 1]
    check(fn, *args, double=name != "relu_abs_chain")  # (abs: PyTorch's ZeroTensor)


def test_integer_square_and_rounding_division() -> None:
    i, j = np.array([[-7, 7, 3]]), np.array([[2, -2, 3]])
    for fn in (lambda L, x, y: x.square(), lambda L, x, y: L.div(x, y, rounding_mode="floor"),
               lambda L, x, y: L.div(x, y, rounding_mode="trunc"), lambda L, x, y: L.remainder(x, y),
               lambda L, x, y: L.fmod(x, y)):
        check(fn, i, j)
    check(lambda L, b: b.square(), np.array([True, False]))


def test_hessian_vector_product_through_relu_and_abs_is_zeros() -> None:
    """Issue 12: the first gradient of relu/abs requires grad under create_graph, so a
    Hessian-vector product through them returns zeros, as PyTorch's."""
    for op in ("relu", "abs"):
        x = jitgrad.from_numpy(A.copy()).requires_grad_()
        (g,) = jitgrad.autograd.grad(getattr(x, op)().sum(), x, create_graph=True)
        assert g.requires_grad
        (hvp,) = jitgrad.autograd.grad((g * jitgrad.from_numpy(B)).sum(), x)
        np.testing.assert_array_equal(hvp.detach().numpy(), np.zeros_like(A))


BAD = {
    "div_rounding_mode": lambda L, a, b: L.div(a, b, rounding_mode="up"),
    "gelu_approximate": lambda L, a, b: L.nn.functional.gelu(a, approximate="fast"),
    "int_div_by_zero": lambda L, a, b: L.div(a.long(), (b * 0).long(), rounding_mode="floor"),
    "int_fmod_by_zero": lambda L, a, b: L.fmod(a.long(), 0),
    "int_remainder_by_zero": lambda L, a, b: L.remainder(a.long(), (b * 0).long()),
    "atan2_number": lambda L, a, b: L.atan2(a, 2.0),
    "logaddexp_number": lambda L, a, b: L.logaddexp(2.0, b),
    "fmod_number_first": lambda L, a, b: L.fmod(2.0, b),
    "lerp_number_end": lambda L, a, b: L.lerp(a, 2.0, 0.5),
    "where_one_value": lambda L, a, b: L.where(a > 0, a),
    "exp__int": lambda L, a, b: a.long().exp_(),
    "frac_int": lambda L, a, b: a.long().frac(),
    "silu_int": lambda L, a, b: L.nn.functional.silu(a.long()),
    "hypot_int": lambda L, a, b: L.hypot(a.long(), b.long()),
    "floor_bool": lambda L, a, b: (a > 0).floor(),
    "relu_bool": lambda L, a, b: (a > 0).relu(),
    "abs_bool": lambda L, a, b: (a > 0).abs(),
    "neg_bool": lambda L, a, b: -(a > 0),
    "round_decimals_int": lambda L, a, b: a.long().round(decimals=1),
    "addcdiv_int": lambda L, a, b: L.addcdiv(a, a.long(), b.long()),
    "exp__leaf": lambda L, a, b: a.exp_(),
    "sin__view_of_leaf": lambda L, a, b: a[0].sin_(),
    "atan2__broadcast_grows": lambda L, a, b: (a[0] * 1).atan2_(b),
}


@pytest.mark.parametrize("name", BAD)
def test_bad_arguments(name: str) -> None:
    check_error(BAD[name], A, B)


def test_errors_name_the_op_and_say_got() -> None:
    x = jitgrad.from_numpy(A)
    with pytest.raises(NotImplementedError, match=r"frac: .*got int64"):
        x.long().frac()
    with pytest.raises(TypeError, match=r"atan2\(\): argument 'other' \(position 2\) must be Tensor, not float"):
        jitgrad.atan2(x, 2.0)
    with pytest.raises(RuntimeError, match=r"remainder: ZeroDivisionError"):
        jitgrad.remainder(x.long(), 0)
    with pytest.raises(RuntimeError, match="gelu: approximate must be 'none' or 'tanh'"):
        jitgrad.nn.functional.gelu(x, approximate="fast")
    with pytest.raises(TypeError, match=r"exp\(\) takes 1 positional argument"):
        jitgrad.exp(x, 2)
    with pytest.raises(TypeError, match=r"round\(\) got an unexpected keyword argument 'digits'"):
        x.round(digits=1)
    with pytest.raises(TypeError, match=r"round\(\) takes 1 positional argument"):  # (decimals= by keyword)
        x.round(1, 2)
