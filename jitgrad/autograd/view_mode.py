"""The view mode: how autograd recovers a view of a gradient (Note [Views and in-place
writes] in ``ops/view_meta.py``).

*as_strided mode* (default) uses the view's geometry; *view-replay mode* replays the
recorded chain of view operations, as a backend without ``as_strided`` must. Gradients are
identical in both. The mode is process-wide, like a backend choice.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

_mode = {"replay": False}


def set_view_replay(enabled: bool) -> None:
    """Globally switch to view-replay mode (True) or back to as_strided mode (False)."""
    _mode["replay"] = bool(enabled)


def is_view_replay() -> bool:
    return _mode["replay"]


class view_replay:
    """Context manager (and decorator) running its block in view-replay mode
    (``view_replay(False)`` forces as_strided mode)."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = bool(enabled)

    def __enter__(self) -> None:
        self.prev = _mode["replay"]
        _mode["replay"] = self.enabled

    def __exit__(self, *exc: object) -> None:
        _mode["replay"] = self.prev

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with view_replay(self.enabled):
                return fn(*args, **kwargs)

        return wrapper
