"""Margin and count losses (functional and modules) against PyTorch (float64): values for
every reduction, gradients, gradients of gradients, node names, argument errors; Hypothesis
over shapes; gradcheck."""

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
REDUCTIONS = ("mean", "sum", "none")


def _signs(shape: tuple[int, ...]) -> np.ndarray:
    return np.where(RNG.random(shape) < 0.5, -1.0, 1.0)


def _cases(shape: tuple[int, ...]) -> dict[str, tuple[Any, tuple[np.ndarray, ...], list[int]]]:
    """name -> (program(L, F, reduction, *tensors), arrays, indices of arrays that are targets)."""
    rows = shape[:-1]
    return {
        "margin_ranking_loss": (lambda F, r, a, b, t: F.margin_ranking_loss(a, b, t, margin=0.3, reduction=r),
                                (RNG.standard_normal(shape), RNG.standard_normal(shape), _signs(shape)), [2]),
        "hinge_embedding_loss": (lambda F, r, a, t: F.hinge_embedding_loss(a, t, margin=0.7, reduction=r),
                                 (RNG.standard_normal(shape), _signs(shape)), [1]),
        "soft_margin_loss": (lambda F, r, a, t: F.soft_margin_loss(a, t, reduction=r),
                             (RNG.standard_normal(shape), _signs(shape)), [1]),
        "cosine_embedding_loss": (lambda F, r, a, b, t: F.cosine_embedding_loss(a, b, t, margin=0.2, reduction=r),
                                  (RNG.standard_normal(shape), RNG.standard_normal(shape), _signs(rows)), [2]),
        "triplet_margin_loss": (lambda F, r, a, b, c: F.triplet_margin_loss(a, b, c, margin=0.5, reduction=r),
                                (RNG.standard_normal(shape), RNG.standard_normal(shape), RNG.standard_normal(shape)), []),
        "triplet_swap_p1": (lambda F, r, a, b, c: F.triplet_margin_loss(a, b, c, p=1, swap=True, reduction=r),
                            (RNG.standard_normal(shape), RNG.standard_normal(shape), RNG.standard_normal(shape)), []),
        "poisson_nll_loss": (lambda F, r, a, t: F.poisson_nll_loss(a, t, reduction=r),
                             (RNG.standard_normal(shape), RNG.poisson(2.0, shape).astype(float)), [1]),
        "poisson_nll_loss_full": (lambda F, r, a, t: F.poisson_nll_loss(a, t, log_input=False, full=True, reduction=r),
                                  (RNG.random(shape) + 0.5, RNG.poisson(2.0, shape).astype(float)), [1]),
        "multilabel_soft_margin_loss": (lambda F, r, a, t: F.multilabel_soft_margin_loss(a, t, reduction=r),
                                        (RNG.standard_normal(shape), (RNG.random(shape) < 0.5).astype(float)), [1]),
        "multilabel_weighted": (lambda F, r, a, t, w: F.multilabel_soft_margin_loss(a, t, w, reduction=r),
                                (RNG.standard_normal(shape), (RNG.random(shape) < 0.5).astype(float),
                                 RNG.random(shape[-1:])), [1, 2]),
    }


def _check(name: str, shape: tuple[int, ...], reduction: str, second: bool = True) -> None:
    program, arrays, targets = _cases(shape)[name]

    def run(L: Any, *ts: Any) -> Any:
        ts = tuple(t.detach() if i in targets else t for i, t in enumerate(ts))
        return program(L.nn.functional, reduction, *ts)

    compare(run, *arrays, second=second)


@pytest.mark.parametrize("call", [
    lambda x: x.clamp_min(0.5), lambda x: x.clamp_max(0.5), lambda x: x.clamp(min=0.5),
    lambda x: x.clamp(0.2, 0.5), lambda x: (x * 1).clamp_min_(0.5), lambda x: (x * 1).clamp_max_(0.5),
    lambda x: x.clip(max=0.5),
], ids=["clamp_min", "clamp_max", "clamp_min_kw", "clamp", "clamp_min_", "clamp_max_", "clip"])
def test_clamp_nodes_are_pytorchs(call: Any) -> None:
    """clamp_min/clamp_max with a number record their own nodes (ClampMinBackward0,
    ClampMaxBackward0), clamp ClampBackward1; the gradients are the same."""
    got = []
    for lib in (torch, jitgrad):
        x = lib.tensor([0.1, 0.5, 0.9], dtype=lib.float64, requires_grad=True)
        out = call(x)
        out.sum().backward()
        got.append((type(out.grad_fn).__name__, x.grad.tolist(), out.tolist()))
    assert got[1] == got[0]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", sorted(_cases((2, 3))))
def test_against_pytorch(name: str, reduction: str) -> None:
    _check(name, (4, 5), reduction)


@settings(max_examples=budget(30))
@given(st.sampled_from(sorted(_cases((2, 3)))), st.sampled_from(REDUCTIONS),
       st.lists(st.integers(1, 4), min_size=1, max_size=3))
def test_hypothesis(name: str, reduction: str, shape: list[int]) -> None:
    if name.startswith("cosine") and len(shape) > 2:
        shape = shape[:2]
    _check(name, tuple(shape), reduction, second=False)


MODULES = [
    ("MarginRankingLoss", dict(margin=0.3)), ("HingeEmbeddingLoss", dict(margin=2.0)),
    ("SoftMarginLoss", dict(reduction="sum")), ("CosineEmbeddingLoss", dict(margin=0.1)),
    ("TripletMarginLoss", dict(margin=0.5, p=1.5, swap=True)), ("PoissonNLLLoss", dict(full=True)),
    ("MultiLabelSoftMarginLoss", dict(reduction="none")),
]


def _module_inputs(name: str) -> tuple[list[np.ndarray], list[int]]:
    """The arrays a loss module takes, and which of them are targets."""
    x, y = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    if name == "TripletMarginLoss":
        return [x, y, RNG.standard_normal((3, 4))], []
    if name in ("MarginRankingLoss", "CosineEmbeddingLoss"):
        return [x, y, _signs((3, 4) if name == "MarginRankingLoss" else (3,))], [2]
    if name == "PoissonNLLLoss":
        return [x, RNG.poisson(2.0, (3, 4)).astype(float)], [1]
    if name == "MultiLabelSoftMarginLoss":
        return [x, (RNG.random((3, 4)) < 0.5).astype(float)], [1]
    return [x, _signs((3, 4))], [1]


@pytest.mark.parametrize("name, kw", MODULES, ids=[m[0] for m in MODULES])
def test_modules(name: str, kw: dict[str, Any]) -> None:
    mods = [getattr(L.nn, name)(**kw) for L in (jitgrad, torch)]
    assert repr(mods[0]) == repr(mods[1])

    def fields(m: Any) -> dict[str, Any]:
        return {k: v for k, v in vars(m).items() if not k.startswith("_") and k != "training"}

    assert fields(mods[0]) == fields(mods[1])
    arrays, targets = _module_inputs(name)
    compare(lambda L, *ts: mods[L is torch](*(t.detach() if i in targets else t for i, t in enumerate(ts))),
            *arrays)


ERRORS = {
    "cel_dim": lambda F, v: F.cosine_embedding_loss(v[None], v[None], v[:, 0].detach()),
    "cel_multi": lambda F, v: F.cosine_embedding_loss(v, v, v.detach()),
    "cel_0d": lambda F, v: F.cosine_embedding_loss(v, v, v[0, 0].detach()),
    "tml_dim": lambda F, v: F.triplet_margin_loss(v, v[0], v),
    "tml_margin": lambda F, v: F.triplet_margin_loss(v, v, v, margin=-1),
    "tml_module_margin": lambda F, v: F.NN.TripletMarginLoss(margin=0),
    "sml_target_grad": lambda F, v: F.soft_margin_loss(v, v),
    "reduction": lambda F, v: F.soft_margin_loss(v, v.detach(), reduction="foo"),
    "reduction_margin": lambda F, v: F.margin_ranking_loss(v, v, v.detach(), reduction="foo"),
    "reduction_poisson": lambda F, v: F.poisson_nll_loss(v, v.detach(), reduction="foo"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case: str) -> None:
    def program(L: Any) -> Any:
        F = L.nn.functional
        F.NN = L.nn
        try:
            return ERRORS[case](F, L.ones(3, 5, dtype=L.float64, requires_grad=True))
        finally:
            del F.NN

    same_error(program)


def test_margin_ranking_size_message() -> None:
    """PyTorch prints ``torch.Size``, jitgrad ``jitgrad.Size``; the rest is the same."""
    got = []
    for L in (jitgrad, torch):
        with pytest.raises(RuntimeError) as info:
            L.nn.functional.margin_ranking_loss(L.ones(3, 2), L.ones(3, 2), L.ones(2))
        got.append(str(info.value).replace("torch.", "").replace("jitgrad.", ""))
    assert got[0] == got[1]


def test_gradcheck() -> None:
    F = jitgrad.nn.functional
    a, b, c = (jitgrad.tensor(RNG.standard_normal((3, 4)), requires_grad=True) for _ in range(3))
    t = jitgrad.tensor(_signs((3, 4)))
    assert jitgrad.autograd.gradcheck(lambda x: F.soft_margin_loss(x, t), (a,))
    assert jitgrad.autograd.gradgradcheck(lambda x: F.soft_margin_loss(x, t, reduction="none"), (a,))
    assert jitgrad.autograd.gradcheck(lambda x, y: F.cosine_embedding_loss(x, y, t[:, 0]), (a, b))
    assert jitgrad.autograd.gradcheck(lambda x, y, z: F.triplet_margin_loss(x, y, z, swap=True), (a, b, c))
    assert jitgrad.autograd.gradcheck(lambda x: F.multilabel_soft_margin_loss(x, (t > 0).double()), (a,))


# --- losses over classes, one node each in PyTorch ------------------------------------------

CLASS_TARGETS = [np.array([1, 0, 3, 3, 2]), np.array([2])]
LABEL_TARGETS = np.array([[2, -1, 0, 1], [0, 1, 3, -1], [3, 3, -1, 2], [-1, 0, 1, 2], [1, 2, 3, 0]])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kw", [dict(), dict(p=2, margin=0.7), dict(weight=True)])
@pytest.mark.parametrize("batched", [True, False])
def test_multi_margin_loss(reduction: str, kw: dict[str, Any], batched: bool) -> None:
    target = CLASS_TARGETS[0 if batched else 1]
    x = RNG.standard_normal((5, 4) if batched else (4,))
    arrays = [x, RNG.random(4) + 0.5] if kw.get("weight") else [x]
    args = {k: v for k, v in kw.items() if k != "weight"}

    def program(L: Any, t: Any, *w: Any) -> Any:
        return L.nn.functional.multi_margin_loss(t, L.tensor(target), weight=w[0].detach() if w else None,
                                                 reduction=reduction, **args)

    compare(program, *arrays, second=False)  # (PyTorch's has no double backward)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_loss(reduction: str) -> None:
    compare(lambda L, t: L.nn.functional.multilabel_margin_loss(t, L.tensor(LABEL_TARGETS), reduction=reduction),
            RNG.standard_normal((5, 4)), second=False)
    compare(lambda L, t: L.nn.functional.multilabel_margin_loss(t, L.tensor(LABEL_TARGETS[1]), reduction=reduction),
            RNG.standard_normal(4), second=False)


@settings(max_examples=budget(20))
@given(st.integers(1, 4), st.integers(1, 5), st.data())
def test_class_margin_losses_hypothesis(n: int, c: int, data: Any) -> None:
    rng = np.random.default_rng(n * 10 + c)
    x = np.round(rng.standard_normal((n, c)) * 2) / 2  # (ties and hinge kinks included)
    target = np.array(data.draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n)))
    labels = np.array(data.draw(st.lists(st.lists(st.integers(-1, c - 1), min_size=c, max_size=c),
                                         min_size=n, max_size=n)))
    compare(lambda L, t: L.nn.functional.multi_margin_loss(t, L.tensor(target), p=2), x, second=False)
    compare(lambda L, t: L.nn.functional.multilabel_margin_loss(t, L.tensor(labels)), x, second=False)


def test_class_margin_losses_twice_differentiable() -> None:
    """(PyTorch's have no double backward; jitgrad's compositions do: checked numerically.)"""
    x = jitgrad.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    F = jitgrad.nn.functional
    assert jitgrad.autograd.gradgradcheck(lambda t: F.multi_margin_loss(t, jitgrad.tensor([0, 3, 1]), p=2), (x,))
    assert jitgrad.autograd.gradcheck(lambda t: F.multilabel_margin_loss(t, jitgrad.tensor(LABEL_TARGETS[:3])), (x,))


def test_triplet_margin_with_distance_loss() -> None:
    a, b, c = (RNG.standard_normal((4, 3)) for _ in range(3))
    compare(lambda L, *ts: L.nn.functional.triplet_margin_with_distance_loss(*ts, swap=True), a, b, c)

    def program(L: Any, *ts: Any) -> Any:
        m = L.nn.TripletMarginWithDistanceLoss(distance_function=lambda u, v: (u - v).abs().sum(-1), margin=0.5,
                                               reduction="none")
        return m(*ts)

    compare(program, a, b, c)


CLASS_ERRORS = {
    "mm_p": lambda F, x: F.multi_margin_loss(x, F.T([1, 0]), p=3),
    "mm_range": lambda F, x: F.multi_margin_loss(x, F.T([3, 0])),
    "mm_size": lambda F, x: F.multi_margin_loss(x, F.T([1])),
    "mm_dtype": lambda F, x: F.multi_margin_loss(x, F.T([1, 0]).double()),
    "mm_weight": lambda F, x: F.multi_margin_loss(x, F.T([1, 0]), weight=x.new_ones(2)),
    "mm_weight_grad": lambda F, x: F.multi_margin_loss(x, F.T([1, 0]), weight=x.new_ones(3).requires_grad_()),
    "ml_range": lambda F, x: F.multilabel_margin_loss(x, F.T([[3, -1, 0], [0, 1, -1]])),
    "ml_size": lambda F, x: F.multilabel_margin_loss(x, F.T([1, 0])),
    "mm_module_p": lambda F, x: F.NN.MultiMarginLoss(p=3),
    "twd_margin": lambda F, x: F.triplet_margin_with_distance_loss(x, x, x, margin=0),
    "twd_module_margin": lambda F, x: F.NN.TripletMarginWithDistanceLoss(margin=-1),
}


@pytest.mark.parametrize("case", sorted(CLASS_ERRORS))
def test_class_loss_errors(case: str) -> None:
    def program(L: Any) -> Any:
        F = L.nn.functional
        F.NN, F.T = L.nn, L.tensor
        try:
            return CLASS_ERRORS[case](F, L.ones(2, 3, dtype=L.float64, requires_grad=True))
        finally:
            del F.NN, F.T

    same_error(program)
