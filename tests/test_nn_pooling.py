"""Max, average and adaptive pools (1-d, 2-d; functional and modules) against PyTorch
(float64): outputs, indices, gradients, gradients of gradients, node names, argument errors;
Hypothesis over shapes and window arguments; a plain-loop reference; gradcheck."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import jitgrad
from conftest import budget
from jitgrad.nn._pooling import output_size
from nn_side_by_side import compare, same_error

RNG = np.random.default_rng(0)


def _input(shape: tuple[int, ...], ties: bool = True) -> np.ndarray:
    x = RNG.standard_normal(shape)
    if ties:  # repeated values: the gradient goes to the first maximum, as PyTorch's
        x = np.round(x * 2) / 2
    return x


CASES = [
    ("max_pool2d", (2, 3, 7, 8), dict(kernel_size=3, stride=2, padding=1, return_indices=True)),
    ("max_pool2d", (2, 2, 7, 8), dict(kernel_size=(3, 2), stride=(2, 1), padding=1, dilation=2, ceil_mode=True,
                                      return_indices=True)),
    ("max_pool2d", (3, 6, 5), dict(kernel_size=2)),
    ("max_pool2d", (1, 2, 5, 5), dict(kernel_size=2, stride=[], ceil_mode=True)),
    ("max_pool1d", (2, 3, 9), dict(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True,
                                   return_indices=True)),
    ("max_pool1d", (3, 9), dict(kernel_size=[3])),
    ("avg_pool2d", (2, 3, 7, 8), dict(kernel_size=3, stride=2, padding=1)),
    ("avg_pool2d", (2, 3, 7, 8), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ("avg_pool2d", (3, 7, 8), dict(kernel_size=(3, 2), stride=2, padding=(1, 0), ceil_mode=True)),
    ("avg_pool2d", (2, 3, 7, 8), dict(kernel_size=3, stride=2, padding=1, divisor_override=5)),
    ("avg_pool1d", (2, 3, 9), dict(kernel_size=4, stride=3, padding=2, ceil_mode=True, count_include_pad=False)),
    ("avg_pool1d", (3, 9), dict(kernel_size=4, stride=3, padding=2, ceil_mode=True)),
    ("adaptive_avg_pool2d", (2, 3, 7, 8), dict(output_size=(3, 5))),
    ("adaptive_avg_pool2d", (3, 7, 8), dict(output_size=(None, 5))),
    ("adaptive_avg_pool2d", (2, 3, 5, 4), dict(output_size=7)),
    ("adaptive_avg_pool1d", (2, 3, 7), dict(output_size=4)),
    ("adaptive_max_pool2d", (2, 3, 7, 8), dict(output_size=(3, 5), return_indices=True)),
    ("adaptive_max_pool2d", (3, 4, 4), dict(output_size=(6, None))),
    ("adaptive_max_pool1d", (2, 3, 7), dict(output_size=4, return_indices=True)),
    ("adaptive_max_pool1d", (3, 7), dict(output_size=9, return_indices=True)),
]


@pytest.mark.parametrize("name, shape, kw", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_functional_against_pytorch(name: str, shape: tuple[int, ...], kw: dict[str, Any]) -> None:
    compare(lambda L, x: getattr(L.nn.functional, name)(x, **kw), _input(shape))


def test_padding_and_infinities_never_win() -> None:
    """All -inf windows point at their first in-bounds element; among NaNs the last wins."""
    x = np.full((1, 1, 3, 3), -np.inf)
    compare(lambda L, t: L.nn.functional.max_pool2d(t, 2, stride=1, padding=1, return_indices=True), x)
    x = np.array([[[[np.nan, 1.0], [np.nan, 2.0]]]])
    for program in (lambda L, t: L.nn.functional.max_pool2d(t, 2, return_indices=True),
                    lambda L, t: L.nn.functional.adaptive_max_pool2d(t, 1, return_indices=True)):
        ours = [jitgrad, torch]
        got = [program(L, L.tensor(x))[1].numpy() for L in ours]
        np.testing.assert_array_equal(got[0], got[1])


def test_empty_batch_and_integer_input() -> None:
    compare(lambda L, x: L.nn.functional.max_pool2d(x, 2), np.zeros((0, 3, 4, 4)), second=False)
    for name in ("max_pool2d", "avg_pool2d"):
        xs = [L.arange(-8, 24).reshape(1, 2, 4, 4) for L in (jitgrad, torch)]
        a, b = (getattr(L.nn.functional, name)(x, 3, 1, 1) for L, x in zip((jitgrad, torch), xs))
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_array_equal(a.numpy(), b.numpy())


ERRORS = {
    "mp2_big": lambda F, x, x1: F.max_pool2d(x, 10),
    "mp2_pad": lambda F, x, x1: F.max_pool2d(x, 2, padding=2),
    "mp2_stride0": lambda F, x, x1: F.max_pool2d(x, 2, stride=0),
    "mp2_k0": lambda F, x, x1: F.max_pool2d(x, 0),
    "mp2_dil0": lambda F, x, x1: F.max_pool2d(x, 2, dilation=0),
    "mp2_negpad": lambda F, x, x1: F.max_pool2d(x, 2, padding=-1),
    "mp2_negstride": lambda F, x, x1: F.max_pool2d(x, 2, stride=-1),
    "mp2_negk": lambda F, x, x1: F.max_pool2d(x, -2, stride=1),
    "mp2_dim": lambda F, x, x1: F.max_pool2d(x[0, 0], 2),
    "mp2_5d": lambda F, x, x1: F.max_pool2d(x[None], 2),
    "mp2_empty": lambda F, x, x1: F.max_pool2d(x[:, :, :0], 2),
    "mp2_k3": lambda F, x, x1: F.max_pool2d(x, (2, 2, 2)),
    "mp2_s3": lambda F, x, x1: F.max_pool2d(x, 2, stride=(1, 1, 1)),
    "mp2_p3": lambda F, x, x1: F.max_pool2d(x, 2, padding=(1, 1, 1)),
    "mp2_d3": lambda F, x, x1: F.max_pool2d(x, 2, dilation=(1, 1, 1)),
    "mp1_big": lambda F, x, x1: F.max_pool1d(x1, 10),
    "mp1_dim": lambda F, x, x1: F.max_pool1d(x, 2),
    "mp1_1d": lambda F, x, x1: F.max_pool1d(x1[0, 0], 2),
    "mp1_empty": lambda F, x, x1: F.max_pool1d(x1[:, :, :0], 2),
    "mp1_pad": lambda F, x, x1: F.max_pool1d(x1, 2, padding=2),
    "mp1_negpad": lambda F, x, x1: F.max_pool1d(x1, 2, padding=-1),
    "mp1_k2": lambda F, x, x1: F.max_pool1d(x1, (2, 2)),
    "mp1_s2": lambda F, x, x1: F.max_pool1d(x1, 2, stride=(2, 2)),
    "mp1_s0": lambda F, x, x1: F.max_pool1d(x1, 2, stride=0),
    "mp1_d0": lambda F, x, x1: F.max_pool1d(x1, 2, dilation=0),
    "mp1_k0": lambda F, x, x1: F.max_pool1d(x1, 0, stride=1),
    "ap2_big": lambda F, x, x1: F.avg_pool2d(x, 10),
    "ap2_pad": lambda F, x, x1: F.avg_pool2d(x, 2, padding=2),
    "ap2_stride0": lambda F, x, x1: F.avg_pool2d(x, 2, stride=0),
    "ap2_div0": lambda F, x, x1: F.avg_pool2d(x, 2, divisor_override=0),
    "ap2_dim": lambda F, x, x1: F.avg_pool2d(x[0, 0, 0], 2),
    "ap2_2d": lambda F, x, x1: F.avg_pool2d(x[0, 0], 2),
    "ap2_5d": lambda F, x, x1: F.avg_pool2d(x[None], 2),
    "ap2_k0s": lambda F, x, x1: F.avg_pool2d(x, 0, stride=1),
    "ap2_negpad": lambda F, x, x1: F.avg_pool2d(x, 2, padding=-1),
    "ap2_k3": lambda F, x, x1: F.avg_pool2d(x, (2, 2, 2)),
    "ap2_s3": lambda F, x, x1: F.avg_pool2d(x, 2, stride=(2, 2, 2)),
    "ap2_p3": lambda F, x, x1: F.avg_pool2d(x, 2, padding=(1, 1, 1)),
    "ap1_big": lambda F, x, x1: F.avg_pool1d(x1, 10),
    "ap1_pad": lambda F, x, x1: F.avg_pool1d(x1, 2, padding=2),
    "ap1_dim": lambda F, x, x1: F.avg_pool1d(x, 2),
    "ap1_1d": lambda F, x, x1: F.avg_pool1d(x1[0, 0], 2),
    "ap1_k2": lambda F, x, x1: F.avg_pool1d(x1, (2, 2)),
    "ap1_s2": lambda F, x, x1: F.avg_pool1d(x1, 2, stride=(2, 2)),
    "ap1_p2": lambda F, x, x1: F.avg_pool1d(x1, 2, padding=(1, 1)),
    "ap1_s0": lambda F, x, x1: F.avg_pool1d(x1, 2, stride=0),
    "aap2_neg": lambda F, x, x1: F.adaptive_avg_pool2d(x, -1),
    "aap2_dim": lambda F, x, x1: F.adaptive_avg_pool2d(x[0, 0, 0], 2),
    "aap2_2d": lambda F, x, x1: F.adaptive_avg_pool2d(x[0, 0], 2),
    "aap2_len": lambda F, x, x1: F.adaptive_avg_pool2d(x, (2, 2, 2)),
    "aap2_zero": lambda F, x, x1: F.adaptive_avg_pool2d(x[:, :, :0], 2),
    "aap1_dim": lambda F, x, x1: F.adaptive_avg_pool1d(x, 2),
    "aap1_1d": lambda F, x, x1: F.adaptive_avg_pool1d(x1[0, 0], 2),
    "aap1_len": lambda F, x, x1: F.adaptive_avg_pool1d(x1, (2, 2)),
    "aap1_neg": lambda F, x, x1: F.adaptive_avg_pool1d(x1, -1),
    "aap1_zero": lambda F, x, x1: F.adaptive_avg_pool1d(x1[:, :, :0], 2),
    "amp2_dim": lambda F, x, x1: F.adaptive_max_pool2d(x[0, 0, 0], 2),
    "amp2_len": lambda F, x, x1: F.adaptive_max_pool2d(x, (2, 2, 2)),
    "amp2_zero": lambda F, x, x1: F.adaptive_max_pool2d(x[:, :, :0], 2),
    "amp2_neg": lambda F, x, x1: F.adaptive_max_pool2d(x, -1),
    "amp1_dim": lambda F, x, x1: F.adaptive_max_pool1d(x, 2),
    "amp1_1d": lambda F, x, x1: F.adaptive_max_pool1d(x1[0, 0], 2),
    "amp1_len": lambda F, x, x1: F.adaptive_max_pool1d(x1, (2, 2)),
    "amp1_neg": lambda F, x, x1: F.adaptive_max_pool1d(x1, -1),
    "amp1_zero": lambda F, x, x1: F.adaptive_max_pool1d(x1[:, :, :0], 2),
    "module_mp2": lambda F, x, x1: F.MODULES.MaxPool2d(2)(x[0, 0, 0]),
    "module_ap1": lambda F, x, x1: F.MODULES.AvgPool1d(10)(x1),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case: str) -> None:
    def program(L: Any) -> Any:
        x = L.zeros(2, 3, 8, 8, dtype=L.float64, requires_grad=True)
        x1 = L.zeros(2, 3, 8, dtype=L.float64, requires_grad=True)
        F = L.nn.functional
        F.MODULES = L.nn
        try:
            return ERRORS[case](F, x, x1)
        finally:
            del F.MODULES

    same_error(program)


# --- a plain-loop reference -----------------------------------------------------------------

def naive_max_pool2d(x: np.ndarray, k: tuple[int, int], s: tuple[int, int], p: tuple[int, int],
                     d: tuple[int, int], ceil_mode: bool) -> tuple[np.ndarray, np.ndarray]:
    n, c, h, w = x.shape

    def size(L: int, i: int) -> int:
        span = L + 2 * p[i] - d[i] * (k[i] - 1) - 1
        o = (math.ceil(span / s[i]) if ceil_mode else span // s[i]) + 1
        return o - 1 if ceil_mode and (o - 1) * s[i] >= L + p[i] else o

    oh, ow = size(h, 0), size(w, 1)
    out, idx = np.empty((n, c, oh, ow)), np.empty((n, c, oh, ow), np.int64)
    for b, ch, i, j in itertools.product(range(n), range(c), range(oh), range(ow)):
        best, where = -np.inf, -1
        for a, e in itertools.product(range(k[0]), range(k[1])):
            r, q = i * s[0] - p[0] + a * d[0], j * s[1] - p[1] + e * d[1]
            if 0 <= r < h and 0 <= q < w:
                if where < 0 or x[b, ch, r, q] > best or np.isnan(x[b, ch, r, q]):
                    best, where = x[b, ch, r, q], r * w + q
        out[b, ch, i, j], idx[b, ch, i, j] = best, where
    return out, idx


def naive_adaptive_avg_pool2d(x: np.ndarray, oh: int, ow: int) -> np.ndarray:
    n, c, h, w = x.shape
    out = np.empty((n, c, oh, ow))
    for i, j in itertools.product(range(oh), range(ow)):
        r0, r1 = i * h // oh, -(-(i + 1) * h // oh)
        q0, q1 = j * w // ow, -(-(j + 1) * w // ow)
        out[:, :, i, j] = x[:, :, r0:r1, q0:q1].mean((2, 3))
    return out


@st.composite
def windows(draw: Any) -> tuple[np.ndarray, dict[str, Any]]:
    k = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    d = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    p = tuple(draw(st.integers(0, ((k[i] - 1) * d[i] + 1) // 2)) for i in range(2))
    s = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    hw = tuple(draw(st.integers(max(1, d[i] * (k[i] - 1) + 1 - 2 * p[i]), 9)) for i in range(2))
    x = np.round(draw(st.sampled_from([1, 2, 3])) * RNG.standard_normal((draw(st.integers(1, 2)), 2) + hw))
    return x, dict(kernel_size=k, stride=s, padding=p, dilation=d, ceil_mode=draw(st.booleans()))


def has_empty_window(length: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> bool:
    """A window wholly in the padding (dilation lets one through PyTorch's checks): PyTorch's
    index for it points past the row (into the next channel's memory), so it is not compared."""
    n_out = output_size(length, k, s, p, d, ceil_mode)
    return any(all(not 0 <= o * s - p + i * d < length for i in range(k)) for o in range(n_out))


def compare_or_same_error(name: str, x: np.ndarray, kw: dict[str, Any]) -> None:
    """The pool on both libraries: the same results, or the same error."""
    try:
        getattr(torch.nn.functional, name)(torch.tensor(x), **kw)
    except RuntimeError:
        same_error(lambda L: getattr(L.nn.functional, name)(L.tensor(x), **kw))
        return
    compare(lambda L, t: getattr(L.nn.functional, name)(t, **kw), x, second=False)


@settings(max_examples=budget(25))
@given(windows())
def test_max_pool2d_hypothesis(case: tuple[np.ndarray, dict[str, Any]]) -> None:
    x, kw = case
    if kw["kernel_size"][0] // 2 < kw["padding"][0] or kw["kernel_size"][1] // 2 < kw["padding"][1]:
        same_error(lambda L: L.nn.functional.max_pool2d(L.tensor(x), **kw))
        return
    if any(has_empty_window(x.shape[2 + i], *(kw[a][i] for a in ("kernel_size", "stride", "padding", "dilation")),
                            kw["ceil_mode"]) for i in range(2)):
        return
    ours = compare(lambda L, t: L.nn.functional.max_pool2d(t, return_indices=True, **kw), x, second=False)
    ref, idx = naive_max_pool2d(x, kw["kernel_size"], kw["stride"], kw["padding"], kw["dilation"], kw["ceil_mode"])
    np.testing.assert_array_equal(ours["out"], ref)
    np.testing.assert_array_equal(ours["extra"][0], idx)


@settings(max_examples=budget(25))
@given(windows(), st.booleans(), st.sampled_from([None, 3]))
def test_avg_pool2d_hypothesis(case: tuple[np.ndarray, dict[str, Any]], include: bool, divisor: Any) -> None:
    x, kw = case
    kw = dict(kw, count_include_pad=include, divisor_override=divisor)
    del kw["dilation"]
    compare_or_same_error("avg_pool2d", x, kw)


@settings(max_examples=budget(15))
@given(windows())
def test_pools_1d_hypothesis(case: tuple[np.ndarray, dict[str, Any]]) -> None:
    x, kw = case
    x = x[..., 0, :]
    kw = {key: v[1] if isinstance(v, tuple) else v for key, v in kw.items()}
    if has_empty_window(x.shape[-1], kw["kernel_size"], kw["stride"], kw["padding"], kw["dilation"], kw["ceil_mode"]):
        return
    compare_or_same_error("max_pool1d", x, kw)
    del kw["dilation"]
    compare_or_same_error("avg_pool1d", x, kw)


@settings(max_examples=budget(20))
@given(st.integers(1, 9), st.integers(1, 9), st.integers(1, 10), st.integers(1, 10))
def test_adaptive_hypothesis(h: int, w: int, oh: int, ow: int) -> None:
    x = np.round(RNG.standard_normal((2, 2, h, w)) * 2)
    ours = compare(lambda L, t: L.nn.functional.adaptive_avg_pool2d(t, (oh, ow)), x, second=False)
    np.testing.assert_allclose(ours["out"], naive_adaptive_avg_pool2d(x, oh, ow), rtol=1e-14)
    compare(lambda L, t: L.nn.functional.adaptive_max_pool2d(t, (oh, ow), return_indices=True), x, second=False)


def test_gradcheck() -> None:
    F = jitgrad.nn.functional
    x = jitgrad.tensor(RNG.standard_normal((1, 2, 5, 6)), requires_grad=True)
    x1 = jitgrad.tensor(RNG.standard_normal((2, 7)), requires_grad=True)
    for f, t in [
        (lambda t: F.max_pool2d(t, 3, 2, 1, dilation=(1, 2), ceil_mode=True), x),
        (lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False), x),
        (lambda t: F.adaptive_avg_pool2d(t, (3, 4)), x),
        (lambda t: F.adaptive_max_pool2d(t, (2, 4)), x),
        (lambda t: F.max_pool1d(t, 2, 1, 1), x1),
        (lambda t: F.avg_pool1d(t, 3, 2, 1), x1),
        (lambda t: F.adaptive_avg_pool1d(t, 4), x1),
        (lambda t: F.adaptive_max_pool1d(t, 3), x1),
    ]:
        assert jitgrad.autograd.gradcheck(f, (t,))


MODULES = [
    ("MaxPool1d", (3,), {}), ("MaxPool2d", (3, 2, 1), dict(return_indices=True, ceil_mode=True)),
    ("AvgPool1d", (3,), dict(stride=2, padding=1, count_include_pad=False)),
    ("AvgPool2d", ((3, 2), 1, 1, True, False), {}), ("AvgPool2d", (3,), dict(divisor_override=2)),
    ("AdaptiveAvgPool1d", (3,), {}), ("AdaptiveAvgPool2d", ((None, 3),), {}),
    ("AdaptiveMaxPool1d", (2, True), {}), ("AdaptiveMaxPool2d", (2,), {}),
]


@pytest.mark.parametrize("name, args, kw", MODULES, ids=[f"{m[0]}-{i}" for i, m in enumerate(MODULES)])
def test_modules(name: str, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    mods = [getattr(L.nn, name)(*args, **kw) for L in (jitgrad, torch)]
    assert repr(mods[0]) == repr(mods[1])
    shape = (2, 3, 7, 6) if name.endswith("2d") else (2, 3, 7)
    compare(lambda L, t: mods[L is torch](t), _input(shape))


# --- the window kernels against plain loops over the same tables ----------------------------

def _naive_tables(x: np.ndarray, windows: list[tuple[np.ndarray, np.ndarray]]) -> Any:
    (p0, v0), (p1, v1) = windows
    for b, i, j in itertools.product(range(x.shape[0]), range(len(p0)), range(len(p1))):
        cells = [(p0[i, a], p1[j, e]) for a in range(p0.shape[1]) for e in range(p1.shape[1])
                 if v0[i, a] and v1[j, e]]
        yield b, i, j, cells


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("adaptive", [False, True])
def test_window_kernels_against_loops(dtype: Any, adaptive: bool) -> None:
    from jitgrad.nn import _pooling as P

    x = (RNG.standard_normal((3, 5, 7)) * 4).astype(dtype)
    if adaptive:
        windows = [P.adaptive_windows(5, 3), P.adaptive_windows(7, 4)]
    else:
        windows = [P.sliding_windows(5, 3, 3, 2, 1, 1), P.sliding_windows(7, 3, 2, 2, 1, 3)]
    best, index = P.max_over_windows(x, windows)
    total = P.sum_over_windows(x, windows)
    g = RNG.standard_normal(total.shape)
    divisor = RNG.integers(1, 5, total.shape[1:]).astype(float)
    spread = P.spread_over_windows(g, divisor, windows, (5, 7))
    want = np.zeros((3, 5, 7))
    for b, i, j, cells in _naive_tables(x, windows):
        values = [x[b, r, c] for r, c in cells]
        assert best[b, i, j] == max(values) and total[b, i, j] == sum(values, dtype(0))
        r, c = cells[int(np.argmax(values))]  # (the first maximum)
        assert index[b, i, j] == r * 7 + c
        for r, c in cells:
            want[b, r, c] += g[b, i, j] / divisor[i, j]
    np.testing.assert_allclose(spread, want, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("name, kw", [
    ("max_pool2d", dict(kernel_size=3, stride=2, padding=1)), ("avg_pool2d", dict(kernel_size=2)),
    ("adaptive_max_pool2d", dict(output_size=(4, 2))), ("adaptive_avg_pool2d", dict(output_size=(4, 2))),
    ("max_pool1d", dict(kernel_size=2)), ("avg_pool1d", dict(kernel_size=2)),
])
def test_other_dtypes(dtype: str, name: str, kw: dict[str, Any]) -> None:
    """The dtypes PyTorch's CPU kernels take give its values; the others its error."""
    x = np.abs(np.round(RNG.standard_normal((2, 3, 6, 5)) * 3))
    if name.endswith("1d"):
        x = x[0]
    try:
        theirs = getattr(torch.nn.functional, name)(torch.tensor(x).to(getattr(torch, dtype)), **kw)
    except NotImplementedError:
        same_error(lambda L: getattr(L.nn.functional, name)(L.tensor(x).to(getattr(L, dtype)), **kw))
        return
    ours = getattr(jitgrad.nn.functional, name)(jitgrad.tensor(x).to(getattr(jitgrad, dtype)), **kw)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.numpy().astype(float), theirs.numpy().astype(float), rtol=1e-3)
