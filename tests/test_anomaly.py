"""Anomaly mode (``jitgrad.autograd.detect_anomaly``) against PyTorch's: the same errors and
warnings in the same situations; our messages name the node and this file's source lines.

A line whose source line matters ends with a ``# @name`` marker; ``at(name)`` is
``"<this file>:<line>"``.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch

import jitgrad
from jitgrad.autograd import anomaly_mode

LIBS = (jitgrad, torch)
_SOURCE = open(__file__).read().splitlines()


def at(name: str) -> str:
    [line] = [i + 1 for i, text in enumerate(_SOURCE) if text.rstrip().endswith(f"# @{name}")]
    return f"{__file__}:{line}"


@pytest.fixture(autouse=True)
def anomaly_off() -> Any:
    """Every test starts and ends with anomaly mode off (it is process-wide)."""
    yield
    jitgrad.autograd.set_detect_anomaly(False)
    torch.autograd.set_detect_anomaly(False)


def run(lib: Any, program: Any, check_nan: bool = True) -> tuple[BaseException | None, list[str]]:
    """Run ``program(lib)`` under ``lib``'s detect_anomaly: (exception or None, warnings)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with lib.autograd.detect_anomaly(check_nan=check_nan):
                program(lib)
        except Exception as exc:  # noqa: BLE001 - compared between the libraries below
            return exc, [str(w.message) for w in caught]
    return None, [str(w.message) for w in caught]


def both(program: Any, check_nan: bool = True) -> tuple[BaseException | None, list[str]]:
    """Run under both libraries; the same exception type and the same kinds of warnings.
    Returns jitgrad's exception and warnings."""
    ours, our_warnings = run(jitgrad, program, check_nan)
    theirs, their_warnings = run(torch, program, check_nan)
    assert type(ours) is type(theirs), (ours, theirs)
    kinds = ("Anomaly Detection has been enabled", "Error detected in")
    for kind in kinds:
        assert any(kind in w for w in our_warnings) == any(kind in w for w in their_warnings), (
            kind, our_warnings, their_warnings)
    return ours, our_warnings


# -- the switches -----------------------------------------------------------------------------


def test_switches_match_pytorch() -> None:
    for lib in LIBS:
        assert not lib.is_anomaly_enabled()
        assert lib.is_anomaly_check_nan_enabled()
        lib.autograd.set_detect_anomaly(True, check_nan=False)  # takes effect at once
        assert lib.is_anomaly_enabled() and not lib.is_anomaly_check_nan_enabled()
        lib.autograd.set_detect_anomaly(False)
        assert not lib.is_anomaly_enabled() and lib.is_anomaly_check_nan_enabled()
        with lib.autograd.set_detect_anomaly(True):
            assert lib.is_anomaly_enabled()
        assert not lib.is_anomaly_enabled()


def test_detect_anomaly_warns_and_works_as_decorator() -> None:
    for lib in LIBS:
        with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
            manager = lib.autograd.detect_anomaly()
        with manager:
            assert lib.is_anomaly_enabled()
        assert not lib.is_anomaly_enabled()
    # PyTorch 2.13's detect_anomaly is a context manager only; ours also decorates
    with pytest.warns(UserWarning, match="Anomaly Detection"):
        assert not callable(torch.autograd.detect_anomaly())

    with pytest.warns(UserWarning, match="Anomaly Detection"):

        @jitgrad.autograd.detect_anomaly(check_nan=False)
        def inside() -> tuple[bool, bool]:
            return jitgrad.is_anomaly_enabled(), jitgrad.is_anomaly_check_nan_enabled()

    assert inside() == (True, False) and not jitgrad.is_anomaly_enabled()

    with pytest.warns(UserWarning, match="Anomaly Detection"):

        @jitgrad.autograd.detect_anomaly()
        def failing() -> None:
            raise KeyError("x")

    with pytest.raises(KeyError):
        failing()
    assert not jitgrad.is_anomaly_enabled()  # restored on the way out
    assert jitgrad.is_anomaly_check_nan_enabled()


# -- what a node records ----------------------------------------------------------------------


def test_nodes_record_their_creation_line() -> None:
    for lib in LIBS:
        x = lib.ones(3, requires_grad=True)
        with lib.autograd.set_detect_anomaly(True):
            y = x * 2.0  # @mul
        assert "traceback_" in y.grad_fn.metadata  # PyTorch's key
        assert 'line %s' % at("mul").split(":")[-1] in y.grad_fn.metadata["traceback_"][-1]
    assert y.grad_fn is not None
    ours = (jitgrad.ones(3, requires_grad=True) * 1.0).grad_fn
    assert "traceback_" not in ours.metadata  # off: nothing recorded
    with jitgrad.autograd.set_detect_anomaly(True):
        z = jitgrad.ones(3, requires_grad=True) * 1.0  # @mul2
    assert z.grad_fn.metadata["created_at"] == at("mul2")


def test_copyslices_records_the_write() -> None:
    with jitgrad.autograd.set_detect_anomaly(True):
        base = jitgrad.ones(4, requires_grad=True).clone()
        base[1:3].mul_(2.0)  # @write
    assert base.grad_fn.name() == "torch::autograd::CopySlices"
    assert base.grad_fn.metadata["created_at"] == at("write")


# -- errors in backward -----------------------------------------------------------------------


def _raising_function(lib: Any) -> Any:
    class Boom(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 1.0

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            raise ValueError("boom in backward")

    return Boom


def test_error_in_backward_names_node_and_line() -> None:
    def program(lib: Any) -> None:
        x = lib.ones(3, requires_grad=True)
        y = _raising_function(lib).apply(x)  # @boom
        y.sum().backward()

    exc, caught = both(program, check_nan=False)
    assert isinstance(exc, ValueError)
    assert str(exc) == f"Error in BoomBackward created at {at('boom')}: boom in backward"
    assert isinstance(exc.__cause__, ValueError) and str(exc.__cause__) == "boom in backward"
    assert any(f'line {at("boom").split(":")[-1]}' in w for w in caught)


def test_error_without_anomaly_is_unchanged() -> None:
    x = jitgrad.ones(3, requires_grad=True)
    y = _raising_function(jitgrad).apply(x)
    with pytest.raises(ValueError) as info:
        y.sum().backward()
    assert str(info.value) == "boom in backward" and info.value.__cause__ is None


def test_node_made_before_anomaly_mode() -> None:
    for lib in LIBS:
        x = lib.ones(3, requires_grad=True)
        y = _raising_function(lib).apply(x)
        with pytest.warns(UserWarning, match="No forward pass information"):
            with pytest.raises(ValueError) as info:
                with lib.autograd.set_detect_anomaly(True):
                    y.sum().backward()
        if lib is jitgrad:
            assert "Error in BoomBackward (created before anomaly detection" in str(info.value)


# -- NaN ----------------------------------------------------------------------------------------


def _zero_by_zero(lib: Any) -> None:
    x = lib.tensor([1.0, 0.0], requires_grad=True)
    y = (x * 0.0).div(x)  # @div
    y.sum().backward()


def test_nan_names_node_output_and_line() -> None:
    exc, _ = both(_zero_by_zero)
    assert isinstance(exc, RuntimeError)
    assert str(exc) == (
        f"Error in DivBackward0 created at {at('div')}: "
        "Function 'DivBackward0' returned nan values in its 1th output."
    )
    assert "returned nan values in its 1th output" in str(exc.__cause__)
    theirs, _ = run(torch, _zero_by_zero)
    assert "Function 'DivBackward0' returned nan values in its 1th output." in str(theirs)


def test_check_nan_false_lets_nan_through() -> None:
    exc, _ = both(_zero_by_zero, check_nan=False)
    assert exc is None


def test_nan_through_copyslices() -> None:
    def program(lib: Any) -> None:
        x = lib.tensor([1.0, 0.0, 2.0], requires_grad=True)
        z = lib.tensor([0.0, 0.0, 0.0], requires_grad=True)
        base = x.clone()
        base[:2].div_(z[:2])  # @divinplace
        base.sum().backward()

    exc, _ = both(program)
    assert isinstance(exc, RuntimeError)
    assert f"created at {at('divinplace')}" in str(exc)
    assert "returned nan values in its" in str(exc)


# -- saved tensor modified in place ----------------------------------------------------------


def test_version_error_names_write_and_save_lines() -> None:
    def program(lib: Any) -> None:
        a = lib.ones(3, requires_grad=True)
        b = a * 2.0
        c = b * b  # @save
        b.mul_(3.0)  # @invalidate
        c.sum().backward()

    exc, _ = both(program)
    assert isinstance(exc, RuntimeError)
    msg = str(exc)
    assert msg.startswith(f"Error in MulBackward0 created at {at('save')}: one of the variables")
    assert f"The last in-place write to its memory was mul_ at {at('invalidate')}." in msg
    assert f"It was saved for backward at {at('save')}." in msg


def test_version_error_without_anomaly_hints() -> None:
    a = jitgrad.ones(3, requires_grad=True)
    b = a.exp()
    b.add_(1.0)
    with pytest.raises(RuntimeError) as info:
        b.sum().backward()
    assert "Hint: enable anomaly detection" in str(info.value)
    assert "saved for backward at" not in str(info.value)


def test_saved_on_view_then_base_written() -> None:
    """The saved tensor is a view; the write goes through the base."""
    def program(lib: Any) -> None:
        base = lib.ones(4, requires_grad=True).clone()
        v = base[1:3]
        y = v.sin()  # @sin
        base.zero_()  # @zero
        y.sum().backward()

    exc, _ = both(program)
    assert isinstance(exc, RuntimeError)
    assert f"Error in SinBackward0 created at {at('sin')}" in str(exc)
    assert f"was zero_ at {at('zero')}" in str(exc)


def test_flag_is_module_global() -> None:
    """The engine and Node read one plain module attribute (the hot path's only check)."""
    assert anomaly_mode.enabled is False
    with jitgrad.autograd.set_detect_anomaly(True):
        assert anomaly_mode.enabled is True
