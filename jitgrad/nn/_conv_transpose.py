"""``conv_transpose1d`` / ``conv_transpose2d``: the gradient of ``conv`` with respect to its
input, written as a forward convolution: the input spread out by ``stride`` (``stride - 1``
zeros between neighbours), padded by ``dilation * (k - 1) - padding`` (plus
``output_padding`` at the end; a negative amount crops), convolved with the weight flipped
in space and with its in/out channels swapped per group. Gradients (and their gradients)
come from those ops, under one ``ConvolutionBackward0``. PyTorch's argument checks and
messages (the 1-d op is checked as the 2-d one on a height of 1, as PyTorch's messages show)."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from ._conv import _conv, _tuple
from ._composite import convolution


def _spread(x: Tensor, dim: int, stride: int) -> Tensor:
    """``stride - 1`` zeros between neighbours along ``dim``."""
    from .functional import pad

    if stride == 1 or x.shape[dim] == 0:
        return x
    n = x.shape[dim]
    widened = x.unsqueeze(dim + 1)  # type: ignore[attr-defined]
    pads = [0, 0] * (x.ndim - dim - 1) + [0, stride - 1]
    widened = pad(widened, pads)
    flat = widened.reshape(tuple(x.shape[:dim]) + (n * stride,) + tuple(x.shape[dim + 1:]))
    return flat.narrow(dim, 0, (n - 1) * stride + 1)  # type: ignore[attr-defined,no-any-return]


def _check(input: Tensor, weight: Tensor, bias: Tensor | None, stride: tuple[int, ...],
           padding: tuple[int, ...], output_padding: tuple[int, ...], groups: int, dilation: tuple[int, ...],
           n: int) -> tuple[int, ...]:
    """PyTorch's checks in its order; returns the output's spatial size."""
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(
            f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to conv_transpose{n}d, but got input "
            f"of size: {list(input.shape)}"
        )
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")

    def two(t: tuple[int, ...], fill: int = 1) -> tuple[int, ...]:  # (a 1-d op is checked as 2-d)
        return t if n > 1 else (fill,) + t

    def named(what: str, t: tuple[int, ...], sep: str, fill: int = 1) -> str:
        return sep.join(f"{what}_{dim}: {v}" for dim, v in zip(("depth", "height", "width")[-max(n, 2):], two(t, fill)))

    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {named('dilation', dilation, ', ')}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if weight.shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got "
            f"weight of size [{list(weight.shape)}] instead"
        )
    channels = input.shape[-n - 1]
    shown = list(input.shape) if input.ndim == n + 2 else [1] + list(input.shape)  # (as it runs: a batch of one)
    if channels != weight.shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected input{shown} to "
            f"have {weight.shape[0]} channels, but got {channels} channels instead"
        )
    c_out = weight.shape[1] * groups
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != c_out):
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected bias to be 1-dimensional "
            f"with {c_out} elements, but got bias of size {list(bias.shape)} instead"
        )
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError(
            f"output padding must be smaller than either stride or dilation, but got "
            f"{named('output_padding', output_padding, ' ', 0)} {named('stride', stride, ' ')} "
            f"{named('dilation', dilation, ' ')}"
        )
    kernel = tuple(weight.shape[2:])
    spatial = tuple(input.shape[-n:])
    out = tuple((size - 1) * s - 2 * p + d * (k - 1) + op + 1
                for size, s, p, d, k, op in zip(spatial, stride, padding, dilation, kernel, output_padding))
    if any(o <= 0 for o in out):
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, two(spatial)))}). Calculated output size per "
            f"channel: ({' x '.join(map(str, two(out)))}). Output size is too small"
        )
    return out


def _conv_transpose(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
                    output_padding: Any, groups: int, dilation: Any, n: int) -> Tensor:
    from .functional import pad

    if isinstance(padding, str):
        raise TypeError(f"conv_transpose{n}d(): argument 'padding' must be tuple of ints, not str")
    stride, padding = _tuple("stride", stride, n), _tuple("padding", padding, n)
    output_padding, dilation = _tuple("output_padding", output_padding, n), _tuple("dilation", dilation, n)
    if weight.ndim != n + 2:
        raise RuntimeError(f"conv_transpose{n}d: expected a {n + 2}D weight, but got weight of size "
                           f"{list(weight.shape)}")
    _check(input, weight, bias, stride, padding, output_padding, groups, dilation, n)
    batched = input.ndim == n + 2
    x = input if batched else input.unsqueeze(0)  # type: ignore[attr-defined]
    for i in range(n):
        x = _spread(x, 2 + i, stride[i])
    kernel = tuple(weight.shape[2:])
    pads: list[int] = []
    for i in reversed(range(n)):
        edge = dilation[i] * (kernel[i] - 1) - padding[i]
        pads += [edge, edge + output_padding[i]]
    if any(pads):
        x = pad(x, pads)
    c_in, c_out_group = weight.shape[0], weight.shape[1]
    w = weight.reshape((groups, c_in // groups, c_out_group) + kernel).transpose(1, 2)  # type: ignore[attr-defined]
    w = w.reshape((groups * c_out_group, c_in // groups) + kernel).flip(tuple(range(2, n + 2)))
    y = _conv(x, w, bias, 1, 0, dilation, groups, n)
    return y if batched else y.squeeze(0)  # type: ignore[attr-defined,no-any-return]


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """The transposed 1-d convolution of ``input`` ``(N, C_in, L)`` with ``weight``
    ``(C_in, C_out / groups, k)``."""
    return convolution(lambda x, w, b: _conv_transpose(x, w, b, stride, padding, output_padding, groups,
                                               dilation, 1), input, weight, bias)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """The transposed 2-d convolution of ``input`` ``(N, C_in, H, W)`` with ``weight``
    ``(C_in, C_out / groups, kH, kW)``."""
    return convolution(lambda x, w, b: _conv_transpose(x, w, b, stride, padding, output_padding, groups,
                                               dilation, 2), input, weight, bias)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """The transposed 3-d convolution of ``input`` ``(N, C_in, D, H, W)`` with ``weight``
    ``(C_in, C_out / groups, kD, kH, kW)``."""
    return convolution(lambda x, w, b: _conv_transpose(x, w, b, stride, padding, output_padding, groups,
                                                 dilation, 3), input, weight, bias)
