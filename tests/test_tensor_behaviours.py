"""Tensor API behaviours side by side on PyTorch and jitgrad (each once a known difference
in ``test_autograd_behaviours.py``): ``numpy()`` of a tensor requiring grad, the dtype
flags."""

from __future__ import annotations

import numpy as np
import pytest

import jitgrad
from tests.test_autograd_behaviours import both, vec


# -- numpy() --------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["leaf", "non-leaf", "no_grad view", "array", "asarray"])
def test_numpy_of_tensor_requiring_grad_raises(kind):
    def program(lib):
        x = vec(lib, [1.0, 2.0])
        if kind == "leaf":
            return x.numpy()
        if kind == "non-leaf":
            return (x * 2).numpy()
        if kind == "no_grad view":
            with lib.no_grad():
                view = x[:1]
            return view.numpy()
        return (np.array if kind == "array" else np.asarray)(x)

    both(program)  # "Can't call numpy() on Tensor that requires grad. Use tensor.detach()..."


def test_numpy_of_tensor_not_requiring_grad_or_forced():
    def program(lib):
        x = vec(lib, [1.0, 2.0])
        y = x * 3
        y.sum().backward()
        forced = x.numpy(force=True)
        forced[0] = 5.0  # (shares x's memory, as detach().numpy() would)
        detached = y.detach().numpy()
        return (forced.tolist(), x.tolist(), detached.tolist(), x.grad.numpy().tolist(),
                np.asarray(y.detach()).tolist(), y.tolist(), repr(y.detach().numpy()))

    both(program)


# -- dtype flags ----------------------------------------------------------------------------
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "bfloat16", "complex32", "complex64", "complex128", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("name", DTYPES)
def test_dtype_flags(name):
    def program(lib):
        d = getattr(lib, name)
        return d.is_floating_point, d.is_complex, d.is_signed, d.itemsize

    both(program)


def test_dtype_flags_of_a_tensor():
    def program(lib):
        t = lib.arange(3, dtype=lib.float32)
        return t.dtype.is_floating_point, (t > 1).dtype.is_signed, t.dtype.itemsize, t.long().dtype.is_signed

    both(program)


def test_dtype_with_flags_is_still_numpys():
    """(jitgrad's dtypes are NumPy's: the flags are added to NumPy's dtype type.)"""
    assert jitgrad.float32 is np.dtype(np.float32)
    assert np.zeros(2, dtype=jitgrad.int64).dtype.is_signed
    assert not np.dtype(np.uint8).is_signed and np.dtype(np.complex64).is_complex
    assert np.dtype(np.float32).itemsize == 4  # (NumPy's own)
