"""An exception raised in a user hook or in the middle of backward leaves the graph usable with
``retain_graph=True`` and every leaf's ``.grad`` as it was before that backward."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import jitgrad


class Boom(Exception):
    pass


def _graph(lib):
    """Two leaves; a CopySlices write; the loss reaches w1 and w2 by several paths."""
    w1 = lib.tensor([1.0, -2.0, 3.0, 0.5], dtype=lib.float64, requires_grad=True)
    w2 = lib.tensor([0.25, 2.0], dtype=lib.float64, requires_grad=True)
    base = w1 * 2.0
    mid = base[1:3]
    mid.mul_(w2)  # CopySlices on base
    h = base.exp()
    loss = (h * w1).sum() + (mid * mid).sum()
    return w1, w2, base, mid, h, loss


def _expected_grads():
    w1, w2, *_, loss = _graph(torch)
    loss.backward()
    return w1.grad.detach().numpy().copy(), w2.grad.detach().numpy().copy()


class BadFunction(jitgrad.autograd.Function):
    fail = True

    @staticmethod
    def forward(ctx, x):
        return x * 1.0

    @staticmethod
    def backward(ctx, grad):
        if BadFunction.fail:
            raise Boom("backward of a custom Function failed")
        return grad


PLACES = ["tensor_hook_intermediate", "tensor_hook_leaf_w2", "node_hook", "custom_function",
          "tensor_hook_late"]


@pytest.mark.parametrize("where", PLACES)
def test_exception_mid_backward_leaves_grads_and_graph_intact(where):
    g1, g2 = _expected_grads()
    w1, w2, base, mid, h, loss = _graph(jitgrad)
    if where == "custom_function":
        BadFunction.fail = True
        loss = loss + BadFunction.apply(w2).sum()
        g2 = g2 + 1.0
    # A first, successful backward, so the leaves hold gradients to be preserved.
    loss.backward(retain_graph=True) if where != "custom_function" else None
    before = [None if w.grad is None else w.grad.detach().numpy().copy() for w in (w1, w2)]

    def boom(*_):
        raise Boom(where)

    if where == "tensor_hook_intermediate":
        handle = h.register_hook(boom)
    elif where == "tensor_hook_leaf_w2":
        handle = w2.register_hook(boom)
    elif where == "tensor_hook_late":
        handle = base.register_hook(boom)  # runs after some leaves' paths are done
    elif where == "node_hook":
        handle = h.grad_fn.register_hook(boom)
    else:
        handle = None
    with pytest.raises(Boom):
        loss.backward(retain_graph=True)
    after = [None if w.grad is None else w.grad.detach().numpy().copy() for w in (w1, w2)]
    for b, a, name in zip(before, after, ("w1", "w2")):
        assert (b is None) == (a is None), f"{name}.grad appeared or vanished"
        if b is not None:
            np.testing.assert_array_equal(a, b, err_msg=f"{name}.grad changed by a failed backward")
    # The graph is still usable.
    if handle is not None:
        handle.remove()
    BadFunction.fail = False
    loss.backward(retain_graph=True)
    k = 2 if where != "custom_function" else 1
    np.testing.assert_allclose(w1.grad.detach().numpy(), k * g1, rtol=1e-12)
    np.testing.assert_allclose(w2.grad.detach().numpy(), k * g2, rtol=1e-12)


def test_version_error_mid_backward_leaves_grads_intact():
    """The engine's own error (a saved tensor modified in place) is also all-or-nothing."""
    w = jitgrad.tensor([1.0, 2.0, 3.0], dtype=jitgrad.float64, requires_grad=True)
    v = jitgrad.tensor([4.0, 5.0], dtype=jitgrad.float64, requires_grad=True)
    y = w * 1.0
    z = (w * 3.0).sum() + (v * v).sum()   # reaches both leaves without y
    loss = z + (y * y).sum()              # y saved by MulBackward0
    loss.backward(retain_graph=True)
    before = (w.grad.detach().numpy().copy(), v.grad.detach().numpy().copy())
    with jitgrad.no_grad():
        y.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward(retain_graph=True)
    np.testing.assert_array_equal(w.grad.detach().numpy(), before[0])
    np.testing.assert_array_equal(v.grad.detach().numpy(), before[1])
