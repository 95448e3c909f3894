"""The eager path's fast paths (issue 11 part 1) keep PyTorch's semantics, and the small-op
bench scenarios run: plain int/slice indexing, one-element writes, stack of scalars, sum and
logsumexp on tiny tensors, the constant-gradient MulBackward0, the lazy version counter."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from jitgrad.cli import bench_small_ops

SHAPE = (5, 6, 4)


def _item(size: int) -> st.SearchStrategy:
    bound = st.integers(-size - 2, size + 2)
    return st.one_of(
        st.integers(-size, size - 1),
        st.builds(slice, st.none() | bound, st.none() | bound, st.none() | st.integers(1, 3)),
    )


@settings(max_examples=budget(200), deadline=None)
@given(st.data())
def test_plain_index_geometry_and_gradient_match_pytorch(data) -> None:
    n = data.draw(st.integers(0, 3))
    index = tuple(data.draw(_item(SHAPE[d])) for d in range(n))
    if data.draw(st.booleans()) and n == 1:
        index = index[0]  # a bare int or slice
    base = np.arange(2 * 5 * 6 * 4, dtype=np.float64).reshape(2, 5, 6, 4)
    ours_x = jitgrad.tensor(base, requires_grad=True)
    theirs_x = torch.tensor(base, requires_grad=True)
    ours_src, theirs_src = ours_x[1] * 1.0, theirs_x[1] * 1.0  # non-leaf, offset storage
    ours_src, theirs_src = ours_src.transpose(0, 2), theirs_src.transpose(0, 2)
    ours_src, theirs_src = ours_src.transpose(0, 2), theirs_src.transpose(0, 2)
    ours, theirs = ours_src[index], theirs_src[index]
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.stride() == theirs.stride()
    assert ours.storage_offset() == theirs.storage_offset()
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    (ours * 2.0).sum().backward()
    (theirs * 2.0).sum().backward()
    np.testing.assert_array_equal(ours_x.grad.detach().numpy(), theirs_x.grad.detach().numpy())


def test_plain_index_errors_unchanged() -> None:
    x = jitgrad.zeros(3, 4)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 1 with size 4"):
        x[1, 5]  # (the dim in the full index, as PyTorch's message)
    with pytest.raises(IndexError, match="too many indices"):
        x[1, 2, 3]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1]


def test_view_node_relative_geometry_in_viz_and_view_replay() -> None:
    from jitgrad import viz

    x = jitgrad.ones(4, 4, requires_grad=True)
    label, _ = viz._node_label(x[1, 2:].grad_fn)
    assert "rel sizes=(2,) strides=(1,) offset=6" in label
    from jitgrad.autograd.view_mode import is_view_replay, set_view_replay

    for replay in (False, True):
        previous = is_view_replay()
        set_view_replay(replay)
        try:
            grads = []
            for lib in (jitgrad, torch):
                x = lib.zeros(3, 4, dtype=lib.float64, requires_grad=True)
                a = x * 1.0
                v = a[1, 1:3]
                w = lib.tensor(5.0, dtype=lib.float64, requires_grad=True)
                a[1, 2] = w * 2
                (v * lib.tensor([3.0, 4.0], dtype=lib.float64)).sum().backward()
                grads.append((x.grad.detach().numpy().tolist(), w.grad.item()))
            assert grads[0] == grads[1]
        finally:
            set_view_replay(previous)


@pytest.mark.parametrize("value_dtype", ["float64", "float32", "int64"])
def test_one_element_write_with_grad_matches_pytorch(value_dtype: str) -> None:
    results = []
    for lib in (jitgrad, torch):
        r = lib.zeros(3, 4, dtype=lib.float64, requires_grad=True) * 1.0
        if value_dtype == "int64":
            v = lib.tensor(7)
        else:
            v = lib.tensor(2.5, dtype=getattr(lib, value_dtype), requires_grad=True)
        version = r._version
        r[1, 2] = v * 1 if value_dtype != "int64" else v
        assert r._version == version + 1
        (r * lib.arange(12, dtype=lib.float64).reshape(3, 4)).sum().backward()
        grad = None if value_dtype == "int64" else v.grad.item()
        results.append((r.detach().numpy().tolist(), grad))
    assert results[0] == results[1]


def test_one_element_write_of_itself_and_version_counter() -> None:
    x = jitgrad.arange(6, dtype=jitgrad.float64)
    assert x._version == 0  # the counter is made lazily; an unwritten storage reads 0
    x[2] = x[2]
    assert x._version == 1
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    d = x.data
    d[0] = 9.0
    assert x._version == 1 and d._version == 1  # .data: same memory, its own counter
    assert x[0].item() == 9.0


def test_stack_of_scalars_matches_pytorch() -> None:
    out = []
    for lib in (jitgrad, torch):
        t = lib.arange(12, dtype=lib.float64).reshape(3, 4).requires_grad_()
        a, b = t[1, 2], t[2, 3] * 2
        c = lib.tensor(4)  # an int64 scalar promotes to float64
        s = lib.stack([a, b, c])
        (s * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum().backward()
        out.append((s.dtype == lib.float64, s.tolist(), t.grad.detach().numpy().tolist()))
    assert out[0] == out[1]


def test_sum_int_dim_on_scalar_and_errors() -> None:
    for lib in (jitgrad, torch):
        assert lib.tensor(3.0).sum(0).item() == 3.0
        assert lib.tensor(3.0).sum(-1).item() == 3.0
        with pytest.raises(IndexError):
            lib.tensor(3.0).sum(1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        jitgrad.ones(2, 3).sum(2)


@pytest.mark.parametrize("values", [[1.0, 2.0, 3.0], [-np.inf, -np.inf, -np.inf],
                                    [np.inf, 1.0, 0.0], [np.nan, 1.0, 2.0]])
def test_logsumexp_silent_and_matches_pytorch(values) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = jitgrad.logsumexp(jitgrad.tensor(values, dtype=jitgrad.float64), 0)
    theirs = torch.logsumexp(torch.tensor(values, dtype=torch.float64), 0)
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mul_backward_constant_gradient_dtype_and_value(dtype: str) -> None:
    grads = []
    for lib in (jitgrad, torch):
        x = lib.ones(5, dtype=getattr(lib, dtype), requires_grad=True)
        (x * 1.1).sum().backward()
        grads.append((str(x.grad.dtype).split(".")[-1], x.grad.detach().numpy().tolist()))
    assert grads[0] == grads[1]


@pytest.mark.parametrize("name,build", bench_small_ops.PER_OP)
def test_small_op_scenarios_run_for_both_libraries(name, build) -> None:
    for lib in (jitgrad, torch):
        op = build(lib)
        op()


@pytest.mark.parametrize("name,build", bench_small_ops.PROGRAMS)
def test_programs_forward_and_backward(name, build) -> None:
    for lib in (jitgrad, torch):
        lib.manual_seed(0)
        out = build(lib, True)()
        assert out.dim() == 0 and out.requires_grad and np.isfinite(out.item())
        out.backward()


@pytest.mark.parametrize("name,build", bench_small_ops.PROGRAMS_WITH_BACKWARD)
def test_programs_with_backward_scenarios_run_for_both_libraries(name, build) -> None:
    assert name.endswith(".forward+backward")
    for lib in (jitgrad, torch):
        lib.manual_seed(0)
        build(lib, True)()  # (the bench times one step per build)


def test_objects_rows_count_for_each_op() -> None:
    rows = bench_small_ops.objects_rows({"jitgrad": jitgrad}, True)
    assert [r["op"] for r in rows] == [name for name, _ in bench_small_ops.PER_OP]
    assert all(float(r["gc objects/op"]) >= 0 for r in rows)


def test_long_stepper_rows_measure_each_library_in_its_own_process() -> None:
    rows = bench_small_ops.long_stepper_rows({"jitgrad": jitgrad}, True)
    assert [r["lib"] for r in rows] == ["jitgrad"]
    assert float(rows[0]["us/statement"]) > 0 and rows[0]["collector share"].endswith("%")
    assert rows[0]["jitgrad/PyTorch"] == "-"  # (no PyTorch measured)
