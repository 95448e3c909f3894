"""What a gradient hook may return, checked as PyTorch's ``python_hook.cpp`` does
(``check_result`` / ``check_single_result`` / ``check_variable_result``), with its errors.

A tensor hook (``Tensor.register_hook``) returns None or a tensor of the gradient's dtype
and shape; a node's pre-hook or post-hook returns None or a tuple as long as the gradients
it was given, each None or such a tensor. Only called when a hook returned something."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..tensor import Tensor


def typename(value: Any) -> str:
    """The type's name as CPython's ``tp_name`` gives it (PyTorch's ``THPUtils_typename``):
    ``str``, ``Tensor``, ``numpy.ndarray``."""
    cls = type(value)
    if cls.__module__ == "builtins" or cls.__flags__ & (1 << 9):  # Py_TPFLAGS_HEAPTYPE
        return cls.__name__
    return f"{cls.__module__}.{cls.__qualname__}"


def hook_name(hook: Callable[..., Any]) -> str:
    return str(getattr(hook, "__name__", "<unknown>"))


def check_tensor_result(original: Tensor, result: Any, hook: Callable[..., Any]) -> None:
    """A tensor hook's replacement gradient ``result`` for ``original``."""
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned {typename(result)!r}")
    if result.dtype != original.dtype:
        raise RuntimeError(
            f"hook {hook_name(hook)!r} has changed the type of value (was {original.type()} "
            f"got {result.type()})"
        )
    if result._sizes != original._sizes:
        raise RuntimeError(f"hook {hook_name(hook)!r} has changed the size of value")


def check_tuple_result(
    originals: Sequence[Tensor | None], result: Any, hook: Callable[..., Any]
) -> tuple[Tensor | None, ...]:
    """A node hook's replacement ``result`` for the gradients ``originals``."""
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned {typename(result)!r}")
    if len(result) != len(originals):
        raise RuntimeError(
            f"hook {hook_name(hook)!r} has returned an incorrect number of values (got "
            f"{len(result)}, but expected {len(originals)})"
        )
    for original, value in zip(originals, result):
        if value is None:
            continue
        if original is None:
            raise RuntimeError("can't replace a None gradient with a non-None value")
        check_tensor_result(original, value, hook)
    return result
