"""``seed``, ``get_rng_state`` and ``set_rng_state`` for jitgrad's default generator.

The state is a uint8 tensor, as PyTorch's, holding NumPy's PCG64 state (the 128-bit state
and increment, then the buffered 32-bit draw and its flag): ``set_rng_state(get_rng_state())``
makes the following draws repeat exactly. It is not PyTorch's state (different generator).
"""

from __future__ import annotations

import secrets

import numpy as np

from . import dtypes, randomness
from .tensor import Tensor

_STATE_BYTES = 16 + 16 + 4 + 4


def seed() -> int:
    """Seed the default generator from the operating system's entropy; returns the seed."""
    value = secrets.randbits(63)
    randomness.manual_seed(value)
    return value


def initial_seed() -> int:
    """The seed last given to the default generator (``manual_seed`` or ``seed``)."""
    seed_value = randomness._default.initial_seed()
    return 0 if seed_value is None else seed_value


def get_rng_state() -> Tensor:
    """The default generator's state, as a uint8 tensor of 40 bytes."""
    state = randomness.default_rng().bit_generator.state
    if state.get("bit_generator") != "PCG64":
        raise RuntimeError(f"get_rng_state(): unexpected bit generator {state.get('bit_generator')}")
    inner = state["state"]
    raw = (int(inner["state"]).to_bytes(16, "little") + int(inner["inc"]).to_bytes(16, "little")
           + int(state["has_uint32"]).to_bytes(4, "little") + int(state["uinteger"]).to_bytes(4, "little"))
    values = np.frombuffer(raw, dtype=np.uint8).copy()
    return Tensor._from_buffer(values, (_STATE_BYTES,))


def set_rng_state(new_state: Tensor) -> None:
    """Restore a state ``get_rng_state`` returned."""
    if not isinstance(new_state, Tensor):
        raise TypeError(f"set_rng_state(): argument 'new_state' must be a Tensor, got {type(new_state).__name__}")
    if new_state.dtype != dtypes.uint8 or tuple(new_state.shape) != (_STATE_BYTES,):
        raise RuntimeError(
            f"set_rng_state(): expected a uint8 tensor of shape [{_STATE_BYTES}] (from get_rng_state), "
            f"got {new_state.dtype.name} of shape {list(new_state.shape)}"
        )
    raw = bytes(new_state._numpy().tobytes())
    inc = int.from_bytes(raw[16:32], "little")
    if inc % 2 == 0:
        raise RuntimeError("set_rng_state(): not a state from get_rng_state (the PCG64 increment must be odd)")
    randomness.default_rng().bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": int.from_bytes(raw[:16], "little"), "inc": inc},
        "has_uint32": int.from_bytes(raw[32:36], "little"),
        "uinteger": int.from_bytes(raw[36:40], "little"),
    }
