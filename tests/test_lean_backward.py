"""The lean pieces of the backward of writes through views, against the general ones (bit
for bit) and PyTorch.

- ``AsStridedBackward0`` (a view's grad_fn regenerated after a write) returns a
  ``ScatterGrad`` when the view lies inside its contiguous input (``region_within``): the
  engine adds it into its buffer in O(view) instead of ``restride``'s dense scatter.
- ``sum_to(g, ())`` without a graph (the engine reducing a scalar's gradient) sums every
  element at once (``reduction._lean_total``) instead of ``sum(dims, keepdim)`` + ``view``.
- ``regions.as_array`` / ``regions.row_copy`` take a row or a column of a buffer as a slice.
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
from jitgrad import regions
from jitgrad.autograd.graph import ScatterGrad
from jitgrad.geometry import Geometry, contiguous_strides
from jitgrad.ops import reduction
from jitgrad.ops.as_strided import as_strided_backward, region_within


def _bits(t: Any) -> bytes:
    return np.ascontiguousarray(t.detach().numpy()).tobytes()


# -- AsStridedBackward0: a scatter into the contiguous input --------------------------------
@st.composite
def strided_pairs(draw: Callable[..., Any]) -> tuple[Geometry, Geometry]:
    """A contiguous (or, sometimes, transposed) input geometry and a view geometry in the
    same storage: inside it, reaching past it, or overlapping itself."""
    sizes = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    strides = contiguous_strides(sizes)
    if len(sizes) > 1 and draw(st.integers(0, 4)) == 0:
        strides = tuple(reversed(contiguous_strides(tuple(reversed(sizes)))))
    offset = draw(st.integers(0, 3))
    ndim = draw(st.integers(1, 3))
    view_sizes = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    view_strides = tuple(draw(st.lists(st.integers(0, 7), min_size=ndim, max_size=ndim)))
    view_offset = draw(st.integers(0, offset + 8))
    return Geometry(sizes, strides, offset), Geometry(view_sizes, view_strides, view_offset)


@settings(max_examples=budget(300))
@given(strided_pairs(), st.sampled_from(["float64", "float32"]))
def test_as_strided_backward_scatter_is_the_dense_one(pair: Any, dtype: str) -> None:
    inp, view = pair
    n = int(np.prod(view.sizes))
    g = jitgrad.tensor(np.random.default_rng(n).standard_normal(n), dtype=getattr(jitgrad, dtype))
    g = g.reshape(view.sizes)
    dense = as_strided_backward(g, inp, view)
    region = region_within(inp, view)
    if region is None:
        return
    scatter = ScatterGrad(g, inp.sizes, region).materialize()
    assert scatter.shape == dense.shape and scatter.dtype == dense.dtype
    assert _bits(scatter) == _bits(dense)
    # and added into an existing gradient, as the engine does
    old = jitgrad.arange(int(np.prod(inp.sizes)), dtype=g.dtype).reshape(inp.sizes) / 3
    into = old.clone()
    ScatterGrad(g, inp.sizes, region).add_into(into)
    assert _bits(into) == _bits(old + dense)


def test_region_within_refuses_what_restride_must_do() -> None:
    base = Geometry((4, 5), (5, 1), 2)
    assert region_within(base, Geometry((2, 3), (5, 1), 8)) == Geometry((2, 3), (5, 1), 6)
    assert region_within(base, Geometry((3,), (0,), 2)) is None  # overlapping itself
    assert region_within(base, Geometry((2,), (1,), 1)) is None  # before the input
    assert region_within(base, Geometry((2,), (1,), 21)) is None  # past its end
    assert region_within(Geometry((4, 5), (1, 4), 0), Geometry((2,), (1,), 0)) is None  # transposed
    assert region_within(base, Geometry((0,), (1,), 2)) is None  # empty
    assert region_within(base, Geometry((), (), 2)) is None  # 0-d


@pytest.mark.parametrize("create_graph", [False, True])
def test_gradients_through_regenerated_views_match_pytorch(create_graph: bool) -> None:
    def program(lib: Any) -> tuple[Any, ...]:
        x = lib.tensor(np.linspace(0.1, 1.2, 12), dtype=lib.float64, requires_grad=True)
        a = lib.tensor(0.3, dtype=lib.float64, requires_grad=True)
        u = x * 1.0
        for _ in range(4):  # the demo's stepper: a write into a view, then a setitem of it
            u[1:-1] += a * (u[2:] - 2 * u[1:-1] + u[:-2])
        m = (x * 2.0).reshape(3, 4)
        m[1:, 1:3] *= a
        m[:, 0] -= m[:, 3].clone() * a
        s = m.as_strided((2, 2), (4, 1), 5)  # a view of m's storage, inside it
        loss = (u * u).sum() + (m * m).sum() + (s * s * s).sum()
        grads = lib.autograd.grad(loss, (x, a), create_graph=create_graph)
        if create_graph:
            grads = lib.autograd.grad(sum((g * g).sum() for g in grads), (x, a))
        return tuple(g.detach().numpy() for g in grads)

    for ours, theirs in zip(program(jitgrad), program(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


# -- sum_to a scalar's shape, without a graph --------------------------------------------------
@settings(max_examples=budget(200))
@given(st.lists(st.integers(1, 6), min_size=1, max_size=3), st.sampled_from(["float64", "float32"]),
       st.booleans(), st.integers(0, 2**31))
def test_sum_to_scalar_is_the_general_sum(sizes: list[int], dtype: str, transposed: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    data = rng.standard_normal(int(np.prod(sizes))) * 10.0 ** rng.integers(-3, 8, int(np.prod(sizes)))
    t = jitgrad.tensor(data.reshape(sizes), dtype=getattr(jitgrad, dtype))
    if transposed:
        t = t.t() if t.ndim == 2 else t.flip(0)  # not contiguous: the general path
    with jitgrad.no_grad():
        lean = reduction.sum_to(t, ())
        dims = tuple(range(t.ndim))
        general = reduction.sum(t, dims, keepdim=True).view(())
    assert lean.shape == () and lean.dtype == general.dtype
    assert _bits(lean) == _bits(general)
    # with a graph (create_graph) the general path runs, whatever the layout
    g = t.detach().requires_grad_()
    assert reduction.sum_to(g, ()).grad_fn.name() == "ViewBackward0"


# -- rows and columns of a buffer as slices ----------------------------------------------------
@settings(max_examples=budget(200))
@given(st.integers(0, 40), st.integers(0, 12), st.integers(-3, 9), st.integers(0, 45))
def test_row_views_and_copies_are_the_strided_ones(size: int, n: int, step: int, offset: int) -> None:
    buffer = np.arange(size, dtype=np.float64)
    sizes, strides = (n,), (step,)
    inside = n > 0 and 0 <= offset + min(0, (n - 1) * step) and offset + max(0, (n - 1) * step) < size
    if inside:
        expected = np.ndarray(sizes, buffer.dtype, buffer=buffer, offset=offset * 8,
                              strides=(0 if n == 1 else step * 8,))
        got = regions.as_array(buffer, offset, strides, sizes)
        assert got.shape == expected.shape and np.array_equal(got, expected)
        assert np.shares_memory(got, buffer) or got.size == 0
    elif step > 0 and n > 0:  # past the end: refused, as NumPy refuses the strided view
        with pytest.raises(ValueError):
            regions.as_array(buffer, offset, strides, sizes)
    copy = regions.row_copy(buffer, offset, strides, sizes)
    if copy is not None:
        assert inside and copy.base is None and copy.flags.c_contiguous
        assert np.array_equal(copy, buffer[offset:offset + (n - 1) * step + 1:step])


def test_owned_copy_of_a_gradient_is_dense_copy() -> None:
    """The engine's copy of a first gradient when a second one arrives (``input_buffer._own``)
    is ``dense_copy``'s: same values, sizes, strides and dtype, on memory of its own."""
    from jitgrad.autograd.graph import dense_copy
    from jitgrad.autograd.input_buffer import _own

    table = jitgrad.arange(24, dtype=jitgrad.float64).reshape(4, 6) / 7
    cases = [table[1, 2], table[2], table[1:3, 2], table[:, 1:], table, table[0, 2:2],
             jitgrad.tensor(1.5, dtype=jitgrad.float32), table.reshape(-1)[3:9]]
    for t in cases:
        ours, general = _own(t), dense_copy(t)
        assert (ours._sizes, ours._strides, ours._offset, ours.dtype) == \
            (general._sizes, general._strides, general._offset, general.dtype)
        assert _bits(ours) == _bits(general)
        assert not np.shares_memory(ours._storage.buffer, t._storage.buffer)
        assert ours._storage.buffer.base is None and ours._base is None


def test_view_nodes_called_directly_give_dense_gradients() -> None:
    """A view's grad_fn called by the user (under no_grad too) returns a dense tensor, as in
    PyTorch: the ScatterGrad it hands the engine never leaves it. (jitgrad's nodes return a
    tuple, PyTorch's one-output nodes the tensor.)"""
    def first(out: Any) -> Any:
        return out[0] if isinstance(out, tuple) else out

    def calls(lib: Any) -> list[Any]:
        x = lib.arange(6, dtype=lib.float64).requires_grad_() * 1.0
        v = x[1:4]
        out = []
        with lib.no_grad():
            out.append(first(v.grad_fn(lib.ones(3, dtype=lib.float64))))
        v += 1.0  # now an AsStridedBackward0
        for ctx in (lib.no_grad, lib.enable_grad):
            with ctx():
                out.append(first(v.grad_fn(lib.ones(3, dtype=lib.float64))))
        return out

    for ours, theirs in zip(calls(jitgrad), calls(torch)):
        assert type(ours) is jitgrad.Tensor
        assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_one_element_regions_are_the_strided_ones(dtype: Any) -> None:
    """A 0-d region (a cell) goes through slices of the buffers: the same as NumPy's 0-d
    strided views, and refused past the buffer's end as those are."""
    for size, offset in ((5, 0), (5, 4), (1, 0)):
        buffer = np.arange(size, dtype=dtype) + 1
        copy = regions.row_copy(buffer, offset, (), ())
        assert copy is not None and copy.base is None and copy.tolist() == [buffer[offset]]
        other = np.full(3, 7, dtype=dtype)
        regions.copy_region(other, 1, (), buffer, offset, (), ())
        assert other.tolist() == [7, buffer[offset], 7]
        regions.add_region(other, 2, (), buffer, offset, (), ())
        assert other.tolist() == [7, buffer[offset], 7 + buffer[offset]]
        regions.fill_region(buffer, offset, (), (), 0)
        assert buffer[offset] == 0 and buffer.sum() == sum(range(1, size + 1)) - (offset + 1)
    assert regions.row_copy(np.zeros(3), 3, (), ()) is None
    with pytest.raises(ValueError):
        regions.copy_region(np.zeros(3), 3, (), np.zeros(3), 0, (), ())


@settings(max_examples=budget(300))
@given(st.integers(1, 8), st.integers(1, 8), st.integers(0, 9), st.integers(0, 9), st.integers(0, 70),
       st.integers(0, 2))
def test_blocks_of_tables_are_the_strided_views(rows: int, width: int, n0: int, n1: int, offset: int,
                                                 extra: int) -> None:
    """A 2-D region with unit steps along its rows (a block ``u[1:-1, 1:-1]`` of a table) is
    a slice of the buffer's rows: NumPy's strided view of it, refused where that is."""
    buffer = np.arange(rows * width + extra, dtype=np.float64)
    sizes, strides = (n0, n1), (width, 1)
    try:
        expected = np.ndarray(sizes, buffer.dtype, buffer=buffer, offset=offset * 8,
                              strides=(0 if n0 == 1 else width * 8, 0 if n1 == 1 else 8))
    except ValueError:
        expected = None
    try:
        got = regions.as_array(buffer, offset, strides, sizes)
    except ValueError:
        got = None
    assert (got is None) == (expected is None)
    if got is not None:
        assert got.shape == expected.shape and np.array_equal(got, expected)
        if got.size:
            assert np.shares_memory(got, buffer)
            got[...] = -1.0  # writes reach the buffer where the strided view's do
            assert np.all(expected == -1.0)


def test_no_region_of_an_empty_buffer() -> None:
    """NumPy accepts any strided view of a zero-length buffer (and reads past it); a region
    there is refused as one past a buffer's end is."""
    for sizes, strides in (((1,), (1,)), ((3,), (0,)), ((2, 2), (2, 1)), ((1, 1), (5, 1))):
        with pytest.raises(ValueError):
            regions.as_array(np.zeros(0), 0, strides, sizes)
    assert regions.as_array(np.zeros(0), 0, (1,), (0,)).shape == (0,)
