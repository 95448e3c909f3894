"""Which operations return views, side by side on PyTorch and jitgrad.

Every program starts from ``root``, a fresh tensor that owns its storage, optionally makes a
view ``src`` of it (``prep``), applies one operation to ``src`` and reports on each result:
whether it *is* ``src``, ``_is_view()``, whether ``_base`` is ``root``, whether it lives in
``root``'s storage and how far into it (from ``data_ptr``), and its sizes, strides and
storage offset. Then it writes a marker through the result and doubles ``root`` in place, so
the values show which elements the two share, in both directions. A copy reports the same
facts: no base, another storage, writes that do not travel.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import pytest
from hypothesis import given, settings

from conftest import budget
from tests.compat_helpers import outcome
from tests.test_autograd_behaviours import both, caught
from tests.test_views import view_chains

Op = Callable[[Any, Any], Any]


def fresh(lib: Any, *shape: int, dtype: str = "float64") -> Any:
    """A tensor that owns its storage (not a view) holding 1, 2, 3, ... in row-major order
    (``bool``: every third element set)."""
    ramp = lib.arange(1, math.prod(shape) + 1).reshape(shape).clone()
    if dtype == "bool":
        return (ramp % 3 == 0).clone()
    return ramp.to(getattr(lib, dtype))


def relation(root: Any, src: Any, out: Any) -> tuple[Any, ...]:
    """What ``out`` is to ``root`` and ``src``, as plain values both libraries can report."""
    shares = out.untyped_storage().data_ptr() == root.untyped_storage().data_ptr()
    ptr = out.data_ptr()  # (0 when out has no elements)
    start = (ptr - root.data_ptr()) // out.element_size() if shares and ptr and root.numel() else None
    return (out is src, out._is_view(), out._base is root, shares, ptr == 0, start,
            tuple(out.shape), out.stride(), out.storage_offset())


def exchange(root: Any, outs: tuple[Any, ...]) -> tuple[Any, ...]:
    """Write a different negative marker into each result's last element, then double
    ``root`` in place (bool: markers alternate True/False, then ``root`` is negated in place);
    returns ``root`` and every result afterwards."""
    logical = str(root.dtype).endswith("bool")
    for k, out in enumerate(outs):
        if out.numel():
            out[(-1,) * out.ndim] = k % 2 == 0 if logical else -(k + 1)
    root.copy_(root.logical_not()) if logical else root.mul_(2)
    return (root.clone(), *(out.clone() for out in outs))


def observe(lib: Any, shape: tuple[int, ...], op: Op, prep: Op | None = None,
            dtype: str = "float64") -> tuple[Any, ...]:
    root = fresh(lib, *shape, dtype=dtype)
    src = prep(lib, root) if prep else root
    got = op(lib, src)
    outs = tuple(got) if isinstance(got, (tuple, list)) else (got,)
    return [relation(root, src, out) for out in outs], exchange(root, outs)


# name: (shape of root, op on src[, prep making src from root])
VIEWS: dict[str, tuple[Any, ...]] = {
    # diagonals, single indices
    "diagonal": ((4, 4), lambda L, x: L.diagonal(x)),
    "diagonal_offset_dims": ((2, 3, 4), lambda L, x: x.diagonal(offset=1, dim1=1, dim2=2)),
    "diagonal_below": ((3, 5), lambda L, x: x.diagonal(-1)),
    "select": ((4, 3), lambda L, x: x.select(0, 2)),
    "select_last_dim": ((2, 3, 4), lambda L, x: L.select(x, -1, 1)),
    "int_index": ((3, 4), lambda L, x: x[1]),
    # several views at once
    "unbind_rows": ((3, 4), lambda L, x: x.unbind()),
    "unbind_columns": ((3, 4), lambda L, x: L.unbind(x, 1)),
    "split_even": ((7, 2), lambda L, x: x.split(3)),
    "split_sizes": ((2, 6), lambda L, x: x.split([1, 3, 2], 1)),
    "chunk": ((5, 3), lambda L, x: x.chunk(2)),
    # broadcasting views (stride 0)
    "expand": ((4, 1), lambda L, x: x.expand(4, 3)),
    "expand_new_leading": ((3,), lambda L, x: x.expand(2, 3)),
    "expand_as": ((1, 3), lambda L, x: x.expand_as(L.empty(4, 3))),
    # windows
    "narrow": ((4, 6), lambda L, x: L.narrow(x, 1, 2, 3)),
    "narrow_negative_start": ((5, 2), lambda L, x: x.narrow(0, -3, 2)),
    "unfold": ((9,), lambda L, x: x.unfold(0, 4, 2)),
    "unfold_columns": ((3, 7), lambda L, x: x.unfold(1, 3, 3)),
    "slices": ((5, 4), lambda L, x: x[1:4, :3]),
    "ellipsis_step": ((3, 2, 5), lambda L, x: x[..., ::2]),
    "none_slice_int": ((4, 5), lambda L, x: x[None, 1:, 2]),
    "ellipsis_only": ((2, 3), lambda L, x: x[...]),
    # reorderings
    "permute": ((2, 3, 4), lambda L, x: x.permute(2, 0, 1)),
    "transpose": ((3, 4), lambda L, x: L.transpose(x, 0, 1)),
    "swapdims": ((3, 4), lambda L, x: L.swapdims(x, 1, 0)),
    "swapaxes": ((2, 3, 4), lambda L, x: L.swapaxes(x, 0, -1)),
    "transpose_method": ((2, 3, 4), lambda L, x: x.transpose(-1, 1)),
    "t": ((3, 4), lambda L, x: x.t()),
    "T": ((3, 4), lambda L, x: x.T),
    "H": ((3, 4), lambda L, x: x.H),
    "mT": ((2, 3, 4), lambda L, x: x.mT),
    "mH": ((2, 3, 4), lambda L, x: x.mH),
    "adjoint": ((3, 4), lambda L, x: x.adjoint()),
    "movedim_pair": ((3, 4), lambda L, x: L.movedim(x, (0, 1), (1, 0))),
    "movedim_one": ((2, 3, 4), lambda L, x: L.movedim(x, 0, -1)),
    "moveaxis": ((3, 4), lambda L, x: L.moveaxis(x, 0, 1)),
    "moveaxis_method": ((2, 3, 4), lambda L, x: x.moveaxis((2, 0), (0, 1))),
    # size-1 dimensions
    "squeeze_all": ((3, 1, 4, 1), lambda L, x: L.squeeze(x)),
    "squeeze_dim": ((3, 1, 4), lambda L, x: x.squeeze(1)),
    "squeeze_nothing": ((3, 4), lambda L, x: x.squeeze()),
    "unsqueeze": ((3, 4), lambda L, x: L.unsqueeze(x, 1)),
    "unsqueeze_end": ((3, 4), lambda L, x: x.unsqueeze(-1)),
    # new sizes over the same elements
    "as_strided_flat": ((3, 4), lambda L, x: L.as_strided(x, (12,), (1,))),
    "as_strided_window": ((4, 5), lambda L, x: x.as_strided((3, 2), (5, 2), 1)),
    "view_flat": ((3, 4), lambda L, x: x.view(12)),
    "view_split": ((3, 4), lambda L, x: x.view(2, 2, 3)),
    "view_as": ((3, 4), lambda L, x: x.view_as(L.empty(6, 2))),
    "view_same": ((3, 4), lambda L, x: x.view(3, 4)),
    "reshape": ((3, 4), lambda L, x: L.reshape(x, (4, 3))),
    "reshape_same": ((3, 4), lambda L, x: x.reshape(3, 4)),
    "reshape_as": ((3, 4), lambda L, x: x.reshape_as(L.empty(12))),
    "reshape_as_padded": ((3, 4), lambda L, x: x.reshape_as(L.empty(1, 12, 1))),
    "reshape_0d": ((), lambda L, x: x.reshape(())),
    "reshape_empty": ((0, 6), lambda L, x: x.reshape(1, 0, 6, 1, 1)),
    "reshape_kept_dims": ((3, 4, 5), lambda L, x: x.reshape(3, 5, 1), lambda L, x: x[:, 1, :]),
    "flatten": ((2, 1, 3, 2), lambda L, x: x.flatten()),
    "flatten_0d": ((), lambda L, x: L.flatten(x)),
    "flatten_middle": ((2, 3, 4), lambda L, x: x.flatten(1, 2)),
    "unflatten": ((2, 6), lambda L, x: x.unflatten(1, (3, 2))),
    # views of views: _base is the root
    "flatten_of_transposed": ((2, 3, 2, 4), lambda L, x: x.flatten(0, 1),
                              lambda L, x: x.transpose(2, 3)),
    "narrow_of_t": ((4, 5), lambda L, x: x.narrow(1, 1, 2), lambda L, x: x.t()),
    "unbind_of_slice": ((4, 3), lambda L, x: x.unbind(1), lambda L, x: x[1:]),
    "view_of_expanded": ((1, 1, 1), lambda L, x: x.view(4, 6), lambda L, x: x.expand(2, 3, 4)),
    "view_of_expanded_tail": ((1, 1, 1), lambda L, x: x.view(2, 1, 12, 1),
                              lambda L, x: x.expand(2, 3, 4)),
    "view_of_expanded_flat": ((1, 1, 1), lambda L, x: x.view(-1), lambda L, x: x.expand(2, 3, 4)),
    # strides where sizes (2, 3 | 4, 2 | 3) form three contiguous groups (48 = 16 * 3, 2 = 1 * 2)
    "flatten_group_one": ((96,), lambda L, x: x.flatten(0, 1), lambda L, x: _groups(x)),
    "flatten_group_two": ((96,), lambda L, x: x.flatten(2, 3), lambda L, x: _groups(x)),
    "flatten_both_groups": ((96,), lambda L, x: x.flatten(0, 1).flatten(1, 2),
                            lambda L, x: _groups(x)),
    # the same elements, the same object
    "contiguous_itself": ((3, 4), lambda L, x: x.contiguous()),
    "flatten_one_dim_itself": ((3, 4), lambda L, x: x.flatten(1, 1)),
    "real_itself": ((2, 3), lambda L, x: x.real),
}


def _groups(x: Any) -> Any:
    return x.as_strided((2, 3, 4, 2, 3), (48, 16, 2, 1, 0))


COPIES: dict[str, tuple[Any, ...]] = {
    "contiguous_of_t": ((3, 4), lambda L, x: x.contiguous(), lambda L, x: x.t()),
    "reshape_of_t": ((3, 4), lambda L, x: x.reshape(12), lambda L, x: x.t()),
    "reshape_of_row_slice": ((3, 4, 5), lambda L, x: x.reshape(-1), lambda L, x: x[:, 1, :]),
    "flatten_of_T": ((2, 2), lambda L, x: x.flatten(), lambda L, x: x.T),
    "flatten_across_transposed": ((2, 3, 2, 3), lambda L, x: x.flatten(1, 3),
                                  lambda L, x: x.transpose(2, 3)),
    "flatten_across_groups": ((96,), lambda L, x: x.flatten(1, 2), lambda L, x: _groups(x)),
    "index_rows": ((4, 3), lambda L, x: x[[3, 0, 3]]),
    "index_pairs": ((3, 3), lambda L, x: x[L.tensor([[1, 1], [0, 2]]), L.tensor([[2, 0], [0, 1]])]),
    "index_mask": ((3, 4), lambda L, x: x[x > 7]),
    "view_copy": ((3, 4), lambda L, x: L.view_copy(x, (2, 6))),
    "diagonal_copy": ((3, 4), lambda L, x: L.diagonal_copy(x, 1)),
    "split_copy": ((5, 2), lambda L, x: L.split_copy(x, 2)),
    "clone": ((3, 4), lambda L, x: x.clone()),
}


@pytest.mark.parametrize("case", [*VIEWS, *COPIES])
def test_what_an_op_returns_and_what_it_shares(case: str) -> None:
    shape, op, *prep = VIEWS.get(case) or COPIES[case]
    both(lambda lib: observe(lib, shape, op, *prep))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("case", ["reshape", "view_flat", "reshape_of_t", "T", "unbind_rows", "expand"])
def test_views_and_copies_in_every_dtype(case: str, dtype: str) -> None:
    shape, op, *prep = VIEWS.get(case) or COPIES[case]
    both(lambda lib: observe(lib, shape, op, *prep, dtype=dtype))


# In-place view ops change the metadata of the tensor they are called on and return it.
IN_PLACE: dict[str, tuple[tuple[int, ...], Op]] = {
    "transpose_": ((3, 4), lambda L, x: x.transpose_(0, 1)),
    "swapdims_": ((2, 3, 4), lambda L, x: x.swapdims_(2, 0)),
    "swapaxes_": ((3, 4), lambda L, x: x.swapaxes_(1, 0)),
    "t_": ((3, 4), lambda L, x: x.t_()),
    "squeeze_": ((3, 1, 4, 1), lambda L, x: x.squeeze_()),
    "squeeze_dim_": ((3, 1, 4), lambda L, x: x.squeeze_(1)),
    "squeeze_nothing_": ((3, 4), lambda L, x: x.squeeze_()),
    "unsqueeze_": ((3, 4), lambda L, x: x.unsqueeze_(1)),
    "as_strided_": ((3, 4), lambda L, x: x.as_strided_((12,), (1,))),
    "as_strided_offset_": ((3, 4), lambda L, x: x.as_strided_((2, 3), (1, 4), 2)),
}


@pytest.mark.parametrize("on_view", [True, False], ids=["on_a_view", "on_the_root"])
@pytest.mark.parametrize("case", IN_PLACE)
def test_in_place_view_ops(case: str, on_view: bool) -> None:
    shape, op = IN_PLACE[case]
    prep = (lambda L, x: x.view_as(x)) if on_view else None
    both(lambda lib: observe(lib, shape, op, prep))


@pytest.mark.parametrize("index", [
    "pairs", "broadcast_column", "repeated_row", "mask",
])
def test_advanced_index_assignment_writes_into_the_tensor(index: str) -> None:
    def program(lib):
        grid = fresh(lib, 3, 4)
        keys = {
            "pairs": (lib.tensor([[0, 2], [1, 1]]), lib.tensor([[3, 0], [2, 2]])),
            "broadcast_column": (lib.tensor([[0], [2]]), lib.tensor([1, 3])),
            "repeated_row": (lib.tensor([1, 1, 1]),),
            "mask": grid % 5 == 0,
        }
        grid[keys[index]] = -4.0
        return grid, grid._version

    both(program)


def test_view_copy_gradient_matches_the_view_gradient() -> None:
    def program(lib):
        weights = fresh(lib, 2, 3).sin()
        a = fresh(lib, 6).requires_grad_()
        b = fresh(lib, 6).requires_grad_()
        copied = lib.view_copy(a, (2, 3))
        viewed = b.view(2, 3)
        (copied * weights).sum().backward()
        (viewed * weights).sum().backward()
        return copied, viewed, a.grad, b.grad, copied._is_view(), viewed._is_view()

    both(program)


# out: a tensor of the result's shape, of another shape, or empty (resized without a warning)
@pytest.mark.parametrize("out_rows", [2, 3, 0])
@pytest.mark.parametrize("op", ["diagonal_copy", "view_copy"])
def test_copy_variants_write_into_out(op: str, out_rows: int) -> None:
    def program(lib):
        x = fresh(lib, 3, 4)
        if op == "diagonal_copy":
            out = lib.zeros(out_rows, dtype=lib.float64)
            got, seen = caught(lambda: lib.diagonal_copy(x, -1, out=out))
            return got is out, out, lib.diagonal_copy(x, -1), seen
        out = lib.zeros(out_rows, 6, dtype=lib.float64)
        got, seen = caught(lambda: lib.view_copy(x, (2, 6), out=out))
        return got is out, out, out._is_view(), out.data_ptr() == x.data_ptr(), seen

    both(program)


# (op, its arguments, the out= list as (shape, dtype) pairs, whether x requires grad); x is 5 x 3
F, I = "float64", "int64"
LIST_OUTS = {
    "split_fits": ("split_copy", (2,), [((2, 3), F), ((2, 3), F), ((1, 3), F)], False),
    "split_broadcasts": ("split_copy", (2, 1), [((5, 2), F), ((2, 5, 1), F)], False),
    "split_casts": ("split_copy", (3,), [((3, 3), I), ((2, 3), "float32")], False),
    "split_wrong_rows": ("split_copy", (3,), [((3, 3), F), ((1, 3), F)], False),
    "split_too_few": ("split_copy", (3,), [((3, 3), F)], False),
    "split_grad_input": ("split_copy", (4,), [((4, 3), F), ((1, 3), F)], True),
    "sizes_resizes": ("split_with_sizes_copy", ([1, 4],), [((3, 3), F), ((0,), F)], False),
    "sizes_wrong_dtype": ("split_with_sizes_copy", ([1, 4],), [((1, 3), F), ((4, 3), I)], False),
    "sizes_too_many": ("split_with_sizes_copy", ([5],), [((5, 3), F), ((0,), F)], False),
    "sizes_grad_input": ("split_with_sizes_copy", ([2, 1], 1), [((5, 2), F), ((5, 1), F)], True),
    "unbind_resizes": ("unbind_copy", (1,), [((5,), F), ((0,), F), ((2, 2), F)], False),
    "unbind_too_few": ("unbind_copy", (), [((3,), F)] * 4, False),
}


@pytest.mark.parametrize("case", LIST_OUTS)
def test_copy_variants_with_several_results_write_into_out(case: str) -> None:
    """PyTorch's list-out kernels differ: split_copy writes as copy_ does (broadcasting,
    casting, never resizing), the others check dtypes and resize; all return None."""
    op, args, out_spec, grad = LIST_OUTS[case]

    def program(lib):
        x = fresh(lib, 5, 3).requires_grad_(grad)
        outs = [lib.zeros(shape, dtype=getattr(lib, dtype)) for shape, dtype in out_spec]
        (kind, detail), seen = caught(lambda: outcome(lambda: getattr(lib, op)(x, *args, out=outs)))
        if kind == "RuntimeError" and "out= argument of size" not in detail:
            detail = "(message not compared)"
        return kind, detail, outs, [o.requires_grad or o.grad_fn is not None for o in outs], seen

    both(program)


@settings(max_examples=budget(150))
@given(view_chains())
def test_random_view_chains_share_what_pytorch_shares(case) -> None:
    """Chains of views (test_views.py's strategy, some calls invalid): the last result's
    relation to the root and the writes that travel between them."""
    data, ops = case

    def program(lib):
        root = lib.from_numpy(data.copy())
        out = root
        for op in ops:
            kind, out = outcome(lambda: op(out))
            if kind != "ok":
                return kind
        return relation(root, root, out), exchange(root, (out,))

    both(program)


# --- gradients through the same views ------------------------------------------------------


def _grad_through(case: str) -> Callable[[Any], Any]:
    shape, op, *prep = VIEWS.get(case) or COPIES[case]

    def program(lib):
        root = fresh(lib, *shape).requires_grad_()
        src = prep[0](lib, root) if prep else root
        got = op(lib, src)
        outs = tuple(got) if isinstance(got, (tuple, list)) else (got,)
        loss = sum(((o * o).cos() * (k + 2)).sum() for k, o in enumerate(outs))
        loss.backward()
        return root.grad

    return program


_NOT_DIFFERENTIATED: set[str] = set()


@pytest.mark.parametrize("case", [c for c in [*VIEWS, *COPIES] if c not in _NOT_DIFFERENTIATED])
def test_gradient_through_each_op(case: str) -> None:
    both(_grad_through(case))


# --- the *_copy variants' one node ----------------------------------------------------------

COPY_CALLS: dict[str, tuple[Any, ...]] = {
    "view_copy": ((6, 2),), "as_strided_copy": ((2, 3), (1, 4), 1), "alias_copy": (),
    "diagonal_copy": (1,), "expand_copy": ((2, 3, 4),), "narrow_copy": (1, 1, 2),
    "permute_copy": ((1, 0),), "select_copy": (1, -1), "squeeze_copy": (), "unsqueeze_copy": (1,),
    "t_copy": (), "transpose_copy": (1, 0), "unfold_copy": (1, 3, 1), "unbind_copy": (1,),
    "split_copy": (2,), "split_with_sizes_copy": ([2, 1],),
}


@pytest.mark.parametrize("only_first", [False, True], ids=["every_piece", "first_piece"])
@pytest.mark.parametrize("op", COPY_CALLS)
def test_copy_variant_records_one_node(op: str, only_first: bool) -> None:
    """PyTorch's ``<View>Backward0_copy``: one node straight to the input's, giving the
    view's gradient (also from only one piece of a split), and a second-order one."""
    def program(lib):
        x = (fresh(lib, 3, 4) / 4).requires_grad_()
        got = getattr(lib, op)(x, *COPY_CALLS[op])
        pieces = got if isinstance(got, tuple) else (got,)
        used = pieces[:1] if only_first else pieces
        loss = sum(((p ** 3) * (k + 1)).sum() for k, p in enumerate(used))
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        node = pieces[0].grad_fn
        names = node.name(), [f.name().split("::")[-1] for f, _ in node.next_functions]
        return names, [p._is_view() for p in pieces], g, gg

    both(program)


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")  # (both warn, once per process)
@pytest.mark.parametrize("make", [
    lambda L: L.zeros(0), lambda L: L.empty(2, 0, 3), lambda L: L.zeros(4)[4:],
    lambda L: L.zeros(3, 2)[:, 1:1], lambda L: L.zeros(4).resize_(0),
], ids=["zeros_0", "empty_2x0x3", "slice_past_end", "empty_column_slice", "resized_to_0"])
def test_data_ptr_of_a_tensor_without_elements(make: Callable[[Any], Any]) -> None:
    """PyTorch's ``data_ptr()`` is 0 for a tensor of no elements, and its storage's is 0
    when no bytes were ever allocated."""
    both(lambda lib: (make(lib).data_ptr(), make(lib).untyped_storage().data_ptr() == 0,
                      make(lib).storage().data_ptr() == 0))
