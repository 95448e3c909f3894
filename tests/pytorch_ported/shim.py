"""A thin shim so tests ported from PyTorch's own suite run against jitgrad unchanged.

``torch`` below is jitgrad itself: ``torch.X`` resolves to ``jitgrad.X``. The only names the
shim supplies on top are PyTorch's other spellings of jitgrad's dtypes (``torch.double`` is
``jitgrad.float64``; engineer ``dtypes`` is adding the real names) and ``torch.testing``.
Everything else here is test infrastructure that PyTorch's suite gets from
``torch.testing._internal``: ``TestCase.assertEqual`` comparing tensors as
``torch.testing.assert_close`` does, ``make_tensor``, ``gradcheck`` accepting (and ignoring)
the forward-mode / batched options jitgrad has no counterpart for, ``Variable``.

Ported from pytorch/pytorch test/test_autograd.py and test/test_view_ops.py (BSD-3-Clause,
Copyright (c) Facebook, Inc. and its affiliates and PyTorch contributors); every change to a
test body is marked ``# jitgrad edit: why``.
"""

from __future__ import annotations

import contextlib
import types
import unittest
from typing import Any

import numpy as np
import pytest

import jitgrad
from jitgrad import autograd as _autograd

_DTYPE_SPELLINGS = {
    "double": jitgrad.float64, "float": jitgrad.float32, "long": jitgrad.int64,
}


_CREATION = {
    "empty", "zeros", "ones", "full", "rand", "randn", "tensor", "arange", "eye", "linspace",
    "empty_like", "zeros_like", "ones_like", "full_like", "randn_like", "rand_like",
}


def _accept_cpu_device(fn: Any) -> Any:
    """Until jitgrad's creation functions take ``device=`` (engineer ``dtypes``), drop
    ``device="cpu"``: jitgrad is CPU-only, so it means nothing."""
    import functools
    import inspect

    try:
        takes_device = "device" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        takes_device = True
    if takes_device:
        return fn

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("device", None) in (None, "cpu"):
            kwargs.pop("device", None)
        return fn(*args, **kwargs)

    return call


_LEGACY_CONSTRUCTORS = {"LongTensor": "int64", "BoolTensor": "bool", "DoubleTensor": "float64",
                        "FloatTensor": "float32"}


def _legacy_constructor(dtype_name: str) -> Any:
    """PyTorch's legacy ``torch.LongTensor(data)`` / ``torch.LongTensor(*sizes)`` (uninitialized)."""
    dtype = getattr(jitgrad, dtype_name)

    def construct(*args: Any) -> Any:
        if args and all(isinstance(a, int) for a in args):
            return jitgrad.empty(*args, dtype=dtype)
        (data,) = args
        return jitgrad.tensor(data, dtype=dtype)

    return construct


class _Torch(types.ModuleType):
    """``torch.X`` is ``jitgrad.X`` (plus PyTorch's other dtype spellings)."""

    def __getattr__(self, name: str) -> Any:
        try:
            value = getattr(jitgrad, name)
            return _accept_cpu_device(value) if name in _CREATION else value
        except AttributeError:
            if name in _DTYPE_SPELLINGS:
                return _DTYPE_SPELLINGS[name]
            if name in _LEGACY_CONSTRUCTORS:
                return _legacy_constructor(_LEGACY_CONSTRUCTORS[name])
            raise AttributeError(f"jitgrad has no attribute {name!r} (torch.{name})") from None


torch = _Torch("torch")


def _as_array(x: Any) -> Any:
    if isinstance(x, jitgrad.Tensor):
        return x.detach().numpy()
    return x


def _dtype_of(x: Any) -> Any:
    if isinstance(x, jitgrad.Tensor):
        return x.dtype
    if isinstance(x, np.ndarray):
        return x.dtype
    return None


class TestCase(unittest.TestCase):
    """``unittest.TestCase`` with PyTorch's ``assertEqual`` for tensors and sequences."""

    exact_dtype = False

    def assertEqual(self, x: Any, y: Any, msg: Any = None, *, atol: float | None = None,  # noqa: N802
                    rtol: float | None = None, exact_dtype: bool | None = None,
                    **kwargs: Any) -> None:
        if isinstance(x, (jitgrad.Tensor, np.ndarray)) or isinstance(y, (jitgrad.Tensor, np.ndarray)):
            self._assert_tensors_close(x, y, msg, atol, rtol, exact_dtype)
            return
        if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)) and (
            any(isinstance(e, (jitgrad.Tensor, np.ndarray, list, tuple)) for e in list(x) + list(y))
        ):
            self.assertEqual(len(x), len(y), msg)
            for a, b in zip(x, y):
                self.assertEqual(a, b, msg, atol=atol, rtol=rtol, exact_dtype=exact_dtype)
            return
        if isinstance(x, (tuple, list)) and isinstance(y, (tuple, list)):
            x, y = tuple(x), tuple(y)
        if isinstance(x, float) or isinstance(y, float):
            if isinstance(x, (int, float)) and isinstance(y, (int, float)):
                x, y = float(x), float(y)  # a Python int beyond int64 compares as a number
            np.testing.assert_allclose(x, y, rtol=rtol or 1.3e-6, atol=atol or 1e-5, err_msg=str(msg or ""))
            return
        super().assertEqual(x, y, msg)

    def _assert_tensors_close(self, x: Any, y: Any, msg: Any, atol: Any, rtol: Any, exact_dtype: Any) -> None:
        a, b = np.asarray(_as_array(x)), np.asarray(_as_array(y))
        exact = self.exact_dtype if exact_dtype is None else exact_dtype
        if exact and _dtype_of(x) is not None and _dtype_of(y) is not None:
            super().assertEqual(_dtype_of(x), _dtype_of(y), msg)
        if a.shape != b.shape:
            if a.size == b.size == 1 and (a.ndim == 0 or b.ndim == 0):
                a, b = a.reshape(()), b.reshape(())
            else:
                self.fail(f"shapes differ: {a.shape} vs {b.shape}" + (f" ({msg})" if msg else ""))
        if a.dtype == np.bool_ or b.dtype == np.bool_ or (
            np.issubdtype(a.dtype, np.integer) and np.issubdtype(b.dtype, np.integer)
        ):
            np.testing.assert_array_equal(a, b, err_msg=str(msg or ""))
            return
        low = np.float32 in (a.dtype, b.dtype)
        rt = rtol if rtol is not None else (1.3e-6 if low else 1e-7)
        at = atol if atol is not None else (1e-5 if low else 1e-7)
        np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=rt, atol=at,
                                   equal_nan=True, err_msg=str(msg or ""))

    def assertNotEqual(self, x: Any, y: Any, msg: Any = None) -> None:  # noqa: N802
        try:
            self.assertEqual(x, y)
        except AssertionError:
            return
        self.fail(msg or f"{x!r} == {y!r}")

    def compare_with_numpy(self, torch_fn: Any, np_fn: Any, tensor_like: Any, device: Any = None,
                           dtype: Any = None, **kwargs: Any) -> None:
        if isinstance(tensor_like, jitgrad.Tensor):
            a = tensor_like.detach().numpy()
            t = tensor_like
        else:
            a = np.asarray(tensor_like)
            t = jitgrad.tensor(a)
        self.assertEqual(torch_fn(t), np_fn(a))


def make_tensor(*shape: Any, dtype: Any, device: Any = None, low: float | None = None,
                high: float | None = None, requires_grad: bool = False, **kwargs: Any) -> Any:
    """``torch.testing.make_tensor`` for jitgrad's dtypes."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    rng = np.random.default_rng()
    dtype = np.dtype(dtype)
    lo = -9 if low is None else low
    hi = 9 if high is None else high
    if dtype == np.bool_:
        data = rng.integers(0, 2, size=shape).astype(np.bool_)
    elif np.issubdtype(dtype, np.integer):
        data = rng.integers(int(lo), int(hi), size=shape).astype(dtype)
    else:
        data = rng.uniform(lo, hi, size=shape).astype(dtype)
    t = jitgrad.tensor(data, dtype=dtype)
    if requires_grad:
        t.requires_grad_(True)
    return t


def gradcheck(fn: Any, inputs: Any, *args: Any, check_forward_ad: bool = False,
              check_batched_grad: bool = False, **kwargs: Any) -> bool:
    """jitgrad's ``gradcheck``; forward-mode and batched checks have no counterpart."""
    return _autograd.gradcheck(fn, inputs, *args, **kwargs)


def gradgradcheck(fn: Any, inputs: Any, *args: Any, check_fwd_over_rev: bool = False,
                  check_batched_grad: bool = False, **kwargs: Any) -> bool:
    return _autograd.gradgradcheck(fn, inputs, *args, **kwargs)


def Variable(data: Any, requires_grad: bool = False) -> Any:  # noqa: N802
    """PyTorch's deprecated ``Variable(t, requires_grad=...)``: a new leaf sharing ``t``'s
    storage and version counter (``t.detach()``), with ``requires_grad`` as given."""
    return data.detach().requires_grad_(requires_grad)


def needs_other_branch(reason: str) -> Any:
    """Mark a test that waits for another engineer's branch (removed after the merge)."""
    return pytest.mark.xfail(reason=reason, strict=False)


@contextlib.contextmanager
def set_warn_always_context(new_val: bool) -> Any:
    """``common_utils.set_warn_always_context``: jitgrad's warnings are not deduplicated
    (there is no ``torch.set_warn_always``), so there is nothing to switch."""
    yield


@contextlib.contextmanager
def disable_gc() -> Any:
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def with_dtypes(*dtype_names: str) -> Any:
    """``@dtypes(...)`` + ``instantiate_device_type_tests`` for CPU: run the test body once
    per dtype (named, so a dtype jitgrad lacks fails the test instead of the import)."""
    import functools

    def decorate(fn: Any) -> Any:
        @functools.wraps(fn)
        def run(self: Any) -> None:
            for name in dtype_names:
                fn(self, "cpu", getattr(torch, name))

        return run

    return decorate


def on_cpu(fn: Any) -> Any:
    """``instantiate_device_type_tests`` for CPU: call the test with ``device="cpu"``."""
    import functools

    @functools.wraps(fn)
    def run(self: Any) -> None:
        fn(self, "cpu")

    return run
