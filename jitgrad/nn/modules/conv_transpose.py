"""``ConvTranspose1d``, ``ConvTranspose2d``, ``ConvTranspose3d``: ``conv_transpose1d/2d/3d`` with a weight
``(C_in, C_out / groups, *k)`` initialised as PyTorch's (Kaiming-uniform, ``a = sqrt(5)``, on
that weight; bias uniform in ``±1/sqrt(fan_in)``); ``forward(input, output_size)`` picks the
``output_padding`` that reaches ``output_size``."""

from __future__ import annotations

from typing import Any, Sequence

from ... import creation
from ...tensor import Tensor
from .._conv import _tuple
from .._conv_transpose import conv_transpose1d, conv_transpose2d, conv_transpose3d
from ..parameter import Parameter
from .conv import check_groups, conv_repr
from .linear import kaiming_reset
from .module import Module


class _ConvTransposeNd(Module):
    _n = 0

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        n = self._n
        check_groups(in_channels, out_channels, groups)
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = _tuple("kernel_size", kernel_size, n)
        self.stride, self.padding = _tuple("stride", stride, n), _tuple("padding", padding, n)
        self.dilation = _tuple("dilation", dilation, n)
        self.output_padding = _tuple("output_padding", output_padding, n)
        self.padding_mode, self.transposed = padding_mode, True
        self.weight = Parameter(creation.empty((in_channels, out_channels // groups) + self.kernel_size, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        kaiming_reset(self.weight, self.bias)

    def _output_padding(self, input: Tensor, output_size: Sequence[int] | None) -> tuple[int, ...]:
        if output_size is None:
            return self.output_padding
        n = self._n
        lead = 2 if input.ndim == n + 2 else 1
        sizes = [int(s) for s in output_size]
        if len(sizes) == lead + n:
            sizes = sizes[lead:]
        if len(sizes) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.ndim}D input, output_size must have {n} or "
                             f"{lead + n} elements (got {len(output_size)})")
        smallest = [(input.shape[lead + d] - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(n)]
        largest = [s + self.stride[d] - 1 for d, s in enumerate(smallest)]
        if any(not lo <= s <= hi for s, lo, hi in zip(sizes, smallest, largest)):
            raise ValueError(
                f"requested an output size of {tuple(output_size) if not isinstance(output_size, list) else output_size}"
                f", but valid sizes range from {smallest} to {largest} (for an input of {input.shape[lead:]})"
            )
        return tuple(s - lo for s, lo in zip(sizes, smallest))

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        conv = (conv_transpose1d, conv_transpose2d, conv_transpose3d)[self._n - 1]
        return conv(input, self.weight, self.bias, self.stride, self.padding,
                    self._output_padding(input, output_size), self.groups, self.dilation)

    def extra_repr(self) -> str:
        return conv_repr(self, self._n)


class ConvTranspose1d(_ConvTransposeNd):
    _n = 1


class ConvTranspose2d(_ConvTransposeNd):
    _n = 2


class ConvTranspose3d(_ConvTransposeNd):
    _n = 3
