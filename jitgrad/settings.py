"""Process-wide switches numeric scripts set at the top (``torch.set_num_threads``,
``torch.use_deterministic_algorithms``, ``torch.set_float32_matmul_precision``,
``torch.set_default_device``) and the constants ``pi``, ``e``, ``inf``, ``nan``, ``newaxis``.

jitgrad computes on the CPU, deterministically and in the precision asked for, so the
switches only remember what was set (and check it as PyTorch does); the intra-op thread
count is handed to Numba's parallel kernels when Numba is loaded and to NumPy's OpenBLAS
(jitgrad's matrix products), as PyTorch's reaches its own BLAS.
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan
newaxis = None

_state: dict[str, Any] = {
    "threads": max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1),
    "interop_threads": None,
    "deterministic": False,
    "warn_only": False,
    "matmul_precision": "highest",
}


def set_num_threads(n: int) -> None:
    """The number of threads for intra-op parallelism: Numba's (when it is loaded) and
    OpenBLAS's for the matrix products (``kernels/_blas.py``; on a machine shared with busy
    processes, ``set_num_threads(1)`` keeps a product from waiting for a descheduled
    thread)."""
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise RuntimeError(f"set_num_threads expects a positive integer, got {n!r}")
    _state["threads"] = n
    numba = sys.modules.get("numba")
    if numba is not None:
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    from .kernels._blas import set_blas_threads

    set_blas_threads(n)


def get_num_threads() -> int:
    return int(_state["threads"])


def set_num_interop_threads(n: int) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise RuntimeError(f"Expected positive number of threads, got {n!r}")
    if _state["interop_threads"] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started "
                           "or set_num_interop_threads called")
    _state["interop_threads"] = n


def get_num_interop_threads() -> int:
    return int(_state["interop_threads"] or _state["threads"])


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Remembered only: every jitgrad algorithm is deterministic."""
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' must be bool, not {type(mode).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return bool(_state["deterministic"])


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return bool(_state["warn_only"])


def set_float32_matmul_precision(precision: str) -> None:
    """Remembered only: float32 products are always computed in float32."""
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision {precision!r}: expected one of 'highest', 'high', 'medium'")
    _state["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    return str(_state["matmul_precision"])


def get_default_device() -> Any:
    from .device import device

    return device("cpu")


def set_default_device(device: Any) -> None:
    """Only the CPU (or None) is accepted: jitgrad has no other device."""
    from .device import check

    if device is not None:
        check("set_default_device", device)


def typename(obj: Any) -> str:
    """PyTorch's ``torch.typename``: ``"torch.DoubleTensor"`` style names for tensors."""
    from .tensor import Tensor

    if isinstance(obj, Tensor):
        return obj.type()  # type: ignore[attr-defined,no-any-return]
    module = getattr(type(obj), "__module__", "")
    name = type(obj).__qualname__
    return name if module in ("builtins", "", None) else f"{module}.{name}"


def is_same_size(input: Any, other: Any) -> bool:
    return tuple(input.shape) == tuple(other.shape)
