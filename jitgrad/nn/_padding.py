"""``F.pad``: constant, reflect, replicate and circular padding of the last ``len(pad) // 2``
dims, with PyTorch's nodes and messages.

* constant: ``ConstantPadNdBackward0``; its backward is ``pad`` of the gradient by the
  negated amounts (a negative pad crops), so it is differentiable again.
* reflect / replicate: a gather of source positions along each padded dim
  (``ReflectionPad{1,2,3}DBackward0`` / ``ReplicationPad...``); the backward adds the
  gradient back at those positions (``index_add``, dim by dim in reverse).
* circular: PyTorch's composition (negative amounts crop first; a new tensor, the input
  copied into its middle, then each padded dim's edges copied from the opposite side), hence
  its chain of ``CopySlices``.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import creation
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node
from ..ops.gather_scatter import index_add
from ..ops.operands import array_of, from_result
from ..tensor import Tensor

_SUPPORTED = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)

Pairs = list[tuple[int, int, int]]  # (dim, before, after)


class ConstantPadNdBackward0(Node):
    def __init__(self, pad: list[int]) -> None:
        super().__init__()
        self.pad = pad

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (constant_pad(grads[0], [-p for p in self.pad], 0.0),)  # type: ignore[arg-type]


def constant_pad(input: Tensor, pad: list[int], value: Any) -> Tensor:
    pairs = _pairs(input, pad)
    x = array_of(input)
    crop: list[Any] = [slice(None)] * input.ndim
    region: list[Any] = [slice(None)] * input.ndim
    sizes = list(x.shape)
    for dim, before, after in pairs:
        size = sizes[dim] + before + after
        if sizes[dim] - max(-before, 0) - max(-after, 0) < 0:  # (negative amounts crop first)
            raise RuntimeError("narrow(): length must be non-negative.")
        crop[dim] = slice(max(-before, 0), sizes[dim] - max(-after, 0))
        region[dim] = slice(max(before, 0), max(before, 0) + max(sizes[dim] - max(-before, 0) - max(-after, 0), 0))
        sizes[dim] = size
    values = np.full(sizes, value, dtype=x.dtype)
    if values.size:
        values[tuple(region)] = x[tuple(crop)]
    out = from_result(values, input.dtype)
    if needs_grad(input):
        record(ConstantPadNdBackward0(list(pad)), (input,), (out,))
    return out


# --- reflect / replicate --------------------------------------------------------------------

def source_positions(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """The input position each padded position along one dim of length ``n`` reads."""
    i = np.arange(-before, n + after)
    if mode == "replicate":
        return np.clip(i, 0, n - 1)
    period = 2 * (n - 1)
    j = np.abs(i) % period if period else np.zeros_like(i)
    return np.where(j >= n, period - j, j)


class _GatherPadBackward(Node):
    def __init__(self, steps: list[tuple[int, np.ndarray, int]]) -> None:
        super().__init__()
        self.steps = steps  # (dim, source positions, input length) in forward order

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        for dim, index, n in reversed(self.steps):
            sizes = list(g.shape)  # type: ignore[union-attr]
            sizes[dim] = n
            g = index_add(creation.zeros(sizes, dtype=g.dtype), dim, from_result(index), g)  # type: ignore[union-attr]
        return (g,)


class ReflectionPad1DBackward0(_GatherPadBackward):
    pass


class ReflectionPad2DBackward0(_GatherPadBackward):
    pass


class ReflectionPad3DBackward0(_GatherPadBackward):
    pass


class ReplicationPad1DBackward0(_GatherPadBackward):
    pass


class ReplicationPad2DBackward0(_GatherPadBackward):
    pass


class ReplicationPad3DBackward0(_GatherPadBackward):
    pass


_GATHER_NODES: dict[tuple[str, int], type[_GatherPadBackward]] = {
    ("reflect", 1): ReflectionPad1DBackward0, ("reflect", 2): ReflectionPad2DBackward0,
    ("reflect", 3): ReflectionPad3DBackward0, ("replicate", 1): ReplicationPad1DBackward0,
    ("replicate", 2): ReplicationPad2DBackward0, ("replicate", 3): ReplicationPad3DBackward0,
}


def gather_pad(input: Tensor, pairs: Pairs, mode: str) -> Tensor:
    x = array_of(input)
    steps = []
    for dim, before, after in pairs:
        index = source_positions(x.shape[dim], before, after, mode)
        steps.append((dim, index, x.shape[dim]))
        x = np.take(x, index, axis=dim)
    out = from_result(x, input.dtype)
    if needs_grad(input):
        record(_GATHER_NODES[mode, len(pairs)](steps), (input,), (out,))
    return out


def circular_pad(input: Tensor, pairs: Pairs) -> Tensor:
    for dim, before, after in pairs:  # negative amounts crop first; the rest wraps what is left
        if before < 0 or after < 0:
            start = max(-before, 0)
            input = input.narrow(dim, start, input.shape[dim] - start - max(-after, 0))  # type: ignore[attr-defined]
    pairs = [(dim, max(before, 0), max(after, 0)) for dim, before, after in pairs]
    sizes = list(input.shape)
    middle: list[Any] = [slice(None)] * input.ndim
    for dim, before, after in pairs:
        middle[dim] = slice(before, before + sizes[dim])
        sizes[dim] += before + after
    out = creation.zeros(sizes, dtype=input.dtype)
    out[tuple(middle)] = input
    for dim, before, after in reversed(pairs):  # (PyTorch's order: the first padded dim first)
        n = sizes[dim] - before - after
        if before:
            out.narrow(dim, 0, before).copy_(out.narrow(dim, n, before))  # type: ignore[attr-defined]
        if after:
            out.narrow(dim, sizes[dim] - after, after).copy_(out.narrow(dim, before, after))  # type: ignore[attr-defined]
    return out


def _check_output_size(input: Tensor, pairs: Pairs, mode: str) -> None:
    """Reflect/replicate refuse an output empty in every padded dim (a 1-d one: empty)."""
    sizes = [input.shape[dim] for dim, _, _ in reversed(pairs)]
    outs = [input.shape[dim] + b + a for dim, b, a in reversed(pairs)]
    if any(o >= 1 for o in outs):
        return
    if len(pairs) == 1:
        given, got = f"W: {sizes[0]}", f"W: {outs[0]}"
    elif len(pairs) == 2:
        given = f"H: {sizes[0]}, W: {sizes[1]}" + (" " if mode == "replicate" else "")
        got = f"H: {outs[0]} W: {outs[1]}"
    else:
        given, got = f"D: {sizes[0]} H: {sizes[1]}, W: {sizes[2]}", f"D: {outs[0]} H: {outs[1]} W: {outs[2]}"
    raise RuntimeError(f"input ({given}) is too small. Calculated output {got}")


# --- F.pad ----------------------------------------------------------------------------------

def _pairs(input: Tensor, pad: Sequence[int]) -> Pairs:
    return [(input.ndim - 1 - k, int(pad[2 * k]), int(pad[2 * k + 1])) for k in range(len(pad) // 2)]


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dims; ``pad`` lists (before, after) from the last dim
    backwards. Modes: constant (negative pads crop), reflect, replicate, circular."""
    pad = [int(p) for p in pad]
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(
            f"Padding length should be less than or equal to two times the input dimension but got padding "
            f"length {len(pad)} and input of dimension {input.ndim}"
        )
    if mode == "constant":
        return constant_pad(input, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    k = len(pad) // 2
    if k not in (1, 2, 3) or input.ndim not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
                                  + _SUPPORTED)
    pairs = _pairs(input, pad)
    if mode == "circular":
        for dim, before, after in pairs:
            if before > input.shape[dim] or after > input.shape[dim]:
                raise RuntimeError("Padding value causes wrapping around more than once.")
        return circular_pad(input, pairs)
    _check_output_size(input, pairs, mode)
    for k, (dim, before, after) in enumerate(pairs):
        if mode == "reflect" and (before >= input.shape[dim] or after >= input.shape[dim]):
            raise RuntimeError(
                f"Argument #{4 + 2 * k}: Padding size should be less than the corresponding input dimension, but got: "
                f"padding ({before}, {after}) at dimension {dim} of input {list(input.shape)}"
            )
        if mode == "replicate" and input.shape[dim] == 0:
            raise RuntimeError(f"Expected the padded dimension {dim} to be non-empty, got input "
                               f"{list(input.shape)}")
    return gather_pad(input, pairs, mode)
