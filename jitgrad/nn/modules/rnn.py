"""``RNN``, ``LSTM``, ``GRU``: PyTorch's recurrent layers (parameter names, shapes, init, checks
and messages), run by ``nn/_recurrent.py``. The cells are in ``rnn_cell.py``."""

from __future__ import annotations

import numbers
import warnings
from typing import Any

from ... import creation
from ...ops.stacking import stack
from ...tensor import Tensor
from .._recurrent import State, run_layers
from ..parameter import Parameter
from .module import Module
from .rnn_cell import reset_uniform

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _check_type(name: str, value: Any, kind: type) -> None:
    if not isinstance(value, kind):
        raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")


class RNNBase(Module):
    """What ``RNN``, ``LSTM`` and ``GRU`` share: per layer and direction the parameters
    ``weight_ih_l{k}``, ``weight_hh_l{k}``, ``bias_ih_l{k}``, ``bias_hh_l{k}`` (and the LSTM
    projection ``weight_hr_l{k}``), ``_reverse`` for the backward direction, all uniform in
    ``±1/sqrt(hidden_size)`` from jitgrad's generator."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:  # type: ignore[operator]
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:  # type: ignore[operator]
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        _check_type("bias", bias, bool)
        _check_type("batch_first", batch_first, bool)
        _check_type("input_size", input_size, int)
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        _check_type("hidden_size", hidden_size, int)
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)  # type: ignore[arg-type]
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        self._register_weights(_GATES[mode] * hidden_size, dtype)
        self.reset_parameters()

    def _register_weights(self, gate_size: int, dtype: Any) -> None:
        directions = 2 if self.bidirectional else 1
        out_size = self.proj_size or self.hidden_size
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(self.num_layers):
            for direction in range(directions):
                suffix = f"l{layer}" + ("_reverse" if direction else "")
                in_size = self.input_size if layer == 0 else out_size * directions
                shapes = {f"weight_ih_{suffix}": (gate_size, in_size),
                          f"weight_hh_{suffix}": (gate_size, out_size)}
                if self.bias:
                    shapes.update({f"bias_ih_{suffix}": (gate_size,), f"bias_hh_{suffix}": (gate_size,)})
                if self.proj_size:
                    shapes[f"weight_hr_{suffix}"] = (self.proj_size, self.hidden_size)
                for name, shape in shapes.items():
                    setattr(self, name, Parameter(creation.empty(shape, dtype=dtype)))
                self._flat_weights_names.extend(shapes)
                self._all_weights.append(list(shapes))

    @property
    def _flat_weights(self) -> list[Tensor]:
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op (PyTorch packs the weights for cuDNN here)."""

    def reset_parameters(self) -> None:
        reset_uniform(self, self.hidden_size)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # -- forward ----------------------------------------------------------------------------
    def _layer_weights(self) -> list[tuple[Tensor | None, ...]]:
        """Per layer and direction ``(w_ih, b_ih, w_hh, b_hh, w_hr)`` (None where absent)."""
        out = []
        for names in self._all_weights:
            w = {name.split("_l")[0]: getattr(self, name) for name in names}
            out.append((w["weight_ih"], w.get("bias_ih"), w["weight_hh"], w.get("bias_hh"), w.get("weight_hr")))
        return out

    def _check_input(self, input: Tensor) -> None:
        ours, theirs = f"jitgrad.{self._flat_weights[0].dtype}", f"jitgrad.{input.dtype}"
        if ours != theirs:
            raise ValueError(f"RNN input dtype ({theirs}) does not match weight dtype ({ours}). "
                             f"Convert input: input.to({ours}), or convert model: model.to({theirs})")
        if input.dim() != 3:
            raise RuntimeError(f"input must have 3 dimensions, got {input.dim()}")
        if self.input_size != input.shape[-1]:
            raise RuntimeError("input.size(-1) must be equal to input_size. "
                               f"Expected {self.input_size}, got {input.shape[-1]}")

    def _expected_size(self, input: Tensor, size: int) -> tuple[int, int, int]:
        batch = input.shape[0] if self.batch_first else input.shape[1]
        return (self.num_layers * (2 if self.bidirectional else 1), batch, size)

    def _check_hidden(self, hx: Tensor, expected: tuple[int, int, int], msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(msg.format(expected, list(hx.shape)))

    def _zeros(self, input: Tensor, size: int) -> Tensor:
        return creation.zeros(self._expected_size(input, size), dtype=input.dtype)

    def _batched(self, input: Tensor) -> bool:
        if input.dim() not in (2, 3):
            name = "RNN" if self.mode.startswith("RNN") else self.mode
            got = f"{input.dim()}D tensor" if name == "RNN" else f"{input.dim()}D"
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {got} instead")
        return input.dim() == 3

    def _run(self, input: Tensor, states: list[Tensor]) -> tuple[Tensor, list[Tensor]]:
        """Run the layers from the per-state stacks ``states`` (``h`` or ``h, c``), each of
        shape ``(layers * directions, batch, size)``; returns the output (in the input's batch
        layout) and the final stacks."""
        if input.shape[1 if self.batch_first else 0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        x = input.transpose(0, 1) if self.batch_first else input  # type: ignore[attr-defined]
        per_layer: list[State] = list(zip(*(s.unbind(0) for s in states)))  # type: ignore[attr-defined]
        out, finals = run_layers(self.mode, x, per_layer, self._layer_weights(),
                                 2 if self.bidirectional else 1, self.dropout, self.training)
        if self.batch_first:
            out = out.transpose(0, 1)  # type: ignore[attr-defined]
        return out, [stack([f[i] for f in finals], 0) for i in range(len(states))]

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """RNN and GRU: ``(output, h_n)`` from ``input`` and the initial ``hx`` (zeros)."""
        batched = self._batched(input)
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)  # type: ignore[attr-defined]
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)  # type: ignore[attr-defined]
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
        if hx is None:
            hx = self._zeros(input, self.hidden_size)
        self._check_input(input)
        self._check_hidden(hx, self._expected_size(input, self.hidden_size))
        out, (h,) = self._run(input, [hx])
        if not batched:
            return out.squeeze(batch_dim), h.squeeze(1)  # type: ignore[attr-defined]
        return out, h


class RNN(RNNBase):
    """Elman RNN: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ``relu``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        modes = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}
        if self.nonlinearity not in modes:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(modes[self.nonlinearity], *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit, gates ``r, z, n`` with ``n = tanh(W_in x + b_in + r (W_hn h + b_hn))``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class LSTM(RNNBase):
    """Long short-term memory, gates ``i, f, g, o``; with ``proj_size`` the hidden state is
    projected by ``weight_hr_l{k}``. ``forward`` takes and returns ``(h, c)``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None  # type: ignore[override]
                ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        batched = self._batched(input)
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)  # type: ignore[attr-defined]
        h_size = self.proj_size or self.hidden_size
        if hx is None:
            hx = (self._zeros(input, h_size), self._zeros(input, self.hidden_size))
        else:
            want = 3 if batched else 2
            if hx[0].dim() != want or hx[1].dim() != want:
                kind = "batched 3-D input, hx and cx should also be 3-D" if batched else \
                    "unbatched 2-D input, hx and cx should also be 2-D"
                raise RuntimeError(f"For {kind} but got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            if not batched:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))  # type: ignore[attr-defined]
        self._check_input(input)
        self._check_hidden(hx[0], self._expected_size(input, h_size), "Expected hidden[0] size {}, got {}")
        self._check_hidden(hx[1], self._expected_size(input, self.hidden_size), "Expected hidden[1] size {}, got {}")
        out, (h, c) = self._run(input, list(hx))
        if not batched:
            return out.squeeze(batch_dim), (h.squeeze(1), c.squeeze(1))  # type: ignore[attr-defined]
        return out, (h, c)
