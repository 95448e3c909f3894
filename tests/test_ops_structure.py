"""``cat``, ``stack`` and advanced-index gathers (``x[idx]``, ``x[mask]``, mixed with slices)
against PyTorch: values, dtype promotion, gradients (repeated indices add up) and second
derivatives, PyTorch's legacy rule for empty 1-D tensors in ``cat``, errors, numerical
gradient checks, Hypothesis over shapes."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from grad_oracle import check, check_error
from jitgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(7)


def r(*shape, dtype=np.float64):
    return np.asarray(RNG.standard_normal(shape)).astype(dtype)


A23, B13, C23 = r(2, 3), r(1, 3), r(2, 3)
A32 = r(3, 2)
F23 = r(2, 3, dtype=np.float32)
I23 = RNG.integers(-4, 4, (2, 3))
BOOL23 = I23 > 0
E0 = np.zeros(0)
E03 = np.zeros((0, 3))
S = np.array(2.5)

CAT = {
    "cat_dim0": (lambda L, a, b: L.cat([a, b]), A23, B13),
    "cat_dim1": (lambda L, a, b: L.cat([a, b.t()], dim=1), A23, A32),
    "cat_neg_dim": (lambda L, a, b, c: L.cat((a, c, a), -1), A23, B13, C23),
    "cat_three": (lambda L, a, b, c: L.cat([a, b, c]), A23, B13, C23),
    "cat_single": (lambda L, a: L.cat([a], 1), A23),
    "cat_same_tensor_twice": (lambda L, a: L.cat([a, a * 2.0, a]), A23),
    "cat_3d": (lambda L, a, b: L.cat([a.reshape(2, 3, 1), b.reshape(2, 3, 1)], 2), A23, C23),
    "cat_views": (lambda L, a, b: L.cat([a.t(), b[:, ::2].t()], 0), A23, C23),
    "cat_generator": (lambda L, a: L.cat(list(a.unbind(0)) + [a[0]]), A23),
    # PyTorch's legacy rule: 1-D tensors of size 0 are skipped, whatever their shape
    "cat_skips_empty_1d": (lambda L, a, e: L.cat([e, a, e]), A23, E0),
    "cat_skips_empty_1d_dim1": (lambda L, a, e: L.cat([a, e], dim=1), A23, E0),
    "cat_all_empty_1d": (lambda L, e, f: L.cat([e, f], dim=1), E0, E0),
    "cat_empty_2d_takes_part": (lambda L, a, e: L.cat([a, e]), A23, E03),
    "cat_empty_columns": (lambda L, a: L.cat([a, a[:, :0]], 1), A23),
    # dtype promotion (gradients come back in each input's dtype)
    "cat_f32_f64": (lambda L, a, b: L.cat([a, b]), F23, A23),
    "cat_int_f32": (lambda L, i, a: L.cat([i, a]), I23, F23),
    "cat_bool_int": (lambda L, b, i: L.cat([b, i], 1), BOOL23, I23),
    "cat_empty_1d_promotes": (lambda L, a, e: L.cat([a, e]), F23, E0),
    "cat_int_only": (lambda L, i: L.cat([i, i]), I23),
    # stack
    "stack_dim0": (lambda L, a, c: L.stack([a, c]), A23, C23),
    "stack_dim1": (lambda L, a, c: L.stack([a, c, a], 1), A23, C23),
    "stack_last": (lambda L, a, c: L.stack((a, c), dim=2), A23, C23),
    "stack_neg": (lambda L, a, c: L.stack([a, c], -3), A23, C23),
    "stack_single": (lambda L, a: L.stack([a], -1), A23),
    "stack_0d": (lambda L, s, t: L.stack([s, t, s]), S, S * 3),
    "stack_views": (lambda L, a: L.stack([a[0, ::2], a[1, 1:], a[:, 0]], 1), A23),
    "stack_promote": (lambda L, a, i: L.stack([i, a]), F23, I23),
    "stack_f32_f64": (lambda L, a, b: L.stack([a, b], 1), F23, C23),
    "stack_empty": (lambda L, e: L.stack([e, e], 1), E03),
    "stack_then_cat": (lambda L, a, c: L.cat([L.stack([a, c]), a.unsqueeze(0)]).sum(0), A23, C23),
}


@pytest.mark.parametrize("name", sorted(CAT))
def test_cat_stack_against_pytorch(name):
    program, *arrays = CAT[name]
    check(program, *arrays)


def test_cat_grad_of_skipped_empty_1d_is_empty():
    for lib in (jitgrad, torch):
        a = lib.ones(2, 3, requires_grad=True)
        e = lib.zeros(0, requires_grad=True)
        lib.cat([a, e]).sum().backward()
        assert tuple(e.grad.shape) == (0,) and a.grad.detach().numpy().tolist() == [[1.0] * 3] * 2


def test_grad_fn_names():
    a = jitgrad.ones(2, requires_grad=True)
    assert jitgrad.cat([a, a]).grad_fn.name() == "CatBackward0"
    assert jitgrad.stack([a, a]).grad_fn.name() == "StackBackward0"
    assert a[[0, 0]].grad_fn.name() == "IndexBackward0"


ERRORS = {
    "cat_empty_list": (lambda L, a: L.cat([]), A23),
    "cat_tensor_not_list": (lambda L, a: L.cat(a), A23),
    "cat_not_a_tensor": (lambda L, a: L.cat([a, 3]), A23),
    "cat_0d": (lambda L, a, s: L.cat([a[0], s]), A23, S),
    "cat_shape_mismatch": (lambda L, a, b: L.cat([a, b]), A23, A32),
    "cat_shape_mismatch_dim1": (lambda L, a, b: L.cat([a, b], 1), A23, B13),
    "cat_ndim_mismatch": (lambda L, a, b: L.cat([a, b[None]]), A23, A23),
    "cat_bad_dim": (lambda L, a, b: L.cat([a, b], 2), A23, C23),
    "cat_bad_neg_dim": (lambda L, a, b: L.cat([a, b], -3), A23, C23),
    "stack_empty_list": (lambda L, a: L.stack([]), A23),
    "stack_unequal": (lambda L, a, b: L.stack([a, b]), A23, A32),
    "stack_unequal_empty": (lambda L, a, e: L.stack([a[0], e]), A23, E0),
    "stack_bad_dim": (lambda L, a: L.stack([a, a], 3), A23),
    "stack_bad_neg_dim": (lambda L, a: L.stack([a, a], -4), A23),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    program, *arrays = ERRORS[name]
    check_error(program, *arrays)


# -- advanced indexing: a gather whose backward scatter-adds ---------------------------------
X = r(4, 3, 5)
MASK = X[:, :, 0] > 0
ROWS = np.array([0, 2, 2, 3, 0])

INDEX = {
    "list": (lambda L, x: x[[0, 2, 1]], X),
    "repeated": (lambda L, x: x[[1, 1, 3, 1]], X),
    "negative": (lambda L, x: x[[-1, 0, -1]], X),
    "tensor_index": (lambda L, x: x[L.tensor([[0, 3], [3, 3]])], X),
    "two_arrays": (lambda L, x: x[[0, 1, 1], [2, 2, 0]], X),
    "broadcast_arrays": (lambda L, x: x[[[0], [3]], [1, 2, 1]], X),
    "after_slice": (lambda L, x: x[1:, [0, 2, 0]], X),
    "around_slice": (lambda L, x: x[[0, 0, 2], :, [4, 4, 1]], X),  # result dims go first
    "with_int": (lambda L, x: x[1, [2, 0, 2]], X),
    "with_stepped_slice": (lambda L, x: x[::2, :, [3, 3]], X),
    "with_none_ellipsis": (lambda L, x: x[None, ..., [1, 1, 0]], X),
    "empty_index": (lambda L, x: x[[]], X),
    "mask_1d": (lambda L, x, m: x[m[:, 0]], X, MASK),
    "mask_2d": (lambda L, x, m: x[m], X, MASK),
    "mask_after_slice": (lambda L, x, m: x[:, m[0]], X, MASK),
    "mask_all_false": (lambda L, x: x[L.from_numpy(np.zeros(4, bool))], X),
    "bool_scalar": (lambda L, x: x[True], X),
    "of_transposed_view": (lambda L, x: x.transpose(0, 2)[[4, 0, 4]], X),
    "then_reduce": (lambda L, x: x[[0, 0, 1]].softmax(1).max(2).values, X),
    "of_matmul": (lambda L, x: (x[0] @ x[1].t())[[0, 2, 2], [1, 1, 0]], X),
    "nll_style": (lambda L, x: x[:, :, 0].log_softmax(1)[[0, 1, 2, 3], [2, 0, 0, 1]].sum(), X),
}


@pytest.mark.parametrize("name", sorted(INDEX))
def test_advanced_index_against_pytorch(name):
    program, *arrays = INDEX[name]
    check(program, *arrays)


def test_repeated_indices_add_up():
    x = jitgrad.zeros(4, dtype=jitgrad.float64, requires_grad=True)
    x[[0, 2, 0, 0]].sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 1.0, 0.0]


def test_index_with_rows_array_matches_scatter_add():
    x = jitgrad.from_numpy(X.copy()).requires_grad_(True)
    g = r(len(ROWS), 3, 5)
    x[ROWS].backward(jitgrad.from_numpy(g))
    expected = np.zeros_like(X)
    np.add.at(expected, ROWS, g)
    np.testing.assert_array_equal(x.grad.detach().numpy(), expected)


# -- numerical gradients ---------------------------------------------------------------------
def _leaves(*arrays):
    return tuple(jitgrad.from_numpy(a.copy()).requires_grad_(True) for a in arrays)


NUMERICAL = {
    "cat": (lambda a, b: jitgrad.cat([a, b, a], 1), (2, 3), (2, 2)),
    "stack": (lambda a, b: jitgrad.stack([a, b.t(), a], 1), (2, 3), (3, 2)),
    "index": (lambda a, b: a[[0, 1, 1]] * b[:, [2, 2, 0]], (2, 3), (3, 3)),
    "index_softmax": (lambda a, b: (a[[1, 0, 1], [0, 2, 2]] * b[0]).softmax(0), (2, 3), (3, 3)),
}


@pytest.mark.parametrize("name", sorted(NUMERICAL))
def test_gradcheck(name):
    fn, sa, sb = NUMERICAL[name]
    assert gradcheck(fn, _leaves(r(*sa), r(*sb)))


@pytest.mark.parametrize("name", sorted(NUMERICAL))
def test_gradgradcheck(name):
    fn, sa, sb = NUMERICAL[name]
    jitgrad.manual_seed(2)
    assert gradgradcheck(fn, _leaves(r(*sa), r(*sb)))


# -- Hypothesis ------------------------------------------------------------------------------
DTYPES = [np.float64, np.float32, np.int64]


@st.composite
def cat_case(draw):
    ndim = draw(st.integers(1, 3))
    base = [draw(st.integers(0, 3)) for _ in range(ndim)]
    dim = draw(st.integers(-ndim - 1, ndim))
    arrays = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            shape = (0,)  # the legacy skipped shape
        else:
            shape = list(base)
            if 0 <= dim % ndim < ndim and kind < 8:
                shape[dim % ndim] = draw(st.integers(0, 3))
            elif kind == 9:  # occasionally a mismatch elsewhere
                shape[draw(st.integers(0, ndim - 1))] += 1
        dtype = draw(st.sampled_from(DTYPES))
        arrays.append(np.asarray(RNG.standard_normal(shape) * 3).astype(dtype))
    return arrays, dim, draw(st.booleans())


@settings(max_examples=budget(60))
@given(cat_case())
def test_hypothesis_cat_stack(case):
    arrays, dim, use_stack = case

    def program(L, *ts):
        return (L.stack if use_stack else L.cat)(list(ts), dim)

    try:
        program(torch, *(torch.from_numpy(a) for a in arrays))
    except (IndexError, RuntimeError, ValueError, TypeError):
        check_error(program, *arrays)
        return
    check(program, *arrays, rtol=2e-5 if any(a.dtype == np.float32 for a in arrays) else None)


@st.composite
def index_case(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    items = []
    for size in shape[: draw(st.integers(1, len(shape)))]:
        kind = draw(st.integers(0, 3))
        if kind == 0:
            items.append(slice(draw(st.integers(0, size - 1)), None, draw(st.integers(1, 2))))
        elif kind == 1:
            items.append(draw(st.integers(-size, size - 1)))
        else:
            n = draw(st.integers(0, 4))
            items.append([draw(st.integers(-size, size - 1)) for _ in range(n)])
    if not any(isinstance(it, list) for it in items):
        items[-1] = [0, 0]  # at least one advanced index (whose first dim has size >= 1)
    return shape, tuple(items), draw(st.integers(0, 2**32 - 1))


@settings(max_examples=budget(60))
@given(index_case())
def test_hypothesis_advanced_index(case):
    shape, index, seed = case
    data = np.asarray(np.random.default_rng(seed).standard_normal(shape))

    def program(L, x):
        return x[index]

    try:
        program(torch, torch.from_numpy(data))
    except (IndexError, RuntimeError):
        check_error(program, data)
        return
    check(program, data)
