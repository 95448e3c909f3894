"""``jitgrad.random`` beside ``torch.random``: the seed and state functions are jitgrad's own,
and ``fork_rng`` restores the default generator (draws and ``initial_seed``) on leaving."""

from __future__ import annotations

from typing import Any

import pytest
import torch

import jitgrad
import jitgrad.random


@pytest.mark.parametrize("name", ["manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state"])
def test_the_same_functions_as_at_the_top_level(name: str) -> None:
    assert getattr(jitgrad.random, name) is getattr(jitgrad, name)
    assert getattr(torch.random, name) is not None  # (PyTorch has them in both places too)


def _forked_draws(L: Any, raises: bool) -> tuple[bool, bool, bool]:
    """(the draws after the block repeat those without it, initial_seed is back, the block's
    own draws came from its seed)."""
    L.manual_seed(11)
    expected = L.rand(3).tolist()
    L.manual_seed(11)
    inside: list[float] = []
    try:
        with L.random.fork_rng():
            L.manual_seed(99)
            inside = L.rand(2).tolist()
            if raises:
                raise KeyError("inside")
    except KeyError:
        pass
    seed_after, after = L.initial_seed(), L.rand(3).tolist()
    L.manual_seed(99)
    return after == expected, seed_after == 11, inside == L.rand(2).tolist()


@pytest.mark.parametrize("raises", [False, True])
def test_fork_rng_restores_like_pytorch(raises: bool) -> None:
    for L in (jitgrad, torch):
        assert _forked_draws(L, raises) == (True, True, True)


def test_fork_rng_disabled_changes_the_state_as_pytorch() -> None:
    for L in (jitgrad, torch):
        L.manual_seed(3)
        with L.random.fork_rng(enabled=False):
            L.rand(4)
        after = L.rand(1).item()
        L.manual_seed(3)
        L.rand(4)
        assert L.rand(1).item() == after


def test_fork_rng_accepts_pytorchs_device_arguments() -> None:
    jitgrad.manual_seed(1)
    before = jitgrad.random.get_rng_state()
    with jitgrad.random.fork_rng(devices=[], device_type="cuda"):
        jitgrad.rand(5)
    assert jitgrad.equal(jitgrad.random.get_rng_state(), before)


def test_set_rng_state_refuses_a_wrong_state_and_changes_nothing() -> None:
    jitgrad.manual_seed(2)
    before = jitgrad.random.get_rng_state()
    for L, bad in ((jitgrad, jitgrad.zeros(3)), (torch, torch.zeros(3))):
        with pytest.raises((TypeError, RuntimeError)):
            L.random.set_rng_state(bad)
    assert jitgrad.equal(jitgrad.random.get_rng_state(), before)


def test_reached_as_an_attribute_after_import_jitgrad() -> None:
    assert jitgrad.random.fork_rng is not None and jitgrad.random.Generator is jitgrad.Generator
