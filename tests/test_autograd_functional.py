"""jitgrad.autograd.functional against torch.autograd.functional (float64): values, output
structures (tensor vs tuple vs tuple of tuples), create_graph, strict-mode errors, bad v."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch
import torch.autograd.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
import jitgrad.autograd.functional as JF
from conftest import budget

R = np.random.default_rng(7)
X = R.standard_normal(3)
Y = R.standard_normal((2, 3))


def T(lib: Any, a: np.ndarray) -> Any:
    return lib.from_numpy(np.array(a, copy=True))


def assert_same(ours: Any, theirs: Any, path: str = "result") -> None:
    """Same nesting (tuple vs tensor, lengths), shapes, dtypes, values, requires_grad."""
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple), f"{path}: expected a tuple, got {type(ours).__name__}"
        assert len(ours) == len(theirs), f"{path}: length {len(ours)} != {len(theirs)}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, f"{path}[{i}]")
        return
    assert isinstance(ours, jitgrad.Tensor), f"{path}: expected a Tensor, got {type(ours).__name__}"
    assert tuple(ours.shape) == tuple(theirs.shape), (path, tuple(ours.shape), tuple(theirs.shape))
    assert ours.requires_grad == theirs.requires_grad, f"{path}: requires_grad"
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12, err_msg=path)


def as_tuples(x: Any) -> Any:
    return tuple(as_tuples(e) for e in x) if isinstance(x, (list, tuple)) else x.detach()


def cube_sum(lib: Any) -> Callable[..., Any]:
    return lambda a: (a**3).sum()


def two_outputs(lib: Any) -> Callable[..., Any]:
    return lambda a, b: (lib.exp(a) * b, (a * b).sum(1))


def scalar_of_two(lib: Any) -> Callable[..., Any]:
    return lambda a, b: (a.sin() * b).sum() + (a * a).sum()


def linear(lib: Any) -> Callable[..., Any]:
    return lambda a: 2 * a


CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "jacobian_single": lambda lib, F: F.jacobian(cube_sum(lib), T(lib, X)),
    "jacobian_vector_out": lambda lib, F: F.jacobian(lambda a: lib.exp(a) * 2, T(lib, X)),
    "jacobian_tuple_in_out": lambda lib, F: F.jacobian(two_outputs(lib), (T(lib, X), T(lib, Y))),
    "jacobian_tuple_in_single_out": lambda lib, F: F.jacobian(lambda a, b: a * b[0], (T(lib, X), T(lib, Y))),
    "jacobian_single_in_tuple_out": lambda lib, F: F.jacobian(lambda a: (a.sin(), a.sum()), T(lib, X)),
    "jacobian_one_tuple": lambda lib, F: F.jacobian(lambda a: a * a, (T(lib, X),)),
    "jacobian_unused_input": lambda lib, F: F.jacobian(lambda a, b: a * 2, (T(lib, X), T(lib, Y))),
    "jacobian_vectorize": lambda lib, F: F.jacobian(lambda a: a.sin(), T(lib, X), vectorize=True),
    "jacobian_create_graph": lambda lib, F: F.jacobian(lambda a: a**2, T(lib, X), create_graph=True),
    "hessian_single": lambda lib, F: F.hessian(cube_sum(lib), T(lib, X)),
    "hessian_tuple": lambda lib, F: F.hessian(scalar_of_two(lib), (T(lib, X), T(lib, Y))),
    "hessian_linear": lambda lib, F: F.hessian(lambda a: (2 * a).sum(), T(lib, X)),
    # PyTorch's forward-mode route returns lists here (its documented structure is tuples,
    # which jitgrad returns) of tensors that require grad without create_graph: compared as
    # detached tuples
    "hessian_vectorized_forward_over_reverse": lambda lib, F: as_tuples(F.hessian(
        scalar_of_two(lib), (T(lib, X), T(lib, Y)), vectorize=True, outer_jacobian_strategy="forward-mode")),
    "hessian_create_graph": lambda lib, F: F.hessian(cube_sum(lib), T(lib, X), create_graph=True),
    "hessian_matrix_input": lambda lib, F: F.hessian(lambda a: (a**3).sum(), T(lib, Y)),
    "vjp": lambda lib, F: F.vjp(two_outputs(lib), (T(lib, X), T(lib, Y)), (T(lib, Y), T(lib, X[:2]))),
    "vjp_scalar_v_none": lambda lib, F: F.vjp(cube_sum(lib), T(lib, X)),
    "vjp_single": lambda lib, F: F.vjp(linear(lib), T(lib, X), T(lib, X)),
    "vjp_create_graph": lambda lib, F: F.vjp(lambda a: a**2, T(lib, X), T(lib, X), create_graph=True),
    "jvp": lambda lib, F: F.jvp(two_outputs(lib), (T(lib, X), T(lib, Y)), (T(lib, X), T(lib, Y))),
    "jvp_single": lambda lib, F: F.jvp(lambda a: a.sin(), T(lib, X), T(lib, X)),
    "jvp_scalar_in": lambda lib, F: F.jvp(lambda a: a * lib.ones(3, dtype=a.dtype), T(lib, X[:1].reshape(()))),
    "hvp": lambda lib, F: F.hvp(scalar_of_two(lib), (T(lib, X), T(lib, Y)), (T(lib, X), T(lib, Y))),
    "hvp_single": lambda lib, F: F.hvp(cube_sum(lib), T(lib, X), T(lib, X)),
    "vhp": lambda lib, F: F.vhp(scalar_of_two(lib), (T(lib, X), T(lib, Y)), (T(lib, X), T(lib, Y))),
    "vhp_single_create_graph": lambda lib, F: F.vhp(cube_sum(lib), T(lib, X), T(lib, X), create_graph=True),
    "hvp_linear_zeros": lambda lib, F: F.hvp(lambda a: (3 * a).sum(), T(lib, X), T(lib, X)),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_functional_matches_torch(name: str) -> None:
    assert_same(CALLS[name](jitgrad, JF), CALLS[name](torch, TF))


def test_create_graph_results_are_differentiable() -> None:
    results = []
    for lib, F in ((jitgrad, JF), (torch, TF)):
        x = T(lib, X).requires_grad_()
        h = F.hessian(lambda a: (a**4).sum(), x, create_graph=True)
        (g,) = (jitgrad.autograd.grad if lib is jitgrad else torch.autograd.grad)(h.sum(), x)
        results.append(g)
    assert_same(results[0], results[1])


@settings(max_examples=budget(15))
@given(shape=st.lists(st.integers(1, 3), min_size=1, max_size=2), seed=st.integers(0, 2**16))
def test_jacobian_and_hessian_property(shape: list[int], seed: int) -> None:
    a = np.random.default_rng(seed).standard_normal(shape)

    def call(lib: Any, F: Any) -> Any:
        f = lambda t: (t.sin() * t).sum()  # noqa: E731
        g = lambda t: lib.tanh(t) * t  # noqa: E731
        return F.hessian(f, T(lib, a)), F.jacobian(g, T(lib, a))

    assert_same(call(jitgrad, JF), call(torch, TF))


def errors(call: Callable[[Any, Any], Any]) -> tuple[BaseException, BaseException]:
    caught = []
    for lib, F in ((jitgrad, JF), (torch, TF)):
        with pytest.raises((RuntimeError, TypeError, ValueError, NotImplementedError)) as info:
            call(lib, F)
        caught.append(info.value)
    ours, theirs = caught
    assert type(ours).__mro__[1:] == type(theirs).__mro__[1:] or isinstance(ours, type(theirs)), (ours, theirs)
    return ours, theirs


BAD: dict[str, Callable[[Any, Any], Any]] = {
    "strict_independent_output": lambda lib, F: F.jacobian(lambda a, b: a * 2, (T(lib, X), T(lib, Y)), strict=True),
    "strict_output_no_grad": lambda lib, F: F.vjp(lambda a: a.detach(), T(lib, X), T(lib, X), strict=True),
    "strict_linear_hessian": lambda lib, F: F.hessian(lambda a: (2 * a).sum(), T(lib, X), strict=True),
    "strict_vectorize": lambda lib, F: F.jacobian(lambda a: a, T(lib, X), strict=True, vectorize=True),
    "forward_mode_without_vectorize": lambda lib, F: F.jacobian(lambda a: a, T(lib, X), strategy="forward-mode"),
    "v_none_non_scalar": lambda lib, F: F.vjp(lambda a: a * 2, T(lib, X)),
    "v_wrong_size": lambda lib, F: F.vjp(lambda a: a * 2, T(lib, X), T(lib, Y)),
    "v_wrong_length": lambda lib, F: F.jvp(lambda a, b: a * b, (T(lib, X), T(lib, X)), (T(lib, X),)),
    "jvp_v_none_non_scalar_input": lambda lib, F: F.jvp(lambda a: a * 2, T(lib, X)),
    "hessian_non_scalar": lambda lib, F: F.hessian(lambda a: a * 2, T(lib, X)),
    "hessian_tuple_output": lambda lib, F: F.hessian(lambda a: (a.sum(), a.sum()), T(lib, X)),
    "vhp_non_scalar": lambda lib, F: F.vhp(lambda a: a * a, T(lib, X), T(lib, X)),
    "hvp_tuple_output": lambda lib, F: F.hvp(lambda a: (a.sum(),), T(lib, X), T(lib, X)),
    "inputs_not_tensors": lambda lib, F: F.jacobian(lambda a: a, [1.0, 2.0]),
    "outputs_not_tensors": lambda lib, F: F.vjp(lambda a: 3.0, T(lib, X)),
    "inputs_tuple_with_non_tensor": lambda lib, F: F.jacobian(lambda a, b: a, (T(lib, X), 2)),
}


REWORDED = {"forward_mode_without_vectorize"}  # PyTorch's message has a typo ("isonly")


@pytest.mark.parametrize("name", list(BAD))
def test_bad_use_raises_like_torch(name: str) -> None:
    ours, theirs = errors(BAD[name])
    if name in REWORDED:
        assert "vectorize=True" in str(ours)
    elif type(ours) is not TypeError:  # type names differ (jitgrad.Tensor vs torch.Tensor)
        assert str(ours).replace("jitgrad.", "torch.") == str(theirs)


def test_unknown_strategy_is_a_value_error() -> None:
    """PyTorch uses ``assert`` (AssertionError, gone under ``python -O``); jitgrad raises
    ValueError with the same words."""
    with pytest.raises(AssertionError, match="forward-mode"):
        TF.jacobian(lambda a: a, torch.ones(2), strategy="sideways")
    for call in (lambda: JF.jacobian(lambda a: a, jitgrad.ones(2), strategy="sideways"),
                 lambda: JF.hessian(lambda a: a.sum(), jitgrad.ones(2), outer_jacobian_strategy="x")):
        with pytest.raises(ValueError, match="forward-mode"):
            call()


def test_inputs_are_left_untouched() -> None:
    x = jitgrad.from_numpy(X.copy()).requires_grad_()
    JF.hessian(lambda a: (a**3).sum(), x)
    JF.jacobian(lambda a: a.sin(), x)
    assert x.grad is None and x.is_leaf and x._version == 0
    np.testing.assert_array_equal(x.detach().numpy(), X)
