"""``x[index] = value`` where the index selects all of ``x`` (``x[:]``, ``x[...]``,
``x[0:n, :]``): PyTorch's slicing skips such slices, so it writes ``x`` itself
(``FillBackward3`` for a number, ``CopyBackwards`` for a tensor) instead of a view
(``CopySlices``); and ``fill_``'s nodes are PyTorch's in-place ones (``FillBackward2`` for
a number, ``FillBackward3`` for a tensor, with the value's edge). Checked against PyTorch
(node names, edges, gradients, errors), float64."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from jitgrad.indexing import whole_index

LIBS = [torch, jitgrad]


def _name(node: Any) -> str:
    return node.name().replace("torch::autograd::", "")


def _write(lib: Any, index: Any, value: Any, shape: tuple[int, ...] = (3, 4)) -> tuple[Any, ...]:
    """The node, its number of edges and the leaf's gradient of ``u[index] = value``."""
    x = lib.ones(*shape, dtype=lib.float64, requires_grad=True)
    weight = lib.arange(float(np.prod(shape)), dtype=lib.float64).reshape(shape)
    u = x * 1
    v = value(lib) if callable(value) else value
    u[index] = v
    (u * weight).sum().backward()
    grad_v = v.grad.tolist() if isinstance(v, lib.Tensor) and v.requires_grad else None
    return _name(u.grad_fn), len(u.grad_fn.next_functions), x.grad.tolist(), grad_v, u.tolist()


VALUES = {
    "number": 2.0,
    "int": 3,
    "zero_d_with_grad": lambda lib: lib.tensor(5.0, dtype=lib.float64, requires_grad=True),
    "zero_d": lambda lib: lib.tensor(5.0, dtype=lib.float64),
    "row": lambda lib: lib.arange(4.0, dtype=lib.float64),
    "leading_one": lambda lib: lib.arange(12.0, dtype=lib.float64).reshape(1, 3, 4),
    "same_shape_with_grad": lambda lib: lib.arange(12.0, dtype=lib.float64).reshape(3, 4).requires_grad_(),
}
INDICES = {
    "colon": slice(None), "zero_to_n": slice(0, 3), "beyond": slice(0, 100), "step_one": slice(None, None, 1),
    "minus_n": slice(-3, None), "two_colons": (slice(None), slice(None)), "ellipsis": Ellipsis,
    "empty_tuple": (), "ellipsis_colon": (Ellipsis, slice(None)), "colon_ellipsis": (slice(None), Ellipsis),
    "both_ranges": (slice(0, 3), slice(0, 4)), "two_ellipses": (Ellipsis, Ellipsis),
    "range_two_ellipses": (slice(None, 3), Ellipsis, Ellipsis),
    "part": (slice(None), slice(0, 3)), "from_one": slice(1, None), "step_two": slice(None, None, 2),
}


# (the pairs whose shapes do not broadcast are left out: errors are tested below)
_NOT_BROADCASTING = {("part", "row"), ("part", "leading_one"), ("part", "same_shape_with_grad"),
                     ("from_one", "leading_one"), ("from_one", "same_shape_with_grad"),
                     ("step_two", "leading_one"), ("step_two", "same_shape_with_grad")}


@pytest.mark.parametrize("index,value", [(i, v) for i in sorted(INDICES) for v in sorted(VALUES)
                                         if (i, v) not in _NOT_BROADCASTING])
def test_write_matches_pytorch(index: str, value: str) -> None:
    idx, val = INDICES[index], VALUES[value]
    assert _write(jitgrad, idx, val) == _write(torch, idx, val)


@pytest.mark.parametrize("lib", LIBS, ids=["torch", "jitgrad"])
def test_fill_nodes_are_the_in_place_ones(lib: Any) -> None:
    x = lib.ones(3, dtype=lib.float64, requires_grad=True)
    u = x * 1
    u.fill_(2.0)
    assert (_name(u.grad_fn), len(u.grad_fn.next_functions)) == ("FillBackward2", 1)
    u = x * 1
    u.fill_(lib.tensor(2.0, dtype=lib.float64))  # (a value without grad: its edge is none)
    assert (_name(u.grad_fn), len(u.grad_fn.next_functions)) == ("FillBackward3", 2)
    assert u.grad_fn.next_functions[1][0] is None
    u = x * 1
    u[1:] = 2.0  # a wrapped number: CopySlices around FillBackward3, the number's edge none
    assert (_name(u.grad_fn), len(u.grad_fn.next_functions)) == ("CopySlices", 2)


def test_zero_d_tensor_whole_write_is_a_copy() -> None:
    names = []
    for lib in LIBS:
        z = lib.tensor(1.0, dtype=lib.float64, requires_grad=True) * 1
        z[...] = 3.0
        names.append((_name(z.grad_fn), len(z.grad_fn.next_functions), z.item()))
    assert names[0] == names[1] == ("CopyBackwards", 2, 3.0)


@pytest.mark.parametrize("index", [slice(None), Ellipsis, (slice(None), slice(None))])
def test_whole_write_into_a_leaf_raises_pytorchs_error_and_changes_nothing(index: Any) -> None:
    for lib in LIBS:
        x = lib.ones(3, 4, dtype=lib.float64, requires_grad=True)
        version = x._version
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
            x[index] = 2.0
        assert x._version == version and x.tolist() == [[1.0] * 4] * 3


def test_whole_write_of_a_shape_that_does_not_broadcast_raises_and_changes_nothing() -> None:
    for lib in LIBS:
        u = lib.ones(3, 4, dtype=lib.float64)
        with pytest.raises(RuntimeError):
            u[:] = lib.zeros(5, dtype=lib.float64)
        assert u._version == 0 and u.tolist() == [[1.0] * 4] * 3


def test_whole_write_into_a_view_writes_its_base() -> None:
    for lib in LIBS:
        y = lib.ones(2, 3, dtype=lib.float64, requires_grad=True) * 1
        v = y[0]
        v[...] = 7.0
        assert (_name(y.grad_fn), _name(v.grad_fn)) == ("CopySlices", "AsStridedBackward0")
        assert y.tolist() == [[7.0] * 3, [1.0] * 3]


_bound = st.one_of(st.none(), st.integers(-6, 8))
_slices = st.builds(slice, _bound, _bound, st.one_of(st.none(), st.integers(1, 3)))
# (at most one ``...``: with two, PyTorch 2.13 walks past the last dim — it reads the size
# of a dim the tensor does not have — so its answer is not a rule to follow)
_parts = st.lists(st.one_of(_slices, st.just(Ellipsis)), max_size=3).filter(lambda p: p.count(Ellipsis) <= 1)


@settings(max_examples=budget(150), deadline=None)
@given(parts=_parts, single=st.booleans(), value=st.sampled_from(["number", "zero_d_with_grad"]))
def test_random_slice_indices_match_pytorch(parts: list[Any], single: bool, value: str) -> None:
    """Node, edges, values and gradients of ``u[index] = value`` for random slices and
    ellipses (one slice alone or a tuple), jitgrad against PyTorch; errors of the same type."""
    index: Any = parts[0] if single and parts else tuple(parts)
    results = []
    for lib in LIBS:
        try:
            results.append(_write(lib, index, VALUES[value]))
        except (IndexError, RuntimeError, ValueError) as e:
            results.append(type(e).__name__)
    assert results[0] == results[1], index


@given(parts=_parts, sizes=st.lists(st.integers(0, 5), max_size=3))
def test_whole_index_is_pytorchs_no_op_slicing(parts: list[Any], sizes: list[int]) -> None:
    """``whole_index`` says True exactly when PyTorch's getitem returns an alias of the tensor
    (AliasBackward0 for a tuple index) rather than a view through a slice."""
    index = tuple(parts)
    x = torch.ones(tuple(sizes), dtype=torch.float64, requires_grad=True) * 1
    try:
        node = x[index].grad_fn
    except (IndexError, RuntimeError, ValueError):
        return
    n_slices = sum(part is not Ellipsis for part in index)
    if node is None or n_slices > len(sizes):
        return
    assert whole_index(tuple(sizes), index) == (node.name() == "AliasBackward0"), (index, sizes)


_items = st.one_of(_slices, st.integers(-3, 2), st.none(), st.just(Ellipsis))


@settings(max_examples=budget(200), deadline=None)
@given(items=st.lists(_items, max_size=4).filter(lambda p: p.count(Ellipsis) <= 1), single=st.booleans())
def test_view_node_names_and_gradients_match_pytorch(items: list[Any], single: bool) -> None:
    """``y[index]``'s node is named after the last item PyTorch's indexing applies (a slice
    over a whole dim is skipped inside a tuple: ``y[0, :]`` SelectBackward0, ``y[:, :]``
    AliasBackward0; alone, ``y[:]`` is a slice), with the same gradients."""
    index: Any = items[0] if single and items else tuple(items)
    results = []
    for lib in LIBS:
        x = lib.arange(60.0, dtype=lib.float64).reshape(3, 4, 5).requires_grad_()
        try:
            v = (x * 1)[index]
        except (IndexError, RuntimeError, ValueError, TypeError) as e:
            results.append(type(e).__name__)
            continue
        (v * v).sum().backward()
        results.append((_name(v.grad_fn), tuple(v.shape), x.grad.tolist()))
    assert results[0] == results[1], index
