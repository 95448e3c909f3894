"""``default_collate`` (a list of samples -> one batch: tensors stacked along a new first
dimension, numbers and NumPy arrays made tensors, strings left as lists, and the same done
inside dicts, namedtuples and sequences) and ``default_convert`` (one sample: NumPy arrays
made tensors, the rest left alone), as ``torch.utils.data``'s.

The batch's first element decides how the whole batch is collated; ``default_collate_fn_map``
maps element types to the functions that collate them (looked up by exact type, then by
``isinstance`` in order), and may be extended as PyTorch's.
"""

from __future__ import annotations

import collections.abc
import copy
import re
from typing import Any, Callable

import numpy as np

from ...creation import as_tensor, tensor
from ...dtypes import float64
from ...ops.stacking import stack
from ...tensor import Tensor

_STRINGS_OR_OBJECTS = re.compile(r"[SaUO]")  # NumPy dtype codes no tensor can hold
_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"

CollateMap = dict[type | tuple[type, ...], Callable[..., Any]]


def _holds_text(array: np.ndarray) -> bool:
    return _STRINGS_OR_OBJECTS.search(array.dtype.str) is not None


def collate_tensor_fn(batch: list[Tensor], *, collate_fn_map: CollateMap | None = None) -> Tensor:
    return stack(batch, 0)


def collate_numpy_array_fn(batch: list[np.ndarray], *, collate_fn_map: CollateMap | None = None) -> Any:
    if _holds_text(batch[0]):
        raise TypeError(_ERROR.format(batch[0].dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch: list[Any], *, collate_fn_map: CollateMap | None = None) -> Tensor:
    return as_tensor(batch)


def collate_float_fn(batch: list[float], *, collate_fn_map: CollateMap | None = None) -> Tensor:
    return tensor(batch, dtype=float64)


def collate_int_fn(batch: list[int], *, collate_fn_map: CollateMap | None = None) -> Tensor:
    return tensor(batch)  # bools (ints to isinstance) give a bool tensor


def collate_str_fn(batch: list[Any], *, collate_fn_map: CollateMap | None = None) -> list[Any]:
    return batch


default_collate_fn_map: CollateMap = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def _rebuild(like: Any, items: dict[Any, Any] | list[Any]) -> Any:
    """``items`` in a container of ``like``'s type when that type can be built or copied,
    else a plain dict or list."""
    kind = type(like)
    try:
        if isinstance(like, collections.abc.MutableMapping) or isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            if isinstance(items, dict):
                clone.update(items)
            else:
                for i, item in enumerate(items):
                    clone[i] = item
            return clone
        return kind(items)
    except TypeError:
        return items


def collate(batch: list[Any], *, collate_fn_map: CollateMap | None = None) -> Any:
    """Collate ``batch`` by its first element's type: ``collate_fn_map`` first, then mappings
    (key by key), namedtuples and sequences (position by position; tuples give a list)."""
    first = batch[0]
    if collate_fn_map is not None:
        if type(first) in collate_fn_map:
            return collate_fn_map[type(first)](batch, collate_fn_map=collate_fn_map)
        for kind, fn in collate_fn_map.items():
            if isinstance(first, kind):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(first, collections.abc.Mapping):
        return _rebuild(first, {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in first})
    if isinstance(first, tuple) and hasattr(first, "_fields"):  # a namedtuple
        return type(first)(*(collate(list(column), collate_fn_map=collate_fn_map) for column in zip(*batch)))
    if isinstance(first, collections.abc.Sequence):
        if any(len(sample) != len(first) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(list(column), collate_fn_map=collate_fn_map) for column in zip(*batch)]
        return columns if isinstance(first, tuple) else _rebuild(first, columns)
    raise TypeError(_ERROR.format(type(first)))


def default_collate(batch: list[Any]) -> Any:
    """One batch from a list of samples (see the module docstring)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)


def default_convert(data: Any) -> Any:
    """One sample with its NumPy arrays and scalars made tensors (inside mappings, namedtuples
    and sequences too; a tuple becomes a list); anything else unchanged."""
    kind = type(data)
    if isinstance(data, Tensor):
        return data
    if kind.__module__ == "numpy" and kind.__name__ not in ("str_", "bytes_"):
        return data if isinstance(data, np.ndarray) and _holds_text(data) else as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return kind(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, [default_convert(d) for d in data])
    return data
