"""``x[index] = value`` with advanced parts (index tensors, lists, masks): PyTorch applies
the basic part first and skips what selects a whole dim (``...``, ``:`` as written), so when
nothing basic is left the write is ``index_put_`` on ``x`` itself (``IndexPutBackward0``);
otherwise it is ``index_put_`` on a view, recorded on the base as ``CopySlices``. Checked
against PyTorch (node names, edges, gradients, values, versions), float64."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from jitgrad.indexing import advanced_on_whole

LIBS = [torch, jitgrad]


def _name(node: Any) -> str:
    return node.name().replace("torch::autograd::", "")


def _write(lib: Any, index: Callable[[Any], Any], value: Any, shape: tuple[int, ...] = (3, 4)) -> tuple[Any, ...]:
    """What ``u[index] = value`` records and the gradients it gives: the node's name and
    number of edges, the leaf's and the value's gradients, the values and ``u``'s version."""
    x = lib.ones(*shape, dtype=lib.float64, requires_grad=True)
    weight = lib.arange(1.0, float(np.prod(shape)) + 1, dtype=lib.float64).reshape(shape)
    u = x * 1
    before = u._version
    v = value(lib) if callable(value) else value
    u[index(lib)] = v
    (u * weight).sum().backward()
    grad_v = v.grad.tolist() if isinstance(v, lib.Tensor) and v.requires_grad else None
    return (_name(u.grad_fn), len(u.grad_fn.next_functions), x.grad.tolist(), grad_v,
            u.tolist(), u._version - before)


def _ints(lib: Any, values: list[int]) -> Any:
    return lib.tensor(values, dtype=lib.int64)


INDICES: dict[str, Callable[[Any], Any]] = {
    "tensor": lambda lib: _ints(lib, [2, 0]),
    "list": lambda lib: [0, 2],
    "mask": lambda lib: lib.tensor([True, False, True]),
    "mask_2d": lambda lib: lib.arange(12).reshape(3, 4) % 5 == 1,
    "two_tensors": lambda lib: (_ints(lib, [0, 2]), _ints(lib, [3, 1])),
    "colon_tensor": lambda lib: (slice(None), _ints(lib, [1, 3])),
    "tensor_colon": lambda lib: (_ints(lib, [1]), slice(None)),
    "ellipsis_tensor": lambda lib: (Ellipsis, _ints(lib, [0])),
    "whole_bounds_tensor": lambda lib: (slice(0, 3), _ints(lib, [2])),
    "whole_past_end_tensor": lambda lib: (slice(0, 10, 1), _ints(lib, [2])),
    "numpy_zero_start": lambda lib: (slice(np.int64(0), None), _ints(lib, [2])),
    # a basic part PyTorch applies: a view, so the base records CopySlices
    "negative_start_tensor": lambda lib: (slice(-3, None), _ints(lib, [2])),
    "partial_tensor": lambda lib: (slice(1, None), _ints(lib, [0, 3])),
    "int_tensor": lambda lib: (1, _ints(lib, [0, 3])),
    "none_tensor": lambda lib: (None, _ints(lib, [1])),
    "stepped_tensor": lambda lib: (slice(None, None, 2), _ints(lib, [1])),
}

VALUES: dict[str, Any] = {
    "number": 7.5,
    "zero_d_grad": lambda lib: lib.tensor(-2.0, dtype=lib.float64, requires_grad=True),
    "row_grad": lambda lib: lib.tensor([0.5], dtype=lib.float64, requires_grad=True),
    "plain": lambda lib: lib.tensor(3.0, dtype=lib.float64),
}


@pytest.mark.parametrize("value", list(VALUES))
@pytest.mark.parametrize("index", list(INDICES))
def test_advanced_write_records_as_pytorch(index: str, value: str) -> None:
    ours = _write(jitgrad, INDICES[index], VALUES[value])
    theirs = _write(torch, INDICES[index], VALUES[value])
    assert ours == theirs


def test_index_put_node_saves_nothing_of_the_view() -> None:
    """``x[t] = v`` on a leaf's clone: one IndexPutBackward0 whose edges are the clone's node
    and the value's, as PyTorch's; a mask write after it chains a second one."""
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        v = lib.tensor([5.0, 6.0], dtype=lib.float64, requires_grad=True)
        h = x.clone()
        h[_ints(lib, [0, 2])] = v
        first = h.grad_fn
        assert _name(first) == "IndexPutBackward0"
        assert [_name(n) for n, _ in first.next_functions] == ["CloneBackward0", "AccumulateGrad"]
        h[h > 4] = 0.0
        assert _name(h.grad_fn) == "IndexPutBackward0" and h.grad_fn.next_functions[0][0] is first
        h.sum().backward()
        assert x.grad.tolist() == [0.0, 1.0, 0.0] and v.grad.tolist() == [0.0, 0.0]


def test_write_into_a_view_of_a_base_wraps_index_put_in_copy_slices() -> None:
    """The tensor written is itself a view: the base records CopySlices, the view its own
    regenerated node, as PyTorch's."""
    def program(lib: Any) -> tuple[Any, ...]:
        x = lib.arange(1.0, 9.0, dtype=lib.float64).requires_grad_()
        base = x * 2
        row = base[2:6]
        row[_ints(lib, [1, 3])] = lib.tensor([10.0, 20.0], dtype=lib.float64)
        (base * base).sum().backward()
        return _name(base.grad_fn), _name(row.grad_fn), x.grad.tolist(), base.tolist()
    assert program(jitgrad) == program(torch)


@pytest.mark.parametrize("index", [
    lambda lib: _ints(lib, [3]),                       # out of range
    lambda lib: lib.tensor([True, False]),             # mask of the wrong size
    lambda lib: (slice(None), _ints(lib, [0]), 0),     # too many indices
    lambda lib: lib.tensor([0.0]),                     # a float index tensor
], ids=["out_of_range", "mask_size", "too_many", "float_index"])
def test_bad_advanced_write_raises_and_changes_nothing(index: Callable[[Any], Any]) -> None:
    for lib in LIBS:
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=lib.float64, requires_grad=True)
        u = x * 1
        node, version = u.grad_fn, u._version
        with pytest.raises(IndexError):
            u[index(lib)] = 9.0
        assert u.grad_fn is node and u._version == version
        assert u.tolist() == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


_ITEM = st.sampled_from(["colon", "whole", "partial", "ellipsis", "tensor", "mask", "int", "none"])


def _item(kind: str, size: int, lib: Any) -> Any:
    if kind == "colon":
        return slice(None)
    if kind == "whole":
        return slice(0, size + 1)
    if kind == "partial":
        return slice(1, None)
    if kind == "ellipsis":
        return Ellipsis
    if kind == "tensor":
        return _ints(lib, [size - 1, 0])
    if kind == "mask":
        return lib.tensor([i % 2 == 0 for i in range(size)])
    if kind == "int":
        return size - 1
    return None


@settings(max_examples=budget(60), deadline=None)
@given(kinds=st.lists(_ITEM, min_size=1, max_size=3), scalar=st.booleans())
def test_random_mixed_index_writes_match_pytorch(kinds: list[str], scalar: bool) -> None:
    """Random mixes of whole, partial and advanced items on a (3, 4, 2) tensor: the node,
    gradients and values equal PyTorch's, or both raise the same error type (and
    ``advanced_on_whole`` says which writes go to the tensor itself)."""
    shape = (3, 4, 2)
    if kinds.count("ellipsis") > 1:
        kinds = [k for k in kinds if k != "ellipsis"] or ["colon"]

    def index(lib: Any) -> Any:
        out, dim = [], 0
        specified = sum(k not in ("ellipsis", "none") for k in kinds)
        for k in kinds:
            size = shape[dim] if dim < len(shape) else 1
            out.append(_item(k, size, lib))
            if k == "ellipsis":
                dim += len(shape) - specified
            elif k != "none":
                dim += 1
        return tuple(out)

    value = 4.0 if scalar else (lambda lib: lib.tensor(1.5, dtype=lib.float64, requires_grad=True))
    results = []
    for lib in (torch, jitgrad):
        try:
            results.append(("ok", _write(lib, index, value, shape)))
        except (IndexError, RuntimeError) as e:
            results.append((type(e).__name__, None))
    assert results[1] == results[0]
    if results[0][0] == "ok":
        on_self = results[0][1][0] == "IndexPutBackward0"
        assert advanced_on_whole(shape, index(jitgrad)) == on_self


@pytest.mark.parametrize("index", [
    slice(np.int64(0), None), slice(np.int32(0), np.int64(99)), (slice(np.int64(0), 3), Ellipsis),
    slice(None, None, np.int64(1)), slice(np.int64(1), None),
], ids=["np_start", "np_start_stop", "np_in_tuple", "np_step", "np_partial"])
def test_numpy_int_slice_bounds_read_as_pytorch_reads_them(index: Any) -> None:
    """A slice whose bounds are NumPy ints: PyTorch reads them as ints, so a whole one is
    skipped (the write is into the tensor itself) and a partial one makes a view."""
    results = [_write(lib, lambda lib: index, lambda lib: lib.tensor(2.0, dtype=lib.float64, requires_grad=True))
               for lib in (torch, jitgrad)]
    assert results[1] == results[0]
