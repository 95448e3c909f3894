"""``RNNCell``, ``LSTMCell``, ``GRUCell``: one time step of the recurrent layers, with
PyTorch's parameters (``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``), init, checks
and messages. A step runs fused as one node (``nn/_recurrent_fused.py``) where it can, else
composed by ``nn/_recurrent.py``."""

from __future__ import annotations

import math
from typing import Any

from ... import creation
from ...tensor import Tensor
from .. import init
from .._recurrent import STEPS, State, project, step_weights
from .._recurrent_fused import fused_direction
from ..parameter import Parameter
from .module import Module


def reset_uniform(module: Module, hidden_size: int) -> None:
    """PyTorch's init of the recurrent layers and cells: every parameter uniform in
    ``±1/sqrt(hidden_size)``."""
    bound = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -bound, bound)


class RNNCellBase(Module):
    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(creation.empty((num_chunks * hidden_size, input_size), dtype=dtype))
        self.weight_hh = Parameter(creation.empty((num_chunks * hidden_size, hidden_size), dtype=dtype))
        if bias:
            self.bias_ih = Parameter(creation.empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(creation.empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_uniform(self, self.hidden_size)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _step(self, mode: str, input: Tensor, state: State) -> State:
        """Check sizes as PyTorch (input features, then each state's batch and features) and
        run one step on 2-D ``input`` and ``state``."""
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}")
        for k, s in enumerate(state):
            if s.shape[0] != input.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{k} batch size {s.shape[0]}")
            if s.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {s.shape[1]}, expected {self.hidden_size}")
        fused = fused_direction(mode, input, [input.shape[0]], state,
                                (self.weight_ih, self.bias_ih, self.weight_hh, self.bias_hh, None), False)
        if fused is not None:  # (one step of a packed batch: the step's new state)
            return fused[1]
        input_bias, weights = step_weights(mode, self.bias_ih, self.weight_hh, self.bias_hh)
        return STEPS[mode](project(input, self.weight_ih, input_bias), state, weights)

    def _one_state(self, mode: str, input: Tensor, hx: Tensor | None) -> Tensor:
        """Forward of the cells with one state (RNN, GRU): 1-D or 2-D input and hidden."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)  # type: ignore[attr-defined]
        if hx is None:
            hx = creation.zeros((input.shape[0], self.hidden_size), dtype=input.dtype)
        elif not batched:
            hx = hx.unsqueeze(0)  # type: ignore[attr-defined]
        (h,) = self._step(mode, input, (hx,))
        return h if batched else h.squeeze(0)  # type: ignore[attr-defined]


class RNNCell(RNNCellBase):
    """``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ``relu``)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        modes = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}
        if self.nonlinearity not in modes:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return self._one_state(modes[self.nonlinearity], input, hx)


class GRUCell(RNNCellBase):
    """One GRU step, gates ``r, z, n`` (PyTorch's order and formula)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        return self._one_state("GRU", input, hx)


class LSTMCell(RNNCellBase):
    """One LSTM step, gates ``i, f, g, o``; takes and returns ``(h, c)``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for k, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{k}] to be 1D or 2D, got {value.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)  # type: ignore[attr-defined]
        if hx is None:
            zeros = creation.zeros((input.shape[0], self.hidden_size), dtype=input.dtype)
            hx = (zeros, zeros)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))  # type: ignore[attr-defined]
        h, c = self._step("LSTM", input, tuple(hx))
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))  # type: ignore[attr-defined]
