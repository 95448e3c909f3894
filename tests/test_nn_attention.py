"""``F.scaled_dot_product_attention``, ``nn.MultiheadAttention`` and the Transformer layers
side by side with PyTorch (float64, dropout 0 or eval mode): PyTorch's parameters loaded by
``load_state_dict``, then outputs, attention weights and the gradients of inputs and every
parameter; masks of both kinds; errors (type and message); Hypothesis over shapes."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget


def _pair(name: str, *args: Any, **kw: Any) -> tuple[Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch's enable_nested_tensor notice)
        theirs = getattr(torch.nn, name)(*args, **kw).double()
    ours = getattr(jitgrad.nn, name)(*args, **kw).double()
    ours.load_state_dict({k: jitgrad.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    assert repr(ours) == repr(theirs)
    return theirs, ours


def _side_by_side(program: Callable[[Any, list[Any]], Any], arrays: list[np.ndarray],
                  modules: tuple[Any, Any] | None = None, grad: list[bool] | None = None) -> None:
    """Run ``program(lib, tensors)`` on both libraries; compare the outputs (None or
    tensors), and the gradients of the float inputs and the modules' parameters of a loss
    weighing every output element differently."""
    got = []
    for lib, module in ((torch, modules and modules[0]), (jitgrad, modules and modules[1])):
        wants = grad or [a.dtype.kind == "f" for a in arrays]
        ts = [lib.tensor(a, requires_grad=w) for a, w in zip(arrays, wants)]
        outs = [o for o in program(lib, ts) if o is not None]
        loss = sum((o * lib.tensor(np.cos(np.arange(o.numel())).reshape(tuple(o.shape)))).sum() for o in outs)
        loss.backward()
        params = list(module.parameters()) if module is not None else []
        got.append([o.detach().numpy() for o in outs] + [t.grad.numpy() for t, w in zip(ts, wants) if w]
                   + [p.grad.numpy() for p in params])
    assert len(got[0]) == len(got[1])
    for a, b in zip(got[1], got[0]):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


RNG = np.random.default_rng(0)


def _mask(shape: tuple[int, ...], p: float = 0.3) -> np.ndarray:
    m = RNG.random(shape) < p
    m[..., 0] = False  # (every row keeps one key)
    return m


SDPA = [
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), None, {}),
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), "bool", {}),
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), "float", dict(scale=0.25)),
    ((4, 5), (4, 5), (4, 3), None, dict(is_causal=True)),
    ((2, 3, 5, 5), (2, 3, 7, 5), (2, 3, 7, 5), None, dict(is_causal=True)),
    ((2, 4, 3, 5), (2, 2, 6, 5), (2, 2, 6, 5), "bool", dict(enable_gqa=True)),
    ((3, 4, 5), (3, 6, 5), (3, 6, 2), "dead", {}),
]


@pytest.mark.parametrize("q, k, v, mask, kw", SDPA, ids=[str(i) for i in range(len(SDPA))])
def test_sdpa_against_pytorch(q: Any, k: Any, v: Any, mask: str | None, kw: dict[str, Any]) -> None:
    arrays = [RNG.standard_normal(s) for s in (q, k, v)]
    L, S = q[-2], k[-2]
    if mask == "bool":
        arrays.append(~_mask((L, S)))
    elif mask == "float":
        arrays.append(RNG.standard_normal((q[1], L, S)))
    elif mask == "dead":  # a query that sees no key: zeros, and no gradient, as PyTorch
        m = ~_mask((L, S))
        m[1] = False
        arrays.append(m)

    def program(lib: Any, ts: list[Any]) -> Any:
        m = ts[3] if len(ts) > 3 else None
        return [lib.nn.functional.scaled_dot_product_attention(*ts[:3], attn_mask=m, **kw)]

    _side_by_side(program, arrays, grad=[True, True, True, mask == "float"])


def test_sdpa_dropout_one_zeroes_everything() -> None:
    q = jitgrad.ones(2, 3, 4)
    assert float(jitgrad.nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=1.0).abs().sum()) == 0.0


MHA = [
    (dict(), dict(), None),
    (dict(batch_first=True), dict(need_weights=False), "both"),
    (dict(kdim=3, vdim=5), dict(average_attn_weights=False), "bool"),
    (dict(add_bias_kv=True, add_zero_attn=True), dict(), "both"),
    (dict(bias=False, add_zero_attn=True), dict(need_weights=False), "float"),
    (dict(batch_first=True), dict(average_attn_weights=False), "3d"),
]


@pytest.mark.parametrize("ctor, call, masks", MHA, ids=[str(i) for i in range(len(MHA))])
@pytest.mark.parametrize("batched", [True, False])
def test_multihead_attention_against_pytorch(ctor: dict[str, Any], call: dict[str, Any], masks: str | None,
                                             batched: bool) -> None:
    E, H, L, S, N = 6, 2, 4, 5, 3
    modules = _pair("MultiheadAttention", E, H, **ctor)
    bf = ctor.get("batch_first", False)

    def shape(length: int, dim: int) -> tuple[int, ...]:
        return ((N, length, dim) if bf else (length, N, dim)) if batched else (length, dim)

    arrays = [RNG.standard_normal(shape(L, E)), RNG.standard_normal(shape(S, ctor.get("kdim", E))),
              RNG.standard_normal(shape(S, ctor.get("vdim", E)))]
    names = []
    if masks in ("both", "bool"):
        arrays.append(_mask((L, S)))
        names.append("attn_mask")
    if masks in ("both", "float"):
        kpm = _mask((N, S) if batched else (S,))
        arrays.append(np.where(kpm, -np.inf, 0.0) if masks == "float" else kpm)
        names.append("key_padding_mask")
    if masks == "3d":
        arrays.append(_mask((N * H if batched else H, L, S)))
        names.append("attn_mask")

    def program(lib: Any, ts: list[Any]) -> Any:
        return modules[lib is jitgrad](*ts[:3], **dict(zip(names, ts[3:])), **call)

    _side_by_side(program, arrays, modules, grad=[True] * 3 + [False] * len(names))


def test_multihead_attention_parameters_and_init() -> None:
    jitgrad.manual_seed(0)
    for kw in [dict(), dict(kdim=3, vdim=5, add_bias_kv=True), dict(bias=False)]:
        theirs, ours = torch.nn.MultiheadAttention(8, 4, **kw), jitgrad.nn.MultiheadAttention(8, 4, **kw)
        assert repr(ours) == repr(theirs)
        assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == \
               [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
        assert list(ours.state_dict()) == list(theirs.state_dict())
        if ours.in_proj_bias is not None:
            assert not ours.in_proj_bias.detach().any() and not ours.out_proj.bias.detach().any()
        w = ours.in_proj_weight if ours.in_proj_weight is not None else ours.q_proj_weight
        bound = np.sqrt(6 / (w.shape[0] + w.shape[1]))
        assert 0.6 * bound < float(w.detach().abs().max()) <= bound


def _mha(lib: Any) -> Any:
    return lib.nn.MultiheadAttention(4, 2).double()


def _x(lib: Any, *shape: int) -> Any:
    return lib.ones(*shape, dtype=lib.float64)


ERRORS = {
    "divisible": (lambda L: L.nn.MultiheadAttention(6, 4), None),
    "positive": (lambda L: L.nn.MultiheadAttention(0, 2), None),
    "activation": (lambda L: L.nn.TransformerEncoderLayer(4, 2, 8, activation="tanh"), None),
    "query_dims": (_mha, lambda L, m: m(_x(L, 1, 3, 2, 4), _x(L, 3, 2, 4), _x(L, 3, 2, 4))),
    "key_dims": (_mha, lambda L, m: m(_x(L, 3, 2, 4), _x(L, 3, 4), _x(L, 3, 2, 4))),
    "embed": (_mha, lambda L, m: m(_x(L, 3, 2, 5), _x(L, 3, 2, 5), _x(L, 3, 2, 5))),
    "key_value": (_mha, lambda L, m: m(_x(L, 3, 2, 4), _x(L, 5, 2, 4), _x(L, 4, 2, 4))),
    "mask_2d": (_mha, lambda L, m: m(_x(L, 3, 2, 4), _x(L, 5, 2, 4), _x(L, 5, 2, 4), attn_mask=_x(L, 3, 4))),
    "mask_3d": (_mha, lambda L, m: m(_x(L, 3, 2, 4), _x(L, 5, 2, 4), _x(L, 5, 2, 4), attn_mask=_x(L, 2, 3, 5))),
    "mask_dims": (_mha, lambda L, m: m(_x(L, 3, 2, 4), _x(L, 5, 2, 4), _x(L, 5, 2, 4), attn_mask=_x(L, 1, 4, 3, 5))),
    "padding_mask": (_mha, lambda L, m: m(_x(L, 3, 2, 4), _x(L, 5, 2, 4), _x(L, 5, 2, 4),
                                          key_padding_mask=L.zeros(2, 4, dtype=L.bool))),
    "padding_mask_type": (_mha, lambda L, m: m(_x(L, 3, 2, 4), _x(L, 5, 2, 4), _x(L, 5, 2, 4),
                                               key_padding_mask=L.zeros(2, 5, dtype=L.int64))),
    "causal_without_mask": (_mha, lambda L, m: m(_x(L, 3, 2, 4), _x(L, 3, 2, 4), _x(L, 3, 2, 4), is_causal=True)),
    "transformer_batch": (lambda L: L.nn.Transformer(4, 2, 1, 1, 8).double(),
                          lambda L, m: m(_x(L, 3, 2, 4), _x(L, 3, 3, 4))),
    "transformer_features": (lambda L: L.nn.Transformer(4, 2, 1, 1, 8).double(),
                             lambda L, m: m(_x(L, 3, 2, 4), _x(L, 3, 2, 5))),
}


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case: str) -> None:
    build, call = ERRORS[case]
    got = []
    for lib in (jitgrad, torch):
        with pytest.raises(Exception) as info:
            module = build(lib)
            call(lib, module)
        got.append((type(info.value).__name__, str(info.value).replace("torch.Size", "jitgrad.Size")))
    assert got[0] == got[1]


def test_sdpa_errors() -> None:
    q = jitgrad.ones(2, 3, 4, dtype=jitgrad.float64)
    F = jitgrad.nn.functional
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=jitgrad.ones(3, 3, dtype=jitgrad.bool), is_causal=True)
    with pytest.raises(RuntimeError, match="same dtype"):
        F.scaled_dot_product_attention(q, q, q.float())
    with pytest.raises(RuntimeError, match="attn_mask dtype to be bool or float"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=jitgrad.ones(3, 3, dtype=jitgrad.int64))


LAYERS = [
    ("TransformerEncoderLayer", dict(), False),
    ("TransformerEncoderLayer", dict(norm_first=True, activation="gelu", batch_first=True), True),
    ("TransformerDecoderLayer", dict(), True),
    ("TransformerDecoderLayer", dict(norm_first=True, activation=torch.tanh, batch_first=True, bias=False), False),
]


@pytest.mark.filterwarnings("ignore:Support for mismatched")
@pytest.mark.parametrize("name, kw, masks", LAYERS, ids=[str(i) for i in range(len(LAYERS))])
def test_transformer_layers_against_pytorch(name: str, kw: dict[str, Any], masks: bool) -> None:
    d, T, S, N = 6, 4, 5, 2
    if kw.get("activation") is torch.tanh:
        kw_ours = dict(kw, activation=jitgrad.tanh)
        theirs = getattr(torch.nn, name)(d, 2, 10, dropout=0.0, **kw).double()
        ours = getattr(jitgrad.nn, name)(d, 2, 10, dropout=0.0, **kw_ours).double()
        ours.load_state_dict({k: jitgrad.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
        modules = (theirs, ours)
    else:
        modules = _pair(name, d, 2, 10, dropout=0.0, **kw)
    bf = kw.get("batch_first", False)
    arrays = [RNG.standard_normal((N, T, d) if bf else (T, N, d)), RNG.standard_normal((N, S, d) if bf else (S, N, d))]
    decoder = name.startswith("TransformerDecoder")
    if masks:
        arrays += [np.triu(np.full((T, T), -np.inf), 1), _mask((N, T))]

    def program(lib: Any, ts: list[Any]) -> Any:
        module = modules[lib is jitgrad]
        kwargs = {}
        if masks:
            kwargs = (dict(tgt_mask=ts[2], tgt_key_padding_mask=ts[3]) if decoder
                      else dict(src_mask=ts[2], src_key_padding_mask=ts[3]))
        return [module(ts[0], ts[1], **kwargs) if decoder else module(ts[0], **kwargs)]

    _side_by_side(program, arrays, modules, grad=[True, decoder, False, False][:len(arrays)])


def test_transformer_against_pytorch() -> None:
    d, N = 4, 2
    modules = _pair("Transformer", d, 2, 2, 2, 6, dropout=0.0, batch_first=True)
    for lib in (jitgrad, torch):
        mask = lib.nn.Transformer.generate_square_subsequent_mask(3, dtype=lib.float64)
        assert np.array_equal(mask.numpy(), np.triu(np.full((3, 3), -np.inf), 1))
    arrays = [RNG.standard_normal((N, 5, d)), RNG.standard_normal((N, 3, d)), np.triu(np.full((3, 3), -np.inf), 1),
              _mask((N, 5))]

    def program(lib: Any, ts: list[Any]) -> Any:
        return [modules[lib is jitgrad](ts[0], ts[1], tgt_mask=ts[2], src_key_padding_mask=ts[3],
                                        memory_key_padding_mask=ts[3])]

    _side_by_side(program, arrays, modules, grad=[True, True, False, False])


def test_encoder_stack_eval_mode_with_dropout() -> None:
    layer = ("TransformerEncoderLayer", 4, 2, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.nn.TransformerEncoder(getattr(torch.nn, layer[0])(*layer[1:], dropout=0.3), 3,
                                             torch.nn.LayerNorm(4)).double().eval()
    ours = jitgrad.nn.TransformerEncoder(getattr(jitgrad.nn, layer[0])(*layer[1:], dropout=0.3), 3,
                                         jitgrad.nn.LayerNorm(4)).double().eval()
    assert repr(ours) == repr(theirs)
    ours.load_state_dict({k: jitgrad.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    arrays = [RNG.standard_normal((5, 2, 4)), _mask((2, 5))]

    def program(lib: Any, ts: list[Any]) -> Any:
        return [(ours if lib is jitgrad else theirs)(ts[0], src_key_padding_mask=ts[1])]

    _side_by_side(program, arrays, (theirs, ours), grad=[True, False])


@settings(max_examples=budget(12))
@given(heads=st.integers(1, 3), head_dim=st.integers(1, 3), L=st.integers(1, 4), S=st.integers(1, 4),
       N=st.integers(1, 3), batch_first=st.booleans(), need_weights=st.booleans(), with_mask=st.booleans(),
       kv_dims=st.booleans())
def test_multihead_attention_hypothesis(heads: int, head_dim: int, L: int, S: int, N: int, batch_first: bool,
                                        need_weights: bool, with_mask: bool, kv_dims: bool) -> None:
    E = heads * head_dim
    kdim, vdim = (E + 1, E + 2) if kv_dims else (E, E)
    modules = _pair("MultiheadAttention", E, heads, batch_first=batch_first, kdim=kdim, vdim=vdim)
    rng = np.random.default_rng(L * 10 + S)

    def shape(length: int, dim: int) -> tuple[int, ...]:
        return (N, length, dim) if batch_first else (length, N, dim)

    arrays = [rng.standard_normal(shape(L, E)), rng.standard_normal(shape(S, kdim)), rng.standard_normal(shape(S, vdim))]
    if with_mask:
        m = rng.random((N, S)) < 0.4
        m[:, 0] = False
        arrays.append(m)

    def program(lib: Any, ts: list[Any]) -> Any:
        kpm = ts[3] if with_mask else None
        return modules[lib is jitgrad](*ts[:3], key_padding_mask=kpm, need_weights=need_weights)

    _side_by_side(program, arrays, modules, grad=[True, True, True, False][:len(arrays)])


def _encoder_padded_positions(lib: Any) -> np.ndarray:
    """An eval-mode encoder without gradients, padding at the end of the second sequence:
    the output at the padded positions."""
    lib.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        layer = lib.nn.TransformerEncoderLayer(4, 2, 8, batch_first=True)
        encoder = lib.nn.TransformerEncoder(layer, 2).double().eval()
    x = lib.tensor(np.random.default_rng(8).standard_normal((2, 3, 4)))
    padding = lib.tensor([[False, False, False], [False, True, True]])
    with lib.no_grad():
        return encoder(x, src_key_padding_mask=padding)[1, 1:].numpy()


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
def test_pytorch_zeroes_padded_positions_in_inference() -> None:
    assert not _encoder_padded_positions(torch).any()


@pytest.mark.xfail(strict=True, reason="no nested-tensor fast path: padded positions are computed (COMPATIBILITY.md)")
def test_jitgrad_zeroes_padded_positions_in_inference() -> None:
    assert not _encoder_padded_positions(jitgrad).any()


def _outputs(build: Callable[[Any], Any], call: Callable[[Any, Any], Any]) -> list[list[Any]]:
    theirs = build(torch).double()
    ours = build(jitgrad).double()
    ours.load_state_dict({k: jitgrad.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    got = []
    for lib, module in ((torch, theirs), (jitgrad, ours)):
        outs = call(lib, module)
        got.append([None if o is None else o.detach().numpy() for o in (outs if isinstance(outs, tuple) else (outs,))])
    return got


X = RNG.standard_normal((3, 2, 4))
EMPTY_ROW = np.array([[False, False, True], [True, True, True]])  # the second sequence: all padding
EDGES = {
    # a query that sees no key: NaN with the weights (softmax), zeros without (attention)
    "padded_row_weights": (lambda L: L.nn.MultiheadAttention(4, 2),
                           lambda L, m: m(L.tensor(X), L.tensor(X), L.tensor(X), key_padding_mask=L.tensor(EMPTY_ROW))),
    "padded_row_no_weights": (lambda L: L.nn.MultiheadAttention(4, 2),
                              lambda L, m: m(L.tensor(X), L.tensor(X), L.tensor(X), need_weights=False,
                                             key_padding_mask=L.tensor(EMPTY_ROW))),
    "dropout_one_training": (lambda L: L.nn.MultiheadAttention(4, 2, dropout=1.0),
                             lambda L, m: m(L.tensor(X), L.tensor(X), L.tensor(X))),
    "unbatched_encoder_layer": (lambda L: L.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0),
                                lambda L, m: m(L.tensor(X[:, 0]))),
    "unbatched_decoder_layer": (lambda L: L.nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0),
                                lambda L, m: m(L.tensor(X[:, 0]), L.tensor(X[:2, 1]))),
    "causal_hint_with_mask": (lambda L: L.nn.MultiheadAttention(4, 2),
                              lambda L, m: m(L.tensor(X), L.tensor(X), L.tensor(X), need_weights=False, is_causal=True,
                                             attn_mask=L.nn.Transformer.generate_square_subsequent_mask(3, dtype=L.float64))),
}


@pytest.mark.parametrize("case", sorted(EDGES))
def test_edge_cases(case: str) -> None:
    want, got = _outputs(*EDGES[case])
    for a, b in zip(got, want):
        if b is None:
            assert a is None
            continue
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, equal_nan=True)


@settings(max_examples=budget(15))
@given(lead=st.lists(st.integers(1, 3), max_size=2), L=st.integers(1, 4), S=st.integers(1, 4),
       E=st.integers(1, 3), Ev=st.integers(1, 3), mask=st.sampled_from([None, "bool", "float", "causal"]),
       scale=st.sampled_from([None, 0.5]), seed=st.integers(0, 2**16))
def test_sdpa_hypothesis(lead: list[int], L: int, S: int, E: int, Ev: int, mask: str | None,
                         scale: float | None, seed: int) -> None:
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(tuple(lead) + shape) for shape in ((L, E), (S, E), (S, Ev))]
    if mask == "bool":
        arrays.append(rng.random((L, S)) < 0.7)  # (rows may be left without any key)
    elif mask == "float":
        arrays.append(rng.standard_normal((L, S)))

    def program(lib: Any, ts: list[Any]) -> Any:
        m = ts[3] if len(ts) > 3 else None
        return [lib.nn.functional.scaled_dot_product_attention(*ts[:3], attn_mask=m, is_causal=mask == "causal",
                                                               scale=scale)]

    _side_by_side(program, arrays, grad=[True, True, True, mask == "float"][:len(arrays)])
