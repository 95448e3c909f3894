"""NumPy's floating-point warnings, silenced the way PyTorch computes: quietly.

NumPy warns (RuntimeWarning) when a float result overflows or is nan: log(0), 1/0, inf - inf.
PyTorch computes those silently, so jitgrad's NumPy calls run with floating-point errors
ignored. ``with np.errstate(all="ignore")`` costs ~1 us per use; setting the context variable
it sets (NumPy >= 2's private ``_extobj_contextvar``; an errstate fallback otherwise) costs
~0.1 us. ``token = QUIET.set(IGNORE_ALL)`` ... ``QUIET.reset(token)`` bracket a call, or use
``with quiet():``.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

import numpy as np


class _Errstate:
    """Fallback with the context variable's interface, for NumPy versions without it."""

    def set(self, _: Any) -> Any:
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def reset(self, state: Any) -> None:
        state.__exit__(None, None, None)


try:
    from numpy._core.umath import _extobj_contextvar as QUIET  # type: ignore[attr-defined]

    with np.errstate(all="ignore"):
        IGNORE_ALL = QUIET.get()
except (ImportError, AttributeError):  # pragma: no cover - depends on the NumPy version
    QUIET, IGNORE_ALL = _Errstate(), None  # type: ignore[assignment]


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    token = QUIET.set(IGNORE_ALL)
    try:
        yield
    finally:
        QUIET.reset(token)
