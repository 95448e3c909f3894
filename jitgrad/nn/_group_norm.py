"""``group_norm``: each sample's channels split into ``num_groups`` groups, each normalised
over its channels and spatial positions (biased variance), then a per-channel scale and
shift. One node, PyTorch's ``NativeGroupNormBackward0``, whose backward is written in jitgrad
ops from the saved input (so it is differentiable again)."""

from __future__ import annotations

import numpy as np

from .._quiet import quiet
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..ops.operands import array_of, from_result
from ..tensor import Tensor


def _normalized(xr: Tensor, eps: float) -> tuple[Tensor, Tensor]:
    """``(x - mean) * rstd`` and ``rstd`` over the last dim of ``(N, G, M)``, in jitgrad ops."""
    centered = xr - xr.mean(-1, keepdim=True)  # type: ignore[attr-defined]
    rstd = ((centered * centered).mean(-1, keepdim=True) + eps).rsqrt()  # type: ignore[attr-defined]
    return centered * rstd, rstd


class NativeGroupNormBackward0(SavingNode):
    def __init__(self, groups: int, eps: float) -> None:
        super().__init__()
        self.groups, self.eps = groups, eps

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        x, weight = self.unpack()
        g = grads[0]
        n, c = x.shape[0], x.shape[1]
        xhat, rstd = _normalized(x.reshape(n, self.groups, -1), self.eps)  # type: ignore[attr-defined]
        per_channel = g.reshape(n, c, -1)  # type: ignore[union-attr]
        gw = gb = gx = None
        if self.needs_input_grad(1):
            gw = (per_channel * xhat.reshape(n, c, -1)).sum((0, 2))  # type: ignore[attr-defined]
        if self.needs_input_grad(2):
            gb = per_channel.sum((0, 2))  # type: ignore[attr-defined]
        if self.needs_input_grad(0):
            gxhat = per_channel if weight is None else per_channel * weight.reshape(1, c, 1)  # type: ignore[attr-defined]
            gxhat = gxhat.reshape(n, self.groups, -1)  # type: ignore[attr-defined]
            mean_g = gxhat.mean(-1, keepdim=True)  # type: ignore[attr-defined]
            mean_gx = (gxhat * xhat).mean(-1, keepdim=True)  # type: ignore[attr-defined]
            gx = (rstd * (gxhat - mean_g - xhat * mean_gx)).reshape(x.shape)  # type: ignore[attr-defined]
        return gx, gw, gb


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise ``(N, C, *)`` over groups of ``C / num_groups`` channels (and all positions)."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    n, c = input.shape[0], input.shape[1]
    if num_groups <= 0 or c % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input of shape "
            f"{list(input.shape)} and num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.shape[0] != c):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in input, but got "
                f"{name} of shape {list(t.shape)} and input of shape {list(input.shape)}"
            )
    values = n * c // num_groups * int(np.prod(input.shape[2:]))
    if values == 1:  # (PyTorch's _verify_batch_size on [N * C / G, G, *spatial])
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{[n * c // num_groups, num_groups] + list(input.shape[2:])}")
    x = array_of(input)
    xr = x.reshape(n, num_groups, -1)
    with quiet():
        mean = xr.mean(-1, keepdims=True)
        var = ((xr - mean) ** 2).mean(-1, keepdims=True)
        y = ((xr - mean) / np.sqrt(var + eps)).reshape((n, c, -1))
    if weight is not None:
        y = y * array_of(weight)[:, None]
    if bias is not None:
        y = y + array_of(bias)[:, None]
    out = from_result(y.reshape(x.shape), input.dtype)
    if needs_grad(input, weight, bias):
        node = NativeGroupNormBackward0(num_groups, eps)
        record(node, (input, weight, bias), (out,))
        node.save(input, weight, outputs=(out,))
    return out
