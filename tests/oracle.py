"""Run the same program on jitgrad and on PyTorch (the semantics oracle) and compare.

A *program* is a function ``f(lib, *tensors)`` where ``lib`` is ``jitgrad`` or ``torch``; the
tensors are made from the same NumPy data for both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import torch

import jitgrad

torch.set_default_dtype(torch.float32)

BUILTIN_ERRORS = (IndexError, ValueError, TypeError, RuntimeError)


@dataclass
class Outcome:
    value: Any = None
    error: BaseException | None = None


def to_lib(lib: Any, array: np.ndarray) -> Any:
    if lib is torch:
        return torch.from_numpy(array.copy())
    return jitgrad.from_numpy(array.copy())


def run(lib: Any, program: Callable[..., Any], arrays: tuple[np.ndarray, ...]) -> Outcome:
    try:
        return Outcome(value=program(lib, *(to_lib(lib, a) for a in arrays)))
    except BUILTIN_ERRORS as exc:
        return Outcome(error=exc)


def error_family(exc: BaseException) -> type:
    for family in BUILTIN_ERRORS:
        if isinstance(exc, family):
            return family
    return type(exc)


def assert_same_errors(ours: Outcome, theirs: Outcome) -> bool:
    """True when both raised (same family); fails when only one did. False when neither did."""
    if theirs.error is not None or ours.error is not None:
        assert ours.error is not None, f"PyTorch raised {theirs.error!r}, jitgrad did not"
        assert theirs.error is not None, f"jitgrad raised {ours.error!r}, PyTorch did not"
        assert error_family(ours.error) is error_family(theirs.error), (
            f"jitgrad raised {ours.error!r}, PyTorch raised {theirs.error!r}"
        )
        return True
    return False


def assert_same_tensor(ours: Any, theirs: Any, geometry: bool = True) -> None:
    """Same shape, dtype and values (and, for views, strides and storage offset)."""
    assert isinstance(ours, jitgrad.Tensor), f"expected a jitgrad.Tensor, got {type(ours)}"
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype).replace("torch.", "")
    if geometry:
        assert ours.stride() == theirs.stride(), (ours.stride(), theirs.stride())
        assert ours.storage_offset() == theirs.storage_offset()
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())


def assert_same(ours: Outcome, theirs: Outcome, geometry: bool = True) -> None:
    if assert_same_errors(ours, theirs):
        return
    a, b = ours.value, theirs.value
    if isinstance(b, (tuple, list)):
        assert isinstance(a, (tuple, list)) and len(a) == len(b)
        for x, y in zip(a, b):
            if isinstance(y, torch.Tensor):
                assert_same_tensor(x, y, geometry)
            else:
                assert x == y, (a, b)
    elif isinstance(b, torch.Tensor):
        assert_same_tensor(a, b, geometry)
    else:
        assert a == b, (a, b)


def compare(program: Callable[..., Any], *arrays: np.ndarray, geometry: bool = True) -> Outcome:
    ours = run(jitgrad, program, arrays)
    theirs = run(torch, program, arrays)
    assert_same(ours, theirs, geometry)
    return ours
