"""The ``Transform`` protocol (an invertible map with its log-Jacobian, ``domain`` and
``codomain``), inverses, composition and ``IndependentTransform``; the concrete transforms are
in ``transforms.py``, which re-exports these.

``cache_size=1`` remembers the last ``(x, y)`` pair, so ``t.inv(t(x))`` returns ``x`` itself
(the object, not a recomputation), as PyTorch's."""

from __future__ import annotations

from typing import Any

from ..creation import zeros_like
from ..tensor import Tensor
from . import constraints
from .utils import lazy_property, sum_rightmost


class Transform:
    """A map from ``domain`` to ``codomain``; subclasses define ``_call``, ``_inverse`` and
    ``log_abs_det_jacobian``, and set ``bijective`` and ``sign`` where they apply."""

    bijective = False
    domain: constraints.Constraint
    codomain: constraints.Constraint

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._inv: Transform | None = None
        self._cached_x_y: tuple[Any, Any] = (None, None)

    @property
    def event_dim(self) -> int:
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> Transform:
        """The inverse transform (made once, and kept)."""
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    @property
    def sign(self) -> Any:
        raise NotImplementedError

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = (x, y)
        return y

    def _inv_call(self, y: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = (x, y)
        return x

    def _call(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        raise NotImplementedError

    def forward_shape(self, shape: Any) -> Any:
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        return shape

    def __repr__(self) -> str:
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """``t.inv``: ``t`` run backwards (its cache shared)."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return self._inv.codomain  # type: ignore[union-attr]

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return self._inv.domain  # type: ignore[union-attr]

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self._inv.bijective  # type: ignore[union-attr]

    @property
    def sign(self) -> Any:
        return self._inv.sign  # type: ignore[union-attr]

    @property
    def inv(self) -> Transform:
        return self._inv  # type: ignore[return-value]

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __call__(self, x: Tensor) -> Tensor:
        return self._inv._inv_call(x)  # type: ignore[union-attr]

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -self._inv.log_abs_det_jacobian(y, x)  # type: ignore[union-attr]

    def forward_shape(self, shape: Any) -> Any:
        return self._inv.inverse_shape(shape)  # type: ignore[union-attr]

    def inverse_shape(self, shape: Any) -> Any:
        return self._inv.forward_shape(shape)  # type: ignore[union-attr]

    def __repr__(self) -> str:
        return f"_InverseTransform({self._inv!r})"


def _widened(constraint: constraints.Constraint, event_dim: int) -> constraints.Constraint:
    """``constraint`` over ``event_dim`` rightmost dims (it covers at least its own)."""
    extra = event_dim - constraint.event_dim
    return constraints.independent(constraint, extra) if extra > 0 else constraint


class ComposeTransform(Transform):
    """``parts`` applied in order."""

    def __init__(self, parts: list[Transform], cache_size: int = 0) -> None:
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        if not self.parts:
            return constraints.real
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim = max(event_dim + part.domain.event_dim - part.codomain.event_dim, part.domain.event_dim)
        return _widened(self.parts[0].domain, event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        if not self.parts:
            return constraints.real
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim = max(event_dim + part.codomain.event_dim - part.domain.event_dim, part.codomain.event_dim)
        return _widened(self.parts[-1].codomain, event_dim)

    @lazy_property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(p.bijective for p in self.parts)

    @lazy_property
    def sign(self) -> Any:  # type: ignore[override]
        sign: Any = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self) -> Transform:
        if self._inv is None:
            inverse = ComposeTransform([p.inv for p in reversed(self.parts)])
            inverse._inv = self
            self._inv = inverse
        return self._inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self if self._cache_size == cache_size else ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x: Tensor) -> Tensor:
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        if not self.parts:
            return zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        total: Any = 0
        event_dim = self.domain.event_dim
        for part, a, b in zip(self.parts, xs[:-1], xs[1:]):
            total = total + sum_rightmost(part.log_abs_det_jacobian(a, b), event_dim - part.domain.event_dim)
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape: Any) -> Any:
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self) -> str:
        return "ComposeTransform(\n    " + ",\n    ".join(repr(p) for p in self.parts) + "\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """``base_transform`` with ``reinterpreted_batch_ndims`` more dims taken as one event
    (its log-Jacobian summed over them)."""

    def __init__(self, base_transform: Transform, reinterpreted_batch_ndims: int, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self.base_transform.bijective

    @property
    def sign(self) -> Any:
        return self.base_transform.sign

    def _call(self, x: Tensor) -> Tensor:
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y: Tensor) -> Tensor:
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def forward_shape(self, shape: Any) -> Any:
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        return self.base_transform.inverse_shape(shape)

    def __repr__(self) -> str:
        return f"IndependentTransform({self.base_transform!r}, {self.reinterpreted_batch_ndims})"
