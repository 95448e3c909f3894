"""``input_buffer.handed_over`` (Note [Gradient buffer ownership]) against its rule written
plainly: declared flags, plus owned inputs passed through to exactly one output, minus any
buffer reaching two outputs. Its one-output and binary-node cases are spelled out in the
function."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import budget
from jitgrad.autograd.input_buffer import HandedGrads, handed_over
from jitgrad.autograd.node import OwnedGrads

POOL = [object() for _ in range(3)]


def _rule(outputs: Any, grads: Any, flags: Any) -> list[bool] | None:
    declared = outputs.owned if isinstance(outputs, OwnedGrads) else None
    if declared is None and not flags:
        return None
    handed = list(declared) if declared is not None else [False] * len(outputs)
    any_hit = declared is not None
    for k, g in enumerate(grads):
        if g is not None and flags and flags[k]:
            hits = [i for i, o in enumerate(outputs) if o is g]
            if len(hits) == 1:
                handed[hits[0]] = True
                any_hit = True
    if not any_hit:
        return None
    for i, o in enumerate(outputs):
        if handed[i] and sum(p is o for p in outputs) > 1:
            handed[i] = False
    return handed


ITEM = st.one_of(st.none(), st.sampled_from(range(3)).map(lambda i: POOL[i]))


@settings(max_examples=budget(500))
@given(st.lists(ITEM, min_size=1, max_size=3), st.lists(ITEM, min_size=1, max_size=3),
       st.one_of(st.none(), st.lists(st.booleans(), min_size=3, max_size=3)),
       st.one_of(st.none(), st.lists(st.booleans(), min_size=3, max_size=3)))
def test_handed_over_follows_the_rule(outs: list[Any], grads: list[Any], flags: Any, declared: Any) -> None:
    flags = None if flags is None else flags[:len(grads)]
    outputs: Any = tuple(outs) if declared is None else OwnedGrads(outs, declared[:len(outs)])
    assert handed_over(outputs, grads, flags) == _rule(outputs, grads, flags)


def test_handed_grads_are_final() -> None:
    a, b = POOL[0], POOL[1]
    out = HandedGrads((a, b), (True, False))
    assert tuple(out) == (a, b) and out.owned == (True, False) and isinstance(out, OwnedGrads)
