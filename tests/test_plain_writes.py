"""The lean paths of writes into views (issue 11 part 1) against the general path and PyTorch.

``x[index] = value`` with a plain index (ints and int slices) goes through
``assignment._plain_setitem``, which skips the temporary view's autograd state. Each program
here runs three ways — lean path, general path (the lean path switched off) and PyTorch —
and must give the same values, version counters, errors, graph (node names and edges) and
gradients, with ``create_graph``, hooks, ``retain_grad`` and both view modes.
"""

from __future__ import annotations

import contextlib
import inspect
from typing import Any, Callable

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
import lean_switch
from conftest import budget
from jitgrad.autograd.view_mode import view_replay
from jitgrad.ops import assignment

SHAPE = (4, 5)


def general_path() -> Any:
    """Run the general setitem path only (the lean one declines every write)."""
    return lean_switch.declined(assignment, "_plain_setitem", False)


def counting_lean_writes(counter: list[int]) -> Any:
    return lean_switch.counted(assignment, "_plain_setitem", counter, bool)


def graph_signature(t: Any) -> Any:
    """The graph below ``t`` as nested (name, edges) tuples (shared nodes named once)."""
    seen: dict[int, int] = {}

    def walk(fn: Any) -> Any:
        if fn is None:
            return None
        if id(fn) in seen:
            return ("seen", seen[id(fn)])
        seen[id(fn)] = len(seen)
        name = fn.name().replace("torch::autograd::", "")
        return (name, tuple((walk(f), nr) for f, nr in fn.next_functions))

    return walk(t.grad_fn)


# -- one program: writes into a table and into views of it, then a loss ---------------------------
def _index(draw: Callable[..., Any], sizes: tuple[int, ...], in_range: bool) -> Any:
    items = []
    for size in sizes[: draw(st.integers(0, len(sizes)))]:
        if draw(st.booleans()):  # out of range: IndexError
            items.append(draw(st.integers(-size, size - 1) if in_range else st.integers(-size - 1, size)))
        else:
            bound = st.none() | st.integers(-size - 1, size + 1)
            items.append(slice(draw(bound), draw(bound), draw(st.none() | st.integers(1, 3))))
    if len(items) == 1 and draw(st.booleans()):
        return items[0]
    return tuple(items)


VALUE_KINDS = ("float", "int", "bool", "scalar_grad", "scalar_nograd", "full_grad", "row_grad",
               "leading_one", "self_view", "list", "bad_shape", "int_tensor")
TARGETS = ("table", "rows", "transposed", "expanded", "nograd_view")


@st.composite
def programs(draw: Callable[..., Any]) -> dict[str, Any]:
    steps = []
    for _ in range(draw(st.integers(1, 5))):
        target = draw(st.sampled_from(TARGETS))
        sizes = {"table": SHAPE, "rows": (3, 5), "transposed": (5, 4), "expanded": (3, 5),
                 "nograd_view": (2, 5)}[target]
        # (PyTorch checks an index after the history errors of the dims before it; jitgrad
        # checks the whole index first: a stale no_grad view with a bad index differs)
        index = _index(draw, sizes, in_range=target == "nograd_view")
        steps.append((target, index, draw(st.sampled_from(VALUE_KINDS)),
                      draw(st.floats(-3, 3, allow_nan=False))))
    return {
        "table": draw(st.sampled_from(["nonleaf", "leaf", "plain"])),
        "steps": steps,
        "replay": draw(st.booleans()),
        "hooks": draw(st.booleans()),
    }


def _value(lib: Any, kind: str, c: float, shape: tuple[int, ...], w: Any, table: Any) -> Any:
    f64 = lib.float64
    if kind == "float":
        return c
    if kind == "int":
        return int(c)
    if kind == "bool":
        return c > 0
    if kind == "scalar_grad":
        return w * c
    if kind == "scalar_nograd":
        return lib.tensor(c, dtype=f64)
    if kind == "full_grad":
        return (lib.arange(int(np.prod(shape)), dtype=f64).reshape(shape) * w + c) if shape else w + c
    if kind == "row_grad":
        return w * lib.arange(shape[-1] if shape else 1, dtype=f64).reshape(shape[-1:])
    if kind == "leading_one":
        return (w + c).expand(shape).reshape((1, 1) + shape)
    if kind == "self_view":  # same memory as the destination: overlap checks
        return table[0]
    if kind == "list":
        return np.full(shape, c).tolist()
    if kind == "int_tensor":
        return lib.full(shape, int(c), dtype=lib.int64)
    return lib.ones(7, dtype=f64)  # bad_shape


def run(lib: Any, program: dict[str, Any]) -> dict[str, Any]:
    """Run ``program`` in ``lib``; return what must agree: per step the error (type and
    message) or the versions, then the values, the graph and the gradients."""
    f64 = lib.float64
    x = lib.arange(20, dtype=f64).reshape(SHAPE).requires_grad_()
    w = lib.tensor(1.5, dtype=f64, requires_grad=True)
    table = {"nonleaf": lambda: x * 1.0, "leaf": lambda: x,
             "plain": lambda: lib.zeros(SHAPE, dtype=f64)}[program["table"]]()
    seen_grads: list[Any] = []
    hooked = program["hooks"] and table.requires_grad and table.grad_fn is not None
    if hooked:
        table.retain_grad()
        table.register_hook(lambda g: seen_grads.append(g.detach().numpy().copy()))
    with lib.no_grad():
        nograd_view = table[1:3]
    targets = {"table": lambda: table, "rows": lambda: table[1:], "transposed": table.t,
               "expanded": lambda: table[0].expand(3, 5), "nograd_view": lambda: nograd_view}
    log: list[Any] = []
    for target, index, kind, c in program["steps"]:
        dst = targets[target]()  # (a view made now: older ones are the fuzzers' business)
        shape = tuple(np.empty(tuple(dst.shape))[index].shape) if _valid(dst, index) else ()
        value = _value(lib, kind, c, shape, w, table)
        try:
            dst[index] = value
        except (RuntimeError, IndexError, ValueError, TypeError) as exc:
            log.append((type(exc).__name__, str(exc) if lib is jitgrad else None))
            continue
        log.append(("ok", table._version, dst._version))
    out: dict[str, Any] = {"log": log, "values": table.detach().numpy().tolist()}
    if lib is jitgrad:
        out["graph"] = graph_signature(table)
    if table.requires_grad:
        loss = (table * lib.arange(20, dtype=f64).reshape(SHAPE)).sum()
        leaves = [t for t in (x, w) if t is not table]
        grads = lib.autograd.grad(loss, leaves, allow_unused=True, create_graph=True)
        out["grads"] = [None if g is None else g.detach().numpy().tolist() for g in grads]
        second = sum((g * g).sum() for g in grads if g is not None and g.requires_grad)
        if isinstance(second, (lib.Tensor,)):
            out["second"] = [None if g is None else g.detach().numpy().tolist() for g in
                             lib.autograd.grad(second, leaves, allow_unused=True)]
        if hooked:
            table.sum().backward()
            out["retained"] = None if table.grad is None else table.grad.detach().numpy().tolist()
            out["hooked"] = [g.tolist() for g in seen_grads]
    return out


def _valid(dst: Any, index: Any) -> bool:
    try:
        np.empty(tuple(dst.shape))[index]
    except (IndexError, ValueError):
        return False
    return True


def _compare(program: dict[str, Any]) -> None:
    lean, general = lean_switch.lean_and_general(run, program, general_path)
    assert lean == general
    if any(kind in ("self_view", "list") or target == "expanded"
           for target, _, kind, _ in program["steps"]):
        # where jitgrad differs from PyTorch on purpose: it refuses a source that overlaps
        # the destination, takes a list as the value (as NumPy does), and lets a value be
        # written through a self-overlapping (expanded) view, order-free
        return
    theirs = run(torch, program)
    ours = {k: v for k, v in lean.items() if k != "graph"}
    ours["log"] = [(e[0], None) if e[0] != "ok" else e for e in ours["log"]]
    assert ours == theirs


@settings(max_examples=budget(150), deadline=None)
@given(programs())
def test_plain_setitem_matches_general_path_and_pytorch(program: dict[str, Any]) -> None:
    _compare(program)


def _dp_writes(lib: Any) -> tuple[Any, Any]:
    r = lib.zeros(3, 4, dtype=lib.float64, requires_grad=True) * 1.0
    v = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
    r[1, 2] = v
    r[0] = v * lib.ones(4, dtype=lib.float64)
    r[2, 1:] = 3.0
    r.t()[0, 1:] = v * 2  # into a view of the table
    with lib.no_grad():
        r[0, 0] = 1.0
    return r, v


@pytest.mark.parametrize("replay", [False, True])
def test_lean_path_is_taken_for_the_dp_table_writes(replay: bool) -> None:
    counted = [0]
    with view_replay(replay), counting_lean_writes(counted):
        r, v = _dp_writes(jitgrad)
        assert counted[0] == 5
        assert r.grad_fn.name() == "torch::autograd::CopySlices"
        (r * jitgrad.arange(12, dtype=jitgrad.float64).reshape(3, 4)).sum().backward()
    r_t, v_t = _dp_writes(torch)
    (r_t * torch.arange(12, dtype=torch.float64).reshape(3, 4)).sum().backward()
    assert r._version == r_t._version
    assert (r.tolist(), v.grad.item()) == (r_t.tolist(), v_t.grad.item())


def test_errors_are_the_general_paths() -> None:
    cases: list[tuple[Callable[[], Any], str]] = []
    leaf = jitgrad.zeros(3, 4, requires_grad=True)
    cases.append((lambda: leaf.__setitem__((0, 1), 1.0), "a view of a leaf Variable"))
    base = jitgrad.zeros(3, 4, requires_grad=True) * 1.0
    with jitgrad.no_grad():
        v = base[1:]
    w = jitgrad.tensor(2.0, requires_grad=True)
    cases.append((lambda: v.__setitem__(0, w), "no_grad mode"))
    e = jitgrad.zeros(4).expand(3, 4)
    cases.append((lambda: e.__setitem__((slice(None), 0), jitgrad.ones(3)), "more than one element"))
    t = jitgrad.arange(6.0)
    cases.append((lambda: t.__setitem__(slice(1, None), t[:-1]), "single memory location"))
    cases.append((lambda: t.__setitem__(slice(0, 2), jitgrad.ones(3)), "broadcast"))
    cases.append((lambda: t.__setitem__(7, 1.0), "out of bounds"))
    cases.append((lambda: jitgrad.zeros(2, dtype=jitgrad.uint8).__setitem__(0, 300), "overflow"))
    ro = np.zeros(3)
    ro.flags.writeable = False
    cases.append((lambda: jitgrad.from_numpy(ro).__setitem__(0, 1.0), "read-only"))
    one = jitgrad.tensor(1.0, dtype=jitgrad.float64)  # one element into one: no temporary view
    cases.append((lambda: jitgrad.from_numpy(ro).__setitem__(1, one), "read-only"))
    with jitgrad.inference_mode():
        frozen = jitgrad.zeros(3)
    cases.append((lambda: frozen.__setitem__(0, one), "inference"))
    for op, match in cases:
        messages = []
        for ctx in (contextlib.nullcontext(), general_path()):
            with ctx, pytest.raises((RuntimeError, IndexError, ValueError)) as info:
                op()
            messages.append((type(info.value), str(info.value)))
        assert messages[0] == messages[1]
        assert match in messages[0][1]
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and t._version == 0  # nothing written


def test_version_error_names_the_users_line() -> None:
    x = jitgrad.ones(3, requires_grad=True)
    r = x * 1.0
    y = r.exp()  # saves its result
    y[0] = 5.0  # the write the error must point at
    with pytest.raises(RuntimeError, match=r"__setitem__ at .*test_plain_writes.py:\d+"):
        y.sum().backward()
    z = r.exp()
    z[1] = jitgrad.tensor(2.0, dtype=z.dtype)  # one element from another buffer
    line = inspect.currentframe().f_lineno - 1  # type: ignore[union-attr]
    assert z._version == 1 and z._storage.last_write[0] == "__setitem__"
    assert z._storage.last_write[1].endswith(f"test_plain_writes.py:{line}")


def test_inference_mode_and_tracing_take_the_general_path() -> None:
    counted = [0]
    with counting_lean_writes(counted):
        with jitgrad.inference_mode():
            t = jitgrad.zeros(3)
            t[0] = 1.0
        t2 = jitgrad.zeros(3)
        with jitgrad.inference_mode():
            pass
        t2[1] = 2.0
    assert counted[0] == 1 and t.tolist() == [1.0, 0.0, 0.0] and t2.tolist() == [0.0, 2.0, 0.0]


def test_plain_index_matches_numpy_on_every_small_slice() -> None:
    from jitgrad.indexing import plain_index

    bounds = [None, -60, -50, -49, -48, -2, -1, 0, 1, 2, 48, 49, 50, 60]
    for size in (0, 1, 2, 49):
        array = np.arange(max(size, 1))[:size]
        for start in bounds:
            for stop in bounds:
                for step in (None, 1, 2, 3, 50):
                    sizes, strides, offset = plain_index((size,), (1,), 0, slice(start, stop, step))
                    expected = array[start:stop:step]
                    assert sizes == expected.shape and (not expected.size or (
                        offset == expected[0] and (expected.size == 1 or strides[0] == expected[1] - expected[0])))
    assert plain_index((3,), (1,), 0, slice(None, None, -1)) is None
    assert plain_index((3,), (1,), 0, slice(np.int64(1), None)) is None  # the general path's


def test_has_overlap_quick_test_agrees_with_the_exact_one() -> None:
    import itertools

    from jitgrad import kernels, regions

    for ndim in range(4):
        for sizes in itertools.product([0, 1, 2, 3], repeat=ndim):
            for strides in itertools.product([0, 1, 2, 3, 5, 7], repeat=ndim):
                exact = 0 not in sizes and kernels.has_internal_overlap(sizes, strides)
                assert regions.has_overlap(sizes, strides) == exact, (sizes, strides)


@pytest.mark.parametrize("index", [
    (slice(None), None), (None, 1), (Ellipsis, 2), (1, Ellipsis, None), (True, 0), (False,),
    (slice(1, None, 2), None, Ellipsis), (0, [1, 2]), (slice(None), np.array([0, 3])),
])
def test_basic_index_view_node_gradients_match_pytorch(index: Any) -> None:
    """Views of basic (non-plain) indices compute their relative geometry on first use when
    the index cannot change; gradients and double backward match PyTorch's."""
    out = []
    for lib in (jitgrad, torch):
        x = lib.arange(20, dtype=lib.float64).reshape(SHAPE).requires_grad_()
        y = (x * x)[index]
        w = lib.arange(int(np.prod(tuple(y.shape))), dtype=lib.float64).reshape(tuple(y.shape))
        (g,) = lib.autograd.grad((y * w).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        out.append((y.grad_fn.name(), g.detach().numpy().tolist(), gg.detach().numpy().tolist()))
    assert out[0][1:] == out[1][1:]
    assert out[0][0] == out[1][0] or out[0][0].startswith("Index")


@settings(max_examples=budget(200), deadline=None)
@given(st.data())
def test_plain_index_with_none_matches_the_general_path(data: Any) -> None:
    """``x[i, None, a:b]`` takes the plain path; ``x[i, None, a:b, ...]`` (the same index)
    the general one: same geometry, grad_fn, gradient and view-replay history."""
    shape = (3, 4, 2)
    items: list[Any] = []
    dims = 0
    for _ in range(data.draw(st.integers(0, 5))):
        kind = data.draw(st.sampled_from(["none", "int", "slice"]))
        if kind == "none":
            items.append(None)
        elif dims < len(shape):
            size = shape[dims]
            items.append(data.draw(st.integers(-size, size - 1)) if kind == "int" else slice(
                data.draw(st.none() | st.integers(-5, 5)), data.draw(st.none() | st.integers(-5, 5)),
                data.draw(st.none() | st.integers(1, 3))))
            dims += 1
    index = tuple(items)
    replay = data.draw(st.booleans())
    out = []
    with view_replay(replay):
        for idx in (index, index + (Ellipsis,)):
            x = jitgrad.arange(24, dtype=jitgrad.float64).reshape(shape).requires_grad_()
            y = (x * 2.0)[idx]
            name = y.grad_fn.name()
            y.mul_(3.0)  # through the view: its base's CopySlices replays or restrides it
            (g,) = jitgrad.autograd.grad((y * y).sum(), x)
            out.append((tuple(y.shape), y.stride(), y.storage_offset(), name, y.grad_fn.name(),
                        g.detach().numpy().tolist()))
    assert out[0] == out[1]
    theirs = (torch.arange(24, dtype=torch.float64).reshape(shape) * 2.0)[index]
    assert out[0][0] == tuple(theirs.shape) and out[0][2] == theirs.storage_offset()
