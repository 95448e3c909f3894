"""The nested containers ``jitgrad.func`` takes and returns (PyTorch's pytrees): tuples,
lists and dicts of leaves, flattened in order and rebuilt with the same structure."""

from __future__ import annotations

from typing import Any, Callable

Spec = Any  # ("tuple" | "list" | "dict" | "leaf", children specs / keys)


def tree_flatten(tree: Any) -> tuple[list[Any], Spec]:
    """The leaves of ``tree`` in order and a spec ``tree_unflatten`` rebuilds it from."""
    leaves: list[Any] = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree: Any, leaves: list[Any]) -> Spec:
    if isinstance(tree, (tuple, list)) and not hasattr(tree, "_fields"):
        return (type(tree).__name__, [_flatten(item, leaves) for item in tree])
    if isinstance(tree, dict):
        return ("dict", list(tree.keys()), [_flatten(tree[k], leaves) for k in tree])
    leaves.append(tree)
    return ("leaf",)


def tree_unflatten(leaves: list[Any], spec: Spec) -> Any:
    it = iter(leaves)
    return _unflatten(it, spec)


def _unflatten(it: Any, spec: Spec) -> Any:
    kind = spec[0]
    if kind == "leaf":
        return next(it)
    if kind == "dict":
        return {k: _unflatten(it, child) for k, child in zip(spec[1], spec[2])}
    items = [_unflatten(it, child) for child in spec[1]]
    return tuple(items) if kind == "tuple" else items


def tree_map(fn: Callable[[Any], Any], tree: Any) -> Any:
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(leaf) for leaf in leaves], spec)


def broadcast_prefix(prefix: Any, tree: Any, what: str) -> list[Any]:
    """``prefix`` (an ``in_dims``/``out_dims`` value: one for a whole subtree, or a tree of
    the same structure) given to every leaf of ``tree``."""
    out: list[Any] = []
    _broadcast(prefix, tree, out, what)
    return out


def _broadcast(prefix: Any, tree: Any, out: list[Any], what: str) -> None:
    if prefix is None or isinstance(prefix, int):
        out.extend([prefix] * len(tree_flatten(tree)[0]))
        return
    if isinstance(prefix, (tuple, list)) and isinstance(tree, (tuple, list)) and len(prefix) == len(tree):
        for p, t in zip(prefix, tree):
            _broadcast(p, t, out, what)
        return
    if isinstance(prefix, dict) and isinstance(tree, dict) and prefix.keys() == tree.keys():
        for k in tree:
            _broadcast(prefix[k], tree[k], out, what)
        return
    raise ValueError(
        f"vmap: {what} is not compatible with the structure of the inputs/outputs: got "
        f"{what}={prefix!r} for {type(tree).__name__} of {len(tree_flatten(tree)[0])} leaves "
        "(expected an int, None, or a tuple/list/dict matching that structure)"
    )
