"""Broadcasting and shape inference, with PyTorch's rules and error wording."""

from __future__ import annotations

from typing import Sequence

from .strided import as_int


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The shape all ``shapes`` broadcast to (NumPy/PyTorch rules)."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for shape in shapes:
        for i, size in enumerate(shape, start=ndim - len(shape)):
            if size == out[i] or size == 1:
                continue
            if out[i] == 1:
                out[i] = size
            else:
                raise RuntimeError(
                    f"The size of tensor a ({out[i]}) must match the size of tensor b ({size}) "
                    f"at non-singleton dimension {i}"
                )
    return tuple(out)


def infer_size(op: str, shape: Sequence[int], total: int) -> tuple[int, ...]:
    """Replace a single ``-1`` in ``shape`` so that it holds ``total`` elements."""
    infer = None
    known = 1
    out = list(shape)
    for i, s in enumerate(out):
        if s.__class__ is not int:  # (NumPy integers become ints; None, floats, bools are refused)
            s = out[i] = as_int(op, "shape", s)
        if s == -1:
            if infer is not None:
                raise RuntimeError(f"{op}: only one dimension can be inferred, got shape {list(shape)}")
            infer = i
        elif s < 0:
            raise RuntimeError(f"{op}: invalid shape dimension {s} in shape {list(shape)}")
        else:
            known *= s
    if infer is not None:
        if known == 0:
            raise RuntimeError(
                f"{op}: cannot reshape tensor of {total} elements into shape {list(shape)} because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        if total % known == 0:
            out[infer] = total // known
            return tuple(out)
    elif known == total:
        return tuple(out)
    raise RuntimeError(f"{op}: shape '{list(shape)}' is invalid for input of size {total}")


def check_broadcastable_to(op: str, shape: Sequence[int], target: Sequence[int]) -> None:
    """Check ``shape`` broadcasts to exactly ``target`` (an in-place destination never resizes)."""
    fits = shape == target or len(shape) <= len(target) and all(
        s == 1 or s == t for s, t in zip(reversed(shape), reversed(target))
    )
    if not fits:
        raise RuntimeError(
            f"{op}: the source's shape {list(shape)} cannot be broadcast to the destination's "
            f"shape {list(target)}"
        )
