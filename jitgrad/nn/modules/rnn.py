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
from ..utils.rnn import PackedSequence
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

    def _state_sizes(self) -> list[int]:
        """The last dim of each state: ``h`` (``proj_size`` if set), and ``c`` for LSTM."""
        h = self.proj_size or self.hidden_size
        return [h, self.hidden_size] if self.mode == "LSTM" else [h]

    def _check_input(self, input: Tensor, packed: bool) -> None:
        ours, theirs = f"jitgrad.{self._flat_weights[0].dtype}", f"jitgrad.{input.dtype}"
        if ours != theirs:
            raise ValueError(f"RNN input dtype ({theirs}) does not match weight dtype ({ours}). "
                             f"Convert input: input.to({ours}), or convert model: model.to({theirs})")
        if input.dim() != 2 + (not packed):
            raise RuntimeError(f"input must have {2 + (not packed)} dimensions, got {input.dim()}")
        if self.input_size != input.shape[-1]:
            raise RuntimeError("input.size(-1) must be equal to input_size. "
                               f"Expected {self.input_size}, got {input.shape[-1]}")

    def _check_states(self, states: list[Tensor], batch: int) -> None:
        for k, (hx, size) in enumerate(zip(states, self._state_sizes())):
            expected = (self.num_layers * (2 if self.bidirectional else 1), batch, size)
            if tuple(hx.shape) != expected:
                which = "hidden" if len(states) == 1 else f"hidden[{k}]"
                raise RuntimeError(f"Expected {which} size {expected}, got {list(hx.shape)}")

    def _zeros(self, batch: int, dtype: Any) -> list[Tensor]:
        directions = 2 if self.bidirectional else 1
        return [creation.zeros((self.num_layers * directions, batch, size), dtype=dtype) for size in self._state_sizes()]

    def _run(self, x: Tensor, states: list[Tensor], batch_sizes: list[int] | None) -> tuple[Tensor, list[Tensor]]:
        """Run the layers on a time-major ``x`` (or packed data with ``batch_sizes``) from the
        state stacks ``states`` (``h`` or ``h, c``, each ``(layers * directions, batch,
        size)``); the output and the final stacks."""
        per_layer: list[State] = list(zip(*(s.unbind(0) for s in states)))  # type: ignore[attr-defined]
        out, finals = run_layers(self.mode, x, batch_sizes, per_layer, self._layer_weights(),
                                 2 if self.bidirectional else 1, self.dropout, self.training)
        return out, [stack([f[i] for f in finals], 0) for i in range(len(states))]

    def _forward_padded(self, input: Tensor, hx: list[Tensor] | None) -> tuple[Tensor, list[Tensor]]:
        """``input`` of 3 dims, ``hx`` None or of 3 dims: the checks, then the layers."""
        batch_dim = 0 if self.batch_first else 1
        states = self._zeros(input.shape[batch_dim], input.dtype) if hx is None else hx
        self._check_input(input, packed=False)
        self._check_states(states, input.shape[batch_dim])
        if input.shape[1 - batch_dim] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        x = input.transpose(0, 1) if self.batch_first else input  # type: ignore[attr-defined]
        out, finals = self._run(x, states, None)
        return (out.transpose(0, 1) if self.batch_first else out), finals  # type: ignore[attr-defined]

    def _forward_packed(self, input: PackedSequence, hx: list[Tensor] | None) -> tuple[PackedSequence, list[Tensor]]:
        """A packed batch: the initial states are given in the caller's batch order (sorted
        here), the final ones returned in it."""
        data, batch_sizes, sorted_indices, unsorted_indices = input
        sizes = [int(b) for b in batch_sizes.numpy()]
        if hx is None:
            states = self._zeros(sizes[0], data.dtype)
        else:
            states = [h if sorted_indices is None else h.index_select(1, sorted_indices) for h in hx]  # type: ignore[attr-defined]
        self._check_input(data, packed=True)
        self._check_states(states, sizes[0])
        out, finals = self._run(data, states, sizes)
        if unsorted_indices is not None:
            finals = [f.index_select(1, unsorted_indices) for f in finals]  # type: ignore[attr-defined]
        return PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices), finals

    def _batched(self, input: Tensor) -> bool:
        if input.dim() not in (2, 3):
            name = "RNN" if self.mode.startswith("RNN") else self.mode
            got = f"{input.dim()}D tensor" if name == "RNN" else f"{input.dim()}D"
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {got} instead")
        return input.dim() == 3

    def forward(self, input: Tensor | PackedSequence, hx: Tensor | None = None) -> tuple[Any, Tensor]:
        """RNN and GRU: ``(output, h_n)`` from ``input`` (a tensor or a ``PackedSequence``)
        and the initial ``hx`` (zeros if None)."""
        if isinstance(input, PackedSequence):
            packed, (h,) = self._forward_packed(input, None if hx is None else [hx])
            return packed, h
        batched = self._batched(input)
        batch_dim = 0 if self.batch_first else 1
        if hx is not None and hx.dim() != 2 + batched:
            kind = "batched 3-D input, hx should also be 3-D" if batched else \
                "unbatched 2-D input, hx should also be 2-D"
            raise RuntimeError(f"For {kind} but got {hx.dim()}-D tensor")
        if not batched:
            input = input.unsqueeze(batch_dim)  # type: ignore[attr-defined]
            hx = None if hx is None else hx.unsqueeze(1)  # type: ignore[attr-defined]
        out, (h,) = self._forward_padded(input, None if hx is None else [hx])
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

    def forward(self, input: Tensor | PackedSequence, hx: tuple[Tensor, Tensor] | None = None  # type: ignore[override]
                ) -> tuple[Any, tuple[Tensor, Tensor]]:
        """``(output, (h_n, c_n))`` from ``input`` (a tensor or a ``PackedSequence``) and the
        initial ``(h_0, c_0)`` (zeros if None)."""
        if isinstance(input, PackedSequence):
            packed, (h, c) = self._forward_packed(input, None if hx is None else list(hx))
            return packed, (h, c)
        batched = self._batched(input)
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)  # type: ignore[attr-defined]
        if hx is not None:
            if hx[0].dim() != 2 + batched or hx[1].dim() != 2 + batched:
                kind = "batched 3-D input, hx and cx should also be 3-D" if batched else \
                    "unbatched 2-D input, hx and cx should also be 2-D"
                raise RuntimeError(f"For {kind} but got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            if not batched:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))  # type: ignore[attr-defined]
        out, (h, c) = self._forward_padded(input, None if hx is None else list(hx))
        if not batched:
            return out.squeeze(batch_dim), (h.squeeze(1), c.squeeze(1))  # type: ignore[attr-defined]
        return out, (h, c)
