"""Ops composed under one PyTorch-named node (``nn/_composite.py``) whose inputs share
history: one input is computed from another (a grid from the image it samples, a kernel cut
from the signal it filters, per-sample weights read from the table they weight). Each input
must get its partial derivative once, the other path reaching it through the other input's
own history; first and second derivatives side by side with PyTorch. (The composition's
``grad`` w.r.t. the inputs themselves gave the total derivative: that path counted twice.)"""

from __future__ import annotations

import numpy as np
import pytest

from tests.compat_helpers import both_close

RNG = np.random.default_rng(17)
SIGNAL = RNG.normal(size=(2, 2, 7))
IMAGE = RNG.normal(size=(1, 2, 4, 5))
TABLE = RNG.normal(size=(5, 3))
LINEAR = RNG.normal(size=(40, 6)) * 0.05


def _conv1d(lib, x):
    return lib.nn.functional.conv1d(x, x[0, :, :3].unsqueeze(0).expand(3, 2, 3) * 0.5, x[1, 0, :3])


def _conv2d(lib, x):
    return lib.nn.functional.conv2d(x, x[:, :, :2, :2].transpose(0, 1).expand(2, 2, 2, 2).sin(), padding=1)


def _conv_transpose1d(lib, x):
    return lib.nn.functional.conv_transpose1d(x, x[:, :, :3].transpose(0, 1).cos(), stride=2)


def _grid_sample(lib, x):
    theta = (x.flatten() @ lib.tensor(LINEAR) + lib.tensor([1.0, 0, 0, 0, 1, 0], dtype=lib.float64)).view(1, 2, 3)
    grid = lib.nn.functional.affine_grid(theta, [1, 2, 4, 5], align_corners=False)
    return lib.nn.functional.grid_sample(x, grid, padding_mode="border", align_corners=False)


def _embedding_bag(lib, w):
    idx = lib.tensor([0, 2, 4, 1, 1])
    return lib.nn.functional.embedding_bag(idx, w, lib.tensor([0, 2]), mode="sum",
                                           per_sample_weights=w[idx, 0].tanh())


CASES = {"conv1d": (_conv1d, SIGNAL), "conv2d": (_conv2d, IMAGE), "conv_transpose1d": (_conv_transpose1d, SIGNAL),
         "grid_sample": (_grid_sample, IMAGE), "embedding_bag": (_embedding_bag, TABLE)}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_input_derived_from_another_gets_each_path_once(case):
    op, data = CASES[case]

    def program(lib):
        x = lib.tensor(data, requires_grad=True)
        y = op(lib, x)
        (g,) = lib.autograd.grad((y * y.detach().cos()).sum(), x, create_graph=True)
        if case == "embedding_bag":  # (PyTorch has no double backward for per_sample_weights)
            return y, g
        (gg,) = lib.autograd.grad((g ** 2).sum(), x)
        return y, g, gg

    both_close(program, rtol=1e-10, atol=1e-12)


def test_the_same_tensor_as_two_inputs():
    def program(lib):
        k = lib.tensor(SIGNAL[0, :, :3].reshape(1, 2, 3), requires_grad=True)
        y = lib.nn.functional.conv1d(k, k)
        y.sum().backward()
        return y, k.grad

    both_close(program)


WRITTEN_AFTER = {
    "interpolate_bilinear": (lambda lib, x: lib.nn.functional.interpolate(x, size=(6, 7), mode="bilinear"), IMAGE),
    "interpolate_nearest": (lambda lib, x: lib.nn.functional.interpolate(x, scale_factor=2), IMAGE),
    "interpolate_bicubic": (lambda lib, x: lib.nn.functional.interpolate(x, size=(3, 8), mode="bicubic"), IMAGE),
    "affine_grid": (lambda lib, t: lib.nn.functional.affine_grid(t, [2, 1, 3, 4], align_corners=False),
                    RNG.normal(size=(2, 2, 3))),
    "embedding_bag_max": (lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor([0, 2, 4, 1]), w,
                                                                         lib.tensor([0, 2]), mode="max"), TABLE),
    "pdist": (lambda lib, x: lib.nn.functional.pdist(x), TABLE),
    "conv1d": (lambda lib, x: lib.nn.functional.conv1d(x, lib.ones(1, 2, 2, dtype=lib.float64)), SIGNAL),
}


@pytest.mark.parametrize("case", sorted(WRITTEN_AFTER))
def test_an_input_written_in_place_after_the_op(case):
    """Where PyTorch's node saved nothing of the input, the write is allowed and the gradient
    still reaches the input's history as it was (jitgrad found no gradient at all: it looked
    for the input by its new history); where it saved it, both refuse."""
    op, data = WRITTEN_AFTER[case]

    def program(lib):
        leaf = lib.tensor(data, requires_grad=True)
        x = leaf * 1
        y = op(lib, x)
        x.mul_(2.0)
        try:
            (y * y.detach().sin()).sum().backward()
        except RuntimeError as e:
            return y, "modified by an inplace operation" in str(e)
        return y, leaf.grad

    both_close(program)
