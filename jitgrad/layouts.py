"""PyTorch's ``layout`` and ``memory_format`` values, as far as jitgrad has them.

jitgrad tensors are always strided (``jitgrad.strided``). A memory format is a string
(``"preserve_format"``, ``"contiguous_format"``, ``"channels_last"``, ``"channels_last_3d"``)
so the ``memory_format=`` arguments take either spelling; ``jitgrad.preserve_format`` is one
of those strings with torch's repr. ``format_strides`` gives the strides a copy in a format
gets.
"""

from __future__ import annotations

from typing import Any

from .geometry import contiguous_strides
from .geometry.layout import channels_last_strides


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
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
strided = layout("strided")

_FORMATS = ("preserve_format", "contiguous_format", "channels_last", "channels_last_3d")
_RANKS = {"channels_last": 4, "channels_last_3d": 5}


def check_layout(op: str, value: Any) -> None:
    if value is not None and value is not strided:
        raise TypeError(f"{op}(): jitgrad tensors are strided; expected layout=jitgrad.strided, got {value!r}")


def check_memory_format(op: str, value: Any, allowed: tuple[str, ...] = _FORMATS) -> bool:
    """Whether ``value`` asks for a contiguous result (``contiguous_format``); raises for
    anything but a memory format among ``allowed``."""
    if value is None:
        return False
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(
            f"{op}(): memory_format must be one of {', '.join(allowed)}, got {value!r}"
        )
    return value == "contiguous_format"


def format_strides(op: str, value: Any, sizes: tuple[int, ...]) -> tuple[int, ...] | None:
    """The strides of a new tensor of ``sizes`` in memory format ``value``, or None for
    ``preserve_format`` (and no format): the source's layout decides. A channels-last
    format needs a 4-D (``channels_last``) or 5-D (``channels_last_3d``) tensor, as in
    PyTorch."""
    if not check_memory_format(op, value):
        if value is None or value == "preserve_format":
            return None
        rank = _RANKS[value]
        if len(sizes) != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {value} format")
        return channels_last_strides(sizes)
    return contiguous_strides(sizes)


def check_pin_memory(op: str, value: Any) -> None:
    if value:
        raise RuntimeError(f"{op}(): pin_memory=True needs an accelerator; jitgrad runs on the CPU only")
