"""Random small networks (widths, activations, batch, loss) built on both sides with the
same weights: same loss and same parameter gradients as torch.nn, in float64."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget

ACTIVATIONS = ["ReLU", "Tanh", "Sigmoid", "Softplus", "SiLU", "ELU", "LeakyReLU", "GELU", "Identity",
               "Hardtanh"]
LOSSES = ["MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "BCEWithLogitsLoss"]


def _model(lib, widths, acts, layer_norm):
    layers = []
    for i, (a, b) in enumerate(zip(widths[:-1], widths[1:])):
        layers.append(lib.nn.Linear(a, b, bias=i % 2 == 0))
        if i < len(widths) - 2:
            if layer_norm:
                layers.append(lib.nn.LayerNorm(b))
            layers.append(getattr(lib.nn, acts[i % len(acts)])())
    return lib.nn.Sequential(*layers).double()


@settings(max_examples=budget(25))
@given(
    widths=st.lists(st.integers(1, 5), min_size=2, max_size=4),
    acts=st.lists(st.sampled_from(ACTIVATIONS), min_size=1, max_size=3),
    batch=st.integers(1, 4),
    loss_name=st.sampled_from(LOSSES),
    layer_norm=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_random_network_matches_torch(widths, acts, batch, loss_name, layer_norm, seed):
    rng = np.random.default_rng(seed)
    ours, theirs = _model(jitgrad, widths, acts, layer_norm), _model(torch, widths, acts, layer_norm)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for p, tp in zip(ours.parameters(), theirs.parameters()):
        values = rng.standard_normal(tuple(tp.shape))
        with torch.no_grad():
            tp.copy_(torch.tensor(values))
        with jitgrad.no_grad():
            p.copy_(jitgrad.tensor(values))
    x = rng.standard_normal((batch, widths[0]))
    if loss_name == "CrossEntropyLoss":
        target = rng.integers(0, widths[-1], batch)
    elif loss_name == "BCEWithLogitsLoss":
        target = (rng.uniform(size=(batch, widths[-1])) > 0.5).astype(np.float64)
    else:
        target = rng.standard_normal((batch, widths[-1]))
    results = []
    for lib, model in ((jitgrad, ours), (torch, theirs)):
        loss = getattr(lib.nn, loss_name)()(model(lib.tensor(x)), lib.tensor(target))
        loss.backward()
        results.append((loss.item(), [p.grad.detach().numpy() for p in model.parameters()]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10, atol=1e-12)
    for g, tg in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(g, tg, rtol=1e-9, atol=1e-11)


def test_tied_weights_are_listed_once_as_in_torch():
    for lib in (jitgrad, torch):
        a = lib.nn.Linear(3, 3)
        model = lib.nn.Sequential(a, lib.nn.Tanh(), a)
        assert [n for n, _ in model.named_parameters()] == ["0.weight", "0.bias"]
        assert [n for n, _ in model.named_parameters(remove_duplicate=False)] == [
            "0.weight", "0.bias", "2.weight", "2.bias"]
        assert list(model.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
        assert [n for n, _ in model.named_modules()] == ["", "0", "1"]
