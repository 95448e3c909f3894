"""einsum, the product family, jitgrad.linalg, norms and cdist against PyTorch (float64):
values, gradients, gradients of gradients, numerical checks, Hypothesis over batch shapes,
and bad input (same error family as PyTorch, the op named, nothing changed)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from grad_oracle import check, check_error
from jitgrad.autograd import gradcheck, gradgradcheck

R = np.random.default_rng(1234)


def randn(*shape: int) -> np.ndarray:
    return R.standard_normal(shape)


def spd(*shape: int) -> np.ndarray:
    a = R.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


# -- einsum ----------------------------------------------------------------------------------
EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),  # implicit output
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),  # trace
    ("iij->j", [(3, 3, 2)]),
    ("ij->i", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("i,j", [(2,), (3,)]),
    ("i,i->", [(3,), (3,)]),
    ("...ij,...jk", [(5, 1, 2, 3), (4, 3, 2)]),  # broadcast ellipsis
    ("...ij->...", [(2, 3, 4)]),
    ("b...,b->...", [(2, 3, 4), (2,)]),
    ("bij,bjk->bik", [(1, 2, 3), (4, 3, 2)]),  # size-1 broadcast of a named subscript
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ij,ij->ij", [(2, 1), (1, 3)]),
    ("Ab,bA->A", [(2, 3), (3, 2)]),  # upper case letters
    ("i j , j -> i", [(2, 3), (3,)]),  # spaces
]


@pytest.mark.parametrize("equation,shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum_matches_torch(equation: str, shapes: list[tuple[int, ...]]) -> None:
    check(lambda lib, *t: lib.einsum(equation, *t), *[randn(*s) for s in shapes])


def test_einsum_operand_list_and_gradgradcheck() -> None:
    check(lambda lib, a, b: lib.einsum("ij,jk->ik", [a, b]), randn(2, 3), randn(3, 2))
    a = jitgrad.from_numpy(randn(3, 3)).requires_grad_()
    b = jitgrad.from_numpy(randn(3)).requires_grad_()
    assert gradcheck(lambda a, b: jitgrad.einsum("ii,i->i", a, b), (a, b))
    assert gradgradcheck(lambda a, b: jitgrad.einsum("ij,j,i->", a, b, b), (a, b))


@settings(max_examples=budget(25))
@given(
    batch_a=st.lists(st.integers(1, 3), max_size=2),
    batch_b=st.lists(st.integers(1, 3), max_size=2),
    n=st.integers(1, 3), k=st.integers(1, 3), m=st.integers(1, 3),
    ones=st.booleans(),
)
def test_einsum_batched_broadcast_property(batch_a: list[int], batch_b: list[int], n: int, k: int,
                                           m: int, ones: bool) -> None:
    if ones:  # make the batch dims broadcast against each other
        batch_b = [1 if i % 2 else s for i, s in enumerate(batch_b)]
        batch_a = batch_a[: len(batch_b)] if len(batch_a) > len(batch_b) else batch_a
        batch_a = [1] * len(batch_a)
    try:
        np.broadcast_shapes(tuple(batch_a), tuple(batch_b))
    except ValueError:
        return
    check(lambda lib, a, b: lib.einsum("...ij,...jk->...ik", a, b),
          randn(*batch_a, n, k), randn(*batch_b, k, m))


# -- products --------------------------------------------------------------------------------
PRODUCTS = {
    "outer": (lambda lib, a, b: lib.outer(a, b), [randn(3), randn(4)]),
    "ger": (lambda lib, a, b: a.ger(b), [randn(3), randn(2)]),
    "tensordot_int": (lambda lib, a, b: lib.tensordot(a, b), [randn(3, 4, 2), randn(4, 2, 3)]),
    "tensordot_lists": (lambda lib, a, b: lib.tensordot(a, b, dims=([1, 0], [0, 2])),
                        [randn(3, 4, 2), randn(4, 5, 3)]),
    "tensordot_0": (lambda lib, a, b: lib.tensordot(a, b, 0), [randn(2), randn(3)]),
    "kron": (lambda lib, a, b: lib.kron(a, b), [randn(2, 3), randn(3, 1, 2)]),
    "kron_method": (lambda lib, a, b: a.kron(b), [randn(2), randn(2, 2)]),
    "linalg_cross": (lambda lib, a, b: lib.linalg.cross(a, b), [randn(4, 3), randn(1, 3)]),
    "cross_dim": (lambda lib, a, b: lib.cross(a, b, dim=0), [randn(3, 4), randn(3, 4)]),
    "cross_method": (lambda lib, a, b: a.cross(b, dim=-1), [randn(2, 3), randn(2, 3)]),
    "addmm": (lambda lib, i, a, b: lib.addmm(i, a, b, beta=0.5, alpha=2),
              [randn(3), randn(2, 4), randn(4, 3)]),
    "addmm_beta0": (lambda lib, i, a, b: i.addmm(a, b, beta=0), [randn(2, 3), randn(2, 4), randn(4, 3)]),
    "addmv": (lambda lib, i, a, b: lib.addmv(i, a, b), [randn(2), randn(2, 4), randn(4)]),
    "baddbmm": (lambda lib, i, a, b: lib.baddbmm(i, a, b, alpha=3),
                [randn(2, 3), randn(5, 2, 4), randn(5, 4, 3)]),
    "addbmm": (lambda lib, i, a, b: lib.addbmm(i, a, b, beta=-1), [randn(2, 3), randn(5, 2, 4), randn(5, 4, 3)]),
    "vecdot": (lambda lib, a, b: lib.linalg.vecdot(a, b), [randn(2, 5, 3), randn(5, 3)]),
    "multi_dot": (lambda lib, a, b, c: lib.linalg.multi_dot([a, b, c]), [randn(3), randn(3, 4), randn(4)]),
    "matmul": (lambda lib, a, b: lib.linalg.matmul(a, b), [randn(2, 3, 4), randn(4, 2)]),
}


@pytest.mark.parametrize("name", list(PRODUCTS))
def test_products_match_torch(name: str) -> None:
    fn, arrays = PRODUCTS[name]
    check(fn, *arrays)


def test_addmm_beta0_ignores_nan_but_input_gets_zero_gradient() -> None:
    i = jitgrad.tensor([[math.nan]], dtype=jitgrad.float64, requires_grad=True)
    one = jitgrad.ones(1, 1, dtype=jitgrad.float64)
    out = jitgrad.addmm(i, one, one, beta=0)
    assert out.item() == 1.0
    (g,) = jitgrad.autograd.grad(out.sum(), i)
    assert g.detach().numpy().tolist() == [[0.0]]


# -- linalg: inv, solve, det, slogdet, cholesky, matrix_power ---------------------------------
LINALG = {
    "inv": (lambda lib, a: lib.linalg.inv(a), [randn(2, 3, 3)]),
    "inverse_method": (lambda lib, a: a.inverse(), [randn(3, 3)]),
    "solve_matrix": (lambda lib, a, b: lib.linalg.solve(a, b), [randn(2, 3, 3), randn(3, 2)]),
    "solve_vector": (lambda lib, a, b: lib.linalg.solve(a, b), [randn(3, 3), randn(3)]),
    "solve_batched_vector": (lambda lib, a, b: lib.linalg.solve(a, b), [randn(2, 3, 3), randn(2, 3)]),
    "solve_broadcast": (lambda lib, a, b: lib.linalg.solve(a, b), [randn(3, 3), randn(4, 2, 3, 1)]),
    "solve_right": (lambda lib, a, b: lib.linalg.solve(a, b, left=False), [randn(2, 3, 3), randn(4, 3)]),
    "solve_triangular_upper": (lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=True),
                               [randn(2, 3, 3) + 3 * np.eye(3), randn(3, 2)]),
    "solve_triangular_lower_right_unit": (
        lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=False, left=False, unitriangular=True),
        [randn(3, 3), randn(2, 4, 3)]),
    "det": (lambda lib, a: lib.linalg.det(a), [randn(2, 3, 3)]),
    "det_method": (lambda lib, a: a.det(), [randn(4, 4)]),
    "torch_det": (lambda lib, a: lib.det(a), [randn(1, 1)]),
    "slogdet": (lambda lib, a: tuple(lib.linalg.slogdet(a)), [randn(2, 3, 3)]),
    "slogdet_method": (lambda lib, a: a.slogdet()[1], [randn(3, 3)]),
    "logdet": (lambda lib, a: lib.logdet(a), [spd(2, 3, 3)]),
    "logdet_method_negative": (lambda lib, a: a.logdet(), [np.diag([-1.0, 2.0])]),
    "cholesky": (lambda lib, a: lib.linalg.cholesky(a), [spd(2, 3, 3)]),
    "cholesky_upper": (lambda lib, a: lib.linalg.cholesky(a, upper=True), [spd(4, 4)]),
    "matrix_power_3": (lambda lib, a: lib.linalg.matrix_power(a, 3), [randn(2, 3, 3)]),
    "matrix_power_6": (lambda lib, a: a.matrix_power(6), [randn(3, 3) / 2]),
    "matrix_power_1": (lambda lib, a: lib.linalg.matrix_power(a, 1), [randn(3, 3)]),
    "matrix_power_0": (lambda lib, a: lib.linalg.matrix_power(a, 0), [randn(2, 3, 3)]),
    "matrix_power_neg": (lambda lib, a: lib.linalg.matrix_power(a, -2), [randn(3, 3) + 3 * np.eye(3)]),
    "torch_matrix_power": (lambda lib, a: lib.matrix_power(a, 2), [randn(3, 3)]),
}


@pytest.mark.parametrize("name", list(LINALG))
def test_linalg_matches_torch(name: str) -> None:
    fn, arrays = LINALG[name]
    check(fn, *arrays, rtol=1e-9)


@settings(max_examples=budget(20))
@given(batch_a=st.lists(st.integers(1, 3), max_size=2), batch_b=st.lists(st.integers(1, 3), max_size=2),
       n=st.integers(1, 4), k=st.integers(1, 3), vector=st.booleans())
def test_solve_batch_broadcast_property(batch_a: list[int], batch_b: list[int], n: int, k: int,
                                        vector: bool) -> None:
    try:
        np.broadcast_shapes(tuple(batch_a), tuple(batch_b))
    except ValueError:
        return
    a = randn(*batch_a, n, n) + 2 * n * np.eye(n)  # well conditioned
    b = randn(*batch_a, n) if vector else randn(*batch_b, n, k)
    check(lambda lib, a, b: lib.linalg.solve(a, b), a, b, rtol=1e-9)


@settings(max_examples=budget(15))
@given(batch=st.lists(st.integers(1, 3), max_size=2), n=st.integers(1, 4))
def test_det_inv_cholesky_property(batch: list[int], n: int) -> None:
    a = randn(*batch, n, n)
    check(lambda lib, a: (lib.linalg.det(a), lib.linalg.inv(a)), a, rtol=1e-8)
    check(lambda lib, a: lib.linalg.cholesky(a), spd(*batch, n, n), rtol=1e-8)


def test_numerical_gradients_of_linalg() -> None:
    a = jitgrad.from_numpy(randn(2, 3, 3)).requires_grad_()
    b = jitgrad.from_numpy(randn(3, 2)).requires_grad_()
    s = jitgrad.from_numpy(spd(3, 3)).requires_grad_()
    for fn, args in [
        (jitgrad.linalg.inv, (a,)),
        (jitgrad.linalg.det, (a,)),
        (lambda a: jitgrad.linalg.slogdet(a).logabsdet, (a,)),
        (jitgrad.linalg.solve, (a, b)),
        # only the lower triangle is read: symmetrise as PyTorch's own tests do
        (lambda s: jitgrad.linalg.cholesky((s + s.transpose(-2, -1)) * 0.5), (s,)),
        (lambda a: jitgrad.linalg.matrix_power(a, -3), (a,)),
    ]:
        assert gradcheck(fn, args, atol=1e-5)
        assert gradgradcheck(fn, args, atol=1e-4)


def test_slogdet_result_is_a_named_tuple() -> None:
    a = jitgrad.from_numpy(np.array([[-2.0, 0.0], [0.0, 3.0]]))
    res = jitgrad.linalg.slogdet(a)
    sign, logabsdet = res
    assert res.sign is sign and res.logabsdet is logabsdet
    assert sign.item() == -1.0 and abs(logabsdet.item() - math.log(6.0)) < 1e-12


def test_singular_input_raises_linalgerror_naming_op_and_batch_element() -> None:
    a = np.stack([np.eye(2), np.zeros((2, 2))])
    for fn, op in [
        (lambda lib, a: lib.linalg.inv(a), "linalg.inv"),
        (lambda lib, a: lib.linalg.solve(a, lib.ones(2, 2, 1, dtype=a.dtype)), "linalg.solve"),
        (lambda lib, a: lib.linalg.matrix_power(a, -1), "linalg.inv"),
    ]:
        err = check_error(fn, a)
        assert isinstance(err, jitgrad.linalg.LinAlgError) and isinstance(err, RuntimeError)
        assert op in str(err) and "Batch element 1" in str(err) and "singular" in str(err)
    err = check_error(lambda lib, a: lib.linalg.cholesky(a), np.array([[1.0, 2.0], [2.0, 1.0]]))
    assert isinstance(err, jitgrad.linalg.LinAlgError)
    assert "linalg.cholesky" in str(err) and "leading minor of order 2" in str(err)


def test_singular_det_gradient_is_the_cofactor_matrix() -> None:
    """Deliberate difference: PyTorch 2.13 returns a zero gradient for a singular matrix
    (wrong: det is a polynomial, its gradient is the cofactor matrix); jitgrad returns the
    cofactors, which finite differences confirm."""
    cases = [
        (np.diag([0.0, 2.0, 3.0]), np.diag([6.0, 0.0, 0.0])),
        (np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([[4.0, -2.0], [-2.0, 1.0]])),
        (np.zeros((3, 3)), np.zeros((3, 3))),
    ]
    for a, cofactors in cases:
        x = jitgrad.from_numpy(a.copy()).requires_grad_()
        (g,) = jitgrad.autograd.grad(jitgrad.linalg.det(x), x)
        np.testing.assert_allclose(g.detach().numpy(), cofactors, atol=1e-12)
        assert gradcheck(jitgrad.linalg.det, (x,))
        t = torch.from_numpy(a.copy()).requires_grad_()
        assert not torch.autograd.grad(torch.linalg.det(t), t)[0].any()  # PyTorch's zeros
    batch = np.stack([np.array([[1.0, 2.0], [2.0, 4.0]]), np.diag([1.0, 2.0])])
    x = jitgrad.from_numpy(batch).requires_grad_()
    (g,) = jitgrad.autograd.grad(jitgrad.linalg.det(x).sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), [[[4, -2], [-2, 1]], [[2, 0], [0, 1]]], atol=1e-12)
    sign, logabs = jitgrad.linalg.slogdet(jitgrad.zeros(2, 2, dtype=jitgrad.float64))
    assert sign.item() == 0.0 and logabs.item() == -math.inf


# -- norms and cdist -------------------------------------------------------------------------
ORDS = [2, 1, 3, 0.5, 1.5, math.inf, -math.inf, -1, 0]


@pytest.mark.parametrize("ord", ORDS)
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), ((0, 2), True), (-1, True)])
def test_vector_norm_matches_torch(ord: float, dim: object, keepdim: bool) -> None:
    check(lambda lib, a: lib.linalg.vector_norm(a, ord, dim, keepdim), randn(2, 3, 4),
          double=ord not in PIECEWISE_LINEAR)


# their second derivative is zero: PyTorch returns a ZeroTensor the oracle can't read, so
# the second derivatives of these are checked numerically instead
PIECEWISE_LINEAR = (1, math.inf, -math.inf)


def test_piecewise_linear_norms_have_zero_second_derivative() -> None:
    x = jitgrad.from_numpy(randn(3, 4)).requires_grad_()
    for ord in PIECEWISE_LINEAR:
        assert gradgradcheck(lambda x: jitgrad.linalg.vector_norm(x, ord, 1), (x,))
        assert gradgradcheck(lambda x: jitgrad.linalg.matrix_norm(x, ord), (x,))


@pytest.mark.parametrize("ord", ORDS)
def test_vector_norm_gradient_at_zero_is_torchs_subgradient(ord: float) -> None:
    # a zero slice beside a nonzero one: the zero norm's gradient is 0, the other one's exact
    x = np.zeros((2, 3))
    x[1] = [1.0, -2.0, 0.0]
    if ord == 0:
        check(lambda lib, a: lib.linalg.vector_norm(a, ord, 1), x, double=False)
        return
    check(lambda lib, a: lib.linalg.vector_norm(a, ord, 1), x, double=ord == 2)


@pytest.mark.parametrize("ord", ["fro", 1, -1, math.inf, -math.inf])
def test_matrix_norm_matches_torch(ord: object) -> None:
    check(lambda lib, a: lib.linalg.matrix_norm(a, ord), randn(2, 3, 4), double=ord == "fro")
    check(lambda lib, a: lib.linalg.matrix_norm(a, ord, dim=(2, 0), keepdim=True), randn(2, 3, 4),
          double=False)  # PyTorch's double backward here hits its ZeroTensor


def test_linalg_norm_and_tensor_norm_match_torch() -> None:
    check(lambda lib, a: [lib.linalg.norm(a), lib.linalg.norm(a, dim=0), lib.linalg.norm(a[0], 3),
                          lib.linalg.norm(a, "fro"), lib.linalg.norm(a, math.inf),
                          lib.linalg.norm(a, -1, dim=(1, 0), keepdim=True), lib.linalg.norm(a, keepdim=True)],
          randn(3, 4))
    check(lambda lib, a: [a.norm(), a.norm(p=1, dim=1, keepdim=True), lib.norm(a, 3), a.norm(p="fro", dim=(0, 2)),
                          a.norm(math.inf, dim=-1), lib.norm(a, p=0.5)], randn(2, 3, 4))


def test_norm_of_zero_tensor_gradient_is_zero() -> None:
    for p in (2, 1, 3, 0.5, "fro", math.inf):
        check(lambda lib, a: a.norm(p=p), np.zeros((2, 2)), double=False)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, 1.5, math.inf, 0.0])
def test_cdist_matches_torch(p: float) -> None:
    # PyTorch has no double backward for cdist (_cdist_backward is not differentiable)
    check(lambda lib, a, b: lib.cdist(a, b, p), randn(2, 5, 3), randn(4, 3), double=False)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, math.inf])
def test_cdist_gradient_at_zero_distance(p: float) -> None:
    x1 = randn(3, 2)
    x2 = np.concatenate([x1[1:2], randn(2, 2)])  # row 1 of x1 is row 0 of x2: distance 0
    check(lambda lib, a, b: lib.cdist(a, b, p), x1, x2, double=False)


def test_cdist_double_backward_numerically() -> None:
    a = jitgrad.from_numpy(randn(3, 2)).requires_grad_()
    b = jitgrad.from_numpy(randn(4, 2)).requires_grad_()
    for p in (2.0, 3.0, 1.5):
        assert gradgradcheck(lambda a, b: jitgrad.cdist(a, b, p), (a, b), atol=1e-4)


@settings(max_examples=budget(20))
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), ord=st.sampled_from(ORDS),
       keepdim=st.booleans(), data=st.data())
def test_vector_norm_property(shape: list[int], ord: float, keepdim: bool, data: st.DataObject) -> None:
    dims = data.draw(st.lists(st.integers(0, len(shape) - 1), unique=True, max_size=len(shape)))
    check(lambda lib, a: lib.linalg.vector_norm(a, ord, tuple(dims) or None, keepdim), randn(*shape),
          double=ord not in PIECEWISE_LINEAR + (0,), rtol=1e-10)


# -- bad input -------------------------------------------------------------------------------
BAD = {
    "einsum_size_mismatch": (lambda lib, a, b: lib.einsum("ij,jk->ik", a, b), [randn(2, 3), randn(2, 2)], "einsum"),
    "einsum_too_many_subscripts": (lambda lib, a: lib.einsum("ijk->i", a), [randn(2, 3)], "einsum"),
    "einsum_operand_count": (lambda lib, a: lib.einsum("ij,jk->ik", a), [randn(2, 3)], "einsum"),
    "einsum_output_unknown": (lambda lib, a: lib.einsum("ij->k", a), [randn(2, 3)], "einsum"),
    "einsum_output_repeated": (lambda lib, a: lib.einsum("ij->ii", a), [randn(2, 2)], "einsum"),
    "einsum_dtype": (lambda lib, a: lib.einsum("ij,jk", a, a.float()), [randn(2, 2)], "einsum"),
    "einsum_bad_letter": (lambda lib, a: lib.einsum("i1", a), [randn(2, 3)], "einsum"),
    "einsum_stray_dot": (lambda lib, a: lib.einsum("i.j", a), [randn(2, 3)], "einsum"),
    "einsum_two_arrows": (lambda lib, a: lib.einsum("i->i->i", a), [randn(2)], "einsum"),
    "einsum_equation_type": (lambda lib, a: lib.einsum(1, a), [randn(2)], "einsum"),
    "cross_dtype": (lambda lib, a, b: lib.linalg.cross(a.float(), b), [randn(2, 3), randn(2, 3)], "dtype"),
    "vecdot_dtype": (lambda lib, a, b: lib.linalg.vecdot(a.float(), b), [randn(2, 3), randn(3)], "vecdot"),
    "multi_dot_one": (lambda lib, a: lib.linalg.multi_dot([a]), [randn(2, 3)], "multi_dot"),
    "multi_dot_3d": (lambda lib, a, b: lib.linalg.multi_dot([a, b]), [randn(2, 3, 3), randn(3, 3)], "first"),
    "tensordot_lists_len": (lambda lib, a, b: lib.tensordot(a, b, dims=([0], [0, 1])), [randn(2, 3), randn(3, 2)], "same length"),
    "tensordot_negative": (lambda lib, a, b: lib.tensordot(a, b, dims=-1), [randn(2, 3), randn(3, 2)], "dims"),
    "matrix_power_float_n": (lambda lib, a: lib.linalg.matrix_power(a, 1.5), [randn(2, 2)], "int"),
    "vector_norm_str_ord": (lambda lib, a: lib.linalg.vector_norm(a, "fro"), [randn(2, 2)], "ord"),
    "cholesky_nan": (lambda lib, a: lib.linalg.cholesky(a), [np.diag([1.0, math.nan])], "order 2"),
    "cholesky_batch_element": (lambda lib, a: lib.linalg.cholesky(a), [np.stack([np.eye(3), -np.eye(3)])], "Batch element 1"),
    "outer_2d": (lambda lib, a, b: lib.outer(a, b), [randn(2, 2), randn(2)], "outer"),
    "tensordot_mismatch": (lambda lib, a, b: lib.tensordot(a, b, 1), [randn(2, 3), randn(4)], "contracted"),
    "tensordot_dtype": (lambda lib, a, b: lib.tensordot(a, b.float(), 1), [randn(2, 3), randn(3)], "dtype"),
    "cross_len": (lambda lib, a, b: lib.linalg.cross(a, b), [randn(2, 4), randn(2, 4)], "linalg.cross"),
    "cross_ndim": (lambda lib, a, b: lib.linalg.cross(a, b), [randn(2, 3), randn(3)], "linalg.cross"),
    "addmm_shape": (lambda lib, i, a, b: lib.addmm(i, a, b), [randn(2, 2), randn(2, 2), randn(2, 3)], "addmm"),
    "addmm_dtype": (lambda lib, i, a, b: lib.addmm(i.float(), a, b), [randn(2, 2), randn(2, 2), randn(2, 2)], "addmm"),
    "mm_inner": (lambda lib, i, a, b: lib.addmm(i, a, b), [randn(2, 2), randn(2, 3), randn(2, 2)], "mat"),
    "inv_nonsquare": (lambda lib, a: lib.linalg.inv(a), [randn(3, 2, 3)], "linalg.inv"),
    "inv_1d": (lambda lib, a: lib.linalg.inv(a), [randn(3)], "linalg.inv"),
    "inv_int": (lambda lib, a: lib.linalg.inv(a.long()), [randn(2, 2)], "linalg.inv"),
    "det_int": (lambda lib, a: lib.linalg.det(a.long()), [randn(2, 2)], "linalg.det"),
    "solve_shapes": (lambda lib, a, b: lib.linalg.solve(a, b), [randn(3, 3), randn(4, 2)], "linalg.solve"),
    "solve_batch": (lambda lib, a, b: lib.linalg.solve(a, b), [randn(2, 3, 3), randn(4, 3, 1)], "linalg.solve"),
    "solve_dtype": (lambda lib, a, b: lib.linalg.solve(a, b.float()), [randn(3, 3), randn(3)], "linalg.solve"),
    "cholesky_nonsquare": (lambda lib, a: lib.linalg.cholesky(a), [randn(2, 3)], "linalg.cholesky"),
    "matrix_power_nonsquare": (lambda lib, a: lib.linalg.matrix_power(a, 2), [randn(2, 3)], "matrix_power"),
    "vector_norm_int": (lambda lib, a: lib.linalg.vector_norm(a.long()), [randn(3)], "vector_norm"),
    "vector_norm_inf_empty": (lambda lib, a: lib.linalg.vector_norm(a[:0], math.inf), [randn(3)], "inf"),
    "matrix_norm_1d": (lambda lib, a: lib.linalg.matrix_norm(a), [randn(3)], "matrix_norm"),
    "matrix_norm_ord": (lambda lib, a: lib.linalg.matrix_norm(a, 3), [randn(3, 3)], "matrix_norm"),
    "linalg_norm_3d_ord": (lambda lib, a: lib.linalg.norm(a, 2), [randn(2, 2, 2)], "linalg.norm"),
    "cdist_columns": (lambda lib, a, b: lib.cdist(a, b), [randn(2, 3), randn(2, 4)], "columns"),
    "cdist_1d": (lambda lib, a, b: lib.cdist(a, b), [randn(3), randn(2, 3)], "cdist"),
    "cdist_negative_p": (lambda lib, a, b: lib.cdist(a, b, -1.0), [randn(2, 3), randn(2, 3)], "cdist"),
    "cdist_int": (lambda lib, a, b: lib.cdist(a.long(), b.long()), [randn(2, 3), randn(2, 3)], "cdist"),
    "cdist_mode": (lambda lib, a, b: lib.cdist(a, b, compute_mode=None), [randn(2, 3), randn(2, 3)], "compute_mode"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_raises_like_torch(name: str) -> None:
    fn, arrays, word = BAD[name]
    err = check_error(fn, *arrays)
    assert word in str(err), (word, str(err))


def test_exports_and_methods() -> None:
    for name in jitgrad.linalg.__all__:
        assert hasattr(jitgrad.linalg, name) and hasattr(torch.linalg, name), name
    for name in ("einsum", "outer", "ger", "tensordot", "kron", "cross", "cdist", "addmm", "addmv",
                 "baddbmm", "addbmm", "matrix_power", "norm", "det", "slogdet", "logdet", "inverse"):
        assert name in jitgrad.__all__ and callable(getattr(jitgrad, name)), name
    a = jitgrad.from_numpy(spd(3, 3))
    np.testing.assert_allclose(a.cholesky().detach().numpy(), np.linalg.cholesky(a.detach().numpy()))


@st.composite
def einsum_programs(draw: st.DrawFn) -> tuple[str, list[tuple[int, ...]]]:
    """A random equation over letters a-d (repeats within an operand allowed), explicit or
    implicit output, with consistent sizes (some 1 where they may broadcast)."""
    sizes = {c: draw(st.integers(1, 3)) for c in "abcd"}
    terms = draw(st.lists(st.text("abcd", max_size=3), min_size=1, max_size=3))
    shapes = [tuple(sizes[c] for c in t) for t in terms]
    used = sorted(set("".join(terms)))
    if draw(st.booleans()):
        out = "".join(draw(st.permutations(used))[: draw(st.integers(0, len(used)))])
        return ",".join(terms) + "->" + out, shapes
    return ",".join(terms), shapes


@settings(max_examples=budget(40))
@given(program=einsum_programs())
def test_einsum_random_equations_property(program: tuple[str, list[tuple[int, ...]]]) -> None:
    equation, shapes = program
    check(lambda lib, *t: lib.einsum(equation, *t), *[randn(*s) for s in shapes])


@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist",
                                  "use_mm_for_euclid_dist_if_necessary"])
def test_cdist_euclidean_routes_match_torch(mode: str) -> None:
    # 30 rows: PyTorch's default takes the matrix-product route, as jitgrad's does
    a, b = randn(2, 30, 4), randn(1, 7, 4)
    check(lambda lib, a, b: lib.cdist(a, b, compute_mode=mode), a, b, double=False, rtol=1e-9)


@settings(max_examples=budget(20))
@given(sa=st.lists(st.integers(1, 3), max_size=3), sb=st.lists(st.integers(1, 3), max_size=3),
       data=st.data())
def test_kron_tensordot_cross_property(sa: list[int], sb: list[int], data: st.DataObject) -> None:
    check(lambda lib, a, b: lib.kron(a, b), randn(*sa), randn(*sb))
    n = data.draw(st.integers(0, min(len(sa), len(sb))))
    shared = sa[len(sa) - n:]  # the last n dims of a are the first n of b
    check(lambda lib, a, b: lib.tensordot(a, b, n), randn(*sa), randn(*shared, *sb[n:]))
    shape = sa + [3]
    other = [1 if data.draw(st.booleans()) else s for s in shape[:-1]] + [3]
    check(lambda lib, a, b: lib.linalg.cross(a, b), randn(*shape), randn(*other))


INPLACE = {
    "addmm_": (lambda lib, i, a, b: (i * 1).addmm_(a, b, beta=0.5, alpha=2), [randn(2, 3), randn(2, 4), randn(4, 3)]),
    "addmm_view": (lambda lib, i, a, b: (lambda base: (base[1:].addmm_(a, b), base)[1])(i * 1),
                   [randn(3, 3), randn(2, 4), randn(4, 3)]),
    "addmv_": (lambda lib, i, a, b: (i * 1).addmv_(a, b), [randn(2), randn(2, 4), randn(4)]),
    "baddbmm_": (lambda lib, i, a, b: (i * 1).baddbmm_(a, b, beta=0), [randn(5, 2, 3), randn(5, 2, 4), randn(5, 4, 3)]),
    "addbmm_": (lambda lib, i, a, b: (i * 1).addbmm_(a, b, alpha=-1), [randn(2, 3), randn(5, 2, 4), randn(5, 4, 3)]),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_products_match_torch(name: str) -> None:
    fn, arrays = INPLACE[name]
    check(fn, *arrays)


def test_inplace_products_refuse_what_torch_refuses() -> None:
    check_error(lambda lib, i, a, b: i.addmm_(a, b), randn(2, 3), randn(2, 4), randn(4, 3))  # a leaf
    err = check_error(lambda lib, i, a, b: i.detach().addmm_(a, b), randn(3), randn(2, 4), randn(4, 3))
    assert "addmm_" in str(err)


def test_two_outputs_of_one_node_as_roots_reach_the_inputs() -> None:
    """Engine regression: a node whose two outputs are both roots of ``grad`` used to count its
    edges twice, so its inputs never became ready and their gradients came back None."""
    a = jitgrad.from_numpy(randn(3, 3)).requires_grad_()
    sign, logabsdet = jitgrad.linalg.slogdet(a)
    one = jitgrad.ones((), dtype=jitgrad.float64)
    (g,) = jitgrad.autograd.grad([sign, logabsdet], [a], [one, one])
    np.testing.assert_allclose(g.detach().numpy(), np.linalg.inv(a.detach().numpy()).T, rtol=1e-12)
