"""``jitgrad.nn.utils.rnn``: batching sequences of different lengths, padded
(``pad_sequence``) or packed (``PackedSequence``, which ``RNN``/``LSTM``/``GRU`` accept).

A packed batch holds the sequences sorted by decreasing length, time step after time step:
``data`` stacks, for each step ``t``, the ``batch_sizes[t]`` sequences still running
(PyTorch's layout). Everything is composed from differentiable ops.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import numpy as np

from ... import creation, dtypes
from ...ops.stacking import cat, stack
from ...tensor import Tensor

__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence", "pack_sequence",
           "unpad_sequence", "unpack_sequence"]


def _index(values: Sequence[int] | np.ndarray) -> Tensor:
    return creation.tensor(np.asarray(values, dtype=np.int64))


def _inverse(permutation: Tensor | None) -> Tensor | None:
    if permutation is None:
        return None
    order = permutation.numpy()
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size)
    return _index(inverse)


class _PackedFields(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(_PackedFields):
    """``(data, batch_sizes, sorted_indices, unsorted_indices)``: made by
    ``pack_padded_sequence``/``pack_sequence``, read back by ``pad_packed_sequence``."""

    def __new__(cls, data: Tensor, batch_sizes: Tensor | None = None, sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None) -> PackedSequence:
        if unsorted_indices is None:
            unsorted_indices = _inverse(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)  # type: ignore[arg-type]

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        data = self.data.to(*args, **kwargs)  # type: ignore[attr-defined]
        return self if data is self.data else type(self)(data, *self[1:])

    def double(self) -> PackedSequence:
        return self.to(dtypes.float64)

    def float(self) -> PackedSequence:
        return self.to(dtypes.float32)

    @property
    def is_cuda(self) -> bool:
        return False


def pad_sequence(sequences: Tensor | Sequence[Tensor], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of shape ``(L_i, *)`` into ``(L_max, B, *)`` (``(B, L_max, *)`` with
    ``batch_first``), filling with ``padding_value`` after each (before, with
    ``padding_side="left"``)."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    seqs = list(sequences.unbind(0) if isinstance(sequences, Tensor) else sequences)  # type: ignore[attr-defined]
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in seqs)
    padded = [_pad_to(s, longest, padding_value, padding_side == "left") for s in seqs]
    return stack(padded, 0 if batch_first else 1)


def _pad_to(t: Tensor, size: int, value: float, before: bool = False) -> Tensor:
    """``t`` with rows of ``value`` added (after, or ``before``) up to ``size`` rows."""
    missing = size - t.shape[0]
    if not missing:
        return t
    fill = creation.full((missing,) + tuple(t.shape[1:]), value, dtype=t.dtype)
    return cat([fill, t] if before else [t, fill], 0)


def _lengths(lengths: Any) -> np.ndarray:
    return np.asarray(lengths.numpy() if isinstance(lengths, Tensor) else lengths, dtype=np.int64).reshape(-1)


def pack_padded_sequence(input: Tensor, lengths: Any, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) whose sequence
    ``b`` has ``lengths[b]`` steps; with ``enforce_sorted=False`` the lengths may come in
    any order (the batch is sorted, and the order kept to restore it)."""
    n = _lengths(lengths)
    batch = input.shape[0 if batch_first else 1]
    if n.size != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {n.size} (batch_size={batch})")
    sorted_indices = None
    if enforce_sorted:
        if np.any(n[1:] > n[:-1]):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                "if you do not need ONNX exportability.")
    else:
        order = np.argsort(-n, kind="stable")
        n = n[order]
        sorted_indices = _index(order)
        input = input.index_select(0 if batch_first else 1, sorted_indices)  # type: ignore[attr-defined]
    if n.size and n.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    steps = input.shape[1 if batch_first else 0]
    if n.size and n.max() > steps:
        raise RuntimeError(f"pack_padded_sequence: a length ({n.max()}) exceeds the padded sequence length ({steps})")
    time_major = input.transpose(0, 1) if batch_first else input  # type: ignore[attr-defined]
    batch_sizes = [int((n > t).sum()) for t in range(int(n.max()) if n.size else 0)]
    data = cat([time_major[t, :b] for t, b in enumerate(batch_sizes)], 0)
    return PackedSequence(data, _index(batch_sizes), sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """The padded batch and the lengths (in the original batch order) of a packed batch."""
    sizes = [int(b) for b in sequence.batch_sizes.numpy()]
    if total_length is not None and total_length < len(sizes):
        raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                         f"got total_length={total_length} and max sequence length being {len(sizes)}")
    steps = sequence.data.split(sizes, 0)  # type: ignore[attr-defined]
    padded = stack([_pad_to(s, sizes[0], padding_value) for s in steps], 0)
    padded = _pad_to(padded, total_length or len(sizes), padding_value)
    lengths = (np.asarray(sizes)[None, :] > np.arange(sizes[0])[:, None]).sum(1)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)  # type: ignore[attr-defined]
        lengths = lengths[sequence.unsorted_indices.numpy()]
    return (padded.transpose(0, 1) if batch_first else padded), _index(lengths)  # type: ignore[attr-defined]


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences ``(L_i, *)``."""
    return pack_padded_sequence(pad_sequence(sequences), [s.shape[0] for s in sequences],
                                enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences: Tensor, lengths: Any, batch_first: bool = False) -> list[Tensor]:
    """The list of sequences, each cut to its length, of a padded batch."""
    batch_major = padded_sequences if batch_first else padded_sequences.transpose(0, 1)  # type: ignore[attr-defined]
    return [batch_major[b, :n] for b, n in enumerate(_lengths(lengths).tolist())]


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences of a packed batch, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
