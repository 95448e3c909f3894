"""The fused comparisons (``compare.operator``), ``where`` (``compare._fused_where``), the
compact saved input and result of ``max()``/``min()`` (``MaxBackward1.save_input_result``)
and ``clamp``'s number bounds: the same tensors, nodes, edges and saved values as the
general path (slot by slot, values bit for bit), and PyTorch's values, gradients, saved
attributes and errors."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from jitgrad.autograd.node import SavedTensor
from jitgrad.ops import compare
from test_fused_ops import _same_tensor, general

VALUES = st.one_of(
    st.floats(-4, 4, allow_nan=False, width=32),
    st.sampled_from([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 0.5, 1.0]),
)
COMPARISONS = {"gt": lambda a, b: a > b, "ge": lambda a, b: a >= b, "lt": lambda a, b: a < b,
               "le": lambda a, b: a <= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b}


@st.composite
def pairs(draw: Any) -> tuple[np.ndarray, np.ndarray, str]:
    n = draw(st.integers(1, 9))
    a = np.array(draw(st.lists(VALUES, min_size=n, max_size=n)))
    b = np.array(draw(st.lists(VALUES, min_size=n, max_size=n)))
    return a, b, draw(st.sampled_from(["float32", "float64"]))


def _leaf(lib: Any, values: np.ndarray, dtype: str, grad: bool = True) -> Any:
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=grad)


# -- comparisons --------------------------------------------------------------------------
@settings(max_examples=budget(200), deadline=None)
@given(pairs(), st.sampled_from(sorted(COMPARISONS)), st.sampled_from(["tensor", "number", "row", "other dtype"]))
def test_fused_comparisons_are_the_general_paths_and_pytorchs(case: Any, op: str, other: str) -> None:
    a, b, dtype = case

    def run(lib: Any) -> Any:
        x = _leaf(lib, a, dtype)
        y = {"tensor": lambda: _leaf(lib, b, dtype, False), "number": lambda: float(b[0]),
             "row": lambda: _leaf(lib, np.concatenate([b, b]), dtype)[len(b):],
             "other dtype": lambda: _leaf(lib, b, "float64" if dtype == "float32" else "float32")}[other]()
        return COMPARISONS[op](x, y)

    ours = run(jitgrad)
    with general():
        slow = run(jitgrad)
    _same_tensor(ours, slow)
    assert ours.numpy().tobytes() == run(torch).numpy().tobytes()


def test_fused_comparison_is_taken_and_declines_to_the_general_path() -> None:
    x = jitgrad.ones(3, dtype=jitgrad.float64)
    calls = []
    real = compare.compare

    def spy(*args: Any) -> Any:
        calls.append(args[0].__name__)
        return real(*args)

    compare.compare = spy
    try:
        for make in (lambda: x > 0.5, lambda: x <= jitgrad.zeros(3, dtype=jitgrad.float64), lambda: x == 2**24):
            make()
        assert calls == []
        for make in (lambda: x > 1e39, lambda: x > jitgrad.zeros(1, dtype=jitgrad.float64), lambda: x == 2**24 + 1,
                     lambda: x > True, lambda: x[::2] > 0.0):
            make()
        assert len(calls) == 5
    finally:
        compare.compare = real
    assert (x == None) is False  # noqa: E711  (Python's fallback: NotImplemented)


@pytest.mark.parametrize("op", sorted(COMPARISONS))
@pytest.mark.parametrize("number", [1e39, -1e39, 3.5e38, float("inf")])
def test_float32_compared_with_a_number_beyond_its_range_is_silent_as_pytorch(op: str, number: float) -> None:
    """The number becomes inf in float32 (NumPy's cast), quietly: PyTorch warns nothing."""
    results = []
    for lib in (jitgrad, torch):
        x = lib.tensor([1.0, float("inf"), -float("inf"), float("nan")], dtype=lib.float32)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            results.append(COMPARISONS[op](x, number).numpy().tolist())
            results.append(getattr(lib, op)(x, number).numpy().tolist())
    assert results[:2] == results[2:]


# -- where --------------------------------------------------------------------------------
@st.composite
def where_cases(draw: Any) -> tuple[Any, ...]:
    n = draw(st.integers(1, 7))
    mask = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    a = np.array(draw(st.lists(VALUES, min_size=n, max_size=n)))
    b = np.array(draw(st.lists(VALUES, min_size=n, max_size=n)))
    kinds = draw(st.sampled_from([("leaf", "leaf"), ("leaf", "number"), ("number", "leaf"), ("result", "leaf"),
                                  ("leaf", "plain"), ("row", "number"), ("plain", "plain"), ("leaf", "int")]))
    return mask, a, b, kinds, draw(st.sampled_from(["float32", "float64"]))


@settings(max_examples=budget(200), deadline=None)
@given(where_cases())
def test_fused_where_is_the_general_path_and_pytorchs(case: Any) -> None:
    mask, a, b, kinds, dtype = case

    def operand(lib: Any, kind: str, values: np.ndarray) -> Any:
        if kind == "number":
            return float(values[0])
        if kind == "int":
            return 3
        if kind == "row":
            return _leaf(lib, np.concatenate([values, values]), dtype)[len(values):]
        t = _leaf(lib, values, dtype, kind != "plain")
        return t * 1.0 if kind == "result" else t

    def run(lib: Any) -> Any:
        x, y = operand(lib, kinds[0], a), operand(lib, kinds[1], b)
        out = lib.where(lib.tensor(mask), x, y)
        leaves = [t for t in (x, y) if isinstance(t, (torch.Tensor, jitgrad.Tensor))]
        if out.requires_grad:
            (out * lib.arange(1, len(mask) + 1, dtype=out.dtype)).sum().backward()
        grads = [None if t.grad is None else t.grad.numpy().tobytes() for t in leaves if t.is_leaf]
        return out, grads

    ours, g_ours = run(jitgrad)
    with general():
        slow, g_slow = run(jitgrad)
    _same_tensor(ours, slow)
    assert g_ours == g_slow
    theirs, g_theirs = run(torch)
    assert np.array_equal(ours.detach().numpy(), theirs.detach().numpy(), equal_nan=True)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__ if theirs.grad_fn else ours.grad_fn is None
    assert g_ours == g_theirs


def test_fused_where_saves_the_condition_as_pytorch() -> None:
    for lib in (jitgrad, torch):
        c = lib.tensor([True, False, True])
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        out = lib.where(c, x, 0.0)
        assert out.grad_fn._saved_condition.tolist() == [True, False, True]
        with lib.no_grad():
            c[0] = False  # (the saved condition modified in place: backward refuses)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()


def test_fused_where_declines_to_the_general_paths_errors() -> None:
    x = jitgrad.ones(3, dtype=jitgrad.float64)
    for call, error in ((lambda: jitgrad.where(jitgrad.ones(3), x, x), RuntimeError),
                        (lambda: jitgrad.where(jitgrad.ones(3) > 0, x, "a"), TypeError),
                        (lambda: jitgrad.where(jitgrad.ones(3) > 0, x.float(), 1e39), RuntimeError),
                        (lambda: jitgrad.where(jitgrad.ones(3) > 0, x), TypeError)):
        with pytest.raises(error):
            call()
    assert compare._fused_where(x > 0, x, jitgrad.ones(3, dtype=jitgrad.float32)) is None
    assert compare._fused_where(x > 0, x, 2**25) is None
    assert compare._fused_where(x[:2] > 0, x[:2], 1.0) is not None


# -- max()/min(): the input and the result saved compactly --------------------------------
@pytest.mark.parametrize("op", ["max", "min"])
def test_extreme_saves_its_input_and_result_as_pytorch(op: str) -> None:
    seen = []
    for lib in (jitgrad, torch):
        x = lib.tensor([0.5, 2.0, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        out = getattr(x, op)()
        node = out.grad_fn
        assert node._saved_self.tolist() == x.tolist() and node._saved_self is not None
        assert node._saved_result.item() == out.item()
        assert node._saved_result.grad_fn is node
        out.backward(retain_graph=True)
        out.backward()
        seen.append(x.grad.tolist())
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            out.backward()
    assert seen[0] == seen[1]


@pytest.mark.parametrize("modified", ["input", "result"])
def test_extreme_refuses_a_saved_value_modified_in_place(modified: str) -> None:
    for lib in (jitgrad, torch):
        x = lib.tensor([0.5, 2.0, -1.0], dtype=lib.float64, requires_grad=True)
        y = x * 1.0
        out = y.max()
        with lib.no_grad():
            (y if modified == "input" else out).add_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.backward()


def test_extreme_with_saved_tensor_hooks_packs_both() -> None:
    packed = []
    for lib in (jitgrad, torch):
        x = lib.tensor([0.5, 2.0, -1.0], dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.tolist()) or t, lambda t: t):
            out = x.max()
        out.backward()
    assert packed[:2] == packed[2:] == [[0.5, 2.0, -1.0], 2.0]


def test_extreme_saved_forms_are_the_general_paths() -> None:
    x = jitgrad.tensor([0.5, 2.0, -1.0, 2.0], dtype=jitgrad.float64, requires_grad=True)
    for make in (lambda: x.max(), lambda: jitgrad.min(x), lambda: (x * 2.0).max()):
        out = make()
        with general():
            slow = make()
        _same_tensor(out, slow)
        saved = out.grad_fn.saved  # (made from the compact form, as ``save`` would have)
        assert [type(s) for s in saved] == [SavedTensor, SavedTensor]
        assert saved[1].unpack(out.grad_fn) is not None


# -- clamp with number bounds --------------------------------------------------------------
@settings(max_examples=budget(150), deadline=None)
@given(pairs(), st.sampled_from([(-0.5, 0.5), (None, 0.0), (0.0, None), (1, 2**24), (0.5, -0.5), (-0.0, 0.0)]))
def test_clamp_with_numbers_is_the_general_paths_and_pytorchs(case: Any, bounds: Any) -> None:
    a, _, dtype = case

    def run(lib: Any) -> Any:
        x = _leaf(lib, a, dtype)
        out = x.clamp(*bounds)
        out.sum().backward()
        return out, x.grad.numpy().tobytes()

    (ours, g_ours) = run(jitgrad)
    with general():
        slow, g_slow = run(jitgrad)
    _same_tensor(ours, slow)
    assert g_ours == g_slow
    theirs, g_theirs = run(torch)
    keep = ~np.isnan(a)
    assert ours.detach().numpy()[keep].tolist() == theirs.detach().numpy()[keep].tolist()


# -- sigmoid: the ufunc forward, the backward kernel ---------------------------------------
@settings(max_examples=budget(200), deadline=None)
@given(st.lists(VALUES | st.floats(-800, 800), min_size=1, max_size=12), st.sampled_from(["float32", "float64"]))
def test_sigmoid_kernel_is_the_naive_formula(values: list[float], dtype: str) -> None:
    """``1 / (1 + exp(-x))`` in float64 with the C library's exp, rounded once."""
    import math

    from jitgrad.kernels import sigmoid as kernels

    x = np.array(values, dtype=dtype)

    def naive(v: float) -> float:
        if v != v:
            return v
        e = math.exp(-v) if -v < 709.7 else math.inf
        return 1.0 / (1.0 + e)

    with np.errstate(all="ignore"):
        expected = np.array([naive(float(v)) for v in x], dtype=np.float64).astype(dtype)
        got = np.empty_like(x)
        kernels.forward(x, got, len(x))
    assert np.array_equal(np.isnan(got), np.isnan(expected))
    assert got[~np.isnan(got)].tobytes() == expected[~np.isnan(expected)].tobytes()


@settings(max_examples=budget(200), deadline=None)
@given(pairs(), st.sampled_from(["leaf", "row", "column", "result"]))
def test_sigmoid_paths_agree_bit_for_bit_and_with_pytorch(case: Any, how: str) -> None:
    """The fused, lean and general paths (every layout: a strided input goes to the kernel
    as a contiguous copy) give the same values; the backward kernel the formula's bits."""
    a, b, dtype = case

    def run(lib: Any) -> Any:
        x = _leaf(lib, np.concatenate([a, a]), dtype)
        t = {"leaf": lambda: x, "row": lambda: x[len(a):], "column": lambda: x.reshape(2, -1).t()[:, 1],
             "result": lambda: x * 1.0}[how]()
        out = t.sigmoid()
        (out * _leaf(lib, np.cos(np.arange(out.numel())), dtype, False)).sum().backward()
        return out.detach().numpy().copy(), x.grad.numpy().copy()

    ours = run(jitgrad)
    with general(), mock_declined("sigmoid_grad"):
        slow = run(jitgrad)
    assert ours[0].tobytes() == slow[0].tobytes()
    keep = ~np.isnan(ours[1])
    assert np.array_equal(np.isnan(ours[1]), np.isnan(slow[1])) and ours[1][keep].tobytes() == slow[1][keep].tobytes()
    theirs = run(torch)
    tol = dict(rtol=1e-6, atol=1e-7) if dtype == "float32" else dict(rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(ours[0], theirs[0], **tol)
    np.testing.assert_allclose(ours[1], theirs[1], **tol)


def mock_declined(name: str) -> Any:
    """``pointwise``'s binding of the lean backward ``name`` declines (the formula runs)."""
    from jitgrad.ops import pointwise
    from lean_switch import declined

    return declined(pointwise, name, None)


def test_sigmoid_grad_on_data_declines_in_grad_mode_and_for_other_layouts() -> None:
    from jitgrad.ops import lean_grads

    r = jitgrad.tensor([0.25, 0.5], dtype=jitgrad.float64)
    g = jitgrad.ones(2, dtype=jitgrad.float64)
    assert lean_grads.sigmoid_grad(g, r) is None  # (grad mode: create_graph records the formula)
    with jitgrad.no_grad():
        assert lean_grads.sigmoid_grad(g, r).tolist() == [0.1875, 0.25]
        assert lean_grads.sigmoid_grad(g.float(), r) is None
        assert lean_grads.sigmoid_grad(jitgrad.ones(4, dtype=jitgrad.float64)[::2], r) is None


# -- clamp with tensor bounds ---------------------------------------------------------------
@settings(max_examples=budget(150), deadline=None)
@given(pairs(), st.sampled_from(["both", "min", "max", "row"]))
def test_clamp_with_tensor_bounds_is_the_general_paths_and_pytorchs(case: Any, which: str) -> None:
    a, b, dtype = case

    def run(lib: Any) -> Any:
        x = _leaf(lib, a, dtype)
        lo = _leaf(lib, np.minimum(b, 0.5), dtype)
        hi = _leaf(lib, np.concatenate([b, b]) + 1.0, dtype)[len(b):] if which == "row" else \
            _leaf(lib, np.maximum(b, -0.5), dtype)
        bounds = {"both": (lo, hi), "min": (lo, None), "max": (None, hi), "row": (lo, hi)}[which]
        out = lib.clamp(x, *bounds)
        out.sum().backward()
        leaves = (x, lo) + ((hi,) if which != "row" else ())
        return out, [None if t.grad is None else t.grad.numpy().tobytes() for t in leaves]

    ours, g_ours = run(jitgrad)
    with general():
        slow, g_slow = run(jitgrad)
    _same_tensor(ours, slow)
    assert g_ours == g_slow
    theirs, g_theirs = run(torch)
    assert np.array_equal(ours.detach().numpy(), theirs.detach().numpy(), equal_nan=True)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    assert g_ours == g_theirs


@settings(max_examples=budget(150), deadline=None)
@given(pairs(), st.sampled_from([(-0.5, 0.5), (None, 0.0), (0.0, None), (1, 2**24), (0.5, -0.5), (2**30, None)]),
       st.sampled_from(["leaf", "row"]))
def test_clamp_backward_on_data_is_the_formula(case: Any, bounds: Any, how: str) -> None:
    """``ClampBackward1`` without ``create_graph``: the formula's bits (``_clamp_grad_on_data``
    declined), and PyTorch's gradient."""
    from jitgrad.ops import clamp
    from lean_switch import declined

    a, b, dtype = case

    def run(lib: Any) -> Any:
        x = _leaf(lib, np.concatenate([a, a]), dtype)
        t = x[len(a):] if how == "row" else x
        out = t.clamp(*bounds)
        (out * _leaf(lib, b, dtype, False) if how == "row" else out * _leaf(lib, np.concatenate([b, b]), dtype, False)).sum().backward()
        return x.grad.numpy().tobytes()

    ours = run(jitgrad)
    with declined(clamp, "_clamp_grad_on_data", None):
        assert run(jitgrad) == ours
    assert run(torch) == ours


def test_clamp_backward_on_data_declines_with_create_graph() -> None:
    from jitgrad.ops import clamp

    x = jitgrad.tensor([0.25, 2.0, -1.0], dtype=jitgrad.float64, requires_grad=True)
    g = jitgrad.ones(3, dtype=jitgrad.float64)
    assert clamp._clamp_grad_on_data(g, x, -0.5, 0.5) is None  # (grad mode: the graph is recorded)
    (gx,) = jitgrad.autograd.grad(x.clamp(-0.5, 0.5).sum(), x, create_graph=True)
    assert gx.tolist() == [1.0, 0.0, 0.0]
    with jitgrad.no_grad():
        assert clamp._clamp_grad_on_data(g, x, -0.5, 2**40) is None  # (a bound compared otherwise)
        assert clamp._clamp_grad_on_data(g, x, -0.5, 0.5).tolist() == [1.0, 0.0, 0.0]
