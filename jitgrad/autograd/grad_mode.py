"""Grad mode: whether operations record a graph. Thread-local, as in PyTorch."""

from __future__ import annotations

import functools
import inspect
import sys
import threading
import warnings
from typing import Any, Callable, TypeVar

from ..storage import INFERENCE as _inference

F = TypeVar("F", bound=Callable[..., Any])


class _State(threading.local):
    enabled = True  # every thread starts with grad mode on (the class attribute is the default)
    backward_depth = 0  # backward passes running on the thread (``autograd/reentrant.py``)
    capturing = False  # the innermost of them asks for some inputs' gradients (``autograd.grad``)
    # ``enabled and not INFERENCE.enabled``: graphs are recorded and new storage is normal.
    # The lean paths' one read for both (a thread-local attribute costs ~35 ns a read); kept
    # by ``_set``, which every write of either flag ends with.
    recording = True


_state = _State()


def is_grad_enabled() -> bool:
    return _state.enabled


def _set(enabled: bool) -> None:
    """Grad mode on or off for this thread (and ``recording`` with it, from inference mode's
    flag: write that one first)."""
    _state.enabled = enabled
    _state.recording = enabled and not _inference.enabled


def is_checkpoint_valid() -> bool:
    """PyTorch's ``torch.autograd._is_checkpoint_valid``: False while a backward pass that
    asks for some inputs' gradients (``autograd.grad``, ``backward(inputs=...)``) runs on this
    thread, in which a reentrant checkpoint cannot run."""
    return not _state.capturing


class _GradModeContext:
    """Base of ``no_grad``/``enable_grad``/``set_grad_enabled``: context manager and decorator."""

    _target: bool

    def __enter__(self) -> None:
        self._prev = is_grad_enabled()
        _set(self._target)

    def __exit__(self, *exc: object) -> None:
        _set(self._prev)

    def _clone(self) -> Any:
        return type(self)()

    def __call__(self, fn: F) -> F:
        target = self._target
        if inspect.isclass(fn) or inspect.isgeneratorfunction(fn):
            return _decorate(self._clone, fn)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            prev = is_grad_enabled()
            _set(target)
            try:
                return fn(*args, **kwargs)
            finally:
                _set(prev)

        return wrapper  # type: ignore[return-value]


def _decorate(ctx_factory: Callable[[], Any], fn: Any) -> Any:
    """PyTorch's ``torch.utils._contextlib`` decorator for the two unusual cases: a class
    (deprecated: the mode covers its construction only) and a generator function (the mode
    holds while the generator body runs, between its yields, and not in the caller)."""
    if inspect.isclass(fn):
        warnings.warn(
            "Decorating classes is deprecated and will be disabled in future versions. You "
            "should only decorate functions or methods. To preserve the current behavior of "
            "class decoration, you can directly decorate the `__init__` method and nothing else.",
            FutureWarning, stacklevel=3,
        )
        cls = fn

        def construct(*args: Any, **kwargs: Any) -> Any:
            with ctx_factory():
                return cls(*args, **kwargs)

        return construct

    @functools.wraps(fn)
    def generator_context(*args: Any, **kwargs: Any) -> Any:
        gen = fn(*args, **kwargs)
        try:
            with ctx_factory():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with ctx_factory():
                        gen.close()
                    raise
                except BaseException:
                    with ctx_factory():
                        response = gen.throw(*sys.exc_info())
                else:
                    with ctx_factory():
                        response = gen.send(request)
        except StopIteration as e:
            return e.value

    return generator_context


class _NoParamContext(_GradModeContext):
    """``no_grad``/``enable_grad`` also decorate without parentheses (``@enable_grad``) and
    take the function directly (``no_grad(fn)``), as PyTorch's do."""

    def __new__(cls, orig_func: Any = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamContext):
    """Operations inside record no graph (results do not require grad)."""

    _target = False


class enable_grad(_NoParamContext):
    """Re-enable recording inside a ``no_grad`` region."""

    _target = True


class set_grad_enabled(_GradModeContext):
    """``set_grad_enabled(False)`` is ``no_grad()``; takes effect immediately when called,
    like PyTorch's, and restores the previous mode when used as a context manager."""

    def __init__(self, mode: bool) -> None:
        self._target = bool(mode)
        self._prev = is_grad_enabled()
        _set(self._target)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _set(self._prev)

    def _clone(self) -> Any:
        return set_grad_enabled(self._target)

    def __call__(self, fn: F) -> F:
        _set(self._prev)  # used as a decorator: undo the immediate effect of __init__
        return super().__call__(fn)


# -- inference mode ------------------------------------------------------------------------------
# Its flag lives in storage.py (``INFERENCE``, imported above as ``_inference``), below this
# layer, because new storage records whether it was allocated under inference mode (Note
# [Version counter] in storage.py).
def is_inference_mode_enabled() -> bool:
    return _inference.enabled


class inference_mode:
    """PyTorch's ``inference_mode``: like ``no_grad``, and every tensor made inside is an
    *inference tensor* (``t.is_inference()``): it tracks no version, may not be saved for
    backward, may not be written in place outside inference mode, and its views taken
    outside are plain aliases outside autograd. Views of normal tensors taken inside stay
    views; writing into them in place later, with grad mode on, is refused (as for views
    made under ``no_grad``). ``inference_mode(False)`` turns it off (and grad mode on)
    within an enclosing one. A context manager and a decorator (``@inference_mode`` or
    ``@inference_mode()``)."""

    def __new__(cls, mode: Any = True) -> Any:
        if callable(mode) and not isinstance(mode, bool):
            return cls(True)(mode)  # @inference_mode without parentheses
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)
        self._saved: list[tuple[bool, bool]] = []

    def __enter__(self) -> None:
        self._saved.append((_inference.enabled, is_grad_enabled()))
        _inference.enabled = self.mode
        _set(not self.mode)

    def __exit__(self, *exc: object) -> None:
        inference, grad = self._saved.pop()
        _inference.enabled = inference
        _set(grad)

    def __call__(self, fn: F) -> F:
        mode = self.mode
        if inspect.isclass(fn) or inspect.isgeneratorfunction(fn):
            return _decorate(lambda: inference_mode(mode), fn)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(mode):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]
