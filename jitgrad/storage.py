"""Storage: one flat NumPy buffer shared by a tensor and all its views, plus its version counter.

Note [Version counter]
~~~~~~~~~~~~~~~~~~~~~~
Every in-place write to any tensor viewing a storage bumps ``Storage.version`` exactly once,
so every alias sees the same ``_version``. Autograd records the version of each tensor it
saves for backward and refuses to use it if the version moved. To say *which* write moved
it, ``bump`` also records the operation's name and the user's source line (a frame walk that
stops at the first frame outside jitgrad; a few microseconds, paid only by in-place writes).
"""

from __future__ import annotations

import os
import sys

import numpy as np

from . import _tracing, dtypes

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def user_frame_location(skip: int = 1) -> str:
    """``file:line`` of the innermost caller outside the jitgrad package."""
    frame = sys._getframe(skip)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return "<unknown>"
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


class OutOfMemoryError(RuntimeError, MemoryError):
    """Not enough memory for a tensor's buffer: a ``RuntimeError`` as in PyTorch, and a
    ``MemoryError`` as in NumPy, so either ``except`` catches it."""


def allocate(n: int, dtype: np.dtype, fill: object = None) -> np.ndarray:
    """A new flat buffer of ``n`` elements (uninitialised, or filled with ``fill``)."""
    try:
        if fill is None:
            return np.empty(n, dtype)
        return np.full(n, fill, dtype) if fill != 0 else np.zeros(n, dtype)
    except MemoryError:
        size = n * np.dtype(dtype).itemsize
        raise OutOfMemoryError(
            f"cannot allocate a buffer of {n} {np.dtype(dtype).name} elements ({size} bytes): "
            "not enough memory"
        ) from None


class Storage:
    """A flat, C-contiguous, 1-D NumPy buffer of one supported dtype."""

    __slots__ = ("buffer", "version", "last_write", "__weakref__")

    def __init__(self, buffer: np.ndarray) -> None:
        if not isinstance(buffer, np.ndarray) or buffer.ndim != 1 or not buffer.flags.c_contiguous:
            raise TypeError("Storage: expected a 1-D C-contiguous numpy array")
        if buffer.dtype not in dtypes.SUPPORTED:
            raise TypeError(f"Storage: unsupported dtype {buffer.dtype}")
        self.buffer = buffer
        self.version = 0
        self.last_write: tuple[str, str] | None = None
        if _tracing.ACTIVE is not None:  # jitgrad.compile: which storages the trace made
            _tracing.ACTIVE.new_storage(self)

    @property
    def dtype(self) -> np.dtype:
        return self.buffer.dtype

    @property
    def readonly(self) -> bool:
        return not self.buffer.flags.writeable

    def size(self) -> int:
        return self.buffer.shape[0]

    def check_writable(self, op: str) -> None:
        if not self.buffer.flags.writeable:
            raise RuntimeError(
                f"{op}: cannot write in place into a tensor whose memory is read-only (it shares "
                "memory with a read-only NumPy array); write into a copy: t = t.clone()"
            )

    def bump(self, op: str) -> None:
        """Record one in-place write; see Note [Version counter]."""
        self.version += 1
        self.last_write = (op, user_frame_location(2))
        if _tracing.ACTIVE is not None:  # jitgrad.compile: every write must be recorded
            _tracing.ACTIVE.bumped(self, op)
