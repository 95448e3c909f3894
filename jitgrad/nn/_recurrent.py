"""The steps of ``RNN``, ``LSTM`` and ``GRU`` and the loop that runs them over a sequence,
composed from differentiable ops (``linear``, ``sigmoid``, ``tanh``, ``chunk``, ``stack``):
the graph records every step, so no backward is written here.

A step takes ``gi``, the input's projection ``x W_ih^T + b_ih`` already made: the sequence
loop projects all time steps with one matmul, the cells project their one input
(``step_weights`` says which biases the projection takes). Gate order
is PyTorch's (LSTM ``i, f, g, o``; GRU ``r, z, n``), so PyTorch's weights load unchanged.

``run_layers`` runs each layer and direction fused as one node where it can
(``_recurrent_fused.py``, which falls back here: ``composite_direction``) and the
composite path otherwise; the fused node's double backward differentiates this path.
"""

from __future__ import annotations

from typing import Callable, Sequence

from ..ops.stacking import cat, stack
from ..tensor import Tensor
from ._activations import dropout, relu, sigmoid, tanh
from ._recurrent_fused import fused_direction

# state = (h,) for RNN and GRU, (h, c) for LSTM; a step maps (gi, state, weights) -> state
State = tuple[Tensor, ...]
Step = Callable[[Tensor, State, Sequence[Tensor | None]], State]


def _hidden_gates(h: Tensor, w_hh_t: Tensor, b_hh: Tensor | None) -> Tensor:
    out = h.matmul(w_hh_t)  # type: ignore[attr-defined]
    return out if b_hh is None else out + b_hh


def rnn_tanh_step(gi: Tensor, state: State, w: Sequence[Tensor | None]) -> State:
    """``h' = tanh(gi + h W_hh^T)``."""
    return (tanh(gi + _hidden_gates(state[0], w[0], w[1])),)  # type: ignore[arg-type]


def rnn_relu_step(gi: Tensor, state: State, w: Sequence[Tensor | None]) -> State:
    """``h' = relu(gi + h W_hh^T)``."""
    return (relu(gi + _hidden_gates(state[0], w[0], w[1])),)  # type: ignore[arg-type]


def lstm_step(gi: Tensor, state: State, w: Sequence[Tensor | None]) -> State:
    """``c' = f c + i g``, ``h' = o tanh(c')`` (then ``h' W_hr^T`` with a projection), from
    the gates ``gi + h W_hh^T`` (one sigmoid over all four: fewer recorded ops)."""
    h, c = state
    gates = gi + _hidden_gates(h, w[0], w[1])  # type: ignore[arg-type]
    size = c.shape[-1]
    i, f, _, o = sigmoid(gates).chunk(4, -1)  # type: ignore[attr-defined]
    c = f * c + i * tanh(gates.narrow(-1, 2 * size, size))  # type: ignore[attr-defined]
    h = o * tanh(c)
    if w[2] is not None:
        h = h.matmul(w[2])  # type: ignore[attr-defined]
    return h, c


def gru_step(gi: Tensor, state: State, w: Sequence[Tensor | None]) -> State:
    """``n = tanh(gi_n + r (h W_hn^T + b_hn))``, ``h' = (1 - z) n + z h``."""
    h = state[0]
    i_r, i_z, i_n = gi.chunk(3, -1)  # type: ignore[attr-defined]
    h_r, h_z, h_n = _hidden_gates(h, w[0], w[1]).chunk(3, -1)  # type: ignore[arg-type, attr-defined]
    r = sigmoid(i_r + h_r)
    z = sigmoid(i_z + h_z)
    n = tanh(i_n + r * h_n)
    return (n + z * (h - n),)


STEPS: dict[str, Step] = {
    "RNN_TANH": rnn_tanh_step, "RNN_RELU": rnn_relu_step, "LSTM": lstm_step, "GRU": gru_step,
}


def step_weights(mode: str, b_ih: Tensor | None, w_hh: Tensor, b_hh: Tensor | None,
                 w_hr: Tensor | None = None) -> tuple[Tensor | None, tuple[Tensor | None, ...]]:
    """The bias of the input projection, and what a step takes: ``(W_hh^T, b_hh, W_hr^T)``,
    transposed once for all steps. Except in a GRU (whose ``b_hn`` sits inside ``r * (...)``)
    ``b_hh`` joins ``b_ih`` in the projection, made once for all time steps."""
    w_hr_t = None if w_hr is None else w_hr.t()  # type: ignore[attr-defined]
    if mode != "GRU" and b_ih is not None and b_hh is not None:
        return b_ih + b_hh, (w_hh.t(), None, w_hr_t)  # type: ignore[attr-defined]
    return b_ih, (w_hh.t(), b_hh, w_hr_t)  # type: ignore[attr-defined]


def project(input: Tensor, w_ih: Tensor, b_ih: Tensor | None) -> Tensor:
    """``input W_ih^T + b_ih`` over all leading dims at once."""
    out = input.matmul(w_ih.t())  # type: ignore[attr-defined]
    return out if b_ih is None else out + b_ih


def run_direction(step: Step, gis: Sequence[Tensor], state: State, weights: Sequence[Tensor | None],
                  reverse: bool) -> tuple[list[Tensor], State]:
    """Run ``step`` over the time steps ``gis`` (backwards with ``reverse``): the hidden
    states in time order, and the last state.

    A step with fewer rows than the state (a packed batch, sorted by decreasing length)
    advances only the first rows; the others keep their state: forwards, the final state
    of a sequence that has ended; backwards, the initial state of one not yet begun."""
    outputs: list[Tensor] = []
    for gi in (reversed(gis) if reverse else gis):
        rows = gi.shape[0]
        if rows == state[0].shape[0]:
            state = step(gi, state, weights)
            outputs.append(state[0])
            continue
        new = step(gi, tuple(s[:rows] for s in state), weights)
        state = tuple(cat([n, s[rows:]], 0) for n, s in zip(new, state))
        outputs.append(new[0])
    if reverse:
        outputs.reverse()
    return outputs, state


def composite_direction(mode: str, input: Tensor, batch_sizes: list[int] | None, state: State,
                        weights: Sequence[Tensor | None], reverse: bool) -> tuple[Tensor, State]:
    """One layer and direction, composed from recorded ops (see ``run_layers``): the
    output and the final state."""
    w_ih, b_ih, w_hh, b_hh, w_hr = weights
    input_bias, hidden_weights = step_weights(mode, b_ih, w_hh, b_hh, w_hr)  # type: ignore[arg-type]
    gi = project(input, w_ih, input_bias)  # type: ignore[arg-type]
    gis = gi.unbind(0) if batch_sizes is None else gi.split(batch_sizes, 0)  # type: ignore[attr-defined]
    steps, final = run_direction(STEPS[mode], gis, state, hidden_weights, reverse)
    return (stack(steps, 0) if batch_sizes is None else cat(steps, 0)), final


def run_layers(mode: str, input: Tensor, batch_sizes: list[int] | None, states: Sequence[State],
               layer_weights: Sequence[Sequence[Tensor | None]], num_directions: int, dropout_p: float,
               training: bool) -> tuple[Tensor, list[State]]:
    """A stack of recurrent layers over a time-major ``input`` ``(seq, batch, features)``,
    or over the ``data`` of a packed batch with its ``batch_sizes``.

    ``states[k]`` and ``layer_weights[k]`` (``w_ih, b_ih, w_hh, b_hh, w_hr``) belong to layer
    ``k // num_directions``, direction ``k % num_directions`` (PyTorch's order). Dropout
    applies to the output of every layer but the last, while training. Returns the last
    layer's output (same layout as ``input``) and every final state."""
    finals: list[State] = []
    num_layers = len(states) // num_directions
    for layer in range(num_layers):
        outs = []
        for d in range(num_directions):
            k = layer * num_directions + d
            fused = fused_direction(mode, input, batch_sizes, states[k], layer_weights[k], d == 1)
            out, final = composite_direction(mode, input, batch_sizes, states[k], layer_weights[k], d == 1) \
                if fused is None else fused
            outs.append(out)
            finals.append(final)
        input = outs[0] if num_directions == 1 else cat(outs, -1)
        if dropout_p > 0 and training and layer < num_layers - 1:
            input = dropout(input, dropout_p, True)
    return input, finals
