"""``fold`` (PyTorch's col2im: sliding blocks summed back into an image, the adjoint of
``unfold``; ``Col2ImBackward0``, whose backward is ``unfold`` of the gradient) and
``channel_shuffle`` (``ChannelShuffleBackward0``, whose backward is the inverse shuffle)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node
from ..ops.operands import array_of, from_result
from ..tensor import Tensor
from ._conv import _tuple, unfold


class Col2ImBackward0(Node):
    def __init__(self, args: tuple[Any, ...]) -> None:
        super().__init__()
        self.args = args  # kernel_size, dilation, padding, stride

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (unfold(grads[0], *self.args),)  # type: ignore[arg-type]


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Tensor:
    """``(N, C * kH * kW, L)`` (or unbatched) blocks summed into ``(N, C, *output_size)``."""
    size, kernel = _tuple("output_size", output_size, 2), _tuple("kernel_size", kernel_size, 2)
    dil, pads, strides = _tuple("dilation", dilation, 2), _tuple("padding", padding, 2), _tuple("stride", stride, 2)
    if input.ndim not in (2, 3) or any(n == 0 for n in input.shape[-2:]):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    area = kernel[0] * kernel[1]
    if input.shape[-2] % area:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={input.shape[-2]} and kernel_size={kernel}.")
    blocks = tuple((size[i] + 2 * pads[i] - dil[i] * (kernel[i] - 1) - 1) // strides[i] + 1 for i in range(2))
    if blocks[0] * blocks[1] != input.shape[-1]:
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={kernel}, dilation={dil}, padding={pads}, stride={strides}, "
            f"expected size of input's dimension 2 to match the calculated number of sliding blocks {blocks[0]} * "
            f"{blocks[1]} = {blocks[0] * blocks[1]}, but got input.size(2)={input.shape[-1]}."
        )
    cols = array_of(input)
    lead = cols.shape[:-2]
    c = cols.shape[-2] // area
    cols = cols.reshape(lead + (c, kernel[0], kernel[1], blocks[0], blocks[1]))
    image = np.zeros(lead + (c, size[0] + 2 * pads[0], size[1] + 2 * pads[1]), cols.dtype)
    for a in range(kernel[0]):
        for e in range(kernel[1]):
            rows = slice(a * dil[0], a * dil[0] + strides[0] * (blocks[0] - 1) + 1, strides[0])
            columns = slice(e * dil[1], e * dil[1] + strides[1] * (blocks[1] - 1) + 1, strides[1])
            image[..., rows, columns] += cols[..., a, e, :, :]
    image = image[..., pads[0]:pads[0] + size[0], pads[1]:pads[1] + size[1]]
    out = from_result(image, input.dtype)
    if needs_grad(input):
        record(Col2ImBackward0((kernel, dil, pads, strides)), (input,), (out,))
    return out


class ChannelShuffleBackward0(Node):
    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        return (channel_shuffle(g, g.shape[1] // self.groups),)  # type: ignore[arg-type,union-attr]


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``(N, g * k, *)`` -> channels read as ``(g, k)`` written as ``(k, g)``."""
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    x = array_of(input)
    shuffled = x.reshape((x.shape[0], groups, c // groups) + x.shape[2:]).swapaxes(1, 2).reshape(x.shape)
    out = from_result(shuffled, input.dtype)
    if needs_grad(input):
        record(ChannelShuffleBackward0(groups), (input,), (out,))
    return out
