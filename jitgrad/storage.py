"""Storage: one flat NumPy buffer shared by a tensor and all its views, plus its version counter.

Note [Version counter]
~~~~~~~~~~~~~~~~~~~~~~
Every in-place write to any tensor viewing a storage bumps ``Storage.version`` exactly once,
so every alias sees the same ``_version``. Autograd records the version of each tensor it
saves for backward and refuses to use it if the version moved. To say *which* write moved
it, ``bump`` also records the operation's name and the user's file and line (a frame walk that
stops at the first frame outside jitgrad, paid only by in-place writes; the message is
formatted only when an error reads it).

The counter is its own object (``VersionCounter``), held by the ``Storage``: as in PyTorch,
``x.data`` shares ``x``'s memory but starts a new counter (a second ``Storage`` on the same
buffer), and ``x.data = y`` gives ``x`` y's memory but keeps x's counter, which x's views
share. ``Storage.inference`` marks memory allocated under ``inference_mode``: inference
tensors track no version and may not be saved for backward (``autograd/grad_mode.py``).
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from types import CodeType, FrameType
from typing import Any

import numpy as np

from . import _tracing, dtypes

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
# the command-line programs (the bench's scenarios, the demos) use the library as a user
# does: the walk to the user's frame in ``Storage.bump`` stops at theirs
_CLI_DIR = os.path.join(_PACKAGE_DIR, "cli") + os.sep


def library_file(name: str) -> bool:
    """Whether a frame of file ``name`` is jitgrad's own, not its user's. The command-line
    programs (the bench's scenarios, the demos) use the library as a user does: theirs are
    user frames."""
    return name.startswith(_PACKAGE_DIR) and not name.startswith(_CLI_DIR)


def user_frame(skip: int = 1) -> FrameType | None:
    """The innermost frame outside jitgrad (``library_file``), looking from ``skip`` frames
    above the caller (1: the caller's caller) outwards; None if there is none."""
    frame: FrameType | None = sys._getframe(skip + 1)
    while frame is not None:
        name = frame.f_code.co_filename
        # (library_file, inlined: this walk runs on every in-place write)
        if not name.startswith(_PACKAGE_DIR) or name.startswith(_CLI_DIR):
            return frame
        frame = frame.f_back
    return None


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


class _InferenceState(threading.local):
    enabled = False  # inference mode (set by autograd/grad_mode.inference_mode), per thread


INFERENCE = _InferenceState()


class VersionCounter:
    """The version shared by every tensor that aliases one storage (Note [Version counter]),
    and the last write: its op, and the user's file and line (formatted only when an error
    message asks for ``last_write``)."""

    # The user's code object and instruction offset (``f_lasti``): its line is looked up
    # only when a message asks. ``f_lineno`` on every write scans the code's line table from
    # its start, a cost that grows with the length of the user's function (~1 us per write
    # in the HMM's loop). ``_lasti`` is -1 when ``_line`` was read from the frame instead.
    __slots__ = ("value", "_op", "_code", "_lasti", "_line")

    def __init__(self) -> None:
        self.value = 0
        self._op: str | None = None
        self._code: CodeType | None = None
        self._lasti = -1
        self._line: int | None = 0

    @property
    def last_write(self) -> tuple[str, str] | None:
        """``(op, "file:line")`` of the last write, or None."""
        if self._op is None:
            return None
        code = self._code
        if code is None:
            return self._op, "<unknown>"
        line = self._line if self._lasti < 0 else _line_of(code, self._lasti)
        return self._op, f"{code.co_filename}:{line}"


def _line_of(code: CodeType, lasti: int) -> int | None:
    """The line of the instruction at byte offset ``lasti`` (what ``frame.f_lineno`` gives
    while the frame runs it, untraced)."""
    for start, end, line in code.co_lines():
        if start <= lasti < end:
            return line
    return None


# ``dtypes.SUPPORTED`` as a set: a membership test hashes instead of comparing nine dtypes
_SUPPORTED = frozenset(dtypes.SUPPORTED)

_new = object.__new__  # (a module global: one lookup less on the per-op path of ``_fresh``)


class Storage:
    """A flat, C-contiguous, 1-D NumPy buffer of one supported dtype, and its version counter.
    The buffer is exactly ``np.ndarray``, never a subclass (whose ``__array_function__`` or
    priority would change what NumPy's functions do with it): the per-op paths call NumPy
    without its dispatch and need not check each input (``from_numpy`` views a subclass's
    memory as ``np.ndarray``; NumPy's results from such buffers are ``np.ndarray`` too)."""

    # ``_counter`` is made on first need (a write, a shared counter): most results are
    # never written, and each object less per op is less work for Python's collector
    __slots__ = ("buffer", "_counter", "inference", "resizable", "__weakref__")

    def __init__(self, buffer: np.ndarray, counter: VersionCounter | None = None) -> None:
        if buffer.__class__ is not np.ndarray or buffer.ndim != 1 or not buffer.flags.c_contiguous:
            raise TypeError(
                f"Storage: expected a 1-D C-contiguous numpy.ndarray (not a subclass), got "
                f"{type(buffer).__name__}"
            )
        if buffer.dtype not in _SUPPORTED:
            raise TypeError(f"Storage: unsupported dtype {buffer.dtype}")
        self.buffer = buffer
        self._counter = counter
        self.inference = INFERENCE.enabled
        # ``resize_`` may grow the buffer only when no one else holds it: not NumPy memory
        # (``from_numpy``) nor a buffer another Storage shares (``.data``, unsafe splits)
        self.resizable = True
        if _tracing.ACTIVE is not None:  # jitgrad.compile: which storages the trace made
            _tracing.ACTIVE.new_storage(self)

    @classmethod
    def _fresh(cls, buffer: np.ndarray) -> Storage:
        """``Storage(buffer)`` for a buffer jitgrad has just allocated (``allocate``): it is
        1-D and contiguous by construction, so only its dtype is checked (the per-op path
        of every result)."""
        if buffer.dtype not in _SUPPORTED:
            raise TypeError(f"Storage: unsupported dtype {buffer.dtype}")
        s = _new(cls)
        s.buffer = buffer
        s._counter = None
        s.inference = INFERENCE.enabled
        s.resizable = True
        if _tracing.ACTIVE is not None:  # jitgrad.compile: which storages the trace made
            _tracing.ACTIVE.new_storage(s)
        return s

    @property
    def counter(self) -> VersionCounter:
        counter = self._counter
        if counter is None:
            counter = self._counter = VersionCounter()
        return counter

    @property
    def version(self) -> int:
        counter = self._counter
        return 0 if counter is None else counter.value

    @version.setter
    def version(self, value: int) -> None:
        self.counter.value = value

    @property
    def last_write(self) -> tuple[str, str] | None:
        counter = self._counter
        return None if counter is None else counter.last_write

    def alias(self) -> Storage:
        """The same memory under a new version counter (Note [Version counter])."""
        fresh = Storage(self.buffer)
        fresh.inference = self.inference
        fresh.resizable = self.resizable = False
        return fresh

    def same_memory(self, other: Storage) -> bool:
        """Whether two storages hold the same buffer (``x`` and ``x.data`` do)."""
        return self.buffer is other.buffer

    @property
    def dtype(self) -> np.dtype:
        return self.buffer.dtype

    @property
    def readonly(self) -> bool:
        return not self.buffer.flags.writeable

    def size(self) -> int:
        return self.buffer.shape[0]

    def before_write(self) -> None:
        """Run the write hooks (``allow_mutation_on_saved_tensors``): the memory, or the
        geometry of a tensor on it, is about to change in place."""
        for hook in WRITE_HOOKS:
            hook(self)

    def check_writable(self, op: str) -> None:
        self.before_write()
        if self.inference and not INFERENCE.enabled:
            raise RuntimeError(
                f"{op}: Inplace update to inference tensor outside InferenceMode is not allowed. "
                "You can make a clone to get a normal tensor before doing inplace update. See "
                "https://github.com/pytorch/rfcs/pull/17 for more details."
            )
        if not self.buffer.flags.writeable:
            raise RuntimeError(
                f"{op}: cannot write in place into a tensor whose memory is read-only (it shares "
                "memory with a read-only NumPy array); write into a copy: t = t.clone()"
            )

    def bump(self, op: str, skip: int = 1) -> None:
        """Record one in-place write; see Note [Version counter]. The walk to the user's
        frame starts ``skip`` frames up (1: the caller): a caller that knows its own
        callers are jitgrad's skips them too."""
        counter = self._counter
        if counter is None:
            counter = self._counter = VersionCounter()
        counter.value += 1
        counter._op = op
        # ``user_frame(skip)``, written out (one frame less on every write; tests/
        # test_lean_inplace.py checks that the two walks stop at the same frame)
        frame: FrameType | None = sys._getframe(skip)
        while frame is not None:
            name = frame.f_code.co_filename
            if not name.startswith(_PACKAGE_DIR) or name.startswith(_CLI_DIR):
                break
            frame = frame.f_back
        if frame is None:
            counter._code = None
        else:
            counter._code = frame.f_code
            lasti = frame.f_lasti
            if lasti < 0 or frame.f_trace is not None:  # (a tracer may set the line)
                counter._lasti, counter._line = -1, frame.f_lineno
            else:
                counter._lasti = lasti
        if _tracing.ACTIVE is not None:  # jitgrad.compile: every write must be recorded
            _tracing.ACTIVE.bumped(self, op)


class UntypedStorage:
    """What ``Tensor.untyped_storage()`` returns: the tensor's memory as bytes, PyTorch's
    ``data_ptr()`` / ``nbytes()`` / ``size()`` (bytes), ``element_size()`` (1)."""

    __slots__ = ("_storage",)

    def __init__(self, storage: Storage) -> None:
        self._storage = storage

    def data_ptr(self) -> int:
        """The memory's address; 0 for a storage of no bytes (PyTorch allocates nothing)."""
        buffer = self._storage.buffer
        return int(buffer.ctypes.data) if buffer.nbytes else 0

    def nbytes(self) -> int:
        return int(self._storage.buffer.nbytes)

    def size(self) -> int:
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    def __repr__(self) -> str:
        return f"<jitgrad.UntypedStorage of {self.nbytes()} bytes at {self.data_ptr():#x}>"


_TYPED_STORAGE_REMOVAL = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
    "storage class. This should only matter to you if you are using storages directly.  To access "
    "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()")
_typed_storage_warnings = {"given": False, "always": False}


def _warn_typed_storage_removal(stacklevel: int = 2) -> None:
    """PyTorch's deprecation warning of typed storages (``Tensor.storage()``): once per
    process, not governed by ``set_warn_always`` but by its own switch (``stacklevel`` as
    ``warnings.warn``'s, counted from the caller)."""
    if _typed_storage_warnings["always"] or not _typed_storage_warnings["given"]:
        warnings.warn(_TYPED_STORAGE_REMOVAL, UserWarning, stacklevel=stacklevel + 1)
        _typed_storage_warnings["given"] = True


def _reset_warn_typed_storage_removal() -> None:
    """Let the next typed storage warn again (``torch.storage._reset_warn_typed_storage_removal``)."""
    _typed_storage_warnings["given"] = False


def _set_always_warn_typed_storage_removal(always_warn: bool) -> None:
    _typed_storage_warnings["always"] = bool(always_warn)


def _get_always_warn_typed_storage_removal() -> bool:
    return _typed_storage_warnings["always"]


class TypedStorage(UntypedStorage):
    """What ``Tensor.storage()`` returns (PyTorch's legacy typed storage): sizes in elements."""

    __slots__ = ()

    def size(self) -> int:
        return int(self._storage.buffer.shape[0])

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        return int(self._storage.buffer.itemsize)

    def __getitem__(self, index: Any) -> Any:
        """Element ``index`` of the memory (negative counts from the end), a Python number."""
        if isinstance(index, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if not isinstance(index, int):  # (as PyTorch's: not even a NumPy integer)
            raise RuntimeError(f"can't index a {type(self)} with {type(index)}")
        size = self.size()
        if not -size <= index < size:
            raise IndexError(f"index {index} out of range for storage of size {size}")
        return self._storage.buffer[index].item()

    def tolist(self) -> list[Any]:
        """Every element of the memory, as Python numbers."""
        return self._storage.buffer.tolist()  # type: ignore[no-any-return]

    @property
    def dtype(self) -> np.dtype:
        return self._storage.buffer.dtype

    def __repr__(self) -> str:
        return f"<jitgrad.TypedStorage of {self.size()} {self.dtype.name} at {self.data_ptr():#x}>"


# Called with a storage just before any in-place write into it (from ``check_writable``):
# ``autograd.graph.allow_mutation_on_saved_tensors`` clones saved tensors there first.
WRITE_HOOKS: list[Any] = []
