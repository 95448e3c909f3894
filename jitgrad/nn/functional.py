"""``jitgrad.nn.functional``: PyTorch's ``torch.nn.functional`` names, built on jitgrad ops.

Activations live in ``_activations.py``, losses in ``_losses.py``; this module adds the
structural functions (``linear``, ``pad``, ``avg_pool1d``, ``normalize``) and re-exports all.
"""

from __future__ import annotations

import math
from typing import Any

from ..ops.products import addmm
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
from ._conv import conv1d, conv2d, conv3d, unfold
from ._conv_transpose import conv_transpose1d, conv_transpose2d, conv_transpose3d
from ._padding import pad
from ._dropout import alpha_dropout, dropout1d, dropout2d, dropout3d, feature_alpha_dropout
from ._group_norm import group_norm
from ._losses_more import (
    cosine_embedding_loss, hinge_embedding_loss, margin_ranking_loss, multi_margin_loss, multilabel_margin_loss,
    multilabel_soft_margin_loss, poisson_nll_loss, soft_margin_loss, triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from ._prelu_shuffle import pixel_shuffle, pixel_unshuffle, prelu
from ._fold import channel_shuffle, fold
from ._upsample import upsample, upsample_bilinear, upsample_nearest
from ._extra_functional import gumbel_softmax, local_response_norm, pdist, rrelu, rrelu_
from ._embedding_bag import embedding_bag
from ._grid_sample import affine_grid, grid_sample
from ._inplace_activations import celu_, elu_, hardtanh_, leaky_relu_, relu_, selu_, threshold_
from ._pool3d import (
    adaptive_avg_pool3d, adaptive_max_pool3d, adaptive_max_pool3d_with_indices, avg_pool3d, max_pool3d,
    max_pool3d_with_indices,
)
from ._pool_extra import (
    adaptive_max_pool1d_with_indices, adaptive_max_pool2d_with_indices, lp_pool1d, lp_pool2d, lp_pool3d,
    max_pool1d_with_indices, max_pool2d_with_indices, max_unpool1d, max_unpool2d, max_unpool3d,
)
from ._interpolate import interpolate
from ._pool_functional import (
    adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_max_pool1d, adaptive_max_pool2d, avg_pool1d,
    avg_pool2d, max_pool1d, max_pool2d,
)
from ._more_activations import (
    celu, glu, hardshrink, hardsigmoid, hardswish, logsigmoid, relu6, rms_norm, selu, softmin,
    softshrink, softsign, tanhshrink, threshold,
)
from ._ctc import ctc_loss
from ._embedding import embedding
from ._normalization import cosine_similarity, layer_norm, one_hot, pairwise_distance

__all__ = [
    "avg_pool1d", "binary_cross_entropy", "binary_cross_entropy_with_logits", "cosine_similarity",
    "cross_entropy", "dropout", "elu", "embedding", "gelu", "hardtanh", "huber_loss", "l1_loss",
    "layer_norm", "leaky_relu", "linear", "log_softmax", "max_pool1d", "mish", "mse_loss", "nll_loss",
    "normalize", "one_hot", "pad", "relu", "sigmoid", "silu", "smooth_l1_loss", "softmax",
    "softplus", "tanh", "kl_div", "gaussian_nll_loss", "pairwise_distance", "batch_norm", "instance_norm", "bilinear", "conv1d", "conv2d", "unfold", "interpolate",
    "celu", "glu", "hardshrink", "hardsigmoid", "hardswish", "logsigmoid", "relu6", "rms_norm", "selu",
    "softmin", "softshrink", "softsign", "tanhshrink", "threshold",
    "avg_pool2d", "max_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d",
    "adaptive_max_pool2d", "conv_transpose1d", "conv_transpose2d", "alpha_dropout", "dropout1d",
    "dropout2d", "dropout3d", "feature_alpha_dropout", "group_norm", "cosine_embedding_loss",
    "hinge_embedding_loss", "margin_ranking_loss", "multilabel_soft_margin_loss", "poisson_nll_loss",
    "soft_margin_loss", "triplet_margin_loss", "pixel_shuffle", "pixel_unshuffle", "prelu",
    "channel_shuffle", "fold", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
    "lp_pool1d", "lp_pool2d", "max_pool1d_with_indices", "max_pool2d_with_indices", "max_unpool1d",
    "max_unpool2d", "multi_margin_loss", "multilabel_margin_loss", "triplet_margin_with_distance_loss",
    "upsample", "upsample_bilinear", "upsample_nearest", "conv3d", "conv_transpose3d", "adaptive_avg_pool3d",
    "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "avg_pool3d", "max_pool3d", "max_pool3d_with_indices",
    "lp_pool3d", "max_unpool3d", "celu_", "elu_", "hardtanh_", "leaky_relu_", "relu_", "selu_", "threshold_",
    "local_response_norm", "pdist", "rrelu", "rrelu_", "embedding_bag", "gumbel_softmax",
    "affine_grid", "grid_sample",
    "scaled_dot_product_attention", "ctc_loss",
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
    """``input @ weight.T + bias``, recorded as PyTorch's ``linear`` records it: ``addmm`` for a
    2-D input with a bias; a contiguous input of other dims, with a contiguous bias of one
    dim of size > 1 (squeezed), flattened to rows, ``addmm``, and viewed back; otherwise
    ``matmul`` then ``add_`` of the bias."""
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {input.dim()}D and "
            f"{weight.dim()}D")
    if input.shape[-1:] != weight.shape[-1:]:
        raise RuntimeError(
            f"linear: input's last dimension ({input.shape[-1]}) must equal weight's in_features "
            f"({weight.shape[-1]}); got input {list(input.shape)}, weight {list(weight.shape)}"
        )
    if bias is not None:
        if input.dim() == 2:
            return addmm(bias, input, weight.t())  # type: ignore[attr-defined]
        # (one dim of size > 1, after squeezing: PyTorch's test, without making the squeeze)
        fusable = (bias.dim() == 1 or sum(s != 1 for s in bias.shape) == 1) and bias.is_contiguous()
        if fusable and input.is_contiguous():
            lead = tuple(input.shape[:-1])
            rows = addmm(bias, input.reshape(math.prod(lead), input.shape[-1]), weight.t())  # type: ignore[attr-defined]
            return rows.view(*lead, rows.shape[1])  # type: ignore[attr-defined,no-any-return]
    out = input.matmul(weight.t())  # type: ignore[attr-defined]
    return out if bias is None else out.add_(bias)  # type: ignore[no-any-return]


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


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None) -> Tensor:
    """``input / max(||input||_p along dim, eps)``."""
    if out is not None:
        raise NotImplementedError("normalize: out= is not supported")
    norm = input.norm(p, dim, keepdim=True)  # type: ignore[attr-defined]  (PyTorch's graph and values)
    return input / norm.clamp_min(eps).expand_as(input)  # type: ignore[attr-defined]
