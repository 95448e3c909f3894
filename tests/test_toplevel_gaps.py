"""Top-level names numeric scripts reach for, side by side with PyTorch: the constants,
the old linear-algebra spellings (svd, qr, cholesky, cholesky_inverse, triangular_solve,
chain_matmul, nuclear_norm), normal / poisson / multinomial (shapes, dtypes, nodes and zero
gradients; the numbers themselves are jitgrad's), and the process-wide switches."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import jitgrad
from compat_helpers import both, both_close


def _spd(lib):
    return lib.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], dtype=lib.float64, requires_grad=True)


def _messages(f):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = f()
    return out, [str(w.message).split("\n")[0].split(" (Triggered internally")[0] for w in caught]


def test_constants():
    for name in ("pi", "e", "inf"):
        assert getattr(jitgrad, name) == getattr(torch, name)
    assert math.isnan(jitgrad.nan) and jitgrad.newaxis is None is torch.newaxis
    assert jitgrad.arange(3.0)[:, jitgrad.newaxis].shape == (3, 1)


@pytest.mark.parametrize("some", [True, False])
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4)])
def test_svd_gives_v_and_its_gradient(some, shape):
    def program(lib):
        a = lib.tensor(np.linspace(-1.0, 2.0, shape[0] * shape[1]).reshape(shape) ** 2 + np.eye(*shape),
                       requires_grad=True)
        U, S, V = lib.svd(a, some=some)
        k = min(shape)
        # a sign-invariant loss of the factors
        loss = S.sum() + (U[:, :k] * U[:, :k]).sum() * 0.0 + (U[:, :k] @ lib.diag(S) @ V[:, :k].T).pow(2).sum()
        loss.backward()
        none = lib.svd(a, compute_uv=False)
        return U.shape, V.shape, S, a.grad, none.U.abs().sum(), none.V.shape, none.S.grad_fn is not None
    both_close(program)


def test_legacy_spellings_match_and_warn_as_pytorch():
    def program(lib):
        a = _spd(lib)
        b = lib.tensor([[1.0], [2.0], [-1.0]], dtype=lib.float64)
        (q, r), w_qr = _messages(lambda: lib.qr(a))
        L, w_chol = _messages(lambda: lib.cholesky(a))
        U, _ = _messages(lambda: lib.cholesky(a, upper=True))
        inv = lib.cholesky_inverse(L)
        (x, clone), w_tri = _messages(lambda: lib.triangular_solve(b, L, upper=False))
        (xt, _), _ = _messages(lambda: lib.triangular_solve(b, U, upper=True, transpose=True))
        chain, w_chain = _messages(lambda: lib.chain_matmul(a, L, a))
        nuc, w_nuc = _messages(lambda: lib.nuclear_norm(a))
        total = (q.abs().sum() + r.abs().sum() + inv.sum() + x.sum() + xt.sum() + chain.sum() + nuc)
        total.backward()
        return (total, a.grad, clone, w_qr, w_chol, w_tri, w_chain, w_nuc, type(lib.qr(a)).__name__,
                type(lib.svd(a)).__name__, type(lib.triangular_solve(b, L, upper=False)).__name__,
                tuple(lib.svd(a).V.shape), lib.triangular_solve(b, L, upper=False).cloned_coefficient.shape)
    both_close(program)


def test_normal_forms_shapes_dtypes_nodes_and_zero_gradients():
    def program(lib):
        m = lib.tensor([[0.0], [1.0]], dtype=lib.float64, requires_grad=True)
        s = lib.tensor([1.0, 2.0, 0.5], dtype=lib.float64, requires_grad=True)
        draws = [lib.normal(m, 1.5), lib.normal(0.5, s), lib.normal(m, s), lib.normal(m)]
        sum(d.sum() for d in draws).backward()
        plain = lib.normal(2.0, 3.0, (2, 3))
        errors = []
        for bad in (lambda: lib.normal(m, -1.0), lambda: lib.normal(lib.zeros(2), lib.ones(3))):
            try:
                bad()
            except RuntimeError as e:
                errors.append(str(e).split(",")[0][:40])
        return ([(tuple(d.shape), str(d.dtype).split(".")[-1], d.grad_fn.name()) for d in draws], m.grad, s.grad,
                tuple(plain.shape), str(plain.dtype).split(".")[-1], errors)
    both(program)


def test_poisson_and_multinomial():
    def program(lib):
        rates = lib.tensor([0.5, 3.0, 10.0], dtype=lib.float64, requires_grad=True)
        p = lib.poisson(rates)
        p.sum().backward()
        w = lib.tensor([[0.1, 0.0, 0.9], [1.0, 1.0, 0.0]], dtype=lib.float64)
        picks = lib.multinomial(w, 2)
        with_replacement = w[0].multinomial(5, replacement=True)
        never_zero_weight = bool((picks[0] != 1).all()) and bool((picks[1] != 2).all())
        distinct = bool((picks[:, 0] != picks[:, 1]).all())
        try:
            lib.multinomial(w, 4)
        except RuntimeError as e:
            error = str(e)
        return (p.grad_fn.name(), rates.grad, bool((p == p.round()).all()), tuple(picks.shape), str(picks.dtype).split(".")[-1],
                tuple(with_replacement.shape), never_zero_weight, distinct, error)
    both(program)


def test_settings_remember_and_check():
    def program(lib):
        out = [lib.get_num_threads() >= 1, lib.get_float32_matmul_precision(), lib.are_deterministic_algorithms_enabled()]
        lib.use_deterministic_algorithms(True, warn_only=True)
        out += [lib.are_deterministic_algorithms_enabled(), lib.is_deterministic_algorithms_warn_only_enabled()]
        lib.use_deterministic_algorithms(False)
        lib.set_float32_matmul_precision("high")
        out.append(lib.get_float32_matmul_precision())
        lib.set_float32_matmul_precision("highest")
        before = lib.get_num_threads()
        lib.set_num_threads(1)
        out.append(lib.get_num_threads())
        lib.set_num_threads(before)
        out += [str(lib.get_default_device()), lib.typename(lib.ones(2, dtype=lib.float64)), lib.typename(3),
                lib.is_same_size(lib.ones(2, 3), lib.zeros(2, 3))]
        lib.set_default_device("cpu")
        lib.set_default_device(None)
        return out
    both(program)


def test_set_num_threads_reaches_openblas():
    """jitgrad's matrix products run on NumPy's OpenBLAS: the intra-op count reaches it (as
    PyTorch's reaches its BLAS); bad counts are refused and change nothing."""
    from jitgrad.kernels import _blas

    found = _blas._POLICY.found if _blas._POLICY.looked else _blas._find()
    if found is None:
        pytest.skip("NumPy without a bundled OpenBLAS")
    before, blas_before = jitgrad.get_num_threads(), found[1]()
    try:
        jitgrad.set_num_threads(1)
        assert (jitgrad.get_num_threads(), found[1]()) == (1, 1)
        for bad in (0, -1, True, 1.5, "2"):
            with pytest.raises(RuntimeError, match="set_num_threads expects a positive integer"):
                jitgrad.set_num_threads(bad)
            assert (jitgrad.get_num_threads(), found[1]()) == (1, 1)
        with _blas.one_blas_thread():  # a count set inside a held block takes effect after it
            jitgrad.set_num_threads(2)
            assert found[1]() == 1
        assert found[1]() == 2
    finally:
        jitgrad.set_num_threads(before)
        _blas.set_blas_threads(blas_before)


def test_einsum_sublist_form():
    def program(lib):
        a = lib.arange(24.0, dtype=lib.float64).reshape(2, 3, 4).requires_grad_()
        b = lib.arange(12.0, dtype=lib.float64).reshape(4, 3)
        outs = [lib.einsum(a, [0, 1, 2], [0, 2]), lib.einsum(a, [Ellipsis, 2], b, [2, 1], [Ellipsis, 1]),
                lib.einsum(b, [0, 1], b, [0, 1]), lib.einsum(a, [0, 1, 27], b, [27, 1])]
        sum(o.sum() for o in outs).backward()
        return outs, a.grad
    both(program)


def _ex_program(lib):
    a = lib.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], dtype=lib.float64, requires_grad=True)
    indefinite = lib.tensor([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]], dtype=lib.float64)
    singular = lib.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]], dtype=lib.float64)
    L, info = lib.linalg.cholesky_ex(a)
    U, _ = lib.linalg.cholesky_ex(a, upper=True)
    batch_info = lib.linalg.cholesky_ex(lib.stack([a.detach(), indefinite])).info
    inv, inv_info = lib.linalg.inv_ex(a)
    x, solve_info = lib.linalg.solve_ex(a, lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64))
    singular_infos = [lib.linalg.inv_ex(singular).info, lib.linalg.solve_ex(singular, singular[:, :1]).info]
    conds = [lib.linalg.cond(a, p) for p in (None, 2, -2, "fro", "nuc", float("inf"), 1, -1)]
    v = lib.linalg.vander(lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True), N=4)
    t = lib.arange(16.0, dtype=lib.float64).reshape(4, 2, 2) + 10 * lib.eye(4, dtype=lib.float64).reshape(4, 2, 2)
    tinv = lib.linalg.tensorinv(t, ind=1)
    tsol = lib.linalg.tensorsolve(t.reshape(2, 2, 2, 2), lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64))
    (L.sum() + U.sum() + inv.sum() + x.sum() + conds[0] + conds[2] + conds[4] + v.sum()).backward()
    errors = []
    for bad in (lambda: lib.linalg.cholesky_ex(indefinite, check_errors=True), lambda: lib.linalg.cond(a, 3)):
        try:
            bad()
        except RuntimeError as e:
            errors.append(isinstance(e, lib.linalg.LinAlgError))
    return (L, info, batch_info, inv, inv_info, x, solve_info, singular_infos, conds, v, tinv, tsol, a.grad,
            tuple(lib.linalg.diagonal(t, offset=1).shape), errors)


def test_linalg_ex_forms_cond_vander_tensorinv_tensorsolve():
    both_close(_ex_program)


def test_cond_by_matrix_norms_raises_in_pytorchs_backward():
    """PyTorch 2.13's cond for 'fro', inf, -inf, 1, -1 writes in place into what its backward
    saved; jitgrad's is differentiable: its gradient equals central differences."""
    a = torch.tensor([[4.0, 1.0], [1.0, 3.0]], dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        torch.linalg.cond(a, "fro").backward()
    for p in ("fro", float("inf"), 1):
        x = jitgrad.tensor([[4.0, 1.0], [1.5, 3.0]], dtype=jitgrad.float64, requires_grad=True)
        jitgrad.linalg.cond(x, p).backward()
        h, numeric = 1e-6, np.zeros((2, 2))
        for i in range(2):
            for j in range(2):
                d = np.zeros((2, 2))
                d[i, j] = h
                up = jitgrad.linalg.cond(jitgrad.tensor(x.detach().numpy() + d), p).item()
                down = jitgrad.linalg.cond(jitgrad.tensor(x.detach().numpy() - d), p).item()
                numeric[i, j] = (up - down) / (2 * h)
        np.testing.assert_allclose(x.grad.numpy(), numeric, rtol=1e-6, atol=1e-8)


def test_renorm():
    def program(lib):
        x = lib.tensor([[1.0, -2.0, 3.0], [0.1, 0.2, -0.1], [4.0, 0.0, -4.0]], dtype=lib.float64, requires_grad=True)
        outs = [lib.renorm(x, 2, 0, 1.5), x.renorm(1, 1, 2.0), x.renorm(float("inf"), 0, 0.5)]
        sum((o * lib.arange(9.0, dtype=lib.float64).reshape(3, 3)).sum() for o in outs).backward()
        return outs, x.grad
    both_close(program)


def test_dirac_init():
    def program(lib):
        return [lib.nn.init.dirac_(lib.empty(4, 2, 3, dtype=lib.float64)),
                lib.nn.init.dirac_(lib.empty(4, 2, 3, 3, dtype=lib.float64), groups=2),
                lib.nn.init.dirac_(lib.empty(2, 3, 1, 2, 2, dtype=lib.float64))]
    both(program)


def test_optimizer_step_hooks():
    def program(lib):
        p = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.Adam([p], lr=0.1)
        log = []
        opt.register_step_pre_hook(lambda o, args, kwargs: log.append(("pre", type(o).__name__, len(args))))
        handle = opt.register_step_post_hook(lambda o, args, kwargs: log.append(("post", p.detach().tolist())))
        for _ in range(2):
            opt.zero_grad()
            (p ** 2).sum().backward()
            opt.step()
            handle.remove()
        lbfgs = lib.optim.LBFGS([p], max_iter=2)
        lbfgs.register_step_pre_hook(lambda o, args, kwargs: log.append("lbfgs pre"))

        def closure():
            lbfgs.zero_grad()
            loss = (p ** 2).sum()
            loss.backward()
            return loss
        lbfgs.step(closure)
        return log
    both_close(program)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient(edge_order):
    def program(lib):
        f = lib.tensor([[1.0, 4.0, 9.0, 16.0, 30.0], [0.5, -1.0, 2.0, 0.0, 1.0], [2.0, 2.0, 3.0, 5.0, 8.0]],
                       dtype=lib.float64, requires_grad=True)
        coords = lib.tensor([0.0, 0.5, 1.5, 1.75, 3.0], dtype=lib.float64)
        outs = [*lib.gradient(f, edge_order=edge_order), *lib.gradient(f, spacing=0.25, dim=1, edge_order=edge_order),
                *lib.gradient(f, spacing=[2.0, 0.5], edge_order=edge_order),
                *lib.gradient(f, spacing=(coords,), dim=1, edge_order=edge_order),
                *lib.gradient(lib.tensor([1, 4, 9, 16]), edge_order=edge_order)]
        weights = lib.arange(15.0, dtype=lib.float64).reshape(3, 5)
        sum((o * weights).sum() for o in outs[:-1]).backward()
        return outs, f.grad
    both_close(program)


def test_vander_combinations_unravel_frexp_ldexp():
    def program(lib):
        x = lib.tensor([1.0, 2.0, -3.0], dtype=lib.float64, requires_grad=True)
        outs = [lib.combinations(x), lib.combinations(x, 3), lib.combinations(x, 2, with_replacement=True),
                lib.ldexp(x, lib.tensor([1, 0, 3]))]
        sum(o.sum() for o in outs).backward()
        # (torch.vander's backward raises "modified by an inplace operation" in PyTorch 2.13; jitgrad's
        # is differentiable, so only its values are compared)
        outs += [lib.vander(x.detach()), lib.vander(x.detach(), N=4, increasing=True)]
        m, e = lib.frexp(lib.tensor([0.0, 1.5, -10.0, 1e-300], dtype=lib.float64))
        return outs, x.grad, lib.unravel_index(lib.tensor([5, 0, 11, -1]), (3, 4)), m, e
    both(program)


def test_ldexp_gradient_with_a_negative_integer_exponent():
    """PyTorch 2.13's LdexpBackward0 computes 2 ** other in integers: a negative exponent
    gives a zero gradient (torch.ldexp(x, tensor([-2])) has gradient 0); jitgrad's is 2 ** -2."""
    x = torch.tensor([2.0], dtype=torch.float64, requires_grad=True)
    torch.ldexp(x, torch.tensor([-2])).sum().backward()
    assert x.grad.item() == 0.0
    y = jitgrad.tensor([2.0], dtype=jitgrad.float64, requires_grad=True)
    jitgrad.ldexp(y, jitgrad.tensor([-2])).sum().backward()
    assert y.grad.item() == 0.25


def test_scatter_family_addr_put():
    def program(lib):
        x = lib.arange(12.0, dtype=lib.float64).reshape(3, 4).requires_grad_()
        s = lib.tensor([10.0, 20.0, 30.0, 40.0], dtype=lib.float64, requires_grad=True)
        d = lib.tensor([-1.0, -2.0, -3.0], dtype=lib.float64, requires_grad=True)
        outs = [lib.select_scatter(x, s, 0, 1), x.slice_scatter(s[:2].reshape(1, 2).expand(3, 2), dim=1, start=1, end=4,
                                                                  step=2),
                lib.diagonal_scatter(x, d), x.diagonal_scatter(d[:2], offset=2),
                lib.addr(x, d, s, beta=0.5, alpha=2), x.addr(d, s),
                lib.put(x, lib.tensor([0, 5, -1]), d), x.put(lib.tensor([1, 1]), d[:2], accumulate=True)]
        weights = lib.arange(12.0, dtype=lib.float64).reshape(3, 4)
        sum((o * weights).sum() for o in outs).backward()
        y = lib.zeros(2, 3, dtype=lib.float64)
        y.put_(lib.tensor([4, 0]), lib.tensor([7.0, 8.0], dtype=lib.float64))
        return outs, x.grad, s.grad, d.grad, y, [lib.is_signed(lib.zeros(1, dtype=t)) for t in
                                                 (lib.uint8, lib.int8, lib.bool, lib.float32)]
    both(program)


def test_more_legacy_methods_and_random_fills():
    def program(lib):
        a = lib.tensor([[4.0, 1.0], [1.0, 3.0]], dtype=lib.float64)
        U, S, V = a.svd()
        L = lib.linalg.cholesky(a)
        lib.manual_seed(0)
        fills = [lib.empty(500, dtype=lib.float64).log_normal_(0.0, 0.5), lib.empty(500, dtype=lib.float64).cauchy_(),
                 lib.empty(500, dtype=lib.float64).geometric_(0.3)]
        return (S, L.cholesky_inverse(), a.qr(), a.triangular_solve(L)[0].shape,
                bool((fills[0] > 0).all()), bool((fills[2] >= 1).all()), bool((fills[2] == fills[2].round()).all()),
                fills[1].dtype == lib.float64)
    both_close(program)


def test_toplevel_nn_functions_take_the_top_levels_signatures():
    def program(lib):
        x = lib.linspace(-2, 2, 2 * 4 * 6, dtype=lib.float64).reshape(2, 4, 6).requires_grad_()
        w1 = lib.linspace(-1, 1, 3 * 4 * 3, dtype=lib.float64).reshape(3, 4, 3)
        img = x.reshape(2, 4, 2, 3)
        g, b = lib.linspace(0.5, 1.5, 4, dtype=lib.float64), lib.linspace(-0.1, 0.1, 4, dtype=lib.float64)
        rm, rv = lib.zeros(4, dtype=lib.float64), lib.ones(4, dtype=lib.float64)
        outs = [lib.conv1d(x, w1, None, 1, 1), lib.conv_transpose1d(x, w1.transpose(0, 1), None, 2, 1),
                lib.cosine_similarity(x[0], x[1], 0), lib.pdist(x[0]), lib.selu(x), lib.celu(x, 0.5),
                lib.hardshrink(x, 0.3), lib.threshold(x, 0.1, -5.0), lib.rrelu(x), lib.dropout(x, 0.5, False),
                lib.layer_norm(x, (6,), None, None, 1e-5, True), lib.group_norm(x, 2, g, b, 1e-5, True),
                lib.rms_norm(x, (6,)), lib.batch_norm(x, g, b, rm, rv, False, 0.1, 1e-5, True),
                lib.instance_norm(x, g, b, None, None, True, 0.1, 1e-5, True), lib.max_pool1d(x, 2),
                lib.avg_pool1d(x, 3, 1, 1), lib.adaptive_avg_pool1d(x, 4), lib.max_pool2d(img, 2),
                lib.pixel_shuffle(img, 2), lib.channel_shuffle(img, 2), lib.prelu(x, lib.tensor([0.2], dtype=lib.float64))]
        sum(o.sum() * (k + 1) for k, o in enumerate(outs)).backward()
        return outs, x.grad
    both_close(program)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2), (2, 3, 3)])
def test_lu_factorizations_and_gradients(shape):
    def program(lib):
        values = np.cos(np.arange(np.prod(shape)) * 1.7).reshape(shape) * 3 + np.eye(*shape[-2:])
        A = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        P, L, U = lib.linalg.lu(A)
        LU, piv, info = lib.linalg.lu_factor_ex(A)
        weights = lib.tensor(np.sin(np.arange(np.prod(LU.shape))).reshape(LU.shape), dtype=lib.float64)
        loss = (L * L.detach().exp()).sum() + (U ** 2).sum() + (LU * weights).sum()
        outs = [P, L, U, LU, piv, info, lib.lu_unpack(LU, piv)]
        if shape[-1] == shape[-2]:
            B = lib.tensor(np.arange(shape[-1] * 2.0).reshape(shape[-1], 2), dtype=lib.float64, requires_grad=True)
            sols = [lib.linalg.lu_solve(LU, piv, B), lib.linalg.lu_solve(LU, piv, B, adjoint=True),
                    lib.linalg.lu_solve(LU, piv, B.mT, left=False), lib.linalg.lu_solve(LU, piv, B.mT, left=False, adjoint=True)]
            loss = loss + sum((s * s).sum() for s in sols)
            outs += sols + [lib.linalg.lu_factor(A)]
        loss.backward()
        return outs, A.grad
    both_close(program, rtol=1e-10, atol=1e-12)


def test_lu_factor_of_a_singular_matrix():
    def program(lib):
        A = lib.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=lib.float64)
        info = lib.linalg.lu_factor_ex(A).info
        try:
            lib.linalg.lu_factor(A)
        except RuntimeError as e:
            return info, str(e)[:40]
    both(program)
