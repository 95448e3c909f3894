"""Custom operations (``jitgrad.autograd.Function``) against ``torch.autograd.Function``:
the same Function body is defined for both libraries and the results compared."""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import pytest
import torch

import jitgrad
from jitgrad.autograd import gradcheck
from test_engine import LIBS, X, W, compare, leaf, raises_like, same


def values(t: Any) -> Any:
    """What a backward received, comparable across libraries."""
    return None if t is None else t.detach().numpy().tolist()


def make_exp(lib: Any) -> Any:
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            y = lib.from_numpy(np.exp(x.detach().numpy()))
            ctx.save_for_backward(y)  # an output: saved without a reference cycle
            return y

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (y,) = ctx.saved_tensors
            return grad * y

    return Exp


def test_forward_backward_and_node() -> None:
    def program(lib: Any) -> Any:
        x = leaf(lib, X)
        y = make_exp(lib).apply(x * 2.0)
        (y * 3.0).sum().backward()
        fn = y.grad_fn
        return y, x.grad, fn.name(), [n.name() for n, _ in fn.next_functions], y.is_leaf

    compare(program)


def test_needs_input_grad_and_non_tensor_arguments() -> None:
    def program(lib: Any) -> Any:
        seen: list[Any] = []

        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any, k: float, b: Any) -> Any:
                seen.append(ctx.needs_input_grad)
                ctx.k = k
                return a * k + b

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                seen.append(ctx.needs_input_grad)
                return g * ctx.k, None, g if ctx.needs_input_grad[2] else None

        x, c = leaf(lib, X), leaf(lib, W, requires_grad=False)
        Scale.apply(x, 3.0, c).sum().backward()
        return seen, x.grad, len(Scale.apply(x, 3.0, c).grad_fn.next_functions)

    compare(program)


def test_grads_received_materialized_or_not() -> None:
    def program(lib: Any, materialize: bool) -> Any:
        received: list[Any] = []

        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                ctx.set_materialize_grads(materialize)
                return a * 2.0, "label", a * 3.0

            @staticmethod
            def backward(ctx: Any, g1: Any, g_label: Any, g2: Any) -> Any:
                received.extend([values(g1), g_label, values(g2)])
                return g1 * 2.0

        x = leaf(lib, X)
        out1, label, out2 = Two.apply(x)
        out1.sum().backward()  # out2 is unused: zeros, or None without materialization
        return received, label, x.grad

    for materialize in (True, False):
        same(program(jitgrad, materialize), program(torch, materialize))


def test_mark_non_differentiable() -> None:
    def program(lib: Any) -> Any:
        received: list[Any] = []

        class WithIndex(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                idx = a * 0.0
                ctx.mark_non_differentiable(idx)
                return a * 2.0, idx

            @staticmethod
            def backward(ctx: Any, g: Any, g_idx: Any) -> Any:
                received.append(values(g_idx))
                return g * 2.0

        x = leaf(lib, X)
        out, idx = WithIndex.apply(x)
        (out.sum() + idx.sum()).backward()
        return idx.requires_grad, idx.grad_fn, received, x.grad

    compare(program)


def make_add_inplace(lib: Any) -> Any:
    class AddInplace(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any, b: Any) -> Any:
            a.add_(b)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g, g * 2.0

    return AddInplace


def test_mark_dirty_rebases_history_and_bumps_version() -> None:
    def program(lib: Any) -> Any:
        x, w = leaf(lib, X), leaf(lib, W)
        a = x * 1.0
        before = a._version
        out = make_add_inplace(lib).apply(a, w)
        names = out.grad_fn.name(), a.grad_fn.name(), a.grad_fn.next_functions[0][0].name()
        (out * out).sum().backward()
        return out is a, before, a._version, names, x.grad, w.grad

    compare(program)


def test_mark_dirty_invalidates_saved_values_and_refuses_leaves() -> None:
    def stale(lib: Any) -> None:
        x, w = leaf(lib, X), leaf(lib, W)
        a = x * 1.0
        y = a * a  # saves a at version 0
        make_add_inplace(lib).apply(a, w)
        y.sum().backward()

    ours, _ = raises_like(stale, "has been modified by an inplace operation")
    assert "is at version 2; expected version 0 instead." in ours

    raises_like(
        lambda lib: make_add_inplace(lib).apply(leaf(lib, X), leaf(lib, W)),
        "a leaf Variable that requires grad",
    )

    class NotReturned(jitgrad.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            ctx.mark_dirty(a)
            return a * 2.0

    with pytest.raises(RuntimeError, match="marked as dirty"):
        NotReturned.apply(leaf(jitgrad, X) * 1.0)


def test_input_returned_unchanged_is_an_alias() -> None:
    def program(lib: Any) -> Any:
        class Ident(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                return a

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g * 5.0

        x = leaf(lib, X)
        a = x * 1.0
        out = Ident.apply(a)
        shares = np.shares_memory(out.detach().numpy(), a.detach().numpy())
        out.sum().backward()
        with lib.no_grad():
            plain = Ident.apply(a)  # not recorded, still a new alias
        return out is a, out._base is a, shares, out.grad_fn.name(), a.grad_fn.name(), x.grad, plain is a, plain.grad_fn

    compare(program)


def test_wrong_number_or_kind_of_gradients() -> None:
    def too_few(lib: Any) -> None:
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any, b: Any) -> Any:
                return a + b

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g

        Bad.apply(leaf(lib, X), leaf(lib, W)).sum().backward()

    raises_like(too_few, "function BadBackward returned an incorrect number of gradients (expected 2, got 1)")

    def not_a_variable(lib: Any) -> None:
        class Bad2(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any, k: float) -> Any:
                return a * k

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g, g

        Bad2.apply(leaf(lib, X), 2.0).sum().backward()

    raises_like(not_a_variable, "returned a gradient different than None at position 2, but the corresponding forward input was not a Variable")


def test_broadcast_gradient_is_reduced_to_the_input_shape() -> None:
    def program(lib: Any) -> Any:
        class AddBias(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any, bias: Any) -> Any:
                return a + bias

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g, g  # g has a's shape; the engine sums it down to bias's

        x, b = leaf(lib, X), leaf(lib, W[:1])
        (AddBias.apply(x, b) * 2.0).sum().backward()
        return x.grad, b.grad

    compare(program)


def test_saved_tensors_version_check_and_freeing() -> None:
    def make(lib: Any) -> Any:
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                ctx.save_for_backward(a)
                return a * a

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                (a,) = ctx.saved_tensors
                return g * 2.0 * a

        return Square

    def modified(lib: Any) -> None:
        x = leaf(lib, X)
        a = x * 1.0
        y = make(lib).apply(a)
        a.add_(1.0)
        y.sum().backward()

    ours, theirs = raises_like(modified, "is at version 1; expected version 0 instead.")
    assert "output 0 of Add," in ours and "output 0 of Add," in theirs  # (the forward op's name)

    def twice(lib: Any) -> None:
        y = make(lib).apply(leaf(lib, X))
        y.sum().backward()
        y.sum().backward()

    raises_like(twice, "Trying to backward through the graph a second time")

    def double(lib: Any) -> Any:  # backward built from differentiable ops: create_graph works
        x = leaf(lib, X)
        (g,) = lib.autograd.grad((make(lib).apply(x) * x).sum(), [x], create_graph=True)
        return g, lib.autograd.grad(g.sum(), [x])

    compare(double)


def test_once_differentiable() -> None:
    def make(lib: Any) -> Any:
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                ctx.save_for_backward(a)
                return a * a * a

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx: Any, g: Any) -> Any:
                (a,) = ctx.saved_tensors
                return g * 3.0 * a * a

        return Cube

    def first_order(lib: Any) -> Any:
        x = leaf(lib, X)
        (g,) = lib.autograd.grad(make(lib).apply(x).sum(), [x], create_graph=True)
        return g, g.requires_grad  # grad outputs needed no grad: nothing recorded

    compare(first_order)

    def twice(lib: Any) -> None:
        x = leaf(lib, X)
        v = leaf(lib, W)
        (g,) = lib.autograd.grad(make(lib).apply(x), [x], grad_outputs=[v], create_graph=True)
        g.sum().backward()

    raises_like(twice, "trying to differentiate twice a function that was marked with @once_differentiable")


def test_setup_context_style() -> None:
    def program(lib: Any) -> Any:
        class Mul(lib.autograd.Function):
            @staticmethod
            def forward(a: Any, b: Any) -> Any:
                return a * b

            @staticmethod
            def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
                ctx.save_for_backward(*inputs)

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                a, b = ctx.saved_tensors
                return g * b, g * a

        x, w = leaf(lib, X), leaf(lib, W)
        Mul.apply(x, w).sum().backward()
        return x.grad, w.grad

    compare(program)


def test_not_recorded_without_inputs_requiring_grad() -> None:
    def program(lib: Any) -> Any:
        y = make_exp(lib).apply(lib.from_numpy(X.copy()))
        with lib.no_grad():
            z = make_exp(lib).apply(leaf(lib, X))
        return y.requires_grad, y.grad_fn, z.requires_grad, y

    compare(program)


# -- a user's own Numba kernel behind a Function -----------------------------------------------------


@numba.njit(cache=False)
def _cube_forward(x: np.ndarray, out: np.ndarray) -> None:
    for i in range(x.shape[0]):
        out[i] = x[i] * x[i] * x[i]


@numba.njit(cache=False)
def _cube_backward(x: np.ndarray, grad: np.ndarray, out: np.ndarray) -> None:
    for i in range(x.shape[0]):
        out[i] = 3.0 * x[i] * x[i] * grad[i]


class NumbaCube(jitgrad.autograd.Function):
    """``x ** 3`` on 1-D tensors, forward and backward in the user's own Numba kernels."""

    @staticmethod
    def forward(ctx: Any, x: jitgrad.Tensor) -> jitgrad.Tensor:
        ctx.save_for_backward(x)
        src = np.ascontiguousarray(x.numpy())
        out = np.empty_like(src)
        _cube_forward(src, out)
        return jitgrad.from_numpy(out)

    @staticmethod
    def backward(ctx: Any, grad: jitgrad.Tensor) -> jitgrad.Tensor:
        (x,) = ctx.saved_tensors
        out = np.empty(x.shape, x.dtype)
        _cube_backward(np.ascontiguousarray(x.numpy()), np.ascontiguousarray(grad.numpy()), out)
        return jitgrad.from_numpy(out)


def test_user_numba_kernel_through_function() -> None:
    x = leaf(jitgrad, X)
    y = NumbaCube.apply(x * 2.0)
    (y * leaf(jitgrad, W, False)).sum().backward()
    assert y.grad_fn.name() == "NumbaCubeBackward"

    t = leaf(torch, X)
    ((t * 2.0) ** 3 * torch.from_numpy(W.copy())).sum().backward()
    same(y, (torch.from_numpy(X.copy()) * 2.0) ** 3)
    same(x.grad, t.grad)
    assert gradcheck(NumbaCube.apply, (leaf(jitgrad, X),))


def test_inplace_on_an_input_returned_as_is_is_refused() -> None:
    def program(lib: Any) -> None:
        class Ident(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                return a

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g

        Ident.apply(leaf(lib, X) * 1.0).add_(1.0)

    raises_like(program, "This view was created inside a custom Function")


def test_mark_dirty_on_a_view_rebases_its_base() -> None:
    def program(lib: Any) -> Any:
        x, w = leaf(lib, X), leaf(lib, W[1:4])
        base = x * 1.0
        view = base[1:4]
        out = make_add_inplace(lib).apply(view, w)
        (base * base).sum().backward()
        return base, out, x.grad, w.grad, base.grad_fn.name().split("::")[-1]

    compare(program)


def test_reentrant_backward_checkpoint_style() -> None:
    """A backward that runs its own backward pass (recomputing the forward, as
    checkpointing does): the engine is reentrant and grad mode is restored."""

    def program(lib: Any) -> Any:
        class Recompute(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                ctx.save_for_backward(a)
                return a * a * 2.0

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                (a,) = ctx.saved_tensors
                with lib.enable_grad():
                    inner = a.detach().requires_grad_()
                    y = inner * inner * 2.0
                (ga,) = lib.autograd.grad(y, [inner], [g])
                return ga

        x = leaf(lib, X)
        (Recompute.apply(x * 3.0) * leaf(lib, W, False)).sum().backward()
        return x.grad, lib.is_grad_enabled()

    compare(program)


def test_retain_grad_follows_a_dirty_input() -> None:
    def program(lib: Any) -> Any:
        x, w = leaf(lib, X), leaf(lib, W)
        a = x * 1.0
        a.retain_grad()
        make_add_inplace(lib).apply(a, w)
        (a * a).sum().backward()
        return a.grad, x.grad

    compare(program)
