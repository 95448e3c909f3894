"""``jitgrad.random`` beside ``torch.random``: the seed and state functions are jitgrad's own,
and ``fork_rng`` restores the default generator (draws and ``initial_seed``) on leaving."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import jitgrad
import jitgrad.random
from compat_helpers import outcome


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


SEEDS = [0, -1, -2**63, -2**63 - 1, 2**64 - 1, 2**64, 1.5, True, "7", np.int64(5), "x"]


@pytest.mark.parametrize("seed", SEEDS, ids=repr)
def test_manual_seed_accepts_and_refuses_seeds_like_pytorch(seed: Any) -> None:
    """The seeds PyTorch takes (negative ones modulo 2**64) and the ones it refuses, with its
    exception types: the default generator's ``manual_seed`` converts with ``int()`` first,
    ``Generator.manual_seed`` wants an integer."""
    def seeded(L: Any) -> Any:
        return L.manual_seed(seed).initial_seed(), L.initial_seed()

    def generator(L: Any) -> Any:
        return L.Generator().manual_seed(seed).initial_seed()

    for program in (seeded, generator):
        ours, theirs = (outcome(lambda L=L: program(L)) for L in (jitgrad, torch))
        assert ours[0] == theirs[0]
        if ours[0] == "ok":
            assert ours == theirs
    jitgrad.manual_seed(0)


def test_a_refused_seed_changes_nothing() -> None:
    jitgrad.manual_seed(8)
    state = jitgrad.get_rng_state()
    with pytest.raises(ValueError, match="out of range"):
        jitgrad.manual_seed(2**64)
    assert jitgrad.initial_seed() == 8 and jitgrad.equal(jitgrad.get_rng_state(), state)


def test_negative_seeds_give_the_stream_of_their_wrapped_value() -> None:
    assert jitgrad.manual_seed(-1).initial_seed() == 2**64 - 1
    first = jitgrad.rand(4).tolist()
    jitgrad.manual_seed(2**64 - 1)
    assert jitgrad.rand(4).tolist() == first
