"""What runs once per backward pass, made cheaper, against the general path and PyTorch:
the implicit root gradient (``engine._implicit_grad``), ``tensor.backward()``'s direct
path, ``_nodes_to_run`` (``autograd.grad``'s capture), a broadcast (stride-0) source in
``regions``' row paths (``sum``'s gradient into ``.grad``), and ``InputBuffers``' one-add
sum of a second gradient (``_added``). Errors, hook order, version counters, and no
``.grad`` written by a failing pass stay as they were."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from jitgrad import regions
from jitgrad.autograd import engine
from jitgrad.autograd.graph import add_inplace, gradient_edge
from jitgrad.autograd.input_buffer import _added, _own
from jitgrad.tensor import Tensor

SPECIAL = st.sampled_from([0.0, -0.0, np.inf, -np.inf, np.nan, 1e308, -1e308, 5e-324, 1.5])
F64 = st.one_of(st.floats(allow_nan=True, allow_infinity=True), SPECIAL)
# NaNs with payloads: which one a + b keeps is NumPy's pick, on either path
NANS = st.integers(1, 2**51 - 1).map(
    lambda m: np.array([0x7FF8000000000000 | m], np.uint64).view(np.float64)[0]
)
VALUES = st.one_of(F64, NANS)


# -- regions: a stride-0 source -------------------------------------------------------------
@settings(max_examples=budget(200))
@given(
    st.lists(VALUES, min_size=1, max_size=9), VALUES, st.integers(0, 2), st.integers(1, 2),
    st.sampled_from([np.float64, np.float32, np.complex128]),
)
def test_a_broadcast_source_adds_and_copies_as_numpy(
    dst_values: list[float], value: float, start: int, step: int, dtype: type
) -> None:
    with np.errstate(all="ignore"):
        dst = np.concatenate([np.full(start, 3.0), dst_values]).astype(dtype)
        src = np.array([7.0, value, 9.0]).astype(dtype)
    n = (len(dst_values) + step - 1) // step
    region = slice(start, start + (n - 1) * step + 1, step)
    expected = dst.copy()
    with np.errstate(all="ignore"):
        np.add(expected[region], np.broadcast_to(src[1], (n,)), out=expected[region])
    got = dst.copy()
    regions.add_region(got, start, (step,), src, 1, (0,), (n,))
    assert got.tobytes() == expected.tobytes()
    copied = dst.copy()
    regions.copy_region(copied, start, (step,), src, 1, (0,), (n,))
    expected = dst.copy()
    expected[region] = src[1]
    assert copied.tobytes() == expected.tobytes()


def test_sum_gradient_into_grad_takes_the_slice_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(regions, "as_array", None)  # the row path makes no region view
    x = jitgrad.ones(5, dtype=jitgrad.float64, requires_grad=True)
    x.sum().backward()  # a copy into a new .grad
    (x.sum() * 2).backward()  # an add into it
    assert x.grad.tolist() == [3.0] * 5


# -- InputBuffers: old + new in one add ------------------------------------------------------
def _tensor(values: list[float], dtype: type) -> Tensor:
    with np.errstate(all="ignore"):
        return Tensor._from_buffer(np.array(values).astype(dtype), (len(values),))


@settings(max_examples=budget(200))
@given(
    st.lists(st.tuples(VALUES, VALUES), min_size=1, max_size=8),
    st.sampled_from([np.float64, np.float32]),
    st.sampled_from(["row", "scalar", "broadcast", "offset", "broadcast old", "both broadcast"]),
)
def test_one_add_is_a_copy_then_an_add_bit_for_bit(
    pairs: list[tuple[float, float]], dtype: type, layout: str
) -> None:
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    old, new = _tensor(a, dtype), _tensor(b, dtype)
    if layout == "scalar":
        old, new = old[0], new[0]
    elif layout == "broadcast":
        new = new[0].expand(len(b))
    elif layout == "broadcast old":
        old = old[0].expand(len(a))
    elif layout == "both broadcast":
        old, new = old[0].expand(len(a)), _tensor(b, dtype)[-1].expand(len(a))
    elif layout == "offset":
        old, new = _tensor([5.0] + a, dtype)[1:], _tensor([6.0, 6.0] + b, dtype)[2:]
    expected = _own(old)
    add_inplace(expected, new)
    got = _added(old, new)
    assert got is not None
    assert got._sizes == expected._sizes and got._strides == expected._strides
    assert got._storage.buffer.tobytes() == expected._storage.buffer.tobytes()
    assert got._storage.buffer.base is None or got._storage.buffer.base is not old._storage.buffer


def test_one_add_leaves_the_rest_to_the_copy() -> None:
    big = Tensor._from_buffer(np.ones(regions.SMALL + 1), (regions.SMALL + 1,))
    assert _added(big, big) is None
    table = Tensor._from_buffer(np.ones(6), (2, 3))
    assert _added(table, table) is None
    f32 = Tensor._from_buffer(np.ones(3, np.float32), (3,))
    assert _added(Tensor._from_buffer(np.ones(3), (3,)), f32) is None
    strided = Tensor._from_buffer(np.ones(6), (6,))[::2]
    assert _added(strided, strided) is None


def test_a_gradient_used_twice_sums_as_pytorch() -> None:
    values = [1.0, float("inf"), -0.0, 2.0, float("nan")]
    seeds = [float("-inf"), float("inf"), -0.0, 0.5, 1.0]
    grads = []
    for lib in (jitgrad, torch):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        z = x * 1.0
        (z + z).backward(lib.tensor(seeds, dtype=lib.float64))
        grads.append(np.asarray(x.grad.tolist()).tobytes())
    assert grads[0] == grads[1]


# -- _nodes_to_run against the walk it replaced ----------------------------------------------
def _nodes_to_run_reference(roots: list, targets: set) -> dict:
    run: dict = {}
    stack = [(r, 0) for r in roots]
    while stack:
        node, i = stack.pop()
        if i == 0 and node in run:
            continue
        edges = node.next_functions
        if i < len(edges):
            stack.append((node, i + 1))
            nxt = edges[i][0]
            if nxt is not None and nxt not in run:
                stack.append((nxt, 0))
            continue
        run[node] = any(
            nxt is not None and (nxt in targets or run.get(nxt, False)) for nxt, _ in edges
        )
    return run


@settings(max_examples=budget(100), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20), st.integers(0, 3)),
                min_size=1, max_size=12), st.data())
def test_nodes_to_run_matches_the_former_walk(program: list, data: st.DataObject) -> None:
    leaves = [jitgrad.ones(3, requires_grad=k < 2) for k in range(3)]
    values = list(leaves)
    for i, j, op in program:
        a, b = values[i % len(values)], values[j % len(values)]
        values.append([a + b, a * b, a.exp(), a - b.sum()][op])
    outs = [v for v in values if v.grad_fn is not None] or [leaves[0] * 2]
    roots = [gradient_edge(v)[0] for v in data.draw(st.lists(st.sampled_from(outs), min_size=1, max_size=3))]
    targets = {gradient_edge(v)[0] for v in data.draw(st.lists(st.sampled_from(values), max_size=3))
               if v.requires_grad}
    assert engine._nodes_to_run(roots, targets) == _nodes_to_run_reference(roots, targets)


# -- tensor.backward()'s direct path and the implicit gradient ------------------------------
def _error(f) -> tuple[type, str]:
    with pytest.raises(Exception) as info:
        f()
    return type(info.value), str(info.value)


def test_direct_backward_raises_as_the_general_path() -> None:
    x = jitgrad.ones(3, requires_grad=True)
    y = x * 2
    assert _error(y.backward) == _error(lambda: jitgrad.autograd.backward([y]))
    c = jitgrad.ones(())
    assert _error(c.backward) == _error(lambda: jitgrad.autograd.backward([c]))
    assert "element 0 of tensors does not require grad" in _error(c.backward)[1]
    s = (x * 2).sum()
    s.backward()
    assert _error(s.backward) == _error(lambda: jitgrad.autograd.backward([s]))


@pytest.mark.parametrize("shape", [(), (1,), (1, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_implicit_gradient_is_ones_like_the_output(shape: tuple, dtype: str) -> None:
    x = jitgrad.ones(shape, dtype=getattr(jitgrad, dtype), requires_grad=True)
    edges, grads = engine._root_grads("backward", [x * 2], None)
    ones = jitgrad.ones(shape, dtype=getattr(jitgrad, dtype))
    (g,) = grads
    assert g._sizes == ones._sizes and g._strides == ones._strides and g.dtype == ones.dtype
    assert g._storage.buffer.tobytes() == ones._storage.buffer.tobytes()
    assert not g.requires_grad and g.grad_fn is None and g._base is None


def test_implicit_gradient_under_compile_is_the_factorys(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[Tensor] = []

    class Tracer:  # what jitgrad.compile's tracer is asked by ``creation.ones``
        def constant(self, t: Tensor) -> None:
            made.append(t)

        def new_storage(self, storage: object) -> None:
            pass

    out = jitgrad.ones((), requires_grad=True) * 2
    assert engine._implicit_grad(out, 0) is not None and made == []
    monkeypatch.setattr(jitgrad._tracing, "ACTIVE", Tracer())
    g = engine._implicit_grad(out, 0)
    monkeypatch.undo()
    assert made == [g] and g.tolist() == 1.0


# -- semantics around the pass ---------------------------------------------------------------
GRAPHS = {
    "one": lambda x: x.sum(),
    "two": lambda x: (x * 1.5).sum(),
    "four": lambda x: ((lambda z: z + z)(x * 3 * 0.5 * 2)).sum(),
}


def _hooked_run(lib: object, graph: str, use_grad: bool) -> list:
    log: list = []
    x = lib.ones(4, dtype=lib.float64, requires_grad=True)
    x.register_hook(lambda g: log.append(("leaf tensor hook", g.tolist())))
    if not use_grad:
        x.register_post_accumulate_grad_hook(lambda t: log.append(("post accumulate", t.grad.tolist())))
    y = GRAPHS[graph](x)
    y.register_hook(lambda g: log.append(("root tensor hook", g.tolist())))
    fn = y.grad_fn
    fn.register_prehook(lambda go: log.append(("root pre", [g.tolist() for g in go])))
    fn.register_hook(lambda gi, go: log.append(("root post", [g.tolist() for g in gi])))
    if use_grad:
        log.append(("result", [g.tolist() for g in lib.autograd.grad(y, x)]))
    else:
        y.backward()
        log.append(("grad", x.grad.tolist()))
    return log


@pytest.mark.parametrize("graph", sorted(GRAPHS))
@pytest.mark.parametrize("use_grad", [False, True])
def test_hooks_run_in_pytorchs_order(graph: str, use_grad: bool) -> None:
    assert _hooked_run(jitgrad, graph, use_grad) == _hooked_run(torch, graph, use_grad)


@pytest.mark.parametrize("graph", sorted(GRAPHS))
def test_a_failing_pass_changes_no_grad_nor_version(graph: str) -> None:
    x = jitgrad.ones(4, dtype=jitgrad.float64, requires_grad=True)
    GRAPHS[graph](x).backward()
    before, version = x.grad.tolist(), x.grad._version
    y = GRAPHS[graph](x)

    def boom(g: object) -> None:
        raise ValueError("boom")

    y.register_hook(lambda g: g)
    x_hook = x.register_hook(boom)  # runs last, after every node: only the commit is left
    with pytest.raises(ValueError, match="boom"):
        y.backward(retain_graph=True)
    assert x.grad.tolist() == before and x.grad._version == version
    x_hook.remove()
    y.backward()
    assert x.grad.tolist() == [2 * v for v in before] and x.grad._version == version + 1


@pytest.mark.parametrize("lib", [jitgrad, torch])
def test_accumulating_into_grad_bumps_its_version_once_per_pass(lib: object) -> None:
    x = lib.ones(4, dtype=lib.float64, requires_grad=True)
    (x * 2).backward(lib.ones(4, dtype=lib.float64))
    versions = [x.grad._version]
    for _ in range(3):
        (x * 1.5).sum().backward()
        versions.append(x.grad._version)
    assert versions == [0, 1, 2, 3]


# -- autograd.grad: evaluate's inlined call_function vs call_function ------------------------
@pytest.mark.parametrize("post_hook", [False, True])  # with a post-hook: call_function
def test_a_capture_tells_the_node_which_inputs_need_a_gradient(
    post_hook: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = jitgrad.tensor([1.0, 2.0], requires_grad=True)
    b = jitgrad.tensor([3.0, 4.0], requires_grad=True)
    prod = a * b
    fn = prod.grad_fn
    seen: list = []
    cls = type(fn)
    for name in ("apply", "apply_owned"):
        real = getattr(cls, name)
        monkeypatch.setattr(
            cls, name,
            lambda self, *args, _real=real: (
                self is fn and seen.append(self._needed), _real(self, *args)
            )[1],
        )
    if post_hook:
        fn.register_hook(lambda gi, go: None)
    out = (prod * 2.0).sum()
    (ga,) = jitgrad.autograd.grad(out, a, retain_graph=True)
    (gb,) = jitgrad.autograd.grad(out, [b], retain_graph=True)
    both = jitgrad.autograd.grad(out, [a, b])
    # (apply_owned may call apply: one pass, one entry)
    passes = [k for i, k in enumerate(seen) if i == 0 or seen[i - 1] != k]
    assert passes == [(True, False), (False, True), (True, True)]
    assert fn._needed is None
    assert ga.tolist() == [6.0, 8.0] and gb.tolist() == [2.0, 4.0]
    assert [g.tolist() for g in both] == [[6.0, 8.0], [2.0, 4.0]]


def test_a_node_raising_under_a_capture_forgets_what_was_needed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    a = jitgrad.tensor([1.0, 2.0], requires_grad=True)
    prod = a * a
    fn = prod.grad_fn
    out = (prod * 2.0).sum()

    class Boom(RuntimeError):
        pass

    cls = type(fn)
    for name in ("apply", "apply_owned"):
        real = getattr(cls, name)

        def boom(self: object, *args: object, _real: object = real) -> object:
            if self is fn:
                assert fn._needed == (True, True)
                raise Boom()
            return _real(self, *args)  # type: ignore[operator]

        monkeypatch.setattr(cls, name, boom)
    with pytest.raises(Boom):
        jitgrad.autograd.grad(out, a)
    assert fn._needed is None
