"""In-place writes outside autograd (``copy_``, ``fill_``, ``zero_``, ``__setitem__``) against
PyTorch: values, dtype conversion, broadcasting, overlap errors and the version counter, plus
the writes jitgrad deliberately refuses and the guarantee that a refused write changes nothing."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from oracle import compare

A34 = np.arange(12, dtype=np.float64).reshape(3, 4) - 4.5
A6 = np.arange(6, dtype=np.float32)
I34 = np.arange(12, dtype=np.int64).reshape(3, 4) - 5
B34 = I34 % 3 == 0


def src(L, array):
    return L.from_numpy(np.array(array))


def mutated(write):
    """A program that writes in place and returns the written tensor and its version."""
    def program(L, x):
        out = write(L, x)
        return x, x._version, out is None or out._version == x._version
    return program


CASES = {
    # copy_: broadcasting and dtype conversion (float64 -> float32 -> int64 -> bool and back)
    "copy_same": (lambda L, x: x.copy_(src(L, A34 * 2)), A34),
    "copy_row_broadcast": (lambda L, x: x.copy_(src(L, [1.0, 2.0, 3.0, 4.0])), A34),
    "copy_col_broadcast": (lambda L, x: x.copy_(src(L, [[1.0], [2.0], [3.0]])), A34),
    "copy_0d": (lambda L, x: x.copy_(src(L, 7.5)), A34),
    "copy_bad_shape": (lambda L, x: x.copy_(src(L, [1.0, 2.0])), A34),
    "copy_more_dims": (lambda L, x: x.copy_(src(L, np.ones((1, 3, 4)))), A34),
    "copy_f64_to_f32": (lambda L, x: x.copy_(src(L, np.linspace(-1, 1, 6) / 3)), A6),
    "copy_f32_to_i64": (lambda L, x: x.copy_(src(L, (A34 * 1.3).astype(np.float32))), I34),
    "copy_i64_to_bool": (lambda L, x: x.copy_(src(L, I34)), B34),
    "copy_f64_to_bool": (lambda L, x: x.copy_(src(L, np.array([0.0, -0.0, 0.1, np.nan]))), B34[0]),
    "copy_bool_to_f32": (lambda L, x: x.copy_(src(L, B34[0, :2].repeat(3))), A6),
    "copy_i64_to_f64": (lambda L, x: x.copy_(src(L, I34)), A34),
    "copy_into_transposed": (lambda L, x: x.t().copy_(src(L, np.arange(12.0).reshape(4, 3))), A34),
    "copy_into_strided_view": (lambda L, x: x[::2, 1::2].copy_(src(L, [[9.0, 8.0]])), A34),
    "copy_from_transposed_view": (lambda L, x: x.copy_(src(L, np.arange(12.0).reshape(4, 3)).t()), A34),
    "copy_into_empty": (lambda L, x: x[2:, :].copy_(src(L, np.zeros((0, 4)))), A34),
    "copy_not_a_tensor": (lambda L, x: x.copy_(A34), A34),
    # copy_ between views of one storage
    "copy_identical_self": (lambda L, x: x.copy_(x), A34),
    "copy_identical_view": (lambda L, x: x[1:].copy_(x[1:]), A34),
    "copy_partial_overlap": (lambda L, x: x[1:].copy_(x[:-1]), A6),
    "copy_partial_overlap_rows": (lambda L, x: x[1:].copy_(x[:2]), A34),
    "copy_disjoint_halves": (lambda L, x: x[:3].copy_(x[3:]), A6),
    "copy_disjoint_interleaved": (lambda L, x: x[::2].copy_(x[1::2]), A6),
    "copy_expand_into_dense": (lambda L, x: x[1:].copy_(x[0]), A34),
    # fill_ / zero_
    "fill_float": (lambda L, x: x.fill_(2.5), A34),
    "fill_int_truncates": (lambda L, x: x.fill_(2.7), I34),
    "fill_bool_from_float": (lambda L, x: x.fill_(0.5), B34),
    "fill_bool_from_nan": (lambda L, x: x.fill_(float("nan")), B34),
    "fill_int_from_nan": (lambda L, x: x.fill_(float("nan")), I34),
    "fill_float32_overflow": (lambda L, x: x.fill_(1e300), A6),
    "fill_float32_inf": (lambda L, x: x.fill_(float("inf")), A6),
    "fill_int_min": (lambda L, x: x.fill_(-(2**63)), I34),
    "fill_0d_tensor": (lambda L, x: x.fill_(src(L, 3.0)), A34),
    "fill_1d_tensor": (lambda L, x: x.fill_(src(L, [3.0])), A34),
    "fill_string": (lambda L, x: x.fill_("a"), A34),
    "fill_view": (lambda L, x: x[:, 1].fill_(-1.0), A34),
    "fill_expanded": (lambda L, x: x[0, :1].expand(3, 4).fill_(9.0), A34),
    "fill_empty": (lambda L, x: x[3:].fill_(1.0), A34),
    # an empty view's offset may point past the end of the storage (as in PyTorch)
    "fill_empty_past_end": (lambda L, x: x[1:, 1].fill_(1.0), A34[:1, :2]),
    "copy_empty_past_end": (lambda L, x: x[1:, 1].copy_(x[1:, 0]), A34[:1, :2]),
    "setitem_empty_past_end": (lambda L, x: x.__setitem__((slice(1, None), 1), 2.0), A34[:1, :2]),
    "clone_empty_past_end": (lambda L, x: x[1:, 1].clone().fill_(0.0), A34[:1, :2]),
    "zero_": (lambda L, x: x.zero_(), I34),
    "zero_diagonal": (lambda L, x: x.diagonal().zero_(), A34),
    "zero_expanded": (lambda L, x: x[:1].expand(4, 6).zero_(), A6),
    # PyTorch refuses what it can see as internal overlap (a zero stride) as well
    "copy_into_expanded": (lambda L, x: x[:1].expand(6).copy_(src(L, A6)), A6),
    "setitem_tensor_into_expanded": (lambda L, x: x[0].expand(2, 4).__setitem__(0, src(L, 1.0)), A34),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_inplace_matches_pytorch(name: str) -> None:
    write, data = CASES[name]
    compare(mutated(write), data)


def test_writes_return_self_and_bump_version_once() -> None:
    x = jitgrad.zeros(3, 4)
    v = x[1:]
    ops = [
        lambda: x.copy_(jitgrad.ones(4)),
        lambda: x.fill_(2.0),
        lambda: x.zero_(),
        lambda: v.copy_(v),  # a copy onto itself still counts as a write, as in PyTorch
        lambda: x[0].fill_(1.0),
        lambda: x.__setitem__(0, 1.0),
        lambda: x.__setitem__((slice(None), 1), jitgrad.ones(3)),
        lambda: x.__setitem__([0, 2], 5.0),
        lambda: x.__setitem__(([0, 2], [1, 1]), jitgrad.tensor([1.0, 2.0])),
        lambda: x.__setitem__(x.detach().numpy() > 1, 0.0),
        lambda: x[3:].fill_(1.0),  # an empty write is still a write
    ]
    for i, op in enumerate(ops, start=1):
        out = op()
        assert out is None or out is x or out._storage is x._storage
        assert x._version == v._version == i, f"op {i}"
    assert x._storage.last_write[0] == "fill_"
    assert "test_inplace.py:" in x._storage.last_write[1]  # the user's line, not jitgrad's


def test_fill_on_self_overlapping_views_is_allowed() -> None:
    # The result of a fill cannot depend on the order of the writes, so jitgrad allows it on
    # expanded, unfolded and overlapping as_strided views, as PyTorch does.
    x = jitgrad.zeros(6)
    x.unfold(0, 3, 1).fill_(1.0)
    x.as_strided((3, 3), (1, 1)).zero_()
    x[:2].expand(4, 2)[...] = 7.0  # a scalar assignment is a fill
    assert x.tolist() == [7.0, 7.0, 0.0, 0.0, 0.0, 1.0]
    assert x._version == 3


def test_scalar_setitem_on_expanded_view_is_allowed() -> None:
    # Deliberate difference: PyTorch refuses ``e[...] = 1.0`` on an expanded view (it copies
    # a broadcast scalar), although ``e.fill_(1.0)`` is fine; jitgrad treats both as fills.
    torch_e = torch.zeros(3)[:1].expand(3)
    with pytest.raises(RuntimeError):
        torch_e[...] = 1.0
    e = jitgrad.zeros(3)[:1].expand(3)
    e[...] = 1.0
    assert e.tolist() == [1.0, 1.0, 1.0]


def overlapping_destinations():
    """Self-overlapping destinations PyTorch cannot detect (no zero stride) and so allows."""
    return {
        "unfold": lambda L, x: x.unfold(0, 2, 1),  # windows share elements
        "as_strided": lambda L, x: x.as_strided((3, 3), (1, 1)),
        "as_strided_2d": lambda L, x: x.as_strided((2, 3), (2, 1), 1),
    }


@pytest.mark.parametrize("name", sorted(overlapping_destinations()))
def test_order_dependent_write_into_self_overlapping_view_is_refused(name: str) -> None:
    # Deliberate difference: PyTorch allows these writes (the result depends on the order in
    # which elements are written); jitgrad refuses them with a RuntimeError and writes nothing.
    make = overlapping_destinations()[name]
    t = make(torch, torch.from_numpy(A6.copy()))
    t.copy_(torch.ones(t.shape))  # PyTorch: no error
    x = jitgrad.from_numpy(A6.copy())
    view = make(jitgrad, x)
    value = jitgrad.from_numpy(np.arange(view.numel(), dtype=np.float32).reshape(tuple(view.shape)))
    for write in (
        lambda: view.copy_(value),
        lambda: view.__setitem__(..., value),
        lambda: view.__setitem__([0], value[:1]),
    ):
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            write()
        np.testing.assert_array_equal(x.detach().numpy(), A6)
        assert x._version == 0


def test_partial_overlap_pytorch_cannot_see_is_refused() -> None:
    # Deliberate difference: PyTorch checks source/destination overlap only when both are
    # contiguous, so this copy runs there; jitgrad's exact test refuses it (element 2 is
    # written at index 1 and read at index 0: the result depends on the order of the writes).
    t = torch.arange(10.0)
    t.as_strided((3,), (2,)).copy_(t[2:5])
    x = jitgrad.from_numpy(np.arange(10.0))
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        x.as_strided((3,), (2,)).copy_(x[2:5])
    assert x.tolist() == list(np.arange(10.0)) and x._version == 0


def test_overlap_only_at_the_same_index_is_copied_as_pytorch() -> None:
    # Element 2 is index 1 of both views: it is copied onto itself, nothing else is shared,
    # so the order of the writes cannot matter; the same values as PyTorch's.
    t = torch.arange(10.0)
    t.as_strided((3,), (2,)).copy_(t[1:4])
    x = jitgrad.from_numpy(np.arange(10.0))
    x.as_strided((3,), (2,)).copy_(x[1:4])
    assert x.tolist() == t.tolist() and x._version == 1


def readonly_tensor():
    array = np.arange(6.0)
    array.flags.writeable = False
    return jitgrad.from_numpy(array)


def test_writes_into_readonly_numpy_memory_are_refused() -> None:
    # Deliberate difference: PyTorch only warns when it wraps read-only NumPy memory, and then
    # writes into it; jitgrad refuses every in-place write.
    x = readonly_tensor()
    for write in (
        lambda: x.copy_(jitgrad.ones(6, dtype=jitgrad.float64)),
        lambda: x.fill_(1.0),
        lambda: x.zero_(),
        lambda: x[1:].fill_(1.0),
        lambda: x.__setitem__(0, 1.0),
        lambda: x.__setitem__([0, 1], 1.0),
        lambda: x.__setitem__(slice(None), jitgrad.ones(6, dtype=jitgrad.float64)),
    ):
        with pytest.raises(RuntimeError, match="read-only"):
            write()
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and x._version == 0
    assert x.clone().fill_(1.0).tolist() == [1.0] * 6  # a copy is writable


def refused_writes():
    """(name, make-tensor, write) for every way an in-place write can be refused."""
    def fresh():
        return jitgrad.from_numpy(A34.copy())

    return [
        ("copy_bad_shape", fresh, lambda x: x.copy_(jitgrad.ones(2))),
        ("copy_not_tensor", fresh, lambda x: x.copy_([1.0])),
        ("copy_partial_overlap", fresh, lambda x: x[1:].copy_(x[:2])),
        ("copy_into_expand", fresh, lambda x: x[0, :1].expand(4).copy_(jitgrad.ones(4))),
        ("copy_into_unfold", fresh, lambda x: x[0].unfold(0, 2, 1).copy_(jitgrad.ones(3, 2))),
        ("fill_1d_value", fresh, lambda x: x.fill_(jitgrad.ones(1))),
        ("fill_string", fresh, lambda x: x.fill_("a")),
        ("fill_overflow", fresh, lambda x: x.fill_(10**400)),
        ("setitem_oob", fresh, lambda x: x.__setitem__(3, 1.0)),
        ("setitem_bad_value", fresh, lambda x: x.__setitem__(0, "a")),
        ("setitem_bad_shape", fresh, lambda x: x.__setitem__(0, jitgrad.ones(3))),
        ("setitem_adv_oob", fresh, lambda x: x.__setitem__([0, 1, 3], 1.0)),
        ("setitem_adv_bad_shape", fresh, lambda x: x.__setitem__([0, 1], jitgrad.ones(2, 3))),
        ("setitem_adv_dtype", fresh, lambda x: x.__setitem__([0], jitgrad.ones(4))),
        ("setitem_adv_overlap", fresh, lambda x: x.__setitem__([0, 1], x[1])),
        ("setitem_mask_shape", fresh, lambda x: x.__setitem__(jitgrad.tensor([True]), 1.0)),
        ("readonly_fill", readonly_tensor, lambda x: x.fill_(1.0)),
        ("readonly_setitem", readonly_tensor, lambda x: x.__setitem__([1], 1.0)),
        ("as_strided_overlap", fresh, lambda x: x.as_strided((3, 3), (1, 1)).copy_(jitgrad.zeros(3, 3, dtype=jitgrad.float64))),
    ]


@pytest.mark.parametrize("name,make,write", refused_writes(), ids=[c[0] for c in refused_writes()])
def test_refused_write_changes_nothing(name, make, write) -> None:
    x = make()
    before = x._storage.buffer.copy()
    with pytest.raises((RuntimeError, TypeError, ValueError, IndexError, OverflowError)) as info:
        write(x)
    assert not isinstance(info.value, AssertionError)
    np.testing.assert_array_equal(x._storage.buffer, before)  # bytes unchanged
    assert x._version == 0 and x._storage.last_write is None


# -- random copies between views of random layouts -------------------------------------------
DTYPES = ["float32", "float64", "int64", "bool"]


@st.composite
def copy_cases(draw):
    """A permuted destination, and a source that broadcasts to it, of random dtypes."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    perm = tuple(draw(st.permutations(range(len(shape)))))
    dst_shape = tuple(shape[p] for p in perm)
    src_shape = tuple(1 if draw(st.booleans()) else s for s in dst_shape)
    src_shape = src_shape[draw(st.integers(0, len(src_shape))):]
    return shape, perm, src_shape, draw(st.sampled_from(DTYPES)), draw(st.sampled_from(DTYPES))


@settings(max_examples=budget(100))
@given(copy_cases())
def test_random_broadcasting_dtype_converting_copies_match_pytorch(case) -> None:
    shape, perm, src_shape, dst_dtype, src_dtype = case
    base = (np.arange(int(np.prod(shape))) % 5 - 2).reshape(shape).astype(dst_dtype)
    source = (np.arange(int(np.prod(src_shape))) * 0.75 - 1).reshape(src_shape).astype(src_dtype)
    compare(mutated(lambda L, x: x.permute(*perm).copy_(src(L, source))), base)


def test_last_write_line_is_the_frames_line_in_long_functions_and_under_a_tracer() -> None:
    """The version counter keeps the user's code and instruction and finds the line only
    when asked: the line ``f_lineno`` gives, in a long function (many line-table entries
    before the write), on a continued line, and under a tracer (which reads it eagerly)."""
    import sys

    lines = "".join(f"    y{i} = {i} * 2\n" for i in range(150))
    src = (f"def long(t, v):\n{lines}    t[1] = (\n        v)\n"
           "    return sys._getframe(0).f_lineno\n")
    scope: dict[str, Any] = {"sys": sys}
    exec(compile(src, "long_user_file.py", "exec"), scope)
    expected = f"long_user_file.py:{152}"  # the line the CALL of __setitem__ is on
    frames: list[Any] = []

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code.co_name == "long":
            frames.append(event)
            return tracer
        return None

    for traced in (False, True):
        t = jitgrad.zeros(3)
        v = jitgrad.ones((), requires_grad=True) * 2.0
        if traced:
            sys.settrace(tracer)
        try:
            scope["long"](t, v)
        finally:
            sys.settrace(None)
        assert t._storage.last_write == ("__setitem__", expected), traced
    assert frames
