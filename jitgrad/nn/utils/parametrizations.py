"""``torch.nn.utils.parametrizations``: ``weight_norm`` as a parametrization
(``weight = g * v / ||v||``, the norm over every dim but ``dim``), stored as
``parametrizations.weight.original0`` (``g``) and ``original1`` (``v``); ``spectral_norm``
(see ``spectral_norm.py``) and ``orthogonal`` (see ``orthogonal.py``)."""

from __future__ import annotations

from typing import Any

from ...autograd import no_grad
from ...ops.norms import vector_norm
from ...tensor import Tensor
from ..modules.module import Module
from . import parametrize
from .orthogonal import orthogonal
from .spectral_norm import as_matrix, check_iterations, default_dim, normalized, random_unit

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


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


class _SpectralNorm(Module):
    """``weight / sigma`` (see ``spectral_norm.py``); a 1-D weight is just normalised."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        check_iterations(n_power_iterations)
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            with no_grad():
                matrix = as_matrix(weight, self.dim)
                rows, cols = matrix.shape
                self.register_buffer("_u", random_unit(rows, weight, eps))
                self.register_buffer("_v", random_unit(cols, weight, eps))
            self._power_method(matrix, 15)

    def _power_method(self, matrix: Tensor, n_power_iterations: int) -> None:
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(normalized(matrix.mv(self._v), self.eps))
                self._v.copy_(normalized(matrix.mT.mv(self._u), self.eps))  # type: ignore[attr-defined]

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return normalized(weight, self.eps)
        matrix = as_matrix(weight, self.dim)
        if self.training:
            self._power_method(matrix, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        return weight / u.dot(matrix.mv(v))  # type: ignore[attr-defined,no-any-return]

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """Reparametrize ``module.<name>`` as itself divided by its spectral norm (power iteration,
    one step per training-mode access)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    parametrization = _SpectralNorm(weight, n_power_iterations, default_dim(module) if dim is None else dim, eps)
    return parametrize.register_parametrization(module, name, parametrization)
