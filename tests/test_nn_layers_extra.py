"""``group_norm``/``GroupNorm``, ``prelu``/``PReLU``, ``pixel_shuffle``/``pixel_unshuffle`` and
their modules, ``Upsample``, ``Softmax2d``, ``CosineSimilarity``, ``PairwiseDistance``
against PyTorch (float64): outputs, gradients, gradients of gradients, node names, errors,
reprs; Hypothesis over shapes; gradcheck. The dropout variants: PyTorch's statistics
(channel-wise masks, alpha dropout keeping mean and variance), eval identity, errors."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import jitgrad
from conftest import budget
from nn_side_by_side import compare, same_error

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("shape, groups, affine", [((2, 6, 4, 3), 3, True), ((3, 4), 2, True), ((2, 6, 5), 6, False),
                                                   ((1, 4, 2, 2, 2), 1, True)])
def test_group_norm(shape: tuple[int, ...], groups: int, affine: bool) -> None:
    c = shape[1]
    arrays = [RNG.standard_normal(shape)] + ([RNG.standard_normal(c), RNG.standard_normal(c)] if affine else [])
    compare(lambda L, x, *wb: L.nn.functional.group_norm(x, groups, *wb, eps=1e-3), *arrays, rtol=1e-9, atol=1e-11)


def test_group_norm_weight_only_and_module() -> None:
    compare(lambda L, x, w: L.nn.functional.group_norm(x, 2, w), RNG.standard_normal((2, 4, 3)),
            RNG.standard_normal(4), rtol=1e-9, atol=1e-11)
    mods = [L.nn.GroupNorm(2, 4).double() for L in (jitgrad, torch)]
    assert repr(mods[0]) == repr(mods[1]) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"
    assert repr(jitgrad.nn.GroupNorm(2, 4, affine=True, bias=False)) == repr(torch.nn.GroupNorm(2, 4, bias=False))
    mods[0].load_state_dict({k: jitgrad.tensor(RNG.standard_normal(tuple(v.shape))) for k, v in
                             mods[1].state_dict().items()})
    mods[1].load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in mods[0].state_dict().items()})
    x = RNG.standard_normal((3, 4, 5))
    ours = mods[0](jitgrad.tensor(x, requires_grad=True))
    theirs = mods[1](torch.tensor(x, requires_grad=True))
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10)
    ours.pow(2).sum().backward()
    theirs.pow(2).sum().backward()
    for a, b in zip(mods[0].parameters(), mods[1].parameters()):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9)


@settings(max_examples=budget(20))
@given(st.integers(1, 3), st.sampled_from([(1, 4), (2, 4), (3, 6), (6, 6)]), st.lists(st.integers(1, 4), max_size=2))
def test_group_norm_hypothesis(n: int, groups_channels: tuple[int, int], spatial: list[int]) -> None:
    g, c = groups_channels
    if n * c // g * int(np.prod(spatial)) == 1:
        same_error(lambda L: L.nn.functional.group_norm(L.ones(n, c, *spatial), g))
        return
    compare(lambda L, x, w, b: L.nn.functional.group_norm(x, g, w, b), RNG.standard_normal((n, c, *spatial)),
            RNG.standard_normal(c), RNG.standard_normal(c), second=False, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("shape, n_weights", [((2, 3, 4), 3), ((2, 3, 4, 2), 1), ((5,), 1), ((), 1), ((4, 2), 2)])
def test_prelu(shape: tuple[int, ...], n_weights: int) -> None:
    x = RNG.standard_normal(shape)
    compare(lambda L, t, w: L.nn.functional.prelu(t, w), x, RNG.standard_normal(n_weights))
    mods = [L.nn.PReLU(n_weights, 0.1).double() for L in (jitgrad, torch)]
    assert repr(mods[0]) == repr(mods[1])
    compare(lambda L, t: mods[L is torch](t), x)
    x.reshape(-1)[:1] = 0.0  # (the kink: the weight's side; PyTorch's double backward takes the other)
    compare(lambda L, t, w: L.nn.functional.prelu(t, w), x, RNG.standard_normal(n_weights), second=False)


@pytest.mark.parametrize("shape, r", [((2, 8, 3, 2), 2), ((9, 2, 2), 3), ((2, 1, 4, 2, 3), 1)])
def test_pixel_shuffle(shape: tuple[int, ...], r: int) -> None:
    x = RNG.standard_normal(shape)
    compare(lambda L, t: L.nn.functional.pixel_shuffle(t, r), x)
    compare(lambda L, t: L.nn.PixelShuffle(r)(t), x)
    y = RNG.standard_normal(shape[:-3] + (shape[-3], shape[-2] * r, shape[-1] * r))
    compare(lambda L, t: L.nn.functional.pixel_unshuffle(t, r), y)
    compare(lambda L, t: L.nn.PixelUnshuffle(r)(t), y)
    back = jitgrad.nn.functional.pixel_unshuffle(jitgrad.nn.functional.pixel_shuffle(jitgrad.tensor(x), r), r)
    np.testing.assert_array_equal(back.numpy(), x)
    assert repr(jitgrad.nn.PixelShuffle(r)) == repr(torch.nn.PixelShuffle(r))
    assert repr(jitgrad.nn.PixelUnshuffle(r)) == repr(torch.nn.PixelUnshuffle(r))


@pytest.mark.parametrize("kw", [dict(scale_factor=2), dict(size=(3, 5), mode="bilinear", align_corners=True),
                                dict(scale_factor=(1.5, 2), mode="bilinear"), dict(size=7, mode="nearest-exact")])
def test_upsample(kw: dict[str, Any]) -> None:
    mods = [L.nn.Upsample(**kw) for L in (jitgrad, torch)]
    assert repr(mods[0]) == repr(mods[1])
    compare(lambda L, t: mods[L is torch](t), RNG.standard_normal((2, 3, 4, 4)))
    for name, args in (("UpsamplingNearest2d", (None, 2)), ("UpsamplingBilinear2d", ((3, 6),))):
        pair = [getattr(L.nn, name)(*args) for L in (jitgrad, torch)]
        assert repr(pair[0]) == repr(pair[1])
        compare(lambda L, t: pair[L is torch](t), RNG.standard_normal((1, 2, 3, 3)))


@pytest.mark.parametrize("n, mode", [(n, m) for n, linear in ((1, "linear"), (2, "bilinear"), (3, "trilinear"))
                                     for m in ("nearest", "nearest-exact", linear)])
def test_interpolate_nodes(n: int, mode: str) -> None:
    """One node per resize under PyTorch's name (``UpsampleBilinear2DBackward0``, ...)."""
    compare(lambda L, t: L.nn.functional.interpolate(t, scale_factor=2, mode=mode), RNG.standard_normal((1, 2) + (3,) * n))


@pytest.mark.parametrize("name, kw", [("upsample", dict(scale_factor=2, mode="bilinear")),
                                      ("upsample_nearest", dict(size=(5, 3))), ("upsample_bilinear", dict(scale_factor=2))])
def test_deprecated_upsample_functions(name: str, kw: dict[str, Any]) -> None:
    x = RNG.standard_normal((1, 2, 3, 3))
    messages = []
    for L in (jitgrad, torch):
        with pytest.warns(UserWarning) as caught:
            getattr(L.nn.functional, name)(L.tensor(x), **kw)
        messages.append(str(caught[0].message))
    assert messages[0] == messages[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(lambda L, t: getattr(L.nn.functional, name)(t, **kw), x)


def test_softmax2d_cosine_pairwise() -> None:
    compare(lambda L, t: L.nn.Softmax2d()(t), RNG.standard_normal((2, 3, 2, 2)))
    compare(lambda L, t: L.nn.Softmax2d()(t), RNG.standard_normal((3, 2, 2)))
    a, b = RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5))
    compare(lambda L, x, y: L.nn.CosineSimilarity(dim=0, eps=1e-6)(x, y), a, b)
    compare(lambda L, x, y: L.nn.PairwiseDistance(p=3.0, keepdim=True)(x, y), a, b)
    for L in (jitgrad, torch):
        m = L.nn.PairwiseDistance()
        assert (m.norm, m.eps, m.keepdim) == (2.0, 1e-6, False)
    assert repr(jitgrad.nn.CosineSimilarity()) == repr(torch.nn.CosineSimilarity())


ERRORS = {
    "gn_groups": lambda L, x, v: L.nn.functional.group_norm(x, 4),
    "gn_weight": lambda L, x, v: L.nn.functional.group_norm(x, 3, L.ones(5, dtype=L.float64)),
    "gn_1d": lambda L, x, v: L.nn.functional.group_norm(x[0, 0, 0], 2),
    "gn_unbatched": lambda L, x, v: L.nn.functional.group_norm(x[0], 3),
    "gn_module": lambda L, x, v: L.nn.GroupNorm(4, 6),
    "gn_one_value": lambda L, x, v: L.nn.functional.group_norm(x[:1, :, 0, 0], 6),
    "prelu_n": lambda L, x, v: L.nn.functional.prelu(x, L.ones(2, dtype=L.float64)),
    "prelu_1d": lambda L, x, v: L.nn.functional.prelu(x[0, 0, 0], L.ones(4, dtype=L.float64)),
    "prelu_w2d": lambda L, x, v: L.nn.functional.prelu(x, L.ones(6, 1, dtype=L.float64)),
    "ps_dim": lambda L, x, v: L.nn.functional.pixel_shuffle(v, 2),
    "ps_div": lambda L, x, v: L.nn.functional.pixel_shuffle(x, 4),
    "ps_0": lambda L, x, v: L.nn.functional.pixel_shuffle(x, 0),
    "pus_h": lambda L, x, v: L.nn.functional.pixel_unshuffle(x[:, :, :3], 2),
    "pus_w": lambda L, x, v: L.nn.functional.pixel_unshuffle(x[:, :, :, :3], 2),
    "pus_dim": lambda L, x, v: L.nn.functional.pixel_unshuffle(v, 2),
    "pus_0": lambda L, x, v: L.nn.functional.pixel_unshuffle(x, 0),
    "softmax2d": lambda L, x, v: L.nn.Softmax2d()(v),
    "dropout2d_p": lambda L, x, v: L.nn.Dropout2d(1.5),
    "alpha_p": lambda L, x, v: L.nn.AlphaDropout(-0.1),
    "dropout1d_dim": lambda L, x, v: L.nn.Dropout1d()(x),
    "dropout1d_1d": lambda L, x, v: L.nn.functional.dropout1d(v[0]),
    "dropout2d_1d": lambda L, x, v: L.nn.functional.dropout2d(v[0]),
    "upsample_both": lambda L, x, v: L.nn.Upsample(size=2, scale_factor=2)(x),
}


@pytest.mark.filterwarnings("ignore:dropout2d")
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case: str) -> None:
    same_error(lambda L: ERRORS[case](L, L.ones(2, 6, 4, 4, dtype=L.float64, requires_grad=True),
                                      L.ones(3, 5, dtype=L.float64, requires_grad=True)))


def test_gradcheck() -> None:
    F = jitgrad.nn.functional
    x = jitgrad.tensor(RNG.standard_normal((2, 4, 3)), requires_grad=True)
    w = jitgrad.tensor(RNG.standard_normal(4), requires_grad=True)
    b = jitgrad.tensor(RNG.standard_normal(4), requires_grad=True)
    assert jitgrad.autograd.gradcheck(lambda *t: F.group_norm(t[0], 2, t[1], t[2]), (x, w, b))
    assert jitgrad.autograd.gradgradcheck(lambda *t: F.group_norm(t[0], 2, t[1], t[2]), (x, w, b))
    assert jitgrad.autograd.gradcheck(F.prelu, (x, w))
    y = jitgrad.tensor(RNG.standard_normal((1, 8, 2, 2)), requires_grad=True)
    assert jitgrad.autograd.gradcheck(lambda t: F.pixel_unshuffle(F.pixel_shuffle(t, 2) ** 2, 2), (y,))


# --- dropout variants -------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:dropout3d")
@pytest.mark.parametrize("name, shape, spatial", [
    ("dropout1d", (40, 50, 3), 1), ("dropout2d", (40, 50, 2, 3), 2), ("dropout3d", (50, 40, 2, 1, 3), 3),
    ("dropout2d", (2000, 2, 3), 2), ("dropout1d", (2000, 3), 1), ("dropout3d", (40, 50, 3), 1),
])
def test_channelwise_dropout(name: str, shape: tuple[int, ...], spatial: int) -> None:
    """Whole channels (the dims after N, C; an unbatched input has no N) are kept or dropped."""
    jitgrad.manual_seed(0)
    x = jitgrad.ones(*shape, dtype=jitgrad.float64, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = getattr(jitgrad.nn.functional, name)(x, 0.3)
    assert len(caught) == (name == "dropout3d" and len(shape) == 3)  # (PyTorch: deprecated, kept)
    values = y.detach().numpy()
    per_channel = values.reshape(shape[: len(shape) - spatial] + (-1,))
    assert np.all(per_channel.min(-1) == per_channel.max(-1))
    assert set(np.unique(values)) <= {0.0, 1 / 0.7}
    assert abs((values == 0).mean() - 0.3) < 0.05
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), values)
    assert getattr(jitgrad.nn.functional, name)(x, 0.3, training=False) is x


def _dropped_value(p: float) -> float:
    alpha = 1.7580993408473766
    a = 1 / np.sqrt((alpha * alpha * p + 1) * (1 - p))
    return float((0.0 - 1.0) * (alpha * a) + alpha * a * p)


@pytest.mark.parametrize("feature", [False, True])
def test_alpha_dropout_keeps_mean_and_variance(feature: bool) -> None:
    jitgrad.manual_seed(1)
    x = jitgrad.tensor(RNG.standard_normal((200, 100, 4)))
    f = jitgrad.nn.functional.feature_alpha_dropout if feature else jitgrad.nn.functional.alpha_dropout
    y = f(x, 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.03 and abs(y.std() - 1) < 0.03
    dropped = y == _dropped_value(0.2)
    if feature:
        assert np.all(dropped.all(-1) | ~dropped.any(-1))
    assert abs(dropped.mean() - 0.2) < 0.02
    assert f(x, 0.2) is x  # (training defaults to False in the functional form)
    mods = [jitgrad.nn.AlphaDropout(0.2), jitgrad.nn.FeatureAlphaDropout(0.2)]
    assert [repr(m) for m in mods] == [repr(torch.nn.AlphaDropout(0.2)), repr(torch.nn.FeatureAlphaDropout(0.2))]
    for m in mods:
        assert m.eval()(x) is x


def test_alpha_dropout_values_for_a_fixed_mask() -> None:
    """The kept/dropped values equal PyTorch's for the same mask (found from the output)."""
    x = RNG.standard_normal(2000)
    torch.manual_seed(0)
    theirs = torch.nn.functional.alpha_dropout(torch.tensor(x), 0.3, training=True).numpy()
    jitgrad.manual_seed(0)
    ours = jitgrad.nn.functional.alpha_dropout(jitgrad.tensor(x), 0.3, training=True).numpy()
    a = 1 / np.sqrt((1.7580993408473766 ** 2 * 0.3 + 1) * 0.7)
    for y in (theirs, ours):
        dropped = np.isclose(y, _dropped_value(0.3), rtol=1e-15, atol=0)
        assert 0.25 < dropped.mean() < 0.35
        np.testing.assert_allclose(y[~dropped], x[~dropped] * a + 1.7580993408473766 * a * 0.3, rtol=1e-12)


@pytest.mark.parametrize("name, args", [("relu_", ()), ("elu_", (0.5,)), ("leaky_relu_", (0.2,)), ("hardtanh_", (-0.5, 0.7)),
                                        ("threshold_", (0.1, -2.0)), ("selu_", ()), ("celu_", (1.5,))])
def test_inplace_activation_spellings(name: str, args: tuple[Any, ...]) -> None:
    """``F.relu_(t)`` writes ``t`` and returns it, with the gradient of the activation."""

    def program(L: Any, x: Any) -> Any:
        t = x * 1.0
        out = getattr(L.nn.functional, name)(t, *args)
        assert out is t
        return out

    # (the node too: EluBackward1, LeakyReluBackward1, ... as PyTorch's in-place kernels record)
    compare(program, RNG.standard_normal((3, 4)), node=True)


@pytest.mark.parametrize("shape, size", [((2, 6, 5), 3), ((2, 6, 3, 4), 2), ((1, 5, 2, 2, 3), 4), ((0, 3, 4), 2)])
def test_local_response_norm(shape: tuple[int, ...], size: int) -> None:
    x = RNG.standard_normal(shape)
    compare(lambda L, t: L.nn.functional.local_response_norm(t, size, alpha=0.1, beta=0.6, k=1.5), x,
            second=bool(x.size), rtol=1e-9)
    mods = [L.nn.LocalResponseNorm(size, k=2.0) for L in (jitgrad, torch)]
    assert repr(mods[0]) == repr(mods[1])
    if x.size:
        compare(lambda L, t: mods[L is torch](t), x, rtol=1e-9)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.5, 0.0])
def test_pdist(p: float) -> None:
    compare(lambda L, t: L.nn.functional.pdist(t, p), RNG.standard_normal((5, 3)), second=False, rtol=1e-9)


def test_rrelu_and_mish() -> None:
    x = RNG.standard_normal((4, 5))
    compare(lambda L, t: L.nn.functional.rrelu(t, 0.1, 0.3), x)
    mods = [L.nn.RReLU(0.2, 0.4).eval() for L in (jitgrad, torch)]
    assert repr(mods[0]) == repr(mods[1])
    compare(lambda L, t: mods[L is torch](t), x)
    jitgrad.manual_seed(0)
    t = jitgrad.tensor(np.abs(x) * -1 - 0.1, requires_grad=True)
    y = jitgrad.nn.functional.rrelu(t, 0.1, 0.3, training=True)
    slopes = (y / t).detach().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.01
    y.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), slopes, rtol=1e-12)
    mish = [L.nn.Mish() for L in (jitgrad, torch)]
    assert repr(mish[0]) == repr(mish[1])
    compare(lambda L, u: mish[L is torch](u), x, node=False)


EXTRA_ERRORS = {
    "lrn_dims": lambda L: L.nn.functional.local_response_norm(L.ones(4), 3),
    "pdist_dims": lambda L: L.nn.functional.pdist(L.ones(2, 3, 4)),
    "pdist_p": lambda L: L.nn.functional.pdist(L.ones(2, 3), p=-1),
}


@pytest.mark.parametrize("case", sorted(EXTRA_ERRORS))
def test_extra_errors(case: str) -> None:
    same_error(EXTRA_ERRORS[case])


@pytest.mark.parametrize("dim", [-1, 0, 1])
def test_gumbel_softmax(dim: int) -> None:
    """Samples are distributions along ``dim``; ``hard`` gives one-hots with the soft gradient;
    the argmax frequencies follow softmax(logits) (the Gumbel-max trick)."""
    jitgrad.manual_seed(3)
    logits = jitgrad.tensor(np.log(np.array([[0.1, 0.2, 0.7]] * 4000)), requires_grad=True)
    if dim == 0:
        logits = jitgrad.tensor(np.log(np.array([[0.1, 0.2, 0.7]] * 4000)).T.copy(), requires_grad=True)
    soft = jitgrad.nn.functional.gumbel_softmax(logits, tau=0.5, dim=dim)
    np.testing.assert_allclose(soft.detach().numpy().sum(dim), 1.0, rtol=1e-12)
    hard = jitgrad.nn.functional.gumbel_softmax(logits, hard=True, dim=dim)
    values = hard.detach().numpy()
    assert set(np.unique(values)) == {0.0, 1.0} and np.all(values.sum(dim) == 1)
    freq = values.mean(1 if dim == 0 else 0)
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.7], atol=0.03)
    (g,) = jitgrad.autograd.grad((hard * jitgrad.tensor(np.arange(3.0).reshape((3, 1) if dim == 0 else (1, 3)))).sum(),
                                 logits)
    assert np.abs(g.numpy()).sum() > 0  # (straight-through: the soft sample's gradient)
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        jitgrad.nn.functional.gumbel_softmax(logits, eps=1e-5)
