"""``Conv1d``, ``Conv2d``: ``conv1d``/``conv2d`` with a weight ``(C_out, C_in / groups, *k)``
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
        conv = F.conv1d if self._n == 1 else F.conv2d
        if self.padding_mode != "zeros" and not isinstance(self.padding, str):
            padded = F.pad(input, reversed_padding(self.padding), mode=self.padding_mode)
            return conv(padded, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * self._n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self._n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    _n = 1


class Conv2d(_ConvNd):
    _n = 2
