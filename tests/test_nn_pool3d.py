"""The 3-d pools (functional and modules) against PyTorch (float64): outputs, indices,
gradients, gradients of gradients, node names, argument errors, dtypes; Hypothesis over
shapes and window arguments; gradcheck. (The window kernels are checked against plain loops
in ``test_nn_pooling.py``.)"""

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
X = np.round(RNG.standard_normal((2, 2, 5, 6, 4)) * 2) / 2  # (ties: the first maximum wins)

CASES = [
    ("max_pool3d", dict(kernel_size=3, stride=2, padding=1, return_indices=True)),
    ("max_pool3d", dict(kernel_size=(2, 3, 2), stride=(1, 2, 2), dilation=(2, 1, 1), ceil_mode=True)),
    ("max_pool3d_with_indices", dict(kernel_size=2)),
    ("avg_pool3d", dict(kernel_size=3, stride=2, padding=1)),
    ("avg_pool3d", dict(kernel_size=(2, 3, 2), stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ("avg_pool3d", dict(kernel_size=2, divisor_override=3)),
    ("adaptive_avg_pool3d", dict(output_size=(3, 4, 7))), ("adaptive_avg_pool3d", dict(output_size=1)),
    ("adaptive_max_pool3d", dict(output_size=(3, None, 2), return_indices=True)),
    ("adaptive_max_pool3d_with_indices", dict(output_size=2)),
]


@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("name, kw", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_functional_against_pytorch(name: str, kw: dict[str, Any], batched: bool) -> None:
    compare(lambda L, t: getattr(L.nn.functional, name)(t, **kw), X if batched else X[0])


@settings(max_examples=budget(20))
@given(st.lists(st.integers(1, 3), min_size=3, max_size=3), st.lists(st.integers(1, 2), min_size=3, max_size=3),
       st.booleans(), st.booleans(), st.data())
def test_hypothesis(k: list[int], s: list[int], ceil_mode: bool, avg: bool, data: Any) -> None:
    p = [data.draw(st.integers(0, kk // 2)) for kk in k]
    x = np.round(RNG.standard_normal((1, 2) + tuple(data.draw(st.integers(kk, 5)) for kk in k)) * 2)
    kw = dict(kernel_size=k, stride=s, padding=p, ceil_mode=ceil_mode)
    name = "avg_pool3d" if avg else "max_pool3d"
    compare(lambda L, t: getattr(L.nn.functional, name)(t, **kw), x, second=False)


ERRORS = {
    "mp3_big": lambda F, x: F.max_pool3d(x, 10),
    "mp3_pad": lambda F, x: F.max_pool3d(x, 2, padding=2),
    "mp3_pad_raw": lambda F, x: F.max_pool3d(x, 2, padding=2, dilation=3),
    "mp3_stride0": lambda F, x: F.max_pool3d(x, 2, stride=0),
    "mp3_negstride": lambda F, x: F.max_pool3d(x, 2, stride=-1),
    "mp3_k0": lambda F, x: F.max_pool3d(x, 0, stride=1),
    "mp3_dil0": lambda F, x: F.max_pool3d(x, 2, dilation=0),
    "mp3_negpad": lambda F, x: F.max_pool3d(x, 2, padding=-1),
    "mp3_dim": lambda F, x: F.max_pool3d(x[0, 0], 2),
    "mp3_empty": lambda F, x: F.max_pool3d(x[:, :, :0], 2),
    "mp3_k2": lambda F, x: F.max_pool3d(x, (2, 2)),
    "mp3_s2": lambda F, x: F.max_pool3d(x, 2, stride=(2, 2)),
    "mp3_p2": lambda F, x: F.max_pool3d(x, 2, padding=(1, 1)),
    "mp3_d2": lambda F, x: F.max_pool3d(x, 2, dilation=(1, 1)),
    "ap3_big": lambda F, x: F.avg_pool3d(x, 10),
    "ap3_big_padded": lambda F, x: F.avg_pool3d(x, 7, padding=1),
    "ap3_pad": lambda F, x: F.avg_pool3d(x, 2, padding=2),
    "ap3_stride0": lambda F, x: F.avg_pool3d(x, 2, stride=0),
    "ap3_k0": lambda F, x: F.avg_pool3d(x, 0, stride=1),
    "ap3_div0": lambda F, x: F.avg_pool3d(x, 2, divisor_override=0),
    "ap3_dim": lambda F, x: F.avg_pool3d(x[0, 0], 2),
    "ap3_k2": lambda F, x: F.avg_pool3d(x, (2, 2)),
    "ap3_s2": lambda F, x: F.avg_pool3d(x, 2, stride=(2, 2)),
    "ap3_p2": lambda F, x: F.avg_pool3d(x, 2, padding=(1, 1)),
    "ap3_negpad": lambda F, x: F.avg_pool3d(x, 2, padding=-1),
    "aap3_neg": lambda F, x: F.adaptive_avg_pool3d(x, -1),
    "aap3_dim": lambda F, x: F.adaptive_avg_pool3d(x[0, 0], 2),
    "aap3_len": lambda F, x: F.adaptive_avg_pool3d(x, (2, 2)),
    "aap3_zero": lambda F, x: F.adaptive_avg_pool3d(x[:, :, :0], 2),
    "amp3_neg": lambda F, x: F.adaptive_max_pool3d(x, -1),
    "amp3_dim": lambda F, x: F.adaptive_max_pool3d(x[0, 0], 2),
    "amp3_len": lambda F, x: F.adaptive_max_pool3d(x, (2, 2)),
    "amp3_zero": lambda F, x: F.adaptive_max_pool3d(x[:, :, :0], 2),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case: str) -> None:
    same_error(lambda L: ERRORS[case](L.nn.functional, L.zeros(2, 3, 6, 6, 6, dtype=L.float64, requires_grad=True)))


@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("name, kw", [("max_pool3d", dict(kernel_size=2)), ("avg_pool3d", dict(kernel_size=2)),
                                      ("adaptive_avg_pool3d", dict(output_size=2)),
                                      ("adaptive_max_pool3d", dict(output_size=2))])
def test_dtypes(dtype: str, name: str, kw: dict[str, Any]) -> None:
    x = np.abs(np.round(RNG.standard_normal((1, 2, 4, 4, 4)) * 3))
    try:
        theirs = getattr(torch.nn.functional, name)(torch.tensor(x).to(getattr(torch, dtype)), **kw)
    except (NotImplementedError, RuntimeError):
        same_error(lambda L: getattr(L.nn.functional, name)(L.tensor(x).to(getattr(L, dtype)), **kw))
        return
    ours = getattr(jitgrad.nn.functional, name)(jitgrad.tensor(x).to(getattr(jitgrad, dtype)), **kw)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.numpy().astype(float), theirs.numpy().astype(float), rtol=1e-6)


MODULES = [("MaxPool3d", (2,), dict(stride=1, padding=1, return_indices=True)),
           ("AvgPool3d", (3,), dict(stride=2, padding=1, divisor_override=2)),
           ("AdaptiveAvgPool3d", ((None, 2, 3),), {}), ("AdaptiveMaxPool3d", (2, True), {})]


@pytest.mark.parametrize("name, args, kw", MODULES, ids=[m[0] for m in MODULES])
def test_modules(name: str, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    mods = [getattr(L.nn, name)(*args, **kw) for L in (jitgrad, torch)]
    assert repr(mods[0]) == repr(mods[1])
    compare(lambda L, t: mods[L is torch](t), X)


def test_unpool_and_lp_pool() -> None:
    def program(L: Any, t: Any) -> Any:
        pooled, indices = L.nn.functional.max_pool3d(t, 2, return_indices=True)
        return L.nn.functional.max_unpool3d(pooled * 3, indices, 2, output_size=(5, 7, 5))

    compare(program, X)
    compare(lambda L, t: L.nn.functional.lp_pool3d(t, 2, (2, 3, 2), stride=1), np.abs(X) + 0.5, rtol=1e-9)
    for name, args in (("LPPool3d", (2, 3)), ("MaxUnpool3d", (2,))):
        assert repr(getattr(jitgrad.nn, name)(*args)) == repr(getattr(torch.nn, name)(*args))
    from nn_side_by_side import outcome

    got = []
    for L in (jitgrad, torch):  # (which invalid index PyTorch names depends on its loop: not compared)
        y, i = L.nn.functional.max_pool3d(L.tensor(X), 2, return_indices=True)
        kind, message = outcome(lambda: L.nn.functional.max_unpool3d(y, i * 10, 2))
        got.append((kind, message.split(":")[0], message.split("(")[-1]))
    assert got[0] == got[1]
    for case in (lambda F, y, i: F.max_unpool3d(y[0, 0], i[0, 0], 2),
                 lambda F, y, i: F.max_unpool3d(y, i, 2, output_size=(9, 9, 9))):
        def errs(L: Any, case: Any = case) -> Any:
            y, i = L.nn.functional.max_pool3d(L.tensor(X), 2, return_indices=True)
            return case(L.nn.functional, y, i)

        same_error(errs)


def test_gradcheck() -> None:
    F = jitgrad.nn.functional
    x = jitgrad.tensor(RNG.standard_normal((1, 1, 3, 4, 3)), requires_grad=True)
    for f in (lambda t: F.max_pool3d(t, 2, 1, 1), lambda t: F.avg_pool3d(t, 2, 1, 1, count_include_pad=False),
              lambda t: F.adaptive_avg_pool3d(t, (2, 3, 2)), lambda t: F.adaptive_max_pool3d(t, 2)):
        assert jitgrad.autograd.gradcheck(f, (x,))


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_3d_with_pytorchs_state(training: bool) -> None:
    mods = [L.nn.BatchNorm3d(2, momentum=0.3).double() for L in (jitgrad, torch)]
    assert repr(mods[0]) == repr(mods[1])
    mods[1].weight.data.uniform_(0.5, 1.5)
    mods[0].load_state_dict({k: jitgrad.tensor(v.detach().numpy()) for k, v in mods[1].state_dict().items()})
    for m in mods:
        m.train(training)
    # (batch_norm is composed: jitgrad's node is AddBackward0, PyTorch's NativeBatchNormBackward0)
    compare(lambda L, t: mods[L is torch](t), X, rtol=1e-9, node=False)
    for a, b in zip(mods[0].state_dict().values(), mods[1].state_dict().values()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9)
    same_error(lambda L: L.nn.BatchNorm3d(2)(L.ones(2, 2, 3, 3)))
