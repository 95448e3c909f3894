"""The neural-network functions PyTorch also has at the top level (``torch.conv2d``,
``torch.dropout``, ``torch.layer_norm``...), with the top level's signatures: where those
differ from ``nn.functional``'s (``dropout(input, p, train)``, ``batch_norm``'s argument
order, the ``cudnn_enabled`` flags), these functions take them and call
``nn.functional``."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import functional as F

# the same signatures as nn.functional's
conv1d, conv2d, conv3d = F.conv1d, F.conv2d, F.conv3d
conv_transpose1d, conv_transpose2d, conv_transpose3d = F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d
cosine_similarity, pdist, bilinear, prelu = F.cosine_similarity, F.pdist, F.bilinear, F.prelu
pixel_shuffle, pixel_unshuffle, channel_shuffle = F.pixel_shuffle, F.pixel_unshuffle, F.channel_shuffle
max_pool1d, max_pool2d, max_pool3d, avg_pool1d = F.max_pool1d, F.max_pool2d, F.max_pool3d, F.avg_pool1d
adaptive_avg_pool1d = F.adaptive_avg_pool1d


def selu(input: Tensor) -> Tensor:
    return F.selu(input)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    return F.celu(input, alpha)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return F.hardshrink(input, lambd)


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    return F.threshold(input, threshold, value)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          generator: Any = None) -> Tensor:
    return F.rrelu(input, lower, upper, training)


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.dropout(input, p, train)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.alpha_dropout(input, p, train)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.feature_alpha_dropout(input, p, train)


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5, cudnn_enable: bool = True) -> Tensor:
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5, cudnn_enabled: bool = True) -> Tensor:
    return F.group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    return F.rms_norm(input, normalized_shape, weight, eps)


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
               running_var: Tensor | None, training: bool, momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
                  running_var: Tensor | None, use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


__all__ = [
    "adaptive_avg_pool1d", "alpha_dropout", "avg_pool1d", "batch_norm", "bilinear", "celu", "channel_shuffle",
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "cosine_similarity",
    "dropout", "feature_alpha_dropout", "group_norm", "hardshrink", "instance_norm", "layer_norm", "max_pool1d",
    "max_pool2d", "max_pool3d", "pdist", "pixel_shuffle", "pixel_unshuffle", "prelu", "rms_norm", "rrelu", "selu",
    "threshold",
]
