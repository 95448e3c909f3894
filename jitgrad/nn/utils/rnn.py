"""``jitgrad.nn.utils.rnn``: batching sequences of different lengths (``pad_sequence``)."""

from __future__ import annotations

from typing import Sequence

from ... import creation
from ...ops.stacking import cat, stack
from ...tensor import Tensor

__all__ = ["pad_sequence"]


def pad_sequence(sequences: Tensor | Sequence[Tensor], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of shape ``(L_i, *)`` into ``(L_max, B, *)`` (``(B, L_max, *)`` with
    ``batch_first``), filling with ``padding_value`` after each (before, with
    ``padding_side="left"``). Differentiable in the sequences."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    seqs = list(sequences.unbind(0) if isinstance(sequences, Tensor) else sequences)  # type: ignore[attr-defined]
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in seqs)
    padded = []
    for s in seqs:
        missing = longest - s.shape[0]
        if missing:
            fill = creation.full((missing,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype)
            s = cat([s, fill] if padding_side == "right" else [fill, s], 0)
        padded.append(s)
    return stack(padded, 0 if batch_first else 1)
