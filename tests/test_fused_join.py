"""``cat``/``stack``'s fused path (the comment over ``stack`` in ``jitgrad/ops/stacking.py``) builds
exactly what the general path builds: every slot of the result's Tensor and Storage, of the
node (``Node.__init__``'s fields, ``record``'s, ``sizes``/``dim``/``skipped``), the edges
and the AccumulateGrad of a leaf; and the gradients PyTorch gives."""

from __future__ import annotations

from typing import Any, Callable
from unittest import mock

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from jitgrad.autograd.graph import AccumulateGrad
from jitgrad.ops import fused, stacking
from jitgrad.tensor import Tensor
from test_fused_ops import _same_tensor, _stale_row, general


def _input(kind: str, lib: Any, dtype: Any) -> tuple[Any, Any]:
    """(the leaf, an input of ``kind`` made from it), of 3 elements (0-d for ``*_scalar``)."""
    base = lib.tensor([[0.5, -1.5, 2.0], [3.0, 0.25, -4.0]], dtype=dtype, requires_grad=True)
    leaf3 = lib.tensor([0.5, -1.5, 2.0], dtype=dtype, requires_grad=True)
    made = {
        "leaf": lambda: (leaf3, leaf3),
        "hooked_leaf": lambda: (leaf3, (leaf3.register_hook(lambda g: g * 2), leaf3)[1]),
        "result": lambda: (leaf3, leaf3 * 2.0),
        "row": lambda: (base, (base * 1.0)[1]),
        "leaf_row": lambda: (base, base[0]),
        "plain": lambda: (None, leaf3.detach().clone()),
        "stale_row": lambda: (base, _stale_row(base)),
        "column": lambda: (base, (base * 1.0).t().contiguous()[:, 1]),  # strided: not lean
        "strided": lambda: (base, (base * 1.0).reshape(6)[::2]),
        "leaf_scalar": lambda: (lambda s: (s, s))(lib.tensor(0.5, dtype=dtype, requires_grad=True)),
        "result_scalar": lambda: (leaf3, leaf3[2] * 2.0),
        "row_scalar": lambda: (base, (base * 1.0)[1, 2]),
    }[kind]()
    return made


def _join(op: str, lib: Any, x: Any, y: Any, z: Any) -> Any:
    if op == "cat0":
        return lib.cat([x, y, z])
    if op == "cat_tuple":
        return lib.cat((x, y, z), 0)
    if op == "cat_lengths":
        return lib.cat([x, y[:2] * 1.0, z])
    if op == "cat_last":
        return lib.cat([x.reshape(1, 3), y.reshape(1, 3), z.reshape(1, 3)], -1)
    if op == "cat_empty":
        return lib.cat([x, lib.zeros(0, dtype=x.dtype), z])
    if op == "stack0":
        return lib.stack([x, y, z])
    if op == "stack1":
        return lib.stack([x, y, z], 1)
    raise AssertionError(op)


JOINS = ["cat0", "cat_tuple", "cat_lengths", "cat_last", "cat_empty", "stack0", "stack1"]
KINDS = ["leaf", "hooked_leaf", "result", "row", "leaf_row", "plain", "stale_row", "column", "strided"]


def _build(op: str, kind: str, lib: Any, dtype: Any, grad: bool = True) -> tuple[Any, list[Any]]:
    leaf, x = _input(kind, lib, dtype)
    other = lib.tensor([1.0, 2.0, 3.0], dtype=dtype, requires_grad=True)
    y, z = other * 3.0, lib.tensor([4.0, 5.0, 6.0], dtype=dtype)
    if op == "scalars":
        y, z = other[0] * 3.0, z[1]
    leaves = [t for t in (leaf, other) if t is not None]
    if not grad:
        with lib.no_grad():
            return (lib.stack([x, y, z]) if op == "scalars" else _join(op, lib, x, y, z)), leaves
    return (lib.stack([x, y, z]) if op == "scalars" else _join(op, lib, x, y, z)), leaves


def _check(op: str, kind: str, dtype: str, grad: bool = True) -> None:
    results = []
    for path in (None, general):
        if path is None:
            out, leaves = _build(op, kind, jitgrad, getattr(jitgrad, dtype), grad)
        else:
            with path():
                out, leaves = _build(op, kind, jitgrad, getattr(jitgrad, dtype), grad)
        results.append((out, leaves))
    (out, leaves), (slow, slow_leaves) = results
    _same_tensor(out, slow)
    if out.grad_fn is not None:
        for name in ("sizes", "dim", "skipped"):
            assert getattr(out.grad_fn, name, None) == getattr(slow.grad_fn, name, None), name
        for (n, _), (m, _) in zip(out.grad_fn.next_functions, slow.grad_fn.next_functions):
            if type(n) is AccumulateGrad:
                assert n.input_metadata == m.input_metadata and n.variable.shape == m.variable.shape
    if not out.requires_grad:
        return
    t_out, t_leaves = _build(op, kind, torch, getattr(torch, dtype), grad)
    seed = np.arange(1.0, 1.0 + out.numel()).reshape(out.shape)
    for r, ls in ((out, leaves), (slow, slow_leaves)):
        (r * jitgrad.tensor(seed, dtype=r.dtype)).sum().backward()
    (t_out * torch.tensor(seed, dtype=t_out.dtype)).sum().backward()
    assert np.array_equal(out.detach().numpy(), t_out.detach().numpy())
    for a, b, t in zip(leaves, slow_leaves, t_leaves):
        assert (a.grad is None) == (b.grad is None) == (t.grad is None)
        if a.grad is not None:
            assert a.grad.detach().numpy().tobytes() == b.grad.detach().numpy().tobytes()
            assert np.array_equal(a.grad.detach().numpy(), t.grad.detach().numpy())


@pytest.mark.parametrize("op", JOINS)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_join_builds_what_the_general_path_builds(op: str, kind: str, dtype: str) -> None:
    _check(op, kind, dtype)


@pytest.mark.parametrize("kind", ["leaf_scalar", "result_scalar", "row_scalar"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_stack_of_scalars_builds_what_the_general_path_builds(kind: str, dtype: str) -> None:
    _check("scalars", kind, dtype)


@pytest.mark.parametrize("op", JOINS)
def test_fused_join_without_grad_mode(op: str) -> None:
    _check(op, "leaf", "float64", grad=False)


def test_fused_join_is_taken_for_the_common_inputs() -> None:
    """(Else the slot-by-slot test above compares the general path with itself.)"""
    a = jitgrad.ones(2, dtype=jitgrad.float64, requires_grad=True)
    b, c = a * 2, a * 3
    s = jitgrad.tensor(1.0, dtype=jitgrad.float64, requires_grad=True)
    rows = (a * 1.0)[:]
    single = a.float()  # (another dtype: NumPy's result is float64 all the same)
    calls: list[str] = []
    real = stacking._new

    def spy(cls: type) -> Any:
        calls.append(cls.__name__)
        return real(cls)

    makes: list[Callable[[], Any]] = [
        lambda: jitgrad.cat([a, b, c]), lambda: jitgrad.stack([a, b, c]), lambda: jitgrad.stack([s, s * 2]),
        lambda: jitgrad.stack([a, rows], 1), lambda: jitgrad.cat((b, c)),
        lambda: jitgrad.cat([b, single]), lambda: jitgrad.cat([a.reshape(1, 2), rows.reshape(1, 2)], -1),
    ]
    with mock.patch.object(stacking, "_new", spy), \
            mock.patch.object(stacking, "record", side_effect=AssertionError("record")):
        for make in makes:
            calls.clear()
            out = make()
            assert [n for n in calls if n != "AccumulateGrad"] == \
                ["Storage", "Tensor", type(out.grad_fn).__name__], calls
    table = a * 1.0
    row = table[1:]
    table[0] = 5.0  # (``row`` is stale: ``record`` regenerates its history)
    with mock.patch.object(stacking, "record", wraps=stacking.record) as record:
        assert jitgrad.cat([row, b[:1]]).grad_fn is not None
        assert record.call_count == 1


@pytest.mark.filterwarnings("ignore:Anomaly Detection")
def test_fused_join_records_its_creation_in_anomaly_mode() -> None:
    x = jitgrad.ones(3, dtype=jitgrad.float64, requires_grad=True)
    with jitgrad.autograd.detect_anomaly():
        for out in (jitgrad.cat([x, x]), jitgrad.stack([x, x * 2.0])):
            assert "traceback_" in out.grad_fn.metadata
            assert out.grad_fn.next_functions[0][0].metadata  # the AccumulateGrad's too


def test_fused_join_keeps_a_leafs_hooks() -> None:
    for lib in (jitgrad, torch):
        x = lib.ones(2, dtype=lib.float64, requires_grad=True)
        x.register_hook(lambda g: g * 3)
        lib.cat([x, x * 2.0]).sum().backward()
        assert x.grad.tolist() == [9.0, 9.0]


@pytest.mark.parametrize("case", [
    lambda L, a, i: L.cat([a, i]), lambda L, a, i: L.stack([a, a[:1]]), lambda L, a, i: L.cat([a, a], 2),
    lambda L, a, i: L.stack([a, a], -3), lambda L, a, i: L.cat([a.sum(), a.sum()]), lambda L, a, i: L.cat([]),
    lambda L, a, i: L.stack([a, 1.0]), lambda L, a, i: L.cat([a, a.reshape(1, 2)]), lambda L, a, i: L.stack(a),
    lambda L, a, i: L.stack([a, i]), lambda L, a, i: L.cat((a, a.float())),
])
def test_fused_join_declines_to_the_general_path_as_pytorch(case: Callable[..., Any]) -> None:
    """Other dtypes, shapes, dims, and arguments: the general path's result or error, as
    PyTorch's (type; the message's start)."""
    outs = []
    for lib in (jitgrad, torch):
        a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True) * 1.0
        i = lib.tensor([3, 4])
        try:
            outs.append(case(lib, a, i))
        except Exception as e:  # noqa: BLE001 (compared below)
            outs.append(e)
    ours, theirs = outs
    if isinstance(theirs, Exception):
        assert type(ours) is type(theirs) or isinstance(ours, type(theirs)), (ours, theirs)
        return
    assert not isinstance(ours, Exception), ours
    assert np.array_equal(ours.detach().numpy(), theirs.detach().numpy())
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["leaf", "result", "row", "plain", "stale_row", "column"]), min_size=1, max_size=4),
       st.booleans(), st.integers(-2, 1), st.sampled_from(["float32", "float64"]))
def test_fused_join_any_inputs(kinds: list[str], stacked: bool, dim: int, dtype: str) -> None:
    """Any mix of inputs, along any dim: slot by slot as the general path; gradients as PyTorch's."""
    def build(lib: Any, typ: Any) -> tuple[Any, list[Any]]:
        made = [_input(k, lib, typ) for k in kinds]
        xs = [x.reshape(1, 3) if not stacked else x for _, x in made]
        leaves = [leaf for leaf, _ in made if leaf is not None]
        return (lib.stack(xs, dim) if stacked else lib.cat(xs, dim)), leaves

    out, leaves = build(jitgrad, getattr(jitgrad, dtype))
    with general():
        slow, slow_leaves = build(jitgrad, getattr(jitgrad, dtype))
    _same_tensor(out, slow)
    t_out, t_leaves = build(torch, getattr(torch, dtype))
    assert np.array_equal(out.detach().numpy(), t_out.detach().numpy())
    if out.requires_grad:
        seed = np.arange(1.0, 1.0 + out.numel()).reshape(out.shape)
        (out * jitgrad.tensor(seed, dtype=out.dtype)).sum().backward()
        (t_out * torch.tensor(seed, dtype=t_out.dtype)).sum().backward()
        for a, t in zip(leaves, t_leaves):
            assert (a.grad is None) == (t.grad is None)
            if a.grad is not None:
                assert np.array_equal(a.grad.detach().numpy(), t.grad.detach().numpy())


def test_a_storage_takes_no_ndarray_subclass() -> None:
    """The fused joins call NumPy's concatenate without ``__array_function__`` dispatch and
    check no input's buffer class: a Storage's buffer is exactly ``np.ndarray`` (jitgrad's
    own functions, ``from_numpy`` too, give it one; NumPy's results from it are one)."""
    class Sub(np.ndarray):
        def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
            raise AssertionError(func.__name__)

    with pytest.raises(TypeError, match="not a subclass"):
        Tensor._from_buffer(np.array([1.0, 2.0]).view(Sub), (2,))
    x = jitgrad.from_numpy(np.array([1.0, 2.0]).view(Sub))
    assert type(x._storage.buffer) is np.ndarray
    for out in (jitgrad.cat([x, x * 2.0]), jitgrad.stack([x, x * 2.0]), jitgrad.cat([x, x[:1]])):
        assert type(out._storage.buffer) is np.ndarray
    assert jitgrad.cat([x, x[:1]]).tolist() == [1.0, 2.0, 1.0]


@pytest.mark.parametrize("first, other", [
    ("float64", "float32"), ("float64", "int32"), ("float64", "bool"), ("float32", "int8"),
    ("float32", "float64"), ("float32", "int64"), ("float32", "int32"),
])
@pytest.mark.parametrize("fresh_leaf", [False, True])
def test_fused_cat_of_mixed_dtypes_builds_what_the_general_path_builds(first: str, other: str, fresh_leaf: bool) -> None:
    """``cat`` promotes: the lean path takes inputs of other dtypes when NumPy's result has
    the first input's dtype (it checks the result's dtype once), the general path the
    others; a leaf of another dtype gets an AccumulateGrad of its own metadata."""
    def build(lib: Any) -> tuple[Any, list[Any]]:
        x = lib.tensor([0.5, -1.5, 2.0], dtype=getattr(lib, first), requires_grad=True)
        values = [True, False, True] if other == "bool" else [1, 0, 3]
        y = lib.tensor(values, dtype=getattr(lib, other))
        if other.startswith("float"):
            y.requires_grad_(True)
        leaves = [t for t in (x, y) if t.requires_grad]
        inputs = [x * 2.0, y if fresh_leaf else y * 1, x]
        return lib.cat(inputs), leaves

    lean = np.result_type(first, other) == np.dtype(first)
    with mock.patch.object(stacking, "record", wraps=stacking.record) as record:
        out, leaves = build(jitgrad)
    assert (record.call_count == 0) == lean
    with general():
        slow, slow_leaves = build(jitgrad)
    _same_tensor(out, slow)
    for (n, _), (m, _) in zip(out.grad_fn.next_functions, slow.grad_fn.next_functions):
        if type(n) is AccumulateGrad:
            assert n.input_metadata == m.input_metadata and n.variable.dtype == m.variable.dtype
    t_out, t_leaves = build(torch)
    assert np.array_equal(out.detach().numpy(), t_out.detach().numpy())
    assert str(out.dtype).split(".")[-1] == str(t_out.dtype).split(".")[-1]
    for r in (out, slow, t_out):
        (r * r).sum().backward()
    for a, b, t in zip(leaves, slow_leaves, t_leaves):
        assert a.grad.dtype == b.grad.dtype and a.grad.detach().numpy().tobytes() == b.grad.detach().numpy().tobytes()
        assert np.array_equal(a.grad.detach().numpy(), t.grad.detach().numpy())


def test_fused_cat_plans_of_one_shape_in_turn() -> None:
    """Inputs of one shape joined by several numbers of inputs, along several dims, of
    several dtypes, in turn (the plan kept per shape is replaced each time): each as the
    general path builds it."""
    for n, dim, dtype in [(3, 0, "float64"), (2, 0, "float64"), (3, 1, "float64"), (3, -1, "float64"),
                          (3, 0, "float32"), (2, -2, "float32"), (3, 0, "float64")] * 2:
        leaf = jitgrad.ones(2, 3, dtype=getattr(jitgrad, dtype), requires_grad=True)
        xs = [leaf * float(i + 1) for i in range(n)]
        out = jitgrad.cat(xs, dim)
        with general():
            slow = jitgrad.cat(xs, dim)
        _same_tensor(out, slow)
        assert out.grad_fn.sizes == slow.grad_fn.sizes and out.grad_fn.dim == slow.grad_fn.dim
        # (the plan kept for the shape is the one made the first time for these inputs)
        key = (leaf.dtype, (2, 3), n, dim)
        assert stacking._CAT_PLANS[(2, 3)] is stacking._ALL_CAT_PLANS[key]


def test_fused_stack_of_leaf_scalars_before_any_plan_of_their_dtype() -> None:
    """The AccumulateGrad of a 0-d leaf, made before any op of its dtype made a plan (a
    fresh process's first op: on main this raised AttributeError)."""
    empty = {dtype: {} for dtype in fused._PLANS}  # (one table per lean dtype, none filled)
    with mock.patch.dict(fused._PLANS, empty, clear=True):
        x = jitgrad.tensor(1.5, dtype=jitgrad.float32, requires_grad=True)
        out = jitgrad.stack([x, x])
    assert type(out.grad_fn.next_functions[0][0]) is AccumulateGrad
    out.sum().backward()
    assert x.grad.item() == 2.0
