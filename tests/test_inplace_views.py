"""In-place view ops (``t_``, ``transpose_``, ``swapdims_``, ``squeeze_``, ``unsqueeze_``,
``as_strided_``), ``resize_``, the new view spellings and ``*_copy`` variants, checked
against PyTorch: geometry, version counters, ``grad_fn`` names, view-ness, gradients and
second derivatives (float64), errors (same family, nothing changed)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from grad_oracle import check, check_error
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget

RNG = np.random.default_rng(12)


def data(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


INPLACE_VIEWS = {
    "t_": lambda x: x.t_(),
    "transpose_": lambda x: x.transpose_(0, -1),
    "swapdims_": lambda x: x.swapdims_(-1, 0),
    "swapaxes_": lambda x: x.swapaxes_(0, 1),
    "squeeze_()": lambda x: x.squeeze_(),
    "squeeze_(dim)": lambda x: x.squeeze_(1),
    "squeeze_(dims)": lambda x: x.squeeze_((1,)),
    "unsqueeze_": lambda x: x.unsqueeze_(1),
    "as_strided_": lambda x: x.as_strided_((2, 2), (1, 2), 1),
}


def _input(name: str) -> np.ndarray:
    return data(3, 4) if name == "t_" else data(3, 1, 4)


def _graph_facts(lib, x, op, through_view: bool):
    b = x * 1.0
    target = b.view(b.shape) if through_view else b
    version = target._version
    out = op(target)
    return (
        out is target,
        tuple(target.shape), tuple(target.stride()), target.storage_offset(),
        type(target.grad_fn).__name__, target._version - version, target._is_view(),
        target._base is b if through_view else target._base is None,
    )


@pytest.mark.parametrize("through_view", [False, True], ids=["tensor", "view"])
@pytest.mark.parametrize("name", list(INPLACE_VIEWS))
def test_inplace_view_geometry_history_and_version_match_pytorch(name, through_view):
    op = INPLACE_VIEWS[name]
    a = _input(name)
    ours = _graph_facts(jitgrad, jitgrad.from_numpy(a.copy()).requires_grad_(), op, through_view)
    theirs = _graph_facts(torch, torch.from_numpy(a.copy()).requires_grad_(), op, through_view)
    assert ours == theirs


@pytest.mark.parametrize("through_view", [False, True], ids=["tensor", "view"])
@pytest.mark.parametrize("name", list(INPLACE_VIEWS))
def test_inplace_view_gradients_match_pytorch(name, through_view):
    op = INPLACE_VIEWS[name]

    def program(lib, x, w):
        b = x * 2.0
        target = b.view(b.shape) if through_view else b
        op(target)
        target.mul_(w.reshape(target.shape) if w.numel() == target.numel() else 1.0)
        return b * b, target.exp()

    a = _input(name)
    w = data(4) if name == "as_strided_" else data(*np.shape(op(torch.from_numpy(a.copy()))))
    check(program, a, w.reshape(-1) if name == "as_strided_" else w)


def test_inplace_view_then_write_through_it_rebases_the_base_as_pytorch():
    def program(lib, x):
        b = x.clone()
        v = b[1:]
        v.t_()  # a view of b, now transposed
        v.mul_(v.detach() + 1.0)
        v.unsqueeze_(0).add_(3.0)
        return b, v

    check(program, data(3, 2))


def test_inplace_view_in_view_replay_mode_gives_the_same_gradients():
    def run(lib, replay):
        x = lib.from_numpy(np.arange(12.0).reshape(3, 4)).requires_grad_()
        b = x * 1.0
        v = b[:, 1:]
        ctx = jitgrad.autograd.view_replay() if replay else _null()
        with ctx:
            v.transpose_(0, 1)
            v.mul_(2.0)
            b.sum().backward()
        return x.grad.numpy().copy()

    expected = torch.from_numpy(np.arange(12.0).reshape(3, 4)).requires_grad_()
    b = expected * 1.0
    v = b[:, 1:]
    v.transpose_(0, 1)
    v.mul_(2.0)
    b.sum().backward()
    for replay in (False, True):
        np.testing.assert_array_equal(run(jitgrad, replay), expected.grad.numpy())


class _null:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return None


@settings(max_examples=budget(60))
@given(
    shape=st.lists(st.integers(1, 3), min_size=1, max_size=4),
    d0=st.integers(-4, 3), d1=st.integers(-4, 3), dim=st.integers(-5, 4),
)
def test_transpose_unsqueeze_squeeze_in_place_as_pytorch(shape, d0, d1, dim):
    a = RNG.standard_normal(shape)
    results = []
    for lib in (jitgrad, torch):
        x = lib.from_numpy(a.copy())
        facts = []
        for op in (lambda t: t.transpose_(d0, d1), lambda t: t.unsqueeze_(dim), lambda t: t.squeeze_(dim)):
            try:
                op(x)
                facts.append((tuple(x.shape), tuple(x.stride()), x._version))
            except (IndexError, RuntimeError) as exc:
                facts.append(type(exc).__name__)
        results.append(facts)
    assert results[0] == results[1]


@pytest.mark.parametrize("name", list(INPLACE_VIEWS))
def test_inplace_view_on_a_leaf_or_a_view_of_one_is_refused_and_changes_nothing(name):
    op = INPLACE_VIEWS[name]
    a = _input(name)
    check_error(lambda lib, x: op(x), a)
    check_error(lambda lib, x: op(x.view(x.shape)), a)


def test_inplace_view_refused_on_a_no_grad_view_and_on_a_multi_output_view():
    for lib in (jitgrad, torch):
        b = lib.ones(2, 3, dtype=lib.float64, requires_grad=True).clone()
        with lib.no_grad():
            v = b.view(3, 2)
        with pytest.raises(RuntimeError, match="no_grad mode"):
            v.t_()
        piece = b.unbind(0)[0]
        with pytest.raises(RuntimeError, match="multiple views"):
            piece.unsqueeze_(0)
        assert tuple(piece.shape) == (3,)


def test_inplace_view_under_no_grad_leaves_a_view_whose_history_is_regenerated():
    facts = []
    for lib in (jitgrad, torch):
        x = lib.from_numpy(np.arange(6.0).reshape(2, 3)).requires_grad_()
        b = x * 1.0
        v = b.view(3, 2)
        with lib.no_grad():
            v.t_()
        (v * lib.from_numpy(np.arange(6.0).reshape(2, 3))).sum().backward()
        facts.append((tuple(v.shape), v._is_view(), x.grad.numpy().tolist()))
    assert facts[0] == facts[1]


# -- resize_ ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("new", [(2, 3), (6,), (2, 2), (4, 5), (0,), (1, 1, 6)])
def test_resize_matches_pytorch(new):
    for lib in (jitgrad, torch):
        x = lib.from_numpy(np.arange(6.0)).clone()
        alias = x[:]
        x.resize_(new)
        n = min(6, int(np.prod(new)))
        kept = x.reshape(-1)[:n].numpy().tolist()
        if lib is jitgrad:
            ours = (tuple(x.shape), tuple(x.stride()), x._version, alias._version, kept)
        else:
            theirs = (tuple(x.shape), tuple(x.stride()), x._version, alias._version, kept)
    assert ours == theirs


def test_resize_refused_on_tensors_that_require_grad():
    check_error(lambda lib, x: x.resize_(2, 2), data(4))
    check_error(lambda lib, x: (x * 1).resize_(2, 2), data(4))


def test_resize_as_keeps_strides_when_the_shape_already_matches():
    x = jitgrad.empty(2, 3).t()
    x.resize_as_(x)
    assert x.stride() == (1, 3) and x._version == 0


# -- split_with_sizes, unsafe_split/chunk, spellings, *_copy -----------------------------------------
def test_split_with_sizes_and_unsafe_splits_gradients_match_pytorch():
    # one root made from all the pieces (several roots from one split: engineer engine's fix)
    def weighted(pieces):
        return sum(((p * (k + 1.0)) ** 2).sum() for k, p in enumerate(pieces))

    check(lambda lib, x: weighted(x.split_with_sizes([1, 3], dim=1)), data(2, 4))
    check(lambda lib, x: weighted((x * 1).unsafe_split(2, 1)), data(2, 4))
    check(lambda lib, x: weighted((x * 1).unsafe_chunk(2, 0)), data(4, 3))
    check(lambda lib, x: weighted((x * 1).unsafe_split_with_sizes([3, 1], 0)), data(4, 3))


def test_unsafe_split_pieces_are_not_views_and_can_be_written():
    facts = []
    for lib in (jitgrad, torch):
        x = lib.from_numpy(np.arange(6.0).reshape(3, 2)).requires_grad_()
        b = x * 1.0
        s1, s2, s3 = b.unsafe_split(1)
        s1.mul_(s2)
        s1.sum().backward()
        facts.append((s1._is_view(), type(s1.grad_fn).__name__, x.grad.numpy().tolist()))
    assert facts[0] == facts[1]


def test_split_with_sizes_outputs_refuse_in_place_as_pytorch():
    for lib in (jitgrad, torch):
        b = lib.ones(3, 2, dtype=lib.float64, requires_grad=True) * 1.0
        s = b.split_with_sizes([1, 2])
        with pytest.raises(RuntimeError, match="multiple views"):
            s[0].mul_(2)


@pytest.mark.parametrize("name,program", [
    ("swapdims", lambda lib, x: lib.swapdims(x, 0, 2)),
    ("swapaxes", lambda lib, x: x.swapaxes(1, -1)),
    ("moveaxis", lambda lib, x: lib.moveaxis(x, (0, 1), (2, 0))),
    ("mT", lambda lib, x: x.mT),
    ("mH", lambda lib, x: x.mH),
    ("reshape_as", lambda lib, x: x.reshape_as(lib.zeros(6, 2, dtype=lib.float64))),
    ("adjoint", lambda lib, x: x.adjoint()),
])
def test_view_spellings_match_pytorch(name, program):
    check(program, data(2, 3, 2))


def test_H_matches_pytorch_and_refuses_3d():
    check(lambda lib, x: x.H * 2, data(2, 3))
    check_error(lambda lib, x: x.H, data(2, 3, 4))
    check_error(lambda lib, x: x.mT, data(3))


@pytest.mark.parametrize("name,args", [
    ("view_copy", ((6, 2),)), ("diagonal_copy", ()), ("t_copy", ()), ("transpose_copy", (0, 1)),
    ("permute_copy", ((1, 0),)), ("select_copy", (0, 1)), ("narrow_copy", (1, 1, 2)),
    ("expand_copy", ((2, 3, 4),)), ("unsqueeze_copy", (0,)), ("squeeze_copy", ()),
    ("unfold_copy", (1, 2, 1)), ("split_copy", (2,)), ("unbind_copy", ()),
    ("split_with_sizes_copy", ([1, 2],)), ("as_strided_copy", ((2, 2), (1, 3))),
])
def test_copy_variants_match_pytorch_and_are_not_views(name, args):
    a = data(3, 4)

    def program(lib, x):
        return getattr(lib, name)(x, *args)

    ours, _ = check(program, a)
    for t in ours if isinstance(ours, tuple) else (ours,):
        assert not t._is_view() and t.is_contiguous()


def test_copy_variant_out_argument_resizes_and_refuses_autograd():
    a = jitgrad.from_numpy(data(2, 2))
    out = jitgrad.empty(1, dtype=jitgrad.float64)
    jitgrad.diagonal_copy(a, out=out)
    np.testing.assert_array_equal(out.numpy(), np.diagonal(a.numpy()))
    with pytest.raises(RuntimeError, match="out="):
        jitgrad.view_copy(a.requires_grad_(), (4,), out=jitgrad.empty(4))
    with pytest.raises(RuntimeError, match="out= argument of size 2, got size 1"):
        jitgrad.split_copy(jitgrad.ones(4), 2, out=(jitgrad.empty(2),))


def test_resize_refuses_to_grow_numpy_memory_as_pytorch():
    check_error(lambda lib, x: x.detach().resize_(3, 3), data(4))
    a = np.arange(4.0)
    t = jitgrad.from_numpy(a)
    t.resize_(2)  # shrinking needs no new memory
    assert t.shape == (2,) and np.shares_memory(t.numpy(), a)
