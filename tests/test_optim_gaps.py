"""``RMSprop``, ``Adagrad`` and ``lr_scheduler`` against ``torch.optim`` (foreach=False) in
float64 over 20 steps, every option; schedulers' learning rates, ``get_last_lr``,
``state_dict`` round trips and the errors, side by side."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import jitgrad
import jitgrad.optim
from test_optim import _assert_same_run, _init, _params, _run

RMSPROP_CASES = [
    {},
    {"lr": 0.05},
    {"lr": 0.05, "alpha": 0.9, "eps": 1e-4},
    {"lr": 0.05, "centered": True},
    {"lr": 0.02, "momentum": 0.9},
    {"lr": 0.02, "momentum": 0.5, "centered": True, "weight_decay": 0.1},
    {"lr": 0.05, "weight_decay": 0.2, "maximize": True},
    {"lr": 0.05, "alpha": 0.5, "centered": True},  # lerp weight 0.5: PyTorch's second formula
]

ADAGRAD_CASES = [
    {},
    {"lr": 0.1},
    {"lr": 0.1, "lr_decay": 0.05},
    {"lr": 0.1, "initial_accumulator_value": 0.5},
    {"lr": 0.1, "weight_decay": 0.1, "eps": 1e-4},
    {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.05, "maximize": True, "initial_accumulator_value": 0.1},
]


@pytest.mark.parametrize("kwargs", RMSPROP_CASES, ids=str)
def test_rmsprop_matches_torch(kwargs):
    _assert_same_run("RMSprop", kwargs)


@pytest.mark.parametrize("kwargs", ADAGRAD_CASES, ids=str)
def test_adagrad_matches_torch(kwargs):
    _assert_same_run("Adagrad", kwargs)


@pytest.mark.parametrize("name,kwargs", [("RMSprop", {"lr": 0.05, "centered": True, "momentum": 0.5}),
                                         ("Adagrad", {"lr": 0.1, "lr_decay": 0.1})])
def test_float32_and_groups_match_torch(name, kwargs):
    _assert_same_run(name, kwargs, dtype="float32", rtol=1e-5, atol=1e-6)
    groups = [{"params": [0, 2], "lr": 0.01}, {"params": [1]}]
    _assert_same_run(name, kwargs, groups=groups, skip=(2,))


@pytest.mark.parametrize("name,kwargs", [("RMSprop", {"lr": 0.05, "centered": True, "momentum": 0.5}),
                                         ("Adagrad", {"lr": 0.1, "initial_accumulator_value": 0.2})])
def test_state_dict_matches_torch(name, kwargs):
    arrays = _init(3)
    _, ours = _run(jitgrad, name, kwargs, arrays, steps=3)
    _, theirs = _run(torch, name, kwargs, arrays, steps=3)
    so, st = ours.state_dict(), theirs.state_dict()
    assert sorted(so["state"]) == sorted(st["state"])
    for key in st["state"]:
        assert sorted(so["state"][key]) == sorted(st["state"][key])
        for field, value in st["state"][key].items():
            np.testing.assert_allclose(so["state"][key][field].detach().numpy(), value.detach().numpy(), rtol=1e-12)
            assert so["state"][key][field].dtype.name == str(value.dtype)[6:]
    for g_o, g_t in zip(so["param_groups"], st["param_groups"]):
        for k, v in g_o.items():
            assert g_t[k] == v, k
    # a fresh optimizer loaded from the state dict continues exactly as the original
    params = _params(jitgrad, arrays)
    other = getattr(jitgrad.optim, name)(params, **kwargs)
    other.load_state_dict(so)
    assert other.state_dict()["param_groups"] == so["param_groups"]


@pytest.mark.parametrize("name,kwargs,message", [
    ("RMSprop", {"lr": -1.0}, "learning rate"),
    ("RMSprop", {"alpha": -0.1}, "alpha"),
    ("RMSprop", {"momentum": -0.1}, "momentum"),
    ("RMSprop", {"eps": -1.0}, "epsilon"),
    ("RMSprop", {"weight_decay": -1.0}, "weight_decay"),
    ("Adagrad", {"lr": -1.0}, "learning rate"),
    ("Adagrad", {"lr_decay": -1.0}, "lr_decay"),
    ("Adagrad", {"initial_accumulator_value": -1.0}, "initial_accumulator_value"),
    ("Adagrad", {"eps": -1.0}, "epsilon"),
])
def test_bad_hyperparameters_raise_as_torch(name, kwargs, message):
    with pytest.raises(ValueError) as theirs:
        getattr(torch.optim, name)([torch.zeros(1, requires_grad=True)], **kwargs)
    with pytest.raises(ValueError, match=message) as ours:
        getattr(jitgrad.optim, name)([jitgrad.zeros(1, requires_grad=True)], **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_adagrad_state_made_in_constructor():
    p = jitgrad.zeros(3, requires_grad=True)
    opt = jitgrad.optim.Adagrad([p], initial_accumulator_value=0.25)
    assert opt.state[p]["sum"].tolist() == [0.25] * 3 and opt.state[p]["step"].item() == 0.0


# -- lr_scheduler ------------------------------------------------------------------------------
SCHEDULERS = [
    ("StepLR", {"step_size": 3}),
    ("StepLR", {"step_size": 2, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [2, 5, 5, 9], "gamma": 0.3}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("CosineAnnealingLR", {"T_max": 7}),
    ("CosineAnnealingLR", {"T_max": 4, "eta_min": 0.01}),  # past T_max: the restart branch
    ("LambdaLR", {"lr_lambda": lambda epoch: 0.95 ** epoch + 0.1 * (epoch % 3)}),
    ("MultiplicativeLR", {"lr_lambda": lambda epoch: 0.9 if epoch % 2 else 1.05}),
    ("ConstantLR", {"factor": 0.25, "total_iters": 4}),
    ("LinearLR", {"start_factor": 0.1, "total_iters": 6}),
    ("LinearLR", {"start_factor": 1.0, "end_factor": 0.2, "total_iters": 5}),
    ("PolynomialLR", {"total_iters": 8, "power": 2.0}),
]


def _schedule(lib, name, kwargs, steps=20, lrs=(0.1, 0.03), per_group=False):
    params = [lib.zeros(2, requires_grad=True) for _ in lrs]
    optim = lib.optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(params, lrs)])
    if per_group and name == "LambdaLR":
        kwargs = {"lr_lambda": [kwargs["lr_lambda"], lambda e: 1.0 / (1 + e)]}
    sched = getattr(lib.optim.lr_scheduler, name)(optim, **kwargs)
    history = [sched.get_last_lr()]
    for _ in range(steps):
        optim.step()
        sched.step()
        history.append(sched.get_last_lr())
        assert [g["lr"] for g in optim.param_groups] == history[-1]
    return history, sched, optim


@pytest.mark.parametrize("name,kwargs", SCHEDULERS, ids=lambda x: x if isinstance(x, str) else "")
def test_scheduler_matches_torch(name, kwargs):
    ours, sched, _ = _schedule(jitgrad, name, kwargs)
    theirs, tsched, _ = _schedule(torch, name, kwargs)
    assert ours == theirs  # bitwise: the same recursive formulas
    assert len(set(map(tuple, ours))) > 1  # not vacuous
    if name == "LambdaLR":
        ours, _, _ = _schedule(jitgrad, name, kwargs, per_group=True)
        theirs, _, _ = _schedule(torch, name, kwargs, per_group=True)
        assert ours == theirs


_MORE_SCHEDULERS = SCHEDULERS + [
    ("CosineAnnealingWarmRestarts", {"T_0": 4, "T_mult": 2}),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 30}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3}),
]


@pytest.mark.parametrize("name,kwargs", _MORE_SCHEDULERS, ids=lambda x: x if isinstance(x, str) else "")
def test_scheduler_state_keys_and_get_lr_warning_as_torch(name, kwargs):
    """The state dict has PyTorch's keys (``_get_lr_called_within_step`` too); stepping warns
    about nothing, and ``get_lr()`` called outside a step warns, as PyTorch's, that
    ``get_last_lr()`` is what the caller wants."""
    import warnings

    seen = []
    for lib in (jitgrad, torch):
        params = [lib.zeros(2, requires_grad=True)]
        optim = lib.optim.SGD(params, lr=0.1, momentum=0.9)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched = getattr(lib.optim.lr_scheduler, name)(optim, **kwargs)
            for _ in range(3):
                optim.step()
                sched.step()
            quiet = [str(w.message) for w in caught]
            sched.get_lr()
            outside = [str(w.message) for w in caught[len(quiet):]]
        seen.append((sorted(sched.state_dict()), quiet, outside, sched.state_dict()["_get_lr_called_within_step"]))
    assert seen[0] == seen[1]
    assert seen[0][1] == [] and seen[0][2] == [
        "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."]


@pytest.mark.parametrize("name,kwargs", SCHEDULERS, ids=lambda x: x if isinstance(x, str) else "")
def test_scheduler_state_dict_round_trip(name, kwargs):
    _, sched, _ = _schedule(jitgrad, name, kwargs, steps=5)
    _, tsched, _ = _schedule(torch, name, kwargs, steps=5)
    ours, theirs = sched.state_dict(), tsched.state_dict()
    for key in ("last_epoch", "base_lrs", "_last_lr", "_step_count"):
        assert ours[key] == theirs[key], key
    assert "optimizer" not in ours
    # load into a fresh scheduler on a fresh optimizer: the next steps agree with the original
    _, fresh, fresh_opt = _schedule(jitgrad, name, kwargs, steps=0)
    fresh.load_state_dict(ours)
    for group, lr in zip(fresh_opt.param_groups, sched.get_last_lr()):
        group["lr"] = lr
    for _ in range(4):
        sched.optimizer.step()
        sched.step()
        fresh.step()
        assert fresh.get_last_lr() == sched.get_last_lr()


@pytest.mark.parametrize("name,kwargs", [s for s in SCHEDULERS if s[0] != "LambdaLR"],
                         ids=lambda x: x if isinstance(x, str) else "")
def test_scheduler_step_with_epoch_uses_closed_form(name, kwargs):
    results = []
    for lib in (jitgrad, torch):
        _, sched, _ = _schedule(lib, name, kwargs, steps=2)
        with pytest.warns(UserWarning):
            sched.step(11)
        results.append(sched.get_last_lr())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-15)


def test_cosine_closed_form_values():
    _, sched, _ = _schedule(jitgrad, "CosineAnnealingLR", {"T_max": 10, "eta_min": 0.0}, steps=10, lrs=(1.0,))
    assert sched.get_last_lr()[0] == pytest.approx(0.0, abs=1e-15)
    _, sched, _ = _schedule(jitgrad, "CosineAnnealingLR", {"T_max": 10}, steps=5, lrs=(1.0,))
    assert sched.get_last_lr()[0] == pytest.approx(0.5 * (1 + math.cos(math.pi / 2)))


def test_scheduler_errors_as_torch():
    for lib in (jitgrad, torch):
        with pytest.raises(TypeError, match="is not an Optimizer"):
            lib.optim.lr_scheduler.StepLR(object(), step_size=2)
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
        with pytest.raises(KeyError, match="initial_lr"):
            lib.optim.lr_scheduler.StepLR(opt, step_size=2, last_epoch=3)
        opt2 = lib.optim.SGD([{"params": [lib.zeros(1, requires_grad=True)]},
                              {"params": [lib.zeros(1, requires_grad=True)]}], lr=0.1)
        with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
            lib.optim.lr_scheduler.LambdaLR(opt2, [lambda e: 1.0])


def test_scheduler_drives_training_like_torch():
    """RMSprop + StepLR and Adagrad + CosineAnnealingLR over 20 steps: the parameters agree."""
    for opt_name, opt_kwargs, sched_name, sched_kwargs in [
        ("RMSprop", {"lr": 0.05, "momentum": 0.3}, "StepLR", {"step_size": 4, "gamma": 0.5}),
        ("Adagrad", {"lr": 0.2}, "CosineAnnealingLR", {"T_max": 8}),
        ("Adam", {"lr": 0.05}, "ExponentialLR", {"gamma": 0.9}),
    ]:
        finals = []
        for lib in (jitgrad, torch):
            params = _params(lib, _init(5))
            extra = {"foreach": False} if lib is torch else {}
            opt = getattr(lib.optim, opt_name)(params, **opt_kwargs, **extra)
            sched = getattr(lib.optim.lr_scheduler, sched_name)(opt, **sched_kwargs)
            for k in range(20):
                opt.zero_grad()
                loss = sum(((p - 0.1 * k) ** 2).sum() for p in params)
                loss.backward()
                opt.step()
                sched.step()
            finals.append([p.detach().numpy().copy() for p in params])
        for a, b in zip(*finals):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("kwargs", [
    {}, {"patience": 2}, {"patience": 1, "factor": 0.5, "cooldown": 2},
    {"mode": "max", "patience": 1, "threshold": 0.05},
    {"threshold_mode": "abs", "threshold": 0.3, "patience": 0, "min_lr": 0.02},
    {"patience": 0, "min_lr": [0.05, 0.001], "eps": 1e-3},
])
def test_reduce_lr_on_plateau_matches_torch(kwargs):
    metrics = [5.0, 4.0, 4.1, 4.0, 3.99, 3.999, 4.2, 2.0, 2.0, 2.0, 2.5, 1.0, 1.0, 1.0, 1.0, 0.9,
               0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9]
    histories = []
    for lib in (jitgrad, torch):
        params = [lib.zeros(1, requires_grad=True) for _ in range(2)]
        opt = lib.optim.SGD([{"params": [params[0]], "lr": 0.1}, {"params": [params[1]], "lr": 0.01}])
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
        history = [sched.get_last_lr()]
        for m in metrics:
            opt.step()
            sched.step(lib.tensor(m) if len(history) % 2 else m)
            history.append(sched.get_last_lr())
        histories.append((history, sched.num_bad_epochs, sched.best, sched.last_epoch))
    assert histories[0] == histories[1]
    if kwargs.get("patience") is not None:
        assert len({tuple(h) for h in histories[0][0]}) > 1  # the lr did change


def test_reduce_lr_on_plateau_state_and_errors():
    opt = jitgrad.optim.SGD([jitgrad.zeros(1, requires_grad=True)], lr=0.1)
    sched = jitgrad.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
    for m in (1.0, 2.0, 3.0):
        sched.step(m)
    state = sched.state_dict()
    fresh = jitgrad.optim.lr_scheduler.ReduceLROnPlateau(jitgrad.optim.SGD([jitgrad.zeros(1, requires_grad=True)], lr=0.1))
    fresh.load_state_dict(state)
    assert fresh.best == 1.0 and fresh.patience == 0 and fresh.last_epoch == 3
    for lib in (jitgrad, torch):
        o = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
        for kwargs in ({"factor": 1.0}, {"mode": "median"}, {"threshold_mode": "pct"}, {"min_lr": [0.1, 0.2]}):
            with pytest.raises(ValueError):
                lib.optim.lr_scheduler.ReduceLROnPlateau(o, **kwargs)
        with pytest.raises(TypeError):
            lib.optim.lr_scheduler.ReduceLROnPlateau(object())


# -- every optimizer's groups and state as PyTorch's: the implementation flags with PyTorch's defaults,
#    scalar state (``step``, ...) in PyTorch's scalar dtype (the default dtype, float32 when fused) ------
STATEFUL = ["ASGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Rprop", "SGD"]


def _layout(lib, name, default, **kwargs):
    """What one step leaves in an optimizer: its group's keys and values, each state entry's
    dtype and shape, the state dict's keys."""
    lib.set_default_dtype(getattr(lib, default))
    try:
        w = lib.tensor([0.5, -1.5, 2.0], requires_grad=True)
        opt = getattr(lib.optim, name)([w], lr=0.1, **kwargs)
        (w * w).sum().backward()
        opt.step()
        group = {k: v for k, v in opt.param_groups[0].items() if k != "params"}
        state = {k: (str(v.dtype).split(".")[-1], tuple(v.shape)) for k, v in opt.state[w].items()}
        packed = opt.state_dict()
        return (sorted(group.items()), state, sorted(packed), sorted(packed["param_groups"][0]),
                {k: sorted(v) for k, v in packed["state"].items()})
    finally:
        lib.set_default_dtype(lib.float32)


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("name", STATEFUL)
def test_groups_and_state_layout_match_torch(name, default):
    assert _layout(jitgrad, name, default) == _layout(torch, name, default)


@pytest.mark.parametrize("name,kwargs", [
    ("Adam", {"fused": True}), ("AdamW", {"foreach": True}), ("Adagrad", {"fused": True}), ("SGD", {"fused": True}),
    ("Adam", {"decoupled_weight_decay": True, "weight_decay": 0.1}),
])
def test_flags_are_kept_as_torch(name, kwargs):
    assert _layout(jitgrad, name, "float64", **kwargs) == _layout(torch, name, "float64", **kwargs)


def test_adam_decoupled_weight_decay_is_adamw():
    kwargs = {"lr": 0.05, "weight_decay": 0.1}
    _assert_same_run("Adam", {**kwargs, "decoupled_weight_decay": True})
    ours, _ = _run(jitgrad, "Adam", {**kwargs, "decoupled_weight_decay": True}, _init(0))
    adamw, _ = _run(jitgrad, "AdamW", kwargs, _init(0))
    for a, b in zip(ours, adamw):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name,kwargs,error", [
    ("Adam", {"fused": True, "foreach": True}, RuntimeError),
    ("SGD", {"fused": True, "foreach": True}, RuntimeError),
])
def test_flag_refusals_at_construction_as_torch(name, kwargs, error):
    with pytest.raises(error) as theirs:
        getattr(torch.optim, name)([torch.zeros(1, requires_grad=True)], **kwargs)
    with pytest.raises(error) as ours:
        getattr(jitgrad.optim, name)([jitgrad.zeros(1, requires_grad=True)], **kwargs)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("name", ["Adam", "RMSprop", "Rprop", "ASGD"])
def test_capturable_step_on_the_cpu_raises_as_torch(name):
    errors = []
    for lib in (torch, jitgrad):
        w = lib.zeros(2, requires_grad=True)
        opt = getattr(lib.optim, name)([w], lr=0.1, capturable=True)
        w.sum().backward()
        with pytest.raises(AssertionError) as raised:
            opt.step()
        errors.append(str(raised.value))
        assert w.detach().tolist() == [0.0, 0.0]  # nothing moved
    assert errors[0] == errors[1]


def test_differentiable_step_is_refused_naming_the_flag():
    w = jitgrad.zeros(2, requires_grad=True)
    opt = jitgrad.optim.Adam([w], lr=0.1, differentiable=True)
    w.sum().backward()
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        opt.step()
    assert w.detach().tolist() == [0.0, 0.0]
