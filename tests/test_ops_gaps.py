"""The "not yet" names of COMPATIBILITY.md closed by issue 10, against PyTorch in float64:
value, gradient and gradient of gradient (``grad_oracle.check``), ``gradcheck``/``gradgradcheck``,
and bad input raising PyTorch's error family, naming the op, changing nothing."""

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

RNG = np.random.default_rng(10)


def _r(*shape):
    return RNG.standard_normal(shape)


# -- joins: concat, concatenate, hstack, vstack, dstack, column_stack, atleast_* -------------
JOINS = {
    "concat": (lambda lib, a, b: lib.concat([a, b], dim=1), (_r(2, 3), _r(2, 4))),
    "concat_neg_dim": (lambda lib, a, b: lib.concat((a, b), -2), (_r(2, 3), _r(1, 3))),
    "concatenate": (lambda lib, a, b: lib.concatenate([a, b], axis=0), (_r(2, 3), _r(4, 3))),
    "hstack_1d": (lambda lib, a, b: lib.hstack([a, b]), (_r(3), _r(2))),
    "hstack_2d": (lambda lib, a, b: lib.hstack([a, b]), (_r(3, 2), _r(3, 5))),
    "hstack_3d": (lambda lib, a, b: lib.hstack([a, b]), (_r(2, 1, 3), _r(2, 4, 3))),
    "hstack_0d": (lambda lib, a, b: lib.hstack([a, b]), (_r(), _r())),
    "vstack_1d": (lambda lib, a, b: lib.vstack([a, b]), (_r(3), _r(3))),
    "vstack_2d": (lambda lib, a, b: lib.vstack((a, b)), (_r(1, 3), _r(4, 3))),
    "vstack_0d": (lambda lib, a, b: lib.vstack([a, b]), (_r(), _r())),
    "dstack_1d": (lambda lib, a, b: lib.dstack([a, b]), (_r(3), _r(3))),
    "dstack_2d": (lambda lib, a, b: lib.dstack([a, b]), (_r(2, 3), _r(2, 3))),
    "dstack_3d": (lambda lib, a, b: lib.dstack([a, b]), (_r(2, 3, 1), _r(2, 3, 2))),
    "column_stack": (lambda lib, a, b: lib.column_stack([a, b]), (_r(3), _r(3, 2))),
    "column_stack_0d": (lambda lib, a, b: lib.column_stack([a, b]), (_r(), _r())),
    "atleast_1d": (lambda lib, a, b: lib.atleast_1d(a) * 2 + lib.atleast_1d(b), (_r(), _r(3))),
    "atleast_2d": (lambda lib, a, b: lib.atleast_2d(a) * lib.atleast_2d(b), (_r(3), _r(2, 3))),
    "atleast_3d": (lambda lib, a, b: lib.atleast_3d(a).sum() * lib.atleast_3d(b), (_r(3), _r(2, 3))),
    "atleast_3d_seq": (lambda lib, a, b: lib.atleast_3d([a, b])[1], (_r(), _r(4))),
}


@pytest.mark.parametrize("name", sorted(JOINS))
def test_joins_match_torch(name):
    program, arrays = JOINS[name]
    check(program, *arrays)


def test_joins_promote_and_keep_int():
    a = jitgrad.tensor([1, 2])
    b = jitgrad.tensor([0.5, 1.5], dtype=jitgrad.float64)
    out = jitgrad.hstack([a, b])
    assert out.dtype == jitgrad.float64 and out.tolist() == [1.0, 2.0, 0.5, 1.5]
    assert jitgrad.vstack([a, a]).dtype == jitgrad.int64


@pytest.mark.parametrize("op", ["hstack", "vstack", "dstack", "column_stack"])
def test_empty_join_raises_as_torch(op):
    err = check_error(lambda lib: getattr(lib, op)([]))
    assert op in str(err)


def test_join_errors_as_torch():
    err = check_error(lambda lib, a, b: lib.vstack([a, b]), _r(2, 3), _r(2, 4))
    assert str(err).startswith("vstack")
    check_error(lambda lib, a: lib.hstack(a), _r(2, 3))  # a tensor, not a sequence
    check_error(lambda lib, a: lib.concat([a, 1.0]), _r(2))


def test_join_gradcheck():
    a = jitgrad.tensor(_r(2, 3), dtype=jitgrad.float64, requires_grad=True)
    b = jitgrad.tensor(_r(3), dtype=jitgrad.float64, requires_grad=True)
    f = lambda a, b: jitgrad.vstack([a, b]).sin() * jitgrad.hstack([b, b])[:3]  # noqa: E731
    assert gradcheck(f, (a, b)) and gradgradcheck(f, (a, b))


# -- broadcasting ------------------------------------------------------------------------------
def test_broadcast_to_matches_torch():
    check(lambda lib, a: lib.broadcast_to(a, (4, 2, 3)) * lib.arange(3.0, dtype=lib.float64), _r(2, 1))
    check(lambda lib, a: lib.broadcast_to(a, (2, -1)).exp(), _r(3))
    check(lambda lib, a: a.broadcast_to((3, 3)).sin(), _r(1, 3))


def test_broadcast_to_is_a_view():
    a = jitgrad.zeros(3)
    v = jitgrad.broadcast_to(a, (2, 3))
    assert v._base is a and v.stride() == (0, 1)


def test_broadcast_tensors_match_torch():
    check(lambda lib, a, b, c: lib.broadcast_tensors(a, b, c), _r(2, 1), _r(3), _r(1, 1, 1))
    check(lambda lib, a, b: [t * 2 for t in lib.broadcast_tensors(a, b)], _r(4, 1), _r(1, 5))


@pytest.mark.parametrize("shapes", [((2, 1), (3,)), ((), (4,), (1, 1)), (3, (2, 1)), ((0,), (1,)),
                                    ((5, 1, 4), (3, 1))])
def test_broadcast_shapes_match_torch(shapes):
    ours = jitgrad.broadcast_shapes(*shapes)
    assert isinstance(ours, jitgrad.Size)
    assert tuple(ours) == tuple(torch.broadcast_shapes(*shapes))


def test_broadcast_errors_as_torch():
    for shapes in [((2, 3), (3, 2)), ((2,), (3,))]:
        with pytest.raises(RuntimeError) as theirs:
            torch.broadcast_shapes(*shapes)
        with pytest.raises(type(theirs.value), match="broadcast_shapes"):
            jitgrad.broadcast_shapes(*shapes)
    err = check_error(lambda lib, a, b: lib.broadcast_tensors(a, b), _r(2), _r(3))
    assert "broadcast_tensors" in str(err)
    check_error(lambda lib, a: lib.broadcast_to(a, (2, 2)), _r(3))


@settings(max_examples=budget(30), deadline=None)
@given(st.lists(st.lists(st.integers(1, 3), max_size=4), min_size=1, max_size=4))
def test_broadcast_shapes_hypothesis(shapes):
    shapes = [tuple(s) for s in shapes]
    try:
        expected = tuple(torch.broadcast_shapes(*shapes))
    except RuntimeError:
        with pytest.raises(RuntimeError):
            jitgrad.broadcast_shapes(*shapes)
        return
    assert tuple(jitgrad.broadcast_shapes(*shapes)) == expected


# -- inner -------------------------------------------------------------------------------------
@pytest.mark.parametrize("shapes", [((4,), (4,)), ((2, 3), (3,)), ((2, 3), (4, 3)),
                                    ((2, 1, 3), (5, 3)), ((), (3, 2)), ((3,), ())])
def test_inner_matches_torch(shapes):
    check(lambda lib, a, b: lib.inner(a, b), *(_r(*s) for s in shapes))
    check(lambda lib, a, b: a.inner(b), *(_r(*s) for s in shapes))


def test_inner_errors_and_gradcheck():
    err = check_error(lambda lib, a, b: lib.inner(a, b), _r(2, 3), _r(2))
    assert "inner" in str(err)
    a = jitgrad.tensor(_r(2, 3), dtype=jitgrad.float64, requires_grad=True)
    b = jitgrad.tensor(_r(4, 3), dtype=jitgrad.float64, requires_grad=True)
    assert gradcheck(jitgrad.inner, (a, b)) and gradgradcheck(jitgrad.inner, (a, b))


# -- division ----------------------------------------------------------------------------------
def test_true_divide_matches_torch():
    check(lambda lib, a, b: lib.true_divide(a, b), _r(3, 2), _r(2) + 3)
    check(lambda lib, a, b: a.true_divide(b), _r(3), _r(3) + 3)
    ours = jitgrad.true_divide(jitgrad.tensor([7, -7]), 2)
    theirs = torch.true_divide(torch.tensor([7, -7]), 2)
    assert ours.dtype.name == "float32" == str(theirs.dtype)[6:] and ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("a,b", [
    ([7, -7, 6, -6, 0], [2, 2, -4, -4, 3]),
    ([7.5, -7.5, 1.0, -0.0], [2.0, 2.0, -0.3, 5.0]),
    ([7, -7], [2.5, -2.5]),
])
def test_floor_divide_values_and_dtypes_as_torch(a, b):
    ours = jitgrad.floor_divide(jitgrad.tensor(a), jitgrad.tensor(b))
    theirs = torch.floor_divide(torch.tensor(a), torch.tensor(b))
    assert ours.dtype.name == str(theirs.dtype)[6:]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert jitgrad.tensor(a).floor_divide(3).tolist() == torch.tensor(a).floor_divide(3).tolist()
    assert jitgrad.floor_divide(jitgrad.tensor(a), 3).tolist() == torch.floor_divide(torch.tensor(a), 3).tolist()


def test_floor_divide_gradient_is_zero():
    """Recorded (as PyTorch, the result requires grad); the gradient is zero, as
    ``div(rounding_mode='floor')``'s (PyTorch raises: not implemented — a listed difference)."""
    x = jitgrad.tensor([3.0, -7.0], dtype=jitgrad.float64, requires_grad=True)
    y = jitgrad.floor_divide(x, 2.0)
    assert y.requires_grad and y.tolist() == [1.0, -4.0]
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


def test_floor_divide_errors_as_torch():
    err = check_error(lambda lib, a: lib.floor_divide(a, 0), np.array([7, 1]))
    assert "div" in str(err)
    check_error(lambda lib, a, b: lib.floor_divide(a, b), _r(2), _r(3))


# -- fmax, fmin --------------------------------------------------------------------------------
NAN = float("nan")


@pytest.mark.parametrize("op", ["fmax", "fmin"])
def test_fmax_fmin_match_torch(op):
    a = np.array([1.0, NAN, NAN, 2.0, 3.0, -1.0])
    b = np.array([NAN, 2.0, NAN, 2.0, 1.0, 4.0])  # ties at index 3: the gradient goes to input
    check(lambda lib, x, y: getattr(lib, op)(x, y), a, b)
    check(lambda lib, x, y: getattr(x, op)(y), _r(3, 1), _r(4))
    check(lambda lib, x, y: getattr(lib, op)(x, y) ** 2, _r(4), _r(4))


@pytest.mark.parametrize("op", ["fmax", "fmin"])
def test_fmax_fmin_int_and_errors(op):
    a, b = [1, 5, -3], [3, 2, -3]
    ours = getattr(jitgrad, op)(jitgrad.tensor(a), jitgrad.tensor(b))
    theirs = getattr(torch, op)(torch.tensor(a), torch.tensor(b))
    assert ours.dtype == jitgrad.int64 and ours.tolist() == theirs.tolist()
    mixed = getattr(jitgrad, op)(jitgrad.tensor(a), jitgrad.tensor([0.5, NAN, 9.0], dtype=jitgrad.float64))
    np.testing.assert_array_equal(mixed.numpy(), getattr(torch, op)(torch.tensor(a), torch.tensor([0.5, NAN, 9.0], dtype=torch.float64)).numpy())
    err = check_error(lambda lib, x, y: getattr(lib, op)(x, y), _r(2), _r(3))
    check_error(lambda lib, x: getattr(lib, op)(x, 1.0), _r(2))
    del err


def test_fmax_gradcheck():
    a = jitgrad.tensor(_r(5), dtype=jitgrad.float64, requires_grad=True)
    b = jitgrad.tensor(_r(5), dtype=jitgrad.float64, requires_grad=True)
    assert gradcheck(jitgrad.fmax, (a, b)) and gradgradcheck(jitgrad.fmin, (a, b))


# -- isclose, equal ----------------------------------------------------------------------------
INF = float("inf")
CLOSE_CASES = [
    ([1.0, 1.0, 1.0, NAN, INF, -INF, INF, 0.0], [1.0 + 1e-9, 1.0 + 1e-4, 1.1, NAN, INF, -INF, -INF, 1e-9]),
]


@pytest.mark.parametrize("kwargs", [{}, {"equal_nan": True}, {"rtol": 0.0, "atol": 0.0},
                                    {"rtol": 1e-3}, {"atol": 0.2}, {"rtol": 0.0, "atol": 1e-8}])
def test_isclose_matches_torch(kwargs):
    for a, b in CLOSE_CASES:
        ours = jitgrad.isclose(jitgrad.tensor(a, dtype=jitgrad.float64), jitgrad.tensor(b, dtype=jitgrad.float64), **kwargs)
        theirs = torch.isclose(torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64), **kwargs)
        assert ours.dtype == jitgrad.bool and ours.tolist() == theirs.tolist()
        assert jitgrad.tensor(a).isclose(jitgrad.tensor(b), **kwargs).tolist() == torch.tensor(a).isclose(torch.tensor(b), **kwargs).tolist()


def test_isclose_broadcasts_and_ints():
    ours = jitgrad.isclose(jitgrad.tensor([[1.0], [2.0]]), jitgrad.tensor([1.0, 2.0, 3.0]))
    assert ours.tolist() == torch.isclose(torch.tensor([[1.0], [2.0]]), torch.tensor([1.0, 2.0, 3.0])).tolist()
    for kwargs in ({}, {"rtol": 0, "atol": 0}, {"atol": 1}):
        assert (jitgrad.isclose(jitgrad.tensor([1, 2, 5]), jitgrad.tensor([1, 3, 3]), **kwargs).tolist()
                == torch.isclose(torch.tensor([1, 2, 5]), torch.tensor([1, 3, 3]), **kwargs).tolist())


def test_isclose_errors_as_torch():
    err = check_error(lambda lib, a, b: lib.isclose(a, b), _r(2), np.array([1, 2]))
    assert "isclose" in str(err) and "float64" in str(err)
    assert "rtol" in str(check_error(lambda lib, a: lib.isclose(a, a, rtol=-1.0), _r(2)))
    assert "atol" in str(check_error(lambda lib, a: lib.isclose(a, a, atol=-1.0), _r(2)))
    check_error(lambda lib, a, b: lib.isclose(a, b), _r(2), _r(3))
    check_error(lambda lib, a: lib.isclose(a, 1.0), _r(2))


@pytest.mark.parametrize("a,b", [
    ([1.0, 2.0], [1.0, 2.0]), ([1.0, 2.0], [1.0, 2.5]), ([1.0, 2.0], [[1.0, 2.0]]),
    ([NAN], [NAN]), ([], []), ([1.0, 2.0], [1, 2]),
])
def test_equal_matches_torch(a, b):
    ours = jitgrad.equal(jitgrad.tensor(a), jitgrad.tensor(b))
    assert ours is torch.equal(torch.tensor(a), torch.tensor(b))
    assert jitgrad.tensor(a).equal(jitgrad.tensor(b)) is ours


def test_equal_errors_as_torch():
    check_error(lambda lib, a: lib.equal(a, [1.0]), _r(1))


# -- queries, clone, detach, type_as -----------------------------------------------------------
def test_queries_match_torch():
    for lib in (jitgrad, torch):
        f, i = lib.zeros(2, 3, dtype=lib.float64), lib.zeros(4, dtype=lib.int64)
        assert lib.is_tensor(f) and not lib.is_tensor(np.zeros(2)) and not lib.is_tensor([1])
        assert lib.is_floating_point(f) and not lib.is_floating_point(i)
        assert not lib.is_complex(f) and not f.is_complex()
        assert lib.numel(f) == 6 and lib.numel(i) == 4 and lib.numel(lib.zeros(())) == 1
    for op in ("is_floating_point", "is_complex", "numel", "clone", "detach"):
        check_error(lambda lib: getattr(lib, op)([1.0]))


def test_clone_matches_torch():
    check(lambda lib, a: lib.clone(a) * 3, _r(2, 3))
    check(lambda lib, a: lib.clone(a.t()).exp(), _r(2, 3))
    a = jitgrad.tensor(_r(2, 3), dtype=jitgrad.float64, requires_grad=True)
    c = jitgrad.clone(a)
    assert c.grad_fn is not None and type(c.grad_fn).__name__ == "CloneBackward0"
    assert c._storage is not a._storage


def test_detach_matches_torch():
    a = jitgrad.tensor(_r(3), dtype=jitgrad.float64, requires_grad=True)
    d = jitgrad.detach(a * 2)
    assert not d.requires_grad and d.grad_fn is None
    d2 = jitgrad.detach(a)
    d2.zero_()  # shares storage, as PyTorch's
    assert a.tolist() == [0.0, 0.0, 0.0]


def test_type_as_matches_torch():
    check(lambda lib, a, b: a.type_as(b) * 2, _r(3), _r(2))
    check(lambda lib, a, b: a.float().type_as(b).sin(), _r(3), _r(2), rtol=1e-6)
    for lib in (jitgrad, torch):
        x = lib.tensor([1.7, -2.2])
        assert x.type_as(lib.tensor([1])).tolist() == [1, -2]
        assert x.type_as(x) is x
    check_error(lambda lib, a: a.type_as(1.0), _r(2))


# -- cholesky_solve ----------------------------------------------------------------------------
def _spd_factor(n, batch=(), upper=False):
    m = RNG.standard_normal(batch + (n, n))
    a = m @ np.swapaxes(m, -1, -2) + n * np.eye(n)
    L = np.linalg.cholesky(a)
    return np.swapaxes(L, -1, -2) if upper else L


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("shapes", [((3, 2), ()), ((4, 1), ()), ((2, 3, 2), (2,)), ((3, 2), (2,)),
                                    ((2, 3, 1), ())])
def test_cholesky_solve_matches_torch(upper, shapes):
    b_shape, batch = shapes
    L = _spd_factor(b_shape[-2], batch, upper)
    check(lambda lib, b, f: lib.cholesky_solve(b, f, upper=upper), _r(*b_shape), L)
    check(lambda lib, b, f: b.cholesky_solve(f, upper), _r(*b_shape), L)


def test_cholesky_solve_gradcheck():
    L = jitgrad.tensor(_spd_factor(3), dtype=jitgrad.float64, requires_grad=True)
    B = jitgrad.tensor(_r(3, 2), dtype=jitgrad.float64, requires_grad=True)
    # the forward reads one triangle; the gradient (PyTorch's) is for the whole matrix, so
    # gradcheck goes through tril, which numerical differences see too
    f = lambda b, m: jitgrad.cholesky_solve(b, m.tril())  # noqa: E731
    assert gradcheck(f, (B, L)) and gradgradcheck(f, (B, L))
    g = lambda b, m: jitgrad.cholesky_solve(b, m.triu(), upper=True)  # noqa: E731
    U = jitgrad.tensor(_spd_factor(3, upper=True), dtype=jitgrad.float64, requires_grad=True)
    assert gradcheck(g, (B, U)) and gradgradcheck(g, (B, U))


def test_cholesky_solve_errors_as_torch():
    L = _spd_factor(3)
    assert "cholesky_solve" in str(check_error(lambda lib, b, f: lib.cholesky_solve(b, f), _r(2, 2), L))
    check_error(lambda lib, b, f: lib.cholesky_solve(b, f), _r(3), L)
    check_error(lambda lib, b, f: lib.cholesky_solve(b, f), _r(3, 2), _r(3, 2))
    check_error(lambda lib, b, f: lib.cholesky_solve(b, f.float()), _r(3, 2), L)
    check_error(lambda lib, b, f: lib.cholesky_solve(b, f), _r(2, 3, 2), _spd_factor(3, (3,)))


# -- torch.special reductions ------------------------------------------------------------------
def test_special_reductions_match_torch():
    check(lambda lib, a: lib.special.logsumexp(a, 1), _r(3, 4))
    check(lambda lib, a: lib.special.logsumexp(a, (0, 1), keepdim=True), _r(3, 4))
    check(lambda lib, a: lib.special.softmax(a, 0), _r(3, 4))
    check(lambda lib, a: lib.special.log_softmax(a, -1), _r(3, 4))
    check(lambda lib, a: lib.special.softmax(a, 1, dtype=lib.float32), _r(2, 3), rtol=1e-6)


def test_broadcast_tensors_of_0_dim_and_same_shape_tensors():
    """0-dim inputs broadcast to 0-dim views; an input already of the broadcast shape is
    returned itself (PyTorch's ``x is a``), so a leaf stays a leaf."""
    for lib in (jitgrad, torch):
        a, b = lib.tensor(0.5, requires_grad=True), lib.tensor(1.5)
        x, y = lib.broadcast_tensors(a, b)
        assert x is a and y is b and x.shape == () and lib.broadcast_to(a, ()).shape == ()
        c = lib.ones(2, 1)
        x, y = lib.broadcast_tensors(a, c)
        assert y is c and x.grad_fn is not None and tuple(x.shape) == (2, 1)


def test_0_dim_tensor_formats_as_its_number():
    for lib in (jitgrad, torch):
        x = lib.tensor(0.25, requires_grad=True)
        assert f"{x:.3f}|{x}|{lib.tensor(3)}|{lib.tensor(True)}" == "0.250|0.25|3|True"
        with pytest.raises(TypeError, match="unsupported format string"):
            f"{lib.tensor([1.0, 2.0]):.3f}"
