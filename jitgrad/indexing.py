"""``__getitem__`` and ``__setitem__``, with PyTorch's indexing rules.

Basic indices (ints, positive-step slices, ``None``, ``...``) make a view; advanced ones
(integer arrays/lists/tensors, boolean masks) make a copy on read and scatter on write.
As in PyTorch (``applySlicing``), the basic parts are applied first as a view and the
advanced parts then index that view, so an int next to an advanced index selects (NumPy
would broadcast it with the advanced index instead).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from . import dtypes, kernels
from .copying import check_inplace
from .geometry import Geometry, check_broadcastable_to
from .geometry import views as vg
from .tensor import Tensor

_VALID = (
    "only integers, slices (`:`), ellipsis (`...`), None and long or bool tensors are valid indices"
)


def _is_int(item: object) -> bool:
    return isinstance(item, numbers.Integral) and not isinstance(item, (bool, np.bool_))


def as_tuple(index: Any) -> tuple[Any, ...]:
    """A list is one index array, as in NumPy and in PyTorch's announced behaviour (PyTorch
    2.x still reads ``x[[[0, 1], [1, 2]]]`` as ``x[[0, 1], [1, 2]]``, with a deprecation
    warning)."""
    return index if isinstance(index, tuple) else (index,)


def _classify(item: Any) -> tuple[str, Any]:
    """``(kind, value)``: kind is none/ellipsis/slice/int/bool (scalar), array or mask."""
    if item is None:
        return "none", None
    if item is Ellipsis:
        return "ellipsis", None
    if isinstance(item, slice):
        return "slice", item
    if isinstance(item, (bool, np.bool_)):
        return "bool", bool(item)
    if isinstance(item, (str, bytes)):
        raise TypeError(f"{_VALID} (got {type(item).__name__})")
    if _is_int(item):
        return "int", int(item)
    if isinstance(item, Tensor):
        if item.dtype not in (dtypes.int64, dtypes.bool_):
            if item.dtype != dtypes.int32:  # (int32: taken as PyTorch takes it)
                raise IndexError(
                    f"tensors used as indices must be long, int or bool tensors, got {item.dtype.name}"
                )
            array = item.numpy().astype(np.int64)
        else:
            array = item.numpy()
    elif isinstance(item, (list, tuple, np.ndarray)):
        array = np.asarray(item)
        if array.size == 0 and array.dtype.kind == "f":
            array = array.astype(np.int64)  # ``x[[]]``: an empty integer index
        if array.dtype.kind not in "biu":
            raise IndexError(f"{_VALID} (got an index array of dtype {array.dtype})")
    else:
        raise IndexError(f"{_VALID} (got {type(item).__name__})")
    if array.ndim == 0:  # a 0-d index is a scalar index, as in PyTorch
        return ("bool", bool(array)) if array.dtype.kind == "b" else ("int", int(array))
    return ("mask" if array.dtype.kind == "b" else "array"), array


def _dims_used(kind: str, value: Any) -> int:
    if kind in ("int", "slice", "array"):
        return 1
    return value.ndim if kind == "mask" else 0


def plain_geometry(g: Geometry, index: Any) -> Geometry | None:
    """The geometry of ``index`` when it is only Python ints in range, slices of ints with
    a positive step (one per leading dimension) and ``None`` (the common case, done
    directly); None for anything else, which ``split_index`` then handles in full."""
    plain = plain_index(g.sizes, g.strides, g.storage_offset, index)
    return None if plain is None else Geometry(*plain)


def plain_index(
    sizes: tuple[int, ...], strides: tuple[int, ...], offset: int, index: Any
) -> tuple[tuple[int, ...], tuple[int, ...], int] | None:
    """``plain_geometry`` on the parts of a geometry, as a plain tuple (the per-op path of
    ``x[i, j]``: no Geometry made)."""
    if type(index) is int:  # x[i]
        if not sizes:
            return None
        size = sizes[0]
        if index < 0:
            index += size
            if index < 0:
                return None
        elif index >= size:
            return None
        return sizes[1:], strides[1:], offset + index * strides[0]
    # x[a:b]: the loop's slice case below, written out for the first dim on purpose (a third
    # off a stepper's every view); tests/test_lean_views.py checks that the two agree
    if type(index) is slice and sizes:
        start, stop, step = index.start, index.stop, index.step
        size = sizes[0]
        if start is None:
            start = 0
        elif type(start) is not int:
            return None
        elif start < 0:
            start = start + size if start > -size else 0
        elif start > size:
            start = size
        if stop is None:
            stop = size
        elif type(stop) is not int:
            return None
        elif stop < 0:
            stop = stop + size if stop > -size else 0
        elif stop > size:
            stop = size
        stride = strides[0]
        if step is None:
            length = stop - start if stop > start else 0
        elif type(step) is not int or step <= 0:
            return None
        else:
            length = (stop - start + step - 1) // step if stop > start else 0
            stride *= step
        return (length,) + sizes[1:], (stride,) + strides[1:], offset + start * strides[0]
    # x[:, j] (a column) and x[:, None] (a column vector of a row): the loop's cases for a
    # full slice then an int or None, written out (tests/test_lean_views.py checks them)
    if type(index) is tuple and len(index) == 2 and sizes:
        first, second = index
        if type(first) is slice and first.start is None and first.stop is None \
                and first.step is None:
            if second is None:
                return (sizes[0], 1) + sizes[1:], \
                    (strides[0], sizes[1] * strides[1] if len(sizes) > 1 else 1) + strides[1:], offset
            if type(second) is int and len(sizes) > 1:
                size = sizes[1]
                if second < 0:
                    second += size
                    if second < 0:
                        return None
                elif second >= size:
                    return None
                return (sizes[0],) + sizes[2:], (strides[0],) + strides[2:], offset + second * strides[1]
    items = index if type(index) is tuple else (index,)
    ndim = len(sizes)
    out_sizes: tuple[int, ...] = ()
    out_strides: tuple[int, ...] = ()
    dim = 0
    for item in items:
        kind = type(item)
        if kind is slice:  # (slice.indices, spelled out: twice as fast here)
            if dim >= ndim:
                return None
            start = item.start
            stop = item.stop
            step = item.step
            if start is None and stop is None and step is None:  # ``:`` keeps the dim
                out_sizes += (sizes[dim],)
                out_strides += (strides[dim],)
                dim += 1
                continue
            size = sizes[dim]
            if start is None:
                start = 0
            elif type(start) is not int:
                return None
            elif start < 0:
                start = start + size if start > -size else 0
            elif start > size:
                start = size
            if stop is None:
                stop = size
            elif type(stop) is not int:
                return None
            elif stop < 0:
                stop = stop + size if stop > -size else 0
            elif stop > size:
                stop = size
            stride = strides[dim]
            offset += start * stride
            if step is None:
                length = stop - start if stop > start else 0
            elif type(step) is not int or step <= 0:
                return None
            else:
                length = (stop - start + step - 1) // step if stop > start else 0
                stride *= step
            out_sizes += (length,)
            out_strides += (stride,)
        elif kind is int:
            if dim >= ndim:
                return None
            size = sizes[dim]
            if item < 0:
                item += size
                if item < 0:
                    return None
            elif item >= size:
                return None
            offset += item * strides[dim]
        elif item is None:  # a new dim of size 1 (its stride as unsqueeze's)
            out_sizes += (1,)
            out_strides += (sizes[dim] * strides[dim] if dim < ndim else 1,)
            continue
        else:
            return None
        dim += 1
    return out_sizes + sizes[dim:], out_strides + strides[dim:], offset


def split_index(g: Geometry, index: Any) -> tuple[Geometry, list[tuple[int, np.ndarray]]]:
    """Apply the basic parts of ``index`` to ``g``; return the view's geometry and the
    advanced parts as ``(dimension of the view, index array)`` pairs."""
    plain = plain_geometry(g, index)
    if plain is not None:
        return plain, []
    items = [_classify(it) for it in as_tuple(index)]
    ndim = len(g.sizes)
    consumed = sum(_dims_used(kind, value) for kind, value in items)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    dim, advanced = 0, []
    real_dim = 0  # where an item stands in the full index (PyTorch's errors name it; None counts)
    for kind, value in items:
        if _dims_used(kind, value) and dim >= len(g.sizes):  # after a second ellipsis
            # PyTorch skips a full slice there, and sees an int index against size 0
            if kind == "slice" and value.start in (None, 0) and value.stop is None and value.step in (None, 1):
                dim += 1
                continue
            if kind == "int":
                raise IndexError(f"index {value} is out of bounds for dimension {dim} with size 0")
            raise IndexError(f"too many indices for tensor of dimension {ndim}")
        if kind == "none":
            g = vg.unsqueeze(g, dim)
            dim += 1
            real_dim += 1
        elif kind == "ellipsis":  # PyTorch lets every ellipsis skip the unindexed dims
            dim += ndim - consumed
            real_dim += ndim - consumed
        elif kind == "slice":
            if value.step is not None and value.step <= 0:
                raise ValueError(
                    "step must be greater than zero" if value.step < 0 else "slice step cannot be zero"
                )
            start, stop, step = value.indices(g.sizes[dim])
            g = vg.slice_dim(g, dim, start, max(start, stop), step)
            dim += 1
            real_dim += 1
        elif kind == "int":
            size = g.sizes[dim]
            if not -size <= value < size:
                raise IndexError(
                    f"index {value} is out of bounds for dimension {real_dim} with size {size}"
                )
            g = vg.select(g, dim, value)
            real_dim += 1
        elif kind == "bool":  # PyTorch: a new size-1 dim, indexed by [0] (True) or [] (False)
            g = vg.unsqueeze(g, dim)
            advanced.append((dim, np.zeros(1 if value else 0, np.int64)))
            dim += 1
            real_dim += 1
        else:
            advanced.append((dim, value))
            dim += _dims_used(kind, value)
            real_dim += _dims_used(kind, value)
    for dim, value in advanced:  # after the basic parts, whose errors PyTorch reports first
        if value.dtype.kind == "b" and value.shape != g.sizes[dim : dim + value.ndim]:
            raise IndexError(
                f"The shape of the mask {list(value.shape)} does not match the shape of the "
                f"indexed tensor {list(g.sizes)} at dimension {dim}"
            )
    return g, advanced


def result_shape(sizes: tuple[int, ...], np_index: tuple[Any, ...]) -> tuple[int, ...]:
    """The shape ``x[np_index]`` has, checking the indices against ``sizes`` — except when
    the result is empty: PyTorch checks each index as it produces an element, so it checks
    none then (``x[1:, [5]]`` of a (1, 2) tensor is fine; ``x[[0]]`` of a (0, 3) one is not)."""
    if 0 in sizes:
        stand_in = list(sizes)
        arrays = [item for item in np_index if isinstance(item, np.ndarray)]
        try:  # how many index tuples the advanced indices make: none, nothing is checked
            picks = int(np.prod(np.broadcast_shapes(
                *((int(a.sum()),) if a.dtype.kind == "b" else a.shape for a in arrays))))
        except ValueError:  # (NumPy's call below reports it)
            picks = 1
        d = 0  # (the dim an item indexes: a mask spans as many as it has)
        for item in np_index:
            if isinstance(item, np.ndarray) and item.dtype.kind in "iu" and item.size:
                if sizes[d] == 0 and picks:  # checked up front by PyTorch, whatever the result's size
                    raise IndexError(
                        f"index {int(item.flat[0])} is out of bounds for dimension {d} with size 0"
                    )
                stand_in[d] = max(stand_in[d], int(item.max()) + 1, -int(item.min()))
            d += item.ndim if isinstance(item, np.ndarray) and item.dtype.kind == "b" else 1
        shape = np.broadcast_to(np.bool_(False), tuple(stand_in))[np_index].shape
        if 0 in shape:
            return shape
    return fancy(np.broadcast_to(np.bool_(False), sizes), np_index).shape


def fancy(array: np.ndarray, np_index: tuple[Any, ...]) -> Any:
    """``array[np_index]``, an index out of range reported in PyTorch's words ("dimension",
    not NumPy's "axis")."""
    try:
        return array[np_index]
    except IndexError as exc:
        raise IndexError(str(exc).replace(" for axis ", " for dimension ")) from None


def numpy_index(ndim: int, advanced: list[tuple[int, np.ndarray]]) -> tuple[Any, ...]:
    """Full slices everywhere except the advanced indices; NumPy's placement of the result
    dims (in place when the advanced indices are adjacent, else first) is PyTorch's."""
    at = dict(advanced)
    out: list[Any] = []
    dim = 0
    while dim < ndim:
        if dim in at:
            out.append(at[dim])
            dim += at[dim].ndim if at[dim].dtype.kind == "b" else 1
        else:
            out.append(slice(None))
            dim += 1
    return tuple(out)


def write_advanced(
    target: Tensor, np_index: tuple[Any, ...], value: Any, accumulate: bool, op: str
) -> None:
    """``target[np_index] = value`` (``+=`` with ``accumulate``, repeated indices adding up),
    checked completely before anything is written; bumps the version once."""
    is_scalar = not isinstance(value, Tensor) and isinstance(value, (numbers.Number, np.bool_))
    one_value = is_scalar or (isinstance(value, Tensor) and value.numel() == 1)
    check_inplace(target, op, order_dependent=not one_value or accumulate)
    # The result's shape, from indexing a zero-stride stand-in; this also checks every index
    # (IndexError, before any value error, as in PyTorch) without touching the data.
    shape = result_shape(target._sizes, np_index)
    if 0 in target._sizes:  # nothing to write (and PyTorch checks no index)
        check_broadcastable_to(op, value_tensor(value, target.dtype)._sizes, shape) if not is_scalar else None
        target._storage.bump(op)
        return
    if is_scalar:
        source = value
    else:
        if isinstance(value, Tensor) and value.dtype != target.dtype:  # as PyTorch's index_put_
            raise RuntimeError(
                f"{op}: with an advanced index the value's dtype must match the "
                f"destination's: got {value.dtype.name}, expected {target.dtype.name}"
            )
        src = value_tensor(value, target.dtype)
        check_broadcastable_to(op, src._sizes, shape)
        _check_no_overlap(target, src)
        source = src.numpy()
    if accumulate:
        np.add.at(target.numpy(), np_index, np.broadcast_to(source, shape))
    else:
        target.numpy()[np_index] = source
    target._storage.bump(op)


def _check_no_overlap(target: Tensor, src: Tensor) -> None:
    """PyTorch's ``index_put_`` refuses values that share memory with the destination."""
    if src._storage.same_memory(target._storage) and kernels.regions_overlap(
        target._offset, target._sizes, target._strides, src._offset, src._sizes, src._strides
    ):
        raise RuntimeError(
            "__setitem__: unsupported operation: some elements of the input tensor and the "
            "written-to tensor refer to a single memory location. Please clone() the value first."
        )


def leading_ones(t: Tensor) -> int:
    """How many leading size-1 dims PyTorch drops from a value assigned with ``x[...] = v``
    (``slicePrefix1sSize``: ``x[0] = v`` accepts ``v`` of shape ``(1, 1, n)``)."""
    k = 0
    while k < t.ndim and t._sizes[k] == 1:
        k += 1
    return k


def value_tensor(value: Any, dtype: np.dtype) -> Tensor:
    """The value of an assignment as a tensor, without the leading size-1 dims PyTorch drops."""
    if not isinstance(value, Tensor):
        from .creation import tensor

        value = tensor(value, dtype=dtype)
    k = leading_ones(value)
    if k == 0:
        return value
    return value._alias(Geometry(value._sizes[k:], value._strides[k:], value._offset))


def whole_slice(part: slice, length: int) -> bool:
    """Whether PyTorch's slicing skips ``part`` on a dim of ``length``: from 0 (as written) to
    at least the end, step 1 (bounds read as PyTorch reads them: any int, NumPy's too)."""
    start, stop, step = part.start, part.stop, part.step
    return (start is None or (start == 0 if start.__class__ is int else _bound(start) == 0)) \
        and (step is None or (step == 1 if step.__class__ is int else _bound(step) == 1)) \
        and (stop is None or (stop >= length if stop.__class__ is int else (
            (bound := _bound(stop)) is not None and bound >= length)))


def _bound(value: Any) -> int | None:
    """A slice bound that is an integer of another type (``np.int64(0)``, ``True``) as an
    int, else None."""
    return int(value) if isinstance(value, numbers.Integral) else None


def advanced_on_whole(sizes: tuple[int, ...], index: Any) -> bool:
    """Whether ``index`` has advanced parts (index tensors, lists, masks) and its basic part
    leaves the tensor itself: every other item is ``...`` or a slice PyTorch's slicing skips
    (``whole_slice``). ``self[index] = v`` is then PyTorch's ``index_put_`` on ``self``
    itself (IndexPutBackward0), not on a view of it (CopySlices)."""
    items = [_classify(it) for it in as_tuple(index)]
    consumed = sum(_dims_used(kind, value) for kind, value in items)
    if consumed > len(sizes):
        return False  # (too many indices: the general path raises)
    dim, advanced = 0, False
    for kind, value in items:
        if kind == "ellipsis":
            dim += len(sizes) - consumed
        elif kind == "slice":
            if not whole_slice(value, sizes[dim]):
                return False
            dim += 1
        elif kind in ("array", "mask"):
            dim += _dims_used(kind, value)
            advanced = True
        else:  # (None, an int or a bool: a view PyTorch makes)
            return False
    return advanced


def whole_index(sizes: tuple[int, ...], index: Any) -> bool:
    """Whether PyTorch's indexing gives the tensor itself for ``index``: ``...``, ``()``, or
    slices (and one ``...``) each from 0 (as written: ``-n:`` is not) to at least its dim's
    end with step 1 — its slicing skips such a slice."""
    if index is Ellipsis:
        return True
    if index.__class__ is slice:  # (a stepper's ``u[1:-1] = ...``: the start decides, inline)
        start = index.start
        return (start is None or (start == 0 if start.__class__ is int else _bound(start) == 0)) and bool(sizes) \
            and whole_slice(index, sizes[0])
    if index.__class__ is not tuple or index and index[0].__class__ is int:  # (``R[i, j]``)
        return False
    specified = 0
    for part in index:  # (slices and ``...`` only; a start other than 0 rejects at once)
        if part.__class__ is slice:
            start = part.start
            if start is not None and (start != 0 if start.__class__ is int else _bound(start) != 0):
                return False
            specified += 1
        elif part is not Ellipsis:
            return False
    if specified > len(sizes):
        return False  # (too many indices: the general path raises)
    return last_applied(sizes, index) is Ellipsis


def last_applied(sizes: tuple[int, ...], index: tuple[Any, ...]) -> Any:
    """The last item of a tuple ``index`` (ints, slices, None, ``...``; at most ``len(sizes)``
    ints and slices) that PyTorch's indexing applies to a tensor of ``sizes``: it skips a
    slice over its whole dim (``whole_slice``), and each ``...`` (even a repeated one) skips
    the dims no item names. ``...`` when it applies none: the result is the tensor itself."""
    ndim = len(sizes)
    specified = sum(1 for item in index if item is not None and item is not Ellipsis)
    last: Any = Ellipsis
    dim = 0
    for item in index:
        if item is Ellipsis:
            dim += ndim - specified
        elif item is None:
            last = None
        else:
            if item.__class__ is not slice or dim >= ndim or not whole_slice(item, sizes[dim]):
                last = item
            dim += 1
    return last
