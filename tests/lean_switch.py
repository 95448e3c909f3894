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
