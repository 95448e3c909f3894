"""``torch.nn.utils.parametrizations``: ``weight_norm`` as a parametrization
(``weight = g * v / ||v||``, the norm over every dim but ``dim``), stored as
``parametrizations.weight.original0`` (``g``) and ``original1`` (``v``)."""

from __future__ import annotations

from typing import Any

from ...ops.norms import vector_norm
from ...tensor import Tensor
from ..modules.module import Module
from . import parametrize

__all__ = ["weight_norm"]


def norm_except_dim(v: Tensor, dim: int) -> Tensor:
    """The 2-norm over every dim of ``v`` but ``dim`` (kept as size 1); ``dim == -1``: of all."""
    if dim == -1:
        return vector_norm(v)
    d = dim % v.ndim
    return vector_norm(v, 2, [k for k in range(v.ndim) if k != d], keepdim=True)


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_v * (weight_g / norm_except_dim(weight_v, self.dim))  # type: ignore[operator,no-any-return]

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: Any = 0) -> Module:
    """Reparametrize ``module.<name>`` by its magnitude and direction (``g`` and ``v``)."""
    return parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
