"""The per-op fast paths under every op (``SavingNode.save``, ``record``, ``needs_grad``,
``Storage._fresh``, ``copying.clone``) build exactly what the general code builds: the same
saved tensors (every field), edges, versions and errors; and PyTorch's semantics."""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from jitgrad.autograd import graph
from jitgrad.autograd.node import SavedTensor
from jitgrad.ops.elementwise import MulBackward0

_SAVED_FIELDS = SavedTensor.__slots__


def _fields(s: SavedTensor) -> dict[str, Any]:
    return {name: getattr(s, name) for name in _SAVED_FIELDS}


def _inputs() -> list[Any]:
    """Tensors an op may save: a leaf, a view of a leaf, a result, a view written since,
    one with no history, a 0-d one."""
    leaf = jitgrad.rand(5, dtype=jitgrad.float64, requires_grad=True)
    result = leaf * 2.0
    written = jitgrad.zeros(5, dtype=jitgrad.float64)
    written[1] = leaf[0]
    return [leaf, leaf[2], result, result[1:], written[3], written, jitgrad.ones(3), jitgrad.tensor(2.0)]


@pytest.mark.parametrize("k", range(8))
def test_compactly_saved_tensors_are_the_general_saved_tensors_field_for_field(k):
    t = _inputs()[k]
    node = MulBackward0()
    node.save(t, 2.0, None)
    assert node.unpack() == (t, 2.0, None)  # (the compact form, checked)
    assert node._compact is not None
    saved = node.saved  # made now, once
    assert node._compact is None and node.saved is saved
    assert saved[1:] == (2.0, None)
    assert _fields(saved[0]) == _fields(SavedTensor(t))
    assert node.unpack() == (t, 2.0, None)  # (the SavedTensors)


@pytest.mark.parametrize("k", range(8))
@pytest.mark.parametrize("arity", [1, 2])
def test_one_or_two_values_are_kept_inline_and_read_as_the_general_saved_tensors(k, arity):
    """``save`` of one or two values keeps them in the node's slots (no tuple for a kept
    graph to hold); unpacking, ``saved``, release and the errors after it are those of the
    tuple form and of SavedTensors."""
    from jitgrad.autograd.node import INLINE

    t = _inputs()[k]
    values = (t, 2.0)[:arity]
    node = MulBackward0()
    node.save(*values)
    assert node._compact is INLINE and node._s0 is t and node.unpack() == values
    saved = node.saved
    assert node._compact is None and node._s0 is None and node._s1 is None  # (handed over)
    assert _fields(saved[0]) == _fields(SavedTensor(t)) and saved[1:] == values[1:]
    node = MulBackward0()
    node.save(*values)
    node.release_variables()
    assert node._s0 is None and node._s1 is None  # (nothing kept alive after release)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        node.unpack()


def test_a_stepper_statement_leaves_only_its_nodes_and_one_saved_tensor():
    """``u[1:-1] += al * (u[2:] - 2 * u[1:-1] + u[:-2])`` keeps, per statement, its 9 nodes
    and the saved sum (a Tensor and its Storage): edges and saved values inline, no tuple
    (each object a kept graph holds costs Python's collector on every collection)."""
    import collections
    import gc

    u = (jitgrad.arange(130, dtype=jitgrad.float64) ** 2).requires_grad_() * 1.0
    al = jitgrad.tensor(0.001, dtype=jitgrad.float64, requires_grad=True)

    def statement() -> None:
        u[1:-1].__iadd__(al * (u[2:] - 2 * u[1:-1] + u[:-2]))

    from jitgrad.autograd.node import Node
    from jitgrad.storage import Storage

    def graph_objects() -> collections.Counter[str]:  # (what a kept graph can be made of)
        kinds = (Node, jitgrad.Tensor, Storage, tuple)  # (by type: no object's ``__class__`` read)
        return collections.Counter(t.__name__ for t in map(type, gc.get_objects()) if issubclass(t, kinds))

    for _ in range(50):  # (warm: caches, first-use objects)
        statement()
    gc.collect()
    before = graph_objects()
    for _ in range(100):
        statement()
    gc.collect()
    after = graph_objects()
    grown = {k: (after[k] - before[k]) / 100 for k in after if after[k] != before[k]}
    assert {k: v for k, v in grown.items() if abs(v) >= 0.5} == {
        "SliceBackward0": 3, "SubBackward0": 1, "AddBackward0": 2, "MulBackward0": 2,
        "CopySlices": 1, "Tensor": 1, "Storage": 1}, grown
    (g,) = jitgrad.autograd.grad(u.sum(), al)  # (and the graph still differentiates)
    assert g.item() != 0


@pytest.mark.parametrize("when", ["before", "after"])
def test_compact_saving_refuses_what_saved_tensors_refuse(when):
    """A version moved, a history detached in place, backward after release: the same
    errors whether or not the SavedTensors were made before."""
    x = jitgrad.rand(3, dtype=jitgrad.float64, requires_grad=True)
    a = x * 1.0
    node = MulBackward0()
    node.save(a, x)
    if when == "before":
        node.saved
    a.add_(1.0)
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0 instead"):
        node.unpack()
    b = x * 1.0
    node = MulBackward0()
    node.save(b, None)
    b.detach_()
    if when == "before":
        node.saved
    with pytest.raises(RuntimeError, match="detached in-place"):
        node.unpack()
    node = MulBackward0()
    node.save(x * 1.0, 3)
    if when == "before":
        node.saved
    node.release_variables()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        node.unpack()
    freed = node.saved[0]
    assert freed._freed and freed._data is None
    assert node.saved[1]._freed  # a number saved by mul is PyTorch's wrapped 0-dim tensor: freed too
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        node._saved_self


def test_hooks_registered_on_a_compactly_saved_tensor_apply():
    x = jitgrad.tensor([1.0, 2.0], dtype=jitgrad.float64, requires_grad=True)
    y = jitgrad.tensor([3.0, 4.0], dtype=jitgrad.float64, requires_grad=True)
    out = x * y
    out.grad_fn._raw_saved_other.register_hooks(lambda t: t * 10, lambda t: t)
    out.sum().backward()
    assert x.grad.tolist() == [30.0, 40.0] and y.grad.tolist() == [1.0, 2.0]


def test_retain_graph_keeps_compactly_saved_tensors_and_release_frees_them():
    import weakref

    x = jitgrad.rand(3, dtype=jitgrad.float64, requires_grad=True)
    h = x * 2.0
    ref = weakref.ref(h)
    out = (h * x).sum()
    del h
    out.backward(retain_graph=True)
    assert ref() is not None
    out.backward()
    assert ref() is None
    np.testing.assert_allclose(x.grad.detach().numpy(), 2 * (4 * x.detach().numpy()))


@pytest.mark.filterwarnings("ignore:Anomaly Detection")
def test_save_takes_the_general_path_under_hooks_anomaly_and_for_outputs():
    a = jitgrad.rand(3, requires_grad=True)
    b = jitgrad.rand(3, requires_grad=True)
    with jitgrad.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
        out = a * b
    assert out.grad_fn._raw_saved_self.unpack_hook is not None
    with jitgrad.autograd.detect_anomaly():
        out = a * b
    assert out.grad_fn._raw_saved_self._saved_at is not None
    out = a.exp()  # saves its result: an output, kept without a reference cycle
    assert out.grad_fn._raw_saved_result._node is not None


def test_saving_an_inference_tensor_is_refused_as_before():
    with jitgrad.inference_mode():
        c = jitgrad.ones(3)
    a = jitgrad.rand(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        a * c


def test_a_write_after_saving_a_view_is_caught_as_in_pytorch():
    for lib in (jitgrad, torch):
        x = lib.rand(4, dtype=lib.float64, requires_grad=True)
        buf = lib.zeros(4, dtype=lib.float64)
        buf[0] = x[0] * 1.0
        y = buf[0] * x[1]  # saves the view buf[0]
        buf[0] = x[2]
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.backward()


def _edges(t: Any) -> list[Any]:
    return [(None if fn is None else fn.name(), nr) for fn, nr in t.grad_fn.next_functions]


@settings(max_examples=budget(40), deadline=None)
@given(ops=st.lists(st.tuples(st.sampled_from(["mul", "sub", "div", "clone", "set"]),
                              st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=12))
def test_programs_on_views_of_a_written_buffer_match_pytorch(ops):
    """The inlined view tests of ``needs_grad`` and ``record`` (a view whose storage was
    written since it was made is brought up to date first): graphs and gradients as PyTorch's."""
    results = []
    for lib in (jitgrad, torch):
        x = lib.tensor([1.5, 2.0, 3.0, 0.5, 4.0], dtype=lib.float64, requires_grad=True)
        buf = lib.zeros(5, dtype=lib.float64)
        views = [buf[i] for i in range(5)]  # made before the writes: stale after them
        total = x.sum() * 0.0
        names = []
        for op, i, j in ops:
            a, b = views[i], x[j]
            if op == "set":
                buf[i] = x[j] * 1.0
                continue
            out = a.clone() if op == "clone" else {"mul": a * b, "sub": a - b, "div": a / b}[op]
            names.append(None if out.grad_fn is None else out.grad_fn.name())
            total = total + out.sum()
        try:  # a saved view written since raises, in both
            total.backward()
        except RuntimeError as e:
            assert "modified by an inplace operation" in str(e)
            results.append((names, None))
            continue
        results.append((names, x.grad.detach().numpy().copy()))
    assert results[0][0] == results[1][0]
    if results[0][1] is None or results[1][1] is None:
        assert results[0][1] is None and results[1][1] is None
    else:
        np.testing.assert_array_equal(results[0][1], results[1][1])


def test_record_edges_of_leaves_views_and_numbers_match_pytorch():
    edges = []
    for lib in (jitgrad, torch):
        x = lib.rand(3, requires_grad=True)
        y = x * 2.0
        edges.append([_edges(y), _edges(x[1] * y[2]), _edges(2.0 - x[0]), _edges(x.clone())])
    assert edges[0] == edges[1]
    x = jitgrad.rand(3, requires_grad=True)
    # the leaf's one accumulator is shared by every edge to it
    assert (x * x).grad_fn.next_functions[0][0] is (x - 1.0).grad_fn.next_functions[0][0]
    assert graph.needs_grad(1.0, x) and not graph.needs_grad(1.0, jitgrad.ones(2))


@pytest.mark.parametrize("make", [
    lambda lib: lib.tensor([1.0, 2.0, 3.5], dtype=lib.float64, requires_grad=True)[2],
    lambda lib: lib.tensor(2.5, dtype=lib.float32),
    lambda lib: lib.arange(6).reshape(2, 3)[1, 2],
    lambda lib: lib.tensor([True, False])[1],
])
def test_clone_of_a_0d_tensor_matches_pytorch(make):
    outs = []
    for lib in (jitgrad, torch):
        t = make(lib)
        c = t.clone()
        outs.append((c.dtype.__str__().split(".")[-1], c.shape, c.stride(), c.storage_offset(),
                     c.untyped_storage().nbytes(), c._version, c._base is None, c.item(),
                     c.requires_grad, None if c.grad_fn is None else c.grad_fn.name()))
        assert c.data_ptr() != t.data_ptr()
    assert outs[0] == outs[1]


def test_clone_of_a_0d_view_owns_its_memory():
    x = jitgrad.rand(4, dtype=jitgrad.float64)
    c = x[2].clone()
    x[2] = 7.0
    fresh = graph.is_fresh(c)  # (outside an assert: pytest's rewriting holds references)
    assert fresh
    assert c.item() != 7.0 and c._version == 0
    with jitgrad.inference_mode():
        assert x[1].clone().is_inference()
    ro = jitgrad.from_numpy(np.ones(3)[::1].copy())
    ro.detach().numpy().flags.writeable = False
    c = ro[0].clone()
    c += 1  # a clone of read-only memory is writable
    assert c.item() == 2.0


def test_single_metadata_is_shared_per_shape_and_dtype():
    f64, f32 = np.dtype("float64"), np.dtype("float32")
    a = graph.single_metadata((2, 3), f64)
    assert a == (((2, 3), f64),) and graph.single_metadata((2, 3), f64) is a
    assert graph.single_metadata((2, 3), f32) == (((2, 3), f32),)
    assert graph.single_metadata((3, 2), f64) == (((3, 2), f64),)
    x = jitgrad.rand(2, 3, dtype=jitgrad.float32, requires_grad=True)
    for out in (x * 2.0, x[1], x.double(), x.sum()):
        assert out.grad_fn.input_metadata == ((tuple(out.shape), out.dtype),)


@settings(max_examples=budget(60), deadline=None)
@given(shape=st.lists(st.integers(0, 4), min_size=0, max_size=3), data=st.data())
def test_numpy_of_any_view_shares_memory_with_numpys_strides(shape, data):
    """``numpy()`` (byte strides cached per geometry): the same elements, memory and
    writability as NumPy's own view; a size-1 dim's stride is 0."""
    base = np.arange(int(np.prod(shape)) * 2, dtype=np.float32).reshape([2] + shape)
    t = jitgrad.from_numpy(base.copy())
    index = tuple(slice(data.draw(st.integers(0, 1)), None, data.draw(st.integers(1, 2)))
                  for _ in range(t.ndim))
    for view in (t[index], t[index].transpose(0, -1), t[1]):
        a = view.detach().numpy()
        expected = view.contiguous().detach().numpy()
        np.testing.assert_array_equal(a, expected)
        if a.size:  # (an empty view is a fresh empty array)
            assert a.strides == tuple(0 if n == 1 else s * 4 for n, s in zip(view.shape, view.stride()))
            assert np.shares_memory(a, t.detach().numpy())
        assert a.flags.writeable
    ro = np.ones(3)
    ro.flags.writeable = False
    assert not jitgrad.from_numpy(ro)[1:].detach().numpy().flags.writeable


# -- an input and a fresh result saved compactly (``SavingNode.save_input_result``) -------
_INPUT_RESULT_OPS = {
    "logsumexp": lambda a: a.logsumexp(0), "cumprod": lambda a: a.cumprod(0), "norm": lambda a: a.norm(),
    "std": lambda a: a.std(), "prod": lambda a: a.prod(), "amax": lambda a: a.amax(), "max": lambda a: a.max(),
}


@pytest.mark.parametrize("op", sorted(_INPUT_RESULT_OPS))
def test_input_and_result_saved_compactly_read_as_in_pytorch(op):
    """``_saved_self``/``_saved_result`` (the result with the node as its ``grad_fn``), the
    ``SavedTensor``s made from the compact form field for field as ``save`` makes them, and
    the errors of a write into the input and of a second backward, as PyTorch's."""
    f = _INPUT_RESULT_OPS[op]
    seen = []
    for lib in (jitgrad, torch):
        x = lib.tensor([0.5, 2.0, 1.5, 3.0], dtype=lib.float64, requires_grad=True)
        a = x * 1.0
        y = f(a)
        fn = y.grad_fn
        result = fn._saved_result
        row = [fn.name(), fn._saved_self.tolist(), result.tolist(), result.grad_fn is fn, result.equal(y)]
        loss = y.sum()
        loss.backward(retain_graph=True)
        row.append(x.grad.tolist())
        loss.backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            loss.backward()
        b = x * 1.0
        z = f(b).sum()
        b.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.backward()
        w = f(x * 1.0)
        w.mul_(2)  # (the saved result itself)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            w.sum().backward()
        seen.append(row)
    assert seen[0] == seen[1]
    x = jitgrad.tensor([0.5, 2.0, 1.5, 3.0], dtype=jitgrad.float64, requires_grad=True)
    a = x * 1.0
    y = f(a)
    node = y.grad_fn
    assert node._compact is not None and node._saved is None  # (kept compactly)
    general = type(node).__new__(type(node))
    general.save(a, y, outputs=(y,))
    ours = node.saved  # (made now from the compact form)
    assert node._compact is None
    assert _fields(ours[0]) == _fields(general.saved[0])
    made, expected = _fields(ours[1]), _fields(general.saved[1])
    assert made.pop("_data").equal(expected.pop("_data"))
    assert made.pop("_node")() is node and expected.pop("_node")() is general
    assert made == expected


def test_a_node_that_saved_nothing_unpacks_and_releases_nothing():
    """``save()`` with no values (a node whose backward needs only its fields) is a compact
    form too: nothing to unpack, check or free."""
    node = MulBackward0()
    node.save()
    assert node.unpack() == ()
    node.release_variables()
    assert node.unpack() == () and node.saved == ()


# -- logsumexp over a dim: its backward on the data ----------------------------------------
@settings(max_examples=budget(40), deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=2, max_size=3), dim=st.integers(-3, 2), keepdim=st.booleans(),
       dtype=st.sampled_from(["float64", "float32"]), seed=st.integers(0, 2**16))
def test_logsumexp_backward_on_the_data_is_the_general_paths(shape, dim, keepdim, dtype, seed):
    """``LogsumexpBackward0`` over a dim of an N-d input, computed on the data when no graph
    of the backward is built: bit for bit the general path's (``_logsumexp_grad_data``
    declined) and PyTorch's gradient to rounding; the case HMM's forward algorithm reduces."""
    from jitgrad.ops import reduction
    from lean_switch import declined

    dim = dim % len(shape) if -len(shape) <= dim < len(shape) else 0
    values = np.random.default_rng(seed).normal(size=shape) * 3
    grads = []
    for path in ("data", "general", "torch"):
        lib = torch if path == "torch" else jitgrad
        x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
        y = lib.logsumexp(x * 1.0, dim, keepdim=keepdim)
        weights = lib.arange(y.numel(), dtype=getattr(lib, dtype)).reshape(y.shape) + 1
        with declined(reduction, "_logsumexp_grad_data", None) if path == "general" else contextlib.nullcontext():
            (y * weights).sum().backward()
        grads.append(x.grad.detach().numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
    np.testing.assert_allclose(grads[0], grads[2], rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-6)


def test_logsumexp_double_backward_takes_the_general_path():
    for lib in (jitgrad, torch):
        x = lib.tensor([[0.5, 1.0], [2.0, -1.0]], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(lib.logsumexp(x, 0).sum(), x, create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), x)
        if lib is jitgrad:
            ours = (g.detach().numpy(), h.detach().numpy())
    np.testing.assert_allclose(ours[0], g.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours[1], h.detach().numpy(), rtol=1e-12)


@settings(max_examples=budget(60), deadline=None)
@given(sizes=st.lists(st.integers(1, 4), min_size=1, max_size=3), data=st.data(),
       dtype=st.sampled_from(["float64", "float32"]))
def test_sum_to_on_the_data_is_sums_reduction(sizes, data, dtype):
    """The engine's un-broadcast (``sum_to`` with no graph of the backward) on the data: bit
    for bit what ``sum(dims, keepdim=True)`` then a view give; and a broadcasting program's
    gradients as PyTorch's."""
    from jitgrad.ops import reduction

    sizes = tuple(sizes)
    lead = data.draw(st.integers(0, 2))
    shape = tuple(data.draw(st.sampled_from([1, s])) for s in sizes)  # (what broadcasts to ``sizes``)
    full = (2,) * lead + sizes
    g = jitgrad.tensor(np.random.default_rng(len(full)).normal(size=full), dtype=getattr(jitgrad, dtype))
    with jitgrad.no_grad():
        ours = reduction.sum_to(g, shape)
        lead_dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and sizes[i] != 1)
        general = jitgrad.sum(g, lead_dims, keepdim=True).reshape(shape) if lead_dims else g
    assert ours.shape == general.shape and ours.dtype == general.dtype
    np.testing.assert_array_equal(ours.numpy(), general.numpy())
    grads = []
    for lib in (jitgrad, torch):
        small = lib.tensor(np.linspace(-1, 1, int(np.prod(shape))).reshape(shape), dtype=getattr(lib, dtype),
                           requires_grad=True)
        big = lib.tensor(np.linspace(0, 2, int(np.prod(full))).reshape(full), dtype=getattr(lib, dtype))
        ((small + big) * big).sum().backward()
        grads.append(small.grad.detach().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5 if dtype == "float32" else 1e-12)
