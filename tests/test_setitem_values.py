"""What ``x[index] = value`` accepts as ``value``. PyTorch takes a tensor or a Python number
(NumPy integers too) and raises TypeError for anything else; jitgrad also takes NumPy arrays,
NumPy scalars of every dtype and (nested) lists, converted as ``tensor(value)`` converts them
and then written as a tensor of that shape would be (README: where jitgrad deliberately
differs) — NumPy users write ``x[1:] = np.array(...)`` and ``x[:, 0] = [1, 2]``. Values that
are neither still raise TypeError, changing nothing."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import jitgrad

NUMPY_AND_LISTS = {
    "list": [4.0, 5.0],
    "nested_list": [[4.0, 5.0]],
    "tuple": (4, 5),
    "array": np.array([4.0, 5.0]),
    "array_0d": np.array(6.0),
    "float32_scalar": np.float32(2.5),
    "bool_scalar": np.bool_(True),
    "float16_scalar": np.float16(1.5),
}


def _target(lib: Any) -> Any:
    return lib.tensor([[1.0, 2.0, 3.0], [7.0, 8.0, 9.0]], dtype=lib.float64)


@pytest.mark.parametrize("value", list(NUMPY_AND_LISTS))
def test_pytorch_refuses_values_that_are_not_tensors_or_python_numbers(value: str) -> None:
    with pytest.raises(TypeError, match="can't assign a .* to a torch.DoubleTensor"):
        _target(torch)[0, 1:] = NUMPY_AND_LISTS[value]


@pytest.mark.parametrize("value", list(NUMPY_AND_LISTS))
def test_jitgrad_writes_them_as_the_tensor_they_convert_to(value: str) -> None:
    """The result equals PyTorch's write of ``torch.tensor(value)`` (with grad: the same
    gradient for the rest of the target)."""
    got = []
    for lib in (torch, jitgrad):
        x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        u = x * _target(lib)
        v = NUMPY_AND_LISTS[value]
        if lib is torch:
            v = torch.tensor(np.asarray(v))
        u[0, 1:] = v
        u.sum().backward()
        got.append((u.tolist(), x.grad.tolist(), u.grad_fn.name().replace("torch::autograd::", "")))
    assert got[1] == got[0]


@pytest.mark.parametrize("value", ["text", None, object(), {1: 2}], ids=["str", "None", "object", "dict"])
def test_other_values_raise_type_error_and_change_nothing(value: Any) -> None:
    for lib in (torch, jitgrad):
        x = _target(lib)
        version = x._version
        with pytest.raises(TypeError):
            x[0, 1:] = value
        assert x.tolist() == _target(lib).tolist() and x._version == version


_NUMBERS = [3.7, -2.5, float("nan"), float("inf"), 1e300, True, 2**63 - 1, -1, 300, 2**63, -2**63 - 1]
_DTYPES = ["float32", "float64", "int64", "int32", "uint8", "bool", "int8", "float16"]
# how the number reaches the tensor: a 0-d view, a row view, a 0-d tensor written whole
_WRITES = {
    "into_cell": lambda x, v: x.__setitem__((1, 2), v),
    "into_row": lambda x, v: x.__setitem__(1, v),
    "whole_0d": lambda x, v: x[1, 2].__setitem__(Ellipsis, v),
    "whole": lambda x, v: x.__setitem__(Ellipsis, v),
}


def _outcome(lib: Any, dtype: str, write: str, value: Any, as_tensor: bool) -> Any:
    x = lib.zeros(2, 3, dtype=getattr(lib, dtype))
    try:
        v = lib.tensor(value) if as_tensor else value
    except (ValueError, RuntimeError, OverflowError):
        return "not a tensor"  # (the value itself is refused: compared elsewhere)
    try:
        _WRITES[write](x, v)
    except Exception as e:  # noqa: BLE001 - the error's type is the point
        return type(e).__name__
    return repr(x.tolist())  # (a repr: NaN equals NaN)


@pytest.mark.parametrize("as_tensor", [False, True], ids=["number", "tensor_0d"])
@pytest.mark.parametrize("write", list(_WRITES))
@pytest.mark.parametrize("dtype", _DTYPES)
def test_numbers_convert_or_refuse_as_pytorch(dtype: str, write: str, as_tensor: bool) -> None:
    """A Python number is checked against the tensor's dtype wherever it lands (PyTorch makes
    it a 0-d tensor of that dtype first; ints beyond int64: ValueError); a 0-d tensor is
    converted as a copy converts, unchecked (300 into int8: 44), through ``copy_`` or ``fill_``."""
    for value in _NUMBERS:
        ours = _outcome(jitgrad, dtype, write, value, as_tensor)
        theirs = _outcome(torch, dtype, write, value, as_tensor)
        if theirs == "not a tensor":
            continue
        assert ours == theirs, (value, ours, theirs)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "float32", "bool"])
def test_fill_from_a_tensor_converts_unchecked_as_pytorch(dtype: str) -> None:
    for value in [300, -1, 1e300, float("nan"), 2**63 - 1, 2.5]:
        got = []
        for lib in (torch, jitgrad):
            x = lib.zeros(4, dtype=getattr(lib, dtype))
            x.fill_(lib.tensor(value))
            got.append(repr(x.tolist()))
        assert got[1] == got[0], value
