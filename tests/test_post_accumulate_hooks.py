"""``Tensor.register_post_accumulate_grad_hook`` against PyTorch: called with the leaf after
its ``.grad`` was accumulated (after its gradient hooks), not by ``autograd.grad`` nor for
leaves outside ``backward(inputs=)``; removable; must return None; leaves only."""

from __future__ import annotations

from typing import Any

import pytest
import torch

import jitgrad

LIBS = pytest.mark.parametrize("lib", [jitgrad, torch], ids=["jitgrad", "torch"])


@LIBS
def test_called_after_accumulation_with_the_leaf(lib: Any) -> None:
    x = lib.ones(3, requires_grad=True)
    calls = []
    handle = x.register_post_accumulate_grad_hook(lambda t: calls.append((t is x, t.grad.tolist())))
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    handle.remove()
    (x * 3).sum().backward()
    assert calls == [(True, [2.0] * 3), (True, [5.0] * 3)] and x.grad.tolist() == [8.0] * 3


@LIBS
def test_order_and_which_passes(lib: Any) -> None:
    x, y = lib.ones(3, requires_grad=True), lib.ones(3, requires_grad=True)
    order = []
    x.register_hook(lambda g: order.append("pre"))
    x.register_post_accumulate_grad_hook(lambda t: order.append("post x"))
    x.register_post_accumulate_grad_hook(lambda t: order.append("post x 2"))
    y.register_post_accumulate_grad_hook(lambda t: order.append("post y"))
    lib.autograd.grad((x * y).sum(), (x, y))
    assert order == ["pre"] and x.grad is None
    (x * y).sum().backward(inputs=[y])
    assert order == ["pre", "post y"]
    (x * 2).sum().backward()
    assert order == ["pre", "post y", "pre", "post x", "post x 2"]


@LIBS
def test_refusals(lib: Any) -> None:
    with pytest.raises(RuntimeError, match="cannot be registered on non-leaf tensors"):
        (lib.ones(3, requires_grad=True) * 2).register_post_accumulate_grad_hook(lambda t: None)
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        lib.ones(2).register_post_accumulate_grad_hook(lambda t: None)
    x = lib.ones(3, requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: 5)
    with pytest.raises(TypeError, match="expected Variable, but hook returned 'int'"):
        (x * 2).sum().backward()
    z = lib.ones(3, requires_grad=True)
    z.register_post_accumulate_grad_hook(lambda t: t.grad.mul_(10))
    with pytest.raises(RuntimeError, match="Tensor post accumulate grad hooks should return None"):
        (z * 2).sum().backward()


def test_the_registry_lets_the_leaf_go() -> None:
    import gc

    from jitgrad.autograd import post_accumulate

    x = jitgrad.ones(3, requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: None)
    assert id(x) in post_accumulate.HOOKS
    key = id(x)
    del x
    gc.collect()
    assert key not in post_accumulate.HOOKS


@LIBS
def test_hooks_off_the_path_to_the_inputs_are_not_run(lib: Any) -> None:
    """A leaf outside ``inputs=`` (or an intermediate off every path to them) is not
    executed by PyTorch's engine: its tensor hooks do not run."""
    x, y = lib.ones(3, requires_grad=True), lib.ones(3, requires_grad=True)
    order = []
    x.register_hook(lambda g: order.append("x"))
    y.register_hook(lambda g: order.append("y"))
    (x * y).sum().backward(inputs=[y])
    lib.autograd.grad((x * y).sum(), (y,))
    a = x * 2
    a.register_hook(lambda g: order.append("a"))
    b = a * y
    b.register_hook(lambda g: order.append("b"))
    lib.autograd.grad(b.sum(), (y,), retain_graph=True)
    lib.autograd.grad(b.sum(), (a,))
    assert order == ["y", "y", "b", "y", "b", "a"] and x.grad is None
