"""jitgrad.device, Tensor.device / cpu / cuda / to, jitgrad.cuda and jitgrad.backends against
PyTorch (CPU build): the same answers, and clear RuntimeErrors for any other device."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch

import jitgrad


@pytest.mark.parametrize("args", [("cpu",), ("cpu", 0), ("cpu:0",), ("cuda",), ("cuda", 1), ("cuda:1",),
                                  ("mps",), ("meta",)])
def test_device_objects_match_torch(args) -> None:
    ours, theirs = jitgrad.device(*args), torch.device(*args)
    assert (ours.type, ours.index) == (theirs.type, theirs.index)
    assert repr(ours) == repr(theirs) and str(ours) == str(theirs)
    assert ours == jitgrad.device(str(theirs)) and hash(ours) == hash(jitgrad.device(str(theirs)))
    assert pickle.loads(pickle.dumps(ours)) == ours
    assert jitgrad.device(ours) == ours


def test_device_equality_like_torch() -> None:
    assert (jitgrad.device("cpu") == "cpu") is (torch.device("cpu") == "cpu")
    assert (jitgrad.device("cpu") == jitgrad.device("cpu:0")) is (torch.device("cpu") == torch.device("cpu:0"))


@pytest.mark.parametrize("bad", ["foo", "cpu:x", "cpu:-1", 0])
def test_bad_device_strings_raise_runtime_error_like_torch(bad) -> None:
    with pytest.raises(RuntimeError):
        torch.device(bad)
    with pytest.raises(RuntimeError, match="device"):
        jitgrad.device(bad)


def test_tensor_device_attributes() -> None:
    x = jitgrad.zeros(2)
    assert x.device == jitgrad.device("cpu") and repr(x.device) == repr(torch.zeros(2).device)
    assert (x.is_cuda, x.is_cpu, x.get_device()) == (False, True, -1)
    assert x.cpu() is x
    assert x.to("cpu") is x and x.to(jitgrad.device("cpu")) is x and x.to(device="cpu:0") is x


ACCELERATOR_CALLS = {
    "cuda()": lambda: jitgrad.zeros(2).cuda(),
    "to('cuda')": lambda: jitgrad.zeros(2).to("cuda"),
    "to('mps')": lambda: jitgrad.zeros(2).to("mps"),
    "to(device, dtype)": lambda: jitgrad.zeros(2).to(jitgrad.device("cuda", 0), jitgrad.float64),
    "to(device=)": lambda: jitgrad.zeros(2).to(device="cuda:0"),
    "zeros": lambda: jitgrad.zeros(2, device="cuda"),
    "ones": lambda: jitgrad.ones(2, device="mps"),
    "empty": lambda: jitgrad.empty(2, device="cuda"),
    "full": lambda: jitgrad.full((2,), 1.0, device="cuda"),
    "tensor": lambda: jitgrad.tensor([1.0], device="cuda"),
    "as_tensor": lambda: jitgrad.as_tensor([1.0], device="cuda"),
    "arange": lambda: jitgrad.arange(3, device="cuda"),
    "linspace": lambda: jitgrad.linspace(0, 1, 3, device="cuda"),
    "logspace": lambda: jitgrad.logspace(0, 1, 3, device="cuda"),
    "eye": lambda: jitgrad.eye(3, device="cuda"),
    "rand": lambda: jitgrad.rand(3, device="cuda"),
    "randn": lambda: jitgrad.randn(3, device="cuda"),
    "randint": lambda: jitgrad.randint(3, (2,), device="cuda"),
    "zeros_like": lambda: jitgrad.zeros_like(jitgrad.zeros(2), device="cuda"),
    "new_zeros": lambda: jitgrad.zeros(2).new_zeros(2, device="cuda"),
    "new_tensor": lambda: jitgrad.zeros(2).new_tensor([1], device="cuda"),
    "Tensor": lambda: jitgrad.Tensor([1.0], device="cuda"),
    "Generator": lambda: jitgrad.Generator(device="cuda"),
}


@pytest.mark.parametrize("name", sorted(ACCELERATOR_CALLS))
def test_every_accelerator_request_raises_a_clear_runtime_error(name: str) -> None:
    with pytest.raises(RuntimeError, match=r"CPU only; expected device 'cpu', got '(cuda|mps)(:0)?'"):
        ACCELERATOR_CALLS[name]()


def test_accelerator_probes_say_none() -> None:
    assert jitgrad.cuda.is_available() is torch.cuda.is_available() is False
    assert jitgrad.cuda.device_count() == torch.cuda.device_count() == 0
    jitgrad.cuda.manual_seed_all(0)
    assert jitgrad.backends.mps.is_available() is False and jitgrad.backends.mps.is_built() is False
    device = jitgrad.device("cuda" if jitgrad.cuda.is_available() else "cpu")
    assert jitgrad.ones(2, device=device).device == device


TO_CASES = {
    "dtype": lambda L, x: x.to(L.float64),
    "device_dtype": lambda L, x: x.to("cpu", L.int32),
    "device_kw_dtype": lambda L, x: x.to(L.device("cpu"), dtype=L.float16),
    "other": lambda L, x: x.to(L.zeros(1, dtype=L.int8)),
    "dtype_kw_copy": lambda L, x: x.to(dtype=L.float64, copy=True),
    "same_dtype_copy_positional": lambda L, x: x.to(L.float32, False, True),
    "copy_keeps_layout": lambda L, x: x.t().to(copy=True),
    "contiguous_format": lambda L, x: x.t().to(L.float64, memory_format=L.contiguous_format),
}


@pytest.mark.parametrize("name", sorted(TO_CASES))
def test_to_signatures_match_torch(name: str) -> None:
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    x, tx = jitgrad.from_numpy(data.copy()), torch.from_numpy(data.copy())
    ours, theirs = TO_CASES[name](jitgrad, x), TO_CASES[name](torch, tx)
    assert ours.dtype.name == str(theirs.dtype)[6:]
    assert ours.stride() == theirs.stride()
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    assert (ours is x) == (theirs is tx)
    assert np.shares_memory(ours.detach().numpy(), x.detach().numpy()) == (theirs.data_ptr() == tx.data_ptr())


def test_to_is_differentiable_between_float_dtypes() -> None:
    x = jitgrad.tensor([1.0, 2.0], dtype=jitgrad.float64, requires_grad=True)
    y = x.to("cpu", jitgrad.float16)
    assert y.grad_fn is not None
    (y * 3).sum().backward()
    assert x.grad.dtype == jitgrad.float64 and x.grad.tolist() == [3.0, 3.0]


def test_options_are_accepted_and_checked() -> None:
    x = jitgrad.zeros(2, device="cpu", layout=jitgrad.strided, pin_memory=False, requires_grad=True)
    assert x.requires_grad and x.device.type == "cpu"
    assert jitgrad.empty(2, memory_format=jitgrad.contiguous_format).shape == (2,)
    assert repr(jitgrad.strided) == "jitgrad.strided" and repr(jitgrad.preserve_format) == "jitgrad.preserve_format"
    with pytest.raises(RuntimeError, match="pin_memory"):
        jitgrad.zeros(2, pin_memory=True)
    with pytest.raises(RuntimeError):
        torch.zeros(2, pin_memory=True)
    with pytest.raises(TypeError, match="layout"):
        jitgrad.zeros(2, layout="sparse_coo")
    with pytest.raises(ValueError, match="memory_format"):
        jitgrad.empty(2, memory_format=jitgrad.preserve_format)
    with pytest.raises(TypeError, match="out="):
        jitgrad.zeros(2, out=jitgrad.zeros(2))
