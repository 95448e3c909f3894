"""``ReshapeTransform``: an event of ``in_shape`` read as one of ``out_shape`` (a
rearrangement, so the log-determinant of its Jacobian is zero); ``CatTransform`` and
``StackTransform``: transforms applied to the blocks (slices) of one dim and joined again."""

from __future__ import annotations

from typing import Any

from ..geometry import Size
from ..ops.stacking import cat, stack
from ..tensor import Tensor
from . import constraints
from .transform_base import Transform
from .utils import sum_rightmost


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


def _check_block(dim: int, t: Tensor, name: str, letter: str, size: int, what: str) -> None:
    """PyTorch's checks (AssertionError): ``dim`` in range and ``t``'s size there ``size``."""
    if not -t.ndim <= dim < t.ndim:
        raise AssertionError(f"dim {dim} out of range for {name} with {t.ndim} dimensions")
    if t.shape[dim] != size:
        raise AssertionError(f"{letter}.size({dim}) = {t.shape[dim]} must equal {what} {size}")


class _Joined(Transform):
    """What ``CatTransform`` and ``StackTransform`` share: one transform per part of ``dim``."""

    def __init__(self, tseq: Any, dim: int, cache_size: int) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    def _map(self, z: Tensor, letter: str, fn: Any) -> Tensor:
        parts = self._parts(z, "tensor", letter)
        return self._join([fn(t, p) for t, p in zip(self.transforms, parts)])

    def _call(self, x: Tensor) -> Tensor:
        return self._map(x, "x", lambda t, p: t(p))

    def _inverse(self, y: Tensor) -> Tensor:
        return self._map(y, "y", lambda t, p: t.inv(p))


class CatTransform(_Joined):
    """``tseq[i]`` on the ``i``-th block (``lengths[i]`` long, default 1) along ``dim``,
    the results joined by ``cat``."""

    def __init__(self, tseq: Any, dim: int = 0, lengths: Any = None, cache_size: int = 0) -> None:
        super().__init__(tseq, dim, cache_size)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})")

    @property
    def event_dim(self) -> int:
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self) -> int:
        return sum(self.lengths)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _parts(self, z: Tensor, name: str, letter: str) -> list[Tensor]:
        _check_block(self.dim, z, name, letter, self.length, "length")
        parts, start = [], 0
        for length in self.lengths:
            parts.append(z.narrow(self.dim, start, length))  # type: ignore[attr-defined]
            start += length
        return parts

    def _join(self, parts: list[Tensor]) -> Tensor:
        return cat(parts, dim=self.dim)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        xs, ys = self._parts(x, "x", "x"), self._parts(y, "y", "y")
        terms = []
        for t, xp, yp in zip(self.transforms, xs, ys):
            term = t.log_abs_det_jacobian(xp, yp)
            if t.event_dim < self.event_dim:
                term = sum_rightmost(term, self.event_dim - t.event_dim)
            terms.append(term)
        dim = (self.dim - x.ndim if self.dim >= 0 else self.dim) + self.event_dim
        return cat(terms, dim=dim) if dim < 0 else sum(terms)  # type: ignore[return-value]

    @constraints.dependent_property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(_Joined):
    """``tseq[i]`` on the ``i``-th slice along ``dim``, the results joined by ``stack``."""

    def __init__(self, tseq: Any, dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(tseq, dim, cache_size)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _parts(self, z: Tensor, name: str, letter: str) -> list[Tensor]:
        _check_block(self.dim, z, name, letter, len(self.transforms), "len(transforms)")
        return [z.select(self.dim, i) for i in range(z.shape[self.dim])]  # type: ignore[attr-defined]

    def _join(self, parts: list[Tensor]) -> Tensor:
        return stack(parts, dim=self.dim)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        xs, ys = self._parts(x, "x", "x"), self._parts(y, "y", "y")
        return stack([t.log_abs_det_jacobian(xp, yp) for t, xp, yp in zip(self.transforms, xs, ys)], dim=self.dim)

    @constraints.dependent_property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.stack([t.codomain for t in self.transforms], self.dim)
