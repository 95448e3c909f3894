"""``nn.Buffer`` against PyTorch: assigned as a Module attribute it is registered as a buffer
(persistent or not), shares its data's memory and version, keeps ``requires_grad``."""

from __future__ import annotations

from typing import Any

import pytest
import torch

import jitgrad


def _module(lib: Any) -> Any:
    class M(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.b = lib.nn.Buffer(lib.ones(2))
            self.c = lib.nn.Buffer(lib.zeros(1), persistent=False)

    return M()


@pytest.mark.parametrize("lib", [jitgrad, torch], ids=["jitgrad", "torch"])
def test_buffer_registration(lib: Any) -> None:
    m = _module(lib)
    assert sorted(dict(m.named_buffers())) == ["b", "c"] and sorted(m.state_dict()) == ["b"]
    assert isinstance(m.b, lib.Tensor) and m.b.tolist() == [1.0, 1.0] and len(list(m.buffers())) == 2
    m.b = lib.nn.Buffer(lib.zeros(3))
    assert m.b.tolist() == [0.0, 0.0, 0.0] and sorted(m.state_dict()) == ["b"]
    m.c = lib.ones(2)  # a plain tensor to a buffer's name stays a (non-persistent) buffer
    assert sorted(m.state_dict()) == ["b"] and m.c.tolist() == [1.0, 1.0]
    m.x = 3
    with pytest.raises(KeyError, match="attribute 'x' already exists"):
        m.x = lib.nn.Buffer(lib.ones(1))
    assert m.x == 3 and "x" not in dict(m.named_buffers())
    m.load_state_dict({"b": lib.full((3,), 5.0)})
    assert m.b.tolist() == [5.0, 5.0, 5.0]
    m.double()
    assert m.b.dtype == lib.float64


@pytest.mark.parametrize("lib", [jitgrad, torch], ids=["jitgrad", "torch"])
def test_buffer_aliases_its_data(lib: Any) -> None:
    t = lib.zeros(2)
    b = lib.nn.Buffer(t)
    b.add_(1)
    assert t.tolist() == [1.0, 1.0] and t._version == b._version == 1
    assert b.persistent and not lib.nn.Buffer(t, persistent=False).persistent
    r = lib.nn.Buffer(lib.ones(2, requires_grad=True) * 2)
    assert r.requires_grad and r.is_leaf and r.grad_fn is None
    assert tuple(lib.nn.Buffer().shape) == (0,)
    with pytest.raises(AttributeError, match="cannot assign buffer before Module.__init__"):
        lib.nn.Module.__new__(lib.nn.Module).b = lib.nn.Buffer(lib.ones(1))
