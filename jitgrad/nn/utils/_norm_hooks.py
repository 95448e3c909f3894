"""What the hook-based ``weight_norm`` and ``spectral_norm`` share: removing the hook."""

from __future__ import annotations

from ..modules.module import Module


def remove_norm_hook(module: Module, name: str, kind: type, label: str) -> Module:
    """Remove ``module``'s forward pre-hook of class ``kind`` on ``name`` (``weight_norm``'s,
    ``spectral_norm``'s: ``label``), which makes ``<name>`` a plain parameter again."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, kind) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"{label} of '{name}' not found in {module}")
