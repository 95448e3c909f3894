"""The graph a program records is PyTorch's, node for node: the same program runs with
``lib=torch`` and ``lib=jitgrad`` (``both``) and the node names along every path of
``next_functions``, the gradients and, for bad input, the errors must match."""

from __future__ import annotations

from typing import Any

import pytest

import torch

import jitgrad
from tests.compat_helpers import both, both_close, close, numbers, outcome


def graph(t: Any) -> Any:
    """``t``'s history as nested ``(name, [inputs...])`` (a leaf's ``AccumulateGrad`` as its
    name alone, a missing edge as None), ``_version`` not involved."""
    def walk(fn: Any) -> Any:
        if fn is None:
            return None
        if not fn.next_functions:
            return fn.name()
        return fn.name(), [walk(f) for f, _ in fn.next_functions]

    return walk(t.grad_fn)


def both_close_or_raise(program: Any) -> None:
    """``both_close``, but where PyTorch raises only the error type must match (jitgrad's
    message names the op and says got vs expected)."""
    theirs_kind, theirs = outcome(lambda: program(torch))
    ours_kind, ours = outcome(lambda: program(jitgrad))
    assert ours_kind == theirs_kind, (ours, theirs)
    if theirs_kind == "ok":
        close(ours, theirs)


# -- linear and nn.Linear: addmm for rows with a bias, flattened/viewed for other shapes -------------
LINEAR_INPUTS = {
    "1-d": lambda lib: numbers(lib, 3, grad=True),
    "2-d": lambda lib: numbers(lib, 2, 3, grad=True),
    "3-d": lambda lib: numbers(lib, 4, 2, 3, grad=True),
    "4-d": lambda lib: numbers(lib, 2, 1, 2, 3, grad=True),
    "3-d-transposed": lambda lib: numbers(lib, 2, 3, 4, grad=True).transpose(1, 2),
    "4-d-transposed": lambda lib: numbers(lib, 2, 1, 3, 2, grad=True).transpose(-1, -2),
    "2-d-transposed": lambda lib: numbers(lib, 3, 2, grad=True).t(),
    "empty-rows": lambda lib: numbers(lib, 0, 2, 3, grad=True),
}
BIASES = {
    "none": lambda lib: None,
    "1-d": lambda lib: numbers(lib, 4, seed=2, grad=True),
    "0-d": lambda lib: numbers(lib, seed=2, grad=True),
    "row": lambda lib: numbers(lib, 1, 4, seed=2, grad=True),
    "frozen": lambda lib: numbers(lib, 4, seed=2),
    "1x1x4": lambda lib: numbers(lib, 1, 1, 4, seed=2, grad=True),
    "2x1x4": lambda lib: numbers(lib, 2, 1, 4, seed=2, grad=True),
    "strided": lambda lib: numbers(lib, 8, seed=2, grad=True)[::2],
}


@pytest.mark.parametrize("bias", list(BIASES))
@pytest.mark.parametrize("shape", list(LINEAR_INPUTS))
def test_linear_records_pytorchs_graph(shape: str, bias: str) -> None:
    def program(lib: Any) -> Any:
        x = LINEAR_INPUTS[shape](lib)
        w = numbers(lib, 4, 3, seed=1, grad=True)
        b = BIASES[bias](lib)
        out = lib.nn.functional.linear(x, w, b)
        weights = lib.linspace(-1.0, 2.0, out.numel(), dtype=lib.float64).reshape(out.shape)
        out.backward(weights)
        return out, graph(out), w.grad, None if b is None or b.grad_fn is not None else b.grad

    both_close_or_raise(program)  # (matrix products: BLAS may sum in another order)


def test_linear_module_and_double_backward() -> None:
    def program(lib: Any) -> Any:
        lib.manual_seed(0)
        layer = lib.nn.Linear(3, 2, dtype=lib.float64)
        with lib.no_grad():
            layer.weight.copy_(numbers(lib, 2, 3, seed=1))
            layer.bias.copy_(numbers(lib, 2, seed=2))
        x = numbers(lib, 5, 3, grad=True)
        out = layer(x)
        (gx,) = lib.autograd.grad((out * out).sum(), x, create_graph=True)
        gx.sum().backward()
        return out, graph(out), graph(gx), layer.weight.grad, layer.bias.grad

    both_close(program)


def test_linear_saves_what_pytorchs_addmm_saves() -> None:
    def program(lib: Any) -> Any:
        x, w, b = numbers(lib, 2, 3, grad=True), numbers(lib, 4, 3, seed=1), numbers(lib, 4, seed=2, grad=True)
        fn = lib.nn.functional.linear(x, w, b).grad_fn
        return (fn._saved_mat1, fn._saved_mat2, fn._saved_alpha, fn._saved_beta, tuple(fn._saved_mat1_sym_sizes),
                tuple(fn._saved_mat2_sym_sizes))

    both(program)


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.linear(numbers(lib, 3)[0], numbers(lib, 4, 3)),
    lambda lib: lib.nn.functional.linear(numbers(lib, 2, 3), numbers(lib, 4, 3)[0, 0], numbers(lib, 4)),
    lambda lib: lib.nn.functional.linear(numbers(lib, 2, 3), numbers(lib, 3), numbers(lib, 2)),
    lambda lib: lib.nn.functional.linear(numbers(lib, 2, 3), numbers(lib, 4, 2), numbers(lib, 4)),
    lambda lib: lib.addmm(numbers(lib, 2), numbers(lib, 2, 3), numbers(lib, 3)),
], ids=["0-d-input", "0-d-weight", "1-d-weight", "in-features", "addmm-vector"])
def test_linear_refusals(call: Any) -> None:
    both(call, "")


# -- the fused products: one node each (AddmmBackward0, ...), in place too ---------------------------
FUSED = {
    "addmm": lambda lib, i: lib.addmm(i(3), numbers(lib, 2, 4, seed=1, grad=True),
                                      numbers(lib, 4, 3, seed=2, grad=True), beta=0.5, alpha=2),
    "addmm-beta0": lambda lib, i: lib.addmm(i(2, 3), numbers(lib, 2, 4, seed=1, grad=True),
                                            numbers(lib, 4, 3, seed=2), beta=0),
    "addmv": lambda lib, i: lib.addmv(i(2), numbers(lib, 2, 4, seed=1, grad=True),
                                      numbers(lib, 4, seed=2, grad=True), alpha=-1.5),
    "baddbmm": lambda lib, i: lib.baddbmm(i(2, 3), numbers(lib, 5, 2, 4, seed=1, grad=True),
                                          numbers(lib, 5, 4, 3, seed=2, grad=True), alpha=3),
    "addbmm": lambda lib, i: lib.addbmm(i(2, 3), numbers(lib, 5, 2, 4, seed=1),
                                        numbers(lib, 5, 4, 3, seed=2, grad=True), beta=-1, alpha=0.25),
    "addmm_": lambda lib, i: (i(2, 3) * 1).addmm_(numbers(lib, 2, 4, seed=1, grad=True),
                                                  numbers(lib, 4, 3, seed=2, grad=True), beta=0.5),
    "addmm_-view": lambda lib, i: (i(3, 3) * 1)[1:].addmm_(numbers(lib, 2, 4, seed=1, grad=True),
                                                           numbers(lib, 4, 3, seed=2)),
    "addmv_": lambda lib, i: (i(2) * 1).addmv_(numbers(lib, 2, 4, seed=1, grad=True), numbers(lib, 4, seed=2)),
    "baddbmm_": lambda lib, i: (i(5, 2, 3) * 1).baddbmm_(numbers(lib, 5, 2, 4, seed=1, grad=True),
                                                         numbers(lib, 5, 4, 3, seed=2), beta=0),
    "addbmm_": lambda lib, i: (i(2, 3) * 1).addbmm_(numbers(lib, 5, 2, 4, seed=1),
                                                    numbers(lib, 5, 4, 3, seed=2, grad=True), alpha=-1),
}


@pytest.mark.parametrize("name", list(FUSED))
def test_fused_products_record_one_node(name: str) -> None:
    def program(lib: Any) -> Any:
        leaves: list[Any] = []

        def input_(*shape: int) -> Any:
            leaves.append(numbers(lib, *shape, seed=7, grad=True))
            return leaves[-1]

        out = FUSED[name](lib, input_)
        root = out._base if out._base is not None else out
        fn = out.grad_fn
        saved = fn._saved_alpha, fn._saved_beta
        weights = lib.linspace(-1.0, 2.0, root.numel(), dtype=lib.float64).reshape(root.shape)
        firsts = [g for g in lib.autograd.grad(root, leaves + [t for t in _inputs(fn) if t is not None],
                                              weights, create_graph=True, allow_unused=True)]
        return graph(out), graph(root), saved, root, firsts

    both_close(program)


def _inputs(fn: Any) -> list[Any]:
    """The leaves at ``fn``'s edges other than its first (``AccumulateGrad.variable``)."""
    return [f.variable if f is not None and hasattr(f, "variable") else None for f, _ in fn.next_functions[1:]]
