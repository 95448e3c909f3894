"""The lean path of plain views (``x[i, j]``, ``x[1:, 2:]``, ``x[:, None]``) against the
general path and PyTorch.

``view_ops._plain_view`` records the view's node and ``ViewMeta`` inline when the tensor's
history is up to date (the lean plain view in ``view_ops.py``). Each program here runs three ways — lean
path, general path (``record`` + ``make_view``, as before the lean path) and PyTorch — and
must give the same graph (node names and edges), view tracking (every ``ViewMeta`` slot,
``_base``, ``_is_view``), version counters, errors, values and gradients, with writes
through the views (CopySlices), hooks, ``retain_grad`` and both view modes.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from jitgrad.autograd.graph import needs_grad, record, single_metadata
from jitgrad.geometry import Geometry, contiguous_strides
from jitgrad.autograd.view_mode import view_replay
from jitgrad.ops import view_ops
from jitgrad.ops.view_meta import ViewMeta, make_view
from jitgrad.tensor import Tensor
from test_plain_writes import graph_signature

SHAPE = (4, 5)


def _general_plain_view(self: Tensor, plain: tuple[Any, ...], index: Any, known: Any = None,
                        metadata: Any = None, rel: Any = None) -> Tensor:
    """``_plain_view`` through the general helpers only (the path before the lean one); the
    node type, the metadata and the relative geometry a caller passes (``known``,
    ``metadata``, ``rel``) must be the ones the index and the tensor give."""
    sizes, strides, offset = plain
    assert metadata is None or metadata[0][1] != self.dtype or \
        metadata == single_metadata(sizes, self.dtype), (index, metadata)
    assert rel is None or (self.is_contiguous() and rel == jitgrad.indexing.plain_geometry(
        Geometry(self._sizes, contiguous_strides(self._sizes), 0), index)), (index, rel)
    root = self._base
    view = Tensor._make(self._storage, sizes, strides, offset, self if root is None else root)
    # (PyTorch's name: test_whole_index_writes checks _plain_node_type against PyTorch)
    node_type = view_ops._plain_node_type(index, self._sizes)
    if known is not None and type(index) is tuple and len(index) == 1:
        node_type = view_ops._plain_node_type(index[0], self._sizes)  # (``x[a:b]`` kept as ``x[(a:b,)]``)
    assert known is None or known is node_type, (index, known)
    if needs_grad(self):
        record(node_type(self._sizes, index, jitgrad.indexing.plain_geometry), (self,), (view,))
    return make_view(self, view, (view_ops._basic_part, index if type(index) is tuple else (index,)))


def general_path() -> Any:
    return mock.patch.object(view_ops, "_plain_view", _general_plain_view)


def meta_state(t: Any) -> Any:
    """Everything view tracking remembers about ``t`` (every ViewMeta slot: a slot the lean
    path forgets to set raises here)."""
    vm = t._view_meta
    if vm is None:
        return (t._base is None, t._is_view())
    state = []
    for name in ViewMeta.__slots__:
        value = getattr(vm, name)
        if name == "parent":
            value = None if value is None else id(value())
        elif name in ("base", "parent_meta"):
            value = None if value is None else id(value)
        state.append((name, value))
    return (id(t._base), t._is_view(), tuple(state), t._version, t._output_nr)


def _index(draw: Callable[..., Any], sizes: tuple[int, ...]) -> Any:
    items: list[Any] = []
    dims = list(sizes)
    while dims and draw(st.booleans()):
        kind = draw(st.sampled_from(["int", "slice", "none"]))
        if kind == "none":
            items.append(None)
            continue
        size = dims.pop(0)
        if kind == "int":
            items.append(draw(st.integers(-size - 1, size)))  # out of range: IndexError
        else:
            bound = st.none() | st.integers(-size - 1, size + 1)
            items.append(slice(draw(bound), draw(bound), draw(st.none() | st.integers(1, 3))))
    if draw(st.booleans()):
        items.append(None)
    if len(items) == 1 and draw(st.booleans()):
        return items[0]
    return tuple(items)


SOURCES = ("leaf", "nonleaf", "view", "stale_view", "nograd_view", "plain", "detached")


@st.composite
def programs(draw: Callable[..., Any]) -> dict[str, Any]:
    source = draw(st.sampled_from(SOURCES))
    sizes = (3, 5) if source in ("view", "stale_view", "nograd_view") else SHAPE
    first = _index(draw, sizes)
    return {
        "source": source,
        "first": first,
        "second": _index(draw, (5,)) if draw(st.booleans()) else None,
        "mode": draw(st.sampled_from(["grad", "no_grad", "inference"])),
        "write": draw(st.sampled_from([None, "mul_", "base"])),
        "replay": draw(st.booleans()),
        "hooks": draw(st.booleans()),
    }


def run(lib: Any, program: dict[str, Any]) -> dict[str, Any]:
    f64 = lib.float64
    x = lib.arange(20, dtype=f64).reshape(SHAPE).requires_grad_()
    table = x * 1.0
    source = program["source"]
    if source == "leaf":
        t = x
    elif source == "nonleaf":
        t = table
    elif source == "view":
        t = table[1:]
    elif source == "stale_view":
        t = table[1:]
        table.mul_(2)
    elif source == "nograd_view":
        with lib.no_grad():
            t = table[1:]
    elif source == "plain":
        t = lib.arange(20, dtype=f64).reshape(SHAPE)
    else:
        t = table.detach()
    seen: list[Any] = []
    mode = {"grad": contextlib.nullcontext, "no_grad": lib.no_grad,
            "inference": lib.inference_mode}[program["mode"]]
    out: dict[str, Any] = {}
    try:
        with mode():
            v = t[program["first"]]
            if program["second"] is not None and v.dim() >= 1 and v.shape[-1] == 5:
                v = v[..., 1:] if program["second"] == () else v[(Ellipsis,) + (
                    program["second"] if type(program["second"]) is tuple else (program["second"],))]
    except (IndexError, RuntimeError) as exc:
        return {"error": (type(exc).__name__, str(exc) if lib is jitgrad else None)}
    out["shape"] = tuple(v.shape)
    out["requires_grad"] = v.requires_grad
    out["is_view"] = v._is_view()
    out["base_is_root"] = v._base is (t if t._base is None else t._base)
    if lib is jitgrad:
        out["graph"] = graph_signature(v)
    # (hooks only on views made with grad on, and not across a write to the base: jitgrad's
    # retain_grad refuses a no_grad view, and keeps hooks across a rebase; see the report)
    hooks = program["hooks"] and program["mode"] == "grad" and program["write"] != "base"
    if hooks and v.requires_grad:
        v.retain_grad()
        v.register_hook(lambda g: seen.append(g.detach().numpy().copy()))
    try:
        if program["write"] == "mul_":
            v.mul_(3.0)
        elif program["write"] == "base":
            with (lib.no_grad() if not table.requires_grad else contextlib.nullcontext()):
                table.add_(1.0)
    except RuntimeError as exc:
        out["write_error"] = (type(exc).__name__, str(exc) if lib is jitgrad else None)
    try:
        out["versions"] = (v._version, t._version)
        out["values"] = v.detach().numpy().tolist()
        if v.requires_grad and v.numel():
            loss = (v * v).sum() + (table * table).sum()
            out["grad"] = lib.autograd.grad(loss, x, retain_graph=True, create_graph=True)[0] \
                .detach().numpy().tolist()
            if hooks:
                loss.backward()
                out["retained"] = None if v.grad is None else v.grad.detach().numpy().tolist()
                out["hooked"] = [g.tolist() for g in seen]
    except RuntimeError as exc:  # a stale no_grad view read with grad on
        out["late_error"] = (type(exc).__name__, str(exc) if lib is jitgrad else None)
    if lib is jitgrad:  # (reading grad_fn of a stale no_grad view raises: jitgrad only)
        try:
            out["graph_after"] = graph_signature(v) if v.requires_grad else None
        except RuntimeError as exc:
            out["graph_after"] = str(exc)
    return out


def _compare(program: dict[str, Any]) -> None:
    import torch

    mode = view_replay(program["replay"])
    with mode:
        lean = run(jitgrad, program)
    with mode, general_path():
        general = run(jitgrad, program)
    assert lean == general
    theirs = run(torch, program)
    for key in ("graph", "graph_after"):
        lean.pop(key, None)
    if "error" in lean:
        assert lean["error"][0] == theirs["error"][0]
        return
    for key in ("write_error", "late_error"):
        if key in lean or key in theirs:
            assert lean[key][0] == theirs[key][0]
            lean.pop(key), theirs.pop(key)
    for key, value in lean.items():
        if key in ("values", "grad", "retained", "hooked"):
            np.testing.assert_allclose(np.asarray(value, dtype=float),
                                       np.asarray(theirs[key], dtype=float), rtol=0, atol=0)
        else:
            assert value == theirs[key], key


@settings(max_examples=budget(300), deadline=None)
@given(programs())
def test_plain_views_lean_vs_general_vs_pytorch(program: dict[str, Any]) -> None:
    _compare(program)


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("index", [(3, 4), (slice(1, None), slice(2, None)), slice(1, -1),
                                   (slice(None), None), -1, (None,), ()])
@pytest.mark.parametrize("replay", [False, True])
def test_common_plain_views(source: str, index: Any, replay: bool) -> None:
    _compare({"source": source, "first": index, "second": None, "mode": "grad",
              "write": "mul_", "replay": replay, "hooks": True})


def test_lean_meta_has_every_slot_and_state() -> None:
    x = jitgrad.randn(4, 5, requires_grad=True)
    y = x * 2
    rows = y[1:]
    lean = [rows[2, None], x[0], y[:, None]]
    with general_path():
        general = [rows[2, None], x[0], y[:, None]]
    for a, b in zip(lean, general):
        sa, sb = meta_state(a), meta_state(b)
        # (same structure; ids of the view objects themselves differ)
        assert [n for n, _ in sa[2]] == [n for n, _ in sb[2]] == list(ViewMeta.__slots__)
        assert a._view_meta.base is b._view_meta.base
        assert a._view_meta.creation == b._view_meta.creation
        assert a._view_meta.view_fn[-1][1] == b._view_meta.view_fn[-1][1]
        assert a.grad_fn.name() == b.grad_fn.name()
        assert graph_signature(a) == graph_signature(b)
        # the node's own slots: the index, or the relative geometry getitem knew
        assert a.grad_fn.input_sizes == b.grad_fn.input_sizes
        assert b.grad_fn._rel_fn is jitgrad.indexing.plain_geometry
        if a.grad_fn._rel_fn is view_ops._plain_rel:
            assert type(a.grad_fn._rel) is Geometry
        else:
            assert (a.grad_fn._rel, a.grad_fn._rel_fn) == (b.grad_fn._rel, b.grad_fn._rel_fn)
        assert a.grad_fn.rel == b.grad_fn.rel and type(a.grad_fn.rel) is type(b.grad_fn.rel)
        assert a.grad_fn.__dict__ == b.grad_fn.__dict__ == {}
        for name in Tensor.__slots__:  # every slot set, as Tensor._make sets it
            if name in ("__weakref__", "_grad_fn", "_view_meta"):
                continue
            assert getattr(a, name) is getattr(b, name) or getattr(a, name) == getattr(b, name), name
        assert a.grad_fn.input_metadata == b.grad_fn.input_metadata
        assert a.grad_fn.sequence_nr < b.grad_fn.sequence_nr


def test_sequence_numbers_as_general_path() -> None:
    """The view's node takes the next sequence number, as on the general path (also when
    its leaf gets its AccumulateGrad on this first use)."""
    numbers = []
    for path in (contextlib.nullcontext, general_path):
        y = jitgrad.randn(3, requires_grad=True) * 1.0
        x = jitgrad.randn(4, 5, requires_grad=True)
        with path():
            v = x[1:, 2]
        numbers.append(v.grad_fn._sequence_nr() - y.grad_fn._sequence_nr())
    assert numbers == [1, 1]


def test_anomaly_mode_records_view_creation() -> None:
    x = jitgrad.randn(4, 5, requires_grad=True)
    with jitgrad.autograd.detect_anomaly():
        v = x[1:, 2]
    assert v.grad_fn.metadata  # where the node was created (Node.__init__'s anomaly trace)


def test_one_slice_is_the_loops_slice() -> None:
    """``plain_index``'s case for one slice repeats the loop's slice case: both agree on every
    small slice (and refuse the same ones)."""
    from jitgrad.indexing import plain_index

    bounds = [None, -7, -5, -2, -1, 0, 1, 2, 4, 5, 6, True, np.int64(1)]
    for sizes, strides, offset in (((5,), (1,), 0), ((5, 3), (3, 1), 2), ((5, 2), (1, 5), 1), ((0, 2), (2, 1), 0)):
        for start in bounds:
            for stop in bounds:
                for step in (None, 1, 2, 3, 0, -1):
                    index = slice(start, stop, step)
                    assert plain_index(sizes, strides, offset, index) == \
                        plain_index(sizes, strides, offset, (index,)), (sizes, index)
    assert plain_index((), (), 0, slice(None)) is None


def test_full_slice_then_int_or_none_is_the_loops() -> None:
    """``plain_index``'s case for ``x[:, j]`` and ``x[:, None]`` repeats the loop's: both agree
    (the loop gets ``0:``, the same slice spelled so that the case above passes it by) on
    every small geometry, and refuse the same indices; against PyTorch's view too."""
    import torch

    from jitgrad.indexing import plain_index

    seconds = [None, -4, -3, -2, -1, 0, 1, 2, 3, True, np.int64(1)]
    geometries = (((5,), (1,), 0), ((5, 3), (3, 1), 2), ((5, 2), (1, 5), 1), ((0, 2), (2, 1), 0),
                  ((2, 3, 4), (12, 4, 1), 3), ((4, 0), (1, 1), 0), ((3, 1), (0, 7), 1))
    for sizes, strides, offset in geometries:
        for second in seconds:
            ours = plain_index(sizes, strides, offset, (slice(None), second))
            assert ours == plain_index(sizes, strides, offset, (slice(0, None), second)), (sizes, second)
            if ours is None or type(second) is not int and second is not None:
                continue
            base = torch.zeros(100).as_strided(sizes, strides, offset)
            view = base[:, second]
            assert ours == (tuple(view.shape), view.stride(), view.storage_offset()), (sizes, second)
    assert plain_index((), (), 0, (slice(None), None)) is None


def _same_view_as_plain_index(base: Any, index: Any) -> Any:
    """``getitem(base, index)`` has ``plain_index``'s geometry (or the general path's), the
    node its last item names, and NumPy's elements (or both raise IndexError)."""
    from jitgrad.indexing import plain_index, split_index

    expected = plain_index(base._sizes, base._strides, base._offset, index)
    try:
        view = view_ops.getitem(base, index)
    except IndexError:
        assert expected is None, index
        with pytest.raises(IndexError):
            base.detach().numpy()[index]
        return None
    np.testing.assert_array_equal(view.detach().numpy(), base.detach().numpy()[index])
    if expected is None:
        geometry, advanced = split_index(base._geometry, index)
        if advanced:  # (a bool: a gather, not a view)
            return None
        expected = tuple(geometry)
    assert (view._sizes, view._strides, view._offset) == expected, (base.shape, index)
    if base.requires_grad:
        assert type(view.grad_fn) is view_ops._plain_node_type(index, base._sizes), index
    return view


def test_getitem_remembered_indices_are_plain_index() -> None:
    """``getitem``'s views by remembered indices (``x[i]``, ``x[a:b]``, ``x[a:b, c:d]``,
    ``x[a:b, j]``, ``x[a:b, None]``, also of such views) have ``plain_index``'s geometry on
    every small index and geometry, taken first or again (remembered), and indices that
    are not Python ints (or a step) take the general path."""
    bounds = [None, -7, -5, -4, -2, -1, 0, 1, 2, 4, 5, 6, True, np.int64(1)]
    grad = jitgrad.arange(30, dtype=jitgrad.float64, requires_grad=True) * 1.0
    # (three bases of sizes (5, 5) on other strides and offsets, taken in turn)
    bases = [grad[2:7], grad.reshape(6, 5)[1:], jitgrad.arange(30.0).reshape(5, 6)[:, 1:],
             jitgrad.arange(30.0).reshape(6, 5)[1:].t(), jitgrad.arange(30.0).reshape(5, 6).t()[:, 1:],
             jitgrad.zeros(0, 2)]
    for base in bases + bases[::-1]:  # (twice: the second time from the remembered geometry)
        for start in bounds:
            for stop in bounds:
                for step in (None, 1, 2):
                    _same_view_as_plain_index(base, slice(start, stop, step))
            if start is not None:
                row = _same_view_as_plain_index(base, start)
                if row is not None and row.dim() == 1:  # (a view of a remembered view)
                    for index in ((slice(1, None), None), (slice(None), 0), (slice(-2, None), slice(0, 1))):
                        _same_view_as_plain_index(row, index)
    for index in (slice(1, None), slice(None, -1), 1, -1, (slice(1, None), slice(None, 2)),
                  (slice(None), 0), (slice(0, 2), None)):
        for _ in range(3):  # (the bases taking turns: two remembered geometries, then more)
            for turns in (bases[1:3], bases[1:4], bases):
                for base in turns:
                    _same_view_as_plain_index(base, index)
    few = [None, -7, -1, 0, 2, 6, True, np.int64(1)]
    for base in bases[1:] + bases[:0:-1]:
        for a in few:
            for b in few:
                for c in few:
                    for index in ((slice(a, b), c), (slice(a, b), None), (slice(a, b, 2), c)):
                        _same_view_as_plain_index(base, index)
                    for d in (None, -1, 3, np.int64(2)):
                        for index in ((slice(a, b), slice(c, d)), (slice(a, b), slice(c, d, 2))):
                            _same_view_as_plain_index(base, index)


def test_slice_views_share_their_slice() -> None:
    """Views by the same int bounds share one index ``(slice,)`` (view replay step; the
    node's too, or, of a contiguous tensor, one relative geometry); bounds of other types
    keep their own."""
    x = jitgrad.arange(10, dtype=jitgrad.float64, requires_grad=True) * 1.0
    a, b = x[1:-1], x[1:-1]
    assert a._view_meta.step_args is b._view_meta.step_args == (slice(1, -1),)  # (x[(1:-1,)])
    assert a.grad_fn._rel is b.grad_fn._rel == a.grad_fn.rel == ((8,), (1,), 1)
    t = x.reshape(2, 5)
    e, f = t[1:, :-1], t[1:, :-1]
    assert e._view_meta.step_args is f._view_meta.step_args == (slice(1, None), slice(None, -1))
    assert e.grad_fn._rel is f.grad_fn._rel and e.tolist() == [[5.0, 6.0, 7.0, 8.0]]
    g, h = e[:, 1:], e[:, 1:]  # (of a view that is not contiguous: the shared index)
    assert g.grad_fn._rel is h.grad_fn._rel is g._view_meta.step_args == (slice(None), slice(1, None))
    assert x[1:-1].grad_fn._rel is a.grad_fn._rel  # (still shared after another index)
    c = x[np.int64(1):-1]
    assert type(c._view_meta.step_args[0].start) is np.int64
    d = x[True:-1]
    assert d._view_meta.step_args[0].start is True and d.tolist() == x[1:-1].tolist()


def test_views_of_a_base_hold_its_edge_inline() -> None:
    """The views of a tensor written through its views (its grad_fn a CopySlices) hold
    their edge in the node itself (no tuple per view); a new history (another write) is
    the next views' edge, other tensors' views and other output numbers their own edges,
    and ``detach_`` lets the old history go."""
    import gc
    import weakref

    x = jitgrad.arange(6, dtype=jitgrad.float64, requires_grad=True)
    u = x * 1.0
    a, b = u[1:], u[0]
    assert a.grad_fn.next_functions == b.grad_fn.next_functions == ((u.grad_fn, 0),)
    old = u.grad_fn
    u[1:3] += x[:2]  # (the lean write: the base's views then share the regenerated edge)
    c = u[2:]
    assert c.grad_fn.next_functions == ((u.grad_fn, 0),) and u.grad_fn is not old
    assert c.grad_fn._n0 is u[:1].grad_fn._n0 is u[1:3].grad_fn._n0 is u.grad_fn
    written = u.grad_fn
    u[0] = x[5] * 2.0  # (another write: the next views' edge)
    assert u[1:].grad_fn._n0 is u[0].grad_fn._n0 is u.grad_fn
    assert u[0].grad_fn.next_functions == ((u.grad_fn, 0),)
    assert u.grad_fn is not written
    values, order = jitgrad.sort(u * 1.0)
    second = jitgrad.max(u.reshape(2, 3), 1)[0]
    for t in (values, second):
        assert t[0].grad_fn.next_functions == ((t.grad_fn, t.output_nr),)
    (g,) = jitgrad.autograd.grad((c * c).sum() + (a * b).sum() + values[1], x)
    expected = []
    for lib in (jitgrad, __import__("torch")):
        xx = lib.arange(6, dtype=lib.float64, requires_grad=True)
        uu = xx * 1.0
        aa, bb = uu[1:], uu[0]
        uu[1:3] += xx[:2]
        uu[0] = xx[5] * 2.0
        vv = lib.sort(uu * 1.0)[0]
        expected.append(lib.autograd.grad((uu[2:] * uu[2:]).sum() + (aa * bb).sum() + vv[1], xx)[0].tolist())
    assert g.tolist() == expected[0] == expected[1]
    del a, b, c, values, order, second, g, t
    ref = weakref.ref(u.grad_fn)
    u[0].sum()
    u.detach_()
    gc.collect()
    assert ref() is None and u[0].grad_fn is None


def test_remembered_views_take_their_own_dtypes_metadata() -> None:
    """Two tensors of one geometry (the same sizes and strides objects) and two dtypes,
    sliced by the same bounds in turn: each view's node has its own dtype's metadata."""
    x = jitgrad.arange(6, dtype=jitgrad.float64, requires_grad=True) * 1.0
    w = jitgrad.arange(6, dtype=jitgrad.float32, requires_grad=True) * 1.0
    z = Tensor._make(w._storage, x._sizes, x._strides, 0)  # (float32, on x's very tuples)
    z._grad_fn = w.grad_fn
    for t in (x, z, x, z, z, x):
        v = t[1:4]
        assert v.grad_fn.input_metadata == single_metadata((3,), t.dtype), t.dtype
        assert v.grad_fn.input_metadata[0][1] is t._storage.buffer.dtype
