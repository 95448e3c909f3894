"""Sizes, strides and errors of the view ops, side by side on PyTorch and jitgrad.

Each program makes a fresh tensor (``fresh``: 1, 2, 3, ... in row-major order), reshapes,
flattens, narrows, splits or transposes it and returns the result with its sizes, strides
and storage offset, or raises; a raise must be of the same type on both, with a message
containing the fragment given (jitgrad's messages also name the op). Hypothesis draws the
strided tensors whose ``view`` may or may not be possible and the transposes.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import budget
from tests.compat_helpers import outcome
from tests.test_autograd_behaviours import both, caught
from tests.test_view_ops_side_by_side import fresh, relation


def geometry(t: Any) -> tuple[Any, ...]:
    return t, tuple(t.shape), t.stride(), t.storage_offset(), t.is_contiguous()


def each(got: Any) -> Any:
    return [geometry(t) for t in got] if isinstance(got, (tuple, list)) else geometry(got)


def tried(f: Any) -> tuple[Any, ...]:
    """``("ok", result)`` or just the error's type name (for programs that compare which
    calls fail, not how they say it)."""
    kind, got = outcome(f)
    return (kind, got) if kind == "ok" else (kind,)


EMPTY_INFER = "because the unspecified dimension size -1 can be any value and is ambiguous"
NOT_VIEWABLE = "view size is not compatible with input tensor's size and stride"

# name: (shape of x, op, fragment of the error message or None when it succeeds)
CASES: dict[str, tuple[tuple[int, ...], Any, str | None]] = {
    # view: sizes given, inferred, from another tensor
    "view_as_template": ((12,), lambda L, x: x.view_as(L.empty(4, 3)), None),
    "view_sizes": ((12,), lambda L, x: x.view(2, 6), None),
    "view_Size": ((12,), lambda L, x: x.view(L.Size([6, 2])), None),
    "view_infer_first": ((12,), lambda L, x: x.view(-1, 4), None),
    "view_infer_last": ((12,), lambda L, x: x.view(3, -1), None),
    "view_tuple_infer": ((12,), lambda L, x: x.view((2, -1, 3)), None),
    "view_0d_to_1x1": ((), lambda L, x: x.view(1, 1), None),
    "view_zero_size_dim": ((12,), lambda L, x: x.view(12, 0), "shape '[12, 0]' is invalid for input of size 12"),
    "view_indivisible": ((12,), lambda L, x: x.view(5, -1), "shape '[5, -1]' is invalid for input of size 12"),
    "view_two_inferred": ((12,), lambda L, x: x.view(-1, 2, -1), "only one dimension can be inferred"),
    # view of no elements
    "empty_view_as_itself": ((0,), lambda L, x: x.view_as(x), None),
    "empty_view_zero": ((0,), lambda L, x: x.view(0), None),
    "empty_view_zeros": ((0,), lambda L, x: x.view(2, 0, 5, 0), None),
    "empty_view_and_back": ((0,), lambda L, x: x.view(0, 4, 0, 1).view(0), None),
    "empty_view_infer": ((0,), lambda L, x: x.view(-1), None),
    "empty_view_infer_zero": ((0,), lambda L, x: x.view(4, 2, -1), None),
    "empty_2d_view_padded": ((0, 5), lambda L, x: x.view(1, 0, 5, 1), None),
    "empty_view_infer_ambiguous": ((0,), lambda L, x: x.view(-1, 0), EMPTY_INFER),
    "empty_view_infer_ambiguous_inner": ((0,), lambda L, x: x.view(2, 0, -1, 0), EMPTY_INFER),
    # view across strides: only dimensions that are contiguous together may merge
    "view_of_transposed_merge": ((4, 5, 6), lambda L, x: x.transpose(1, 2).view(-1), NOT_VIEWABLE),
    "view_of_transposed_split": ((4, 5, 6), lambda L, x: x.transpose(1, 2).view(2, 2, 3, 2, 5), None),
    "view_of_half_expanded": ((3, 1), lambda L, x: x.expand(3, 4).view(12), NOT_VIEWABLE),
    "view_of_half_expanded_split": ((3, 1), lambda L, x: x.expand(3, 4).view(3, 2, 2), None),
    # reshape
    "reshape_empty_padded": ((0, 6), lambda L, x: x.reshape(1, 0, 6, 1, 1), None),
    "reshape_empty_infer_ambiguous": ((0, 6), lambda L, x: x.reshape(0, -1), EMPTY_INFER),
    "reshape_two_inferred": ((3, 3), lambda L, x: x.reshape(-1, -1), "only one dimension can be inferred"),
    "reshape_function": ((3, 3), lambda L, x: L.reshape(x, (9,)), None),
    "reshape_0d_infer": ((), lambda L, x: x.reshape(-1), None),
    "reshape_0d_too_big": ((), lambda L, x: x.reshape(2), "shape '[2]' is invalid for input of size 1"),
    "reshape_empty_1d_infer": ((0,), lambda L, x: x.reshape(-1), None),
    "reshape_empty_1d_list": ((0,), lambda L, x: x.reshape([0]), None),
    "reshape_empty_1d_column": ((0,), lambda L, x: x.reshape([0, 1]), None),
    "reshape_empty_1d_row": ((0,), lambda L, x: x.reshape([1, -1]), None),
    "reshape_empty_1d_one": ((0,), lambda L, x: x.reshape(1), "shape '[1]' is invalid for input of size 0"),
    "reshape_as_wrong_size": ((3, 3), lambda L, x: x.reshape_as(L.empty(2, 5)),
                              "shape '[2, 5]' is invalid for input of size 9"),
    "reshape_sliced": ((4, 4, 4), lambda L, x: x[:, 2, :].reshape(2, 2, 4), None),
    "reshape_sliced_copy": ((4, 4, 4), lambda L, x: x[:, 2, :].reshape(-1), None),
    "reshape_none": ((4,), lambda L, x: x.reshape(None), "reshape"),
    "reshape_float_in_tuple": ((4,), lambda L, x: x.reshape((2.0, 2)), "reshape"),
    "reshape_tensor_size": ((4,), lambda L, x: x.reshape(L.tensor(2), 2), None),
    # unflatten
    "unflatten_inferred": ((2, 6), lambda L, x: x.unflatten(1, (-1, 2)), None),
    "unflatten_negative_dim": ((2, 6), lambda L, x: x.unflatten(-1, (3, 1, 2)), None),
    "unflatten_wrong_product": ((2, 6), lambda L, x: x.unflatten(1, (4, 2)), "don't multiply up to"),
    "unflatten_two_inferred": ((2, 6), lambda L, x: x.unflatten(1, (-1, -1)), "only one dimension can be inferred"),
    "unflatten_0d": ((), lambda L, x: x.unflatten(0, (1,)), "Dimension specified as 0 but tensor has no dimensions"),
    # flatten
    "flatten_0d": ((), lambda L, x: x.flatten(), None),
    "flatten_1d": ((1,), lambda L, x: x.flatten(), None),
    "flatten_out_of_range": ((2, 3, 4, 5), lambda L, x: x.flatten(4, 7), "Dimension out of range"),
    "flatten_reversed": ((2, 3, 4, 5), lambda L, x: x.flatten(3, 1), "start_dim cannot come after end_dim"),
    # narrow
    "narrow_start_too_low": ((3, 3), lambda L, x: x.narrow(1, -4, 1), "start out of range"),
    "narrow_too_long": ((3, 3), lambda L, x: x.narrow(0, 1, 3), "start (1) + length (3) exceeds dimension size (3)."),
    # t
    "t_0d": ((), lambda L, x: x.t(), None),
    "t_1d": ((4,), lambda L, x: L.t(x), None),
    "t_2d": ((2, 5), lambda L, x: x.t(), None),
    "t_3d": ((2, 3, 2), lambda L, x: x.t(), "t() expects a tensor with <= 2 dimensions, but self is 3D"),
    "t__3d": ((2, 3, 2), lambda L, x: x.t_(), "t_() expects a tensor with <= 2 dimensions, but self is 3D"),
    # split and chunk
    "split_even": ((8, 3), lambda L, x: x.split(3), None),
    "split_sizes_rows": ((9, 5), lambda L, x: x.split([2, 3, 4]), None),
    "split_sizes_columns": ((9, 5), lambda L, x: L.split(x, [1, 1, 3], 1), None),
    "split_bigger_than_dim": ((3, 2), lambda L, x: x.split(5), None),
    "split_negative_size": ((4, 2), lambda L, x: x.split([5, -1]),
                            "split_with_sizes expects split_sizes have only non-negative entries"),
    "split_sizes_short": ((4, 2), lambda L, x: x.split([1, 2]), "split_with_sizes expects split_sizes to sum"),
    "chunk_columns": ((4, 7), lambda L, x: x.chunk(3, 1), None),
    "chunk_uneven": ((6, 2), lambda L, x: L.chunk(x, 4), None),
    "chunk_zero": ((4, 7), lambda L, x: x.chunk(0), "chunk expects `chunks` to be greater than 0, got: 0"),
    "chunk_negative": ((4, 7), lambda L, x: x.chunk(-3), "chunk expects `chunks` to be greater than 0, got: -3"),
    # unsqueeze, also on a tensor that is not contiguous
    "unsqueeze_inner": ((2, 3, 4), lambda L, x: x.unsqueeze(1), None),
    "unsqueeze_clone_in_place": ((2, 3, 4), lambda L, x: x.clone().unsqueeze_(2), None),
    "unsqueeze_of_column": ((2, 3, 4), lambda L, x: x[:, 1].unsqueeze(1), None),
    "unsqueeze_clone_of_column": ((2, 3, 4), lambda L, x: x[:, 1].clone().unsqueeze_(2), None),
    "unsqueeze_of_column_vs_view": ((2, 3, 4), lambda L, x: x[:, 1].contiguous().view(2, 4, 1), None),
    # a large transposed copy (PyTorch copies transposes by blocks)
    "transposed_copy_large": ((301, 517), lambda L, x: x.t().contiguous(), None),
    # T reverses every dimension
    "T_0d": ((), lambda L, x: x.T, None),
    "T_1d": ((6,), lambda L, x: x.T, None),
    "T_3d": ((2, 3, 4), lambda L, x: x.T, None),
    "T_3d_as_permute": ((2, 3, 4), lambda L, x: x.permute(2, 1, 0), None),
    # transposing dimensions that do not exist
    "swapdims_out_of_range": ((3, 2, 4, 2), lambda L, x: L.swapdims(x, 4, 0), "Dimension out of range"),
    "swapaxes_out_of_range": ((3, 2, 4, 2), lambda L, x: L.swapaxes(x, 1, -5), "Dimension out of range"),
    "transpose_out_of_range": ((3, 2, 4, 2), lambda L, x: L.transpose(x, 0, 4), "Dimension out of range"),
    "swapdims_same_dim": ((2, 3, 4), lambda L, x: L.swapdims(x, -2, 1), None),
    # real and imag of a real tensor
    "real_of_real": ((2, 3), lambda L, x: x.real, None),
    "imag_of_real": ((2, 3), lambda L, x: x.imag, "imag is not implemented for tensors with non-complex dtypes."),
    # resize_ keeps the leading elements; resize_as_ to its own shape keeps the strides
    "resize_shrink": ((3, 2), lambda L, x: x.resize_(2, 2), None),
    "resize_as_smaller": ((3, 2), lambda L, x: x.resize_as_(L.empty(2, 3)), None),
    "resize_as_itself_transposed": ((2, 3), lambda L, x: x.t().resize_as_(x.t()), None),
    "resize_storage_overflow": ((), lambda L, x: x.resize_([2, 4, 2**29, 2**29]),
                                "Storage size calculation overflowed with sizes=[2, 4, 536870912, 536870912]"),
    "resize_numel_overflow": ((), lambda L, x: x.resize_([8, 8, 2**29, 2**29]),
                              "numel: integer multiplication overflow"),
}


@pytest.mark.parametrize("case", CASES)
def test_view_op_result_or_error(case: str) -> None:
    shape, op, fragment = CASES[case]

    def program(lib):  # (T's deprecation warnings: compared in the matrix-transpose test)
        got, _ = caught(lambda: each(op(lib, fresh(lib, *shape))))
        return got

    both(program, fragment)


@pytest.mark.parametrize("dim, start, length", [
    (0, 0, 1), (0, 1, 2), (0, 2, 1), (0, -1, 1), (0, -2, 2), (0, -3, 3), (1, -1, 1),
    (-1, 0, 2), (-2, -1, 1), (1, 3, 0),
])
def test_narrow_windows(dim: int, start: int, length: int) -> None:
    both(lambda lib: each(fresh(lib, 3, 3, dtype="int64").narrow(dim, start, length)))


@pytest.mark.parametrize("start", range(-5, 5))
def test_flatten_every_range(start: int) -> None:
    """Every (start_dim, end_dim) pair of a 4-d tensor, the out-of-range ones included: the
    result's sizes, and its elements in order equal to the tensor's."""
    def program(lib):
        x = fresh(lib, 2, 3, 4, 5)

        def flat(end):
            got = x.flatten(start, end)
            return each(got), got.reshape(-1).equal(x.view(-1))

        return [tried(lambda: flat(end)) for end in range(-5, 5)]

    both(program)


DTYPES = ["float32", "float64", "int64", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["T", "H", "mT", "mH", "adjoint"])
@pytest.mark.parametrize("shape", [(), (3,), (3, 2), (4, 2, 3)], ids=str)
def test_matrix_transposes_in_every_dtype(shape: tuple[int, ...], op: str, dtype: str) -> None:
    """The result, or the error (only matrices, or only batches of matrices), and the
    warnings given (0-d, and T on other than 2-d, are deprecated: once per process, so
    every time here with ``set_warn_always``)."""
    def program(lib):
        x = fresh(lib, *shape, dtype=dtype)
        before = lib.is_warn_always_enabled()
        lib.set_warn_always(True)
        try:
            got, seen = caught(lambda: tried(lambda: getattr(x, op)() if op == "adjoint" else getattr(x, op)))
        finally:
            lib.set_warn_always(before)
        if got[0] == "ok":
            got = got[0], each(got[1]), got[1].equal(x.transpose(-2, -1) if x.ndim >= 2 else x)
        return got, seen

    both(program)


@pytest.mark.parametrize("op, ndim", [("H", 1), ("H", 3), ("mT", 1), ("mH", 1), ("adjoint", 1)])
def test_matrix_transpose_error_messages(op: str, ndim: int) -> None:
    def program(lib):
        x = fresh(lib, *(2,) * ndim)
        return getattr(x, op)() if op == "adjoint" else getattr(x, op)

    both(program)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["view", "reshape", "resize_", "resize_as_"])
def test_shape_changes_in_every_dtype(op: str, dtype: str) -> None:
    def program(lib):
        x = fresh(lib, 3, 2, dtype=dtype)
        if op == "resize_as_":
            return each(x.resize_as_(fresh(lib, 2, 2, dtype=dtype)))
        if op == "resize_":
            return each(x.resize_((2, 2)))
        return each(getattr(x, op)(6)), each(getattr(x, op)(2, 1, 3))

    both(program)


def test_fill_through_a_view_fills_the_tensor() -> None:
    def program(lib):
        x = fresh(lib, 12)
        x.view(3, 4)[1:].fill_(0.25)
        return x, x._version

    both(program)


# --- Hypothesis: which strided tensors can be viewed as which sizes ------------------------


def _factorizations(n: int) -> st.SearchStrategy[tuple[int, ...]]:
    """Sizes whose product is ``n``: its prime factors in random groups, with 1s put in and
    maybe one size given as -1."""
    primes, k, rest = [], 2, n
    while rest > 1:
        while rest % k == 0:
            primes.append(k)
            rest //= k
        k += 1

    @st.composite
    def sizes(draw):
        order = draw(st.permutations(primes))
        cuts = sorted(draw(st.sets(st.integers(1, max(len(order) - 1, 1)), max_size=3)))
        groups = [math.prod(order[a:b]) for a, b in zip([0, *cuts], [*cuts, len(order)])]
        for _ in range(draw(st.integers(0, 2))):
            groups.insert(draw(st.integers(0, len(groups))), 1)
        if groups and draw(st.booleans()):
            groups[draw(st.integers(0, len(groups) - 1))] = -1
        return tuple(groups)

    return sizes()


@st.composite
def strided_and_target(draw):
    """A tensor (as the steps making it from a fresh one) and sizes with its element count."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    perm = tuple(draw(st.permutations(range(len(shape)))))
    dim = draw(st.integers(0, len(shape) - 1))
    step = draw(st.sampled_from([1, 1, 2]))
    expand_to = draw(st.integers(1, 3))
    sliced = [len(range(0, n, step)) if d == dim else n for d, n in enumerate(shape)]
    first = sliced[perm[0]]
    count = math.prod(sliced) // first * (expand_to if first == 1 else first)
    return shape, perm, dim, step, expand_to, draw(_factorizations(count))


def _strided(lib: Any, shape: tuple[int, ...], perm: tuple[int, ...], dim: int, step: int,
             expand_to: int) -> Any:
    x = fresh(lib, *shape)
    x = x[(slice(None),) * dim + (slice(None, None, step),)].permute(perm)
    if x.shape[0] == 1:
        x = x.expand(expand_to, *x.shape[1:])
    return x


@settings(max_examples=budget(100))
@given(strided_and_target())
def test_view_of_a_strided_tensor_works_exactly_when_pytorch_says(case) -> None:
    *making, target = case

    def program(lib):
        x = _strided(lib, *making)
        viewed = tried(lambda: each(x.view(target)))
        reshaped = x.reshape(target)
        return viewed, each(reshaped), reshaped._is_view(), reshaped.data_ptr() == x.data_ptr()

    both(program)


def test_view_of_a_permuted_tensor_keeps_its_contiguous_runs() -> None:
    """A tensor whose strides run in three contiguous groups ([3, 2] [4] [5, 1, 2] in
    memory order): sizes that split or merge within a group view it, sizes that merge
    across groups do not."""
    def program(lib):
        x = fresh(lib, 3, 2, 5, 1, 2, 4).permute(0, 1, 5, 2, 3, 4)
        targets = [(6, 4, 10), (3, 2, 2, 2, 5, 2), (1, 6, 1, 4, 1, 10, 1), (6, 2, 2, 5, 2, 1),
                   (24, 10), (6, 40), (3, 8, 10), (-1,)]
        return [tried(lambda: each(x.view(t))) for t in targets]

    both(program)


@st.composite
def transposes(draw):
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim)))
    bound = max(ndim, 1)
    a, b = (draw(st.integers(-bound, bound - 1)) for _ in range(2))
    return shape, draw(st.sampled_from(["swapdims", "swapaxes", "transpose", "method"])), a, b


@settings(max_examples=budget(100))
@given(transposes(), st.sampled_from(["int64", "float32"]))
def test_transpose_any_two_dims(case, dtype) -> None:
    shape, how, a, b = case

    def program(lib):
        x = fresh(lib, *shape, dtype=dtype)
        if how == "swapaxes":
            return each(lib.swapaxes(x, axis0=a, axis1=b))
        if how == "method":
            return each(x.transpose(a, b))
        return each(getattr(lib, how)(x, dim0=a, dim1=b))

    both(program)


# --- view(dtype): the same bytes as another dtype ------------------------------------------

# name: (shape, dtype of x, view made first or None, the dtype to view as, error fragment)
DTYPE_VIEWS: dict[str, tuple[Any, ...]] = {
    "same_size": ((3, 4), "float32", None, "int32", None),
    "same_dtype": ((5,), "float64", None, "float64", None),
    "halves": ((3, 4), "float32", None, "int16", None),
    "to_bytes": ((2, 3), "float32", None, "bool", None),
    "pairs_into_one": ((3, 4), "float32", None, "float64", None),
    "pairs_of_later_rows": ((3, 4), "float32", lambda x: x[1:], "float64", None),
    "pairs_of_broadcast_rows": ((4,), "int32", lambda x: x.expand(2, 4), "int64", None),
    "0d_same_size": ((), "float32", None, "int32", None),
    "0d_other_size": ((), "float32", None, "float64", "self.dim() cannot be 0 to view Float as Double"),
    "odd_last_size": ((3, 4), "float32", lambda x: x[:, 1:], "float64", "self.size(-1) must be divisible by 2"),
    "odd_offset": ((3, 4), "float32", lambda x: x[:, 1:3], "float64",
                   "self.storage_offset() must be divisible by 2"),
    "last_stride_zero": ((2, 1), "float32", lambda x: x.expand(2, 4), "float64", "self.stride(-1) must be 1"),
    "odd_leading_stride": ((3, 0), "float32", None, "float64", "self.stride(0) must be divisible by 2"),
    "transposed_halves": ((3, 4), "int64", lambda x: x.t(), "int32", "self.stride(-1) must be 1"),
}


@pytest.mark.parametrize("case", DTYPE_VIEWS)
def test_view_as_another_dtype(case: str) -> None:
    """The result and its geometry, that it is not a view for autograd yet shares the memory
    (a write through it lands in ``x``) and the version counter, or the error."""
    shape, dtype, prep, new, fragment = DTYPE_VIEWS[case]

    def program(lib):
        root = fresh(lib, *shape, dtype=dtype)
        x = prep(root) if prep else root
        got = x.view(getattr(lib, new))
        facts = relation(root, x, got), got.dtype == getattr(lib, new)
        if got.numel():
            got[(0,) * got.ndim] = 0
        return each(got), facts, root, root._version, got._version

    both(program, fragment)


def test_view_as_another_dtype_is_not_differentiable_but_shares_the_version() -> None:
    """The result never requires grad; a write through it moves the version counter it
    shares, so a backward needing the old values refuses."""
    def program(lib):
        x = (fresh(lib, 4) / 4).requires_grad_()
        y = x * 2
        squares = y * y  # (saves y)
        bits = y.view(lib.int64)
        same = y.view(dtype=lib.float64)
        bits.add_(1)
        kind, message = outcome(lambda: lib.autograd.grad(squares.sum(), x))
        return (bits.requires_grad, bits.grad_fn, same.requires_grad, same._is_view(), y._version,
                kind, "modified by an inplace operation" in message)

    both(program)
