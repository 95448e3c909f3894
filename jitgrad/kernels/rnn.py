"""The steps of backpropagation through time of the fused recurrent layers (``_rnn_jit.py``
says what they compute), loaded on first use (``_lazy.py``). Called through
``LazyKernel.entry``: C-contiguous 1-D float32/float64 buffers and the hidden size.
"""
from __future__ import annotations

from ._lazy import LazyKernel

lstm_backward = LazyKernel("_rnn_jit", "lstm_backward_step")
gru_backward = LazyKernel("_rnn_jit", "gru_backward_step")
tanh_backward = LazyKernel("_rnn_jit", "tanh_backward_step")
relu_backward = LazyKernel("_rnn_jit", "relu_backward_step")
