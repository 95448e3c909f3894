"""``prelu`` and ``pixel_shuffle`` / ``pixel_unshuffle``, each one node under PyTorch's name.

* ``prelu``: the weight is viewed to broadcast along the channel dim (dim 1), then
  ``PreluKernelBackward0``: ``x`` where positive, ``w x`` elsewhere; its backward is written
  in jitgrad ops (the engine sums the weight's gradient back to its shape).
* ``pixel_shuffle`` moves ``r * r`` channel blocks into an ``r``-times larger plane; its
  backward is ``pixel_unshuffle`` of the gradient and the other way round, each the other's
  adjoint, so both are differentiable to any order.
"""

from __future__ import annotations

import numpy as np

from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node, SavingNode
from ..ops.compare import where
from ..ops.operands import array_of, from_result
from ..tensor import Tensor


class PreluKernelBackward0(SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        x, w = self.unpack()
        g = grads[0]
        positive = x > 0
        return (where(positive, g, w * g) if self.needs_input_grad(0) else None,  # type: ignore[operator]
                where(positive, 0.0, x * g) if self.needs_input_grad(1) else None)  # type: ignore[operator]


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``max(0, x) + weight * min(0, x)``, one weight per channel (dim 1) or one for all."""
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(
            "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{weight.numel()} and channel size = {channels}."
        )
    shape = [1] * input.ndim
    if input.ndim >= 2:
        shape[1] = weight.numel()
    w = weight.view(shape) if input.ndim else weight.view(())  # type: ignore[attr-defined]
    x, wa = array_of(input), array_of(w)
    out = from_result(np.where(x > 0, x, wa * x), input.dtype)
    if needs_grad(input, w):
        node = PreluKernelBackward0()
        record(node, (input, w), (out,))
        node.save(input, w, outputs=(out,))
    return out


def _check_shuffle(op: str, what: str, input: Tensor, factor: int) -> None:
    if input.ndim < 3:
        raise RuntimeError(f"{op} expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{op} expects a positive {what}, but got {factor}")


def _shuffle(x: np.ndarray, r: int) -> np.ndarray:
    *lead, c, h, w = x.shape
    blocks = x.reshape(*lead, c // (r * r), r, r, h, w)
    k = len(lead)
    order = list(range(k)) + [k, k + 3, k + 1, k + 4, k + 2]
    return blocks.transpose(order).reshape(*lead, c // (r * r), h * r, w * r)


def _unshuffle(x: np.ndarray, r: int) -> np.ndarray:
    *lead, c, h, w = x.shape
    blocks = x.reshape(*lead, c, h // r, r, w // r, r)
    k = len(lead)
    order = list(range(k)) + [k, k + 2, k + 4, k + 1, k + 3]
    return blocks.transpose(order).reshape(*lead, c * r * r, h // r, w // r)


class PixelShuffleBackward0(Node):
    def __init__(self, factor: int) -> None:
        super().__init__()
        self.factor = factor

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (pixel_unshuffle(grads[0], self.factor),)  # type: ignore[arg-type]


class PixelUnshuffleBackward0(PixelShuffleBackward0):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (pixel_shuffle(grads[0], self.factor),)  # type: ignore[arg-type]


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``(*, C r^2, H, W) -> (*, C, H r, W r)``."""
    r = int(upscale_factor)
    _check_shuffle("pixel_shuffle", "upscale_factor", input, r)
    if input.shape[-3] % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
            f"upscale_factor, but input.size(-3)={input.shape[-3]} is not divisible by {r * r}"
        )
    out = from_result(_shuffle(array_of(input), r), input.dtype)
    if needs_grad(input):
        record(PixelShuffleBackward0(r), (input,), (out,))
    return out


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """``(*, C, H r, W r) -> (*, C r^2, H, W)``."""
    r = int(downscale_factor)
    _check_shuffle("pixel_unshuffle", "downscale_factor", input, r)
    for dim, name in ((-2, "height"), (-1, "width")):
        if input.shape[dim] % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                               f"input.size({dim})={input.shape[dim]} is not divisible by {r}")
    out = from_result(_unshuffle(array_of(input), r), input.dtype)
    if needs_grad(input):
        record(PixelUnshuffleBackward0(r), (input,), (out,))
    return out
