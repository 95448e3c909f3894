"""The softmax kernels (``jitgrad/kernels/_softmax_jit.py``) against slow, obviously-correct
references; ``softmax``/``log_softmax`` (``jitgrad/ops/softmax.py``) on the fused, lean and
general paths against each other (bit for bit) and PyTorch; their backward on data against
the general formula (bit for bit); and ``SumBackward0``'s expanded gradient
(``lean_grads.expanded_total``) against ``expand``."""

from __future__ import annotations

import contextlib
import math
from typing import Any, Iterator

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from jitgrad.kernels import _softmax_jit, softmax as kernels
from jitgrad.ops import reduction, softmax
from lean_switch import declined
from test_fused_ops import _same_object, _same_tensor, general

FLOATS = st.one_of(
    st.floats(-30, 30, allow_nan=False, width=32),
    st.sampled_from([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 1e30, -1e-30, 700.0, -700.0]),
)
DTYPES = st.sampled_from([np.float32, np.float64])


@st.composite
def arrays(draw: Any, max_size: int = 40) -> np.ndarray:
    dtype = draw(DTYPES)
    values = draw(st.lists(FLOATS, min_size=1, max_size=max_size))
    with np.errstate(over="ignore"):
        return np.array(values, dtype=dtype)


# -- kernels against naive references -----------------------------------------------------
@settings(max_examples=budget(300), deadline=None)
@given(st.data())
def test_pairwise_is_numpys_sum(data: st.DataObject) -> None:
    """``_pairwise`` adds in ``np.add.reduce``'s order (every length class: under 8, up to
    128, halved above), signed zeros included."""
    n = data.draw(st.sampled_from([1, 2, 7, 8, 9, 16, 127, 128, 129, 136, 255, 300, 1031, 4097]))
    dtype = data.draw(DTYPES)
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n)).astype(dtype)
    if data.draw(st.booleans()):
        a[rng.random(n) < 0.7] = data.draw(st.sampled_from([0.0, -0.0]))
    lo = data.draw(st.integers(0, 3))
    padded = np.concatenate([np.ones(lo, dtype), a])
    assert np.asarray(_softmax_jit._pairwise(padded, lo, n), dtype).tobytes() == np.add.reduce(a).tobytes()


def _naive_softmax(x: np.ndarray, log: bool) -> np.ndarray:
    """The kernels' forward, one float at a time in Python: max (nan if any), exp, sum (a
    float64 row in NumPy's order, a float32 one in order in float64), rounded once."""
    values = [float(v) for v in x]
    m = values[0]
    for v in values[1:]:
        if v > m or v != v:
            m = v
            if v != v:
                break
    e = [math.exp(v - m) if (v - m) == (v - m) and (v - m) < 710 else (math.nan if (v - m) != (v - m) else math.inf)
         for v in values]
    if x.dtype == np.float64:
        total = float(np.add.reduce(np.array(e)))
    else:
        total = 0.0
        for v in e:
            total += v
    with np.errstate(all="ignore"):
        if log:
            return np.array([(v - m) - (math.log(total) if total > 0 else (-math.inf if total == 0 else math.nan))
                             for v in values], dtype=np.float64).astype(x.dtype)
        r = 1.0 / total if total else math.inf
        return np.array([v * r for v in e], dtype=np.float64).astype(x.dtype)


@settings(max_examples=budget(300), deadline=None)
@given(arrays(), st.booleans())
def test_softmax_kernels_are_the_naive_formula(x: np.ndarray, log: bool) -> None:
    out = np.empty_like(x)
    (kernels.log_softmax_rows if log else kernels.softmax_rows)(x, out, len(x))
    _same_floats(out, _naive_softmax(x, log))


def _same_floats(a: np.ndarray, b: np.ndarray) -> None:
    """Equal bits but for a nan's sign and payload (which of two nans an op keeps is the
    machine's business, as in NumPy)."""
    assert a.dtype == b.dtype and np.array_equal(np.isnan(a), np.isnan(b))
    keep = ~np.isnan(a)
    assert a[keep].tobytes() == b[keep].tobytes()


@settings(max_examples=budget(200), deadline=None)
@given(arrays(), st.integers(1, 5), st.booleans())
def test_softmax_kernels_take_each_row_alone(x: np.ndarray, rows: int, log: bool) -> None:
    """Rows of ``k`` are independent: the same as each row's own call; a ragged tail and a
    ``k`` of 0 leave ``out`` alone (the loops stay inside both buffers)."""
    k = len(x)
    table = np.concatenate([np.roll(x, r) for r in range(rows)] + [x[: k // 2]])
    out = np.full_like(table, 7.0)
    kernel = kernels.log_softmax_rows if log else kernels.softmax_rows
    kernel(table, out, k)
    for r in range(rows):
        row = np.empty_like(x)
        kernel(table[r * k:(r + 1) * k].copy(), row, k)
        assert out[r * k:(r + 1) * k].tobytes() == row.tobytes()
    assert (out[rows * k:] == 7.0).all()
    kernel(table, out, 0)
    kernel(table, out[:1], k)  # (``out`` shorter than a row: nothing written)


@settings(max_examples=budget(200), deadline=None)
@given(arrays(), st.integers(0, 2**32 - 1))
def test_backward_kernels_are_the_general_formula(y: np.ndarray, seed: int) -> None:
    g = np.random.default_rng(seed).standard_normal(len(y)).astype(y.dtype)
    with np.errstate(all="ignore"):
        expected = y * (g - np.add.reduce(g * y, 0, None, None, True))
        e = np.exp(y)
        expected_log = g - e * np.add.reduce(g, 0, None, None, True)
    out = np.empty_like(y)
    kernels.softmax_backward_rows(g, y, out, len(y))
    _same_floats(out, expected)
    kernels.log_softmax_backward_rows(g, e, e, len(y))
    _same_floats(e, expected_log)


def test_entry_is_the_dispatchers_function() -> None:
    x = np.linspace(-2, 3, 9)
    a, b = np.empty(9), np.empty(9)
    kernels.softmax_rows(x, a, 9)
    kernels.softmax_rows.entry(np.dtype(np.float64))(x, b, 9)
    assert a.tobytes() == b.tobytes()
    assert kernels.softmax_rows.entry(np.dtype(np.float32)) is not kernels.softmax_rows.entry(np.dtype(np.float64))


# -- the ops: fused, lean and general paths, and PyTorch ----------------------------------
@contextlib.contextmanager
def general_backward() -> Iterator[None]:
    """The backward formulas in jitgrad ops (the kernels on data declined)."""
    with declined(softmax, "_softmax_grad_on_data", None):
        yield


def _run(lib: Any, values: np.ndarray, shape: tuple[int, ...], dim: int, log: bool, how: str) -> tuple[Any, ...]:
    dtype = getattr(lib, str(values.dtype))
    x = lib.tensor(values.reshape(shape), dtype=dtype, requires_grad=True)
    t = x.t() if how == "transposed" and len(shape) == 2 else x[1:] if how == "row" else x * 1.0
    out = (lib.log_softmax if log else lib.softmax)(t, dim)
    w = lib.tensor(np.cos(np.arange(out.numel())).reshape(out.shape), dtype=dtype)
    (out * w).sum().backward()
    return out.detach().numpy().copy(), x.grad.numpy().copy(), type(out.grad_fn).__name__


@st.composite
def programs(draw: Any) -> tuple[Any, ...]:
    """``(values, x's shape, dim, log, how)``: a softmax of ``x`` (a leaf's copy), its
    transpose or ``x[1:]`` (a view at an offset: a row of a table, a tail of a vector)."""
    how = draw(st.sampled_from(["leaf", "transposed", "row"]))
    shape = (*draw(st.sampled_from([(), (1,), (2,), (3,)])), draw(st.integers(1, 9)))
    if how == "row":
        shape = (shape[0] + 1, *shape[1:])
    count = int(np.prod(shape))
    values = np.array(draw(st.lists(FLOATS, min_size=count, max_size=count)), dtype=np.float64)
    with np.errstate(over="ignore"):
        values = values.astype(draw(DTYPES))
    dim = draw(st.sampled_from(range(-len(shape), len(shape))))
    return values, shape, dim, draw(st.booleans()), how


@settings(max_examples=budget(300), deadline=None)
@given(programs())
def test_softmax_paths_agree_bit_for_bit_and_with_pytorch(program: tuple[Any, ...]) -> None:
    values, shape, dim, log, how = program
    with np.errstate(all="ignore"):
        ours = _run(jitgrad, values, shape, dim, log, how)
        with general(), general_backward():
            slow = _run(jitgrad, values, shape, dim, log, how)
        theirs = _run(torch, values, shape, dim, log, how)
    assert ours[0].tobytes() == slow[0].tobytes()
    _same_floats(ours[1], slow[1])
    assert ours[2] == slow[2] == theirs[2]
    tol = dict(rtol=1e-5, atol=1e-6) if values.dtype == np.float32 else dict(rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ours[0], theirs[0], **tol)
    np.testing.assert_allclose(ours[1], theirs[1], **tol)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_nodes_and_saved_results_are_the_general_paths(log: bool, dtype: str) -> None:
    x = jitgrad.linspace(-1, 2, 6, dtype=getattr(jitgrad, dtype), requires_grad=True)
    f = jitgrad.log_softmax if log else jitgrad.softmax
    for make in (lambda: f(x, 0), lambda: f(x.reshape(2, 3), 1), lambda: f(x.reshape(3, 2), -1)):
        out = make()
        with general():
            slow = make()
        _same_tensor(out, slow)


@pytest.mark.parametrize("log", [False, True])
def test_backward_on_data_builds_what_the_formula_builds(log: bool) -> None:
    """The gradient tensor (every slot) is the general formula's; with ``create_graph``, a
    modified result or a gradient of another layout, the formula runs."""
    x = jitgrad.linspace(-1, 2, 6, dtype=jitgrad.float64, requires_grad=True)
    out = (jitgrad.log_softmax if log else jitgrad.softmax)(x.reshape(2, 3), 1)
    g = jitgrad.linspace(0, 1, 6, dtype=jitgrad.float64).reshape(2, 3)
    with jitgrad.no_grad():
        fast = out.grad_fn.apply((g,))[0]
        with general_backward():
            slow = out.grad_fn.apply((g,))[0]
    _same_tensor(fast, slow)
    with jitgrad.no_grad():
        assert softmax._softmax_grad_on_data(out.grad_fn, g.t().contiguous().t(), log) is None
        assert softmax._softmax_grad_on_data(out.grad_fn, g[:1], log) is None
        assert softmax._softmax_grad_on_data(out.grad_fn, g.to(jitgrad.float32), log) is None
    assert softmax._softmax_grad_on_data(out.grad_fn, g, log) is None  # (grad mode: create_graph)
    with jitgrad.no_grad():
        out.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_large_softmax_takes_numpy_on_every_path() -> None:
    """Over ``MAX_NUMEL`` elements the ops run NumPy's formula (the fused path declines),
    still the same on every path and close to PyTorch."""
    values = np.linspace(-3, 3, kernels.MAX_NUMEL + 1)
    ours = _run(jitgrad, values, values.shape, 0, False, "leaf")
    with general(), general_backward():
        slow = _run(jitgrad, values, values.shape, 0, False, "leaf")
    assert ours[0].tobytes() == slow[0].tobytes() and ours[1].tobytes() == slow[1].tobytes()
    theirs = _run(torch, values, values.shape, 0, False, "leaf")
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)


def test_fused_softmax_is_taken_for_a_small_1d_tensor() -> None:
    x = jitgrad.ones(5, dtype=jitgrad.float64, requires_grad=True)
    assert softmax._fused_softmax(x) is not None and softmax._fused_log_softmax(x) is not None
    big = jitgrad.ones(kernels.MAX_NUMEL + 1, dtype=jitgrad.float64)
    assert softmax._fused_softmax(big) is None


# -- SumBackward0's gradient: g.expand(sizes), written out --------------------------------
def _view_meta(t: Any) -> Any:
    vm = t._view_meta
    if vm is None:
        return None
    return (vm.base is not None, vm.parent is None, vm.step_fn, vm.step_args, vm.creation, vm.attr_version)


@pytest.mark.parametrize("sizes", [(), (1,), (4,), (2, 3), (2, 1, 3), (0, 2)])
@pytest.mark.parametrize("grad", ["fresh", "view", "inference"])
def test_expanded_total_is_expand(sizes: tuple[int, ...], grad: str) -> None:
    x = jitgrad.ones(sizes, dtype=jitgrad.float64, requires_grad=True)
    node = x.sum().grad_fn
    if grad == "inference":
        with jitgrad.inference_mode():
            g = jitgrad.tensor(2.0, dtype=jitgrad.float64)
    else:
        g = jitgrad.tensor([2.0, 3.0], dtype=jitgrad.float64)[1] if grad == "view" else jitgrad.tensor(2.0)
    with jitgrad.no_grad():
        (fast,) = node.apply((g,))
        with declined(reduction, "expanded_total", None):
            (slow,) = node.apply((g,))
    _same_object(fast, slow, skip=("_view_meta", "_base"))
    assert fast._storage is g._storage and (fast._base is None) == (slow._base is None)
    assert fast._base is slow._base
    assert _view_meta(fast) == _view_meta(slow)


def test_expanded_total_as_pytorch() -> None:
    """The gradient a leaf's hook sees: expanded (every stride 0), a view, version 0."""
    seen = []
    for lib in (jitgrad, torch):
        x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        x.register_hook(lambda g: seen.append((tuple(g.shape), g.stride(), g._base is not None, g._version)))
        x.sum().backward()
        seen.append(x.grad.stride())
    assert seen[:2] == seen[2:]


def test_expanded_total_declines_in_grad_mode_and_for_other_tensors() -> None:
    from jitgrad.ops import lean_grads

    g = jitgrad.tensor(1.0, dtype=jitgrad.float64)
    assert lean_grads.expanded_total(g, (2,)) is None  # (grad mode: create_graph records the view)
    with jitgrad.no_grad():
        assert lean_grads.expanded_total(jitgrad.ones(1), (2,)) is None
        assert lean_grads.expanded_total(g, (2,)) is not None
