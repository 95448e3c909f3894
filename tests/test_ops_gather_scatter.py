"""Gathers and scatters (gather, scatter, scatter_add, index_select, take, take_along_dim,
index_add/copy/fill, masked_fill/scatter/select, repeat_interleave) and their in-place forms
against PyTorch: values, gradients, second derivatives, errors, numerical checks, Hypothesis."""

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

pytestmark = pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter:UserWarning")

RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 4))
X3 = RNG.standard_normal((2, 3, 4))
S = RNG.standard_normal((3, 4))
S5 = RNG.standard_normal((5, 6))
V = RNG.standard_normal(5)
A0 = np.array(2.5)
E = np.zeros((0, 4))
IG0 = np.array([[0, 2, 1, 0], [2, 2, 0, 1]])        # gather/scatter along dim 0 of (3, 4)
IG1 = np.array([[3, 0], [1, 1], [0, 2]])           # along dim 1
IDUP = np.array([[0, 0, 1, 1], [0, 0, 1, 1]])      # duplicates: scatter_add accumulates
I1 = np.array([2, 0, 2])
I1N = np.array([-1, 0, -4])
M = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
MROW = np.array([True, False, True, True])
T0 = np.array(0.75)
I3 = np.array(3)
IX = X.astype(np.int64) + 3
B = X > 0
R = np.array([1, 0, 2])


def ix(a):
    return a


CASES = {
    # gather
    "gather_dim0": (lambda L, x, i: x.gather(0, i), X, IG0),
    "gather_dim1": (lambda L, x, i: L.gather(x, 1, i), X, IG1),
    "gather_neg_dim": (lambda L, x, i: x.gather(-1, i), X, IG1),
    "gather_3d": (lambda L, x, i: x.gather(1, i), X3, np.array([[[0, 2, 1]], [[1, 1, 0]]])),
    "gather_int": (lambda L, x, i: x.gather(0, i), IX, IG0),
    "gather_empty_index": (lambda L, x, i: x.gather(0, i), X, np.zeros((0, 4), np.int64)),
    "gather_1d": (lambda L, x, i: x.gather(0, i), V, np.array([4, 0, 0, 2])),
    # scatter / scatter_add
    "scatter_src": (lambda L, x, i, s: x.scatter(0, i, s), X, np.array([[0, 2, 1, 0], [2, 1, 0, 1]]), S[:2]),
    "scatter_src_dim1": (lambda L, x, i, s: L.scatter(x, 1, i, s), X, np.array([[3, 0], [1, 2], [0, 2]]), S[:, :2]),
    "scatter_value": (lambda L, x, i: x.scatter(0, i, 1.5), X, IG0),
    "scatter_value_kw": (lambda L, x, i: x.scatter(1, i, value=-2.0), X, IG1),
    "scatter_add": (lambda L, x, i, s: x.scatter_add(0, i, s), X, IG0, S[:2]),
    "scatter_add_dups": (lambda L, x, i, s: L.scatter_add(x, 1, i, s), X, IDUP, S[:2]),
    "scatter_add_int": (lambda L, x, i, s: x.scatter_add(0, i, s), IX, IG0, IX),
    "scatter_reduce_add": (lambda L, x, i, s: x.detach().scatter(0, i, s.detach(), reduce="add"), X, IG0, S[:2]),
    # index_select / take / take_along_dim
    "index_select_0": (lambda L, x, i: x.index_select(0, i), X, I1),
    "index_select_1": (lambda L, x, i: L.index_select(x, 1, i), X, np.array([3, 3, 0])),
    "index_select_neg_dim": (lambda L, x, i: x.index_select(-1, i), X3, np.array([1])),
    "index_select_0d_index": (lambda L, x, i: x.index_select(0, i), X, np.array(1)),
    "index_select_empty": (lambda L, x, i: x.index_select(0, i), X, np.zeros(0, np.int64)),
    "index_select_of_empty": (lambda L, x, i: x.index_select(1, i), E, np.array([1, 2])),
    "take": (lambda L, x, i: x.take(i), X, np.array([[0, 11], [5, 5]])),
    "take_negative": (lambda L, x, i: L.take(x, i), X, I1N),
    "take_along_dim": (lambda L, x, i: x.take_along_dim(i, 1), X, IG1),
    "take_along_dim_bcast": (lambda L, x, i: L.take_along_dim(x, i, 0), X, np.array([[2, 0, 1, 1]])),
    "take_along_dim_none": (lambda L, x, i: L.take_along_dim(x, i), X, np.array([11, 0, 3])),
    # index_add / index_copy / index_fill
    "index_add": (lambda L, x, i, s: x.index_add(0, i, s), X, I1, S),
    "index_add_alpha": (lambda L, x, i, s: L.index_add(x, 1, i, s, alpha=-0.5), X, np.array([0, 3, 0]), X[:, :3].copy()),
    "index_copy": (lambda L, x, i, s: x.index_copy(1, i, s), X, np.array([2, 0, 3]), X[:, :3].copy() * 2),
    "index_fill": (lambda L, x, i: x.index_fill(1, i, -1.0), X, np.array([1, 3])),
    "index_fill_neg": (lambda L, x, i: L.index_fill(x, 0, i, 2.0), X, np.array([-1])),
    "index_fill_tensor_value": (lambda L, x, i, v: x.index_fill(0, i, v), X, np.array([1]), T0),
    # masks
    "masked_fill": (lambda L, x, m: x.masked_fill(m, 0.5), X, M),
    "masked_fill_bcast_mask": (lambda L, x, m: L.masked_fill(x, m, -1.0), X, MROW),
    "masked_fill_tensor": (lambda L, x, m, v: x.masked_fill(m, v), X, M, T0),
    "masked_fill_int": (lambda L, x, m: x.masked_fill(m, 7), IX, M),
    "masked_fill_inf": (lambda L, x, m: x.masked_fill(m, float("-inf")).softmax(1), X, np.array([[True, False, False, False]] * 3)),
    "masked_select": (lambda L, x, m: x.masked_select(m), X, M),
    "masked_select_bcast": (lambda L, x, m: L.masked_select(x, m), X, MROW),
    "masked_select_none": (lambda L, x, m: x.masked_select(m), X, np.zeros((3, 4), bool)),
    "masked_scatter": (lambda L, x, m, s: x.masked_scatter(m, s), X, M, S),
    "masked_scatter_bcast": (lambda L, x, m, s: L.masked_scatter(x, m, s), X, MROW, S5),
    # repeat_interleave
    "repeat_interleave_int": (lambda L, x: x.repeat_interleave(2), X),
    "repeat_interleave_dim": (lambda L, x: x.repeat_interleave(3, dim=1), X),
    "repeat_interleave_tensor": (lambda L, x, r: L.repeat_interleave(x, r, dim=0), X, R),
    "repeat_interleave_counts": (lambda L, r: L.repeat_interleave(r), R),
    # compositions: gather of a view, scatter into a transposed tensor
    "gather_of_transpose": (lambda L, x, i: x.t().gather(0, i), X, np.array([[0, 1, 2], [3, 3, 0]])),
    "scatter_add_transposed": (lambda L, x, i, s: x.t().scatter_add(1, i, s), X, np.array([[0, 2], [1, 1]]), S[:2, :2]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_pytorch(name):
    program, *arrays = CASES[name]
    check(program, *arrays)


# -- in place: through views (CopySlices), values and gradients as PyTorch --------------------
INPLACE = {
    "masked_fill_": (lambda L, x, m: (x * 1).masked_fill_(m, 2.0), X, M),
    "masked_fill_view": (lambda L, x, m: _through_view(x, lambda v: v.masked_fill_(m[:, :2], 0.0)), X, M),
    "masked_fill_tensor_": (lambda L, x, m, v: (x * 2).masked_fill_(m, v), X, M, T0),
    "masked_fill_tensor_view": (lambda L, x, m, v: _through_view(x, lambda b: b.masked_fill_(m[:, 1:3], v)), X, M, T0),
    "masked_fill_bcast_view": (lambda L, x, m: _through_view(x, lambda b: b.t().masked_fill_(m[:2, :1], 1.0)), X, M),
    "index_add_": (lambda L, x, i, s: (x + 0).index_add_(0, i, s), X, I1, S),
    "index_add_view": (lambda L, x, i, s: _through_view(x, lambda v: v.index_add_(0, i, s[:, :2])), X, I1, S),
    "scatter_": (lambda L, x, i, s: (x * 1).scatter_(0, i, s), X, np.array([[0, 2, 1, 0], [2, 1, 0, 1]]), S[:2]),
    "scatter_value_": (lambda L, x, i: (x * 1).scatter_(1, i, 3.0), X, IG1),
    "scatter_add_": (lambda L, x, i, s: (x * 1).scatter_add_(1, i, s), X, IDUP, S[:2]),
    "scatter_add_view": (lambda L, x, i, s: _through_view(x, lambda v: v.scatter_add_(1, i[:, :2], s[:, :2])), X, IDUP, S[:2]),
    "index_copy_": (lambda L, x, i, s: (x * 1).index_copy_(1, i, s), X, np.array([2, 0, 3]), X[:, :3].copy()),
    "index_fill_": (lambda L, x, i: (x * 1).index_fill_(1, i, 4.0), X, np.array([0, 2])),
    "index_fill_view": (lambda L, x, i: _through_view(x, lambda v: v.index_fill_(0, i, 4.0)), X, np.array([0, 2])),
    "masked_scatter_": (lambda L, x, m, s: (x * 1).masked_scatter_(m, s), X, M, S),
    "masked_scatter_view": (lambda L, x, m, s: _through_view(x, lambda v: v.masked_scatter_(m[:, 1:3], s)), X, M, S),
}


def _through_view(x, write):
    """``write`` into the column view ``b[:, 1:3]`` of a copy ``b`` of ``x``; returns ``b``."""
    b = x * 1.0
    write(b[:, 1:3])
    return b


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_against_pytorch(name):
    program, *arrays = INPLACE[name]
    check(program, *arrays)


def test_inplace_returns_self_and_bumps_version_once():
    x = jitgrad.from_numpy(X.copy())
    v = x._version
    assert x.masked_fill_(jitgrad.from_numpy(M), 0.0) is x
    assert x._version == v + 1
    np.testing.assert_array_equal(x.detach().numpy(), np.where(M, 0.0, X))


def test_inplace_view_rebases_base_onto_copyslices():
    x = jitgrad.from_numpy(X.copy()).requires_grad_(True)
    b = x * 1.0
    b[:, 1:3].index_fill_(0, jitgrad.tensor([1]), 0.0)
    assert b.grad_fn.name() == "torch::autograd::CopySlices"


def test_inplace_on_leaf_refused_and_names_op():
    x = jitgrad.from_numpy(X.copy()).requires_grad_(True)
    with pytest.raises(RuntimeError, match="masked_fill_"):
        x.masked_fill_(jitgrad.from_numpy(M), 0.0)
    np.testing.assert_array_equal(x.detach().numpy(), X)


# -- errors: same family as PyTorch, names the op, changes nothing ------------------------------
ERRORS = {
    "gather_oob": (lambda L, x, i: x.gather(0, i), X, np.array([[3, 0, 0, 0]])),
    "gather_negative": (lambda L, x, i: x.gather(0, i), X, np.array([[-1, 0, 0, 0]])),
    "gather_float_index": (lambda L, x, i: x.gather(0, i), X, np.zeros((1, 4))),
    "gather_bad_dim": (lambda L, x, i: x.gather(2, i), X, IG0),
    "gather_ndim_mismatch": (lambda L, x, i: x.gather(0, i), X, np.array([0, 1])),
    "gather_index_too_big": (lambda L, x, i: x.gather(0, i), X, np.zeros((2, 5), np.int64)),
    "scatter_oob": (lambda L, x, i, s: (x * 1).scatter_(0, i, s), X, np.array([[5, 0]]), S),
    "scatter_add_dtype": (lambda L, x, i, s: x.scatter_add(0, i, s), X, IG0, IX),
    "scatter_add_oob_inplace": (lambda L, x, i, s: x.detach().scatter_add_(1, i, s), X, np.array([[4]]), S),
    "index_select_oob": (lambda L, x, i: x.index_select(0, i), X, np.array([3])),
    "index_select_2d_index": (lambda L, x, i: x.index_select(0, i), X, np.array([[0]])),
    "index_select_float": (lambda L, x, i: x.index_select(0, i), X, np.array([0.0])),
    "take_oob": (lambda L, x, i: x.take(i), X, np.array([12])),
    "index_add_oob": (lambda L, x, i, s: x.index_add(0, i, s), X, np.array([3, 0, 0]), S),
    "index_add_shape": (lambda L, x, i, s: x.index_add(0, i, s), X, np.array([0, 1]), S),
    "index_add_inplace_oob": (lambda L, x, i, s: x.detach().index_add_(0, i, s), X, np.array([0, 9, 1]), S),
    "index_fill_oob": (lambda L, x, i: x.detach().index_fill_(1, i, 0.0), X, np.array([4])),
    "masked_fill_int_mask": (lambda L, x, m: x.masked_fill(m, 0.0), X, M.astype(np.int64)),
    "masked_fill_1d_value": (lambda L, x, m, v: x.masked_fill(m, v), X, M, np.ones(2)),
    "masked_fill_bad_bcast": (lambda L, x, m: x.masked_fill(m, 0.0), X, np.ones(3, bool)),
    "masked_fill_inplace_grow": (lambda L, x, m: x.detach()[0].masked_fill_(m, 0.0), X, M),
    "masked_scatter_short": (lambda L, x, m, s: x.masked_scatter(m, s), X, M, np.ones(2)),
    "masked_select_int_mask": (lambda L, x, m: x.masked_select(m), X, M.astype(np.int64)),
    "repeat_interleave_negative": (lambda L, x: x.repeat_interleave(-1), X),
    "repeat_interleave_size": (lambda L, x, r: x.repeat_interleave(r, dim=0), X, np.array([1, 2])),
    "masked_fill_leaf_inplace": (lambda L, x, m: x.masked_fill_(m, 0.0), X, M),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    program, *arrays = ERRORS[name]
    exc = check_error(program, *arrays)
    op = name.split("_oob")[0].split("_")[0]
    assert op in str(exc), f"{exc!r} does not name {op}"


def test_source_larger_than_index_gets_zero_gradient_outside():
    """A scatter reads only the index-shaped corner of ``src``; the rest gets zero gradient.
    (PyTorch 2.13 fails in backward here: ScatterAddBackward0 returns an index-shaped
    gradient for the larger ``src``.)"""
    x = jitgrad.from_numpy(X.copy()).requires_grad_(True)
    s = jitgrad.from_numpy(S5.copy()).requires_grad_(True)
    i = jitgrad.from_numpy(IG1)
    for op in ("scatter_add", "scatter"):
        gx, gs = jitgrad.autograd.grad(getattr(x, op)(1, i, s).sum(), (x, s))
        expected = np.zeros_like(S5)
        expected[:3, :2] = 1.0
        np.testing.assert_array_equal(gs.detach().numpy(), expected)
    assert gradcheck(lambda a, b: a.scatter_add(1, i, b), (x, s))
    assert gradgradcheck(lambda a, b: a.scatter_add(1, i, b * b), (x, s))


# -- grad_fn names, empty tensors --------------------------------------------------------------
def test_index_ops_on_empty_tensors():
    x = jitgrad.zeros(0, 4, dtype=jitgrad.float64, requires_grad=True)
    i = jitgrad.zeros(0, 4, dtype=jitgrad.int64)
    y = x.gather(0, i) + x.scatter_add(0, i, x).sum()
    y.sum().backward()
    assert x.grad.shape == (0, 4)


# -- numerical gradients -------------------------------------------------------------------------
NUMERICAL = {
    "gather": lambda x: x.gather(1, jitgrad.from_numpy(IG1)),
    "scatter": lambda x: x.scatter(0, jitgrad.from_numpy(IG0[:1]), x * x),
    "scatter_add": lambda x: x.scatter_add(1, jitgrad.from_numpy(IDUP), x.exp()),
    "index_add": lambda x: x.index_add(0, jitgrad.from_numpy(I1), x * 2),
    "masked_scatter": lambda x: x.masked_scatter(jitgrad.from_numpy(M), x.sin()),
    "masked_select": lambda x: (x * x).masked_select(jitgrad.from_numpy(M)),
    "index_copy": lambda x: x.index_copy(1, jitgrad.tensor([1, 0]), x[:, 2:] * x[:, 2:]),
}


@pytest.mark.parametrize("name", sorted(NUMERICAL))
def test_gradcheck(name):
    x = jitgrad.from_numpy(X.copy()).requires_grad_(True)
    assert gradcheck(NUMERICAL[name], (x,))
    assert gradgradcheck(NUMERICAL[name], (x,))


# -- Hypothesis: random shapes, dims and indices ----------------------------------------------------
@st.composite
def gather_problem(draw):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim)))
    dim = draw(st.integers(-ndim, ndim - 1))
    ishape = tuple(draw(st.integers(0, s)) for s in shape)
    d = dim % ndim
    ishape = ishape[:d] + (draw(st.integers(0, 5)),) + ishape[d + 1:]
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    index = rng.integers(0, shape[d], ishape)
    return x, dim, index


@settings(max_examples=budget(40), deadline=None)
@given(gather_problem())
def test_gather_scatter_add_hypothesis(problem):
    x, dim, index = problem
    check(lambda L, a, i: a.gather(dim, i), x, index)
    src = np.random.default_rng(1).standard_normal(index.shape)
    check(lambda L, a, i, s: a.scatter_add(dim, i, s), x, index, src)


@settings(max_examples=budget(30), deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.integers(0, 2**16))
def test_masked_fill_select_hypothesis(shape, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    m = rng.random(shape) < 0.5
    check(lambda L, a, mm: a.masked_fill(mm, 1.25).masked_select(~mm if L is torch else mm.logical_not()), x, m)


@st.composite
def view_write(draw):
    """A strided view (slice with a step, maybe transposed) of a 2-D buffer, and an in-place
    gather/scatter/mask write into it."""
    rows, cols = draw(st.integers(2, 5)), draw(st.integers(2, 5))
    r0, c0 = draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 1))
    rs, cs = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    transpose = draw(st.booleans())
    ops = ["masked_fill_", "index_add_", "scatter_add_", "index_fill_", "masked_scatter_", "cumsum_", "tril_"]
    op = draw(st.sampled_from(ops))
    seed = draw(st.integers(0, 2**16))
    return rows, cols, (r0, c0, rs, cs), transpose, op, seed


@settings(max_examples=budget(40), deadline=None)
@given(view_write())
def test_inplace_through_strided_views_hypothesis(problem):
    rows, cols, (r0, c0, rs, cs), transpose, op, seed = problem
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, cols))
    vr, vc = len(range(r0, rows, rs)), len(range(c0, cols, cs))
    if transpose:
        vr, vc = vc, vr
    mask = rng.random((vr, vc)) < 0.5
    idx = rng.integers(0, vr, 3)
    src = rng.standard_normal((3, vc))
    sidx = rng.integers(0, vr, (vr, vc))
    ssrc = rng.standard_normal((vr, vc))

    def program(L, a, m, i, s, si, ss):
        b = a * 1.0
        v = b[r0::rs, c0::cs]
        v = v.t() if transpose else v
        if op == "masked_fill_":
            v.masked_fill_(m, 0.5)
        elif op == "index_add_":
            v.index_add_(0, i, s)
        elif op == "scatter_add_":
            v.scatter_add_(0, si, ss)
        elif op == "index_fill_":
            v.index_fill_(0, i, -1.0)
        elif op == "masked_scatter_":
            v.masked_scatter_(m, ss)
        elif op == "cumsum_":
            v.cumsum_(1)
        else:
            v.tril_()
        return b * b

    check(program, x, mask, idx, src, sidx, ssrc)
