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
import contextvars
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


def quiet_call(f: Any, *args: Any, **kwargs: Any) -> Any:
    """``f(*args, **kwargs)`` with QUIET set around it."""
    token = QUIET.set(IGNORE_ALL)
    try:
        return f(*args, **kwargs)
    finally:
        QUIET.reset(token)


# ``QUIET_RUN(ufunc, x, y)``: the call in a Context of its own where QUIET is set, for the
# per-op paths. ``Context.run`` only swaps the thread's current context (~0.01 us), where
# ``QUIET.set``/``reset`` make a new mapping and a token each (~0.2 us, and objects for the
# collector). A ufunc on arrays reads no other context variable than NumPy's error state,
# so the caller's other variables are not missed; the same holds for the small functions
# of NumPy calls the ops pass (``reduction._log_sum_exp``: ufuncs, reductions, ``astype``),
# which must not set a context variable either (it would stay in this Context). A Context
# is entered by one thread at a time: ``QUIET_RUN`` raises RuntimeError (before calling)
# when another thread is inside it (NumPy releases the GIL in long loops) or an enclosing
# call is; callers then use ``quiet_call`` (a RuntimeError of the call itself runs it a
# second time, raising it again: callers pass calls that may run twice). Without the
# context variable (older NumPy), it is ``quiet_call``.
if isinstance(QUIET, contextvars.ContextVar):
    _QUIET_CONTEXT = contextvars.Context()
    _QUIET_CONTEXT.run(QUIET.set, IGNORE_ALL)
    QUIET_RUN = _QUIET_CONTEXT.run
else:  # pragma: no cover - depends on the NumPy version
    QUIET_RUN = quiet_call


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    token = QUIET.set(IGNORE_ALL)
    try:
        yield
    finally:
        QUIET.reset(token)
