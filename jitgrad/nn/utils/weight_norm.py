"""``torch.nn.utils.weight_norm`` (the older, hook-based spelling, deprecated in favour of
``parametrizations.weight_norm``): ``weight`` becomes ``weight_g * weight_v / ||weight_v||``
recomputed by a forward pre hook before every call, ``weight_g`` and ``weight_v`` being the
parameters; ``remove_weight_norm`` makes ``weight`` a parameter again."""

from __future__ import annotations

import warnings
from typing import Any

from ..modules.module import Module
from ..parameter import Parameter
from ._norm_hooks import remove_norm_hook
from .parametrizations import norm_except_dim

__all__ = ["WeightNorm", "remove_weight_norm", "weight_norm"]


class WeightNorm:
    """The forward pre hook (and its bookkeeping) of one weight-normalised parameter."""

    def __init__(self, name: str, dim: Any) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Any:
        v = getattr(module, self.name + "_v")
        return v * (getattr(module, self.name + "_g") / norm_except_dim(v, self.dim))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))


def weight_norm(module: Module, name: str = "weight", dim: Any = 0) -> Module:
    """Split ``module.<name>`` into ``<name>_g`` (magnitude) and ``<name>_v`` (direction)."""
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                  "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, WeightNorm) and hook.name == name:
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
    fn = WeightNorm(name, dim)
    weight = getattr(module, name)
    del module._parameters[name]
    module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, fn.dim).detach()))
    module.register_parameter(name + "_v", Parameter(weight.detach()))
    setattr(module, name, fn.compute_weight(module))
    module.register_forward_pre_hook(fn)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo ``weight_norm``: ``<name>`` is a plain parameter (its current value) again."""
    return remove_norm_hook(module, name, WeightNorm, "weight_norm")

