"""``F.conv_transpose1d/2d`` and ``nn.ConvTranspose1d/2d`` against PyTorch (float64):
outputs, gradients of input, weight and bias, gradients of gradients; strides, paddings,
output paddings, groups, dilations (Hypothesis); argument errors; ``output_size``; the
modules with PyTorch's parameters; and the defining identity: conv_transpose is the
gradient of conv with respect to its input."""

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

CASES = [
    ((2, 4, 5, 6), (4, 3, 3, 2), {}),
    ((2, 4, 5, 6), (4, 3, 3, 2), dict(stride=2, padding=1, output_padding=1, groups=2, dilation=2)),
    ((4, 5, 6), (4, 2, 2, 3), dict(stride=(2, 3), padding=(0, 2), output_padding=(1, 2))),
    ((2, 4, 7), (4, 3, 3), dict(stride=3, padding=2, output_padding=1, dilation=2, groups=4)),
    ((4, 7), (4, 3, 3), dict(stride=2)),
    ((1, 2, 3, 3), (2, 1, 4, 4), dict(padding=2)),
]


def _program(n: int, kw: dict[str, Any]) -> Any:
    return lambda L, x, w, b: getattr(L.nn.functional, f"conv_transpose{n}d")(x, w, b, **kw)


@pytest.mark.parametrize("xs, ws, kw", CASES, ids=[f"{len(w) - 2}d-{i}" for i, (_, w, _) in enumerate(CASES)])
def test_functional_against_pytorch(xs: tuple[int, ...], ws: tuple[int, ...], kw: dict[str, Any]) -> None:
    c_out = ws[1] * kw.get("groups", 1)
    compare(_program(len(ws) - 2, kw), RNG.standard_normal(xs), RNG.standard_normal(ws), RNG.standard_normal(c_out))


@settings(max_examples=budget(15))
@given(st.integers(1, 2), st.integers(1, 3), st.integers(1, 3), st.integers(1, 2), st.integers(1, 3),
       st.integers(0, 2), st.integers(1, 2), st.data())
def test_hypothesis(n: int, stride: int, k: int, dilation: int, length: int, padding: int, groups: int,
                    data: Any) -> None:
    output_padding = data.draw(st.integers(0, max(stride, dilation) - 1))
    kw = dict(stride=stride, padding=padding, output_padding=output_padding, dilation=dilation, groups=groups)
    x = RNG.standard_normal((2, 2 * groups) + (length,) * n)
    w = RNG.standard_normal((2 * groups, 2) + (k,) * n)
    if (length - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1 <= 0:
        same_error(lambda L: _program(n, kw)(L, L.tensor(x), L.tensor(w), None))
        return
    compare(_program(n, kw), x, w, RNG.standard_normal(2 * groups), second=False)


def test_is_the_gradient_of_conv() -> None:
    F = jitgrad.nn.functional
    x = jitgrad.tensor(RNG.standard_normal((2, 4, 9, 8)), requires_grad=True)
    w = jitgrad.tensor(RNG.standard_normal((6, 2, 3, 2)))
    y = F.conv2d(x, w, stride=2, padding=1, dilation=(1, 2), groups=2)
    g = jitgrad.tensor(RNG.standard_normal(tuple(y.shape)))
    (gx,) = jitgrad.autograd.grad(y, x, g)
    back = F.conv_transpose2d(g, w, stride=2, padding=1, dilation=(1, 2), groups=2, output_padding=(0, 1))
    np.testing.assert_allclose(back.numpy(), gx.numpy(), rtol=1e-12, atol=1e-12)


def test_gradcheck() -> None:
    x = jitgrad.tensor(RNG.standard_normal((1, 2, 3, 3)), requires_grad=True)
    w = jitgrad.tensor(RNG.standard_normal((2, 1, 2, 2)), requires_grad=True)
    b = jitgrad.tensor(RNG.standard_normal(2), requires_grad=True)
    assert jitgrad.autograd.gradcheck(
        lambda *t: jitgrad.nn.functional.conv_transpose2d(*t, stride=2, output_padding=1, groups=2), (x, w, b))


ERRORS = {
    "outpad": lambda F, x, w: F.conv_transpose2d(x, w, stride=2, output_padding=2),
    "outpad_dil": lambda F, x, w: F.conv_transpose2d(x, w, output_padding=1),
    "channels": lambda F, x, w: F.conv_transpose2d(x, w[:3]),
    "groups": lambda F, x, w: F.conv_transpose2d(x, w, groups=3),
    "xdim": lambda F, x, w: F.conv_transpose2d(x[0, 0], w),
    "stride0": lambda F, x, w: F.conv_transpose2d(x, w, stride=0),
    "negpad": lambda F, x, w: F.conv_transpose2d(x, w, padding=-1),
    "bigpad": lambda F, x, w: F.conv_transpose2d(x, w, padding=4),
    "padstr": lambda F, x, w: F.conv_transpose2d(x, w, padding="same"),
    "stride3": lambda F, x, w: F.conv_transpose2d(x, w, stride=(1, 1, 1)),
    "dil0": lambda F, x, w: F.conv_transpose2d(x, w, dilation=0),
    "bias": lambda F, x, w: F.conv_transpose2d(x, w, F.BIAS),
    "c1_outpad": lambda F, x, w: F.conv_transpose1d(x[:, :, 0], w[..., 0], stride=2, output_padding=3),
    "c1_xdim": lambda F, x, w: F.conv_transpose1d(x, w[..., 0]),
    "c1_channels": lambda F, x, w: F.conv_transpose1d(x[:, :, 0], w[:2, ..., 0]),
    "unbatched_channels": lambda F, x, w: F.conv_transpose2d(x[0].requires_grad_(), w[:3]),
    "unbatched_conv_channels": lambda F, x, w: F.conv2d(x[0].requires_grad_(), w[:, :3]),
    "mod_groups": lambda F, x, w: F.NN.ConvTranspose2d(4, 3, 3, groups=2),
    "mod_groups2": lambda F, x, w: F.NN.ConvTranspose2d(3, 4, 3, groups=2),
    "mod_padmode": lambda F, x, w: F.NN.ConvTranspose2d(4, 4, 3, padding_mode="reflect"),
    "mod_outsize_len": lambda F, x, w: F.NN.ConvTranspose2d(4, 3, 3, stride=2).double()(x, output_size=(4, 4, 11)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case: str) -> None:
    def program(L: Any) -> Any:
        F = L.nn.functional
        F.NN, F.BIAS = L.nn, L.ones(4, dtype=L.float64)
        try:
            return ERRORS[case](F, L.ones(2, 4, 5, 5, dtype=L.float64), L.ones(4, 3, 3, 3, dtype=L.float64))
        finally:
            del F.NN, F.BIAS

    same_error(program)


@pytest.mark.parametrize("n", [1, 2])
def test_modules_with_pytorchs_weights(n: int) -> None:
    kw = dict(stride=2, padding=1, output_padding=1, groups=2, dilation=2)
    theirs = getattr(torch.nn, f"ConvTranspose{n}d")(4, 6, 3, **kw).double()
    ours = getattr(jitgrad.nn, f"ConvTranspose{n}d")(4, 6, 3, **kw).double()
    assert repr(ours) == repr(theirs)
    ours.load_state_dict({k: jitgrad.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    x = RNG.standard_normal((2, 4) + (5,) * n)
    for size in (None, (11,) * n, (2, 6) + (12,) * n):
        y, want = ours(jitgrad.tensor(x), output_size=size), theirs(torch.tensor(x), output_size=size)
        np.testing.assert_allclose(y.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    y.sum().backward()
    want.sum().backward()
    for name in ("weight", "bias"):
        np.testing.assert_allclose(getattr(ours, name).grad.numpy(), getattr(theirs, name).grad.numpy(), rtol=1e-10)
    with pytest.raises(ValueError, match=r"requested an output size of \(14, 14\), but valid sizes range from "
                                         r"\[11, 11\] to \[12, 12\]"):
        jitgrad.nn.ConvTranspose2d(4, 6, 3, **kw).double()(jitgrad.tensor(RNG.standard_normal((2, 4, 5, 5))),
                                                          output_size=(14, 14))


def test_init_bounds() -> None:
    m = jitgrad.nn.ConvTranspose2d(6, 4, 3, groups=2)
    bound = 1 / np.sqrt(2 * 9)  # fan_in: weight.shape[1] * kernel area
    assert tuple(m.weight.shape) == (6, 2, 3, 3) and tuple(m.bias.shape) == (4,)
    assert float(m.weight.detach().abs().max()) <= bound and float(m.bias.detach().abs().max()) <= bound


@pytest.mark.parametrize("op", ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d"])
def test_one_convolution_node(op: str) -> None:
    """``ConvolutionBackward0`` with the input, weight and bias as next functions; a second
    backward without ``retain_graph`` fails as PyTorch's; with it, it runs; a weight written
    in place after the forward is refused."""
    n = 1 if op.endswith("1d") else 2
    x0, w0 = RNG.standard_normal((2, 3) + (5,) * n), RNG.standard_normal((3, 3) + (2,) * n)
    outcomes = []
    for L in (jitgrad, torch):
        x, w, b = L.tensor(x0, requires_grad=True), L.tensor(w0, requires_grad=True), L.zeros(3, dtype=L.float64)
        y = getattr(L.nn.functional, op)(x, w, b)
        node = y.grad_fn
        names = [type(node).__name__] + [None if f is None else type(f).__name__ for f, _ in node.next_functions]
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        twice = outcome_of(lambda: y.sum().backward())
        z = getattr(L.nn.functional, op)(x, w, b)
        with L.no_grad():
            w.mul_(2)
        written = outcome_of(lambda: z.sum().backward())
        outcomes.append((names, x.grad.numpy().round(10).tolist(), twice[0], "second time" in twice[1],
                         written[0], "modified by an inplace operation" in written[1]))
    assert outcomes[0] == outcomes[1]


def outcome_of(f: Any) -> tuple[str, str]:
    try:
        f()
    except RuntimeError as e:
        return "RuntimeError", str(e)
    return "ok", ""


# --- 3-d ------------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("op, xs, ws, kw", [
    ("conv3d", (2, 4, 4, 5, 3), (6, 2, 2, 3, 2), dict(stride=(1, 2, 1), padding=1, dilation=(1, 1, 2), groups=2)),
    ("conv3d", (2, 4, 5, 3), (3, 2, 2, 2, 2), dict(padding="same")),
    ("conv_transpose3d", (2, 4, 3, 2, 3), (4, 3, 2, 3, 2), dict(stride=2, padding=(0, 1, 1), output_padding=(1, 0, 1))),
    ("conv_transpose3d", (4, 2, 3, 2), (4, 1, 2, 2, 2), dict(groups=2, dilation=2)),
])
def test_3d_against_pytorch(op: str, xs: tuple[int, ...], ws: tuple[int, ...], kw: dict[str, Any]) -> None:
    c_out = ws[0] if op == "conv3d" else ws[1] * kw.get("groups", 1)
    compare(lambda L, x, w, b: getattr(L.nn.functional, op)(x, w, b, **kw), RNG.standard_normal(xs),
            RNG.standard_normal(ws), RNG.standard_normal(c_out), second=False)


@pytest.mark.parametrize("name, kw", [("Conv3d", dict(padding=1, padding_mode="reflect", groups=2)),
                                      ("ConvTranspose3d", dict(stride=2, output_padding=1, groups=2))])
def test_3d_modules_with_pytorchs_weights(name: str, kw: dict[str, Any]) -> None:
    theirs = getattr(torch.nn, name)(4, 6, 2, **kw).double()
    ours = getattr(jitgrad.nn, name)(4, 6, 2, **kw).double()
    assert repr(ours) == repr(theirs)
    ours.load_state_dict({k: jitgrad.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    compare(lambda L, x: (ours if L is jitgrad else theirs)(x), RNG.standard_normal((2, 4, 3, 4, 3)), second=False)


ERRORS_3D = {
    "outpad": lambda F, x, w: F.conv_transpose3d(x, w, stride=2, output_padding=2),
    "dilation": lambda F, x, w: F.conv_transpose3d(x, w, dilation=0),
    "too_small": lambda F, x, w: F.conv_transpose3d(x, w, padding=3),
    "conv_channels": lambda F, x, w: F.conv3d(x, w[:, :1]),
    "conv_dims": lambda F, x, w: F.conv3d(x[0, 0], w),
}


@pytest.mark.parametrize("case", sorted(ERRORS_3D))
def test_3d_errors(case: str) -> None:
    same_error(lambda L: ERRORS_3D[case](L.nn.functional, L.ones(1, 2, 3, 3, 3), L.ones(2, 2, 2, 2, 2)))
