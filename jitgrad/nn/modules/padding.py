"""Padding modules: ``ZeroPad``, ``ConstantPad``, ``ReflectionPad``, ``ReplicationPad``,
``CircularPad`` in 1, 2 and 3 dims — ``F.pad`` with a fixed ``padding`` (an int pads every
side; a tuple lists (left, right[, top, bottom[, front, back]]))."""

from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from .._padding import pad
from .module import Module


class _PadNd(Module):
    _n = 0  # padded dims
    mode = "constant"

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = tuple(padding) if isinstance(padding, (tuple, list)) else (int(padding),) * (2 * self._n)

    def forward(self, input: Tensor) -> Tensor:
        return pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _n = 1


class ConstantPad2d(_ConstantPadNd):
    _n = 2


class ConstantPad3d(_ConstantPadNd):
    _n = 3


class _ZeroPad:
    """``ConstantPad`` with 0 (PyTorch's ``ZeroPad`` subclasses the constant pad of its size)."""

    padding: tuple[int, ...]

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)  # type: ignore[call-arg]

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPad, ConstantPad1d):
    pass


class ZeroPad2d(_ZeroPad, ConstantPad2d):
    pass


class ZeroPad3d(_ZeroPad, ConstantPad3d):
    pass


class ReflectionPad1d(_PadNd):
    _n, mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    _n, mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    _n, mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    _n, mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    _n, mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    _n, mode = 3, "replicate"


class _CircularPadNd(_PadNd):
    mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (self._n + 1, self._n + 2):
            raise ValueError(f"expected {self._n + 1}D or {self._n + 2}D input (got {input.ndim}D input)")
        return pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    _n = 1


class CircularPad2d(_CircularPadNd):
    _n = 2


class CircularPad3d(_CircularPadNd):
    _n = 3
