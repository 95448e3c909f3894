"""Hypothesis strategy drawing ``Program``s, with PyTorch run alongside so each step's
arguments are drawn against the shapes the program has at that point."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st

from .programs import (
    ERRORS, INPLACE, NEEDS_OTHER, ONE_VALUE, OPS, ORDER_FREE, STEPS, VIEWS, Program, Step, apply_step,
    self_overlapping,
)

# views that can map two indices to one element, drawn more often so that the order-free
# writes through them (whose gradients only finite differences can judge) are common
OVERLAPPING_VIEWS = ["expand", "unfold", "as_strided"]


def _dim(draw: Any, ndim: int) -> int:
    """A dim, occasionally out of range on purpose."""
    if ndim == 0 or draw(st.integers(0, 19)) == 0:
        return draw(st.integers(-ndim - 1, ndim))
    return draw(st.integers(-ndim, ndim - 1))


def _index(draw: Any, shape: tuple[int, ...], advanced: bool) -> tuple[Any, ...]:
    items: list[Any] = []
    for size in shape[: draw(st.integers(0, len(shape)))]:
        kind = draw(st.sampled_from(["slice", "int", "none", "full"] + (["array"] if advanced else [])))
        if kind == "slice":
            items.append(slice(draw(st.integers(-size - 1, size)), draw(st.one_of(st.none(), st.integers(-size, size + 1))), draw(st.integers(1, 3))))
        elif kind == "int" and size:
            items.append(draw(st.integers(-size, size - 1)))
        elif kind == "none":
            items.append(None)
        elif kind == "array" and size:
            items.append(draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=3)))
        else:
            items.append(slice(None))
    if advanced and not any(isinstance(i, list) for i in items) and shape and shape[0]:
        items = [draw(st.lists(st.integers(0, shape[0] - 1), min_size=1, max_size=3))] + items[1:]
    return tuple(items)


def _args(draw: Any, name: str, x: torch.Tensor, storage: int) -> tuple[Any, ...]:
    shape, nd = tuple(x.shape), x.dim()
    size = lambda: draw(st.integers(0, 4))  # noqa: E731
    if name == "narrow":
        d = _dim(draw, nd)
        n = shape[d] if -nd <= d < nd else 2
        return (d, draw(st.integers(-n, n)), draw(st.integers(0, n)))
    if name == "select":
        d = _dim(draw, nd)
        n = shape[d] if -nd <= d < nd else 2
        return (d, draw(st.integers(-n, max(n - 1, 0))))
    if name == "transpose":
        return (_dim(draw, nd), _dim(draw, nd))
    if name == "permute":
        return tuple(draw(st.permutations(range(nd)))) if nd else (0,)
    if name in ("view", "reshape"):
        n = int(np.prod(shape)) if shape else 1
        divisors = [k for k in range(1, n + 1) if n % k == 0] or [1]
        a = draw(st.sampled_from(divisors))
        return draw(st.sampled_from([(n,), (a, -1), (-1, a, 1), (a,)]))
    if name == "expand":
        return tuple(draw(st.sampled_from([3, s])) if s == 1 else s for s in shape) if draw(st.booleans()) else (2,) + shape
    if name == "unsqueeze":
        return (draw(st.integers(-nd - 1, nd)),)
    if name == "diagonal":
        return (draw(st.integers(-2, 2)), _dim(draw, nd), _dim(draw, nd))
    if name == "unfold":
        d = _dim(draw, nd)
        n = shape[d] if nd and -nd <= d < nd else 1
        return (d, draw(st.integers(0, n)), draw(st.integers(1, 3)))
    if name == "as_strided":
        k = draw(st.integers(0, 3))
        sizes = tuple(size() for _ in range(k))
        strides = tuple(draw(st.integers(0, 4)) for _ in range(k))
        return (sizes, strides, draw(st.integers(0, max(storage - 1, 0))))
    if name == "slice":
        return (_index(draw, shape, advanced=False),)
    if name in ("unbind",):
        d = _dim(draw, nd)
        n = shape[d] if nd and -nd <= d < nd else 1
        return (d, draw(st.integers(0, max(n - 1, 0))))
    if name in ("split", "chunk"):
        return (draw(st.integers(1, 3)), _dim(draw, nd), draw(st.integers(0, 1)))
    if name in ("mul_scalar_", "add_scalar_", "fill_"):
        return (draw(st.sampled_from([-1.5, 0.5, 2.0, 3])),)
    if name == "clamp_":
        return (-0.5, draw(st.sampled_from([0.25, 1.0])))
    if name == "setitem_scalar":
        return (_index(draw, shape, advanced=draw(st.booleans())), draw(st.sampled_from([0.0, -2.0, 7.5])))
    if name in ("setitem_tensor", "setitem_one"):
        return (_index(draw, shape, advanced=False),)
    if name == "setitem_advanced":
        return (_index(draw, shape, advanced=True),)
    return ()


def _other_shape(draw: Any, name: str, x: torch.Tensor, args: tuple[Any, ...]) -> tuple[int, ...]:
    """The shape of the extra leaf a step needs: the target's (or a broadcastable one)."""
    if name == "fill_tensor_":
        return ()
    if name in ONE_VALUE:
        return draw(st.sampled_from([(), (1,)]))
    if name in ("setitem_tensor", "setitem_advanced"):
        try:
            target = tuple(x.detach()[args[0]].shape)
        except ERRORS:
            target = (1,)
    else:
        target = tuple(x.shape)
    if target and draw(st.integers(0, 3)) == 0:
        return (1,) * draw(st.integers(0, 1)) + target[1:]  # broadcast along the first dim
    return target


@st.composite
def programs(draw: Any, max_steps: int = 8) -> Program:
    base_shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    program = Program(leaf_data=[rng.standard_normal(base_shape)], base_from=0)
    leaves = [torch.tensor(program.leaf_data[0], requires_grad=True)]
    slots = [leaves[0] * 1.5]
    storage = int(np.prod(base_shape))
    for _ in range(draw(st.integers(1, max_steps))):
        kind = draw(st.sampled_from(["view"] * 9 + ["inplace"] * 8 + ["op"] * 3))
        name = draw(st.sampled_from({"view": VIEWS + OVERLAPPING_VIEWS, "inplace": INPLACE, "op": OPS}[kind]))
        target = draw(st.integers(0, len(slots) - 1))
        overlapping = [i for i, t in enumerate(slots) if self_overlapping(t)]
        if overlapping and draw(st.integers(0, 2)) == 0:  # an order-free write through one
            kind, name, target = "inplace", draw(st.sampled_from(ORDER_FREE)), draw(st.sampled_from(overlapping))
        x = slots[target]
        args = _args(draw, name, x, storage)
        other = None
        if name in NEEDS_OTHER:
            shape = _other_shape(draw, name, x, args)
            program.leaf_data.append(rng.standard_normal(shape))
            leaves.append(torch.tensor(program.leaf_data[-1], requires_grad=True))
            other = len(leaves) - 1
        step = Step(kind, name, target, args, other)
        program.steps.append(step)
        try:
            apply_step(torch, step, slots, leaves)
        except ERRORS:
            break
    program.coefs = [draw(st.sampled_from([1.0, -0.5, 2.0, 0.25])) for _ in range(len(program.steps) + 1)]
    return program
