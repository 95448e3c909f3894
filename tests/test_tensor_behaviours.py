"""Tensor API behaviours side by side on PyTorch and jitgrad (each once a known difference
in ``test_autograd_behaviours.py``): ``numpy()`` of a tensor requiring grad, the dtype
flags, ``set_``, ``out=`` of the common binary ops, memory formats."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jitgrad
from tests.test_autograd_behaviours import both, vec


# -- numpy() --------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")  # (torch's)
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


# -- set_ -----------------------------------------------------------------------------------
SOURCES = {
    "tensor": lambda lib: (lib.arange(3.0),),
    "nothing": lambda lib: (),
    "untyped storage and geometry": lambda lib: (lib.arange(6.0).untyped_storage(), 1, (2, 2), (1, 2)),
    "tensor and size": lambda lib: (lib.arange(6.0), 2, (2, 2)),
    "a view": lambda lib: (lib.arange(6.0).reshape(2, 3).t(),),
}


@pytest.mark.parametrize("source", list(SOURCES))
def test_set_takes_over_the_source_memory(source):
    def program(lib):
        p = lib.tensor([1.0, 2.0])
        alias = p[:]
        args = SOURCES[source](lib)
        before = alias._version
        assert p.set_(*args) is p
        bumped = alias._version - before  # (after set_ only: p then counts on the source's)
        shares = bool(args) and p.data_ptr() == args[0].data_ptr() + p.storage_offset() * 8
        p.add_(1.0)  # (writes the source's memory)
        return p, p.stride(), p.storage_offset(), p._base is None, shares, bumped, alias

    both(program)


def test_set_refuses_as_pytorch():
    def leaf(lib):
        vec(lib, [1.0, 2.0]).set_(lib.zeros(3, dtype=lib.float64))

    both(leaf, "a leaf Variable that requires grad is being used in an in-place operation.")
    for ours, source in (("float32", "float64"), ("int64", "uint8"), ("float16", "int8"), ("bool", "int16")):
        def dtypes(lib, ours=ours, source=source):
            lib.zeros(1, dtype=getattr(lib, ours)).set_(lib.zeros(1, dtype=getattr(lib, source)))

        both(dtypes)  # "Could not set tensor of type double to a tensor of type float"


def test_set_under_no_grad_keeps_requires_grad():
    def program(lib):
        q = vec(lib, [1.0, 2.0])
        with lib.no_grad():
            q.set_(lib.zeros(5, dtype=lib.float64))
        (q * 2).sum().backward()
        return q, q.requires_grad, q.is_leaf, q.grad

    both(program)


# -- out= -----------------------------------------------------------------------------------
BINARY = ["mul", "add", "sub", "div", "multiply", "subtract", "divide", "true_divide"]


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("which", ["input", "out"])
def test_out_refuses_arguments_requiring_grad(name, which):
    def program(lib):
        x = vec(lib, [1.0], grad=which == "input")
        out = vec(lib, [0.0], grad=which == "out")
        return getattr(lib, name)(x, x, out=out)

    both(program)  # "mul(): functions with out=... arguments don't support automatic differentiation..."


def _with_warnings(body):
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        result = body()
    return result, [str(w.message)[:80] for w in got]


OUT_CASES = {
    "no_grad": lambda lib, x: lib.mul(x, x, out=lib.zeros(1, dtype=lib.float64)),
    "resized with a warning": lambda lib, x: lib.mul(lib.ones(3), 2, out=lib.zeros(2)),
    "resized from empty": lambda lib, x: lib.add(lib.ones(3), 1, alpha=2, out=lib.zeros(0)),
    "float into long": lambda lib, x: lib.mul(lib.ones(3), 2.5, out=lib.zeros(3, dtype=lib.long)),
    "long into float": lambda lib, x: lib.mul(lib.ones(3, dtype=lib.long), 2, out=lib.zeros(3)),
    "into bool": lambda lib, x: lib.add(lib.ones(3), 1, out=lib.zeros(3, dtype=lib.bool)),
    "sub alpha": lambda lib, x: lib.sub(lib.ones(3), 1, alpha=3, out=lib.zeros(3)),
    "div floor": lambda lib, x: lib.div(lib.ones(3), 2, rounding_mode="floor", out=lib.zeros(3)),
    "not a tensor": lambda lib, x: lib.mul(lib.ones(2), 3, out=[1]),
}


@pytest.mark.parametrize("case", list(OUT_CASES))
def test_out_writes_the_result(case):
    def program(lib):
        x = vec(lib, [2.0])
        with lib.no_grad():
            return _with_warnings(lambda: OUT_CASES[case](lib, x))

    both(program)


def test_out_into_a_view_and_into_an_input():
    def program(lib):
        base = lib.zeros(4)
        view = base[::2]
        returned = lib.mul(lib.ones(2), 3, out=view)
        a = lib.arange(3.0)
        lib.mul(a, a, out=a)
        return returned is view, base, view._version, a, a._version

    both(program)


# -- memory formats -------------------------------------------------------------------------
def _nchw(lib):
    return lib.arange(24.0, dtype=lib.float64).reshape(1, 2, 3, 4)


FORMAT_CASES = {
    "to channels_last": lambda lib: _nchw(lib).to(memory_format=lib.channels_last),
    "to channels_last and float32": lambda lib: _nchw(lib).to(lib.float32, memory_format=lib.channels_last),
    "to channels_last copy": lambda lib: _nchw(lib).contiguous(memory_format=lib.channels_last).to(
        memory_format=lib.channels_last, copy=True),
    "to channels_last of channels_last": lambda lib: _nchw(lib).permute(0, 2, 3, 1).permute(0, 3, 1, 2).to(
        memory_format=lib.channels_last),
    "to contiguous of channels_last": lambda lib: _nchw(lib).permute(0, 2, 3, 1).permute(0, 3, 1, 2).to(
        memory_format=lib.contiguous_format),
    "to contiguous of a transposed matrix": lambda lib: lib.ones(2, 3).t().to(memory_format=lib.contiguous_format),
    "to contiguous and float64 of a transposed matrix": lambda lib: lib.ones(2, 3).t().to(
        lib.float64, memory_format=lib.contiguous_format),
    "to copy": lambda lib: _nchw(lib).transpose(2, 3).to(copy=True),
    "to channels_last of a slice": lambda lib: _nchw(lib)[:, :1].to(memory_format=lib.channels_last),
    "to channels_last of N111": lambda lib: lib.zeros(2, 1, 1, 1).to(memory_format=lib.channels_last),
    "to channels_last of a matrix": lambda lib: lib.zeros(3, 2).to(memory_format=lib.channels_last),
    "contiguous channels_last": lambda lib: _nchw(lib).contiguous(memory_format=lib.channels_last),
    "contiguous channels_last_3d": lambda lib: lib.zeros(2, 3, 4, 5, 6).contiguous(memory_format=lib.channels_last_3d),
    "contiguous channels_last of a matrix": lambda lib: lib.zeros(2, 3).contiguous(memory_format=lib.channels_last),
    "contiguous preserve": lambda lib: _nchw(lib).contiguous(memory_format=lib.preserve_format),
    "contiguous preserve of a transpose": lambda lib: _nchw(lib).transpose(2, 3).contiguous(
        memory_format=lib.preserve_format),
    "contiguous of channels_last": lambda lib: _nchw(lib).contiguous(memory_format=lib.channels_last).contiguous(),
    "clone channels_last": lambda lib: _nchw(lib).clone(memory_format=lib.channels_last),
    "clone of channels_last": lambda lib: _nchw(lib).contiguous(memory_format=lib.channels_last).clone(),
    "clone contiguous of channels_last": lambda lib: _nchw(lib).contiguous(memory_format=lib.channels_last).clone(
        memory_format=lib.contiguous_format),
    "empty_like of channels_last": lambda lib: lib.empty_like(_nchw(lib).contiguous(memory_format=lib.channels_last)),
    "zeros_like channels_last": lambda lib: lib.zeros_like(_nchw(lib), memory_format=lib.channels_last),
    "ones_like contiguous": lambda lib: lib.ones_like(_nchw(lib).contiguous(memory_format=lib.channels_last),
                                                      memory_format=lib.contiguous_format),
    "empty channels_last": lambda lib: lib.empty(1, 2, 3, 4, memory_format=lib.channels_last),
    "empty channels_last of a matrix": lambda lib: lib.empty(2, 3, memory_format=lib.channels_last),
    "elementwise of channels_last": lambda lib: _nchw(lib).contiguous(memory_format=lib.channels_last) + 1,
}


@pytest.mark.parametrize("case", list(FORMAT_CASES))
def test_memory_format_layouts(case):
    def program(lib):
        t = FORMAT_CASES[case](lib)
        flags = [t.is_contiguous(memory_format=f) for f in (
            lib.contiguous_format, lib.preserve_format, lib.channels_last, lib.channels_last_3d)]
        values = t if case.startswith("empty") else t.contiguous()
        return t.stride(), flags, values.shape if case.startswith("empty") else values

    both(program)


@pytest.mark.parametrize("how", ["to", "contiguous", "clone", "to and float32"])
def test_memory_format_copies_are_differentiable(how):
    def program(lib):
        x = _nchw(lib).requires_grad_()
        y = {
            "to": lambda: x.to(memory_format=lib.channels_last),
            "contiguous": lambda: x.contiguous(memory_format=lib.channels_last),
            "clone": lambda: x.clone(memory_format=lib.channels_last),
            "to and float32": lambda: x.to(lib.float32, memory_format=lib.channels_last),
        }[how]()
        (y * _nchw(lib).to(y.dtype)).sum().backward()
        return y.grad_fn.name(), x.grad, x.grad.stride(), y.stride()

    both(program)


def test_memory_format_aliasing():
    def program(lib):
        x = _nchw(lib)
        cl = x.contiguous(memory_format=lib.channels_last)
        return (cl.contiguous(memory_format=lib.channels_last) is cl, x.contiguous() is x,
                cl.to(memory_format=lib.channels_last) is cl, x.to(memory_format=lib.preserve_format) is x,
                x.to(memory_format=lib.contiguous_format) is x)

    both(program)
