"""``torch.random``'s counterpart: the default generator's seed and state
(``manual_seed``, ``seed``, ``initial_seed``, ``get_rng_state``, ``set_rng_state``, the same
functions as ``jitgrad.*``) and ``fork_rng``, which restores them on leaving."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

from .randomness import Generator, manual_seed
from .rng_state import get_rng_state, initial_seed, seed, set_rng_state


@contextlib.contextmanager
def fork_rng(devices: Iterable[Any] | None = None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: str | None = None) -> Iterator[None]:
    """Run the block with the default generator's state (and ``initial_seed``) restored
    afterwards, even when it raises. ``devices`` and ``device_type`` are accepted for
    PyTorch's signature; jitgrad has only the CPU generator. ``enabled=False`` does nothing."""
    del devices, _caller, _devices_kw, device_type
    if not enabled:
        yield
        return
    saved_seed, saved_state = initial_seed(), get_rng_state()
    try:
        yield
    finally:
        manual_seed(saved_seed)  # initial_seed() as before ...
        set_rng_state(saved_state)  # ... and the next draws as before


__all__ = ["Generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]
