"""Every view operation against PyTorch: shape, strides, offset, values, aliasing and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from oracle import compare

A34 = np.arange(12, dtype=np.float64).reshape(3, 4)
A234 = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
A0 = np.array(5.0)
E = np.zeros((0, 3))

CASES = {
    # narrow / select / slicing
    "narrow": (lambda L, x: x.narrow(1, 1, 2), A34),
    "narrow_neg_start": (lambda L, x: x.narrow(-1, -3, 2), A34),
    "narrow_start_oob": (lambda L, x: x.narrow(0, 5, 1), A34),
    "narrow_too_long": (lambda L, x: x.narrow(0, 2, 3), A34),
    "narrow_neg_length": (lambda L, x: x.narrow(0, 1, -1), A34),
    "narrow_0d": (lambda L, x: x.narrow(0, 0, 1), A0),
    "narrow_bad_dim": (lambda L, x: x.narrow(2, 0, 1), A34),
    "narrow_empty_end": (lambda L, x: x.narrow(1, 4, 0), A34),
    "select": (lambda L, x: x.select(1, -1), A234),
    "select_oob": (lambda L, x: x.select(0, 3), A34),
    "select_0d": (lambda L, x: x.select(0, 0), A0),
    "getitem_int": (lambda L, x: x[1], A34),
    "getitem_neg": (lambda L, x: x[-1, -2], A34),
    "getitem_oob": (lambda L, x: x[3], A34),
    "getitem_too_many": (lambda L, x: x[0, 0, 0], A34),
    "getitem_slices": (lambda L, x: x[1:, ::2], A34),
    "getitem_step3": (lambda L, x: x[:, 1::3], A234),
    "getitem_clamped": (lambda L, x: x[-10:10, 5:], A34),
    "getitem_empty_slice": (lambda L, x: x[2:1], A34),
    "getitem_neg_step": (lambda L, x: x[::-1], A34),
    "getitem_none_ellipsis": (lambda L, x: x[None, ..., None, 1], A234),
    "getitem_ellipsis_only": (lambda L, x: x[...], A0),
    "getitem_two_ellipsis": (lambda L, x: x[..., ...], A34),
    "getitem_0d_none": (lambda L, x: x[None], A0),
    "getitem_scalar_tensor": (lambda L, x: x[L.tensor(1)], A34),
    "getitem_empty_tuple": (lambda L, x: x[()], A34),
    # transposes and permutations
    "transpose": (lambda L, x: x.transpose(0, 2), A234),
    "transpose_0d": (lambda L, x: x.transpose(0, -1), A0),
    "transpose_bad": (lambda L, x: x.transpose(0, 3), A34),
    "t": (lambda L, x: x.t(), A34),
    "t_1d": (lambda L, x: x[0].t(), A34),
    "t_3d": (lambda L, x: x.t(), A234),
    "T": (lambda L, x: x.T, A34),
    "permute": (lambda L, x: x.permute(2, 0, 1), A234),
    "permute_tuple": (lambda L, x: x.permute((1, 0)), A34),
    "permute_neg": (lambda L, x: x.permute(-1, 0, 1), A234),
    "permute_dup": (lambda L, x: x.permute(0, 0), A34),
    "permute_len": (lambda L, x: x.permute(0), A34),
    "movedim": (lambda L, x: x.movedim(0, 2), A234),
    "movedim_seq": (lambda L, x: x.movedim((0, 1), (2, 0)), A234),
    "movedim_bad": (lambda L, x: x.movedim(0, 3), A234),
    # view / reshape / flatten
    "view": (lambda L, x: x.view(4, 3), A34),
    "view_tuple_infer": (lambda L, x: x.view((2, -1)), A34),
    "view_bad_numel": (lambda L, x: x.view(5, 3), A34),
    "view_two_infer": (lambda L, x: x.view(-1, -1), A34),
    "view_transposed_fails": (lambda L, x: x.t().view(12), A34),
    "view_transposed_ok": (lambda L, x: x.t().view(2, 2, 3), A34),
    "view_sliced": (lambda L, x: x[:, :2].view(3, 2, 1), A34),
    "view_sliced_fails": (lambda L, x: x[:, :2].view(6), A34),
    "view_0d": (lambda L, x: x.view(1, 1), A0),
    "view_empty": (lambda L, x: x.view(3, 0), E),
    "view_empty_infer": (lambda L, x: x.view(-1, 0), E),
    "view_as": (lambda L, x: x.view_as(x.reshape(2, 6)), A34),
    "reshape_view": (lambda L, x: x.reshape(2, 2, 3), A34),
    "reshape_copy": (lambda L, x: x.t().reshape(12), A34),
    "flatten": (lambda L, x: x.flatten(), A234),
    "flatten_range": (lambda L, x: x.flatten(1), A234),
    "flatten_0d": (lambda L, x: x.flatten(), A0),
    "flatten_bad": (lambda L, x: x.flatten(2, 1), A234),
    "flatten_copy": (lambda L, x: x.transpose(0, 1).flatten(), A234),
    # expand / squeeze
    "expand": (lambda L, x: x[:, :1].expand(3, 5), A34),
    "expand_new_dims": (lambda L, x: x.expand(2, 3, 4), A34),
    "expand_minus1": (lambda L, x: x.expand(-1, 2, -1, -1), A234[:1]),
    "expand_bad": (lambda L, x: x.expand(3, 5), A34),
    "expand_fewer": (lambda L, x: x.expand(4), A34),
    "expand_leading_minus1": (lambda L, x: x.expand(-1, 3, 4), A34),
    "expand_as": (lambda L, x: x[0].expand_as(x), A34),
    "expand_0d": (lambda L, x: x.expand(2, 3), A0),
    "unsqueeze": (lambda L, x: x.unsqueeze(1), A34),
    "unsqueeze_end": (lambda L, x: x.unsqueeze(-1), A34),
    "unsqueeze_0d": (lambda L, x: x.unsqueeze(0), A0),
    "unsqueeze_bad": (lambda L, x: x.unsqueeze(3), A34),
    "squeeze": (lambda L, x: x.view(1, 3, 1, 4).squeeze(), A34),
    "squeeze_dim": (lambda L, x: x.view(1, 3, 1, 4).squeeze(2), A34),
    "squeeze_tuple": (lambda L, x: x.view(1, 3, 1, 4).squeeze((0, 2)), A34),
    "squeeze_not_one": (lambda L, x: x.squeeze(1), A34),
    "squeeze_bad": (lambda L, x: x.squeeze(3), A34),
    # diagonal / unfold / as_strided
    "diagonal": (lambda L, x: x.diagonal(), A34),
    "diagonal_offset": (lambda L, x: x.diagonal(2), A34),
    "diagonal_neg": (lambda L, x: x.diagonal(-1), A34),
    "diagonal_past": (lambda L, x: x.diagonal(7), A34),
    "diagonal_dims": (lambda L, x: x.diagonal(1, 2, 0), A234),
    "diagonal_same": (lambda L, x: x.diagonal(0, 1, 1), A34),
    "diagonal_1d": (lambda L, x: x.diagonal(), A34[0]),
    "unfold": (lambda L, x: x.unfold(1, 2, 1), A34),
    "unfold_step": (lambda L, x: x.unfold(-1, 2, 2), A234),
    "unfold_0d": (lambda L, x: x.unfold(0, 1, 1), A0),
    "unfold_too_big": (lambda L, x: x.unfold(1, 5, 1), A34),
    "unfold_step0": (lambda L, x: x.unfold(1, 2, 0), A34),
    "as_strided": (lambda L, x: x.as_strided((2, 2), (1, 2), 3), A34),
    "as_strided_default_offset": (lambda L, x: x[1].as_strided((2,), (2,)), A34),
    "as_strided_overlap": (lambda L, x: x.as_strided((3, 3), (1, 1)), A34),
    "as_strided_oob": (lambda L, x: x.as_strided((4, 4), (4, 1)), A34),
    "as_strided_neg_stride": (lambda L, x: x.as_strided((2,), (-1,)), A34),
    "as_strided_neg_size": (lambda L, x: x.as_strided((-1,), (1,)), A34),
    "as_strided_len": (lambda L, x: x.as_strided((2, 2), (1,)), A34),
    "as_strided_empty_far": (lambda L, x: x.as_strided((0,), (1,), 12), A34),
    "as_strided_huge": (lambda L, x: x.as_strided((2**40,), (1,)), A34),
    # multi-output views
    "unbind": (lambda L, x: x.unbind(1), A34),
    "unbind_0d": (lambda L, x: x.unbind(0), A0),
    "split": (lambda L, x: x.split(3, 1), A34),
    "split_sizes": (lambda L, x: x.split([1, 3], 1), A34),
    "split_bad_sizes": (lambda L, x: x.split([1, 2], 1), A34),
    "split_zero": (lambda L, x: x.split(0), A34),
    "split_empty": (lambda L, x: x.split(0, 0), E),
    "chunk": (lambda L, x: x.chunk(3, 1), A34),
    "chunk_more_than_size": (lambda L, x: x.chunk(10, 0), A34),
    "chunk_zero": (lambda L, x: x.chunk(0), A34),
    "chunk_empty": (lambda L, x: x.chunk(2), E),
    "detach": (lambda L, x: x.detach(), A34),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_view_op_matches_pytorch(name: str) -> None:
    program, data = CASES[name]
    compare(program, data)


def aliasing(lib, x):
    """What ``_base`` / ``_is_view()`` report for chains of views, as comparable values."""
    v = x.t()[1:]
    w = v.unsqueeze(0)
    return (
        v._is_view(), v._base is x, w._base is x, x._base is None, x.detach()._is_view(),
        x.reshape(12)._base is x, x.t().reshape(12)._base is None, x.unbind(0)[1]._base is x,
        x[...]._base is x, x.flatten(0, 0) is x, w.storage_offset(), x[[0, 2]]._is_view(), x[x.detach().numpy() > 3]._is_view(),
    )


def test_base_and_is_view_match_pytorch() -> None:
    compare(aliasing, A34)


def test_views_share_memory_and_version() -> None:
    x = jitgrad.zeros(3, 4)
    v = x[1:, ::2].t()
    v.fill_(7)
    assert x.detach().numpy()[1:, ::2].tolist() == [[7.0, 7.0], [7.0, 7.0]]
    assert x._version == v._version == 1
    x[0, 0] = 2.0
    assert v._version == 2
    assert x.detach()._version == 2


def chain_program(ops):
    def program(lib, x):
        for op in ops:
            x = op(x)
        return x
    return program


@st.composite
def view_chains(draw):
    """A base array and a chain of view operations with arguments that are sometimes invalid."""
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    data = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    ops, cur = [], shape
    for _ in range(draw(st.integers(1, 4))):
        n = len(cur)
        d = st.integers(-n - 1, n)
        kind = draw(st.sampled_from([
            "narrow", "select", "transpose", "permute", "view", "expand", "unsqueeze", "squeeze",
            "diagonal", "unfold", "as_strided", "slice", "movedim", "flatten", "split", "t",
        ]))
        size = lambda: draw(st.integers(-1, 5))  # noqa: E731
        if kind == "narrow":
            args = (draw(d), size(), size())
            op = lambda x, a=args: x.narrow(*a)  # noqa: E731
        elif kind == "select":
            args = (draw(d), size())
            op = lambda x, a=args: x.select(*a)  # noqa: E731
        elif kind == "transpose":
            args = (draw(d), draw(d))
            op = lambda x, a=args: x.transpose(*a)  # noqa: E731
        elif kind == "permute":
            perm = draw(st.permutations(range(n))) if draw(st.booleans()) else [draw(d)] * n
            op = lambda x, p=tuple(perm): x.permute(*p)  # noqa: E731
        elif kind == "view":
            target = draw(st.lists(st.integers(-1, 4), min_size=0, max_size=3))
            op = lambda x, s=tuple(target): x.view(s)  # noqa: E731
        elif kind == "expand":
            target = draw(st.lists(st.integers(-1, 3), min_size=n, max_size=n + 1))
            op = lambda x, s=tuple(target): x.expand(s)  # noqa: E731
        elif kind == "unsqueeze":
            op = lambda x, a=draw(st.integers(-n - 2, n + 1)): x.unsqueeze(a)  # noqa: E731
        elif kind == "squeeze":
            op = (lambda x: x.squeeze()) if draw(st.booleans()) else (lambda x, a=draw(d): x.squeeze(a))
        elif kind == "diagonal":
            args = (draw(st.integers(-3, 3)), draw(d), draw(d))
            op = lambda x, a=args: x.diagonal(*a)  # noqa: E731
        elif kind == "unfold":
            args = (draw(d), size(), draw(st.integers(0, 3)))
            op = lambda x, a=args: x.unfold(*a)  # noqa: E731
        elif kind == "as_strided":
            k = draw(st.integers(0, 3))
            sizes = tuple(draw(st.lists(st.integers(0, 3), min_size=k, max_size=k)))
            strides = tuple(draw(st.lists(st.integers(0, 5), min_size=k, max_size=k)))
            offset = draw(st.one_of(st.none(), st.integers(0, 8)))
            op = lambda x, a=(sizes, strides, offset): x.as_strided(*a)  # noqa: E731
        elif kind == "slice":
            idx = tuple(
                draw(st.one_of(
                    st.integers(-4, 4), st.none(), st.just(Ellipsis),
                    st.builds(slice, st.one_of(st.none(), st.integers(-5, 5)),
                              st.one_of(st.none(), st.integers(-5, 5)),
                              st.one_of(st.none(), st.integers(1, 3))),
                ))
                for _ in range(draw(st.integers(0, 3)))
            )
            op = lambda x, i=idx: x[i]  # noqa: E731
        elif kind == "movedim":
            args = (draw(d), draw(d))
            op = lambda x, a=args: x.movedim(*a)  # noqa: E731
        elif kind == "flatten":
            args = (draw(d), draw(d))
            op = lambda x, a=args: x.flatten(*a)  # noqa: E731
        elif kind == "split":
            args = (draw(st.integers(0, 3)), draw(d))
            op = lambda x, a=args: x.split(*a)[-1]  # noqa: E731
        else:
            op = lambda x: x.t()  # noqa: E731
        ops.append(op)
        try:
            cur = tuple(op(torch.from_numpy(np.zeros(cur))).shape)
        except (RuntimeError, IndexError, ValueError, TypeError):
            break
    return data, ops


@settings(max_examples=budget(400))
@given(view_chains())
def test_random_view_chains_match_pytorch(case) -> None:
    data, ops = case
    compare(chain_program(ops), data)
