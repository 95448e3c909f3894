"""Run one layer program on jitgrad and on PyTorch (float64) and compare what came out:
outputs, extra outputs (indices), gradients of every input, gradients of those gradients
(through ``create_graph``) and the output's node name; or the error type and message."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import torch

import jitgrad

LIBS = (jitgrad, torch)


def _np(t: Any) -> np.ndarray:
    return t.detach().numpy(force=True) if isinstance(t, torch.Tensor) else t.detach().numpy()


def run(lib: Any, program: Callable[..., Any], arrays: Sequence[np.ndarray], second: bool) -> dict[str, Any]:
    xs = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    out = program(lib, *xs)
    extra = []
    if isinstance(out, tuple):
        out, extra = out[0], list(out[1:])
    got: dict[str, Any] = {"out": _np(out), "extra": [_np(e) for e in extra],
                           "node": type(out.grad_fn).__name__}
    wrt = [x for x in xs if x.requires_grad]
    g = lib.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)), requires_grad=True)
    grads = lib.autograd.grad(out, wrt, g, create_graph=second, allow_unused=True)
    got["grads"] = [None if t is None else _np(t) for t in grads]
    if second:
        used = [t for t in grads if t is not None and t.requires_grad]
        if used:
            total = sum((t * t.detach() * 0.5 + t).sum() for t in used)
            got["second"] = [None if t is None else _np(t)
                             for t in lib.autograd.grad(total, wrt + [g], allow_unused=True)]
    return got


def compare(program: Callable[..., Any], *arrays: np.ndarray, second: bool = True, rtol: float = 1e-10,
            atol: float = 1e-12, node: bool = True) -> dict[str, Any]:
    """``program(lib, *tensors)`` on both libraries; asserts they agree; returns jitgrad's."""
    ours, theirs = (run(lib, program, arrays, second) for lib in LIBS)
    np.testing.assert_allclose(ours["out"], theirs["out"], rtol=rtol, atol=atol)
    assert ours["out"].dtype == theirs["out"].dtype
    for a, b in zip(ours["extra"], theirs["extra"], strict=True):
        np.testing.assert_array_equal(a, b)
    if node:
        assert ours["node"] == theirs["node"]
    for key in ("grads", "second"):
        assert (key in ours) == (key in theirs), key
        for a, b in zip(ours.get(key, []), theirs.get(key, []), strict=True):
            if a is None or b is None:  # (no gradient and an all-zero one are the same answer)
                assert (b if a is None else a) is None or not (b if a is None else a).any()
            else:
                np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
    return ours


def outcome(f: Callable[[], Any]) -> tuple[str, str]:
    try:
        f()
    except Exception as e:  # noqa: BLE001 - the point: what each library raises
        return type(e).__name__, str(e)
    return "ok", ""


def same_error(program: Callable[[Any], Any]) -> None:
    """Both libraries raise the same type with the same message."""
    ours, theirs = outcome(lambda: program(jitgrad)), outcome(lambda: program(torch))
    assert theirs[0] != "ok", "PyTorch accepted the program"
    assert ours == theirs
