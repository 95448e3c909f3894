"""``jitgrad.optim`` against ``torch.optim`` (foreach=False), side by side in float64.

Each run feeds both optimizers the same gradients — a fixed nonlinear function of the current
parameter values, computed in NumPy — so any difference is the optimizer's own arithmetic.
PyTorch's CPU kernels fuse some multiply-adds (lerp, addcmul, add with alpha), so agreement
is to a few ulps, not bitwise.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
import jitgrad.optim
from conftest import budget

STEPS = 20
SHAPES = [(5,), (3, 4), ()]


def _grad_of(p: np.ndarray, k: int) -> np.ndarray:
    """A bounded gradient that depends on the parameter and the step, and changes sign."""
    return np.sin(3.0 * p + 0.7 * k) + 0.5 * np.tanh(p) - 0.05 * k


def _init(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in SHAPES]


def _params(lib, arrays, dtype="float64"):
    return [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in arrays]


def _numpy(t) -> np.ndarray:
    return np.array(t.detach().numpy())


def _run(lib, opt_name, kwargs, arrays, steps=STEPS, groups=None, skip=(), dtype="float64"):
    params = _params(lib, arrays, dtype)
    optim = torch.optim if lib is torch else jitgrad.optim
    extra = {"foreach": False}  # (the single-tensor update; jitgrad records the flag as PyTorch)
    spec = params if groups is None else [{**g, "params": [params[i] for i in g["params"]]} for g in groups]
    opt = getattr(optim, opt_name)(spec, **kwargs, **extra)
    for k in range(steps):
        opt.zero_grad()
        for i, p in enumerate(params):
            if i not in skip:
                g = _grad_of(_numpy(p).astype(np.float64), k)
                p.grad = lib.tensor(g, dtype=getattr(lib, dtype))
        opt.step()
    return [_numpy(p) for p in params], opt


def _assert_same_run(opt_name, kwargs, seed=0, rtol=1e-12, atol=1e-13, **run_kwargs):
    arrays = _init(seed)
    ours, _ = _run(jitgrad, opt_name, kwargs, arrays, **run_kwargs)
    theirs, _ = _run(torch, opt_name, kwargs, arrays, **run_kwargs)
    for i, (a, b, start) in enumerate(zip(ours, theirs, arrays)):
        moves = kwargs.get("lr", 1e-3) > 0 and i not in run_kwargs.get("skip", ())
        assert moves != np.array_equal(b, start)  # the comparison is not vacuous
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


SGD_CASES = [
    {"lr": 0.1},
    {"lr": 0.05, "momentum": 0.9},
    {"lr": 0.05, "momentum": 0.9, "dampening": 0.3},
    {"lr": 0.05, "momentum": 0.9, "nesterov": True},
    {"lr": 0.05, "momentum": 0.5, "weight_decay": 0.1},
    {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01, "maximize": True},
    {"lr": 0.0},
]

ADAM_CASES = [
    {},
    {"lr": 0.05},
    {"lr": 0.05, "betas": (0.5, 0.9)},  # lerp weight 0.5: PyTorch's second lerp formula
    {"lr": 0.05, "betas": (0.0, 0.99), "eps": 1e-3},
    {"lr": 0.05, "weight_decay": 0.1},
    {"lr": 0.05, "amsgrad": True},
    {"lr": 0.05, "amsgrad": True, "weight_decay": 0.01, "maximize": True},
]


@pytest.mark.parametrize("kwargs", SGD_CASES, ids=str)
def test_sgd_matches_torch(kwargs):
    _assert_same_run("SGD", kwargs)


@pytest.mark.parametrize("kwargs", ADAM_CASES, ids=str)
def test_adam_matches_torch(kwargs):
    _assert_same_run("Adam", kwargs)


@pytest.mark.parametrize("opt_name,kwargs", [
    ("SGD", {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.05, "amsgrad": True, "weight_decay": 0.01}),
])
def test_float32_params_match_torch(opt_name, kwargs):
    _assert_same_run(opt_name, kwargs, dtype="float32", rtol=1e-5, atol=1e-6)


@settings(max_examples=budget(15))
@given(
    lr=st.floats(1e-4, 0.3),
    momentum=st.sampled_from([0.0, 0.5, 0.9]),
    dampening=st.sampled_from([0.0, 0.2]),
    weight_decay=st.sampled_from([0.0, 1e-3, 0.1]),
    beta1=st.floats(0.0, 0.99),
    beta2=st.floats(0.5, 0.9999),
    amsgrad=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_hyperparameters_match_torch(lr, momentum, dampening, weight_decay, beta1, beta2, amsgrad, seed):
    nesterov = momentum > 0 and dampening == 0
    _assert_same_run("SGD", {"lr": lr, "momentum": momentum, "dampening": dampening,
                             "weight_decay": weight_decay, "nesterov": nesterov}, seed=seed)
    _assert_same_run("Adam", {"lr": lr, "betas": (beta1, beta2), "weight_decay": weight_decay,
                              "amsgrad": amsgrad}, seed=seed)


@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
def test_param_groups_with_different_lr(opt_name):
    groups = [{"params": [0], "lr": 0.2}, {"params": [1, 2], "lr": 0.01, "weight_decay": 0.1}]
    _assert_same_run(opt_name, {"lr": 0.05}, groups=groups)
    ours, opt = _run(jitgrad, opt_name, {"lr": 0.05}, _init(0), groups=groups)
    assert [g["lr"] for g in opt.param_groups] == [0.2, 0.01]
    assert [g["weight_decay"] for g in opt.param_groups] == [0, 0.1]


@pytest.mark.parametrize("opt_name,kwargs", [("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {"lr": 0.1})])
def test_params_without_grad_are_skipped(opt_name, kwargs):
    arrays = _init(1)
    ours, opt = _run(jitgrad, opt_name, kwargs, arrays, skip=(0,))
    np.testing.assert_array_equal(ours[0], arrays[0])
    params = opt.param_groups[0]["params"]
    assert params[0] not in opt.state and params[1] in opt.state
    _assert_same_run(opt_name, kwargs, seed=1, skip=(0,))


def test_zero_grad_set_to_none_and_in_place():
    p = jitgrad.tensor([1.0, 2.0], dtype=jitgrad.float64, requires_grad=True)
    q = jitgrad.tensor([3.0], dtype=jitgrad.float64, requires_grad=True)  # never gets a grad
    opt = jitgrad.optim.SGD([p, q], lr=0.1)
    (p * p).sum().backward()
    grad = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is grad and q.grad is None
    np.testing.assert_array_equal(p.grad.detach().numpy(), [0.0, 0.0])
    (p * p).sum().backward()  # accumulates into the zeroed tensor
    np.testing.assert_array_equal(p.grad.detach().numpy(), [2.0, 4.0])
    opt.zero_grad()
    assert p.grad is None and q.grad is None


def test_zero_grad_detaches_a_grad_with_history():
    p = jitgrad.tensor([1.0, 2.0], dtype=jitgrad.float64, requires_grad=True)
    (p * p).sum().backward(create_graph=True)
    assert p.grad.grad_fn is not None
    jitgrad.optim.SGD([p], lr=0.1).zero_grad(set_to_none=False)
    assert p.grad.grad_fn is None and not p.grad.requires_grad
    np.testing.assert_array_equal(p.grad.detach().numpy(), [0.0, 0.0])


@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
def test_step_updates_the_leaf_in_place(opt_name):
    p = jitgrad.tensor([1.0, -2.0], dtype=jitgrad.float64, requires_grad=True)
    storage_before, version_before = p.detach().numpy(), p._version
    opt = getattr(jitgrad.optim, opt_name)([p], lr=0.1)
    (p * p).sum().backward()
    opt.step()
    assert p.is_leaf and p.requires_grad and p.grad_fn is None
    assert p._version > version_before
    assert np.shares_memory(p.detach().numpy(), storage_before)
    assert jitgrad.is_grad_enabled()


def test_step_with_closure_returns_its_loss():
    for lib, optim in [(jitgrad, jitgrad.optim), (torch, torch.optim)]:
        p = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
        opt = optim.Adam([p], lr=0.1)

        def closure():
            opt.zero_grad()
            loss = (p * p).sum()
            loss.backward()
            return loss

        with lib.no_grad():
            loss = opt.step(closure)
        assert loss.item() == 5.0 and loss.requires_grad
        np.testing.assert_allclose(p.detach().numpy(), [0.9, -1.9])


@pytest.mark.parametrize("opt_name,kwargs", [
    ("SGD", {"lr": -0.1}),
    ("SGD", {"lr": 0.1, "momentum": -0.5}),
    ("SGD", {"lr": 0.1, "weight_decay": -1.0}),
    ("SGD", {"lr": 0.1, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "nesterov": True}),
    ("Adam", {"lr": -1e-3}),
    ("Adam", {"eps": -1.0}),
    ("Adam", {"betas": (1.0, 0.999)}),
    ("Adam", {"betas": (0.9, -0.1)}),
    ("Adam", {"weight_decay": -0.1}),
])
def test_bad_hyperparameters_raise_as_torch(opt_name, kwargs):
    with pytest.raises(ValueError) as theirs:
        getattr(torch.optim, opt_name)([torch.zeros(1, requires_grad=True)], **kwargs)
    with pytest.raises(ValueError) as ours:
        getattr(jitgrad.optim, opt_name)([jitgrad.zeros(1, requires_grad=True)], **kwargs)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("make_params,error", [
    (lambda lib: [], ValueError),
    (lambda lib: lib.zeros(2, requires_grad=True), TypeError),
    (lambda lib: [lib.zeros(2, requires_grad=True) * 2], ValueError),  # non-leaf
    (lambda lib: [1.0], TypeError),
    (lambda lib: {"params": {1}}, TypeError),  # a dict is an iterable of its keys
])
def test_bad_params_raise_as_torch(make_params, error):
    for lib, optim in [(torch, torch.optim), (jitgrad, jitgrad.optim)]:
        with pytest.raises(error):
            optim.SGD(make_params(lib), lr=0.1)


def test_parameter_in_two_groups_is_refused():
    p = jitgrad.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="more than one parameter group"):
        jitgrad.optim.Adam([{"params": [p]}, {"params": [p], "lr": 0.1}])


@pytest.mark.parametrize("opt_name,kwargs", [("SGD", {"lr": 0.05, "momentum": 0.9}),
                                             ("Adam", {"lr": 0.05, "amsgrad": True})])
def test_state_dict_round_trip_resumes_exactly(opt_name, kwargs):
    arrays = _init(2)
    straight, _ = _run(jitgrad, opt_name, kwargs, arrays, steps=10)
    half, opt = _run(jitgrad, opt_name, kwargs, arrays, steps=5)
    saved = opt.state_dict()
    _, theirs = _run(torch, opt_name, kwargs, arrays, steps=5)
    assert saved["param_groups"][0]["params"] == theirs.state_dict()["param_groups"][0]["params"]
    assert sorted(saved["state"][0]) == sorted(theirs.state_dict()["state"][0])

    params = _params(jitgrad, half)
    resumed = getattr(jitgrad.optim, opt_name)(params, lr=123.0)
    resumed.load_state_dict(saved)
    assert resumed.param_groups[0]["lr"] == kwargs["lr"] and resumed.param_groups[0]["params"][0] is params[0]
    for key, value in saved["state"][0].items():  # loaded state is a copy, not shared
        assert resumed.state[params[0]][key] is not value
    for k in range(5, 10):
        resumed.zero_grad()
        for p in params:
            p.grad = jitgrad.tensor(_grad_of(_numpy(p), k), dtype=jitgrad.float64)
        resumed.step()
    for a, b in zip(params, straight):
        np.testing.assert_array_equal(_numpy(a), b)


def test_load_state_dict_refuses_mismatched_groups():
    p, q = jitgrad.zeros(2, requires_grad=True), jitgrad.zeros(2, requires_grad=True)
    saved = jitgrad.optim.SGD([p, q], lr=0.1).state_dict()
    with pytest.raises(ValueError, match="doesn't match the size"):
        jitgrad.optim.SGD([p], lr=0.1).load_state_dict(saved)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        jitgrad.optim.SGD([{"params": [p]}, {"params": [q]}], lr=0.1).load_state_dict(saved)
