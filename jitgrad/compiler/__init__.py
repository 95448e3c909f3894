"""``jitgrad.compile``: trace a function once per input geometry and replay it, forward and
backward, as a tape run by one cached Numba interpreter (Note [Compiled tapes] in
``compiled.py``).

Importing this package imports no Numba (``import jitgrad`` stays light, see
``kernels/_lazy.py``): the compiler, and Numba with it, load on the first ``compile`` call.
The other names (``CompiledFunction``, ``CompileFallbackWarning``, ``DataDependentError``,
``warmup``, ...) load from ``compiled.py`` on first access.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

_SUBMODULES = ("compiled", "trace", "_interp_jit")


def _compiled() -> Any:
    return importlib.import_module(f"{__name__}.compiled")


def compile(fn: Callable[..., Any] | None = None) -> Any:  # noqa: A001  (PyTorch's name)
    """Compile ``fn`` (usable as ``@jitgrad.compile``); see Note [Compiled tapes]."""
    return _compiled().compile(fn)


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES or name.startswith("__"):  # (the import system asks for these)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        return getattr(_compiled(), name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
