"""Post-accumulate-grad hooks (``Tensor.register_post_accumulate_grad_hook``): hooks of a
leaf that run after a backward pass accumulated into its ``.grad``, with the leaf.

PyTorch keeps them on the tensor. jitgrad's tensors have fixed slots, so they live here, by
the leaf's id with a weak reference to it (a dict by id keeps ``==``, elementwise on
tensors, out of the lookup); an entry goes with its leaf."""

from __future__ import annotations

import weakref
from typing import Any

from ..tensor import Tensor
from .hook_results import typename

HOOKS: dict[int, tuple[weakref.ref[Tensor], dict[int, Any]]] = {}


def hooks_of(t: Tensor) -> dict[int, Any]:
    """The hook dict of leaf ``t`` (made on first use), for ``add_hook``."""
    key = id(t)
    entry = HOOKS.get(key)
    if entry is None or entry[0]() is not t:
        entry = (weakref.ref(t, lambda _, key=key: HOOKS.pop(key, None)), {})
        HOOKS[key] = entry
    return entry[1]


def run(t: Tensor) -> None:
    """Call ``t``'s hooks (after its ``.grad`` was accumulated); each must return None."""
    entry = HOOKS.get(id(t))
    if entry is None or entry[0]() is not t:
        return
    for hook in list(entry[1].values()):
        result = hook(t)
        if result is not None:
            if not isinstance(result, Tensor):
                raise TypeError(f"expected Variable, but hook returned {typename(result)!r}")
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")
