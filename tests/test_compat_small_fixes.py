"""Small differences from PyTorch, each fixed and checked side by side: the same program runs
with ``lib=torch`` and ``lib=jitgrad`` (``both`` in ``compat_helpers.py``) and what came out,
node names and gradients included, must match."""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pytest
import torch

import jitgrad
from tests.compat_helpers import both, both_close, numbers, outcome


def _edges(t: Any) -> list[str | None]:
    return [None if f is None else f.name() for f, _ in t.grad_fn.next_functions]


# -- div with rounding_mode=None given: PyTorch's div.Tensor_mode overload, DivBackward2 ----------
@pytest.mark.parametrize("call", [
    lambda lib, x, y: lib.div(x, y, rounding_mode=None),
    lambda lib, x, y: lib.div(x, 2.5, rounding_mode=None),
    lambda lib, x, y: x.div(y, rounding_mode=None),
    lambda lib, x, y: x.divide(y, rounding_mode=None),
    lambda lib, x, y: lib.divide(x, y, rounding_mode=None),
    lambda lib, x, y: x.__truediv__(y, rounding_mode=None),
    lambda lib, x, y: (x * 1).div_(y, rounding_mode=None),
    lambda lib, x, y: (x * 1)[1:].div_(y[1:], rounding_mode=None),
    lambda lib, x, y: lib.div(x, y),
    lambda lib, x, y: x / y,
    lambda lib, x, y: lib.div(x, y, rounding_mode="floor"),
], ids=["div", "div-number", "method", "divide-method", "divide", "dunder", "in-place", "in-place-view",
        "no-keyword", "operator", "floor"])
def test_div_node_follows_the_rounding_mode_keyword(call: Any) -> None:
    def program(lib: Any) -> Any:
        x, y = numbers(lib, 3, grad=True), numbers(lib, 3, seed=1, grad=True)
        out = call(lib, x, y)
        out.backward(lib.ones_like(out))
        return out, out.grad_fn.name(), _edges(out), x.grad, y.grad

    both(program)


def test_div_rounding_mode_none_of_integers_is_true_division() -> None:
    both(lambda lib: lib.div(lib.tensor([1, 2, -3]), lib.tensor([2, 2, 2]), rounding_mode=None))


# -- in-place comparisons (recorded, zero gradients) and logical ops (not recorded at all) -------
COMPARISONS = ["eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "greater_equal_", "less_", "less_equal_",
               "not_equal_"]


@pytest.mark.parametrize("other", ["tensor", "number", "0-d", "row"])
@pytest.mark.parametrize("name", COMPARISONS)
def test_in_place_comparison_is_recorded_with_zero_gradients(name: str, other: str) -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([[1.5, 2.0, 3.0], [0.5, 2.0, -1.0]], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([[2.0, 2.0, 1.0]], dtype=lib.float64, requires_grad=True)
        operand = {"tensor": y.expand(2, 3) * 1, "number": 2.0, "0-d": y[0, 1], "row": y}[other]
        z = x * 1
        out = getattr(z, name)(operand)
        out.backward(lib.ones_like(out))
        return out is z, out, z._version, out.grad_fn.name(), _edges(out), x.grad, y.grad

    both(program)


@pytest.mark.parametrize("name", ["eq_", "lt_"])
def test_in_place_comparison_mixed_dtypes_and_refusals(name: str) -> None:
    both(lambda lib: getattr(lib.tensor([1, 2, 0]), name)(lib.tensor([1.5, 2.0, -0.5])))
    both(lambda lib: getattr(lib.tensor([True, False]), name)(0.5))
    both(lambda lib: getattr(lib.tensor([1.0, 2.0], dtype=lib.float64), name)(True))
    both(lambda lib: getattr(numbers(lib, 3, grad=True), name)(1.0), "a leaf Variable that requires grad")
    both(lambda lib: getattr(numbers(lib, 2), name)(numbers(lib, 2, 2)), "doesn't match the broadcast shape")
    both(lambda lib: getattr(numbers(lib, 2).expand(3, 2), name)(1.0), "more than one element")
    both(lambda lib: getattr(numbers(lib, 2), name)("x"), "")  # (the error type only)


@pytest.mark.parametrize("call", [
    lambda lib, t, u: t.logical_not_(),
    lambda lib, t, u: t.logical_and_(u),
    lambda lib, t, u: t.logical_or_(u),
    lambda lib, t, u: t.logical_xor_(u),
], ids=["not", "and", "or", "xor"])
def test_in_place_logical_op_records_nothing(call: Any) -> None:
    def on_a_non_leaf(lib: Any) -> Any:
        x = lib.tensor([1.5, 0.0, -3.0], dtype=lib.float64, requires_grad=True)
        u = lib.tensor([1.0, 1.0, 0.0], dtype=lib.float64, requires_grad=True)
        z = x * 2
        out = call(lib, z, u * 1)
        names = out is z, out.grad_fn.name(), _edges(out), z._version, out.requires_grad
        out.backward(lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64))
        return names, out, x.grad, u.grad

    def on_a_leaf(lib: Any) -> Any:  # (no leaf check: nothing is recorded)
        x = lib.tensor([1.5, 0.0, -3.0], dtype=lib.float64, requires_grad=True)
        out = call(lib, x, lib.tensor([0.0, 1.0, 1.0], dtype=lib.float64))
        return out, out.requires_grad, out.is_leaf, x._version

    def on_a_view(lib: Any) -> Any:
        x = lib.tensor([1.5, 0.0, -3.0, 2.0], dtype=lib.float64, requires_grad=True)
        z = x * 1
        v = z[1:]
        call(lib, v, lib.tensor([1.0, 0.0, 1.0], dtype=lib.float64))
        names = z.grad_fn.name(), v.grad_fn.name(), v._version
        (z * v.sum()).sum().backward()
        return names, z, x.grad

    def on_a_leafs_view(lib: Any) -> Any:
        x = lib.tensor([1.5, 0.0, -3.0, 2.0], dtype=lib.float64, requires_grad=True)
        v = x[1:]
        call(lib, v, lib.tensor([1.0, 0.0, 1.0], dtype=lib.float64))
        return x, v.grad_fn.name()

    def saved_value_changed(lib: Any) -> Any:
        x = lib.tensor([1.5, 0.0, -3.0], dtype=lib.float64, requires_grad=True)
        z = x * 1
        w = z * z
        call(lib, z, lib.ones(3, dtype=lib.float64))
        w.sum().backward()

    def only_other_requires_grad(lib: Any) -> Any:
        u = lib.tensor([1.0, 0.0, 2.0], dtype=lib.float64, requires_grad=True)
        out = call(lib, lib.tensor([0.0, 2.0, 1.0], dtype=lib.float64), u * 1)
        return out, out.requires_grad, out.grad_fn

    for program in (on_a_non_leaf, on_a_leaf, on_a_view, on_a_leafs_view, only_other_requires_grad):
        both(program)
    both(saved_value_changed, "modified by an inplace operation")


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
@pytest.mark.parametrize("other", [1.0, 1, True])
def test_logical_op_refuses_a_number_naming_its_position(name: str, other: Any) -> None:
    """PyTorch's logical ops take tensors only: the function names ``other`` as argument 2,
    the method as argument 1; tensors of any dtype give a bool result."""
    both(lambda lib: getattr(lib, name)(lib.tensor([1.0, 0.0]), other))
    both(lambda lib: getattr(lib.tensor([1.0, 0.0]), name)(other))
    both(lambda lib: getattr(lib, name)(lib.tensor([1.0, 0.0]), lib.tensor([2, 0])))


def test_in_place_logical_op_dtypes_and_refusals() -> None:
    both(lambda lib: lib.tensor([2, 0, 3]).logical_not_())
    both(lambda lib: lib.tensor([2, 0, 3]).logical_and_(lib.tensor([1.5, 1.0, 0.0])))
    both(lambda lib: lib.tensor([True, False]).logical_xor_(lib.tensor([1.5, 0.0])))
    both(lambda lib: lib.tensor([[2.0, 0.0]]).logical_or_(lib.tensor([1.0, 0.0])))
    both(lambda lib: lib.tensor([2.0, 0.0]).logical_or_(lib.tensor([[1.0, 0.0]])), "doesn't match the broadcast shape")
    both(lambda lib: lib.tensor([2.0, 0.0]).logical_and_(1.0), "must be Tensor, not float")
    both(lambda lib: lib.tensor([2.0, 0.0]).expand(3, 2).logical_not_(), "more than one element")
    both(lambda lib: (lambda t: t[1:].logical_and_(t[:3]))(lib.tensor([1.5, 0.0, 2.0, 0.0])),
         "refer to a single memory location")

    def unbind_output(lib: Any) -> Any:  # written; reading its history afterwards raises
        x = lib.tensor([[1.5, 0.0], [3.0, 1.0]], dtype=lib.float64, requires_grad=True)
        a, _ = (x * 1).unbind()
        a.logical_not_()
        return a.grad_fn

    both(unbind_output, "This view is the output of a function that returns multiple views")


def test_bitwise_not_true_divide_and_float_power_in_place() -> None:
    both(lambda lib: (lib.tensor([1, 2, -3]).bitwise_not_(), lib.tensor([True, False]).bitwise_not_()))
    both(lambda lib: numbers(lib, 2).bitwise_not_())
    both(lambda lib: lib.tensor([1, 2]).true_divide_(2), "can't be cast to the desired output type")
    both(lambda lib: lib.tensor([1.0, 2.0]).float_power_(2), "the base given to float_power_ has dtype Float")

    def program(lib: Any) -> Any:
        x, y = numbers(lib, 3, grad=True), numbers(lib, 3, seed=1, grad=True)
        outs = [(x * 1).true_divide_(y), (x * 1).true_divide_(2.0), (x.abs() * 1).float_power_(y),
                (x * 1).float_power_(2)]
        sum(o.sum() for o in outs).backward()
        return outs, [o.grad_fn.name() for o in outs], x.grad, y.grad

    both(program)


# -- tensor(): Python ints past int64, requires_grad that is not a bool ------------------------------
@pytest.mark.parametrize("data, dtype", [
    (2**64 - 1, None), (2**63, None), (-(2**63) - 1, None), (10**30, None), ([1, 2**64 - 1], None),
    ([[1], [2**63]], None), ((2**63,), None), ([True, 2**63], None), (2**63, "int64"), (2**63, "uint8"),
    (2**63, "float32"), (2**63, "bool"), ([1, 2**64], "float64"), ([1.5, 2**64], None), ([2**64, 1.5], None),
    (-(2**63), None), ([-(2**63), 2**63 - 1], None), (10**400, "float64"),
], ids=str)
def test_tensor_of_python_ints_past_int64(data: Any, dtype: str | None) -> None:
    both(lambda lib: lib.tensor(data, dtype=None if dtype is None else getattr(lib, dtype)))
    both(lambda lib: lib.as_tensor(data, dtype=None if dtype is None else getattr(lib, dtype)))


@pytest.mark.parametrize("value", ["False", 1, 0, None, 1.0], ids=repr)
def test_requires_grad_must_be_a_bool(value: Any) -> None:
    import numpy as np

    both(lambda lib: lib.tensor([1.0], requires_grad=value))
    both(lambda lib: lib.tensor([1.0], requires_grad=np.bool_(True)))
    both(lambda lib: lib.ones(2).requires_grad_(value))
    both(lambda lib: lib.ones(2).requires_grad_(np.bool_(False)))
    both(lambda lib: setattr(lib.ones(2), "requires_grad", value))
    for factory in ("zeros", "ones", "empty"):
        both(lambda lib: getattr(lib, factory)(2, requires_grad=value).requires_grad)
    for factory in ("zeros_like", "ones_like", "empty_like"):
        both(lambda lib: getattr(lib, factory)(lib.ones(2), requires_grad=value).requires_grad)
    both(lambda lib: lib.full((2,), 1.0, requires_grad=value).requires_grad)
    # (PyTorch's overloaded factories say "invalid combination of arguments": the type agrees)
    for make in (lambda lib: lib.arange(3.0, requires_grad=value), lambda lib: lib.rand(2, requires_grad=value),
                 lambda lib: lib.eye(2, requires_grad=value), lambda lib: lib.linspace(0, 1, 3, requires_grad=value)):
        both(lambda lib: make(lib).requires_grad, "requires_grad")


# -- clamp_min / clamp_max with a tensor bound: Clamp{Min,Max}Backward1, two edges -----------------
CLAMPS = {
    "clamp_min": lambda lib, x, b: x.clamp_min(b),
    "clamp_max": lambda lib, x, b: x.clamp_max(b),
    "torch.clamp_min": lambda lib, x, b: lib.clamp_min(x, b),
    "torch.clamp_max": lambda lib, x, b: lib.clamp_max(x, b),
    "clamp_min_": lambda lib, x, b: (x * 1).clamp_min_(b),
    "clamp_max_": lambda lib, x, b: (x * 1).clamp_max_(b),
    "clamp_min_-view": lambda lib, x, b: (x * 1)[:, 1:].clamp_min_(b[..., 1:] if b.dim() else b),
    "clamp(min=)": lambda lib, x, b: x.clamp(min=b),
    "clamp(max=)": lambda lib, x, b: lib.clamp(x, max=b),
    "clamp_(min=)": lambda lib, x, b: (x * 1).clamp_(min=b),
    "clip(min, max)": lambda lib, x, b: x.clip(b, b + 1),
}


@pytest.mark.parametrize("bound", ["row", "full", "0-d", "constant"])
@pytest.mark.parametrize("name", list(CLAMPS))
def test_clamp_with_a_tensor_bound(name: str, bound: str) -> None:
    def program(lib: Any) -> Any:
        # ties (x == b), nan on either side, the bound broadcast or not
        x = lib.tensor([[1.5, -2.0, 3.0, 2.0], [0.5, float("nan"), -1.0, 0.25]], dtype=lib.float64,
                       requires_grad=True)
        row = lib.tensor([2.0, -2.0, 1.0, float("nan")], dtype=lib.float64, requires_grad=True)
        b = {"row": row, "full": lib.stack([row, row.flip(0)]), "0-d": row[0],
             "constant": row.detach()}[bound]
        out = CLAMPS[name](lib, x, b)
        names = out.grad_fn.name(), _edges(out)
        g, = lib.autograd.grad(out, x, lib.ones_like(out) * 3, create_graph=True)
        out.backward(lib.arange(out.numel(), dtype=lib.float64).reshape(out.shape))
        return out, names, x.grad, row.grad, g, g.requires_grad

    both(program)


def test_clamp_min_with_a_tensor_bound_of_another_dtype() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([1.5, -2.0, 3.0], dtype=lib.float32, requires_grad=True)
        b = lib.tensor([2.0, -2.0, 1.0], dtype=lib.float64, requires_grad=True)
        out = x.clamp_min(b)
        out.sum().backward()
        return out, out.grad_fn.name(), x.grad, b.grad

    both(program)
    both(lambda lib: lib.tensor([1, 5]).clamp_max(lib.tensor([2, 2])))
    both(lambda lib: lib.tensor([1.0, 5.0]).clamp_max_(lib.tensor([2.0, 2.0], dtype=lib.float64)), "")


# -- activations in place: the node PyTorch's in-place kernel records (EluBackward1, ...) ---------
ACTIVATIONS = {
    "elu": lambda lib, t: lib.nn.functional.elu(t, 0.7, inplace=True),
    "elu_": lambda lib, t: lib.nn.functional.elu_(t),
    "selu": lambda lib, t: lib.nn.functional.selu(t, inplace=True),
    "selu_": lambda lib, t: lib.nn.functional.selu_(t),
    "celu": lambda lib, t: lib.nn.functional.celu(t, 0.7, inplace=True),
    "celu_": lambda lib, t: lib.nn.functional.celu_(t, 0.9),  # (1.3: expm1 differs by 1 ulp at -2 in libm)
    "leaky_relu": lambda lib, t: lib.nn.functional.leaky_relu(t, 0.2, inplace=True),
    "leaky_relu_": lambda lib, t: lib.nn.functional.leaky_relu_(t),
    "rrelu": lambda lib, t: lib.nn.functional.rrelu(t, 0.1, 0.3, inplace=True),
    "rrelu_": lambda lib, t: lib.nn.functional.rrelu_(t),
    "threshold": lambda lib, t: lib.nn.functional.threshold(t, 0.25, -2.0, inplace=True),
    "threshold_": lambda lib, t: lib.nn.functional.threshold_(t, 0.0, 0.5),
    "hardsigmoid": lambda lib, t: lib.nn.functional.hardsigmoid(t, inplace=True),
    "hardswish": lambda lib, t: lib.nn.functional.hardswish(t, inplace=True),
    "relu": lambda lib, t: lib.nn.functional.relu(t, inplace=True),
    "relu6": lambda lib, t: lib.nn.functional.relu6(t, inplace=True),
    "hardtanh_": lambda lib, t: lib.nn.functional.hardtanh_(t, -0.5, 0.5),
    "silu": lambda lib, t: lib.nn.functional.silu(t, inplace=True),
    "nn.ELU": lambda lib, t: lib.nn.ELU(0.5, inplace=True)(t),
    "nn.SELU": lambda lib, t: lib.nn.SELU(inplace=True)(t),
    "nn.CELU": lambda lib, t: lib.nn.CELU(inplace=True)(t),
    "nn.LeakyReLU": lambda lib, t: lib.nn.LeakyReLU(0.05, inplace=True)(t),
    "nn.RReLU": lambda lib, t: lib.nn.RReLU(inplace=True).eval()(t),
    "nn.Threshold": lambda lib, t: lib.nn.Threshold(0.1, 20.0, inplace=True)(t),
    "nn.Hardsigmoid": lambda lib, t: lib.nn.Hardsigmoid(inplace=True)(t),
    "nn.Hardswish": lambda lib, t: lib.nn.Hardswish(inplace=True)(t),
}
# kinks and ties: zeros of both signs, the threshold, hardsigmoid's and hardswish's -3 and 3
VALUES = [1.5, -2.0, 0.0, -0.0, 0.3, 0.25, -3.0, 3.0, -4.5, 5.0, -0.7, 0.1]


def _activation_program(name: str, where: str) -> Any:
    def program(lib: Any) -> Any:
        x = lib.tensor(VALUES, dtype=lib.float64, requires_grad=True)
        y = x * 1
        target = {"tensor": y, "view": y[1::2], "base-view": y.view(3, 4)[:, 1:]}[where]
        out = ACTIVATIONS[name](lib, target)
        nodes = out is target, out.grad_fn.name(), _edges(out), y.grad_fn.name(), _edges(y), y._version
        w = lib.linspace(-1.0, 2.0, 12, dtype=lib.float64)
        (g,) = lib.autograd.grad(y, x, w, create_graph=True)
        return nodes, y, g, g.requires_grad

    return program


@pytest.mark.parametrize("where", ["tensor", "view", "base-view"])
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_in_place_records_pytorchs_node(name: str, where: str) -> None:
    both(_activation_program(name, where))


@pytest.mark.parametrize("name", ["elu", "selu", "celu", "leaky_relu", "rrelu", "threshold", "hardsigmoid",
                                  "hardswish"])
def test_activation_out_of_place_records_pytorchs_node(name: str) -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor(VALUES, dtype=lib.float64, requires_grad=True)
        args = {"threshold": (0.25, -2.0), "rrelu": (0.1, 0.3)}.get(name, ())
        out = getattr(lib.nn.functional, name)(x * 1, *args)
        (g,) = lib.autograd.grad(out, x, lib.linspace(-1.0, 2.0, 12, dtype=lib.float64), create_graph=True)
        second = None
        if name != "hardsigmoid":  # (no derivative of its derivative: see below)
            (second,) = lib.autograd.grad(g.sum(), x, allow_unused=True)
        return out, out.grad_fn.name(), g, g.requires_grad, g.grad_fn.name(), second

    both(program)


def test_hardsigmoid_has_no_second_derivative() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor(VALUES, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(lib.nn.functional.hardsigmoid(x).sum(), x, create_graph=True)
        assert g.grad_fn.name() == "torch::autograd::NotImplemented"
        g.sum().backward()

    both(program)


@pytest.mark.parametrize("call", [
    lambda lib, t: lib.nn.functional.elu_(t, -0.5),
    lambda lib, t: lib.nn.functional.celu_(t, -0.5),
    lambda lib, t: lib.nn.functional.leaky_relu_(t, -0.5),
    lambda lib, t: lib.nn.functional.rrelu_(t, -0.5, -0.2),
], ids=["elu_", "celu_", "leaky_relu_", "rrelu_"])
def test_in_place_activation_with_a_negative_slope_refuses_backward(call: Any) -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor(VALUES, dtype=lib.float64, requires_grad=True)
        y = x * 1
        out = call(lib, y)
        out.sum().backward()

    both(program, "backward calculation is triggered with a negative slope which is not supported")
    both(lambda lib: call(lib, lib.tensor(VALUES, dtype=lib.float64)))  # (without autograd: fine)


def test_celu_refuses_alpha_zero() -> None:
    both(lambda lib: lib.nn.functional.celu(lib.tensor(VALUES, dtype=lib.float64), 0.0))


# -- Tensor.storage(): PyTorch's TypedStorage deprecation warning, once per process -----------------
def test_typed_storage_warns_once_per_process() -> None:
    import warnings

    def program(lib: Any) -> Any:
        lib.storage._reset_warn_typed_storage_removal()
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            x = lib.ones(3)
            s = x.storage()  # (the line the warning names)
            x.storage().size(), len(s), s.element_size(), s.data_ptr() == x.data_ptr()
            x.untyped_storage()
            lib.set_warn_always(True)  # (not the switch of this warning)
            lib.zeros(2).storage()
            lib.set_warn_always(False)
        after_reset = []
        lib.storage._reset_warn_typed_storage_removal()
        with warnings.catch_warnings(record=True) as again:
            warnings.simplefilter("always")
            lib.zeros(1).storage()
            after_reset.append(len(again))
        return ([(w.category.__name__, str(w.message), w.filename, w.lineno) for w in seen], after_reset,
                lib.storage._get_always_warn_typed_storage_removal())

    both(program)


# -- in-place ops written from their out-of-place result: the op's own node (not CopyBackwards) ------
WRITES = {
    "tril_": lambda lib, t, s, i: t.tril_(),
    "triu_": lambda lib, t, s, i: t.triu_(1),
    "cumsum_": lambda lib, t, s, i: t.cumsum_(1),
    "scatter_": lambda lib, t, s, i: t.scatter_(1, i, s),
    "index_copy_": lambda lib, t, s, i: t.index_copy_(1, i[0], s),
    "scatter_-value": lambda lib, t, s, i: t.scatter_(1, i, 2.5),
    "scatter_-reduce": lambda lib, t, s, i: t.scatter_(1, i, s, reduce="multiply"),
    "scatter_add_": lambda lib, t, s, i: t.scatter_add_(1, i, s),
    "scatter_add_-repeats": lambda lib, t, s, i: t.scatter_add_(1, lib.tensor([[2, 2], [0, 0]]), s),
    "index_add_": lambda lib, t, s, i: t.index_add_(1, i[0], s),
    "index_add_-alpha-repeats": lambda lib, t, s, i: t.index_add_(1, lib.tensor([1, 1]), s, alpha=-2.5),
    "index_fill_": lambda lib, t, s, i: t.index_fill_(1, i[0], -1.5),
    "index_fill_-tensor": lambda lib, t, s, i: t.index_fill_(1, lib.tensor([2, 0, 2]), s[0, 1]),
    "masked_scatter_": lambda lib, t, s, i: t.masked_scatter_(
        lib.tensor([[True, False, True], [False, True, False]]), s),
    "masked_scatter_-row-mask": lambda lib, t, s, i: t.masked_scatter_(lib.tensor([False, True, True]), s),
    "scatter_reduce_-sum": lambda lib, t, s, i: t.scatter_reduce_(1, i, s, "sum"),
    "scatter_reduce_-mean": lambda lib, t, s, i: t.scatter_reduce_(1, i, s, "mean", include_self=False),
    "scatter_reduce_-amax": lambda lib, t, s, i: t.scatter_reduce_(1, i, s, "amax"),
    "scatter_reduce_-prod": lambda lib, t, s, i: t.scatter_reduce_(1, i, s, "prod", include_self=False),
    "cumprod_": lambda lib, t, s, i: t.cumprod_(1),
    "index_reduce_-prod": lambda lib, t, s, i: t.index_reduce_(1, i[0], s, "prod"),
    "index_reduce_-mean": lambda lib, t, s, i: t.index_reduce_(1, lib.tensor([1, 1]), s, "mean", include_self=False),
    "index_reduce_-amin": lambda lib, t, s, i: t.index_reduce_(1, i[0], s, "amin"),
}


@pytest.mark.parametrize("where", ["tensor", "view"])
@pytest.mark.parametrize("name", list(WRITES))
def test_in_place_op_records_its_own_node(name: str, where: str) -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([[0.5, -1.25, 2.0, 4.0], [1.5, 0.75, -0.3, 0.2], [1.0, 2.0, 3.0, 4.0]], dtype=lib.float64,
                       requires_grad=True)
        s = lib.tensor([[1.5, 0.5], [0.25, 2.0]], dtype=lib.float64, requires_grad=True)
        i = lib.tensor([[0, 2], [1, 0]])
        y = x * x
        target = y[1:, 1:] if where == "view" else y[:2, :3].clone()
        out = WRITES[name](lib, target, s, i)
        nodes = out is target, out.grad_fn.name(), _edges(out), y.grad_fn.name(), _edges(y)
        root = y if where == "view" else out
        w = lib.linspace(-1.0, 1.0, root.numel(), dtype=lib.float64).reshape(root.shape)
        try:
            gx, gs = lib.autograd.grad(root, (x, s), w, create_graph=True, allow_unused=True)
        except RuntimeError as e:  # (scatter_ with reduce: no derivative, in either library)
            return nodes, root, str(e).split(":")[-1]
        (second,) = lib.autograd.grad(gx.sum(), x, allow_unused=True)
        return nodes, root, gx, gs, second

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (index_reduce's beta warning, scatter's deprecated reduce)
        both(program)


@pytest.mark.parametrize("where", ["tensor", "view"])
def test_mvlgamma_in_place_records_its_own_node(where: str) -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([[1.5, 2.25, 3.0], [0.75, 4.0, 1.25]], dtype=lib.float64, requires_grad=True)
        y = x * 2
        target = y[1:] if where == "view" else y.clone()
        out = target.mvlgamma_(2)
        root = y if where == "view" else out
        nodes = out.grad_fn.name(), _edges(out), y.grad_fn.name(), _edges(y)
        (gx,) = lib.autograd.grad(root, x, lib.ones_like(root), create_graph=True)
        (second,) = lib.autograd.grad(gx.sum(), x)
        return nodes, root, gx, second

    both_close(program, rtol=1e-9)  # (the second derivative: trigamma, PyTorch's and SciPy's)


@pytest.mark.parametrize("name", ["lgamma_", "digamma_"])
def test_gamma_functions_in_place_record_their_own_node(name: str) -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([0.5, 1.5, 2.25], dtype=lib.float64, requires_grad=True)
        y = x * 2
        out = getattr(y, name)()
        z = (x * 1)[1:]
        getattr(z, name)()
        return out.grad_fn.name(), _edges(out), z.grad_fn.name(), z._base.grad_fn.name()

    both(program)


# -- found by the sweep (names jitgrad has, called both ways with simple float64 inputs) --------------
@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_fmax_fmin_record_their_own_node(name: str) -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([1.0, float("nan"), 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([[1.0], [float("nan")]], dtype=lib.float64, requires_grad=True)
        out = getattr(lib, name)(x, y)
        w = lib.arange(8.0, dtype=lib.float64).reshape(2, 4)
        gx, gy = lib.autograd.grad(out, (x, y), w, create_graph=True)
        return out, out.grad_fn.name(), _edges(out), gx, gy, gx.requires_grad

    both(program)


@pytest.mark.parametrize("call", [
    lambda lib, x: x.flip(), lambda lib, x: lib.flip(x), lambda lib, x: x.tile(), lambda lib, x: lib.tile(x),
    lambda lib, x: x.flip(0), lambda lib, x: x.tile(2),
    lambda lib, x: x.is_contiguous(memory_format=lib.contiguous_format), lambda lib, x: lib.mvlgamma(x + 3, 2.0),
    lambda lib, x: (x + 3).mvlgamma(2), lambda lib, x: lib.dist(x, 2.0), lambda lib, x: x.dist(x.flip(0)),
    lambda lib, x: x.sum_to_size(), lambda lib, x: x.sum_to_size(1, 3), lambda lib, x: lib.cartesian_prod(x),
    lambda lib, x: lib.cartesian_prod(x[0]), lambda lib, x: lib.cartesian_prod(x[0], x[1, :2]),
    lambda lib, x: lib.tensor([1.0], lib.float64), lambda lib, x: lib.as_tensor([1.0], lib.float64),
], ids=["flip()", "torch.flip()", "tile()", "torch.tile()", "flip(0)", "tile(2)", "is_contiguous(memory_format=)", "mvlgamma(float p)", "mvlgamma(2)", "dist(number)", "dist", "sum_to_size()",
        "sum_to_size(1, 3)", "cartesian_prod(2-d)", "cartesian_prod(1-d)", "cartesian_prod(two)", "tensor(data, dtype)",
        "as_tensor(data, dtype)"])
def test_argument_checks(call: Any) -> None:
    both(lambda lib: call(lib, lib.tensor([[0.5, -1.25, 2.0], [1.5, 0.75, -0.3]], dtype=lib.float64)))


def test_is_contiguous_takes_its_memory_format_by_keyword_only() -> None:
    # (Python's message names the method ``Tensor.is_contiguous`` and counts ``self``)
    both(lambda lib: lib.ones(2).is_contiguous(lib.contiguous_format), "positional argument")


def test_resize_as_and_from_dlpack_refuse_tensors_requiring_grad() -> None:
    both(lambda lib: numbers(lib, 2, 3, grad=True).resize_as_(numbers(lib, 2, 3)), "cannot resize variables that require grad")
    both(lambda lib: (numbers(lib, 2, 3, grad=True) * 1).resize_as_(numbers(lib, 6)), "cannot resize variables that require grad")
    both(lambda lib: numbers(lib, 2, 3, grad=True).detach().resize_as_(numbers(lib, 2, 3)))
    both(lambda lib: lib.from_dlpack(numbers(lib, 2, grad=True)))
    both(lambda lib: lib.from_dlpack(numbers(lib, 2)))


def test_heaviside_nextafter_polygamma_mvlgamma_in_place() -> None:
    def nodes(lib: Any) -> Any:
        x = lib.tensor([1.5, 0.0, 3.0], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([2.0, 2.0, 1.0], dtype=lib.float64, requires_grad=True)
        outs = [(x * 1).heaviside_(y * 1), (x * 1).nextafter_(y), (x + 1).polygamma_(1)]
        # (mvlgamma_: CopyBackwards, where PyTorch records MvlgammaBackward0; its out-of-place
        # form is a composition in jitgrad)
        return [(o.grad_fn.name(), _edges(o)) for o in outs], (x + 2).mvlgamma_(2).shape

    def heaviside_backward(lib: Any) -> Any:
        x = lib.tensor([1.5, 0.0, -3.0], dtype=lib.float64, requires_grad=True)
        out = (x * 1).heaviside_(lib.tensor([0.5], dtype=lib.float64))
        return out, out.sum().backward()

    def nextafter_grads(lib: Any) -> Any:
        x = lib.tensor([1.5, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([2.0, 2.0, 1.0], dtype=lib.float64, requires_grad=True)
        out = (x * 1)[1:].nextafter_(y[1:])
        out.sum().backward()
        return out, x.grad, y.grad

    both(nodes)
    both(heaviside_backward)
    both(nextafter_grads)
    both(lambda lib: lib.tensor([1.0, 0.0]).heaviside_(2.0))
    both(lambda lib: lib.tensor([1.0, 0.0]).nextafter_(2.0))
    both(lambda lib: lib.tensor([1, 2]).polygamma_(1), "can't be cast to the desired output type")


@pytest.mark.parametrize("name, args", [
    # (not celu_ here: its expm1 of -1.25 differs from PyTorch's vectorised one in the last bit)
    ("relu_", ()), ("exp_", ()), ("sigmoid_", ()), ("clamp_", (-0.5, 0.5)), ("clamp_min_", (0.0,)), ("selu_", ()),
    ("rrelu_", ()), ("threshold_", (0.0, 2.0)), ("square_", ()), ("zero_", ()), ("fill_", (2.0,)),
    ("nan_to_num_", ()), ("xlogy_", (2.0,)), ("round_", ()), ("neg_", ()),
])
def test_torch_in_place_functions(name: str, args: tuple[Any, ...]) -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([0.5, -1.25, 2.0], dtype=lib.float64, requires_grad=True)
        y = x * 1
        out = getattr(lib, name)(y, *args)
        out.backward(lib.ones_like(out))
        return out is y, out, out.grad_fn.name(), x.grad

    both(program)


@pytest.mark.parametrize("call", [
    lambda lib, x, m, v: x.masked_fill(m, 2.0), lambda lib, x, m, v: (x * 1).masked_fill_(m, 2.0),
    lambda lib, x, m, v: x.masked_fill(m, v), lambda lib, x, m, v: (x * 1).masked_fill_(m, v),
    lambda lib, x, m, v: x.masked_fill(m, v.detach()), lambda lib, x, m, v: (x * 1)[1:].masked_fill_(m[1:], 2.0),
    lambda lib, x, m, v: x.detach().masked_fill(m, v),
], ids=["number", "number-in-place", "tensor", "tensor-in-place", "constant", "view", "only-value"])
def test_masked_fill_edges(call: Any) -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        v = lib.tensor(3.0, dtype=lib.float64, requires_grad=True)
        out = call(lib, x, lib.tensor([True, False, True]), v)
        nodes = out.grad_fn.name(), _edges(out)
        out.backward(lib.tensor([1.0, 2.0, 3.0][-out.shape[0]:], dtype=lib.float64))
        return nodes, out, x.grad, v.grad

    both(program)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.round(x, 2), lambda lib, x: x.round(2), lambda lib, x: (x * 1).round_(1),
    lambda lib, x: lib.round(x, decimals=2), lambda lib, x: x.round(decimals=-1), lambda lib, x: x.round(),
], ids=["round(x, 2)", "x.round(2)", "round_(1)", "decimals=2", "decimals=-1", "round()"])
def test_round_takes_decimals_by_keyword_only(call: Any) -> None:
    def program(lib: Any) -> Any:
        out = call(lib, lib.tensor([0.125, -1.55, 25.0], dtype=lib.float64, requires_grad=True))
        return out, out.grad_fn.name()

    both(program, "")  # (the error type: PyTorch's words differ between the function and the method)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.unique(x, 1), lambda lib, x: x.unique(1), lambda lib, x: lib.unique(x, return_inverse=1),
    lambda lib, x: x.unique(True, True, True),
    lambda lib, x: lib.unique_consecutive(x, 2.0), lambda lib, x: x.unique_consecutive(return_counts=1),
    lambda lib, x: x.unique_consecutive(True, True), lambda lib, x: lib.unique(x, dim=0, return_inverse=1),
], ids=["sorted=1", "method sorted=1", "return_inverse=1", "all True", "consecutive 2.0",
        "consecutive counts=1", "consecutive True", "dim"])
def test_unique_flags_must_be_bools(call: Any) -> None:
    both(lambda lib: call(lib, lib.tensor([1.0, 2.0, 2.0, 0.5])))


@pytest.mark.parametrize("args", [(), (1,), (0, True), ((0, 1),), (-1,)], ids=str)
def test_nansum_records_nansum_backward(args: tuple[Any, ...]) -> None:
    def program(lib: Any) -> Any:
        y = lib.tensor([[1.0, float("nan"), 3.0], [4.0, 5.0, float("nan")]], dtype=lib.float64, requires_grad=True)
        s = lib.nansum(y, *args)
        w = -lib.ones_like(s, requires_grad=True)
        (g,) = lib.autograd.grad(s, y, w, create_graph=True)
        (gw,) = lib.autograd.grad(g.sum(), w)
        return s, s.grad_fn.name(), g, gw, y.nanmean(*args), lib.nansum(lib.tensor([1, 2])).dtype is lib.int64

    both(program)


def test_trace_records_trace_backward() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=lib.float64, requires_grad=True)
        t = lib.trace(x)
        w = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(t, x, w, create_graph=True)
        (gw,) = lib.autograd.grad((g * x).sum(), w)
        return t, t.grad_fn.name(), g, gw, lib.trace(lib.tensor([[1, 2], [3, 4]])), x.t().trace()

    both(program)
    both(lambda lib: lib.trace(lib.ones(3)), "expected a matrix, but got tensor with dim 1")


@pytest.mark.parametrize("kw", [{}, {"dim": 1}, {"dim": 0, "keepdim": True}, {"dim": -1, "keepdim": True}], ids=str)
def test_aminmax_records_one_node(kw: dict[str, Any]) -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([[1.0, 5.0, 5.0], [-2.0, -2.0, 3.0]], dtype=lib.float64, requires_grad=True)
        low, high = lib.aminmax(x, **kw)
        w = lib.tensor(-3.0, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad((low * 2).sum() + (high * w).sum(), x, create_graph=True)
        (only_low,) = lib.autograd.grad(low.sum(), x, retain_graph=True)
        (gw,) = lib.autograd.grad(g.sum(), w)
        return low, high, low.grad_fn.name(), high.grad_fn is low.grad_fn, g, only_low, gw

    both(program)


@pytest.mark.parametrize("p", [2, 1, 3.5, 0.5, float("inf")], ids=str)
def test_dist_records_dist_backward(p: float) -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([[1.0, 5.0, 5.0], [-2.0, -2.0, 3.0]], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([0.5, 5.0, -1.0], dtype=lib.float64, requires_grad=True)
        d = lib.dist(x, y, p)
        gx, gy = lib.autograd.grad(d, (x, y), create_graph=True)
        # (p = inf: PyTorch's first gradient keeps x in its graph, jitgrad's norm backward does not)
        return d, d.grad_fn.name(), _edges(d), gx, gy, gx.requires_grad or p == float("inf")

    both(program)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.diag(x), lambda lib, x: lib.diag(x, 1), lambda lib, x: lib.diag(x, -2), lambda lib, x: lib.diagflat(x),
    lambda lib, x: lib.diag_embed(x), lambda lib, x: lib.diag_embed(x.reshape(1, 3), 1, 0, 2),
    lambda lib, x: lib.diag_embed(x.reshape(3, 1) * x, -1, 2, 0),
], ids=["diag", "diag(1)", "diag(-2)", "diagflat", "diag_embed", "diag_embed(1, 0, 2)", "diag_embed 2-d"])
def test_diag_embed_records_diag_embed_backward(call: Any) -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([1.0, -2.0, 3.0], dtype=lib.float64, requires_grad=True)
        out = call(lib, x)
        w = lib.arange(float(out.numel()), dtype=lib.float64).reshape(out.shape).requires_grad_()
        (g,) = lib.autograd.grad(out, x, w, create_graph=True)
        (gw,) = lib.autograd.grad(g.sum(), w)
        return out, out._version, out.grad_fn.name(), g, gw

    both(program)


@pytest.mark.filterwarnings("ignore:Using torch.cross without specifying the dim arg")  # (PyTorch's; jitgrad gives none)
@pytest.mark.parametrize("call", [
    lambda lib, x, y: lib.linalg.cross(x, y), lambda lib, x, y: lib.cross(x, y, dim=1), lambda lib, x, y: lib.cross(x, y),
    lambda lib, x, y: x.cross(y[:1].expand(2, 3), dim=-1), lambda lib, x, y: lib.linalg.cross(x.t(), y[:1].t(), dim=0),
], ids=["linalg.cross", "cross(dim=1)", "cross", "method", "dim=0 broadcast"])
def test_cross_records_linalg_cross_backward(call: Any) -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, -5.0, 6.0]], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([[0.5, -1.0, 2.0], [1.5, 2.5, -3.0]], dtype=lib.float64, requires_grad=True)
        out = call(lib, x, y)
        w = lib.arange(float(out.numel()), dtype=lib.float64).reshape(out.shape).requires_grad_()
        gx, gy = lib.autograd.grad(out, (x, y), w, create_graph=True)
        (gw,) = lib.autograd.grad((gx * gy).sum(), w)
        return out, out.grad_fn.name(), _edges(out), gx, gy, gw

    both(program)


def test_block_diag_records_block_diag_backward() -> None:
    def program(lib: Any) -> Any:
        a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([5.0, 6.0, 7.0], dtype=lib.float64, requires_grad=True)
        c = lib.tensor(8.0, dtype=lib.float64, requires_grad=True)
        d = lib.tensor([[1, 2]])
        e = lib.tensor([[0.5], [1.5]], dtype=lib.float32, requires_grad=True).t()
        out = lib.block_diag(a, b, c, d, e)
        w = lib.arange(float(out.numel()), dtype=lib.float64).reshape(out.shape).requires_grad_()
        grads = lib.autograd.grad(out, (a, b, c, e), w, create_graph=True)
        (gw,) = lib.autograd.grad(sum(g.sum() for g in grads), w)
        return out, out._version, out.grad_fn.name(), _edges(out), grads, gw, lib.block_diag(d, d)

    both(program)


@pytest.mark.parametrize("k, dims", [(1, (0, 1)), (2, (0, 1)), (3, (0, 1)), (0, (0, 1)), (-1, (1, 0)), (5, (2, 0)),
                                     (1, (-1, -2))], ids=str)
def test_rot90_records_rot90_backward_and_returns_no_view(k: int, dims: tuple[int, int]) -> None:
    def program(lib: Any) -> Any:
        x = lib.arange(24.0, dtype=lib.float64).reshape(2, 3, 4).requires_grad_()
        out = lib.rot90(x * 1, k, dims)
        w = lib.linspace(-1.0, 1.0, 24, dtype=lib.float64).reshape(out.shape).requires_grad_()
        (g,) = lib.autograd.grad(out, x, w, create_graph=True)
        (gw,) = lib.autograd.grad((g * g).sum(), w)
        return out, out.stride(), out._base is None, out.grad_fn.name(), g, gw, g.grad_fn.name()

    both(program)


# -- torch.cross without dim: PyTorch's deprecation warning (once per process), its default dim --------
def test_cross_without_dim_warns_as_pytorch() -> None:
    def program(lib: Any) -> Any:
        lib.set_warn_always(True)  # (once per process otherwise: another test may have seen it)
        try:
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                a, b = numbers(lib, 2, 3, grad=True), numbers(lib, 2, 3, seed=1)
                out = [lib.cross(a, b), a.cross(b), lib.cross(a, b, dim=1), lib.linalg.cross(a, b)]
        finally:
            lib.set_warn_always(False)
        texts = [(w.category.__name__, re.sub(r" \(Triggered internally at .*\)$", "", str(w.message)),
                  w.filename == __file__) for w in seen]
        return out, out[0].grad_fn.name(), texts

    both(program)


def test_cross_without_a_dim_of_size_3_raises_as_pytorch() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both(lambda lib: lib.cross(numbers(lib, 2, 4), numbers(lib, 2, 4, seed=1)))


# -- tensor() of data that holds no number: PyTorch's error types and messages -----------------------
@pytest.mark.parametrize("data", [
    [1, None], [1.5, None], [None], [[1, 2], [3, None]], None, [None, [1]], [object()],
    ["a"], [1, "a"], [[1, 2], ["a", 3]], [[1, "a"], [None, 3]], ["a", None],
], ids=str)
@pytest.mark.parametrize("dtype", [None, "float64", "float32", "int64", "int32", "bool"])
def test_tensor_of_non_numbers_raises_as_pytorch(data: Any, dtype: str | None) -> None:
    _raises_as_pytorch(lambda lib: lib.tensor(data, dtype=None if dtype is None else getattr(lib, dtype)))


def _raises_as_pytorch(call: Any) -> None:
    """Both raise the same type, and jitgrad's message is PyTorch's with the op named."""
    theirs_kind, theirs = outcome(lambda: call(torch))
    ours_kind, ours = outcome(lambda: call(jitgrad))
    assert ours_kind == theirs_kind != "ok", (ours, theirs)
    assert ours.startswith("tensor(): ") and theirs.removeprefix("new(): ") in ours, (ours, theirs)


@pytest.mark.parametrize("call", [
    lambda lib: lib.as_tensor([1, None]),
    lambda lib: lib.tensor([1, 2]).new_tensor([None]),
    lambda lib: lib.tensor([1.0]).new_tensor([2.0, None]),
    lambda lib: lib.tensor(object()),
])
def test_other_constructors_of_non_numbers_raise_as_pytorch(call: Any) -> None:
    _raises_as_pytorch(call)


# -- TypedStorage: elements by index, tolist ---------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda lib: lib.tensor([1.5, 2.0, -3.25], dtype=lib.float64),
    lambda lib: lib.tensor([1.5, 2.0, -3.25]),
    lambda lib: lib.tensor([1, -2, 3]),
    lambda lib: lib.tensor([True, False]),
    lambda lib: lib.arange(6.0).reshape(2, 3)[1:, 1:],
    lambda lib: lib.zeros(0),
], ids=["float64", "float32", "int64", "bool", "view", "empty"])
def test_typed_storage_elements_and_tolist(make: Any) -> None:
    def program(lib: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (TypedStorage's deprecation)
            st = make(lib).storage()
        got = [st.tolist(), len(st)]
        for index in (0, 1, -1, 3, -4, 1.0, slice(0, 2), np.int64(1)):
            try:
                v = st[index]
                got.append((v, type(v).__name__))
            except (IndexError, RuntimeError) as e:
                got.append(str(e).replace("torch.storage", "jitgrad.storage"))
        return got

    both(program)
