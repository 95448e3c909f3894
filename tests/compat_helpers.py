"""What the PyTorch-compatibility tests share: run code on both libraries, compare what
came out (values, dtypes, shapes; floats to the last bit NumPy's and PyTorch's libm may
differ in) or what each raised. ``both(program)`` runs a program written against a library
module ``lib`` once with ``torch`` and once with ``jitgrad`` and compares the outcomes."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch

import jitgrad

LIBS = (jitgrad, torch)


def outcome(f: Callable[[], Any]) -> tuple[str, Any]:
    """``("ok", result)`` or ``(exception type name, message)``."""
    try:
        return "ok", f()
    except Exception as e:  # noqa: BLE001 - the very point: compare what each raises
        return type(e).__name__, str(e)


def same(ours: Any, theirs: Any) -> None:
    """Assert a jitgrad result equals PyTorch's (tensors, nested tuples/lists, plain values)."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, jitgrad.Tensor), ours
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        assert tuple(ours.shape) == tuple(theirs.shape)
        a, b = ours.detach().numpy(), theirs.detach().numpy(force=True)  # (force: a ZeroTensor too)
        if a.dtype.kind == "f":
            np.testing.assert_allclose(a, b, rtol=4e-16, atol=0)
        else:
            np.testing.assert_array_equal(a, b)
    elif isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            same(a, b)
    else:
        assert ours == theirs


def both(program: Callable[[Any], Any], fragment: str | None = None) -> Any:
    """Run ``program(lib)`` on PyTorch and on jitgrad and assert the outcomes match.

    When both raise, the error types must be the same and so must the messages, unless
    ``fragment`` is given: then both messages must contain it (jitgrad's messages may name
    the op and say got vs expected where PyTorch's do not)."""
    theirs_kind, theirs = outcome(lambda: program(torch))
    ours_kind, ours = outcome(lambda: program(jitgrad))
    assert ours_kind == theirs_kind, (ours, theirs)
    if theirs_kind == "ok":
        same(ours, theirs)
    elif fragment is None:
        assert ours == theirs
    else:
        assert fragment in theirs and fragment in ours, (ours, theirs)
    return theirs


def raised(f: Callable[[], Any], fragment: str = "") -> Any:
    """What ``f()`` raised, for a program that goes on after an expected error: ``"ok"`` if
    nothing, the exception's type name if its message holds ``fragment``, else
    ``(type name, message)`` (which then shows up in the failed comparison)."""
    kind, message = outcome(f)
    if kind == "ok" or fragment in message:
        return kind
    return kind, message


def numbers(lib: Any, *shape: int, seed: int = 0, grad: bool = False) -> Any:
    """A float64 leaf of the given shape with the same seeded values on either library."""
    data = np.random.default_rng(seed).uniform(-2.0, 2.0, shape)
    return lib.tensor(data, dtype=lib.float64, requires_grad=grad)


def known_differences(known: dict[Callable[[Any], None], str]) -> tuple[Any, Any]:
    """The two tests of a table ``{program: reason}`` of known differences, to be bound to
    ``test_*`` names: each program asserts PyTorch's behaviour, so it passes on PyTorch, and
    it is a strict xfail on jitgrad (the reason names where to fix it)."""
    def name(f: Callable[..., Any]) -> str:
        return f.__name__.strip("_")

    @pytest.mark.parametrize("program", list(known), ids=name)
    def on_pytorch(program: Callable[[Any], None]) -> None:
        program(torch)

    @pytest.mark.parametrize("program", [
        pytest.param(f, marks=pytest.mark.xfail(strict=True, reason=reason), id=name(f))
        for f, reason in known.items()])
    def on_jitgrad(program: Callable[[Any], None]) -> None:
        program(jitgrad)

    return on_pytorch, on_jitgrad


def close(ours: Any, theirs: Any, rtol: float = 1e-12, atol: float = 1e-14) -> None:
    """``same`` with floats compared to ``rtol``/``atol`` (for results of LAPACK or matrix
    products, which may sum in another order)."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, jitgrad.Tensor), ours
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        assert tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol)
    elif isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs), (ours, theirs)
        for a, b in zip(ours, theirs):
            close(a, b, rtol, atol)
    elif isinstance(theirs, float):
        assert ours == pytest.approx(theirs, rel=rtol, abs=atol)
    else:
        assert ours == theirs


def both_close(program: Callable[[Any], Any], rtol: float = 1e-12, atol: float = 1e-14) -> None:
    """``both`` for programs whose floats may differ in the last bits (``close``)."""
    theirs_kind, theirs = outcome(lambda: program(torch))
    ours_kind, ours = outcome(lambda: program(jitgrad))
    assert ours_kind == theirs_kind, (ours, theirs)
    if theirs_kind == "ok":
        close(ours, theirs, rtol, atol)
    else:
        assert ours == theirs
