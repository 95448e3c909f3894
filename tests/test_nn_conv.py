"""``F.conv1d``/``F.conv2d`` and ``nn.Conv1d``/``nn.Conv2d`` against PyTorch (float64):
outputs, gradients and gradients of gradients for strides, paddings (numbers, 'same',
'valid', padding modes), dilations and groups; argument errors (type and message); repr."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import jitgrad

CASES = [
    ((2, 3, 9), (4, 3, 3), {}),
    ((2, 4, 9), (6, 2, 2), dict(stride=2, padding=1, dilation=2, groups=2)),
    ((3, 9), (4, 3, 3), dict(padding="same")),
    ((2, 3, 8), (4, 3, 4), dict(padding="same", dilation=2)),
    ((2, 3, 7, 6), (4, 3, 3, 2), {}),
    ((2, 4, 7, 6), (4, 2, 3, 3), dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)),
    ((3, 7, 6), (5, 3, 2, 2), dict(padding="same")),
    ((2, 3, 5, 5), (4, 3, 3, 3), dict(padding="valid")),
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("xs, ws, kw", CASES, ids=[f"{len(w) - 2}d-{i}" for i, (_, w, _) in enumerate(CASES)])
def test_functional_against_pytorch(xs: tuple[int, ...], ws: tuple[int, ...], kw: dict[str, Any]) -> None:
    rng = np.random.default_rng(0)
    x0, w0, b0 = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0])
    res = []
    for lib in (jitgrad, torch):
        x, w, b = (lib.tensor(a, requires_grad=True) for a in (x0, w0, b0))
        f = lib.nn.functional.conv1d if len(ws) == 3 else lib.nn.functional.conv2d
        y = f(x, w, b, **kw)
        g = lib.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)))
        grads = lib.autograd.grad(y, (x, w, b), g, create_graph=True)
        second = lib.autograd.grad(sum((t * t).sum() for t in grads), (x, w))
        res.append((y.detach().numpy(), [t.detach().numpy() for t in grads], [t.detach().numpy() for t in second]))
    (y1, g1, h1), (y2, g2, h2) = res
    np.testing.assert_allclose(y1, y2, rtol=1e-10, atol=1e-12)
    for a, b in zip(g1 + h1, g2 + h2):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


ERRORS = {
    "channels": lambda L: L.nn.functional.conv2d(L.ones(2, 2, 8, 8), L.ones(4, 3, 3, 3)),
    "too_small": lambda L: L.nn.functional.conv2d(L.ones(2, 2, 2, 2), L.ones(4, 2, 3, 3)),
    "same_strided": lambda L: L.nn.functional.conv2d(L.ones(2, 2, 8, 8), L.ones(4, 2, 3, 3), stride=2, padding="same"),
    "groups": lambda L: L.nn.functional.conv2d(L.ones(2, 2, 8, 8), L.ones(3, 1, 3, 3), groups=2),
    "unbatched_channels": lambda L: L.nn.functional.conv1d(L.ones(2, 8, 8), L.ones(4, 3, 3)),
    "padding_string": lambda L: L.nn.functional.conv2d(L.ones(2, 2, 8, 8), L.ones(4, 2, 3, 3), padding="foo"),
    "stride_zero": lambda L: L.nn.functional.conv2d(L.ones(2, 2, 8, 8), L.ones(4, 2, 3, 3), stride=0),
    "negative_padding": lambda L: L.nn.functional.conv2d(L.ones(2, 2, 8, 8), L.ones(4, 2, 3, 3), padding=-1),
    "stride_length": lambda L: L.nn.functional.conv1d(L.ones(2, 2, 8), L.ones(4, 2, 3), stride=(1, 1)),
    "module_groups": lambda L: L.nn.Conv2d(3, 4, 3, groups=2),
    "module_padding_mode": lambda L: L.nn.Conv2d(2, 4, 3, padding_mode="mirror"),
    "module_same_strided": lambda L: L.nn.Conv1d(2, 4, 3, stride=2, padding="same"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case: str) -> None:
    got = []
    for lib in (jitgrad, torch):
        with pytest.raises((RuntimeError, ValueError)) as info:
            ERRORS[case](lib)
        message = str(info.value)
        if case == "module_padding_mode":  # (PyTorch lists the modes as a set: any order)
            message = message.split(", but got")[1]
        got.append((type(info.value).__name__, message))
    assert got[0] == got[1]


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("n", [1, 2])
def test_modules_with_pytorchs_weights(n: int, mode: str) -> None:
    kw = dict(stride=1, padding=2, dilation=1, groups=2, padding_mode=mode)
    theirs = (torch.nn.Conv1d if n == 1 else torch.nn.Conv2d)(4, 6, 3, **kw).double()
    ours = (jitgrad.nn.Conv1d if n == 1 else jitgrad.nn.Conv2d)(4, 6, 3, **kw).double()
    assert repr(ours) == repr(theirs)
    ours.load_state_dict({k: jitgrad.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(1).standard_normal((2, 4, 7) if n == 1 else (2, 4, 7, 5))
    y, want = ours(jitgrad.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(y.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    y.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(ours.weight.grad.detach().numpy(), theirs.weight.grad.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(ours.bias.grad.detach().numpy(), theirs.bias.grad.detach().numpy(), rtol=1e-10)


def test_module_repr_and_init_bounds() -> None:
    for lib in (jitgrad, torch):
        m = lib.nn.Conv2d(2, 4, 3, padding="same", bias=False)
        assert repr(m) == "Conv2d(2, 4, kernel_size=(3, 3), stride=(1, 1), padding=same, bias=False)"
        m = lib.nn.Conv1d(2, 4, 3)
        bound = 1 / np.sqrt(2 * 3)
        assert float(m.weight.abs().max()) <= bound and float(m.bias.abs().max()) <= bound


UNFOLD = [((2, 3, 5, 4), dict(kernel_size=(2, 3), padding=1, stride=(2, 1))), ((3, 5, 4), dict(kernel_size=2)),
          ((1, 2, 6, 6), dict(kernel_size=3, dilation=2, stride=2)), ((2, 1, 4, 4), dict(kernel_size=(1, 4)))]


@pytest.mark.parametrize("shape, kw", UNFOLD, ids=[str(i) for i in range(len(UNFOLD))])
def test_unfold(shape: tuple[int, ...], kw: dict[str, Any]) -> None:
    x0 = np.random.default_rng(2).standard_normal(shape)
    res = []
    for lib in (jitgrad, torch):
        x = lib.tensor(x0, requires_grad=True)
        u = lib.nn.functional.unfold(x, **kw)
        w = lib.tensor(np.linspace(-1, 1, u.numel()).reshape(tuple(u.shape)))
        (g,) = lib.autograd.grad((u * w).sum(), x)
        res.append((u.detach().numpy(), g.detach().numpy()))
    for a, b in zip(*res):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_unfold_errors() -> None:
    for lib in (jitgrad, torch):
        with pytest.raises(RuntimeError, match="calculated shape of the array of sliding blocks as"):
            lib.nn.functional.unfold(lib.ones(2, 3, 5, 4), 7)
