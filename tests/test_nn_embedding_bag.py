"""``F.embedding_bag`` / ``nn.EmbeddingBag`` against PyTorch (float64): sum, mean and max over
2-d bags and offset bags (empty bags, include_last_offset, padding_idx, per-sample weights):
outputs, gradients of the weight (and of the per-sample weights), node names, errors;
Hypothesis over bags."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import jitgrad
from conftest import budget
from nn_side_by_side import compare, same_error

RNG = np.random.default_rng(0)
W = RNG.standard_normal((10, 3))
FLAT = np.array([1, 2, 4, 5, 4, 3, 7, 2, 9])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("case", ["2d", "offsets", "empty_bags", "last_offset", "padding"])
def test_against_pytorch(mode: str, case: str) -> None:
    kw: dict[str, Any] = {}
    idx, offsets = FLAT, np.array([0, 2, 2, 5])
    if case == "2d":
        idx, offsets = FLAT[:8].reshape(4, 2), None
    if case == "empty_bags":
        offsets = np.array([0, 0, 4, 9])
    if case == "last_offset":
        offsets, kw = np.array([0, 3, 3, 7]), dict(include_last_offset=True)
    if case == "padding":
        kw = dict(padding_idx=4)

    def program(L: Any, w: Any) -> Any:
        o = None if offsets is None else L.tensor(offsets)
        return L.nn.functional.embedding_bag(L.tensor(idx), w, o, mode=mode, **kw)

    compare(program, W, second=False)


def test_per_sample_weights() -> None:
    def program(L: Any, w: Any, p: Any) -> Any:
        return L.nn.functional.embedding_bag(L.tensor(FLAT), w, L.tensor([0, 4, 4]), mode="sum", per_sample_weights=p,
                                             padding_idx=2)

    compare(program, W, RNG.standard_normal(len(FLAT)), second=False)


@settings(max_examples=budget(20))
@given(st.lists(st.integers(0, 9), max_size=12), st.lists(st.integers(0, 12), max_size=4),
       st.sampled_from(["sum", "mean", "max"]), st.sampled_from([None, 0, 3]))
def test_hypothesis(flat: list[int], cuts: list[int], mode: str, padding_idx: Any) -> None:
    offsets = np.array(sorted({0, *(c for c in cuts if c <= len(flat))}))
    compare(lambda L, w: L.nn.functional.embedding_bag(L.tensor(np.array(flat, dtype=np.int64)), w,
                                                       L.tensor(offsets), mode=mode, padding_idx=padding_idx),
            W, second=False)


def test_module_with_pytorchs_weight() -> None:
    mods = [L.nn.EmbeddingBag(10, 3, mode="max", padding_idx=-2).double() for L in (jitgrad, torch)]
    assert repr(mods[0]) == repr(mods[1]) and mods[0].padding_idx == mods[1].padding_idx
    assert not mods[0].weight.detach().numpy()[8].any()
    mods[0].load_state_dict({"weight": jitgrad.tensor(mods[1].weight.detach().numpy())})
    compare(lambda L, _: mods[L is torch](L.tensor(FLAT), L.tensor([0, 3, 3, 6])), W, second=False)


ERRORS = {
    "2d_offsets": lambda F, L, w: F.embedding_bag(L.tensor([[1, 2], [4, 5]]), w, L.tensor([0])),
    "no_offsets": lambda F, L, w: F.embedding_bag(L.tensor([1, 2]), w),
    "mode": lambda F, L, w: F.embedding_bag(L.tensor([1, 2]), w, L.tensor([0]), mode="foo"),
    "psw_mode": lambda F, L, w: F.embedding_bag(L.tensor([1, 2]), w, L.tensor([0]), per_sample_weights=L.ones(2)),
    "range": lambda F, L, w: F.embedding_bag(L.tensor([1, 12]), w, L.tensor([0])),
    "offsets_2d": lambda F, L, w: F.embedding_bag(L.tensor([1, 2]), w, L.tensor([[0]])),
    "first_offset": lambda F, L, w: F.embedding_bag(L.tensor([1, 2]), w, L.tensor([1])),
    "last_offset": lambda F, L, w: F.embedding_bag(L.tensor([1, 2]), w, L.tensor([0, 3])),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case: str) -> None:
    def program(L: Any) -> Any:
        return ERRORS[case](L.nn.functional, L, L.tensor(W, requires_grad=True))

    if case == "2d_offsets":  # (the message names the offsets' class: torch.Tensor or jitgrad's)
        got = [outcome[1].split("found")[0] for outcome in
               ((type(e).__name__, str(e)) for e in (_raised(program, L) for L in (jitgrad, torch)))]
        assert got[0] == got[1]
        return
    same_error(program)


def _raised(program: Any, lib: Any) -> Exception:
    with pytest.raises(Exception) as info:
        program(lib)
    return info.value


@pytest.mark.parametrize("mode, weighted", [("sum", False), ("mean", False), ("max", False), ("sum", True)])
def test_weight_written_in_place_before_backward(mode: str, weighted: bool) -> None:
    """PyTorch's node saves the weight only for the per-sample weights' gradient: a weight
    written in place after the lookup is refused at backward only then."""
    got = []
    for L in (jitgrad, torch):
        w = L.tensor(np.arange(12.0).reshape(4, 3), requires_grad=True)
        x = w * 1
        per_sample = L.ones(3, dtype=L.float64, requires_grad=True) if weighted else None
        y = L.nn.functional.embedding_bag(L.tensor([0, 1, 2]), x, L.tensor([0, 1]), mode=mode,
                                          per_sample_weights=per_sample)
        x.mul_(2.0)
        try:
            y.sum().backward()
            got.append(("ok", w.grad.tolist()))
        except RuntimeError as e:
            got.append(("stale", "modified by an inplace operation" in str(e)))
    assert got[0] == got[1]
