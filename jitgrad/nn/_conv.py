"""``conv1d`` / ``conv2d``: cross-correlation over windows of the (padded) input, read as
one ``as_strided`` view and contracted with the weight by ``einsum`` (per group), so the
gradients (and gradients of gradients) come from those two ops, under one
``ConvolutionBackward0`` node (``_composite.py``). PyTorch's argument checks and messages."""

from __future__ import annotations

from typing import Any, Sequence

from ..tensor import Tensor
from ._composite import convolution


def _tuple(name: str, value: Any, n: int) -> tuple[int, ...]:
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {n} values to match the "
            f"convolution dimensions, but got {name}={list(value)}"
        )
    return value


def _conv(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any, dilation: Any,
          groups: int, n: int) -> Tensor:
    from ..ops.einsum import einsum
    from .functional import pad as _pad

    if weight.ndim != n + 2:
        raise RuntimeError(
            f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to conv{n}d, but got weight of "
            f"size {list(weight.shape)}"
        )
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(
            f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to conv{n}d, but got input of "
            f"size: {list(input.shape)}"
        )
    batched = input.ndim == n + 2
    x = input if batched else input.unsqueeze(0)  # type: ignore[attr-defined]
    stride, dilation = _tuple("stride", stride, n), _tuple("dilation", dilation, n)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    kernel = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding == "valid":
            pads = [(0, 0)] * n
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pads = [(d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2) for d, k in zip(dilation, kernel)]
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        pads = [(p, p) for p in _tuple("padding", padding, n)]
        if any(p < 0 for p, _ in pads):
            raise RuntimeError("negative padding is not supported")
    c_out, c_in_group = weight.shape[0], weight.shape[1]
    if c_out % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got "
            f"weight of size [{list(weight.shape)}] instead"
        )
    if x.shape[1] != c_in_group * groups:
        shown = list(x.shape)  # (an unbatched input as the batch of one it runs as, as PyTorch shows it)
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input{shown} to have "
            f"{c_in_group * groups} channels, but got {input.shape[0 if not batched else 1]} channels instead"
        )
    if any(p for pair in pads for p in pair):
        flat = [p for pair in reversed(pads) for p in pair]
        x = _pad(x, flat)
    spatial = tuple(x.shape[2:])
    out = tuple((size - d * (k - 1) - 1) // s + 1 for size, d, k, s in zip(spatial, dilation, kernel, stride))
    if any(size < d * (k - 1) + 1 for size, d, k in zip(spatial, dilation, kernel)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, spatial))}). Kernel size: "
            f"({' x '.join(str(d * (k - 1) + 1) for d, k in zip(dilation, kernel))}). Kernel size can't be "
            "greater than actual input size"
        )
    x = x.contiguous()  # type: ignore[attr-defined]
    st = x.stride()  # type: ignore[attr-defined]
    windows = x.as_strided(  # type: ignore[attr-defined]
        (x.shape[0], groups, c_in_group) + out + kernel,
        (st[0], st[1] * c_in_group, st[1]) + tuple(st[2 + i] * stride[i] for i in range(n))
        + tuple(st[2 + i] * dilation[i] for i in range(n)),
        x.storage_offset(),  # type: ignore[attr-defined]
    )
    w = weight.reshape((groups, c_out // groups, c_in_group) + kernel)  # type: ignore[attr-defined]
    o, k = "def"[:n], "klm"[:n]  # (clear of the z, g, c, p of batch, group, channels)
    y = einsum(f"zgc{o}{k},gpc{k}->zgp{o}", windows, w).reshape((x.shape[0], c_out) + out)  # type: ignore[attr-defined]
    if bias is not None:
        y = y + bias.reshape((1, c_out) + (1,) * n)  # type: ignore[attr-defined]
    return y if batched else y.squeeze(0)  # type: ignore[attr-defined,no-any-return]


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """1-D cross-correlation of ``input`` ``(N, C_in, L)`` (or ``(C_in, L)``) with ``weight``
    ``(C_out, C_in / groups, k)``."""
    return convolution(lambda x, w, b: _conv(x, w, b, stride, padding, dilation, groups, 1),
                       input, weight, bias)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-D cross-correlation of ``input`` ``(N, C_in, H, W)`` (or unbatched) with ``weight``
    ``(C_out, C_in / groups, kH, kW)``."""
    return convolution(lambda x, w, b: _conv(x, w, b, stride, padding, dilation, groups, 2),
                       input, weight, bias)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """3-D cross-correlation of ``input`` ``(N, C_in, D, H, W)`` (or unbatched) with ``weight``
    ``(C_out, C_in / groups, kD, kH, kW)``."""
    return convolution(lambda x, w, b: _conv(x, w, b, stride, padding, dilation, groups, 3),
                       input, weight, bias)


def reversed_padding(padding: Sequence[int]) -> list[int]:
    """``F.pad``'s list for symmetric ``padding`` per dim (last dim first)."""
    return [p for size in reversed(padding) for p in (size, size)]


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    """The sliding blocks of a batched ``(N, C, H, W)`` (or unbatched) input as columns:
    ``(N, C * kH * kW, L)`` (PyTorch's im2col), read as one ``as_strided`` view."""
    from .functional import pad as _pad

    if input.ndim not in (3, 4):
        raise RuntimeError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D)")
    batched = input.ndim == 4
    x = input if batched else input.unsqueeze(0)  # type: ignore[attr-defined]
    kernel, dil = _tuple("kernel_size", kernel_size, 2), _tuple("dilation", dilation, 2)
    pads, strides = _tuple("padding", padding, 2), _tuple("stride", stride, 2)
    spatial = tuple(x.shape[2:])
    blocks = tuple((s + 2 * p - d * (k - 1) - 1) // st + 1
                   for s, p, d, k, st in zip(spatial, pads, dil, kernel, strides))
    if any(b < 1 for b in blocks):
        raise RuntimeError(
            f"Given input with spatial size {spatial}, kernel_size={kernel}, dilation={dil}, padding={pads}, "
            f"calculated shape of the array of sliding blocks as {blocks}, but its components must be at least one."
        )
    if any(pads):
        x = _pad(x, reversed_padding(pads))
    x = x.contiguous()  # type: ignore[attr-defined]
    st = x.stride()  # type: ignore[attr-defined]
    n, c = x.shape[0], x.shape[1]
    windows = x.as_strided(  # type: ignore[attr-defined]
        (n, c) + kernel + blocks,
        (st[0], st[1], st[2] * dil[0], st[3] * dil[1], st[2] * strides[0], st[3] * strides[1]),
        x.storage_offset(),  # type: ignore[attr-defined]
    )
    out = windows.reshape(n, c * kernel[0] * kernel[1], blocks[0] * blocks[1])
    return out if batched else out.squeeze(0)  # type: ignore[no-any-return]
