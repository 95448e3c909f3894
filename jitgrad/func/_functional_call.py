"""``functional_call``: a module called with some of its parameters and buffers replaced by
given tensors, for that call only (PyTorch's ``torch.func.functional_call``)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

_MISSING = object()


def functional_call(module: Any, parameter_and_buffer_dicts: Any, args: Any = None, kwargs: Any = None,
                    *, tie_weights: bool = True, strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` (a dict
    of dotted names, or a tuple/list of such dicts with distinct keys) in place of the
    module's; with ``tie_weights``, a parameter shared under several names is replaced under
    all of them."""
    if isinstance(parameter_and_buffer_dicts, dict):
        replacements = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, (tuple, list)):
        replacements = {}
        for d in parameter_and_buffer_dicts:
            for key in d:
                if key in replacements:
                    raise ValueError(
                        f"{key} appeared in multiple dictionaries; behavior of functional call is ambiguous"
                    )
            replacements.update(d)
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
            f"{type(parameter_and_buffer_dicts)}"
        )
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrized(module, replacements, tie_weights, strict):
        return module(*args, **(kwargs or {}))


@contextmanager
def _reparametrized(module: Any, replacements: dict[str, Any], tie_weights: bool, strict: bool) -> Iterator[None]:
    names = dict(replacements)
    if tie_weights:  # every name of a shared parameter/buffer gets its replacement
        by_id: dict[int, list[str]] = {}
        for name, t in _named_tensors(module):
            by_id.setdefault(id(t), []).append(name)
        for group in by_id.values():
            given = [n for n in group if n in replacements]
            if len({id(replacements[n]) for n in given}) > 1:
                raise ValueError(
                    f"functional_call got multiple values for keys {given}, which are tied. "
                    "Consider using tie_weights=False"
                )
            for n in group:
                if given and n not in names:
                    names[n] = replacements[given[0]]
    if strict:
        known = {name for name, _ in _named_tensors(module)}
        missing = sorted(known - set(names))
        unexpected = sorted(set(names) - known)
        if missing or unexpected:
            parts = []
            if unexpected:
                parts.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
            if missing:
                parts.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
            raise RuntimeError(
                f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(parts)
            )
    saved = []
    try:
        for name, tensor in names.items():
            owner, leaf = _owner(module, name)
            saved.append((owner, leaf, _swap(owner, leaf, tensor)))
        yield
    finally:
        for owner, leaf, old in reversed(saved):
            _swap(owner, leaf, old)


def _named_tensors(module: Any) -> Iterator[tuple[str, Any]]:
    yield from module.named_parameters(remove_duplicate=False)
    yield from module.named_buffers(remove_duplicate=False)


def _owner(module: Any, name: str) -> tuple[Any, str]:
    *path, leaf = name.split(".")
    owner = module
    for part in path:
        owner = getattr(owner, part)
    return owner, leaf


def _swap(owner: Any, leaf: str, value: Any) -> Any:
    """Put ``value`` under ``leaf`` (a parameter's or buffer's slot, else a plain attribute;
    ``_MISSING`` removes it); return what was there."""
    for registry in (owner._parameters, owner._buffers):
        if leaf in registry:
            old = registry[leaf]
            if value is _MISSING:
                del registry[leaf]
            else:
                registry[leaf] = value
            return old
    old = owner.__dict__.get(leaf, _MISSING)
    if value is _MISSING:
        owner.__dict__.pop(leaf, None)
    else:
        object.__setattr__(owner, leaf, value)
    return old
