"""``jitgrad.autograd.forward_ad`` side by side with ``torch.autograd.forward_ad`` (float64):
the same program runs on both libraries and the primals, tangents, errors and reverse-mode
state (``requires_grad``, ``grad_fn``, ``is_leaf``, gradients) must match; tangents are also
checked against finite differences, and Hypothesis draws random programs of views, in-place
writes and elementwise ops (the views + in-place fuzz's generator)."""

from __future__ import annotations

import importlib
import sys
from typing import Any, Callable

import numpy as np
import pytest
import torch

import jitgrad
from compat_helpers import both, outcome, raised, same

D = "float64"


def fw(lib: Any) -> Any:
    return importlib.import_module(lib.__name__ + ".autograd.forward_ad")


def data(lib: Any, *shape: int, seed: int = 0, grad: bool = False) -> Any:
    values = np.random.default_rng(seed).uniform(-2.0, 2.0, shape)
    return lib.tensor(values, dtype=lib.float64, requires_grad=grad)


def in_level(program: Callable[[Any, Any], Any]) -> Callable[[Any], Any]:
    """``program(lib, fwAD)`` run inside a dual level; what it returns, tangents unpacked
    while the level is open."""
    def run(lib: Any) -> Any:
        fwad = fw(lib)
        with fwad.dual_level():
            return program(lib, fwad)
    return run


def close_both(program: Callable[[Any], Any]) -> None:
    """``program`` runs on both libraries without error and gives the same results, floats
    equal up to rounding (1e-12): a tangent here is the double-vjp of each op's backward,
    PyTorch's its forward formula, so the last bits may differ."""
    theirs_kind, theirs = outcome(lambda: program(torch))
    assert theirs_kind == "ok", theirs  # (a program that raises on both sides tests nothing)
    ours_kind, ours = outcome(lambda: program(jitgrad))
    assert ours_kind == "ok", ours
    _close_tree(ours, theirs)


def _close_tree(ours: Any, theirs: Any) -> None:
    """Tensors (or NumPy arrays) equal to rounding, in the same nested structure."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, jitgrad.Tensor), ours
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        _close_tree(ours.detach().numpy(), theirs.detach().numpy())
    elif isinstance(theirs, np.ndarray) or isinstance(ours, np.ndarray):
        assert isinstance(ours, np.ndarray) and isinstance(theirs, np.ndarray), (ours, theirs)
        assert ours.shape == theirs.shape
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    elif isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _close_tree(a, b)
    else:
        assert ours == theirs


def tangent(fwad: Any, t: Any) -> Any:
    return fwad.unpack_dual(t).tangent


def pair(fwad: Any, t: Any) -> Any:
    p, tan = fwad.unpack_dual(t)
    return (p, tan)


# -- the public API ------------------------------------------------------------------------
def test_names_match_pytorch() -> None:
    ours, theirs = fw(jitgrad), fw(torch)
    assert ours.__all__ == theirs.__all__
    assert jitgrad.autograd.forward_ad is ours
    assert ours.UnpackedDualTensor._fields == theirs.UnpackedDualTensor._fields == ("primal", "tangent")
    import inspect

    for name in ("make_dual", "unpack_dual", "exit_dual_level", "enter_dual_level"):
        a, b = inspect.signature(getattr(ours, name)), inspect.signature(getattr(theirs, name))
        assert [(p.name, p.kind, p.default) for p in a.parameters.values()] == \
            [(p.name, p.kind, p.default) for p in b.parameters.values()], name


def test_the_example_of_the_brief() -> None:
    def program(lib: Any, fwad: Any) -> Any:
        x = fwad.make_dual(data(lib, 5), data(lib, 5, seed=1))
        y = (x.sin() * 2)[1:].sum()
        p, t = fwad.unpack_dual(y)
        return p, t
    close_both(in_level(program))


def test_levels_enter_and_exit_as_pytorch() -> None:
    def program(lib: Any) -> Any:
        fwad = fw(lib)
        first = fwad.enter_dual_level()
        x = fwad.make_dual(data(lib, 3), data(lib, 3, seed=1))
        inside = tangent(fwad, x * 2)
        fwad.exit_dual_level()
        after = fwad.unpack_dual(x)
        with fwad.dual_level() as second:
            y = fwad.make_dual(data(lib, 2), data(lib, 2, seed=2))
            again = tangent(fwad, y.exp())
        return first, inside, after.primal, after.tangent is None, second, again, fwad._current_level
    close_both(program)


def test_dual_level_decorates() -> None:
    def program(lib: Any) -> Any:
        fwad = fw(lib)

        @fwad.dual_level()
        def f(a: Any) -> Any:
            return tangent(fwad, fwad.make_dual(a, a * 0 + 1).cos())
        return f(data(lib, 3)), fwad._current_level
    close_both(program)


def test_unpack_outside_a_level_and_of_a_plain_tensor() -> None:
    def program(lib: Any) -> Any:
        fwad = fw(lib)
        p = data(lib, 3)
        out = fwad.unpack_dual(p)
        with fwad.dual_level():
            inner = fwad.unpack_dual(p)
            computed = fwad.unpack_dual(p * 2 + 1)
            other_level = fwad.unpack_dual(p * 3, level=5)
            wrong_level = raised(lambda: fwad.unpack_dual(fwad.make_dual(p, p), level=5),
                                 "Invalid level given to _fw_primal")
        return (out.primal is p, out.tangent, type(out).__name__, inner.tangent, inner.primal._base is p,
                computed.tangent, other_level.tangent, wrong_level)
    assert both(program)[-1] == "RuntimeError"


# -- bad input: PyTorch's error type and message, nothing changed -----------------------------
def _bad(lib: Any, case: str) -> Any:
    fwad = fw(lib)
    p, t = data(lib, 3), data(lib, 3, seed=1)
    if case == "outside":
        return fwad.make_dual(p, t)
    if case == "exit_none":
        return fwad.exit_dual_level()
    with fwad.dual_level():
        if case == "int_primal":
            return fwad.make_dual(lib.arange(3), t)
        if case == "int_tangent":
            return fwad.make_dual(p, lib.arange(3))
        if case == "shape":
            return fwad.make_dual(p, data(lib, 4))
        if case == "broadcast_shape":
            return fwad.make_dual(p, data(lib, 1))
        if case == "nested":
            return fwad.enter_dual_level()
        if case == "nested_ctx":
            with fwad.dual_level():
                pass
        if case == "level":
            return fwad.make_dual(p, t, level=1)
        if case == "exit_other":
            return fwad.exit_dual_level(level=3)
        if case == "dual_of_dual":
            return fwad.make_dual(fwad.make_dual(p, t), t)
        if case == "unpack_float":
            return fwad.unpack_dual(3.0)
        if case in ("float_primal", "float_tangent"):
            return fwad.make_dual(3.0, t) if case == "float_primal" else fwad.make_dual(p, [1.0, 2.0, 3.0])
    raise AssertionError(case)


@pytest.mark.parametrize("case", ["outside", "exit_none", "int_primal", "int_tangent", "shape",
                                  "broadcast_shape", "nested", "nested_ctx", "level", "exit_other",
                                  "dual_of_dual", "unpack_float", "float_primal", "float_tangent"])
def test_bad_input_raises_as_pytorch(case: str) -> None:
    for lib in (torch, jitgrad):
        assert fw(lib)._current_level == -1
    theirs = outcome(lambda: _bad(torch, case))
    ours = outcome(lambda: _bad(jitgrad, case))
    assert theirs[0] != "ok"
    if case.startswith("float_"):  # (PyTorch's message is Python's; jitgrad's names the op)
        assert ours[0] == theirs[0] and "make_dual(): expected the" in ours[1] and "is_floating_point" in ours[1]
    else:
        assert ours == theirs
    for lib in (torch, jitgrad):  # nothing changed: no level left open, a level still works
        assert fw(lib)._current_level == -1
    close_both(in_level(lambda lib, fwad: tangent(fwad, fwad.make_dual(data(lib, 2), data(lib, 2)) * 3)))


def test_bad_input_leaves_the_tensors_alone() -> None:
    fwad = fw(jitgrad)
    p, t = data(jitgrad, 3), data(jitgrad, 3, seed=1)
    before = (p._version, t._version, p.numpy().copy(), t.numpy().copy())
    with fwad.dual_level():
        with pytest.raises(RuntimeError, match=r"size \[3\] while the given forward gradient is of size \[4\]"):
            fwad.make_dual(p, data(jitgrad, 4))
        assert fwad.unpack_dual(p).tangent is None
    assert (p._version, t._version) == before[:2]
    np.testing.assert_array_equal(p.numpy(), before[2])


# -- what PyTorch does, program by program ------------------------------------------------------
PROGRAMS: dict[str, Callable[[Any, Any], Any]] = {}


def program(f: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    PROGRAMS[f.__name__] = f
    return f


@program
def make_dual_aliases(lib: Any, fwad: Any) -> Any:
    p, t = data(lib, 4), data(lib, 4, seed=1)
    x = fwad.make_dual(p, t)
    u = fwad.unpack_dual(x)
    return (x._base is p, x._is_view(), x.requires_grad, x.grad_fn is None, x.is_leaf,
            fwad.unpack_dual(p).tangent, u.tangent is t, u.primal._base is p, u.primal is x)


@program
def tangent_laid_out_like_the_primal(lib: Any, fwad: Any) -> Any:
    p = data(lib, 2, 5)[:, ::2]
    t = data(lib, 3, 2, seed=1).t()
    x = fwad.make_dual(p, t)
    u = tangent(fwad, x)
    return u, u.stride(), u.storage_offset(), u is t


@program
def elementwise_chain(lib: Any, fwad: Any) -> Any:
    x = fwad.make_dual(data(lib, 2, 3), data(lib, 2, 3, seed=1))
    y = data(lib, 3, seed=2)
    z = (x.exp() * y - x.tanh() / (y * y + 1)).sigmoid() ** 2
    return pair(fwad, z)


@program
def functions_and_operators(lib: Any, fwad: Any) -> Any:
    x = fwad.make_dual(data(lib, 4), data(lib, 4, seed=1))
    w = fwad.make_dual(data(lib, 4, seed=2), data(lib, 4, seed=3))
    return [pair(fwad, r) for r in (
        lib.sin(x), lib.add(x, w, alpha=2), x @ w, lib.cat([x, w, x]), lib.stack([x, w], 1),
        lib.where(x > 0, x, w), lib.maximum(x, w), x.clamp(-0.5, 0.5), lib.nn.functional.softplus(x),
        lib.nn.functional.gelu(w), x.cumsum(0), lib.logsumexp(x, 0), x.norm(), 2.0 - x, 1.0 / w,
    )]


@program
def reductions_with_indices(lib: Any, fwad: Any) -> Any:
    x = fwad.make_dual(data(lib, 3, 4), data(lib, 3, 4, seed=1))
    values, indices = x.max(1)
    s = x.sort(0)
    return (pair(fwad, values), indices, tangent(fwad, indices), pair(fwad, s.values),
            tangent(fwad, s.indices), pair(fwad, x.mean((0, 1))), pair(fwad, x.var(0)))


@program
def matrices(lib: Any, fwad: Any) -> Any:
    a = fwad.make_dual(data(lib, 3, 3), data(lib, 3, 3, seed=1))
    b = data(lib, 3, 2, seed=2)
    spd = a @ a.mT + 3 * lib.eye(3, dtype=lib.float64)
    return (pair(fwad, a @ b), pair(fwad, lib.linalg.inv(spd)), pair(fwad, lib.linalg.det(a)),
            pair(fwad, lib.linalg.solve(spd, b)))


@program
def views_of_duals(lib: Any, fwad: Any) -> Any:
    x = fwad.make_dual(data(lib, 3, 4), data(lib, 3, 4, seed=1))
    outs = (x[1:], x.t(), x.T, x.mT, x.view(12), x.reshape(2, 6), x.unsqueeze(0).expand(2, 3, 4),
            x.diagonal(), x.unfold(1, 2, 1), x.select(0, 1), x.narrow(1, 1, 2), x[..., None],
            x.unbind(0)[2], x.split(2, 1)[1], x.flatten(), x.as_strided((2, 2), (1, 4), 1))
    return [pair(fwad, o) for o in outs]


@program
def tangents_of_views_are_views(lib: Any, fwad: Any) -> Any:
    t = data(lib, 6, seed=1)
    x = fwad.make_dual(data(lib, 6), t)
    v = tangent(fwad, x[1:4])
    return v._base is t, v.storage_offset(), tangent(fwad, x[::2]).stride()


@program
def inplace_on_a_dual(lib: Any, fwad: Any) -> Any:
    t = data(lib, 5, seed=1)
    x = fwad.make_dual(data(lib, 5), t)
    x.mul_(data(lib, 5, seed=2)).sin_()
    x += 1
    x *= x.cos()  # (``x *= x``: test_self_times_self_in_place)
    return pair(fwad, x), t, x._version  # PyTorch writes the new tangent into the given one


@program
def inplace_on_a_view_of_a_dual(lib: Any, fwad: Any) -> Any:
    x = fwad.make_dual(data(lib, 3, 4), data(lib, 3, 4, seed=1))
    v = x[1:, ::2]
    v.mul_(3).exp_()
    x.t()[0] += x[:, 2]
    x[0, 1:3] = 7.0
    return pair(fwad, x), pair(fwad, v)


@program
def inplace_dual_into_a_plain_tensor(lib: Any, fwad: Any) -> Any:
    x = fwad.make_dual(data(lib, 4), data(lib, 4, seed=1))
    w = lib.zeros(3, 4, dtype=lib.float64)
    early = w[2]  # made before w became dual: reads w's tangent once it has one
    w[1] = x.exp()
    w[:, 1:3] += x[:2]
    q = lib.zeros(4, dtype=lib.float64)
    q.copy_(x * 2)
    return pair(fwad, w), pair(fwad, early), pair(fwad, w[1:]), pair(fwad, q)


@program
def views_of_a_base_that_becomes_dual(lib: Any, fwad: Any) -> Any:
    x = fwad.make_dual(data(lib, 4), data(lib, 4, seed=1))
    w = lib.zeros(4, dtype=lib.float64)
    before = w[1:]
    w.copy_(x.sin())
    y = x * 1
    primal = fwad.unpack_dual(y).primal
    return (pair(fwad, before), pair(fwad, w[:2]), tangent(fwad, primal), tangent(fwad, primal[1:]),
            tangent(fwad, primal * 2), tangent(fwad, y.detach()))


@program
def overwrite_with_a_plain_value(lib: Any, fwad: Any) -> Any:
    x = fwad.make_dual(data(lib, 4), data(lib, 4, seed=1))
    y = x * 1
    y.copy_(data(lib, 4, seed=2))
    z = x * 1
    z[1:3] = 0.5
    z2 = x * 1
    z2.zero_()
    return pair(fwad, y), pair(fwad, z), pair(fwad, z2)


@program
def geometry_changing_inplace(lib: Any, fwad: Any) -> Any:
    x = fwad.make_dual(data(lib, 2, 3), data(lib, 2, 3, seed=1)) * 1
    x.t_()
    y = fwad.make_dual(data(lib, 1, 3), data(lib, 1, 3, seed=2)) * 1
    y.squeeze_(0).unsqueeze_(1)
    return pair(fwad, x), pair(fwad, y)


@program
def no_grad_still_propagates(lib: Any, fwad: Any) -> Any:
    x = fwad.make_dual(data(lib, 3), data(lib, 3, seed=1))
    with lib.no_grad():
        y = x.exp() * x
        y.add_(x)
    with lib.inference_mode(False):
        z = x.sin()
    return pair(fwad, y), y.requires_grad, pair(fwad, z)


@program
def user_functions_through_jitgrad_helpers(lib: Any, fwad: Any) -> Any:
    x = fwad.make_dual(data(lib, 3), data(lib, 3, seed=1))
    under_no_grad = lib.no_grad()(lambda a: a.sin() * a)
    checkpointed = lib.utils.checkpoint.checkpoint(lambda a: a.exp() * 2, x, use_reentrant=False)
    return (pair(fwad, under_no_grad(x)), pair(fwad, checkpointed), pair(fwad, sum([x, x * 2])),
            [pair(fwad, r) for r in x], pair(fwad, lib.tensor(3.0, dtype=lib.float64) * x))


def test_repr_shows_the_tangent() -> None:
    def program(lib: Any) -> Any:
        fwad = fw(lib)
        with fwad.dual_level():
            x = fwad.make_dual(data(lib, 3, grad=True), data(lib, 3, seed=1))
            m = fwad.make_dual(data(lib, 2, 2), data(lib, 2, 2, seed=2)) * 1
            return [repr(t).replace("torch.", "jitgrad.") for t in (x, m, x.detach())]
    assert program(jitgrad) == program(torch)


@program
def without_tangents(lib: Any, fwad: Any) -> Any:
    x = fwad.make_dual(data(lib, 4), data(lib, 4, seed=1))
    return [tangent(fwad, o) for o in (
        x.detach(), x.data, lib.zeros_like(x), x.argmax(), x > 0, x.long(), lib.ones(3) * 2,
        lib.empty_like(x).fill_(1.0),
    )]


@program
def zero_tangents_where_pytorch_has_them(lib: Any, fwad: Any) -> Any:
    x = fwad.make_dual(data(lib, 4), data(lib, 4, seed=1))
    return [pair(fwad, o) for o in (x * 0, x.sign(), x.round(), x.floor(), x.clone(), x.float().double())]


@program
def dtypes_of_tangents(lib: Any, fwad: Any) -> Any:
    x = fwad.make_dual(data(lib, 3), lib.ones(3, dtype=lib.float32))
    u = tangent(fwad, x)
    f = x.float()
    return u.dtype == lib.float32, pair(fwad, x * 2), tangent(fwad, f).dtype == lib.float32


@program
def nn_layers_and_functionals(lib: Any, fwad: Any) -> Any:
    x = fwad.make_dual(data(lib, 2, 3), data(lib, 2, 3, seed=1))
    w = data(lib, 4, 3, seed=2)
    b = fwad.make_dual(data(lib, 4, seed=3), data(lib, 4, seed=4))
    F = lib.nn.functional
    return (pair(fwad, F.linear(x, w, b)), pair(fwad, F.softmax(x, 1)), pair(fwad, F.log_softmax(x, 0)),
            pair(fwad, F.mse_loss(x, data(lib, 2, 3, seed=5))), pair(fwad, F.layer_norm(x, (3,))))


@program
def modules_functional_call_and_scalars(lib: Any, fwad: Any) -> Any:
    lin, last = lib.nn.Linear(3, 2).double(), lib.nn.Linear(2, 1).double()
    with lib.no_grad():
        lin.weight.copy_(data(lib, 2, 3, seed=4))
        lin.bias.copy_(data(lib, 2, seed=5))
        last.weight.copy_(data(lib, 1, 2, seed=9))
        last.bias.copy_(data(lib, 1, seed=10))
    weight = fwad.make_dual(lin.weight.detach(), data(lib, 2, 3, seed=6))
    inputs = data(lib, 4, 3, seed=7)
    through_params = lib.func.functional_call(lin, {"weight": weight}, (inputs,))
    x = fwad.make_dual(inputs, data(lib, 4, 3, seed=8))
    through_layers = lib.nn.Sequential(lin, lib.nn.Tanh(), last)(x)
    s = fwad.make_dual(lib.tensor(1.5, dtype=lib.float64), lib.tensor(-2.0, dtype=lib.float64))
    return (pair(fwad, through_params), tangent(fwad, through_layers), pair(fwad, s ** 3),
            pair(fwad, s.item() * s), lin.weight.requires_grad)


@program
def reverse_mode_of_a_dual_requiring_grad(lib: Any, fwad: Any) -> Any:
    p = data(lib, 3, grad=True)
    x = fwad.make_dual(p, data(lib, 3, seed=1))
    y = (x * x.exp()).sum()
    up = fwad.unpack_dual(x)
    facts = (x.requires_grad, x.grad_fn.name(), x.is_leaf, x._base is p, up.primal.requires_grad,
             up.primal._base is p, up.tangent.requires_grad, y.requires_grad, y.grad_fn.name())
    t = tangent(fwad, y)
    y.backward(retain_graph=True)
    g1 = p.grad.clone()
    t.backward()  # the tangent's own graph: d/dp of J(p) v
    return facts, t, g1, p.grad


@program
def tangent_requiring_grad(lib: Any, fwad: Any) -> Any:
    v = data(lib, 3, seed=1, grad=True)
    x = fwad.make_dual(data(lib, 3), v)
    y = (x.sin() * 2).sum()
    t = tangent(fwad, y)
    facts = (y.requires_grad, y.grad_fn is None, t.requires_grad)
    t.backward()
    return facts, t, v.grad


@program
def tangent_with_a_graph_written_in_place(lib: Any, fwad: Any) -> Any:
    v = data(lib, 4, seed=1, grad=True)
    x = fwad.make_dual(data(lib, 4), v) * 1
    x.mul_(x.detach() + 1)
    x[1:3] = x[:2].exp()
    w = lib.zeros(5, dtype=lib.float64)
    w[1:] = x * 2
    t, tw = tangent(fwad, x), tangent(fwad, w)
    facts = (t.requires_grad, tw.requires_grad)
    (t.sum() + (tw * tw).sum()).backward()
    return facts, t, tw, v.grad


@program
def backward_through_a_dual_computation(lib: Any, fwad: Any) -> Any:
    w = data(lib, 3, seed=2, grad=True)
    x = fwad.make_dual(data(lib, 3), data(lib, 3, seed=1))
    y = (x * w).exp().sum()
    y.backward()
    return pair(fwad, y), w.grad, tangent(fwad, w.grad), y.grad_fn.name()


@program
def two_duals(lib: Any, fwad: Any) -> Any:
    a = fwad.make_dual(data(lib, 3), data(lib, 3, seed=1))
    b = fwad.make_dual(data(lib, 3, seed=2), data(lib, 3, seed=3))
    c = a * b + a.exp() / b
    c[0] = b[1] * 2
    return pair(fwad, c)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_pytorch(name: str) -> None:
    close_both(in_level(PROGRAMS[name]))


def _grad_after_two_backwards(lib: Any) -> Any:
    fwad = fw(lib)
    with fwad.dual_level():
        p = data(lib, 3, grad=True)
        x = fwad.make_dual(p, data(lib, 3, seed=1))
        y = (x * x.exp()).sum()
        t = tangent(fwad, y)
        y.backward(retain_graph=True)
        first = tangent(fwad, p.grad)
        t.backward()
        return first, tangent(fwad, p.grad)


def test_grad_of_a_backward_inside_a_level_pytorch() -> None:
    """PyTorch: the first gradient has no tangent; once a backward adds into it a gradient
    computed from the tangent's graph, ``p.grad`` has one (forward-over-reverse through the
    accumulation)."""
    first, second = _grad_after_two_backwards(torch)
    assert first is None and second is not None


@pytest.mark.xfail(strict=True, reason="a backward pass inside a level gives no tangents in jitgrad "
                   "(the engine is not watched: README, deliberate differences)")
def test_grad_of_a_backward_inside_a_level_jitgrad() -> None:
    first, second = _grad_after_two_backwards(jitgrad)
    assert first is None and second is not None


def test_self_times_self_in_place() -> None:
    """``x *= x`` on a dual: jitgrad's tangent is 2 x t (finite differences agree); PyTorch's
    in-place formula reads the tangent it is overwriting and gives another value (README,
    deliberate differences)."""
    def run(lib: Any) -> Any:
        fwad = fw(lib)
        with fwad.dual_level():
            x = fwad.make_dual(data(lib, 3), data(lib, 3, seed=1)) * 1
            x *= x
            return tangent(fwad, x).numpy()
    p, v = data(torch, 3).numpy(), data(torch, 3, seed=1).numpy()
    np.testing.assert_allclose(run(jitgrad), 2 * p * v, rtol=1e-15)
    assert not np.allclose(run(torch), 2 * p * v)


def _repeated_index_write(lib: Any) -> Any:
    fwad = fw(lib)
    with fwad.dual_level():
        x = data(lib, 3) * 1
        v = fwad.make_dual(data(lib, 2, seed=1), data(lib, 2, seed=2))
        x[[0, 0]] = v  # element 0 written twice: the last value stays
        return tangent(fwad, x)


def test_repeated_index_write_pytorch() -> None:
    """The tangent of an element written twice by one advanced-index write is the last
    value's (the write's Jacobian)."""
    got = _repeated_index_write(torch)
    np.testing.assert_array_equal(got.numpy(), [data(torch, 2, seed=2)[1].item(), 0.0, 0.0])


@pytest.mark.xfail(strict=True, reason="jitgrad's tangent is the transpose of the write's reverse-mode "
                   "derivative, which (as PyTorch's) sends the gradient to every value written to one "
                   "element: README, deliberate differences")
def test_repeated_index_write_jitgrad() -> None:
    got = _repeated_index_write(jitgrad)
    np.testing.assert_array_equal(got.numpy(), [data(jitgrad, 2, seed=2)[1].item(), 0.0, 0.0])


def test_op_without_derivative_pytorch() -> None:
    """PyTorch raises NotImplementedError at the op (zeta has no derivative in ``x``)."""
    fwad = fw(torch)
    with fwad.dual_level():
        x = fwad.make_dual(data(torch, 2) + 3, data(torch, 2, seed=1))
        with pytest.raises(NotImplementedError, match="special_zeta"):
            torch.special.zeta(x, data(torch, 2) + 3)


def test_op_without_derivative_raises_when_unpacked() -> None:
    """jitgrad raises PyTorch's NotImplementedError naming the op when the tangent is
    unpacked (a profile function cannot raise at the op); the primal is computed, and what
    is computed from the failed tangent fails alike."""
    fwad = fw(jitgrad)
    with fwad.dual_level():
        x = fwad.make_dual(data(jitgrad, 2) + 3, data(jitgrad, 2, seed=1))
        y = jitgrad.special.zeta(x, data(jitgrad, 2) + 3)
        z = y.exp()
        for t in (y, z):
            with pytest.raises(NotImplementedError, match=r"Trying to use forward AD with zeta \(called at "
                               r"test_forward_ad.py:[0-9]+: .*zeta.*\): .*the "
                               r"derivative for 'zeta' is not implemented"):
                fwad.unpack_dual(t)
        np.testing.assert_allclose(fwad.unpack_dual(x).primal.numpy(), data(jitgrad, 2).numpy() + 3)
        assert tangent(fwad, x * 2) is not None  # the level goes on


def test_writing_a_leaf_tangent_requiring_grad_pytorch() -> None:
    """PyTorch refuses, at the op, a write that would write a leaf tangent requiring grad."""
    fwad = fw(torch)
    with fwad.dual_level():
        v = data(torch, 3, seed=1, grad=True)
        x = fwad.make_dual(data(torch, 3), v)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an "
                                               "in-place operation"):
            x.mul_(2)


def test_writing_a_leaf_tangent_requiring_grad_jitgrad() -> None:
    """jitgrad raises PyTorch's error when the tangent is unpacked; the leaf is unchanged."""
    fwad = fw(jitgrad)
    with fwad.dual_level():
        v = data(jitgrad, 3, seed=1, grad=True)
        x = fwad.make_dual(data(jitgrad, 3), v)
        x.mul_(2)
        with pytest.raises(RuntimeError, match="copy_: a leaf Variable that requires grad is being used "
                                               "in an in-place operation"):
            fwad.unpack_dual(x)
    np.testing.assert_array_equal(v.detach().numpy(), data(jitgrad, 3, seed=1).numpy())
    assert v._version == 0


@pytest.mark.parametrize("dest", ["fresh", "view"])
def test_out_argument_refused_as_pytorch(dest: str) -> None:
    """An op writing a dual result into ``out=``: PyTorch raises NotImplementedError at the
    op; jitgrad the same error (naming the op) when the tangent is unpacked."""
    def run(lib: Any) -> Any:
        fwad = fw(lib)
        with fwad.dual_level():
            x = fwad.make_dual(data(lib, 4), data(lib, 4, seed=1))
            out = lib.empty(4, dtype=lib.float64) if dest == "fresh" else lib.zeros(2, 4, dtype=lib.float64)[1]
            got = lib.mul(x, 2.0, out=out)
            return fwad.unpack_dual(got)
    for lib in (torch, jitgrad):
        with pytest.raises(NotImplementedError, match=r"Trying to use forward AD with mul.*out= function"):
            run(lib)


def test_inplace_op_without_derivative_marks_what_it_wrote() -> None:
    """A custom Function writing its input in place, without backward: the written dual's
    tangent raises when unpacked (it is not left stale)."""
    class Double(jitgrad.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            ctx.mark_dirty(a)
            return a.mul_(2)

    fwad = fw(jitgrad)
    with fwad.dual_level():
        x = fwad.make_dual(data(jitgrad, 2), data(jitgrad, 2, seed=1)) * 1
        assert Double.apply(x) is x
        with pytest.raises(NotImplementedError, match=r"Trying to use forward AD with apply \(called at "
                           r"test_forward_ad.py:.*Double.apply\(x\).*\): .*backward"):
            fwad.unpack_dual(x)


@pytest.mark.xfail(strict=True, reason="raised when the tangent is unpacked, not at the op (README)")
def test_op_without_derivative_jitgrad_raises_at_the_op() -> None:
    fwad = fw(jitgrad)
    with fwad.dual_level():
        x = fwad.make_dual(data(jitgrad, 2) + 3, data(jitgrad, 2, seed=1))
        with pytest.raises(NotImplementedError):
            jitgrad.special.zeta(x, data(jitgrad, 2) + 3)


def test_random_ops_draw_once() -> None:
    """The second run of an op (for its tangent) draws what the first drew: dropout's
    tangent has the primal's mask, and the generators advance once."""
    fwad = fw(jitgrad)
    p, v = data(jitgrad, 200) + 5, data(jitgrad, 200, seed=1)
    jitgrad.manual_seed(3)
    g = jitgrad.Generator().manual_seed(4)
    with fwad.dual_level():
        x = fwad.make_dual(p, v)
        out, t = fwad.unpack_dual(jitgrad.nn.functional.dropout(x, 0.5))
        noise = fwad.unpack_dual(x + jitgrad.randn(200, dtype=jitgrad.float64, generator=g))
        after = jitgrad.rand(3), jitgrad.rand(3, generator=g)
    kept = out.numpy() != 0
    np.testing.assert_allclose(t.numpy(), np.where(kept, 2 * v.numpy(), 0.0), rtol=1e-15)
    jitgrad.manual_seed(3)
    g2 = jitgrad.Generator().manual_seed(4)
    jitgrad.nn.functional.dropout(p, 0.5)
    jitgrad.randn(200, dtype=jitgrad.float64, generator=g2)
    np.testing.assert_array_equal(after[0].numpy(), jitgrad.rand(3).numpy())
    np.testing.assert_array_equal(after[1].numpy(), jitgrad.rand(3, generator=g2).numpy())
    np.testing.assert_array_equal(noise.tangent.numpy(), v.numpy())


def test_modules_update_their_state_once() -> None:
    """A module's forward on a dual input runs once: BatchNorm's running statistics are
    PyTorch's (the op's second run writes into copies)."""
    def program(lib: Any) -> Any:
        fwad = fw(lib)
        bn = lib.nn.BatchNorm1d(3).double()
        with fwad.dual_level():
            x = fwad.make_dual(data(lib, 4, 3), data(lib, 4, 3, seed=1))
            out = bn(x)
            return pair(fwad, out), bn.running_mean, bn.running_var, bn.num_batches_tracked
    close_both(program)


def test_custom_function_is_differentiated_by_its_backward() -> None:
    """A custom Function without ``jvp``: PyTorch raises; jitgrad gives the tangent from
    its backward (README, deliberate differences)."""
    def make(lib: Any) -> Any:
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                ctx.save_for_backward(a)
                return a ** 3

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                (a,) = ctx.saved_tensors
                return 3 * a * a * g
        return Cube

    def run(lib: Any) -> Any:
        fwad = fw(lib)
        with fwad.dual_level():
            return tangent(fwad, make(lib).apply(fwad.make_dual(data(lib, 3), data(lib, 3, seed=1))))
    kind, message = outcome(lambda: run(torch))
    assert kind == "NotImplementedError" and "jvp" in message
    p, v = data(jitgrad, 3), data(jitgrad, 3, seed=1)
    np.testing.assert_allclose(run(jitgrad).numpy(), (3 * p * p * v).numpy(), rtol=1e-15)


def test_an_op_pytorch_has_no_forward_derivative_for() -> None:
    """``embedding_bag``: PyTorch raises NotImplementedError; jitgrad's tangent is the
    Jacobian-vector product (finite differences agree)."""
    def run(lib: Any, weight: Any) -> Any:
        idx = lib.tensor([0, 2, 1, 2])
        return lib.nn.functional.embedding_bag(idx, weight, lib.tensor([0, 2]), mode="sum")

    def with_dual(lib: Any) -> Any:
        fwad = fw(lib)
        with fwad.dual_level():
            return tangent(fwad, run(lib, fwad.make_dual(data(lib, 3, 2), data(lib, 3, 2, seed=1))))
    kind, message = outcome(lambda: with_dual(torch))
    assert kind == "NotImplementedError" and "embedding_bag" in message
    ours = with_dual(jitgrad).numpy()
    w, v, eps = data(jitgrad, 3, 2), data(jitgrad, 3, 2, seed=1), 1e-6
    numeric = (run(jitgrad, w + eps * v) - run(jitgrad, w - eps * v)).numpy() / (2 * eps)
    np.testing.assert_allclose(ours, numeric, atol=1e-8)


# -- finite differences -----------------------------------------------------------------------
FUNCTIONS: dict[str, Callable[[Any], Any]] = {
    "softplus_of_views": lambda x: jitgrad.nn.functional.softplus(x[1:] * x[:-1]).cumsum(0),
    "inplace_chain": lambda x: _inplace_chain(x),
    "matrix": lambda x: jitgrad.linalg.inv(x.reshape(2, 2) @ x.reshape(2, 2).mT + _eye2()),
    "reductions": lambda x: jitgrad.stack([x.max(), x.logsumexp(0), x.std(), x.prod()]),
}


def _eye2() -> Any:
    return jitgrad.eye(2, dtype=jitgrad.float64)


def _inplace_chain(x: Any) -> Any:
    y = x * 1
    y[1:3] *= y[2:4].exp()
    y.t_() if y.dim() == 2 else y.sin_()
    return y


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_tangents_match_finite_differences(name: str) -> None:
    f = FUNCTIONS[name]
    fwad = fw(jitgrad)
    p, v, eps = data(jitgrad, 4), data(jitgrad, 4, seed=1), 1e-6
    with fwad.dual_level():
        ours = tangent(fwad, f(fwad.make_dual(p, v))).numpy()
    numeric = (f(p + eps * v) - f(p - eps * v)).numpy() / (2 * eps)
    np.testing.assert_allclose(ours, numeric, rtol=1e-6, atol=1e-7)


def test_func_jvp_and_jacfwd_are_unchanged_inside_and_outside_a_level() -> None:
    f = lambda a: (a.sin() * a).cumsum(0)  # noqa: E731
    p, v = data(jitgrad, 4), data(jitgrad, 4, seed=1)
    out, jv = jitgrad.func.jvp(f, (p,), (v,))
    jac = jitgrad.func.jacfwd(f)(p)
    tp, tv = data(torch, 4), data(torch, 4, seed=1)
    same(jv, torch.func.jvp(f, (tp,), (tv,))[1])
    np.testing.assert_allclose(jac.numpy(), torch.func.jacfwd(f)(tp).numpy(), rtol=1e-15)
    fwad = fw(jitgrad)
    with fwad.dual_level():
        x = fwad.make_dual(p, v)
        np.testing.assert_array_equal(tangent(fwad, f(x)).numpy(), jv.numpy())
        np.testing.assert_array_equal(jitgrad.func.jvp(f, (p,), (v,))[1].numpy(), jv.numpy())


def test_no_level_no_profile_function() -> None:
    """Outside a level nothing watches the ops (the eager path is as before)."""
    fwad = fw(jitgrad)
    before = sys.getprofile()
    with fwad.dual_level():
        assert sys.getprofile() is not before
    assert sys.getprofile() is before


def test_watching_resumes_at_make_dual_after_the_profile_function_was_replaced() -> None:
    fwad = fw(jitgrad)
    with fwad.dual_level():
        sys.setprofile(None)  # (a library turning profiling off)
        x = fwad.make_dual(data(jitgrad, 3), data(jitgrad, 3, seed=1))
        np.testing.assert_allclose(tangent(fwad, x * 3).numpy(), 3 * data(jitgrad, 3, seed=1).numpy())
    assert sys.getprofile() is None  # (what it was before the level)
