"""One stderr line whenever a jitgrad kernel is *compiled* (not loaded from the cache).

A first-ever ``backward()`` may stall for seconds while Numba compiles; saying so, once per
signature, beats a silent pause. Numba fires its ``numba:compile`` event only for real
compiles (a cache hit returns before the event), so a warm cache prints nothing. Kernels of
other packages compiled in the same process are ignored.
"""
from __future__ import annotations

import contextlib
import sys
from typing import Any, Iterator

from numba.core import event

_quiet = [0]  # > 0 inside quiet(): `warmup` reports its own progress


class _CompileNotice(event.Listener):
    def on_start(self, ev: event.Event) -> None:
        data = ev.data or {}
        dispatcher = data.get("dispatcher")
        func = getattr(dispatcher, "py_func", None)
        if _quiet[0] or func is None or not func.__module__.startswith("jitgrad.kernels."):
            return
        # Only the cached kernels themselves, not the helpers their overloads compile.
        cache = getattr(getattr(dispatcher, "_cache", None), "cache_path", None)
        if cache is None:
            return
        sig = ", ".join(str(a) for a in data.get("args", ()))
        print(f"jitgrad: compiling Numba kernel {func.__name__.lstrip('_')} for ({sig}) "
              f"(first run only; cached in {cache})", file=sys.stderr, flush=True)

    def on_end(self, ev: event.Event) -> None:
        pass


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """No compile notices inside this block (for callers that report progress themselves)."""
    _quiet[0] += 1
    try:
        yield
    finally:
        _quiet[0] -= 1


def install() -> Any:
    """Register the listener for the life of the process (idempotent per import)."""
    listener = _CompileNotice()
    event.register("numba:compile", listener)
    return listener
