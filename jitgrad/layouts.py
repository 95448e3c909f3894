"""PyTorch's ``layout`` and ``memory_format`` values, as far as jitgrad has them.

jitgrad tensors are always strided (``jitgrad.strided``). A memory format is a string
(``"preserve_format"``, ``"contiguous_format"``) so the existing ``memory_format=`` arguments
take either spelling; ``jitgrad.preserve_format`` is one of those strings with torch's repr.
"""

from __future__ import annotations

from typing import Any


class memory_format(str):  # noqa: N801  (PyTorch's name)
    __slots__ = ()

    def __repr__(self) -> str:
        return f"jitgrad.{str(self)}"


class layout:  # noqa: N801  (PyTorch's name)
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"jitgrad.{self.name}"


preserve_format = memory_format("preserve_format")
contiguous_format = memory_format("contiguous_format")
strided = layout("strided")

_FORMATS = ("preserve_format", "contiguous_format")


def check_layout(op: str, value: Any) -> None:
    if value is not None and value is not strided:
        raise TypeError(f"{op}(): jitgrad tensors are strided; expected layout=jitgrad.strided, got {value!r}")


def check_memory_format(op: str, value: Any, allowed: tuple[str, ...] = _FORMATS) -> bool:
    """Whether ``value`` asks for a contiguous result (``contiguous_format``); raises for a
    format jitgrad does not have (e.g. channels_last)."""
    if value is None:
        return False
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(
            f"{op}(): memory_format must be one of {', '.join(allowed)}, got {value!r}"
        )
    return value == "contiguous_format"


def check_pin_memory(op: str, value: Any) -> None:
    if value:
        raise RuntimeError(f"{op}(): pin_memory=True needs an accelerator; jitgrad runs on the CPU only")
