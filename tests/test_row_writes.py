"""Writes of whole rows, columns and sub-blocks of a table (the HMM forward's
``alpha[t] = row``) on the lean setitem path against the general path and PyTorch.

A same-shape tensor value on other memory goes straight to ``regions.copy_region`` (one
slice assignment for a row or a column of one dtype). Each program runs three ways — lean
path, general path and PyTorch — and must give the same values (bit for bit between the
two paths), version counters, errors, graph (node names and edges), gradients, double
backward and hooks, in both view modes.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
import lean_switch
from conftest import budget
from jitgrad import regions
from jitgrad.autograd.view_mode import view_replay
from test_plain_writes import counting_lean_writes, general_path, graph_signature

ROWS, COLS = 5, 4

WHERE = ("row", "neg_row", "column", "block", "strided_row", "through_t", "cell_row")
VALUES = ("grad", "nograd", "float32_grad", "other_row", "strided_grad", "bad_shape", "int")


@st.composite
def programs(draw: Callable[..., Any]) -> dict[str, Any]:
    steps = [(draw(st.sampled_from(WHERE)), draw(st.integers(0, 99)), draw(st.sampled_from(VALUES)),
              draw(st.floats(-3, 3, allow_nan=False))) for _ in range(draw(st.integers(1, 6)))]
    return {"table": draw(st.sampled_from(["zeros", "nonleaf", "float32", "transposed"])),
            "steps": steps, "replay": draw(st.booleans()), "hooks": draw(st.booleans())}


def _index(where: str, k: int) -> Any:
    i, j = k % ROWS, k % COLS
    return {"row": i, "neg_row": -1 - i, "column": (slice(None), j),
            "block": (slice(i // 2, i // 2 + 2), slice(j // 2, None)),
            "strided_row": (i, slice(None, None, 2)), "through_t": j, "cell_row": (i, slice(j, j + 1))}[where]


def _value(lib: Any, kind: str, c: float, shape: tuple[int, ...], w: Any, table: Any) -> Any:
    f64 = lib.float64
    n = int(np.prod(shape))
    ramp = lib.arange(n, dtype=f64).reshape(shape)
    if kind == "grad":  # a fresh result with history, like the HMM's row
        return ramp * w + c
    if kind == "nograd":
        return ramp + c
    if kind == "float32_grad":  # a cast on the way
        return (ramp * w + c).float()
    if kind == "other_row":  # same memory as the table, elsewhere in it
        return table[(ROWS - 1, slice(0, shape[-1]))] if len(shape) == 1 else table[-shape[0]:, :shape[1]]
    if kind == "strided_grad":  # a strided view with history
        return (lib.arange(2 * n, dtype=f64) * w)[::2].reshape(shape)
    if kind == "int":
        return lib.full(shape, int(c), dtype=lib.int64)
    return lib.ones(shape[-1] + 1 if shape else 2, dtype=f64)  # bad_shape: a broadcast error


def run(lib: Any, program: dict[str, Any]) -> dict[str, Any]:
    f64 = lib.float64
    x = lib.arange(ROWS * COLS, dtype=f64).reshape(ROWS, COLS).requires_grad_()
    w = lib.tensor(1.5, dtype=f64, requires_grad=True)
    table = {"zeros": lambda: lib.zeros(ROWS, COLS, dtype=f64), "nonleaf": lambda: x * 1.0,
             "float32": lambda: lib.zeros(ROWS, COLS, dtype=lib.float32),
             "transposed": lambda: lib.zeros(COLS, ROWS, dtype=f64).t()}[program["table"]]()
    seen: list[Any] = []
    log: list[Any] = []
    for where, k, kind, c in program["steps"]:
        dst = table.t() if where == "through_t" else table
        index = _index(where, k)
        shape = tuple(dst[index].shape)
        value = _value(lib, kind, c, shape, w, table)
        try:
            dst[index] = value
        except (RuntimeError, ValueError) as exc:
            log.append((type(exc).__name__, str(exc) if lib is jitgrad else None))
            continue
        log.append(("ok", table._version, None if table.grad_fn is None else table.grad_fn.name()))
    hooked = program["hooks"] and table.grad_fn is not None
    if hooked:
        table.retain_grad()
        table.register_hook(lambda g: seen.append(g.detach().numpy().tolist()))
    values = table.detach().numpy()
    out: dict[str, Any] = {"log": log, "values": values.tolist(), "dtype": str(values.dtype)}
    if lib is jitgrad:
        out["bytes"] = values.tobytes()
        out["graph"] = graph_signature(table)
    if hooked:
        table.sum().backward(retain_graph=True)
        out["retained"] = table.grad.detach().numpy().tolist()
    if table.requires_grad:
        weights = lib.arange(ROWS * COLS, dtype=f64).reshape(ROWS, COLS)
        loss = (table.to(f64) * weights).sum() + (table.to(f64) ** 2).sum()
        grads = lib.autograd.grad(loss, [x, w], allow_unused=True, create_graph=True)
        out["grads"] = [None if g is None else g.detach().numpy().tolist() for g in grads]
        second = [(g * g).sum() for g in grads if g is not None and g.requires_grad]
        if second:
            out["second"] = [None if g is None else g.detach().numpy().tolist() for g in
                             lib.autograd.grad(sum(second), [x, w], allow_unused=True)]
    out["hooked"] = seen
    return out


def _compare(program: dict[str, Any]) -> None:
    lean, general = lean_switch.lean_and_general(run, program, general_path)
    assert lean == general
    if any(step[2] == "other_row" and entry[0] != "ok" for step, entry in zip(program["steps"], lean["log"])):
        return  # jitgrad refuses a source that overlaps the destination, on purpose
    with torch.autograd._force_original_view_tracking(program["replay"]):
        theirs = run(torch, program)
    ours = {k: v for k, v in lean.items() if k not in ("graph", "bytes")}
    ours["log"] = [(e[0], None) if e[0] != "ok" else e for e in ours["log"]]
    theirs["log"] = [(e[0], None) if e[0] != "ok" else e for e in theirs["log"]]
    assert ours.keys() == theirs.keys()
    for key in ours:  # (sums in another order: the last bits may differ)
        if key in ("log", "dtype"):
            assert ours[key] == theirs[key]
        else:
            _close(ours[key], theirs[key])


def _close(ours: Any, theirs: Any) -> None:
    if isinstance(ours, list) and ours and any(isinstance(o, list) or o is None for o in ours):
        assert isinstance(theirs, list) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _close(o, t)
    elif ours is None or theirs is None:
        assert ours is theirs
    else:
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-12, atol=1e-12)


@settings(max_examples=budget(200), deadline=None)
@given(programs())
def test_row_column_block_writes_match_general_path_and_pytorch(program: dict[str, Any]) -> None:
    _compare(program)


@pytest.mark.parametrize("replay", [False, True])
@pytest.mark.parametrize("table", ["zeros", "nonleaf", "float32", "transposed"])
def test_every_write_kind(table: str, replay: bool) -> None:
    for where in WHERE:
        for kind in VALUES:
            _compare({"table": table, "steps": [(where, 3, kind, 0.5), (where, 1, kind, -2.0)],
                      "replay": replay, "hooks": True})


def _hmm(lib: Any, steps: int = 6, k: int = 3) -> tuple[Any, list[Any]]:
    """The bench's HMM forward (log space, one row of the table per time step)."""
    f64 = lib.float64
    gen = np.random.default_rng(0)
    raw_a = lib.tensor(gen.standard_normal((k, k)), dtype=f64, requires_grad=True)
    raw_b = lib.tensor(gen.standard_normal((k, 5)), dtype=f64, requires_grad=True)
    log_a, log_b = lib.log_softmax(raw_a, 1), lib.log_softmax(raw_b, 1)
    alpha = lib.zeros(steps, k, dtype=f64)
    alpha[0] = log_b[:, 1] - np.log(k)
    for t in range(1, steps):
        alpha[t] = lib.logsumexp(alpha[t - 1][:, None] + log_a, 0) + log_b[:, (3 * t + 1) % 5]
    return lib.logsumexp(alpha[steps - 1], 0), [raw_a, raw_b, alpha]


@pytest.mark.parametrize("replay", [False, True])
def test_hmm_forward_takes_the_lean_path(replay: bool) -> None:
    counted = [0]
    with view_replay(replay), counting_lean_writes(counted):
        out, (a, b, alpha) = _hmm(jitgrad)
    assert counted[0] == 6
    with view_replay(replay), general_path():
        out_g, (a_g, b_g, alpha_g) = _hmm(jitgrad)
    out_t, (a_t, b_t, alpha_t) = _hmm(torch)
    assert out.item() == out_g.item()
    np.testing.assert_allclose(out.item(), out_t.item(), rtol=1e-13)
    assert alpha._version == alpha_g._version == alpha_t._version == 6
    assert alpha.grad_fn.name() == alpha_t.grad_fn.name() == "torch::autograd::CopySlices"
    assert graph_signature(alpha) == graph_signature(alpha_g)
    found = []
    for o, leaves in ((out, (a, b)), (out_g, (a_g, b_g)), (out_t, (a_t, b_t))):
        gs = (jitgrad if o is not out_t else torch).autograd.grad(o, leaves, create_graph=True)
        ggs = (jitgrad if o is not out_t else torch).autograd.grad(sum((g * g).sum() for g in gs), leaves)
        found.append([g.detach().numpy() for g in gs + ggs])
    for lean, general, theirs in zip(*found):
        assert lean.tobytes() == general.tobytes()
        np.testing.assert_allclose(lean, theirs, rtol=1e-10, atol=1e-12)


def test_row_writes_under_jitgrad_compile_give_eagers_values() -> None:
    """Under ``jitgrad.compile`` the general path records each write; replayed, the compiled
    function gives eager's value and gradient."""
    def f(w: Any) -> Any:
        table = jitgrad.zeros(3, 3, dtype=jitgrad.float64)
        for t in range(3):
            table[t] = w * (t + 1.0)
        table[:, 1] = w * 2.0
        return (table * table).sum()

    x = jitgrad.tensor([0.5, -1.0, 2.0], dtype=jitgrad.float64, requires_grad=True)
    step = jitgrad.compile(f)
    for _ in range(2):  # traced, then replayed
        out = step(x)
        (g,) = jitgrad.autograd.grad(out, x)
        eager = f(x)
        assert out.item() == eager.item()
        np.testing.assert_array_equal(g.detach().numpy(), jitgrad.autograd.grad(eager, x)[0].detach().numpy())


def test_row_write_error_order_is_the_general_paths() -> None:
    """A leaf's row, a row of a read-only or inference tensor, a bad shape: the same
    error (type and message) on both paths, and nothing written."""
    leaf = jitgrad.zeros(3, 4, requires_grad=True)
    ro = np.zeros((3, 4))
    ro.flags.writeable = False
    with jitgrad.inference_mode():
        frozen = jitgrad.zeros(3, 4)
    row = jitgrad.ones(4, dtype=jitgrad.float32, requires_grad=True) * 2.0
    cases = [(leaf, 0, row), (jitgrad.from_numpy(ro), 1, row), (frozen, 2, row),
             (jitgrad.zeros(3, 4), 0, jitgrad.ones(5)), (jitgrad.zeros(3, 4), 3, row)]
    for dst, index, value in cases:
        messages = []
        for ctx in (counting_lean_writes([0]), general_path()):
            with ctx, pytest.raises((RuntimeError, IndexError, ValueError)) as info:
                dst[index] = value
            messages.append((type(info.value), str(info.value)))
        assert messages[0] == messages[1]
        assert (dst is frozen or dst._version == 0) and not dst.detach().numpy().any()


@settings(max_examples=budget(300), deadline=None)
@given(st.data())
def test_copy_region_row_fast_path_matches_numpy(data: Any) -> None:
    """One-dim regions of one dtype (one slice assignment) against NumPy's strided copy,
    including a source in the same buffer (a whole overlap or none) and empty regions."""
    size = data.draw(st.integers(1, 30))
    n = data.draw(st.integers(0, 6))
    dtype = data.draw(st.sampled_from([np.float64, np.float32, np.int64, np.bool_]))
    step, src_step = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    span, src_span = max(n - 1, 0) * step + 1, max(n - 1, 0) * src_step + 1
    if span > size or src_span > size:
        return
    offset = data.draw(st.integers(0, size - span))
    src_offset = data.draw(st.integers(0, size - src_span))
    same = data.draw(st.booleans())
    dst = (np.arange(size) * 7 % 5).astype(dtype)
    src = dst if same else (np.arange(size) * 3 % 11).astype(dtype)
    region = np.lib.stride_tricks.as_strided
    item = dst.itemsize
    expected = dst.copy()
    source = region(src[src_offset:], (n,), (src_step * item,)).copy()
    if same and n and not (offset == src_offset and step == src_step) and \
            set(range(offset, offset + span, step)) & set(range(src_offset, src_offset + src_span, src_step)):
        return  # a partial overlap: the callers refuse it first
    region(expected[offset:], (n,), (step * item,))[...] = source
    regions.copy_region(dst, offset, (step,), src, src_offset, (src_step,), (n,))
    assert dst.tobytes() == expected.tobytes()


# -- the lean recorded write (Note [Lean paths]): slot by slot against _plain_setitem's steps --
def _recorded_write_state(hooks: bool) -> list[Any]:
    """Rows, cells, a column and a block written with history into tables that are not
    views (one without history, one with), twice through one place; the table's CopySlices
    (and the CopyBackwards in it), version and last write after each; then gradients."""
    f64 = jitgrad.float64
    a = jitgrad.tensor(0.3, dtype=f64, requires_grad=True)
    fresh = jitgrad.zeros(3, 4, dtype=f64)
    nonleaf = jitgrad.arange(12, dtype=f64).reshape(3, 4) * a
    vector = jitgrad.zeros(5, dtype=f64)
    if hooks:
        nonleaf.retain_grad()
    marker = (a * 1.0).grad_fn
    ones = jitgrad.ones
    states = []
    for table, index, value in (
            (fresh, 0, a * ones(4, dtype=f64)),  # the first write: no history yet
            (fresh, 2, a * ones(4, dtype=f64)),
            (fresh, 2, a * 2.0 * ones(4, dtype=f64)),  # the same place again
            (fresh, -1, ones(4, dtype=f64)),  # a source without history
            (nonleaf, 1, a * ones(4, dtype=f64)),
            (nonleaf, (2, 3), a * 2.0),  # a cell
            (nonleaf, (slice(None), 1), a * ones(3, dtype=f64)),  # a column
            (nonleaf, (slice(1, 3), slice(0, 2)), a * ones(2, 2, dtype=f64)),  # a block
            (vector, 0, a * 3.0),
            (vector, 1, vector[0].clone() * a),
            (vector, slice(2, 5), a * ones(3, dtype=f64)),
            # the view itself, as ``u[1:3, 0:2] += x`` ends (twice: the second time its
            # geometry is the last CopySlices's)
            (nonleaf, (slice(1, 3), slice(0, 2)), lambda: nonleaf[1:3, 0:2].__iadd__(a)),
            (nonleaf, (slice(1, 3), slice(0, 2)), lambda: nonleaf[1:3, 0:2].__iadd__(a)),
            (vector, slice(1, 4), lambda: vector[1:4].__imul__(a))):
        table[index] = value() if callable(value) else value
        fn = table.grad_fn
        states.append((lean_switch.node_slots(fn), fn.sequence_nr - marker.sequence_nr))
        states.append((fn.fn.sequence_nr - marker.sequence_nr, table._version,
                       table._storage._counter.last_write))
        states.append(sorted((fn._retains_grad_hooks or {}).keys()))
        states.append(graph_signature(table))
    loss = (fresh * fresh).sum() + (nonleaf * nonleaf).sum() + (vector * vector).sum()
    (g,) = jitgrad.autograd.grad(loss, (a,), create_graph=True)
    (gg,) = jitgrad.autograd.grad(g, (a,))
    states.append((g.item(), gg.item()))
    return states


@pytest.mark.parametrize("hooks", [False, True])
def test_lean_recorded_write_sets_every_slot_as_the_general_steps(hooks: bool) -> None:
    from jitgrad.ops import assignment
    from jitgrad.storage import WRITE_HOOKS

    taken = [0]
    with lean_switch.counted(assignment, "_lean_recorded_write", taken, bool):
        lean = _recorded_write_state(hooks)
    assert taken[0] == 14
    WRITE_HOOKS.append(lambda storage: None)  # (a write hook: the lean path declines)
    try:
        with lean_switch.counted(assignment, "_lean_recorded_write", taken, bool):
            general = _recorded_write_state(hooks)
    finally:
        WRITE_HOOKS.pop()
    assert taken[0] == 14
    assert lean == general


def test_lean_recorded_write_errors_are_the_general_paths() -> None:
    """A read-only table and self-overlapping ones (a block, a row): the same error on both
    paths, nothing written, and the table's history unchanged."""
    from jitgrad.storage import WRITE_HOOKS

    w = jitgrad.ones(3, dtype=jitgrad.float64, requires_grad=True)
    ro = np.zeros((2, 3))
    ro.flags.writeable = False
    for make, index, value in (
            (lambda: jitgrad.from_numpy(ro), 0, lambda: w * 2.0),
            (lambda: jitgrad.from_numpy(ro), (1, 2), lambda: w[0] * 2.0),
            (lambda: jitgrad.empty_strided((3, 3), (0, 1), dtype=jitgrad.float64),
             slice(0, 2), lambda: w.expand(2, 3) * 2.0),
            (lambda: jitgrad.empty_strided((3,), (0,), dtype=jitgrad.float64),
             slice(0, 2), lambda: w[:2] * 2.0)):
        messages = []
        for hooked in (False, True):
            if hooked:
                WRITE_HOOKS.append(lambda storage: None)
            try:
                dst = make()
                with pytest.raises(RuntimeError) as info:
                    dst[index] = value()
                messages.append(str(info.value))
                assert dst._version == 0 and dst.grad_fn is None
            finally:
                if hooked:
                    WRITE_HOOKS.pop()
        assert messages[0] == messages[1]


@st.composite
def steppers(draw: Callable[..., Any]) -> dict[str, Any]:
    bounds = st.none() | st.integers(-5, 5)
    steps = []
    for _ in range(draw(st.integers(1, 4))):
        rows, cols = (draw(bounds), draw(bounds)), (draw(bounds), draw(bounds))
        # (not all of the table: PyTorch's ``u[:, :] = v`` is ``u.copy_(v)``, not a view's write)
        if slice(*rows).indices(4)[:2] == (0, 4) and slice(*cols).indices(5)[:2] == (0, 5):
            rows = (1, None)
        steps.append((rows, cols, draw(st.sampled_from(["+=", "-=", "*="]))))
    return {"steps": steps, "leaf_table": draw(st.booleans()), "replay": draw(st.booleans())}


def _stepper(lib: Any, program: dict[str, Any]) -> dict[str, Any]:
    """``u[a:b, c:d] op= alpha * (u[a:b, c:d] + 1)``: the in-place op into a view, then
    the write of that view into its own place (the lean write with nothing to move)."""
    f64 = lib.float64
    x = lib.arange(20, dtype=f64).reshape(4, 5).requires_grad_()
    alpha = lib.tensor(0.5, dtype=f64, requires_grad=True)
    u = x * 1.0 if not program["leaf_table"] else lib.arange(20, dtype=f64).reshape(4, 5)
    log = []
    for (a, b), (c, d), op in program["steps"]:
        value = alpha * (u[a:b, c:d] + 1.0)
        try:
            if op == "+=":
                u[a:b, c:d] += value
            elif op == "-=":
                u[a:b, c:d] -= value
            else:
                u[a:b, c:d] *= value
            log.append(("ok", u._version, u.grad_fn.name().replace("torch::autograd::", "")))
        except RuntimeError as exc:
            log.append((type(exc).__name__,))
    (g, ga) = lib.autograd.grad((u * u).sum(), (x, alpha), allow_unused=True) if not program["leaf_table"] \
        else (None,) + lib.autograd.grad((u * u).sum(), (alpha,))
    return {"log": log, "values": u.detach().numpy().tolist(),
            "grads": [None if t is None else t.detach().numpy().tolist() for t in (g, ga)]}


@settings(max_examples=budget(100), deadline=None)
@given(steppers())
def test_stepper_writes_into_their_own_place_match_general_path_and_pytorch(program: dict[str, Any]) -> None:
    from jitgrad.ops import elementwise

    taken = [0]
    with view_replay(program["replay"]), counting_lean_writes(taken):
        lean = _stepper(jitgrad, program)
    with view_replay(program["replay"]), general_path(), \
            lean_switch.declined(elementwise, "lean_inplace", None):
        general = _stepper(jitgrad, program)
    assert lean == general  # (bit for bit)
    with torch.autograd._force_original_view_tracking(program["replay"]):
        theirs = _stepper(torch, program)
    assert lean["log"] == theirs["log"]
    _close(lean["values"], theirs["values"])
    _close(lean["grads"], theirs["grads"])


def test_a_source_of_the_views_shape_keeps_its_leading_ones() -> None:
    """``u[-1:, :1] = u[-1:, :1]`` and ``u[2:3] = w`` with ``w`` of shape (1, 5): the source has
    the view's shape, so (as PyTorch's ``copy_to``) it is copied as it is, leading size-1 dims
    and all: the same memory in the same place is no partial overlap."""
    out = []
    for lib in (jitgrad, torch):
        x = lib.arange(20, dtype=lib.float64).reshape(4, 5).requires_grad_()
        u = x * 1.0
        u[-1:, :1] = u[-1:, :1]
        u[-1:, :1] += x[:1, :1] * 2.0
        u[2:3] = (x[:1] * 3.0)
        u[1:2, 1:4] = u[0:1, 2:5]
        (g,) = lib.autograd.grad((u * u).sum(), x)
        out.append((u._version, u.detach().numpy().tolist(), g.tolist()))
    assert out[0] == out[1]
