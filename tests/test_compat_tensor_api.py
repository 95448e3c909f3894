"""Tensor API gaps closed against PyTorch (float64): copy_ from numbers, int32 indices,
scatter(reduce=), operators, index errors, aliases, small queries, index_put, splits and
more. Each case runs the same code on both and compares values, dtypes, errors (type and
message) and, for bad input, that nothing was changed."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch

from compat_helpers import LIBS
from compat_helpers import outcome as _outcome
from compat_helpers import same as _same


# -- 3. copy_ from a Python number (PyTorch wraps it as a 0-dim tensor) -------------------------
COPY_NUMBERS = [
    ("float64", 2), ("int64", 2.7), ("int64", -2.7), ("bool", 2), ("int64", True), ("int64", 2**63),
    ("float64", 2**63 + 2**11), ("float32", 1e300), ("float64", 2**62 + 1), ("int32", 2**40),
    ("float64", np.float32(1.1)), ("float64", np.int64(3)), ("float64", np.bool_(True)),
]


@pytest.mark.parametrize("dtype, number", COPY_NUMBERS, ids=[f"{d}-{n!r}" for d, n in COPY_NUMBERS])
def test_copy_from_a_number(dtype: str, number: Any) -> None:
    got = []
    for lib in LIBS:
        t = lib.zeros(3, dtype=getattr(lib, dtype))
        out = t.copy_(number)
        got.append((out is t, t, t._version))
    _same(*got)


def test_copy_from_a_number_through_a_view_is_differentiable() -> None:
    got = []
    for lib in LIBS:
        x = lib.zeros(3, dtype=lib.float64, requires_grad=True)
        y = x.clone()
        y[1:].copy_(2)
        (y * lib.arange(1.0, 4.0, dtype=lib.float64)).sum().backward()
        got.append((y, x.grad, type(y.grad_fn).__name__, repr(y)[-22:]))
    _same(*got)


@pytest.mark.parametrize("value", [None, "a", np.array(2.0), [1.0], 10**30])
def test_copy_from_something_else_raises_and_changes_nothing(value: Any) -> None:
    got = []
    for lib in LIBS:
        t = lib.ones(3, dtype=lib.float64)
        kind, _ = _outcome(lambda: t.copy_(value))
        got.append((kind, t, t._version))
    _same(*got)
    assert got[0][0] in ("TypeError", "OverflowError")


def test_copy_from_a_number_into_a_leaf_that_requires_grad() -> None:
    for lib in LIBS:
        x = lib.zeros(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
            x.copy_(2)
        assert x.tolist() == [0.0, 0.0, 0.0] and x._version == 0
        x.data.copy_(2)
        assert x.tolist() == [2.0, 2.0, 2.0]


# -- 8. linalg.solve of a batch of vectors: one LinalgSolveExBackward0, as PyTorch -------------
@pytest.mark.parametrize("sa, sb", [((2, 2), (2,)), ((3, 2, 2), (2,)), ((3, 2, 2), (3, 2)), ((3, 2, 2), (2, 4))])
def test_solve_of_vectors_is_one_node(sa: tuple[int, ...], sb: tuple[int, ...]) -> None:
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(sa) + 3 * np.eye(2), rng.standard_normal(sb)
    got = []
    for lib in LIBS:
        A, B = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        X = lib.linalg.solve(A, B)
        g = lib.tensor(np.arange(X.numel(), dtype=np.float64).reshape(tuple(X.shape)))
        gA, gB = lib.autograd.grad(X, (A, B), g)
        got.append((X.grad_fn.name(), X.detach().numpy(), gA.detach().numpy(), gB.detach().numpy()))
    assert got[0][0] == got[1][0]
    for ours, theirs in zip(got[0][1:], got[1][1:]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-13)


# -- 9. int32 index tensors, scatter(reduce=), sort(stable=) -----------------------------------
INT32_OPS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "getitem": lambda lib, X, i: X[i],
    "getitem_dim1": lambda lib, X, i: X[:, i],
    "index_select": lambda lib, X, i: X.index_select(1, i),
    "gather": lambda lib, X, i: X.gather(1, i[None].expand(2, 2)),
    "scatter": lambda lib, X, i: X.scatter(1, i[None].expand(2, 2), 9.0),
    "scatter_src": lambda lib, X, i: X.scatter(1, i[None].expand(2, 2), X[:, :2] * 2),
    "scatter_add": lambda lib, X, i: X.scatter_add(1, i[None].expand(2, 2), X[:, :2]),
    "scatter_reduce": lambda lib, X, i: X.scatter_reduce(1, i[None].expand(2, 2), X[:, :2], "amax"),
    "index_add": lambda lib, X, i: X.index_add(1, i, X[:, :2]),
    "index_put_": lambda lib, X, i: X.clone().index_put_((i,), lib.tensor(5.0, dtype=lib.float64)),
    "setitem": lambda lib, X, i: X.clone().__setitem__(i, 7.0),
    "embedding": lambda lib, X, i: lib.nn.functional.embedding(i, X),
    "take": lambda lib, X, i: X.take(i),  # refused by both
    "index_copy": lambda lib, X, i: X.index_copy(1, i, X[:, :2]),  # refused by both
    "index_fill": lambda lib, X, i: X.index_fill(1, i, 5.0),  # refused by both (IndexError)
    "take_along_dim": lambda lib, X, i: lib.take_along_dim(X, i[None].expand(2, 2), 1),  # refused
    "out_of_range": lambda lib, X, i: X[i + 5],
}


@pytest.mark.parametrize("case", sorted(INT32_OPS))
def test_int32_index_tensors(case: str) -> None:
    got = []
    for lib in LIBS:
        X = lib.arange(6.0, dtype=lib.float64).reshape(2, 3).requires_grad_()
        i = lib.tensor([0, 1], dtype=lib.int32)
        kind, out = _outcome(lambda: INT32_OPS[case](lib, X, i))
        grad = None
        if kind == "ok" and out is not None and out.requires_grad:
            (grad,) = lib.autograd.grad(out.sum(), X)
        got.append((kind, out if kind == "ok" else None, grad, X))
    (kind, out, grad, X), (want_kind, want_out, want_grad, want_X) = got
    assert kind == want_kind
    if kind == "ok" and want_out is not None:
        _same(out, want_out)
        _same(grad, want_grad)
    _same(X, want_X)  # nothing changed


@pytest.mark.parametrize("dtype", ["int16", "int8"])
def test_other_integer_index_tensors_are_refused(dtype: str) -> None:
    for lib in LIBS:
        X = lib.zeros(2, 3)
        i = lib.tensor([0, 1], dtype=getattr(lib, dtype))
        with pytest.raises(IndexError, match="tensors used as indices must be long, int"):
            X[i]
        with pytest.raises(RuntimeError, match="index_select\\(\\): Expected dtype int32"):
            X.index_select(1, i)
        with pytest.raises(RuntimeError, match="gather\\(\\): Expected dtype int32/int64 for index"):
            X.gather(1, i[None].expand(2, 2))


SCATTER_REDUCE: dict[str, Callable[[Any], Any]] = {
    "add_number": lambda lib: lib.arange(6.0, dtype=lib.float64).reshape(2, 3).scatter(
        1, lib.tensor([[0, 0], [1, 2]]), 3.0, reduce="add"),
    "multiply_number": lambda lib: lib.arange(6.0, dtype=lib.float64).reshape(2, 3).scatter(
        1, lib.tensor([[0, 0], [1, 2]]), 3.0, reduce="multiply"),
    "add_tensor": lambda lib: lib.arange(6.0, dtype=lib.float64).reshape(2, 3).scatter(
        1, lib.tensor([[0, 0], [1, 2]]), lib.full((2, 2), 3.0, dtype=lib.float64), reduce="add"),
    "multiply_tensor_": lambda lib: lib.arange(6.0, dtype=lib.float64).reshape(2, 3).scatter_(
        1, lib.tensor([[0, 0], [1, 2]]), lib.full((2, 2), 3.0, dtype=lib.float64), reduce="multiply"),
    "int_multiply_float": lambda lib: lib.ones(3, dtype=lib.int64).scatter(0, lib.tensor([0, 0]), 2.5, reduce="multiply"),
    "int_multiply": lambda lib: lib.ones(3, dtype=lib.int64).scatter(0, lib.tensor([0, 0]), lib.tensor([2, 3]), reduce="multiply"),
    "bool_add": lambda lib: lib.ones(3, dtype=lib.bool).scatter(0, lib.tensor([0, 0]), False, reduce="add"),
    "0d": lambda lib: lib.tensor(2.0, dtype=lib.float64).scatter(0, lib.tensor(0), lib.tensor(3.0, dtype=lib.float64), reduce="multiply"),
    "int32_index": lambda lib: lib.ones(3, dtype=lib.float64).scatter(0, lib.tensor([1], dtype=lib.int32), 2.0, reduce="multiply"),
    "bad_reduce": lambda lib: lib.ones(3).scatter(0, lib.tensor([0]), 1.0, reduce="max"),
    "dtype_mismatch": lambda lib: lib.ones(3).scatter(0, lib.tensor([0]), lib.ones(1, dtype=lib.float64), reduce="add"),
    "out_of_bounds": lambda lib: lib.ones(3).scatter(0, lib.tensor([5]), 1.0, reduce="add"),
}


@pytest.mark.filterwarnings("ignore:.*scatter")
@pytest.mark.parametrize("case", sorted(SCATTER_REDUCE))
def test_scatter_with_reduce(case: str) -> None:
    (kind, out), (want_kind, want_out) = (_outcome(lambda: SCATTER_REDUCE[case](lib)) for lib in LIBS)
    assert kind == want_kind
    if kind == "ok":
        _same(out, want_out)


@pytest.mark.filterwarnings("ignore:.*scatter")
@pytest.mark.parametrize("src", ["number", "tensor"])
@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_with_reduce_is_not_differentiable(reduce: str, src: str) -> None:
    for lib in LIBS:
        X = lib.arange(6.0, dtype=lib.float64).reshape(2, 3).requires_grad_()
        s = 3.0 if src == "number" else lib.full((2, 2), 3.0, dtype=lib.float64)
        y = X.scatter(1, lib.tensor([[0, 0], [1, 2]]), s, reduce=reduce)
        assert y.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::scatter is not implemented"):
            y.sum().backward()
        assert X.grad is None


def test_sort_called_with_stable_is_sort_backward1() -> None:
    for lib in LIBS:
        x = lib.tensor([1.0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0], requires_grad=True)
        names = [lib.sort(x, stable=True)[0].grad_fn.name(), lib.sort(x, stable=False)[0].grad_fn.name(),
                 x.sort(stable=True)[0].grad_fn.name(), lib.sort(x)[0].grad_fn.name(), x.sort(0, True)[0].grad_fn.name()]
        assert names == ["SortBackward1"] * 3 + ["SortBackward0"] * 2
        # the stable order (jitgrad's always; PyTorch's with stable=True)
        assert lib.sort(x, stable=True)[1].tolist() == list(range(1, 20, 2)) + list(range(0, 20, 2))
        assert lib.sort(x, stable=True, descending=True)[1].tolist() == list(range(0, 20, 2)) + list(range(1, 20, 2))


# -- Python operators: %, //, unary + ------------------------------------------------------------
OPERATORS: dict[str, Callable[[Any], Any]] = {
    "mod": lambda x: x % 2,
    "mod_tensor": lambda x: x % (x.detach() + 4),
    "rmod": lambda x: 7 % x.detach(),
    "floordiv": lambda x: x.detach() // 2,
    "rfloordiv": lambda x: 7 // x.detach(),
    "pos": lambda x: +x,
    "imod": lambda x: x.detach().clone().__imod__(2),
    "ifloordiv": lambda x: x.detach().clone().__ifloordiv__(2),
    "int_mod": lambda x: x.detach().long() % 3,
    "int_rmod": lambda x: 7 % (x.detach().long() + 6),
    "int_floordiv": lambda x: x.detach().long() // -2,
    "int_mod_zero": lambda x: x.detach().long() % 0,
    "pos_bool": lambda x: +(x > 0),
    "mod_str": lambda x: x % "a",
}


@pytest.mark.parametrize("case", sorted(OPERATORS))
def test_python_operators(case: str) -> None:
    got = []
    for lib in LIBS:
        x = lib.tensor([1.5, -2.5, 3.0, 7.0], dtype=lib.float64, requires_grad=True)
        kind, out = _outcome(lambda: OPERATORS[case](x))
        grad = None
        if kind == "ok" and out.grad_fn is not None and out.grad_fn.name() != "torch::autograd::NotImplemented":
            (grad,) = lib.autograd.grad(out.sum(), x)
        got.append((kind, out if kind == "ok" else None, grad, kind == "ok" and out is x))
    (kind, out, grad, same), (want_kind, want_out, want_grad, want_same) = got
    assert (kind, same) == (want_kind, want_same)
    if kind == "ok":
        _same(out, want_out)
        _same(grad, want_grad)


def test_in_place_operators_keep_the_tensor() -> None:
    for lib in LIBS:
        y = lib.tensor([5.0, -3.0], dtype=lib.float64)
        z = y
        y %= 2
        y //= 0.5
        assert z is y and y.tolist() == [2.0, 2.0] and y._version == 2


# -- index errors in PyTorch's words ---------------------------------------------------------------
INDEX_ERRORS: dict[str, Callable[[Any, Any], Any]] = {
    "int": lambda lib, X: X[5],
    "int_negative": lambda lib, X: X[-3],
    "int_second_dim": lambda lib, X: X[0, 7],
    "int_after_none": lambda lib, X: X[None, 0, 7],
    "int_after_ellipsis": lambda lib, X: X[..., 7],
    "int_after_nones": lambda lib, X: X[None, None, 0, 7],
    "int_after_none_ellipsis": lambda lib, X: X[..., None, 7],
    "int_after_bool": lambda lib, X: X[True, 0, 7],
    "int_after_slice": lambda lib, X: X[1:, 7],
    "tensor": lambda lib, X: X[lib.tensor([5])],
    "tensor_negative": lambda lib, X: X[lib.tensor([-3])],
    "list": lambda lib, X: X[[0, 5]],
    "setitem": lambda lib, X: X.__setitem__(lib.tensor([5]), 1.0),
    "index_put_": lambda lib, X: X.index_put_((lib.tensor([3]),), lib.tensor(1.0)),
}


@pytest.mark.parametrize("case", sorted(INDEX_ERRORS))
def test_index_out_of_range_messages(case: str) -> None:
    got = []
    for lib in LIBS:
        X = lib.arange(6.0).reshape(2, 3)
        kind, message = _outcome(lambda: INDEX_ERRORS[case](lib, X))
        got.append((kind, message, X._version, X.tolist()))
    assert got[0] == got[1] and got[0][0] == "IndexError"


# -- PyTorch's alias names ----------------------------------------------------------------------
ALIASES: dict[str, Callable[[Any, Any], Any]] = {
    "absolute": lambda lib, x: lib.absolute(x),
    "absolute_": lambda lib, x: x.clone().absolute_(),
    "arccos": lambda lib, x: lib.arccos(x / 4),
    "arcsin_": lambda lib, x: (x / 4).arcsin_(),
    "arctan": lambda lib, x: x.arctan(),
    "arccosh": lambda lib, x: lib.arccosh(x.abs() + 1),
    "arcsinh": lambda lib, x: x.arcsinh(),
    "arctanh": lambda lib, x: lib.arctanh(x / 4),
    "arctan2": lambda lib, x: lib.arctan2(x, x.detach() + 0.5),
    "arctan2_": lambda lib, x: x.clone().arctan2_(x.detach() + 0.5),
    "divide": lambda lib, x: lib.divide(x, 2, rounding_mode="floor"),
    "divide_tensor": lambda lib, x: x.divide(x.detach() + 4),
    "multiply": lambda lib, x: lib.multiply(x, 3),
    "multiply_": lambda lib, x: x.clone().multiply_(3),
    "subtract": lambda lib, x: lib.subtract(x, 1, alpha=2),
    "negative": lambda lib, x: lib.negative(x),
    "negative_": lambda lib, x: x.clone().negative_(),
    "greater": lambda lib, x: lib.greater(x, 0),
    "greater_equal": lambda lib, x: x.greater_equal(1.5),
    "less": lambda lib, x: x.less(0),
    "less_equal": lambda lib, x: lib.less_equal(x, 1.5),
    "not_equal": lambda lib, x: x.not_equal(1.5),
    "fix": lambda lib, x: lib.fix(x),
    "fix_": lambda lib, x: x.clone().fix_(),
    "ravel": lambda lib, x: x.ravel(),
    "ravel_transposed": lambda lib, x: lib.ravel(x.reshape(2, 2).t()),
    "ndimension": lambda lib, x: x.ndimension(),
    "is_nonzero": lambda lib, x: x[1].is_nonzero(),
    "is_nonzero_many": lambda lib, x: x.is_nonzero(),
    "is_nonzero_none": lambda lib, x: lib.is_nonzero(x[:0]),
    "contains": lambda lib, x: (1.5 in x, 2 in x, x[0] in x),
    "contains_str": lambda lib, x: "a" in x,
}


@pytest.mark.parametrize("case", sorted(ALIASES))
def test_alias_names(case: str) -> None:
    got = []
    for lib in LIBS:
        x = lib.tensor([1.5, -2.5, 3.0, 0.25], dtype=lib.float64, requires_grad=True)
        kind, out = _outcome(lambda: ALIASES[case](lib, x))
        name = grad = None
        if kind == "ok" and isinstance(out, (lib.Tensor,)) and out.grad_fn is not None:
            name = out.grad_fn.name()
            (grad,) = lib.autograd.grad(out.sum(), x, allow_unused=True)
        got.append((kind, out if kind == "ok" else out.split(" (")[0], name, grad))
    (kind, out, name, grad), (want_kind, want_out, want_name, want_grad) = got
    assert (kind, name) == (want_kind, want_name)
    _same(out, want_out)
    _same(grad, want_grad)


# -- small queries and index tables -----------------------------------------------------------
QUERIES: dict[str, Callable[[Any, Any], Any]] = {
    "argwhere": lambda lib, x: lib.argwhere(x),
    "argwhere_method": lambda lib, x: x.argwhere(),
    "argwhere_0d": lambda lib, x: (lib.argwhere(x[0, 0]), lib.argwhere(x[0, 1])),
    "isin": lambda lib, x: lib.isin(x, lib.tensor([2.0, 3.0])),
    "isin_number": lambda lib, x: (lib.isin(x, 2.0), lib.isin(2.0, x), lib.isin(7.0, x)),
    "isin_invert": lambda lib, x: lib.isin(x, lib.tensor([2.0, 3.0]), invert=True),
    "isin_int_float": lambda lib, x: lib.isin(lib.tensor([1, 2]), lib.tensor([2.0])),
    "isin_two_numbers": lambda lib, x: lib.isin(2.0, 3.0),
    "is_same_size": lambda lib, x: (x.is_same_size(x * 2), x.is_same_size(x[0])),
    "nbytes": lambda lib, x: (x.nbytes, x.itemsize, x[:, 0].nbytes, x.expand(3, 2, 2).nbytes,
                              lib.ones(3, dtype=lib.int32).itemsize),
    "reversed": lambda lib, x: reversed(x),
    "reversed_0d": lambda lib, x: reversed(x[0, 0]),
    "tril_indices": lambda lib, x: (lib.tril_indices(3, 2, 1), lib.tril_indices(4, 3), lib.tril_indices(0, 3),
                                    lib.tril_indices(3, 3, -5), lib.tril_indices(3, 3, dtype=lib.int32)),
    "triu_indices": lambda lib, x: (lib.triu_indices(3, 3, -1), lib.triu_indices(2, 4, 10), lib.triu_indices(4, 2, 1)),
    "tril_indices_negative": lambda lib, x: lib.tril_indices(-1, 3),
    "tril_indices_float": lambda lib, x: lib.tril_indices(3, 3, dtype=lib.float32),
}


@pytest.mark.parametrize("case", sorted(QUERIES))
def test_small_queries(case: str) -> None:
    got = []
    for lib in LIBS:
        x = lib.tensor([[1.0, 0.0], [2.0, 3.0]], requires_grad=True)
        kind, out = _outcome(lambda: QUERIES[case](lib, x))
        got.append((kind, out if kind == "ok" else None))
    (kind, out), (want_kind, want_out) = got
    assert kind == want_kind
    _same(out, want_out)


def test_reversed_is_differentiable_as_flip() -> None:
    got = []
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        y = reversed(x)
        (g,) = lib.autograd.grad((y * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum(), x)
        got.append((y.grad_fn.name(), g))
    _same(*got)
# -- index_put (out of place) ------------------------------------------------------------------
INDEX_PUT: dict[str, Callable[[Any, Any, Any], Any]] = {
    "rows": lambda lib, x, v: x.index_put((lib.tensor([0, 2]),), v),
    "accumulate": lambda lib, x, v: lib.index_put(x, (lib.tensor([0, 0]),), v[0], accumulate=True),
    "pairs": lambda lib, x, v: x.index_put((lib.tensor([0, 2]), lib.tensor([1, 0])), v),
    "number_like": lambda lib, x, v: x.index_put((lib.tensor([1]),), lib.tensor(5.0, dtype=lib.float64)),
    "mask": lambda lib, x, v: x.index_put((x > 2,), lib.tensor(-1.0, dtype=lib.float64)),
    "out_of_range": lambda lib, x, v: x.index_put((lib.tensor([5]),), v),
    "dtype_mismatch": lambda lib, x, v: x.index_put((lib.tensor([0]),), v.float()),
}


@pytest.mark.parametrize("case", sorted(INDEX_PUT))
def test_index_put(case: str) -> None:
    got = []
    for lib in LIBS:
        x = lib.arange(6.0, dtype=lib.float64).reshape(2, 3).t().requires_grad_()
        v = lib.tensor([7.0, 8.0], dtype=lib.float64, requires_grad=True)
        kind, out = _outcome(lambda: INDEX_PUT[case](lib, x, v))
        if kind != "ok":
            got.append((kind, None, None, None, x._version))
            continue
        w = lib.arange(6.0, dtype=lib.float64).reshape(3, 2)
        grads = lib.autograd.grad((out * w).sum(), (x, v), allow_unused=True)
        got.append((kind, out, (out.stride(), out._version, out.grad_fn.name()), grads, x._version))
    (kind, out, meta, grads, version), (want_kind, want_out, want_meta, want_grads, want_version) = got
    assert (kind, meta, version) == (want_kind, want_meta, want_version)
    _same(out, want_out)
    _same(grads, want_grads)


# -- tensor_split, hsplit/vsplit/dsplit, unflatten ---------------------------------------------
SPLITS: dict[str, Callable[[Any, Any], Any]] = {
    "sections": lambda lib, x: lib.tensor_split(x, 3, dim=1),
    "sections_uneven": lambda lib, x: lib.tensor_split(x, 4, dim=1),
    "sections_more_than_size": lambda lib, x: x.tensor_split(5, 0),
    "indices": lambda lib, x: lib.tensor_split(x, [1, 4], dim=1),
    "indices_crossing": lambda lib, x: lib.tensor_split(x, [2, 2, 9, 1], dim=-1),
    "indices_negative": lambda lib, x: lib.tensor_split(x, [-2], dim=1),
    "tensor_indices": lambda lib, x: x.tensor_split(lib.tensor([1, 5]), 1),
    "tensor_sections": lambda lib, x: x.tensor_split(lib.tensor(2), 1),
    "tensor_float": lambda lib, x: x.tensor_split(lib.tensor([1.0]), 1),
    "zero_sections": lambda lib, x: lib.tensor_split(x, 0),
    "hsplit": lambda lib, x: lib.hsplit(x, 2),
    "hsplit_indices": lambda lib, x: x.hsplit([1, 3]),
    "hsplit_1d": lambda lib, x: lib.hsplit(x[0], 3),
    "hsplit_not_dividing": lambda lib, x: lib.hsplit(x, 4),
    "vsplit": lambda lib, x: lib.vsplit(x, [1]),
    "vsplit_1d": lambda lib, x: lib.vsplit(x[0], 2),
    "dsplit": lambda lib, x: lib.dsplit(x.reshape(2, 2, 6), 3),
    "dsplit_2d": lambda lib, x: lib.dsplit(x, 2),
    "unflatten": lambda lib, x: (x.unflatten(1, (2, 3)),),
    "unflatten_infer": lambda lib, x: (lib.unflatten(x, -1, (-1, 2)),),
    "unflatten_transposed": lambda lib, x: (x.t().unflatten(0, (3, 2)),),
    "unflatten_bad": lambda lib, x: x.unflatten(1, (4, 2)),
    "unflatten_empty": lambda lib, x: x.unflatten(1, ()),
    "unflatten_two_inferred": lambda lib, x: x.unflatten(1, (-1, -1)),
}


@pytest.mark.parametrize("case", sorted(SPLITS))
def test_splits(case: str) -> None:
    got = []
    for lib in LIBS:
        x = lib.arange(24.0, dtype=lib.float64).reshape(4, 6).requires_grad_()
        kind, pieces = _outcome(lambda: SPLITS[case](lib, x))
        if kind != "ok":
            got.append((kind, pieces.split("\n")[-1][-40:] if lib is torch else pieces[-40:], None, None))
            continue
        names = [p.grad_fn.name() for p in pieces]
        loss = sum((p * (i + 1)).sum() for i, p in enumerate(pieces))
        (grad,) = lib.autograd.grad(loss, x)
        got.append((kind, names, pieces, grad))
    (kind, names, pieces, grad), (want_kind, want_names, want_pieces, want_grad) = got
    assert kind == want_kind
    if kind == "ok":
        assert names == want_names
        _same(pieces, want_pieces)
        _same(grad, want_grad)
        assert [p.stride() for p in pieces] == [p.stride() for p in want_pieces]


# -- real-dtype complex queries, heaviside, vdot, pinverse, pairwise_distance -------------------
MISC: dict[str, Callable[[Any, Any], Any]] = {
    "conj_is_self": lambda lib, x: (lib.conj(x) is x, x.conj() is x, lib.resolve_conj(x) is x, x.resolve_neg() is x),
    "real_is_self": lambda lib, x: (lib.real(x) is x, x.real is x, x.is_conj(), x.is_neg()),
    "imag": lambda lib, x: x.imag,
    "imag_function": lambda lib, x: lib.imag(x),
    "isreal": lambda lib, x: (lib.isreal(x), x.isreal()),
    "heaviside": lambda lib, x: lib.heaviside(lib.tensor([1.0, 0.0, float("nan"), -1.0]), lib.tensor(0.5)),
    "heaviside_int": lambda lib, x: lib.heaviside(lib.tensor([1, 0, -1]), lib.tensor([7])),
    "heaviside_dtypes": lambda lib, x: x.heaviside(lib.tensor([1.0], dtype=lib.float64)),
    "heaviside_number": lambda lib, x: lib.heaviside(x, 0.5),
    "vdot_sizes": lambda lib, x: lib.vdot(x, lib.ones(4)),
    "vdot_dtypes": lambda lib, x: lib.vdot(x, lib.ones(3, dtype=lib.float64)),
}


@pytest.mark.parametrize("case", sorted(MISC))
def test_misc(case: str) -> None:
    got = []
    for lib in LIBS:
        x = lib.tensor([1.0, -2.0, 0.0], requires_grad=True)
        kind, out = _outcome(lambda: MISC[case](lib, x))
        got.append((kind, out))
    (kind, out), (want_kind, want_out) = got
    assert kind == want_kind
    _same(out, want_out) if kind == "ok" else None
    assert kind != "ok" or True


GRADS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "vdot": lambda lib, x, y: lib.vdot(x[0], y[0]),
    "vdot_method": lambda lib, x, y: x[1].vdot(y[1].detach()),
    "pinverse": lambda lib, x, y: lib.pinverse(x),
    "pinverse_rcond": lambda lib, x, y: x.pinverse(rcond=0.5),
    "pairwise_distance": lambda lib, x, y: lib.pairwise_distance(x, y, p=3),
    "heaviside": lambda lib, x, y: lib.heaviside(x, y),
}


@pytest.mark.parametrize("case", sorted(GRADS))
def test_misc_gradients(case: str) -> None:
    got = []
    for lib in LIBS:
        x = lib.tensor([[1.0, 2.0, 0.5], [3.0, 4.0, -1.0]], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([[0.5, -2.0, 1.5], [1.0, 0.0, 2.0]], dtype=lib.float64, requires_grad=True)
        out = GRADS[case](lib, x, y)
        kind, grads = _outcome(lambda: lib.autograd.grad(out.sum(), (x, y), allow_unused=True))
        got.append((out.grad_fn.name(), out, kind, grads if kind == "ok" else grads[:40]))
    (name, out, kind, grads), (want_name, want_out, want_kind, want_grads) = got
    assert (name, kind) == (want_name, want_kind)
    np.testing.assert_allclose(out.detach().numpy(), want_out.detach().numpy(), rtol=1e-12, atol=1e-15)
    if kind == "ok":
        for g, w in zip(grads, want_grads):
            assert (g is None) == (w is None)
            if w is not None:
                np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-12, atol=1e-14)
    else:
        assert grads == want_grads


@pytest.mark.parametrize("values", [[3, 1, 2, 1, 3, 7, -1, 7], [3.0, 1, 2, 1, 3, 7, -1, 7, 0.5], [True, False, True]])
def test_unique_unsorted_matches_pytorch(values: list[Any]) -> None:
    got = []
    for lib in LIBS:
        t = lib.tensor(values)
        got.append([r.tolist() for r in lib.unique(t, sorted=False, return_inverse=True, return_counts=True)])
        got.append([r.tolist() for r in lib.unique(t.reshape(-1, 1) if len(values) % 2 else t.reshape(-1, 2),
                                                   sorted=False, return_inverse=True, return_counts=True, dim=0)])
    assert got[:2] == got[2:]


# -- fill_diagonal_, unique_consecutive, nextafter, mvlgamma, sum_to_size ----------------------
MORE: dict[str, Callable[[Any], Any]] = {
    "fill_diagonal": lambda L: (lambda x: (x.fill_diagonal_(2.0) is x, x))(L.zeros(5, 3)),
    "fill_diagonal_wrap": lambda L: L.zeros(7, 3).fill_diagonal_(1, wrap=True),
    "fill_diagonal_wide": lambda L: L.zeros(2, 4).fill_diagonal_(1, wrap=True),
    "fill_diagonal_3d": lambda L: L.zeros(2, 2, 2).fill_diagonal_(1),
    "fill_diagonal_transposed": lambda L: L.zeros(3, 4).t().fill_diagonal_(5),
    "fill_diagonal_unequal": lambda L: L.zeros(2, 3, 2).fill_diagonal_(1),
    "fill_diagonal_1d": lambda L: L.zeros(3).fill_diagonal_(1),
    "unique_consecutive": lambda L: L.unique_consecutive(L.tensor([1, 1, 2, 2, 3, 1, 1, 2])),
    "unique_consecutive_all": lambda L: L.tensor([1, 1, 2, 2, 3, 1, 1, 2]).unique_consecutive(
        return_inverse=True, return_counts=True),
    "unique_consecutive_dim": lambda L: L.unique_consecutive(L.tensor([[1, 2], [1, 2], [3, 4]]), dim=0,
                                                             return_counts=True),
    "unique_consecutive_2d_flat": lambda L: L.unique_consecutive(L.tensor([[1, 1], [1, 2]]), return_inverse=True),
    "nextafter": lambda L: L.nextafter(L.tensor([1.0, 2.0, 0.0], dtype=L.float64), L.tensor([2.0, 1.0, -1.0], dtype=L.float64)),
    "sum_to_size": lambda L: (L.ones(2, 3).sum_to_size(1, 3), L.ones(2, 3).sum_to_size((3,)), L.ones(2, 3).sum_to_size(2, 3)),
    "sum_to_size_bad": lambda L: L.ones(2, 3).sum_to_size(2, 2),
}


@pytest.mark.parametrize("case", sorted(MORE))
def test_more(case: str) -> None:
    (kind, out), (want_kind, want_out) = (_outcome(lambda: MORE[case](lib)) for lib in LIBS)
    assert kind == want_kind
    _same(out, want_out)


def test_fill_diagonal_and_mvlgamma_gradients() -> None:
    got = []
    for lib in LIBS:
        x = lib.tensor(np.arange(12.0).reshape(4, 3), requires_grad=True)
        y = x.clone().fill_diagonal_(0.5, wrap=True)
        z = lib.tensor([2.5, 3.0, 4.25], dtype=lib.float64, requires_grad=True)
        m = lib.mvlgamma(z, 3)
        got.append((type(y.grad_fn).__name__, lib.autograd.grad((y * y).sum(), x)[0], m,
                    lib.autograd.grad(m.sum(), z)[0], x.sum_to_size(1, 3).grad_fn.name()))
    (name, gx, m, gz, sname), (wname, wgx, wm, wgz, wsname) = got
    assert (name, sname) == (wname, wsname)
    _same(gx, wgx)
    np.testing.assert_allclose(m.detach().numpy(), wm.detach().numpy(), rtol=1e-13)
    np.testing.assert_allclose(gz.detach().numpy(), wgz.detach().numpy(), rtol=1e-8)
