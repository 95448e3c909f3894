"""LayerNorm, Embedding, Unflatten, Hardtanh, BCE/BCE-with-logits, Huber, SmoothL1,
one_hot, cosine_similarity: against torch (float64), values, gradients, reprs, errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import jitgrad
import jitgrad.nn.functional as F
from jitgrad import nn
from jitgrad.autograd import gradcheck, gradgradcheck
from test_nn_functional import check

RNG = np.random.default_rng(2)


@pytest.mark.parametrize("shape, normalized", [((3, 4), (4,)), ((2, 3, 4), (3, 4))])
def test_layer_norm_matches_torch(shape, normalized):
    x, w, b = RNG.standard_normal(shape), RNG.standard_normal(normalized), RNG.standard_normal(normalized)
    check(lambda *a: F.layer_norm(a[0], normalized, a[1], a[2]),
          lambda *a: TF.layer_norm(a[0], normalized, a[1], a[2]), x, w, b, tol=1e-11)
    check(lambda a: F.layer_norm(a, normalized), lambda a: TF.layer_norm(a, normalized), x, tol=1e-11)
    xj = jitgrad.tensor(x, requires_grad=True)
    assert gradgradcheck(lambda a: F.layer_norm(a, normalized), (xj,))


def test_layer_norm_module_matches_torch():
    ours, theirs = nn.LayerNorm(4).double(), torch.nn.LayerNorm(4).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)
    assert repr(nn.LayerNorm((2, 3), bias=False)) == repr(torch.nn.LayerNorm((2, 3), bias=False))
    x = RNG.standard_normal((5, 4))
    np.testing.assert_allclose(ours(jitgrad.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-12, atol=1e-12)
    with pytest.raises(RuntimeError):
        ours(jitgrad.zeros(5, 3, dtype=jitgrad.float64))


def test_embedding_matches_torch_with_padding_idx():
    weight = RNG.standard_normal((6, 3))
    idx = np.array([[0, 2, 2], [5, 1, 0]])
    results = []
    for lib, f in ((jitgrad, F), (torch, TF)):
        w = lib.tensor(weight, requires_grad=True)
        out = f.embedding(lib.tensor(idx), w, padding_idx=2)
        out.pow(2).sum().backward()
        results.append((out.detach().numpy(), w.grad.detach().numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0])
    np.testing.assert_allclose(results[0][1], results[1][1])
    assert not results[0][1][2].any()  # the padding row gets no gradient


def test_embedding_module():
    jitgrad.manual_seed(0)
    e = nn.Embedding(10, 4, padding_idx=-1)
    assert e.padding_idx == 9 and not e.weight.detach().numpy()[9].any()
    assert repr(e) == repr(torch.nn.Embedding(10, 4, padding_idx=-1))
    assert list(e.state_dict()) == ["weight"]
    assert tuple(e(jitgrad.tensor([[1, 2], [3, 9]])).shape) == (2, 2, 4)
    with pytest.raises(IndexError):
        e(jitgrad.tensor([10]))
    with pytest.raises(RuntimeError):
        e(jitgrad.tensor([1.0]))
    with pytest.raises(AssertionError):
        nn.Embedding(3, 2, padding_idx=3)


def test_unflatten_and_hardtanh_modules():
    x = jitgrad.arange(24.0).reshape(2, 12)
    assert tuple(nn.Unflatten(1, (3, 4))(x).shape) == (2, 3, 4)
    assert tuple(nn.Unflatten(-1, (2, 6))(x).shape) == (2, 2, 6)
    assert repr(nn.Unflatten(1, (3, 4))) == repr(torch.nn.Unflatten(1, (3, 4)))
    assert repr(nn.Hardtanh(-2.0, 2.0)) == repr(torch.nn.Hardtanh(-2.0, 2.0))
    with pytest.raises(ValueError):
        nn.Hardtanh(1.0, 0.0)


def test_hardtanh_matches_torch_at_the_bounds():
    x = np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0])
    check(F.hardtanh, TF.hardtanh, x)
    check(lambda a: F.hardtanh(a, -0.5, 0.5), lambda a: TF.hardtanh(a, -0.5, 0.5), x)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_smooth_l1_and_huber_match_torch(reduction):
    a = RNG.standard_normal((4, 5)) * 2
    b = RNG.standard_normal((4, 5))
    b[0, 0], b[0, 1] = a[0, 0] - 0.5, a[0, 1] + 1.0  # exactly at beta / delta
    for beta in (1.0, 0.5, 0.0):
        check(lambda x, y: F.smooth_l1_loss(x, y, reduction=reduction, beta=beta),
              lambda x, y: TF.smooth_l1_loss(x, y, reduction=reduction, beta=beta), a, b)
    for delta in (1.0, 0.5):
        check(lambda x, y: F.huber_loss(x, y, reduction=reduction, delta=delta),
              lambda x, y: TF.huber_loss(x, y, reduction=reduction, delta=delta), a, b)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy_matches_torch(reduction):
    p = RNG.uniform(0.05, 0.95, (3, 4))
    y = RNG.uniform(0, 1, (3, 4))
    w = RNG.uniform(0.5, 2, (3, 4))
    check(lambda a, b, c: F.binary_cross_entropy(a, b, c, reduction=reduction),
          lambda a, b, c: TF.binary_cross_entropy(a, b, c, reduction=reduction), p, y, w, n_diff=2)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits_matches_torch(reduction):
    x = RNG.standard_normal((3, 4)) * 4
    x[0, 0] = 0.0
    y = (RNG.uniform(0, 1, (3, 4)) > 0.5).astype(np.float64)
    pos = RNG.uniform(0.5, 3, 4)
    check(lambda a, b, c: F.binary_cross_entropy_with_logits(a, b, reduction=reduction, pos_weight=c),
          lambda a, b, c: TF.binary_cross_entropy_with_logits(a, b, reduction=reduction, pos_weight=c),
          x, y, pos, n_diff=2)
    check(lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=reduction),
          lambda a, b: TF.binary_cross_entropy_with_logits(a, b, reduction=reduction), x, y)


def test_bce_errors_and_modules():
    with pytest.raises(RuntimeError):
        TF.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0]))
    with pytest.raises(RuntimeError):
        F.binary_cross_entropy(jitgrad.tensor([1.5]), jitgrad.tensor([1.0]))
    with pytest.raises(ValueError):
        TF.binary_cross_entropy_with_logits(torch.zeros(3), torch.zeros(2))
    with pytest.raises(ValueError):
        F.binary_cross_entropy_with_logits(jitgrad.zeros(3), jitgrad.zeros(2))
    ours = nn.BCEWithLogitsLoss(pos_weight=jitgrad.ones(3))
    theirs = torch.nn.BCEWithLogitsLoss(pos_weight=torch.ones(3))
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert list(nn.BCELoss(weight=jitgrad.ones(3)).state_dict()) == ["weight"]
    x = jitgrad.tensor([[0.2, -1.0, 3.0]], dtype=jitgrad.float64, requires_grad=True)
    y = jitgrad.tensor([[1.0, 0.0, 1.0]], dtype=jitgrad.float64)
    assert gradgradcheck(lambda a: F.binary_cross_entropy_with_logits(a, y), (x,))


def test_one_hot_matches_torch():
    t = np.array([[0, 3], [1, 1]])
    np.testing.assert_array_equal(F.one_hot(jitgrad.tensor(t)).detach().numpy(), TF.one_hot(torch.tensor(t)).detach().numpy())
    np.testing.assert_array_equal(F.one_hot(jitgrad.tensor(t), 6).detach().numpy(), TF.one_hot(torch.tensor(t), 6).detach().numpy())
    assert F.one_hot(jitgrad.tensor(t)).dtype == jitgrad.int64
    for bad, kw in (([-1], {}), ([3], {"num_classes": 2}), ([0.0], {})):
        with pytest.raises(RuntimeError):
            TF.one_hot(torch.tensor(bad), **kw)
        with pytest.raises(RuntimeError):
            F.one_hot(jitgrad.tensor(bad), **kw)


def test_cosine_similarity_matches_torch():
    a, b = RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5))
    check(F.cosine_similarity, TF.cosine_similarity, a, b)
    check(lambda x, y: F.cosine_similarity(x, y, dim=0), lambda x, y: TF.cosine_similarity(x, y, dim=0), a, b)
    xa = jitgrad.tensor(a, requires_grad=True)
    assert gradcheck(lambda x: F.cosine_similarity(x, jitgrad.tensor(b)), (xa,))
