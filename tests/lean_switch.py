"""Switching a lean path off, or counting the calls it takes, for the tests that run one
program on the lean path, on the general path and in PyTorch (test_plain_writes.py,
test_lean_inplace.py, test_row_writes.py)."""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

import jitgrad
from jitgrad.autograd.view_mode import view_replay


@contextlib.contextmanager
def replaced(owner: Any, name: str, stand_in: Callable[..., Any]) -> Iterator[None]:
    lean = getattr(owner, name)
    setattr(owner, name, stand_in)
    try:
        yield
    finally:
        setattr(owner, name, lean)


def declined(owner: Any, name: str, answer: Any) -> contextlib.AbstractContextManager[None]:
    """The lean path ``owner.name`` declines every call (returns ``answer``): the general
    path runs."""
    return replaced(owner, name, lambda *args: answer)


def counted(owner: Any, name: str, counter: list[int],
            taken: Callable[[Any], bool]) -> contextlib.AbstractContextManager[None]:
    """``counter[0]`` counts the calls of ``owner.name`` whose result says ``taken``."""
    lean = getattr(owner, name)

    def spy(*args: Any) -> Any:
        out = lean(*args)
        counter[0] += taken(out)
        return out

    return replaced(owner, name, spy)


def lean_and_general(
    run: Callable[[Any, dict[str, Any]], Any], program: dict[str, Any],
    general: Callable[[], contextlib.AbstractContextManager[None]],
) -> tuple[Any, Any]:
    """``run(jitgrad, program)`` in the program's view mode, as it is (lean paths on) and
    inside ``general()`` (a lean path declined)."""
    with view_replay(program["replay"]):
        lean = run(jitgrad, program)
    with view_replay(program["replay"]), general():
        return lean, run(jitgrad, program)


def node_slots(node: Any) -> dict[str, Any]:
    """Every slot of ``node`` (its class's and Node's) and its ``__dict__``: a slot the lean
    path forgets to set raises here, one it sets differently shows in the comparison."""
    out: dict[str, Any] = {"__class__": type(node).__name__,  # (hooks by key: closures differ)
                           "__dict__": {k: sorted(v) if isinstance(v, dict) else v
                                        for k, v in node.__dict__.items()}}
    # (the edges' nodes by type, through ``_next``: the inline slots behind it may be unset
    # on one path and None on the other, as ``Node._next`` allows)
    out["_next"] = tuple(type(f).__name__ for f in node._next)
    for klass in type(node).__mro__:
        for name in getattr(klass, "__slots__", ()):
            if name in ("__weakref__", "__dict__", "_n0", "_n1", "_nx"):
                continue
            value = getattr(node, name)
            if name == "fn":
                value = node_slots(value)
            elif name == "sequence_nr":
                continue  # (numbers differ from run to run: compare differences)
            out[name] = value
    return out
