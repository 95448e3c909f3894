"""``__getitem__`` and ``__setitem__`` against PyTorch: basic indices make views, advanced ones
(integer lists/arrays/tensors, boolean masks, mixed with basic ones) copy on read and scatter
on write; errors come from the same family."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from oracle import assert_same, compare, run

pytestmark = pytest.mark.filterwarnings("ignore:Using a non-tuple sequence")

A34 = np.arange(12, dtype=np.float64).reshape(3, 4)
A234 = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
A0 = np.array(5.0)
M34 = A34 % 3 == 0


def T(L, data, dtype=None):
    """A tensor of ``lib`` L (jitgrad or torch) from plain data."""
    if isinstance(data, np.ndarray):
        return L.from_numpy(data.copy())
    return L.tensor(data) if dtype is None else L.tensor(data, dtype=getattr(L, dtype))


GET_CASES = {
    "int_list": (lambda L, x: x[[2, 0, 0]], A34),
    "neg_int_list": (lambda L, x: x[[-1, -3]], A34),
    "empty_list": (lambda L, x: x[[]], A34),
    "int_array": (lambda L, x: x[np.array([[1, 0], [2, 2]])], A34),
    "int_tensor": (lambda L, x: x[T(L, [1, 2])], A34),
    "int_tensor_2d": (lambda L, x: x[:, T(L, [[0, 3], [1, 1]])], A34),
    "scalar_tensor_with_list": (lambda L, x: x[T(L, 1), [0, 3]], A34),
    "two_lists": (lambda L, x: x[[0, 2], [3, 1]], A34),
    "lists_broadcast": (lambda L, x: x[[[0], [2]], [1, 3]], A34),
    "lists_not_broadcastable": (lambda L, x: x[[0, 1], [0, 1, 2]], A34),
    "list_oob": (lambda L, x: x[[0, 3]], A34),
    "list_neg_oob": (lambda L, x: x[:, [-5]], A34),
    "float_tensor_index": (lambda L, x: x[T(L, [1.0])], A34),
    "string_index": (lambda L, x: x["a"], A34),
    "float_index": (lambda L, x: x[1.5], A34),
    "mask": (lambda L, x: x[T(L, M34)], A34),
    "mask_numpy": (lambda L, x: x[M34], A34),
    "mask_rows": (lambda L, x: x[T(L, [True, False, True])], A34),
    "mask_rows_list": (lambda L, x: x[[True, False, True]], A34),
    "mask_cols_with_slice": (lambda L, x: x[1:, T(L, [False, True, True, False])], A34),
    "mask_wrong_shape": (lambda L, x: x[T(L, [True, False])], A34),
    "mask_all_false": (lambda L, x: x[T(L, np.zeros((3, 4), bool))], A34),
    "mask_then_list": (lambda L, x: x[T(L, np.ones((2, 3), bool)), [0]], A234),
    "mask_slice_list_not_adjacent": (lambda L, x: x[T(L, [True, False]), :, [0, 1]], A234),
    "mask_too_many": (lambda L, x: x[T(L, M34), 0], A34),
    "bool_scalar_true": (lambda L, x: x[True], A34),
    "bool_scalar_false": (lambda L, x: x[False], A34),
    "bool_scalar_mixed": (lambda L, x: x[[0, 1], True, [0]], A34),
    "bool_0d_tensor": (lambda L, x: x[T(L, False)], A34),
    "bool_scalar_on_0d": (lambda L, x: x[True], A0),
    # PyTorch selects with the int first; NumPy would broadcast it with the list
    # (shape [2, 3] instead of [3, 2]).
    "int_slice_list": (lambda L, x: x[0, :, [0, 1]], A234),
    "int_list_adjacent": (lambda L, x: x[:, 1, [0, 2]], A234),
    "lists_around_slice": (lambda L, x: x[[0, 1], :, [1, 2]], A234),
    "list_none_list": (lambda L, x: x[[0], None, [0]], A34),
    "list_ellipsis_list": (lambda L, x: x[[0, 1], ..., [0, 1]], A234),
    "two_ellipses_with_list": (lambda L, x: x[..., [0], ...], A34),
    "two_ellipses_then_int": (lambda L, x: x[..., ..., 0], A234),
    "two_ellipses_then_list": (lambda L, x: x[..., ..., [0]], A234),
    "neg_step_with_list": (lambda L, x: x[[0, 1], ::-1], A34),
    "zero_step_with_list": (lambda L, x: x[[0], ::0], A34),
    "list_on_empty": (lambda L, x: x[[0]], np.zeros((0, 3))),
    "empty_list_on_empty": (lambda L, x: x[[]], np.zeros((0, 3))),
    "int_on_0d": (lambda L, x: x[0], A0),
    "list_on_0d": (lambda L, x: x[[0]], A0),
    "tuple_inside_tuple": (lambda L, x: x[(0, 2), 1], A34),
}


@pytest.mark.parametrize("name", sorted(GET_CASES))
def test_getitem_matches_pytorch(name: str) -> None:
    program, data = GET_CASES[name]
    compare(lambda L, x: (program(L, x), program(L, x)._is_view()), data, geometry=False)


def test_nested_list_is_one_index_array_not_a_tuple() -> None:
    # Deliberate difference: PyTorch 2.x still reads a list holding sequences, slices or None
    # as a tuple of indices (deprecated, with a warning); jitgrad already follows NumPy and
    # PyTorch's announced behaviour: a list is one index array.
    x = jitgrad.from_numpy(A34.copy())
    np.testing.assert_array_equal(x[[[0, 1], [1, 2]]].detach().numpy(), A34[np.array([[0, 1], [1, 2]])])
    with pytest.raises(IndexError):
        x[[0, slice(None)]]


def test_advanced_getitem_copies_basic_views() -> None:
    x = jitgrad.from_numpy(A34.copy())
    basic, fancy, masked = x[1:, None, 2], x[[1, 2]], x[x.detach().numpy() > 5]
    x.fill_(-1.0)
    assert basic.tolist() == [[-1.0], [-1.0]]  # a view sees the write
    np.testing.assert_array_equal(fancy.detach().numpy(), A34[[1, 2]])  # copies do not
    np.testing.assert_array_equal(masked.detach().numpy(), A34[A34 > 5])
    assert fancy._base is None and fancy.is_contiguous() and fancy._version == 0


def setitem_program(index, value):
    def program(L, x):
        v = value(L) if callable(value) else value
        x[index(L) if callable(index) else index] = v
        return x, x._version
    return program


SET_CASES = {
    "basic_scalar": (slice(1, None), 7.0, A34),
    "basic_int_into_float": ((0, 1), 3, A34),
    "basic_float_into_int": (0, 2.7, A34.astype(np.int64)),
    "basic_bool_value": (0, True, A34),
    "basic_tensor_broadcast_row": (slice(None), lambda L: T(L, [1.0, 2.0, 3.0, 4.0]), A34),
    "basic_tensor_broadcast_col": (slice(None), lambda L: T(L, [[1.0], [2.0], [3.0]]), A34),
    "basic_leading_ones": (0, lambda L: T(L, [[[1.0, 2.0, 3.0, 4.0]]]), A34),
    "basic_leading_non_one": (0, lambda L: T(L, np.ones((2, 4))), A34),
    "basic_wrong_shape": (0, lambda L: T(L, [1.0, 2.0]), A34),
    "basic_value_float64_to_float32": (0, lambda L: T(L, np.full(4, 1.5)), A234[0]),
    "basic_value_float_to_int": (0, lambda L: T(L, np.full(4, -1.7)), A34.astype(np.int64)),
    "basic_value_float_to_bool": (0, lambda L: T(L, np.array([0.0, 0.5, -2.0, 0.0])), M34),
    "basic_value_int_to_float": (0, lambda L: T(L, np.arange(4)), A34),
    "basic_0d_tensor": ((1, 1), lambda L: T(L, 9.0), A34),
    "basic_ellipsis": (Ellipsis, 0.0, A0),
    "basic_oob": (5, 0.0, A34),
    "basic_string_value": (0, "a", A34),
    "adv_scalar": ([0, 2], 1.0, A34),
    "adv_scalar_duplicates": ([0, 0, -3], 1.0, A34),
    "adv_tensor_broadcast": ([0, 2], lambda L: T(L, [1.0, 2.0, 3.0, 4.0]), A34),
    "adv_tensor_exact": (([0, 2], [1, 3]), lambda L: T(L, [10.0, 20.0]), A34),
    "adv_leading_ones": ([0], lambda L: T(L, np.ones((1, 1, 1, 4))), A34),
    "adv_bad_shape": ([0, 1], lambda L: T(L, [1.0, 2.0, 3.0]), A34),
    "adv_oob": ([0, 3], 1.0, A34),
    "adv_oob_tensor_value": ([0, 3], lambda L: T(L, np.ones(4)), A34),
    "mask_scalar": (lambda L: T(L, M34), -1.0, A34),
    "mask_tensor": (lambda L: T(L, M34), lambda L: T(L, np.arange(4.0)), A34),
    "mask_wrong_shape": (lambda L: T(L, [True, False]), 1.0, A34),
    "mask_rows_broadcast": (lambda L: T(L, [True, False, True]), lambda L: T(L, [1.0, 2.0, 3.0, 4.0]), A34),
    "mixed_int_slice_list": ((0, slice(None), [0, 2]), lambda L: T(L, np.ones((3, 2))), A234),
    "adv_value_dtype_mismatch": (([1], slice(None)), lambda L: T(L, np.arange(4)), A34),
    "adv_value_float_into_bool": ([0], lambda L: T(L, [[0.0, 1.0, 2.0, 0.0]]), M34),
    "adv_0d_value_dtype_mismatch": ([0, 1], lambda L: T(L, np.array(2.0)), A234),
    "adv_bool_value": ([0], lambda L: T(L, [[False, True, True, False]]), M34),
    "adv_empty_value_wrong_rank": ([0], lambda L: T(L, np.zeros((0, 1, 0))), np.zeros((3, 0))),
    "adv_empty_result": (([], slice(None)), lambda L: T(L, np.zeros(4)), A34),
}


@pytest.mark.parametrize("name", sorted(SET_CASES))
def test_setitem_matches_pytorch(name: str) -> None:
    index, value, data = SET_CASES[name]
    compare(setitem_program(index, value), data)


def test_list_and_array_values_are_converted() -> None:
    # Deliberate difference: PyTorch refuses lists and NumPy arrays as values ("can't assign a
    # list to a torch.FloatTensor"); jitgrad converts them to the destination's dtype.
    x = jitgrad.zeros(3, 4, dtype=jitgrad.int64)
    x[1, :2] = [5.7, 6.2]
    x[[0, 2], [1, 3]] = np.array([10, 20])
    x[x.detach().numpy() == 0] = [True]
    assert x.tolist() == [[1, 10, 1, 1], [5, 6, 1, 1], [1, 1, 1, 20]]
    assert x._version == 3


def test_advanced_setitem_needs_matching_dtype() -> None:
    # PyTorch's index_put_ refuses a value of another dtype and so does jitgrad; PyTorch makes
    # an exception for a one-element value with a single mask (masked_fill), jitgrad does not.
    x = jitgrad.zeros(3, 4)
    with pytest.raises(RuntimeError, match="got float64, expected float32"):
        x[x.detach().numpy() == 0] = jitgrad.ones(1, dtype=jitgrad.float64)
    assert x._version == 0 and not x.detach().numpy().any()
    x[x.detach().numpy() == 0] = jitgrad.ones(1)
    assert x.detach().numpy().all()


def test_advanced_setitem_bumps_version_once_and_writes_once() -> None:
    x = jitgrad.zeros(3, 4)
    v = x[1:]
    x[[0, 2], [1, 3]] = jitgrad.tensor([1.0, 2.0])
    assert x._version == v._version == 1
    x[x.detach().numpy() > 0] = 5.0
    assert x._version == 2
    assert x.detach().numpy().sum() == 10.0


# -- random index tuples -------------------------------------------------------------------
SHAPES = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)


@st.composite
def index_specs(draw, shape):
    """A tuple of index items; array-like items are specs built per library by ``build``."""
    n = len(shape)
    items = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(
            ["int", "slice", "none", "ellipsis", "list", "tensor", "mask", "bool"]
        ))
        dim = min(len([i for i in items if i[0] in ("int", "slice", "list", "tensor")]), max(n - 1, 0))
        size = shape[dim] if n else 1
        if kind == "int":
            items.append(("int", draw(st.integers(-size - 1, size))))
        elif kind == "slice":
            step = draw(st.one_of(st.none(), st.integers(1, 3), st.just(-1)))
            bound = st.one_of(st.none(), st.integers(-size - 2, size + 2))
            items.append(("slice", slice(draw(bound), draw(bound), step)))
        elif kind == "none" or (kind == "ellipsis" and ("ellipsis", None) not in items):
            # One ellipsis at most: with two, PyTorch lets a full slice run past the last dim
            items.append((kind, None))
        elif kind in ("list", "tensor"):
            k = draw(st.integers(kind == "list", 2))  # a 0-d int tensor is an int index
            index_shape = tuple(draw(st.lists(st.integers(1, 3), min_size=k, max_size=k)))
            hi = max(size, 1)
            values = draw(st.lists(st.integers(-hi, hi), min_size=int(np.prod(index_shape)),
                                   max_size=int(np.prod(index_shape))))
            items.append((kind, np.array(values, dtype=np.int64).reshape(index_shape)))
        elif kind == "mask":
            k = draw(st.integers(1, max(min(2, n - dim), 1)))
            mask_shape = tuple(shape[dim:dim + k]) if draw(st.integers(0, 5)) else (size + 1,)
            bits = draw(st.lists(st.booleans(), min_size=int(np.prod(mask_shape)),
                                 max_size=int(np.prod(mask_shape))))
            items.append(("mask", np.array(bits, dtype=bool).reshape(mask_shape)))
        else:
            items.append(("bool", draw(st.booleans())))
    return items


def build(L, items):
    out = []
    for kind, value in items:
        if kind == "none":
            out.append(None)
        elif kind == "ellipsis":
            out.append(Ellipsis)
        elif kind == "list":
            out.append(value.tolist())
        elif kind in ("tensor", "mask"):
            out.append(L.from_numpy(value.copy()))
        else:
            out.append(value)
    return tuple(out)


def _is_basic(items) -> bool:
    return all(
        kind in ("int", "slice", "none", "ellipsis") or (kind == "tensor" and value.ndim == 0)
        for kind, value in items
    )


def _reads_nothing(array, items) -> bool:
    try:
        return torch.from_numpy(array)[build(torch, items)].numel() == 0
    except (IndexError, ValueError, TypeError, RuntimeError):
        return False


def compare_index(program, array, items, geometry=True):
    """``compare``, except for one deliberate difference: an out-of-bounds index whose result
    is empty is an IndexError in jitgrad; PyTorch checks bounds only while it reads or writes
    elements, so it lets it pass (or reports another error)."""
    ours, theirs = run(jitgrad, program, (array,)), run(torch, program, (array,))
    if isinstance(ours.error, IndexError) and "out of bounds" in str(ours.error):
        if _reads_nothing(array, items):
            return ours
    assert_same(ours, theirs, geometry)
    return ours


@settings(max_examples=budget(300))
@given(st.data())
def test_random_getitem_matches_pytorch(data) -> None:
    shape = data.draw(SHAPES)
    items = data.draw(index_specs(shape))
    array = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    ours = compare_index(lambda L, x: x[build(L, items)], array, items, _is_basic(items))
    if ours.error is None:
        assert ours.value._is_view() == _is_basic(items)


def _writes_each_element_once(shape, items) -> bool:
    """Whether the index reaches no element twice (else the result depends on write order)."""
    try:
        hits = torch.arange(int(np.prod(shape))).view(shape)[build(torch, items)]
    except (IndexError, ValueError, TypeError, RuntimeError):
        return True
    return hits.unique().numel() == hits.numel()


@settings(max_examples=budget(300))
@given(st.data())
def test_random_setitem_matches_pytorch(data) -> None:
    shape = data.draw(SHAPES)
    items = data.draw(index_specs(shape))
    array = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    try:
        target = tuple(torch.from_numpy(array)[build(torch, items)].shape)
    except (IndexError, ValueError, TypeError, RuntimeError):
        target = None  # a bad index: which error comes first with a bad value too may differ
    kind = data.draw(st.sampled_from(["scalar", "full", "broadcast", "random"]))
    if target is None:
        kind = "scalar"
    if kind == "scalar":
        value_shape = None
    elif kind == "full":
        value_shape = target
    elif kind == "broadcast":
        value_shape = tuple(1 if data.draw(st.booleans()) else s for s in target[1:])
    else:
        value_shape = tuple(data.draw(st.lists(st.integers(0, 3), max_size=3)))
    if value_shape is not None:
        assume(_writes_each_element_once(shape, items))
    value = -1.5 - np.arange(int(np.prod(value_shape or ())), dtype=np.float64).reshape(value_shape or ())

    def program(L, x):
        x[build(L, items)] = -1.5 if value_shape is None else L.from_numpy(value.copy())
        return x, x._version

    compare_index(program, array, items)


def test_failed_setitem_changes_nothing() -> None:
    x = jitgrad.from_numpy(A34.copy())
    for index, value in [
        ([0, 3], 1.0),  # index out of bounds: NumPy checks every index before writing
        ([0, 1], jitgrad.ones(3)),  # value shape does not broadcast
        (jitgrad.tensor([True, False]), 1.0),  # mask shape
        ((slice(None), 0), jitgrad.ones(2)),  # basic path, wrong shape
        ([0, 1], x[2]),  # value shares memory with the destination
        (slice(1, None), x[:-1]),  # partial overlap (copy_ path)
    ]:
        with pytest.raises((IndexError, RuntimeError)):
            x[index] = value
        np.testing.assert_array_equal(x.detach().numpy(), A34)
        assert x._version == 0


EMPTY_ADVANCED = {
    # a mask spans as many dims as it has: the index after it indexes the dim after those
    "mask_none_index": lambda L: L.zeros(0, 0, 0)[L.zeros(0, 0, dtype=L.bool), None, L.tensor([1])],
    "mask_none_index_3": lambda L: L.zeros(2, 0, 3)[L.zeros(2, 0, dtype=L.bool), None, L.tensor([1])],
    # no index tuple at all (the indices broadcast to nothing): nothing is checked
    "empty_broadcast": lambda L: L.zeros(3, 0)[L.zeros(0, 1, dtype=L.long), L.tensor([0, 0])],
    "empty_first": lambda L: L.zeros(3, 0)[L.tensor([], dtype=L.long), [0]],
    # index tuples against a size-0 dim: checked whatever the result's size
    "size0_rows": lambda L: L.zeros(0, 0)[[0], :],
    "size0_cols": lambda L: L.zeros(0, 0)[:, [0]],
    "size0_first": lambda L: L.zeros(0, 3)[[0]],
}


@pytest.mark.parametrize("name", list(EMPTY_ADVANCED))
def test_advanced_indices_on_empty_tensors_match_pytorch(name: str) -> None:
    compare(EMPTY_ADVANCED[name])
