"""``nn.utils.spectral_norm`` (hook-based) and ``nn.utils.parametrizations.spectral_norm``
side by side with PyTorch: the power iteration's start vectors come from each library's own
generator, so PyTorch's state dict (weights and ``u``/``v``) is loaded into jitgrad's module;
from there weights, gradients and vectors must agree over several training steps, in
training and eval mode, and the state dict keys are PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from compat_helpers import both

MODULES = {
    "linear": (lambda nn: nn.Linear(5, 4), (3, 5)),
    "conv2d": (lambda nn: nn.Conv2d(2, 3, 3), (2, 2, 5, 5)),
    "conv_transpose2d": (lambda nn: nn.ConvTranspose2d(3, 2, 2), (1, 3, 3, 3)),
    "conv1d_dim1": (lambda nn: nn.Conv1d(2, 4, 3), (2, 2, 6)),
}


def _module(lib, kind, api, seed=0, **kwargs):
    make, _ = MODULES[kind]
    if lib is torch:
        torch.manual_seed(seed)
    module = make(lib.nn).double()
    if api == "hook":
        return lib.nn.utils.spectral_norm(module, **kwargs)
    return lib.nn.utils.parametrizations.spectral_norm(module, **kwargs)


def _pair(kind, api, seed=0, **kwargs):
    theirs = _module(torch, kind, api, seed, **kwargs)
    ours = _module(jitgrad, kind, api, seed, **kwargs)
    state = {k: v.detach().numpy().copy() for k, v in theirs.state_dict().items()}
    ours.load_state_dict({k: jitgrad.tensor(v) for k, v in state.items()})
    return ours, theirs


def _weight_name(api):
    return "weight_orig" if api == "hook" else "parametrizations.weight.original"


def _train(model, lib, x, steps, eval_every=3):
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    record = []
    for step in range(steps):
        model.train(step % eval_every != eval_every - 1)
        opt.zero_grad()
        loss = (model(x) ** 2).sum() + model.weight.sum()
        loss.backward()
        grads = {n: p.grad.numpy().copy() for n, p in model.named_parameters()}
        opt.step()
        record.append((loss.item(), model.weight.detach().numpy().copy(), grads,
                       {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}))
    return record


def _compare(ours, theirs):
    for (l1, w1, g1, s1), (l2, w2, g2, s2) in zip(ours, theirs):
        np.testing.assert_allclose(l1, l2, rtol=1e-12)
        np.testing.assert_allclose(w1, w2, rtol=1e-12, atol=1e-14)
        assert g1.keys() == g2.keys()
        for k in g1:
            np.testing.assert_allclose(g1[k], g2[k], rtol=1e-11, atol=1e-13)
        assert list(s1) == list(s2)
        for k in s1:
            np.testing.assert_allclose(s1[k], s2[k], rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("api", ["hook", "parametrization"])
@pytest.mark.parametrize("kind", list(MODULES))
def test_training_matches_pytorch(kind, api):
    kwargs = {"dim": 1} if kind == "conv1d_dim1" else {}
    ours, theirs = _pair(kind, api, **kwargs)
    x = np.random.default_rng(1).normal(size=MODULES[kind][1])
    _compare(_train(ours, jitgrad, jitgrad.tensor(x), 7), _train(theirs, torch, torch.tensor(x), 7))


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["hook", "parametrization"]), st.integers(1, 4), st.integers(1, 6), st.integers(1, 6),
       st.sampled_from([1e-12, 1e-3]), st.integers(0, 1000))
def test_power_iterations_and_shapes_match_pytorch(api, iterations, n_out, n_in, eps, seed):
    torch.manual_seed(seed)
    theirs = torch.nn.Linear(n_in, n_out).double()
    ours = jitgrad.nn.Linear(n_in, n_out).double()
    ours.load_state_dict({k: jitgrad.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    norm = {"hook": lambda lib: lib.nn.utils.spectral_norm, "parametrization":
            lambda lib: lib.nn.utils.parametrizations.spectral_norm}[api]
    norm(torch)(theirs, n_power_iterations=iterations, eps=eps)
    norm(jitgrad)(ours, n_power_iterations=iterations, eps=eps)
    ours.load_state_dict({k: jitgrad.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(seed).normal(size=(2, n_in))
    _compare(_train(ours, jitgrad, jitgrad.tensor(x), 4, eval_every=2), _train(theirs, torch, torch.tensor(x), 4, eval_every=2))


@pytest.mark.parametrize("api", ["hook", "parametrization"])
def test_state_dict_keys_buffers_and_structure_as_pytorch(api):
    def program(lib):
        module = _module(lib, "conv2d", api)
        buffers = sorted((n, tuple(b.shape)) for n, b in module.named_buffers())
        params = sorted((n, tuple(p.shape)) for n, p in module.named_parameters())
        u = module.weight_u if api == "hook" else module.parametrizations.weight[0]._u
        return list(module.state_dict()), buffers, params, float(u.norm()), type(module.weight).__name__
    ours, theirs = program(jitgrad), program(torch)
    assert ours[:3] == theirs[:3]
    np.testing.assert_allclose(ours[3], 1.0, rtol=1e-15)
    assert ours[4] in ("Tensor", "Parameter") and theirs[4] in ("Tensor", "Parameter")


def test_sigma_is_the_largest_singular_value_after_many_iterations():
    """Whatever the start, many iterations make the weight's spectral norm 1."""
    module = jitgrad.nn.utils.parametrizations.spectral_norm(jitgrad.nn.Linear(6, 4).double(), n_power_iterations=50)
    w = module.weight
    assert abs(np.linalg.norm(w.detach().numpy(), 2) - 1.0) < 1e-10
    hooked = jitgrad.nn.utils.spectral_norm(jitgrad.nn.Linear(6, 4).double(), n_power_iterations=200)
    hooked(jitgrad.ones(1, 6, dtype=jitgrad.float64))
    assert abs(np.linalg.norm(hooked.weight.detach().numpy(), 2) - 1.0) < 1e-10


def test_gradcheck_through_the_normalised_weight():
    """In eval mode (fixed ``u``, ``v``) the parametrization is a smooth function of the weight."""
    module = jitgrad.nn.utils.parametrizations.spectral_norm(jitgrad.nn.Linear(3, 2).double()).eval()
    w = jitgrad.tensor(module.parametrizations.weight.original.detach().numpy(), requires_grad=True)
    assert jitgrad.autograd.gradcheck(lambda w: module.parametrizations.weight[0](w), (w,))
    assert jitgrad.autograd.gradgradcheck(lambda w: module.parametrizations.weight[0](w), (w,))


def test_one_dimensional_weight_is_normalised_as_pytorch():
    def program(lib):
        m = lib.nn.Module()
        m.register_parameter("weight", lib.nn.Parameter(lib.tensor([3.0, 4.0], dtype=lib.float64)))
        lib.nn.utils.parametrizations.spectral_norm(m)
        return m.weight, list(m.state_dict())
    both(program)


@pytest.mark.parametrize("api", ["hook", "parametrization"])
def test_remove_as_pytorch(api):
    ours, theirs = _pair("linear", api)
    x = np.ones((1, 5))
    ours(jitgrad.tensor(x))
    theirs(torch.tensor(x))
    if api == "hook":
        jitgrad.nn.utils.remove_spectral_norm(ours)
        torch.nn.utils.remove_spectral_norm(theirs)
    else:
        jitgrad.nn.utils.parametrize.remove_parametrizations(ours, "weight")
        torch.nn.utils.parametrize.remove_parametrizations(theirs, "weight")
    assert list(ours.state_dict()) == list(theirs.state_dict())
    np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy(), rtol=1e-13)
    assert isinstance(ours.weight, jitgrad.nn.Parameter)


@pytest.mark.parametrize("call, fragment", [
    (lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0), "got n_power_iterations=0"),
    (lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=-1),
     "got n_power_iterations=-1"),
    (lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), dim=2),
     "Dimension out of range (expected to be in range of [-2, 1] but got 2)"),
    (lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), name="nothing"),
     "has no parameter or buffer with name 'nothing'"),
    (lambda lib: lib.nn.utils.spectral_norm(lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2))),
     "Cannot register two spectral_norm hooks on the same parameter weight"),
    (lambda lib: lib.nn.utils.remove_spectral_norm(lib.nn.Linear(2, 2)), "spectral_norm of 'weight' not found in"),
])
def test_bad_input_raises_as_pytorch(call, fragment):
    both(call, fragment)


def test_bad_input_changes_nothing():
    module = jitgrad.nn.Linear(2, 2)
    before = {k: v.numpy().copy() for k, v in module.state_dict().items()}
    for call in (lambda: jitgrad.nn.utils.spectral_norm(module, n_power_iterations=0),
                 lambda: jitgrad.nn.utils.parametrizations.spectral_norm(module, dim=3)):
        with pytest.raises((ValueError, IndexError)):
            call()
        assert list(module.state_dict()) == list(before)
        assert all(np.array_equal(module.state_dict()[k].numpy(), v) for k, v in before.items())
        assert not module._forward_pre_hooks and type(module) is jitgrad.nn.Linear
