"""``BatchNorm1d``, ``BatchNorm2d``: ``batch_norm`` with learnable ``weight`` (ones) and
``bias`` (zeros) and running statistics (buffers ``running_mean``, ``running_var``,
``num_batches_tracked``), as PyTorch's modules (``momentum=None``: a cumulative average)."""

from __future__ import annotations

from typing import Any

from ... import creation, dtypes
from ...tensor import Tensor
from .._batch_norm import batch_norm
from .. import init
from ..parameter import Parameter
from .module import Module


class _BatchNorm(Module):
    _dims: tuple[int, ...] = ()

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(creation.ones(num_features, dtype=dtype))
            self.bias = Parameter(creation.zeros(num_features, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", creation.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", creation.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", creation.tensor(0, dtype=dtypes.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()  # (as PyTorch: the fills move each version counter to 1)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()  # type: ignore[attr-defined]
            self.running_var.fill_(1)  # type: ignore[attr-defined]
            self.num_batches_tracked.zero_()  # type: ignore[attr-defined]

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in self._dims:
            expected = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {expected} input (got {input.ndim}D input)")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)  # type: ignore[attr-defined]
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())  # type: ignore[attr-defined]
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return batch_norm(input, self.running_mean if keep else None, self.running_var if keep else None,
                          self.weight, self.bias, use_batch, factor, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.affine}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    _dims = (4,)


class BatchNorm3d(_BatchNorm):
    _dims = (5,)
