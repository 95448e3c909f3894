"""Reductions and the softmax family against PyTorch: forward values, gradients and second
derivatives (``grad_oracle.check``), ties and nan for max/min, 0-d and empty tensors,
errors, numerical gradient checks, and Hypothesis over shapes and dims."""

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

RNG = np.random.default_rng(1234)
X = RNG.standard_normal((3, 4, 5))
X32 = RNG.standard_normal((3, 4)).astype(np.float32)
TIES = np.array([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 0.0, 2.0], [5.0, 5.0, 5.0, 5.0]])
NAN = np.array([[1.0, np.nan, 3.0, np.nan], [0.0, 2.0, 2.0, -1.0]])
BIG = np.array([[1000.0, 999.0, -1000.0], [-np.inf, 0.0, 1.0], [-np.inf, -np.inf, -np.inf]])
A0 = np.array(1.5)
E03 = np.zeros((0, 3))
E0 = np.zeros((0,))
I34 = np.arange(12, dtype=np.int64).reshape(3, 4) - 5
B4 = np.array([True, False, True, False])

CASES = {
    # sum (which every backward above uses)
    "sum_all": (lambda L, x: x.sum(), X),
    "sum_dim": (lambda L, x: x.sum(1), X),
    "sum_neg_keepdim": (lambda L, x: x.sum(-1, keepdim=True), X),
    "sum_tuple": (lambda L, x: x.sum((0, 2)), X),
    "sum_empty_list_is_all": (lambda L, x: x.sum(dim=[]), X),
    "sum_0d_dim": (lambda L, x: x.sum(0), A0),
    "sum_0d_keepdim": (lambda L, x: x.sum(-1, keepdim=True), A0),
    "sum_empty": (lambda L, x: x.sum(), E03),
    "sum_empty_dim": (lambda L, x: x.sum(0), E03),
    "sum_int": (lambda L, x: x.sum(1), I34),
    "sum_func": (lambda L, x: L.sum(x, dim=(0, 1), keepdim=True), X),
    # mean
    "mean_all": (lambda L, x: x.mean(), X),
    "mean_dim": (lambda L, x: x.mean(1), X),
    "mean_neg_keepdim": (lambda L, x: x.mean(-2, keepdim=True), X),
    "mean_tuple": (lambda L, x: x.mean((0, -1)), X),
    "mean_tuple_keepdim": (lambda L, x: x.mean((2, 0), keepdim=True), X),
    "mean_0d": (lambda L, x: x.mean(), A0),
    "mean_0d_dim": (lambda L, x: x.mean(0), A0),
    "mean_f32": (lambda L, x: x.mean(0), X32),
    "mean_dtype": (lambda L, x: x.mean(1, dtype=L.float64), X32),
    "mean_int_dtype": (lambda L, x: x.mean(dtype=L.float64), I34),
    "mean_empty_is_nan": (lambda L, x: x.mean(), E03),
    "mean_empty_dim": (lambda L, x: x.mean(0), E03),
    "mean_over_nonempty_dim_of_empty": (lambda L, x: x.mean(1), E03),
    "mean_func": (lambda L, x: L.mean(x, 2), X),
    # max / min without dim: the gradient is shared among ties (and nans)
    "max_all": (lambda L, x: x.max(), X),
    "min_all": (lambda L, x: x.min(), X),
    "max_all_ties": (lambda L, x: x.max(), TIES),
    "min_all_ties": (lambda L, x: x.min(), TIES),
    "max_all_nan": (lambda L, x: x.max(), NAN),
    "min_all_nan": (lambda L, x: x.min(), NAN),
    "max_all_0d": (lambda L, x: x.max(), A0),
    "max_int": (lambda L, x: x.max(), I34),
    "max_bool": (lambda L, x: x.max(), B4),
    "max_func": (lambda L, x: L.max(x), X),
    # max / min with dim: (values, indices); the first index among ties
    "max_dim": (lambda L, x: x.max(1), X),
    "min_dim": (lambda L, x: x.min(0), X),
    "max_dim_keepdim": (lambda L, x: x.max(-1, keepdim=True), X),
    "min_dim_keepdim": (lambda L, x: x.min(1, keepdim=True), X),
    "max_dim_ties": (lambda L, x: x.max(1), TIES),
    "min_dim_ties": (lambda L, x: x.min(1), TIES),
    "max_dim_ties_col": (lambda L, x: x.max(0, keepdim=True), TIES),
    "max_dim_nan": (lambda L, x: x.max(1), NAN),
    "min_dim_nan": (lambda L, x: x.min(1), NAN),
    "max_dim_0d": (lambda L, x: x.max(0), A0),
    "min_dim_0d_keepdim": (lambda L, x: x.min(-1, keepdim=True), A0),
    "max_dim_empty_other": (lambda L, x: x.max(1), E03),
    "max_dim_int": (lambda L, x: x.max(1), I34),
    "max_dim_bool": (lambda L, x: x.max(0), B4),
    "max_dim_1d": (lambda L, x: x[0, 0].max(0), X),
    "max_named": (lambda L, x: (x.max(2).values, x.max(2).indices), X),
    "min_func_dim": (lambda L, x: L.min(x, 1, keepdim=True), X),
    "max_binary_is_maximum": (lambda L, x: L.max(x[0], x[1].t().t()), TIES[:2]),
    "min_binary_is_minimum": (lambda L, x: x[:1].min(x[1]), TIES[:2]),
    # amax / amin: ties along the reduced dims share the gradient
    "amax_all": (lambda L, x: x.amax(), TIES),
    "amin_all": (lambda L, x: x.amin(), TIES),
    "amax_dim": (lambda L, x: x.amax(1), TIES),
    "amin_dim_keepdim": (lambda L, x: x.amin(0, keepdim=True), TIES),
    "amax_tuple": (lambda L, x: x.amax((0, 2)), X),
    "amax_nan": (lambda L, x: x.amax(1), NAN),
    "amax_0d": (lambda L, x: x.amax(0), A0),
    "amax_empty_other": (lambda L, x: x.amax(1), E03),
    # logsumexp
    "logsumexp": (lambda L, x: x.logsumexp(1), X),
    "logsumexp_keepdim": (lambda L, x: x.logsumexp(-1, keepdim=True), X),
    "logsumexp_tuple": (lambda L, x: x.logsumexp((0, 2)), X),
    "logsumexp_big": (lambda L, x: x.logsumexp(1), BIG),
    "logsumexp_big_cols": (lambda L, x: x.logsumexp(0), BIG[:2]),
    "logsumexp_0d": (lambda L, x: x.logsumexp(0), A0),
    "logsumexp_empty_dim": (lambda L, x: x.logsumexp(0), E03),
    "logsumexp_empty_other": (lambda L, x: x.logsumexp(1), E03),
    "logsumexp_int": (lambda L, x: x.logsumexp(1), I34),
    "logsumexp_f32": (lambda L, x: x.logsumexp(0), X32),
    "logsumexp_func": (lambda L, x: L.logsumexp(x, dim=(1,), keepdim=True), X),
    # softmax / log_softmax
    "softmax_0": (lambda L, x: x.softmax(0), X),
    "softmax_1": (lambda L, x: x.softmax(1), X),
    "softmax_neg": (lambda L, x: x.softmax(-1), X),
    "softmax_big": (lambda L, x: x.softmax(1), BIG[:2]),
    "softmax_all_neg_inf": (lambda L, x: x.softmax(1), BIG),
    "softmax_0d": (lambda L, x: x.softmax(0), A0),
    "softmax_empty": (lambda L, x: x.softmax(0), E03),
    "softmax_empty_other": (lambda L, x: x.softmax(1), E03),
    "softmax_f32": (lambda L, x: x.softmax(1), X32),
    "softmax_dtype": (lambda L, x: x.softmax(1, dtype=L.float64), X32),
    "softmax_int_dtype": (lambda L, x: x.softmax(0, dtype=L.float64), I34),
    "softmax_func": (lambda L, x: L.softmax(x, 2), X),
    "log_softmax_0": (lambda L, x: x.log_softmax(0), X),
    "log_softmax_neg": (lambda L, x: x.log_softmax(-2), X),
    "log_softmax_big": (lambda L, x: x.log_softmax(1), BIG[:2]),
    "log_softmax_0d": (lambda L, x: x.log_softmax(-1), A0),
    "log_softmax_empty": (lambda L, x: x.log_softmax(1), E03),
    "log_softmax_f32": (lambda L, x: x.log_softmax(0), X32),
    "log_softmax_dtype": (lambda L, x: x.log_softmax(0, dtype=L.float64), X32),
    "log_softmax_func": (lambda L, x: L.log_softmax(x, 1), X),
    # compositions: reductions of views and of each other
    "mean_of_transposed": (lambda L, x: x.transpose(0, 2).mean(1), X),
    "softmax_of_slice": (lambda L, x: x[:, 1:, ::2].softmax(1), X),
    "max_of_expanded": (lambda L, x: x[0, :, :1].expand(4, 3).max(1), X),
    "logsumexp_minus_max": (lambda L, x: x.logsumexp(1).add(x.max(1).values, alpha=-1) + x.amin(1), X),
    "nll": (lambda L, x: (x.log_softmax(1)[[0, 1, 2], [3, 0, 3]]).mean() * -1, X[:, :, 0]),
}

# cases whose second derivatives are exercised too (the non-linear ones matter most)
DOUBLE = {k for k in CASES if not k.startswith(("max_int", "max_bool", "max_dim_int", "max_dim_bool", "sum_int"))}


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_pytorch(name):
    program, array = CASES[name]
    check(program, array, double=name in DOUBLE)


ERRORS = {
    "sum_bad_dim": (lambda L, x: x.sum(3), X),
    "sum_dup_dim": (lambda L, x: x.sum((0, -3)), X),
    "mean_bad_dim": (lambda L, x: x.mean(-4), X),
    "mean_0d_bad_dim": (lambda L, x: x.mean(1), A0),
    "mean_dup_dim": (lambda L, x: x.mean((1, 1)), X),
    "mean_int": (lambda L, x: x.mean(), I34),
    "mean_bool": (lambda L, x: x.mean(), B4),
    "mean_int_dtype": (lambda L, x: x.mean(dtype=L.int64), X),
    "max_empty": (lambda L, x: x.max(), E03),
    "min_empty_dim": (lambda L, x: x.min(0), E03),
    "max_empty_1d_dim": (lambda L, x: x.max(0), E0),
    "max_bad_dim": (lambda L, x: x.max(3), X),
    "max_0d_bad_dim": (lambda L, x: x.max(1), A0),
    "max_tuple_dim": (lambda L, x: x.max(dim=(0, 1)), X),
    "amax_empty": (lambda L, x: x.amax(), E03),
    "amax_empty_dim": (lambda L, x: x.amax(0), E03),
    "amax_dup_dim": (lambda L, x: x.amax((0, 0)), X),
    "logsumexp_no_dim": (lambda L, x: x.logsumexp(), X),
    "logsumexp_bad_dim": (lambda L, x: x.logsumexp(5), X),
    "softmax_no_dim": (lambda L, x: x.softmax(), X),
    "softmax_bad_dim": (lambda L, x: x.softmax(3), X),
    "softmax_0d_bad_dim": (lambda L, x: x.softmax(1), A0),
    "softmax_int": (lambda L, x: x.softmax(0), I34),
    "log_softmax_int": (lambda L, x: x.log_softmax(1), I34),
    "log_softmax_bad_dim": (lambda L, x: x.log_softmax(-3), X32),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    program, array = ERRORS[name]
    check_error(program, array)


def test_max_dim_returns_named_tuple():
    x = jitgrad.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], requires_grad=True)
    values, indices = result = x.max(1)
    assert result.values is values and result.indices is indices
    assert indices.dtype == jitgrad.int64 and not indices.requires_grad
    assert indices.grad_fn is None and values.grad_fn.name() == "MaxBackward0"
    assert indices.tolist() == [1, 0]


@pytest.mark.parametrize(
    "op, name",
    [
        (lambda x: x.sum(), "SumBackward0"),
        (lambda x: x.sum(0), "SumBackward1"),
        (lambda x: x.mean(), "MeanBackward0"),
        (lambda x: x.mean(0), "MeanBackward1"),
        (lambda x: x.max(), "MaxBackward1"),
        (lambda x: x.min(), "MinBackward1"),
        (lambda x: x.max(0).values, "MaxBackward0"),
        (lambda x: x.min(0).values, "MinBackward0"),
        (lambda x: x.amax(0), "AmaxBackward0"),
        (lambda x: x.amin(), "AminBackward0"),
        (lambda x: x.logsumexp(0), "LogsumexpBackward0"),
        (lambda x: x.softmax(0), "SoftmaxBackward0"),
        (lambda x: x.log_softmax(0), "LogSoftmaxBackward0"),
    ],
)
def test_grad_fn_names_match_pytorch(op, name):
    assert op(jitgrad.randn(2, 3, requires_grad=True)).grad_fn.name() == name
    assert op(torch.randn(2, 3, requires_grad=True)).grad_fn.name() == name


def test_softmax_output_modified_in_place_is_detected():
    """The softmax backward uses its output: writing to it afterwards must be caught."""
    for lib in (jitgrad, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.softmax(0)
        with lib.no_grad():
            y.mul_(2) if hasattr(y, "mul_") else y.add_(y)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_max_of_input_modified_in_place_is_detected():
    """``max()`` saves its input (to find the ties), as PyTorch does."""
    for lib in (jitgrad, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.clone()
        m = y.max()
        with lib.no_grad():
            y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            m.backward()


# -- numerical gradients ---------------------------------------------------------------------
def _leaf(array):
    return jitgrad.from_numpy(np.array(array, dtype=np.float64)).requires_grad_(True)


DISTINCT = RNG.permutation(24).reshape(2, 3, 4) / 7.0 - 1.0  # no ties: max is differentiable

NUMERICAL = {
    "sum": lambda x: x.sum((0, 2)),
    "mean": lambda x: x.mean(1, keepdim=True),
    "mean_all": lambda x: x.mean(),
    "max_all": lambda x: x.max(),
    "min_dim": lambda x: x.min(1).values,
    "max_dim_keepdim": lambda x: x.max(-1, keepdim=True).values,
    "amax": lambda x: x.amax((0, 1)),
    "amin": lambda x: x.amin(2, keepdim=True),
    "logsumexp": lambda x: x.logsumexp(1),
    "logsumexp_tuple": lambda x: x.logsumexp((0, 2), keepdim=True),
    "softmax": lambda x: x.softmax(1),
    "log_softmax": lambda x: x.log_softmax(-1),
    "softmax_then_max": lambda x: x.softmax(0).max(1).values,
}


@pytest.mark.parametrize("name", sorted(NUMERICAL))
def test_gradcheck(name):
    assert gradcheck(NUMERICAL[name], (_leaf(DISTINCT),))


@pytest.mark.parametrize("name", sorted(NUMERICAL))
def test_gradgradcheck(name):
    jitgrad.manual_seed(0)
    assert gradgradcheck(NUMERICAL[name], (_leaf(DISTINCT[:, :2, :3]),))


# -- Hypothesis: shapes, dims, keepdim ---------------------------------------------------------
@st.composite
def reduction_case(draw, allow_empty=True):
    shape = tuple(draw(st.lists(st.integers(0 if allow_empty else 1, 4), min_size=0, max_size=3)))
    seed = draw(st.integers(0, 2**32 - 1))
    data = np.asarray(np.random.default_rng(seed).standard_normal(shape))
    if draw(st.booleans()):  # introduce ties
        data = np.asarray(np.round(data))
    ndim = len(shape)
    dims = draw(
        st.none()
        | st.integers(-max(ndim, 1), max(ndim, 1) - 1)
        | st.lists(st.integers(-max(ndim, 1), max(ndim, 1) - 1), min_size=1, max_size=max(ndim, 1), unique_by=lambda d: d % max(ndim, 1))
    )
    return data, dims, draw(st.booleans())


def _same_or_same_error(program, data):
    try:
        torch_out = program(torch, torch.from_numpy(data.copy()))
    except (IndexError, RuntimeError, TypeError, ValueError):
        check_error(program, data)
        return
    del torch_out
    check(program, data, double=False)


@settings(max_examples=budget(40))
@given(reduction_case())
def test_hypothesis_sum_mean(case):
    data, dims, keepdim = case
    if dims is None:
        _same_or_same_error(lambda L, x: x.sum() + x.mean(), data)
    else:
        _same_or_same_error(lambda L, x: (x.sum(dims, keepdim=keepdim), x.mean(dims, keepdim=keepdim)), data)


@settings(max_examples=budget(40))
@given(reduction_case())
def test_hypothesis_max_min_amax(case):
    data, dims, keepdim = case
    if dims is None:
        _same_or_same_error(lambda L, x: (x.max(), x.min(), x.amax(), x.amin()), data)
    elif isinstance(dims, int):
        _same_or_same_error(lambda L, x: (*x.max(dims, keepdim), *x.min(dims, keepdim=keepdim)), data)
    else:
        _same_or_same_error(lambda L, x: (x.amax(dims, keepdim), x.amin(dims, keepdim=keepdim)), data)


@settings(max_examples=budget(40))
@given(reduction_case())
def test_hypothesis_softmax_family(case):
    data, dims, keepdim = case
    if dims is None:
        return
    if isinstance(dims, int):
        _same_or_same_error(
            lambda L, x: (x.softmax(dims), x.log_softmax(dims), x.logsumexp(dims, keepdim)), data
        )
    else:
        _same_or_same_error(lambda L, x: x.logsumexp(dims, keepdim=keepdim), data)
