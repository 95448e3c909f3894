"""The geometry of every view operation, with PyTorch's rules and error types.

Each function maps an input ``Geometry`` (and the op's arguments) to the output ``Geometry``.
No data moves: a view is the same storage seen through new sizes, strides and offset.
"""

from __future__ import annotations

from typing import Sequence

from .broadcast import infer_size
from .strided import (
    check_numel,
    Geometry,
    as_int,
    as_int_tuple,
    check_in_bounds,
    contiguous_strides,
    numel,
    wrap_dim,
)

Ints = Sequence[int]


def narrow(g: Geometry, dim: int, start: int, length: int) -> Geometry:
    if not g.sizes:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    start, length = as_int("narrow", "start", start), as_int("narrow", "length", length)
    if length < 0:  # checked before the dim, as PyTorch does
        raise RuntimeError(f"narrow(): length must be non-negative, got {length}.")
    dim = wrap_dim(dim, len(g.sizes), "narrow")
    size = g.sizes[dim]
    if not -size <= start <= size:
        raise IndexError(
            f"narrow(): start out of range (expected to be in range of [{-size}, {size}], "
            f"but got {start})"
        )
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(
            f"narrow(): start ({start}) + length ({length}) exceeds dimension size ({size})."
        )
    return slice_dim(g, dim, start, start + length, 1)


def slice_dim(g: Geometry, dim: int, start: int, stop: int, step: int) -> Geometry:
    """``t[..., start:stop:step, ...]`` on ``dim`` with already-clamped ``0 <= start <= stop``."""
    length = max(0, (stop - start + step - 1) // step)
    sizes, strides = list(g.sizes), list(g.strides)
    offset = g.storage_offset + start * strides[dim]  # PyTorch moves the offset even when empty
    sizes[dim] = length
    strides[dim] *= step
    return Geometry(tuple(sizes), tuple(strides), offset)


def select(g: Geometry, dim: int, index: int) -> Geometry:
    if not g.sizes:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, len(g.sizes), "select")
    index = as_int("select", "index", index)
    size = g.sizes[dim]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(g.sizes)} "
            f"at dimension {dim}"
        )
    if index < 0:
        index += size
    return Geometry(
        g.sizes[:dim] + g.sizes[dim + 1 :],
        g.strides[:dim] + g.strides[dim + 1 :],
        g.storage_offset + index * g.strides[dim],
    )


def permute(g: Geometry, dims: Ints) -> Geometry:
    ndim = len(g.sizes)
    if len(dims) != ndim:
        raise RuntimeError(
            f"permute(): number of dims don't match in permute: the tensor has {ndim} "
            f"dimensions but {len(dims)} were given ({list(dims)})"
        )
    wrapped = [wrap_dim(d, ndim, "permute") for d in dims]
    if len(set(wrapped)) != ndim:
        raise RuntimeError(f"permute(): duplicate dims are not allowed, got {list(dims)}.")
    return Geometry(
        tuple(g.sizes[d] for d in wrapped), tuple(g.strides[d] for d in wrapped), g.storage_offset
    )


def transpose(g: Geometry, dim0: int, dim1: int) -> Geometry:
    ndim = len(g.sizes)
    dim0, dim1 = wrap_dim(dim0, ndim, "transpose"), wrap_dim(dim1, ndim, "transpose")
    if ndim == 0:
        return g
    order = list(range(ndim))
    order[dim0], order[dim1] = order[dim1], order[dim0]
    return permute(g, order)


def movedim(g: Geometry, source: int | Ints, destination: int | Ints) -> Geometry:
    ndim = len(g.sizes)
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain "
            f"the same number of dims as destination ({dst} dims)"
        )
    src = [wrap_dim(d, ndim, "movedim") for d in src]
    dst = [wrap_dim(d, ndim, "movedim") for d in dst]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({src})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({dst})")
    if ndim == 0:
        return g
    order: list[int | None] = [None] * ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(ndim) if d not in src)
    order = [next(rest) if o is None else o for o in order]
    return permute(g, order)  # type: ignore[arg-type]


def view(g: Geometry, shape: Ints) -> Geometry:
    total = numel(g.sizes)
    sizes = infer_size("view", as_int_tuple("view", "shape", shape), total)
    strides = view_strides(g.sizes, g.strides, sizes)
    if strides is None:
        raise RuntimeError(
            f"view size is not compatible with input tensor's size and stride (at least one "
            f"dimension spans across two contiguous subspaces): sizes {list(g.sizes)}, strides "
            f"{list(g.strides)} cannot be viewed as {list(sizes)}. Use .reshape(...) instead."
        )
    return Geometry(sizes, strides, g.storage_offset)


def view_strides(old_sizes: Ints, old_strides: Ints, new_sizes: Ints) -> tuple[int, ...] | None:
    """Strides that show ``old`` as ``new_sizes`` without copying, or None (PyTorch's computeStride).

    Walks the old dimensions in chunks that are contiguous among themselves and requires every
    new dimension to fall inside one chunk.
    """
    if not old_sizes:
        return (1,) * len(new_sizes)
    if numel(old_sizes) == 0:
        if tuple(old_sizes) == tuple(new_sizes):
            return tuple(old_strides)
        return contiguous_strides(new_sizes)
    new_strides = [0] * len(new_sizes)
    view_d = len(new_sizes) - 1
    chunk_base_stride = old_strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_sizes) - 1, -1, -1):
        tensor_numel *= old_sizes[tensor_d]
        if tensor_d == 0 or (
            old_sizes[tensor_d - 1] != 1
            and old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride
        ):
            while view_d >= 0 and (view_numel < tensor_numel or new_sizes[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_sizes[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def expand(g: Geometry, shape: Ints) -> Geometry:
    shape = as_int_tuple("expand", "size", shape)
    ndim, new_ndim = len(g.sizes), len(shape)
    if new_ndim < ndim:
        raise RuntimeError(
            f"expand: the number of sizes provided ({new_ndim}) must be greater or equal to the "
            f"number of dimensions in the tensor ({ndim})"
        )
    sizes, strides = [0] * new_ndim, [0] * new_ndim
    for i in range(new_ndim - 1, -1, -1):
        offset = ndim - new_ndim + i
        target = shape[i]
        if offset >= 0:
            size, stride = g.sizes[offset], g.strides[offset]
            if target == -1:
                target = size
            if size != target:
                if size != 1:
                    raise RuntimeError(
                        f"The expanded size of the tensor ({target}) must match the existing size "
                        f"({size}) at non-singleton dimension {i}.  Target sizes: {list(shape)}.  "
                        f"Tensor sizes: {list(g.sizes)}"
                    )
                stride = 0
        else:
            if target < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            # PyTorch: a new dim of size 1 takes the next dim's extent (0 after the last one)
            stride = 0 if target != 1 or i + 1 == new_ndim else sizes[i + 1] * strides[i + 1]
            size = target
        if target < 0:
            raise RuntimeError(f"expand: got a negative size {target} in {list(shape)}")
        sizes[i], strides[i] = target, stride
    check_numel("expand", sizes)
    return Geometry(tuple(sizes), tuple(strides), g.storage_offset)


def unsqueeze(g: Geometry, dim: int) -> Geometry:
    ndim = len(g.sizes)
    dim = wrap_dim(dim, ndim + 1, "unsqueeze")
    stride = 1 if dim >= ndim else g.sizes[dim] * g.strides[dim]
    return Geometry(
        g.sizes[:dim] + (1,) + g.sizes[dim:], g.strides[:dim] + (stride,) + g.strides[dim:],
        g.storage_offset,
    )


def squeeze(g: Geometry, dim: int | Ints | None = None) -> Geometry:
    ndim = len(g.sizes)
    if dim is None:
        dims = set(range(ndim))
    elif isinstance(dim, (tuple, list)):
        dims = {wrap_dim(d, ndim, "squeeze") for d in dim}
    else:
        dims = {wrap_dim(dim, ndim, "squeeze")}
    keep = [d for d in range(ndim) if not (d in dims and g.sizes[d] == 1)]
    return Geometry(
        tuple(g.sizes[d] for d in keep), tuple(g.strides[d] for d in keep), g.storage_offset
    )


def diagonal(g: Geometry, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Geometry:
    ndim = len(g.sizes)
    d1, d2 = wrap_dim(dim1, ndim, "diagonal"), wrap_dim(dim2, ndim, "diagonal")
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    offset = as_int("diagonal", "offset", offset)
    storage_offset = g.storage_offset
    if offset >= 0:
        diag = max(min(g.sizes[d1], g.sizes[d2] - offset), 0)
    else:
        diag = max(min(g.sizes[d1] + offset, g.sizes[d2]), 0)
    if diag > 0:
        storage_offset += offset * g.strides[d2] if offset >= 0 else -offset * g.strides[d1]
    keep = [d for d in range(ndim) if d not in (d1, d2)]
    return Geometry(
        tuple(g.sizes[d] for d in keep) + (diag,),
        tuple(g.strides[d] for d in keep) + (g.strides[d1] + g.strides[d2],),
        storage_offset,
    )


def unfold(g: Geometry, dimension: int, size: int, step: int) -> Geometry:
    ndim = len(g.sizes)
    dim = wrap_dim(dimension, ndim, "unfold")
    size, step = as_int("unfold", "size", size), as_int("unfold", "step", step)
    dim_size = g.sizes[dim] if ndim else 1
    dim_stride = g.strides[dim] if ndim else 1
    if size > dim_size:
        raise RuntimeError(
            f"unfold: maximum size for tensor at dimension {dim} is {dim_size} but size is {size}"
        )
    if size < 0:
        raise RuntimeError(f"unfold: size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"unfold: step is {step} but must be > 0")
    sizes, strides = list(g.sizes), list(g.strides)
    if ndim:
        sizes[dim] = (dim_size - size) // step + 1
        strides[dim] = step * dim_stride
    return Geometry(tuple(sizes) + (size,), tuple(strides) + (dim_stride,), g.storage_offset)


def as_strided(
    g: Geometry, storage_size: int, sizes: Ints, strides: Ints, storage_offset: int | None
) -> Geometry:
    sizes = as_int_tuple("as_strided", "size", sizes)
    strides = as_int_tuple("as_strided", "stride", strides)
    offset = g.storage_offset if storage_offset is None else as_int(
        "as_strided", "storage_offset", storage_offset
    )
    if len(sizes) != len(strides):
        raise RuntimeError(
            f"as_strided: mismatch in length of strides and shape: got {len(sizes)} sizes "
            f"{list(sizes)} and {len(strides)} strides {list(strides)}"
        )
    check_in_bounds("as_strided", sizes, strides, offset, storage_size)
    return Geometry(sizes, strides, offset)


def split_sizes(op: str, dim_size: int, split_size: int | Ints) -> list[int]:
    """The lengths of the pieces ``split``/``chunk`` cut a dimension of ``dim_size`` into."""
    if isinstance(split_size, (list, tuple)):
        sections = as_int_tuple(op, "split_sizes", split_size)
        if any(s < 0 for s in sections):
            raise RuntimeError(
                f"{op}_with_sizes expects split_sizes have only non-negative entries, but got "
                f"split_sizes={list(sections)}"
            )
        if sum(sections) != dim_size:
            raise RuntimeError(
                f"{op}_with_sizes expects split_sizes to sum exactly to {dim_size} (input tensor's "
                f"size at dimension), but got split_sizes={list(sections)}"
            )
        return list(sections)
    split_size = as_int(op, "split_size", split_size)
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0:
        if dim_size != 0:
            raise RuntimeError(
                f"split_size can only be 0 if dimension size is 0, but got dimension size of {dim_size}"
            )
        return [0]
    count = max((dim_size + split_size - 1) // split_size, 1)
    return [min(split_size, dim_size - i * split_size) for i in range(count)]


def chunk_sizes(dim_size: int, chunks: int) -> list[int]:
    chunks = as_int("chunk", "chunks", chunks)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if dim_size == 0:
        return [0] * chunks  # PyTorch: `chunks` empty pieces
    return split_sizes("chunk", dim_size, (dim_size + chunks - 1) // chunks)
