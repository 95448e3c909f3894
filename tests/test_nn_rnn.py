"""``nn.RNN``/``LSTM``/``GRU`` and their cells side by side with PyTorch (float64): PyTorch's
parameters loaded by ``load_state_dict`` (which checks the names and shapes), then outputs,
final states and the gradients of input, initial states and every parameter; errors (type
and message) that leave the module as it was; Hypothesis over layouts; gradcheck on cells."""

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


def _copy_of(theirs: Any) -> dict[str, jitgrad.Tensor]:
    return {k: jitgrad.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}


def _pair(name: str, *args: Any, **kw: Any) -> tuple[Any, Any]:
    """The PyTorch module and jitgrad's with PyTorch's parameters, both float64."""
    theirs = getattr(torch.nn, name)(*args, **kw).double()
    ours = getattr(jitgrad.nn, name)(*args, **kw).double()
    ours.load_state_dict(_copy_of(theirs))
    return theirs, ours


def _flat(result: Any) -> list[Any]:
    if isinstance(result, (tuple, list)):
        return [t for r in result for t in _flat(r)]
    return [result]


Forward = Callable[[Any, Any, Any, Any], Any]


def _call(lib: Any, module: Any, x: Any, hx: Any) -> Any:
    return module(x, hx)


def _run(lib: Any, module: Any, x0: np.ndarray, states0: list[np.ndarray] | None,
         forward: Forward = _call) -> list[np.ndarray]:
    """What ``forward(lib, module, x, hx)`` returns, and the gradients of input, initial
    states and parameters of a loss that weighs every float output differently."""
    x = lib.tensor(x0, requires_grad=True)
    states = None if states0 is None else [lib.tensor(s, requires_grad=True) for s in states0]
    hx = None if states is None else (states[0] if len(states) == 1 else tuple(states))
    outs = _flat(forward(lib, module, x, hx))
    loss = sum(((o * lib.tensor(np.linspace(-1, 2, o.numel()).reshape(tuple(o.shape)))) ** 2).sum()
               for o in outs if o.is_floating_point())
    loss.backward()
    leaves = [x] + (states or []) + list(module.parameters())
    return [o.detach().numpy() for o in outs] + [t.grad.numpy() for t in leaves]


def _compare(theirs: Any, ours: Any, x0: np.ndarray, states0: list[np.ndarray] | None = None,
             forward: Forward = _call) -> None:
    want, got = _run(torch, theirs, x0, states0, forward), _run(jitgrad, ours, x0, states0, forward)
    assert len(want) == len(got)
    for a, b in zip(got, want):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)


def _states(name: str, shape_h: tuple[int, ...], shape_c: tuple[int, ...], rng: Any) -> list[np.ndarray]:
    return [rng.standard_normal(shape_h)] + ([rng.standard_normal(shape_c)] if name == "LSTM" else [])


LAYERS = [
    ("RNN", dict(), False),
    ("RNN", dict(nonlinearity="relu", num_layers=2, bias=False), True),
    ("GRU", dict(num_layers=2, bidirectional=True), True),
    ("GRU", dict(batch_first=True), False),
    ("LSTM", dict(num_layers=3, bidirectional=True, batch_first=True), True),
    ("LSTM", dict(proj_size=3, num_layers=2, bidirectional=True), True),
    ("LSTM", dict(proj_size=2, bias=False), False),
]


@pytest.mark.parametrize("name, kw, with_hx", LAYERS, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(LAYERS)])
@pytest.mark.parametrize("batched", [True, False])
def test_layers_against_pytorch(name: str, kw: dict[str, Any], with_hx: bool, batched: bool) -> None:
    theirs, ours = _pair(name, 4, 5, **kw)
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    rng = np.random.default_rng(len(kw))
    seq, batch = 4, 3
    x0 = rng.standard_normal(((batch, seq) if kw.get("batch_first") else (seq, batch)) + (4,))
    if not batched:
        x0 = x0[0] if kw.get("batch_first") else x0[:, 0]
    k = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    lead = (k, batch) if batched else (k,)
    states0 = _states(name, lead + (kw.get("proj_size") or 5,), lead + (5,), rng) if with_hx else None
    _compare(theirs, ours, x0, states0)


CELLS = [("RNNCell", dict()), ("RNNCell", dict(nonlinearity="relu", bias=False)), ("GRUCell", dict()),
         ("GRUCell", dict(bias=False)), ("LSTMCell", dict()), ("LSTMCell", dict(bias=False))]


@pytest.mark.parametrize("name, kw", CELLS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CELLS)])
@pytest.mark.parametrize("batched, with_hx", [(True, True), (True, False), (False, True), (False, False)])
def test_cells_against_pytorch(name: str, kw: dict[str, Any], batched: bool, with_hx: bool) -> None:
    theirs, ours = _pair(name, 4, 5, **kw)
    assert repr(ours) == repr(theirs)
    rng = np.random.default_rng(3)
    lead = (3,) if batched else ()
    x0 = rng.standard_normal(lead + (4,))
    states0 = _states(name.replace("Cell", ""), lead + (5,), lead + (5,), rng) if with_hx else None
    _compare(theirs, ours, x0, states0)


def test_dropout_between_layers_only_while_training() -> None:
    x0 = np.random.default_rng(4).standard_normal((5, 2, 4))
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        jitgrad.nn.GRU(4, 5, dropout=0.5)
    theirs, ours = _pair("LSTM", 4, 5, num_layers=2, dropout=0.5)
    _compare(theirs.eval(), ours.eval(), x0)
    # p = 1 zeroes the first layer's output whatever the generator: the same in both
    theirs, ours = _pair("GRU", 4, 5, num_layers=3, dropout=1.0, bidirectional=True)
    _compare(theirs.train(), ours.train(), x0)


def _bad(lib: Any, build: Any, call: Any) -> tuple[str, str]:
    module = build(lib)
    before = {k: v.detach().numpy().copy() for k, v in module.state_dict().items()}
    with pytest.raises(Exception) as info:
        call(lib, module)
    for k, v in module.state_dict().items():
        np.testing.assert_array_equal(v.detach().numpy(), before[k])
    assert all(p.grad is None for p in module.parameters())
    return type(info.value).__name__, str(info.value).replace("torch.", "jitgrad.")


def _ones(lib: Any, *shape: int) -> Any:
    return lib.ones(*shape, dtype=lib.float64)


def _lstm(lib: Any) -> Any:
    return lib.nn.LSTM(8, 5, 2, bidirectional=True).double()


def _gru(lib: Any) -> Any:
    return lib.nn.GRU(8, 5, batch_first=True).double()


CALL_ERRORS = {
    "input_size": (_lstm, lambda L, m: m(_ones(L, 3, 2, 4))),
    "input_dims": (_lstm, lambda L, m: m(_ones(L, 3, 2, 8, 1))),
    "input_dims_gru": (_gru, lambda L, m: m(_ones(L, 8))),
    "input_dims_rnn": (lambda L: L.nn.RNN(8, 5).double(), lambda L, m: m(_ones(L, 1, 1, 1, 8))),
    "hidden0_batch": (_lstm, lambda L, m: m(_ones(L, 3, 2, 8), (_ones(L, 4, 3, 5), _ones(L, 4, 2, 5)))),
    "hidden1_size": (_lstm, lambda L, m: m(_ones(L, 3, 2, 8), (_ones(L, 4, 2, 5), _ones(L, 4, 2, 6)))),
    "hidden_layers": (_gru, lambda L, m: m(_ones(L, 2, 3, 8), _ones(L, 2, 2, 5))),
    "hidden_batch_first": (_gru, lambda L, m: m(_ones(L, 2, 3, 8), _ones(L, 1, 3, 5))),
    "hidden_dims": (_gru, lambda L, m: m(_ones(L, 2, 3, 8), _ones(L, 2, 5))),
    "hidden_dims_unbatched": (_gru, lambda L, m: m(_ones(L, 3, 8), _ones(L, 1, 1, 5))),
    "lstm_dims_unbatched": (_lstm, lambda L, m: m(_ones(L, 3, 8), (_ones(L, 4, 1, 5), _ones(L, 4, 1, 5)))),
    "lstm_dims_batched": (_lstm, lambda L, m: m(_ones(L, 3, 2, 8), (_ones(L, 4, 5), _ones(L, 4, 5)))),
    "dtype": (_gru, lambda L, m: m(L.ones(2, 3, 8))),
    "empty_sequence": (_lstm, lambda L, m: m(_ones(L, 0, 2, 8))),
    "cell_input": (lambda L: L.nn.RNNCell(4, 3).double(), lambda L, m: m(_ones(L, 2, 5))),
    "cell_batch": (lambda L: L.nn.GRUCell(4, 3).double(), lambda L, m: m(_ones(L, 2, 4), _ones(L, 3, 3))),
    "cell_hidden": (lambda L: L.nn.LSTMCell(4, 3).double(), lambda L, m: m(_ones(L, 2, 4), (_ones(L, 2, 3), _ones(L, 2, 4)))),
    "cell_dims": (lambda L: L.nn.LSTMCell(4, 3).double(), lambda L, m: m(_ones(L, 1, 2, 4))),
    "cell_hx_dims": (lambda L: L.nn.GRUCell(4, 3).double(), lambda L, m: m(_ones(L, 2, 4), _ones(L, 1, 2, 3))),
    "cell_unbatched_hx": (lambda L: L.nn.GRUCell(4, 3).double(), lambda L, m: m(_ones(L, 4), _ones(L, 2, 3))),
    "cell_nonlinearity": (lambda L: L.nn.RNNCell(4, 3, nonlinearity="foo").double(), lambda L, m: m(_ones(L, 4))),
}


@pytest.mark.parametrize("case", sorted(CALL_ERRORS))
def test_call_errors_change_nothing(case: str) -> None:
    build, call = CALL_ERRORS[case]
    assert _bad(jitgrad, build, call) == _bad(torch, build, call)


CONSTRUCTOR_ERRORS = {
    "proj_gru": lambda L: L.nn.GRU(8, 5, proj_size=2),
    "proj_too_big": lambda L: L.nn.LSTM(8, 5, proj_size=5),
    "proj_negative": lambda L: L.nn.LSTM(8, 5, proj_size=-1),
    "nonlinearity": lambda L: L.nn.RNN(8, 5, nonlinearity="sigmoid"),
    "dropout_range": lambda L: L.nn.LSTM(8, 5, dropout=1.5),
    "dropout_bool": lambda L: L.nn.LSTM(8, 5, dropout=True),
    "hidden_zero": lambda L: L.nn.GRU(8, 0),
    "hidden_float": lambda L: L.nn.GRU(8, 2.0),
    "layers_zero": lambda L: L.nn.GRU(8, 4, 0),
    "bias_type": lambda L: L.nn.GRU(8, 4, bias=1),
}


@pytest.mark.parametrize("case", sorted(CONSTRUCTOR_ERRORS))
def test_constructor_errors(case: str) -> None:
    got = []
    for lib in (jitgrad, torch):
        with pytest.raises(Exception) as info:
            CONSTRUCTOR_ERRORS[case](lib)
        got.append((type(info.value).__name__, str(info.value)))
    assert got[0] == got[1]


def test_init_shapes_and_plumbing() -> None:
    jitgrad.manual_seed(0)
    for name, kw in [("LSTM", dict(num_layers=2, bidirectional=True, proj_size=2)), ("GRU", dict(bias=False)),
                     ("RNN", dict(num_layers=2, nonlinearity="relu")), ("GRUCell", {}), ("LSTMCell", {})]:
        theirs, ours = getattr(torch.nn, name)(3, 4, **kw), getattr(jitgrad.nn, name)(3, 4, **kw)
        assert repr(ours) == repr(theirs)
        assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == \
               [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
        values = np.concatenate([p.detach().numpy().ravel() for p in ours.parameters()])
        assert values.dtype == np.float32 and np.abs(values).max() <= 0.5 and np.abs(values).max() > 0.4
        if name in ("LSTM", "GRU", "RNN"):
            assert ours._flat_weights_names == theirs._flat_weights_names
            assert [[p.shape for p in ws] for ws in ours.all_weights] == \
                   [[p.shape for p in ws] for ws in theirs.all_weights]
            assert ours.flatten_parameters() is None


@settings(max_examples=budget(12))
@given(name=st.sampled_from(["RNN", "GRU", "LSTM"]), batch=st.integers(1, 3), seq=st.integers(1, 4),
       sizes=st.tuples(st.integers(1, 4), st.integers(2, 4)), layers=st.integers(1, 2),
       bidirectional=st.booleans(), batch_first=st.booleans(), bias=st.booleans(),
       with_hx=st.booleans(), proj=st.booleans())
def test_layers_hypothesis(name: str, batch: int, seq: int, sizes: tuple[int, int], layers: int,
                           bidirectional: bool, batch_first: bool, bias: bool, with_hx: bool, proj: bool) -> None:
    (n_in, hidden), proj_size = sizes, (1 if proj and name == "LSTM" else 0)
    kw: dict[str, Any] = dict(num_layers=layers, bidirectional=bidirectional, batch_first=batch_first, bias=bias)
    if proj_size:
        kw["proj_size"] = proj_size
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs, ours = _pair(name, n_in, hidden, **kw)
    rng = np.random.default_rng(batch * 100 + seq)
    x0 = rng.standard_normal(((batch, seq) if batch_first else (seq, batch)) + (n_in,))
    lead = (layers * (1 + bidirectional), batch)
    states0 = _states(name, lead + (proj_size or hidden,), lead + (hidden,), rng) if with_hx else None
    _compare(theirs, ours, x0, states0)


@pytest.mark.parametrize("mode", ["RNN_TANH", "GRU", "LSTM"])
def test_gradcheck_steps(mode: str) -> None:
    """The step of a cell, its weights as inputs, against numerical derivatives."""
    from jitgrad.nn import _recurrent

    gates = {"RNN_TANH": 1, "GRU": 3, "LSTM": 4}[mode] * 3
    rng = np.random.default_rng(5)
    shapes = [(2, 2), (2, 3), (2, 3), (gates, 2), (gates,), (gates, 3), (gates,)]
    inputs = [jitgrad.tensor(rng.standard_normal(s) * 0.5, requires_grad=True) for s in shapes]

    def f(x: Any, h: Any, c: Any, w_ih: Any, b_ih: Any, w_hh: Any, b_hh: Any) -> Any:
        state = (h, c) if mode == "LSTM" else (h,)
        input_bias, weights = _recurrent.step_weights(mode, b_ih, w_hh, b_hh)
        return _recurrent.STEPS[mode](_recurrent.project(x, w_ih, input_bias), state, weights)

    assert jitgrad.autograd.gradcheck(f, inputs)


PACKED = [("LSTM", dict(num_layers=2, bidirectional=True), True, False),
          ("GRU", dict(batch_first=True), False, True),
          ("RNN", dict(num_layers=2, bidirectional=True, batch_first=True), True, True),
          ("LSTM", dict(proj_size=2, bidirectional=True), False, True)]


@pytest.mark.parametrize("name, kw, enforce_sorted, with_hx", PACKED, ids=[f"{n}-{i}" for i, (n, *_) in enumerate(PACKED)])
def test_packed_sequences_against_pytorch(name: str, kw: dict[str, Any], enforce_sorted: bool, with_hx: bool) -> None:
    """pack_padded_sequence -> layer -> pad_packed_sequence, lengths in any order."""
    theirs, ours = _pair(name, 3, 4, **kw)
    lengths = [5, 3, 3, 1] if enforce_sorted else [2, 5, 1, 4]
    bf = kw.get("batch_first", False)
    rng = np.random.default_rng(6)
    x0 = rng.standard_normal((4, 5, 3) if bf else (5, 4, 3))
    k = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    states0 = _states(name, (k, 4, kw.get("proj_size") or 4), (k, 4, 4), rng) if with_hx else None
    _compare(theirs, ours, x0, states0, _through_packing(lengths, bf, enforce_sorted, total_length=6))


def _through_packing(lengths: list[int], batch_first: bool, enforce_sorted: bool = False,
                     total_length: int | None = None) -> Forward:
    """A forward that packs the padded input, runs the layer and pads its output: the
    packed output (data, batch sizes), the padded output, the lengths, the final states."""
    def forward(lib: Any, module: Any, x: Any, hx: Any) -> Any:
        rnn = lib.nn.utils.rnn
        packed = rnn.pack_padded_sequence(x, lib.tensor(lengths), batch_first=batch_first,
                                          enforce_sorted=enforce_sorted)
        out, h = module(packed, hx)
        assert isinstance(out, rnn.PackedSequence)
        padded, out_lengths = rnn.pad_packed_sequence(out, batch_first=batch_first, total_length=total_length)
        return [out.data, out.batch_sizes, padded, out_lengths, h]

    return forward


def test_padding_and_packing_utilities() -> None:
    rng = np.random.default_rng(7)
    seqs0 = [rng.standard_normal((n, 2)) for n in (2, 4, 1)]
    got = []
    for lib in (torch, jitgrad):
        rnn = lib.nn.utils.rnn
        seqs = [lib.tensor(s, requires_grad=True) for s in seqs0]
        right = rnn.pad_sequence(seqs, padding_value=-2.0)
        left = rnn.pad_sequence(seqs, batch_first=True, padding_side="left")
        packed = rnn.pack_sequence(seqs, enforce_sorted=False)
        unpacked = rnn.unpack_sequence(packed)
        # (PyTorch's unpad_sequence transposes its argument in place: give it a copy)
        unpadded = rnn.unpad_sequence(right * 1, lib.tensor([2, 4, 1]))
        outs = [right, left, packed.data] + unpacked + unpadded
        sum((o * o * o).sum() for o in outs).backward()
        got.append([o.detach().numpy() for o in outs] + [s.grad.numpy() for s in seqs]
                   + [packed.batch_sizes.numpy(), packed.sorted_indices.numpy(), packed.unsorted_indices.numpy()])
    for a, b in zip(got[1], got[0]):
        np.testing.assert_array_equal(a, b)


PACKING_ERRORS = {
    "unsorted": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.ones(4, 3, 2), [2, 3, 1]),
    "zero_length": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.ones(4, 3, 2), [2, 0, 1], enforce_sorted=False),
    "lengths_count": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.ones(4, 3, 2), [3, 2]),
    "total_length": lambda L: L.nn.utils.rnn.pad_packed_sequence(
        L.nn.utils.rnn.pack_padded_sequence(L.ones(4, 3, 2), [3, 3, 1]), total_length=2),
    "empty": lambda L: L.nn.utils.rnn.pad_sequence([]),
    "padding_side": lambda L: L.nn.utils.rnn.pad_sequence([L.ones(2)], padding_side="middle"),
}


@pytest.mark.parametrize("case", sorted(PACKING_ERRORS))
def test_packing_errors(case: str) -> None:
    got = []
    for lib in (jitgrad, torch):
        with pytest.raises(Exception) as info:
            PACKING_ERRORS[case](lib)
        got.append((type(info.value).__name__, str(info.value)))
    assert got[0] == got[1]


def test_packed_input_errors() -> None:
    packed = jitgrad.nn.utils.rnn.pack_sequence([jitgrad.ones(3, 4, dtype=jitgrad.float64)] * 2)
    lstm = jitgrad.nn.LSTM(4, 5).double()
    with pytest.raises(RuntimeError, match=r"Expected hidden\[1\] size \(1, 2, 5\), got \[1, 3, 5\]"):
        lstm(packed, (jitgrad.zeros(1, 2, 5, dtype=jitgrad.float64), jitgrad.zeros(1, 3, 5, dtype=jitgrad.float64)))
    with pytest.raises(RuntimeError, match="Expected 5, got 4"):
        jitgrad.nn.GRU(5, 5).double()(packed)


def test_empty_batch() -> None:
    theirs, ours = _pair("GRU", 4, 3, num_layers=2, bidirectional=True)
    x0 = np.zeros((3, 0, 4))
    for a, b in zip(_flat(ours(jitgrad.tensor(x0))), _flat(theirs(torch.tensor(x0)))):
        assert tuple(a.shape) == tuple(b.shape)


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_second_order_gradients(name: str) -> None:
    """The graph is made of differentiable ops: gradients of gradients match PyTorch's."""
    theirs, ours = _pair(name, 3, 4, bidirectional=True)
    x0 = np.random.default_rng(9).standard_normal((3, 2, 3))
    got = []
    for lib, module in ((torch, theirs), (jitgrad, ours)):
        x = lib.tensor(x0, requires_grad=True)
        out = module(x)[0]
        (gx,) = lib.autograd.grad((out ** 2).sum(), x, create_graph=True)
        second = lib.autograd.grad((gx ** 2).sum(), [x] + list(module.parameters()))
        got.append([gx.detach().numpy()] + [g.numpy() for g in second])
    for a, b in zip(got[1], got[0]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@settings(max_examples=budget(8))
@given(name=st.sampled_from(["RNN", "GRU", "LSTM"]), lengths=st.lists(st.integers(1, 4), min_size=1, max_size=4),
       layers=st.integers(1, 2), bidirectional=st.booleans(), batch_first=st.booleans(), with_hx=st.booleans())
def test_packed_hypothesis(name: str, lengths: list[int], layers: int, bidirectional: bool, batch_first: bool,
                           with_hx: bool) -> None:
    """Packed batches of any lengths (any order): the padded output, lengths, final states
    and gradients of input, initial states and parameters equal PyTorch's."""
    theirs, ours = _pair(name, 2, 3, num_layers=layers, bidirectional=bidirectional, batch_first=batch_first)
    rng = np.random.default_rng(sum(lengths))
    batch, longest = len(lengths), max(lengths)
    x0 = rng.standard_normal((batch, longest, 2) if batch_first else (longest, batch, 2))
    lead = (layers * (1 + bidirectional), batch)
    states0 = _states(name, lead + (3,), lead + (3,), rng) if with_hx else None
    _compare(theirs, ours, x0, states0, _through_packing(lengths, batch_first))
