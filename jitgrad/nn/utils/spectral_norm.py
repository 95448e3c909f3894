"""Spectral normalisation: ``weight / sigma``, ``sigma`` the largest singular value of the
weight seen as a matrix (``dim`` first, the other dims flattened), estimated by power
iteration with vectors ``u`` and ``v`` kept between calls. Two spellings, as PyTorch:

- ``torch.nn.utils.spectral_norm`` (hook-based): the parameter becomes ``<name>_orig``, the
  vectors buffers ``<name>_u`` and ``<name>_v``, and a forward pre hook sets ``<name>``
  before every call (one power iteration first in training mode: ``v`` then ``u``);
  ``remove_spectral_norm`` makes ``<name>`` a parameter again.
- ``torch.nn.utils.parametrizations.spectral_norm``: a parametrization holding ``_u`` and
  ``_v`` (15 power iterations at creation, ``u`` then ``v``; one more per training-mode
  access), keys ``parametrizations.<name>.original`` and ``parametrizations.<name>.0._u``.

The vectors start from jitgrad's generator (not PyTorch's numbers); from the same vectors
the weights and gradients are PyTorch's (tests/test_spectral_norm.py). ``sigma`` is
``u . (W v)`` with ``u`` and ``v`` copies, so the gradient flows through ``W`` only.
"""

from __future__ import annotations

from typing import Any

from ...autograd import no_grad
from ...creation import empty
from ...ops.norms import vector_norm
from ...tensor import Tensor
from ..modules.module import Module
from ..parameter import Parameter
from ._norm_hooks import remove_norm_hook

__all__ = ["SpectralNorm", "remove_spectral_norm", "spectral_norm"]


def normalized(x: Tensor, eps: float) -> Tensor:
    """``x / max(||x||, eps)`` (``F.normalize`` of a vector)."""
    return x / vector_norm(x).clamp(min=eps)  # type: ignore[attr-defined,no-any-return]


def as_matrix(weight: Tensor, dim: int) -> Tensor:
    """``weight`` with ``dim`` first, the other dims flattened into columns."""
    if dim != 0:
        weight = weight.permute(dim, *(d for d in range(weight.ndim) if d != dim))  # type: ignore[attr-defined]
    return weight.reshape(weight.shape[0], -1)  # type: ignore[attr-defined,no-any-return]


def random_unit(n: int, like: Tensor, eps: float) -> Tensor:
    """A normalised vector of ``n`` standard normal draws (jitgrad's generator)."""
    return normalized(empty(n, dtype=like.dtype).normal_(0, 1), eps)  # type: ignore[attr-defined]


def check_iterations(n_power_iterations: int) -> None:
    if n_power_iterations <= 0:
        raise ValueError("Expected n_power_iterations to be positive, but "
                         f"got n_power_iterations={n_power_iterations}")


def default_dim(module: Module) -> int:
    """1 for the transposed convolutions (their weight holds the input channels first), else 0."""
    from ..modules.conv_transpose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

    return 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0


class SpectralNorm:
    """The forward pre hook (and its bookkeeping) of one spectrally normalised parameter."""

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        check_iterations(n_power_iterations)
        self.name = name
        self.dim = dim
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        matrix = as_matrix(weight, self.dim)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(normalized(matrix.t().mv(u), self.eps))  # type: ignore[attr-defined]
                    u.copy_(normalized(matrix.mv(v), self.eps))  # type: ignore[attr-defined]
                u, v = u.clone(), v.clone()  # type: ignore[attr-defined]
        sigma = u.dot(matrix.mv(v))  # type: ignore[attr-defined]
        return weight / sigma  # type: ignore[no-any-return]

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float) -> SpectralNorm:
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        with no_grad():
            rows, cols = as_matrix(weight, dim).shape
            u, v = random_unit(rows, weight, eps), random_unit(cols, weight, eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", weight)
        setattr(module, name, weight.detach())
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """Divide ``module.<name>`` by its spectral norm before every call (see the module doc)."""
    SpectralNorm.apply(module, name, n_power_iterations, default_dim(module) if dim is None else dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undo ``spectral_norm``: ``<name>`` is a plain parameter (its current normalised value)."""
    return remove_norm_hook(module, name, SpectralNorm, "spectral_norm")
