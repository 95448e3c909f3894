"""The lean paths of broadcasting elementwise ops, strided operands (1-D, or N-d in row-major
order), and ``logsumexp``/``softmax``/``log_softmax`` over one dim of an N-d tensor (Note
[Lean elementwise path] in ``jitgrad/ops/operands.py``) give exactly what the general paths
give (bit for bit, strides, errors, graphs, gradients), and what PyTorch gives. Helpers as
in ``test_lean_paths.py``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from test_lean_paths import FLOATS, _both, _check_pair, _operand, _same

BINARY = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
          "div": lambda a, b: a / b}

# pairs that broadcast (and some that do not: the general path's error)
SHAPE_PAIRS = [((2, 1), (2, 3)), ((3,), (2, 3)), ((2, 3), (3,)), ((4, 1), (1, 3)), ((2, 1, 3), (4, 1)),
               ((1, 3), (2, 1)), ((2, 3), (4, 3)), ((0, 3), (1, 3)), ((2, 0), (2, 1)), ((1,), (2, 3)),
               ((3,), (4, 1)), ((2, 3), (3, 2))]


def _views(data: st.DataObject, dtype: str, shape: tuple[int, ...], grad: bool) -> Any:
    """``_operand``'s tensors, or a view an HMM step makes: a row ``[:, None]``, a column."""
    kind = data.draw(st.sampled_from(["operand", "column", "unsqueezed"]))
    if kind == "column" and len(shape) == 1 and shape[0]:
        table = _operand(data, dtype, (shape[0], 3), grad)
        return table[:, data.draw(st.integers(0, 2))]
    if kind == "unsqueezed" and len(shape) == 2 and shape[1] == 1:
        return _operand(data, dtype, (shape[0],), grad)[:, None]
    return _operand(data, dtype, shape, grad)


def _grads(results: tuple[Any, Any], inputs: list[Any]) -> None:
    leaves = [t for t in inputs if isinstance(t, jitgrad.Tensor) and t.requires_grad]
    if not leaves or not isinstance(results[0], jitgrad.Tensor) or not results[0].requires_grad:
        return
    up = jitgrad.arange(results[0].numel(), dtype=results[0].dtype).reshape(tuple(results[0].shape))
    lean, slow = (jitgrad.autograd.grad(r, leaves, up, allow_unused=True) for r in results)
    for a, b in zip(lean, slow):
        assert (a is None) == (b is None)
        if a is not None:
            _same(a, b)


@settings(max_examples=budget(300), deadline=None)
@given(st.data())
def test_broadcasting_lean_path_is_the_general_path(data: st.DataObject) -> None:
    op = data.draw(st.sampled_from(sorted(BINARY)))
    dtype = data.draw(st.sampled_from(FLOATS))
    sa, sb = data.draw(st.sampled_from(SHAPE_PAIRS))
    x = _views(data, dtype, sa, data.draw(st.booleans()))
    other = dtype if data.draw(st.integers(0, 4)) else data.draw(st.sampled_from(FLOATS))
    y = _views(data, other, sb, data.draw(st.booleans()))
    if data.draw(st.booleans()):
        x, y = y, x
    results = _both(lambda: BINARY[op](x, y))
    _check_pair(*results)
    _grads(results, [x, y])


@settings(max_examples=budget(300), deadline=None)
@given(st.data())
def test_strided_1d_lean_path_is_the_general_path(data: st.DataObject) -> None:
    """A column or a stepped slice with a number, a 1-D tensor, a 0-d tensor or a matrix."""
    op = data.draw(st.sampled_from(sorted(BINARY)))
    dtype = data.draw(st.sampled_from(FLOATS))
    n = data.draw(st.integers(0, 4))
    table = _operand(data, dtype, (max(n, 1), 3), data.draw(st.booleans()))
    x = table[:n, data.draw(st.integers(0, 2))] if data.draw(st.booleans()) else table.reshape(-1)[::2][:n]
    kind = data.draw(st.sampled_from(["scalar", "same", "zero_d", "matrix", "strided"]))
    if kind == "scalar":
        y: Any = data.draw(st.sampled_from([1.5, -0.0, 2, 0, 2**70, math.inf, math.nan]))
    elif kind == "same":
        y = _operand(data, dtype, (n,), data.draw(st.booleans()))
    elif kind == "zero_d":
        y = _operand(data, dtype, (), data.draw(st.booleans()))
    elif kind == "matrix":
        y = _operand(data, dtype, (2, n), data.draw(st.booleans()))
    else:
        y = _operand(data, dtype, (max(n, 1), 2), data.draw(st.booleans()))[:n, 1]
    if data.draw(st.booleans()):
        x, y = y, x
    results = _both(lambda: BINARY[op](x, y))
    _check_pair(*results)
    _grads(results, [x, y, table])


@pytest.mark.parametrize("op", sorted(BINARY))
def test_hmm_step_shapes_match_pytorch(op: str) -> None:
    """``alpha[:, None] op log_a`` and ``row op column``: values, strides, node names and
    gradients as PyTorch's."""
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal((4,)) + 3.0, rng.standard_normal((4, 4)) + 3.0, rng.standard_normal((4, 5)) + 3.0]
    ours = [jitgrad.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    outs = []
    for lib, (v, m, t) in ((jitgrad, ours), (torch, theirs)):
        f = getattr(lib, op)
        a = f(v[:, None] * 1.0, m)
        b = f(a.sum(0), t[:, 2])
        outs.append((a, b, lib.autograd.grad((a.sum() + b.sum()) * 1.0, [v, m, t])))
    (a, b, g), (ta, tb, tg) = outs
    for r, tr in ((a, ta), (b, tb)):
        assert r.stride() == tr.stride() and r.grad_fn.name() == tr.grad_fn.name()
        np.testing.assert_allclose(r.detach().numpy(), tr.detach().numpy(), rtol=1e-14)
    for x, tx in zip(g, tg):
        np.testing.assert_allclose(x.detach().numpy(), tx.detach().numpy(), rtol=1e-13)


@settings(max_examples=budget(300), deadline=None)
@given(st.data())
def test_logsumexp_over_a_dim_lean_path_is_the_general_path(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(FLOATS))
    shape = data.draw(st.sampled_from([(2, 3), (3, 1, 4), (1, 5), (4, 0), (0, 3), (2, 2, 2)]))
    x = _operand(data, dtype, shape, data.draw(st.booleans()))
    if data.draw(st.booleans()):
        x = jitgrad.tensor(np.random.default_rng(data.draw(st.integers(0, 99))).standard_normal(shape) * 30,
                           dtype=getattr(jitgrad, dtype), requires_grad=x.requires_grad)
    dim = data.draw(st.integers(-len(shape) - 1, len(shape)))  # out of range too: its error
    keepdim = data.draw(st.booleans())
    lean, slow = _both(lambda: jitgrad.logsumexp(x, dim, keepdim=keepdim))
    _check_pair(lean, slow)
    if isinstance(lean, jitgrad.Tensor) and lean.requires_grad:
        assert lean.grad_fn.dims == slow.grad_fn.dims and lean.grad_fn.keepdim == slow.grad_fn.keepdim
        assert lean.grad_fn._saved_self is x
        _same(lean.grad_fn._saved_result, slow.grad_fn._saved_result)
        up = jitgrad.arange(lean.numel(), dtype=lean.dtype).reshape(tuple(lean.shape))
        _same(jitgrad.autograd.grad(lean, x, up)[0], jitgrad.autograd.grad(slow, x, up)[0])


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("column", [None, math.inf, -math.inf, math.nan])
def test_logsumexp_over_a_dim_matches_pytorch(dim: int, column: float | None) -> None:
    """Including a row or column of infinities (the max's replacement) or a nan."""
    values = np.random.default_rng(1).standard_normal((3, 4))
    if column is not None:
        values[:, 1] = column
        values[2, :] = column
    ours = jitgrad.tensor(values, requires_grad=True)
    theirs = torch.tensor(values, requires_grad=True)
    r, t = jitgrad.logsumexp(ours, dim), torch.logsumexp(theirs, dim)
    assert r.grad_fn.name() == t.grad_fn.name() == "LogsumexpBackward0"
    np.testing.assert_allclose(r.detach().numpy(), t.detach().numpy(), rtol=1e-14)
    up = np.arange(r.numel(), dtype=np.float64).reshape(tuple(r.shape))
    g = jitgrad.autograd.grad(r, ours, jitgrad.tensor(up))[0]
    tg = torch.autograd.grad(t, theirs, torch.tensor(up))[0]
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-14)


def _block(data: st.DataObject, dtype: str, grad: bool) -> Any:
    """A view of a 4x5 table: a row-major block (``u[1:, 1:-1]``, stepped), or one in
    another order or with size-1 dims (those stay on the general path)."""
    table = _operand(data, dtype, (4, 5), grad)
    kind = data.draw(st.sampled_from(["block", "stepped", "transposed", "narrow_row", "expanded", "unsqueezed"]))
    if kind == "block":
        return table[1:, 1:-1]
    if kind == "stepped":
        return table[::2, ::2]
    if kind == "transposed":
        return table[1:, 1:-1].t()
    if kind == "narrow_row":
        return table[1:2, 1:-1]
    if kind == "expanded":
        return table[1:2, 1:-1].expand(3, 3)
    return table[1:, None, 1:-1]


@settings(max_examples=budget(300), deadline=None)
@given(st.data())
def test_nd_strided_lean_path_is_the_general_path(data: st.DataObject) -> None:
    """heat's ``u[2:, 1:-1] + u[:-2, 1:-1]`` and ``4 * u[1:-1, 1:-1]``, and views that are not
    in row-major order: values, strides, graphs and gradients as the general path's."""
    op = data.draw(st.sampled_from(sorted(BINARY)))
    dtype = data.draw(st.sampled_from(FLOATS))
    x = _block(data, dtype, data.draw(st.booleans()))
    kind = data.draw(st.sampled_from(["scalar", "block", "contiguous", "row", "column"]))
    if kind == "scalar":
        y: Any = data.draw(st.sampled_from([1.5, -0.0, 4, 2**70, math.inf, math.nan]))
    elif kind == "block":
        y = _block(data, dtype, data.draw(st.booleans()))
    elif kind == "contiguous":
        y = _operand(data, dtype, tuple(x.shape), data.draw(st.booleans()))
    elif kind == "row":
        y = _operand(data, dtype, tuple(x.shape)[-1:], data.draw(st.booleans()))
    else:
        y = _operand(data, dtype, (tuple(x.shape)[0], 1), data.draw(st.booleans()))
    if data.draw(st.booleans()):
        x, y = y, x
    results = _both(lambda: BINARY[op](x, y))
    _check_pair(*results)
    _grads(results, [x, y])


def test_heat_stencil_matches_pytorch() -> None:
    u0 = np.random.default_rng(7).random((6, 6))
    outs = []
    for lib in (jitgrad, torch):
        x = lib.tensor(u0, requires_grad=True)
        u = x * 1.0
        lap = u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]
        outs.append((lap, lib.autograd.grad((lap * lap).sum(), x)[0]))
    (lap, g), (tlap, tg) = outs
    assert lap.stride() == tlap.stride() and lap.grad_fn.name() == tlap.grad_fn.name()
    np.testing.assert_allclose(lap.detach().numpy(), tlap.detach().numpy(), rtol=1e-14)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-13)


@settings(max_examples=budget(300), deadline=None)
@given(st.data())
def test_softmax_lean_path_is_the_general_path(data: st.DataObject) -> None:
    op = data.draw(st.sampled_from(["softmax", "log_softmax"]))
    dtype = data.draw(st.sampled_from(FLOATS))
    shape = data.draw(st.sampled_from([(3,), (1,), (2, 3), (3, 1, 4), (0,), (2, 0), ()]))
    x = _operand(data, dtype, shape, data.draw(st.booleans()))
    if data.draw(st.booleans()):
        x = jitgrad.tensor(np.random.default_rng(data.draw(st.integers(0, 99))).standard_normal(shape) * 30,
                           dtype=getattr(jitgrad, dtype), requires_grad=x.requires_grad)
    dim = data.draw(st.integers(-len(shape) - 1, len(shape)))
    as_dtype = data.draw(st.sampled_from([None, None, None, "float64", "int64"]))
    kwargs = {} if as_dtype is None else {"dtype": getattr(jitgrad, as_dtype)}
    lean, slow = _both(lambda: getattr(jitgrad, op)(x, dim, **kwargs))
    _check_pair(lean, slow)
    if isinstance(lean, jitgrad.Tensor) and lean.requires_grad:
        assert lean.grad_fn.dim == slow.grad_fn.dim
        _same(lean.grad_fn.unpack()[0], slow.grad_fn.unpack()[0])  # the result
        up = jitgrad.arange(lean.numel(), dtype=lean.dtype).reshape(tuple(lean.shape))
        _same(jitgrad.autograd.grad(lean, x, up)[0], jitgrad.autograd.grad(slow, x, up)[0])


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("column", [None, math.inf, -math.inf, math.nan])
def test_softmax_over_a_dim_matches_pytorch(op: str, dim: int, column: float | None) -> None:
    values = np.random.default_rng(4).standard_normal((3, 4))
    if column is not None:
        values[:, 1] = column
    ours = jitgrad.tensor(values, requires_grad=True)
    theirs = torch.tensor(values, requires_grad=True)
    r, t = getattr(jitgrad, op)(ours, dim), getattr(torch, op)(theirs, dim)
    assert r.grad_fn.name() == t.grad_fn.name()
    np.testing.assert_allclose(r.detach().numpy(), t.detach().numpy(), rtol=1e-14, atol=1e-300)
    up = np.arange(r.numel(), dtype=np.float64).reshape(tuple(r.shape))
    g = jitgrad.autograd.grad(r, ours, jitgrad.tensor(up))[0]
    tg = torch.autograd.grad(t, theirs, torch.tensor(up))[0]
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-12, atol=1e-12)


def test_softmax_is_quiet_like_pytorch() -> None:
    """No NumPy warning for overflow or nan (PyTorch computes them silently)."""
    import warnings

    x = jitgrad.tensor([[-1e308, 1e308], [math.nan, 1.0]], dtype=jitgrad.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for op in (jitgrad.softmax, jitgrad.log_softmax):
            op(x, 1)
            op(x.t(), 1)  # the general path (not contiguous)


@pytest.mark.parametrize("column", [None, math.inf, -math.inf, math.nan])
def test_logsumexp_over_a_dim_with_many_maxima_is_the_general_path(column: float | None) -> None:
    """More than 64 maxima: infinities are found by a reduction rather than in Python."""
    values = np.random.default_rng(6).standard_normal((3, 100))
    if column is not None:
        values[:, 7] = column
    x = jitgrad.tensor(values, requires_grad=True)
    lean, slow = _both(lambda: jitgrad.logsumexp(x, 0))
    _check_pair(lean, slow)
    _same(jitgrad.autograd.grad(lean.sum(), x)[0], jitgrad.autograd.grad(slow.sum(), x)[0])
