"""The lean path of in-place arithmetic (``lean_inplace`` in ``ops/inplace.py``)
against the general path and PyTorch.

``add_``/``sub_``/``mul_``/``div_`` (and ``+=``, ``-=``, ``*=``, ``/=``) of a floating tensor
by a number or a tensor of its dtype and shape write straight into the destination. Each
program here runs three ways — lean path, general path (the lean one declines everything)
and PyTorch — and must give the same values, version counters, errors (type and message),
graph (node names and edges) and gradients, with ``create_graph``, hooks, ``retain_grad``
and both view modes.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

import numpy as np
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

import jitgrad
import lean_switch
from conftest import budget
from jitgrad.autograd.view_mode import view_replay
from jitgrad.ops import elementwise, inplace
from test_plain_writes import general_path as general_setitem
from test_plain_writes import graph_signature

SHAPE = (4, 5)


def general_path() -> Any:
    """Run the general in-place path only (the lean one declines every write)."""
    return lean_switch.declined(elementwise, "lean_inplace", None)


def counting_lean_writes(counter: list[int]) -> Any:
    return lean_switch.counted(elementwise, "lean_inplace", counter, lambda out: out is not None)


OPS = ("add_", "sub_", "mul_", "div_", "__iadd__", "__isub__", "__imul__", "__itruediv__")
TARGETS = ("table", "rows", "cols", "inner", "transposed", "row", "cell", "expanded", "nograd_view")
VALUE_KINDS = ("float", "int", "bool", "huge_int", "scalar_grad", "scalar_nograd", "full_grad",
               "full_nograd", "strided_grad", "transposed_grad", "row_grad", "self_view", "same",
               "other_view", "f32", "int_tensor", "bad_shape", "none")


@st.composite
def programs(draw: Callable[..., Any]) -> dict[str, Any]:
    steps = []
    for _ in range(draw(st.integers(1, 5))):
        steps.append((draw(st.sampled_from(TARGETS)), draw(st.sampled_from(OPS)),
                      draw(st.sampled_from(VALUE_KINDS)), draw(st.floats(-3, 3, allow_nan=False)),
                      draw(st.sampled_from([None, 1, 2, 0.5]))))
    return {
        "table": draw(st.sampled_from(["nonleaf", "leaf", "plain"])),
        "dtype": draw(st.sampled_from(["float64", "float32"])),
        "steps": steps,
        "replay": draw(st.booleans()),
        "hooks": draw(st.booleans()),
        "no_grad": draw(st.booleans()),
    }


def _value(lib: Any, kind: str, c: float, dst: Any, w: Any, table: Any, dtype: Any) -> Any:
    shape = tuple(dst.shape)
    n = int(np.prod(shape))
    if kind == "float":
        return c
    if kind == "int":
        return int(c)
    if kind == "bool":
        return c > 0
    if kind == "huge_int":
        return 2 ** 62 + 1  # (past 2**63 PyTorch raises OverflowError; jitgrad computes)
    if kind == "scalar_grad":
        return (w * c).to(dtype)
    if kind == "scalar_nograd":
        return lib.tensor(c, dtype=dtype)
    if kind == "full_grad":
        return (lib.arange(n, dtype=lib.float64).reshape(shape) * w + c).to(dtype)
    if kind == "full_nograd":
        return lib.arange(n, dtype=dtype).reshape(shape) - c
    if kind == "strided_grad":  # every other column of a wider tensor
        wide = (lib.arange(2 * n, dtype=lib.float64) * w - c).to(dtype)
        return wide.reshape(shape[:-1] + (2 * shape[-1],))[..., ::2] if shape else wide[0]
    if kind == "transposed_grad":
        return (lib.arange(n, dtype=lib.float64).reshape(shape[::-1]) * w).to(dtype).t() \
            if len(shape) == 2 else (w * c).to(dtype)
    if kind == "row_grad":  # broadcast along the first dim: the general path
        return (w * lib.arange(shape[-1] if shape else 1, dtype=lib.float64)).to(dtype)
    if kind == "self_view":  # the destination's own memory: overlap checks
        return table[0] if shape == (5,) else table[1:1 + shape[0]] if len(shape) == 2 and shape[1] == 5 else table[0, 0]
    if kind == "same":
        return dst
    if kind == "other_view":  # another tensor's slice, same shape
        other = lib.arange(40, dtype=dtype).reshape(8, 5) + c
        return other.t()[:, 1:1 + shape[1]] if len(shape) == 2 and shape[0] == 5 else \
            other[1:1 + shape[0], :shape[1]] if len(shape) == 2 else other[2, :shape[0]] if shape else other[1, 1]
    if kind == "f32":
        return lib.full(shape, c, dtype=lib.float32 if dtype == lib.float64 else lib.float64)
    if kind == "int_tensor":
        return lib.full(shape, int(c) or 1, dtype=lib.int64)
    if kind == "bad_shape":
        return lib.ones(7, dtype=dtype)
    return None


def run(lib: Any, program: dict[str, Any]) -> dict[str, Any]:
    """Run ``program`` in ``lib``; return what must agree: per step the error (type and
    message) or the versions, then the values, the graph and the gradients."""
    f64 = lib.float64
    dtype = getattr(lib, program["dtype"])
    x = (lib.arange(20, dtype=f64).reshape(SHAPE) / 7 + 0.5).to(dtype).detach().requires_grad_()
    w = lib.tensor(1.5, dtype=f64, requires_grad=True)
    table = {"nonleaf": lambda: x * 1.0, "leaf": lambda: x,
             "plain": lambda: (lib.arange(20, dtype=f64).reshape(SHAPE) + 1).to(dtype)}[program["table"]]()
    seen_grads: list[Any] = []
    hooked = program["hooks"] and table.requires_grad and table.grad_fn is not None
    if hooked:
        table.retain_grad()
        table.register_hook(lambda g: seen_grads.append(g.detach().numpy().copy()))
    with lib.no_grad():
        nograd_view = table[1:3]
    targets = {"table": lambda: table, "rows": lambda: table[1:], "cols": lambda: table[:, 1:4],
               "inner": lambda: table[1:-1, 1:-1], "transposed": table.t, "row": lambda: table[2],
               "cell": lambda: table[1, 2], "expanded": lambda: table[0].expand(3, 5),
               "nograd_view": lambda: nograd_view}
    log: list[Any] = []
    for target, op, kind, c, alpha in program["steps"]:
        dst = targets[target]()
        value = _value(lib, kind, c, dst, w, table, dtype)
        if value is None:  # (PyTorch's ``__iadd__(None)`` returns NotImplemented)
            op = {"__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_"}.get(op, op)
        kwargs = {"alpha": alpha} if alpha is not None and op in ("add_", "sub_") else {}
        ctx = lib.no_grad() if program["no_grad"] and kind == "float" else contextlib.nullcontext()
        try:
            with ctx:
                out = getattr(dst, op)(value, **kwargs)
            fn = dst.grad_fn
        except (RuntimeError, IndexError, ValueError, TypeError, OverflowError) as exc:
            log.append((type(exc).__name__, str(exc) if lib is jitgrad else None))
            continue
        log.append(("ok", out is dst, table._version, dst._version,
                    None if fn is None else fn.name().replace("torch::autograd::", "")))
    out: dict[str, Any] = {"log": log, "values": table.detach().numpy().tolist()}
    if lib is jitgrad:
        out["graph"] = graph_signature(table)
    try:
        _gradients(lib, out, table, x, w, dtype, hooked, seen_grads)
    except RuntimeError as exc:  # (a saved tensor overwritten: ``t.mul_(t)``)
        out["backward_error"] = str(exc).split(",")[0] if lib is jitgrad else None
    return out


def _gradients(lib: Any, out: dict[str, Any], table: Any, x: Any, w: Any, dtype: Any, hooked: bool,
               seen_grads: list[Any]) -> None:
    f64 = lib.float64
    if table.requires_grad:
        loss = (table * lib.arange(20, dtype=f64).reshape(SHAPE).to(dtype)).sum()
        leaves = [t for t in (x, w) if t is not table]
        grads = lib.autograd.grad(loss, leaves, allow_unused=True, create_graph=True)
        out["grads"] = [None if g is None else g.detach().numpy().tolist() for g in grads]
        second = sum((g * g).sum() for g in grads if g is not None and g.requires_grad)
        if isinstance(second, lib.Tensor):
            out["second"] = [None if g is None else g.detach().numpy().tolist() for g in
                             lib.autograd.grad(second, leaves, allow_unused=True, retain_graph=True)]
        if hooked:
            table.sum().backward()
            out["retained"] = None if table.grad is None else table.grad.detach().numpy().tolist()
            out["hooked"] = [g.tolist() for g in seen_grads]


def _canonical(x: Any) -> Any:
    """``x`` with every NaN replaced by the string "nan" (NaN != NaN in list comparisons)."""
    if isinstance(x, float) and x != x:
        return "nan"
    if isinstance(x, (list, tuple)):
        return type(x)(_canonical(v) for v in x)
    if isinstance(x, dict):
        return {k: _canonical(v) for k, v in x.items()}
    return x


def _magnitude(values: list[Any]) -> float:
    """The largest finite magnitude among gradients (one per leaf; None for none), at least 1e6."""
    arrays = [np.array(t, dtype=np.float64).reshape(-1) for t in values if t is not None]
    everything = np.concatenate(arrays) if arrays else np.zeros(0)
    return float(np.abs(everything[np.isfinite(everything)]).max(initial=1e6))  # (sums of ~1e6 cancel)


def _close(a: list[Any], b: list[Any], rtol: float, scale: float | None = None) -> bool:
    """Gradients (one per leaf, or per hook call) agree with PyTorch's up to the order of
    their sums: within ``rtol`` times ``scale`` (the magnitude of ``b``'s, by default)."""
    if not isinstance(a, list) or not isinstance(b, list) or len(a) != len(b):
        return a == b
    if scale is None:
        scale = _magnitude(b)
    for u, v in zip(a, b):
        if u is None or v is None:
            if u is not v:
                return False
            continue
        u, v = (np.array(t, dtype=np.float64) for t in (u, v))
        if u.shape != v.shape or not np.allclose(u, v, rtol=rtol, atol=rtol * scale, equal_nan=True):
            return False
    return True


def _compare(program: dict[str, Any]) -> None:
    lean, general = lean_switch.lean_and_general(run, program, general_path)
    assert _canonical(lean) == _canonical(general)
    if any(kind in ("self_view", "same") or target == "expanded"
           for target, _, kind, _, _ in program["steps"]):
        return  # (overlaps: where jitgrad refuses what PyTorch allows, or computes out of place)
    theirs = run(torch, program)
    ours = {k: v for k, v in lean.items() if k != "graph"}
    ours["log"] = [(e[0], None) if e[0] != "ok" else e for e in ours["log"]]
    if program["replay"]:  # (PyTorch's runs are in as_strided mode: views' grad_fn names differ)
        ours["log"] = [e[:4] for e in ours["log"]]
        theirs["log"] = [e[:4] for e in theirs["log"]]
    assert ours.keys() == theirs.keys()
    for key in ours:
        if key in ("log", "values", "backward_error"):
            assert _canonical(ours[key]) == _canonical(theirs[key]) or key == "backward_error", key
        elif key == "retained":
            assert _close([ours[key]], [theirs[key]], 1e-5 if program["dtype"] == "float32" else 1e-12), key
        elif key == "second":
            # the gradient of sum(g * g): terms of the size of g squared cancel (a table divided
            # by 1e-6 has g ~ 1e7 and second derivatives ~ 1e2), so rounding is relative to g**2
            rtol = 1e-5 if program["dtype"] == "float32" else 1e-12
            assert _close(ours[key], theirs[key], rtol, _magnitude(theirs["grads"]) ** 2), key
        else:
            assert _close(ours[key], theirs[key], 1e-5 if program["dtype"] == "float32" else 1e-12), key


@settings(max_examples=budget(200), deadline=None)
@given(programs())
@example({"table": "nonleaf", "dtype": "float64", "replay": False, "hooks": False, "no_grad": False,
          "steps": [("rows", "div_", "scalar_grad", 1e-06, None), ("table", "mul_", "scalar_grad", 1.0, None)]})
def test_lean_inplace_matches_general_path_and_pytorch(program: dict[str, Any]) -> None:
    _compare(program)


def _stepper(lib: Any) -> tuple[Any, Any, Any]:
    """A 1-D and a 2-D stepper (the bench's ``u[1:-1] +=`` and heat equation)."""
    f64 = lib.float64
    x = (lib.arange(12, dtype=f64) / 11).requires_grad_()
    a = lib.tensor(0.3, dtype=f64, requires_grad=True)
    u = x * 1.0
    for _ in range(3):
        u[1:-1] += a * (u[2:] - 2 * u[1:-1] + u[:-2])
    g = (lib.arange(36, dtype=f64) / 35).reshape(6, 6).requires_grad_()
    v = g * 1.0
    for _ in range(3):
        lap = v[2:, 1:-1] + v[:-2, 1:-1] + v[1:-1, 2:] + v[1:-1, :-2] - 4 * v[1:-1, 1:-1]
        v[1:-1, 1:-1] += a * lap
        v[1:-1, 1:-1] *= 0.9
        v.t()[1:3] /= a
        v[2] -= 0.5
    loss = (u * u).sum() + (v * v).sum()
    grads = lib.autograd.grad(loss, (x, a, g), create_graph=True)
    second = lib.autograd.grad(sum((t * t).sum() for t in grads), (x, a, g))
    return (u.detach().numpy().tolist(), v.detach().numpy().tolist(), u._version, v._version,
            u.grad_fn.name(), [t.detach().numpy().tolist() for t in grads],
            [t.detach().numpy().tolist() for t in second],
            (graph_signature(u), graph_signature(v)) if lib is jitgrad else None), grads, second


@pytest.mark.parametrize("replay", [False, True])
def test_lean_path_is_taken_for_the_steppers(replay: bool) -> None:
    counted = [0]
    with view_replay(replay), counting_lean_writes(counted):
        ours = _stepper(jitgrad)[0]
    assert counted[0] == 3 + 3 * 4
    with view_replay(replay), general_path(), general_setitem():  # (``u[i] += x`` ends in a setitem)
        general = _stepper(jitgrad)[0]
    assert ours == general
    theirs = _stepper(torch)[0]
    assert ours[:4] == theirs[:4] and ours[5:7] == theirs[5:7]
    assert ours[4].endswith(theirs[4])


def test_errors_and_versions_are_the_general_paths() -> None:
    ro = np.zeros(3)
    ro.flags.writeable = False
    with jitgrad.inference_mode():
        frozen = jitgrad.zeros(3)
    base = jitgrad.zeros(3, 4, dtype=jitgrad.float64) * 1.0
    with jitgrad.no_grad():
        nograd = base[1:]
    w = jitgrad.tensor(2.0, dtype=jitgrad.float64, requires_grad=True)
    cases: list[tuple[Callable[[], Any], str]] = [
        (lambda: jitgrad.zeros(3, requires_grad=True).add_(1.0), "leaf Variable"),
        (lambda: jitgrad.zeros(3, 4, requires_grad=True)[1].mul_(2.0), "view of a leaf"),
        (lambda: jitgrad.from_numpy(ro).add_(1.0), "read-only"),
        (lambda: frozen.add_(1.0), "inference"),
        (lambda: jitgrad.zeros(4, dtype=jitgrad.float64).expand(3, 4).add_(jitgrad.ones(3, 4, dtype=jitgrad.float64)),
         "more than one element"),
        (lambda: nograd.add_(w), "no_grad mode"),
    ]
    t = jitgrad.arange(6.0, dtype=jitgrad.float64)
    cases.append((lambda: t[1:].add_(t[:-1]), "single memory location"))
    for op, match in cases:
        messages = []
        for ctx in (contextlib.nullcontext(), general_path()):
            with ctx, pytest.raises(RuntimeError) as info:
                op()
            messages.append(str(info.value))
        assert messages[0] == messages[1] and match in messages[0]
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and t._version == 0  # nothing written


def test_version_error_names_the_users_line() -> None:
    x = jitgrad.ones(3, requires_grad=True, dtype=jitgrad.float64)
    y = (x * 1.0).exp()  # saves its result
    y[1:].add_(1.0)  # the write the error must point at
    with pytest.raises(RuntimeError, match=r"add_ at .*test_lean_inplace.py:\d+"):
        y.sum().backward()


def test_x_data_aliasing_the_destination() -> None:
    """``x.data`` is the same memory on another storage: NumPy buffers the overlapping input
    on the lean path, as the general path computes out of place."""
    out = []
    for ctx in (contextlib.nullcontext(), general_path()):
        with ctx:
            x = jitgrad.arange(8, dtype=jitgrad.float64)
            x[1:].add_(x.data[:-1])
            x[:-1].mul_(x.data[1:])
            out.append(x.tolist())
    t = torch.arange(8, dtype=torch.float64)
    t[1:].add_(t.data[:-1].clone())
    t[:-1].mul_(t.data[1:].clone())
    assert out[0] == out[1] == t.tolist()


# -- strided operands of out-of-place elementwise ops (operands.lean_strided) ----------------------
@contextlib.contextmanager
def no_strided_lean() -> Any:
    from jitgrad.ops import operands

    lean = operands.lean_strided
    operands.lean_strided = lambda *args: None
    try:
        yield
    finally:
        operands.lean_strided = lean


@st.composite
def strided_views(draw: Callable[..., Any]) -> tuple[Any, ...]:
    """A table of 2 or 3 dims and an index or transposition giving a view of it."""
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=1, max_size=3)))
    index = tuple(slice(draw(st.integers(0, 2)), draw(st.integers(-2, n)), draw(st.integers(1, 2)))
                  for n in shape)
    return shape, index, draw(st.booleans())


def _strided_program(lib: Any, spec: dict[str, Any]) -> Any:
    dtype = getattr(lib, spec["dtype"])
    (shape_a, index_a, t_a), (shape_b, index_b, t_b) = spec["a"], spec["b"]

    def operand(shape: Any, index: Any, transpose: bool, c: float) -> Any:
        n = int(np.prod(shape))
        base = (lib.arange(n, dtype=lib.float64).reshape(shape) / 3 + c).to(dtype).requires_grad_()
        view = (base * 1.0)[index]
        return base, view.t() if transpose and view.dim() == 2 else view

    x, a = operand(shape_a, index_a, t_a, 0.5)
    y, b = operand(shape_b, index_b, t_b, -1.25)
    if spec["other"] == "number":
        b = spec["c"]
    elif spec["other"] == "int":
        b = int(spec["c"])
    elif spec["other"] == "0d":
        b = (y.sum() / 10)
    elif spec["other"] == "same_view":
        b = a * 1.0 if spec["c"] > 0 else a
    op = spec["op"]
    out = getattr(lib, op)(b, a) if spec["flip"] and spec["other"] != "number" and spec["other"] != "int" \
        else getattr(lib, op)(a, b)
    (gx,) = lib.autograd.grad((out * out).sum(), x, create_graph=True)
    return out, gx


@settings(max_examples=budget(150), deadline=None)
@given(st.fixed_dictionaries({
    "a": strided_views(), "b": strided_views(), "dtype": st.sampled_from(["float64", "float32"]),
    "other": st.sampled_from(["tensor", "number", "int", "0d", "same_view"]),
    "op": st.sampled_from(["add", "sub", "mul", "div"]), "flip": st.booleans(),
    "c": st.floats(-3, 3, allow_nan=False),
}))
def test_strided_binary_matches_general_path_and_pytorch(spec: dict[str, Any]) -> None:
    def run(lib: Any) -> Any:
        try:
            out, gx = _strided_program(lib, spec)
        except (RuntimeError, ValueError) as exc:
            return type(exc).__name__
        return (tuple(out.shape), out.stride(), str(out.dtype).split(".")[-1],
                out.grad_fn.name(), _canonical(out.detach().numpy().tolist()),
                gx.detach().numpy().tolist())

    lean = run(jitgrad)
    with no_strided_lean():
        general = run(jitgrad)
    assert lean == general
    theirs = run(torch)
    if isinstance(theirs, str) or isinstance(lean, str):
        assert lean == theirs
        return
    if 0 in lean[0] or 1 in lean[0]:  # (the general path's strides differ from PyTorch's there)
        lean, theirs = lean[:1] + (None,) + lean[2:], theirs[:1] + (None,) + theirs[2:]
    assert lean[:4] == theirs[:4]
    rtol = 1e-5 if spec["dtype"] == "float32" else 1e-12
    if spec["other"] == "0d":  # (a sum: PyTorch's order differs in the last bit)
        assert _close([theirs[4]], [theirs[4]], rtol)
    else:
        assert lean[4] == _canonical(theirs[4])
    assert _close([lean[5]], [theirs[5]], rtol)


def test_strided_binary_is_taken_for_the_heat_stencil() -> None:
    """The stencil's blocks are viewed by the fused path itself (the fused per-op path (``fused_binary.py``):
    ``lean_strided``'s rule, written out), never handed to ``lean_binary``."""
    from unittest import mock

    from jitgrad.ops import fused_binary

    u = jitgrad.arange(36, dtype=jitgrad.float64).reshape(6, 6).requires_grad_() * 1.0
    with mock.patch.object(fused_binary, "lean_binary", side_effect=AssertionError("lean_binary")):
        lap = u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]
    a = np.arange(36.0).reshape(6, 6)
    expected = a[2:, 1:-1] + a[:-2, 1:-1] + a[1:-1, 2:] + a[1:-1, :-2] - 4 * a[1:-1, 1:-1]
    assert lap.is_contiguous() and lap.detach().numpy().tobytes() == expected.tobytes()


@settings(max_examples=budget(200), deadline=None)
@given(strided_views())
def test_strided_data_is_numpy(view: tuple[Any, ...]) -> None:
    from jitgrad.ops.operands import strided_data

    shape, index, transpose = view
    t = jitgrad.arange(int(np.prod(shape)), dtype=jitgrad.float64).reshape(shape)[index]
    t = t.t() if transpose and t.dim() == 2 else t
    data = strided_data(t)
    if 0 in tuple(t.shape):
        assert data is None
        return
    expected = t.detach().numpy()
    assert data.shape == expected.shape and np.array_equal(data, expected)
    assert np.shares_memory(data, t._storage.buffer)


def test_writes_in_the_command_line_programs_name_their_line() -> None:
    """The bench's scenarios use jitgrad as a user does: the walk to the user's frame stops
    in them (not at the interpreter's entry point, past every CLI frame)."""
    from jitgrad.cli import bench_small_ops

    for build in (bench_small_ops._setitem_grad, bench_small_ops._iadd_view):
        op = build(jitgrad)
        op()
        written = max((c.cell_contents for c in op.__closure__), key=lambda t: t.numel())
        _, where = written._storage.last_write
        assert where.endswith(f"bench_small_ops.py:{op.__code__.co_firstlineno}")


def test_every_walk_to_the_users_frame_stops_in_the_command_line_programs() -> None:
    """One rule for "the user's frame" (``storage.library_file``): version errors, anomaly
    mode's creation trace and the compiler's line all stop in jitgrad/cli, and skip the rest
    of the package."""
    import os

    from jitgrad import storage
    from jitgrad.cli import bench_small_ops

    package = os.path.dirname(jitgrad.__file__)
    assert storage.library_file(os.path.join(package, "ops", "inplace.py"))
    assert not storage.library_file(bench_small_ops.__file__)
    assert not storage.library_file(__file__)
    assert storage.user_frame(0).f_code is test_every_walk_to_the_users_frame_stops_in_the_command_line_programs.__code__
    op = bench_small_ops._setitem_grad(jitgrad)
    with jitgrad.autograd.detect_anomaly():
        op()
        written = max((c.cell_contents for c in op.__closure__), key=lambda t: t.numel())
    assert written.grad_fn.metadata["created_at"].endswith(f"bench_small_ops.py:{op.__code__.co_firstlineno}")


def test_a_view_written_into_its_own_place() -> None:
    """``t[i] = t[i]`` (how ``t[i] += x`` ends): a write with nothing to move, as on the
    general path and in PyTorch (version, graph, gradients, errors)."""
    def program(lib: Any) -> Any:
        x = lib.arange(12, dtype=lib.float64).reshape(3, 4).requires_grad_()
        t = x * 2.0
        v = t[1:, 1:3]
        t[1:, 1:3] = v
        t[0] = t[0]
        (g,) = lib.autograd.grad((t * t).sum(), x)
        return t._version, t.grad_fn.name(), g.tolist()

    def errors(lib: Any) -> list[str]:
        ro = np.zeros((3, 4))
        ro.flags.writeable = False
        e = lib.zeros(4, dtype=lib.float64).expand(3, 4)
        out = []
        for t, index in ((e, (slice(None), slice(1, 3))), (lib.from_numpy(ro), 1)):
            try:
                t[index] = t[index]
            except RuntimeError as exc:
                out.append(str(exc))
        return out

    ours = program(jitgrad)
    with general_setitem():
        assert program(jitgrad) == ours
        general_errors = errors(jitgrad)
    assert errors(jitgrad) == general_errors and len(general_errors) == 2
    theirs = program(torch)
    assert ours[0] == theirs[0] and ours[2] == theirs[2] and ours[1].endswith(theirs[1])


@pytest.mark.parametrize("n, geometry", [
    (23, ((3, 4), (6, 1), 2)),  # the buffer is not a whole number of rows
    (25, ((3, 4), (5, 1), 3)),  # rows that wrap around the buffer's row length
    (30, ((2, 3), (10, 2), 1)),  # every other column
    (30, ((3, 1), (7, 100), 4)),  # a size-1 dim with a stride past the buffer
    (30, ((1, 5), (50, 1), 20)),
])
def test_strided_data_of_odd_geometries(n: int, geometry: tuple[Any, ...]) -> None:
    from jitgrad.ops.operands import strided_data

    t = jitgrad.arange(n, dtype=jitgrad.float64).as_strided(*geometry)
    data = strided_data(t)
    assert data.shape == tuple(t.shape) and np.array_equal(data, t.detach().numpy())
    assert np.shares_memory(data, t._storage.buffer)
    x = jitgrad.arange(n, dtype=jitgrad.float64).as_strided(*geometry)
    with general_path():
        x.add_(jitgrad.ones(geometry[0], dtype=jitgrad.float64)).mul_(3.0)
    t.add_(jitgrad.ones(geometry[0], dtype=jitgrad.float64)).mul_(3.0)
    assert t._storage.buffer.tolist() == x._storage.buffer.tolist()


# -- the lean write through a view (``u[1:-1] += x``): slot by slot against the general path --
def _view_write_state(hooks: bool) -> list[Any]:
    """Writes through views taken straight from their bases (the lean case), twice through
    one place; the base's CopySlices and the view's regenerated grad_fn after each."""
    f64 = jitgrad.float64
    a = jitgrad.tensor(0.3, dtype=f64, requires_grad=True)
    u = jitgrad.arange(12, dtype=f64) * a
    g = jitgrad.arange(36, dtype=f64).reshape(6, 6) * a
    if hooks:
        u.retain_grad()
    marker = (a * 1.0).grad_fn
    states = []
    for base, index, value in ((u, slice(1, -1), a * jitgrad.ones(10, dtype=f64)),
                               (u, slice(1, -1), 2.0),
                               (g, (slice(1, -1), slice(1, -1)), a * jitgrad.ones(4, 4, dtype=f64)),
                               (g, (slice(2, None), 1), jitgrad.ones(4, dtype=f64))):
        view = base[index]
        if hooks:
            view.retain_grad()
        view += value
        for fn in (base.grad_fn, view.grad_fn):
            states.append((lean_switch.node_slots(fn), fn.sequence_nr - marker.sequence_nr))
        assert view.grad_fn.next_functions[0][0] is base.grad_fn
        states.append((base._version, view._version, view._view_meta.attr_version))
        states.append((sorted((base.grad_fn._retains_grad_hooks or {}).keys()),
                       sorted((view.grad_fn._retains_grad_hooks or {}).keys())))
    loss = (u * u).sum() + (g * g).sum()
    states.append(tuple(t.tolist() for t in jitgrad.autograd.grad(loss, (a,))))
    return states


@pytest.mark.parametrize("hooks", [False, True])
def test_lean_view_write_sets_every_slot_as_the_general_path(hooks: bool) -> None:
    def not_called(*args: Any) -> Any:
        raise AssertionError("the lean write through a view took rebase_history")

    with lean_switch.replaced(inplace, "rebase_history", not_called):
        lean = _view_write_state(hooks)
    with general_path():
        general = _view_write_state(hooks)
    assert lean == general


def test_copy_slices_init_does_what_node_init_does() -> None:
    """``CopySlices.__init__`` writes ``Node.__init__`` out: every field Node's sets (slots
    and ``__dict__``, also under anomaly mode) is set there too, the sequence number next."""
    from jitgrad.autograd.node import Node
    from jitgrad.geometry import Geometry
    from jitgrad.ops.copy_slices import CopySlices

    base = jitgrad.zeros(4, dtype=jitgrad.float64) * 1.0
    for anomaly in (False, True):
        with jitgrad.autograd.set_detect_anomaly(anomaly):
            plain = Node()
            made = CopySlices(base, Geometry((2,), (1,), 1), None, plain)
        assert made.sequence_nr == plain.sequence_nr + 1
        for name in Node.__slots__:
            if name not in ("__weakref__", "__dict__", "sequence_nr"):
                assert getattr(made, name, None) == getattr(plain, name, None), name
        assert set(made.__dict__) == set(plain.__dict__)
        assert bool(made.__dict__.get("_metadata")) == bool(plain.__dict__.get("_metadata")) == anomaly


def test_bump_walks_to_the_frame_user_frame_finds() -> None:
    """``Storage.bump`` writes ``user_frame``'s walk out: both stop at the same frame for
    every ``skip``, inside and outside the package."""
    from jitgrad import storage

    s = storage.Storage(np.zeros(3))

    def walk(skip: int) -> Any:
        s.bump("op", skip + 1)  # (past ``walk``, as ``user_frame(skip)`` from here)
        return s.counter._code, storage.user_frame(skip)

    for skip in range(4):
        code, frame = walk(skip)
        assert code is (None if frame is None else frame.f_code), skip
    # from inside the package: an in-place op on a view, whose line is the test's
    t = jitgrad.zeros(4, dtype=jitgrad.float64)
    t[1:].add_(1.0)
    assert t._storage.counter._code is test_bump_walks_to_the_frame_user_frame_finds.__code__
