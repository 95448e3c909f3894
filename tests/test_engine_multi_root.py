"""Several roots at once, and hooks of multi-output nodes, against PyTorch (issue 12).

Regressions: roots that are outputs of one ``unbind``/``split``/``chunk`` node were counted
once per root as a dependency of the next node, which then never became ready (no gradient,
silently); and a tensor hook was skipped when its tensor got no gradient, where PyTorch calls
it with ``None``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import jitgrad
from test_engine import compare, leaf, raises_like

S = np.arange(1.0, 13.0).reshape(4, 3)


def ones(lib: Any, *shape: int, k: float = 1.0) -> Any:
    return lib.ones(*shape, dtype=lib.float64) * k


@pytest.mark.parametrize("cut", ["split", "chunk", "unbind"])
def test_backward_roots_are_outputs_of_one_node(cut: str) -> None:
    def program(lib: Any) -> Any:
        s = leaf(lib, S)
        parts = {"split": lambda: s.split(2), "chunk": lambda: s.chunk(2),
                 "unbind": lambda: s.unbind()}[cut]()
        lib.autograd.backward(list(parts), [ones(lib, *p.shape, k=i + 1) for i, p in enumerate(parts)])
        return s.grad

    assert compare(program) is not None


def test_issue_example_split() -> None:
    s = jitgrad.ones(4, requires_grad=True)
    a, b = s.split(2)
    jitgrad.autograd.backward([a, b], [jitgrad.ones(2), jitgrad.ones(2) * 2])
    np.testing.assert_array_equal(s.grad.detach().numpy(), [1.0, 1.0, 2.0, 2.0])


def test_grad_of_every_unbind_output() -> None:
    def program(lib: Any) -> Any:
        s = leaf(lib, S)
        x, y, z, w = s.unbind()
        return lib.autograd.grad([x, y, z], [s], [ones(lib, 3, k=k) for k in (1, 2, 3)])

    compare(program)


def test_some_outputs_of_one_node_plus_another_root() -> None:
    def program(lib: Any) -> Any:
        s = leaf(lib, S)
        a, b, c = s.split([1, 2, 1])
        other = (s * s).sum()
        lib.autograd.backward([c, other, a], [ones(lib, 1, 3, k=3), None, ones(lib, 1, 3, k=5)])
        return s.grad

    compare(program)


def test_same_tensor_twice_as_root() -> None:
    def program(lib: Any) -> Any:
        s = leaf(lib, S)
        w = (s * s).exp()
        g1 = lib.autograd.grad([w, w], [s], [ones(lib, 4, 3), ones(lib, 4, 3, k=2)], retain_graph=True)
        lib.autograd.backward([w, w], [ones(lib, 4, 3, k=-1), ones(lib, 4, 3, k=0.5)])
        return g1, s.grad

    compare(program)


def test_root_that_is_also_an_input() -> None:
    def program(lib: Any) -> Any:
        s = leaf(lib, S)
        x, y, z, w = s.unbind()
        return lib.autograd.grad(
            [x, z, s], [s, y, z], [ones(lib, 3), ones(lib, 3, k=3), ones(lib, 4, 3, k=5)],
            allow_unused=True,
        )

    compare(program)


def test_backward_inputs_among_the_roots() -> None:
    def program(lib: Any) -> Any:
        s = leaf(lib, S)
        t = s * 2
        a, b = t.split(2)
        lib.autograd.backward([a, b], [ones(lib, 2, 3), ones(lib, 2, 3, k=2)], inputs=[s, t])
        return s.grad, t.grad

    compare(program)


def test_retain_graph_twice_then_freed() -> None:
    def program(lib: Any) -> Any:
        s = leaf(lib, S)
        a, b = (s * s).chunk(2)
        grads = [ones(lib, 2, 3), ones(lib, 2, 3, k=2)]
        lib.autograd.backward([a, b], grads, retain_graph=True)
        lib.autograd.backward([b, a], grads[::-1], retain_graph=True)
        first = s.grad.clone()
        lib.autograd.backward([a, b], grads)
        return first, s.grad

    compare(program)


def test_double_backward_through_several_roots() -> None:
    def program(lib: Any) -> Any:
        s = leaf(lib, S)
        a, b = (s * s * s).split(2)
        (g,) = lib.autograd.grad([a, b], [s], [ones(lib, 2, 3), ones(lib, 2, 3, k=2)], create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), [s])
        return g, gg

    compare(program)


# -- hooks of multi-output nodes: called with None when the tensor got no gradient --


def _record(calls: list[Any], name: str) -> Any:
    def hook(g: Any) -> None:
        calls.append((name, None if g is None else g.detach().clone()))

    return hook


@pytest.mark.parametrize("cut", ["split", "chunk", "unbind"])
def test_hook_on_sibling_output_sees_none(cut: str) -> None:
    def program(lib: Any) -> Any:
        s = leaf(lib, S)
        a, b = {"split": lambda: s.split(2), "chunk": lambda: s.chunk(2),
                "unbind": lambda: s.unbind()[:2]}[cut]()
        calls: list[Any] = []
        b.register_hook(_record(calls, "b"))
        a.register_hook(_record(calls, "a"))
        (a * 3).sum().backward()
        return calls, s.grad

    calls, _ = compare(program)
    assert ("b", None) in calls


def test_hook_sees_none_in_autograd_grad_of_a_sibling() -> None:
    def program(lib: Any) -> Any:
        s = leaf(lib, S)
        x, y, z, w = s.unbind()
        calls: list[Any] = []
        y.register_hook(_record(calls, "y"))
        return lib.autograd.grad(x.sum(), [z], allow_unused=True), calls

    compare(program)


def test_retain_grad_of_sibling_stays_none() -> None:
    def program(lib: Any) -> Any:
        s = leaf(lib, S)
        x, y, z, w = s.unbind()
        y.retain_grad()
        x.sum().backward()
        return y.grad, s.grad

    compare(program)


def test_hook_after_custom_function_returning_none() -> None:
    """A single-output node and a leaf that receive only ``None`` still run their hooks."""

    def program(lib: Any) -> Any:
        class Pair(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any, y: Any) -> Any:
                return x.clone(), y.clone()

            @staticmethod
            def backward(ctx: Any, gx: Any, gy: Any) -> Any:
                return gx, None

        x, y0 = leaf(lib, S), leaf(lib, S)
        y = y0 * 2
        calls: list[Any] = []
        y.register_hook(_record(calls, "y"))
        y0.register_hook(_record(calls, "y0"))
        p, q = Pair.apply(x, y)
        (p.sum() + q.sum()).backward()
        return calls, x.grad, y0.grad

    compare(program)


def test_hook_may_not_replace_a_none_gradient() -> None:
    def program(lib: Any) -> Any:
        s = leaf(lib, S)
        x, y, z, w = s.unbind()
        y.register_hook(lambda g: lib.ones(3, dtype=lib.float64))
        x.sum().backward()

    ours, _ = raises_like(program, "replace a None gradient")
    assert "UnbindBackward0" in ours and "output 1" in ours


def test_failed_hook_changes_no_grad() -> None:
    s = leaf(jitgrad, S)
    s.sum().backward()
    before = s.grad.detach().numpy().copy()
    x, y, z, w = s.unbind()
    y.register_hook(lambda g: jitgrad.ones(3, dtype=jitgrad.float64))
    with pytest.raises(RuntimeError):
        jitgrad.autograd.backward([x, z], [ones(jitgrad, 3), ones(jitgrad, 3)])
    np.testing.assert_array_equal(s.grad.detach().numpy(), before)

