"""Adamax, NAdam, RAdam, Adadelta, Rprop and ASGD side by side with PyTorch's single-tensor
updates (``foreach=False``): parameters over 25 steps in float64 and float32 (default dtype
float32 and float64: the scalar state's dtype follows it), state keys and dtypes, argument
checks. PyTorch's vectorised lerp / addcmul fuse multiply-adds, so agreement is to a few
ulps (tests/test_optim.py says the same of Adam)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import jitgrad

CASES = [
    ("Adamax", {"lr": 0.1}),
    ("Adamax", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {"lr": 0.1}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.1}),
    ("RAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True, "betas": (0.8, 0.9)}),
    ("Adadelta", {"lr": 1.0}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.05, "maximize": True}),
    ("Rprop", {"lr": 0.01}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2)}),
    ("ASGD", {"lr": 0.01}),
    ("ASGD", {"lr": 0.05, "lambd": 0.01, "t0": 5, "weight_decay": 0.01}),
]


def _run(lib, name, kwargs, dtype, default, steps=25):
    lib.set_default_dtype(getattr(lib, default))
    try:
        dt = getattr(lib, dtype)
        p = lib.tensor([1.0, -2.0, 0.5, 0.0], dtype=dt, requires_grad=True)
        q = lib.tensor([[0.3, -0.7], [1.1, 0.2]], dtype=dt, requires_grad=True)
        extra = {"foreach": False} if lib is torch else {}
        opt = getattr(lib.optim, name)([p, q], **kwargs, **extra)
        for k in range(steps):
            opt.zero_grad()
            target = 0.1 * k - 0.5
            loss = ((p - target) ** 2 * lib.tensor([1.0, 2.0, 3.0, 0.5], dtype=dt)).sum() + (q * q * q).sum() * 0.3
            loss.backward()
            opt.step()
        state = opt.state[p]
        return ([p.detach().numpy().copy(), q.detach().numpy().copy()],
                {k: (str(v.dtype).split(".")[-1], v.detach().numpy().copy()) for k, v in state.items()})
    finally:
        lib.set_default_dtype(lib.float32)


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
@pytest.mark.parametrize("dtype,default", [("float64", "float64"), ("float32", "float32"), ("float64", "float32")])
def test_updates_match(name, kwargs, dtype, default):
    (ours, our_state), (theirs, their_state) = (_run(lib, name, kwargs, dtype, default) for lib in (jitgrad, torch))
    rtol, atol = (2e-5, 1e-6) if dtype == "float32" else (1e-12, 1e-14)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
    assert sorted(our_state) == sorted(their_state)
    for key, (dt, value) in their_state.items():
        assert our_state[key][0] == dt, key
        np.testing.assert_allclose(our_state[key][1], value, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name,kwargs", [
    ("Adamax", {"betas": (1.0, 0.9)}), ("NAdam", {"momentum_decay": -1.0}), ("RAdam", {"eps": -1.0}),
    ("Adadelta", {"rho": 1.5}), ("Rprop", {"etas": (1.2, 0.5)}), ("ASGD", {"lr": -1.0}),
])
def test_argument_checks(name, kwargs):
    errors = []
    for lib in (jitgrad, torch):
        with pytest.raises(ValueError) as info:
            getattr(lib.optim, name)([lib.zeros(1, requires_grad=True)], **kwargs)
        errors.append(str(info.value))
    assert errors[0] == errors[1]
