"""``copy.deepcopy`` and ``pickle`` of tensors against PyTorch: deepcopy refuses tensors with
history, keeps storage sharing among the copies (views stay views of one copied storage),
copies ``requires_grad`` and ``.grad``; pickle reads back leaves (``requires_grad`` kept),
each with its own memory and its geometry; Parameter and Buffer keep their kind."""

from __future__ import annotations

import copy
import pickle
import warnings
from typing import Any, Callable

import pytest
import torch

import jitgrad


def _pickle_nonleaf(lib: Any) -> Any:
    y = pickle.loads(pickle.dumps(lib.arange(6.0, requires_grad=True) * 2))
    return y.tolist(), y.requires_grad, y.is_leaf


def _views(lib: Any, through: Callable[[Any], Any]) -> Any:
    a = lib.arange(6.0)
    d = through({"a": a, "b": a[2:4], "c": a.view(2, 3).t()})
    d["a"][2] = 100
    return d["b"].tolist(), d["c"].stride(), d["c"].storage_offset(), d["c"].tolist(), a.tolist()


def _grad(lib: Any) -> Any:
    x = lib.arange(6.0, requires_grad=True)
    x.grad = lib.ones(6)
    z = copy.deepcopy(x)
    return z.grad.tolist(), z.requires_grad, z.is_leaf, z.grad is x.grad


def _hook_warning(lib: Any) -> Any:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        h = lib.ones(2, requires_grad=True)
        h.register_hook(lambda g: g)
        pickle.dumps(h)
    return [str(w.message)[:25] for w in caught]


def _module(lib: Any) -> Any:
    lin = lib.nn.Linear(2, 3)
    lin2 = copy.deepcopy(lin)
    return lin2.weight is lin.weight, type(lin2.weight).__name__, lin2.weight.tolist() == lin.weight.tolist()


CASES: dict[str, Callable[[Any], Any]] = {
    "pickle_nonleaf": _pickle_nonleaf,
    "pickle_views": lambda lib: _views(lib, lambda d: pickle.loads(pickle.dumps(d))),
    "deepcopy_views": lambda lib: _views(lib, copy.deepcopy),
    "deepcopy_grad": _grad,
    "deepcopy_nonleaf": lambda lib: copy.deepcopy(lib.arange(3.0, requires_grad=True) * 2),
    "deepcopy_view_of_leaf": lambda lib: copy.deepcopy(lib.arange(3.0, requires_grad=True)[1:]),
    "parameter": lambda lib: (type(pickle.loads(pickle.dumps(lib.nn.Parameter(lib.ones(2))))).__name__,
                              type(copy.deepcopy(lib.nn.Parameter(lib.ones(2)))).__name__),
    "buffer": lambda lib: (copy.deepcopy(lib.nn.Buffer(lib.ones(2), persistent=False)).persistent,
                           pickle.loads(pickle.dumps(lib.nn.Buffer(lib.ones(2), persistent=False))).persistent),
    "int32": lambda lib: str(pickle.loads(pickle.dumps(lib.ones(2, dtype=lib.int32))).dtype).split(".")[-1],
    "expanded": lambda lib: pickle.loads(pickle.dumps(lib.ones(2).expand(3, 2))).stride(),
    "hook_warning": _hook_warning,
    "module": _module,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_against_pytorch(case: str) -> None:
    got = []
    for lib in (jitgrad, torch):
        try:
            got.append(("ok", CASES[case](lib)))
        except RuntimeError as e:
            got.append(("RuntimeError", str(e)))
    assert got[0] == got[1]
