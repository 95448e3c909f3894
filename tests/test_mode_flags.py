"""Grad mode and inference mode as the lean paths read them: one thread-local flag,
``grad_mode._state.recording`` (grad mode on and inference mode off), kept by every write of
either mode. The ops under every nesting of the modes give PyTorch's tensors (inference or
not, history or not), and the flag agrees with the two modes everywhere: in threads, in
backward (create_graph or not) and in a backward run on a new thread."""

from __future__ import annotations

import pathlib
import re
import threading
from typing import Any, Callable

import torch
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from jitgrad.autograd import grad_mode, reentrant

MODES = ["no_grad", "enable_grad", "grad_on", "grad_off", "inference", "inference_off"]


def _context(lib: Any, mode: str) -> Any:
    return {
        "no_grad": lambda: lib.no_grad(),
        "enable_grad": lambda: lib.enable_grad(),
        "grad_on": lambda: lib.set_grad_enabled(True),
        "grad_off": lambda: lib.set_grad_enabled(False),
        "inference": lambda: lib.inference_mode(),
        "inference_off": lambda: lib.inference_mode(False),
    }[mode]()


def _flag_agrees() -> bool:
    return grad_mode._state.recording == (
        jitgrad.is_grad_enabled() and not jitgrad.is_inference_mode_enabled())


def _double(lib: Any) -> Any:
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, t: Any) -> Any:
            return t * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2
    return Double


def _ops(lib: Any, x: Any, y: Any) -> list[tuple[bool, bool, bool]]:
    """Each lean path's result under the current modes (and a general op's, and a custom
    Function's, which PyTorch records whenever grad mode is on, in inference mode too):
    (inference, requires_grad, has history)."""
    results = [x * 2.0, x + y, x[1:], x.exp(), x.sum(), lib.stack([x, y]), lib.cat([x, y]),
               lib.where(x > 0.5, x, y), x.sum(0), -x, lib.atan2(x, y), x[None, 1:],
               _double(lib).apply(x)]
    out = [(r.is_inference(), r.requires_grad, r.grad_fn is not None) for r in results]
    buffer = y * 1.0  # (a non-leaf: a write into its view is recorded when grad mode is on)
    view = buffer[1:]
    view += x[1:]
    out.append((buffer.is_inference(), buffer.requires_grad, buffer.grad_fn is not None))
    return out


def _run(lib: Any, modes: list[str], checks: list[bool] | None) -> list[Any]:
    x = lib.tensor([0.25, 0.5, 1.0], dtype=lib.float64, requires_grad=True)
    y = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
    seen: list[Any] = []

    def nest(rest: list[str]) -> None:
        seen.append(_ops(lib, x, y))
        if checks is not None:
            checks.append(_flag_agrees())
        if rest:
            with _context(lib, rest[0]):
                nest(rest[1:])
            seen.append(_ops(lib, x, y))  # (after the block: the enclosing modes are back)
            if checks is not None:
                checks.append(_flag_agrees())

    nest(modes)
    return seen


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(MODES), max_size=5))
def test_ops_under_nested_modes_match_pytorch_and_the_flag_agrees(modes: list[str]) -> None:
    checks: list[bool] = []
    assert _run(jitgrad, modes, checks) == _run(torch, modes, None)
    assert all(checks) and _flag_agrees()


def test_the_flag_in_a_new_thread_starts_as_the_modes_do() -> None:
    seen: list[bool] = []
    with jitgrad.inference_mode():
        assert not grad_mode._state.recording
        worker = threading.Thread(target=lambda: seen.append(grad_mode._state.recording))
        worker.start()
        worker.join()
    assert seen == [True] and grad_mode._state.recording


def test_the_flag_in_backward_with_and_without_create_graph() -> None:
    seen: list[tuple[bool, bool]] = []
    for create_graph in (False, True):
        x = jitgrad.tensor([1.0, 2.0], dtype=jitgrad.float64, requires_grad=True)
        y = x * x
        y.register_hook(lambda g: seen.append((grad_mode._state.recording, _flag_agrees())))
        jitgrad.autograd.grad(y.sum(), x, create_graph=create_graph)
    assert seen == [(False, True), (True, True)]
    assert grad_mode._state.recording


def test_the_flag_on_a_new_thread_for_a_deep_backward() -> None:
    seen: list[tuple[bool, bool]] = []
    with jitgrad.inference_mode(), jitgrad.enable_grad():
        outer = (grad_mode._state.recording, _flag_agrees())
        reentrant.run_on_new_thread(lambda: seen.append((grad_mode._state.recording, _flag_agrees())))
    assert outer == (False, True) and seen == [outer]
    assert grad_mode._state.recording


_WRITE = re.compile(r"(?:_state|INFERENCE|_inference|state)\.enabled\s*(?:,[^=\n]*)?=[^=]")


def test_every_write_of_either_mode_goes_through_set() -> None:
    """A write of grad mode or inference mode elsewhere than ``grad_mode._set`` would leave
    ``recording`` stale: inference mode's writes are each followed by ``_set``."""
    root = pathlib.Path(jitgrad.__file__).parent
    writes: list[tuple[str, str, str]] = []
    for path in sorted(root.rglob("*.py")):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            if _WRITE.search(line):
                writes.append((path.name, line.strip(), lines[i + 1].strip()))
    follow: Callable[[str], bool] = lambda line: re.match(r"(?:grad_mode\.)?_set\(", line) is not None
    assert ("grad_mode.py", "_state.enabled = enabled", "_state.recording = enabled and not _inference.enabled") \
        in writes
    others = [w for w in writes if w[1] != "_state.enabled = enabled"]
    assert {w[0] for w in others} == {"grad_mode.py", "reentrant.py"}
    assert all(follow(w[2]) for w in others), others


def _ops_of_every_kind(lib: Any) -> dict[str, Callable[[Any, Any, Any], Any]]:
    """One call per kind of op (general paths, composites, views, in-place writes)."""
    F = lib.nn.functional

    def setitem(x: Any, m: Any, idx: Any) -> Any:
        y = x * 1
        y[0] = x[1]
        return y

    def view_write(x: Any, m: Any, idx: Any) -> Any:
        y = x * 1
        y[1:].mul_(x[:2])
        return y

    return {
        "matmul": lambda x, m, idx: m @ m, "softmax": lambda x, m, idx: F.softmax(m, 1),
        "advanced_index": lambda x, m, idx: x[idx], "cumsum": lambda x, m, idx: x.cumsum(0),
        "sort": lambda x, m, idx: x.sort()[0], "max_dim": lambda x, m, idx: m.max(1)[0],
        "linear": lambda x, m, idx: F.linear(m, m),
        "conv1d": lambda x, m, idx: F.conv1d(m[None], m[:, :, None]),
        "mse_loss": lambda x, m, idx: F.mse_loss(x, x.detach()), "norm": lambda x, m, idx: x.norm(),
        "clone": lambda x, m, idx: x.clone(), "reshape": lambda x, m, idx: m.reshape(-1),
        "expand": lambda x, m, idx: x[:, None].expand(3, 4),
        "gather": lambda x, m, idx: m.gather(1, idx[None].expand(3, 3)),
        "pow": lambda x, m, idx: x ** 2.5, "einsum": lambda x, m, idx: lib.einsum("ij,jk->ik", m, m),
        "det": lambda x, m, idx: lib.linalg.det(m), "logsumexp": lambda x, m, idx: lib.logsumexp(m, 1),
        "cat_mixed": lambda x, m, idx: lib.cat([x, x.detach()]),
        "masked_fill": lambda x, m, idx: x.masked_fill(x > 0.5, 0.0),
        "to_float32": lambda x, m, idx: x.to(lib.float32), "unbind": lambda x, m, idx: x.unbind()[0],
        "chunk": lambda x, m, idx: m.chunk(3)[1], "mul_": lambda x, m, idx: (x * 1).mul_(2),
        "setitem": setitem, "index_add_": lambda x, m, idx: (x * 1).index_add_(0, idx, x),
        "clamp_": lambda x, m, idx: (x * 1).clamp_(0, 1), "copy_": lambda x, m, idx: (x * 1).copy_(x),
        "view_write": view_write,
    }


def _every_kind(lib: Any, name: str, grad_inside: bool) -> tuple[bool, bool, bool]:
    x = lib.tensor([0.25, 0.5, 1.0], dtype=lib.float64, requires_grad=True)
    m = lib.tensor([[1.0, 2.0, 0.5], [0.3, 1.0, 2.0], [0.1, 0.2, 3.0]], dtype=lib.float64,
                   requires_grad=True)
    idx = lib.tensor([2, 0, 1])
    with lib.inference_mode(), lib.set_grad_enabled(grad_inside):
        r = _ops_of_every_kind(lib)[name](x, m, idx)
    return r.requires_grad, r.grad_fn is not None, r.is_inference()


@pytest.mark.parametrize("grad_inside", [False, True], ids=["inference", "inference+enable_grad"])
@pytest.mark.parametrize("name", sorted(_ops_of_every_kind(torch)))
def test_no_op_records_in_inference_mode_even_with_grad_mode_on(name: str, grad_inside: bool) -> None:
    """PyTorch's inference mode skips autograd whatever grad mode says (jitgrad recorded
    graphs under ``inference_mode()`` + ``enable_grad()`` before ``recording``)."""
    assert _every_kind(jitgrad, name, grad_inside) == _every_kind(torch, name, grad_inside)
