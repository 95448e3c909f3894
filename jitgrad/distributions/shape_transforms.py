"""``ReshapeTransform``: an event of ``in_shape`` read as one of ``out_shape`` (a
rearrangement, so the log-determinant of its Jacobian is zero)."""

from __future__ import annotations

from typing import Any

from ..geometry import Size
from ..tensor import Tensor
from . import constraints
from .transform_base import Transform


class ReshapeTransform(Transform):
    """Reshape the rightmost dims from ``in_shape`` to ``out_shape`` (same number of elements)."""

    bijective = True

    def __init__(self, in_shape: Any, out_shape: Any, cache_size: int = 0) -> None:
        self.in_shape, self.out_shape = Size(in_shape), Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x: Tensor) -> Tensor:
        batch = tuple(x.shape[:x.ndim - len(self.in_shape)])
        return x.reshape(batch + tuple(self.out_shape))  # type: ignore[attr-defined,no-any-return]

    def _inverse(self, y: Tensor) -> Tensor:
        batch = tuple(y.shape[:y.ndim - len(self.out_shape)])
        return y.reshape(batch + tuple(self.in_shape))  # type: ignore[attr-defined,no-any-return]

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x.new_zeros(tuple(x.shape[:x.ndim - len(self.in_shape)]))  # type: ignore[attr-defined,no-any-return]

    def forward_shape(self, shape: Any) -> Any:
        return self._moved(shape, self.in_shape, self.out_shape, "forward_shape")

    def inverse_shape(self, shape: Any) -> Any:
        return self._moved(shape, self.out_shape, self.in_shape, "inverse_shape")

    @staticmethod
    def _moved(shape: Any, source: Size, target: Size, op: str) -> Any:
        if len(shape) < len(source):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(source)
        if tuple(shape[cut:]) != tuple(source):
            raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {source}")
        return Size(tuple(shape[:cut]) + tuple(target))
