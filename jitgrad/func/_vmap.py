"""``vmap``: ``func`` mapped over a dimension of its inputs. jitgrad runs ``func`` once per
index of the mapped dimension, on views of the inputs (``select``), and stacks the results;
what each call records is ordinary autograd history, so ``vmap`` composes with ``grad``,
``jacrev`` and ``backward``. The results equal PyTorch's batched ones; the cost is one call
per index (PyTorch runs the batch at once). A mapped dimension of size 0 is refused (there
is no call to learn the outputs' structure from)."""

from __future__ import annotations

import functools
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from .. import randomness as _randomness
from .. import rng_state
from ..ops.closeness import equal
from ..ops.stacking import stack
from ..tensor import Tensor
from . import _pytree

_RANDOMNESS = ("error", "different", "same")


def vmap(func: Callable[..., Any], in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable[..., Any]:
    """``vmap(f, in_dims, out_dims)(*args)``: ``f`` applied to each slice of the inputs along
    their ``in_dims`` (None: not mapped), results stacked along ``out_dims``."""
    if randomness not in _RANDOMNESS:
        raise RuntimeError(
            f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}"
        )
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        where = f"vmap({_name(func)}, in_dims={in_dims!r}, ...)(<inputs>)"
        if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
            raise ValueError(
                f"{where}: expected `in_dims` to be int or a (potentially nested) tuple matching "
                f"the structure of inputs, got: {type(in_dims)}."
            )
        if not args:
            raise ValueError(
                f"{where}: got no inputs. Maybe you forgot to add inputs, or you are trying to "
                "vmap over a function with no inputs. The latter is unsupported."
            )
        if isinstance(in_dims, tuple) and len(in_dims) != len(args):
            raise ValueError(
                f"{where}: in_dims is not compatible with the structure of `inputs`: in_dims has "
                f"{len(in_dims)} entries but there are {len(args)} inputs."
            )
        leaves, spec = _pytree.tree_flatten(args)
        dims = _pytree.broadcast_prefix(in_dims, args, "in_dims")
        size = _batch_size(leaves, dims, where)
        outputs = []
        # ``same``: every call starts from the generator's state (and leaves it as one call does)
        start = rng_state.get_rng_state() if randomness == "same" else None
        with _random_mode(randomness):
            for i in range(size):
                if start is not None and i:
                    rng_state.set_rng_state(start)
                sliced = [x if d is None else x.select(d, i) for x, d in zip(leaves, dims)]
                outputs.append(func(*_pytree.tree_unflatten(sliced, spec), **kwargs))
        return _stack_outputs(outputs, out_dims, func)
    return wrapped


def _name(func: Callable[..., Any]) -> str:
    return getattr(func, "__name__", type(func).__name__)


def _batch_size(leaves: list[Any], dims: list[Any], where: str) -> int:
    sizes = []
    for x, d in zip(leaves, dims):
        if d is None:
            continue
        if not isinstance(x, Tensor):
            raise ValueError(
                f"{where}: Got in_dim={d} for an input but the input is of type {type(x)}. We "
                "cannot vmap over non-Tensor arguments, please use None as the respective in_dim"
            )
        ndim = x.dim()  # type: ignore[attr-defined]
        if not -ndim <= d < ndim:
            raise ValueError(
                f"{where}: Got in_dim={d} for some input, but that input is a Tensor of "
                f"dimensionality {ndim} so expected in_dim to satisfy -{ndim} <= in_dim < {ndim}."
            )
        sizes.append(x.shape[d])
    if not sizes:
        raise ValueError(
            f"{where}: at least one input must be mapped over (got in_dims=None for every input)"
        )
    if len(set(sizes)) > 1:
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
            f"{sizes} for the mapped dimension"
        )
    if sizes[0] == 0:
        raise ValueError(
            f"{where}: the mapped dimension has size 0: jitgrad runs the function once per index "
            "and cannot learn its outputs without a call (PyTorch runs it once on the empty batch)"
        )
    return sizes[0]


@contextmanager
def _random_mode(randomness: str) -> Iterator[None]:
    """Random ops raise under ``randomness="error"`` (PyTorch's default)."""
    if randomness != "error":
        yield
        return

    def refuse() -> None:
        raise RuntimeError(
            "vmap: called random operation while in randomness error mode. Please either use "
            "the 'same' or 'different' randomness flags on vmap or perform the randomness "
            "operation out of vmap"
        )
    _randomness.GUARDS.append(refuse)
    try:
        yield
    finally:
        _randomness.GUARDS.remove(refuse)


def _stack_outputs(outputs: list[Any], out_dims: Any, func: Callable[..., Any]) -> Any:
    flat = [_pytree.tree_flatten(o) for o in outputs]
    leaves0, spec = flat[0]
    for leaves, s in flat:
        if s != spec:
            raise ValueError(
                f"vmap({_name(func)}, ...): the function returned outputs of different structures "
                "for different indices of the mapped dimension"
            )
        for leaf in leaves:
            if not isinstance(leaf, Tensor):
                raise ValueError(
                    f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
                    f"{type(leaf)}. Did you mean to set out_dims= to None for output?"
                )
    dims = _pytree.broadcast_prefix(out_dims, outputs[0], "out_dims")
    stacked = []
    for k, d in enumerate(dims):
        column = [leaves[k] for leaves, _ in flat]
        if d is None:
            if not all(equal(column[0], c) for c in column[1:]):
                raise ValueError(
                    f"vmap({_name(func)}, ..., out_dims=None): an output with out_dim None must "
                    "be the same for every index of the mapped dimension; this one is not"
                )
            stacked.append(column[0])
            continue
        ndim = column[0].dim() + 1  # type: ignore[attr-defined]
        if not isinstance(d, int) or not -ndim <= d < ndim:
            raise ValueError(
                f"vmap({_name(func)}, ...): `out_dims` of {d!r} for an output of {ndim - 1} dims: "
                f"expected an int in [{-ndim}, {ndim})"
            )
        stacked.append(stack(column, dim=d))
    return _pytree.tree_unflatten(stacked, spec)
