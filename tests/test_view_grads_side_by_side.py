"""Gradients of the views with the most bookkeeping, side by side on PyTorch and jitgrad
(float64): ``unbind`` (one input, many outputs, some without a gradient) and ``as_strided``
(sizes and strides that overlap, broadcast, transpose or reach outside the tensor they are
taken of). Each program returns values, first and second gradients and what ``gradcheck``
and ``gradgradcheck`` say; the gradients through the other view ops are in
``test_view_ops_side_by_side.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings

from conftest import budget
from tests.compat_helpers import outcome
from tests.test_autograd_behaviours import both
from tests.test_view_ops_side_by_side import fresh
from tests.test_view_shapes_side_by_side import tried
from tests.test_views import view_chains


def leaf(lib: Any, *shape: int) -> Any:
    """Quarters from -1 up: sums of their products are exact, whatever the order."""
    return (fresh(lib, *shape) / 4 - 1.25).requires_grad_()


def test_unbind_gradient_from_every_piece() -> None:
    def program(lib):
        x = leaf(lib, 3, 2, 4)
        upstream = fresh(lib, 3, 2, 4).cos()
        lib.autograd.backward(list(x.unbind()), list(upstream.unbind()))
        return x.grad

    both(program)


@pytest.mark.parametrize("piece", [0, 1, 2])
def test_unbind_gradient_from_one_piece_is_zero_elsewhere(piece: int) -> None:
    def program(lib):
        x = leaf(lib, 2, 3, 2)
        pieces = x.unbind(1)
        (g,) = lib.autograd.grad(pieces[piece], x, fresh(lib, 2, 2).cos())
        return g

    both(program)


def test_unbind_passes_gradcheck_and_gradgradcheck() -> None:
    def program(lib):
        x = leaf(lib, 4, 3)
        cubed = lambda t: tuple(p ** 3 for p in t.unbind(-1))  # noqa: E731
        return lib.autograd.gradcheck(cubed, (x,)), lib.autograd.gradgradcheck(cubed, (x,))

    both(program)


def _expanded(x: Any) -> Any:
    return x.expand(3, 4)


# name: (shape of the leaf, view taken first or None, sizes, strides, storage offset or None)
AS_STRIDED = {
    "window_of_a_view": ((20,), lambda x: x.view(4, 5), (2, 3), (5, 2), 1),
    "stride_of_size_one_dims": ((10,), None, (1, 3, 1, 2), (0, 3, 77, 1), 1),
    "broadcast_zero_strides": ((6,), None, (2, 2, 3), (0, 1, 0), 1),
    "every_stride_zero": ((6,), None, (2, 3, 2), (0, 0, 0), 3),
    "of_an_expanded_tensor": ((4,), _expanded, (3, 4), (0, 1), 0),
    "overlapping_rows": ((30,), None, (5, 4), (4, 1), 3),
    "overlapping_out_of_order": ((8,), None, (3, 2), (1, 2), 2),
    "transposed": ((3, 4), None, (4, 3), (1, 4), None),
    "reaches_before_the_view": ((6, 2), lambda x: x[3:], (3, 2), (2, 1), 0),
    "matrix_of_a_batch_expand": ((2, 3), lambda x: x.expand(5, 2, 3), (2, 3), (3, 1), 0),
}


@pytest.mark.parametrize("case", AS_STRIDED)
def test_as_strided_gradients(case: str) -> None:
    """The result, the gradient of a weighted sum of its squares, the gradient of that
    gradient's squares, and gradcheck/gradgradcheck of the op. (Elements the strides reach
    outside the view the op starts from get no gradient, so gradcheck fails there on both.)"""
    shape, prep, sizes, strides, offset = AS_STRIDED[case]

    def program(lib):
        def op(t):
            return (prep(t) if prep else t).as_strided(sizes, strides, offset)

        x = leaf(lib, *shape)
        y = op(x)
        weights = fresh(lib, *sizes) / 8
        (g,) = lib.autograd.grad((y * y * weights).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        checks = [tried(lambda: check(op, (x,)))
                  for check in (lib.autograd.gradcheck, lib.autograd.gradgradcheck)]
        return y, g, gg, checks

    both(program)


def test_as_strided_from_a_view_counts_from_the_storage_start() -> None:
    def program(lib):
        x = fresh(lib, 6, 2)
        return x[3:].as_strided((3, 2), (2, 1), 0), x[3:].as_strided((3, 2), (2, 1)), x[:3]

    both(program)


def test_as_strided_of_a_leaf_sharing_a_bigger_storage() -> None:
    """A leaf cut out of a bigger tensor: offset 0 reads elements before the leaf, which
    no perturbation of the leaf changes, so their gradient is zero and gradcheck agrees."""
    def program(lib):
        whole = fresh(lib, 6, 2) / 4
        x = whole[3:].detach().requires_grad_()
        op = lambda t: t.as_strided((3, 2), (2, 1), 0)  # noqa: E731
        y = op(x)
        (g,) = lib.autograd.grad((y * y).sum(), x)
        checks = lib.autograd.gradcheck(op, (x,)), lib.autograd.gradgradcheck(op, (x,))
        return y, y.equal(whole[:3]), g, checks

    both(program)


@pytest.mark.parametrize("shape, sizes, strides", [
    ((), (0,), (0,)), ((3,), (0,), (1,)), ((2, 3), (2, 0), (3, 1)), ((4,), (0, 2), (1, 1)),
])
def test_as_strided_with_no_elements_gives_zeros_outside_the_graph(shape, sizes, strides) -> None:
    """Under create_graph, the gradient through an empty ``as_strided`` is plain zeros (it
    does not require grad), so a second backward through it has nothing to differentiate."""
    def program(lib):
        x = leaf(lib, *shape)
        y = x.as_strided(sizes, strides)
        (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        (h,) = lib.autograd.grad((y * y).sum() + (x * x).sum(), x, create_graph=True)
        return g, g.requires_grad, h, h.requires_grad

    both(program)


@settings(max_examples=budget(100))
@given(view_chains())
def test_gradient_through_random_view_chains(case) -> None:
    """Chains of views (test_views.py's strategy, some calls invalid) from a leaf: the
    gradient of a weighted sum of the last result's squares, and of that gradient's squares."""
    data, ops = case

    def program(lib):
        x = lib.from_numpy(np.asarray(data / 4 - 1)).requires_grad_()
        out = x
        for op in ops:
            kind, out = outcome(lambda: op(out))
            if kind != "ok":
                return kind
        weights = lib.arange(out.numel(), dtype=lib.float64).reshape(out.shape) / 8
        (g,) = lib.autograd.grad((out * out * weights).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x, allow_unused=True)
        return out, g, gg

    both(program)
