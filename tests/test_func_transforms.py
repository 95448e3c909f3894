"""``jitgrad.func`` beside ``torch.func`` (float64): the same programs of ``grad``, ``vjp``,
``jvp``, ``jacrev``, ``jacfwd``, ``hessian``, ``vmap`` and ``functional_call`` give the same
values, the same ``requires_grad`` on what they return (a result is differentiable only when
it depends on something outside the transform), the same structure, and the same error
types (with the message's key phrase) on bad input."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget

LIBS = [torch, jitgrad]


def _plain(value: Any) -> Any:
    """Tensors as (values, requires_grad) through nested tuples/lists/dicts."""
    if isinstance(value, (torch.Tensor, jitgrad.Tensor)):
        return (np.asarray(value.detach().tolist(), dtype=float), bool(value.requires_grad))
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(_plain(v) for v in value)
    return value


def _match(ours: Any, theirs: Any, rtol: float) -> None:
    if isinstance(theirs, tuple) and len(theirs) == 2 and isinstance(theirs[0], np.ndarray):
        np.testing.assert_allclose(ours[0], theirs[0], rtol=rtol, atol=1e-300)
        assert ours[1] == theirs[1], "requires_grad differs"
    elif isinstance(theirs, dict):
        assert ours.keys() == theirs.keys()
        for k in theirs:
            _match(ours[k], theirs[k], rtol)
    elif isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _match(a, b, rtol)
    else:
        assert ours == theirs


def both(program: Callable[[Any], Any], rtol: float = 1e-13) -> None:
    _match(_plain(program(jitgrad)), _plain(program(torch)), rtol)


def vec(lib: Any, values: Any, grad: bool = False) -> Any:
    return lib.tensor(values, dtype=lib.float64, requires_grad=grad)


def f_scalar(x: Any) -> Any:
    return (x.sin() * x).sum() + (x[0] * x[-1]) ** 2


PROGRAMS: dict[str, Callable[[Any], Any]] = {
    "grad": lambda lib: lib.func.grad(f_scalar)(vec(lib, [0.5, -1.0, 2.0])),
    "grad_and_value": lambda lib: lib.func.grad_and_value(f_scalar)(vec(lib, [0.5, -1.0, 2.0])),
    "grad_argnums": lambda lib: lib.func.grad(lambda a, b: (a * b.exp()).sum(), argnums=(0, 1))(
        vec(lib, [1.0, 2.0]), vec(lib, [0.3, -0.2])),
    "grad_has_aux": lambda lib: lib.func.grad(lambda x: ((x ** 2).sum(), x.mean()), has_aux=True)(
        vec(lib, [1.0, 3.0])),
    "grad_dict": lambda lib: lib.func.grad(lambda p: (p["w"] * p["b"]).sum())(
        {"w": vec(lib, [1.0, 2.0]), "b": vec(lib, [3.0, 4.0])}),
    "grad_of_grad": lambda lib: lib.func.grad(lambda x: lib.func.grad(lambda y: (y ** 4).sum())(x).sum())(
        vec(lib, [0.5, 2.0])),
    "vjp": lambda lib: (lambda out_fn: (out_fn[0], out_fn[1](vec(lib, [1.0, -2.0, 0.5]))))(
        lib.func.vjp(lambda x: x.exp() * x[1], vec(lib, [0.1, 0.2, 0.3]))),
    "jvp": lambda lib: lib.func.jvp(lambda x, y: x.sin() * y, (vec(lib, [0.1, 0.7]), vec(lib, [2.0, 3.0])),
                                    (vec(lib, [1.0, 0.0]), vec(lib, [0.5, 0.5]))),
    "jacrev": lambda lib: lib.func.jacrev(lambda x: x.cumsum(0) * x[0])(vec(lib, [1.0, 2.0, 3.0])),
    "jacrev_matrix_in_out": lambda lib: lib.func.jacrev(lambda m: m @ m.T)(vec(lib, [[1.0, 2.0], [0.5, -1.0]])),
    "jacfwd": lambda lib: lib.func.jacfwd(lambda x: (x ** 3).tanh())(vec(lib, [0.3, -0.2])),
    "hessian": lambda lib: lib.func.hessian(lambda x: (x ** 2 * x[1]).sum() + x.prod())(vec(lib, [0.5, -1.0, 2.0])),
    "hessian_argnums": lambda lib: lib.func.hessian(lambda a, b: (a * b).sum() * a.sum(), argnums=1)(
        vec(lib, [1.0, 2.0]), vec(lib, [0.5, 0.25])),
    "vmap": lambda lib: lib.func.vmap(lambda r: (r * r).sum())(vec(lib, [[1.0, 2.0], [3.0, 4.0]])),
    "vmap_in_dims": lambda lib: lib.func.vmap(lambda a, s: a * s, in_dims=(1, None))(
        vec(lib, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), vec(lib, 2.0)),
    "vmap_out_dims": lambda lib: lib.func.vmap(lambda a: (a, a.sum()), out_dims=(1, 0))(
        vec(lib, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])),
    "vmap_nested": lambda lib: lib.func.vmap(lib.func.vmap(lambda a, b: a * b, in_dims=(0, None)), in_dims=(None, 0))(
        vec(lib, [1.0, 2.0, 3.0]), vec(lib, [10.0, 20.0])),
    "per_sample_grads": lambda lib: lib.func.vmap(
        lib.func.grad(lambda w, x, y: ((x * w).sum() - y) ** 2), in_dims=(None, 0, 0))(
        vec(lib, [0.1, 0.2]), vec(lib, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), vec(lib, [1.0, 0.0, -1.0])),
    "pinn_laplacian": lambda lib: lib.func.vmap(lib.func.hessian(lambda p: (p ** 3).sum().sin()))(
        vec(lib, [[0.1, 0.2], [0.3, -0.4]])),
    "vmap_of_jacrev": lambda lib: lib.func.vmap(lib.func.jacrev(lambda p: p.exp() * p.sum()))(
        vec(lib, [[0.1, 0.2], [0.3, -0.4], [1.0, 1.0]])),
    # outer differentiation through a transform: captured and outer tensors keep their graph
    "captured_requires_grad": lambda lib: (lambda y: (lambda g: (g, lib.autograd.grad(g.sum(), y)[0]))(
        lib.func.grad(lambda x: (x * y).sum() * x.sum())(vec(lib, [1.0, 2.0]))))(vec(lib, [3.0, 4.0], True)),
    "input_requires_grad": lambda lib: (lambda x: (lambda g: (g, lib.autograd.grad(g.sum(), x)[0]))(
        lib.func.grad(lambda z: (z ** 3).sum())(x)))(vec(lib, [1.0, -2.0], True)),
}

FORWARD_MODE = {"jvp", "jacfwd", "hessian", "hessian_argnums", "pinn_laplacian"}  # (PyTorch: forward mode)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_transform_matches_pytorch(name: str) -> None:
    both(PROGRAMS[name], rtol=1e-12 if name in FORWARD_MODE else 4e-16)


def test_functional_call_replaces_for_one_call_and_differentiates() -> None:
    def program(lib: Any) -> Any:
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.Tanh(), lib.nn.Linear(2, 1)).double()
        with lib.no_grad():
            for i, p in enumerate(m.parameters()):
                p.copy_(lib.arange(p.numel(), dtype=lib.float64).reshape(p.shape) * 0.1 - 0.05 * i)
        x = vec(lib, [[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])
        params = {k: v.detach() * 2 for k, v in m.named_parameters()}
        before = [p.tolist() for p in m.parameters()]
        out = lib.func.functional_call(m, params, (x,))
        grads = lib.func.grad(lambda p: lib.func.functional_call(m, p, x).pow(2).sum())(params)
        after = [p.tolist() for p in m.parameters()]
        assert before == after  # the module's own parameters are back
        return out, grads, m(x)
    both(program)


def test_functional_call_tied_weights_and_strict() -> None:
    def program(lib: Any) -> Any:
        m = lib.nn.Module()
        m.a = lib.nn.Linear(2, 2, bias=False).double()
        m.b = lib.nn.Linear(2, 2, bias=False).double()
        m.b.weight = m.a.weight  # tied
        m.forward = lambda x: m.b(m.a(x))
        w = vec(lib, [[1.0, 0.0], [2.0, 1.0]])
        out = lib.func.functional_call(m, {"a.weight": w}, (vec(lib, [1.0, 1.0]),))
        untied = lib.func.functional_call(m, {"a.weight": w}, (vec(lib, [1.0, 1.0]),), tie_weights=False)
        with pytest.raises(RuntimeError, match="Missing key"):
            lib.func.functional_call(m, {}, (vec(lib, [1.0, 1.0]),), strict=True)
        return out, tuple(untied.shape)
    both(program)


@pytest.mark.parametrize("randomness", ["same", "different"])
def test_vmap_randomness_modes(randomness: str) -> None:
    """``same``: every index draws the same numbers; ``different``: its own (jitgrad's numbers
    are its own generator's, so only that property is compared)."""
    for lib in LIBS:
        lib.manual_seed(7)
        out = lib.func.vmap(lambda r: r + lib.rand(3, dtype=lib.float64), randomness=randomness)(
            lib.zeros(4, 3, dtype=lib.float64))
        rows = {tuple(r) for r in out.tolist()}
        assert len(rows) == (1 if randomness == "same" else 4)


BAD: dict[str, tuple[Callable[[Any], Any], type[Exception], str]] = {
    "grad_of_vector": (lambda lib: lib.func.grad(lambda x: x * 2)(vec(lib, [1.0, 2.0])),
                       RuntimeError, "Expected f(*args) to return a scalar Tensor"),
    "grad_of_number": (lambda lib: lib.func.grad(lambda x: 3.0)(vec(lib, [1.0])),
                       RuntimeError, "to return a Tensor"),
    "grad_argnums_range": (lambda lib: lib.func.grad(lambda x: x.sum(), argnums=2)(vec(lib, [1.0])),
                           RuntimeError, "but only 1 positional inputs"),
    "grad_aux_not_pair": (lambda lib: lib.func.grad(lambda x: x.sum(), has_aux=True)(vec(lib, [1.0])),
                          RuntimeError, "should be a tuple: (output, aux)"),
    "vmap_sizes": (lambda lib: lib.func.vmap(lambda a, b: a + b)(lib.zeros(2), lib.zeros(3)),
                   ValueError, "same size in the mapped dimension"),
    "vmap_in_dim_range": (lambda lib: lib.func.vmap(lambda a: a, in_dims=2)(lib.zeros(2, 3)),
                          ValueError, "expected in_dim to satisfy"),
    "vmap_non_tensor": (lambda lib: lib.func.vmap(lambda a: a)(3.0),
                        ValueError, "cannot vmap over non-Tensor arguments"),
    "vmap_no_inputs": (lambda lib: lib.func.vmap(lambda: lib.zeros(1))(),
                       ValueError, "got no inputs"),
    "vmap_returns_number": (lambda lib: lib.func.vmap(lambda a: 1.0)(lib.zeros(2)),
                            ValueError, "must only return Tensors"),
    "vmap_random_error": (lambda lib: lib.func.vmap(lambda a: a + lib.rand(1))(lib.zeros(2)),
                          RuntimeError, "randomness error mode"),
    "vmap_bad_randomness": (lambda lib: lib.func.vmap(lambda a: a, randomness="sometimes"),
                            RuntimeError, "Only allowed values for randomness"),
    "vmap_in_dims_list": (lambda lib: lib.func.vmap(lambda a: a, in_dims=[0])(lib.zeros(2)),
                          ValueError, "expected `in_dims` to be int or a (potentially nested) tuple"),
    "functional_call_dup": (lambda lib: lib.func.functional_call(
        lib.nn.Linear(1, 1), ({"weight": lib.zeros(1, 1)}, {"weight": lib.zeros(1, 1)}), (lib.zeros(1),)),
        ValueError, "appeared in multiple dictionaries"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_raises_as_pytorch(name: str) -> None:
    program, error, phrase = BAD[name]
    for lib in LIBS:
        with pytest.raises(error) as info:
            program(lib)
        assert phrase in str(info.value), (lib.__name__, str(info.value))


def test_random_guard_is_removed_after_an_error() -> None:
    with pytest.raises(RuntimeError):
        jitgrad.func.vmap(lambda a: a + jitgrad.rand(1))(jitgrad.zeros(2))
    assert jitgrad.rand(2).shape == (2,)


@settings(max_examples=budget(40), deadline=None)
@given(shape=st.lists(st.integers(1, 3), min_size=1, max_size=3), data=st.data())
def test_vmap_over_any_dim_matches_pytorch(shape: list[int], data: st.DataObject) -> None:
    """A random in_dim and out_dim over a random shape: vmap of an elementwise-and-reduce
    function gives PyTorch's result and gradient."""
    in_dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    out_dim = data.draw(st.integers(-(len(shape)), len(shape) - 1))
    values = np.arange(np.prod(shape), dtype=float).reshape(shape) * 0.25 - 1.0

    def program(lib: Any) -> Any:
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        out = lib.func.vmap(lambda r: r.exp() * r.sum(), in_dims=in_dim, out_dims=out_dim)(x)
        (out * out).sum().backward()
        return out, x.grad
    both(program)


@pytest.mark.parametrize("op", ["logcumsumexp", "cumprod", "sin"])
def test_jvp_where_a_backward_is_singular_at_a_zero_cotangent(op: str) -> None:
    """``func.jvp``'s double-vjp dummy cotangent is ones: a backward taking log |u| gave NaN
    at zeros (logcumsumexp), where PyTorch's forward AD gives J t."""
    def run(lib: Any) -> Any:
        f = {"logcumsumexp": lambda a: a.logcumsumexp(0), "cumprod": lambda a: a.cumprod(0),
             "sin": lambda a: a.sin()}[op]
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64)
        t = lib.tensor([1.0, 0.5, 0.25], dtype=lib.float64)
        return lib.func.jvp(f, (x,), (t,))[1]
    np.testing.assert_allclose(run(jitgrad).numpy(), run(torch).numpy(), rtol=1e-12, atol=1e-15)
