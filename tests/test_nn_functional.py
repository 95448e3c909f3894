"""jitgrad.nn.functional against torch.nn.functional (float64): values, gradients,
gradients of gradients where the composition allows, and error types."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import jitgrad
import jitgrad.nn.functional as F
from jitgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)


def pair(array: np.ndarray, requires_grad: bool = True) -> tuple[jitgrad.Tensor, torch.Tensor]:
    ours = jitgrad.tensor(array.copy(), requires_grad=requires_grad and array.dtype == np.float64)
    theirs = torch.tensor(array.copy(), requires_grad=requires_grad and array.dtype == np.float64)
    return ours, theirs


def check(ours_fn, theirs_fn, *arrays: np.ndarray, grad: bool = True, tol: float = 1e-12,
          n_diff: int | None = None) -> None:
    """Same value and same gradient for every floating input among the first ``n_diff``."""
    n_diff = len(arrays) if n_diff is None else n_diff
    pairs = [pair(a, i < n_diff) for i, a in enumerate(arrays)]
    ours = ours_fn(*(p[0] for p in pairs))
    theirs = theirs_fn(*(p[1] for p in pairs))
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)
    assert tuple(ours.shape) == tuple(theirs.shape)
    if not grad:
        return
    seed = RNG.standard_normal(tuple(theirs.shape))
    ours.backward(jitgrad.tensor(seed))
    theirs.backward(torch.tensor(seed))
    for (o, t) in pairs:
        if t.requires_grad:
            np.testing.assert_allclose(o.grad.detach().numpy(), t.grad.detach().numpy(), rtol=tol, atol=tol)


X = RNG.standard_normal((4, 5)) * 3
X[0, 0] = 0.0  # the kink of relu / leaky_relu / elu


@pytest.mark.parametrize("name, ours, theirs", [
    ("relu", F.relu, TF.relu),
    ("sigmoid", F.sigmoid, torch.sigmoid),
    ("tanh", F.tanh, torch.tanh),
    ("softplus", F.softplus, TF.softplus),
    ("softplus_beta", lambda x: F.softplus(x, beta=2.0, threshold=3.0),
     lambda x: TF.softplus(x, beta=2.0, threshold=3.0)),
    ("silu", F.silu, TF.silu),
    ("elu", lambda x: F.elu(x, alpha=0.7), lambda x: TF.elu(x, alpha=0.7)),
    ("leaky_relu", lambda x: F.leaky_relu(x, 0.2), lambda x: TF.leaky_relu(x, 0.2)),
    ("gelu", F.gelu, TF.gelu),
    ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"), lambda x: TF.gelu(x, approximate="tanh")),
    ("softmax", lambda x: F.softmax(x, dim=1), lambda x: TF.softmax(x, dim=1)),
    ("log_softmax", lambda x: F.log_softmax(x, dim=0), lambda x: TF.log_softmax(x, dim=0)),
    ("normalize", F.normalize, TF.normalize),
    ("normalize_p1", lambda x: F.normalize(x, p=1.0, dim=0), lambda x: TF.normalize(x, p=1.0, dim=0)),
    ("dropout_eval", lambda x: F.dropout(x, 0.3, training=False),
     lambda x: TF.dropout(x, 0.3, training=False)),
])
def test_activation_matches_torch(name, ours, theirs):
    check(ours, theirs, X)


def test_softplus_large_inputs_have_finite_gradients():
    x = jitgrad.tensor([-800.0, -30.0, 0.0, 19.0, 21.0, 800.0], dtype=jitgrad.float64, requires_grad=True)
    F.softplus(x).sum().backward()
    assert np.isfinite(x.grad.detach().numpy()).all()


@pytest.mark.parametrize("fn", [F.softplus, F.silu, F.elu, F.leaky_relu,
                                lambda x: F.gelu(x, approximate="tanh"), F.normalize])
def test_composed_activation_gradgradcheck(fn):
    x = jitgrad.tensor(RNG.standard_normal((3, 4)) + 0.1, requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_gelu_exact_gradcheck():
    x = jitgrad.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    assert gradcheck(F.gelu, (x,))


def test_dropout_training_scales_survivors_and_is_seeded():
    x = jitgrad.ones(1000, dtype=jitgrad.float64, requires_grad=True)
    jitgrad.manual_seed(3)
    y = F.dropout(x, 0.25)
    values = set(np.round(y.detach().numpy(), 12).tolist())
    assert values <= {0.0, round(1 / 0.75, 12)}
    assert 150 < int((y.detach().numpy() == 0).sum()) < 350
    jitgrad.manual_seed(3)
    np.testing.assert_array_equal(F.dropout(x, 0.25).detach().numpy(), y.detach().numpy())
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.detach().numpy(), y.detach().numpy())
    assert (F.dropout(x, 1.0).detach().numpy() == 0).all()
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.dropout(x, 1.5)


def test_linear_matches_torch():
    w, b = RNG.standard_normal((3, 5)), RNG.standard_normal(3)
    check(F.linear, TF.linear, RNG.standard_normal((2, 4, 5)), w, b)
    check(lambda x, w: F.linear(x, w), lambda x, w: TF.linear(x, w), RNG.standard_normal(5), w)
    with pytest.raises(RuntimeError, match="linear"):
        F.linear(jitgrad.zeros(2, 4), jitgrad.zeros(3, 5))


@pytest.mark.parametrize("pad, mode, value", [
    ((1, 2), "constant", None), ((1, 2, 0, 1), "constant", 1.5), ((-1, 2, 1, -1), "constant", None),
    ((2, 1), "reflect", None), ((1, 2, 2, 1), "reflect", None),
    ((2, 3), "replicate", None), ((1, 1, 2, 0), "replicate", None),
    ((2, 1), "circular", None),
])
def test_pad_matches_torch(pad, mode, value):
    x = RNG.standard_normal((2, 3, 4))
    kwargs = {} if value is None else {"value": value}
    check(lambda t: F.pad(t, pad, mode, **kwargs), lambda t: TF.pad(t, pad, mode, **kwargs), x)


def test_pad_errors_match_torch():
    x, tx = pair(RNG.standard_normal((2, 3)))
    for args in [((1,),), ((1, 1, 1, 1, 1, 1),)]:
        with pytest.raises(RuntimeError):
            TF.pad(tx, *args)
        with pytest.raises(RuntimeError):
            F.pad(x, *args)


@pytest.mark.parametrize("kwargs", [
    dict(kernel_size=2), dict(kernel_size=3, stride=2), dict(kernel_size=3, stride=1, padding=1),
    dict(kernel_size=4, stride=2, padding=2, count_include_pad=False),
])
def test_avg_pool1d_matches_torch(kwargs):
    check(lambda t: F.avg_pool1d(t, **kwargs), lambda t: TF.avg_pool1d(t, **kwargs),
          RNG.standard_normal((2, 3, 9)))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_regression_losses_match_torch(name, reduction):
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    b[0, 0] = a[0, 0]  # l1's kink
    check(lambda x, y: getattr(F, name)(x, y, reduction=reduction),
          lambda x, y: getattr(TF, name)(x, y, reduction=reduction), a, b)


def test_mse_loss_warns_on_broadcast_and_rejects_bad_reduction():
    with pytest.warns(UserWarning, match="different to the input size"):
        F.mse_loss(jitgrad.zeros(3, 4), jitgrad.zeros(4))
    with pytest.raises(ValueError, match="foo is not a valid value"):
        F.mse_loss(jitgrad.zeros(3), jitgrad.zeros(3), reduction="foo")


TARGET = np.array([0, 3, 1, 3, 2, 0])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore", [-100, 3])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_class_indices(reduction, weighted, ignore, smoothing):
    logits, w = RNG.standard_normal((6, 4)), RNG.uniform(0.5, 2.0, 4)
    arrays = (logits, w) if weighted else (logits,)

    def run(lib_f, lib, x, *weight):
        return lib_f(x, lib.tensor(TARGET), weight=weight[0] if weight else None, ignore_index=ignore,
                     reduction=reduction, label_smoothing=smoothing)

    check(lambda *a: run(F.cross_entropy, jitgrad, *a), lambda *a: run(TF.cross_entropy, torch, *a), *arrays, n_diff=1)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_spatial_and_unbatched(reduction):
    x = RNG.standard_normal((2, 3, 4, 5))
    t = RNG.integers(0, 3, (2, 4, 5))
    w = RNG.uniform(0.5, 2.0, 3)
    check(lambda a, b: F.nll_loss(a, jitgrad.tensor(t), weight=b, reduction=reduction),
          lambda a, b: TF.nll_loss(a, torch.tensor(t), weight=b, reduction=reduction), x, w, n_diff=1)
    check(lambda a: F.cross_entropy(a, jitgrad.tensor(2), reduction=reduction),
          lambda a: TF.cross_entropy(a, torch.tensor(2), reduction=reduction), RNG.standard_normal(4))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_cross_entropy_probabilities(reduction, smoothing):
    x, p, w = RNG.standard_normal((2, 3, 4)), RNG.dirichlet(np.ones(3), (2, 4)).transpose(0, 2, 1), RNG.uniform(0.5, 2, 3)
    check(lambda a, b, c: F.cross_entropy(a, b, weight=c, reduction=reduction, label_smoothing=smoothing),
          lambda a, b, c: TF.cross_entropy(a, b, weight=c, reduction=reduction, label_smoothing=smoothing),
          x, np.ascontiguousarray(p), w, n_diff=2)


def test_cross_entropy_gradgradcheck():
    x = jitgrad.tensor(RNG.standard_normal((4, 3)), requires_grad=True)
    t = jitgrad.tensor([0, 2, 1, 2])
    assert gradgradcheck(lambda a: F.cross_entropy(a, t, label_smoothing=0.1), (x,))


@pytest.mark.parametrize("target, kwargs", [
    ([0, 1, 5], {}), ([0, 1], {}), ([0.0, 1.0, 2.0], {}), ([0, 1, 2], {"weight": [1.0, 1.0, 1.0]}),
    ([0, 1, 2], {"reduction": "foo"}),
])
def test_cross_entropy_errors_match_torch(target, kwargs):
    x = RNG.standard_normal((3, 4))
    errors = []
    for lib, f in ((torch, TF), (jitgrad, F)):
        kw = {k: (lib.tensor(v) if k == "weight" else v) for k, v in kwargs.items()}
        with pytest.raises(Exception) as info:
            f.cross_entropy(lib.tensor(x), lib.tensor(target), **kw)
        errors.append(type(info.value))
    assert errors[0] is errors[1] or issubclass(errors[1], errors[0])


def test_bad_target_changes_nothing():
    x = jitgrad.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    with pytest.raises(IndexError, match="Target 7 is out of bounds"):
        F.nll_loss(x, jitgrad.tensor([0, 7, 1]))
    assert x.grad is None and x._version == 0


def test_all_ignored_mean_is_nan_like_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = F.cross_entropy(jitgrad.zeros(2, 3, dtype=jitgrad.float64), jitgrad.tensor([-100, -100]))
    theirs = TF.cross_entropy(torch.zeros(2, 3, dtype=torch.float64), torch.tensor([-100, -100]))
    assert np.isnan(ours.item()) and np.isnan(theirs.item())


@pytest.mark.parametrize("kwargs", [
    dict(kernel_size=2), dict(kernel_size=3, stride=1), dict(kernel_size=3, stride=2, padding=1),
])
def test_max_pool1d_matches_torch(kwargs):
    check(lambda t: F.max_pool1d(t, **kwargs), lambda t: TF.max_pool1d(t, **kwargs),
          RNG.standard_normal((2, 3, 9)))
    with pytest.raises(RuntimeError):
        F.max_pool1d(jitgrad.zeros(2, 3, 2), 4)
