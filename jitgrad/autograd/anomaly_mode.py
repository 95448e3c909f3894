"""Anomaly mode (PyTorch's ``torch.autograd.detect_anomaly``): find the forward line behind a
failing backward.

While it is on, every ``Node`` records where the user's code created it (the first frame
outside the jitgrad package, plus a short traceback of user frames, in
``node.metadata["traceback_"]`` as PyTorch keeps it), and every ``SavedTensor`` where it was
saved. The engine then

- re-raises an error from a node's backward as the same exception type, with the message
  ``"Error in MulBackward0 created at file.py:12: <original>"`` and the original as
  ``__cause__``, after warning with the forward traceback (as PyTorch does);
- with ``check_nan``, raises ``"Function 'DivBackward0' returned nan values in its 0th
  output."`` for a node whose gradient contains NaN (wrapped the same way).

The mode is process-wide (as in PyTorch, not thread-local). When it is off, the cost is one
module-attribute check per node created and one local flag per node in the engine.
"""

from __future__ import annotations

import functools
import linecache
import sys
import threading
import warnings
from typing import Any, Callable, TypeVar

import numpy as np

from ..storage import library_file

F = TypeVar("F", bound=Callable[..., Any])

enabled = False  # read by Node.__init__, SavedTensor and the engine: keep it a plain global
check_nan_enabled = True
_TRACEBACK_FRAMES = 8  # user frames kept per node, innermost last


class _Current(threading.local):
    node: Any = None  # the node the engine is running on this thread (set in anomaly mode)


CURRENT = _Current()


def is_anomaly_enabled() -> bool:
    return enabled


def is_anomaly_check_nan_enabled() -> bool:
    return check_nan_enabled


def _set(mode: bool, nan: bool) -> None:
    global enabled, check_nan_enabled
    enabled, check_nan_enabled = bool(mode), bool(nan)


class set_detect_anomaly:
    """``set_detect_anomaly(True)`` turns anomaly mode on at once; as a context manager it
    restores the previous mode on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._prev = (enabled, check_nan_enabled)
        _set(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _set(*self._prev)


class detect_anomaly:
    """Context manager and decorator enabling anomaly mode (warns, as PyTorch does, that it
    slows everything down)."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and "
            "should only be enabled for debugging.", UserWarning, stacklevel=2,
        )

    def __enter__(self) -> None:
        self._prev = (enabled, check_nan_enabled)
        _set(True, self.check_nan)

    def __exit__(self, *exc: object) -> None:
        _set(*self._prev)

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            prev = (enabled, check_nan_enabled)  # per call: the function may recurse
            _set(True, self.check_nan)
            try:
                return fn(*args, **kwargs)
            finally:
                _set(*prev)

        return wrapper  # type: ignore[return-value]


# -- recording (forward) ----------------------------------------------------------------------


def user_frames() -> list[tuple[str, int, str]]:
    """``(file, line, function)`` of the innermost user frames (outside jitgrad), innermost
    last; jitgrad's own frames in between are skipped."""
    frames: list[tuple[str, int, str]] = []
    frame = sys._getframe(1)
    while frame is not None and len(frames) < _TRACEBACK_FRAMES:
        code = frame.f_code
        if not library_file(code.co_filename):
            frames.append((code.co_filename, frame.f_lineno, code.co_name))
        frame = frame.f_back  # type: ignore[assignment]
    frames.reverse()
    return frames


def record_creation(metadata: dict[str, Any]) -> None:
    """Store where the node owning ``metadata`` was created (called from ``Node.__init__``)."""
    frames = user_frames()
    metadata["traceback_"] = [
        f'  File "{f}", line {n}, in {name}\n    {linecache.getline(f, n).strip()}\n'
        for f, n, name in frames
    ]
    metadata["created_at"] = f"{frames[-1][0]}:{frames[-1][1]}" if frames else "<unknown>"
    if CURRENT.node is not None:  # made by a node's backward (create_graph, reentrant)
        metadata["parent_"] = CURRENT.node


def saved_location() -> str:
    """``file:line`` of the user code saving a tensor for backward."""
    frames = user_frames()
    return f"{frames[-1][0]}:{frames[-1][1]}" if frames else "<unknown>"


# -- reporting (backward) ---------------------------------------------------------------------


def check_outputs(node: Any, outputs: Any) -> None:
    """PyTorch's check_nan: raise if any gradient ``node`` returned contains NaN."""
    for i, g in enumerate(outputs):
        if g is None:
            continue
        values = getattr(g, "values", g)  # a ScatterGrad holds its non-zero part
        if values.dtype.kind == "f" and np.isnan(values._numpy()).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def wrap_error(node: Any, exc: BaseException) -> BaseException:
    """The exception to raise for ``exc`` escaping ``node`` in anomaly mode: the same type,
    naming the node and where it was created (``raise wrap_error(node, exc) from exc``)."""
    if getattr(exc, "_jitgrad_anomaly", False):  # already named by a nested backward
        return exc
    meta = node.__dict__.get("_metadata") or {}
    where = meta.get("created_at")
    if where is None:
        _warn(
            f"Error detected in {node.name()}. No forward pass information available. Enable "
            "anomaly detection during the forward pass for more information."
        )
        msg = f"Error in {node.name()} (created before anomaly detection was enabled): {exc}"
    else:
        _warn(
            f"Error detected in {node.name()}. Traceback of forward call that caused the "
            "error:\n" + "".join(meta.get("traceback_", ()))
        )
        msg = f"Error in {node.name()} created at {where}: {exc}"
    _warn_parents(meta)
    try:
        new = type(exc)(msg)
    except Exception:  # an exception type that needs other arguments: annotate the original
        new = None
    if new is None or str(new) != msg:
        if hasattr(exc, "add_note"):
            exc.add_note(msg)
        exc._jitgrad_anomaly = True  # type: ignore[attr-defined]
        return exc
    new._jitgrad_anomaly = True  # type: ignore[attr-defined]
    return new


def _warn_parents(meta: dict[str, Any]) -> None:
    """One warning per node up the chain of nodes whose backward made the failing one (each
    ``metadata["parent_"]``), with the forward line behind each, as PyTorch gives them."""
    parent = meta.get("parent_")
    while parent is not None:
        meta = parent.__dict__.get("_metadata") or {}
        if "traceback_" in meta:
            _warn(
                f"\n\nPrevious calculation was induced by {parent.name()}. Traceback of forward "
                "call that induced the previous calculation:\n" + "".join(meta["traceback_"])
            )
        else:  # (PyTorch words it as for the failing node)
            _warn(
                f"Error detected in {parent.name()}. No forward pass information available. "
                "Enable anomaly detection during the forward pass for more information."
            )
        parent = meta.get("parent_")


def _warn(message: str) -> None:
    """Warn about the failing node without replacing the error being reported: with warnings
    turned into errors, the warning goes to stderr instead, as PyTorch lets its original
    error through and prints the warning."""
    try:
        warnings.warn(message, UserWarning, stacklevel=4)
    except Warning:
        sys.stderr.write(f"UserWarning: {message}\n")
