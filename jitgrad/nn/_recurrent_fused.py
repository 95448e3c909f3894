"""Fused recurrent layers: one layer and direction of ``RNN``, ``LSTM`` or ``GRU`` run over
the whole sequence in NumPy, recorded as ONE autograd node, ``MkldnnRnnLayerBackward0``
(the node PyTorch records for its own fused CPU layer: edges to ``input, weight_ih,
weight_hh, bias_ih, bias_hh, hx[, cx]``, outputs ``output, h_n[, c_n]``), whose backward
is backpropagation through time written out next to the forward.

Why: the composite path (``_recurrent.py``) records about a dozen small ops per time step,
and the engine's cost per node dwarfs their arithmetic at the sizes people train small
recurrent models at (an LSTM of 50 steps was ~25x PyTorch). Here a step is a product,
NumPy's ``tanh``s and a kernel or two (``kernels/_rnn_jit.py``) for the rest, and nothing
is recorded per step; the products run on one BLAS thread where threads cannot pay
(``_blas.py``).

The forward computes the composite path's operations in its order (the projection of every
step at once, then per step ``h W_hh^T``, the sigmoid kernel's formula, NumPy's ``tanh``,
the products), so its values are the composite's bit for bit. The backward sums over time
in another order than the composite's graph does, so the gradients agree to rounding.
``tests/test_nn_rnn_fused.py`` compares both paths with each other and with PyTorch.

``fused_direction`` returns None where the composite path runs instead: an LSTM with
``proj_size``, dtypes other than float32/float64, anomaly mode, saved-tensor hooks (the
steps' intermediates would bypass them) and ``jitgrad.compile`` tracing. With
``create_graph`` the node's backward rebuilds the composite graph from its saved inputs and
differentiates that, so higher derivatives are the composite path's.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import _tracing, dtypes
from .._quiet import quiet
from ..autograd import anomaly_mode
from ..autograd.engine import grad as autograd_grad
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.graph import needs_grad, record
from ..autograd.node import SAVED_HOOKS, Grads, SavingNode
from ..kernels import rnn as _rnn_kernels
from ..geometry import contiguous_strides
from ..ops.operands import fresh_result
from ..tensor import Tensor
from ..kernels._blas import one_blas_thread, one_thread_pays

State = tuple[Tensor, ...]
_FLOATS = (dtypes.float32, dtypes.float64)
_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class _Plan:
    """Where each step's rows are in the ``(rows, features)`` layout of the layer's input and
    output: step ``k`` (in processing order) is ``rows[k]`` rows from ``offsets[k]``."""

    def __init__(self, steps: int, batch: int, batch_sizes: list[int] | None, reverse: bool) -> None:
        sizes = [batch] * steps if batch_sizes is None else list(batch_sizes)
        starts, total = [], 0
        for size in sizes:
            starts.append(total)
            total += size
        if reverse:
            starts.reverse()
            sizes.reverse()
        self.offsets, self.rows, self.total = starts, sizes, total
        self.batch = batch
        self.largest_product = 0  # multiply-adds of the layer's largest product (``_blas.py``)


# -- the steps, forward: values in the composite path's order ------------------------------
def _forward(mode: str, gi: np.ndarray, h0: np.ndarray, c0: np.ndarray | None, w_hh: np.ndarray,
             b_hh: np.ndarray | None, plan: _Plan, keep: bool) -> tuple[np.ndarray, list[np.ndarray], dict[str, Any]]:
    """Run the steps over the projected input ``gi`` ``(rows, gates)``: the output
    ``(rows, hidden)``, the final state, and (``keep``) what the backward reads. The
    elementwise parts between NumPy's products and ``tanh``s are kernels
    (``kernels/_rnn_jit.py``) computing the composite path's operations in its order."""
    n, size = plan.total, h0.shape[1]
    dtype = gi.dtype
    w_t = w_hh.T
    out = np.empty((n, size), dtype)
    h = h0.copy()
    c = None if c0 is None else c0.copy()
    saved: dict[str, Any] = {}
    gates = _GATES[mode] * size
    if keep:
        saved["h_prev"] = np.empty((n, size), dtype)
    if mode in ("LSTM", "GRU"):  # (r, z, n or i, f, g, o, in the backward's ``acts``)
        acts = saved["acts"] = np.empty((n, gates), dtype) if keep else np.empty((plan.batch, gates), dtype)
        saved["c_prev" if mode == "LSTM" else "h_n"] = extra = np.empty((n if keep else 0, size), dtype)
        if mode == "LSTM":
            saved["tanh_c"] = tanh_c = np.empty((n, size), dtype) if keep else None
            gates_step, cell_step = _entries(dtype, _rnn_kernels.lstm_gates, _rnn_kernels.lstm_cell)
            c_flat = c.reshape(-1)  # type: ignore[union-attr]
        else:
            gates_step, hidden_step = _entries(dtype, _rnn_kernels.gru_gates, _rnn_kernels.gru_hidden)
            bias = np.empty(0, dtype) if b_hh is None else np.ascontiguousarray(b_hh)  # (a kernel buffer)
            pre_n = np.empty((plan.batch, size), dtype)
            h_flat = h.reshape(-1)
    for off, rows in zip(plan.offsets, plan.rows):
        span = slice(off, off + rows)
        block = span if keep else slice(0, rows)
        hp = h[:rows]
        if keep:
            saved["h_prev"][span] = hp
        hg = np.matmul(hp, w_t)
        if mode == "LSTM":
            a = acts[block]
            gates_step(gi[span].reshape(-1), hg.reshape(-1), a.reshape(-1), size)
            g = np.tanh(hg[:, 2 * size:3 * size])
            cell_step(a.reshape(-1), g.reshape(-1), c_flat[:rows * size], extra[block].reshape(-1), size)
            if keep:
                tc = np.tanh(c[:rows], out=tanh_c[span])  # type: ignore[index]
            else:
                tc = np.tanh(c[:rows])  # type: ignore[index]
            np.multiply(a[:, 3 * size:], tc, out=out[span])
            h[:rows] = out[span]
        elif mode == "GRU":
            a = acts[block]
            gates_step(gi[span].reshape(-1), hg.reshape(-1), bias, a.reshape(-1), pre_n[:rows].reshape(-1), size)
            if keep:
                extra[span] = hg[:, 2 * size:]
            nn = np.tanh(pre_n[:rows])
            hidden_step(nn.reshape(-1), a.reshape(-1), h_flat[:rows * size], out[span].reshape(-1), size)
        elif mode == "RNN_TANH":
            h[:rows] = np.tanh(gi[span] + hg, out=out[span])
        else:
            h[:rows] = np.maximum(gi[span] + hg, np.zeros((), dtype), out=out[span])
    if keep and mode.startswith("RNN"):
        saved["acts"] = out.copy()  # (the output tensor's buffer is the caller's to write)
    return out, [h] if c is None else [h, c], saved


def _entries(dtype: Any, *kernels: Any) -> list[Any]:
    """The kernels' compiled functions for ``dtype`` (``LazyKernel.entry``)."""
    return [kernel._entries.get(dtype) or kernel.entry(dtype) for kernel in kernels]


# -- the steps, backward: through time, then the weights' gradients in three products ----------
def _backward(mode: str, saved: dict[str, Any], g_out: np.ndarray | None,
              g_state: list[np.ndarray | None], w_hh: np.ndarray, plan: _Plan
              ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """The gradients of the projected input ``gi`` and of the hidden gates ``h W_hh^T (+
    b_hh)`` (the same array but in a GRU), and of the initial state. A step's elementwise
    part is one kernel call (``kernels/_rnn_jit.py``; tests/naive.py has it in NumPy)."""
    n, size = saved["h_prev"].shape
    dtype = saved["h_prev"].dtype
    dh = np.zeros((plan.batch, size), dtype) if g_state[0] is None else np.array(g_state[0], dtype)
    dc = None
    if mode == "LSTM":
        dc = np.zeros((plan.batch, size), dtype) if g_state[1] is None else np.array(g_state[1], dtype)
    d_gi = np.empty((n, _GATES[mode] * size), dtype)
    d_hg = d_gi if mode != "GRU" else np.empty_like(d_gi)
    kernel = _STEP_KERNELS[mode]
    step = kernel._entries.get(dtype) or kernel.entry(dtype)
    no_out = np.empty(0, dtype)
    flat_out = no_out if g_out is None else np.ascontiguousarray(g_out, dtype).reshape(-1)
    flat_dh = dh.reshape(-1)
    for off, rows in zip(reversed(plan.offsets), reversed(plan.rows)):
        span = slice(off, off + rows)
        d = flat_dh[:rows * size]
        out = no_out if g_out is None else flat_out[off * size:(off + rows) * size]
        if mode == "LSTM":
            step(d, out, dc.reshape(-1)[:rows * size], _flat(saved["acts"], span),  # type: ignore[union-attr]
                 _flat(saved["tanh_c"], span), _flat(saved["c_prev"], span), _flat(d_gi, span), size)
            np.matmul(d_gi[span], w_hh, out=dh[:rows])
        elif mode == "GRU":
            step(d, out, _flat(saved["acts"], span), _flat(saved["h_n"], span), _flat(saved["h_prev"], span),
                 _flat(d_gi, span), _flat(d_hg, span), size)
            dh[:rows] += np.matmul(d_hg[span], w_hh)
        else:
            step(d, out, _flat(saved["acts"], span), _flat(d_gi, span), size)
            np.matmul(d_gi[span], w_hh, out=dh[:rows])
    return d_gi, d_hg, [dh] if dc is None else [dh, dc]


def _flat(rows: np.ndarray, span: slice) -> np.ndarray:
    """The rows ``span`` of a C-contiguous 2-D array as a flat view (a kernel's buffer)."""
    return rows[span].reshape(-1)


_STEP_KERNELS = {"LSTM": _rnn_kernels.lstm_backward, "GRU": _rnn_kernels.gru_backward,
                 "RNN_TANH": _rnn_kernels.tanh_backward, "RNN_RELU": _rnn_kernels.relu_backward}


class MkldnnRnnLayerBackward0(SavingNode):
    """One layer and direction (``fused_direction``). Saves its inputs (version checks,
    the freed-graph error) and the steps' intermediates (``_work``, freed with them)."""

    def __init__(self, mode: str, batch_sizes: list[int] | None, reverse: bool, plan: _Plan,
                 work: dict[str, Any]) -> None:
        super().__init__()
        self.mode, self.batch_sizes, self.reverse, self.plan = mode, batch_sizes, reverse, plan
        self._work: dict[str, Any] | None = work

    def release_variables(self) -> None:
        super().release_variables()
        self._work = None

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        inputs = self.unpack()  # (raises if a saved input changed or the graph was freed)
        if _grad_state.enabled:  # create_graph: differentiate the composite path's graph
            return self._composite(inputs, grads)
        x, w_ih, w_hh, b_ih, b_hh = inputs[:5]
        work = self._work
        rows, size = work["h_prev"].shape
        g_out = None if grads[0] is None else grads[0]._numpy().reshape(rows, size)
        g_state = [None if g is None else g._numpy() for g in grads[1:]]
        result: list[Tensor | None] = [None] * len(self._next)
        need = self.needs_input_grad
        with quiet(), one_blas_thread(one_thread_pays(self.plan.largest_product)):
            d_gi, d_hg, d_state = _backward(self.mode, work, g_out, g_state, w_hh._numpy(), self.plan)
            if need(0):
                result[0] = _wrap(np.matmul(d_gi, w_ih._numpy()).reshape(x._sizes))
            if need(1):
                result[1] = _wrap(np.matmul(d_gi.T, x._numpy().reshape(rows, x._sizes[-1])))
            if need(2):
                result[2] = _wrap(np.matmul(d_hg.T, work["h_prev"]))
            if b_ih is not None and need(3):
                result[3] = _wrap(d_gi.sum(0))
            if b_hh is not None and need(4):
                result[4] = _wrap(d_hg.sum(0))
            for k, d in enumerate(d_state):
                if need(5 + k):
                    result[5 + k] = _wrap(d)
        return tuple(result)

    def _composite(self, inputs: tuple[Any, ...], grads: Grads) -> tuple[Tensor | None, ...]:
        """The gradients as the composite path's graph gives them, recorded (``create_graph``):
        that graph is rebuilt from the saved inputs (through aliases, so an input given twice
        gets each use's gradient) and differentiated."""
        from ._recurrent import composite_direction  # (that module imports this one)

        wanted = [k for k, t in enumerate(inputs) if t is not None and self.needs_input_grad(k)]
        alias = list(inputs)
        for k in wanted:
            alias[k] = inputs[k].view_as(inputs[k])
        x, w_ih, w_hh, b_ih, b_hh, *state = alias
        out, final = composite_direction(self.mode, x, self.batch_sizes, tuple(state),
                                         (w_ih, b_ih, w_hh, b_hh, None), self.reverse)
        pairs = [(o, g) for o, g in zip((out, *final), grads) if g is not None]
        got = autograd_grad([o for o, _ in pairs], [alias[k] for k in wanted], [g for _, g in pairs],
                            create_graph=True, allow_unused=True)
        result: list[Tensor | None] = [None] * len(self._next)
        for k, g in zip(wanted, got):
            result[k] = g
        return tuple(result)


def _wrap(values: np.ndarray) -> Tensor:
    """A tensor owning ``values`` (an array just computed here, nothing else holds it)."""
    values = np.ascontiguousarray(values)
    return fresh_result(values.reshape(-1), values.shape, contiguous_strides(values.shape))


def usable(tensors: Sequence[Tensor | None], w_hr: Tensor | None) -> bool:
    """Whether the fused layer may run (module docstring): else the composite path does."""
    if w_hr is not None or anomaly_mode.enabled or SAVED_HOOKS.stack or _tracing.ACTIVE is not None:
        return False
    for t in tensors:  # (mixed dtypes: the composite path's error)
        if t is not None and (not isinstance(t, Tensor) or t.dtype != tensors[0].dtype):  # type: ignore[union-attr]
            return False
    return tensors[0].dtype in _FLOATS  # type: ignore[union-attr]


def fused_direction(mode: str, input: Tensor, batch_sizes: list[int] | None, state: State,
                    weights: Sequence[Tensor | None], reverse: bool) -> tuple[Tensor, State] | None:
    """One layer and direction over a time-major ``input`` ``(seq, batch, features)`` (or a
    packed batch's data with its ``batch_sizes``) from ``state`` (``h`` or ``h, c``), with
    ``weights`` ``(w_ih, b_ih, w_hh, b_hh, w_hr)``: the output (``input``'s layout) and the
    final state, recorded as one ``MkldnnRnnLayerBackward0``; None where the composite path
    must run instead."""
    w_ih, b_ih, w_hh, b_hh, w_hr = weights
    tensors = (input, w_ih, w_hh, b_ih, b_hh, *state)
    if not usable(tensors, w_hr):
        return None
    keep = needs_grad(*tensors)
    if batch_sizes is None:
        steps, batch = input._sizes[0], input._sizes[1]
    else:
        steps, batch = len(batch_sizes), batch_sizes[0]
    plan = _Plan(steps, batch, batch_sizes, reverse)
    # (the projection and the weights' gradients: rows x gates x features or hidden)
    plan.largest_product = plan.total * w_ih._sizes[0] * max(w_ih._sizes[1], w_hh._sizes[1])  # type: ignore[union-attr]
    with quiet(), one_blas_thread(one_thread_pays(plan.largest_product)):
        gi = np.matmul(input._numpy().reshape(plan.total, input._sizes[-1]), w_ih._numpy().T)  # type: ignore[union-attr]
        step_bias = b_hh
        if b_ih is not None:
            bias = b_ih._numpy()
            if mode != "GRU" and b_hh is not None:  # (joined as the composite path joins them)
                bias, step_bias = bias + b_hh._numpy(), None
            gi = gi + bias
        out, final, work = _forward(mode, gi, state[0]._numpy(), state[1]._numpy() if len(state) > 1 else None,
                                    w_hh._numpy(), None if step_bias is None else step_bias._numpy(), plan, keep)  # type: ignore[union-attr]
    result = _wrap(out.reshape(steps, batch, out.shape[1]) if batch_sizes is None else out)
    finals = tuple(_wrap(f) for f in final)
    if keep:
        node = MkldnnRnnLayerBackward0(mode, batch_sizes, reverse, plan, work)
        record(node, tensors, (result, *finals))
        node.save(*tensors)
    return result, finals
