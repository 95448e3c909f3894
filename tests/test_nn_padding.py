"""``F.pad`` (constant, reflect, replicate, circular) and the padding modules against PyTorch
(float64): values, gradients, gradients of gradients, node names, errors; Hypothesis over
shapes and amounts (negative amounts crop); gradcheck."""

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
MODES = ("constant", "reflect", "replicate", "circular")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape, amounts", [((2, 3, 4, 5), (1, 2, 2, 1)), ((2, 3, 5), (2, 1)), ((3, 4, 5), (0, 3, 1, 0)),
                                            ((1, 2, 3, 4, 5), (1, 1, 2, 0, 1, 2)), ((2, 4, 5), (-1, 2, 2, -2))])
def test_pad_against_pytorch(mode: str, shape: tuple[int, ...], amounts: tuple[int, ...]) -> None:
    compare(lambda L, x: L.nn.functional.pad(x, amounts, mode=mode), RNG.standard_normal(shape))


def test_constant_value_and_crop_to_nothing() -> None:
    compare(lambda L, x: L.nn.functional.pad(x, (1, -2, -1, 2), value=2.5), RNG.standard_normal((2, 3, 4)))
    compare(lambda L, x: L.nn.functional.pad(x, (-3, 0)), RNG.standard_normal((2, 3)), second=False)


@settings(max_examples=budget(40))
@given(st.sampled_from(MODES), st.lists(st.integers(1, 5), min_size=2, max_size=4), st.data())
def test_pad_hypothesis(mode: str, shape: list[int], data: Any) -> None:
    k = data.draw(st.integers(1, min(3, len(shape) - 1)))
    amounts = tuple(data.draw(st.integers(-2 if mode == "constant" else -1, 5)) for _ in range(2 * k))
    x = RNG.standard_normal(shape)
    if mode == "circular" and any(shape[-1 - i // 2] - max(-amounts[i ^ 1], 0) < amounts[i] for i in range(2 * k)):
        return  # (wraps onto itself after cropping: PyTorch's copy order decides, or it refuses)
    try:
        torch.nn.functional.pad(torch.tensor(x), amounts, mode=mode)
    except (RuntimeError, NotImplementedError):
        same_error(lambda L: L.nn.functional.pad(L.tensor(x), amounts, mode=mode))
        return
    compare(lambda L, t: L.nn.functional.pad(t, amounts, mode=mode), x, second=False, node=mode != "circular")


ERRORS = {
    "reflect_big": lambda L, x: L.nn.functional.pad(x, (5, 5, 1, 1), mode="reflect"),
    "circular_big": lambda L, x: L.nn.functional.pad(x, (6, 6, 1, 1), mode="circular"),
    "reflect_1d": lambda L, x: L.nn.functional.pad(x[0, 0, 0], (1, 1), mode="reflect"),
    "replicate_1d": lambda L, x: L.nn.functional.pad(x[0, 0, 0], (1, 1), mode="replicate"),
    "odd": lambda L, x: L.nn.functional.pad(x, (1, 1, 1), mode="reflect"),
    "too_long": lambda L, x: L.nn.functional.pad(x[0, 0], (1,) * 6),
    "mode": lambda L, x: L.nn.functional.pad(x, (1, 1), mode="foo"),
    "value": lambda L, x: L.nn.functional.pad(x, (1, 1), mode="reflect", value=2),
    "crop_negative": lambda L, x: L.nn.functional.pad(x, (-4, -3)),
    "module_reflect_big": lambda L, x: L.nn.ReflectionPad2d(5)(x),
    "module_reflect_dims": lambda L, x: L.nn.ReflectionPad1d(2)(x),
    "module_replicate_dims": lambda L, x: L.nn.ReplicationPad2d(2)(x[0, 0]),
    "module_circular_dims": lambda L, x: L.nn.CircularPad2d(2)(x[0, 0]),
    "module_circular1_dims": lambda L, x: L.nn.CircularPad1d(2)(x),
    "module_zero_odd": lambda L, x: L.nn.ZeroPad2d((1, 2, 3))(x),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case: str) -> None:
    same_error(lambda L: ERRORS[case](L, L.ones(2, 3, 4, 5, dtype=L.float64, requires_grad=True)))


MODULES = [
    ("ZeroPad1d", (2,)), ("ZeroPad2d", ((1, 2, 3, 0),)), ("ConstantPad1d", (2, 3.5)), ("ConstantPad2d", (1, -1.0)),
    ("ReflectionPad1d", ((1, 2),)), ("ReflectionPad2d", (1,)), ("ReplicationPad1d", (3,)),
    ("ReplicationPad2d", ((1, 1, 2, 0),)), ("CircularPad1d", (1,)), ("CircularPad2d", ((2, 1, 0, 3),)),
]


@pytest.mark.parametrize("name, args", MODULES, ids=[m[0] for m in MODULES])
def test_modules(name: str, args: tuple[Any, ...]) -> None:
    mods = [getattr(L.nn, name)(*args) for L in (jitgrad, torch)]
    assert repr(mods[0]) == repr(mods[1])
    assert mods[0].padding == mods[1].padding
    for shape in ((2, 3, 4, 5), (3, 4, 5)) if name.endswith("2d") else ((2, 3, 5), (3, 5)):
        compare(lambda L, x: mods[L is torch](x), RNG.standard_normal(shape), node=not name.startswith("Circular"))


def test_gradcheck() -> None:
    x = jitgrad.tensor(RNG.standard_normal((1, 2, 3, 4)), requires_grad=True)
    for mode in MODES:
        assert jitgrad.autograd.gradcheck(lambda t: jitgrad.nn.functional.pad(t, (2, 1, 1, 2), mode=mode), (x,))
