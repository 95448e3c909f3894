"""PyTorch's ``TORCH_WARN_ONCE``: a warning given once per process, or every time after
``jitgrad.set_warn_always(True)`` (``torch.set_warn_always``). Imports nothing, so any layer
may warn through it."""

from __future__ import annotations

import warnings

_always = False
_given: set[str] = set()


def set_warn_always(b: bool) -> None:
    """Give the once-per-process warnings every time (``True``) or once again (``False``)."""
    global _always
    _always = bool(b)


def is_warn_always_enabled() -> bool:
    return _always


def warn_once(message: str, category: type[Warning] = UserWarning, stacklevel: int = 3) -> None:
    """Warn with ``message`` the first time (every time with ``set_warn_always(True)``);
    ``stacklevel`` counts from the caller of the function that calls this one."""
    if _always:  # (as PyTorch's: a warning given while always is on still counts as not given)
        warnings.warn(message, category, stacklevel=stacklevel)
    elif message not in _given:
        _given.add(message)
        warnings.warn(message, category, stacklevel=stacklevel)
