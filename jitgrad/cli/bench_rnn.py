"""Recurrent-layer scenarios for ``python -m jitgrad bench``: the forward and backward of
``nn.LSTM``/``GRU``/``RNN`` over a short sequence at the sizes small recurrent models are
trained at (sequence 50, batch 8, 16 features, hidden 32, float32), in one process with
PyTorch, both at their default thread counts. Timed as the calling thread's CPU time (as
the small-op scenarios): at these sizes both libraries do their work on it (jitgrad's fused
layers hold OpenBLAS to one thread, ``kernels/_blas.py``), and the wall clock of a shared machine
stretches PyTorch's OpenMP regions by whole time slices. The build makes the module and
input and runs them once (PyTorch's first call of a new module prepares its fused kernel);
each timed call runs a fresh forward and its backward."""

from __future__ import annotations

from typing import Any, Callable

Timed = Callable[[], Any]


def _layer(name: str) -> Callable[[Any, bool], Timed]:
    def build(lib: Any, quick: bool) -> Timed:
        seq, batch, features, hidden = (10, 4, 8, 16) if quick else (50, 8, 16, 32)
        module = getattr(lib.nn, name)(features, hidden)
        x = lib.randn(seq, batch, features, requires_grad=True)

        def forward_backward() -> None:
            out, _ = module(x)
            out.sum().backward()
        forward_backward()  # (untimed: PyTorch prepares its fused kernel per new module)
        return forward_backward
    return build


LAYERS: list[tuple[str, Callable[[Any, bool], Timed]]] = [
    ("rnn.lstm.forward_backward", _layer("LSTM")),
    ("rnn.gru.forward_backward", _layer("GRU")),
    ("rnn.rnn.forward_backward", _layer("RNN")),
]
