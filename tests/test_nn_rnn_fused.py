"""The fused recurrent layers and cells (``nn/_recurrent_fused.py``: one node per layer and
direction, or per cell step) against the composite path they stand in for (values bit for
bit, gradients to rounding) and against PyTorch (float64); what falls back to the composite
path; the node's edges and saved inputs; numerical gradients; the BLAS thread policy
(``kernels/_blas.py``). test_nn_rnn.py runs the modules' own behaviours (on the fused path)."""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
import jitgrad.nn._recurrent as recurrent
import jitgrad.nn.modules.rnn_cell as rnn_cell
from compat_helpers import known_differences
from conftest import budget
from jitgrad.kernels import _blas
from jitgrad.nn import _recurrent_fused as fused
from lean_switch import counted, declined
from test_nn_rnn import _pair, _run, _states, _through_packing

FUSED = "MkldnnRnnLayerBackward0"


@contextlib.contextmanager
def composite() -> Iterator[None]:
    """The fused layers and cells declined: the composite path runs."""
    with declined(recurrent, "fused_direction", None), declined(rnn_cell, "fused_direction", None):
        yield


@contextlib.contextmanager
def fused_calls(counter: list[int]) -> Iterator[None]:
    """``counter[0]`` counts the layers and cells that ran fused."""
    with counted(recurrent, "fused_direction", counter, lambda out: out is not None), \
            counted(rnn_cell, "fused_direction", counter, lambda out: out is not None):
        yield


def _three_ways(name: str, kw: dict[str, Any], x0: np.ndarray, states0: list[np.ndarray] | None,
                forward: Any = None, size: tuple[int, int] = (4, 5)) -> None:
    """Outputs and gradients: fused (which must run) vs composite (forward values equal bit
    for bit, gradients to rounding) vs PyTorch."""
    theirs, ours = _pair(name, *size, **kw)
    extra = {} if forward is None else {"forward": forward}
    counter = [0]
    with fused_calls(counter):
        got = _run(jitgrad, ours, x0, states0, **extra)
    assert counter[0] > 0
    ours.zero_grad()
    with composite():
        general = _run(jitgrad, ours, x0, states0, **extra)
    want = _run(torch, theirs, x0, states0, **extra)
    outputs = len(got) - len(list(ours.parameters())) - 1 - (0 if states0 is None else len(states0))
    for k, (a, b, c) in enumerate(zip(got, general, want)):
        assert a.shape == b.shape == c.shape and a.dtype == b.dtype
        if k < outputs:
            np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(a, c, rtol=1e-11, atol=1e-12)


LAYERS = [(name, kw) for name in ("LSTM", "GRU", "RNN") for kw in (
    {}, dict(num_layers=2), dict(bidirectional=True), dict(num_layers=2, bidirectional=True, batch_first=True),
    dict(bias=False), dict(batch_first=True))] + [("RNN", dict(nonlinearity="relu", num_layers=2, bidirectional=True))]


@pytest.mark.parametrize("name, kw", LAYERS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(LAYERS)])
@pytest.mark.parametrize("with_hx", [False, True])
def test_layers_fused_composite_pytorch(name: str, kw: dict[str, Any], with_hx: bool) -> None:
    rng = np.random.default_rng(len(kw) + with_hx)
    bf = kw.get("batch_first", False)
    x0 = rng.standard_normal((2, 4, 4) if bf else (4, 2, 4))
    lead = (kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1), 2)
    _three_ways(name, kw, x0, _states(name, lead + (5,), lead + (5,), rng) if with_hx else None)


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_packed_fused_composite_pytorch(name: str, bidirectional: bool) -> None:
    rng = np.random.default_rng(3)
    lengths = [2, 5, 1, 4]
    x0 = rng.standard_normal((5, 4, 4))
    lead = ((2 if bidirectional else 1) * 2, 4)
    _three_ways(name, dict(num_layers=2, bidirectional=bidirectional), x0, _states(name, lead + (5,), lead + (5,), rng),
                _through_packing(lengths, False))


CELLS = [("LSTMCell", {}), ("GRUCell", {}), ("RNNCell", {}), ("RNNCell", dict(nonlinearity="relu")),
         ("GRUCell", dict(bias=False)), ("LSTMCell", dict(bias=False))]


@pytest.mark.parametrize("name, kw", CELLS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CELLS)])
@pytest.mark.parametrize("with_hx", [False, True])
@pytest.mark.parametrize("batched", [False, True])
def test_cells_fused_composite_pytorch(name: str, kw: dict[str, Any], with_hx: bool, batched: bool) -> None:
    """Three steps of a cell, its state carried over."""
    rng = np.random.default_rng(4)
    x0 = rng.standard_normal((3, 2, 4) if batched else (3, 4))
    lead = (2,) if batched else ()
    states0 = _states(name.replace("Cell", ""), lead + (5,), lead + (5,), rng) if with_hx else None

    def steps(lib: Any, module: Any, x: Any, hx: Any) -> Any:
        outs = []
        for t in range(3):
            hx = module(x[t], hx)
            outs.append(hx)
        return outs

    _three_ways(name, kw, x0, states0, steps)


@settings(max_examples=budget(25), deadline=None)
@given(name=st.sampled_from(["RNN", "GRU", "LSTM"]), seq=st.integers(1, 5), batch=st.integers(1, 4),
       sizes=st.tuples(st.integers(1, 4), st.integers(1, 5)), layers=st.integers(1, 2), bidirectional=st.booleans(),
       batch_first=st.booleans(), with_hx=st.booleans(), bias=st.booleans())
def test_layers_hypothesis(name: str, seq: int, batch: int, sizes: tuple[int, int], layers: int,
                           bidirectional: bool, batch_first: bool, with_hx: bool, bias: bool) -> None:
    n_in, hidden = sizes
    rng = np.random.default_rng(seq * 100 + batch * 10 + n_in)
    x0 = rng.standard_normal((batch, seq, n_in) if batch_first else (seq, batch, n_in))
    lead = (layers * (1 + bidirectional), batch)
    kw = dict(num_layers=layers, bidirectional=bidirectional, batch_first=batch_first, bias=bias)
    _three_ways(name, kw, x0, _states(name, lead + (hidden,), lead + (hidden,), rng) if with_hx else None,
                size=(n_in, hidden))


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"])
@pytest.mark.parametrize("packed", [False, True])
def test_gradcheck_fused_direction(mode: str, packed: bool) -> None:
    """One fused layer (forward and reverse), every input differentiated, against numerical
    derivatives."""
    gates = {"LSTM": 4, "GRU": 3}.get(mode, 1) * 3
    rng = np.random.default_rng(8)
    batch_sizes = [3, 2, 2, 1] if packed else None
    x_shape = (8, 2) if packed else (3, 2, 2)
    batch = 3 if packed else 2
    shapes = [x_shape, (gates, 2), (gates,), (gates, 3), (gates,), (batch, 3), (batch, 3)]
    inputs = [jitgrad.tensor(rng.standard_normal(s) * 0.6, requires_grad=True) for s in shapes]
    if mode == "RNN_RELU":
        inputs[2] = jitgrad.tensor(np.abs(rng.standard_normal(gates)) + 0.5, requires_grad=True)  # (off the kink)

    def f(x: Any, w_ih: Any, b_ih: Any, w_hh: Any, b_hh: Any, h: Any, c: Any) -> Any:
        state = (h, c) if mode == "LSTM" else (h,)
        outs = []
        for reverse in (False, True):
            got = fused.fused_direction(mode, x, batch_sizes, state, (w_ih, b_ih, w_hh, b_hh, None), reverse)
            assert got is not None and type(got[0].grad_fn).__name__ == FUSED
            outs += [got[0], *got[1]]
        return tuple(outs)

    assert jitgrad.autograd.gradcheck(f, inputs)


@pytest.mark.skipif(not torch.backends.mkldnn.is_available(), reason="PyTorch without oneDNN composes its LSTM")
def test_node_edges_as_pytorch_float32_lstm() -> None:
    """PyTorch's own fused CPU LSTM (float32) records ``MkldnnRnnLayerBackward0`` per layer
    and direction: the same node, edges and outputs' places here."""
    theirs, ours = _pair("LSTM", 3, 4, num_layers=2, bidirectional=True)
    theirs, ours = theirs.float(), ours.float()
    names = []
    for lib, module in ((torch, theirs), (jitgrad, ours)):
        x = lib.randn(5, 2, 3, requires_grad=True)
        out, (h, c) = module(x)
        layer = out.grad_fn.next_functions[0][0]
        names.append([type(out.grad_fn).__name__, type(layer).__name__,
                      [None if f is None else type(f).__name__ for f, _ in layer.next_functions],
                      type(h.grad_fn).__name__, [(type(f).__name__, nr) for f, nr in h.grad_fn.next_functions],
                      [(type(f).__name__, nr) for f, nr in c.grad_fn.next_functions]])
    assert names[1] == names[0]
    assert names[1][1] == FUSED


def _gru_output_node(lib: Any) -> None:
    """PyTorch composes its GRU on the CPU: the output's node is the steps' stack."""
    out, _ = lib.nn.GRU(3, 4)(lib.randn(5, 2, 3))
    assert type(out.grad_fn).__name__ == "StackBackward0"


def _float64_lstm_output_node(lib: Any) -> None:
    """PyTorch's fused CPU LSTM is float32 only: in float64 it composes the steps."""
    out, _ = lib.nn.LSTM(3, 4).double()(lib.randn(5, 2, 3, dtype=lib.float64))
    assert type(out.grad_fn).__name__ == "StackBackward0"


_FUSED_WHERE_PYTORCH_COMPOSES = "jitgrad fuses every recurrent layer (MkldnnRnnLayerBackward0, nn/_recurrent_fused.py)"
test_node_names_where_pytorch_composes_on_pytorch, test_node_names_where_pytorch_composes_on_jitgrad = \
    known_differences({_gru_output_node: _FUSED_WHERE_PYTORCH_COMPOSES,
                       _float64_lstm_output_node: _FUSED_WHERE_PYTORCH_COMPOSES})


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
def test_falls_back_to_the_composite_path() -> None:
    """proj_size, anomaly mode and saved-tensor hooks run the composite graph (its nodes),
    with the same values."""
    x = jitgrad.randn(3, 2, 4, dtype=jitgrad.float64)
    lstm = jitgrad.nn.LSTM(4, 5).double()
    assert type(lstm(x)[0].grad_fn).__name__ == FUSED
    assert type(jitgrad.nn.LSTM(4, 5, proj_size=2).double()(x)[0].grad_fn).__name__ == "StackBackward0"
    with jitgrad.autograd.detect_anomaly():
        assert type(lstm(x)[0].grad_fn).__name__ == "StackBackward0"
    with jitgrad.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        assert type(lstm(x)[0].grad_fn).__name__ == "StackBackward0"
    with composite():
        want = lstm(x)[0]
    np.testing.assert_array_equal(lstm(x)[0].detach().numpy(), want.detach().numpy())


def test_no_grad_and_inference_mode_run_fused_without_a_graph() -> None:
    gru = jitgrad.nn.GRU(4, 5, num_layers=2).double()
    x = jitgrad.randn(3, 2, 4, dtype=jitgrad.float64)
    counter = [0]
    with jitgrad.no_grad(), fused_calls(counter):
        out, h = gru(x)
    assert counter[0] == 2 and out.grad_fn is None and not out.requires_grad and h.grad_fn is None
    with composite():
        want = gru(x)[0]
    np.testing.assert_array_equal(out.numpy(), want.detach().numpy())
    with jitgrad.inference_mode(), fused_calls(counter):
        out, h = gru(x)
    assert counter[0] == 4 and out.is_inference() and h.is_inference()
    np.testing.assert_array_equal(out.numpy(), want.detach().numpy())


def test_saved_inputs_versions_and_freed_graph() -> None:
    """The node saves its inputs: writing a weight in place after the forward makes the
    backward refuse (as the composite path's nodes do); a second backward needs
    retain_graph, and with it gives the same gradients."""
    lstm = jitgrad.nn.LSTM(4, 5).double()
    x = jitgrad.randn(3, 2, 4, dtype=jitgrad.float64, requires_grad=True)
    for path in (contextlib.nullcontext, composite):
        with path():
            out = lstm(x)[0]
        with jitgrad.no_grad():
            lstm.weight_hh_l0.mul_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()
    out = lstm(x)[0]
    out.sum().backward(retain_graph=True)
    first = x.grad.clone()
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * first.numpy())
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out.sum().backward()


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
def test_create_graph_as_composite(name: str) -> None:
    """With ``create_graph`` the fused node differentiates the composite graph: gradients of
    gradients equal the composite path's (test_nn_rnn.py compares them with PyTorch's)."""
    got = []
    for path in (contextlib.nullcontext, composite):
        jitgrad.manual_seed(0)
        module = getattr(jitgrad.nn, name)(3, 4, num_layers=2).double()
        x = jitgrad.randn(3, 2, 3, dtype=jitgrad.float64, requires_grad=True)
        h0 = jitgrad.randn(2, 2, 4, dtype=jitgrad.float64, requires_grad=True)
        with path():
            out, _ = module(x, (h0, h0 * 2) if name == "LSTM" else h0)
            gx, gh = jitgrad.autograd.grad((out ** 2).sum(), [x, h0], create_graph=True)
            second = jitgrad.autograd.grad((gx ** 2).sum() + gh.sin().sum(), [x, h0] + list(module.parameters()))
        got.append([gx.detach().numpy()] + [g.numpy() for g in second])
    for a, b in zip(*got):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def test_float32_fused_against_pytorch() -> None:
    theirs, ours = _pair("LSTM", 4, 5, num_layers=2, bidirectional=True)
    theirs, ours = theirs.float(), ours.float()
    x0 = np.random.default_rng(2).standard_normal((6, 3, 4)).astype(np.float32)
    got, want = _run(jitgrad, ours, x0, None), _run(torch, theirs, x0, None)
    for a, b in zip(got, want):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)


# -- the BLAS thread policy -------------------------------------------------------------------
def _blas_threads() -> int | None:
    found = _blas._POLICY.found if _blas._POLICY.looked else _blas._find()
    return None if found is None else found[1]()


def test_one_blas_thread_restores_the_count() -> None:
    before = _blas_threads()
    with _blas.one_blas_thread():
        inside = _blas_threads()
        with _blas.one_blas_thread():
            assert _blas_threads() == inside
        assert _blas_threads() == inside
    assert _blas_threads() == before
    if before is not None:
        assert inside == 1
    with _blas.one_blas_thread(False):
        assert _blas_threads() == before


def test_one_thread_pays_for_mid_size_products_only() -> None:
    """A cell's products (OpenBLAS keeps them on one thread itself): no; a layer's mid-size
    ones: yes; large ones: no (the user's count), whatever the load."""
    assert not _blas.one_thread_pays(8 * 32 * 128)
    assert _blas.one_thread_pays(50 * 8 * 128 * 32)
    assert _blas.one_thread_pays(_blas.SMALL_PRODUCT)
    assert not _blas.one_thread_pays(_blas.SMALL_PRODUCT + 1)


def test_openblas_results_depend_on_its_thread_count() -> None:
    """Why the policy may not read the machine's load: the same product on 1 and on 2
    OpenBLAS threads differs in the last bits (were this ever to hold for every shape, a
    load-dependent rule would become possible)."""
    found = _blas._POLICY.found if _blas._POLICY.looked else _blas._find()
    if found is None:
        pytest.skip("NumPy without a bundled OpenBLAS")
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((64, 1000)), rng.standard_normal((1000, 64))
    before = found[1]()
    with _blas.one_blas_thread():
        one = a @ b
    _blas.set_blas_threads(2)
    try:
        two = a @ b
    finally:
        _blas.set_blas_threads(before)
    assert not np.array_equal(one, two)
    np.testing.assert_allclose(one, two, rtol=1e-12)


def test_a_layer_gives_the_same_bits_whatever_the_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """An LSTM with products above SMALL_PRODUCT (50 steps, batch 8, 1000 inputs, 64
    hidden): its outputs and gradients with every core idle and with none idle are the same
    bits (they were not when the policy held large products to one thread on busy cores)."""
    from jitgrad.kernels import _parallel

    jitgrad.manual_seed(0)
    lstm = jitgrad.nn.LSTM(1000, 64, dtype=jitgrad.float64)
    x = jitgrad.tensor(np.random.default_rng(0).standard_normal((50, 8, 1000)), requires_grad=True)
    results = []
    for idle in (1, 0):
        monkeypatch.setattr(_parallel, "idle_cpus", lambda idle=idle: idle)
        monkeypatch.setattr(_blas, "idle_cpus", lambda idle=idle: idle, raising=False)
        y, _ = lstm(x)
        y.sum().backward()
        results.append((y.detach().numpy(), x.grad.numpy().copy(), lstm.weight_ih_l0.grad.numpy().copy()))
        x.grad = None
        lstm.zero_grad()
    for one, other in zip(*results):
        np.testing.assert_array_equal(one, other)


def test_one_blas_thread_from_threads_restores_the_count() -> None:
    before = _blas_threads()
    gate = threading.Barrier(4)

    def work() -> None:
        gate.wait()
        for _ in range(50):
            with _blas.one_blas_thread():
                pass

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert _blas_threads() == before and _blas._POLICY.inside == 0


def test_same_values_with_and_without_the_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The layer's values with OpenBLAS at one thread, at the default count, and with no
    library found (another BLAS: the policy does nothing) are the same."""
    lstm = jitgrad.nn.LSTM(16, 32)  # (its products: 0.8M and 1.6M multiply-adds)
    x = jitgrad.randn(50, 8, 16, requires_grad=True)
    assert _blas.one_thread_pays(50 * 8 * 128 * 32)
    want = lstm(x)
    got = []
    with declined(fused, "one_thread_pays", False):
        got.append(lstm(x))
    monkeypatch.setattr(_blas, "_POLICY", _blas._Policy())
    monkeypatch.setattr(_blas, "_find", lambda: None)
    got.append(lstm(x))
    assert _blas._POLICY.looked and _blas._POLICY.found is None
    for out in got:
        for a, b in zip([out[0], *out[1]], [want[0], *want[1]]):
            np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


@pytest.mark.filterwarnings("ignore::jitgrad.compiler.compiled.CompileFallbackWarning")
def test_compile_traces_the_composite_path() -> None:
    """While ``jitgrad.compile`` traces, the layers take the composite path (whatever the
    compiler then does with it): the values are eager's."""
    gru = jitgrad.nn.GRU(4, 5).double()

    def f(x: Any) -> Any:
        return gru(x)[0].sum()

    compiled = jitgrad.compile(f)
    for seed in range(2):
        jitgrad.manual_seed(seed)
        x = jitgrad.randn(3, 2, 4, dtype=jitgrad.float64, requires_grad=True)
        assert compiled(x).item() == f(x).item()


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch_sizes, reverse", [(None, False), (None, True), ([3, 3, 2, 1], False),
                                                  ([3, 2, 2, 1], True)])
def test_backward_kernels_against_naive(mode: str, dtype: Any, batch_sizes: list[int] | None,
                                        reverse: bool) -> None:
    """The jitted steps of backpropagation through time (``kernels/_rnn_jit.py``) against
    their NumPy reference (tests/naive.py), bit for bit, with and without output gradients."""
    import naive

    rng = np.random.default_rng(11)
    size, batch = 3, 3
    gates = {"LSTM": 4, "GRU": 3}.get(mode, 1) * size
    plan = fused._Plan(4, batch, batch_sizes, reverse)
    gi = rng.standard_normal((plan.total, gates)).astype(dtype)
    w_hh = rng.standard_normal((gates, size)).astype(dtype)
    b_hh = rng.standard_normal(gates).astype(dtype) if mode == "GRU" else None
    h0, c0 = rng.standard_normal((2, batch, size)).astype(dtype)
    _, _, saved = fused._forward(mode, gi, h0, c0 if mode == "LSTM" else None, w_hh, b_hh, plan, True)
    states = [rng.standard_normal((batch, size)).astype(dtype) for _ in range(2 if mode == "LSTM" else 1)]
    for g_out in (None, rng.standard_normal((plan.total, size)).astype(dtype)):
        for g_state in (states, [None] * len(states)):
            got = fused._backward(mode, saved, g_out, g_state, w_hh, plan)
            want = naive.rnn_backward(mode, saved, g_out, g_state, w_hh, plan)
            for a, b in zip([got[0], got[1], *got[2]], [want[0], want[1], *want[2]]):
                assert a.dtype == dtype
                np.testing.assert_array_equal(a, b)


def test_backward_kernels_stay_inside_their_buffers() -> None:
    """A hidden size larger than the buffers hold, or zero: the kernels touch nothing
    outside them (their loops are bounded by every buffer's length)."""
    from jitgrad.kernels import rnn as kernels

    for kernel, arrays in ((kernels.lstm_backward, 7), (kernels.gru_backward, 7), (kernels.tanh_backward, 4),
                           (kernels.relu_backward, 4)):
        buffers = [np.ones(6) for _ in range(arrays)]
        before = [b.copy() for b in buffers]
        for size in (0, 7, 100):
            kernel.entry(np.dtype(np.float64))(*buffers, size)
        for b, a in zip(buffers, before):
            np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("packed", [False, True])
def test_float32_forward_values_are_the_composite_paths(name: str, packed: bool) -> None:
    """In float32 too (NumPy's float32 loops, the sigmoid kernel's rounding), the fused
    forward makes the composite path's values bit for bit."""
    jitgrad.manual_seed(4)
    module = getattr(jitgrad.nn, name)(5, 7, num_layers=2, bidirectional=True)
    x = jitgrad.randn(6, 3, 5) * 3
    if packed:
        x = jitgrad.nn.utils.rnn.pack_padded_sequence(x, jitgrad.tensor([6, 4, 1]))
    got = module(x)
    with composite():
        want = module(x)
    data = (lambda r: r.data) if packed else (lambda r: r)
    for a, b in zip([data(got[0]), *_flat_states(got[1])], [data(want[0]), *_flat_states(want[1])]):
        assert a.dtype == jitgrad.float32
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def _flat_states(states: Any) -> list[Any]:
    return list(states) if isinstance(states, tuple) else [states]


@pytest.mark.parametrize("name", ["LSTMCell", "GRUCell", "packed LSTM", "packed GRU"])
def test_create_graph_cells_and_packed_as_composite(name: str) -> None:
    """Gradients of gradients through cell steps and packed batches (reverse direction
    included): the fused nodes' equal the composite path's."""
    got = []
    for path in (contextlib.nullcontext, composite):
        jitgrad.manual_seed(1)
        x = jitgrad.randn(3, 3, 2, dtype=jitgrad.float64, requires_grad=True)
        with path():
            if name.endswith("Cell"):
                module = getattr(jitgrad.nn, name)(2, 3).double()
                state = None
                outs = []
                for t in range(3):
                    state = module(x[t], state)
                    outs.append(state[0] if isinstance(state, tuple) else state)
                out = jitgrad.stack(outs)
            else:
                module = getattr(jitgrad.nn, name.split()[1])(2, 3, bidirectional=True).double()
                packed = jitgrad.nn.utils.rnn.pack_padded_sequence(x, jitgrad.tensor([3, 2, 1]))
                out = module(packed)[0].data
            (gx,) = jitgrad.autograd.grad((out ** 2).sum(), [x], create_graph=True)
            second = jitgrad.autograd.grad((gx ** 2).sum(), [x] + list(module.parameters()))
        got.append([gx.detach().numpy()] + [g.numpy() for g in second])
    for a, b in zip(*got):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("name", ["GRU", "LSTM", "RNN"])
def test_strided_parameters(name: str) -> None:
    """Weights and biases that are strided views (every other element of a larger tensor):
    the fused layer's values and gradients are the composite path's."""
    jitgrad.manual_seed(2)
    module = getattr(jitgrad.nn, name)(3, 4).double()
    for pname, p in list(module.named_parameters()):
        wide = jitgrad.zeros(*p.shape[:-1], 2 * p.shape[-1], dtype=jitgrad.float64)
        wide[..., ::2] = p.detach()
        setattr(module, pname, jitgrad.nn.Parameter(wide[..., ::2]))
        assert not getattr(module, pname).is_contiguous()
    x = jitgrad.randn(4, 2, 3, dtype=jitgrad.float64)
    got = []
    for path in (contextlib.nullcontext, composite):
        module.zero_grad()
        with path():
            out, _ = module(x)
            (out.sin().sum()).backward()
        got.append([out.detach().numpy()] + [p.grad.numpy() for p in module.parameters()])
    np.testing.assert_array_equal(got[0][0], got[1][0])
    for a, b in zip(*got):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)
