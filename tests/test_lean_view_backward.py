"""The backward of plain views and the engine's handling of their ``ScatterGrad``s, on the
lean pieces and the general ones.

- ``ViewBackward.apply`` computes a plain index's relative geometry inline (the ``rel``
  property's plain case, written out): both must give the same geometry.
- ``GraphTask.send`` adds a ``ScatterGrad`` or a Tensor straight into an owned dense buffer
  (``InputBuffers._accumulate``'s O(slice) case, inlined): gradients bit for bit as through
  ``InputBuffers.add`` and as PyTorch's.
- A view ``getitem`` remembers of a contiguous tensor takes the relative geometry it knew
  (``_plain_rel``); ``AsStridedBackward0`` remembers the last geometries' region;
  ``CatBackward0``/``StackBackward0`` make their slices as ``narrow``/``select`` do without
  a graph to build; general
  writes through a view reuse the metadata of the same sizes.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from jitgrad.autograd import input_buffer
from jitgrad.autograd.graph import ScatterGrad
from jitgrad.ops import view_ops
from lean_switch import counted, replaced

INDEX_PART = st.one_of(
    st.integers(-4, 3),
    st.builds(slice, st.one_of(st.none(), st.integers(-6, 6)), st.one_of(st.none(), st.integers(-6, 6)),
              st.one_of(st.none(), st.integers(1, 3))),
)


@settings(max_examples=budget(300))
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.lists(INDEX_PART, min_size=1, max_size=3),
       st.booleans())
def test_apply_computes_the_rel_property_s_geometry(sizes: list[int], parts: list[Any], single: bool) -> None:
    x = jitgrad.zeros(*sizes, dtype=jitgrad.float64, requires_grad=True) * 1.0
    index = parts[0] if single else tuple(parts)
    try:
        view = x[index]
    except IndexError:
        return
    node = view.grad_fn
    if node is None or node._rel_fn is not jitgrad.indexing.plain_geometry:
        return
    saved = node._rel
    expected = node.rel  # the property
    node._rel, node._rel_fn = saved, jitgrad.indexing.plain_geometry
    g = jitgrad.ones(view.shape, dtype=jitgrad.float64)
    with jitgrad.no_grad():
        (out,) = node.apply([g])
    assert out.__class__ is ScatterGrad
    assert out.region == expected and type(out.region) is type(expected)
    assert node.rel == expected


def test_cell_geometries_remembered_by_index_and_sizes() -> None:
    """``x[i, j]`` (not remembered by getitem): its node's geometry, computed by the first
    backward, is taken by the next backward of the same cell and sizes (the rel property's
    geometry; DP-table gradients bit for bit as with the cache off, and PyTorch's)."""
    def table(lib: Any) -> tuple[Any, ...]:
        x = lib.tensor(np.linspace(-1, 2, 20).reshape(4, 5), dtype=lib.float64, requires_grad=True)
        r = x * 1.0
        for i in range(1, 4):
            for j in range(1, 5):
                r[i, j] = r[i - 1, j - 1] * 0.5 + r[i, -j] + r[-i, j - 1] - r[i - 1, j]
        r[3, 4].backward()
        return (x.grad,)

    first = table(jitgrad)
    assert (((2, 3), (4, 5))) in view_ops._CELL_REL
    again = table(jitgrad)
    with replaced(view_ops, "_CELL_REL", {}), replaced(view_ops, "_CELL_REL_MAX", 0):
        general = table(jitgrad)
        assert view_ops._CELL_REL == {}
    theirs = table(torch)
    for a, b, c, d in zip(first, again, general, theirs):
        assert a.detach().numpy().tobytes() == b.detach().numpy().tobytes() == c.detach().numpy().tobytes()
        np.testing.assert_allclose(a.detach().numpy(), d.detach().numpy(), rtol=1e-13, atol=1e-15)
    x = jitgrad.zeros(4, 5, dtype=jitgrad.float64, requires_grad=True) * 1.0
    node = x[2, -1].grad_fn
    with jitgrad.no_grad():
        (out,) = node.apply([jitgrad.ones((), dtype=jitgrad.float64)])
    expected = view_ops.SelectBackward0((4, 5), (2, -1), jitgrad.indexing.plain_geometry).rel
    assert out.region == expected == view_ops._CELL_REL[((2, -1), (4, 5))]


KEY_PART = st.one_of(st.integers(-5, 4), st.builds(slice, st.one_of(st.none(), st.integers(-6, 6)),
                                                    st.one_of(st.none(), st.integers(-6, 6))))


@settings(max_examples=budget(300))
@given(st.lists(st.integers(1, 5), min_size=1, max_size=3), KEY_PART,
       st.one_of(st.none(), KEY_PART), st.booleans())
def test_remembered_relative_geometry_is_the_index_s(sizes: list[int], first: Any, second: Any,
                                                      create_graph: bool) -> None:
    """A view ``getitem`` remembered of a contiguous tensor takes the relative geometry it
    knew (``_plain_rel``): the ``rel`` property's geometry of its index; its backward
    (the engine's ScatterGrad, or with ``create_graph`` a differentiable ``view_scatter``)
    gives the gradients of the index's node (the general one) bit for bit, and PyTorch's."""
    index = first if second is None else (first, second)
    try:
        torch.zeros(sizes)[index]
    except IndexError:
        return

    def run(lib: Any, general: bool = False) -> tuple[Any, ...]:
        x = lib.tensor(np.linspace(-1, 2, int(np.prod(sizes))).reshape(sizes), dtype=lib.float64,
                       requires_grad=True)
        y = x * 1.5
        for _ in range(2):  # (the second view: remembered)
            view = y[index]
        if lib is jitgrad:
            node = view.grad_fn
            if node._rel_fn is not view_ops._plain_rel:
                # (indices not remembered: a cell, and ``x[:, :]``, PyTorch's alias)
                assert (type(first) is int and second is not None) or \
                    (second is not None and jitgrad.indexing.whole_index(tuple(sizes), index))
                return ()
            rel = node._rel
            node._rel, node._rel_fn = view._view_meta.step_args, jitgrad.indexing.plain_geometry
            assert node.rel == rel and type(node.rel) is type(rel)
            if general:
                node._rel, node._rel_fn = view._view_meta.step_args, jitgrad.indexing.plain_geometry
            else:
                node._rel, node._rel_fn = rel, view_ops._plain_rel
        w = lib.tensor(np.linspace(0.5, 1.0, view.numel()).reshape(tuple(view.shape)), dtype=lib.float64)
        (gy,) = lib.autograd.grad((view * view * w).sum(), (y,), create_graph=create_graph)
        (gx,) = lib.autograd.grad((gy * gy).sum(), (x,)) if create_graph else (gy * 1.5,)
        return gy.detach().numpy().copy(), gx.detach().numpy().copy()

    lean = run(jitgrad)
    if not lean:
        return
    general, theirs = run(jitgrad, general=True), run(torch)
    for a, b, c in zip(lean, general, theirs):
        assert a.tobytes() == b.tobytes()
        np.testing.assert_allclose(a, c, rtol=1e-13, atol=1e-15)


def _stepper(lib: Any) -> tuple[Any, ...]:
    u0 = lib.tensor(np.linspace(-1, 1, 12) ** 3, dtype=lib.float64, requires_grad=True)
    al = lib.tensor(0.3, dtype=lib.float64, requires_grad=True)
    u = u0 * 1.0
    for _ in range(5):
        u[1:-1] += al * (u[2:] - 2 * u[1:-1] + u[:-2])
        u[3] = u[3] * 0.5
    v = lib.zeros(7, dtype=lib.float64, requires_grad=True)
    total = (u * u).sum() + sum(v[i % 7] * float(i) for i in range(20)) + v[2:5].sum()
    total.backward()
    return u0.grad, al.grad, v.grad


def test_scatter_into_owned_buffer_is_the_general_accumulation() -> None:
    calls = [0]
    with counted(input_buffer.InputBuffers, "_accumulate", calls, lambda out: True):
        lean = _stepper(jitgrad)
    assert calls[0] < 10  # (most ScatterGrads added inline)
    init = input_buffer.InputBuffers.__init__

    def without_owned_lookups(self: Any, create_graph: bool) -> None:
        init(self, create_graph)
        self.owned = _Unlooked()

    with replaced(input_buffer.InputBuffers, "__init__", without_owned_lookups), \
            counted(input_buffer.InputBuffers, "_accumulate", calls, lambda out: True):
        general = _stepper(jitgrad)
    assert calls[0] > 40
    theirs = _stepper(torch)
    for a, b, c in zip(lean, general, theirs):
        assert a.detach().numpy().tobytes() == b.detach().numpy().tobytes()
        np.testing.assert_allclose(a.detach().numpy(), c.detach().numpy(), rtol=1e-13, atol=1e-15)


class _Unlooked(dict):  # type: ignore[type-arg]
    """Ownership that ``get`` never finds: ``send`` never adds a ScatterGrad inline, and
    ``InputBuffers._accumulate`` copies before adding (the same values, more copies)."""

    def get(self, key: Any, default: Any = None) -> Any:
        return default


WRITES = {
    "add_": lambda v, w: v.add_(w),
    "sub_": lambda v, w: v.sub_(w),
    "add_alpha": lambda v, w: v.add_(w, alpha=3),
    "mul_number": lambda v, w: v.mul_(2.5),
    "mul_": lambda v, w: v.mul_(w),
    "div_": lambda v, w: v.div_(w),
    "copy_": lambda v, w: v.copy_(w),
    "add_twice": lambda v, w: v.add_(w).add_(w),
}


@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("index", [(slice(1, -1),), (3,), (slice(2, None, 2),)])
def test_copy_slices_write_back_against_pytorch(write: str, index: tuple[Any, ...]) -> None:
    """CopySlices writes ``fn``'s first gradient back into the slice unless ``fn`` returned
    the slice's copy it was not told it owns (unchanged); the gradients stay PyTorch's."""
    def run(lib: Any) -> list[np.ndarray | None]:
        x = lib.tensor(np.linspace(-2, 3, 9), dtype=lib.float64, requires_grad=True)
        w0 = lib.tensor(np.linspace(0.5, 1.5, 9), dtype=lib.float64, requires_grad=True)
        u = x * 1.0
        view = u[index]
        w = w0[index] * 1.0
        WRITES[write](view, w)
        (u * lib.arange(9, dtype=lib.float64)).sum().backward()
        return [None if t.grad is None else t.grad.detach().numpy().copy() for t in (x, w0)]
    for ours, theirs in zip(run(jitgrad), run(torch)):
        assert (ours is None) == (theirs is None)
        if ours is not None:
            np.testing.assert_allclose(ours, theirs, rtol=1e-15, atol=0)


def test_regenerated_views_remembered_region_is_region_within() -> None:
    """``AsStridedBackward0.apply`` remembers the last geometries' region (a stepper's
    regenerated views share them): the stepper's gradients bit for bit as with the region
    computed at every node, and PyTorch's; a remembered region is the one computed."""
    from jitgrad.ops import as_strided

    def heat(lib: Any) -> tuple[Any, ...]:  # (writes through one place only)
        u0 = lib.tensor(np.linspace(-1, 1, 12) ** 3, dtype=lib.float64, requires_grad=True)
        al = lib.tensor(0.3, dtype=lib.float64, requires_grad=True)
        u = u0 * 1.0
        for _ in range(6):
            u[1:-1] += al * (u[2:] - 2 * u[1:-1] + u[:-2])
        (u * u).sum().backward()
        return u0.grad, al.grad

    apply = as_strided.AsStridedBackward0.apply

    def forgetting(self: Any, grads: Any) -> Any:
        as_strided._LAST_REGION = (None, None, None)
        return apply(self, grads)

    for program, most in ((heat, 1), (_stepper, 5)):
        calls = [0]
        with counted(as_strided, "region_within", calls, lambda out: True):
            lean = program(jitgrad)
        assert calls[0] <= most  # (the same place written: one region)
        calls = [0]
        with replaced(as_strided.AsStridedBackward0, "apply", forgetting), \
                counted(as_strided, "region_within", calls, lambda out: True):
            general = program(jitgrad)
        assert calls[0] >= 5
        theirs = program(torch)
        for a, b, c in zip(lean, general, theirs):
            assert a.detach().numpy().tobytes() == b.detach().numpy().tobytes()
            np.testing.assert_allclose(a.detach().numpy(), c.detach().numpy(), rtol=1e-13, atol=1e-15)
    inp, view, region = as_strided._LAST_REGION
    assert region == as_strided.region_within(inp, view) and region is not None


@settings(max_examples=budget(200))
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_cat_backward_data_path_is_narrow_s(sizes: list[int], data: Any) -> None:
    """``CatBackward0.apply`` without a graph to build makes each input's slice as
    ``narrow`` does in no_grad mode (every Tensor and ViewMeta slot), and cat's gradients
    stay PyTorch's (negative dims, inputs without grad, a gradient that is a view)."""
    dim = data.draw(st.integers(-len(sizes), len(sizes) - 1))
    lengths = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=4))
    wanted = data.draw(st.lists(st.booleans(), min_size=len(lengths), max_size=len(lengths)))
    shapes = [tuple(n if d != dim % len(sizes) else k for d, n in enumerate(sizes)) for k in lengths]

    _check_join("cat", shapes, wanted, dim, lambda g, node: tuple(
        jitgrad.narrow(g, node.dim, sum(lengths[:i]), k) if w else None
        for i, (k, w) in enumerate(zip(lengths, wanted))))


def _check_join(join: str, shapes: list[tuple[int, ...]], wanted: list[bool], dim: int,
                slices: Callable[[Any, Any], tuple[Any, ...]]) -> None:
    """The gradients of ``join`` (cat or stack) of inputs of ``shapes`` (those ``wanted``
    requiring grad) along ``dim`` are PyTorch's, and its node's ``apply`` without a graph
    to build gives the views ``slices(g, node)`` gives (every slot), for a gradient that
    is not a view and one that is."""
    def run(lib: Any) -> list[Any]:
        leaves = [lib.tensor(np.linspace(-1, 1 + k, int(np.prod(s))).reshape(s), dtype=lib.float64,
                             requires_grad=w) for k, (s, w) in enumerate(zip(shapes, wanted))]
        out = getattr(lib, join)([t * 2.0 for t in leaves], dim)
        w = lib.tensor(np.linspace(0.5, 2, out.numel()).reshape(tuple(out.shape)), dtype=lib.float64)
        if any(wanted):
            (out * out * w).sum().backward()
        return [None if t.grad is None else t.grad.detach().numpy().copy() for t in leaves]

    for a, c in zip(run(jitgrad), run(torch)):
        assert (a is None) == (c is None)
        if a is not None:
            np.testing.assert_allclose(a, c, rtol=1e-14, atol=0)
    leaves = [jitgrad.zeros(s, dtype=jitgrad.float64, requires_grad=w) for s, w in zip(shapes, wanted)]
    node = getattr(jitgrad, join)(leaves, dim).grad_fn if any(wanted) else None
    if node is None:
        return
    assert type(node).__name__ == join.capitalize() + "Backward0"
    shape = getattr(jitgrad, join)(leaves, dim).shape
    total = jitgrad.arange(float(shape.numel()), dtype=jitgrad.float64)
    for g in (total.reshape(shape).clone(), total.reshape(shape)[:]):  # (a view: the op itself)
        with jitgrad.no_grad():
            lean = node.apply([g])
            general = slices(g, node)
        _same_views(lean, general)


def _same_views(lean: Any, general: Any) -> None:
    """Every Tensor and ViewMeta slot of each pair (or both None), and the values."""
    from jitgrad.ops.view_meta import ViewMeta
    from jitgrad.tensor import Tensor

    assert len(lean) == len(general)
    for a, b in zip(lean, general):
        assert (a is None) == (b is None)
        if a is None:
            continue
        for name in Tensor.__slots__:
            if name in ("__weakref__", "_view_meta"):
                continue
            assert getattr(a, name) is getattr(b, name) or getattr(a, name) == getattr(b, name), name
        for name in ViewMeta.__slots__:
            x, y = getattr(a._view_meta, name), getattr(b._view_meta, name)
            if name == "parent":  # (a weak reference)
                x, y = x and x(), y and y()
            assert x is y if name in ("base", "parent") else x == y, name
        assert a.tolist() == b.tolist()


@settings(max_examples=budget(200))
@given(st.lists(st.integers(1, 3), min_size=0, max_size=3), st.data())
def test_stack_backward_data_path_is_select_s(sizes: list[int], data: Any) -> None:
    """``StackBackward0.apply`` without a graph to build makes each input's slice as
    ``select`` does in no_grad mode (every Tensor and ViewMeta slot), and stack's gradients
    stay PyTorch's (negative dims, inputs without grad)."""
    dim = data.draw(st.integers(-len(sizes) - 1, len(sizes)))
    wanted = data.draw(st.lists(st.booleans(), min_size=1, max_size=4))

    _check_join("stack", [tuple(sizes)] * len(wanted), wanted, dim, lambda g, node: tuple(
        jitgrad.select(g, node.dim, i) if w else None for i, w in enumerate(wanted)))


def test_general_writes_reuse_metadata_of_the_same_sizes() -> None:
    """``rebase_base`` takes the base's last CopySlices's metadata (same geometry) and
    ``rebase_history`` the write node's (the view's sizes and dtype): the values
    ``single_metadata`` gives; a custom Function's write into a view too (and its gradients are PyTorch's)."""
    from jitgrad.autograd.graph import single_metadata

    u = jitgrad.zeros(6, 5, dtype=jitgrad.float64, requires_grad=True) * 1.0
    w = jitgrad.ones(5, dtype=jitgrad.float64, requires_grad=True)
    for i in (1, 1, 2):
        v = u[i]
        v.add_(w, alpha=2)  # (alpha: the general path)
        assert u.grad_fn.input_metadata == single_metadata((6, 5), u.dtype)
        assert v.grad_fn.input_metadata == single_metadata((5,), u.dtype)

    def through_function(lib: Any) -> Any:
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                ctx.mark_dirty(x)
                return x.mul_(2)

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g * 2

        leaf = lib.ones(4, 3, dtype=lib.float64, requires_grad=True)
        x = leaf * 1.0
        row = Twice.apply(x[1])
        if lib is jitgrad:
            assert row.grad_fn.input_metadata == single_metadata((3,), x.dtype)
            assert x.grad_fn.input_metadata == single_metadata((4, 3), x.dtype)
        (row.sum() * 1.5 + (x * x).sum()).backward()
        return leaf.grad.detach().numpy()

    assert through_function(jitgrad).tolist() == through_function(torch).tolist()
