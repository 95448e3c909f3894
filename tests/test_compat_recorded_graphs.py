"""The graph a program records is PyTorch's, node for node: the same program runs with
``lib=torch`` and ``lib=jitgrad`` (``both``) and the node names along every path of
``next_functions``, the gradients and, for bad input, the errors must match."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch

import jitgrad
from tests.compat_helpers import both, both_close, close, known_differences, numbers, outcome


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


# -- composites: the chain of nodes PyTorch's C++ composition records ---------------------------------
def _vec(lib: Any, *shape: int, seed: int = 0) -> Any:
    return numbers(lib, *shape, seed=seed, grad=True)


COMPOSITES = {
    "inner-vectors": lambda lib: lib.inner(_vec(lib, 3), _vec(lib, 3, seed=1)),
    "inner-matrices": lambda lib: lib.inner(_vec(lib, 2, 3), _vec(lib, 4, 3, seed=1)),
    "inner-batch": lambda lib: lib.inner(_vec(lib, 2, 2, 3), _vec(lib, 3, seed=1)),
    "inner-0d": lambda lib: lib.inner(_vec(lib, 2, 3), _vec(lib, seed=1)),
    "tensordot-2": lambda lib: lib.tensordot(_vec(lib, 2, 3, 4), _vec(lib, 3, 4, 5, seed=1)),
    "tensordot-0": lambda lib: lib.tensordot(_vec(lib, 2, 3), _vec(lib, 4, seed=1), dims=0),
    "tensordot-lists": lambda lib: lib.tensordot(_vec(lib, 2, 3, 4), _vec(lib, 4, 3, seed=1), dims=([1, 2], [1, 0])),
    "tensordot-full-contiguous": lambda lib: lib.tensordot(_vec(lib, 3, 4), _vec(lib, 3, 4, seed=1)),
    "tensordot-full-strided": lambda lib: lib.tensordot(_vec(lib, 3, 4), _vec(lib, 4, 3, seed=1),
                                                        dims=([0, 1], [1, 0])),
    "tensordot-size-1": lambda lib: lib.tensordot(_vec(lib, 2, 3), _vec(lib, 1, 4, seed=1), dims=([1], [0])),
    "kron": lambda lib: lib.kron(_vec(lib, 2, 3), _vec(lib, 2, 2, seed=1)),
    "kron-ranks": lambda lib: lib.kron(_vec(lib, 2), _vec(lib, 2, 2, seed=1)),
    "kron-sliced": lambda lib: lib.kron(_vec(lib, 3, 2)[:, :1], _vec(lib, 2, 2, seed=1)),
    "quantile": lambda lib: lib.quantile(_vec(lib, 5), 0.3),
    "quantile-last-dim": lambda lib: lib.quantile(_vec(lib, 2, 5), 0.3, dim=1),
    "quantile-first-dim": lambda lib: lib.quantile(_vec(lib, 5, 2), 0.6, dim=0, keepdim=True),
    "quantile-tensor-q": lambda lib: lib.quantile(_vec(lib, 2, 5), lib.tensor([0.3, 0.5], dtype=lib.float64), dim=1),
    "quantile-lower": lambda lib: lib.quantile(_vec(lib, 5), 0.3, interpolation="lower"),
    "nanquantile": lambda lib: lib.nanquantile(_vec(lib, 5), 0.3),
    "trapezoid": lambda lib: lib.trapezoid(_vec(lib, 5)),
    "trapezoid-dx": lambda lib: lib.trapezoid(_vec(lib, 3, 4), dx=0.5, dim=0),
    "trapezoid-x": lambda lib: lib.trapezoid(_vec(lib, 3, 4), _vec(lib, 4, seed=1)),
    "trapezoid-x-2d": lambda lib: lib.trapezoid(_vec(lib, 3, 4), _vec(lib, 3, 4, seed=1), dim=0),
    "trapezoid-x-padded": lambda lib: lib.trapezoid(_vec(lib, 2, 3, 4), _vec(lib, 3, 4, seed=1), dim=1),
    "trapezoid-one": lambda lib: lib.trapezoid(_vec(lib, 3, 1)),
    "cumulative-trapezoid": lambda lib: lib.cumulative_trapezoid(_vec(lib, 3, 4)),
    "cumulative-trapezoid-x": lambda lib: lib.cumulative_trapezoid(_vec(lib, 3, 4), _vec(lib, 4, seed=1)),
    "cumulative-trapezoid-dx": lambda lib: lib.cumulative_trapezoid(_vec(lib, 3, 4), dx=0.5),
    "diff": lambda lib: lib.diff(_vec(lib, 3, 4), dim=0),
    "diff-n0": lambda lib: lib.diff(_vec(lib, 4, 3).t(), n=0, prepend=_vec(lib, 3, 1, seed=2)),
    "diff-n3": lambda lib: lib.diff(_vec(lib, 3, 2), n=3),
    "diff-appended": lambda lib: lib.diff(_vec(lib, 3, 4), append=_vec(lib, 3, 1, seed=3)),
    "diag-matrix": lambda lib: lib.diag(_vec(lib, 3, 4)),
    "diag-offset": lambda lib: lib.diag(_vec(lib, 3, 4), -1),
    "diag-vector": lambda lib: lib.diag(_vec(lib, 3), 1),
    "reshape-alias": lambda lib: _vec(lib, 4, 3).t().reshape(3, 2, 2),
    "reshape-view": lambda lib: _vec(lib, 4, 3).reshape(2, 6),
    "reshape-copy": lambda lib: _vec(lib, 4, 3).t().reshape(12),
    "flatten-alias": lambda lib: _vec(lib, 4, 3).unsqueeze(0).transpose(0, 1).flatten(1),
    "gradient": lambda lib: lib.gradient(_vec(lib, 5))[0],
    "gradient-edge-2": lambda lib: lib.gradient(_vec(lib, 3, 4), dim=1, edge_order=2)[0],
    "gradient-spacing": lambda lib: lib.gradient(_vec(lib, 3, 4), spacing=3, dim=0)[0],
    "pairwise-distance": lambda lib: lib.nn.functional.pairwise_distance(_vec(lib, 3, 4), _vec(lib, 3, 4, seed=1)),
    "hardshrink": lambda lib: lib.nn.functional.hardshrink(_vec(lib, 3, 4), 0.75),
    "softshrink": lambda lib: lib.nn.functional.softshrink(_vec(lib, 3, 4), 0.75),
    "ldexp": lambda lib: lib.ldexp(_vec(lib, 3), _vec(lib, 3, seed=1)),
    "ldexp-int": lambda lib: lib.ldexp(_vec(lib, 3), lib.tensor([1, -2, 3])),
}


@pytest.mark.parametrize("name", list(COMPOSITES))
def test_composite_records_pytorchs_chain(name: str) -> None:
    def program(lib: Any) -> Any:
        out = COMPOSITES[name](lib)
        leaves = _leaves(out.grad_fn)
        weights = lib.linspace(-1.0, 2.0, out.numel(), dtype=lib.float64).reshape(out.shape)
        grads = lib.autograd.grad(out, leaves, weights, create_graph=True)
        second = lib.autograd.grad(sum((g * g).sum() for g in grads), leaves, allow_unused=True)
        return out, graph(out), list(grads), list(second)

    both_close(program)


def _leaves(fn: Any) -> list[Any]:
    """The leaves under ``fn``, first seen first (``AccumulateGrad.variable``)."""
    found: list[Any] = []
    stack = [fn]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if hasattr(node, "variable"):
            if not any(node.variable is f for f in found):
                found.append(node.variable)
            continue
        stack.extend(f for f, _ in reversed(node.next_functions))
    return found


def test_scalar_composite_nodes_save_their_number() -> None:
    def program(lib: Any) -> Any:
        y = lib.trapezoid(_vec(lib, 3, 4), dx=0.25)
        z = lib.trapezoid(_vec(lib, 3, 4), _vec(lib, 4, seed=1))
        g = [lib.gradient(_vec(lib, 4), **kw)[0] for kw in ({}, {"spacing": 3}, {"spacing": 0.5})]
        return y.grad_fn._saved_other, z.grad_fn._saved_other, [[f._saved_other for f, _ in x.grad_fn.next_functions]
                                                                 for x in g]

    both(program)


@pytest.mark.parametrize("call", [
    lambda lib: lib.slice_scatter(numbers(lib, 2, 3), numbers(lib, 1, 2), 1, 0, 3, 2),
    lambda lib: lib.select_scatter(numbers(lib, 2, 3), numbers(lib, 1, 3), 0, 1),
    lambda lib: lib.diagonal_scatter(numbers(lib, 2, 3), numbers(lib, 3)),
    lambda lib: lib.trapezoid(numbers(lib, 3, 4), numbers(lib, 3)),
    lambda lib: lib.cumulative_trapezoid(numbers(lib, 3, 4), numbers(lib, 3)),
    lambda lib: lib.trapezoid(numbers(lib, 3, 4), dim=2),
    lambda lib: lib.trapezoid(numbers(lib, 3)[0]),
    lambda lib: lib.tensordot(numbers(lib, 2, 3), numbers(lib, 4, 5), dims=([1], [0])),
    lambda lib: lib.inner(numbers(lib, 2, 3), numbers(lib, 2)),
], ids=["slice-scatter-size", "select-scatter-size", "diagonal-scatter-size", "x-length", "cumulative-x-length",
        "dim", "0-d", "contracted-sizes", "inner-sizes"])
def test_composite_refusals(call: Any) -> None:
    both(call, "")


def test_trapezoid_over_nothing_is_zeros_without_history() -> None:
    def program(lib: Any) -> Any:
        out = lib.trapezoid(numbers(lib, 3, 0, grad=True))
        out_x = lib.trapezoid(numbers(lib, 3, 0, grad=True), numbers(lib, 0, grad=True))
        return out, out.requires_grad, out_x, out_x.requires_grad

    both(program)


# -- scatters, fills and reductions out of place: PyTorch's one node each -----------------------------
def _index(lib: Any, rows: list[list[int]]) -> Any:
    return lib.tensor(rows)


SCATTERS = {
    "scatter-value": lambda lib, x, s: x.scatter(1, _index(lib, [[0, 2], [1, 1]]), -0.5),
    "scatter-0d-self": lambda lib, x, s: x[0, 0].scatter(0, lib.tensor(0), 3.0),
    "scatter_add": lambda lib, x, s: x.scatter_add(1, _index(lib, [[0, 2], [2, 2]]), s),
    "scatter_add-dim0": lambda lib, x, s: x.scatter_add(0, _index(lib, [[1, 0], [1, 1]]), s),
    "index_add": lambda lib, x, s: x.index_add(1, lib.tensor([3, 0]), s),
    "index_add-alpha-repeats": lambda lib, x, s: x.index_add(1, lib.tensor([1, 1]), s, alpha=0.75),
    "index_fill": lambda lib, x, s: x.index_fill(1, lib.tensor([0, 3, 0]), 2.0),
    "index_fill-tensor": lambda lib, x, s: x.index_fill(0, lib.tensor([1]), s[1, 0]),
    "masked_scatter": lambda lib, x, s: x.masked_scatter(lib.tensor([[True, False, True, False]] * 2), s),
    "masked_scatter-broadcast": lambda lib, x, s: x[0].masked_scatter(
        lib.tensor([[False, True, True, False], [True, False, False, False]]), s),
    "masked_scatter-0d": lambda lib, x, s: x[0, 1].masked_scatter(lib.tensor(True), s),
    "scatter_reduce-sum": lambda lib, x, s: x.scatter_reduce(1, _index(lib, [[0, 0], [3, 1]]), s, "sum"),
    "scatter_reduce-sum-exclusive": lambda lib, x, s: x.scatter_reduce(
        1, _index(lib, [[0, 0], [3, 1]]), s, "sum", include_self=False),
    "scatter_reduce-mean": lambda lib, x, s: x.scatter_reduce(1, _index(lib, [[0, 0], [3, 1]]), s, "mean"),
    "scatter_reduce-mean-exclusive": lambda lib, x, s: x.scatter_reduce(
        1, _index(lib, [[2, 2], [2, 0]]), s, "mean", include_self=False),
    "index_reduce-mean": lambda lib, x, s: x.index_reduce(1, lib.tensor([2, 2]), s, "mean"),
    "index_reduce-mean-exclusive": lambda lib, x, s: x.index_reduce(1, lib.tensor([2, 0]), s, "mean",
                                                                    include_self=False),
    "mvlgamma": lambda lib, x, s: (x * x + 2).mvlgamma(3),
    "slice_scatter": lambda lib, x, s: lib.slice_scatter(x, s, 1, 1, 4, 2),
    "select_scatter": lambda lib, x, s: lib.select_scatter(x, s[0], 1, 2),
    "diagonal_scatter": lambda lib, x, s: lib.diagonal_scatter(x, s[1], 2),
}


@pytest.mark.parametrize("name", list(SCATTERS))
def test_scatters_record_pytorchs_node(name: str) -> None:
    def program(lib: Any) -> Any:
        x = numbers(lib, 2, 4, grad=True)
        s = numbers(lib, 2, 2, seed=1, grad=True)
        out = SCATTERS[name](lib, x, s)
        weights = lib.linspace(-1.0, 2.0, out.numel(), dtype=lib.float64).reshape(out.shape)
        gx, gs = lib.autograd.grad(out, (x, s), weights, create_graph=True, allow_unused=True)
        used = [g for g in (gx, gs) if g is not None]
        second = lib.autograd.grad(sum((g * g).sum() for g in used), (x, s), allow_unused=True)
        return out, graph(out), gx, gs, list(second)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (index_reduce's beta warning)
        both_close(program, rtol=1e-9)  # (mvlgamma's second derivative: trigamma, PyTorch's and SciPy's)


IN_PLACE_GRADCHECK = {
    "scatter_-value": lambda x, s: (x * 1).scatter_(1, jitgrad.tensor([[0, 2]]), -0.5),
    "scatter_add_": lambda x, s: (x * 1).scatter_add_(1, jitgrad.tensor([[2, 2]]), s),
    "index_add_-view": lambda x, s: (lambda y: (y[:, 1:].index_add_(1, jitgrad.tensor([0, 0]), s, alpha=2), y)[1])(x * 1),
    "index_fill_-tensor": lambda x, s: (x * 1).index_fill_(1, jitgrad.tensor([1]), s[0, 0]),
    "masked_scatter_": lambda x, s: (x * 1).masked_scatter_(jitgrad.tensor([[True, False, True]]), s),
    "scatter_reduce_-mean": lambda x, s: (x * 1).scatter_reduce_(1, jitgrad.tensor([[1, 1]]), s, "mean"),
    "scatter_reduce_-prod": lambda x, s: (x * 1).scatter_reduce_(1, jitgrad.tensor([[1, 2]]), s, "prod"),
    "cumprod_-view": lambda x, s: (lambda y: (y[:, 1:].cumprod_(1), y)[1])(x * 1),
    "mvlgamma_": lambda x, s: (x * x + 2).mvlgamma_(2),
    "index_reduce_-amax": lambda x, s: (x * 1).index_reduce_(1, jitgrad.tensor([2, 0]), s, "amax"),
}


@pytest.mark.parametrize("name", list(IN_PLACE_GRADCHECK))
def test_in_place_scatters_pass_gradcheck(name: str) -> None:
    x = jitgrad.tensor([[0.5, -1.25, 2.0]], dtype=jitgrad.float64, requires_grad=True)
    s = jitgrad.tensor([[1.5, 0.75]], dtype=jitgrad.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert jitgrad.autograd.gradcheck(IN_PLACE_GRADCHECK[name], (x, s))
        assert jitgrad.autograd.gradgradcheck(IN_PLACE_GRADCHECK[name], (x, s))


@pytest.mark.parametrize("call", [
    lambda lib, t, s: t.cumprod_(1),
    lambda lib, t, s: t.scatter_reduce_(1, lib.tensor([[0, 2]]), s, "amax"),
    lambda lib, t, s: t.index_reduce_(1, lib.tensor([1, 1]), s, "prod"),
], ids=["cumprod_", "scatter_reduce_", "index_reduce_"])
def test_in_place_node_saves_self_after_the_write(call: Any) -> None:
    """The node saves ``self`` as written (its result), as PyTorch's: a later write to it
    makes backward raise; reading ``_saved_result`` gives ``self``'s values."""
    def program(lib: Any) -> Any:
        x = lib.tensor([[0.5, -1.25, 2.0]], dtype=lib.float64, requires_grad=True)
        s = lib.tensor([[1.5, 0.75]], dtype=lib.float64, requires_grad=True)
        t = x * 1
        out = call(lib, t, s)
        saved = out.grad_fn._saved_result
        t.mul_(2)
        try:
            out.sum().backward()
            return "ok", saved
        except RuntimeError as e:
            return "modified by an inplace operation" in str(e), saved

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both(program)


# -- known differences: PyTorch records a node that refuses backward; jitgrad differentiates -----------
def _inverse_hyperbolic_in_place_has_no_derivative(lib: Any) -> None:
    for name, start in (("acosh_", 1.5), ("asinh_", 0.5), ("atanh_", 0.25)):
        x = lib.tensor([start, start + 0.1], dtype=lib.float64, requires_grad=True)
        y = getattr(x * 1, name)()
        assert y.grad_fn.name() == name[:-1].title() + "Backward1"
        with pytest.raises(NotImplementedError, match=f"inplace version of {name[:-1]}"):
            y.sum().backward()


def _floor_divide_has_no_derivative(lib: Any) -> None:
    x = lib.tensor([1.5, -2.25], dtype=lib.float64, requires_grad=True)
    for y in (lib.floor_divide(x, 0.7), x // 0.7, (x * 1).floor_divide_(0.7)):
        assert y.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::floor_divide"):
            y.sum().backward()


KNOWN = {
    _inverse_hyperbolic_in_place_has_no_derivative:
        "PyTorch's acosh_/asinh_/atanh_ record <Op>Backward1, not_implemented in derivatives.yaml; jitgrad "
        "records <Op>Backward0 and differentiates (ops/pointwise.py declarations)",
    _floor_divide_has_no_derivative:
        "PyTorch's floor_divide records NotImplemented; jitgrad records DivBackward2 (rounding_mode='floor'), "
        "whose gradient is zeros (ops/division.py)",
}

test_known_difference_on_pytorch, test_known_difference_on_jitgrad = known_differences(KNOWN)


def test_frexp_mantissa_records_frexp_backward() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([0.5, -1.5, 12.0, 0.0, 3e-310], dtype=lib.float64, requires_grad=True)
        mantissa, exponent = lib.frexp(x)
        saved = mantissa.grad_fn._saved_exponent
        mantissa.backward(lib.linspace(1.0, 2.0, 5, dtype=lib.float64))
        return graph(mantissa), exponent.requires_grad, mantissa, exponent, saved, x.grad

    both(program)
