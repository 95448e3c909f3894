"""``jitgrad.nn.functional``: PyTorch's ``torch.nn.functional`` names, built on jitgrad ops.

Activations live in ``_activations.py``, losses in ``_losses.py``; this module adds the
structural functions (``linear``, ``pad``, ``avg_pool1d``, ``normalize``) and re-exports all.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import creation
from ..ops.softmax import log_softmax as _log_softmax, softmax as _softmax
from ..tensor import Tensor
from ._activations import (
    dropout, elu, gelu, hardtanh, leaky_relu, mish, relu, sigmoid, silu, softplus, tanh,
)
from ._losses import (
    binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy, gaussian_nll_loss,
    huber_loss, kl_div, l1_loss, mse_loss, nll_loss, smooth_l1_loss,
)
from ._attention import scaled_dot_product_attention
from ._batch_norm import batch_norm, instance_norm
from ._conv import conv1d, conv2d, unfold
from ._interpolate import interpolate
from ._more_activations import (
    celu, glu, hardshrink, hardsigmoid, hardswish, logsigmoid, relu6, rms_norm, selu, softmin,
    softshrink, softsign, tanhshrink, threshold,
)
from ._normalization import cosine_similarity, embedding, layer_norm, one_hot, pairwise_distance

__all__ = [
    "avg_pool1d", "binary_cross_entropy", "binary_cross_entropy_with_logits", "cosine_similarity",
    "cross_entropy", "dropout", "elu", "embedding", "gelu", "hardtanh", "huber_loss", "l1_loss",
    "layer_norm", "leaky_relu", "linear", "log_softmax", "max_pool1d", "mish", "mse_loss", "nll_loss",
    "normalize", "one_hot", "pad", "relu", "sigmoid", "silu", "smooth_l1_loss", "softmax",
    "softplus", "tanh", "kl_div", "gaussian_nll_loss", "pairwise_distance", "batch_norm", "instance_norm", "bilinear", "conv1d", "conv2d", "unfold", "interpolate",
    "celu", "glu", "hardshrink", "hardsigmoid", "hardswish", "logsigmoid", "relu6", "rms_norm", "selu",
    "softmin", "softshrink", "softsign", "tanhshrink", "threshold",
    "scaled_dot_product_attention",
]


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    if dim is None:
        raise TypeError("softmax(): dim must be given (PyTorch's implicit-dim choice is deprecated)")
    return _softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    if dim is None:
        raise TypeError("log_softmax(): dim must be given (PyTorch's implicit-dim choice is deprecated)")
    return _log_softmax(input, dim, dtype)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``."""
    if input.shape[-1:] != weight.shape[-1:]:
        raise RuntimeError(
            f"linear: input's last dimension ({input.shape[-1] if input.dim() else 'none'}) must "
            f"equal weight's in_features ({weight.shape[-1]}); got input {list(input.shape)}, "
            f"weight {list(weight.shape)}"
        )
    out = input.matmul(weight.t())  # type: ignore[attr-defined]
    return out if bias is None else out + bias


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y_k = input1 A_k input2^T + b_k`` over the shared leading dims (an einsum)."""
    from ..ops.einsum import einsum

    if input1.shape[:-1] != input2.shape[:-1]:
        for d, (a, b) in enumerate(zip(input1.shape[:-1], input2.shape[:-1])):
            if a != b:
                raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: got {a} and {b}")
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {list(input1.shape)} and {list(input2.shape)}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(
            f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(
            f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but expected {weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected {weight.shape[0]}")
    out = einsum("...i,kij,...j->...k", input1, weight, input2)
    return out if bias is None else out + bias


def _pad_index(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """Source positions along one dim of length ``n`` for each padded position."""
    i = np.arange(-before, n + after)
    if mode == "replicate":
        return np.clip(i, 0, n - 1)
    if mode == "circular":
        if before > n or after > n:
            raise ValueError(f"pad: circular padding of {before}/{after} exceeds the size {n}")
        return i % n
    if before >= n or after >= n:
        raise RuntimeError(
            f"pad: reflect padding ({before}, {after}) must be smaller than the dimension size {n}"
        )
    period = 2 * (n - 1)
    j = np.abs(i) % period if period else np.zeros_like(i)
    return np.where(j >= n, period - j, j)


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dims; ``pad`` lists (before, after) from the last dim
    backwards. Modes: constant (negative pads crop), reflect, replicate, circular."""
    pad = [int(p) for p in pad]
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(
            f"Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {input.dim()}"
        )
    pairs = [(input.dim() - 1 - k, pad[2 * k], pad[2 * k + 1]) for k in range(len(pad) // 2)]
    if mode == "constant":
        return _pad_constant(input, pairs, 0.0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"pad: mode {mode!r} is not supported; expected constant, reflect, "
                                  "replicate or circular")
    if value is not None and value != 0:
        raise ValueError(f'Padding mode "{mode}" doesn\'t take in value argument')
    out = input
    for dim, before, after in pairs:
        index = creation.tensor(_pad_index(out.shape[dim], before, after, mode))
        out = out[(slice(None),) * dim + (index,)]
    return out


def _pad_constant(input: Tensor, pairs: list[tuple[int, int, int]], value: float) -> Tensor:
    cropped = input
    for dim, before, after in pairs:  # negative pads crop first
        start, stop = max(-before, 0), cropped.shape[dim] - max(-after, 0)
        if stop < start:
            raise RuntimeError(f"pad: padding {(before, after)} leaves a negative size along dim {dim}")
        cropped = cropped.narrow(dim, start, stop - start)  # type: ignore[attr-defined]
    sizes = list(cropped.shape)
    region: list[Any] = [slice(None)] * input.dim()
    for dim, before, after in pairs:
        b, a = max(before, 0), max(after, 0)
        region[dim] = slice(b, b + sizes[dim])
        sizes[dim] += b + a
    out = creation.full(sizes, value, dtype=input.dtype)
    out[tuple(region)] = cropped
    return out


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """Means over windows of the last dim ((N, C, L) or (C, L) input)."""
    k = _single(kernel_size)
    s = k if stride is None or stride == [] else _single(stride)
    p = _single(padding)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"avg_pool1d: expected 2D or 3D input, got {input.dim()}D")
    if p > k // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                           f"kernel_size={k}")
    if ceil_mode:
        raise NotImplementedError("avg_pool1d: ceil_mode=True is not supported yet")
    length = input.shape[-1] + 2 * p
    if length < k:
        raise RuntimeError(f"avg_pool1d: input length {input.shape[-1]} (padded {length}) is "
                           f"smaller than kernel_size {k}")
    padded = _pad_constant(input, [(input.dim() - 1, p, p)], 0.0) if p else input
    sums = padded.unfold(-1, k, s).sum(-1)  # type: ignore[attr-defined]
    if count_include_pad or p == 0:
        return sums / k
    ones = np.pad(np.ones(input.shape[-1]), p)
    counts = np.lib.stride_tricks.sliding_window_view(ones, k)[::s].sum(-1)
    return sums / creation.tensor(counts.astype(input.dtype))


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Tensor:
    """Maxima over windows of the last dim; padding is -inf. A tie inside one window shares
    the gradient evenly (PyTorch gives it to the first maximum)."""
    k = _single(kernel_size)
    s = k if stride is None or stride == [] else _single(stride)
    p = _single(padding)
    if _single(dilation) != 1 or ceil_mode or return_indices:
        raise NotImplementedError("max_pool1d: dilation, ceil_mode and return_indices are not supported yet")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"max_pool1d: expected 2D or 3D input, got {input.dim()}D")
    if p > k // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                           f"kernel_size={k}")
    if input.shape[-1] + 2 * p < k:
        raise RuntimeError(f"max_pool1d: input length {input.shape[-1]} (padded {input.shape[-1] + 2 * p}) "
                           f"is smaller than kernel_size {k}")
    padded = _pad_constant(input, [(input.dim() - 1, p, p)], float("-inf")) if p else input
    return padded.unfold(-1, k, s).amax(-1)  # type: ignore[attr-defined]


def _single(x: Any) -> int:
    if isinstance(x, (tuple, list)):
        if len(x) != 1:
            raise RuntimeError(f"avg_pool1d: expected a single int or a 1-tuple, got {x!r}")
        return int(x[0])
    return int(x)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None) -> Tensor:
    """``input / max(||input||_p along dim, eps)``."""
    if out is not None:
        raise NotImplementedError("normalize: out= is not supported")
    norm = (input.abs() ** p).sum(dim, keepdim=True) ** (1.0 / p)  # type: ignore[attr-defined]
    return input / norm.clamp(min=eps).expand_as(input)  # type: ignore[attr-defined]
