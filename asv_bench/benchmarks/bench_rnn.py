"""Recurrent layers: the forward and backward of ``nn.LSTM``/``GRU``/``RNN`` over a sequence
of 50 steps, batch 8, 16 features, hidden 32 (float32; the sizes of
``python -m jitgrad bench``'s ``rnn.*`` scenarios), jitgrad beside torch.

``setup`` makes the module and input and runs them once: kernels load, and PyTorch prepares
its fused LSTM kernel for the new module, untimed. Each timed call is a fresh forward and
its backward. The torch twins are skipped (``NotImplementedError``) without torch.
Defined here, not imported from ``jitgrad.cli``, so the suite can run against older commits.
"""

from __future__ import annotations

import jitgrad

try:
    import torch
except ImportError:  # the torch twins are skipped
    torch = None

SEQ, BATCH, FEATURES, HIDDEN = 50, 8, 16, 32


class RecurrentForwardBackward:
    params = [["LSTM", "GRU", "RNN"], ["jitgrad", "torch"]]
    param_names = ["layer", "library"]
    repeat = (5, 30, 20.0)

    def setup(self, layer: str, library: str) -> None:
        if library == "torch" and torch is None:
            raise NotImplementedError("torch is not installed")
        lib = jitgrad if library == "jitgrad" else torch
        lib.manual_seed(0)
        self.module = getattr(lib.nn, layer)(FEATURES, HIDDEN)
        self.x = lib.randn(SEQ, BATCH, FEATURES, requires_grad=True)
        self.time_forward_backward(layer, library)

    def time_forward_backward(self, layer: str, library: str) -> None:
        out, _ = self.module(self.x)
        out.sum().backward()

    def time_forward(self, layer: str, library: str) -> None:
        self.module(self.x)
