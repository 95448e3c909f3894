"""Nested (reentrant) backward passes: a backward called from inside another's node (a
custom Function's ``backward`` calling ``backward()``, as checkpointing does).

Each nested pass runs on its caller's Python stack, so a deep enough chain of them would
exhaust it (RecursionError). PyTorch runs a nested pass on another thread once the nesting
on one thread reaches ``MAX_DEPTH``; so does ``GraphTask.run`` (``engine.py``), by
``run_on_new_thread``: that thread starts with an empty stack and carries on the caller's
thread-local state (grad and inference mode, saved tensor hooks, the anomaly-mode node,
context variables) while the caller waits for it.
"""

from __future__ import annotations

import contextvars
import threading
from typing import Callable, TypeVar

from ..storage import INFERENCE
from . import anomaly_mode, grad_mode
from .node import SAVED_HOOKS

T = TypeVar("T")

MAX_DEPTH = 60  # nested passes on one thread past which the next runs on a new one (PyTorch's)


def run_on_new_thread(task: Callable[[], T]) -> T:
    """``task()``'s result, computed on a new thread that has the calling thread's
    thread-local autograd state; an exception it raises is raised here."""
    grad_enabled, inference = grad_mode._state.enabled, INFERENCE.enabled
    hooks, hooks_disabled = list(SAVED_HOOKS.stack), SAVED_HOOKS.disabled
    node = anomaly_mode.CURRENT.node
    context = contextvars.copy_context()
    outcome: list[T] = []
    failure: list[BaseException] = []

    def work() -> None:
        INFERENCE.enabled = inference
        grad_mode._set(grad_enabled)
        SAVED_HOOKS.stack, SAVED_HOOKS.disabled = hooks, hooks_disabled
        anomaly_mode.CURRENT.node = node
        try:
            outcome.append(context.run(task))
        except BaseException as exc:  # (re-raised on the calling thread)
            failure.append(exc)

    worker = threading.Thread(target=work, name="jitgrad nested backward")
    worker.start()
    worker.join()
    if failure:
        raise failure[0]
    return outcome[0]
