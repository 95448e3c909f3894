"""linalg.eigh / eigvalsh / svd / svdvals / qr and the SVD-based matrix norms against
PyTorch (float64). Eigenvectors and singular vectors are defined up to sign, so the programs
compare sign-invariant functions of them (squares, ``U @ Vh``, reconstructions)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from grad_oracle import check, check_error
from jitgrad.autograd import gradcheck, gradgradcheck

R = np.random.default_rng(99)


def randn(*shape: int) -> np.ndarray:
    return R.standard_normal(shape)


def sym(*shape: int) -> np.ndarray:
    a = R.standard_normal(shape)
    return a + np.swapaxes(a, -1, -2)


def eigh_invariants(lib, a):  # type: ignore[no-untyped-def]
    L, V = lib.linalg.eigh(a)
    return L, V * V, V @ (L.unsqueeze(-1) * V.mT)


def svd_invariants(full: bool):  # type: ignore[no-untyped-def]
    def program(lib, a):  # type: ignore[no-untyped-def]
        U, S, Vh = lib.linalg.svd(a, full_matrices=full)
        k = S.shape[-1]
        U, Vh = U[..., :k], Vh[..., :k, :]
        return S, U * U, Vh * Vh, U @ Vh if U.shape[-2] == Vh.shape[-1] else (U * S.unsqueeze(-2)) @ Vh

    return program


PROGRAMS = {
    "eigvalsh": (lambda lib, a: lib.linalg.eigvalsh(a), [sym(2, 4, 4)]),
    "eigvalsh_upper": (lambda lib, a: lib.linalg.eigvalsh(a, UPLO="U"), [randn(3, 3)]),
    "eigh": (eigh_invariants, [sym(2, 3, 3)]),
    "svdvals": (lambda lib, a: lib.linalg.svdvals(a), [randn(2, 4, 3)]),
    "svd_tall": (svd_invariants(False), [randn(2, 4, 3)]),
    "svd_wide": (svd_invariants(False), [randn(3, 5)]),
    "svd_square": (svd_invariants(False), [randn(3, 3)]),
    "svd_full": (svd_invariants(True), [randn(4, 3)]),
    "qr_tall": (lambda lib, a: tuple(lib.linalg.qr(a)), [randn(2, 4, 3)]),
    "qr_square_complete": (lambda lib, a: tuple(lib.linalg.qr(a, mode="complete")), [randn(3, 3)]),
    "pinv_tall": (lambda lib, a: lib.linalg.pinv(a), [randn(2, 4, 3)]),
    "pinv_wide": (lambda lib, a: lib.linalg.pinv(a), [randn(3, 5)]),
    "pinv_rank_deficient": (lambda lib, a: lib.linalg.pinv(a), [randn(4, 2) @ randn(2, 3)]),
    "pinv_atol": (lambda lib, a: lib.linalg.pinv(a, atol=1.0), [randn(4, 3)]),
    "pinv_rtol": (lambda lib, a: lib.linalg.pinv(a, rtol=0.3), [randn(3, 4)]),
    "matrix_norm_nuc": (lambda lib, a: lib.linalg.matrix_norm(a, "nuc"), [randn(2, 3, 4)]),
    "matrix_norm_2": (lambda lib, a: lib.linalg.matrix_norm(a, 2, dim=(2, 0), keepdim=True), [randn(2, 3, 4)]),
    "matrix_norm_-2": (lambda lib, a: lib.linalg.matrix_norm(a, -2), [randn(3, 3)]),
    "linalg_norm_2": (lambda lib, a: lib.linalg.norm(a, 2), [randn(3, 4)]),
    "norm_nuc": (lambda lib, a: lib.norm(a, "nuc"), [randn(3, 4)]),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_spectral_matches_torch(name: str) -> None:
    fn, arrays = PROGRAMS[name]
    check(fn, *arrays, rtol=1e-8)


@settings(max_examples=budget(15))
@given(batch=st.lists(st.integers(1, 3), max_size=2), m=st.integers(1, 4), n=st.integers(1, 4))
def test_svd_and_eigh_property(batch: list[int], m: int, n: int) -> None:
    check(svd_invariants(False), randn(*batch, m, n), rtol=1e-6)
    check(eigh_invariants, sym(*batch, n, n), rtol=1e-6)
    if m >= n:
        check(lambda lib, a: tuple(lib.linalg.qr(a)), randn(*batch, m, n), rtol=1e-6)


def test_numerical_second_derivatives() -> None:
    s = jitgrad.from_numpy(sym(3, 3)).requires_grad_()
    a = jitgrad.from_numpy(randn(4, 3)).requires_grad_()
    w = jitgrad.from_numpy(randn(3, 4)).requires_grad_()

    def symmetric(f):  # type: ignore[no-untyped-def]  # only one triangle is read
        return lambda x: f((x + x.mT) * 0.5)

    for fn, args in [
        (symmetric(lambda x: eigh_invariants(jitgrad, x)), (s,)),
        (lambda x: svd_invariants(False)(jitgrad, x), (a,)),
        (lambda x: svd_invariants(False)(jitgrad, x), (w,)),
        (lambda x: tuple(jitgrad.linalg.qr(x)), (a,)),
        (lambda x: jitgrad.linalg.matrix_norm(x, "nuc"), (a,)),
        (jitgrad.linalg.pinv, (a,)),
        (jitgrad.linalg.pinv, (w,)),
    ]:
        assert gradcheck(fn, args, atol=1e-5)
        assert gradgradcheck(fn, args, atol=1e-4)


def test_matrix_rank_matches_torch() -> None:
    import torch

    for a, kw in [(randn(2, 4, 3), {}), (randn(4, 2) @ randn(2, 3), {}), (randn(3, 3), {"atol": 1.0}),
                  (randn(3, 5), {"rtol": 0.5}), (np.zeros((2, 2)), {})]:
        ours = jitgrad.linalg.matrix_rank(jitgrad.from_numpy(a.copy()), **kw)
        theirs = torch.linalg.matrix_rank(torch.from_numpy(a.copy()), **kw)
        assert ours.dtype == jitgrad.int64 and ours.detach().numpy().tolist() == theirs.detach().numpy().tolist()


def test_results_are_named_tuples() -> None:
    a = jitgrad.from_numpy(sym(3, 3))
    res = jitgrad.linalg.eigh(a)
    assert res.eigenvalues is res[0] and res.eigenvectors is res[1]
    u = jitgrad.linalg.svd(a)
    assert (u.U, u.S, u.Vh) == tuple(u)
    q = jitgrad.linalg.qr(a)
    assert (q.Q, q.R) == tuple(q)


BAD = {
    "eigh_nonsquare": (lambda lib, a: lib.linalg.eigh(a), [randn(2, 3)], "linalg.eigh"),
    "eigh_int": (lambda lib, a: lib.linalg.eigh(a.long()), [randn(2, 2)], "linalg.eigh"),
    "eigh_uplo": (lambda lib, a: lib.linalg.eigh(a, UPLO="X"), [randn(2, 2)], "UPLO"),
    "svd_1d": (lambda lib, a: lib.linalg.svd(a), [randn(3)], "linalg.svd"),
    "pinv_1d": (lambda lib, a: lib.linalg.pinv(a), [randn(3)], "linalg.pinv"),
    "pinv_int": (lambda lib, a: lib.linalg.pinv(a.long()), [randn(2, 2)], "linalg.pinv"),
    "matrix_rank_int": (lambda lib, a: lib.linalg.matrix_rank(a.long()), [randn(2, 2)], "linalg.matrix_rank"),
    "qr_mode": (lambda lib, a: lib.linalg.qr(a, mode="full"), [randn(3, 3)], "mode"),
    "qr_r_backward": (lambda lib, a: lib.linalg.qr(a, mode="r")[1].sum().backward(), [randn(3, 3)], "mode='r'"),
    "qr_complete_tall_backward": (lambda lib, a: lib.linalg.qr(a, mode="complete")[0].sum().backward(),
                                  [randn(4, 3)], "complete"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_raises_like_torch(name: str) -> None:
    fn, arrays, word = BAD[name]
    err = check_error(fn, *arrays)
    assert word in str(err), (word, str(err))
