"""``Conv1d``, ``Conv2d``, ``Conv3d``: ``conv1d``/``conv2d``/``conv3d`` with a weight ``(C_out, C_in / groups, *k)``
and bias initialised as PyTorch (Kaiming-uniform with ``a = sqrt(5)``; bias uniform in
``±1/sqrt(fan_in)``) from jitgrad's generator; ``padding_mode`` other than zeros pads with
``F.pad`` first, as PyTorch's modules."""

from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from .. import functional as F
from .._conv import _tuple, reversed_padding
from .linear import kaiming_reset, weight_and_bias
from .module import Module


def check_groups(in_channels: int, out_channels: int, groups: int) -> None:
    """A conv module's channel counts against ``groups`` (PyTorch's ValueErrors)."""
    if groups <= 0:
        raise ValueError("groups must be a positive integer")
    if in_channels % groups != 0:
        raise ValueError("in_channels must be divisible by groups")
    if out_channels % groups != 0:
        raise ValueError("out_channels must be divisible by groups")


class _ConvNd(Module):
    _n = 0

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        n = self._n
        check_groups(in_channels, out_channels, groups)
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(
                f"padding_mode must be one of ['zeros', 'reflect', 'replicate', 'circular'], but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = _tuple("kernel_size", kernel_size, n)
        self.stride = _tuple("stride", stride, n)
        self.dilation = _tuple("dilation", dilation, n)
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of ['valid', 'same']")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding: Any = padding
        else:
            self.padding = _tuple("padding", padding, n)
        self.padding_mode = padding_mode
        weight_and_bias(self, (out_channels, in_channels // groups) + self.kernel_size, bias, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        kaiming_reset(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        conv = (F.conv1d, F.conv2d, F.conv3d)[self._n - 1]
        if self.padding_mode != "zeros" and not isinstance(self.padding, str):
            padded = F.pad(input, reversed_padding(self.padding), mode=self.padding_mode)
            return conv(padded, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self) -> str:
        return conv_repr(self, self._n)


def conv_repr(m: Any, n: int) -> str:
    """A conv module's ``extra_repr`` (PyTorch's: the arguments that differ from the defaults)."""
    s = f"{m.in_channels}, {m.out_channels}, kernel_size={m.kernel_size}, stride={m.stride}"
    if m.padding != (0,) * n:
        s += f", padding={m.padding}"
    if m.dilation != (1,) * n:
        s += f", dilation={m.dilation}"
    if getattr(m, "output_padding", (0,) * n) != (0,) * n:
        s += f", output_padding={m.output_padding}"
    if m.groups != 1:
        s += f", groups={m.groups}"
    if m.bias is None:
        s += ", bias=False"
    if m.padding_mode != "zeros":
        s += f", padding_mode={m.padding_mode}"
    return s


class Conv1d(_ConvNd):
    _n = 1


class Conv2d(_ConvNd):
    _n = 2


class Conv3d(_ConvNd):
    _n = 3
