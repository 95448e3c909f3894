"""More ``nn.functional`` activations against PyTorch (float64): values and gradients,
including at the branch boundaries, and their errors."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch

import jitgrad

X = np.array([-30.0, -4.0, -3.0, -1.5, -0.5, 0.0, 0.5, 1.5, 3.0, 4.0, 6.0, 7.0, 30.0])
CASES: dict[str, Callable[[Any, Any], Any]] = {
    "relu6": lambda F, x: F.relu6(x),
    "hardsigmoid": lambda F, x: F.hardsigmoid(x),
    "hardswish": lambda F, x: F.hardswish(x),
    "logsigmoid": lambda F, x: F.logsigmoid(x),
    "softsign": lambda F, x: F.softsign(x),
    "tanhshrink": lambda F, x: F.tanhshrink(x),
    "selu": lambda F, x: F.selu(x),
    "celu": lambda F, x: F.celu(x, alpha=0.7),
    "glu": lambda F, x: F.glu(x[:12].reshape(3, 4), dim=1),
    "softmin": lambda F, x: F.softmin(x[:12].reshape(3, 4), dim=1),
    "threshold": lambda F, x: F.threshold(x, 0.5, -2.0),
    "hardshrink": lambda F, x: F.hardshrink(x, 0.5),
    "softshrink": lambda F, x: F.softshrink(x, 0.5),
    "rms_norm": lambda F, x: F.rms_norm(x[:12].reshape(3, 4), (4,)),
    "rms_norm_weight_eps": lambda F, x: F.rms_norm(x[:12].reshape(3, 4), [4], weight=x[:4] / 10, eps=0.1),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_against_pytorch(case: str) -> None:
    got = []
    for lib in (jitgrad, torch):
        x = lib.tensor(X, requires_grad=True)
        y = CASES[case](lib.nn.functional, x)
        w = lib.tensor(np.linspace(0.5, 1.5, y.numel()).reshape(tuple(y.shape)))
        (g,) = lib.autograd.grad((y * w).sum(), x)
        got.append((y.detach().numpy(), g.detach().numpy()))
    # PyTorch's double kernels of these round a constant to float32 in the backward
    # (hardsigmoid's 1/6, celu's 1/alpha): jitgrad's exact gradient differs there by ~1e-8
    rtol = 1e-7 if case in ("hardsigmoid", "celu") else 1e-12
    for ours, theirs in zip(*got):
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=1e-13)


ERRORS = {
    "glu_odd": lambda F, L: F.glu(L.ones(2, 3), dim=1),
    "glu_scalar": lambda F, L: F.glu(L.tensor(1.0)),
    "softshrink_negative": lambda F, L: F.softshrink(L.ones(2), -1.0),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case: str) -> None:
    got = []
    for lib in (jitgrad, torch):
        with pytest.raises(RuntimeError) as info:
            ERRORS[case](lib.nn.functional, lib)
        got.append(str(info.value))
    assert got[0] == got[1]


@pytest.mark.parametrize("name", ["relu6", "hardsigmoid", "hardswish", "selu", "celu", "threshold"])
def test_inplace(name: str) -> None:
    got = []
    for lib in (jitgrad, torch):
        x = lib.tensor(X)
        f = getattr(lib.nn.functional, name)
        out = f(x, 0.5, -2.0, inplace=True) if name == "threshold" else f(x, inplace=True)
        got.append((out is x, x.tolist()))
    assert got[0][0] == got[1][0]
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-12)


MODULES = [
    ("ReLU6", ()), ("ReLU6", (True,)), ("Hardsigmoid", ()), ("Hardswish", (True,)), ("LogSigmoid", ()),
    ("Softsign", ()), ("Tanhshrink", ()), ("SELU", ()), ("SELU", (True,)), ("CELU", (0.5,)), ("GLU", ()),
    ("Softmin", (1,)), ("Threshold", (0.1, 20)), ("Hardshrink", ()), ("Softshrink", (0.3,)), ("RMSNorm", (4,)),
]


@pytest.mark.parametrize("name, args", MODULES, ids=[f"{n}{a}" for n, a in MODULES])
def test_modules(name: str, args: tuple[Any, ...]) -> None:
    got = []
    for lib in (jitgrad, torch):
        m = getattr(lib.nn, name)(*args)
        x = lib.tensor(X[:12].reshape(3, 4))
        y = m(x.clone())
        got.append((repr(m), [k for k, _ in m.named_parameters()], y.detach().numpy()))
    assert got[0][:2] == got[1][:2]
    np.testing.assert_allclose(got[0][2], got[1][2], rtol=1e-12, atol=1e-13)
