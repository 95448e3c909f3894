"""Matrix products against PyTorch: every ``matmul`` dispatch (dot, mv, 1-D x 2-D, mm, folded
and broadcast batches), empty and strided operands, gradients and second derivatives, errors,
numerical gradient checks, a Hessian-vector product through matmul + softmax, Hypothesis
over shapes."""

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

RNG = np.random.default_rng(99)


def r(*shape, dtype=np.float64):
    return np.asarray(RNG.standard_normal(shape)).astype(dtype)


MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)),  # folded into one mm
    ((5, 2, 3), (3,)),  # folded into one mv
    ((2, 1, 2, 3), (3, 4)),
    ((3,), (5, 3, 4)),
    ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)),
    ((1, 2, 3), (5, 3, 4)),  # broadcast batch
    ((4, 1, 2, 3), (1, 3, 3, 2)),
    ((5, 2, 3), (2, 1, 3, 4)),
    ((2, 5, 2, 3), (3, 5)),
    # empty operands
    ((0,), (0,)),
    ((0, 3), (3, 4)),
    ((2, 0), (0, 4)),
    ((2, 3), (3, 0)),
    ((0, 3), (3,)),
    ((3, 2, 0), (0, 4)),
    ((0, 2, 3), (3, 4)),
    ((2, 0, 3), (2, 3, 4)),
    ((2, 3), (0, 3, 4)),
    ((3,), (2, 0, 3, 1)),
]


@pytest.mark.parametrize("sa, sb", MATMUL_SHAPES, ids=str)
def test_matmul_against_pytorch(sa, sb):
    check(lambda L, a, b: a @ b, r(*sa), r(*sb))


@pytest.mark.parametrize("sa, sb", MATMUL_SHAPES[:12], ids=str)
def test_matmul_float32(sa, sb):
    check(lambda L, a, b: L.matmul(a, b), r(*sa, dtype=np.float32), r(*sb, dtype=np.float32))


@pytest.mark.parametrize("sa, sb", MATMUL_SHAPES[:12], ids=str)
def test_matmul_int64_forward(sa, sb):
    a = RNG.integers(-5, 5, sa)
    b = RNG.integers(-5, 5, sb)
    check(lambda L, a, b: a.matmul(b), a, b)


CASES = {
    # strided operands (transposed, sliced, expanded)
    "mm_transposed": (lambda L, a, b: a.t() @ b.t(), r(3, 2), r(4, 3)),
    "mm_sliced": (lambda L, a, b: a[:, ::2] @ b[1:], r(2, 6), r(4, 5)),
    "mm_expanded": (lambda L, a, b: a.expand(3, 4) @ b, r(1, 4), r(4, 2)),
    "bmm_permuted": (lambda L, a, b: a.permute(2, 0, 1) @ b.transpose(0, 1), r(2, 3, 4), r(3, 4, 5)),
    "mv_column": (lambda L, a, b: a @ b[:, 0], r(2, 3), r(3, 2)),
    "dot_strided": (lambda L, a, b: a[::2] @ b[1::2], r(6), r(6)),
    "same_operand": (lambda L, a: a @ a, r(3, 3)),
    "same_operand_batch": (lambda L, a: a @ a.transpose(-1, -2), r(2, 3, 4)),
    "gram": (lambda L, a: (a.t() @ a).sum(), r(4, 3)),
    # the explicit products
    "dot": (lambda L, a, b: L.dot(a, b), r(4), r(4)),
    "mv": (lambda L, a, b: L.mv(a, b), r(2, 4), r(4)),
    "mm": (lambda L, a, b: L.mm(a, b), r(2, 4), r(4, 3)),
    "bmm": (lambda L, a, b: L.bmm(a, b), r(3, 2, 4), r(3, 4, 1)),
    "methods": (lambda L, a, b: a.mm(b) + a.matmul(b) + b.__rmatmul__(a), r(2, 4), r(4, 3)),
    "vector_methods": (lambda L, a, b: a.mv(b).dot(a.mv(b)), r(2, 4), r(4)),
    # only one operand differentiable
    "const_rhs": (lambda L, a, b: a @ b.detach(), r(5, 2, 3), r(3, 4)),
    "const_lhs": (lambda L, a, b: a.detach() @ b, r(5, 2, 3), r(5, 3, 4)),
    "int_rhs_float_lhs_cast": (lambda L, a, b: a @ b.double(), r(2, 3), np.arange(6).reshape(3, 2)),
    # chains
    "mlp": (lambda L, x, w1, w2: (x @ w1).softmax(1) @ w2, r(4, 3), r(3, 5), r(5, 2)),
    "attention": (
        lambda L, q, k, v: (q @ k.transpose(-2, -1)).softmax(-1) @ v,
        r(2, 3, 4), r(2, 5, 4), r(2, 5, 2),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_pytorch(name):
    program, *arrays = CASES[name]
    check(program, *arrays)


ERRORS = {
    "dot_size": (lambda L, a, b: a @ b, r(3), r(4)),
    "mv_size": (lambda L, a, b: a @ b, r(2, 3), r(4)),
    "vm_size": (lambda L, a, b: a @ b, r(3), r(4, 5)),
    "mm_size": (lambda L, a, b: a @ b, r(2, 3), r(4, 5)),
    "folded_size": (lambda L, a, b: a @ b, r(2, 2, 3), r(4)),
    "folded_mm_size": (lambda L, a, b: a @ b, r(2, 2, 3), r(4, 1)),
    "bmm_size": (lambda L, a, b: a @ b, r(2, 2, 3), r(2, 4, 5)),
    "batch_broadcast": (lambda L, a, b: a @ b, r(2, 2, 3), r(3, 3, 5)),
    "zero_dim": (lambda L, a, b: a[0, 0] @ b, r(2, 2), r(2)),
    "zero_dim_rhs": (lambda L, a, b: a @ b[0], r(2), r(2)),
    "dtype_mismatch_mm": (lambda L, a, b: a @ b, r(2, 3), r(3, 4, dtype=np.float32)),
    "dtype_mismatch_dot": (lambda L, a, b: a @ b, r(3), r(3, dtype=np.float32)),
    "dtype_mismatch_int": (lambda L, a, b: a @ b.long(), r(2, 3), r(3, 4)),
    "dtype_mismatch_bmm": (lambda L, a, b: a @ b, r(2, 2, 3), r(2, 3, 4, dtype=np.float32)),
    "bool": (lambda L, a, b: a.bool() @ b.bool(), r(2, 3), r(3, 4)),
    "bool_dot": (lambda L, a, b: a.bool() @ b.bool(), r(3), r(3)),
    "mm_not_matrix": (lambda L, a, b: L.mm(a, b), r(2, 2, 3), r(3, 4)),
    "bmm_not_batch": (lambda L, a, b: L.bmm(a, b), r(2, 3), r(3, 4)),
    "mv_not_vector": (lambda L, a, b: L.mv(a, b), r(2, 3), r(3, 1)),
    "dot_not_vector": (lambda L, a, b: L.dot(a, b), r(2, 3), r(3)),
    "not_a_tensor": (lambda L, a: a @ [1.0, 2.0], r(2)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    program, *arrays = ERRORS[name]
    check_error(program, *arrays)


def _chain(out):
    names, fn = [], out.grad_fn
    while fn is not None:
        names.append(fn.name())
        nxt = [f for f, _ in fn.next_functions if f is not None and "AccumulateGrad" not in f.name()]
        fn = nxt[0] if nxt else None
    return names


@pytest.mark.parametrize(
    "sa, sb",
    [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((5, 2, 3), (3,)),
     ((5, 2, 3), (5, 3, 4))],
    ids=str,
)
def test_graph_nodes_match_pytorch(sa, sb):
    """The same backward nodes, down to the product. (1-D @ 2-D differs in one name only:
    PyTorch squeezes in place, ``SqueezeBackward4``; jitgrad's squeeze is ``SqueezeBackward1``.
    2-D @ 3-D is computed as a broadcast bmm, where PyTorch folds it into a transposed mm.)"""
    ours = jitgrad.randn(*sa, requires_grad=True) @ jitgrad.randn(*sb, requires_grad=True)
    theirs = torch.randn(*sa, requires_grad=True) @ torch.randn(*sb, requires_grad=True)
    assert _chain(ours)[:2] == _chain(theirs)[:2]


def test_int_matmul_output_is_not_differentiable():
    out = jitgrad.tensor([[1, 2]]) @ jitgrad.tensor([[3], [4]])
    assert out.dtype == jitgrad.int64 and out.tolist() == [[11]] and out.grad_fn is None


# -- numerical gradients ---------------------------------------------------------------------
def _leaves(*arrays):
    return tuple(jitgrad.from_numpy(a.copy()).requires_grad_(True) for a in arrays)


NUMERICAL = {
    "dot": (lambda a, b: a @ b, (3,), (3,)),
    "mv": (lambda a, b: a @ b, (2, 3), (3,)),
    "vm": (lambda a, b: a @ b, (3,), (3, 2)),
    "mm": (lambda a, b: a @ b, (2, 3), (3, 2)),
    "folded": (lambda a, b: a @ b, (2, 2, 3), (3, 2)),
    "bmm": (lambda a, b: a @ b, (2, 2, 3), (2, 3, 2)),
    "broadcast": (lambda a, b: a @ b, (2, 1, 2, 3), (3, 3, 1)),
    "vector_batch": (lambda a, b: a @ b, (3,), (2, 3, 2)),
    "softmax_chain": (lambda a, b: (a @ b).softmax(-1) @ b.transpose(-1, -2), (2, 3), (3, 3)),
}


@pytest.mark.parametrize("name", sorted(NUMERICAL))
def test_gradcheck(name):
    fn, sa, sb = NUMERICAL[name]
    assert gradcheck(fn, _leaves(r(*sa), r(*sb)))


@pytest.mark.parametrize("name", sorted(NUMERICAL))
def test_gradgradcheck(name):
    fn, sa, sb = NUMERICAL[name]
    jitgrad.manual_seed(1)
    assert gradgradcheck(fn, _leaves(r(*sa), r(*sb)))


# -- Hessian-vector product --------------------------------------------------------------------
def test_hessian_vector_product_through_matmul_and_softmax():
    """H @ v for a two-layer softmax model's loss, by double backward, equals PyTorch's."""
    x, w1, w2, t = r(6, 4), r(4, 5), r(5, 3), r(6, 3)
    v1, v2 = r(4, 5), r(5, 3)

    def hvp(L, grad):
        X, T = L.from_numpy(x.copy()), L.from_numpy(t.copy())
        W1 = L.from_numpy(w1.copy()).requires_grad_(True)
        W2 = L.from_numpy(w2.copy()).requires_grad_(True)
        hidden = (X @ W1).softmax(1)
        loss = ((hidden @ W2).log_softmax(1) * T).sum() * -1.0 + (W1 * W1).sum() * 0.5
        g1, g2 = grad(loss, (W1, W2), create_graph=True)
        dot = (g1 * L.from_numpy(v1.copy())).sum() + (g2 * L.from_numpy(v2.copy())).sum()
        h1, h2 = grad(dot, (W1, W2))
        return (g1, g2, h1, h2)

    ours = hvp(jitgrad, jitgrad.autograd.grad)
    theirs = hvp(torch, torch.autograd.grad)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-11, atol=1e-12)


def test_hessian_of_quadratic_form_is_symmetric_part():
    """For f(x) = x^T A x, the Hessian is A + A^T: its columns by double backward."""
    a = r(4, 4)
    x = jitgrad.from_numpy(r(4)).requires_grad_(True)
    A = jitgrad.from_numpy(a.copy())
    (g,) = jitgrad.autograd.grad(x @ (A @ x), x, create_graph=True)
    for i in range(4):
        e = np.zeros(4)
        e[i] = 1.0
        (col,) = jitgrad.autograd.grad(g, x, jitgrad.from_numpy(e), retain_graph=True)
        np.testing.assert_allclose(col.numpy(), (a + a.T)[i], rtol=1e-12)


# -- Hypothesis over shapes ----------------------------------------------------------------------
@st.composite
def matmul_shapes(draw):
    n, k, m = draw(st.integers(0, 3)), draw(st.integers(0, 3)), draw(st.integers(0, 3))
    batch = draw(st.lists(st.integers(0, 3), max_size=2))

    def side(core):
        nb = draw(st.integers(0, len(batch)))
        b = [draw(st.sampled_from([s, 1])) for s in batch[len(batch) - nb:]]
        return tuple(b) + core

    a = (k,) if draw(st.booleans()) else side((n, k))
    b = (k,) if draw(st.booleans()) else side((k, m))
    if draw(st.integers(0, 9)) == 0:  # sometimes a mismatch
        b = b[:-2] + (k + 1,) + b[-1:] if len(b) >= 2 else (k + 1,)
    return a, b, draw(st.integers(0, 2**32 - 1))


@settings(max_examples=budget(60))
@given(matmul_shapes())
def test_hypothesis_matmul(case):
    sa, sb, seed = case
    rng = np.random.default_rng(seed)
    a, b = np.asarray(rng.standard_normal(sa)), np.asarray(rng.standard_normal(sb))
    try:
        torch.from_numpy(a) @ torch.from_numpy(b)
    except RuntimeError:
        check_error(lambda L, x, y: x @ y, a, b)
        return
    check(lambda L, x, y: x @ y, a, b)
