"""Devices: jitgrad runs on the CPU only.

``jitgrad.device`` mirrors ``torch.device`` (``device("cpu")``, ``device("cuda", 0)``,
``device("cpu:0")``, ``.type``, ``.index``, the same repr and str), so code that *names* an
accelerator imports and runs; asking to put data there (``device="cuda"``, ``.cuda()``,
``.to("mps")``) raises a ``RuntimeError`` that names the op and what it got.
"""

from __future__ import annotations

from typing import Any

# The device types torch.device accepts (torch/csrc: c10/core/DeviceType.cpp).
_KNOWN_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
    "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)


class device:  # noqa: N801  (PyTorch's name)
    """A device name: ``type`` (``"cpu"``, ``"cuda"``, ...) and an optional ``index``."""

    __slots__ = ("type", "index")

    def __init__(self, type: Any, index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): an index cannot be given with a device argument")
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError(
                f"device(): an integer device ({type}) means an accelerator, and jitgrad runs "
                "on the CPU only; use device('cpu')"
            )
        elif not isinstance(type, str):
            raise TypeError(f"device(): expected a string or a device, got {_type_name(type)}")
        else:
            text = type.strip()
            if ":" in text:
                if index is not None:
                    raise RuntimeError(f"device(): type (string) must not include an index because "
                                       f"index was passed explicitly: {type}")
                text, _, number = text.partition(":")
                if not number.isdigit():
                    raise RuntimeError(f"device(): invalid device string: {type!r}")
                index = int(number)
            if text not in _KNOWN_TYPES:
                raise RuntimeError(
                    f"device(): expected one of {', '.join(_KNOWN_TYPES)} device type at start "
                    f"of device string, got {type!r}"
                )
            type = text
        if index is not None:
            if not isinstance(index, int) or isinstance(index, bool) or index < 0:
                raise RuntimeError(f"device(): device index must be a non-negative integer, got {index!r}")
        self.type = type
        self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, device) and (other.type, other.index) == (self.type, self.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self) -> tuple[Any, ...]:
        return (device, (self.type, self.index))


def _type_name(x: Any) -> str:
    return type(x).__name__


CPU = device("cpu")


def check(op: str, where: Any) -> device:
    """``where`` (None, a string, an int or a device) as a device, which must be the CPU;
    otherwise a RuntimeError naming ``op`` and what it got."""
    if where is None:
        return CPU
    try:
        d = where if isinstance(where, device) else device(where)
    except RuntimeError as exc:
        raise RuntimeError(f"{op}: {exc}") from None
    if d.type != "cpu" or d.index not in (None, 0):
        raise RuntimeError(
            f"{op}: jitgrad runs on the CPU only; expected device 'cpu', got {str(d)!r}"
        )
    return d


def is_device_like(x: Any) -> bool:
    """Whether a positional argument of ``to(...)`` names a device rather than a dtype."""
    return isinstance(x, device) or (isinstance(x, str) and x.partition(":")[0].strip() in _KNOWN_TYPES) or (
        isinstance(x, int) and not isinstance(x, bool)
    )
