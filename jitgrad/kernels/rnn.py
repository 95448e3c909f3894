"""The steps of the fused recurrent layers, forward and backward (``_rnn_jit.py`` says
what they compute), loaded on first use (``_lazy.py``). Called through
``LazyKernel.entry``: C-contiguous 1-D float32/float64 buffers and the hidden size.
"""
from __future__ import annotations

from ._lazy import LazyKernel

lstm_backward = LazyKernel("_rnn_jit", "lstm_backward_step")
gru_backward = LazyKernel("_rnn_jit", "gru_backward_step")
tanh_backward = LazyKernel("_rnn_jit", "tanh_backward_step")
relu_backward = LazyKernel("_rnn_jit", "relu_backward_step")
lstm_gates = LazyKernel("_rnn_jit", "lstm_gates_step")
lstm_cell = LazyKernel("_rnn_jit", "lstm_cell_step")
gru_gates = LazyKernel("_rnn_jit", "gru_gates_step")
gru_hidden = LazyKernel("_rnn_jit", "gru_hidden_step")
