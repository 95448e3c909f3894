"""``lp_pool1d/2d``, ``max_unpool1d/2d``, the ``*_with_indices`` spellings, ``fold``/``Fold``,
``Unfold``, ``channel_shuffle``/``ChannelShuffle`` and the 3-d padding modules against PyTorch
(float64): values, gradients, gradients of gradients, node names, errors, reprs; Hypothesis
over fold's geometry; gradcheck."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import jitgrad
from conftest import budget
from nn_side_by_side import compare, same_error

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("name, shape, args, kw", [
    ("lp_pool2d", (2, 3, 6, 5), (2, 3), dict(stride=2)), ("lp_pool2d", (2, 3, 6, 5), (1.5, (2, 3)), dict(ceil_mode=True)),
    ("lp_pool1d", (2, 3, 7), (3.0, 2), {}), ("lp_pool1d", (3, 7), (2, 3), dict(stride=1, ceil_mode=True)),
])
def test_lp_pool(name: str, shape: tuple[int, ...], args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    x = np.abs(RNG.standard_normal(shape)) + 0.1
    compare(lambda L, t: getattr(L.nn.functional, name)(t, *args, **kw), x, rtol=1e-9)
    mods = [getattr(L.nn, name.replace("lp_pool", "LPPool").replace("d", "d"))(*args, **kw) for L in (jitgrad, torch)]
    assert repr(mods[0]) == repr(mods[1])
    compare(lambda L, t: mods[L is torch](t), x, rtol=1e-9)


@pytest.mark.parametrize("n, kw, size", [(2, dict(kernel_size=2), None), (2, dict(kernel_size=3, stride=2, padding=1), (8, 8)),
                                         (2, dict(kernel_size=2), (9, 9)), (1, dict(kernel_size=3, stride=2), None),
                                         (1, dict(kernel_size=2), (2, 3, 9))])
def test_max_unpool(n: int, kw: dict[str, Any], size: Any) -> None:
    x = RNG.standard_normal((2, 3) + (8,) * n)

    def program(L: Any, t: Any) -> Any:
        F = L.nn.functional
        pooled, indices = getattr(F, f"max_pool{n}d_with_indices")(t, **kw)
        return getattr(F, f"max_unpool{n}d")(pooled * 2, indices, **kw, output_size=size)

    compare(program, x)
    mods = [getattr(L.nn, f"MaxUnpool{n}d")(**kw) for L in (jitgrad, torch)]
    assert repr(mods[0]) == repr(mods[1])


def test_with_indices_spellings() -> None:
    x = RNG.standard_normal((2, 3, 6, 6))
    for name, args in [("max_pool2d_with_indices", (3, 2, 1)), ("adaptive_max_pool2d_with_indices", ((4, 2),)),
                       ("max_pool1d_with_indices", (2,)), ("adaptive_max_pool1d_with_indices", (4,))]:
        t = x[0] if "1d" in name else x
        compare(lambda L, u: getattr(L.nn.functional, name)(u, *args), t)


FOLDS = [((2, 12, 12), dict(output_size=(4, 5), kernel_size=2)),
         ((3 * 6, 9), dict(output_size=(5, 6), kernel_size=(2, 3), stride=2, padding=1)),
         ((1, 8, 8), dict(output_size=(6, 6), kernel_size=2, dilation=2, stride=(2, 1)))]


@pytest.mark.parametrize("shape, kw", FOLDS, ids=[str(i) for i in range(len(FOLDS))])
def test_fold(shape: tuple[int, ...], kw: dict[str, Any]) -> None:
    compare(lambda L, t: L.nn.functional.fold(t, **kw), RNG.standard_normal(shape))
    mods = [L.nn.Fold(**kw) for L in (jitgrad, torch)]
    assert repr(mods[0]) == repr(mods[1])
    args = {k: v for k, v in kw.items() if k != "output_size"}
    unfolds = [L.nn.Unfold(**args) for L in (jitgrad, torch)]
    assert repr(unfolds[0]) == repr(unfolds[1])
    compare(lambda L, t: unfolds[L is torch](t), RNG.standard_normal(shape[:-2] + (2,) + kw["output_size"]),
            node=False)


@settings(max_examples=budget(20))
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 2), st.integers(0, 1), st.integers(1, 2),
       st.integers(3, 7), st.integers(3, 7))
def test_fold_is_unfolds_adjoint(k0: int, k1: int, d: int, p: int, s: int, h: int, w: int) -> None:
    """<fold(c), x> == <c, unfold(x)> for every geometry PyTorch accepts; fold matches it."""
    kw = dict(kernel_size=(k0, k1), dilation=d, padding=p, stride=s)
    blocks = [(n + 2 * p - d * (k - 1) - 1) // s + 1 for n, k in ((h, k0), (w, k1))]
    if min(blocks) < 1:
        return
    cols = RNG.standard_normal((2, 2 * k0 * k1, blocks[0] * blocks[1]))
    x = RNG.standard_normal((2, 2, h, w))
    F = jitgrad.nn.functional
    folded = F.fold(jitgrad.tensor(cols), (h, w), **kw).numpy()
    np.testing.assert_allclose((folded * x).sum(), (cols * F.unfold(jitgrad.tensor(x), **kw).numpy()).sum(), rtol=1e-10)
    compare(lambda L, t: L.nn.functional.fold(t, (h, w), **kw), cols, second=False)


@pytest.mark.parametrize("shape, groups", [((2, 6, 3, 2), 3), ((1, 4, 5), 2), ((2, 6, 1, 2, 2), 6)])
def test_channel_shuffle(shape: tuple[int, ...], groups: int) -> None:
    x = RNG.standard_normal(shape)
    compare(lambda L, t: L.nn.functional.channel_shuffle(t, groups), x)
    compare(lambda L, t: L.nn.ChannelShuffle(groups)(t), x)
    assert repr(jitgrad.nn.ChannelShuffle(groups)) == repr(torch.nn.ChannelShuffle(groups))


@pytest.mark.parametrize("name, args", [("ZeroPad3d", (1,)), ("ConstantPad3d", ((1, 0, 2, 1, 0, 1), 2.5)),
                                        ("ReflectionPad3d", ((1, 2, 0, 1, 1, 0),)), ("ReplicationPad3d", (2,)),
                                        ("CircularPad3d", ((1, 1, 0, 2, 1, 0),))])
def test_pad3d_modules(name: str, args: tuple[Any, ...]) -> None:
    mods = [getattr(L.nn, name)(*args) for L in (jitgrad, torch)]
    assert repr(mods[0]) == repr(mods[1])
    for shape in ((2, 2, 3, 4, 3), (2, 3, 4, 3)):
        compare(lambda L, t: mods[L is torch](t), RNG.standard_normal(shape), node=not name.startswith("Circular"))


ERRORS = {
    "unpool_size": lambda F, y, i: F.max_unpool2d(y, i, 2, output_size=(9, 9)),
    "unpool_index": lambda F, y, i: F.max_unpool2d(y, i * 10, 2),
    "unpool_shape": lambda F, y, i: F.max_unpool2d(y, i[:, :, :1], 2),
    "unpool_dtype": lambda F, y, i: F.max_unpool2d(y, i.double(), 2),
    "unpool_dims": lambda F, y, i: F.max_unpool2d(y[0, 0], i[0, 0], 2),
    "unpool1d_size_len": lambda F, y, i: F.max_unpool1d(y[0], i[0], 2, output_size=(1, 2, 3, 4)),
    "fold_divisible": lambda F, y, i: F.fold(y.new_ones(1, 7, 12), (4, 5), 2),
    "fold_blocks": lambda F, y, i: F.fold(y.new_ones(1, 12, 10), (4, 5), 2),
    "fold_dims": lambda F, y, i: F.fold(y.new_ones(12), (4, 5), 2),
    "shuffle_dims": lambda F, y, i: F.channel_shuffle(y.new_ones(2, 3), 2),
    "shuffle_divisible": lambda F, y, i: F.channel_shuffle(y.new_ones(2, 3, 2), 2),
    "shuffle_groups": lambda F, y, i: F.channel_shuffle(y.new_ones(2, 4, 2), 0),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case: str) -> None:
    data = np.random.default_rng(7).standard_normal((1, 2, 4, 4))  # (the same input for both)

    def program(L: Any) -> Any:
        x = L.tensor(data, requires_grad=True)
        y, i = L.nn.functional.max_pool2d(x, 2, return_indices=True)
        return ERRORS[case](L.nn.functional, y, i)

    same_error(program)


def test_gradcheck() -> None:
    F = jitgrad.nn.functional
    cols = jitgrad.tensor(RNG.standard_normal((1, 8, 6)), requires_grad=True)
    assert jitgrad.autograd.gradcheck(lambda t: F.fold(t, (3, 4), 2), (cols,))
    x = jitgrad.tensor(np.abs(RNG.standard_normal((1, 2, 4, 4))) + 0.5, requires_grad=True)
    assert jitgrad.autograd.gradcheck(lambda t: F.lp_pool2d(t, 2, 2), (x,))
    assert jitgrad.autograd.gradcheck(lambda t: F.channel_shuffle(t, 2) * t, (x,))
    y, i = F.max_pool2d(x.detach(), 2, return_indices=True)
    y.requires_grad_()
    assert jitgrad.autograd.gradcheck(lambda t: F.max_unpool2d(t, i, 2), (y,))
