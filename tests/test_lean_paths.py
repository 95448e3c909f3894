"""The lean eager paths (Note [Lean paths] in ``jitgrad/ops/operands.py``) give
exactly what the general paths give: the same values (bit for bit), dtypes, sizes, strides,
errors, ``grad_fn`` names, ``next_functions``, saved values and gradients; and what PyTorch
gives. Each program runs twice, with the lean paths on and switched off (``general()``)."""

from __future__ import annotations

import contextlib
import math
from typing import Any, Callable, Iterator
from unittest import mock

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from jitgrad.ops import operands
from jitgrad.ops.elementwise import rsub

FLOATS = ["float16", "float32", "float64"]


@contextlib.contextmanager
def general() -> Iterator[None]:
    """Every lean path off: no dtype is lean (``lean_data`` refuses every tensor)."""
    with mock.patch.object(operands, "LEAN_DTYPES", frozenset()):
        yield


def _graph(t: Any) -> list[Any]:
    """The graph behind ``t`` as names and output numbers, depth first."""
    fn = t.grad_fn
    out: list[Any] = []
    stack = [fn]
    while stack:
        node = stack.pop()
        if node is None:
            out.append(None)
            continue
        out.append((node.name(), [nr for _, nr in node.next_functions]))
        stack.extend(n for n, _ in node.next_functions)
    return out


def _same(a: Any, b: Any) -> None:
    """``a`` and ``b`` are the same tensor: values bit for bit, dtype, geometry, history."""
    assert a.dtype == b.dtype
    assert a.shape == b.shape
    assert a.stride() == b.stride()
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())  # nan == nan here
    assert np.array_equal(np.signbit(a.detach().numpy()), np.signbit(b.detach().numpy()))
    assert a.requires_grad == b.requires_grad
    assert _graph(a) == _graph(b)


def _both(program: Callable[[], Any]) -> tuple[Any, Any]:
    """``program()`` with the lean paths and with the general ones: results or errors."""
    def run() -> Any:
        try:
            return program()
        except (RuntimeError, TypeError, ValueError, IndexError, OverflowError) as exc:
            return exc
    lean = run()
    with general():
        slow = run()
    return lean, slow


def _check_pair(lean: Any, slow: Any) -> None:
    if isinstance(slow, Exception) or isinstance(lean, Exception):
        assert type(lean) is type(slow), (lean, slow)
        assert str(lean) == str(slow)
        return
    _same(lean, slow)


def _operand(data: st.DataObject, dtype: str, shape: tuple[int, ...], grad: bool) -> jitgrad.Tensor:
    """A tensor of ``shape``: fresh, a contiguous part of a bigger storage, or strided."""
    n = math.prod(shape)
    values = data.draw(st.lists(st.sampled_from([0.0, -0.0, 1.5, -2.25, 3.0, 1e30, -1e-30, math.inf, -math.inf, math.nan]),
                                min_size=2 * n + 2, max_size=2 * n + 2))
    if dtype.startswith("int"):
        values = [int(v) if math.isfinite(v) and abs(v) < 1e6 else 7 for v in values]
        grad = False
    kind = data.draw(st.sampled_from(["fresh", "offset", "strided", "nonleaf"]))
    base = jitgrad.tensor(values, dtype=getattr(jitgrad, dtype), requires_grad=grad)
    if kind == "fresh":
        t = base[:n].detach().clone().requires_grad_(grad) if grad else base[:n].clone()
    elif kind == "offset":
        t = base[1:n + 1]
    elif kind == "strided":
        t = base[: 2 * n : 2]
    else:
        t = base[:n] * 1.0
    return t.reshape(shape)


SCALARS = st.sampled_from([1.5, -0.0, 2, 0, -3, 2**70, 10**400, True, math.inf, math.nan])


@settings(max_examples=budget(300), deadline=None)
@given(st.data())
def test_binary_lean_path_is_the_general_path(data: st.DataObject) -> None:
    op = data.draw(st.sampled_from(["add", "sub", "mul", "div", "radd", "rsub", "rmul", "rdiv"]))
    dtype = data.draw(st.sampled_from(FLOATS))
    shape = data.draw(st.sampled_from([(), (1,), (3,), (2, 3), (0,)]))
    grad = data.draw(st.booleans())
    x = _operand(data, dtype, shape, grad)
    kind = data.draw(st.sampled_from(["scalar", "same", "zero_d", "other_dtype", "broadcast"]))
    if kind == "scalar":
        y: Any = data.draw(SCALARS)
    elif kind == "same":
        y = _operand(data, dtype, shape, data.draw(st.booleans()))
    elif kind == "zero_d":
        y = _operand(data, dtype, (), data.draw(st.booleans()))
    elif kind == "other_dtype":
        y = _operand(data, data.draw(st.sampled_from(FLOATS + ["int64"])), shape, False)
    else:
        y = _operand(data, dtype, (3,), False)
    if data.draw(st.booleans()):
        x, y = (y, x) if isinstance(y, jitgrad.Tensor) else (x, y)
    fn = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
          "div": lambda a, b: a / b, "radd": lambda a, b: b + a, "rsub": lambda a, b: b - a,
          "rmul": lambda a, b: b * a, "rdiv": lambda a, b: b / a}[op]
    lean, slow = _both(lambda: fn(x, y))
    _check_pair(lean, slow)
    if isinstance(lean, jitgrad.Tensor) and lean.requires_grad:
        grads = []
        for result in (lean, slow):
            leaves = [t for t in (x, y) if isinstance(t, jitgrad.Tensor) and t.requires_grad]
            g = jitgrad.autograd.grad(result, leaves, jitgrad.ones_like(result), allow_unused=True)
            grads.append(g)
        for a, b in zip(*grads):
            assert (a is None) == (b is None)
            if a is not None:
                _same(a, b)


def test_binary_lean_path_matches_pytorch() -> None:
    for dtype in FLOATS:
        a_np = np.array([1.5, -2.0, 0.25, 3.0], dtype=dtype)
        b_np = np.array([0.5, 4.0, -1.0, 2.0], dtype=dtype)
        ours = jitgrad.tensor(a_np, requires_grad=True)
        other = jitgrad.tensor(b_np, requires_grad=True)
        theirs = torch.tensor(a_np, requires_grad=True)
        tother = torch.tensor(b_np, requires_grad=True)
        r = ((ours * 1.5 + other) / other - 2) * ours
        t = ((theirs * 1.5 + tother) / tother - 2) * theirs
        assert r.dtype.name == str(t.dtype).removeprefix("torch.")
        np.testing.assert_allclose(r.detach().numpy(), t.detach().numpy(), rtol=1e-3)
        assert r.grad_fn.name() == t.grad_fn.name()
        r.sum().backward()
        t.sum().backward()
        np.testing.assert_allclose(ours.grad.detach().numpy(), theirs.grad.detach().numpy(), rtol=1e-3)
        np.testing.assert_allclose(other.grad.detach().numpy(), tother.grad.detach().numpy(), rtol=1e-3)


def test_saved_values_of_a_product_by_a_number() -> None:
    x = jitgrad.ones(3, dtype=jitgrad.float64, requires_grad=True)
    y = x * 1.5
    assert y.grad_fn.name() == "MulBackward0"
    assert y.grad_fn._saved_other == 1.5
    assert y.grad_fn._saved_self is None
    with pytest.raises(RuntimeError, match="registering hooks on None is forbidden"):
        y.grad_fn._raw_saved_other.register_hooks(lambda t: t, lambda t: t)
    z = x * x
    assert z.grad_fn._saved_self is x and z.grad_fn._saved_other is x
    z.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        z.grad_fn._saved_self


def test_lean_result_is_a_fresh_contiguous_tensor_with_its_own_version() -> None:
    x = jitgrad.arange(6, dtype=jitgrad.float64).reshape(2, 3)
    y = x[1] * 2.0  # an operand inside a bigger storage
    assert y._storage is not x._storage and y._base is None and y.is_contiguous()
    assert y._storage.buffer.base is None  # a buffer NumPy allocated for the result alone
    y.add_(1)
    assert y._version == 1 and x._version == 0
    np.testing.assert_array_equal(y.detach().numpy(), [7.0, 9.0, 11.0])


def test_lean_path_version_check_of_saved_inputs() -> None:
    x = jitgrad.ones(3, dtype=jitgrad.float64, requires_grad=True)
    a = x * 1.0
    b = a * a  # saves a (twice)
    a.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.sum().backward()


@settings(max_examples=budget(200), deadline=None)
@given(st.data())
def test_sum_and_mean_lean_path_is_the_general_path(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(FLOATS + ["int64"]))
    shape = data.draw(st.sampled_from([(), (1,), (8,), (17,), (2, 3), (3, 1, 5), (0,), (2, 0)]))
    if dtype == "int64":
        x = jitgrad.arange(math.prod(shape), dtype=jitgrad.int64).reshape(shape)
    else:
        x = _operand(data, dtype, shape, data.draw(st.booleans()))
        if data.draw(st.booleans()):  # values a sum does not round away
            x = jitgrad.tensor(np.random.default_rng(data.draw(st.integers(0, 99))).standard_normal(shape),
                               dtype=getattr(jitgrad, dtype), requires_grad=x.requires_grad)
    op = data.draw(st.sampled_from(["sum", "mean"]))
    lean, slow = _both(lambda: getattr(x, op)())
    _check_pair(lean, slow)
    if isinstance(lean, jitgrad.Tensor) and lean.requires_grad:
        ga = jitgrad.autograd.grad(lean, x)[0]
        gb = jitgrad.autograd.grad(slow, x)[0]
        _same(ga, gb)


def test_sum_and_mean_lean_path_match_pytorch() -> None:
    values = np.random.default_rng(0).standard_normal((4, 5))
    for op, name in (("sum", "SumBackward0"), ("mean", "MeanBackward0")):
        ours = jitgrad.tensor(values, requires_grad=True)
        theirs = torch.tensor(values, requires_grad=True)
        r, t = getattr(ours, op)(), getattr(theirs, op)()
        assert r.grad_fn.name() == t.grad_fn.name() == name
        np.testing.assert_allclose(r.item(), t.item(), rtol=1e-12)
        r.backward()
        t.backward()
        np.testing.assert_array_equal(ours.grad.detach().numpy(), theirs.grad.detach().numpy())


def _join_inputs(data: st.DataObject, stacked: bool) -> list[Any]:
    n = data.draw(st.integers(1, 4))
    dtype = data.draw(st.sampled_from(FLOATS))
    shape = data.draw(st.sampled_from([(), (2,), (0,), (2, 3)]))
    out = []
    for _ in range(n):
        s = shape
        if not stacked and shape and data.draw(st.booleans()):
            s = (data.draw(st.integers(0, 3)),) + shape[1:]  # cat: any length along dim 0
        if data.draw(st.integers(0, 9)) == 0:  # a mismatch: the general path's error
            s = data.draw(st.sampled_from([(), (2,), (0,), (3, 3)]))
        d = dtype if data.draw(st.integers(0, 9)) else data.draw(st.sampled_from(FLOATS + ["int32"]))
        if d == "int32":
            out.append(jitgrad.zeros(s, dtype=jitgrad.int32))
        else:
            out.append(_operand(data, d, s, data.draw(st.booleans())))
    return out


def _same_join_grads(lean: Any, slow: Any, tensors: list[Any]) -> None:
    """The gradients of a join's lean and general results for the inputs that require grad."""
    leaves = [t for t in tensors if t.requires_grad]
    up = jitgrad.arange(lean.numel(), dtype=lean.dtype).reshape(lean.shape)
    ga = jitgrad.autograd.grad(lean, leaves, up, allow_unused=True)
    gb = jitgrad.autograd.grad(slow, leaves, up, allow_unused=True)
    for a, b in zip(ga, gb):
        assert (a is None) == (b is None)
        if a is not None:
            _same(a, b)


@settings(max_examples=budget(300), deadline=None)
@given(st.data())
def test_stack_and_cat_lean_path_is_the_general_path(data: st.DataObject) -> None:
    stacked = data.draw(st.booleans())
    tensors = _join_inputs(data, stacked)
    as_tuple = data.draw(st.booleans())
    dim = data.draw(st.sampled_from([0, 0, -1, 1]))
    fn = jitgrad.stack if stacked else jitgrad.cat
    lean, slow = _both(lambda: fn(tuple(tensors) if as_tuple else tensors, dim))
    _check_pair(lean, slow)
    if isinstance(lean, jitgrad.Tensor) and lean.requires_grad and lean.dtype in (jitgrad.float32, jitgrad.float64):
        _same_join_grads(lean, slow, tensors)


@settings(max_examples=budget(300), deadline=None)
@given(st.data())
def test_stack_and_cat_along_any_dim_lean_path_is_the_general_path(data: st.DataObject) -> None:
    """Along a dim other than the first (NumPy concatenates the N-d forms): ``cat``'s inputs
    of several lengths along ``dim``, out-of-range and negative dims, mismatches."""
    stacked = data.draw(st.booleans())
    shape = data.draw(st.sampled_from([(2,), (2, 3), (2, 1, 3), (3, 0), (1, 2, 2)]))
    ndim = len(shape) + stacked
    dim = data.draw(st.integers(-ndim - 1, ndim))
    dtype = data.draw(st.sampled_from(FLOATS))
    tensors = []
    for _ in range(data.draw(st.integers(1, 3))):
        s = list(shape)
        if not stacked and -ndim <= dim < ndim and data.draw(st.booleans()):
            s[dim] = data.draw(st.integers(0, 3))  # cat: any length along ``dim``
        if data.draw(st.integers(0, 9)) == 0:  # a mismatch: the general path's error
            s = list(data.draw(st.sampled_from([(2,), (2, 4), (4, 1, 3)])))
        tensors.append(_operand(data, dtype, tuple(s), data.draw(st.booleans())))
    fn = jitgrad.stack if stacked else jitgrad.cat
    lean, slow = _both(lambda: fn(tensors, dim))
    _check_pair(lean, slow)
    if isinstance(lean, jitgrad.Tensor) and lean.requires_grad:
        assert lean.grad_fn.dim == slow.grad_fn.dim
        _same_join_grads(lean, slow, tensors)


def test_stack_and_cat_along_a_later_dim_match_pytorch() -> None:
    rng = np.random.default_rng(5)
    for fn, pieces, dim in (("stack", [(2, 3)] * 3, 1), ("stack", [(2, 3)] * 2, -1), ("cat", [(2, 1), (2, 3)], 1),
                            ("cat", [(2, 2, 1), (2, 2, 2)], -1), ("stack", [(3,), (3,)], 1)):
        arrays = [rng.standard_normal(s) for s in pieces]
        ours = [jitgrad.tensor(a, requires_grad=True) for a in arrays]
        theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
        r = getattr(jitgrad, fn)([o * 2.0 for o in ours], dim)
        t = getattr(torch, fn)([o * 2.0 for o in theirs], dim)
        assert r.grad_fn.name() == t.grad_fn.name()
        assert tuple(r.shape) == tuple(t.shape) and r.stride() == t.stride()
        np.testing.assert_array_equal(r.detach().numpy(), t.detach().numpy())
        up = rng.standard_normal(tuple(r.shape))
        r.backward(jitgrad.tensor(up))
        t.backward(torch.tensor(up))
        for o, th in zip(ours, theirs):
            np.testing.assert_array_equal(o.grad.detach().numpy(), th.grad.detach().numpy())


def test_stack_and_cat_lean_path_match_pytorch() -> None:
    for fn, pieces in (("stack", [(), (), ()]), ("cat", [(2,), (3,), (1,)]), ("stack", [(2, 2)] * 2)):
        arrays = [np.random.default_rng(i).standard_normal(s) for i, s in enumerate(pieces)]
        ours = [jitgrad.tensor(a, requires_grad=True) for a in arrays]
        theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
        r = getattr(jitgrad, fn)([o * 2.0 for o in ours])
        t = getattr(torch, fn)([o * 2.0 for o in theirs])
        assert r.grad_fn.name() == t.grad_fn.name()
        assert tuple(r.shape) == tuple(t.shape) and r.stride() == t.stride()
        np.testing.assert_array_equal(r.detach().numpy(), t.detach().numpy())
        up = np.arange(r.numel(), dtype=np.float64).reshape(tuple(r.shape))
        r.backward(jitgrad.tensor(up))
        t.backward(torch.tensor(up))
        for o, th in zip(ours, theirs):
            np.testing.assert_array_equal(o.grad.detach().numpy(), th.grad.detach().numpy())


def test_cat_lean_path_with_repeated_and_empty_inputs() -> None:
    """One tensor several times, with legacy empty 1-D inputs among them (their gradient is
    empty): the node's sizes and skipped inputs as the general path's, gradients as
    PyTorch's."""
    for pieces in (["a", "e", "a"], ["a", "a", "a"], ["e", "a"], ["e", "e"], ["a", "b", "a"]):
        results = []
        for lean in (True, False):
            with contextlib.nullcontext() if lean else general():
                a = jitgrad.tensor([1.0, -2.0], requires_grad=True)
                b = jitgrad.tensor([3.0], requires_grad=True)
                e = jitgrad.zeros(0, requires_grad=True)
                named = {"a": a * 1.0, "b": b * 1.0, "e": e * 1.0}
                r = jitgrad.cat([named[p] for p in pieces])
                up = jitgrad.arange(r.numel(), dtype=r.dtype) + 1.0
                results.append((r, jitgrad.autograd.grad(r, [a, b, e], up, allow_unused=True)))
        ta = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
        tb = torch.tensor([3.0], dtype=torch.float64, requires_grad=True)
        te = torch.zeros(0, dtype=torch.float64, requires_grad=True)
        named_t = {"a": ta * 1.0, "b": tb * 1.0, "e": te * 1.0}
        rt = torch.cat([named_t[p] for p in pieces])
        gt = torch.autograd.grad(rt, [ta, tb, te], torch.arange(rt.numel(), dtype=rt.dtype) + 1.0,
                                 allow_unused=True)
        (r_lean, g_lean), (r_slow, g_slow) = results
        _same(r_lean, r_slow)
        assert r_lean.grad_fn.sizes == r_slow.grad_fn.sizes
        assert r_lean.grad_fn.skipped == r_slow.grad_fn.skipped
        for x, y, z in zip(g_lean, g_slow, gt):
            assert (x is None) == (y is None) == (z is None)
            if x is not None:
                _same(x, y)
                np.testing.assert_array_equal(x.detach().numpy(), z.detach().numpy())


def test_join_errors_unchanged() -> None:
    a = jitgrad.ones(2)
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        jitgrad.stack([a, jitgrad.ones(3)])
    with pytest.raises(RuntimeError, match="zero-dimensional tensor"):
        jitgrad.cat([jitgrad.tensor(1.0), jitgrad.tensor(2.0)])
    with pytest.raises(TypeError, match="expected Tensor as element 1"):
        jitgrad.stack([a, 1.0])
    with pytest.raises(RuntimeError, match="stack expects a non-empty TensorList"):
        jitgrad.stack([])


@settings(max_examples=budget(200), deadline=None)
@given(st.data())
def test_logsumexp_lean_path_is_the_general_path(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(FLOATS))
    shape = data.draw(st.sampled_from([(1,), (3,), (8,), (0,), ()]))
    x = _operand(data, dtype, shape, data.draw(st.booleans()))
    if data.draw(st.booleans()):
        x = jitgrad.tensor(np.random.default_rng(data.draw(st.integers(0, 99))).standard_normal(shape) * 30,
                           dtype=getattr(jitgrad, dtype), requires_grad=x.requires_grad)
    dim = data.draw(st.sampled_from([0, -1, 1]))
    keepdim = data.draw(st.booleans())
    lean, slow = _both(lambda: jitgrad.logsumexp(x, dim, keepdim=keepdim))
    _check_pair(lean, slow)
    if isinstance(lean, jitgrad.Tensor) and lean.requires_grad:
        assert lean.grad_fn._saved_self is x
        _same(lean.grad_fn._saved_result, slow.grad_fn._saved_result)
        _same(jitgrad.autograd.grad(lean, x, retain_graph=True)[0], jitgrad.autograd.grad(slow, x)[0])
        # the backward's 1-D shortcut (no graph to build) and its general formula
        # (create_graph) give the same bits
        shortcut = jitgrad.autograd.grad(lean, x, retain_graph=True)[0]
        general_formula = jitgrad.autograd.grad(lean, x, create_graph=True)[0]
        np.testing.assert_array_equal(shortcut.detach().numpy(), general_formula.detach().numpy())


@pytest.mark.parametrize("n", [1, 3, 16, 17])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logsumexp_of_a_few_elements_takes_the_max_in_python(n: int, dtype: str) -> None:
    """Up to 16 elements the lean path takes the max with Python's ``max`` (a nan falls
    back to NumPy's): with nans, infinities of both signs and zeros of both signs, the
    general path's bits and PyTorch's values."""
    rng = np.random.default_rng(n)
    specials = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1e30, -1e-30]
    for trial in range(40):
        values = rng.standard_normal(n) * 10
        for i in range(n):
            if rng.integers(0, 3) == 0:
                values[i] = specials[rng.integers(0, len(specials))]
        x = jitgrad.tensor(values, dtype=getattr(jitgrad, dtype), requires_grad=True)
        lean, slow = _both(lambda: jitgrad.logsumexp(x, 0))
        _check_pair(lean, slow)
        _same(jitgrad.autograd.grad(lean, x)[0], jitgrad.autograd.grad(slow, x)[0])
        theirs = torch.logsumexp(torch.tensor(values, dtype=getattr(torch, dtype)), 0)
        np.testing.assert_allclose(lean.item(), theirs.item(), rtol=1e-6 if dtype == "float32" else 1e-14)


@pytest.mark.parametrize("n", [1, 2, 3, 16, 17])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_of_a_few_elements_in_python_is_the_general_path(op: str, n: int, dtype: str) -> None:
    """Up to 16 elements the lean softmax takes the max with Python's ``max`` and the
    reciprocal of the sum as a Python float (float32's too: rounded from float64's, it is
    float32's own quotient): with nans, infinities, zeros of both signs and ordinary
    values, the general path's bits and PyTorch's values."""
    rng = np.random.default_rng(10 * n + len(op))
    specials = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1e30, -1e-30]
    for trial in range(60):
        values = rng.standard_normal(n) * 10.0 ** int(rng.integers(-3, 4))
        if trial % 2:
            for i in range(n):
                if rng.integers(0, 3) == 0:
                    values[i] = specials[rng.integers(0, len(specials))]
        x = jitgrad.tensor(values, dtype=getattr(jitgrad, dtype), requires_grad=True)
        lean, slow = _both(lambda: getattr(jitgrad, op)(x, 0))
        _check_pair(lean, slow)
        up = jitgrad.tensor(rng.standard_normal(n), dtype=getattr(jitgrad, dtype))
        _same(jitgrad.autograd.grad(lean, x, up)[0], jitgrad.autograd.grad(slow, x, up)[0])
        theirs = getattr(torch, op)(torch.tensor(values, dtype=getattr(torch, dtype)), 0)
        np.testing.assert_allclose(lean.detach().numpy(), theirs.detach().numpy(),
                                   rtol=1e-5 if dtype == "float32" else 1e-12,
                                   atol=1e-5 if dtype == "float32" else 1e-12)


def test_logsumexp_lean_path_matches_pytorch() -> None:
    values = np.array([0.5, -1.0, 2.0])
    for extra in (0.0, math.inf, -math.inf):
        data = values + np.array([0.0, extra, 0.0]) if extra else values
        ours = jitgrad.tensor(data, requires_grad=True)
        theirs = torch.tensor(data, requires_grad=True)
        r, t = jitgrad.logsumexp(ours, 0), torch.logsumexp(theirs, 0)
        assert r.grad_fn.name() == t.grad_fn.name() == "LogsumexpBackward0"
        np.testing.assert_allclose(r.item(), t.item(), rtol=1e-14)
        r.backward()
        t.backward()
        np.testing.assert_allclose(ours.grad.detach().numpy(), theirs.grad.detach().numpy(), rtol=1e-14)


def test_traced_functions_record_the_ops_the_lean_paths_would_take() -> None:
    """Under ``jitgrad.compile`` the lean paths step aside (the tracer records each op): the
    compiled function gives eager's value and gradient."""
    def f(t: Any) -> Any:
        return jitgrad.logsumexp(jitgrad.stack([(t * 2.0 + t).sum(), t.mean(), (t / 3 - 1.0).sum()]), 0)

    x = jitgrad.tensor([0.5, -1.0, 2.0, 0.25], dtype=jitgrad.float64, requires_grad=True)
    step = jitgrad.compile(f)
    for _ in range(2):  # traced, then replayed
        out = step(x)
        (g,) = jitgrad.autograd.grad(out, x)
        eager = f(x)
        np.testing.assert_array_equal(out.detach().numpy(), eager.detach().numpy())
        np.testing.assert_allclose(g.detach().numpy(), jitgrad.autograd.grad(eager, x)[0].detach().numpy(), rtol=1e-14)


UNARY = [d for d in __import__("jitgrad.ops.declare", fromlist=["DECLARED"]).DECLARED if d.arity == 1 and not d.params]


@settings(max_examples=budget(300), deadline=None)
@given(st.data())
def test_declared_unary_lean_path_is_the_general_path(data: st.DataObject) -> None:
    decl = data.draw(st.sampled_from(UNARY))
    dtype = data.draw(st.sampled_from(FLOATS))
    shape = data.draw(st.sampled_from([(), (3,), (2, 3), (0,)]))
    x = _operand(data, dtype, shape, data.draw(st.booleans()))
    lean, slow = _both(lambda: decl.fn(x))
    _check_pair(lean, slow)
    if isinstance(lean, jitgrad.Tensor) and lean.requires_grad:
        up = jitgrad.ones_like(lean)
        _same(jitgrad.autograd.grad(lean, x, up)[0], jitgrad.autograd.grad(slow, x, up)[0])


def test_add_and_sub_nodes_keep_alpha() -> None:
    """``alpha`` is a class default of 1 on AddBackward0/SubBackward0/RsubBackward1, set on
    the node only when the op had another: gradients as PyTorch's either way."""
    a_np, b_np = np.array([1.0, -2.0, 3.0]), np.array([0.5, 0.25, -4.0])
    for alpha in (1, 2, -0.5, 1.0):
        ours = [jitgrad.tensor(a_np, requires_grad=True), jitgrad.tensor(b_np, requires_grad=True)]
        theirs = [torch.tensor(a_np, requires_grad=True), torch.tensor(b_np, requires_grad=True)]
        r = jitgrad.add(*ours, alpha=alpha) * jitgrad.sub(*ours, alpha=alpha) + rsub(ours[0], 2.0, alpha=alpha)
        t = torch.add(*theirs, alpha=alpha) * torch.sub(*theirs, alpha=alpha) + torch.rsub(theirs[0], 2.0, alpha=alpha)
        np.testing.assert_allclose(r.detach().numpy(), t.detach().numpy(), rtol=1e-15)
        r.sum().backward()
        t.sum().backward()
        for o, th in zip(ours, theirs):
            np.testing.assert_allclose(o.grad.detach().numpy(), th.grad.detach().numpy(), rtol=1e-15)
    x = jitgrad.ones(2, requires_grad=True)
    assert jitgrad.add(x, x, alpha=3).grad_fn.alpha == 3
    assert jitgrad.add(x, x).grad_fn.alpha == 1
    x2 = x * 1.0
    x2.add_(x, alpha=2)
    assert x2.grad_fn.alpha == 2


@pytest.mark.parametrize("shapes", [((1,), (3,)), ((3,), (1,)), ((1,), (0,)), ((), (2, 3)), ((1,), (1,))])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_size_one_and_zero_d_broadcasting_on_the_lean_path(shapes, op) -> None:
    """The shapes flat buffers broadcast like: values, strides and gradients as the general
    path's and PyTorch's."""
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s) + 2.0 for s in shapes]
    results = []
    for lean in (True, False):
        with contextlib.nullcontext() if lean else general():
            ins = [jitgrad.tensor(a, requires_grad=True) for a in arrays]
            r = getattr(jitgrad, op)(ins[0] * 1.0, ins[1] * 1.0)
            up = jitgrad.tensor(np.arange(r.numel(), dtype=np.float64).reshape(tuple(r.shape)))
            results.append((r, jitgrad.autograd.grad(r, ins, up)))
    ins_t = [torch.tensor(a, requires_grad=True) for a in arrays]
    r_t = getattr(torch, op)(ins_t[0] * 1.0, ins_t[1] * 1.0)
    g_t = torch.autograd.grad(r_t, ins_t, torch.arange(r_t.numel(), dtype=torch.float64).reshape(r_t.shape))
    (r_lean, g_lean), (r_slow, g_slow) = results
    _same(r_lean, r_slow)
    assert r_lean.stride() == r_t.stride() and r_lean.grad_fn.name() == r_t.grad_fn.name()
    np.testing.assert_allclose(r_lean.detach().numpy(), r_t.detach().numpy(), rtol=1e-15)
    for a, b, c in zip(g_lean, g_slow, g_t):
        _same(a, b)
        np.testing.assert_allclose(a.detach().numpy(), c.detach().numpy(), rtol=1e-14)
