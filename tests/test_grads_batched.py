"""``autograd.grad(..., is_grads_batched=True)`` side by side with PyTorch: a batch of
cotangents in one call (Jacobian rows), several outputs and inputs, create_graph through the
batch, unused inputs, the freed graph afterwards, and PyTorch's shape error."""

from __future__ import annotations

import numpy as np

from tests.compat_helpers import both

X = np.random.default_rng(8).normal(size=(4, 3))


def test_jacobian_rows_of_a_vector_function():
    def program(lib):
        x = lib.tensor(X, requires_grad=True)
        y = (x.sin() * x).sum(1)
        (rows,) = lib.autograd.grad(y, x, grad_outputs=lib.eye(4, dtype=lib.float64), is_grads_batched=True)
        return rows

    both(program)


def test_several_outputs_and_inputs_and_an_unused_input():
    def program(lib):
        x = lib.tensor(X, requires_grad=True)
        w = lib.tensor(X[0], requires_grad=True)
        unused = lib.tensor(1.0, dtype=lib.float64, requires_grad=True)
        y = x @ w
        z = (x ** 2).sum()
        seeds = [lib.tensor(np.arange(12.0).reshape(3, 4)), lib.tensor([1.0, -1.0, 0.5], dtype=lib.float64)]
        return lib.autograd.grad([y, z], [x, w, unused], grad_outputs=seeds, is_grads_batched=True,
                                 allow_unused=True)

    both(program)


def test_create_graph_keeps_the_batched_gradients_differentiable():
    def program(lib):
        x = lib.tensor(X, requires_grad=True)
        y = (x.exp() * x).sum(1)
        (rows,) = lib.autograd.grad(y, x, grad_outputs=lib.eye(4, dtype=lib.float64), is_grads_batched=True,
                                    create_graph=True)
        (second,) = lib.autograd.grad((rows ** 2).sum(), x)
        return rows, second

    both(program)


def test_the_graph_is_freed_unless_retained():
    def program(lib):
        x = lib.tensor(X, requires_grad=True)
        y = (x.exp() * x).sum(1)
        lib.autograd.grad(y, x, grad_outputs=lib.eye(4, dtype=lib.float64), is_grads_batched=True,
                          retain_graph=True)
        lib.autograd.grad(y, x, grad_outputs=lib.eye(4, dtype=lib.float64), is_grads_batched=True)
        lib.autograd.grad(y.sum(), x)

    both(program, "Trying to backward through the graph a second time")


def test_a_cotangent_without_the_output_shape_raises_pytorchs_error():
    def program(lib):
        x = lib.tensor(X, requires_grad=True)
        y = (x ** 2).sum(1)
        lib.autograd.grad(y, x, grad_outputs=lib.eye(3, dtype=lib.float64), is_grads_batched=True)

    both(program, "we interpret the first dimension of each grad_output as the batch dimension")
