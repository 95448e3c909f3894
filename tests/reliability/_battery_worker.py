"""Subprocess side of the bad-input battery: ``python _battery_worker.py NAME...``.

For each case name it prints ``@@START name`` before running anything, then one
``@@RESULT {json}`` line, flushing after each. If the process dies mid-case (a segfault in a
kernel, an abort), the parent sees a START without a RESULT and reports that case as crashed.
The special name ``__crash__`` aborts the process, to test that detection.
"""
from __future__ import annotations

import json
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402

import jitgrad  # noqa: E402
import jitgrad.kernels as jk  # noqa: E402
from reliability.bad_input_cases import CASES  # noqa: E402

BY_NAME = {c.name: c for c in CASES}
FAMILIES = (IndexError, ValueError, TypeError, RuntimeError)


def _snapshot(ns: dict) -> dict:
    """Everything a failed call must leave as it was, for every tensor/array the setup bound."""
    snap = {}
    for key, v in ns.items():
        if isinstance(v, jitgrad.Tensor):
            grad = v.grad
            snap[key] = (v._storage.buffer.copy(), v._version, tuple(v.shape), v.stride(),
                         v.storage_offset(), v.requires_grad, v.dtype,
                         None if grad is None else grad.detach().numpy().copy(), v.grad_fn)
        elif isinstance(v, np.ndarray):
            snap[key] = (v.copy(), v.flags.writeable)
    return snap


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and a.shape == b.shape and np.array_equal(a, b, equal_nan=True))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a is b or a == b


def _family(exc: BaseException) -> str | None:
    for f in FAMILIES:
        if isinstance(exc, f):
            return f.__name__
    return None


def run_case(name: str) -> dict:
    case = BY_NAME[name]
    result: dict = {"name": name}
    ns: dict = {"lib": jitgrad, "np": np, "jk": jk}
    exec(case.setup, ns)
    before = _snapshot(ns)
    try:
        eval(case.call, ns)
        result["raised"] = None
    except BaseException as exc:  # noqa: BLE001 - anything escaping is reported
        result["raised"] = type(exc).__name__
        result["family"] = _family(exc)
        result["message"] = str(exc)
    after = _snapshot(ns)
    result["changed"] = sorted(k for k in before if not _same(before[k], after.get(k)))
    if case.torch is not None:
        tns: dict = {"lib": torch, "np": np}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(case.setup, tns)
                eval(case.call, tns)
            result["torch"] = None
        except Exception as exc:  # noqa: BLE001
            result["torch"] = _family(exc) or type(exc).__name__
            result["torch_message"] = str(exc)[:300]
    return result


def main(names: list[str]) -> None:
    for name in names:
        print(f"@@START {name}", flush=True)
        if name == "__crash__":
            os.abort()
        try:
            result = run_case(name)
        except BaseException as exc:  # noqa: BLE001 - a broken setup is a failed case, not a crash
            result = {"name": name, "error": f"setup failed: {type(exc).__name__}: {exc}"}
        print("@@RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
