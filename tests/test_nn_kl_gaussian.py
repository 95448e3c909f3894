"""``kl_div``/``KLDivLoss``, ``gaussian_nll_loss``/``GaussianNLLLoss`` and
``pairwise_distance`` against PyTorch (float64): values, gradients of every input, and the
errors for bad reductions and variances (type and message)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch

import jitgrad

RNG = np.random.default_rng(0)
A, B, V = RNG.standard_normal((3, 4)), RNG.random((3, 4)) + 0.1, RNG.random((3, 4)) + 0.1

CASES: dict[str, Callable[[Any, Any, Any, Any], Any]] = {
    "kl_mean": lambda L, x, t, w: L.nn.functional.kl_div(x, t),
    "kl_batchmean": lambda L, x, t, w: L.nn.functional.kl_div(x, t, reduction="batchmean"),
    "kl_sum": lambda L, x, t, w: L.nn.functional.kl_div(x, t, reduction="sum"),
    "kl_none": lambda L, x, t, w: L.nn.functional.kl_div(x, t, reduction="none"),
    "kl_log_target": lambda L, x, t, w: L.nn.functional.kl_div(x, t.log(), reduction="batchmean", log_target=True),
    "kl_legacy": lambda L, x, t, w: L.nn.functional.kl_div(x, t, size_average=False),
    "kl_zero_target": lambda L, x, t, w: L.nn.functional.kl_div(x, t * (t > 0.5), reduction="sum"),
    "kl_bad_reduction": lambda L, x, t, w: L.nn.functional.kl_div(x, t, reduction="avg"),
    "kl_module": lambda L, x, t, w: L.nn.KLDivLoss(reduction="batchmean")(x, t),
    "kl_0d": lambda L, x, t, w: L.nn.functional.kl_div(x[0, 0], t[0, 0], reduction="batchmean"),
    "gaussian_mean": lambda L, x, t, w: L.nn.functional.gaussian_nll_loss(x, t, w),
    "gaussian_full_sum": lambda L, x, t, w: L.nn.functional.gaussian_nll_loss(x, t, w, full=True, reduction="sum"),
    "gaussian_var_one_dim_short": lambda L, x, t, w: L.nn.functional.gaussian_nll_loss(x, t, w[:, 0]),
    "gaussian_var_column": lambda L, x, t, w: L.nn.functional.gaussian_nll_loss(x, t, w[:, :1], reduction="none"),
    "gaussian_var_float": lambda L, x, t, w: L.nn.functional.gaussian_nll_loss(x, t, 0.7),
    "gaussian_var_negative": lambda L, x, t, w: L.nn.functional.gaussian_nll_loss(x, t, w - 1),
    "gaussian_var_float_negative": lambda L, x, t, w: L.nn.functional.gaussian_nll_loss(x, t, -0.5),
    "gaussian_var_bad_size": lambda L, x, t, w: L.nn.functional.gaussian_nll_loss(x, t, w[:2]),
    "gaussian_bad_reduction": lambda L, x, t, w: L.nn.functional.gaussian_nll_loss(x, t, w, reduction="avg"),
    "gaussian_eps_clamps": lambda L, x, t, w: L.nn.functional.gaussian_nll_loss(x, t, w * 1e-8, eps=1e-3),
    "gaussian_module": lambda L, x, t, w: L.nn.GaussianNLLLoss(full=True)(x, t, w),
    "pairwise": lambda L, x, t, w: L.nn.functional.pairwise_distance(x, t),
    "pairwise_p1_keepdim": lambda L, x, t, w: L.nn.functional.pairwise_distance(x, t, p=1, keepdim=True),
    "pairwise_broadcast": lambda L, x, t, w: L.nn.functional.pairwise_distance(x[0], t),
    "pairwise_0d": lambda L, x, t, w: L.nn.functional.pairwise_distance(x[0, 0], t[0, 0]),
    "pairwise_inf": lambda L, x, t, w: L.nn.functional.pairwise_distance(x, t, p=float("inf")),
}


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides")
@pytest.mark.parametrize("case", sorted(CASES))
def test_against_pytorch(case: str) -> None:
    got = []
    for lib in (jitgrad, torch):
        x, t, w = (lib.tensor(a, requires_grad=True) for a in (A, B, V))
        try:
            out = CASES[case](lib, x, t, w)
        except (ValueError, RuntimeError, TypeError) as e:
            got.append((type(e).__name__, str(e), [x.grad, t.grad, w.grad]))
            continue
        grads = lib.autograd.grad(out.sum(), (x, t, w), allow_unused=True)
        got.append((out.detach().numpy(), [None if g is None else g.detach().numpy() for g in grads]))
    if isinstance(got[1][0], str):
        assert got[0][:2] == got[1][:2]
        assert got[0][2] == [None, None, None]  # nothing was computed
        return
    (out, grads), (want, want_grads) = got
    assert out.shape == want.shape
    np.testing.assert_allclose(out, want, rtol=1e-13)
    for g, wg in zip(grads, want_grads):
        assert (g is None) == (wg is None)
        if wg is not None:
            np.testing.assert_allclose(g, wg, rtol=1e-12, atol=1e-15)


def test_kl_div_mean_warns_as_pytorch() -> None:
    for lib in (jitgrad, torch):
        with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
            lib.nn.functional.kl_div(lib.zeros(2, 3), lib.full((2, 3), 0.5))
