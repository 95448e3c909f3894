"""``nn.utils.parametrizations.orthogonal`` side by side with PyTorch: the three maps, tall,
wide, square and batched weights, with and without the trivialization; weights, gradients and
buffers over training steps (PyTorch's random completion of a non-square base is loaded into
jitgrad's module first), assignment through ``right_inverse``, and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from compat_helpers import both

from test_spectral_norm import _compare, _train  # (the same training loop)


def _holder(lib, shape, seed):
    module = lib.nn.Module()
    data = np.random.default_rng(seed).normal(size=shape)
    module.register_parameter("weight", lib.nn.Parameter(lib.tensor(data, dtype=lib.float64)))
    module.forward = lambda x: x @ module.weight.mT  # (the loop calls model(x))
    return module


def _pair(shape, orthogonal_map, trivial, seed=0):
    torch.manual_seed(seed)
    theirs = torch.nn.utils.parametrizations.orthogonal(_holder(torch, shape, seed), orthogonal_map=orthogonal_map,
                                                        use_trivialization=trivial)
    ours = jitgrad.nn.utils.parametrizations.orthogonal(_holder(jitgrad, shape, seed), orthogonal_map=orthogonal_map,
                                                        use_trivialization=trivial)
    return ours, theirs


def _load(ours, theirs):
    ours.load_state_dict({k: jitgrad.tensor(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()})


CASES = [((4, 4), "matrix_exp"), ((4, 4), "cayley"), ((4, 4), "householder"), ((5, 3), "householder"),
         ((3, 5), "householder"), ((5, 3), "matrix_exp"), ((3, 5), "cayley"), ((2, 3, 3), "matrix_exp"),
         ((2, 4, 2), "householder"), ((4, 4), None), ((5, 2), None)]


@pytest.mark.parametrize("trivial", [True, False])
@pytest.mark.parametrize("shape, orthogonal_map", CASES)
def test_training_matches_pytorch(shape, orthogonal_map, trivial):
    ours, theirs = _pair(shape, orthogonal_map, trivial)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    if shape[-1] == shape[-2] or not trivial:  # deterministic: the same initial state from the same weight
        for k, v in theirs.state_dict().items():
            np.testing.assert_allclose(ours.state_dict()[k].numpy(), v.numpy(), rtol=1e-12, atol=1e-13)
    _load(ours, theirs)
    x = np.random.default_rng(1).normal(size=(3, shape[-1]))
    if len(shape) == 3:
        x = x[None]
    w = ours.weight.detach().numpy()
    gram = w.swapaxes(-1, -2) @ w if shape[-2] >= shape[-1] else w @ w.swapaxes(-1, -2)
    np.testing.assert_allclose(gram, np.broadcast_to(np.eye(gram.shape[-1]), gram.shape), atol=1e-13)
    _compare(_train(ours, jitgrad, jitgrad.tensor(x), 5), _train(theirs, torch, torch.tensor(x), 5))


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 5), st.integers(1, 5), st.sampled_from(["matrix_exp", "cayley", "householder"]),
       st.integers(0, 1000))
def test_shapes_match_pytorch(n, k, orthogonal_map, seed):
    ours, theirs = _pair((n, k), orthogonal_map, True, seed)
    _load(ours, theirs)
    np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy(), rtol=1e-11, atol=1e-12)
    g = np.random.default_rng(seed).normal(size=(n, k))
    (ours.weight * jitgrad.tensor(g)).sum().backward()
    (theirs.weight * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(ours.parametrizations.weight.original.grad.numpy(),
                               theirs.parametrizations.weight.original.grad.numpy(), rtol=1e-10, atol=1e-11)


@pytest.mark.parametrize("shape, orthogonal_map, trivial", [((4, 4), "matrix_exp", True), ((4, 4), "cayley", True),
                                                             ((5, 3), "householder", False),
                                                             ((3, 5), "householder", False)])
def test_assignment_as_pytorch(shape, orthogonal_map, trivial):
    ours, theirs = _pair(shape, orthogonal_map, trivial)
    value = np.random.default_rng(7).normal(size=shape)
    ours.weight = jitgrad.tensor(value)
    theirs.weight = torch.tensor(value)
    for k, v in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[k].numpy(), v.numpy(), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy(), rtol=1e-11, atol=1e-12)


def test_householder_product_against_numpy_qr():
    a = np.random.default_rng(0).normal(size=(6, 4))
    raw, tau = np.linalg.qr(a, mode="raw")
    ours = jitgrad.nn.utils.orthogonal.householder_product(jitgrad.tensor(raw.T.copy()), jitgrad.tensor(tau))
    q, _ = np.linalg.qr(a)
    np.testing.assert_allclose(ours.numpy(), q, atol=1e-14)
    theirs = torch.linalg.householder_product(torch.tensor(raw.T.copy()), torch.tensor(tau))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-14)
    a_t = jitgrad.tensor(raw.T.copy(), requires_grad=True)
    t_t = jitgrad.tensor(tau, requires_grad=True)
    assert jitgrad.autograd.gradcheck(jitgrad.nn.utils.orthogonal.householder_product, (a_t, t_t))


@pytest.mark.parametrize("call, fragment", [
    (lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), orthogonal_map="qr"),
     'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: qr'),
    (lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), name="bias"),
     "Expected a matrix or batch of matrices. Got a tensor of 1 dimensions."),
    (lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), name="nothing"),
     "has no parameter or buffer with name 'nothing'"),
    (lambda lib: setattr(lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), use_trivialization=False),
                         "weight", lib.eye(2)),
     "It is not possible to assign to the matrix exponential or the Cayley parametrizations"),
])
def test_bad_input_raises_as_pytorch(call, fragment):
    both(call, fragment)


def test_bad_assignment_raises_as_pytorch_and_changes_nothing():
    def program(lib):
        module = lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3).double())
        before = {k: v.clone() for k, v in module.state_dict().items()}
        try:
            module.weight = lib.ones(2, 2, dtype=lib.float64)
        except ValueError as e:
            return str(e).replace("jitgrad.Size", "torch.Size"), all(
                (module.state_dict()[k] == v).all().item() for k, v in before.items())
        return "no error"
    both(program)


@pytest.mark.parametrize("shape, orthogonal_map", [((3, 3), "matrix_exp"), ((3, 3), "cayley"), ((4, 2), "householder"),
                                                   ((2, 4), "matrix_exp"), ((4, 3), "cayley")])
def test_maps_gradcheck(shape, orthogonal_map):
    module, _ = _pair(shape, orthogonal_map, True)
    parametrization = module.parametrizations.weight[0]
    data = np.random.default_rng(2).normal(size=shape) * 0.5
    if orthogonal_map == "householder":  # (its diagonal holds the signs: int(-1.5) = -1, away from a jump)
        np.fill_diagonal(data, -1.5)
    x = jitgrad.tensor(data, requires_grad=True)
    assert jitgrad.autograd.gradcheck(parametrization, (x,))
