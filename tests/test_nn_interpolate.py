"""``F.interpolate`` against PyTorch (float64 and float32): nearest, nearest-exact, linear,
bilinear, trilinear, bicubic, area, by size or scale factor, with and without align_corners;
gradients; node names; argument errors (type and message)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import jitgrad

RNG = np.random.default_rng(4)
CASES = [
    ((1, 2, 3, 4), dict(size=(5, 7))),
    ((1, 2, 3, 4), dict(scale_factor=1.5)),
    ((1, 2, 3, 4), dict(scale_factor=(2, 0.5))),
    ((2, 1, 5, 4), dict(size=(2, 3))),
    ((1, 2, 3, 4), dict(size=(6, 8))),
    ((1, 2, 3, 4), dict(size=(2, 3), mode="nearest-exact")),
    ((1, 2, 3, 4), dict(scale_factor=2.3, mode="nearest-exact")),
    ((1, 2, 7), dict(size=4, mode="nearest")),
    ((1, 2, 5), dict(size=9, mode="linear")),
    ((1, 2, 5), dict(size=9, mode="linear", align_corners=True)),
    ((1, 2, 5), dict(scale_factor=0.6, mode="linear")),
    ((1, 2, 3, 4), dict(size=(5, 7), mode="bilinear")),
    ((1, 2, 3, 4), dict(size=(5, 7), mode="bilinear", align_corners=True)),
    ((2, 1, 3, 4), dict(scale_factor=1.7, mode="bilinear")),
    ((2, 1, 3, 4), dict(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True)),
    ((1, 2, 6, 5), dict(size=(3, 2), mode="bilinear")),
    ((1, 1, 2, 3, 2), dict(size=(3, 4, 5), mode="trilinear")),
    ((1, 1, 2, 3, 2), dict(scale_factor=2, mode="nearest")),
    ((2, 3, 5, 6), dict(size=(7, 9), mode="bicubic")),
    ((2, 3, 5, 6), dict(size=(7, 3), mode="bicubic", align_corners=True)),
    ((1, 2, 5, 6), dict(scale_factor=(2.3, 0.7), mode="bicubic")),
    ((1, 2, 5, 6), dict(scale_factor=1.5, mode="bicubic", recompute_scale_factor=True)),
    ((1, 2, 4, 4), dict(size=(1, 9), mode="bicubic")),
    ((1, 2, 5, 6), dict(size=(5, 6), mode="bicubic")),
    ((1, 2, 7), dict(size=3, mode="area")),
    ((1, 2, 5, 6), dict(size=(3, 4), mode="area")),
    ((1, 2, 5, 6), dict(scale_factor=1.6, mode="area")),
    ((1, 1, 3, 4, 5), dict(size=(2, 3, 2), mode="area")),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape, kw", CASES, ids=[str(i) for i in range(len(CASES))])
def test_against_pytorch(shape: tuple[int, ...], kw: dict[str, Any], dtype: str) -> None:
    x0 = RNG.standard_normal(shape)
    got = []
    for lib in (jitgrad, torch):
        x = lib.tensor(x0, dtype=getattr(lib, dtype), requires_grad=True)
        y = lib.nn.functional.interpolate(x, **kw)
        w = lib.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)), dtype=getattr(lib, dtype))
        (g,) = lib.autograd.grad((y * w).sum(), x)
        got.append((y.detach().numpy(), g.detach().numpy()))
    tol = dict(rtol=1e-12, atol=1e-14) if dtype == "float64" else dict(rtol=1e-5, atol=1e-6)
    if dtype == "float32" and kw.get("mode") == "bicubic":  # (ATen's fused multiply-adds: a few ulps)
        tol = dict(rtol=1e-5, atol=2e-5)
    for ours, theirs in zip(*got):
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, **tol)


ERRORS = {
    "both": lambda L, x: L.nn.functional.interpolate(x, size=3, scale_factor=2),
    "neither": lambda L, x: L.nn.functional.interpolate(x),
    "align_nearest": lambda L, x: L.nn.functional.interpolate(x, size=3, mode="nearest", align_corners=True),
    "bilinear_3d": lambda L, x: L.nn.functional.interpolate(x[0], size=3, mode="bilinear"),
    "size_length": lambda L, x: L.nn.functional.interpolate(x, size=(3,), mode="bilinear"),
    "bicubic_3d": lambda L, x: L.nn.functional.interpolate(x[0], size=3, mode="bicubic"),
    "align_area": lambda L, x: L.nn.functional.interpolate(x, size=3, mode="area", align_corners=False),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case: str) -> None:
    got = []
    for lib in (jitgrad, torch):
        with pytest.raises((ValueError, NotImplementedError)) as info:
            ERRORS[case](lib, lib.ones(1, 1, 3, 4))
        got.append((type(info.value).__name__, str(info.value)))
    assert got[0] == got[1]


@pytest.mark.parametrize("mode, name", [("bicubic", "UpsampleBicubic2DBackward0"),
                                        ("area", "AdaptiveAvgPool2DBackward0")])
def test_node_names(mode: str, name: str) -> None:
    for lib in (jitgrad, torch):
        y = lib.nn.functional.interpolate(lib.ones(1, 1, 3, 4, requires_grad=True), size=(5, 2), mode=mode)
        assert y.grad_fn.name() == name
