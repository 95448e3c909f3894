"""In-place random fills (``uniform_``, ``normal_``, ``bernoulli_``, ``exponential_``,
``random_``), ``seed``/``get_rng_state``/``set_rng_state``, and ``nn.init``'s ``eye_``,
``orthogonal_``, ``trunc_normal_``: the numbers are jitgrad's generator's (not PyTorch's), so
the checks are distributions, reproducibility, and the in-place rules, beside PyTorch's."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import jitgrad
from grad_oracle import check_error

FILLS = {
    "uniform_": lambda t: t.uniform_(-2.0, 3.0),
    "normal_": lambda t: t.normal_(1.0, 0.5),
    "bernoulli_": lambda t: t.bernoulli_(0.3),
    "exponential_": lambda t: t.exponential_(2.0),
    "random_": lambda t: t.random_(0, 10),
    "random_to": lambda t: t.random_(10),
    "random_all": lambda t: t.random_(),
    "bernoulli_tensor": lambda t: t.bernoulli_(t.detach() * 0 + 0.5),
}
NODE = {"uniform_": "UniformBackward0", "normal_": "NormalBackward0", "bernoulli_": "BernoulliBackward2",
        "exponential_": "ExponentialBackward0", "random_": "RandomBackward0", "random_to": "RandomBackward1",
        "random_all": "RandomBackward2", "bernoulli_tensor": "BernoulliBackward1"}


@pytest.mark.parametrize("name", sorted(FILLS))
def test_fill_is_an_inplace_write(name):
    t = jitgrad.zeros(2000, dtype=jitgrad.float64)
    out = FILLS[name](t)
    assert out is t and t._version == 1
    assert t.dtype == jitgrad.float64 and t.shape == (2000,)


@pytest.mark.parametrize("name", sorted(FILLS))
def test_fill_refused_on_leaf_requiring_grad_as_torch(name):
    for lib in (jitgrad, torch):
        leaf = lib.zeros(3, dtype=lib.float64, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad") as info:
            FILLS[name](leaf)
        assert leaf.tolist() == [0.0, 0.0, 0.0]
        if lib is jitgrad:
            assert str(info.value).startswith(name.split("_")[0] + "_:") and leaf._version == 0
        with lib.no_grad():
            FILLS[name](leaf)  # allowed under no_grad, as nn.init does


@pytest.mark.parametrize("name", sorted(FILLS))
def test_fill_gradient_matches_torch(name):
    """The written values get no gradient from the old ones; a write through a view rebases
    the base onto CopySlices, as PyTorch does."""
    results = []
    for lib in (jitgrad, torch):
        x = lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64, requires_grad=True)
        y = x * 2
        FILLS[name](y[1:3])
        assert type(y.grad_fn).__name__ == "CopySlices"
        z = x * 3
        FILLS[name](z)
        assert type(z.grad_fn).__name__ == NODE[name]
        (y.sum() + z.sum()).backward()
        results.append(x.grad.tolist())
    assert results[0] == results[1] == [2.0, 0.0, 0.0, 2.0]


def test_fill_distributions():
    jitgrad.manual_seed(0)
    n = 20000
    u = jitgrad.empty(n, dtype=jitgrad.float64).uniform_(-2.0, 3.0).detach().numpy()
    assert u.min() >= -2.0 and u.max() < 3.0 and abs(u.mean() - 0.5) < 0.05
    g = jitgrad.empty(n, dtype=jitgrad.float64).normal_(1.0, 0.5).detach().numpy()
    assert abs(g.mean() - 1.0) < 0.02 and abs(g.std() - 0.5) < 0.02
    b = jitgrad.empty(n).bernoulli_(0.3).detach().numpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.02
    e = jitgrad.empty(n, dtype=jitgrad.float64).exponential_(2.0).detach().numpy()
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.02
    r = jitgrad.empty(n, dtype=jitgrad.int64).random_(3, 7).detach().numpy()
    assert set(np.unique(r)) == {3, 4, 5, 6}
    r = jitgrad.empty(n).random_(5).detach().numpy()
    assert set(np.unique(r)) == {0.0, 1.0, 2.0, 3.0, 4.0}
    r = jitgrad.empty(n).random_().detach().numpy()
    assert r.min() >= 0 and r.max() <= 2**24 and np.all(r == np.round(r))
    assert set(np.unique(jitgrad.empty(100, dtype=jitgrad.bool).random_().detach().numpy())) == {False, True}
    r = jitgrad.empty(1000, dtype=jitgrad.int64).random_().detach().numpy()
    assert r.min() >= 0 and r.max() > 2**40
    p = jitgrad.tensor([0.0, 1.0, 0.0, 1.0, 1.0])
    assert jitgrad.zeros(5).bernoulli_(p).tolist() == [0.0, 1.0, 0.0, 1.0, 1.0]
    assert jitgrad.zeros(2, 3).uniform_(**{"from": 5.0, "to": 6.0}).detach().numpy().min() >= 5.0


def test_fill_reproducible_and_generator():
    jitgrad.manual_seed(7)
    a = jitgrad.empty(5).normal_()
    jitgrad.manual_seed(7)
    b = jitgrad.empty(5).normal_()
    assert jitgrad.equal(a, b)
    g1, g2 = jitgrad.Generator().manual_seed(3), jitgrad.Generator().manual_seed(3)
    assert jitgrad.equal(jitgrad.empty(4).uniform_(generator=g1), jitgrad.empty(4).uniform_(generator=g2))


def test_fill_through_strided_view():
    base = jitgrad.zeros(4, 5, dtype=jitgrad.float64)
    base.t()[1:3].uniform_(1.0, 2.0)
    arr = base.detach().numpy()
    assert np.all(arr[:, [0, 3, 4]] == 0) and np.all(arr[:, 1:3] >= 1.0)
    assert base._version == 1


@pytest.mark.parametrize("program", [
    lambda lib, t: t.uniform_(1.0, 0.0),
    lambda lib, t: t.normal_(0.0, -1.0),
    lambda lib, t: t.bernoulli_(2.0),
    lambda lib, t: t.bernoulli_(-0.1),
    lambda lib, t: t.exponential_(0.0),
    lambda lib, t: t.exponential_(-1.0),
    lambda lib, t: t.random_(5, 2),
    lambda lib, t: t.long().exponential_(),
])
def test_fill_errors_as_torch(program):
    err = check_error(program, np.zeros(3))
    assert "_" in str(err)


@pytest.mark.parametrize("name", ["uniform_", "normal_"])
def test_fill_on_int_refused_as_torch(name):
    for lib in (jitgrad, torch):
        t = lib.zeros(3, dtype=lib.int64)
        with pytest.raises(NotImplementedError):
            getattr(t, name)()
        assert t.tolist() == [0, 0, 0]


def test_fill_refused_through_self_overlapping_view():
    t = jitgrad.zeros(3).expand(2, 3)
    with pytest.raises(RuntimeError, match="uniform_"):
        t.uniform_()


# -- RNG state ---------------------------------------------------------------------------------
def test_rng_state_round_trips():
    state = jitgrad.get_rng_state()
    assert state.dtype == jitgrad.uint8 and state.shape == (40,)
    a = (jitgrad.rand(5), jitgrad.randn(3), jitgrad.empty(4).normal_(), jitgrad.randint(0, 9, (3,)))
    jitgrad.set_rng_state(state)
    b = (jitgrad.rand(5), jitgrad.randn(3), jitgrad.empty(4).normal_(), jitgrad.randint(0, 9, (3,)))
    assert all(jitgrad.equal(x, y) for x, y in zip(a, b))
    jitgrad.set_rng_state(state.clone())  # a copy works too, as in PyTorch
    assert jitgrad.equal(jitgrad.rand(5), a[0])


def test_rng_state_after_odd_normal_draws():
    """NumPy buffers nothing for doubles, but the state still carries the 32-bit buffer."""
    jitgrad.manual_seed(1)
    jitgrad.rand(1, dtype=jitgrad.float32)
    state = jitgrad.get_rng_state()
    x = jitgrad.rand(3, dtype=jitgrad.float32)
    jitgrad.set_rng_state(state)
    assert jitgrad.equal(jitgrad.rand(3, dtype=jitgrad.float32), x)


def test_seed():
    s1 = jitgrad.seed()
    x = jitgrad.rand(3)
    jitgrad.manual_seed(s1)
    assert jitgrad.equal(jitgrad.rand(3), x)
    assert isinstance(s1, int) and jitgrad.initial_seed() == s1
    assert jitgrad.seed() != s1
    assert isinstance(torch.seed(), int)


def test_set_rng_state_errors_as_torch():
    for bad in (jitgrad.zeros(40), jitgrad.zeros(3, dtype=jitgrad.uint8)):
        with pytest.raises(RuntimeError, match="set_rng_state"):
            jitgrad.set_rng_state(bad)
    with pytest.raises(RuntimeError):
        torch.set_rng_state(torch.zeros(3, dtype=torch.uint8))
    for lib in (jitgrad, torch):
        with pytest.raises(TypeError):
            lib.set_rng_state([1, 2, 3])
    even = jitgrad.get_rng_state().clone()
    even[16] = 0  # the PCG64 increment must be odd
    with pytest.raises(RuntimeError, match="increment"):
        jitgrad.set_rng_state(even)


# -- nn.init -----------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (5, 2)])
def test_eye_matches_torch(shape):
    ours = jitgrad.nn.init.eye_(jitgrad.empty(*shape, requires_grad=True))
    theirs = torch.nn.init.eye_(torch.empty(*shape, requires_grad=True))
    assert ours.tolist() == theirs.tolist() and ours.requires_grad and ours.is_leaf


def test_eye_and_orthogonal_errors_as_torch():
    for lib in (jitgrad, torch):
        with pytest.raises(ValueError, match="Only tensors with 2 dimensions"):
            lib.nn.init.eye_(lib.empty(3))
        with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions"):
            lib.nn.init.orthogonal_(lib.empty(3))


@pytest.mark.parametrize("shape,gain", [((4, 4), 1.0), ((3, 6), 2.0), ((6, 3), 0.5), ((2, 3, 4), 1.0)])
def test_orthogonal(shape, gain):
    w = jitgrad.nn.init.orthogonal_(jitgrad.empty(*shape, dtype=jitgrad.float64, requires_grad=True), gain=gain)
    assert w.requires_grad and w.is_leaf
    m = w.detach().numpy().reshape(shape[0], -1)
    small = min(m.shape)
    gram = m @ m.T if m.shape[0] == small else m.T @ m
    np.testing.assert_allclose(gram, gain**2 * np.eye(small), atol=1e-12)
    jitgrad.manual_seed(4)
    a = jitgrad.nn.init.orthogonal_(jitgrad.empty(*shape, dtype=jitgrad.float64)).detach().numpy()
    jitgrad.manual_seed(4)
    assert np.array_equal(a, jitgrad.nn.init.orthogonal_(jitgrad.empty(*shape, dtype=jitgrad.float64)).detach().numpy())


def test_orthogonal_sign_correction():
    """Q's columns are signed so that R has a positive diagonal (the Haar measure): the
    same draw gives Q = G R^{-1} with diag(R) > 0."""
    jitgrad.manual_seed(11)
    rng_state = jitgrad.get_rng_state()
    q = jitgrad.nn.init.orthogonal_(jitgrad.empty(4, 4, dtype=jitgrad.float64)).detach().numpy()
    jitgrad.set_rng_state(rng_state)
    from jitgrad import randomness

    g = randomness.default_rng().standard_normal((4, 4))
    r = q.T @ g
    np.testing.assert_allclose(np.tril(r, -1), 0, atol=1e-12)
    assert np.all(np.diag(r) > 0)


@pytest.mark.parametrize("kwargs", [{}, {"mean": 1.0, "std": 0.5, "a": 0.5, "b": 1.2}, {"a": -0.1, "b": 0.1}])
def test_trunc_normal(kwargs):
    jitgrad.manual_seed(2)
    w = jitgrad.nn.init.trunc_normal_(jitgrad.empty(20000, dtype=jitgrad.float64, requires_grad=True), **kwargs)
    x = w.detach().numpy()
    a, b = kwargs.get("a", -2.0), kwargs.get("b", 2.0)
    mean, std = kwargs.get("mean", 0.0), kwargs.get("std", 1.0)
    assert x.min() >= a and x.max() <= b and w.requires_grad and w.is_leaf
    # the truncated normal's mean, against the same statistic of PyTorch's draw
    t = torch.nn.init.trunc_normal_(torch.empty(20000, dtype=torch.float64), **kwargs).detach().numpy()
    alpha, beta = (a - mean) / std, (b - mean) / std
    phi = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda z: (1 + math.erf(z / math.sqrt(2))) / 2  # noqa: E731
    expected = mean + std * (phi(alpha) - phi(beta)) / (cdf(beta) - cdf(alpha))
    assert abs(x.mean() - expected) < 0.02 * std + 1e-3
    assert abs(t.mean() - expected) < 0.02 * std + 1e-3
    assert abs(x.std() - t.std()) < 0.03 * std


def test_init_rejects_non_tensors():
    for fn in (jitgrad.nn.init.eye_, jitgrad.nn.init.orthogonal_, jitgrad.nn.init.trunc_normal_):
        with pytest.raises(TypeError, match=fn.__name__):
            fn(np.zeros((2, 2)))
