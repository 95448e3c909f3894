"""Seeded, cached benchmark data shared by every benchmark file.

Benchmarks are run with ``asv run --python=same`` (or ``asv dev``) from ``asv_bench/``: they
import the jitgrad installed in the current environment, i.e. this checkout when it is
installed editable (``python3 tasks.py asv`` does that).
"""

from __future__ import annotations

import functools

import numpy as np

SEED = 20261129
SIZES = [1_000, 100_000, 1_000_000, 16_000_000]
DTYPES = ["float32", "float64"]
LAYOUTS = ["contiguous", "transposed", "step_sliced", "broadcast_src"]


def shape_for(n: int) -> tuple[int, int]:
    """A near-square 2-D shape with about ``n`` elements."""
    rows = max(1, int(round(n**0.5)))
    return rows, max(1, n // rows)


@functools.lru_cache(maxsize=8)
def random_array(shape: tuple[int, ...], dtype: str) -> np.ndarray:
    return np.random.default_rng(SEED).random(shape).astype(dtype)


def strided(view: np.ndarray) -> tuple[np.ndarray, int, tuple[int, ...]]:
    """``(flat buffer, offset, strides)`` in elements, for a view of a C-contiguous array."""
    base = view
    while base.base is not None and isinstance(base.base, np.ndarray):
        base = base.base
    buffer = base.reshape(-1)
    item = view.itemsize
    offset = (view.__array_interface__["data"][0] - buffer.__array_interface__["data"][0]) // item
    return buffer, offset, tuple(s // item for s in view.strides)


def layout(kind: str, n: int, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """A contiguous destination and a source view of ``kind``, both of about ``n`` elements."""
    rows, cols = shape_for(n)
    if kind == "contiguous":
        src = random_array((rows, cols), dtype)
    elif kind == "transposed":
        src = random_array((cols, rows), dtype).T
    elif kind == "step_sliced":
        src = random_array((rows, 2 * cols), dtype)[:, ::2]
    elif kind == "broadcast_src":
        src = np.broadcast_to(random_array((1, cols), dtype), (rows, cols))
    else:
        raise ValueError(f"unknown layout {kind!r}")
    return np.zeros((rows, cols), dtype), src
